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
``n_free_parameters(n_components)``  for BIC / AIC
``sample(params, states, rng)``  observations for a given state sequence
"""

import numbers
import warnings

import numpy as np
from scipy.special import gammaln, xlogy

from .._kmeans import kmeans_plusplus
from .._summaries import RowSummary, SymbolSummary
from .._validation import (check_array, check_dense_width, check_n_features, check_scalar,
                           check_simplex_rows)
from .._deprecation import renamed_attribute
from ..base import ParamsMixin, Stats, stats_dataclass
from ..distributions._missing import (
    accumulate_missing_gaussian_stats,
    check_missing,
    marginal_log_gaussian_prob,
    mean_fill,
)
from ..distributions._gaussian import _moment_counts
from ..distributions import (
    CollapsedComponentWarning,
    accumulate_gaussian_stats,
    check_covariance_type,
    check_gaussian_parameters,
    compute_precision_cholesky,
    covariance_shape,
    estimate_gaussian_parameters,
    log_gaussian_prob,
    n_gaussian_parameters,
    sample_gaussian,
)
from .._summaries import check_second_moments as _check_second_moments

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
# Statistics
# --------------------------------------------------------------------------------------------

@stats_dataclass
class HMMStats(Stats):
    """Expected sufficient statistics of an HMM (Baum-Welch E-step, Rabiner 1989 eqs. 37-40).

    Attributes
    ----------
    n : float
        Number of time steps summarised.
    data_term : float
        Log-likelihood of the sequences, nats (summed, not averaged).
    start : ndarray of shape (n_components,)
        Expected number of sequences starting in each state.
    trans : ndarray of shape (n_components, n_components)
        Expected number of ``i -> j`` transitions.
    """

    n: float
    data_term: float
    start: np.ndarray
    trans: np.ndarray


@stats_dataclass
class CategoricalHMMStats(HMMStats):
    """:class:`HMMStats` plus ``counts`` (n_components, n_features): expected number of times
    state ``k`` emitted symbol ``m``."""

    counts: np.ndarray


def _old_stats_names(**old_to_new):
    """Class decorator: the statistics' field names before they followed the mixtures'
    ``GaussianStats`` (latentkit 0.1) read as deprecated aliases (``DeprecationWarning``), and
    :func:`latentkit.io.load` maps them in old model files (``_renamed_fields``)."""
    def decorate(cls):
        for old, new in old_to_new.items():
            setattr(cls, old, renamed_attribute(old, new))
        cls._renamed_fields = dict(old_to_new)
        return cls
    return decorate


@_old_stats_names(post="nk", obs="sx")
@stats_dataclass
class PoissonHMMStats(HMMStats):
    """:class:`HMMStats` plus ``nk`` (n_components,) expected state occupancies and ``sx``
    (n_components, n_features) posterior-weighted sums of the counts (the names of the
    mixtures' :class:`~latentkit.distributions.GaussianStats`; ``post``/``obs`` before)."""

    nk: np.ndarray
    sx: np.ndarray


@_old_stats_names(post="nk", obs="sx", obs2="sxx")
@stats_dataclass
class GaussianHMMStats(HMMStats):
    """:class:`HMMStats` plus the Gaussian block under the names of the mixtures'
    :class:`~latentkit.distributions.GaussianStats`: ``nk`` (n_components,) expected state
    occupancies, ``sx`` (n_components, n_features) posterior-weighted sums of ``x - shift`` and
    ``sxx`` the weighted second moments about the shift: (n_components, n_features) for
    'diag', (n_components,) for 'spherical', outer products (n_components, n_features,
    n_features) for 'full' and 'tied' (per state; the mixtures' 'tied' ``sxx`` is summed over
    components). Before latentkit 0.2 the fields were ``post``, ``obs`` and ``obs2``; those
    names still read (``DeprecationWarning``) and old model files still load."""

    nk: np.ndarray
    sx: np.ndarray
    sxx: np.ndarray


# --------------------------------------------------------------------------------------------
# Base
# --------------------------------------------------------------------------------------------

def _as_frozen(frozen):
    return frozenset() if frozen is None else frozen


class Emission(ParamsMixin):
    """Base class of HMM emission components (see the module docstring for the protocol).

    An emission object holds hyper-parameters only and is never modified by a fit: the model
    works on a clone (``model.emission_``), which may store resolved values such as
    ``n_features_``.
    """

    param_names = ()
    stats_class = HMMStats

    def validate(self, n_components):
        """Check hyper-parameters. Raises ValueError / TypeError naming the argument."""

    def frame(self, params, X):
        """Scaled emission probabilities for the scaled forward-backward.

        Returns
        -------
        frame : ndarray of shape (n_samples, n_components)
            ``exp(log_likelihood - row max)``, in [0, 1].
        log_offset : ndarray of shape (n_samples,)
            The row maxima, nats.
        """
        # local: numba loads on first use, not at import
        from .._kernels.hmm import scaled_frame_from_log

        logp = np.ascontiguousarray(self.log_likelihood(params, X), dtype=np.float64)
        frame = np.empty_like(logp)
        off = np.empty(logp.shape[0])
        scaled_frame_from_log(logp, frame, off)
        return frame, off

    def log_prior(self, params):
        """Log prior density of the emission parameters, nats (0: maximum likelihood)."""
        return 0.0

    def data_summary(self, X):
        """Mergeable summary of validated observations (:mod:`latentkit._summaries`) from which
        :meth:`set_data_defaults` resolves data-derived values; default: the number of rows."""
        return RowSummary(X.shape[0])

    def set_data_defaults(self, summary, n_components):
        """Resolve data-derived values from the summary of all training observations."""


def _locate(row, offsets):
    """(sequence, position) of a stacked row."""
    if offsets is None:
        return None
    s = int(np.searchsorted(offsets, row, side="right") - 1)
    return s, int(row - offsets[s])


def _where(row, offsets):
    loc = _locate(row, offsets)
    if loc is None:
        return f"row {row}"
    return f"row {row} (sequence {loc[0]}, position {loc[1]})"


def _integer_column(X, name, offsets, what):
    """Validate integer-valued observations: returns an int64 array of the same shape.

    Float input is accepted only when every value is integral; NaN, infinity and fractional
    values are rejected naming the first offending position.
    """
    arr = np.asarray(X)
    if arr.dtype.kind in "OUSV":
        raise TypeError(f"{name} must contain integer {what}s, got an array of dtype {arr.dtype}.")
    if arr.dtype.kind == "c":
        raise TypeError(f"{name} must contain integer {what}s, got complex data.")
    if arr.dtype.kind == "f":
        bad = ~np.isfinite(arr)
        if bad.any():
            r = int(np.argwhere(bad)[0][0])
            raise ValueError(f"Input {name} contains NaN or infinity at {_where(r, offsets)}; "
                             f"{what}s must be finite integers.")
        frac = arr != np.round(arr)
        if frac.any():
            idx = tuple(np.argwhere(frac)[0])
            raise ValueError(
                f"{name} must contain integer {what}s, found the non-integer value "
                f"{arr[idx].item()!r} at {_where(int(idx[0]), offsets)} (dtype {arr.dtype}); "
                f"convert with X.astype(int) only if the values are meant to be {what}s.")
    return np.ascontiguousarray(arr, dtype=np.int64)


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
    """

    param_names = ("emissionprob",)
    stats_class = CategoricalHMMStats

    def __init__(self, n_features=None, emissionprob_prior=None):
        self.n_features = n_features
        self.emissionprob_prior = emissionprob_prior

    def validate(self, n_components):
        if self.n_features is not None:
            check_scalar(self.n_features, "n_features", numbers.Integral, low=1)
        if self.emissionprob_prior is not None:
            p = np.asarray(self.emissionprob_prior, dtype=float)
            if not np.all(np.isfinite(p)) or np.any(p < 1):
                raise ValueError("emissionprob_prior must be finite and >= 1 (a Dirichlet "
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
            raise TypeError("X must be a dense array of symbols, got a sparse matrix.")
        if arr.ndim == 2:
            if arr.shape[1] != 1:
                raise ValueError(
                    f"X must have shape (n_samples, 1) of integer symbols for categorical "
                    f"emissions, got shape {arr.shape}.")
            arr = arr[:, 0]
        elif arr.ndim != 1:
            raise ValueError(f"X must have shape (n_samples, 1) of integer symbols, got shape "
                             f"{arr.shape}.")
        if arr.shape[0] < 1:
            raise ValueError("X has 0 samples; at least one time step is required.")
        sym = _integer_column(arr, "X", offsets, "symbol")
        neg = sym < 0
        if neg.any():
            r = int(np.argmax(neg))
            raise ValueError(f"X contains the negative symbol {sym[r]} at {_where(r, offsets)}; "
                             "symbols must be integers in 0..n_features-1.")
        if reset:  # an inferred alphabet is resolved from all the data (set_data_defaults)
            self.n_features_ = None if self.n_features is None else int(self.n_features)
        n_feat = self.n_features_
        big = sym >= n_feat if n_feat is not None else np.zeros(0, dtype=bool)
        if big.any():
            r = int(np.argmax(big))
            raise ValueError(
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
        with np.errstate(divide="ignore"):
            logB = np.log(params["emissionprob"])
        return np.ascontiguousarray(logB.T[X])

    def frame(self, params, X):
        B = params["emissionprob"]
        return np.ascontiguousarray(B.T[X]), np.zeros(X.shape[0])

    def empty_stats(self, n_components):
        return {"counts": np.zeros((n_components, self.n_features_))}

    def accumulate(self, params, X, gamma):
        # local: numba loads on first use, not at import
        from .._kernels.hmm import categorical_emission_counts

        counts = np.empty((gamma.shape[1], self.n_features_))
        categorical_emission_counts(gamma, X, counts)
        return {"counts": counts}

    def m_step(self, params, stats, frozen):
        if "emissionprob" in _as_frozen(frozen):
            return {}
        counts = stats.counts
        if self.emissionprob_prior is not None:
            counts = counts + (np.asarray(self.emissionprob_prior, dtype=float) - 1.0)
        return {"emissionprob": _normalize_rows(counts, params["emissionprob"])}

    def log_prior(self, params):
        if self.emissionprob_prior is None:
            return 0.0
        B = params["emissionprob"]
        alpha = np.broadcast_to(np.asarray(self.emissionprob_prior, dtype=float), B.shape)
        return float(sum(dirichlet_logpdf(B[k], alpha[k]) for k in range(B.shape[0])))

    def n_free_parameters(self, n_components):
        return n_components * (self.n_features_ - 1)

    def sample(self, params, states, rng):
        B = params["emissionprob"]
        cdf = np.cumsum(B, axis=1)
        u = rng.random(len(states))
        out = np.empty(len(states), dtype=np.int64)
        for k in range(B.shape[0]):
            sel = states == k
            out[sel] = np.minimum(np.searchsorted(cdf[k], u[sel] * cdf[k, -1], side="right"),
                                  B.shape[1] - 1)
        return out[:, None]


# --------------------------------------------------------------------------------------------
# Poisson
# --------------------------------------------------------------------------------------------

class PoissonEmission(Emission):
    """Independent Poisson emissions: feature ``d`` of an observation in state ``k`` is
    Poisson(``lambdas[k, d]``) (Zucchini, MacDonald & Langrock 2016, ch. 3 and 4).

    Parameters
    ----------
    lambdas_prior : float, optional
        Shape ``a`` (>= 1) of a Gamma(a, b) prior on every rate (MAP estimate
        ``(sx + a - 1) / (nk + b)``). Default None: maximum likelihood.
    lambdas_weight : float, default 0.0
        Rate ``b`` (>= 0) of that Gamma prior; used only with ``lambdas_prior``.

    Notes
    -----
    Observations are non-negative integer counts of shape (n_samples, n_features).
    """

    param_names = ("lambdas",)
    stats_class = PoissonHMMStats

    def __init__(self, lambdas_prior=None, lambdas_weight=0.0):
        self.lambdas_prior = lambdas_prior
        self.lambdas_weight = lambdas_weight

    def validate(self, n_components):
        if self.lambdas_prior is not None:
            check_scalar(self.lambdas_prior, "lambdas_prior", numbers.Real, low=1.0)
        check_scalar(self.lambdas_weight, "lambdas_weight", numbers.Real, low=0.0)

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
            raise TypeError("X must be a dense array of counts, got a sparse matrix.")
        arr = np.asarray(X)
        if arr.ndim != 2:
            raise ValueError(
                f"Expected 2D array for X, got shape {arr.shape}; use X.reshape(-1, 1) for a "
                "single count series.")
        if arr.shape[0] < 1:
            raise ValueError("X has 0 samples; at least one time step is required.")
        if arr.shape[1] < 1:
            raise ValueError("X has 0 features (shape (n, 0)); a Poisson HMM needs at least one "
                             "count column.")
        cnt = _integer_column(arr, "X", offsets, "count")
        neg = cnt < 0
        if neg.any():
            r, c = np.argwhere(neg)[0]
            raise ValueError(f"X contains the negative count {cnt[r, c]} at {_where(int(r), offsets)}"
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
            raise ValueError(f"init['lambdas'] must have shape ({n_components}, "
                             f"{self.n_features_}), got {lam.shape}.")
        if not np.all(np.isfinite(lam)) or np.any(lam < 0):
            raise ValueError("init['lambdas'] must be finite and non-negative.")
        return lam

    def log_likelihood(self, params, X):
        lam = params["lambdas"]
        out = xlogy(X[:, None, :], lam[None, :, :]) - lam[None, :, :]
        out = out.sum(axis=2) - gammaln(X + 1.0).sum(axis=1)[:, None]
        return np.ascontiguousarray(out)

    def empty_stats(self, n_components):
        return {"nk": np.zeros(n_components),
                "sx": np.zeros((n_components, self.n_features_))}

    def accumulate(self, params, X, gamma):
        return {"nk": gamma.sum(axis=0), "sx": gamma.T @ X}

    def m_step(self, params, stats, frozen):
        if "lambdas" in _as_frozen(frozen):
            return {}
        num = stats.sx
        den = stats.nk[:, None] + 0.0 * num
        if self.lambdas_prior is not None:
            num = num + (self.lambdas_prior - 1.0)
            den = den + self.lambdas_weight
        old = params["lambdas"]
        ok = den > 0
        lam = np.where(ok, num / np.where(ok, den, 1.0), old)  # unvisited state keeps its rates
        return {"lambdas": lam}

    def log_prior(self, params):
        if self.lambdas_prior is None:
            return 0.0
        a, b = float(self.lambdas_prior), float(self.lambdas_weight)
        lam = params["lambdas"]
        if b <= 0:  # improper Gamma(a, 0): kernel only, as a MAP objective
            return float(np.sum(xlogy(a - 1.0, lam)))
        return float(np.sum(a * np.log(b) - gammaln(a) + xlogy(a - 1.0, lam) - b * lam))

    def n_free_parameters(self, n_components):
        return n_components * self.n_features_

    def sample(self, params, states, rng):
        return rng.poisson(params["lambdas"][states]).astype(np.int64)


# --------------------------------------------------------------------------------------------
# Gaussian
# --------------------------------------------------------------------------------------------

class GaussianEmission(Emission):
    """Multivariate Gaussian emissions N(``means[k]``, ``covars[k]``) (Rabiner 1989,
    section IV; Bilmes 1998, section 4), computed with the shared Gaussian block of
    :mod:`latentkit.distributions` (Cholesky factors of precisions, moments about a fixed
    shift, closed-form M-step).

    Parameters
    ----------
    covariance_type : {'diag', 'full', 'spherical', 'tied'}, default 'diag'
        Shape of ``covars``: (K, D) diag, (K, D, D) full, (K,) spherical, (D, D) tied
        (hmmlearn's documented shapes, scikit-learn's conventions).
    reg_covar : float, default 1e-6
        Added to the diagonal of every covariance after each M-step (>= 0).
    missing : {'error', 'marginalize'}, default 'error'
        ``'marginalize'``: NaN entries are unobserved; the emission likelihood of a time step
        is the marginal on its observed coordinates (1 for a fully missing step, so the chain
        runs through it) and the M-step uses the conditional expectations of the missing ones
        (:mod:`latentkit.distributions._missing`). The start sees NaN filled with column means.

    Notes
    -----
    Observations are finite floats of shape (n_samples, n_features). Moments are accumulated
    about the mean of the data first seen by ``fit`` (``shift_``), so the M-step does not lose
    digits for data far from the origin. A state with no posterior weight keeps its mean and
    covariance.
    """

    param_names = ("means", "covars")
    stats_class = GaussianHMMStats

    def __init__(self, covariance_type="diag", reg_covar=1e-6, missing="error"):
        self.covariance_type = covariance_type
        self.reg_covar = reg_covar
        self.missing = missing

    def _marginalize(self):
        return getattr(self, "missing", "error") == "marginalize"

    def validate(self, n_components):
        check_covariance_type(self.covariance_type)
        check_missing(getattr(self, "missing", "error"))
        check_scalar(self.reg_covar, "reg_covar", numbers.Real, low=0.0)

    def check_X(self, X, offsets, reset):
        """Validate observations: finite floats of shape (n_samples, n_features).

        Returns
        -------
        ndarray of shape (n_samples, n_features) of float64

        Raises
        ------
        ValueError
            NaN/infinity (naming the position), wrong shape or number of features.
        """
        arr = X if hasattr(X, "toarray") else np.asarray(X)
        if hasattr(arr, "dtype") and arr.dtype.kind in "fc" and arr.ndim == 2:
            bad = np.isinf(arr) if self._marginalize() else ~np.isfinite(arr)
            if bad.any():
                r = int(np.argwhere(bad)[0][0])
                raise ValueError(f"Input X contains NaN or infinity at {_where(r, offsets)}.")
        Xv = check_array(X, "X", ensure_finite=not self._marginalize())
        if reset:
            self.n_features_ = Xv.shape[1]
        else:
            check_n_features(Xv.shape[1], self.n_features_)
        return Xv

    def data_summary(self, X):
        from ..distributions._missing import data_summary

        return data_summary(X, np.ones(X.shape[0]), getattr(self, "missing", "error"),
                            diagonal=True)

    def set_data_defaults(self, summary, n_components):
        """The scale check of every Gaussian model, and ``shift_``, the mean of all the
        training observations."""
        _check_second_moments(summary)
        self.shift_ = summary.mean

    def init_params(self, X, n_components, rng, init):
        """``'kmeans++'``: means at k-means++ seeds (Arthur & Vassilvitskii 2007) refined by 10
        Lloyd iterations; ``'random'``: means at random rows; covariances: the data covariance
        plus ``max(reg_covar, 1e-6)`` on the diagonal, in every state."""
        D = X.shape[1]
        X = _mean_fill(X)
        if init == "kmeans++":
            means = kmeans_plusplus(X, n_components, rng, n_local_trials=1, n_lloyd=10)[0]
        else:
            idx = rng.choice(X.shape[0], size=n_components, replace=X.shape[0] < n_components)
            means = X[idx].astype(float)
        cv = np.atleast_2d(np.cov(X.T, bias=True)) if X.shape[0] > 1 else np.eye(D)
        cv = cv + max(float(self.reg_covar), 1e-6) * np.eye(D)
        ct = self.covariance_type
        covars = {"full": np.tile(cv, (n_components, 1, 1)), "tied": cv,
                  "diag": np.tile(np.diag(cv), (n_components, 1)),
                  "spherical": np.full(n_components, np.diag(cv).mean())}[ct]
        return {"means": means, "covars": covars}

    def check_param(self, name, value, n_components):
        D = self.n_features_
        if name == "means":
            m = np.array(value, dtype=float, copy=True)
            if m.shape != (n_components, D) or not np.all(np.isfinite(m)):
                raise ValueError(f"init['means'] must be finite with shape ({n_components}, {D}),"
                                 f" got shape {m.shape}.")
            return m
        return check_gaussian_parameters("init['covars']", value, self.covariance_type,
                                         n_components, D)

    def log_likelihood(self, params, X):
        prec_chol, _ = compute_precision_cholesky(params["covars"], self.covariance_type,
                                                  reg_covar=self.reg_covar)
        log_prob = marginal_log_gaussian_prob if self._marginalize() else log_gaussian_prob
        return log_prob(X, params["means"], prec_chol, self.covariance_type, shift=self.shift_)

    def empty_stats(self, n_components):
        D = self.n_features_
        return {"nk": np.zeros(n_components), "sx": np.zeros((n_components, D)),
                "sxx": np.zeros(covariance_shape(self.covariance_type, n_components, D))}

    def accumulate(self, params, X, gamma):
        if self._marginalize():
            prec_chol, _ = compute_precision_cholesky(params["covars"], self.covariance_type,
                                                      reg_covar=self.reg_covar)
            nk, sx, sxx = accumulate_missing_gaussian_stats(
                X, gamma, params["means"], prec_chol, self.covariance_type, shift=self.shift_)
            return {"nk": nk, "sx": sx, "sxx": sxx}
        nk, sx, sxx = accumulate_gaussian_stats(X, gamma, self.covariance_type,
                                                    shift=self.shift_)
        return {"nk": nk, "sx": sx, "sxx": sxx}

    def m_step(self, params, stats, frozen):
        frozen = _as_frozen(frozen)
        if "means" in frozen and "covars" in frozen:
            return {}
        ct = self.covariance_type
        means, covars, collapsed = estimate_gaussian_parameters(
            stats.nk, stats.sx, stats.sxx, ct, reg_covar=self.reg_covar,
            shift=self.shift_, warn=False)
        # a state without posterior weight keeps its parameters (no 0/0, no jump to the shift)
        empty = stats.nk <= 1e-8 * max(float(stats.nk.sum()), 1e-300)
        if empty.any():
            means[empty] = params["means"][empty]
            if ct != "tied":
                covars[empty] = params["covars"][empty]
        if "means" in frozen:
            # covariances about the fixed means: add back the squared mean offsets
            means = params["means"]
            covars = _covars_about(stats, means, self.shift_, ct, self.reg_covar,
                                   params["covars"], empty)
        collapsed = collapsed & ~empty
        if collapsed.any():
            warnings.warn(
                f"state(s) {np.flatnonzero(collapsed).tolist()} collapsed (a singular "
                f"covariance); held positive definite by reg_covar={self.reg_covar:g}.",
                CollapsedComponentWarning, stacklevel=4)
        out = {}
        if "means" not in frozen:
            out["means"] = means
        if "covars" not in frozen:
            out["covars"] = covars
        return out

    def n_free_parameters(self, n_components):
        return n_gaussian_parameters(n_components, self.n_features_, self.covariance_type)

    def sample(self, params, states, rng):
        K = params["means"].shape[0]
        counts = np.bincount(states, minlength=K)
        draws, labels = sample_gaussian(params["means"], params["covars"],
                                        self.covariance_type, counts, rng)
        out = np.empty((len(states), self.n_features_))
        for k in range(K):
            out[states == k] = draws[labels == k]
        return out


def _mean_fill(X):
    """NaN (missing='marginalize') replaced by column means, for the start only."""
    return mean_fill(X)


def _covars_about(stats, means, shift, ct, reg_covar, previous, empty):
    """ML covariances about given (frozen) means from moments about ``shift``."""
    nk = _moment_counts(stats.nk)
    d = means - shift  # (K, D)
    sx, sxx = stats.sx, stats.sxx
    if ct == "full":
        cov = (sxx - sx[:, :, None] * d[:, None, :] - d[:, :, None] * sx[:, None, :]
               + nk[:, None, None] * d[:, :, None] * d[:, None, :]) / nk[:, None, None]
        cov = 0.5 * (cov + cov.transpose(0, 2, 1))
        cov[:, np.arange(d.shape[1]), np.arange(d.shape[1])] += reg_covar
    elif ct == "tied":
        cov = (sxx - np.einsum("kd,ke->de", sx, d) - np.einsum("kd,ke->de", d, sx)
               + np.einsum("k,kd,ke->de", stats.nk, d, d)) / nk.sum()
        cov = 0.5 * (cov + cov.T) + reg_covar * np.eye(d.shape[1])
    elif ct == "diag":
        cov = (sxx - 2 * sx * d + nk[:, None] * d ** 2) / nk[:, None] + reg_covar
    else:
        cov = (sxx - 2 * (sx * d).sum(1) + nk * (d ** 2).sum(1)) / nk / d.shape[1] + reg_covar
    if ct != "tied" and empty.any():
        cov[empty] = previous[empty]
    return cov


# --------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------

def dirichlet_logpdf(p, alpha):
    """Log density of Dirichlet(``alpha``) at ``p`` (``0 * log 0 = 0``), nats.

    Parameters
    ----------
    p : ndarray of shape (K,)
        A point on the simplex.
    alpha : ndarray of shape (K,)
        Concentrations (> 0).

    Returns
    -------
    float
    """
    alpha = np.asarray(alpha, dtype=float)
    return float(gammaln(alpha.sum()) - gammaln(alpha).sum() + np.sum(xlogy(alpha - 1.0, p)))


def _normalize_rows(counts, previous):
    """Row-normalise non-negative ``counts``; a row with zero total (a state never visited)
    keeps its previous distribution, so no 0/0 occurs."""
    counts = np.maximum(counts, 0.0)
    tot = counts.sum(axis=-1, keepdims=True)
    ok = tot > 0
    return np.where(ok, counts / np.where(ok, tot, 1.0), previous)


def _check_stochastic(value, name, shape):
    """``init[name]`` on the simplex along its last axis, renormalised (a copy)."""
    return check_simplex_rows(value, f"init[{name!r}]", shape, normalize=True)


#: Emission components defined in sibling modules, found by name when a saved model is rebuilt
#: (the loader looks components up in this module).
_EXTENSIONS = {"GMMEmission": "._gmm", "VariationalCategoricalEmission": "._variational",
               "VariationalGaussianEmission": "._variational"}


def __getattr__(name):
    if name in _EXTENSIONS:
        import importlib

        return getattr(importlib.import_module(_EXTENSIONS[name], __package__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
