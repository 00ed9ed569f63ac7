"""The method of moments for spherical Gaussian mixtures as a function: :func:`spectral_gmm`,
the core of :class:`~latentkit.spectral.SpectralGMM` (as :func:`sparse_spectral_gmm` is the
core of :class:`~latentkit.spectral.SparseSpectralGMM`), and :func:`_decompose`, the tensor
power step every dense estimator shares."""

import numbers
from dataclasses import dataclass

import numpy as np

from .._utils.threads import blas_scoped
from .._utils.validation import check_random_state, check_scalar
from ._moments import GMMMoments
from ._power import TensorPowerResult, robust_tensor_power
from ._tensors import SymmetricTensor
from ._whitening import Whitening, whiten
from ..exceptions import InputError

__all__ = ["spectral_gmm", "SpectralGMMResult"]


def _decompose(T, k, rng, dense, n_init, max_iter, tol):
    """Robust tensor power method on T (materialised first when ``dense``)."""
    if dense:
        T = SymmetricTensor(T.to_dense() if hasattr(T, "to_dense") else T, check_symmetric=False)
    return robust_tensor_power(T, k, n_restarts=n_init, n_iter=max_iter, tol=tol,
                               random_state=rng, check_symmetric=False)


def check_gmm_options(tensor, covariance_type):
    """ValueError unless ``tensor`` and ``covariance_type`` are among the accepted strings."""
    if tensor not in ("auto", "dense", "implicit"):
        raise InputError(f"tensor must be 'auto', 'dense' or 'implicit', got {tensor!r}.")
    if covariance_type not in ("tied", "spherical"):
        raise InputError(f"covariance_type must be 'tied' or 'spherical', got "
                         f"{covariance_type!r}.")


@dataclass
class SpectralGMMResult:
    """Output of :func:`spectral_gmm`.

    Attributes
    ----------
    weights : ndarray of shape (n_components,)
        Mixture weights (on the simplex).
    means : ndarray of shape (n_components, n_features)
    covariances : ndarray of shape (n_components,)
        Each component's variance ('spherical' form; all ``sigma2`` for 'tied').
    sigma2 : float
        The common variance (for 'spherical': the mean variance, the smallest covariance
        eigenvalue).
    raw_weight_sum : float
        ``sum_i lambda_i^{-2}`` before renormalisation (1 for a perfect fit).
    decomposition : TensorPowerResult
        Eigenvalues, eigenvectors and history of the tensor power method.
    whitening : Whitening

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.spectral import spectral_gmm
    >>> rng = np.random.default_rng(0)
    >>> X = np.r_[rng.normal(0, 0.5, (300, 3)), rng.normal(4, 0.5, (300, 3))]
    >>> res = spectral_gmm(X, n_components=2, random_state=0)
    >>> type(res).__name__, res.means.shape, res.covariances.shape, round(float(res.sigma2), 2)
    ('SpectralGMMResult', (2, 3), (2,), 0.25)
    """

    weights: np.ndarray
    means: np.ndarray
    covariances: np.ndarray
    sigma2: float
    raw_weight_sum: float
    decomposition: TensorPowerResult
    whitening: Whitening


@blas_scoped
def spectral_gmm(X, n_components, covariance_type="tied", random_state=None, *,
                 variance="bottom_mean", center=True, tensor="auto", n_init=20, max_iter=100,
                 tol=1e-8):
    """Spherical Gaussian mixture by the method of moments (common or per-component variance).

    Moments (:class:`~latentkit.spectral.GMMMoments`), whitening of M2
    (:func:`~latentkit.spectral.whiten`), the robust tensor power method on the whitened third
    moment, and the eigenpairs mapped back to weights, means and variances.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    n_components : int
        k, at most n_features.
    covariance_type : {'tied', 'spherical'}, default 'tied'
        One variance shared by the components, or one per component (floored at
        ``1e-3 sigma2``).
    random_state : None, int or numpy.random.Generator
        Whitening's randomised range finder and the power method's restarts.
    variance, center, tensor, n_init, max_iter, tol
        As in :class:`~latentkit.spectral.SpectralGMM`.

    Returns
    -------
    SpectralGMMResult

    Raises
    ------
    ValueError
        ``n_components > n_features`` or > rank of M2, NaN, bad ``tensor``,
        ``covariance_type`` or power-method settings.
    TypeError
        Non-integer ``n_components``, ``n_init`` or ``max_iter``.

    Notes
    -----
    Source: Hsu & Kakade (2013), "Learning mixtures of spherical Gaussians: moment methods and
    spectral decompositions", Theorem 1; Anandkumar et al. (2014), Theorem 3.2 and section 4.3.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.spectral import spectral_gmm
    >>> rng = np.random.default_rng(0)
    >>> X = np.r_[rng.normal(0, 0.5, (300, 3)), rng.normal(4, 0.5, (300, 3))]
    >>> res = spectral_gmm(X, n_components=2, random_state=0)
    >>> np.round(np.sort(res.weights), 1)
    array([0.5, 0.5])
    >>> np.round(res.means[np.argsort(res.means[:, 0])], 0) + 0.0
    array([[0., 0., 0.],
           [4., 4., 4.]])
    """
    check_scalar(n_components, "n_components", numbers.Integral, low=1)
    check_scalar(n_init, "n_init", numbers.Integral, low=1)
    check_scalar(max_iter, "max_iter", numbers.Integral, low=1)
    check_scalar(tol, "tol", numbers.Real, low=0.0)
    check_gmm_options(tensor, covariance_type)
    rng = check_random_state(random_state)
    mom = GMMMoments(X, n_components, variance, covariance_type, center=bool(center))
    k = n_components
    wh = whiten(mom.M2, k, random_state=rng)
    T = mom.tensor(wh)
    dense = tensor == "dense" or (tensor == "auto" and k <= 100)
    res = _decompose(T, k, rng, dense, n_init, max_iter, tol)
    weights, means, raw_weight_sum = mom.to_params(wh, res.eigenvalues, res.eigenvectors)
    if covariance_type == "tied":
        covariances = np.full(k, mom.sigma2)
    else:
        var = mom.component_variances(wh, res.eigenvalues, res.eigenvectors)
        covariances = np.maximum(var, 1e-3 * max(mom.sigma2, 1e-300))
    return SpectralGMMResult(weights=weights, means=means, covariances=covariances,
                             sigma2=mom.sigma2, raw_weight_sum=raw_weight_sum,
                             decomposition=res, whitening=wh)
