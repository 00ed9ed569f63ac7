"""LDA's top-k truncated E-step (``LatentDirichletAllocation(e_step_topk=...)``, issue 46).

Where K is large a dense VB sweep costs O(K) per token and sweep, and most of a word's
responsibility sits on a few topics. With ``e_step_topk=k`` each token's ``q(z)`` is restricted
to ``k`` topics: those with the largest ``exp(E[log theta_dk]) exp(E[log beta_kw])`` among
the candidates (the current support, the word's ``2k`` topics of highest ``E[log beta]``, the
document's ``k`` topics of highest ``E[log theta]``), re-chosen at the current gamma before
sweeps 1, 3, 9, 27, 81 and at the final gamma. This is a valid mean-field family, so the
E-step is still coordinate ascent on an exact bound, and the ELBO (phi's entropy over the kept
topics included) is computed exactly; the M-step, the priors and the monotone guard of the
batch fit are unchanged. The kernel, the choice of candidates and the sources:
:mod:`latentkit._kernels.topic_sparse`.

Why this method and not the sparse Gibbs local step of Mimno, Hoffman & Blei (2012), "Sparse
stochastic inference for latent Dirichlet allocation" (ICML): theirs is stochastic (a
Gibbs-sampled local step, so no exact bound and no deterministic fit), while the truncation
keeps everything latentkit's LDA promises (a deterministic, pure-function E-step; an exact,
guarded bound), and with ``k >= K`` it is the dense step.

Used by the batch fit (:class:`SparseLDALocalStep` for the guard), ``partial_fit`` /
``transform`` / ``score_samples`` (:func:`run_sparse_e_step`) and the stochastic stepper
(:func:`sparse_local_stats`).
"""

import numbers

import numpy as np

from .._kernels import topic_sparse as _ks
from .._utils.doc_threads import over_documents
from ..exceptions import InputError
from ._lda_estep import _THREADS_FROM_NNZ, _csr_arrays, _run_e_step
from ._lda_guard import LDALocalStep
from ._lda_priors import prior_stats

__all__ = ["AUTO_FROM_K", "AUTO_TOPK", "SparseLDALocalStep", "guard_step", "resolve_e_step_topk",
           "run_sparse_e_step", "sparse_local_stats"]

#: Candidates of a word's support during the sweeps: its ``CANDIDATES_PER_K * k`` topics of
#: highest ``E[log beta]`` (with the document's top k and the current support)
CANDIDATES_PER_K = 2
#: ``e_step_topk='auto'``: the truncated step from this many topics on (dense below) ...
#: Measured (``benchmarks/bench_k_scaling.py``, 450 NIPS documents, SVI, time to the dense
#: SVI's held-out perplexity after 15 s): k = 16 took 1.7x the dense time at K = 100, 0.53x at
#: K = 250 and 0.46x at K = 500 (docs/guide/benchmarks.md, "Sparse E-step").
AUTO_FROM_K = 200
#: ... keeping this many topics per token.
AUTO_TOPK = 16


def resolve_e_step_topk(value, n_components):
    """The topics kept per token, or None for the dense step.

    Parameters
    ----------
    value : None, int >= 1 or 'auto'
        ``e_step_topk`` as given.
    n_components : int
        K.

    Returns
    -------
    int or None
        None: the dense E-step (``value`` None, ``'auto'`` with K below :data:`AUTO_FROM_K`,
        or an int >= K, whose truncation keeps every topic).

    Raises
    ------
    InputError
        Naming ``e_step_topk``.
    """
    if value is None:
        return None
    if isinstance(value, str):
        if value != "auto":
            raise InputError(f"e_step_topk must be None, 'auto' or an int >= 1, got {value!r}.")
        value = AUTO_TOPK if int(n_components) >= AUTO_FROM_K else None
        return value if value is None or value < int(n_components) else None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise InputError(f"e_step_topk must be None, 'auto' or an int >= 1, got {value!r}.")
    return int(value) if int(value) < int(n_components) else None


def _alpha_vector(alpha, K):
    """alpha as a writable float64 (K,) vector (one compiled signature for both priors)."""
    return np.array(np.broadcast_to(np.asarray(alpha, dtype=np.float64), (K,)), order="C")


def sparse_local_kernel(indptr, indices, data, exp_beta_t, shift, alpha, max_iter, tol, topk,
                        gamma0=None):
    """The truncated kernel on CSR arrays (as ``_lda_estep._local_kernel``). Returns gamma,
    exp_theta, ``(ratio, support)``, doc_elbo, n_iter."""
    D = indptr.shape[0] - 1
    V, K = exp_beta_t.shape
    gamma = np.empty((D, K)) if gamma0 is None else np.array(gamma0, dtype=np.float64,
                                                              order="C", copy=True)
    exp_theta = np.empty((D, K))
    ratio = np.empty(data.shape[0])
    support = np.empty((data.shape[0], min(int(topk), K)), dtype=np.int64)
    doc_elbo = np.empty(D)
    n_iter = np.empty(D, dtype=np.int64)
    # each word's candidates: its CANDIDATES_PER_K * k topics of highest E[log beta]
    table = np.empty((V, min(K, CANDIDATES_PER_K * support.shape[1])), dtype=np.int64)
    table_val = np.empty(table.shape)
    _ks.lda_word_topk(indices, exp_beta_t, np.empty(V, dtype=np.int8), table, table_val)
    over_documents(_ks.lda_sparse_e_step, indptr, indices, data, exp_beta_t, shift,
                   _alpha_vector(alpha, K), table, table_val, gamma, gamma0 is not None,
                   int(max_iter), float(tol), exp_theta, ratio, support, doc_elbo, n_iter,
                   serial_below=_THREADS_FROM_NNZ)
    return gamma, exp_theta, (ratio, support), doc_elbo, n_iter


def _stats_t(indptr, indices, ratio_support, exp_theta, exp_beta_t):
    ratio, support = ratio_support
    ss_t = np.empty(exp_beta_t.shape)
    _ks.lda_sparse_suff_stats(indptr, indices, ratio, support, exp_theta, exp_beta_t, ss_t)
    return ss_t


def _suff_stats(X, ratio_support, exp_theta, exp_beta_t):
    indptr, indices, _ = _csr_arrays(X)
    return np.ascontiguousarray(_stats_t(indptr, indices, ratio_support, exp_theta,
                                         exp_beta_t).T)


def _run_local(X, exp_beta_t, shift, alpha, max_iter, tol, topk, gamma0=None):
    return sparse_local_kernel(*_csr_arrays(X), exp_beta_t, shift, alpha, max_iter, tol, topk,
                               gamma0)


def run_sparse_e_step(X, exp_beta_t, shift, alpha, max_iter, tol, topk, gamma0=None,
                      sstats=True):
    """``_lda_estep._run_e_step`` with the truncated kernel (``topk`` None: the dense one).

    Parameters
    ----------
    X : scipy.sparse.csr_matrix of shape (n_documents, n_features)
        Validated counts.
    exp_beta_t : ndarray of shape (n_features, n_components); shift : ndarray (n_features,)
        The shifted E-step table and its shift (``_lda_estep._beta_tables``).
    alpha : float or ndarray of shape (n_components,)
    max_iter : int; tol : float
        Sweeps and stopping tolerance per document.
    topk : int or None
        Topics kept per token.
    gamma0 : ndarray of shape (n_documents, n_components), optional
    sstats : bool
        Compute the expected topic-word counts.

    Returns
    -------
    gamma, sstats (or None), doc_elbo (nats per document), n_iter
    """
    if topk is None:
        return _run_e_step(X, exp_beta_t, shift, alpha, max_iter, tol, gamma0=gamma0,
                           sstats=sstats)
    gamma, exp_theta, rs, doc_elbo, n_iter = _run_local(X, exp_beta_t, shift, alpha, max_iter,
                                                        tol, topk, gamma0)
    ss = _suff_stats(X, rs, exp_theta, exp_beta_t) if sstats else None
    return gamma, ss, doc_elbo, n_iter


def sparse_local_stats(indptr, indices, data, exp_beta_t, shift, alpha, max_iter, tol, topk,
                       gamma0=None):
    """The stochastic stepper's local step on its compact tables: gamma, the transposed
    statistics (V_B, K), doc_elbo, n_iter."""
    gamma, exp_theta, rs, doc_elbo, n_iter = sparse_local_kernel(
        indptr, indices, data, exp_beta_t, shift, alpha, max_iter, tol, topk, gamma0)
    return gamma, _stats_t(indptr, indices, rs, exp_theta, exp_beta_t), doc_elbo, n_iter


class SparseLDALocalStep(LDALocalStep):
    """:class:`latentkit.topic._lda_guard.LDALocalStep` with the truncated kernel (the batch
    fit's guard: the previous gamma kept per document where its bound, with supports chosen
    at it, is higher; both bounds exact).

    Parameters
    ----------
    exp_beta_t, beta_shift, alpha, mean_change_tol, learn_alpha
        As :class:`LDALocalStep`.
    topk : int
        Topics kept per token.
    """

    def __init__(self, exp_beta_t, beta_shift, alpha, mean_change_tol, learn_alpha, topk):
        super().__init__(exp_beta_t, beta_shift, alpha, mean_change_tol, learn_alpha)
        self.topk = int(topk)

    def cold(self, X, cap):
        return _run_local(X, self.exp_beta_t, self.beta_shift, self.alpha, cap, self.tol,
                          self.topk)[:4]

    def keep_better(self, X, local, gamma_old):
        gamma, exp_theta, (ratio, support), doc_elbo = local
        g_old, et_old, (r_old, s_old), de_old, _ = _run_local(
            X, self.exp_beta_t, self.beta_shift, self.alpha, 0, 0.0, self.topk,
            gamma0=gamma_old)
        keep = de_old > doc_elbo
        gamma[keep] = g_old[keep]
        exp_theta[keep] = et_old[keep]
        doc_elbo[keep] = de_old[keep]
        tokens = np.repeat(keep, np.diff(X.indptr))
        ratio = np.where(tokens, r_old, ratio)
        support = np.where(tokens[:, None], s_old, support)
        return gamma, exp_theta, (ratio, support), doc_elbo

    def stats(self, X, local):
        gamma, exp_theta, rs, doc_elbo = local
        ss = _suff_stats(X, rs, exp_theta, self.exp_beta_t)
        return prior_stats(self.learn_alpha, X, ss, doc_elbo, gamma), gamma


def guard_step(exp_beta_t, beta_shift, alpha, mean_change_tol, learn_alpha, topk):
    """The batch fit's local step: :class:`SparseLDALocalStep`, or the dense
    :class:`LDALocalStep` when ``topk`` is None."""
    if topk is None:
        return LDALocalStep(exp_beta_t, beta_shift, alpha, mean_change_tol, learn_alpha)
    return SparseLDALocalStep(exp_beta_t, beta_shift, alpha, mean_change_tol, learn_alpha, topk)
