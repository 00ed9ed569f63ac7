"""The biterm topic model (Yan, Guo, Lan & Cheng 2013) by mean-field variational Bayes.

Model: a corpus-level topic mixture ``theta ~ Dir(alpha)``, topics ``phi_k ~ Dir(eta)``; every
biterm ``b = {w_b1, w_b2}`` (an unordered pair of token positions of one document) draws a
topic ``z_b ~ Cat(theta)`` and both words from ``phi_{z_b}``. Identical biterms have the same
optimal ``q(z_b)``, so the fit runs over the DISTINCT biterms weighted by their counts ``n_b``
(:mod:`latentkit.topic._biterms`); its cost grows with the distinct biterms, not with their
occurrences:

    log r_bk = E[log theta_k] + E[log phi_k,w_b1] + E[log phi_k,w_b2] + const,
    lambda_kw = eta + sum_b n_b r_bk ([w_b1 = w] + [w_b2 = w]),   a_k = alpha + sum_b n_b r_bk.
"""

import numbers

import numpy as np
import scipy.sparse as sp
from scipy.special import logsumexp

from .._engine.state_checks import _array, _int, _real
from .._engine.steps import check_learning_rate
from .._utils.summaries import CountSummary
from .._utils.validation import check_dense_width, check_scalar
from .._utils.words import TopWordsMixin
from ..base import LatentModel, Stats, stats_dataclass
from ..distributions._dirichlet import dirichlet_expectation, dirichlet_kl
from ..exceptions import InputError
from ..text import counts_from_texts
from ._biterms import BitermData
from ._count_data import check_init, validate_count_data
from ._count_model import CountTopicModelMixin
from ._dmm import seeded_partition
from ._dmm_start import single_topic_spectral
from ._report import TopicReportMixin

__all__ = ["BitermTopicModel", "BTMStats", "btm_local"]


@stats_dataclass
class BTMStats(Stats):
    """Sufficient statistics of the biterm topic model (additive over documents).

    Attributes
    ----------
    sstats : ndarray of shape (n_components, n_features)
        Expected topic-word counts of the biterms' words.
    topic_counts : ndarray of shape (n_components,)
        Expected biterms per topic ``sum_b n_b r_bk``.
    n : float
        Number of documents.
    data_term : float
        ``sum_b n_b log sum_k exp(E[log theta_k] + E[log phi_k,w_b1] + E[log phi_k,w_b2])``
        (nats).
    n_biterms : float
        Biterm occurrences.
    """

    sstats: np.ndarray
    topic_counts: np.ndarray
    n: float
    data_term: float
    n_biterms: float


def btm_local(first, second, elog_phi, elog_theta):
    """Responsibilities and bound of distinct biterms under fixed global factors.

    Parameters
    ----------
    first, second : ndarray of shape (n_biterms,) of int
        The words of each biterm.
    elog_phi : ndarray of shape (K, V)
        ``E[log phi_kw]``.
    elog_theta : ndarray of shape (K,)
        ``E[log theta_k]``.

    Returns
    -------
    resp : ndarray of shape (n_biterms, K)
        ``q(z_b = k)`` (rows sum to 1).
    bound : ndarray of shape (n_biterms,)
        ``log sum_k exp(E[log theta_k] + E[log phi_k,w_b1] + E[log phi_k,w_b2])`` (nats), the
        local ELBO of one occurrence of the biterm.
    """
    L = elog_phi[:, first].T + elog_phi[:, second].T + elog_theta[None, :]
    bound = logsumexp(L, axis=1)
    return np.exp(L - bound[:, None]), bound


def _word_counts(first, second, weights, V):
    """``sum_b weights_bk ([w_b1 = w] + [w_b2 = w])`` as (K, V)."""
    A = sp.csr_matrix((np.ones(2 * first.size), (np.tile(np.arange(first.size), 2),
                                                 np.concatenate([first, second]))),
                      shape=(first.size, V))
    return np.asarray(A.T @ weights).T


class BitermTopicModel(CountTopicModelMixin, TopicReportMixin, TopWordsMixin, LatentModel):
    """Biterm topic model for short texts by mean-field variational Bayes over distinct biterms.

    Short documents carry too few words for per-document topic mixtures; the biterm topic
    model (Yan, Guo, Lan & Cheng 2013) models the corpus's word pairs instead: every unordered
    pair of tokens of a document (a biterm) shares one topic drawn from a corpus-level
    mixture. Input is a documents x vocabulary count matrix (all pairs of a document's tokens
    form its biterms; for long texts, split them into windows first). The ELBO is in **nats
    per document**: the biterms' bound summed over each document's biterms (a document of
    ``l`` tokens has ``l (l - 1) / 2``; one of fewer than 2 tokens contributes 0).

    Parameters
    ----------
    n_components : int, default 10
        K, the number of topics.
    weight_concentration_prior : float, optional
        alpha of the corpus mixture ``theta ~ Dir(alpha)`` (> 0); default ``50 /
        n_components`` (Yan et al. 2013, section 5).
    topic_word_prior : float, default 0.01
        eta, the symmetric Dirichlet prior of the topics (> 0; Yan et al.'s beta).
    max_iter : int, default 100
        Maximum batch iterations.
    tol : float or None, default None
        Stop when the ELBO changes by less than ``tol`` nats per document; None resolves to
        ``tol_ = 1e-3 * mean_doc_length_``.
    init : {'seeded', 'random', 'spectral'} or dict, default 'seeded'
        ``'spectral'``: the topics and weights of the DMM's single-topic method of moments
        (:func:`latentkit.topic._dmm_start.single_topic_spectral`: the pair moment of a
        document's tokens is ``sum_k w_k mu_k mu_k^T`` under both models), ``lambda_k = eta +
        2 N_biterms w_k mu_k`` and the weights' counts ``N_biterms w_k``; it falls back to
        'seeded' with a :class:`~latentkit.exceptions.SpectralInitWarning` where the
        moments are degenerate. On the 20,000 Debian descriptions it reached c_npmi 0.051
        (against -0.025 from 'seeded'; docs/guide/topic_models.md).
        ``'seeded'``: each document of the start sample on the nearest (cosine) of K seed
        documents drawn as by k-means++ (the DMM's ``'seeded'``), and each biterm on its
        document's topic; ``'random'``: each distinct biterm on a uniformly drawn topic (Yan
        et al.'s Gibbs start). Then the closed-form global update. Measured on 20,000 Debian
        descriptions (K = 20; ``benchmarks/bench_short_text.py``, docs/guide/topic_models.md):
        'seeded' agrees more with the sections (NMI 0.202, ARI 0.121 against 0.166, 0.087)
        at a lower c_npmi (-0.025 against -0.003); with the seed partitions of seeds 0 and 1
        it ended at a higher ELBO (-127.14 and -127.19 nats per document against -127.68 and
        -127.69 from 'random'). A dict
        ``{'components': (K, V) array > 0}`` gives lambda (the mixture at its prior mean).
    n_init : int, default 1
    learning_offset, learning_decay : float, default 10.0, 0.7
        tau_0 and kappa of the step size of ``partial_fit``.
    total_samples : float, optional
        Corpus size D (documents) of ``partial_fit``; None: no scaling.
    random_state : None, int or numpy.random.Generator
    callback : callable, optional
    verbose : bool, default False

    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_features)
        lambda, the topics' Dirichlet parameters.
    weight_concentration_ : ndarray of shape (n_components,)
        ``a`` of ``q(theta) = Dir(a)``.
    topic_weights_ : ndarray of shape (n_components,)
        ``E_q[theta]``.
    weight_concentration_prior_, topic_word_prior_, mean_doc_length_, tol_ : float
    lower_bound_, lower_bounds_, n_iter_, converged_, n_features_in_
        As every latentkit model.

    Raises
    ------
    InputError
        Bad hyper-parameters or counts, naming the argument.

    Notes
    -----
    Each iteration is one exact coordinate-ascent step, so the ELBO never decreases; with one
    topic it is ``log B(eta + m) - log B(eta)``, ``m_w`` the number of biterm slots holding
    word ``w`` (``tests/topic/test_btm.py``). A document's topics are ``P(z | d) = sum_b P(z |
    b) P(b | d)`` (Yan et al. 2013, eq. 4) with ``P(z | b) = q(z_b)`` and ``P(b | d)`` the
    document's biterm frequencies; a document of one token takes ``q(z)`` of its word alone,
    an empty one ``E_q[theta]``.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.topic import BitermTopicModel
    >>> X = np.array([[2, 1, 0, 0], [1, 2, 0, 0], [0, 0, 2, 1], [0, 0, 1, 2]] * 5)
    >>> btm = BitermTopicModel(2, random_state=0).fit(X)
    >>> btm.transform(X).shape
    (20, 2)
    """

    def __init__(self, n_components=10, *, weight_concentration_prior=None,
                 topic_word_prior=0.01, max_iter=100, tol=None, init="seeded", n_init=1,
                 learning_offset=10.0, learning_decay=0.7, total_samples=None,
                 random_state=None, callback=None, verbose=False):
        self.n_components = n_components
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
        self.weight_concentration_prior_ = 50.0 / K if self.weight_concentration_prior is None \
            else float(check_scalar(self.weight_concentration_prior,
                                    "weight_concentration_prior", numbers.Real, low=0.0,
                                    low_inclusive=False))
        self.topic_word_prior_ = float(check_scalar(
            self.topic_word_prior, "topic_word_prior", numbers.Real, low=0.0,
            low_inclusive=False))
        check_learning_rate(self.learning_offset, self.learning_decay)
        if self.total_samples is not None:
            check_scalar(self.total_samples, "total_samples", numbers.Real, low=1)
        check_init(self.init, ("seeded", "random", "spectral"))

    def _validate_data(self, X, reset, **kw):
        if isinstance(X, BitermData):
            return X
        X = validate_count_data(self, X, reset, kw)
        if np.any(X.data != np.round(X.data)):
            bad = X.data[X.data != np.round(X.data)][0]
            raise InputError(f"X must hold whole-number counts (a document's biterms are its "
                             f"pairs of tokens), got {bad!r}.")
        return BitermData(X)

    def _data_summary(self, data):
        return CountSummary.of(getattr(data, "X", data))

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
        alpha = self.weight_concentration_prior_
        if isinstance(self.init, dict):
            lam = np.array(self.init["components"], dtype=np.float64, copy=True)
            if lam.shape != (K, V):
                raise InputError(f"init['components'] must have shape ({K}, {V}) "
                                 f"(n_components, n_features), got {lam.shape}.")
            if not np.all(np.isfinite(lam)) or np.any(lam <= 0):
                raise InputError("init['components'] must be finite and strictly positive.")
            self._set_globals(lam, np.full(K, alpha))
            return
        est = single_topic_spectral(data.X, K, rng) if self.init == "spectral" else None
        if est is not None:  # the DMM's single-topic moments: pairs share a topic in both
            w, mu = est
            n_biterms = float(data.counts.sum())
            self._set_globals(self.topic_word_prior_ + 2.0 * n_biterms * w[:, None] * mu,
                              alpha + n_biterms * w)
            return
        if self.init != "random":  # 'seeded' (and the spectral start's fallback)
            labels = seeded_partition(data.X, K, rng)
            onehot = np.zeros((data.shape[0], K))
            onehot[np.arange(data.shape[0]), labels] = 1.0
            weighted = np.asarray(data.doc_biterm.T @ onehot)
        else:
            B = data.first.size
            resp = np.zeros((B, K))
            resp[np.arange(B), rng.integers(0, K, size=B)] = 1.0
            weighted = resp * data.counts[:, None]
        self._set_globals(self.topic_word_prior_ + _word_counts(data.first, data.second,
                                                                weighted, V),
                          alpha + weighted.sum(axis=0))

    def _start_needs_data(self):
        return not isinstance(self.init, dict)

    def _set_globals(self, lam, weights):
        self.components_ = lam
        self.weight_concentration_ = weights
        self._elog_phi = dirichlet_expectation(lam)
        self._elog_theta = dirichlet_expectation(weights)
        self.topic_weights_ = weights / weights.sum()

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
        _array(self, "weight_concentration_", (K,), positive=True)
        for name in ("weight_concentration_prior_", "topic_word_prior_"):
            _real(self, name, low=0.0)

    # ---- template ----------------------------------------------------------------------
    def _empty_stats(self):
        K = int(self.n_components)
        return BTMStats(sstats=np.zeros((K, self.n_features_in_)), topic_counts=np.zeros(K),
                        n=0.0, data_term=0.0, n_biterms=0.0)

    def _e_step(self, data):
        resp, bound = btm_local(data.first, data.second, self._elog_phi, self._elog_theta)
        weighted = resp * data.counts[:, None]
        return BTMStats(sstats=_word_counts(data.first, data.second, weighted,
                                            self.n_features_in_),
                        topic_counts=weighted.sum(axis=0), n=float(data.shape[0]),
                        data_term=float(data.counts @ bound),
                        n_biterms=float(data.counts.sum()))

    def _m_step(self, stats, step_size=1.0, scale=1.0):
        lam = self.topic_word_prior_ + scale * stats.sstats
        weights = self.weight_concentration_prior_ + scale * stats.topic_counts
        if step_size < 1.0:
            lam = (1.0 - step_size) * self.components_ + step_size * lam
            weights = (1.0 - step_size) * self.weight_concentration_ + step_size * weights
        self._set_globals(lam, weights)

    def _global_elbo_terms(self):
        return -(float(np.sum(dirichlet_kl(self.components_, self.topic_word_prior_)))
                 + float(dirichlet_kl(self.weight_concentration_,
                                      self.weight_concentration_prior_)))

    # ---- public API --------------------------------------------------------------------
    def _doc_data(self, X):
        self._check_is_fitted()
        return self._validate_data(counts_from_texts(self, X), reset=False)

    def transform(self, X):
        """Topic proportions of documents, ``P(z | d) = sum_b P(z | b) P(b | d)`` (Yan et al.
        2013, eq. 4; class Notes).

        Parameters
        ----------
        X : array-like or scipy.sparse matrix of shape (n_documents, n_features), or list of str
            Counts, or raw texts when the model was fitted through :mod:`latentkit.text`.

        Returns
        -------
        ndarray of shape (n_documents, n_components)
            Rows sum to 1.

        Raises
        ------
        NotFittedError, InputError
        """
        data = self._doc_data(X)
        resp, _ = btm_local(data.first, data.second, self._elog_phi, self._elog_theta)
        theta = np.asarray(data.doc_biterm @ resp)
        mass = theta.sum(axis=1)
        single = mass <= 0
        if single.any():  # fewer than 2 tokens: q(z | w) of the document's words
            L = self._elog_phi.T + self._elog_theta[None, :]
            word = np.exp(L - logsumexp(L, axis=1, keepdims=True))
            theta[single] = np.asarray(data.X[single] @ word)
            empty = theta.sum(axis=1) <= 0
            theta[empty] = self.topic_weights_
        return theta / theta.sum(axis=1, keepdims=True)

    def predict(self, X):
        """The most probable topic of each document (``argmax_k P(z = k | d)``).

        Parameters
        ----------
        X : array-like or scipy.sparse matrix of shape (n_documents, n_features)

        Returns
        -------
        ndarray of shape (n_documents,) of int
        """
        return np.argmax(self.transform(X), axis=1)

    def score_samples(self, X):
        """Local ELBO of each document (nats): its biterms' bounds summed; ``score_samples(X)
        .sum() + (global term) == elbo(X) * n_documents``. A biterm bound, not a likelihood of
        the document's tokens: not comparable with LDA's or the DMM's per-document scores.

        Parameters
        ----------
        X : array-like or scipy.sparse matrix of shape (n_documents, n_features)

        Returns
        -------
        ndarray of shape (n_documents,)
            Nats per document (0 for documents of fewer than 2 tokens).
        """
        data = self._doc_data(X)
        _, bound = btm_local(data.first, data.second, self._elog_phi, self._elog_theta)
        return np.asarray(data.doc_biterm @ bound).ravel()

    def perplexity(self, X, *, include_prior_kl=True):
        """Perplexity per biterm word, ``exp(-ELBO_total / (2 n_biterms))``.

        Parameters
        ----------
        X : array-like or scipy.sparse matrix of shape (n_documents, n_features)
        include_prior_kl : bool, default True
            Include the global terms (as :meth:`LatentDirichletAllocation.perplexity`).

        Returns
        -------
        float

        Raises
        ------
        NotFittedError, InputError
            No biterm in ``X``.
        """
        data = self._doc_data(X)
        stats = self._e_step(data)
        if stats.n_biterms <= 0:
            raise InputError("X contains no biterm (no document of 2 or more tokens); "
                             "perplexity is undefined.")
        total = stats.data_term + (self._global_elbo_terms() if include_prior_kl else 0.0)
        return float(np.exp(-total / (2.0 * stats.n_biterms)))

    def sample(self, n_samples=1, random_state=None, doc_length=None):
        """Draw documents of biterms: ``N_d ~ Poisson(doc_length / 2)`` biterms, each with a
        topic ``z ~ Cat(topic_weights_)`` and two words from ``E_q[phi_z]``.

        Parameters
        ----------
        n_samples : int, default 1
        random_state : None, int or numpy.random.Generator
            Default: the model's own sampling generator.
        doc_length : float, optional
            Mean tokens per document; default ``mean_doc_length_``.

        Returns
        -------
        X : scipy.sparse.csr_matrix of shape (n_samples, n_features)
        doc_topic : ndarray of shape (n_samples, n_components)
            The share of each document's biterms on each topic (uniform rows where empty).
        """
        self._check_is_fitted()
        n_samples = check_scalar(n_samples, "n_samples", numbers.Integral, low=1)
        rng = self._sampling_rng(random_state)
        mean_len = self.mean_doc_length_ if doc_length is None else check_scalar(
            doc_length, "doc_length", numbers.Real, low=0.0)
        K, V = self.components_.shape
        topics = self.components_ / self.components_.sum(axis=1, keepdims=True)
        w = self.topic_weights_ / self.topic_weights_.sum()
        n_bit = rng.poisson(mean_len / 2.0, size=n_samples)
        z_counts = np.vstack([rng.multinomial(n, w) for n in n_bit])
        X = np.vstack([rng.multinomial(2 * z_counts[d], topics).sum(axis=0)
                       if n_bit[d] else np.zeros(V, dtype=np.int64)
                       for d in range(n_samples)])
        share = np.where(n_bit[:, None] > 0, z_counts / np.maximum(n_bit[:, None], 1), 1.0 / K)
        return sp.csr_matrix(X.astype(np.float64)), share
