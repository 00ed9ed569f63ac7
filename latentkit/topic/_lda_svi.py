"""The stochastic variational step of LDA on the minibatch's vocabulary only.

:class:`latentkit.inference.StochasticVI` takes its steps through this stepper (the model's
``_svi_stepper`` hook) once ``partial_fit`` has initialised the model. Each step is exactly
the natural-gradient step of Hoffman, Blei & Bach (2010, Algorithm 2) and Hoffman, Blei, Wang &
Paisley (2013, Algorithm 1, eq. 26)::

    lambda <- (1 - rho) lambda + rho (eta + (N / |B|) sstats_B)

computed without touching the K x V topics outside the minibatch's words ``W_B``:

* ``lambda = eta + S * U`` (``U`` stored transposed, V x K). The step multiplies
  ``lambda - eta`` by ``1 - rho`` everywhere (``S <- (1 - rho) S``, one scalar) and adds
  ``rho (N/|B|) sstats_B / S_new`` to the columns ``W_B`` of ``U``. When ``S`` falls below
  ``1e-100`` it is folded into ``U`` (``U <- S U``, ``S <- 1``: O(VK), rare).
* The row sums ``sum_w lambda_kw = V eta + S sum_w U_wk`` are updated by the same column
  increments, so ``psi(sum_w lambda_kw)`` costs O(K).
* The E-step reads ``exp(E[log beta])`` on ``W_B`` only (:func:`lda_compact_tables`), with the
  minibatch's word ids relabelled to ``0 .. |W_B| - 1``.

Per step this is O(nnz_B K iterations + |W_B| K) instead of adding O(V K) for the full table
and the dense blend, i.e. the cost of the minibatch, not of the vocabulary. ``sync`` writes
``components_`` (and the model's full E-step tables) back whenever the model is read.
"""

import numpy as np
import scipy.sparse as sp
from scipy.special import psi

from .._kernels import svi as _ks
from .._kernels import topic as _k
from .._engine.fitting import StepResult
from ..distributions import dirichlet_kl
from ._lda_estep import _local_kernel
from ._lda_sparse import resolve_e_step_topk, sparse_local_stats
from ..inference._stochastic_vi import _heldout_count, _is_fraction
from ..exceptions import InputError

__all__ = ["LDAStochasticStepper", "online_batch_size", "stochastic_stepper"]


def stochastic_stepper(model, base, total_samples, set_components):
    """:class:`LDAStochasticStepper` for ``model``, or None when its class overrides one of
    the steps of ``base`` (LatentDirichletAllocation) that the stepper replaces: such a
    subclass keeps its own ``partial_fit`` steps."""
    if any(getattr(type(model), f) is not getattr(base, f) for f in
           ("partial_fit", "_partial_step", "_e_step", "_m_step", "_local_step",
            "_validate_data", "_global_elbo_terms")):
        return None
    return LDAStochasticStepper(model, total_samples, set_components)


def online_batch_size(batch_size, n_documents, holdout):
    """Minibatch size of ``learning_method='online'``: ``batch_size``, or all the training
    documents when it exceeds them (scikit-learn's behaviour; StochasticVI itself refuses a
    batch larger than the data). ``holdout`` as a fraction removes its documents first, with
    StochasticVI's rounding."""
    n_train = int(n_documents)
    if _is_fraction(holdout):
        n_train -= _heldout_count(float(holdout), n_train)
    return max(1, min(int(batch_size), n_train))

class CSRRows:
    """Rows of the training matrix validated once per fit (:meth:`LDAStochasticStepper.bind`):
    the CSR arrays of a minibatch, which :meth:`LDAStochasticStepper.step` takes without
    validating them again. ``shape`` is (rows, V)."""

    __slots__ = ("indptr", "indices", "data", "shape")

    def __init__(self, indptr, indices, data, n_features):
        self.indptr, self.indices, self.data = indptr, indices, data
        self.shape = (indptr.shape[0] - 1, n_features)


#: Below this, the running factor S of lambda - eta is folded into U.
_MIN_SCALE = 1e-100


class LDAStochasticStepper:
    """Sparse natural-gradient steps on a fitted (initialised) LatentDirichletAllocation.

    Parameters
    ----------
    model : LatentDirichletAllocation
        Initialised (``components_`` set, e.g. by a first ``partial_fit``); its topics are
        taken over and written back by :meth:`sync`.
    total_samples : int
        N, the number of training documents (minibatch statistics are scaled by N / |B|).
    set_components : callable
        ``set_components(lam)``: the model's setter of its topics, called by :meth:`sync`.
    """

    def __init__(self, model, total_samples, set_components):
        self.model = model
        self.set_components = set_components
        self.n_total = float(total_samples)
        self.eta = float(model.topic_word_prior_)
        lam = np.asarray(model.components_, dtype=np.float64)
        self.K, self.V = lam.shape
        self.u_t = np.ascontiguousarray((lam - self.eta).T)  # (V, K)
        self.scale = 1.0
        self.row_u = self.u_t.sum(axis=0)  # (K,)
        self._mark = np.empty(self.V, dtype=np.int64)
        self.synced = True

    def _row_sums(self):
        return self.V * self.eta + self.scale * self.row_u

    def _fold(self):
        """``U <- S U``, ``S <- 1`` and the exact row sums (the part of :meth:`sync` that the
        later steps' numbers depend on)."""
        if self.scale != 1.0:
            self.u_t *= self.scale
            self.scale = 1.0
        self.row_u = self.u_t.sum(axis=0)

    def bind(self, X):
        """Validate the in-memory training matrix ``X`` once (as each ``partial_fit`` call
        would validate its rows: every check is row by row) and return ``take(rows)``, the
        :class:`CSRRows` of ``X[rows]`` (:func:`latentkit._kernels.svi.gather_rows`: no
        scipy indexing and no validation per step)."""
        X = self.model._validate_data(X, reset=False)
        if not sp.isspmatrix_csr(X):
            X = sp.csr_matrix(X)
        indptr = np.ascontiguousarray(X.indptr, dtype=np.int64)
        indices = np.ascontiguousarray(X.indices, dtype=np.int64)
        data = np.ascontiguousarray(X.data, dtype=np.float64)
        n_features = X.shape[1]

        def take(rows):
            return CSRRows(*_ks.gather_rows(indptr, indices, data,
                                            np.ascontiguousarray(rows, dtype=np.int64)),
                           n_features)
        return take

    def _global_term(self):
        """The model's global ELBO term ``-sum_k KL(q(beta_k) || p(beta_k))`` at the current
        topics, the number ``model._global_elbo_terms()`` gives after :meth:`sync`, without
        the sync's full E-step tables (only for the epoch bound)."""
        if self.synced:
            return float(self.model._global_elbo_terms())
        self._fold()
        lam = np.ascontiguousarray(self.eta + self.u_t.T)
        return -float(np.sum(dirichlet_kl(lam, self.model.topic_word_prior_)))

    def sync(self):
        """Write ``lambda = eta + S U`` back into the model (``components_`` and its full
        E-step tables); exact row sums are recomputed at the same time."""
        if self.synced:
            return
        self._fold()
        self.set_components(np.ascontiguousarray(self.eta + self.u_t.T))
        self.synced = True

    def step(self, X, rho, record_global=False, gamma0=None):
        """One SVI step on the minibatch ``X`` with step size ``rho``.

        Parameters
        ----------
        X : array-like, sparse matrix of shape (n_documents, V), or CSRRows
            The minibatch (validated as ``partial_fit`` does; :class:`CSRRows` of
            :meth:`bind` are validated already).
        rho : float in (0, 1]
        record_global : bool
            Also record the global ELBO term at the topics entering the step (needs a sync).
        gamma0 : ndarray of shape (n_documents, K), optional
            Starting gamma of the documents' coordinate ascent (e.g. their gamma from the
            previous epoch); default ``alpha + N_d / K``.

        Returns
        -------
        StepResult
            The sum of the documents' local ELBO, |B| and the global term (or None), as
            ``LatentModel._partial_step`` returns them; ``model.n_steps_`` is advanced as
            ``partial_fit`` does. The documents' final gamma is kept in ``last_gamma``
            (n_documents, K).
        """
        model = self.model
        if isinstance(X, CSRRows):
            indptr, indices, data = X.indptr, X.indices, X.data
        else:
            X = model._validate_data(X, reset=False)
            if not sp.isspmatrix_csr(X):
                X = sp.csr_matrix(X)
            indptr = np.ascontiguousarray(X.indptr, dtype=np.int64)
            indices = X.indices
            data = np.ascontiguousarray(X.data, dtype=np.float64)
        D = X.shape[0]
        if D == 0:
            raise InputError("partial_fit received an empty minibatch.")
        if D > self.n_total:
            raise InputError(f"total_samples={int(self.n_total)} is smaller than the minibatch "
                             f"({D} documents); it must be the size of the whole data set.")
        glob = None
        if record_global:
            glob = self._global_term()
        cols, local = _ks.compact_columns(indices, self._mark, self.V)
        K = self.K
        exp_beta_t = np.empty((cols.shape[0], K))
        shift = np.empty(cols.shape[0])
        _ks.lda_compact_tables(self.u_t, cols, self.scale, self.eta, psi(self._row_sums()),
                               exp_beta_t, shift)
        topk = resolve_e_step_topk(getattr(model, "e_step_topk", None), K)
        if topk is not None:  # the top-k truncated E-step (latentkit.topic._lda_sparse)
            gamma, ss_t, doc_elbo, n_iter = sparse_local_stats(
                indptr, local, data, exp_beta_t, shift, model.doc_topic_prior_,
                model.max_doc_update_iter, model.mean_change_tol, topk, gamma0)
        else:
            gamma, exp_theta, ratio, doc_elbo, n_iter = _local_kernel(
                indptr, local, data, exp_beta_t, shift, model.doc_topic_prior_,
                model.max_doc_update_iter, model.mean_change_tol, gamma0)
            ss_t = np.empty_like(exp_beta_t)
            _k.lda_suff_stats(indptr, local, ratio, exp_theta, exp_beta_t, ss_t)
        # lambda - eta <- (1 - rho)(lambda - eta) + rho (N/|B|) sstats
        dense = True
        if rho >= 1.0:
            self.u_t[:] = 0.0
            self.scale = 1.0
        elif (1.0 - rho) * self.scale < _MIN_SCALE:
            self.u_t *= (1.0 - rho) * self.scale
            self.scale = 1.0
        else:
            self.scale *= 1.0 - rho
            dense = False
        row_inc = np.empty(K)
        _ks.add_scaled_rows(self.u_t, cols, ss_t, rho * self.n_total / D / self.scale, row_inc)
        if dense:
            self.row_u = self.u_t.sum(axis=0)
        else:
            self.row_u += row_inc
        self.synced = False
        model.n_steps_ = getattr(model, "n_steps_", 0) + 1
        self.last_n_iter, self.last_gamma = n_iter, gamma
        return StepResult(float(doc_elbo.sum()), float(D), glob)
