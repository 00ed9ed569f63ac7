"""Probabilistic latent semantic analysis (pLSA, the aspect model) fitted by (tempered) EM.

Hofmann, T. (1999). Probabilistic latent semantic analysis. UAI. Hofmann, T. (2001).
Unsupervised learning by probabilistic latent semantic analysis. Machine Learning 42, 177-196.
Hofmann, T. (2004). Latent semantic models for collaborative filtering. ACM TOIS 22, 89-115.
"""

import numbers
import warnings

import numpy as np
import scipy.sparse as sp

from .._kernels.plsa import plsa_e_step, plsa_fold_in
from .._utils.summaries import CountSummary
from .._utils.validation import (check_counts, check_dense_width, check_n_features, check_scalar,
                           check_simplex_rows)
from ..base import LatentModel, Stats, stats_dataclass
from ._report import TopicReportMixin
from .._utils.words import TopWordsMixin
from ._plsa_sweeps import seed_topics, sweeps_e_step_stats, word_major_index
from ._spectral_start import spectral_init_plsa
from ._state_checks import FittedState, check_plsa_state
from ..text import counts_from_texts
from ..exceptions import InputError, InputTypeError

__all__ = ["PLSA", "plsa_e_step_stats", "plsa_fold_in_docs"]

_N_BLOCKS = 16


@stats_dataclass
class PLSAStats(Stats):
    """Sufficient statistics of pLSA (Hofmann 2001, eqs. 9-11).

    Attributes
    ----------
    n : float
        Number of documents (the sample of pLSA's per-sample numbers, DESIGN section 2).
    data_term : float
        sum n(d, w) log P(w | d) (asymmetric) or log P(d, w) (symmetric) in nats; the tempered
        free energy when ``beta < 1``.
    topic_word : ndarray of shape (n_components, n_words)
        sum_d n(d, w) P(z | d, w).
    doc_topic : ndarray of shape (n_docs, n_components)
        sum_w n(d, w) P(z | d, w), one row per document of the data the E-step saw.
    n_tokens : float
        Number of scorable tokens, sum_{d,w} n(d, w) over words seen in training (the
        divisor of the per-token figures).
    """

    n: float
    data_term: float
    topic_word: np.ndarray
    doc_topic: np.ndarray
    n_tokens: float


class _Corpus:
    """Validated pLSA input: CSR counts plus where their documents' P(z|d) come from.

    ``doc_factor`` is None for the training documents (the model's current parameters are
    used, rows ``offset:offset + n_docs`` of ``n_total`` documents) or an (n_docs, K) array of
    folded-in P(z | d) for other documents.
    """

    def __init__(self, X, offset, n_total, doc_factor=None, joint=False):
        self.X = X
        self.offset = offset
        self.n_total = n_total
        self.doc_factor = doc_factor
        self.joint = joint

    @property
    def shape(self):
        return self.X.shape

    def __getitem__(self, sl):
        a, b, _ = sl.indices(self.X.shape[0])
        df = None if self.doc_factor is None else self.doc_factor[a:b]
        return _Corpus(self.X[a:b], self.offset + a, self.n_total, df, self.joint)


def _blocks(n_docs):
    n_blocks = max(1, min(_N_BLOCKS, n_docs))
    return np.linspace(0, n_docs, n_blocks + 1).astype(np.int64)


def plsa_e_step_stats(X, doc_factor, components, beta=1.0):
    """One pLSA E-step over the non-zeros of ``X``, accumulated into sufficient statistics.

    Parameters
    ----------
    X : scipy.sparse matrix or array of shape (n_docs, n_words)
        Non-negative counts n(d, w).
    doc_factor : ndarray of shape (n_docs, n_components)
        a(d, z) = P(z | d) (asymmetric) or P(z) P(d | z) (symmetric); non-negative.
    components : ndarray of shape (n_components, n_words)
        P(w | z), rows on the simplex.
    beta : float in (0, 1], default 1
        Tempering exponent: P_beta(z | d, w) proportional to (a(d, z) P(w | z))^beta
        (Hofmann 2001, eq. 13); 1 is plain EM.

    Returns
    -------
    doc_topic : ndarray of shape (n_docs, n_components)
        sum_w n(d, w) P_beta(z | d, w).
    topic_word : ndarray of shape (n_components, n_words)
        sum_d n(d, w) P_beta(z | d, w).
    loglik : ndarray of shape (n_docs,)
        sum_w n(d, w) log sum_z a(d, z) P(w | z), nats per document.
    free_energy : ndarray of shape (n_docs,)
        sum_w n(d, w) (1/beta) log sum_z (a(d, z) P(w | z))^beta, nats (equals ``loglik`` at
        beta = 1); the objective tempered EM raises. Tokens with probability 0 under every
        aspect are skipped.

    Raises
    ------
    ValueError
        Shapes that do not agree, negative factors, beta outside (0, 1].

    Notes
    -----
    Source: Hofmann (1999), eqs. 3-5; Hofmann (2001), eqs. 9-13. Never forms the
    (n_docs, n_words, n_components) posterior.
    """
    X = check_counts(X, "X")
    components = np.asarray(components, dtype=np.float64)
    doc_factor = np.ascontiguousarray(doc_factor, dtype=np.float64)
    beta = check_scalar(beta, "beta", numbers.Real, low=0.0, high=1.0, low_inclusive=False)
    D, V = X.shape
    if components.ndim != 2 or components.shape[1] != V:
        raise InputError(f"components must have shape (n_components, {V}), got {components.shape}.")
    K = components.shape[0]
    if doc_factor.shape != (D, K):
        raise InputError(f"doc_factor must have shape ({D}, {K}), got {doc_factor.shape}.")
    if (components < 0).any() or (doc_factor < 0).any():
        raise InputError("components and doc_factor must be non-negative.")
    word_factor = np.ascontiguousarray(components.T)
    starts = _blocks(D)
    out_doc = np.empty((D, K))
    out_word = np.empty((starts.size - 1, V, K))
    out_ll = np.empty(D)
    out_free = np.empty(D)
    plsa_e_step(X.indptr.astype(np.int64), X.indices.astype(np.int64), X.data, doc_factor,
                word_factor, beta, starts, out_doc, out_word, out_ll, out_free)
    topic_word = out_word[0].copy()
    for b in range(1, out_word.shape[0]):
        topic_word += out_word[b]
    return out_doc, np.ascontiguousarray(topic_word.T), out_ll, out_free


def plsa_fold_in_docs(X, components, beta=1.0, max_iter=100, tol=1e-8, doc_topic_init=None):
    """Fold new documents into a fitted pLSA: EM over P(z | d) with P(w | z) fixed.

    Parameters
    ----------
    X : scipy.sparse matrix or array of shape (n_docs, n_words)
        Counts of the new documents.
    components : ndarray of shape (n_components, n_words)
        P(w | z), fixed.
    beta : float in (0, 1], default 1
        Tempering exponent of the E-step.
    max_iter : int, default 100
        Maximum EM sweeps per document.
    tol : float, default 1e-8
        A document stops when its P(z | d) moves less than ``tol`` (max norm).
    doc_topic_init : ndarray of shape (n_docs, n_components), optional
        Starting P(z | d); default uniform 1 / n_components.

    Returns
    -------
    doc_topic : ndarray of shape (n_docs, n_components)
        Folded-in P(z | d); an empty document keeps its starting row.
    loglik : ndarray of shape (n_docs,)
        sum_w n(d, w) log P(w | d) at the returned P(z | d), nats.

    Raises
    ------
    ValueError
        Wrong shapes or invalid counts.

    Notes
    -----
    Source: Hofmann (1999), section 3.3 ("folding-in"); each document is independent
    (``prange`` over documents), so the result does not depend on the number of threads.
    """
    X = check_counts(X, "X")
    components = np.asarray(components, dtype=np.float64)
    D, V = X.shape
    if components.ndim != 2 or components.shape[1] != V:
        raise InputError(f"components must have shape (n_components, {V}), got {components.shape}.")
    K = components.shape[0]
    if doc_topic_init is None:
        doc_topic = np.full((D, K), 1.0 / K)
    else:
        doc_topic = np.array(doc_topic_init, dtype=np.float64, order="C", copy=True)
        if doc_topic.shape != (D, K):
            raise InputError(f"doc_topic_init must have shape ({D}, {K}), got {doc_topic.shape}.")
    out_ll = np.empty(D)
    out_iter = np.empty(D, dtype=np.int64)
    plsa_fold_in(X.indptr.astype(np.int64), X.indices.astype(np.int64), X.data,
                 np.ascontiguousarray(components.T), float(beta), int(max_iter), float(tol),
                 doc_topic, out_ll, out_iter)
    return doc_topic, out_ll


def _check_simplex_rows(a, name, shape):
    return check_simplex_rows(a, f"init[{name!r}]", shape)


class PLSA(TopicReportMixin, TopWordsMixin, LatentModel):
    """Probabilistic latent semantic analysis (the aspect model) fitted by (tempered) EM.

    The asymmetric form models P(d, w) = P(d) sum_z P(z | d) P(w | z); the symmetric form
    P(d, w) = sum_z P(z) P(d | z) P(w | z). Both have the same maximum-likelihood P(w | z)
    (with P(d) = n_d / N), but they are parametrised and reported differently.

    Parameters
    ----------
    n_components : int, default 10
        Number of aspects (topics) K.
    parametrization : {'asymmetric', 'symmetric'}, default 'asymmetric'
        'asymmetric': P(d) P(z|d) P(w|z); the bound is sum n(d,w) log P(w | d) per document
        (P(d) = n_d / N is a constant and left out). 'symmetric': P(z) P(d|z) P(w|z); the bound
        is sum n(d,w) log P(d, w) per document.
    beta : float in (0, 1], default 1.0
        Tempered EM (Hofmann 2001, section 3.6): the E-step uses
        P(z|d,w) proportional to (P(z|d) P(w|z))^beta. With ``beta < 1`` the recorded bound is the
        tempered free energy (1/beta) sum n(d,w) log sum_z (a P(w|z))^beta per document, which TEM
        never decreases; ``beta = 1`` is plain EM and the log-likelihood.
    init : {'random', 'documents', 'spectral'} or dict, default 'random'
        'random': P(w|z) and P(z|d) drawn uniformly on [0.5, 1.5) and normalised.
        'documents': P(w|z) proportional to 1 + the counts of K seed documents drawn with
        probability proportional to their length (LDA's CVB0 seeding,
        ``latentkit.topic._cvb0.seed_counts``), P(z|d) at random: topics apart from the first
        iteration. 'spectral':
        P(w|z) from the spectral LDA topics (``latentkit.topic.spectral_init_plsa``;
        Anandkumar et al. 2012), P(z|d) at random. A dict gives
        starting parameters by attribute name without '_': 'components' (K, V) P(w|z) and
        'doc_topic' (D, K) P(z|d) (both forms; the symmetric form then takes P(d) = n_d / N),
        or, symmetric form only, 'topic_prior' (K,) P(z) with 'doc_components' (K, D) P(d|z).
        Missing entries are drawn at random.
    max_iter : int, default 200
    tol : float or None, default None
        Stop when the bound changes by less than ``tol`` nats per document. The bound per
        document scales with the document length, so None resolves to
        ``tol_ = 1e-7 * mean_doc_length_`` (1e-7 nats per token of the mean training document,
        the same stopping point as the former per-token default). A fixed value applies as
        given.
        EM for pLSA converges slowly: on 1,000 KOS documents (K=10) the default ``max_iter``
        ends 1.8% above the perplexity reached after 3,000 iterations, with a
        ConvergenceWarning (README, "Default stopping").
    n_init : int, default 1
    doc_iter : int, default 1
        Updates of each training document's P(z|d) per update of P(w|z): ``doc_iter - 1``
        folding-in sweeps with P(w|z) fixed, then the E-step (BigARTM's
        ``num_document_passes``). 1 is plain EM.
    doc_start : {'previous', 'uniform'}, default 'previous'
        Where each iteration's sweeps start: the current P(z|d) (EM: the bound never
        decreases) or P(z|d) = 1/K (BigARTM's offline algorithm: an early-stopped, smoother
        P(z|d) that regularises P(w|z); not maximum likelihood, its recorded log-likelihood
        may decrease, with an ELBODecreaseWarning). With ``init='documents', doc_iter=5``
        it beats BigARTM's PLSA over time on KOS, NIPS and Gutenberg paragraphs and ends
        below EM on KOS and Gutenberg (``docs/guide/benchmarks.md``). See
        :mod:`latentkit.topic._plsa_sweeps`.
    fold_in_max_iter : int, default 100
        EM sweeps per document when folding in new documents (transform, perplexity, elbo).
    fold_in_tol : float, default 1e-8
    random_state : int, Generator or None
    callback : callable, optional
        ``callback(model, n_iter, elbo)``; returning True stops the fit.
    verbose : bool, default False

    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_words)
        P(w | z).
    doc_topic_ : ndarray of shape (n_docs, n_components)
        P(z | d) of the training documents (symmetric form: P(z) P(d|z) / P(d)).
    topic_prior_ : ndarray of shape (n_components,)
        P(z) (symmetric form; for the asymmetric form the implied sum_d P(d) P(z|d)).
    doc_components_ : ndarray of shape (n_components, n_docs)
        P(d | z), symmetric form only.
    lower_bounds_ : ndarray
        Log-likelihood (tempered free energy when beta < 1) in nats per document, per
        iteration (divide by ``mean_doc_length_`` for nats per token).
    mean_doc_length_ : float
        Mean number of tokens of the training documents.
    n_features_in_ : int
        Vocabulary size V.

    Notes
    -----
    Source: Hofmann (1999, UAI), eqs. 3-5 (EM) and section 3.3 (folding-in); Hofmann (2001,
    Machine Learning 42), eqs. 9-13 (TEM). The E-step runs over the non-zeros of the CSR matrix
    in a numba kernel (:func:`latentkit._kernels.plsa.plsa_e_step`), never over a dense
    D x V x K array. A sample is a document (DESIGN section 2): ``lower_bounds_``, ``elbo``,
    ``score`` and ``tol`` are in nats per document. The per-token figures are separate and
    named so: :meth:`score_per_token` and :meth:`perplexity` (``exp(-score_per_token)``).
    ``elbo(X)``, ``transform(X)``, ``score(X)`` and ``perplexity(X)`` treat X as new documents
    and fold them in. Unseen words: a word never seen in training has P(w | z) = 0 under
    every aspect, so its tokens have probability 0 (log-probability -inf). ``score``, ``elbo``
    and ``perplexity`` treat them alike: they are left out of the sum and of the number of
    tokens it is divided by, with a RuntimeWarning giving their count (gensim's and
    scikit-learn's models smooth instead; pLSA has no prior to smooth with). A document made
    only of unseen words is refused with a ValueError, never scored 0 nats per token. ``partial_fit`` folds the minibatch in and blends the topic-word
    statistics (stepwise EM, Liang & Klein 2009); ``doc_topic_`` then describes that minibatch.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit import PLSA
    >>> rng = np.random.default_rng(0)
    >>> X = rng.poisson(1.0, size=(30, 12))  # 30 documents, 12 words
    >>> plsa = PLSA(3, random_state=0, max_iter=20).fit(X)
    >>> np.allclose(plsa.components_.sum(axis=1), 1.0)
    True
    """

    _sample_unit = "document"
    _tol_may_be_none = True
    _state_attributes = ("_running_topic_word",)  # stepwise-EM statistics of partial_fit

    def __init__(self, n_components=10, *, parametrization="asymmetric", beta=1.0,
                 init="random", max_iter=200, tol=None, n_init=1, doc_iter=1,
                 doc_start="previous", fold_in_max_iter=100, fold_in_tol=1e-8,
                 random_state=None, callback=None, verbose=False):
        self.n_components = n_components
        self.parametrization = parametrization
        self.beta = beta
        self.init = init
        self.max_iter = max_iter
        self.tol = tol
        self.n_init = n_init
        self.doc_iter = doc_iter
        self.doc_start = doc_start
        self.fold_in_max_iter = fold_in_max_iter
        self.fold_in_tol = fold_in_tol
        self.random_state = random_state
        self.callback = callback
        self.verbose = verbose

    # ---- template ----------------------------------------------------------------------------
    def _validate_params(self):
        check_scalar(self.n_components, "n_components", numbers.Integral, low=1)
        if self.parametrization not in ("asymmetric", "symmetric"):
            raise InputError("parametrization must be 'asymmetric' or 'symmetric', got "
                             f"{self.parametrization!r}.")
        check_scalar(self.beta, "beta", numbers.Real, low=0.0, high=1.0, low_inclusive=False)
        check_scalar(self.fold_in_max_iter, "fold_in_max_iter", numbers.Integral, low=1)
        check_scalar(self.doc_iter, "doc_iter", numbers.Integral, low=1)
        if self.doc_start not in ("previous", "uniform"):
            raise InputError("doc_start must be 'previous' or 'uniform', got "
                             f"{self.doc_start!r}.")
        check_scalar(self.fold_in_tol, "fold_in_tol", numbers.Real, low=0.0)
        if not (isinstance(self.init, dict) or (isinstance(self.init, str) and self.init in (
                "random", "documents", "spectral"))):
            raise InputError(f"init must be 'random', 'documents', 'spectral' or a dict of "
                             f"starting parameters, got {self.init!r}.")

    def _validate_data(self, X, reset, **kw):
        if kw:
            raise InputTypeError(f"PLSA got unexpected fit parameters {sorted(kw)}.")
        if not reset:
            X = self._check_new_docs(X)
            self._n_scorable(X)  # warns about tokens of unseen words
            theta, _ = self._fold_in(X)
            return _Corpus(X, 0, X.shape[0], theta, False)
        X = check_counts(X, "X")
        if X.sum() <= 0:
            raise InputError("X contains no tokens (all counts are zero).")
        self.n_features_in_ = X.shape[1]
        data = _Corpus(X, 0, X.shape[0], None, self.parametrization == "symmetric")
        self._resolve_data_defaults(data)
        return data

    def _data_summary(self, data):
        return CountSummary.of(data.X)

    def _set_data_defaults(self, summary):
        check_dense_width(self.n_features_in_, summary.columns.size, int(self.n_components),
                          unit="columns (words)", owner="PLSA", what="topic-word matrix")
        self.mean_doc_length_ = float(summary.total / summary.n_rows)
        self.tol_ = float(self.tol) if self.tol is not None else 1e-7 * self.mean_doc_length_

    def _prepare_data(self, X, reset, **fit_params):
        if reset and not sp.issparse(X) and (
                hasattr(X, "iter_chunks") or type(X).__module__.partition(".")[0] == "dask"):
            raise InputTypeError(
                "PLSA keeps one P(z|d) per training document and cannot be fitted on a chunked "
                f"source or a Dask collection (got {type(X).__name__}); fit it on an in-memory "
                "count matrix, or use LatentDirichletAllocation for out-of-core corpora.")
        return super()._prepare_data(X, reset, **fit_params)

    def _init_params(self, data, rng):
        K = self.n_components
        D, V = data.shape
        nd = np.asarray(data.X.sum(axis=1)).ravel()
        init = self.init if isinstance(self.init, dict) else {}
        if isinstance(self.init, str) and self.init == "spectral":  # P(w|z) from the moments
            init = spectral_init_plsa(data.X, K, random_state=rng)
        elif isinstance(self.init, str) and self.init == "documents":
            init = {"components": seed_topics(data.X, K, rng)}
        allowed = {"components", "doc_topic", "topic_prior", "doc_components"}
        unknown = set(init) - allowed
        if unknown:
            raise InputError(f"init has unknown keys {sorted(unknown)}; allowed: {sorted(allowed)}.")
        if "components" in init:
            comp = _check_simplex_rows(init["components"], "components", (K, V))
        else:
            comp = rng.uniform(0.5, 1.5, size=(K, V))
            comp /= comp.sum(1, keepdims=True)
        sym = self.parametrization == "symmetric"
        if ("topic_prior" in init or "doc_components" in init) and not sym:
            raise InputError("init['topic_prior'] / init['doc_components'] apply to "
                             "parametrization='symmetric' only.")
        if "doc_topic" in init and ("topic_prior" in init or "doc_components" in init):
            raise InputError("give init['doc_topic'] or init['topic_prior'] with "
                             "init['doc_components'], not both.")
        if sym and ("topic_prior" in init or "doc_components" in init):
            if not ("topic_prior" in init and "doc_components" in init):
                raise InputError("init['topic_prior'] and init['doc_components'] go together.")
            pz = _check_simplex_rows(init["topic_prior"], "topic_prior", (K,))
            pdz = _check_simplex_rows(init["doc_components"], "doc_components", (K, D))
            factor = pdz.T * pz[None, :]
        else:
            if "doc_topic" in init:
                theta = _check_simplex_rows(init["doc_topic"], "doc_topic", (D, K))
            else:
                theta = rng.uniform(0.5, 1.5, size=(D, K))
                theta /= theta.sum(1, keepdims=True)
            factor = theta * (nd / nd.sum())[:, None] if sym else theta * nd[:, None]
        self.components_ = comp
        self._set_doc_params(factor, sym)
        self._running_topic_word = None

    def _set_doc_params(self, factor, sym):
        """Store the document side from a(d, z) (P(z|d) or P(z) P(d|z))."""
        rows = factor.sum(1, keepdims=True)
        self.doc_topic_ = np.divide(factor, rows, out=np.full_like(factor, 1.0 / factor.shape[1]),
                                    where=rows > 0)
        if sym:
            pz = factor.sum(0)
            pz = pz / pz.sum()
            self.topic_prior_ = pz
            cols = factor.sum(0, keepdims=True)
            self.doc_components_ = np.divide(factor, cols, out=np.zeros_like(factor),
                                             where=cols > 0).T.copy()
        else:
            # implied P(z) = sum_d P(d) P(z|d) with P(d) = n_d / N (factor rows carry n_d)
            self.topic_prior_ = factor.sum(0) / factor.sum()
            if hasattr(self, "doc_components_"):
                del self.doc_components_

    def _doc_factor(self, data):
        if data.doc_factor is not None:
            return data.doc_factor
        a, b = data.offset, data.offset + data.shape[0]
        if self.doc_topic_.shape[0] != data.n_total:
            raise ValueError("The training documents' parameters do not match the data.")
        if self.parametrization == "symmetric":
            return np.ascontiguousarray(self.doc_components_[:, a:b].T * self.topic_prior_[None, :])
        return np.ascontiguousarray(self.doc_topic_[a:b])

    def _empty_stats(self):
        K, V = self.components_.shape
        # doc_topic is a scalar 0 here: it broadcasts against the per-document array of any
        # chunk layout (every E-step returns rows for all n_total documents).
        return PLSAStats(n=0.0, data_term=0.0, topic_word=np.zeros((K, V)), doc_topic=0.0,
                         n_tokens=0.0)

    @property
    def _elbo_decrease_note(self):
        if getattr(self, "doc_start", "previous") == "uniform":
            return ("doc_start='uniform' restarts P(z|d) every iteration and is not maximum "
                    "likelihood: its log-likelihood can decrease.")
        return None

    def _e_step(self, data):
        D = data.shape[0]
        factor = self._doc_factor(data)
        if data.doc_factor is None and (self.doc_iter > 1 or self.doc_start == "uniform"):
            # the sweeps and the E-step in one pass per document (benchmarks.md)
            if getattr(data, "word_major", None) is None:   # once per fit (beta = 1 path)
                data.word_major = word_major_index(data.X) if self.beta == 1.0 else ()
            doc, tw, ll, fe = sweeps_e_step_stats(data.X, factor, self.components_, self.beta,
                                                  self.doc_iter - 1, self.doc_start, _blocks(D),
                                                  data.word_major or None)
        else:
            doc, tw, ll, fe = plsa_e_step_stats(data.X, factor, self.components_, self.beta)
        full = np.zeros((data.n_total, self.n_components))
        full[data.offset:data.offset + D] = doc
        n_tok = self._n_scorable(data.X, warn=False)
        return PLSAStats(n=float(D), data_term=float(fe.sum()), topic_word=tw, doc_topic=full,
                         n_tokens=n_tok)

    def _m_step(self, stats, step_size=1.0, scale=1.0):
        tw = stats.topic_word * scale if scale != 1.0 else stats.topic_word
        prev = getattr(self, "_running_topic_word", None)
        if step_size < 1.0 and prev is not None and prev.shape == tw.shape:
            tw = (1.0 - step_size) * prev + step_size * tw
        self._running_topic_word = tw
        tot = tw.sum(1, keepdims=True)
        self.components_ = np.divide(tw, tot, out=np.full_like(tw, 1.0 / tw.shape[1]),
                                     where=tot > 0)
        doc = stats.doc_topic
        sym = self.parametrization == "symmetric"
        if sym:
            n = doc.sum()
            self._set_doc_params(doc / n if n > 0 else np.full_like(doc, 1.0 / doc.size), True)
        else:
            self._set_doc_params(doc, False)

    # ---- inference ---------------------------------------------------------------------------
    def _check_new_docs(self, X):
        """Fitted model and CSR counts over the training vocabulary (NotFittedError,
        ValueError otherwise)."""
        self._check_is_fitted()
        X = check_counts(counts_from_texts(self, X), "X")  # raw texts: the stored vectorizer
        check_n_features(X.shape[1], self.n_features_in_, "X", "PLSA")
        return X

    def _elbo_from_stats(self, stats):
        if stats.n_tokens <= 0:
            raise InputError("X contains no scorable tokens (none, or only tokens of words "
                             "unseen in training).")
        return super()._elbo_from_stats(stats)

    def _unseen(self):
        """Words with probability 0 under every aspect (never seen in training), (V,) bool."""
        return self.components_.sum(0) <= 0

    def _n_scorable(self, X, warn=True):
        """Tokens of X on words with positive probability; the others (unseen words) are left
        out of every score (score, score_per_token, elbo, perplexity), with a RuntimeWarning."""
        n = float(X.data.sum())
        n_zero = float(X.data[self._unseen()[X.indices]].sum())
        if n_zero > 0 and warn:
            warnings.warn(f"{n_zero:g} of {n:g} tokens are of words with probability 0 under "
                          "every aspect (unseen in training) and are left out of the "
                          "score.", RuntimeWarning, stacklevel=3)
        return n - n_zero

    def _fold_in(self, X):
        return plsa_fold_in_docs(X, self.components_, self.beta, self.fold_in_max_iter,
                                 self.fold_in_tol)

    def transform(self, X):
        """Fold documents in and return their aspect distribution P(z | d).

        Parameters
        ----------
        X : scipy.sparse matrix or array of shape (n_docs, n_words), or list of str
            Counts (the same vocabulary as in fit), or raw texts when the model was fitted
            through :mod:`latentkit.text` (its stored vectorizer counts them).

        Returns
        -------
        ndarray of shape (n_docs, n_components)
            P(z | d) from EM with P(w | z) fixed (Hofmann 1999, section 3.3); rows sum to 1.

        Raises
        ------
        NotFittedError, ValueError
        """
        X = self._check_new_docs(X)
        return self._fold_in(X)[0]

    def _folded_log_lik(self, X):
        """(sum_d log P(w_d | d) over scorable tokens, n_docs, n_scorable_tokens) of X."""
        X = self._check_new_docs(X)
        n = self._n_scorable(X)
        if n <= 0:
            raise InputError("X contains no scorable tokens (none, or only tokens of words "
                             "unseen in training).")
        return float(self._fold_in(X)[1].sum()), X.shape[0], n

    def score(self, X, y=None):
        """Mean log P(w_d | d) per document of documents X after folding them in (the same as
        :meth:`elbo` with ``beta = 1``).

        Parameters
        ----------
        X : scipy.sparse matrix or array of shape (n_docs, n_words)
        y : ignored

        Returns
        -------
        float
            Nats per document, over the tokens of words seen in training (see the class Notes
            on unseen words). :meth:`score_per_token` divides by the tokens instead.

        Warns
        -----
        RuntimeWarning
            Tokens of unseen words, left out of the sum and of the count.

        Raises
        ------
        ValueError
            No scorable token.
        """
        ll, n_docs, _ = self._folded_log_lik(X)
        return ll / n_docs

    def score_per_token(self, X):
        """Mean log P(w | d) per token of documents X after folding them in: the per-token
        log-likelihood of Hofmann (1999, section 4), ``-log(perplexity(X))``.

        Parameters
        ----------
        X : scipy.sparse matrix or array of shape (n_docs, n_words)

        Returns
        -------
        float
            Nats per token, over the tokens of words seen in training (see the class Notes
            on unseen words).

        Warns
        -----
        RuntimeWarning
            Tokens of unseen words, left out of the sum and of the count.

        Raises
        ------
        ValueError
            No scorable token.
        """
        ll, _, n_tok = self._folded_log_lik(X)
        return ll / n_tok

    def perplexity(self, X):
        """Perplexity exp(-sum n(d,w) log P(w | d) / N) of documents X, folded in.

        Parameters
        ----------
        X : scipy.sparse matrix or array of shape (n_docs, n_words)

        Returns
        -------
        float
            Perplexity per token (lower is better). Note that folding in fits P(z | d) on the
            very words it scores, so this is optimistic for held-out data unless the caller
            folds in on one half of each document and scores the other.

        Warns
        -----
        RuntimeWarning
            Tokens of words that have probability 0 under every aspect (e.g. words never seen
            in training); they are left out of the sum and of N.
        """
        ll, _, n_tok = self._folded_log_lik(X)
        return float(np.exp(-ll / n_tok))

    def sample(self, n_samples=1, random_state=None, doc_length=100):
        """Draw documents from the fitted model.

        Parameters
        ----------
        n_samples : int, default 1
            Number of documents.
        random_state : int, Generator or None
            Default None: the model's own sampling generator, seeded from the ``random_state``
            hyper-parameter at fit and advanced by every call (repeated calls give fresh draws).
        doc_length : int, default 100
            Tokens per document.

        Returns
        -------
        X : scipy.sparse.csr_matrix of shape (n_samples, n_words)
            Counts.
        doc_index : ndarray of shape (n_samples,)
            The training document whose P(z | d) generated each sample (drawn uniformly).
        """
        self._check_is_fitted()
        rng = self._sampling_rng(random_state)
        n_samples = check_scalar(n_samples, "n_samples", numbers.Integral, low=1)
        doc_length = check_scalar(doc_length, "doc_length", numbers.Integral, low=1)
        D = self.doc_topic_.shape[0]
        idx = rng.integers(0, D, size=n_samples)
        rows = []
        for d in idx:
            z = rng.multinomial(doc_length, self.doc_topic_[d])
            counts = np.zeros(self.components_.shape[1])
            for k in np.flatnonzero(z):
                counts += rng.multinomial(z[k], self.components_[k])
            rows.append(counts)
        return sp.csr_matrix(np.vstack(rows)), idx

    def _update_sklearn_tags(self, tags):
        tags.input_tags.sparse = True
        return tags

    def _check_state(self):
        """Validate a restored state (:mod:`latentkit.topic._state_checks`)."""
        check_plsa_state(FittedState(vars(self), type(self).__name__))
