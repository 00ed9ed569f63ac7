"""The hierarchical Dirichlet process topic model, fitted by mean-field variational Bayes.

Model (Teh, Jordan, Beal & Blei 2006) in the two-level stick-breaking representation of Wang,
Paisley & Blei (2011): corpus sticks ``beta'_k ~ Beta(1, gamma)``, ``beta_k = beta'_k
prod_{l<k} (1 - beta'_l)``, topics ``phi_k ~ Dirichlet(eta)`` (k = 1..T); per document sticks
``pi'_dt ~ Beta(1, alpha)`` over K document atoms, atom t on corpus topic ``c_dt ~ Cat(beta)``,
and each token on atom ``z ~ Cat(pi_d)`` with word ``w ~ Cat(phi_{c_{d z}})``. The variational
family truncates at T (``q(beta'_T = 1) = 1``) and K (``pi'_dK = 1``):
``q(beta'_k) = Beta(u_k, v_k)``, ``q(phi_k) = Dir(lambda_k)``, ``q(pi'_dt) = Beta(a_dt, b_dt)``,
``q(c_dt) = Cat(varphi_dt)``, ``q(z_dn) = Cat(zeta_dn)``.

The E-step (document-level coordinate ascent, :mod:`latentkit.topic._hdp_estep`) returns the
statistics; the M-step is ``lambda <- (1 - rho) lambda + rho (eta + scale * sstats)`` and the
same step on the corpus sticks (rho = 1: batch VB).
"""

import numbers

import numpy as np

from .._utils.summaries import CountSummary
from .._utils.validation import check_dense_width, check_scalar
from ..base import LatentModel
from ..distributions._concentration import (check_gamma_prior, concentration_kl,
                                            concentration_log_gap, concentration_mean,
                                            concentration_posterior, free_stick_log_rest)
from ..distributions._dirichlet import dirichlet_kl
from ..distributions._stick_breaking import (stick_expected_log_weights, stick_expected_weights,
                                             stick_kl, stick_posterior)
from ..text import counts_from_texts
from .._engine.state_checks import StateCheckError, _array, _int, _real
from ._count_model import CountTopicModelMixin
from ._cvb0 import cvb0_topics, sweep_callback
from ._count_data import check_init, check_step_params, validate_count_data
from ._hdp_estep import HDPLocalStep, HDPStats, elog_tables
from ._lda_guard import GuardedEStep
from ._report import TopicReportMixin
from .._utils.words import TopWordsMixin
from ..exceptions import InputError

__all__ = ["HierarchicalDirichletProcess", "HDPStats", "EFFECTIVE_WEIGHT_THRESHOLD"]

#: A topic counts in ``n_effective_components_`` when it carries more than this share of the
#: expected topic-word counts (``components_`` minus the prior).
EFFECTIVE_WEIGHT_THRESHOLD = 0.01

#: CVB0 sweeps of ``init='cvb0'``.
CVB0_SWEEPS = 50


def _row_stick_weights(v):
    """``v_t prod_{s<t} (1 - v_s)`` of each row of sticks ``v`` (n, K)."""
    return v * np.cumprod(np.hstack([np.ones((v.shape[0], 1)), 1.0 - v[:, :-1]]), axis=1)


def _found(values):
    """What a bad init array holds, for the message: a non-finite entry, or its minimum."""
    if not np.all(np.isfinite(values)):
        return "a non-finite entry"
    return f"minimum {float(np.min(values))!r}"


class HierarchicalDirichletProcess(CountTopicModelMixin, TopicReportMixin, TopWordsMixin,
                                   LatentModel):
    """Hierarchical Dirichlet process topic model by mean-field variational Bayes (batch VB,
    ``partial_fit`` / :class:`latentkit.inference.StochasticVI` for the online fit).

    A topic model that chooses its number of topics: the corpus has up to T topics whose
    weights follow a stick-breaking prior, each document up to K atoms drawn from them. Input
    is a documents x vocabulary count matrix; the ELBO is in **nats per document**.

    Parameters
    ----------
    n_components : int, default 50
        T, the corpus-level truncation (the most topics the fit can use).
    n_doc_components : int, default 10
        K, the document-level truncation (the most distinct topics of one document).
    concentration : float, default 1.0
        gamma, the corpus-level concentration of the Beta(1, gamma) corpus sticks (> 0),
        fixed; not used when ``concentration_prior`` is given.
    doc_concentration : float, default 1.0
        alpha, the document-level concentration of the Beta(1, alpha) document sticks (> 0),
        fixed; not used when ``doc_concentration_prior`` is given.
    concentration_prior, doc_concentration_prior : None or (float, float), default None
        A ``Gamma(shape, rate)`` prior on gamma (resp. alpha) instead of a fixed value:
        the fit then has the variational factor ``q(gamma) = Gamma(w_1, w_2)`` with the
        closed-form update ``w_1 = s_1 + (T - 1)``, ``w_2 = s_2 - sum_{k<T} E[log(1 -
        beta'_k)]`` (resp. ``s_1 + D (K - 1)`` and the ``D (K - 1)`` document sticks), the
        sticks use ``E[gamma] = w_1 / w_2``, and the ELBO includes
        ``E[log p(gamma)] - E[log q(gamma)]`` and the sticks' terms under ``q(gamma)``
        (Blei & Jordan 2006, section 3.3, for the DP mixture; Teh et al. 2006 and Wang,
        Paisley & Blei 2011 for the HDP). ``q`` starts at the prior. tomotopy's
        ``HDPModel`` and gensim's ``HdpModel`` keep both fixed.
    topic_word_prior : float, default 0.01
        eta, the symmetric Dirichlet prior of the topics (> 0), gensim's and tomotopy's
        default for their HDP.
    max_iter : int, default 100
        Maximum batch iterations (E-step + M-step).
    tol : float or None, default None
        Stop when the ELBO changes by less than ``tol`` nats per document; None resolves to
        ``tol_ = 1e-3 * mean_doc_length_`` as :class:`LatentDirichletAllocation`.
    max_doc_update_iter : int, default 100
        Maximum coordinate-ascent sweeps per document in the E-step.
    mean_change_tol : float, default 1e-3
        A document's E-step stops when the mean absolute change of its atoms' expected counts
        ``a_t - 1`` is below this.
    warmup_doc_update_iter : int or None, default 4
        Batch fit only: cap the sweeps per document of batch iteration i (1-based) at
        ``min(max_doc_update_iter, warmup_doc_update_iter * 2 ** (i - 1))`` (4: 4, 8, 16,
        32, 64 sweeps, then ``max_doc_update_iter``), so that the first iterations, whose
        topics are about to change, are cheap (as :class:`LatentDirichletAllocation`'s
        option). None: ``max_doc_update_iter`` throughout. The bound stays monotone (the
        guard of the Notes). Measured (``benchmarks/bench_hdp.py``, 900 training documents,
        45 s): the first iteration ends after 1.4 s instead of 10.3 s on KOS and 4.3 s
        instead of 37 s on NIPS, and the held-out perplexity at the end of the budget is
        lower (KOS 2081 against 2089, NIPS 1761 against 1816).
    init : {'random', 'cvb0'} or dict, default 'random'
        The starting global factors. ``'random'``: ``lambda_kw ~ Gamma(100, 1/100)``
        (Hoffman et al. 2010), near-identical topics, and the corpus sticks as if the
        ``D * K`` document atoms were spread evenly over the T topics. gensim's ``HdpModel``
        starts from such topics and often ends with one or a few topics (gensim #2838): its
        documents start symmetric (every atom alike, separated only by the document sticks).
        Here each document starts with its atoms on distinct topics, ranked by the document's
        words (:mod:`latentkit._kernels.hdp`), so the topics separate in the first iterations
        and the fit keeps as many as the data support: on planted corpora with 4 topics, 4 of
        T = 12 topics above 1% of the tokens for seeds 1, 2 and 3 (``tests/topic/test_hdp.py``)
        and 5 for seed 0.
        ``'cvb0'``: the topics of ``CVB0_SWEEPS`` = 50 sweeps of zero-order collapsed VB of
        LDA with T topics and ``doc_topic_prior = alpha / T`` (:func:`latentkit.topic.cvb0_topics`,
        the default start of :class:`LatentDirichletAllocation`), ordered by decreasing mass,
        and the corpus sticks spread in proportion to that mass: every topic starts distinct
        and in use, and variational Bayes seldom merges topics back, so most of the T topics
        stay (measured on the same planted corpora: 8 to 12 of 12 above 1%); a start for a
        fit whose T is already about right, not for choosing the number of topics.
        A dict ``{'components': (T, V) array > 0}`` gives lambda, with an optional
        ``'weight_concentration': (2, T)`` array (default: the atoms spread evenly).
    n_init : int, default 1
        Initialisations; the one with the highest final ELBO is kept.
    learning_offset : float, default 10.0
        tau_0 of the step size ``rho_t = (t + tau_0) ** -kappa`` of ``partial_fit``.
    learning_decay : float, default 0.7
        kappa of that step size, in (0.5, 1].
    total_samples : int, optional
        N, the number of documents of the corpus: ``partial_fit`` scales the minibatch
        statistics by ``N / |B|`` (default no scaling).
    random_state : None, int or numpy.random.Generator
        Seed of the initialisation; a fixed value gives identical results.
    callback : callable, optional
        ``callback(model, n_iter, elbo)`` after every iteration; returning True stops.
    verbose : bool, default False
        Print the ELBO at every iteration.

    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_features)
        Variational Dirichlet parameters lambda of the topics (pseudo-counts), as
        :attr:`LatentDirichletAllocation.components_`.
    weight_concentration_ : ndarray of shape (2, n_components)
        Beta parameters (u_k, v_k) of the corpus sticks; the last column is (1, 0)
        (``beta'_T = 1``), as :attr:`DirichletProcessMixture.weight_concentration_`.
    topic_weights_ : ndarray of shape (n_components,)
        Expected corpus-level topic weights ``E[beta'_k] prod_{l<k} E[1 - beta'_l]`` (sum 1).
    n_effective_components_ : int
        Topics that carry more than ``EFFECTIVE_WEIGHT_THRESHOLD`` = 1% of the expected
        topic-word counts (``components_ - topic_word_prior``, i.e. of the training tokens).
        Counted on tokens rather than on ``topic_weights_``, which count document atoms:
        a document's spare atoms (K above the topics it uses) spread over the topics by the
        prior and can lift an empty topic above 1%.
    concentration_, doc_concentration_, topic_word_prior_ : float
        The priors used; with a Gamma prior on a concentration, its current posterior mean
        ``E_q`` (the value the stick updates use).
    concentration_posterior_, doc_concentration_posterior_ : ndarray of shape (2,) or None
        (shape, rate) of ``q(gamma)`` and ``q(alpha)`` with a Gamma prior, else None.
    n_features_in_ : int
        Vocabulary size V.
    mean_doc_length_ : float
        Mean number of tokens of the training documents.
    lower_bound_, lower_bounds_, n_iter_, converged_, monitor_, n_steps_
        As in :class:`latentkit.base.LatentModel`; ELBO in nats per document.

    Notes
    -----
    The local ELBO of a document (Wang, Paisley & Blei 2011, eq. 8, with zeta optimal given
    varphi and the document sticks) is ``sum_j n_j log sum_t exp(sum_k varphi_tk
    E[log phi_{k w_j}] + E[log pi_t]) - sum_{t<K} KL(q(pi'_t) || Beta(1, alpha))
    + sum_{t,k} varphi_tk (E[log beta_k] - log varphi_tk)``; the global term is
    ``-sum_{k<T} KL(q(beta'_k) || Beta(1, gamma)) - sum_k KL(q(phi_k) || Dir(eta))``. Each
    document starts from a deterministic function of the global factors (atom t on the
    document's t-th most likely topic, :mod:`latentkit._kernels.hdp`), so the E-step is a pure
    function of them. As for LDA, ``fit`` guards the bound on every path: when an iteration's
    E-step would give a lower ELBO than the previous one, each document whose previous
    (varphi, sticks), with zeta re-optimised, has the higher local bound keeps them; the M-step
    is exact given the local factors, so the bound never decreases.

    With ``n_components=1`` and ``n_doc_components=1`` the model is one multinomial with a
    Dirichlet prior, and the ELBO of the fit is the exact log evidence (tested).

    The concentrations are fixed unless ``concentration_prior`` / ``doc_concentration_prior``
    give them Gamma priors; then the document term above has ``E_q[log alpha] - log
    E_q[alpha]`` per free document stick added (the sticks' KL is taken at ``E_q[alpha]``),
    the global term the same for gamma and ``-KL(q(gamma) || p(gamma)) - KL(q(alpha) ||
    p(alpha))``, and each M-step updates ``q(gamma)`` after the corpus sticks and ``q(alpha)``
    from the document sticks, each exactly, so the bound stays monotone
    (:mod:`latentkit.distributions._concentration`).

    References: Teh, Jordan, Beal & Blei (2006), "Hierarchical Dirichlet Processes", JASA;
    Wang, Paisley & Blei (2011), "Online Variational Inference for the Hierarchical Dirichlet
    Process", AISTATS (section 3, eqs. 8-16; Algorithm 1 for the online steps).

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit import HierarchicalDirichletProcess
    >>> rng = np.random.default_rng(0)
    >>> X = rng.poisson(1.0, size=(30, 12))  # 30 documents, 12 words
    >>> hdp = HierarchicalDirichletProcess(8, n_doc_components=4, random_state=0,
    ...                                    max_iter=10).fit(X)
    >>> hdp.components_.shape, hdp.transform(X).shape
    ((8, 12), (30, 8))
    """

    _sample_unit = "document"
    _tol_may_be_none = True
    #: Fitted attributes that ``_set_state`` rebuilds from the factors (not shipped to Dask)
    _derived_attributes = ("topic_weights_", "n_effective_components_")

    def __init__(self, n_components=50, *, n_doc_components=10, concentration=1.0,
                 doc_concentration=1.0, concentration_prior=None, doc_concentration_prior=None,
                 topic_word_prior=0.01, max_iter=100, tol=None,
                 max_doc_update_iter=100, mean_change_tol=1e-3, warmup_doc_update_iter=4,
                 init="random", n_init=1,
                 learning_offset=10.0, learning_decay=0.7, total_samples=None,
                 random_state=None, callback=None, verbose=False):
        self.n_components = n_components
        self.n_doc_components = n_doc_components
        self.concentration = concentration
        self.doc_concentration = doc_concentration
        self.concentration_prior = concentration_prior
        self.doc_concentration_prior = doc_concentration_prior
        self.topic_word_prior = topic_word_prior
        self.max_iter = max_iter
        self.tol = tol
        self.max_doc_update_iter = max_doc_update_iter
        self.mean_change_tol = mean_change_tol
        self.warmup_doc_update_iter = warmup_doc_update_iter
        self.init = init
        self.n_init = n_init
        self.learning_offset = learning_offset
        self.learning_decay = learning_decay
        self.total_samples = total_samples
        self.random_state = random_state
        self.callback = callback
        self.verbose = verbose

    # ---- validation ----------------------------------------------------------------------
    def _validate_params(self):
        check_scalar(self.n_components, "n_components", numbers.Integral, low=1)
        check_scalar(self.n_doc_components, "n_doc_components", numbers.Integral, low=1)
        for name in ("concentration", "doc_concentration", "topic_word_prior"):
            value = check_scalar(getattr(self, name), name, numbers.Real, low=0.0,
                                 low_inclusive=False)
            setattr(self, name + "_", float(value))
        self._start_concentrations()
        check_step_params(self)
        if self.total_samples is not None:
            check_scalar(self.total_samples, "total_samples", numbers.Real, low=1)
        check_init(self.init, ("random", "cvb0"), ("weight_concentration",))

    def _validate_data(self, X, reset, **kw):
        return validate_count_data(self, X, reset, kw)

    def _data_summary(self, data):
        return CountSummary.of(data)

    def _set_data_defaults(self, summary):
        check_dense_width(self.n_features_in_, summary.columns.size, int(self.n_components),
                          unit="columns (words)", owner="HierarchicalDirichletProcess",
                          what="topic-word matrix")
        self.mean_doc_length_ = float(summary.total / max(summary.n_rows, 1.0))
        # D of the start's corpus sticks: all the training documents, wherever they live
        self._n_start_docs = max(float(summary.n_rows), 1.0)
        self.tol_ = float(self.tol) if self.tol is not None else \
            1e-3 * max(self.mean_doc_length_, 1.0)

    # ---- start -----------------------------------------------------------------------------
    def _gamma_prior(self, name):
        """The checked (shape, rate) of ``<name>_prior``, or None."""
        return check_gamma_prior(getattr(self, name + "_prior"), name + "_prior")

    def _start_concentrations(self):
        """q(gamma) and q(alpha) at their priors (None when fixed), the means in use."""
        for name in ("concentration", "doc_concentration"):
            prior = self._gamma_prior(name)
            setattr(self, f"{name}_posterior_", None if prior is None else prior.copy())
            if prior is not None:
                setattr(self, name + "_", concentration_mean(prior))

    def _start_needs_data(self):
        return isinstance(self.init, str) and self.init == "cvb0"

    def _spread_atoms(self, n_docs, mass):
        """Corpus sticks as if the ``n_docs * K`` document atoms were spread over the topics
        in proportion to ``mass`` (T,)."""
        atoms = float(n_docs) * int(self.n_doc_components) * mass / mass.sum()
        return stick_posterior(atoms, 0.0, (1.0, self.concentration_), "fixed")

    def _init_params(self, data, rng):
        T, V = int(self.n_components), data.shape[1]
        self._start_concentrations()
        n_docs = getattr(self, "_n_start_docs", max(data.shape[0], 1))
        sticks = None
        if isinstance(self.init, dict):
            lam = np.array(self.init["components"], dtype=np.float64, copy=True)
            if lam.shape != (T, V):
                raise InputError(f"init['components'] must have shape ({T}, {V}) "
                                 f"(n_components, n_features), got {lam.shape}.")
            if not np.all(np.isfinite(lam)) or np.any(lam <= 0):
                raise InputError("init['components'] must be finite and strictly positive, got "
                                 f"{_found(lam)}.")
            if "weight_concentration" in self.init:
                sticks = np.array(self.init["weight_concentration"], dtype=np.float64)
                if sticks.shape != (2, T) or not np.all(np.isfinite(sticks)) \
                        or np.any(sticks[:, :-1] <= 0):
                    raise InputError(f"init['weight_concentration'] must be a finite (2, {T}) "
                                     "array, positive in its first T - 1 columns, got "
                                     + (f"shape {sticks.shape}." if sticks.shape != (2, T) else
                                        f"{_found(sticks[:, :-1])}."))
                sticks[:, -1] = (1.0, 0.0)
        elif self.init == "cvb0":
            lam = cvb0_topics(data, T, self.doc_concentration_ / T, self.topic_word_prior_,
                              n_sweeps=CVB0_SWEEPS, random_state=rng,
                              callback=sweep_callback(self, "cvb0 sweeps", CVB0_SWEEPS))
            mass = lam.sum(axis=1) - V * self.topic_word_prior_
            order = np.argsort(-mass, kind="stable")
            lam = np.ascontiguousarray(lam[order])
            sticks = self._spread_atoms(n_docs, np.maximum(mass[order], 0.0) + 1e-3)
        else:
            lam = rng.gamma(100.0, 0.01, size=(T, V))
        if sticks is None:
            sticks = self._spread_atoms(n_docs, np.ones(T))
        self._set_globals(lam, sticks)

    def _set_globals(self, lam, sticks):
        self.components_ = lam
        self.weight_concentration_ = sticks
        self._elog_phi_t = elog_tables(lam)
        self._elog_beta = stick_expected_log_weights(sticks, "fixed")[0]
        self.topic_weights_ = stick_expected_weights(sticks, "fixed")
        self.n_effective_components_ = int(np.sum(self.effective_mask()))

    def effective_mask(self):
        """Which topics count in ``n_effective_components_`` (see the class attributes).

        Returns
        -------
        ndarray of shape (n_components,) of bool

        Raises
        ------
        NotFittedError
        """
        self._check_is_fitted()
        mass = self.components_.sum(axis=1) - self.components_.shape[1] * self.topic_word_prior_
        mass = np.maximum(mass, 0.0)
        return mass > EFFECTIVE_WEIGHT_THRESHOLD * max(float(mass.sum()), np.finfo(float).tiny)

    def _set_state(self, state):
        """Restore the fitted state; the E-step tables are rebuilt from the factors."""
        super()._set_state(state)
        for name in ("concentration_posterior_", "doc_concentration_posterior_"):
            self.__dict__.setdefault(name, None)  # files written before the Gamma priors
        if hasattr(self, "components_"):
            self._set_globals(self.components_, self.weight_concentration_)

    def _check_state(self):
        """Validate a restored fitted state (:func:`latentkit.load`): the factors' shapes
        agree with the hyper-parameters, are finite and positive; the priors positive.

        Raises
        ------
        ValueError
            (``latentkit._engine.state_checks.StateCheckError``) naming the bad attribute.
        """
        T, V = _int(self, "n_components"), _int(self, "n_features_in_")
        _array(self, "components_", (T, V), positive=True)
        sticks = _array(self, "weight_concentration_", (2, T))
        if not np.all(sticks[:, :-1] > 0) or not np.array_equal(sticks[:, -1], [1.0, 0.0]):
            raise StateCheckError("weight_concentration_", "expected positive Beta parameters "
                                  "and a last column (1, 0)")
        for name in ("concentration_", "doc_concentration_", "topic_word_prior_"):
            _real(self, name, low=0.0)
        for name in ("concentration_posterior_", "doc_concentration_posterior_"):
            if getattr(self, name) is not None:
                _array(self, name, (2,), positive=True)

    # ---- template ----------------------------------------------------------------------
    def _empty_stats(self):
        T = int(self.n_components)
        return HDPStats(sstats=np.zeros((T, self.n_features_in_)), topic_counts=np.zeros(T),
                        n=0.0, data_term=0.0, n_tokens=0.0)

    def _local_step(self):
        """The document-level E-step at the current global factors (arrays only)."""
        K = int(self.n_doc_components)
        shift = None
        if self.doc_concentration_posterior_ is not None:  # E_q[log alpha] in the sticks' terms
            shift = (K - 1) * concentration_log_gap(self.doc_concentration_posterior_)
        return HDPLocalStep(self._elog_phi_t, self._elog_beta, self.doc_concentration_, K,
                            self.max_doc_update_iter, self.mean_change_tol, shift)

    def _local(self, X, state=None, max_iter=None):
        return self._local_step().run(X, state, max_iter)

    def _guard_part(self, X, cap, old=None):
        """:meth:`HDPLocalStep.part` where a Dask block lives (the model rebuilt there)."""
        return self._local_step().part(X, cap, old)

    def _e_step(self, data):
        """Cold-start document-level coordinate ascent and the statistics (a pure function
        of the global factors)."""
        step = self._local_step()
        return step.stats(data, step.run(data)[:4])[0]

    def _warm_state(self):
        return GuardedEStep(self.max_doc_update_iter, self.warmup_doc_update_iter)

    def _warm_e_step(self, data, warm):
        """The E-step of a batch iteration with the monotone guard (class Notes), the same on
        in-memory, chunked and Dask data (:class:`latentkit.topic._lda_guard.GuardedEStep`)."""
        return warm.e_step(data, self._local_step(), self._global_elbo_terms(),
                           self._empty_stats, (self, type(self)._guard_part))

    def _m_step(self, stats, step_size=1.0, scale=1.0):
        lam = self.topic_word_prior_ + scale * stats.sstats
        sticks = stick_posterior(scale * stats.topic_counts, 0.0, (1.0, self.concentration_),
                                 "fixed")
        if step_size < 1.0:
            lam = (1.0 - step_size) * self.components_ + step_size * lam
            sticks = (1.0 - step_size) * self.weight_concentration_ + step_size * sticks
        self._set_globals(lam, sticks)
        # q(gamma) given the new corpus sticks, q(alpha) given the document sticks (exact
        # coordinate steps; the same step size on the online path)
        T, K = int(self.n_components), int(self.n_doc_components)
        for name, target in (
                ("concentration", lambda prior: concentration_posterior(
                    T - 1, free_stick_log_rest(sticks), prior)),
                ("doc_concentration", lambda prior: concentration_posterior(
                    scale * stats.n * (K - 1), scale * stats.doc_stick_log_rest, prior))):
            prior = self._gamma_prior(name)
            if prior is None:
                continue
            post = target(prior)
            if step_size < 1.0:
                post = (1.0 - step_size) * getattr(self, f"{name}_posterior_") + step_size * post
            setattr(self, f"{name}_posterior_", post)
            setattr(self, name + "_", concentration_mean(post))

    def _global_elbo_terms(self):
        total = -(stick_kl(self.weight_concentration_, (1.0, self.concentration_), "fixed")
                  + float(np.sum(dirichlet_kl(self.components_, self.topic_word_prior_))))
        if self.concentration_posterior_ is not None:
            total += ((int(self.n_components) - 1)
                      * concentration_log_gap(self.concentration_posterior_)
                      - concentration_kl(self.concentration_posterior_,
                                         self._gamma_prior("concentration")))
        if self.doc_concentration_posterior_ is not None:
            total -= concentration_kl(self.doc_concentration_posterior_,
                                      self._gamma_prior("doc_concentration"))
        return total

    # ---- public API --------------------------------------------------------------------
    def _doc_local(self, X):
        self._check_is_fitted()
        X = self._validate_data(counts_from_texts(self, X), reset=False)
        return X, self._local(X)

    def transform(self, X):
        """Posterior mean topic proportions of documents over the corpus topics,
        ``E[theta_dk] = sum_t E[pi_dt] varphi_dtk``.

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
        NotFittedError, ValueError
        """
        _, (varphi, sticks, _, _, _) = self._doc_local(X)
        a, b = sticks[:, 0, :], sticks[:, 1, :]
        # the last column is (1, 0): E[pi'_K] = 1
        theta = np.einsum("dt,dtk->dk", _row_stick_weights(a / (a + b)), varphi)
        return theta / theta.sum(axis=1, keepdims=True)

    def score_samples(self, X):
        """Local ELBO of each document (nats), document factors optimised, global ones
        fixed; the global term is not included: ``score_samples(X).sum() + (global term) ==
        elbo(X) * n_documents``.

        Parameters
        ----------
        X : array-like or scipy.sparse matrix of shape (n_documents, n_features)

        Returns
        -------
        ndarray of shape (n_documents,)
            Nats per document.

        Raises
        ------
        NotFittedError, ValueError
        """
        return self._doc_local(X)[1][3]

    def _sample_doc_topic(self, n_samples, rng):
        """Weights on the corpus topics of :meth:`sample`: document sticks ``pi'_t ~
        Beta(1, alpha)`` (``pi'_K = 1``, alpha at ``doc_concentration_``), atom topics
        ``c_t ~ Cat(topic_weights_)``, ``theta_dk = sum_t pi_dt [c_t = k]`` (rows sum to 1)."""
        T, K = self.components_.shape[0], int(self.n_doc_components)
        v = rng.beta(1.0, self.doc_concentration_, size=(n_samples, K))
        v[:, -1] = 1.0
        pi = _row_stick_weights(v)
        w = self.topic_weights_ / self.topic_weights_.sum()
        atoms = rng.choice(T, size=(n_samples, K), p=w)
        theta = np.zeros((n_samples, T))
        np.add.at(theta, (np.repeat(np.arange(n_samples), K), atoms.ravel()), pi.ravel())
        theta /= theta.sum(axis=1, keepdims=True)
        return theta
