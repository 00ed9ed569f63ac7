"""The number of clusters suggested by the spectrum of the (standardised) covariance: the
eigenvalues above the Marchenko-Pastur edge of noise and above the Kaiser criterion, one
cluster more than the signal directions (k clusters span k - 1 directions about the mean).
Used by :class:`latentkit.mixture.DirichletProcessMixture` to start its spectral start near
the right number of components; split from :mod:`latentkit.spectral._gmm_start` (one concern
per module)."""

import numbers

import numpy as np

from .._utils.validation import check_array, check_sample_weight, check_scalar
from ._gmm_start import _standardise
from ..exceptions import InputError

__all__ = ["n_components_from_spectrum"]


def n_components_from_spectrum(X, max_components=None, sample_weight=None, standardize="auto"):
    """Number of mixture components suggested by the covariance spectrum.

    A mixture of k spherical components has k - 1 covariance eigenvalues above the noise level
    (the between-means directions) and ``d - k + 1`` at it. Going down the spectrum
    ``lambda_1 >= ... >= lambda_d``, the j-th eigenvalue is counted as signal while it exceeds
    ``1.05 s_j (1 + sqrt((d - j + 1) / n))^2``, the Marchenko-Pastur edge of pure noise of level
    ``s_j`` = the mean of ``lambda_j..lambda_d`` (5% above it for the top noise eigenvalue's
    fluctuation); on the correlation matrix (``standardize``) it must also exceed 1, the mean
    eigenvalue (the Kaiser-Guttman rule). ``k = 1 + #signal``.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    max_components : int, optional
        Upper bound (default n_features).
    sample_weight : array-like of shape (n_samples,), optional
    standardize : {'auto', True, False}, default 'auto'
        True: use the correlation matrix (each feature scaled to unit variance: needed when
        the features are in different units); False: the covariance. Scaling distorts noise
        that was isotropic (a feature that separates the means gets its noise shrunk), so for
        data already in common units (planted spherical mixtures) pass False. 'auto': the
        correlation matrix, unless no pair of features is significantly correlated (every
        ``|r_ij| < 3 / sqrt(n)``), as for principal-component scores, whose correlation
        matrix is the identity and keeps nothing of their spectrum: then the covariance.

    Returns
    -------
    int
        ``1 <= k <= min(max_components, n_features)``.

    Raises
    ------
    ValueError, TypeError
        Bad X, ``sample_weight`` or ``max_components``.

    Notes
    -----
    Sources: Kaiser (1960), "The application of electronic computers to factor analysis",
    Educ. Psychol. Meas. 20; Marchenko & Pastur (1967); heuristic: real classes are not
    spherical, so the count is a starting point for the Dirichlet-process mixture (which can
    empty components) rather than an estimate with a guarantee.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.spectral import n_components_from_spectrum
    >>> rng = np.random.default_rng(0)
    >>> means = np.array([[0.0, 0.0, 0.0], [6.0, 0.0, 0.0], [0.0, 6.0, 0.0]])
    >>> X = np.concatenate([rng.normal(m, 1.0, (200, 3)) for m in means])
    >>> n_components_from_spectrum(X, standardize=False)
    3
    """
    X = check_array(X, "X", ensure_min_samples=2)
    n, d = X.shape
    kmax = d if max_components is None else int(
        check_scalar(max_components, "max_components", numbers.Integral, low=1))
    if standardize not in ("auto", True, False):
        raise InputError(f"standardize must be 'auto', True or False, got {standardize!r}.")
    w = check_sample_weight(sample_weight, n)
    Z = _standardise(X, w)
    cov = (Z * w[:, None]).T @ Z / w.sum()
    if standardize == "auto":
        off = np.abs(cov[~np.eye(d, dtype=bool)])
        standardize = bool(off.size and off.max() >= 3.0 / np.sqrt(n))
    if not standardize:
        Z = X - (w @ X) / w.sum()
        cov = (Z * w[:, None]).T @ Z / w.sum()
    lam = np.linalg.eigvalsh(0.5 * (cov + cov.T))[::-1]
    kaiser = float(lam.mean()) if standardize else 0.0
    n_signal = 0
    for j in range(d - 1):
        edge = 1.05 * float(lam[j:].mean()) * (1.0 + np.sqrt((d - j) / n)) ** 2
        if not lam[j] > max(edge, kaiser):
            break
        n_signal += 1
    return int(max(1, min(1 + n_signal, kmax, d)))
