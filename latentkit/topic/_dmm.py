"""The Dirichlet-multinomial mixture (one topic per document) by mean-field variational Bayes.

Model (Nigam, McCallum, Thrun & Mitchell 2000; Yin & Wang 2014, GSDMM, for short texts):
topic weights ``pi ~ Dir(alpha)`` (or the truncated stick-breaking prior of a Dirichlet
process, ``v_k ~ Beta(1, alpha)``), topics ``phi_k ~ Dir(eta)``; each document ``d`` has one
topic ``z_d ~ Cat(pi)`` and all its tokens ``w_dn ~ Cat(phi_{z_d})``. The variational family
``q(pi) q(phi) prod_d q(z_d)`` with ``q(z_d) = Cat(r_d)``, ``q(phi_k) = Dir(lambda_k)`` and
``q(pi) = Dir(a)`` (or Beta sticks) is the conjugate mixture of Bishop (2006, section 10.2)
for categorical tokens, every update in closed form:

    log r_dk = E[log pi_k] + sum_w x_dw E[log phi_kw] + const,
    lambda_kw = eta + sum_d r_dk x_dw,    a_k = alpha + sum_d r_dk.
"""

import numbers

import numpy as np
import scipy.sparse as sp
from scipy.special import logsumexp

from .._engine.state_checks import StateCheckError, _array, _int, _real
from .._engine.steps import check_learning_rate
from .._utils.summaries import CountSummary
from .._utils.validation import check_dense_width, check_scalar
from .._utils.words import TopWordsMixin
from ..base import LatentModel, Stats, stats_dataclass
from ..distributions._dirichlet import dirichlet_expectation, dirichlet_kl
from ..distributions._stick_breaking import (stick_expected_log_weights, stick_expected_weights,
                                             stick_kl, stick_posterior)
from ..exceptions import InputError
from ..text import counts_from_texts
from ._count_data import check_init, validate_count_data
from ._count_model import CountTopicModelMixin
from ._dmm_collapsed import collapsed_responsibilities
from ._dmm_start import single_topic_spectral
from ._report import TopicReportMixin

__all__ = ["DirichletMultinomialMixture", "DMMStats", "dmm_local"]

_PRIOR_TYPES = ("dirichlet_distribution", "dirichlet_process")


@stats_dataclass
class DMMStats(Stats):
    """Sufficient statistics of the Dirichlet-multinomial mixture (additive over documents).

    Attributes
    ----------
    sstats : ndarray of shape (n_components, n_features)
        Expected topic-word counts ``sum_d r_dk x_dw``.
    topic_counts : ndarray of shape (n_components,)
        Expected documents per topic ``sum_d r_dk``.
    n : float
        Number of documents.
    data_term : float
        ``sum_d log sum_k exp(E[log pi_k] + x_d . E[log phi_k])`` (nats): the local terms of
        the ELBO at the optimal ``r``.
    """

    sstats: np.ndarray
    topic_counts: np.ndarray
    n: float
    data_term: float


def seeded_partition(X, n_components, rng):
    """Documents assigned to the nearest of ``n_components`` seed documents by cosine
    similarity, the seeds drawn as by k-means++ (Arthur & Vassilvitskii 2007) with the cosine
    distance ``1 - max_seed cos`` (spherical k-means++; Endo & Miyamoto 2015).

    Parameters
    ----------
    X : scipy.sparse.csr_matrix of shape (n_documents, V)
    n_components : int
    rng : numpy.random.Generator

    Returns
    -------
    ndarray of shape (n_documents,) of int
        The seed (topic) of each document; a document sharing no word with any seed (an
        empty one included) on a uniformly drawn topic.
    """
    D = X.shape[0]
    norms = np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
    P = sp.diags(np.where(norms > 0, 1.0 / np.where(norms > 0, norms, 1.0), 0.0)) @ X
    P = P.tocsr()
    best = np.full(D, -np.inf)
    labels = np.zeros(D, dtype=np.int64)
    seed = int(rng.integers(D))
    for k in range(int(n_components)):
        sim = np.asarray(P @ P[seed].T.toarray()).ravel()
        better = sim > best
        labels[better], best[better] = k, sim[better]
        dist = np.maximum(1.0 - best, 0.0) ** 2
        total = dist.sum()
        seed = int(rng.integers(D)) if total <= 0 else int(rng.choice(D, p=dist / total))
    alone = best <= 0  # no word in common with any seed: a random topic, not all on seed 0
    labels[alone] = rng.integers(0, int(n_components), size=int(alone.sum()))
    return labels


def dmm_local(X, elog_phi, elog_weights):
    """Responsibilities and local bound of documents under fixed global factors.

    Parameters
    ----------
    X : scipy.sparse.csr_matrix of shape (n_documents, V)
        Counts.
    elog_phi : ndarray of shape (K, V)
        ``E[log phi_kw]``.
    elog_weights : ndarray of shape (K,)
        ``E[log pi_k]``.

    Returns
    -------
    resp : ndarray of shape (n_documents, K)
        ``q(z_d = k)`` (rows sum to 1).
    doc_elbo : ndarray of shape (n_documents,)
        ``E_q[log p(x_d, z_d | pi, phi)] - E_q[log q(z_d)]`` (nats)
        ``= logsumexp_k(E[log pi_k] + x_d . E[log phi_k])``.
    """
    L = np.asarray(X @ elog_phi.T) + elog_weights[None, :]
    doc_elbo = logsumexp(L, axis=1)
    return np.exp(L - doc_elbo[:, None]), doc_elbo


class DirichletMultinomialMixture(CountTopicModelMixin, TopicReportMixin, TopWordsMixin,
                                  LatentModel):
    """Dirichlet-multinomial mixture (one topic per document) by mean-field variational Bayes.

    The topic model of short texts (titles, one-line summaries, messages): a document has too
    few words for a mixture of topics, so all its words share one topic (Nigam et al. 2000;
    Yin & Wang 2014, GSDMM, whose Gibbs sampler fits the same model). With
    ``weight_concentration_prior_type='dirichlet_process'`` the weights are a truncated
    stick-breaking prior (Blei & Jordan 2006) whose expected weights decay along the sticks;
    variational Bayes empties a topic only where the data do not pay for it, and it does
    not merge split topics as GSDMM's sampler does (measured on 4 planted topics with K =
    12: 7 to 12 topics above 1% of the tokens), so choose K by held-out score
    (:func:`latentkit.selection`) where the number matters. Input is a documents x vocabulary count matrix; the ELBO
    is in **nats per document** (the token sequences' evidence, without multinomial
    coefficients, as :class:`LatentDirichletAllocation`).

    Parameters
    ----------
    n_components : int, default 10
        K, the number of topics (the truncation for the Dirichlet-process prior).
    weight_concentration_prior_type : {'dirichlet_distribution', 'dirichlet_process'}, \
default 'dirichlet_distribution'
        The prior of the topic weights: a symmetric ``Dir(alpha)``, or sticks ``Beta(1,
        alpha)`` truncated at K (Blei & Jordan 2006), as scikit-learn's
        ``BayesianGaussianMixture``.
    weight_concentration_prior : float, optional
        alpha (> 0). Default ``1 / n_components`` for the Dirichlet distribution, 1.0 for the
        Dirichlet process.
    topic_word_prior : float, default 0.1
        eta, the symmetric Dirichlet prior of the topics (> 0), GSDMM's beta.
    max_iter : int, default 100
        Maximum batch iterations.
    tol : float or None, default None
        Stop when the ELBO changes by less than ``tol`` nats per document; None resolves to
        ``tol_ = 1e-3 * mean_doc_length_``.
    init : {'spectral', 'collapsed', 'seeded', 'random'} or dict, default 'spectral'
        ``'spectral'``: the topics and weights of the single-topic method of moments
        (:mod:`latentkit.topic._dmm_start`; Anandkumar, Ge, Hsu, Kakade & Telgarsky 2014,
        section 3.1), ``lambda_k = eta + N_tokens w_k mu_k`` and the weights' counts ``D
        w_k``; the pair moment is whitened on its K algebraically largest eigenvalues
        (Lanczos: it is indefinite on short texts); it needs documents of 3 or more tokens
        and K positive eigenvalues, else it falls back to ``'seeded'`` with a
        :class:`~latentkit.exceptions.SpectralInitWarning`. ``'collapsed'``: 20 sweeps of
        the collapsed zero-order updates (CVB0) of GSDMM's conditional from a random start
        (:mod:`latentkit.topic._dmm_collapsed`): each document's responsibilities from the
        Dirichlet-multinomial predictive of its counts given the other documents' expected
        counts, in blocks of 2% of the corpus (8 to 256 documents). ``'seeded'``: each
        document on the nearest (cosine) of K seed documents drawn as by k-means++.
        ``'random'``: each document on a uniformly drawn topic (GSDMM's start). The
        documents' topics then give the closed-form global update. Measured on planted
        corpora (4 topics, 600 documents of 8 tokens, seeds 5-12): 'spectral' reached the
        planted topics on 8 of 8, 'collapsed' on 7, 'seeded' on 6, 'random' on 4 (the
        others merge two topics: a local optimum). On 20,000 Debian descriptions (K = 20,
        ``benchmarks/bench_short_text.py``): c_npmi 0.032 and NMI 0.257 for 'spectral',
        -0.013 and 0.234 for 'collapsed' (mean of seeds 0-3), -0.040 and 0.215 for
        'seeded'. A dict ``{'components': (K, V) array > 0}`` gives lambda (the weights at
        ``D / K`` documents per topic).
    n_init : int, default 1
        Initialisations; the one with the highest final ELBO is kept.
    learning_offset, learning_decay : float, default 10.0, 0.7
        tau_0 and kappa of the step size ``rho_t = (t + tau_0) ** -kappa`` of ``partial_fit``.
    total_samples : float, optional
        Corpus size D of ``partial_fit`` (the minibatch statistics are scaled by ``D /
        batch``); None: no scaling.
    random_state : None, int or numpy.random.Generator
    callback : callable, optional
        ``callback(model, iteration, elbo)`` after each iteration.
    verbose : bool, default False

    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_features)
        lambda, the topics' Dirichlet parameters (``top_words`` ranks its rows).
    weight_concentration_ : ndarray of shape (n_components,) or (2, n_components)
        ``a`` of ``q(pi) = Dir(a)``, or the Beta parameters of the sticks (last column (1, 0)).
    topic_weights_ : ndarray of shape (n_components,)
        ``E_q[pi_k]`` (sums to 1).
    n_effective_components_ : int
        Topics holding at least 1% of the documents' expected counts.
    weight_concentration_prior_, topic_word_prior_, mean_doc_length_, tol_ : float
    lower_bound_, lower_bounds_, n_iter_, converged_, n_features_in_
        As every latentkit model.

    Raises
    ------
    InputError
        Bad hyper-parameters or counts, naming the argument.

    Notes
    -----
    Each iteration is one exact coordinate-ascent step (``r``, then the globals), so the ELBO
    never decreases. With one topic the bound is the Dirichlet-multinomial evidence ``log
    B(eta + sum_d x_d) - log B(eta)`` (``tests/topic/test_dmm.py``). References: Nigam et al.
    (2000), *Text classification from labeled and unlabeled documents using EM*, Machine
    Learning 39; Yin & Wang (2014), *A Dirichlet multinomial mixture model-based approach for
    short text clustering*, KDD; Blei & Jordan (2006), eqs. (18)-(23) for the sticks.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.topic import DirichletMultinomialMixture
    >>> X = np.array([[3, 1, 0, 0], [2, 2, 0, 0], [0, 0, 2, 3], [0, 1, 3, 2]])
    >>> dmm = DirichletMultinomialMixture(2, random_state=0).fit(X)
    >>> dmm.transform(X).argmax(axis=1).tolist() in ([0, 0, 1, 1], [1, 1, 0, 0])
    True
    """

    def __init__(self, n_components=10, *,
                 weight_concentration_prior_type="dirichlet_distribution",
                 weight_concentration_prior=None, topic_word_prior=0.1, max_iter=100, tol=None,
                 init="spectral", n_init=1, learning_offset=10.0, learning_decay=0.7,
                 total_samples=None, random_state=None, callback=None, verbose=False):
        self.n_components = n_components
        self.weight_concentration_prior_type = weight_concentration_prior_type
        self.weight_concentration_prior = weight_concentration_prior
        self.topic_word_prior = topic_word_prior
        self.max_iter = max_iter
        self.tol = tol
        self.init = init
        self.n_init = n_init
        self.learning_offset = learning_offset
        self.learning_decay = learning_decay
        self.total_samples = total_samples
        self.random_state = random_state
        self.callback = callback
        self.verbose = verbose

    _tol_may_be_none = True

    # ---- validation ----------------------------------------------------------------------
    def _validate_params(self):
        K = check_scalar(self.n_components, "n_components", numbers.Integral, low=1)
        if self.weight_concentration_prior_type not in _PRIOR_TYPES:
            raise InputError(f"weight_concentration_prior_type must be one of {_PRIOR_TYPES}, "
                             f"got {self.weight_concentration_prior_type!r}.")
        if self.weight_concentration_prior is None:
            self.weight_concentration_prior_ = 1.0 if self._is_dp() else 1.0 / K
        else:
            self.weight_concentration_prior_ = float(check_scalar(
                self.weight_concentration_prior, "weight_concentration_prior", numbers.Real,
                low=0.0, low_inclusive=False))
        self.topic_word_prior_ = float(check_scalar(
            self.topic_word_prior, "topic_word_prior", numbers.Real, low=0.0,
            low_inclusive=False))
        check_learning_rate(self.learning_offset, self.learning_decay)
        if self.total_samples is not None:
            check_scalar(self.total_samples, "total_samples", numbers.Real, low=1)
        check_init(self.init, ("random", "seeded", "spectral", "collapsed"))

    def _is_dp(self):
        return self.weight_concentration_prior_type == "dirichlet_process"

    def _validate_data(self, X, reset, **kw):
        return validate_count_data(self, X, reset, kw)

    def _data_summary(self, data):
        return CountSummary.of(data)

    def _set_data_defaults(self, summary):
        check_dense_width(self.n_features_in_, summary.columns.size, int(self.n_components),
                          unit="columns (words)", owner=type(self).__name__,
                          what="topic-word matrix")
        self.mean_doc_length_ = float(summary.total / max(summary.n_rows, 1.0))
        self.tol_ = float(self.tol) if self.tol is not None else \
            1e-3 * max(self.mean_doc_length_, 1.0)

    # ---- start -----------------------------------------------------------------------------
    def _init_params(self, data, rng):
        K, V = int(self.n_components), data.shape[1]
        D = max(data.shape[0], 1)
        eta = self.topic_word_prior_
        if isinstance(self.init, dict):
            lam = np.array(self.init["components"], dtype=np.float64, copy=True)
            if lam.shape != (K, V):
                raise InputError(f"init['components'] must have shape ({K}, {V}) "
                                 f"(n_components, n_features), got {lam.shape}.")
            if not np.all(np.isfinite(lam)) or np.any(lam <= 0):
                raise InputError("init['components'] must be finite and strictly positive.")
            self._set_globals(lam, self._weights_posterior(np.full(K, D / K)))
            return
        est = single_topic_spectral(data, K, rng) if self.init == "spectral" else None
        if est is not None:
            w, mu = est
            n_tokens = float(data.sum())
            self._set_globals(eta + n_tokens * w[:, None] * mu, self._weights_posterior(D * w))
            return
        if self.init == "collapsed":
            resp = collapsed_responsibilities(data, K, self._collapsed_doc_prior(), eta, rng)
        else:
            labels = seeded_partition(data, K, rng) if self.init != "random" else \
                rng.integers(0, K, size=data.shape[0])
            resp = np.zeros((data.shape[0], K))
            resp[np.arange(data.shape[0]), labels] = 1.0
        sstats = np.asarray(data.T @ resp).T
        self._set_globals(eta + sstats, self._weights_posterior(resp.sum(axis=0)))

    def _collapsed_doc_prior(self):
        """The symmetric Dirichlet of the collapsed start's weights: alpha, or alpha / K for
        the sticks (the finite Dirichlet approximating a Dirichlet process of concentration
        alpha; Ishwaran & Zarepour 2002)."""
        alpha = self.weight_concentration_prior_
        return alpha / int(self.n_components) if self._is_dp() else alpha

    def _start_needs_data(self):
        return not isinstance(self.init, dict)

    def _weights_posterior(self, counts):
        """q(pi) given expected documents per topic (Dirichlet ``alpha + N_k``, or sticks)."""
        alpha = self.weight_concentration_prior_
        if self._is_dp():
            return stick_posterior(counts, 0.0, (1.0, alpha), "fixed")
        return alpha + np.asarray(counts, dtype=np.float64)

    def _set_globals(self, lam, weights):
        self.components_ = lam
        self.weight_concentration_ = weights
        self._elog_phi = dirichlet_expectation(lam)
        if self._is_dp():
            self._elog_weights = stick_expected_log_weights(weights, "fixed")[0]
            self.topic_weights_ = stick_expected_weights(weights, "fixed")
        else:
            self._elog_weights = dirichlet_expectation(weights)
            self.topic_weights_ = weights / weights.sum()
        mass = lam.sum(axis=1) - lam.shape[1] * self.topic_word_prior_
        mass = np.maximum(mass, 0.0)
        self.n_effective_components_ = int(np.sum(
            mass > 0.01 * max(float(mass.sum()), np.finfo(float).tiny)))

    def _set_state(self, state):
        """Restore the fitted state; the E-step tables are rebuilt from the factors."""
        super()._set_state(state)
        if hasattr(self, "components_"):
            self._set_globals(self.components_, self.weight_concentration_)

    def _check_state(self):
        """Validate a restored fitted state (:func:`latentkit.load`): the factors' shapes
        agree with the hyper-parameters, are finite and positive.

        Raises
        ------
        ValueError
            (``latentkit._engine.state_checks.StateCheckError``) naming the bad attribute.
        """
        K, V = _int(self, "n_components"), _int(self, "n_features_in_")
        _array(self, "components_", (K, V), positive=True)
        if self.weight_concentration_prior_type == "dirichlet_process":
            sticks = _array(self, "weight_concentration_", (2, K))
            if not np.all(sticks[:, :-1] > 0) or not np.array_equal(sticks[:, -1], [1.0, 0.0]):
                raise StateCheckError("weight_concentration_", "expected positive Beta "
                                      "parameters and a last column (1, 0)")
        else:
            _array(self, "weight_concentration_", (K,), positive=True)
        for name in ("weight_concentration_prior_", "topic_word_prior_"):
            _real(self, name, low=0.0)

    # ---- template ----------------------------------------------------------------------
    def _empty_stats(self):
        K = int(self.n_components)
        return DMMStats(sstats=np.zeros((K, self.n_features_in_)), topic_counts=np.zeros(K),
                        n=0.0, data_term=0.0)

    def _e_step(self, data):
        resp, doc_elbo = dmm_local(data, self._elog_phi, self._elog_weights)
        return DMMStats(sstats=np.asarray(data.T @ resp).T, topic_counts=resp.sum(axis=0),
                        n=float(data.shape[0]), data_term=float(doc_elbo.sum()))

    def _m_step(self, stats, step_size=1.0, scale=1.0):
        lam = self.topic_word_prior_ + scale * stats.sstats
        weights = self._weights_posterior(scale * stats.topic_counts)
        if step_size < 1.0:
            lam = (1.0 - step_size) * self.components_ + step_size * lam
            weights = (1.0 - step_size) * self.weight_concentration_ + step_size * weights
        self._set_globals(lam, weights)

    def _global_elbo_terms(self):
        kl_topics = float(np.sum(dirichlet_kl(self.components_, self.topic_word_prior_)))
        if self._is_dp():
            kl_w = stick_kl(self.weight_concentration_, (1.0, self.weight_concentration_prior_),
                            "fixed")
        else:
            kl_w = float(dirichlet_kl(self.weight_concentration_,
                                      self.weight_concentration_prior_))
        return -(kl_topics + kl_w)

    # ---- public API --------------------------------------------------------------------
    def _doc_local(self, X):
        self._check_is_fitted()
        X = self._validate_data(counts_from_texts(self, X), reset=False)
        return dmm_local(X, self._elog_phi, self._elog_weights)

    def transform(self, X):
        """Posterior over each document's topic, ``q(z_d = k)``.

        Parameters
        ----------
        X : array-like or scipy.sparse matrix of shape (n_documents, n_features), or list of str
            Counts, or raw texts when the model was fitted through :mod:`latentkit.text`.

        Returns
        -------
        ndarray of shape (n_documents, n_components)
            Rows sum to 1 (the weights ``exp E[log pi]``, normalised, for an empty document).

        Raises
        ------
        NotFittedError, InputError
        """
        return self._doc_local(X)[0]

    def predict_proba(self, X):
        """Same as :meth:`transform` (the posterior over the document's one topic).

        Parameters
        ----------
        X : array-like or scipy.sparse matrix of shape (n_documents, n_features)

        Returns
        -------
        ndarray of shape (n_documents, n_components)
        """
        return self.transform(X)

    def predict(self, X):
        """The most probable topic of each document.

        Parameters
        ----------
        X : array-like or scipy.sparse matrix of shape (n_documents, n_features)

        Returns
        -------
        ndarray of shape (n_documents,) of int
        """
        return np.argmax(self.transform(X), axis=1)

    def score_samples(self, X):
        """Local ELBO of each document (nats), ``log sum_k exp(E[log pi_k] + x_d E[log
        phi_k])`` (a dot product): ``score_samples(X).sum() + (global term) == elbo(X) *
        n_documents``.

        Parameters
        ----------
        X : array-like or scipy.sparse matrix of shape (n_documents, n_features)

        Returns
        -------
        ndarray of shape (n_documents,)
            Nats per document.
        """
        return self._doc_local(X)[1]

    def _sample_doc_topic(self, n_samples, rng):
        """One-hot topics ``z_d ~ Cat(topic_weights_)`` of :meth:`sample`."""
        K = self.components_.shape[0]
        w = self.topic_weights_ / self.topic_weights_.sum()
        theta = np.zeros((n_samples, K))
        theta[np.arange(n_samples), rng.choice(K, size=n_samples, p=w)] = 1.0
        return theta
