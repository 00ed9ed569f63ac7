"""Dirichlet-multinomial regression topic model (Mimno & McCallum 2008), fitted by variational
EM: LDA whose document-topic prior depends on the document's covariates, ``alpha_dk =
exp(sum_f z_df lambda_fk)`` with ``z_d = (1, x_d)``.

The documents are grouped by their distinct covariate rows (the rows seen at fit, e.g. one-hot
metadata); each group's E-step is LDA's asymmetric-prior kernel with that group's alpha
(:mod:`latentkit.topic._grouped_estep`). The statistics carry, per group, its number of
documents and the sum of ``E[log theta_d]``, which is all the bound needs of the documents to
update ``lambda`` (L-BFGS on the bound plus the Gaussian log prior of ``lambda``).
"""

import numbers

import numpy as np
from scipy.optimize import minimize
from scipy.special import gammaln, psi

from .._utils.summaries import CountSummary
from .._utils.validation import check_counts, check_n_features, check_scalar
from .._utils.words import TopWordsMixin
from ..base import LatentModel, Stats, stats_dataclass
from ..distributions._dirichlet import dirichlet_kl
from .._engine.state_checks import _array, _int, _real
from ..exceptions import InputError, InputTypeError
from ._grouped_estep import GroupedStep, run_groups
from ._lda_guard import GuardedEStep
from ._side_info import SideSummary
from ._lda_estep import _suff_stats
from ._report import ReportMixin

__all__ = ["DirichletMultinomialRegression", "DMRStats", "dmr_prior_objective"]


@stats_dataclass
class DMRStats(Stats):
    """Statistics of the DMR topic model (additive over documents).

    Attributes
    ----------
    sstats : ndarray of shape (n_components, n_features)
    group_docs : ndarray of shape (n_groups,)
        Documents of each fitted covariate row.
    group_elog_theta : ndarray of shape (n_groups, n_components)
        Sum of ``E[log theta_dk]`` over each group's documents.
    n, data_term, n_tokens : float
    """

    sstats: np.ndarray
    group_docs: np.ndarray
    group_elog_theta: np.ndarray
    n: float
    data_term: float
    n_tokens: float


def dmr_prior_objective(lam, Z, docs, elog_theta, prior_variance):
    """The part of the bound that depends on ``lambda`` (nats), and its gradient.

    ``sum_g [docs_g (lnGamma(sum_k a_gk) - sum_k lnGamma(a_gk)) + sum_k (a_gk - 1)
    elog_theta_gk] - ||lambda||^2 / (2 prior_variance)``, ``a_g = exp(Z_g lambda)``.

    Parameters
    ----------
    lam : ndarray of shape (n_covariates + 1, n_components)
    Z : ndarray of shape (n_groups, n_covariates + 1)
        The groups' covariate rows with the intercept column first.
    docs : ndarray of shape (n_groups,)
    elog_theta : ndarray of shape (n_groups, n_components)
    prior_variance : float

    Returns
    -------
    value : float
    gradient : ndarray of the shape of ``lam``
    """
    a = np.exp(Z @ lam)
    s = a.sum(axis=1)
    val = float(np.sum(docs * (gammaln(s) - gammaln(a).sum(axis=1)))
                + np.sum((a - 1.0) * elog_theta) - 0.5 * np.sum(lam ** 2) / prior_variance)
    dA = a * (docs[:, None] * (psi(s)[:, None] - psi(a)) + elog_theta)
    return val, Z.T @ dA - lam / prior_variance


class DirichletMultinomialRegression(ReportMixin, TopWordsMixin, LatentModel):
    """Topic model with Dirichlet-multinomial regression priors (Mimno & McCallum 2008): a
    document's topic prior ``alpha_dk = exp(lambda_0k + sum_f x_df lambda_fk)`` follows its
    covariates ``x_d``. Mean-field variational Bayes for the topics and the documents,
    ``lambda`` fitted on the bound (MAP under ``N(0, prior_variance)``); ELBO in **nats per
    document**.

    Parameters
    ----------
    n_components : int, default 10
    prior_variance : float, default 10.0
        Variance of the Gaussian prior of every entry of ``lambda`` (the intercept included).
    topic_word_prior : float, optional
        eta (> 0); default ``1 / K``.
    max_iter : int, default 100
    tol : float or None, default None
        As LDA: None resolves to ``1e-3 * mean_doc_length_`` nats per document.
    max_doc_update_iter : int, default 100
    mean_change_tol : float, default 1e-3
    init : {'random'}, default 'random'
        Topics ``Gamma(100, 1/100)`` (LDA's); ``lambda`` starts at ``alpha = 1/K`` for every
        document.
    random_state, callback, verbose
        As LDA.

    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_features)
    coef_ : ndarray of shape (n_covariates + 1, n_components)
        ``lambda``; row 0 is the intercept.
    covariate_rows_ : ndarray of shape (n_groups, n_covariates)
        The distinct covariate rows of the training documents.
    topic_word_prior_ : float
    n_features_in_, mean_doc_length_, tol_, lower_bound_, lower_bounds_, n_iter_, converged_

    Notes
    -----
    The bound is LDA's with each document's prior ``alpha_d`` (the local terms of Blei et al.
    2003, eq. 15), minus ``sum_k KL(Dir(lambda_k) || Dir(eta))`` for the topics, plus the log
    prior of ``lambda`` (MAP), per document. The E-step keeps LDA's guard; the M-step sets the
    topics in closed form and moves ``lambda`` by L-BFGS from its current value, kept only when
    the bound rises, so the bound never decreases. With no covariates (``x_d`` of width 0) the
    prior is one asymmetric alpha learned on the bound, as LDA's ``doc_topic_prior='auto'``
    (a test compares the M-step with LDA's maximiser of the same objective).
    Covariates are grouped by distinct rows, so they suit categorical metadata (one-hot
    columns); every document of a continuous covariate is its own group.

    References: Mimno & McCallum (2008), "Topic Models Conditioned on Arbitrary Features with
    Dirichlet-multinomial Regression", UAI.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.topic import DirichletMultinomialRegression
    >>> X = np.random.default_rng(0).poisson(1.0, size=(20, 6))
    >>> C = np.repeat([[0.0], [1.0]], 10, axis=0)
    >>> m = DirichletMultinomialRegression(2, random_state=0, max_iter=5).fit(X, covariates=C)
    >>> m.coef_.shape
    (2, 2)
    """

    _sample_unit = "document"
    _tol_may_be_none = True
    _row_fit_params = ("covariates",)

    def __init__(self, n_components=10, *, prior_variance=10.0, topic_word_prior=None,
                 max_iter=100, tol=None, max_doc_update_iter=100, mean_change_tol=1e-3,
                 init="random", random_state=None, callback=None, verbose=False):
        self.n_components = n_components
        self.prior_variance = prior_variance
        self.topic_word_prior = topic_word_prior
        self.max_iter = max_iter
        self.tol = tol
        self.max_doc_update_iter = max_doc_update_iter
        self.mean_change_tol = mean_change_tol
        self.init = init
        self.random_state = random_state
        self.callback = callback
        self.verbose = verbose

    def _validate_params(self):
        K = check_scalar(self.n_components, "n_components", numbers.Integral, low=1)
        check_scalar(self.prior_variance, "prior_variance", numbers.Real, low=0.0,
                     low_inclusive=False)
        eta = self.topic_word_prior
        self.topic_word_prior_ = float(1.0 / K if eta is None else check_scalar(
            eta, "topic_word_prior", numbers.Real, low=0.0, low_inclusive=False))
        check_scalar(self.max_doc_update_iter, "max_doc_update_iter", numbers.Integral, low=1)
        check_scalar(self.mean_change_tol, "mean_change_tol", numbers.Real, low=0.0)
        if self.init != "random":
            raise InputError(f"init must be 'random', got {self.init!r}.")

    def _validate_data(self, X, reset, covariates=None, **kw):
        if kw:
            raise InputTypeError(f"DirichletMultinomialRegression got unexpected arguments "
                                 f"{sorted(kw)}.")
        X = check_counts(X, "X")
        D = X.shape[0]
        if covariates is None:
            if reset:
                raise InputError("fit needs covariates=: an array (n_documents, n_covariates) "
                                 "(width 0 for none), got None.")
            C = np.zeros((D, self.covariate_rows_.shape[1]))
        else:
            C = np.asarray(covariates, dtype=np.float64)
            if C.ndim == 1:
                C = C[:, None]
            if C.ndim != 2 or C.shape[0] != D or not np.all(np.isfinite(C)):
                raise InputError(f"covariates must be a finite array with one row per document "
                                 f"({D}), got shape {C.shape}.")
        if reset:
            self.n_features_in_ = X.shape[1]
            self.covariate_rows_ = np.unique(C, axis=0)
        else:
            check_n_features(X.shape[1], self.n_features_in_, "X", type(self).__name__)
            if C.shape[1] != self.covariate_rows_.shape[1]:
                raise InputError(f"covariates must have {self.covariate_rows_.shape[1]} "
                                 f"columns, got {C.shape[1]}.")
        rows, inverse = np.unique(C, axis=0, return_inverse=True)
        inverse = np.asarray(inverse).ravel()
        data = _CovariateCounts(X, rows, inverse, np.full(rows.shape[0], -1))
        if reset:
            self._resolve_data_defaults(data)
        # while a driver merges the chunks' summaries (a chunked source, Dask), the fitted
        # rows are not known yet (all the chunks' rows: _set_data_defaults)
        if not self.__dict__.get("_defer_data_defaults", False):
            data.fitted = self._fitted_group(rows)
        return data

    def _fitted_group(self, rows):
        """Index of each row among ``covariate_rows_`` (-1 when not a training row)."""
        out = np.full(rows.shape[0], -1)
        for i, r in enumerate(rows):
            hit = np.flatnonzero(np.all(self.covariate_rows_ == r, axis=1))
            if hit.size:
                out[i] = hit[0]
        return out

    def _data_summary(self, data):
        return SideSummary(CountSummary.of(data.X), data.rows)

    def _set_data_defaults(self, summary):
        self.covariate_rows_ = summary.values
        summary = summary.counts
        self.mean_doc_length_ = float(summary.total / max(summary.n_rows, 1.0))
        self.tol_ = float(self.tol) if self.tol is not None else \
            1e-3 * max(self.mean_doc_length_, 1.0)

    def _start_needs_data(self):
        return False

    def _init_params(self, data, rng):
        K, V = int(self.n_components), self.n_features_in_
        self._set_components(rng.gamma(100.0, 0.01, size=(K, V)))
        self.coef_ = np.zeros((self.covariate_rows_.shape[1] + 1, K))
        self.coef_[0] = np.log(1.0 / K)

    def _set_components(self, lam):
        self.components_ = lam
        elog = psi(lam) - psi(lam.sum(axis=1, keepdims=True))
        shift = elog.max(axis=0)
        self._table = (np.ascontiguousarray(np.exp(elog - shift).T), np.ascontiguousarray(shift))

    def _set_state(self, state):
        super()._set_state(state)
        if hasattr(self, "components_"):
            self._set_components(self.components_)

    def _check_state(self):
        """Validate a restored fitted state (:func:`latentkit.load`).

        Raises
        ------
        ValueError
            (``latentkit._engine.state_checks.StateCheckError``) naming the bad attribute.
        """
        K, V = _int(self, "n_components"), _int(self, "n_features_in_")
        _array(self, "components_", (K, V), positive=True)
        rows = _array(self, "covariate_rows_", (None, None))
        _array(self, "coef_", (rows.shape[1] + 1, K))
        _real(self, "topic_word_prior_", low=0.0)

    def _alphas(self, rows):
        return np.exp(np.hstack([np.ones((rows.shape[0], 1)), rows]) @ self.coef_)

    def _local(self, data, gamma0=None, max_iter=None):
        cap = self.max_doc_update_iter if max_iter is None else max_iter
        alphas = self._alphas(data.rows)
        out = []
        for g in range(data.rows.shape[0]):  # one kernel call per covariate row
            out += [(g, r, loc) for _, r, loc in run_groups(
                [data.parts[g]], [data.members[g]], [self._table], alphas[g], cap,
                self.mean_change_tol, gamma0)]
        return out

    def _gather(self, data, local):
        D, K = data.shape[0], int(self.n_components)
        gamma, doc_elbo = np.empty((D, K)), np.empty(D)
        ss = np.zeros((K, self.n_features_in_))
        G = self.covariate_rows_.shape[0]
        docs, elog = np.zeros(G), np.zeros((G, K))
        for g, rows, (gm, et, ratio, de) in local:
            gamma[rows], doc_elbo[rows] = gm, de
            ss += _suff_stats(data.parts[g], ratio, et, self._table[0])
            fg = data.fitted[g]
            if fg >= 0:
                docs[fg] += rows.size
                elog[fg] += np.sum(psi(gm) - psi(gm.sum(axis=1, keepdims=True)), axis=0)
        return gamma, doc_elbo, DMRStats(sstats=ss, group_docs=docs, group_elog_theta=elog,
                                         n=float(D), data_term=float(doc_elbo.sum()),
                                         n_tokens=float(data.X.data.sum()))

    def _empty_stats(self):
        K, G = int(self.n_components), self.covariate_rows_.shape[0]
        return DMRStats(sstats=np.zeros((K, self.n_features_in_)), group_docs=np.zeros(G),
                        group_elog_theta=np.zeros((G, K)), n=0.0, data_term=0.0, n_tokens=0.0)

    def _e_step(self, data):
        return self._gather(data, self._local(data))[2]

    def _guard_part(self, data, cap, old=None):
        """:meth:`GroupedStep.part` where a Dask block lives (the model rebuilt there)."""
        return GroupedStep(self._local, self._gather).part(data, cap, old)

    def _warm_state(self):
        return GuardedEStep(self.max_doc_update_iter)

    def _warm_e_step(self, data, warm):
        """The E-step with LDA's monotone guard (class Notes), the same on in-memory, chunked
        and Dask data (:class:`latentkit.topic._lda_guard.GuardedEStep`)."""
        return warm.e_step(data, GroupedStep(self._local, self._gather),
                           self._global_elbo_terms(), self._empty_stats,
                           (self, type(self)._guard_part))

    def _m_step(self, stats, step_size=1.0, scale=1.0):
        stats = self._blend_stats(stats, step_size, scale)
        self._set_components(self.topic_word_prior_ + stats.sstats)
        Z = np.hstack([np.ones((self.covariate_rows_.shape[0], 1)), self.covariate_rows_])
        args = (Z, stats.group_docs, stats.group_elog_theta, float(self.prior_variance))
        shape = self.coef_.shape
        f0 = dmr_prior_objective(self.coef_, *args)[0]

        def neg(v):
            val, grad = dmr_prior_objective(v.reshape(shape), *args)
            return -val, -grad.ravel()

        res = minimize(neg, self.coef_.ravel(), jac=True, method="L-BFGS-B",
                       options={"maxiter": 200, "gtol": 1e-9})
        if np.all(np.isfinite(res.x)) and -res.fun > f0:  # kept only when the bound rises
            self.coef_ = res.x.reshape(shape)

    def _global_elbo_terms(self):
        return (-float(np.sum(dirichlet_kl(self.components_, self.topic_word_prior_)))
                - 0.5 * float(np.sum(self.coef_ ** 2)) / float(self.prior_variance)
                - 0.5 * self.coef_.size * np.log(2.0 * np.pi * float(self.prior_variance)))

    # ---- public API --------------------------------------------------------------------------
    def fit(self, X, y=None, covariates=None):
        """Fit the topics and the regression of the topic prior.

        Parameters
        ----------
        X : array-like, scipy.sparse matrix, ChunkSource or Dask collection
            Counts, (n_documents, n_features).
        y : ignored
        covariates : array-like of shape (n_documents, n_covariates)
            Each document's covariates (the intercept is added); width 0 for none. With a
            chunked source or a Dask array or bag as ``X``, the whole ``covariates`` is cut
            with the rows (or each chunk carries its own as ``(X, {'covariates': ...})``);
            the fit equals the in-memory fit.

        Returns
        -------
        self

        Raises
        ------
        InputError
            ``covariates`` missing, of the wrong shape or non-finite.
        """
        return super().fit(X, y, covariates=covariates)

    def doc_topic_prior(self, covariates):
        """``alpha_d = exp(z_d lambda)`` of covariate rows.

        Parameters
        ----------
        covariates : array-like of shape (n_documents, n_covariates)

        Returns
        -------
        ndarray of shape (n_documents, n_components)
        """
        self._check_is_fitted()
        C = np.asarray(covariates, dtype=np.float64).reshape(-1, self.covariate_rows_.shape[1])
        return self._alphas(C)

    def transform(self, X, covariates=None):
        """Posterior mean topic proportions.

        Parameters
        ----------
        X : array-like or scipy.sparse matrix of shape (n_documents, n_features)
        covariates : array-like of shape (n_documents, n_covariates), optional
            Default: zeros (the intercept's prior).

        Returns
        -------
        ndarray of shape (n_documents, n_components)
        """
        gamma = self._doc_topic(X, covariates)[0]
        return gamma / gamma.sum(axis=1, keepdims=True)

    def _doc_topic(self, X, covariates):
        self._check_is_fitted()
        data = self._validate_data(X, reset=False, covariates=covariates)
        gamma, doc_elbo, _ = self._gather(data, self._local(data))
        return gamma, doc_elbo

    def score_samples(self, X, covariates=None):
        """Local ELBO of each document (nats).

        Parameters
        ----------
        X : array-like or scipy.sparse matrix of shape (n_documents, n_features)
        covariates : optional

        Returns
        -------
        ndarray of shape (n_documents,)
        """
        return self._doc_topic(X, covariates)[1]

    def score(self, X, y=None, covariates=None):
        """Mean ELBO per document (nats): :meth:`elbo`.

        Parameters
        ----------
        X : array-like or scipy.sparse matrix of shape (n_documents, n_features)
        y : ignored
        covariates : optional

        Returns
        -------
        float
        """
        return self.elbo(X, covariates=covariates)


class _CovariateCounts:
    """Counts grouped by distinct covariate rows."""

    def __init__(self, X, rows, inverse, fitted):
        self.X, self.rows, self.inverse, self.fitted = X, rows, inverse, fitted
        self.members = [np.flatnonzero(inverse == g) for g in range(rows.shape[0])]
        self.parts = [X[m] for m in self.members]

    @property
    def shape(self):
        return self.X.shape

    def __getitem__(self, key):
        if not isinstance(key, slice):
            raise InputTypeError("the covariate counts take a slice of rows.")
        inv = self.inverse[key]
        used = np.unique(inv)
        remap = np.full(self.rows.shape[0], -1)
        remap[used] = np.arange(used.size)
        return _CovariateCounts(self.X[key], self.rows[used], remap[inv], self.fitted[used])
