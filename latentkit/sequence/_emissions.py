"""Emission components of :class:`~latentkit.sequence.HiddenMarkovModel`.

An HMM is a Markov chain over hidden states plus an **emission component** that says how a
state generates an observation. The component is composed into the model (not mixed in): it
holds only hyper-parameters, and every method receives the current emission parameters as a
dict ``{name: array}`` (names without the trailing underscore; the model stores them as
``name_`` attributes, e.g. ``emissionprob_``). A new emission type implements:

``param_names``                  tuple of parameter names, e.g. ``('emissionprob',)``
``stats_class``                  an :class:`HMMStats` subclass with the emission's fields
``validate(n_components)``       check hyper-parameters (named errors)
``check_X(X, offsets, reset)``   validated observations (``reset=True`` in ``fit``)
``init_params(X, n_components, rng, init)``        starting parameters (dict)
``check_param(name, value, n_components)``         validate a user-given parameter
``log_likelihood(params, X)``    (n_samples, n_components) ``log p(x_t | z_t = k)``
``frame(params, X)``             scaled probabilities + per-row log offsets (default: from
                                 ``log_likelihood``)
``empty_stats(n_components)``    dict of zero statistics
``accumulate(params, X, gamma)`` dict of expected statistics from posteriors ``gamma``
``m_step(params, stats, frozen)`` dict of new parameters (closed form)
``log_prior(params)``            log prior density of the parameters (0 for maximum likelihood)
``free_parameter_counts(n_components)``  free scalars of each parameter, for BIC / AIC
``sample(params, states, rng)``  observations for a given state sequence
"""
import functools
import numbers

import numpy as np

from .._utils.deprecation import moved_parameters
from .._utils.kmeans import kmeans_plusplus
from .._utils.summaries import SymbolSummary
from .._utils.validation import check_dense_width, check_n_features, check_scalar
from ..base import stats_dataclass
from ..distributions._counts import Categorical, Poisson
from ..distributions._gaussian_family import Gaussian
from ._emission_base import (  # noqa: F401 (the components and helpers, found here by name)
    Emission,
    HMMStats,
    _as_frozen,
    _check_stochastic,
    _integer_column,
    _normalize_rows,
    _old_stats_names,
    _where,
    dirichlet_logpdf,
)
from ._gaussian_emission import (  # noqa: F401
    GaussianEmission,
    GaussianHMMStats,
    _covars_about,
)
from ..exceptions import InputError, InputTypeError

__all__ = [
    "CategoricalEmission",
    "CategoricalHMMStats",
    "Emission",
    "GaussianEmission",
    "GaussianHMMStats",
    "HMMStats",
    "PoissonEmission",
    "PoissonHMMStats",
]


# --------------------------------------------------------------------------------------------
# Statistics of the categorical and Poisson emissions (the Gaussian's: _gaussian_emission)
# --------------------------------------------------------------------------------------------

@stats_dataclass
class CategoricalHMMStats(HMMStats):
    """:class:`HMMStats` plus ``counts`` (n_components, n_features): expected number of times
    state ``k`` emitted symbol ``m``.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.sequence import CategoricalHMMStats
    >>> s = CategoricalHMMStats(n=3.0, data_term=-2.0, start=np.array([1.0]), trans=np.array([[2.0]]),
    ...                         counts=np.array([[2.0, 1.0]]))
    >>> s.counts / s.counts.sum(axis=1, keepdims=True)  # emission probabilities
    array([[0.66666667, 0.33333333]])
    """

    counts: np.ndarray

@_old_stats_names(post="nk", obs="sx")
@stats_dataclass
class PoissonHMMStats(HMMStats):
    """:class:`HMMStats` plus ``nk`` (n_components,) expected state occupancies and ``sx``
    (n_components, n_features) posterior-weighted sums of the counts (the names of the
    mixtures' :class:`~latentkit.distributions.GaussianStats`; ``post``/``obs`` before).

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.sequence import PoissonHMMStats
    >>> s = PoissonHMMStats(n=3.0, data_term=-4.0, start=np.array([1.0]), trans=np.array([[2.0]]),
    ...                     nk=np.array([3.0]), sx=np.array([[12.0]]))
    >>> s.sx / s.nk[:, None]  # the state's rate: 12 events in 3 steps
    array([[4.]])
    """

    nk: np.ndarray
    sx: np.ndarray

# --------------------------------------------------------------------------------------------
# Categorical
# --------------------------------------------------------------------------------------------

class CategoricalEmission(Emission):
    """Categorical (discrete-symbol) emissions: state ``k`` emits symbol ``m`` with probability
    ``emissionprob[k, m]`` (Rabiner 1989, section II; Baum et al. 1970).

    Parameters
    ----------
    n_features : int, optional
        Number of symbols ``M``; observations are ints in ``0..M-1``. Default: one more than the
        largest symbol seen by ``fit``.
    emissionprob_prior : float or array-like of shape (n_components, n_features), optional
        Dirichlet concentration (>= 1) on each row of ``emissionprob_`` (MAP estimate).
        Default None: maximum likelihood, no prior term.

    Notes
    -----
    Observations are ``X`` of shape (n_samples, 1) (hmmlearn's layout) or (n_samples,), of
    integer dtype (or float holding integral values).

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.sequence import CategoricalEmission, HiddenMarkovModel
    >>> X = np.array([[0], [0], [1], [1], [0], [0], [1], [1]])
    >>> hmm = HiddenMarkovModel(2, emission=CategoricalEmission(n_features=3), random_state=0)
    >>> hmm = hmm.fit(X)
    >>> hmm.emissionprob_.shape  # 2 states x 3 symbols (symbol 2 never seen)
    (2, 3)
    """

    param_names = ("emissionprob",)
    stats_class = CategoricalHMMStats
    dist = Categorical()  # the shared block (latentkit.distributions._counts)

    def __init__(self, n_features=None, emissionprob_prior=None):
        self.n_features = n_features
        self.emissionprob_prior = emissionprob_prior

    def validate(self, n_components):
        if self.n_features is not None:
            check_scalar(self.n_features, "n_features", numbers.Integral, low=1)
        if self.emissionprob_prior is not None:
            p = np.asarray(self.emissionprob_prior, dtype=float)
            if not np.all(np.isfinite(p)) or np.any(p < 1):
                raise InputError("emissionprob_prior must be finite and >= 1 (a Dirichlet "
                                 "concentration whose MAP estimate exists), got "
                                 f"{self.emissionprob_prior!r}.")

    def check_X(self, X, offsets, reset):
        """Validate symbols: (n_samples, 1) or (n_samples,) ints in ``0..n_features-1``.

        Returns
        -------
        ndarray of shape (n_samples,) of int64

        Raises
        ------
        ValueError
            NaN, fractional ("float") symbols, negative symbols or symbols ``>= n_features``,
            naming the symbol and its position; more than one column.
        TypeError
            Non-numeric data.
        """
        arr = np.asarray(X) if not hasattr(X, "toarray") else None
        if arr is None:
            raise InputTypeError("X must be a dense array of symbols, got a sparse matrix.")
        if arr.ndim == 2:
            if arr.shape[1] != 1:
                raise InputError(
                    f"X must have shape (n_samples, 1) of integer symbols for categorical "
                    f"emissions, got shape {arr.shape}.")
            arr = arr[:, 0]
        elif arr.ndim != 1:
            raise InputError(f"X must have shape (n_samples, 1) of integer symbols, got shape "
                             f"{arr.shape}.")
        if arr.shape[0] < 1:
            raise InputError("X has 0 samples; at least one time step is required.")
        sym = _integer_column(arr, "X", offsets, "symbol")
        neg = sym < 0
        if neg.any():
            r = int(np.argmax(neg))
            raise InputError(f"X contains the negative symbol {sym[r]} at {_where(r, offsets)}; "
                             "symbols must be integers in 0..n_features-1.")
        if reset:  # an inferred alphabet is resolved from all the data (set_data_defaults)
            self.n_features_ = None if self.n_features is None else int(self.n_features)
        n_feat = self.n_features_
        big = sym >= n_feat if n_feat is not None else np.zeros(0, dtype=bool)
        if big.any():
            r = int(np.argmax(big))
            raise InputError(
                f"X contains the symbol {sym[r]} at {_where(r, offsets)}, outside "
                f"0..{n_feat - 1} (n_features={n_feat}).")
        return sym

    def data_summary(self, X):
        return SymbolSummary.of(X)

    def set_data_defaults(self, summary, n_components):
        """``n_features_``: ``n_features``, or the largest symbol of all the data plus one,
        refused (before any allocation) when far wider than the symbols used."""
        if self.n_features is not None:
            return
        n_feat = int(summary.symbols[-1]) + 1
        n_distinct = summary.symbols.size
        check_dense_width(n_feat, n_distinct, n_components, unit="symbols",
                          owner="the categorical HMM", what="emission matrix",
                          alternative="or pass n_features explicitly")
        self.n_features_ = n_feat

    def init_params(self, X, n_components, rng, init):
        """``emissionprob`` rows: the smoothed symbol frequencies of ``X`` times independent
        Exponential(1) weights, renormalised (a flat Dirichlet draw tilted towards the data's
        symbol frequencies; near-uniform starts sit close to the symmetric saddle point of
        Baum-Welch and converge slowly). Any ``init`` string."""
        M = self.n_features_
        freq = (np.bincount(X, minlength=M) + 1.0) / (X.shape[0] + M)
        B = freq[None, :] * rng.exponential(size=(n_components, M))
        return {"emissionprob": B / B.sum(axis=1, keepdims=True)}

    def check_param(self, name, value, n_components):
        """Validate ``emissionprob``: shape (n_components, n_features), rows on the simplex."""
        return _check_stochastic(value, name, (n_components, self.n_features_))

    def log_likelihood(self, params, X):
        return self.dist.log_likelihood(params["emissionprob"], X)

    def frame(self, params, X):
        # rows of the contiguous (n_features, K) table: a gather of whole rows (indexing the
        # transposed view gathered element by element, 3.5x slower for 200,000 x 10)
        B = params["emissionprob"]
        return np.take(np.ascontiguousarray(B.T), X, axis=0), np.zeros(X.shape[0])

    def frame_table(self, params, X):
        """The frame as a table and row indices, for the forward-backward kernels (no
        (n_samples, K) frame is made: 3 of 21 ms per iteration at 200 x 1,000 steps, K = 10,
        the gather and the kernel's cache misses on it): ``(table, log_offset, rows)`` with
        ``frame[t] = table[rows[t]]``: the (n_features, K) table ``emissionprob.T``, zero
        offsets (n_features,) and the symbols (int64). A subclass that changes :meth:`frame`
        must change this too (the HMM uses this one when it exists)."""
        B = params["emissionprob"]
        return (np.ascontiguousarray(B.T), np.zeros(B.shape[1]),
                np.ascontiguousarray(X, dtype=np.int64))

    def empty_stats(self, n_components):
        return {"counts": np.zeros((n_components, self.n_features_))}

    def accumulate(self, params, X, gamma):
        return {"counts": self.dist.sufficient_stats(X, gamma, self.n_features_)}

    def m_step(self, params, stats, frozen):
        if "emissionprob" in _as_frozen(frozen):
            return {}
        return {"emissionprob": self.dist.maximize(stats.counts, params["emissionprob"],
                                                   self.emissionprob_prior)}

    def log_prior(self, params):
        if self.emissionprob_prior is None:
            return 0.0
        return self.dist.log_prior(params["emissionprob"], self.emissionprob_prior)

    def free_parameter_counts(self, n_components):
        return {"emissionprob": n_components * (self.n_features_ - 1)}

    def sample(self, params, states, rng):
        return self.dist.sample(params["emissionprob"], states, rng)[:, None]

# --------------------------------------------------------------------------------------------
# Poisson
# --------------------------------------------------------------------------------------------

#: The Gamma prior's spelling of latentkit < 0.2 (``lambdas_prior=a, lambdas_weight=b``) and
#: its defaults; ``rate_prior=(a, b)`` now, as in the mixtures' Poisson.
OLD_GAMMA_PRIOR = {"lambdas_prior": None, "lambdas_weight": 0.0}


def fold_gamma_prior(rate_prior, old):
    """``rate_prior`` from the deprecated ``lambdas_prior``/``lambdas_weight`` (``old``, a
    dict of those given): ``(lambdas_prior, lambdas_weight)``, or None without a shape
    (the weight alone had no effect before either).

    Raises
    ------
    InputTypeError
        ``rate_prior`` given together with the old keywords."""
    if rate_prior is not None:
        raise InputTypeError(f"give rate_prior=(a, b) only, not together with its deprecated "
                             f"spelling {sorted(old)}.")
    old = {**OLD_GAMMA_PRIOR, **old}
    if old["lambdas_prior"] is None:
        return None
    return (old["lambdas_prior"], old["lambdas_weight"])


def gamma_prior_kwargs(init):
    """Decorator for ``__init__``: accept the deprecated ``lambdas_prior``/``lambdas_weight``
    (one ``DeprecationWarning``, :func:`moved_parameters`) and fold them into ``rate_prior``
    (:func:`fold_gamma_prior`); the signature and ``get_params`` show ``rate_prior`` only."""
    owner = init.__qualname__.replace(".__init__", "")

    @functools.wraps(init)
    def wrapper(self, *args, **kwargs):
        old = {k: kwargs.pop(k) for k in list(kwargs) if k in OLD_GAMMA_PRIOR}
        if old:
            moved_parameters(owner, old, "rate_prior=(a, b)")
            kwargs["rate_prior"] = fold_gamma_prior(kwargs.get("rate_prior"), old)
        return init(self, *args, **kwargs)

    return wrapper


def upgrade_gamma_prior(params):
    """Stored hyper-parameters (a model or emission file written before 0.2) with the old
    spelling folded into ``rate_prior``, silently (the file is not the user's code)."""
    old = {k: params[k] for k in params if k in OLD_GAMMA_PRIOR}
    if not old:
        return params
    out = {k: v for k, v in params.items() if k not in OLD_GAMMA_PRIOR}
    out["rate_prior"] = fold_gamma_prior(out.get("rate_prior"), old)
    return out


class PoissonEmission(Emission):
    """Independent Poisson emissions: feature ``d`` of an observation in state ``k`` is
    Poisson(``lambdas[k, d]``) (Zucchini, MacDonald & Langrock 2016, ch. 3 and 4).

    Parameters
    ----------
    rate_prior : (float, float), optional
        Shape ``a`` (>= 1) and rate ``b`` (>= 0) of a Gamma(a, b) prior on every rate (MAP
        estimate ``(sx + a - 1) / (nk + b)``). Default None: maximum likelihood. The
        deprecated spelling ``lambdas_prior=a, lambdas_weight=b`` still works until 0.3
        (``DeprecationWarning``).

    Notes
    -----
    Observations are non-negative integer counts of shape (n_samples, n_features). A model
    given ``emission=Poisson(rate_prior=...)`` (:class:`latentkit.distributions.Poisson`,
    the one Poisson of every family) builds this adapter from it.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.sequence import HiddenMarkovModel
    >>> from latentkit.sequence._emissions import PoissonEmission  # users pass Poisson()
    >>> X = np.r_[np.full(10, 1), np.full(10, 9)].reshape(-1, 1)
    >>> hmm = HiddenMarkovModel(2, emission=PoissonEmission(), random_state=0).fit(X)
    >>> np.round(np.sort(hmm.lambdas_[:, 0]), 1)  # the two rates
    array([1., 9.])
    """

    param_names = ("lambdas",)
    stats_class = PoissonHMMStats
    dist = Poisson()  # the shared block (latentkit.distributions._counts)

    @gamma_prior_kwargs
    def __init__(self, rate_prior=None):
        self.rate_prior = rate_prior

    def validate(self, n_components):
        if self.rate_prior is None:
            return
        pair = self.rate_prior
        if isinstance(pair, str) or np.shape(pair) != (2,):
            raise InputError(f"rate_prior must be None or a pair (shape a >= 1, rate b >= 0) "
                             f"of the Gamma prior, got {pair!r}.")
        check_scalar(pair[0], "rate_prior[0] (the Gamma shape)", numbers.Real, low=1.0)
        check_scalar(pair[1], "rate_prior[1] (the Gamma rate)", numbers.Real, low=0.0)

    def check_X(self, X, offsets, reset):
        """Validate counts: (n_samples, n_features) non-negative integers.

        Returns
        -------
        ndarray of shape (n_samples, n_features) of float64

        Raises
        ------
        ValueError
            NaN, fractional or negative counts (naming the position), wrong shape, or a
            different number of features than in ``fit``.
        """
        if hasattr(X, "toarray"):
            raise InputTypeError("X must be a dense array of counts, got a sparse matrix.")
        arr = np.asarray(X)
        if arr.ndim != 2:
            raise InputError(
                f"Expected 2D array for X, got shape {arr.shape}; use X.reshape(-1, 1) for a "
                "single count series.")
        if arr.shape[0] < 1:
            raise InputError("X has 0 samples; at least one time step is required.")
        if arr.shape[1] < 1:
            raise InputError("X has 0 features (shape (n, 0)); a Poisson HMM needs at least one "
                             "count column.")
        cnt = _integer_column(arr, "X", offsets, "count")
        neg = cnt < 0
        if neg.any():
            r, c = np.argwhere(neg)[0]
            raise InputError(f"X contains the negative count {cnt[r, c]} at {_where(int(r), offsets)}"
                             f", feature {int(c)}; Poisson counts must be >= 0.")
        if reset:
            self.n_features_ = arr.shape[1]
        else:
            check_n_features(arr.shape[1], self.n_features_)
        return np.ascontiguousarray(cnt, dtype=np.float64)

    def init_params(self, X, n_components, rng, init):
        """``init='random'``: rates = overall mean times Uniform(0.5, 1.5) factors;
        ``'kmeans++'``: rates at k-means++ seeds (Arthur & Vassilvitskii 2007) of the counts."""
        mean = X.mean(axis=0)
        if init == "kmeans++":
            lam = kmeans_plusplus(X, n_components, rng, n_local_trials=1, n_lloyd=0)[0]
        else:
            lam = mean[None, :] * rng.uniform(0.5, 1.5, size=(n_components, X.shape[1]))
        return {"lambdas": np.maximum(lam, 1e-3 * np.maximum(mean, 1e-3))}

    def check_param(self, name, value, n_components):
        lam = np.array(value, dtype=float, copy=True)
        if lam.shape != (n_components, self.n_features_):
            raise InputError(f"init['lambdas'] must have shape ({n_components}, "
                             f"{self.n_features_}), got {lam.shape}.")
        if not np.all(np.isfinite(lam)) or np.any(lam < 0):
            raise InputError("init['lambdas'] must be finite and non-negative.")
        return lam

    def log_likelihood(self, params, X):
        return self.dist.log_likelihood(params["lambdas"], X)

    def empty_stats(self, n_components):
        return {"nk": np.zeros(n_components),
                "sx": np.zeros((n_components, self.n_features_))}

    def _gamma_prior(self):
        return None if self.rate_prior is None else tuple(self.rate_prior)

    def accumulate(self, params, X, gamma):
        return {"nk": gamma.sum(axis=0), "sx": self.dist.sufficient_stats(X, gamma)}

    def m_step(self, params, stats, frozen):
        if "lambdas" in _as_frozen(frozen):
            return {}
        # an unvisited state keeps its rates
        return {"lambdas": self.dist.maximize((stats.nk, stats.sx), params["lambdas"],
                                              self._gamma_prior())}

    def log_prior(self, params):
        if self.rate_prior is None:
            return 0.0
        return self.dist.log_prior(params["lambdas"], self._gamma_prior())

    def free_parameter_counts(self, n_components):
        return {"lambdas": n_components * self.n_features_}

    def sample(self, params, states, rng):
        return self.dist.sample(params["lambdas"], states, rng).astype(np.int64)


#: distribution class -> the emission built from it (``emission=Poisson(...)``): the one
#: class per distribution that the mixtures take as ``component=`` too
DISTRIBUTIONS = {Poisson: lambda d: PoissonEmission(rate_prior=d.rate_prior),
                 Categorical: lambda d: CategoricalEmission(emissionprob_prior=d.category_prior),
                 Gaussian: lambda d: _gaussian_emission(d)}


def _gaussian_emission(dist):
    """The HMM's Gaussian emission of a :class:`~latentkit.distributions.Gaussian`; its
    Normal-Wishart prior (the mixtures') is refused: the HMMs' estimates are maximum
    likelihood."""
    given = [n for n in dist.prior_names if getattr(dist, n) is not None]
    if given:
        raise InputError(f"an HMM's Gaussian emission takes no prior (maximum likelihood), got "
                         f"{', '.join(given)}; leave them None.")
    return GaussianEmission(covariance_type=dist.covariance_type, reg_covar=dist.reg_covar,
                            missing=dist.missing)


def emission_of(emission):
    """The emission component of an ``emission=`` object: a distribution of
    :data:`DISTRIBUTIONS` is turned into its adapter (same prior); an :class:`Emission` is
    returned as it is (the caller clones it); anything else too (the caller refuses it)."""
    if type(emission) in DISTRIBUTIONS:
        return DISTRIBUTIONS[type(emission)](emission)
    return emission


#: Emission components defined in sibling modules, found by name when a saved model is rebuilt
#: (the loader looks components up in this module).
_EXTENSIONS = {"GMMEmission": "._gmm",
               "AutoregressiveEmission": "._arhmm",
               "VariationalCategoricalEmission": "._variational_emissions",
               "VariationalGaussianEmission": "._variational_emissions",
               "VariationalAutoregressiveEmission": "._variational_arhmm"}


def __getattr__(name):
    if name in _EXTENSIONS:
        import importlib

        return getattr(importlib.import_module(_EXTENSIONS[name], __package__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
