"""Latent Dirichlet Allocation fitted by mean-field variational Bayes.

Model (Blei, Ng & Jordan 2003): topics ``beta_k ~ Dirichlet(eta)`` (k = 1..K, over V words);
per document ``theta_d ~ Dirichlet(alpha)``, and for each token a topic ``z ~ Cat(theta_d)`` and
a word ``w ~ Cat(beta_z)``. Variational family (Hoffman, Blei & Bach 2010, "smoothed" LDA):
``q(beta_k) = Dir(lambda_k)``, ``q(theta_d) = Dir(gamma_d)``, ``q(z_dn) = Cat(phi_dn)``.

The E-step (local coordinate ascent over gamma and phi, one document at a time; the numba
kernel :func:`latentkit._kernels.topic.lda_e_step`) lives in :mod:`latentkit.topic._lda_estep`;
the M-step is
``lambda <- (1 - rho) lambda + rho (eta + scale * sstats)`` (rho = 1: batch VB).
"""

import copy
import numbers
import warnings

import numpy as np

from .._utils.summaries import CountSummary
from .._utils.user_frame import user_stacklevel
from .._utils.validation import check_counts, check_dense_width, check_scalar
from ..base import BEFORE_FIT, LatentModel, clone
from .._utils.deprecation import moved_parameters
from ..distributions._dirichlet import dirichlet_kl
from ._count_model import CountTopicModelMixin
from ._report import TopicReportMixin
from .._utils.words import TopWordsMixin
from ._lda_svi import online_batch_size, stochastic_stepper
from ._private_svi import LDAPrivatePieces
from ._lda_guard import GuardedEStep, ReplayedStart
from ._cvb0 import cvb0_topics, sweep_callback
from ._start_seeds import spectral_seed_documents
from ._start_check import checked_start, random_start_generator
from ._spectral_start import spectral_init_lda
from ._lda_priors import (LDAPriors, default_tol_per_token, learns_alpha, learns_eta,
                          resolve_priors, symmetric_priors, word_counts)
from ._seeding import resolve_seed_topics, seeded_prior
from ._count_data import check_init, check_step_params, validate_count_data
from ._state_checks import FittedState, check_lda_state
from ._lda_estep import LDAStats, _beta_tables, lda_e_step
from ._lda_sparse import guard_step, resolve_e_step_topk, run_sparse_e_step
from ..inference import ChunkSource, StochasticVI
from ..text import counts_from_texts
from ..exceptions import InputError

__all__ = ["LatentDirichletAllocation", "LDAStats", "lda_e_step"]


def _count_summary(X):
    """(:class:`CountSummary`, width) of a CSR matrix, or of all chunks of a source."""
    if isinstance(X, ChunkSource):
        total = width = None
        for chunk in X.iter_chunks():
            chunk = check_counts(chunk, "X")
            s = CountSummary.of(chunk)
            total, width = (s, chunk.shape[1]) if total is None else (total + s, width)
        if total is None:
            raise InputError("The data source yielded no chunk.")
        return total, width
    return CountSummary.of(X), X.shape[1]


#: the hyper-parameters that configure the stochastic driver only (deprecated until 0.3)
_DRIVER_KEYWORDS = ("learning_method", "batch_size", "holdout")
_NEW_SPELLING = ("StochasticVI(LatentDirichletAllocation(...), batch_size=..., holdout=..., "
                 "n_epochs=...) (latentkit.inference.StochasticVI; learning_method='online' "
                 "is that driver, learning_method='batch' is fit)")


def _mean_length(summary):
    """Mean number of tokens of the documents of ``summary``."""
    return float(summary.total / max(summary.n_rows, 1.0))


class LatentDirichletAllocation(CountTopicModelMixin, TopicReportMixin, TopWordsMixin,
                                LatentModel):
    """Latent Dirichlet Allocation by mean-field variational Bayes (batch VB).

    Input is a documents x vocabulary count matrix. The ELBO is reported in **nats per
    document** (a sample is a document).

    Parameters
    ----------
    n_components : int, default 10
        Number of topics K.
    doc_topic_prior : float, array of shape (K,), 'auto' or 'asymmetric', optional
        alpha, Dirichlet prior of the document-topic proportions (> 0); default ``1 / K``.
        'auto': learned (empirical Bayes, from 1/K; :mod:`latentkit.topic._lda_priors`);
        'asymmetric': gensim's fixed ``alpha_k ∝ 1 / (k + sqrt(K))``.
    topic_word_prior : float, array of shape (V,) or (K, V), or 'auto', optional
        eta, Dirichlet prior of the topics (> 0); default ``1 / K``. 'auto': a (V,) prior
        learned from 1/K.
    seed_topics : dict of int -> list of (str or int), optional
        Seeded topics ``{k: [word or column index, ...]}``; words need ``feature_names_in_``
        set before ``fit`` (:func:`latentkit.text.attach`). :mod:`latentkit.topic._seeding`.
    seed_confidence : float, default 1.0
        Extra prior mass of topic k on each seed word w, as a share of w's count in the
        documents the start sees (all of them in a batch fit; the first minibatch online).
    max_iter : int, default 100
        Maximum outer (E-step + M-step) iterations.
    tol : float or None, default None
        Stop when the ELBO changes by less than ``tol`` nats per document between iterations
        (``tol=0`` runs exactly ``max_iter`` iterations). The ELBO per document scales with the
        document length, so the default None resolves to ``tol_ = 1e-3 * mean_doc_length_``
        (1e-3 nats per token of the mean training document): 0.136 on KOS (136 tokens per
        document), 0.06 for 60-token documents. A fixed value applies as given. This stops
        short of the converged topics: on 1,000 KOS documents (K=10) 0.8-1.7% above the
        converged perplexity at 1/30 of its iterations; ``tol=1e-5 * mean_doc_length_``
        comes within 0.05-0.5% at 4-5 times the default's cost (README, "Default stopping").
        With ``doc_topic_prior='auto'`` the default is ``1e-4 * mean_doc_length_``: the
        learned alpha moves long after the ELBO has flattened (each M-step maximises alpha
        given the document posteriors, which follow it slowly); at 1e-3 per token a planted
        alpha = (1, .5, .25, .12, .06) stopped 20-40 % off after 5 iterations, at 1e-4 within
        11-25 % after 16-19 (``benchmarks/bench_lda_default_start.py``).
    max_doc_update_iter : int, default 100
        Maximum coordinate-ascent sweeps per document in the E-step.
    mean_change_tol : float, default 1e-3
        A document's E-step stops when the mean absolute change of its gamma is below this.
    e_step_topk : int, 'auto' or None, default None
        Topics kept per token in the E-step: None (or k >= K) the dense step; k the top-k
        truncated responsibilities (a mean-field family of its own: exact bound, cost per sweep
        O(k) per token; :mod:`latentkit.topic._lda_sparse`); 'auto' 16 from K = 200 on.
    warmup_doc_update_iter : int or None, default None
        Batch fit only (online fits use ``max_doc_update_iter`` throughout): cap the E-step sweeps per document of batch
        iteration i (1-based) at ``min(max_doc_update_iter, warmup_doc_update_iter *
        2 ** (i - 1))``, so the first iterations, whose topics are about to change anyway, are
        cheap (4 gives 4, 8, 16, 32, 64 sweeps, then ``max_doc_update_iter``). None: every
        iteration uses ``max_doc_update_iter``. Measured with
        ``benchmarks/bench_lda_curve.py`` (random start, K=20, 2 threads): the held-out
        perplexity the default fit has after 10.7 s on KOS, 37 s on NIPS and 19.5 s on the
        Gutenberg paragraphs is reached after 3.6 s, 26 s and 7.3 s with 4 (a different
        trajectory, so possibly another local optimum).
    init : {'auto', 'cvb0', 'random', 'spectral'} or dict, default 'auto'
        The starting topics lambda. ``'cvb0'``: the topics of 100 sweeps of zero-order
        collapsed VB (:func:`latentkit.topic.cvb0_topics`; Asuncion et al. 2009), the first a
        sequential pass from K seed documents, one per topic of the method of moments (the
        document with the most tokens expected from it:
        :mod:`latentkit.topic._start_seeds`; length-weighted draws, which follow the
        topics' shares, lost the rarest topic of a planted corpus with one dominant topic,
        issue 41), a start that costs about as much as 100 Gibbs
        iterations and lands in a better optimum than the random or spectral starts (K=20,
        2 threads, held-out perplexity of ``benchmarks/bench_lda_curve.py``: KOS 2020, NIPS
        1574, Gutenberg paragraphs 3326, against 2116, 1609 and 3768 from the random or
        spectral starts and 2031, 1587 and 3298 for tomotopy's collapsed Gibbs sampler at the
        end of the same budgets), ahead of tomotopy over the time-to-quality curve (README, "LDA
        against tomotopy"). CVB0 from its symmetric random start
        (``cvb0_topics(init='random')``, passed as a dict) takes 2-6 times as long to reach
        the quality of tomotopy's 10th
        iteration. ``'random'``: ``lambda_kw ~ Gamma(100, 1/100)`` (Hoffman et al. 2010;
        scikit-learn's and gensim's distribution of the starting topics; results are close
        to theirs, not identical: scikit-learn also draws each document's gamma at random in
        every E-step, see the Notes).
        ``'spectral'``: topics from the method of moments
        (:func:`latentkit.topic.spectral_init_lda`; Anandkumar et al. 2012), falling back
        to the random start with a warning when the moments are degenerate. ``'auto'``:
        ``'cvb0'`` for ``fit`` (batch VB, on the same documents wherever
        they live: all of them up to 100,000, :mod:`latentkit._engine.start_sample`);
        ``'random'`` for the stochastic fits (:class:`latentkit.inference.StochasticVI` and
        ``partial_fit``), whose first step sees one minibatch. A dict ``{'components': array of shape (K, V)}`` gives the starting
        lambda (> 0).
    n_init : int, default 1
        Initialisations; the one with the highest final ELBO is kept.
    learning_method : {'batch', 'online'} or None, default None
        **Deprecated** (removed in latentkit 0.3), as are ``batch_size`` and ``holdout``:
        they configure the stochastic driver, not the model. The online fit is
        ``StochasticVI(LatentDirichletAllocation(...), batch_size=128, n_epochs=max_iter,
        holdout=..., learning_offset=..., learning_decay=..., random_state=...).fit(X)``
        (:class:`latentkit.inference.StochasticVI`; stochastic variational inference, online
        VB, Hoffman, Blei & Bach 2010, Algorithm 2, as scikit-learn's
        ``learning_method='online'``); the fitted model is its ``model_``. None or 'batch':
        batch variational Bayes; 'online' still runs that driver (with a
        ``DeprecationWarning``), the run's record becoming this estimator's.
        ``partial_fit`` always takes one step
        ``lambda <- (1 - rho_t) lambda + rho_t (eta + (N/|B|) sstats_B)``.
    learning_offset : float, default 10.0
        tau_0 of the step size ``rho_t = (t + tau_0) ** -kappa`` (online fit and ``partial_fit``).
    learning_decay : float, default 0.7
        kappa of that step size, in (0.5, 1] for convergence.
    batch_size : int or None, default None
        **Deprecated** (``StochasticVI(..., batch_size=...)``): documents per minibatch of
        ``learning_method='online'`` (None: 128); more than the training documents means
        one minibatch of all of them (as scikit-learn).
    total_samples : int, optional
        N, the number of documents of the whole corpus. ``partial_fit`` scales the minibatch
        statistics by ``N / |B|`` when given (scikit-learn's meaning; default no scaling); the
        online ``fit`` takes N from the data and raises if ``total_samples`` disagrees.
    holdout : float, array-like or None, default None
        **Deprecated** (``StochasticVI(..., holdout=...)``). Online fit only: held-out documents (a fraction of X split off at random, or a count
        matrix) whose ELBO is recorded in ``heldout_bounds_`` and decides convergence (``tol``,
        the noisy rule of :class:`latentkit.base.ConvergenceMonitor`); None runs ``max_iter``
        epochs.
    random_state : None, int or numpy.random.Generator
        Seed of the initialisation; a fixed value gives identical results.
    callback : callable, optional
        ``callback(model, n_iter, elbo)`` after every iteration; returning True stops the fit.
    verbose : bool, default False
        Print the ELBO at every iteration.

    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_features)
        Variational Dirichlet parameters lambda of the topics (pseudo-counts).
    exp_dirichlet_component_ : ndarray of shape (n_components, n_features)
        ``exp(E[log beta])`` under q.
    doc_topic_prior_, topic_word_prior_ : float or ndarray
        The priors used (fitted when 'auto'): float, alpha (K,), eta (V,) or (K, V).
    n_features_in_ : int
        Vocabulary size V.
    mean_doc_length_ : float
        Mean number of tokens of the training documents (default length for :meth:`sample`).
    start_report_ : dict
        With ``init='auto'`` (batch fit, no ``seed_topics``) the CVB0 start is checked
        against a random start drawn from a generator of its own, by the ELBO after a short
        VB run (:mod:`latentkit.topic._start_check`): the better is kept, the random one with
        a :class:`~latentkit.exceptions.StartCheckWarning` giving both bounds; when the CVB0
        start wins the fit is that of ``init='cvb0'`` (the start unchecked: the way to skip
        the check) bit for bit, at the price of the check's random run (the fit replays the
        default run's E-steps, :class:`latentkit.topic._lda_guard.ReplayedStart`). The
        check of the last initialisation:
        ``'chosen'`` ('default' or 'random'), ``'default'`` and ``'random'`` (the two runs'
        last ELBO, nats per document), ``'n_iter_default'``, ``'n_iter_random'``,
        ``'check_iter'``; absent with any other ``init``.
    lower_bound_, lower_bounds_, n_iter_, converged_, monitor_
        As in :class:`latentkit.base.LatentModel`; ELBO in nats per document. After an
        online fit an iteration is an epoch, as for the VAE: ``n_iter_`` is the number of
        epochs and ``lower_bounds_[i]`` the **training** ELBO of epoch i estimated from its
        minibatches (each at the topics entering its step; exact when ``batch_size`` is the
        number of documents; :attr:`latentkit.inference.StochasticVI.epoch_bounds_`), so
        ``lower_bound_`` is that of the last epoch. The held-out trace is
        ``heldout_bounds_`` only; ``converged_`` and ``monitor_`` refer to its noisy rule (False
        without ``holdout``).
    n_steps_ : int
        Minibatch steps taken (online fit / ``partial_fit``; 0 after a batch fit).
    heldout_bounds_, heldout_steps_, heldout_times_ : ndarray
        Online fit only: held-out ELBO (nats per document), the step of each evaluation, and
        seconds of fitting (evaluations excluded) at each, for time-to-accuracy curves.

    Notes
    -----
    E-step: for each document, ``gamma_d`` starts at ``alpha + N_d / K`` (Blei et al. 2003,
    Fig. 6; deterministic, so the E-step is a pure function of the topics) and is updated until
    the mean absolute change is below ``mean_change_tol``. Every iteration restarts from there
    (a cold start, as scikit-learn and gensim do; they draw each document's start at random,
    Gamma(100, 1/100), in every E-step, so fits with the same starting topics part from
    theirs after the first iteration). Warm-starting each document from the
    previous iteration's gamma would make every step an exact coordinate-ascent step (a
    provably monotone bound) and is faster per iteration, but it locks documents into early
    topic assignments and ends at a markedly worse optimum (KOS subset, K=10, 60 iterations:
    ELBO -1106.7 warm against -1084.7 cold nats per document; keeping per document the better
    of the two: -1088.4). The cold-start bound is monotone in practice (checked by the tests and
    by the monitor, which warns on any decrease) but not by construction: near convergence
    the inexact inner loop can lower it by ~1e-8 relative. ``fit`` therefore guards it (on every path: in memory, chunked, Dask): when
    the cold-start E-step of an iteration would give a lower ELBO than the previous iteration,
    each document whose previous gamma has the higher local ELBO at the current topics keeps
    it. The M-step is exact given phi, and phi re-optimised for the previous gamma is at least
    as good, so the guarded bound never decreases; the cold-start trajectory is unchanged
    whenever it increases.

    The ELBO per document is evaluated in closed form with phi optimal given gamma
    (``sum_w n_dw log sum_k exp(E[log theta_dk] + E[log beta_kw])`` plus the theta terms),
    and the global term is ``-sum_k KL(Dir(lambda_k) || Dir(eta))``.

    Empty documents are allowed: their posterior equals the prior and they contribute 0.

    References: Blei, Ng & Jordan (2003), "Latent Dirichlet Allocation", JMLR 3 (sections 5.2-5.3,
    appendix A.3); Hoffman, Blei & Bach (2010), "Online Learning for Latent Dirichlet
    Allocation", NIPS (Algorithm 1, eq. 2-6).

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit import LatentDirichletAllocation
    >>> rng = np.random.default_rng(0)
    >>> X = rng.poisson(1.0, size=(30, 12))  # 30 documents, 12 words
    >>> lda = LatentDirichletAllocation(3, random_state=0, max_iter=20).fit(X)
    >>> lda.components_.shape, lda.transform(X).shape
    ((3, 12), (30, 3))
    """

    _sample_unit = "document"
    _tol_may_be_none = True

    def __init__(self, n_components=10, *, doc_topic_prior=None, topic_word_prior=None,
                 max_iter=100, tol=None, max_doc_update_iter=100, mean_change_tol=1e-3,
                 warmup_doc_update_iter=None, init="auto", n_init=1, learning_method=None,
                 learning_offset=10.0, learning_decay=0.7, batch_size=None, total_samples=None,
                 holdout=None, random_state=None, callback=None, verbose=False,
                 seed_topics=None, seed_confidence=1.0, e_step_topk=None):
        self.n_components, self.e_step_topk = n_components, e_step_topk
        self.seed_topics, self.seed_confidence = seed_topics, seed_confidence
        self.doc_topic_prior = doc_topic_prior
        self.topic_word_prior = topic_word_prior
        self.max_iter = max_iter
        self.tol = tol
        self.max_doc_update_iter = max_doc_update_iter
        self.mean_change_tol = mean_change_tol
        self.warmup_doc_update_iter = warmup_doc_update_iter
        self.init = init
        self.n_init = n_init
        self.learning_method = learning_method
        self.learning_offset = learning_offset
        self.learning_decay = learning_decay
        self.batch_size = batch_size
        self.total_samples = total_samples
        self.holdout = holdout
        self.random_state = random_state
        self.callback = callback
        self.verbose = verbose

    # ---- template ----------------------------------------------------------------------------
    def _validate_params(self):
        if any(getattr(self, name, None) is not None for name in _DRIVER_KEYWORDS):
            # the stochastic driver's knobs (until 0.3): StochasticVI's
            moved_parameters(type(self).__name__, [name for name in _DRIVER_KEYWORDS
                                                   if getattr(self, name) is not None],
                             _NEW_SPELLING)
        K = check_scalar(self.n_components, "n_components", numbers.Integral, low=1)
        # floats as before; 'auto', arrays, seeds: _lda_priors
        self.doc_topic_prior_, self.topic_word_prior_ = resolve_priors(
            self.doc_topic_prior, self.topic_word_prior, K, getattr(self, "seed_topics", None),
            getattr(self, "seed_confidence", 1.0))
        check_step_params(self)
        resolve_e_step_topk(getattr(self, "e_step_topk", None), K)
        if self.learning_method not in (None, "batch", "online"):
            raise InputError(f"learning_method must be 'batch' or 'online', got "
                             f"{self.learning_method!r}.")
        if self.holdout is not None and self.learning_method != "online":
            raise InputError("holdout is used by learning_method='online' only (batch VB "
                             "converges on the training ELBO); drop holdout or set "
                             "learning_method='online'.")
        if isinstance(self.holdout, str) or (isinstance(self.holdout, numbers.Real)
                                             and not 0.0 < float(self.holdout) < 1.0):
            raise InputError(f"holdout must be a fraction in (0, 1) or a count matrix, got "
                             f"{self.holdout!r}.")
        if self.batch_size is not None:
            check_scalar(self.batch_size, "batch_size", numbers.Integral, low=1)
        if self.total_samples is not None:
            check_scalar(self.total_samples, "total_samples", numbers.Real, low=1)
        check_init(self.init, ("auto", "random", "spectral", "cvb0"))

    def _validate_data(self, X, reset, **kw):
        return validate_count_data(self, X, reset, kw)

    def _data_summary(self, data):
        return CountSummary.of(data)

    def _set_data_defaults(self, summary):
        """``mean_doc_length_`` and ``tol_`` from all training documents; refuse a declared
        vocabulary far wider than the words used before the K x V topics are allocated. A
        corpus without tokens is accepted, as in scikit-learn (the posterior of the topics is
        then exactly the prior and the bound 0), with a warning naming the cause; PLSA, whose
        maximum-likelihood estimate does not exist without tokens, refuses it."""
        if summary.total == 0:
            warnings.warn(
                f"X has no tokens: all {int(summary.n_rows)} documents are empty (every count is 0), "
                "so the topics stay at their prior (topic_word_prior) and the ELBO is 0. Check "
                "the document-term matrix (e.g. a vocabulary that matched no word).",
                UserWarning, stacklevel=user_stacklevel())
        check_dense_width(self.n_features_in_, summary.columns.size, int(self.n_components),
                          unit="columns (words)", owner="LatentDirichletAllocation",
                          what="topic-word matrix")
        self.mean_doc_length_ = float(summary.total / summary.n_rows)
        self.tol_ = float(self.tol) if self.tol is not None else \
            default_tol_per_token(learns_alpha(self.doc_topic_prior)) * \
            max(self.mean_doc_length_, 1.0)

    def _priors(self):
        """The learning of the priors (:class:`latentkit.topic._lda_priors.LDAPriors`) of
        this run; a fresh one (no trace) on a model whose run did not start here (restored,
        statistics set by hand)."""
        priors = getattr(self, "_prior_learning", None)
        learn = (learns_alpha(self.doc_topic_prior), learns_eta(self.topic_word_prior))
        if priors is None or (priors.K, priors.learn_alpha, priors.learn_eta) != (
                int(self.n_components), *learn):  # hyper-parameters changed (set_params)
            priors = self._prior_learning = LDAPriors(self.n_components, *learn)
        return priors

    def _start_priors(self, data):
        """The priors an initialisation starts from (:meth:`LDAPriors.start`), from the
        documents ``data`` of the start (the seeded topics' word counts)."""
        self._prior_learning = None  # the learned priors restart
        V = int(data.shape[1])
        seed = None
        if getattr(self, "seed_topics", None) is not None:
            seed = lambda eta: seeded_prior(  # noqa: E731
                self.seed_topics, self.seed_confidence, getattr(self, "feature_names_in_", None),
                eta, int(self.n_components), V, word_counts(data, V))
        self.doc_topic_prior_, self.topic_word_prior_ = self._priors().start(
            self.doc_topic_prior_, self.topic_word_prior_, V, self.topic_word_prior, seed)

    def _resolved_init(self, stochastic=False):
        """``init`` with ``'auto'`` resolved (class docs): ``'random'`` for the start of a
        stochastic fit (``partial_fit``, the online fit), else ``'cvb0'``."""
        if self.init != "auto":
            return self.init
        return "random" if stochastic else "cvb0"

    def _init_params(self, data, rng):
        # the default start, checked (topic/_start_check.py); seeded topics keep their start
        checked = self.init == "auto" and getattr(self, "seed_topics", None) is None
        random_rng = random_start_generator(rng) if checked else None  # rng left as it is
        self._start_topics(data, rng, self._resolved_init())
        vars(self).pop("start_report_", None)
        vars(self).pop("_start_replay", None)
        if checked:
            X, record = check_counts(data, "X"), []
            self.start_report_, lam = checked_start(
                X, self.components_, random_rng, self.doc_topic_prior_,
                self.topic_word_prior_, self.max_doc_update_iter, self.mean_change_tol,
                self._resolved_tol(), record=record)
            if lam is not self.components_:
                self._set_components(lam)
            if self.warmup_doc_update_iter is None:  # the check's E-steps, for the fit
                self._start_replay = ReplayedStart(X, self.doc_topic_prior_, record)

    def _stochastic_init(self, data, rng):
        self._start_topics(data, rng, self._resolved_init(stochastic=True))

    def _start_topics(self, data, rng, init):
        K, V = int(self.n_components), data.shape[1]
        self._start_priors(data)  # the learned priors restart; the seeded prior matrix
        alpha0, eta0 = float(np.mean(self.doc_topic_prior_)), self.topic_word_prior_
        if isinstance(init, dict):
            lam = np.array(init["components"], dtype=np.float64, copy=True)
            if lam.shape != (K, V):
                raise InputError(f"init['components'] must have shape ({K}, {V}) "
                                 f"(n_components, n_features), got {lam.shape}.")
            if not np.all(np.isfinite(lam)) or np.any(lam <= 0):
                raise InputError("init['components'] must be finite and strictly positive.")
        elif init == "spectral":  # method of moments (latentkit.topic.spectral_init_lda)
            lam = spectral_init_lda(data, K, alpha0, eta0, random_state=rng)["components"]
        elif init == "cvb0":  # collapsed VB sweeps (latentkit.topic.cvb0_topics)
            # on a copy of the generator: where the moments are degenerate (no seeds) the
            # start is the length-weighted one of before, bit for bit; seed_topics choose
            # their seeds by their words (the spectral topics know nothing of the seeding)
            seeds = None if getattr(self, "seed_topics", None) is not None else \
                spectral_seed_documents(check_counts(data, "X"), K, alpha0, copy.deepcopy(rng))
            lam = cvb0_topics(data, K, alpha0, eta0, random_state=rng, seed_documents=seeds,
                              callback=sweep_callback(self, "cvb0 sweeps", 100))
        else:
            lam = rng.gamma(100.0, 0.01, size=(K, V))
        self._set_components(lam)

    def _set_state(self, state):
        """Restore the fitted state; the E-step tables are recomputed from ``components_``."""
        super()._set_state(state)
        if hasattr(self, "components_"):
            self._set_components(self.components_)

    def _set_components(self, lam, tables=None):
        """``components_`` and the E-step tables (``tables``: those of ``lam``, computed by
        the caller; default computed here)."""
        self.components_ = lam
        self._exp_beta_t, self._beta_shift = _beta_tables(lam) if tables is None else tables
        # exp(E[log beta]) = exp(E[log beta] - shift) exp(shift): a product, not K V more exps
        self.exp_dirichlet_component_ = self._exp_beta_t.T * np.exp(self._beta_shift)

    def _empty_stats(self):
        return self._priors().empty_stats(self.n_features_in_)

    def _local_step(self, X, gamma0=None, sstats=True):
        return run_sparse_e_step(X, self._exp_beta_t, self._beta_shift, self.doc_topic_prior_,
                                 self.max_doc_update_iter, self.mean_change_tol, self._topk(),
                                 gamma0=gamma0, sstats=sstats)

    def _topk(self):
        return resolve_e_step_topk(getattr(self, "e_step_topk", None), self.n_components)

    def _stats_from(self, X, ss, doc_elbo, gamma=None):
        return self._priors().stats(X, ss, doc_elbo, gamma)  # + E[log theta] for 'auto' alpha

    def _guard_step(self):
        """The E-step of one part at the current topics, for the guard (arrays only)."""
        return guard_step(self._exp_beta_t, self._beta_shift, self.doc_topic_prior_,
                          self.mean_change_tol, self._priors().learn_alpha, self._topk())

    def _guard_part(self, X, cap, old=None):
        """:meth:`LDALocalStep.part` where a Dask block lives (the model rebuilt there)."""
        return self._guard_step().part(X, cap, old)

    def _warm_state(self):
        # the monotone guard of the class Notes: the previous iteration's gamma and ELBO
        # and the iteration count of the warm-up caps (warmup_doc_update_iter)
        # and the start check's E-steps that the fit replays (ReplayedStart: bit for bit)
        return GuardedEStep(self.max_doc_update_iter, self.warmup_doc_update_iter,
                            replay=vars(self).pop("_start_replay", None))

    def _e_step(self, data):
        """Cold-start local step and statistics (class Notes): a pure function of the topics."""
        gamma, ss, doc_elbo, _ = self._local_step(data)
        return self._stats_from(data, ss, doc_elbo, gamma)

    def _warm_e_step(self, data, warm):
        """The E-step of a batch iteration with the monotone guard of the class Notes, the
        same on in-memory, chunked and Dask data (:mod:`latentkit.topic._lda_guard`)."""
        step = self._guard_step()
        if warm.replay is not None and self._topk() is None:  # the check's steps are dense
            step = warm.replay.step(step, data, self.components_, self.doc_topic_prior_)
        return warm.e_step(data, step, self._global_elbo_terms(),
                           self._empty_stats, (self, type(self)._guard_part))

    def _start_needs_data(self):
        init = self._resolved_init()
        return isinstance(init, str) and init != "random"

    def _m_step(self, stats, step_size=None, scale=1.0):
        """Topics ``lambda <- (1 - rho) lambda + rho (eta + scale * sstats)``, then the learned
        priors. ``step_size=None`` (the engine's batch call): a batch iteration, lambda set to
        the target and the priors maximised; a number rho: a stochastic step (rho = 1 included:
        the priors take one Newton step, :meth:`latentkit.topic._lda_priors.LDAPriors.update`)."""
        eta = self.topic_word_prior_
        target = eta + scale * stats.sstats
        if step_size is None or step_size >= 1.0:
            lam = target
        else:
            lam = (1.0 - step_size) * self.components_ + step_size * target
        self._set_components(lam)
        # 'auto' priors: empirical Bayes (_lda_priors)
        self.doc_topic_prior_, self.topic_word_prior_ = self._priors().update(
            stats, self.doc_topic_prior_, self.topic_word_prior_, lam, step_size)

    def _global_elbo_terms(self):
        return -float(np.sum(dirichlet_kl(self.components_, self.topic_word_prior_)))

    # ---- public API ----------------------------------------------------------------------------
    def _deprecated_fit(self):
        """The deprecated ``learning_method='online'`` (until 0.3): :meth:`_fit_online`,
        run by ``fit`` instead of the batch loop (``LatentModel._deprecated_fit``)."""
        return self._fit_online if self.learning_method == "online" else None

    def _fit_online(self, X, y=None):
        """The deprecated ``learning_method='online'``: this model fitted by
        :class:`latentkit.inference.StochasticVI` over minibatches of ``batch_size`` documents
        for ``max_iter`` epochs; the run's record is this model's, with ``mean_doc_length_``
        and ``tol_`` from all the documents, held-out ones included (as in latentkit 0.1;
        ``StochasticVI`` itself reads them from the training documents)."""
        self._check_common_params()
        self._validate_params()
        if self.n_init != 1:
            raise InputError(f"n_init={self.n_init}: learning_method='online' runs one "
                             "initialisation; use n_init=1.")
        if not isinstance(X, ChunkSource):
            X = check_counts(X, "X")  # validated once; minibatches are CSR row slices
        summary, width = _count_summary(X)  # all documents, not the first minibatch or chunk
        check_dense_width(width, summary.columns.size, int(self.n_components),
                          unit="columns (words)", owner="LatentDirichletAllocation",
                          what="topic-word matrix")
        batch_size = online_batch_size(128 if self.batch_size is None else self.batch_size,
                                       summary.n_rows, self.holdout)
        template = clone(self)  # StochasticVI fits a clone of it; this estimator adopts it
        template.set_params(callback=None, **{name: None for name in _DRIVER_KEYWORDS})
        if self.seed_topics is not None:  # words resolved here: the clone has no vocabulary
            seeds = resolve_seed_topics(self.seed_topics, int(self.n_components), width,
                                        getattr(self, "feature_names_in_", None))
            template.set_params(seed_topics={k: [int(w) for w in ids]
                                             for k, ids in seeds.items()})
        user_cb = self.callback

        def cb(driver, t, value):  # the callback sees this estimator, brought up to date
            self._adopt(driver.model_)
            return user_cb(self, t, value)

        svi = StochasticVI(template, batch_size=batch_size,
                           learning_offset=self.learning_offset,
                           learning_decay=self.learning_decay, n_epochs=self.max_iter,
                           holdout=self.holdout, tol=self.tol if self.tol is not None else
                           1e-3 * max(_mean_length(summary), 1.0),
                           random_state=self.random_state,
                           callback=None if user_cb is None else cb)
        ts = None if self.total_samples is None else int(self.total_samples)
        if ts is not None and ts != self.total_samples:
            raise InputError(f"total_samples must be a whole number of documents, got "
                             f"{self.total_samples!r}.")
        try:
            svi.fit(X, total_samples=ts)
        except KeyboardInterrupt:  # the model of the last completed step, if any
            if "model_" in vars(svi):
                self._adopt(svi.model_)
                self._record_online(svi, summary)
            else:  # interrupted before the first step: unfitted, as a batch fit leaves it
                self._adopt(None)
            raise
        self._adopt(svi.model_)
        self._record_online(svi, summary)
        return self

    def _adopt(self, fitted):
        """This estimator takes the fitted state of ``fitted`` (a clone fitted by
        StochasticVI; None: nothing); its own fitted attributes are dropped first (a refit
        starts afresh), its hyper-parameters and vocabulary (``attach``) stay."""
        params = set(self._get_param_names()) | BEFORE_FIT
        for key in [k for k in vars(self) if k not in params]:
            delattr(self, key)
        if fitted is not None:
            vars(self).update({k: v for k, v in vars(fitted).items() if k not in params})

    def _record_online(self, svi, summary):
        """The record of an online fit (``svi``: the fitted
        :class:`latentkit.inference.StochasticVI`) as this model's: an iteration is an epoch
        (class docs); ``mean_doc_length_`` and ``tol_`` from all the documents (``summary``),
        the held-out ones included."""
        self.mean_doc_length_ = mean_len = _mean_length(summary)
        self.tol_ = float(self.tol) if self.tol is not None else 1e-3 * max(mean_len, 1.0)
        self.heldout_bounds_ = svi.heldout_bounds_
        self.heldout_steps_ = svi.heldout_steps_
        self.heldout_times_ = svi.heldout_times_
        self.lower_bounds_ = svi.epoch_bounds_
        self.lower_bound_ = float(self.lower_bounds_[-1])
        self.n_iter_ = svi.n_epochs_
        self.n_steps_ = svi.n_steps_
        self.converged_ = svi.converged_
        self.monitor_ = svi.monitor_

    #: Fitted attributes that ``_set_state`` rebuilds from ``components_`` (not sent to Dask
    #: workers with every iteration's tasks)
    _derived_attributes = ("exp_dirichlet_component_",)

    def _private_svi_pieces(self, owner):
        """The pieces of :class:`latentkit.inference.PrivateStochasticVI` for LDA
        (:mod:`latentkit.topic._private_svi`)."""
        return LDAPrivatePieces(self, owner, self._set_components)

    def _svi_stepper(self, total_samples):
        """StochasticVI's step on the minibatch's words only (equal to :meth:`partial_fit`;
        :mod:`latentkit.topic._lda_svi`), or None for a subclass with its own steps."""
        if not symmetric_priors(self.doc_topic_prior_, self.topic_word_prior_,
                                getattr(self, "seed_topics", None)):  # vectors: partial_fit
            return None
        return stochastic_stepper(self, LatentDirichletAllocation, total_samples,
                                  self._set_components)

    def _doc_topic(self, X):
        self._check_is_fitted()
        X = self._validate_data(counts_from_texts(self, X), reset=False)  # raw texts allowed
        gamma, _, doc_elbo, _ = self._local_step(X, sstats=False)
        return X, gamma, doc_elbo

    def transform(self, X):
        """Posterior mean document-topic proportions ``E_q[theta_d] = gamma_d / sum_k gamma_dk``.

        Parameters
        ----------
        X : array-like or scipy.sparse matrix of shape (n_documents, n_features), or list of str
            Counts, or raw texts when the model was fitted through :mod:`latentkit.text` (its
            stored vectorizer counts them).

        Returns
        -------
        ndarray of shape (n_documents, n_components)
            Rows sum to 1 (uniform for an empty document).

        Raises
        ------
        NotFittedError, ValueError
        """
        _, gamma, _ = self._doc_topic(X)
        return gamma / gamma.sum(axis=1, keepdims=True)

    def score_samples(self, X):
        """Local ELBO of each document (nats): the five per-document terms of Blei et al.
        (2003, eq. 15) with gamma and phi optimised and the topics fixed.

        The global term ``-KL(q(beta) || p(beta))`` is not per document and is not included:
        ``score_samples(X).sum() + (global term) == elbo(X) * n_documents``.

        Parameters
        ----------
        X : array-like or scipy.sparse matrix of shape (n_documents, n_features)

        Returns
        -------
        ndarray of shape (n_documents,)
            Nats per document (0 for an empty document).
        """
        return self._doc_topic(X)[2]

    def _sample_doc_topic(self, n_samples, rng):
        """Topic proportions ``theta_d ~ Dir(alpha)`` of :meth:`sample` (rows sum to 1)."""
        K = self.components_.shape[0]
        theta = rng.dirichlet(np.full(K, self.doc_topic_prior_), size=n_samples)
        # guard against underflow of tiny alpha draws (rows of zeros / NaN)
        theta = np.nan_to_num(theta, nan=0.0)
        bad = theta.sum(axis=1) <= 0
        if bad.any():
            theta[bad, rng.integers(0, K, size=int(bad.sum()))] = 1.0
        theta /= theta.sum(axis=1, keepdims=True)
        return theta

    def _check_state(self):
        """Validate a restored state (:mod:`latentkit.topic._state_checks`)."""
        check_lda_state(FittedState(vars(self), type(self).__name__))
