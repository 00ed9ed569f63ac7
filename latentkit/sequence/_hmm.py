"""Hidden Markov models fitted by Baum-Welch (EM) on latentkit's ELBO interface.

:class:`HiddenMarkovModel` composes a Markov chain (``startprob_``, ``transmat_``) with an
emission component (:mod:`latentkit.sequence._emissions`); :class:`CategoricalHMM`,
:class:`GaussianHMM` and :class:`PoissonHMM` are the familiar names. The E-step is the scaled
forward-backward recursion of Rabiner (1989, section V.A) in :mod:`latentkit._kernels.hmm`
(numba, parallel over sequences, deterministic); the M-step is closed form (Baum, Petrie,
Soules & Weiss 1970; Rabiner 1989 eqs. 40a-c), MAP with optional Dirichlet priors.

The ELBO of an HMM fitted by EM is its log-likelihood (q(Z) is the exact posterior at the
E-step), reported in **nats per time step**: the total log-likelihood of all sequences
divided by the total number of time steps.
"""

import numbers

import numpy as np

from .._utils.chunking import split_sequences
from .._utils.deprecation import renamed_attribute
from .._utils.validation import check_lengths, check_scalar
from ..base import LatentModel, NotFittedError, clone
from . import _emissions as em
from ._emissions import _check_stochastic, _normalize_rows, dirichlet_logpdf
from ._forward_backward import (  # noqa: F401 (_BLOCKED_MIN_LENGTH read by tests)
    _BLOCKED_MIN_LENGTH, SequenceData, _forward_backward_any)
from ._hand_set import adopt_hand_set, recheck_hand_set
from ._hmm_inference import HMMInferenceMixin
from ._spectral_start import _spectral_start, check_spectral_emission
from ._start_check import checked_spectral_start
from ._impute import impute_missing
from ._state_checks import FittedState, check_hmm_state
from ..exceptions import InputError, InputTypeError

__all__ = [
    "CategoricalHMM",
    "GaussianHMM",
    "HiddenMarkovModel",
    "PoissonHMM",
    "check_lengths",
]

_EMISSION_ALIASES = {
    "categorical": em.CategoricalEmission,
    "poisson": em.PoissonEmission,
    "gaussian": em.GaussianEmission,
}

_INITS = ("random", "kmeans++", "spectral")

# --------------------------------------------------------------------------------------------
# the model
# --------------------------------------------------------------------------------------------

#: an emission parameter whose public name differs (the names table, docs/design.md):
#: the fitted attribute is ``covariances_``; ``init`` and ``frozen`` take either key
_PUBLIC = {"covars": "covariances"}
_PARAM = {v: k for k, v in _PUBLIC.items()}


def _attr(name):
    """The fitted attribute of emission parameter ``name`` (``'covars'`` -> ``'covariances_'``)."""
    return _PUBLIC.get(name, name) + "_"


def _param_keys(keys):
    """Emission parameter names of user keys (``'covariances'`` -> ``'covars'``)."""
    return {_PARAM.get(k, k) for k in keys}


class HiddenMarkovModel(HMMInferenceMixin, LatentModel):
    """Hidden Markov model with a composed emission component, fitted by Baum-Welch.

    The hidden chain has ``n_components`` states with initial distribution ``startprob_`` and
    transition matrix ``transmat_``; the emission component (categorical, Poisson, Gaussian
    or user-defined, see :mod:`latentkit.sequence._emissions`) gives ``p(x_t | z_t)``.
    Several sequences are stacked in ``X`` and delimited by ``lengths`` (hmmlearn's
    convention). Fitting raises the log-likelihood (the ELBO of EM, in nats per time step)
    by expectation-maximisation: scaled forward-backward E-step, closed-form M-step (Baum et
    al. 1970; Rabiner 1989, eqs. 40a-c), MAP when priors are given.

    Parameters
    ----------
    n_components : int, default 2
        Number of hidden states ``K``.
    emission : Emission or {'categorical', 'poisson', 'gaussian'}, default 'categorical'
        The emission component (a string builds one with default hyper-parameters).
    startprob_prior : float or array-like of shape (K,), optional
        Dirichlet concentration (>= 1) on ``startprob_``; None (default) is maximum
        likelihood with no prior term.
    transmat_prior : float or array-like of shape (K, K), optional
        Dirichlet concentration (>= 1) on each row of ``transmat_``; None: no prior.
    init : {'random', 'kmeans++', 'spectral'} or dict, default 'random'
        Starting parameters: ``'random'`` draws ``startprob``, ``transmat`` rows (flat
        Dirichlet) and the emission parameters at random; ``'kmeans++'`` seeds the emission
        means/rates by k-means++ (Gaussian, Poisson); ``'spectral'`` takes all three from the
        method of moments of three consecutive observations (Anandkumar, Hsu & Kakade 2012;
        :func:`latentkit.sequence.spectral_init_hmm`, ``spectral_init_poisson_hmm``,
        ``spectral_init_gaussian_hmm``), held to the class's default start at the end of the
        fit: both are fitted to the end and the higher final bound is kept, so the fit never
        ends below ``init=<default>``'s (a ``SpectralInitWarning`` when the default's ends
        higher, or the moments are degenerate; restarts after the first perturb the spectral
        estimate); a dict gives any of
        ``'startprob'``, ``'transmat'`` and the emission's parameter names
        (``'emissionprob'``, ``'means'``, ``'covariances'``, ``'lambdas'``), the rest drawn as for
        ``'random'``.
    frozen : set of str, optional
        Parameters kept at their starting values during fitting, e.g. ``{'startprob'}``.
    n_init : int, default 1
        Number of initialisations; the one with the highest final ELBO is kept.
    max_iter : int, default 1000
        Maximum number of Baum-Welch iterations per initialisation. The default lets the
        default ``tol`` be reached on the bundled data sets (Old Faithful, earthquakes, lambda
        phage): 100 stopped GMMHMM, CategoricalHMM and VariationalCategoricalHMM fits short
        of convergence (README, "Default stopping").
    tol : float or None, default None
        Convergence threshold on the ELBO change, nats per time step (``tol=0`` runs exactly
        ``max_iter`` iterations). None resolves to ``tol_ = 1e-3 / n_samples`` (all training
        time steps): 1e-3 nats on the total bound, the rule of scikit-learn's
        ``BayesianGaussianMixture`` and of latentkit's mixtures. The former per-step 1e-6
        stopped a CategoricalHMM on 10,000 steps of lambda phage with a self-transition 0.026
        away from the converged one (README, "Default stopping"). hmmlearn's ``tol=1e-2`` is
        on the total log-likelihood.
    random_state : int, numpy.random.Generator or None, default None
    callback : callable, optional
        ``callback(model, n_iter, elbo)``; returning True stops the fit.
    verbose : bool, default False

    Attributes
    ----------
    startprob_ : ndarray of shape (n_components,)
    transmat_ : ndarray of shape (n_components, n_components)
        Row ``i`` is ``p(z_{t+1} | z_t = i)``; a state never visited keeps its previous row.
    emissionprob_ / lambdas_ / means_, covariances_ : ndarray
        The emission parameters (names of the emission component plus ``_``).
    emission_ : Emission
        The fitted clone of ``emission`` (holds resolved values such as ``n_features_``).
    n_features_in_ : int
        Number of columns of ``X``.
    lower_bound_, lower_bounds_, n_iter_, converged_, monitor_
        See :class:`latentkit.base.LatentModel`; ELBO = log-likelihood in nats per time step,
        recorded at each iteration's E-step (as hmmlearn records it).
    tol_ : float
        The tolerance used, nats per time step: ``tol``, or ``1e-3 / n_samples`` when ``tol``
        is None.
    spectral_report_ : dict
        After ``init='spectral'``: ``'chosen'``, the final bounds compared (``'spectral'``,
        ``'default'``), ``'n_iter'`` (iterations of both runs inside the start, not in
        ``n_iter_``; ``'n_iter_spectral'``, ``'n_iter_default'``), ``'restart'`` and
        ``'perturbation'`` (of the kept restart; see
        :mod:`latentkit.sequence._start_check`).

    Notes
    -----
    ``score`` returns the **mean log-likelihood per time step** (hmmlearn's ``score`` returns
    the total: multiply by the number of rows); ``score_sequences`` gives the log-likelihood
    of each sequence and ``score_samples`` the one-step predictive log-densities
    ``log p(x_t | x_<t)`` whose sum over a sequence is its log-likelihood.

    References
    ----------
    Baum, L. E., Petrie, T., Soules, G. & Weiss, N. (1970). A maximization technique occurring
    in the statistical analysis of probabilistic functions of Markov chains. Ann. Math. Stat.
    Rabiner, L. R. (1989). A tutorial on hidden Markov models and selected applications in
    speech recognition. Proc. IEEE 77(2).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> states = np.repeat([0, 1, 0, 1], 25)
    >>> from latentkit import HiddenMarkovModel
    >>> X = rng.poisson(np.where(states == 0, 1.0, 8.0))[:, None]
    >>> hmm = HiddenMarkovModel(2, emission="poisson", random_state=0).fit(X)
    >>> hmm.transmat_.shape, hmm.predict(X).shape
    ((2, 2), (100,))
    """

    _sample_unit = "time step"
    _tol_may_be_none = True  # tol=None: 1e-3 / n_samples, resolved from the data (tol_)

    #: hmmlearn's and latentkit < 0.2's name of ``covariances_`` (removed in 0.3)
    covars_ = renamed_attribute("covars_", "covariances_")

    def __init__(self, n_components=2, emission="categorical", *, startprob_prior=None,
                 transmat_prior=None, init="random", frozen=None, n_init=1, max_iter=1000,
                 tol=None, random_state=None, callback=None, verbose=False):
        self.n_components = n_components
        self.emission = emission
        self.startprob_prior = startprob_prior
        self.transmat_prior = transmat_prior
        self.init = init
        self.frozen = frozen
        self.n_init = n_init
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        self.callback = callback
        self.verbose = verbose

    # ---- template ------------------------------------------------------------------------
    def _make_emission(self):
        e = em.emission_of(self.emission)  # a distribution (Poisson) -> its emission
        if isinstance(e, str):
            if e not in _EMISSION_ALIASES:
                raise InputError(f"emission must be one of {sorted(_EMISSION_ALIASES)} or an "
                                 f"Emission object, got {e!r}.")
            return _EMISSION_ALIASES[e]()
        if not isinstance(e, em.Emission):
            raise InputTypeError(f"emission must be an Emission, a distribution (Poisson, Gaussian)"
                                 f" or one of {sorted(_EMISSION_ALIASES)}, got {type(e).__name__}.")
        return clone(e)

    def _check_chain_prior(self, name, arr, value):
        if not np.all(np.isfinite(arr)) or np.any(arr < 1):
            raise InputError(f"{name} must be finite and >= 1 (a Dirichlet concentration "
                             f"whose MAP estimate exists), got {value!r}.")

    def _param_names(self):
        return ("startprob", "transmat") + tuple(self.emission_.param_names)

    def _validate_params(self):
        K = check_scalar(self.n_components, "n_components", numbers.Integral, low=1)
        emission = self._make_emission()
        emission.validate(K)
        self.emission_ = emission
        for name, shape in (("startprob_prior", (K,)), ("transmat_prior", (K, K))):
            p = getattr(self, name)
            if p is None:
                continue
            try:
                arr = np.broadcast_to(np.asarray(p, dtype=float), shape)
            except (ValueError, TypeError):
                raise InputError(f"{name} must be a scalar or broadcast to shape {shape}, got "
                                 f"{p!r}.") from None
            self._check_chain_prior(name, arr, p)
        names = set(self._param_names())
        if isinstance(self.init, str):
            if self.init not in _INITS:
                raise InputError(f"init must be one of {_INITS} or a dict of starting "
                                 f"parameters, got {self.init!r}.")
            if self.init == "spectral":
                check_spectral_emission(emission)
        elif isinstance(self.init, dict):
            unknown = _param_keys(self.init) - names
            if unknown:
                raise InputError(f"init has unknown parameter(s) {sorted(unknown)}; valid "
                                 f"names are {sorted(names)}.")
        else:
            raise InputTypeError(f"init must be a str or a dict, got {type(self.init).__name__}.")
        frozen = self.frozen
        if frozen is None:
            frozen = frozenset()
        elif isinstance(frozen, str):
            raise InputTypeError(f"frozen must be a set of parameter names such as {{'startprob'}}, "
                            f"got the string {frozen!r}.")
        else:
            frozen = frozenset(_param_keys(frozen))
        unknown = frozen - names
        if unknown:
            raise InputError(f"frozen has unknown parameter(s) {sorted(unknown)}; valid names "
                             f"are {sorted(names)}.")
        self.frozen_ = frozen

    def _validate_data(self, X, reset, lengths=None):
        if reset:
            # emission_ is (re)created by _validate_params, which fit calls first
            if not hasattr(self, "emission_"):
                self._validate_params()
        elif not self.__dict__.get("_defer_data_defaults"):  # (a statistics pass of fit)
            self._check_is_fitted()
        n_rows = _n_rows(X)
        offsets = check_lengths(lengths, n_rows)
        Xv = self.emission_.check_X(X, offsets, reset)
        data = SequenceData(Xv, offsets)
        if reset:
            arr = np.asarray(X)
            self.n_features_in_ = 1 if arr.ndim == 1 else arr.shape[1]
            self._resolve_data_defaults(data)
        return data

    def _data_summary(self, data):
        return self.emission_.data_summary(data.X)

    def _set_data_defaults(self, summary):
        """Checks and defaults that need all the training data (the number of time steps, the
        emission's alphabet, shift and scale check), never one chunk's."""
        if self.n_components > summary.n:
            raise InputError(
                f"n_components={self.n_components} is larger than the number of time steps "
                f"in X ({summary.n}); an HMM needs at least one observation per state.")
        self.emission_.set_data_defaults(summary, self.n_components)
        # tol=None: 1e-3 nats on the total bound, from all the time steps (as the mixtures)
        self.tol_ = float(self.tol) if self.tol is not None else 1e-3 / summary.n

    def _n_samples(self, data):
        return data.n_samples

    def _split_data(self, data, n_chunks):
        """Split into at most ``n_chunks`` chunks of whole sequences, of about equal numbers of
        time steps (the one rule of :func:`latentkit._utils.chunking.split_sequences`)."""
        n_chunks = max(1, int(n_chunks))
        targets = np.linspace(0, data.n_samples, n_chunks + 1)[1:-1]
        bounds = split_sequences(data.offsets, targets)
        return [data.subset(a, b) for a, b in zip(bounds[:-1], bounds[1:])]

    def _init_params(self, data, rng):
        K = self.n_components
        init = self.init if isinstance(self.init, dict) else {}
        method = self.init if isinstance(self.init, str) else "random"
        if method == "spectral":  # against the default start (a supported emission)
            return checked_spectral_start(self, data, rng, self._start_values)
        params = self._start_values(data, rng, method)
        for name, value in init.items():
            name = _PARAM.get(name, name)
            if name == "startprob":
                params[name] = _check_stochastic(value, name, (K,))
            elif name == "transmat":
                params[name] = _check_stochastic(value, name, (K, K))
            else:
                params[name] = self.emission_.check_param(name, value, K)
        for name, value in params.items():
            setattr(self, _attr(name), np.asarray(value, dtype=float))

    def _start_values(self, data, rng, method, perturbation=0.0):
        """Starting values of ``init=method`` as an ``init`` dict ('spectral': unchecked,
        perturbed at the scale ``perturbation``, :func:`._spectral_start.perturb_start`)."""
        K = self.n_components
        params = {"startprob": rng.dirichlet(np.ones(K)),
                  "transmat": rng.dirichlet(np.ones(K), size=K),
                  **self.emission_.init_params(data.X, K, rng,
                                               "kmeans++" if method == "spectral" else method)}
        point = (_spectral_start(self.emission_, data, K, rng, perturbation)
                 if method == "spectral" else {})
        return {**params, **point}

    def _emission_params(self):
        return {name: getattr(self, _attr(name)) for name in self.emission_.param_names}

    def _empty_stats(self):
        K = self.n_components
        return self.emission_.stats_class(
            n=0.0, data_term=0.0, start=np.zeros(K), trans=np.zeros((K, K)),
            **self.emission_.empty_stats(K))

    def _forward_backward(self, data, chain=None):
        """Posteriors of the states; ``chain`` = (frame, log_offset, startprob, transmat)
        replaces the point parameters (the variational E-step passes sub-normalised ones)."""
        rows = []
        if chain is None:  # a categorical emission gives its table and the symbols (rows)
            make = getattr(self.emission_, "frame_table", self.emission_.frame)
            frame, log_offset, *rows = make(self._emission_params(), data.X)
            chain = (frame, log_offset, self.startprob_, self.transmat_)
        frame, log_offset, startprob, transmat = chain
        T, K, S = data.n_samples, frame.shape[1], data.n_sequences
        gamma, log_pred, xi, loglik = np.empty((T, K)), np.empty(T), np.empty((S, K, K)), \
            np.empty(S)
        _forward_backward_any(frame, log_offset, np.ascontiguousarray(startprob),
                              np.ascontiguousarray(transmat), data.offsets, gamma,
                              log_pred, xi, loglik, rows=rows[0] if rows else None)
        bad = np.flatnonzero(~np.isfinite(loglik))
        if bad.size:
            s = int(bad[0])
            a = data.offsets[s]
            t = int(np.argmax(~np.isfinite(log_pred[a:data.offsets[s + 1]])))
            raise InputError(
                f"Sequence {s} has probability zero under the current parameters (first "
                f"impossible observation at position {t}, row {a + t}); its posteriors are "
                "undefined. Check the data, or avoid zero probabilities in the parameters.")
        return gamma, log_pred, xi, loglik

    def _e_step(self, data):
        gamma, _, xi, loglik = self._forward_backward(data)
        start = gamma[data.offsets[:-1]].sum(axis=0)
        trans = xi.sum(axis=0)
        emis = self.emission_.accumulate(self._emission_params(), data.X, gamma)
        return self.emission_.stats_class(n=float(data.n_samples), data_term=float(loglik.sum()),
                                          start=start, trans=trans, **emis)

    def _m_step(self, stats, step_size=1.0, scale=1.0):
        stats = self._blend_stats(stats, step_size=step_size, scale=scale)
        frozen = self.frozen_
        if "startprob" not in frozen:
            c = stats.start
            if self.startprob_prior is not None:
                c = c + (np.asarray(self.startprob_prior, dtype=float) - 1.0)
            self.startprob_ = _normalize_rows(c, self.startprob_)
        if "transmat" not in frozen:
            c = stats.trans
            if self.transmat_prior is not None:
                c = c + (np.asarray(self.transmat_prior, dtype=float) - 1.0)
            self.transmat_ = _normalize_rows(c, self.transmat_)
        for name, value in self.emission_.m_step(self._emission_params(), stats, frozen).items():
            setattr(self, _attr(name), value)

    def _global_elbo_terms(self):
        K = self.n_components
        out = 0.0
        if self.startprob_prior is not None:
            out += dirichlet_logpdf(self.startprob_, np.broadcast_to(
                np.asarray(self.startprob_prior, dtype=float), (K,)))
        if self.transmat_prior is not None:
            a = np.broadcast_to(np.asarray(self.transmat_prior, dtype=float), (K, K))
            out += sum(dirichlet_logpdf(self.transmat_[i], a[i]) for i in range(K))
        return out + self.emission_.log_prior(self._emission_params())

    # ---- inference ----------------------------------------------------------------------------
    def _is_fitted(self):
        return hasattr(self, "transmat_") and hasattr(self, "emission_")

    def _check_is_fitted(self):
        if not self._is_fitted() and not adopt_hand_set(self, self._make_emission):  # by hand
            raise NotFittedError(
                f"This {type(self).__name__} instance is not fitted yet. Call 'fit' with "
                "appropriate arguments before using this estimator.")
        recheck_hand_set(self)  # parameters changed since the last use (sequence/_hand_set.py)

    def _get_state(self):
        """Public fitted attributes, with the emission component as its class name,
        hyper-parameters and resolved values (``n_features_``, a Gaussian's ``shift_``) and
        ``frozen_`` as a sorted list, plus the base state (running statistics, generators)."""
        state = super()._get_state()
        emission = state.pop("emission_", None)
        frozen = state.pop("frozen_", None)
        if emission is not None:
            state["emission"] = {
                "class": type(emission).__name__,
                "params": emission.get_params(deep=False),
                "fitted": {k: v for k, v in vars(emission).items()
                           if k.endswith("_") and not k.startswith("_")}}
        if frozen is not None:
            state["frozen"] = sorted(frozen)
        return state

    def _set_state(self, state):
        state = dict(state)
        spec = state.pop("emission", None)
        frozen = state.pop("frozen", None)
        if spec is not None:
            cls = getattr(em, spec["class"], None)
            if not (isinstance(cls, type) and issubclass(cls, em.Emission)):
                raise InputError(f"unknown emission component {spec['class']!r}.")
            emission = cls(**em.upgrade_gamma_prior(spec["params"]))  # files before 0.2
            for name, value in spec["fitted"].items():
                setattr(emission, name, value)
            self.emission_ = emission
            if getattr(self, "emission", "") is None:  # an Emission object given as hyper-parameter
                self.emission = clone(emission)
        if frozen is not None:
            self.frozen_ = frozenset(frozen)
        super()._set_state(state)

    def _check_state(self):
        """Validate a restored state (:func:`._state_checks.check_hmm_state`)."""
        check_hmm_state(FittedState(vars(self), type(self).__name__), self._make_emission)


def _n_rows(X):
    shape = getattr(X, "shape", None)
    if shape is None:
        try:
            X = np.asarray(X)
        except Exception as exc:
            raise InputError(f"X could not be converted to an array: {exc}") from None
        shape = X.shape
    if len(shape) == 0:
        raise InputError(f"Expected an array of observations for X, got a scalar: {X!r}.")
    return int(shape[0])


# --------------------------------------------------------------------------------------------
# familiar names
# --------------------------------------------------------------------------------------------

_COMMON_DOC = """
    startprob_prior, transmat_prior : float or array-like, optional
        Dirichlet concentrations (>= 1) on ``startprob_`` and the rows of ``transmat_`` (MAP);
        None: maximum likelihood.
    init : {'random', 'kmeans++', 'spectral'} or dict, default %(init)r
        See :class:`HiddenMarkovModel` ('spectral': categorical, Poisson, and Gaussian with
        any covariance type).
    frozen : set of str, optional
        Parameters kept fixed during fitting, e.g. ``{'startprob', 'transmat'}``.
    n_init, max_iter, tol, random_state, callback, verbose
        See :class:`HiddenMarkovModel` (``tol`` in nats per time step).
"""


class CategoricalHMM(HiddenMarkovModel):
    __doc__ = """HMM with categorical (discrete-symbol) emissions, fitted by Baum-Welch.

    ``HiddenMarkovModel(n_components, emission=CategoricalEmission(n_features))`` under its
    familiar name (hmmlearn's ``CategoricalHMM``; Rabiner 1989).

    Parameters
    ----------
    n_components : int, default 2
        Number of hidden states.
    n_features : int, optional
        Number of symbols; X holds ints in ``0..n_features-1`` of shape (n_samples, 1).
        Default: inferred by ``fit`` as ``max(X) + 1``.
    emissionprob_prior : float or array-like, optional
        Dirichlet concentration (>= 1) on the rows of ``emissionprob_``.
    """ + _COMMON_DOC % {"init": "random"} + """
    Attributes
    ----------
    startprob_ : ndarray of shape (n_components,)
    transmat_ : ndarray of shape (n_components, n_components)
    emissionprob_ : ndarray of shape (n_components, n_features)
        ``emissionprob_[k, m] = p(x_t = m | z_t = k)``.
    lower_bound_, lower_bounds_, n_iter_, converged_
        Log-likelihood in nats per time step (see :class:`HiddenMarkovModel`).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> states = np.repeat([0, 1, 0, 1], 25)
    >>> from latentkit import CategoricalHMM
    >>> X = np.where(states == 0, rng.choice(3, 100, p=[.8, .1, .1]),
    ...              rng.choice(3, 100, p=[.1, .1, .8]))
    >>> hmm = CategoricalHMM(2, random_state=0).fit(X[:, None], lengths=[50, 50])
    >>> hmm.emissionprob_.shape
    (2, 3)
    """

    def __init__(self, n_components=2, n_features=None, *, emissionprob_prior=None,
                 startprob_prior=None, transmat_prior=None, init="random", frozen=None,
                 n_init=1, max_iter=1000, tol=None, random_state=None, callback=None,
                 verbose=False):
        self.n_components = n_components
        self.n_features = n_features
        self.emissionprob_prior = emissionprob_prior
        self.startprob_prior = startprob_prior
        self.transmat_prior = transmat_prior
        self.init = init
        self.frozen = frozen
        self.n_init = n_init
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        self.callback = callback
        self.verbose = verbose

    def _make_emission(self):
        return em.CategoricalEmission(n_features=self.n_features,
                                      emissionprob_prior=self.emissionprob_prior)


class PoissonHMM(HiddenMarkovModel):
    __doc__ = """HMM with independent Poisson emissions, fitted by Baum-Welch.

    The earthquake-count model of Zucchini, MacDonald & Langrock (2016, ch. 3-4), with a free
    initial distribution (hmmlearn's ``PoissonHMM``).

    Parameters
    ----------
    n_components : int, default 2
        Number of hidden states.
    rate_prior : (float, float), optional
        Shape a (>= 1) and rate b (>= 0) of a Gamma prior on every rate; None: maximum
        likelihood. ``lambdas_prior=a, lambdas_weight=b``: deprecated spelling (until 0.3).
    """ + _COMMON_DOC % {"init": "random"} + """
    Attributes
    ----------
    startprob_ : ndarray of shape (n_components,)
    transmat_ : ndarray of shape (n_components, n_components)
    lambdas_ : ndarray of shape (n_components, n_features)
        Poisson rates per state and feature.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> states = np.repeat([0, 1, 0, 1], 25)
    >>> from latentkit import PoissonHMM
    >>> X = rng.poisson(np.where(states == 0, 1.0, 8.0))[:, None]
    >>> hmm = PoissonHMM(2, random_state=0).fit(X)
    >>> np.allclose(np.sort(hmm.lambdas_[:, 0]), [1.0, 8.0], atol=1.0)
    True
    """

    _upgrade_params = staticmethod(em.upgrade_gamma_prior)  # files written before 0.2

    @em.gamma_prior_kwargs
    def __init__(self, n_components=2, *, rate_prior=None, startprob_prior=None,
                 transmat_prior=None, init="random", frozen=None, n_init=1, max_iter=1000,
                 tol=None, random_state=None, callback=None, verbose=False):
        self.n_components = n_components
        self.rate_prior = rate_prior
        self.startprob_prior = startprob_prior
        self.transmat_prior = transmat_prior
        self.init = init
        self.frozen = frozen
        self.n_init = n_init
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        self.callback = callback
        self.verbose = verbose

    def _make_emission(self):
        return em.PoissonEmission(rate_prior=self.rate_prior)


class GaussianHMM(HiddenMarkovModel):
    __doc__ = """HMM with multivariate Gaussian emissions, fitted by Baum-Welch.

    hmmlearn's ``GaussianHMM`` under latentkit's interface (Rabiner 1989 section IV); the
    Gaussian computations are the shared block of :mod:`latentkit.distributions`.

    Parameters
    ----------
    n_components : int, default 2
        Number of hidden states.
    covariance_type : {'diag', 'full', 'spherical', 'tied'}, default 'diag'
        ``covariances_`` shape: (K, D), (K, D, D), (K,) or (D, D).
    reg_covar : float, default 1e-6
        Non-negative regularisation added to the diagonal of the covariances at each M-step.
    missing : {'error', 'marginalize'}, default 'error'
        ``'marginalize'``: NaN entries are unobserved and integrated out exactly (a fully
        missing step has likelihood 1; see :class:`~latentkit.distributions.Gaussian`).
    """ + _COMMON_DOC % {"init": "kmeans++"} + """
    Attributes
    ----------
    startprob_ : ndarray of shape (n_components,)
    transmat_ : ndarray of shape (n_components, n_components)
    means_ : ndarray of shape (n_components, n_features)
    covariances_ : ndarray
        Shape by ``covariance_type`` (hmmlearn's documented shapes; hmmlearn's ``covars_``
        getter expands them to full matrices). ``covars_`` (hmmlearn's name) is a deprecated
        alias that warns, removed in latentkit 0.3; ``init`` and ``frozen`` take the key
        ``'covariances'`` (or ``'covars'``).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> states = np.repeat([0, 1, 0, 1], 25)
    >>> from latentkit import GaussianHMM
    >>> X = rng.normal(np.where(states == 0, 0.0, 5.0), 1.0)[:, None]
    >>> hmm = GaussianHMM(2, random_state=0).fit(X)
    >>> [int(v) for v in np.sort(hmm.means_[:, 0]).round()]
    [0, 5]
    >>> hmm.covariances_.shape  # 'diag': (n_components, n_features)
    (2, 1)
    """

    def __init__(self, n_components=2, covariance_type="diag", *, reg_covar=1e-6,
                 startprob_prior=None, transmat_prior=None, init="kmeans++", frozen=None,
                 n_init=1, max_iter=1000, tol=None, random_state=None, callback=None,
                 verbose=False, missing="error"):
        self.n_components = n_components
        self.covariance_type = covariance_type
        self.reg_covar = reg_covar
        self.missing = missing
        self.startprob_prior = startprob_prior
        self.transmat_prior = transmat_prior
        self.init = init
        self.frozen = frozen
        self.n_init = n_init
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        self.callback = callback
        self.verbose = verbose

    def _make_emission(self):
        return em.GaussianEmission(covariance_type=self.covariance_type,
                                   reg_covar=self.reg_covar, missing=self.missing)

    def impute(self, X, lengths=None, return_std=False):
        """Fill the missing (NaN) entries with their posterior means given the whole sequence,
        ``E[x_t,m | x] = sum_k p(z_t = k | x) E[x_t,m | x_t,o, z_t = k]`` (forward-backward
        posteriors; Gaussian conditionals, Ghahramani & Jordan 1994). Needs
        ``missing='marginalize'``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            NaN marks a missing entry.
        lengths : array-like of int of shape (n_sequences,), optional
        return_std : bool, default False
            Also return the posterior standard deviations (law of total variance).

        Returns
        -------
        X_imputed : ndarray of shape (n_samples, n_features)
            A new array: observed entries unchanged.
        std : ndarray of shape (n_samples, n_features)
            Only with ``return_std``: 0 at observed entries.

        Raises
        ------
        NotFittedError, ValueError
            Unfitted model, ``missing='error'`` with NaN, infinite entries, wrong shapes.
        """
        return impute_missing(self, X, lengths, return_std)
