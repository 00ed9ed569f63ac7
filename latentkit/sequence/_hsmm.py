"""The explicit-duration hidden semi-Markov model (:class:`HiddenSemiMarkovModel`).

A hidden state persists for a segment whose length is drawn from the state's duration
distribution (:mod:`latentkit.sequence._durations`), then jumps to another state by
``transmat_`` (zero diagonal by default); the observations of a segment are emitted
independently by the HMMs' emission components. Fitted by EM with the segment forward-backward
of :mod:`latentkit._kernels.hsmm` (Yu 2010, section 3.1; O(T K D)); the last segment of a
sequence is right-censored (Guedon 2003), so with ``max_duration=1`` the model is the HMM with
the same ``transmat_``, and with geometric durations it is the HMM whose self-transitions are
the geometric ratios.
"""

import dataclasses
import numbers

import numpy as np

from .._kernels.hsmm import hsmm_viterbi
from .._kernels.hsmm_blocked import hsmm_forward_backward_any
from .._utils.validation import check_scalar
from ..exceptions import InputError, NotFittedError, StateCheckError
from . import _durations as dur
from . import _emissions as em
from ._emissions import _check_stochastic
from ._hand_set import adopt_hand_set
from ._hmm import HiddenMarkovModel, _attr

__all__ = ["HiddenSemiMarkovModel"]

_STATS_PREFIX = "HSMMStats_"


def _stats_class(emission_cls):
    """The statistics of a semi-Markov model with this emission: the emission's
    :class:`HMMStats` subclass plus ``durations`` (K, D), the expected numbers of segments of
    each state and duration. One class per emission class, found by name in this module (so
    :func:`latentkit.load` resolves a stored ``partial_fit`` state)."""
    name = _STATS_PREFIX + emission_cls.__name__
    cls = globals().get(name)
    if cls is None:
        base = emission_cls.stats_class
        # (make_dataclass applies stats_dataclass's options: frozen, Stats' equality)
        cls = dataclasses.make_dataclass(
            name, [("durations", np.ndarray)], bases=(base,), frozen=True, eq=False,
            namespace={"__module__": __name__, "__doc__": (
                f"{base.__name__} plus ``durations`` (n_components, max_duration): expected "
                "numbers of segments of each state and duration.")})
        cls.__qualname__ = name
        globals()[name] = cls
    return cls


def __getattr__(name):
    if name.startswith(_STATS_PREFIX):  # a stored statistics class (latentkit.load)
        emission_cls = getattr(em, name[len(_STATS_PREFIX):], None)
        if isinstance(emission_cls, type) and issubclass(emission_cls, em.Emission):
            return _stats_class(emission_cls)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class HiddenSemiMarkovModel(HiddenMarkovModel):
    """Explicit-duration hidden semi-Markov model (HSMM), fitted by EM.

    A segment of state ``k`` lasts ``d`` steps with probability ``p_k(d)``, ``1 <= d <=
    max_duration`` (nonparametric, shifted Poisson or shifted negative binomial), emits its
    ``d`` observations independently from the emission component (categorical, Poisson,
    Gaussian, Gaussian mixture or user-defined, as :class:`HiddenMarkovModel`), and is
    followed by a segment of state ``j`` with probability ``transmat_[k, j]``. The last segment
    of each sequence is right-censored: it has lasted at least the steps left (Guedon 2003).
    The E-step is the segment forward-backward in O(T K D) (Yu 2010, section 3.1), the bound
    is the exact log-likelihood in **nats per time step** (as the HMMs'), and the M-step is
    closed form for the chain, the emissions and nonparametric durations, a 1-D / 2-D numeric
    maximisation (kept only when it raises the bound) for the parametric durations.

    Parameters
    ----------
    n_components : int, default 2
        Number of hidden states ``K``.
    emission : Emission or {'categorical', 'poisson', 'gaussian'}, default 'categorical'
        The emission component (see :class:`HiddenMarkovModel`).
    duration : {'nonparametric', 'poisson', 'negative_binomial'}, default 'nonparametric'
        The duration distribution: a free pmf ``durationprob_`` (K, max_duration); ``d - 1 ~
        Poisson(duration_lambdas_)``; ``d - 1 ~ NB(duration_n_, duration_p_)`` (scipy's
        ``nbinom``); the parametric ones truncated to ``d <= max_duration``.
    max_duration : int, default 50
        The longest segment ``D`` (time steps). Cost and memory of the E-step grow as
        ``n_samples * K * D``.
    init : {'random', 'kmeans++'} or dict, default 'random'
        Starting parameters: ``startprob`` and the off-diagonal ``transmat`` rows flat
        Dirichlet, the emission parameters as in :class:`HiddenMarkovModel` (``'kmeans++'``
        seeds Gaussian means / Poisson rates), durations near-uniform (nonparametric) or with
        means uniform on (0.1, 0.5) of ``max_duration``; a dict gives any of ``'startprob'``,
        ``'transmat'``, the emission's and the duration's parameter names.
    frozen : set of str, optional
        Parameters kept at their starting values, e.g. ``{'durationprob'}``.
    n_init, max_iter, tol, random_state, callback, verbose
        See :class:`HiddenMarkovModel` (``tol`` in nats per time step; None: ``1e-3 /
        n_samples``).

    Attributes
    ----------
    startprob_ : ndarray of shape (n_components,)
        Probability of the first segment's state.
    transmat_ : ndarray of shape (n_components, n_components)
        Segment-to-segment transitions; a zero diagonal (from the default start) stays zero.
    durationprob_ : ndarray of shape (n_components, max_duration)
        ``p_k(d)`` in column ``d - 1`` (for the parametric kinds, derived from their
        parameters).
    duration_lambdas_ : ndarray of shape (n_components,)
        ``duration='poisson'``: the mean of ``d - 1`` before truncation.
    duration_n_, duration_p_ : ndarray of shape (n_components,)
        ``duration='negative_binomial'``.
    emissionprob_ / lambdas_ / means_, covariances_ : ndarray
        The emission parameters.
    lower_bound_, lower_bounds_, n_iter_, converged_
        Log-likelihood per time step, nats, at each iteration's E-step.

    Raises
    ------
    InputError
        Bad hyper-parameters (named), ``init='spectral'`` (no spectral start for the
        semi-Markov model), bad data (see :class:`HiddenMarkovModel`).

    Notes
    -----
    ``predict`` / ``decode`` give the most probable segmentation (the segment Viterbi, Yu 2010
    section 3.3), ``predict_proba`` the marginal state posteriors. ``score_samples`` returns
    ``log p(x_t | x_<t)`` (whose sum is the log-likelihood). Setting ``startprob_``,
    ``transmat_``, the emission's and the duration's parameters by hand on an unfitted model
    works as for the HMMs.

    References
    ----------
    Yu, S.-Z. (2010). Hidden semi-Markov models. Artificial Intelligence 174(2), 215-243.
    Guedon, Y. (2003). Estimating hidden semi-Markov chains from discrete sequences. J. Comput.
    Graph. Stat. 12(3), 604-639.
    Ferguson, J. D. (1980). Variable duration models for speech. Symposium on the Application
    of HMMs to Text and Speech.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit import HiddenSemiMarkovModel
    >>> rng = np.random.default_rng(0)
    >>> states = np.repeat(np.arange(20) % 2, 10)          # segments of exactly 10 steps
    >>> X = rng.normal(np.where(states == 0, 0.0, 4.0), 1.0)[:, None]
    >>> hsmm = HiddenSemiMarkovModel(2, "gaussian", max_duration=15, random_state=0).fit(X)
    >>> [int(np.argmax(p)) + 1 for p in hsmm.durationprob_]  # the mode: 10 steps
    [10, 10]
    >>> float((hsmm.predict(X) == states).mean()) in (0.0, 1.0)
    True
    """

    startprob_prior = None  # (the HMM's MAP priors are not offered here)
    transmat_prior = None

    def __init__(self, n_components=2, emission="categorical", *, duration="nonparametric",
                 max_duration=50, init="random", frozen=None, n_init=1, max_iter=1000,
                 tol=None, random_state=None, callback=None, verbose=False):
        self.n_components = n_components
        self.emission = emission
        self.duration = duration
        self.max_duration = max_duration
        self.init = init
        self.frozen = frozen
        self.n_init = n_init
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        self.callback = callback
        self.verbose = verbose

    # ---- hyper-parameters --------------------------------------------------------------
    def _duration_names(self):
        return dur.duration_param_names(self.duration)

    def _param_names(self):
        return super()._param_names() + self._duration_names()

    def _validate_params(self):
        if not isinstance(self.duration, str) or self.duration not in dur.DURATION_KINDS:
            raise InputError(f"duration must be one of {dur.DURATION_KINDS}, got "
                             f"{self.duration!r}.")
        check_scalar(self.max_duration, "max_duration", numbers.Integral, low=1)
        if isinstance(self.init, str) and self.init == "spectral":
            raise InputError("init='spectral' is not available for HiddenSemiMarkovModel "
                             "(the method of moments assumes geometric durations); use "
                             "'random', 'kmeans++' or a dict.")
        super()._validate_params()

    # ---- the recipe's hooks ------------------------------------------------------------
    def _init_params(self, data, rng):
        K, D = int(self.n_components), int(self.max_duration)
        method = self.init if isinstance(self.init, str) else "random"
        params = self._start_values(data, rng, method)
        if K > 1:  # explicit durations: a segment is followed by another state
            A = params["transmat"] * (1.0 - np.eye(K))
            params["transmat"] = A / A.sum(axis=1, keepdims=True)
        params.update(dur.start_durations(self.duration, K, D, rng))
        for name, value in (self.init if isinstance(self.init, dict) else {}).items():
            name = {"covariances": "covars"}.get(name, name)
            if name == "startprob":
                params[name] = _check_stochastic(value, name, (K,))
            elif name == "transmat":
                params[name] = _check_stochastic(value, name, (K, K))
            elif name in self._duration_names():
                params[name] = dur.check_duration_param(name, value, K, D)
            else:
                params[name] = self.emission_.check_param(name, value, K)
        for name, value in params.items():
            setattr(self, _attr(name), np.asarray(value, dtype=float))
        self._set_durationprob()

    def _duration_params(self):
        return {name: getattr(self, name + "_") for name in self._duration_names()}

    def _set_durationprob(self):
        if self.duration != "nonparametric":
            self.durationprob_ = dur.duration_pmf(self.duration, self._duration_params(),
                                                  int(self.max_duration))

    def _empty_stats(self):
        K = self.n_components
        cls = _stats_class(type(self.emission_))
        return cls(n=0.0, data_term=0.0, start=np.zeros(K), trans=np.zeros((K, K)),
                   durations=np.zeros((K, int(self.max_duration))),
                   **self.emission_.empty_stats(K))

    def _kernel_inputs(self, data):
        logb = np.ascontiguousarray(
            self.emission_.log_likelihood(self._emission_params(), data.X), dtype=float)
        log_p, log_S = dur.log_pmf_and_survival(np.asarray(self.durationprob_, dtype=float))
        with np.errstate(divide="ignore"):
            log_pi = np.log(np.asarray(self.startprob_, dtype=float))
            log_A = np.log(np.asarray(self.transmat_, dtype=float))
        return logb, log_pi, np.ascontiguousarray(log_A), log_p, log_S

    def _run(self, data, backward):
        """The segment forward(-backward) over ``data``: (gamma, log_pred, start, trans,
        durations, loglik), the per-sequence outputs summed over sequences."""
        logb, log_pi, log_A, log_p, log_S = self._kernel_inputs(data)
        T, K = logb.shape
        n_seq, D = data.n_sequences, log_p.shape[1]
        out = (np.zeros((T, K)), np.empty(T), np.zeros((n_seq, K)), np.zeros((n_seq, K, K)),
               np.zeros((n_seq, K, D)), np.empty(n_seq))
        hsmm_forward_backward_any(logb, log_pi, log_A, log_p, log_S, data.offsets, backward,
                                  *out)
        return out

    def _forward(self, data):
        _, log_pred, _, _, _, loglik = self._run(data, backward=False)
        return log_pred, loglik

    def _forward_backward(self, data, chain=None):
        gamma, log_pred, start, trans, durations, loglik = self._run(data, backward=True)
        bad = np.flatnonzero(~np.isfinite(loglik))
        if bad.size:
            s = int(bad[0])
            a = data.offsets[s]
            t = int(np.argmax(~np.isfinite(log_pred[a:data.offsets[s + 1]])))
            raise InputError(
                f"Sequence {s} has probability zero under the current parameters (first "
                f"impossible observation at position {t}, row {a + t}, or a sequence that no "
                f"segmentation with durations <= max_duration={self.max_duration} explains); "
                "its posteriors are undefined.")
        return gamma, log_pred, (start.sum(axis=0), trans.sum(axis=0),
                                 durations.sum(axis=0)), loglik

    def _e_step(self, data):
        gamma, _, (start, trans, durations), loglik = self._forward_backward(data)
        emis = self.emission_.accumulate(self._emission_params(), data.X, gamma)
        return _stats_class(type(self.emission_))(
            n=float(data.n_samples), data_term=float(loglik.sum()), start=start, trans=trans,
            durations=durations, **emis)

    def _m_step(self, stats, step_size=1.0, scale=1.0):
        stats = self._blend_stats(stats, step_size=step_size, scale=scale)
        frozen = self.frozen_
        if "startprob" not in frozen:
            self.startprob_ = em._normalize_rows(stats.start, self.startprob_)
        if "transmat" not in frozen:
            self.transmat_ = em._normalize_rows(stats.trans, self.transmat_)
        if not frozen & set(self._duration_names()):
            new = dur.maximize_durations(self.duration, stats.durations,
                                         self._duration_params(), int(self.max_duration))
            for name, value in new.items():
                setattr(self, name + "_", value)
            self._set_durationprob()
        for name, value in self.emission_.m_step(self._emission_params(), stats, frozen).items():
            setattr(self, _attr(name), value)

    def _global_elbo_terms(self):
        return self.emission_.log_prior(self._emission_params())

    # ---- inference ---------------------------------------------------------------------
    def _is_fitted(self):
        return super()._is_fitted() and hasattr(self, "durationprob_")

    def _check_is_fitted(self):
        if self._is_fitted():
            return
        values = vars(self)
        if not isinstance(self.duration, str) or self.duration not in dur.DURATION_KINDS:
            self._validate_params()  # raises, naming duration
        names = self._duration_names()
        set_by_hand = [n + "_" for n in names if n + "_" in values]
        if adopt_hand_set(self, self._make_emission):  # the chain and the emission, validated
            missing = [n + "_" for n in names if n + "_" not in values]
            try:
                if missing:
                    raise NotFittedError(
                        f"This {type(self).__name__} has its chain and emission parameters "
                        f"set by hand but not {', '.join(missing)} (duration="
                        f"{self.duration!r}).")
                K, D = int(self.n_components), int(self.max_duration)
                for n in names:
                    values[n + "_"] = dur.check_duration_param(n, values[n + "_"], K, D,
                                                               where=n + "_")
                self._set_durationprob()
            except Exception:
                for name in ("emission_", "frozen_"):
                    values.pop(name, None)
                raise
            return
        if set_by_hand:
            raise NotFittedError(
                f"This {type(self).__name__} has {', '.join(set_by_hand)} set by hand but not "
                "startprob_, transmat_ and the emission's parameters (or call 'fit').")
        raise NotFittedError(f"This {type(self).__name__} instance is not fitted yet. Call "
                             "'fit' with appropriate arguments before using this estimator.")

    def decode(self, X, lengths=None):
        """Most probable segmentation, as the state of every step (the segment Viterbi,
        Yu 2010 section 3.3; the last segment censored as in the likelihood).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        lengths : array-like of int of shape (n_sequences,), optional

        Returns
        -------
        log_prob : float
            ``sum_s max log p(x^{(s)}, segmentation)``, nats (total).
        state_sequence : ndarray of shape (n_samples,) of int

        Raises
        ------
        NotFittedError, InputError
        """
        data = self._validate_data(X, reset=False, lengths=lengths)
        logb, log_pi, log_A, log_p, log_S = self._kernel_inputs(data)
        path = np.zeros(data.n_samples, dtype=np.int64)
        logprob = np.empty(data.n_sequences)
        hsmm_viterbi(logb, log_pi, log_A, log_p, log_S, data.offsets, path, logprob)
        return float(logprob.sum()), path

    def sample(self, n_samples=1, random_state=None, currstate=None):
        """Draw one sequence of ``n_samples`` steps: segments of states and durations, the
        last one cut at ``n_samples``.

        Parameters
        ----------
        n_samples : int, default 1
        random_state : int, numpy.random.Generator or None
            Default None: the model's own sampling generator (advanced by every call).
        currstate : int, optional
            The first segment's state instead of a draw from ``startprob_``.

        Returns
        -------
        X : ndarray of shape (n_samples, n_features)
        states : ndarray of shape (n_samples,) of int
        """
        self._check_is_fitted()
        n_samples = check_scalar(n_samples, "n_samples", numbers.Integral, low=1)
        rng = self._sampling_rng(random_state)
        K = self.n_components
        if currstate is None:
            z = int(rng.choice(K, p=self.startprob_ / self.startprob_.sum()))
        else:
            z = check_scalar(currstate, "currstate", numbers.Integral, low=0, high=K - 1)
        states = np.empty(n_samples, dtype=np.int64)
        t = 0
        pmf = np.asarray(self.durationprob_, dtype=float)
        while t < n_samples:
            d = 1 + int(rng.choice(pmf.shape[1], p=pmf[z] / pmf[z].sum()))
            states[t:t + d] = z
            t += d
            row = self.transmat_[z]
            z = int(rng.choice(K, p=row / row.sum()))
        X = self.emission_.sample(self._emission_params(), states, rng)
        return X, states

    def _n_parameters(self):
        """Free scalars: ``K - 1`` (startprob), ``K (K - 2)`` for a zero-diagonal transmat
        (``K (K - 1)`` otherwise), the durations' and the emission's, frozen ones left out."""
        K = self.n_components
        diag_zero = K > 1 and np.all(np.diag(self.transmat_) == 0)
        counts = {"startprob": K - 1, "transmat": K * (K - 2) if diag_zero else K * (K - 1),
                  **self.emission_.free_parameter_counts(K)}
        n = sum(c for name, c in counts.items() if name not in self.frozen_)
        if not self.frozen_ & set(self._duration_names()):
            n += dur.n_duration_parameters(self.duration, K, int(self.max_duration))
        return int(n)

    # ---- save / load -------------------------------------------------------------------
    def _set_state(self, state):
        super()._set_state(state)
        if hasattr(self, "transmat_") and self.duration in dur.DURATION_KINDS and all(
                hasattr(self, n + "_") for n in self._duration_names()):
            self._set_durationprob()

    def _check_state(self):
        """Validate a restored fitted state (:func:`latentkit.load`): the chain (probability
        rows), the emission's parameters (the emission component's own checks) and the
        duration parameters, with shapes from ``n_components`` and ``max_duration``.

        Raises
        ------
        StateCheckError
            (a ValueError) naming the bad attribute.
        """
        super()._check_state()  # the chain and n_features_in_ (the HMM family's checks)
        K, D = int(self.n_components), int(self.max_duration)
        for name in self.emission_.param_names:
            try:
                self.emission_.check_param(name, getattr(self, _attr(name)), K)
            except (AttributeError, InputError) as exc:
                raise StateCheckError(_attr(name), str(exc)) from None
        for name in self._duration_names() + ("durationprob",):
            try:
                dur.check_duration_param(name, getattr(self, name + "_"), K, D,
                                         where=name + "_")
            except (AttributeError, InputError) as exc:
                raise StateCheckError(name + "_", str(exc)) from None
