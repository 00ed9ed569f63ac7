"""Labeled LDA (Ramage, Hall, Nallapati & Manning 2009) and Partially Labeled LDA's free topics
(Ramage, Manning & Dumais 2011), fitted by mean-field variational Bayes.

One topic per label (plus ``n_free_components`` topics open to every document); a document's
proportions ``theta_d ~ Dir(alpha)`` live on its own labels' topics and the free ones only.
The E-step is LDA's kernel (:mod:`latentkit.topic._lda_estep`), run on the documents of each
distinct label set with the columns of those topics (:mod:`latentkit.topic._grouped_estep`);
the M-step is LDA's, ``lambda = eta + sstats``.
"""

import numbers

import numpy as np
import scipy.sparse as sp
from scipy.special import psi

from .._utils.summaries import CountSummary
from .._utils.validation import check_counts, check_n_features, check_scalar
from .._utils.words import TopWordsMixin
from ..base import LatentModel
from ..distributions._dirichlet import dirichlet_kl
from .._engine.state_checks import StateCheckError, _array, _int, _real
from ..exceptions import InputError, InputTypeError
from ._count_data import check_init
from ._grouped_estep import GroupedStep, run_groups
from ._lda_guard import GuardedEStep
from ._side_info import SideSummary
from ._lda_estep import LDAStats, _suff_stats
from ._report import ReportMixin

__all__ = ["LabeledLDA"]


class _LabeledCounts:
    """Counts with each document's allowed topics (a boolean (D, K) mask), grouped by mask."""

    def __init__(self, X, mask, classes=None):
        self.X, self.mask, self.classes = X, mask, classes
        keys, inverse = np.unique(mask, axis=0, return_inverse=True)
        inverse = np.asarray(inverse).ravel()
        self.cols = [np.flatnonzero(k) for k in keys]
        self.rows = [np.flatnonzero(inverse == g) for g in range(keys.shape[0])]
        self.parts = [X[r] for r in self.rows]

    @property
    def shape(self):
        return self.X.shape

    def __getitem__(self, key):
        if not isinstance(key, slice):
            raise InputTypeError("the labelled counts take a slice of rows.")
        return _LabeledCounts(self.X[key], self.mask[key], self.classes)


def _label_sets(labels, n_docs):
    """A list of label collections, one per document, from ``labels``."""
    if labels is None:
        raise InputError("fit needs labels=: each document's labels (an indicator matrix "
                         "(n_documents, n_labels), or one label / list of labels per "
                         "document), got None.")
    if sp.issparse(labels) or (isinstance(labels, np.ndarray) and labels.ndim == 2):
        Y = np.asarray(labels.todense() if sp.issparse(labels) else labels)
        if Y.shape[0] != n_docs:
            raise InputError(f"labels must have one row per document ({n_docs}), got "
                             f"{Y.shape[0]}.")
        if not np.all(np.isin(Y, (0, 1))):
            raise InputError("an indicator matrix of labels must hold 0 and 1 only.")
        return None, Y.astype(bool)
    sets = list(labels)
    if len(sets) != n_docs:
        raise InputError(f"labels must have one entry per document ({n_docs}), got "
                         f"{len(sets)}.")
    return [(() if s is None else (s,) if isinstance(s, (str, numbers.Number)) else tuple(s))
            for s in sets], None


class LabeledLDA(ReportMixin, TopWordsMixin, LatentModel):
    """Labeled LDA: one topic per label, each document's topics restricted to its labels
    (plus optional free topics, as in Partially Labeled LDA). Mean-field variational Bayes;
    the ELBO is in **nats per document**.

    Parameters
    ----------
    n_free_components : int, default 0
        Topics open to every document besides the label topics (Partially Labeled LDA's
        background topics).
    doc_topic_prior : float, optional
        alpha, symmetric Dirichlet prior over a document's allowed topics (> 0); default
        ``1 / K`` (K = labels + free topics).
    topic_word_prior : float, optional
        eta, symmetric Dirichlet prior of the topics (> 0); default ``1 / K``.
    max_iter : int, default 100
    tol : float or None, default None
        As LDA: None resolves to ``1e-3 * mean_doc_length_`` nats per document.
    max_doc_update_iter : int, default 100
    mean_change_tol : float, default 1e-3
    init : {'random'} or dict, default 'random'
        ``lambda ~ Gamma(100, 1/100)`` (LDA's), or ``{'components': (K, V)}``.
    random_state : None, int or numpy.random.Generator
    callback : callable, optional
    verbose : bool, default False

    Attributes
    ----------
    classes_ : ndarray of shape (n_labels,)
        The labels (sorted; indices when fitted on an indicator matrix); topic ``k <
        n_labels`` is label ``classes_[k]``, the last ``n_free_components`` topics are free.
    components_ : ndarray of shape (n_components, n_features)
        Variational Dirichlet parameters lambda of the topics.
    n_components_ : int
        K, labels plus free topics.
    doc_topic_prior_, topic_word_prior_ : float
    n_features_in_, mean_doc_length_, tol_, lower_bound_, lower_bounds_, n_iter_, converged_

    Notes
    -----
    The bound is LDA's with each document's Dirichlet over its allowed topics only: the local
    terms of Blei et al. (2003, eq. 15) on those topics, plus ``-sum_k KL(Dir(lambda_k) ||
    Dir(eta))`` divided by the number of documents. A document without labels (and any
    document in :meth:`transform` without ``labels``) may use every topic. With one label per
    document and no free topics, every token's topic is known: the fit is the conjugate
    Dirichlet-multinomial update ``lambda_k = eta + (counts of the documents of label k)``
    after one iteration, and the bound is the exact log evidence (a test). The E-step keeps
    LDA's monotone guard, so the bound never decreases.

    References: Ramage, Hall, Nallapati & Manning (2009), "Labeled LDA", EMNLP; Ramage,
    Manning & Dumais (2011), "Partially Labeled Topic Models", KDD.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.topic import LabeledLDA
    >>> X = np.random.default_rng(0).poisson(1.0, size=(6, 5))
    >>> labels = [["a"], ["a", "b"], ["b"], ["a"], ["b"], []]
    >>> m = LabeledLDA(n_free_components=1, random_state=0, max_iter=5).fit(X, labels=labels)
    >>> m.classes_.tolist(), m.components_.shape
    (['a', 'b'], (3, 5))
    """

    _sample_unit = "document"
    _tol_may_be_none = True
    _row_fit_params = ("labels",)

    def __init__(self, n_free_components=0, *, doc_topic_prior=None, topic_word_prior=None,
                 max_iter=100, tol=None, max_doc_update_iter=100, mean_change_tol=1e-3,
                 init="random", random_state=None, callback=None, verbose=False):
        self.n_free_components = n_free_components
        self.doc_topic_prior = doc_topic_prior
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
        check_scalar(self.n_free_components, "n_free_components", numbers.Integral, low=0)
        for name in ("doc_topic_prior", "topic_word_prior"):
            if getattr(self, name) is not None:
                check_scalar(getattr(self, name), name, numbers.Real, low=0.0,
                             low_inclusive=False)
        check_scalar(self.max_doc_update_iter, "max_doc_update_iter", numbers.Integral, low=1)
        check_scalar(self.mean_change_tol, "mean_change_tol", numbers.Real, low=0.0)
        check_init(self.init, ("random",))

    def _doc_labels(self, labels, n_docs, classes):
        """Each document's labels as a boolean (D, L) matrix over ``classes``; ``classes``
        None: over this data's own labels (returned too)."""
        sets, Y = _label_sets(labels, n_docs)
        if classes is None:
            classes = (np.arange(Y.shape[1]) if Y is not None else
                       np.asarray(sorted({lab for s in sets for lab in s})))
        L = len(classes)
        if Y is not None:
            if Y.shape[1] != L:
                raise InputError(f"labels must have {L} columns (the fitted labels), got "
                                 f"{Y.shape[1]}.")
            return Y, classes
        index = {c.item() if hasattr(c, "item") else c: i for i, c in enumerate(classes)}
        lab = np.zeros((n_docs, L), dtype=bool)
        for d, s in enumerate(sets):
            for name in s:
                if name not in index:
                    raise InputError(f"labels holds {name!r}, which is not a fitted label "
                                     f"(classes_: {list(index)[:10]}).")
                lab[d, index[name]] = True
        return lab, classes

    def _validate_data(self, X, reset, labels=None, **kw):
        if kw:
            raise InputTypeError(f"LabeledLDA got unexpected arguments {sorted(kw)}.")
        X = check_counts(X, "X")
        D, free = X.shape[0], int(self.n_free_components)
        if not reset:
            check_n_features(X.shape[1], self.n_features_in_, "X", "LabeledLDA")
        # while a driver merges the chunks' summaries (a chunked source, Dask), every chunk
        # has its own labels; the fitted labels are all the chunks' (_set_data_defaults)
        own = reset or self.__dict__.get("_defer_data_defaults", False)
        if labels is None and not own:
            return _LabeledCounts(X, np.ones((D, len(self.classes_) + free), dtype=bool))
        if labels is None:
            _label_sets(labels, D)  # fit needs labels= (raises)
        lab, classes = self._doc_labels(labels, D, None if own else self.classes_)
        mask = np.hstack([lab, np.ones((D, free), dtype=bool)])
        mask[~lab.any(axis=1)] = True  # no label: every topic
        data = _LabeledCounts(X, mask, classes)
        if reset:
            self.n_features_in_ = X.shape[1]
            self._resolve_data_defaults(data)
        return data

    def _data_summary(self, data):
        return SideSummary(CountSummary.of(data.X), data.classes)

    def _set_data_defaults(self, summary):
        self.classes_ = summary.values
        K = len(self.classes_) + int(self.n_free_components)
        if K < 1:
            raise InputError("LabeledLDA needs at least one label or one free topic.")
        self.n_components_ = K
        self.doc_topic_prior_ = float(1.0 / K if self.doc_topic_prior is None
                                      else self.doc_topic_prior)
        self.topic_word_prior_ = float(1.0 / K if self.topic_word_prior is None
                                       else self.topic_word_prior)
        summary = summary.counts
        self.mean_doc_length_ = float(summary.total / max(summary.n_rows, 1.0))
        self.tol_ = float(self.tol) if self.tol is not None else \
            1e-3 * max(self.mean_doc_length_, 1.0)

    def _start_needs_data(self):
        return False

    def _init_params(self, data, rng):
        K, V = int(self.n_components_), self.n_features_in_
        if isinstance(self.init, dict):
            lam = np.array(self.init["components"], dtype=np.float64)
            if lam.shape != (K, V) or not np.all(np.isfinite(lam)) or np.any(lam <= 0):
                raise InputError(f"init['components'] must be a finite positive array of shape "
                                 f"({K}, {V}), got shape {lam.shape}.")
        else:
            lam = rng.gamma(100.0, 0.01, size=(K, V))
        self._set_components(lam)

    def _set_components(self, lam):
        self.components_ = lam
        self._elog_beta = psi(lam) - psi(lam.sum(axis=1, keepdims=True))

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
        K, V = _int(self, "n_components_"), _int(self, "n_features_in_")
        classes = getattr(self, "classes_", None)
        if not isinstance(classes, np.ndarray) or classes.ndim != 1 or \
                classes.shape[0] + int(self.n_free_components) != K:
            raise StateCheckError("classes_", f"expected {K - int(self.n_free_components)} "
                                              "labels")
        _array(self, "components_", (K, V), positive=True)
        for name in ("doc_topic_prior_", "topic_word_prior_"):
            _real(self, name, low=0.0)

    def _tables(self, data):
        tables = []
        for cols in data.cols:
            elog = self._elog_beta[cols]
            shift = elog.max(axis=0)
            tables.append((np.ascontiguousarray(np.exp(elog - shift).T),
                           np.ascontiguousarray(shift)))
        return tables

    def _local(self, data, tables, gamma0=None, max_iter=None):
        cap = self.max_doc_update_iter if max_iter is None else max_iter
        return run_groups(data.parts, data.rows, tables, self.doc_topic_prior_, cap,
                          self.mean_change_tol, gamma0, cols=data.cols)

    def _gather(self, data, tables, local):
        D, K = data.shape[0], int(self.n_components_)
        gamma, doc_elbo = np.zeros((D, K)), np.empty(D)
        ss = np.zeros((K, self.n_features_in_))
        for g, rows, (gm, et, ratio, de) in local:
            cols = data.cols[g]
            gamma[np.ix_(rows, cols)], doc_elbo[rows] = gm, de
            ss[cols] += _suff_stats(data.parts[g], ratio, et, tables[g][0])
        return gamma, doc_elbo, LDAStats(sstats=ss, n=float(D), data_term=float(doc_elbo.sum()),
                                         n_tokens=float(data.X.data.sum()))

    def _empty_stats(self):
        return LDAStats(sstats=np.zeros((int(self.n_components_), self.n_features_in_)), n=0.0,
                        data_term=0.0, n_tokens=0.0)

    def _e_step(self, data):
        tables = self._tables(data)
        return self._gather(data, tables, self._local(data, tables))[2]

    def _guard_step(self):
        """The guard's local step (:class:`GroupedStep`) at the current topics; the tables
        of a part's label sets are computed once per part (the last part's kept)."""
        last = {}

        def tables(d):
            if last.get("data") is not d:
                last["data"], last["tables"] = d, self._tables(d)
            return last["tables"]

        return GroupedStep(lambda d, gamma0, cap: self._local(d, tables(d), gamma0, cap),
                           lambda d, groups: self._gather(d, tables(d), groups))

    def _guard_part(self, data, cap, old=None):
        """:meth:`GroupedStep.part` where a Dask block lives (the model rebuilt there)."""
        return self._guard_step().part(data, cap, old)

    def _warm_state(self):
        return GuardedEStep(self.max_doc_update_iter)

    def _warm_e_step(self, data, warm):
        """The E-step with LDA's monotone guard (class Notes), the same on in-memory, chunked
        and Dask data (:class:`latentkit.topic._lda_guard.GuardedEStep`)."""
        return warm.e_step(data, self._guard_step(), self._global_elbo_terms(),
                           self._empty_stats, (self, type(self)._guard_part))

    def _m_step(self, stats, step_size=1.0, scale=1.0):
        target = self.topic_word_prior_ + scale * stats.sstats
        lam = target if step_size >= 1.0 else \
            (1.0 - step_size) * self.components_ + step_size * target
        self._set_components(lam)

    def _global_elbo_terms(self):
        return -float(np.sum(dirichlet_kl(self.components_, self.topic_word_prior_)))

    # ---- public API --------------------------------------------------------------------------
    def fit(self, X, y=None, labels=None):
        """Fit the label topics by batch variational Bayes.

        Parameters
        ----------
        X : array-like, scipy.sparse matrix, ChunkSource or Dask collection
            Non-negative counts, (n_documents, n_features).
        y : ignored
        labels : array-like of shape (n_documents, n_labels) of 0/1, or sequence
            Each document's labels: an indicator matrix, or per document one label (str or
            number) or a collection of labels (empty: every topic allowed).
            With a chunked source or a Dask array or bag as ``X``, the whole ``labels`` is cut
            with the rows (or each chunk carries its own as ``(X, {'labels': ...})``); the
            fit equals the in-memory fit.

        Returns
        -------
        self

        Raises
        ------
        InputError
            ``labels`` missing or of the wrong length, bad counts or hyper-parameters.
        """
        return super().fit(X, y, labels=labels)

    def _doc_topic(self, X, labels):
        self._check_is_fitted()
        data = self._validate_data(X, reset=False, labels=labels)
        tables = self._tables(data)
        gamma, doc_elbo, _ = self._gather(data, tables, self._local(data, tables))
        return gamma, doc_elbo

    def transform(self, X, labels=None):
        """Posterior mean topic proportions (zero outside each document's allowed topics).

        Parameters
        ----------
        X : array-like or scipy.sparse matrix of shape (n_documents, n_features)
        labels : optional
            As in :meth:`fit`; default: every topic allowed (label inference for new
            documents).

        Returns
        -------
        ndarray of shape (n_documents, n_components)
            Rows sum to 1.
        """
        gamma = self._doc_topic(X, labels)[0]
        return gamma / gamma.sum(axis=1, keepdims=True)

    def score_samples(self, X, labels=None):
        """Local ELBO of each document (nats; without the topics' global term).

        Parameters
        ----------
        X : array-like or scipy.sparse matrix of shape (n_documents, n_features)
        labels : optional
            As in :meth:`transform`.

        Returns
        -------
        ndarray of shape (n_documents,)
        """
        return self._doc_topic(X, labels)[1]

    def score(self, X, y=None, labels=None):
        """Mean ELBO per document (nats): :meth:`elbo`.

        Parameters
        ----------
        X : array-like or scipy.sparse matrix of shape (n_documents, n_features)
        y : ignored
        labels : optional

        Returns
        -------
        float
        """
        return self.elbo(X, labels=labels)

    def sample(self, n_samples=1, random_state=None, doc_length=None):
        """Draw documents with every topic allowed: ``theta ~ Dir(alpha)``, ``N ~
        Poisson(doc_length)``, counts ``~ Multinomial(N, theta @ E[beta])``.

        Parameters
        ----------
        n_samples : int, default 1
        random_state : None, int or numpy.random.Generator
        doc_length : float, optional
            Default ``mean_doc_length_``.

        Returns
        -------
        X : scipy.sparse.csr_matrix of shape (n_samples, n_features)
        doc_topic : ndarray of shape (n_samples, n_components)
        """
        self._check_is_fitted()
        n_samples = check_scalar(n_samples, "n_samples", numbers.Integral, low=1)
        rng = self._sampling_rng(random_state)
        length = self.mean_doc_length_ if doc_length is None else check_scalar(
            doc_length, "doc_length", numbers.Real, low=0.0)
        K = int(self.n_components_)
        theta = np.nan_to_num(rng.dirichlet(np.full(K, self.doc_topic_prior_),
                                            size=n_samples))
        theta[theta.sum(axis=1) <= 0] = 1.0 / K
        theta /= theta.sum(axis=1, keepdims=True)
        p = theta @ (self.components_ / self.components_.sum(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        counts = rng.multinomial(rng.poisson(length, size=n_samples), p)
        return sp.csr_matrix(counts.astype(np.float64)), theta
