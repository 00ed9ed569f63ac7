"""Gaussian emissions of the HMMs (:class:`GaussianEmission`, :class:`GaussianHMMStats`),
computed with the Gaussian block shared with the mixtures (:mod:`latentkit.distributions`).
Part of the emission components of :mod:`latentkit.sequence._emissions` (the protocol)."""

import numbers
import warnings

import numpy as np

from .._utils.kmeans import kmeans_plusplus
from .._utils.summaries import check_second_moments as _check_second_moments
from .._utils.validation import check_array, check_n_features, check_scalar
from ..base import stats_dataclass
from ..distributions import (
    CollapsedComponentWarning,
    check_covariance_type,
    check_gaussian_parameters,
    covariance_shape,
    n_gaussian_parameters,
)
from ..distributions._gaussian import _moment_counts
from ..distributions._gaussian_family import Gaussian
from ..distributions._missing import check_missing, data_summary, mean_fill
from ._emission_base import Emission, HMMStats, _as_frozen, _old_stats_names, _where
from ..exceptions import InputError

__all__ = ["GaussianEmission", "GaussianHMMStats"]


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
    names still read (``DeprecationWarning``) and old model files still load.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.sequence import GaussianHMMStats
    >>> s = GaussianHMMStats(n=2.0, data_term=-2.0, start=np.array([1.0]), trans=np.array([[1.0]]),
    ...                      nk=np.array([2.0]), sx=np.array([[4.0]]), sxx=np.array([[10.0]]))
    >>> s.sx / s.nk[:, None]  # the state's mean
    array([[2.]])
    """

    nk: np.ndarray
    sx: np.ndarray
    sxx: np.ndarray

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

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.sequence import HiddenMarkovModel
    >>> from latentkit.sequence._gaussian_emission import GaussianEmission  # users: Gaussian()
    >>> noise = np.random.default_rng(0).normal(size=(20, 1))
    >>> X = np.r_[np.zeros((10, 1)), np.full((10, 1), 5.0)] + noise  # 10 steps near 0, then near 5
    >>> hmm = HiddenMarkovModel(2, emission=GaussianEmission(covariance_type="diag"), random_state=0)
    >>> np.round(np.sort(hmm.fit(X).means_[:, 0]), 0) + 0.0
    array([0., 5.])
    """

    param_names = ("means", "covars")
    stats_class = GaussianHMMStats

    def __init__(self, covariance_type="diag", reg_covar=1e-6, missing="error"):
        self.covariance_type = covariance_type
        self.reg_covar = reg_covar
        self.missing = missing

    def _marginalize(self):
        return getattr(self, "missing", "error") == "marginalize"

    def _dist(self):
        """The shared Gaussian block (:mod:`latentkit.distributions._gaussian_family`) of
        these hyper-parameters."""
        return Gaussian(self.covariance_type, self.reg_covar, getattr(self, "missing", "error"))

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
        arr = None if hasattr(X, "toarray") else np.asarray(X)  # sparse: check_array refuses
        if arr is not None and arr.dtype.kind in "fc" and arr.ndim == 2:
            bad = np.isinf(arr) if self._marginalize() else ~np.isfinite(arr)
            if bad.any():
                r = int(np.argwhere(bad)[0][0])
                raise InputError(f"Input X contains NaN or infinity at {_where(r, offsets)}.")
        Xv = check_array(X, "X", ensure_finite=not self._marginalize())
        if reset:
            self.n_features_ = Xv.shape[1]
        else:
            check_n_features(Xv.shape[1], self.n_features_)
        return Xv

    def data_summary(self, X):
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
        X = mean_fill(X)  # NaN (missing='marginalize') by column means, for the start only
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
                raise InputError(f"init['means'] must be finite with shape ({n_components}, {D}),"
                                 f" got shape {m.shape}.")
            return m
        return check_gaussian_parameters("init['covars']", value, self.covariance_type,
                                         n_components, D)

    def log_likelihood(self, params, X):
        return self._dist().log_likelihood((params["means"], params["covars"]), X,
                                           shift=self.shift_)

    def empty_stats(self, n_components):
        D = self.n_features_
        return {"nk": np.zeros(n_components), "sx": np.zeros((n_components, D)),
                "sxx": np.zeros(covariance_shape(self.covariance_type, n_components, D))}

    def accumulate(self, params, X, gamma):
        # missing='marginalize': the expected moments of the missing entries under params
        point = (params["means"], params["covars"]) if self._marginalize() else None
        nk, sx, sxx = self._dist().sufficient_stats(X, gamma, shift=self.shift_, params=point)
        return {"nk": nk, "sx": sx, "sxx": sxx}

    def m_step(self, params, stats, frozen):
        frozen = _as_frozen(frozen)
        if "means" in frozen and "covars" in frozen:
            return {}
        ct = self.covariance_type
        means, covars, collapsed = self._dist().maximize((stats.nk, stats.sx, stats.sxx),
                                                         shift=self.shift_)
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

    def free_parameter_counts(self, n_components):
        K, D = n_components, self.n_features_
        return {"means": K * D,
                "covars": n_gaussian_parameters(K, D, self.covariance_type) - K * D}

    def sample(self, params, states, rng):
        return self._dist().sample((params["means"], params["covars"]), states, rng)


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
