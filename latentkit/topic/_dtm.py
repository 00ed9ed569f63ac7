"""The dynamic topic model (Blei & Lafferty 2006), fitted by variational EM with the
variational Kalman filter.

Model: T time slices; each topic's natural parameters drift as a Gaussian random walk,
``beta_{1,k} ~ N(0, v0 I)``, ``beta_{t,k} | beta_{t-1,k} ~ N(beta_{t-1,k}, sigma^2 I)``; a
document of slice t draws ``theta_d ~ Dir(alpha)``, and each token a topic ``z ~ Cat(theta_d)``
and a word ``w ~ Cat(softmax(beta_{t,z}))``. Variational family (section 3.1 of the paper):
``q(theta_d) = Dir(gamma_d)``, ``q(z) = Cat(phi)``, and per topic and word the posterior of the
chain given variational pseudo-observations (:mod:`latentkit.topic._dtm_chain`).

The E-step is LDA's (:mod:`latentkit.topic._lda_estep`'s kernel), run slice by slice with
that slice's topics ``E[log beta_{t,k,w}] ~ m_{t,k,w} - V_t / 2 - log sum_w' exp(m_{t,k,w'})``
(the paper's bound on the log normaliser, eq. 5, at its optimal zeta); the M-step optimises the
pseudo-observations (Newton's method on the bound over the smoothed means).
"""

import numbers

import numpy as np
import scipy.sparse as sp
from scipy.special import logsumexp

from .._utils.summaries import CountSummary
from .._utils.validation import check_scalar
from ..base import LatentModel, Stats, stats_dataclass
from .._engine.state_checks import StateCheckError, _array, _int, _real
from ..exceptions import InputError
from ._count_data import check_init
from ._dtm_chain import (apply_precision, chain_kl_constant, chain_precision, chain_variances,
                         m_step_means, pseudo_observations)
from ._dtm_data import validate_sliced
from ._lda import LatentDirichletAllocation
from ._spectral_start import spectral_init_lda
from ._grouped_estep import GroupedStep, run_groups
from ._lda_guard import GuardedEStep
from ._side_info import SideSummary
from ._lda_estep import _suff_stats
from ._report import ReportMixin
from .._utils.words import top_words

__all__ = ["DynamicTopicModel", "DTMStats"]


@stats_dataclass
class DTMStats(Stats):
    """Sufficient statistics of the dynamic topic model (additive over documents).

    Attributes
    ----------
    sstats : ndarray of shape (n_slices, n_components, n_features)
        Expected topic-word counts of each slice, ``sum_{d in t} n_dw phi_dwk``.
    n : float
        Number of documents.
    data_term : float
        Sum over documents of their local ELBO terms (nats).
    n_tokens : float
        Number of tokens.
    """

    sstats: np.ndarray
    n: float
    data_term: float
    n_tokens: float


def _slice_tables(means, variances):
    """Per slice, the LDA kernel's shifted transposed table ``exp(E[log beta] - shift)``
    (V, K) and the shift (V,), from the smoothed means (T, K, V) and variances (T,)."""
    tables = []
    for t in range(means.shape[0]):
        elog = means[t] - logsumexp(means[t], axis=1, keepdims=True) - 0.5 * variances[t]
        shift = elog.max(axis=0)
        tables.append((np.ascontiguousarray(np.exp(elog - shift).T),
                       np.ascontiguousarray(shift)))
    return tables


class DynamicTopicModel(ReportMixin, LatentModel):
    """Dynamic topic model (Blei & Lafferty 2006): topics that drift over time slices.

    Documents carry a time (``times``, one label per document: a year, a date, a slice
    number); the distinct labels, sorted, are the slices. Within a slice the documents follow
    LDA; from one slice to the next each topic's natural parameters (log word weights) take a
    Gaussian random-walk step of variance ``chain_variance``. Fitted by variational EM: LDA's
    E-step per slice, then the variational Kalman filter and smoother of each topic's word
    chains with their pseudo-observations optimised. The ELBO is in **nats per document**.

    Parameters
    ----------
    n_components : int, default 10
        Number of topics K.
    chain_variance : float, default 0.005
        sigma^2, the variance of a topic's natural parameters from one slice to the next
        (gensim's default; smaller: smoother topics).
    obs_variance : float, default 0.5
        nu^2, the variance of the variational pseudo-observations (a fixed variational
        parameter, as in the paper and gensim).
    initial_variance : float, optional
        v0, the prior variance of the natural parameters at the first slice; default
        ``1000 * chain_variance`` (gensim's).
    doc_topic_prior : float, optional
        alpha, symmetric Dirichlet prior of the documents' topic proportions (> 0); default
        ``1 / K``.
    max_iter : int, default 50
        Maximum EM iterations.
    tol : float or None, default None
        Stop when the ELBO changes by less than ``tol`` nats per document; None resolves to
        ``tol_ = 1e-3 * mean_doc_length_`` (as LDA).
    max_doc_update_iter : int, default 100
        Maximum coordinate-ascent sweeps per document in the E-step.
    mean_change_tol : float, default 1e-3
        A document's E-step stops when the mean absolute change of its gamma is below this.
    init : {'lda', 'spectral', 'random'} or dict, default 'lda'
        Starting topics, the same at every slice: ``'lda'`` fits
        :class:`latentkit.topic.LatentDirichletAllocation` (same K and alpha, its defaults
        otherwise) on all the documents, as the paper does; ``'spectral'`` takes the topics
        of :class:`latentkit.spectral.SpectralLDA` on all the documents
        (:func:`latentkit.topic.spectral_init_lda`, method of moments: no iterations; it
        falls back to the random start with a ``SpectralInitWarning`` when the moments are
        degenerate; on the PEPs it needs 3x the iterations of ``'lda'`` and ends 20 nats per
        document lower, ``benchmarks/bench_dtm_start.py``); ``'random'`` draws
        ``Gamma(100, 1/100)`` topic weights (LDA's random start); ``{'components': array (K,
        V)}`` gives positive topic weights (e.g. a fitted LDA's ``components_``). The means
        start at the log of the normalised weights.
    random_state : None, int or numpy.random.Generator
    callback : callable, optional
        ``callback(model, n_iter, elbo)`` after every iteration; returning True stops the fit.
    verbose : bool, default False

    Attributes
    ----------
    time_slices_ : ndarray of shape (n_slices,)
        The slice labels (sorted distinct ``times`` of the training documents).
    topic_means_ : ndarray of shape (n_slices, n_components, n_features)
        Smoothed variational means ``m_{t,k,w}`` of the topics' natural parameters.
    topic_variances_ : ndarray of shape (n_slices,)
        Their smoothed variances ``V_t`` (the same for every topic and word).
    pseudo_observations_ : ndarray of shape (n_slices, n_components, n_features)
        The variational pseudo-observations whose Kalman smoother gives ``topic_means_``
        (computed on access).
    doc_topic_prior_, initial_variance_ : float
        The resolved alpha and v0.
    n_features_in_, mean_doc_length_, tol_
    lower_bound_, lower_bounds_, n_iter_, converged_, monitor_
        As in :class:`latentkit.base.LatentModel`; ELBO in nats per document.

    Notes
    -----
    **The bound.** ``lower_bound_`` is the mean over documents of the local LDA terms
    ``E[log p(w|z, beta_t)] + E[log p(z|theta)] + E[log p(theta|alpha)] - E[log q(theta)]
    - E[log q(z)]`` (with ``E[log p(w|z=k, beta_t)]`` replaced by the paper's lower bound
    ``m_tkw - log sum_w' exp(m_tkw' + V_t / 2)``, eq. 5 at its optimal zeta), plus, divided by
    the number of documents, ``-sum_{k,w} KL(q(beta_{1..T,k,w}) || p(beta_{1..T,k,w}))`` in
    closed form (with the smoother's lag-one covariances; gensim's ``compute_bound`` omits
    some of these terms). It is a lower bound on the log evidence per document. The E-step
    restarts every document from ``gamma = alpha + N_d / K``; when that gives a lower bound
    than the previous iteration, each document keeps the better of the new and the previous
    gamma (LDA's guard); the M-step maximises the bound over the pseudo-observations exactly
    (a strictly concave problem in the smoothed means, which are linear and invertible in the
    pseudo-observations; Newton's method with a line search from the previous means), so the
    bound never decreases. ``obs_variance`` stays fixed, as in the paper.

    References: Blei & Lafferty (2006), "Dynamic Topic Models", ICML, sections 3-3.1, eq. 4-7.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.topic import DynamicTopicModel
    >>> rng = np.random.default_rng(0)
    >>> X = rng.poisson(1.0, size=(40, 12))
    >>> years = np.repeat([2001, 2002, 2003, 2004], 10)
    >>> dtm = DynamicTopicModel(2, init="random", random_state=0, max_iter=5).fit(X, times=years)
    >>> dtm.topic_means_.shape, dtm.transform(X, times=years).shape
    ((4, 2, 12), (40, 2))
    """

    _sample_unit = "document"
    _tol_may_be_none = True
    _row_fit_params = ("times",)

    def __init__(self, n_components=10, *, chain_variance=0.005, obs_variance=0.5,
                 initial_variance=None, doc_topic_prior=None, max_iter=50, tol=None,
                 max_doc_update_iter=100, mean_change_tol=1e-3, init="lda",
                 random_state=None, callback=None, verbose=False):
        self.n_components = n_components
        self.chain_variance = chain_variance
        self.obs_variance = obs_variance
        self.initial_variance = initial_variance
        self.doc_topic_prior = doc_topic_prior
        self.max_iter = max_iter
        self.tol = tol
        self.max_doc_update_iter = max_doc_update_iter
        self.mean_change_tol = mean_change_tol
        self.init = init
        self.random_state = random_state
        self.callback = callback
        self.verbose = verbose

    # ---- template ----------------------------------------------------------------------------
    def _validate_params(self):
        K = check_scalar(self.n_components, "n_components", numbers.Integral, low=1)
        for name in ("chain_variance", "obs_variance"):
            check_scalar(getattr(self, name), name, numbers.Real, low=0.0, low_inclusive=False)
        v0 = self.initial_variance
        self.initial_variance_ = float(1000.0 * self.chain_variance if v0 is None else
                                       check_scalar(v0, "initial_variance", numbers.Real,
                                                    low=0.0, low_inclusive=False))
        a = self.doc_topic_prior
        self.doc_topic_prior_ = float(1.0 / K if a is None else check_scalar(
            a, "doc_topic_prior", numbers.Real, low=0.0, low_inclusive=False))
        check_scalar(self.max_doc_update_iter, "max_doc_update_iter", numbers.Integral, low=1)
        check_scalar(self.mean_change_tol, "mean_change_tol", numbers.Real, low=0.0)
        check_init(self.init, ("lda", "spectral", "random"))

    def _validate_data(self, X, reset, times=None, **kw):
        # while a driver merges the chunks' summaries (a chunked source, Dask), every chunk
        # has its own slices; the fitted slices are all the chunks' (_set_data_defaults)
        own = reset or self.__dict__.get("_defer_data_defaults", False)
        data = validate_sliced(X, times, kw, type(self).__name__,
                               None if own else self.time_slices_,
                               None if reset else self.n_features_in_)
        if reset:
            self.n_features_in_ = data.X.shape[1]
            self.time_slices_ = data.labels
            self._resolve_data_defaults(data)
        return data

    def _data_summary(self, data):
        return SideSummary(CountSummary.of(data.X), data.labels)

    def _set_data_defaults(self, summary):
        self.time_slices_ = summary.values
        summary = summary.counts
        self.mean_doc_length_ = float(summary.total / max(summary.n_rows, 1.0))
        self.tol_ = float(self.tol) if self.tol is not None else \
            1e-3 * max(self.mean_doc_length_, 1.0)

    def _start_needs_data(self):
        return isinstance(self.init, str) and self.init in ("lda", "spectral")

    def _init_params(self, data, rng):
        K, V, T = int(self.n_components), self.n_features_in_, self.time_slices_.shape[0]
        if isinstance(self.init, dict):
            lam = np.array(self.init["components"], dtype=np.float64)
            if lam.shape != (K, V) or not np.all(np.isfinite(lam)) or np.any(lam <= 0):
                raise InputError(f"init['components'] must be a finite positive array of shape "
                                 f"({K}, {V}) (n_components, n_features), got shape "
                                 f"{lam.shape}.")
        elif self.init == "lda":
            lda = LatentDirichletAllocation(K, doc_topic_prior=self.doc_topic_prior_,
                                            random_state=rng)
            lam = lda.fit(data.X).components_
        elif self.init == "spectral":  # the static spectral topics of all the slices
            lam = spectral_init_lda(data.X, K, self.doc_topic_prior_,
                                    random_state=rng)["components"]
        else:
            lam = rng.gamma(100.0, 0.01, size=(K, V))
        m = np.log(lam / lam.sum(axis=1, keepdims=True))
        self._set_means(np.broadcast_to(m, (T, K, V)).copy())

    def _chain(self):
        """(variances, Q's diagonal, Q's off-diagonal) of the chains at the fitted T."""
        T = self.time_slices_.shape[0]
        var = chain_variances(T, self.chain_variance, self.obs_variance, self.initial_variance_)
        qd, qo = chain_precision(T, self.chain_variance, self.initial_variance_)
        return var, qd, qo

    def _set_means(self, means):
        var, _, _ = self._chain()
        self.topic_means_ = means
        self.topic_variances_ = var.smoothed
        self._tables = _slice_tables(means, var.smoothed)

    def _set_state(self, state):
        super()._set_state(state)
        if hasattr(self, "topic_means_"):
            self._set_means(self.topic_means_)

    def _check_state(self):
        """Validate a restored fitted state (:func:`latentkit.load`).

        Raises
        ------
        ValueError
            (``latentkit._engine.state_checks.StateCheckError``) naming the bad attribute.
        """
        K, V = _int(self, "n_components"), _int(self, "n_features_in_")
        labels = getattr(self, "time_slices_", None)
        if not isinstance(labels, np.ndarray) or labels.ndim != 1 or labels.size < 1:
            raise StateCheckError("time_slices_", "expected a 1-D array of slice labels")
        T = labels.shape[0]
        if T > 1 and not np.all(labels[1:] > labels[:-1]):
            raise StateCheckError("time_slices_", "expected sorted distinct labels")
        _array(self, "topic_means_", (T, K, V))
        _array(self, "topic_variances_", (T,), positive=True)
        for name in ("doc_topic_prior_", "initial_variance_"):
            _real(self, name, low=0.0)

    def _empty_stats(self):
        T, K = self.time_slices_.shape[0], int(self.n_components)
        return DTMStats(sstats=np.zeros((T, K, self.n_features_in_)), n=0.0, data_term=0.0,
                        n_tokens=0.0)

    def _local(self, data, gamma0=None, max_iter=None):
        """LDA's per-document kernel, slice by slice (:func:`run_groups`); ``max_iter=0``
        with ``gamma0`` evaluates the given gamma."""
        cap = self.max_doc_update_iter if max_iter is None else max_iter
        return run_groups(data.parts, data.rows, self._tables, self.doc_topic_prior_, cap,
                          self.mean_change_tol, gamma0)

    def _gather(self, data, local):
        """Gamma (D, K), doc_elbo (D,) and the statistics from the per-slice results."""
        D, K = data.shape[0], int(self.n_components)
        gamma, doc_elbo = np.empty((D, K)), np.empty(D)
        ss = np.zeros((data.n_slices, K, self.n_features_in_))
        for t, rows, (g, et, ratio, de) in local:
            gamma[rows], doc_elbo[rows] = g, de
            ss[t] = _suff_stats(data.parts[t], ratio, et, self._tables[t][0])
        stats = DTMStats(sstats=ss, n=float(D), data_term=float(doc_elbo.sum()),
                         n_tokens=float(data.X.data.sum()))
        return gamma, doc_elbo, stats

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
        _, qd, qo = self._chain()
        self._set_means(m_step_means(stats.sstats, self.topic_means_, qd, qo))

    def _global_elbo_terms(self):
        var, qd, qo = self._chain()
        m = self.topic_means_
        const = chain_kl_constant(var, self.chain_variance, self.initial_variance_)
        return float(m.shape[1] * m.shape[2] * const
                     - 0.5 * np.sum(m * apply_precision(m, qd, qo)))

    # ---- public API --------------------------------------------------------------------------
    @property
    def pseudo_observations_(self):
        """The variational pseudo-observations (n_slices, n_components, n_features) whose
        Kalman smoother gives ``topic_means_`` (``m + nu^2 Q m``)."""
        self._check_is_fitted()
        _, qd, qo = self._chain()
        return pseudo_observations(self.topic_means_, qd, qo, float(self.obs_variance))

    def fit(self, X, y=None, times=None):
        """Fit the topic chains by variational EM.

        Parameters
        ----------
        X : array-like, scipy.sparse matrix, ChunkSource or Dask collection
            Non-negative counts, (n_documents, n_features).
        y : ignored
        times : array-like of shape (n_documents,)
            Each document's time slice label (numbers, dates or strings; sorted distinct
            values are the slices, one random-walk step apart).
            With a chunked source or a Dask array or bag as ``X``, the whole ``times`` is cut
            with the rows (or each chunk carries its own as ``(X, {'times': ...})``); the
            fit equals the in-memory fit.

        Returns
        -------
        self

        Raises
        ------
        InputError
            Invalid counts, ``times`` missing or of the wrong length, bad hyper-parameters.
        """
        return super().fit(X, y, times=times)

    def _doc_topic(self, X, times):
        self._check_is_fitted()
        data = self._validate_data(X, reset=False, times=times)
        gamma, doc_elbo, _ = self._gather(data, self._local(data))
        return data, gamma, doc_elbo

    def transform(self, X, times=None):
        """Posterior mean topic proportions ``gamma_d / sum_k gamma_dk`` of each document at
        its slice's topics.

        Parameters
        ----------
        X : array-like or scipy.sparse matrix of shape (n_documents, n_features)
        times : array-like of shape (n_documents,), optional
            Fitted slice labels; default: every document at the last slice.

        Returns
        -------
        ndarray of shape (n_documents, n_components)
            Rows sum to 1.

        Raises
        ------
        NotFittedError, InputError
            Among them a label that is not in ``time_slices_``.
        """
        gamma = self._doc_topic(X, times)[1]
        return gamma / gamma.sum(axis=1, keepdims=True)

    def score_samples(self, X, times=None):
        """Local ELBO of each document (nats) at its slice's topics (class Notes; the global
        chain term is not per document).

        Parameters
        ----------
        X : array-like or scipy.sparse matrix of shape (n_documents, n_features)
        times : array-like of shape (n_documents,), optional
            Default: the last slice.

        Returns
        -------
        ndarray of shape (n_documents,)
        """
        return self._doc_topic(X, times)[2]

    def score(self, X, y=None, times=None):
        """Mean ELBO per document (nats), with the global term divided by the number of
        documents: :meth:`elbo`.

        Parameters
        ----------
        X : array-like or scipy.sparse matrix of shape (n_documents, n_features)
        y : ignored
        times : array-like of shape (n_documents,), optional

        Returns
        -------
        float
        """
        return self.elbo(X, times=times)

    def perplexity(self, X, times=None, *, per_slice=False):
        """Held-out perplexity ``exp(-sum_d ELBO_d / n_tokens)`` from the documents' local
        bounds (Hoffman, Blei & Bach 2010, section 4; without the global chain term), over all
        documents or per slice.

        Parameters
        ----------
        X : array-like or scipy.sparse matrix of shape (n_documents, n_features)
        times : array-like of shape (n_documents,), optional
            Default: the last slice.
        per_slice : bool, default False
            Return one perplexity per fitted slice (NaN for a slice without tokens in ``X``).

        Returns
        -------
        float, or ndarray of shape (n_slices,)

        Raises
        ------
        NotFittedError, InputError
            ``X`` has no tokens (``per_slice=False``).
        """
        data, _, doc_elbo = self._doc_topic(X, times)
        tokens = np.asarray(data.X.sum(axis=1)).ravel()
        if not per_slice:
            if tokens.sum() <= 0:
                raise InputError("X contains no tokens; perplexity is undefined.")
            return float(np.exp(-doc_elbo.sum() / tokens.sum()))
        T = data.n_slices
        num = np.bincount(data.slices, weights=doc_elbo, minlength=T)
        den = np.bincount(data.slices, weights=tokens, minlength=T)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(den > 0, np.exp(-num / np.where(den > 0, den, 1.0)), np.nan)

    def topic_word_distributions(self):
        """``softmax(m_{t,k})``, the topics at their variational means, per slice.

        Returns
        -------
        ndarray of shape (n_slices, n_components, n_features)
            Rows sum to 1.
        """
        self._check_is_fitted()
        m = self.topic_means_
        return np.exp(m - logsumexp(m, axis=2, keepdims=True))

    def topic_prevalence(self, X, times):
        """Each topic's share of each slice's documents: the mean of :meth:`transform` over
        the documents of the slice.

        Parameters
        ----------
        X : array-like or scipy.sparse matrix of shape (n_documents, n_features)
        times : array-like of shape (n_documents,)

        Returns
        -------
        ndarray of shape (n_slices, n_components)
            Rows sum to 1 (NaN for a slice without documents).
        """
        data, gamma, _ = self._doc_topic(X, times)
        theta = gamma / gamma.sum(axis=1, keepdims=True)
        T, K = data.n_slices, theta.shape[1]
        out = np.full((T, K), np.nan)
        for t, rows in enumerate(data.rows):
            if rows.size:
                out[t] = theta[rows].mean(axis=0)
        return out

    def top_words(self, vocabulary=None, n=10, time_slice=-1):
        """The ``n`` most probable words of each topic at one slice.

        Parameters
        ----------
        vocabulary : sequence of str, optional
            Default ``feature_names_in_`` when set, else column indices.
        n : int, default 10
        time_slice : int, default -1
            Position of the slice in ``time_slices_``.

        Returns
        -------
        list of list
        """
        self._check_is_fitted()
        if vocabulary is None:
            vocabulary = getattr(self, "feature_names_in_", None)
        return top_words(self.topic_word_distributions()[time_slice], vocabulary, n)

    def sample(self, n_samples=1, random_state=None, doc_length=None, time_slice=-1):
        """Draw documents of one slice: ``theta ~ Dir(alpha)``, ``N ~ Poisson(doc_length)``,
        counts ``~ Multinomial(N, theta @ softmax(m_t))``.

        Parameters
        ----------
        n_samples : int, default 1
        random_state : None, int or numpy.random.Generator
            Default: the model's own sampling generator.
        doc_length : float, optional
            Mean length; default ``mean_doc_length_``.
        time_slice : int, default -1
            Position of the slice in ``time_slices_``.

        Returns
        -------
        X : scipy.sparse.csr_matrix of shape (n_samples, n_features)
        doc_topic : ndarray of shape (n_samples, n_components)
        """
        self._check_is_fitted()
        n_samples = check_scalar(n_samples, "n_samples", numbers.Integral, low=1)
        rng = self._sampling_rng(random_state)
        mean_len = self.mean_doc_length_ if doc_length is None else check_scalar(
            doc_length, "doc_length", numbers.Real, low=0.0)
        K = int(self.n_components)
        theta = rng.dirichlet(np.full(K, self.doc_topic_prior_), size=n_samples)
        theta = np.nan_to_num(theta, nan=0.0)
        bad = theta.sum(axis=1) <= 0
        theta[bad] = 1.0 / K
        theta /= theta.sum(axis=1, keepdims=True)
        p = theta @ self.topic_word_distributions()[time_slice]
        p /= p.sum(axis=1, keepdims=True)
        counts = rng.multinomial(rng.poisson(mean_len, size=n_samples), p)
        return sp.csr_matrix(counts.astype(np.float64)), theta
