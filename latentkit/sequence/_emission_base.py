"""The base of the HMM emission components: the statistics every HMM shares
(:class:`HMMStats`), the :class:`Emission` base class, and the helpers of the emission
families (observation checks, simplex rows, the Dirichlet log density). The protocol is
documented in :mod:`latentkit.sequence._emissions`, which collects the families."""

import numpy as np

from .._kernels.hmm import scaled_frame_from_log
from .._utils.deprecation import renamed_attribute
from .._utils.summaries import RowSummary
from .._utils.validation import check_simplex_rows
from ..base import ParamsMixin, Stats, stats_dataclass
from ..distributions._counts import normalize_rows as _normalize_rows  # noqa: F401 (re-export)
from ..distributions._dirichlet import dirichlet_logpdf  # noqa: F401 (re-export)
from ..exceptions import InputError, InputTypeError

__all__ = ["Emission", "HMMStats"]


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

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.sequence import HMMStats
    >>> s = HMMStats(n=4.0, data_term=-2.0, start=np.array([1.0, 0.0]),
    ...              trans=np.array([[2.0, 1.0], [0.0, 0.0]]))
    >>> float(s.trans.sum())  # 3 expected transitions in a sequence of 4 steps
    3.0
    """

    n: float
    data_term: float
    start: np.ndarray
    trans: np.ndarray

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

    Examples
    --------
    >>> from latentkit.distributions import Gaussian
    >>> from latentkit.sequence import Emission, HiddenMarkovModel
    >>> import numpy as np
    >>> noise = np.random.default_rng(0).normal(size=(20, 1))
    >>> X = np.r_[np.zeros((10, 1)), np.full((10, 1), 5.0)] + noise  # 10 steps near 0, then near 5
    >>> hmm = HiddenMarkovModel(2, emission=Gaussian(), random_state=0).fit(X)
    >>> isinstance(hmm.emission_, Emission), hmm.emission_.param_names
    (True, ('means', 'covars'))
    """

    param_names = ()
    stats_class = HMMStats

    def validate(self, n_components):
        """Check hyper-parameters. Raises ValueError / TypeError naming the argument."""

    # --- the protocol's methods without a default: each emission defines them ---------------

    def check_param(self, name, value, n_components):
        """Validate one emission parameter given by hand or restored from a file.

        Parameters
        ----------
        name : str
            One of ``param_names``.
        value : array-like
        n_components : int

        Returns
        -------
        ndarray
            The validated value (a new array; the input is never modified).

        Raises
        ------
        InputError
            A wrong shape, non-finite entries, rows off the simplex, non-positive variances
            or rates; the message names ``name``.
        """
        raise NotImplementedError(f"{type(self).__name__} does not define check_param.")

    def log_likelihood(self, params, X):
        """``log p(x_t | z_t = k)`` of every observation under every state.

        Parameters
        ----------
        params : dict
            The emission parameters (``{name: array}`` over ``param_names``).
        X : validated observations (n_samples, ...)

        Returns
        -------
        ndarray of shape (n_samples, n_components)
            Nats.
        """
        raise NotImplementedError(f"{type(self).__name__} does not define log_likelihood.")

    def empty_stats(self, n_components):
        """Zero emission statistics for ``n_components`` states (dict of arrays)."""
        raise NotImplementedError(f"{type(self).__name__} does not define empty_stats.")

    def accumulate(self, params, X, gamma):
        """Expected sufficient statistics of the observations under the state posteriors.

        Parameters
        ----------
        params : dict
        X : validated observations (n_samples, ...)
        gamma : ndarray of shape (n_samples, n_components)
            ``q(z_t = k)``.

        Returns
        -------
        dict
            Statistics summed over time steps (they add over sequences and chunks).
        """
        raise NotImplementedError(f"{type(self).__name__} does not define accumulate.")

    def m_step(self, params, stats, frozen):
        """Maximise the expected complete-data log-likelihood (plus the log prior) over the
        emission parameters.

        Parameters
        ----------
        params : dict
            The current parameters (some updates start from them).
        stats : HMMStats
            The summed statistics of :meth:`accumulate`.
        frozen : frozenset of str or None
            Parameters kept as they are.

        Returns
        -------
        dict
            The new values of the parameters that are not frozen.
        """
        raise NotImplementedError(f"{type(self).__name__} does not define m_step.")

    def sample(self, params, states, rng):
        """One observation per state of ``states`` (n_samples,), drawn from ``rng``.

        Returns
        -------
        ndarray of shape (n_samples, n_features)
        """
        raise NotImplementedError(f"{type(self).__name__} does not define sample.")

    def frame(self, params, X):
        """Scaled emission probabilities for the scaled forward-backward.

        Returns
        -------
        frame : ndarray of shape (n_samples, n_components)
            ``exp(log_likelihood - row max)``, in [0, 1].
        log_offset : ndarray of shape (n_samples,)
            The row maxima, nats.
        """
        return _scaled_frame(self.log_likelihood(params, X))

    def free_parameter_counts(self, n_components):
        """Free scalars of each parameter, ``{name: count}`` over ``param_names`` (BIC / AIC
        leave out the frozen ones). A component must define it to have ``bic`` / ``aic``."""
        raise NotImplementedError(f"{type(self).__name__} does not define "
                                  "free_parameter_counts(n_components), needed by bic/aic.")

    def log_prior(self, params):
        """Log prior density of the emission parameters, nats (0: maximum likelihood)."""
        return 0.0

    def data_summary(self, X):
        """Mergeable summary of validated observations (:mod:`latentkit._utils.summaries`) from which
        :meth:`set_data_defaults` resolves data-derived values; default: the number of rows."""
        return RowSummary(X.shape[0])

    def set_data_defaults(self, summary, n_components):
        """Resolve data-derived values from the summary of all training observations."""


def _scaled_frame(logp):
    """``(frame, log_offset)`` of log-likelihoods ``logp`` (n_samples, n_components): see
    :meth:`Emission.frame`."""
    logp = np.ascontiguousarray(logp, dtype=np.float64)
    frame = np.empty_like(logp)
    off = np.empty(logp.shape[0])
    scaled_frame_from_log(logp, frame, off)
    return frame, off


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
        raise InputTypeError(f"{name} must contain integer {what}s, got an array of dtype {arr.dtype}.")
    if arr.dtype.kind == "c":
        raise InputTypeError(f"{name} must contain integer {what}s, got complex data.")
    if arr.dtype.kind == "f":
        bad = ~np.isfinite(arr)
        if bad.any():
            r = int(np.argwhere(bad)[0][0])
            raise InputError(f"Input {name} contains NaN or infinity at {_where(r, offsets)}; "
                             f"{what}s must be finite integers.")
        frac = arr != np.round(arr)
        if frac.any():
            idx = tuple(np.argwhere(frac)[0])
            raise InputError(
                f"{name} must contain integer {what}s, found the non-integer value "
                f"{arr[idx].item()!r} at {_where(int(idx[0]), offsets)} (dtype {arr.dtype}); "
                f"convert with X.astype(int) only if the values are meant to be {what}s.")
    return np.ascontiguousarray(arr, dtype=np.int64)

# --------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------

def _check_stochastic(value, name, shape):
    """``init[name]`` on the simplex along its last axis, renormalised (a copy)."""
    return check_simplex_rows(value, f"init[{name!r}]", shape, normalize=True)
