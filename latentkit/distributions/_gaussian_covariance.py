"""Covariance structures of the Gaussian block: shapes, checks and Cholesky factors.

The four structures of scikit-learn (see :mod:`latentkit.distributions._gaussian` for the table
of shapes): validation of ``covariance_type`` and of user-given covariances or precisions, the
number of free parameters, and the upper-triangular Cholesky factors ``U`` of the precisions
(``Lambda = U U^T``) with their log determinants, including the re-regularisation of a collapsed
component. Everything is re-exported by :mod:`latentkit.distributions._gaussian`.

Source: scikit-learn ``_gaussian_mixture.py`` (parameterisation through Cholesky factors of
precisions, ``_compute_precision_cholesky``); Bishop (2006) section 2.3.
"""

import warnings

import numpy as np
from scipy.linalg import lapack

from .._utils.user_frame import user_stacklevel
from ..exceptions import (CollapsedComponentWarning, InputError)  # defined there; importable here too

__all__ = [
    "COVARIANCE_TYPES",
    "CollapsedComponentWarning",
    "check_covariance_type",
    "covariance_shape",
    "n_gaussian_parameters",
    "check_gaussian_parameters",
    "compute_precision_cholesky",
    "precision_cholesky_from_precisions",
    "precisions_from_cholesky",
    "covariances_from_precisions",
    "log_det_cholesky",
]

COVARIANCE_TYPES = ("full", "tied", "diag", "spherical")


# --------------------------------------------------------------------------------------------
# Shapes and checks
# --------------------------------------------------------------------------------------------

def check_covariance_type(covariance_type):
    """Validate ``covariance_type``.

    Parameters
    ----------
    covariance_type : str
        One of ``'full'``, ``'tied'``, ``'diag'``, ``'spherical'``.

    Returns
    -------
    str

    Raises
    ------
    ValueError
        Any other value.

    Examples
    --------
    >>> from latentkit.distributions import check_covariance_type
    >>> check_covariance_type("diag")
    'diag'
    >>> try:
    ...     check_covariance_type("diagonal")
    ... except ValueError as exc:
    ...     print(exc)
    covariance_type must be one of ('full', 'tied', 'diag', 'spherical'), got 'diagonal'.
    """
    if not isinstance(covariance_type, str) or covariance_type not in COVARIANCE_TYPES:
        raise InputError(
            f"covariance_type must be one of {COVARIANCE_TYPES}, got {covariance_type!r}."
        )
    return covariance_type


def covariance_shape(covariance_type, n_components, n_features):
    """Shape of ``covariances_`` (and of ``precisions_``, ``precisions_cholesky_``).

    Parameters
    ----------
    covariance_type : {'full', 'tied', 'diag', 'spherical'}
    n_components, n_features : int

    Returns
    -------
    tuple of int
        (K, D, D), (D, D), (K, D) or (K,).

    Examples
    --------
    >>> from latentkit.distributions import covariance_shape
    >>> [covariance_shape(c, 3, 2) for c in ("full", "tied", "diag", "spherical")]
    [(3, 2, 2), (2, 2), (3, 2), (3,)]
    """
    K, D = int(n_components), int(n_features)
    return {"full": (K, D, D), "tied": (D, D), "diag": (K, D),
            "spherical": (K,)}[check_covariance_type(covariance_type)]


def n_gaussian_parameters(n_components, n_features, covariance_type):
    """Number of free parameters of the means and covariances (not the mixture weights).

    Parameters
    ----------
    n_components, n_features : int
    covariance_type : {'full', 'tied', 'diag', 'spherical'}

    Returns
    -------
    int
        ``K D`` means plus ``K D (D + 1) / 2`` (full), ``D (D + 1) / 2`` (tied), ``K D``
        (diag) or ``K`` (spherical) covariance parameters.

    Examples
    --------
    >>> from latentkit.distributions import n_gaussian_parameters
    >>> n_gaussian_parameters(2, 3, "full")  # 2 * 3 means + 2 * 6 covariances + 1 free weight
    18
    """
    K, D = int(n_components), int(n_features)
    cov = {"full": K * D * (D + 1) // 2, "tied": D * (D + 1) // 2, "diag": K * D,
           "spherical": K}[check_covariance_type(covariance_type)]
    return K * D + cov


def check_gaussian_parameters(name, value, covariance_type, n_components, n_features, *,
                              kind="covariances"):
    """Validate user-given covariances or precisions (e.g. ``init={'covariances': ...}``).

    Parameters
    ----------
    name : str
        The argument's name for messages (``"init['covariances']"``).
    value : array-like
        Shape :func:`covariance_shape`; full/tied matrices symmetric positive definite,
        diag/spherical entries positive.
    covariance_type : {'full', 'tied', 'diag', 'spherical'}
    n_components, n_features : int
    kind : str, default "covariances"
        What the values are, for messages.

    Returns
    -------
    ndarray of float64
        A new C-contiguous array.

    Raises
    ------
    ValueError
        Wrong shape, non-finite, not symmetric, or not positive (definite).

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.distributions import check_gaussian_parameters
    >>> check_gaussian_parameters("covariances", [[1.0, 2.0]], "diag", 1, 2)
    array([[1., 2.]])
    >>> try:
    ...     check_gaussian_parameters("covariances", [[1.0, -2.0]], "diag", 1, 2)
    ... except ValueError:
    ...     print("refused: a variance must be positive")
    refused: a variance must be positive
    """
    shape = covariance_shape(covariance_type, n_components, n_features)
    arr = np.array(value, dtype=np.float64, copy=True, order="C")
    if arr.shape != shape:
        raise InputError(
            f"{name} must have shape {shape} for covariance_type={covariance_type!r}, "
            f"got {arr.shape}."
        )
    if not np.all(np.isfinite(arr)):
        raise InputError(f"{name} contains NaN or infinity.")
    if covariance_type in ("full", "tied"):
        mats = arr.reshape(-1, shape[-1], shape[-1])
        for k, m in enumerate(mats):
            if not np.allclose(m, m.T, rtol=1e-10, atol=1e-12 * max(1.0, np.abs(m).max())):
                raise InputError(f"{name}[{k}] is not symmetric; {kind} must be symmetric.")
            try:
                np.linalg.cholesky(m)
            except np.linalg.LinAlgError:
                raise InputError(
                    f"{name}[{k}] is not positive definite; {kind} must be symmetric "
                    "positive definite.") from None
    elif np.any(arr <= 0):
        raise InputError(f"{name} must be positive, got a minimum of {arr.min()}.")
    return arr


# --------------------------------------------------------------------------------------------
# Cholesky factors of precisions
# --------------------------------------------------------------------------------------------

def _chol_lower_or_none(m):
    try:
        return np.linalg.cholesky(m)
    except np.linalg.LinAlgError:
        return None


def _inv_lower(chol):
    """Inverse of a lower-triangular factor through LAPACK ``dtrtri`` (exactly triangular;
    scipy's ``solve_triangular`` is avoided: on small matrices it can cost milliseconds in
    thread start-up)."""
    inv, info = lapack.dtrtri(chol, lower=1)
    if info != 0:  # pragma: no cover - a zero pivot cannot survive the checks before
        raise np.linalg.LinAlgError("singular Cholesky factor")
    return inv


def _repair(m, reg_covar):
    """Add (|lambda_min| + floor) to the diagonal until ``m`` is positive definite."""
    scale = max(float(np.abs(np.diag(m)).max()), 1.0e-300)
    floor = max(float(reg_covar), 1e-10 * scale, 1e-300)
    lam = float(np.linalg.eigvalsh(m)[0]) if np.all(np.isfinite(m)) else -scale
    jitter = max(0.0, -lam) + floor
    for _ in range(60):
        fixed = m + jitter * np.eye(m.shape[0])
        chol = _chol_lower_or_none(fixed)
        if chol is not None and np.all(np.diag(chol) > 0):
            return fixed, chol
        jitter *= 10.0
    raise FloatingPointError("could not re-regularise a covariance matrix")  # pragma: no cover


def compute_precision_cholesky(covariances, covariance_type, *, repair=True, reg_covar=1e-6):
    """Upper-triangular Cholesky factors ``U`` of the precisions, ``Sigma^-1 = U U^T``.

    Parameters
    ----------
    covariances : ndarray
        Shape (K, D, D) full, (D, D) tied, (K, D) diag, (K,) spherical.
    covariance_type : {'full', 'tied', 'diag', 'spherical'}
    repair : bool, default True
        A covariance that is not positive definite (a collapsed component after rounding) is
        re-regularised -- ``(|lambda_min| + max(reg_covar, 1e-10 max diag))`` added to its
        diagonal, a variance floored at ``max(reg_covar, tiny)`` -- with a
        :class:`CollapsedComponentWarning`. ``False`` raises instead.
    reg_covar : float, default 1e-6
        Floor used by the repair.

    Returns
    -------
    precisions_cholesky : ndarray
        Same shape as ``covariances``; for full/tied ``U = (L^-1)^T`` with ``Sigma = L L^T``.
    covariances : ndarray
        The input, or a repaired copy (equal to the input wherever no repair was needed).

    Raises
    ------
    ValueError
        ``repair=False`` and a covariance is not positive definite.

    Source: scikit-learn ``_compute_precision_cholesky`` (same convention).

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.distributions import compute_precision_cholesky
    >>> prec_chol, covariances = compute_precision_cholesky(np.array([[4.0, 1.0]]), "diag")
    >>> prec_chol  # 1 / sqrt(variance)
    array([[0.5, 1. ]])
    """
    check_covariance_type(covariance_type)
    cov = np.asarray(covariances, dtype=np.float64)
    repaired = []
    if covariance_type in ("full", "tied"):
        mats = cov.reshape(-1, cov.shape[-1], cov.shape[-1])
        prec = np.empty_like(mats)
        out_cov = mats
        for k in range(mats.shape[0]):
            chol = _chol_lower_or_none(mats[k]) if np.all(np.isfinite(mats[k])) else None
            if chol is None or not np.all(np.diag(chol) > 0):
                if not repair:
                    raise InputError(
                        f"covariance of component {k} is not positive definite (ill-defined "
                        "empirical covariance: singleton or collapsed samples); decrease "
                        "n_components, increase reg_covar, or scale the input data.")
                if out_cov is mats:
                    out_cov = mats.copy()
                out_cov[k], chol = _repair(mats[k], reg_covar)
                repaired.append(k)
            prec[k] = _inv_lower(chol).T
        prec = prec.reshape(cov.shape)
        out_cov = out_cov.reshape(cov.shape)
    else:
        bad = ~(cov > 0) | ~np.isfinite(cov)
        out_cov = cov
        if bad.any():
            if not repair:
                raise InputError(
                    "some variances are not positive (ill-defined empirical covariance: "
                    "singleton or collapsed samples); decrease n_components, increase "
                    "reg_covar, or scale the input data.")
            out_cov = cov.copy()
            finite = cov[np.isfinite(cov) & (cov > 0)]
            scale = float(finite.max()) if finite.size else 1.0
            out_cov[bad] = max(float(reg_covar), 1e-10 * scale, 1e-300)
            repaired = sorted(set(np.nonzero(bad)[0].tolist()))
        prec = 1.0 / np.sqrt(out_cov)
    if repaired:
        warnings.warn(
            f"covariance of component(s) {repaired} was not positive definite (a collapsed "
            "component); it was re-regularised. Consider fewer components, a larger reg_covar, "
            "or removing duplicated samples.", CollapsedComponentWarning,
            stacklevel=user_stacklevel())
    return prec, out_cov


def _flipudlr(a):
    return a[::-1, ::-1]


def precision_cholesky_from_precisions(precisions, covariance_type):
    """Upper-triangular ``U`` with ``U U^T = Lambda`` computed from the precisions themselves
    (no inversion: exactly scikit-learn's ``precisions_init`` path).

    Parameters
    ----------
    precisions : ndarray
        (K, D, D), (D, D), (K, D) or (K,), positive (definite).
    covariance_type : {'full', 'tied', 'diag', 'spherical'}

    Returns
    -------
    ndarray
        Same shape.

    Raises
    ------
    numpy.linalg.LinAlgError
        A precision matrix is not positive definite (callers validate first).

    Source: scikit-learn ``_compute_precision_cholesky_from_precisions`` (``J Lambda J = L L^T``
    with the exchange matrix ``J``; ``U = J L J``).

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.distributions import precision_cholesky_from_precisions
    >>> P = np.array([[[4.0, 0.0], [0.0, 9.0]]])
    >>> precision_cholesky_from_precisions(P, "full")
    array([[[2., 0.],
            [0., 3.]]])
    """
    check_covariance_type(covariance_type)
    p = np.asarray(precisions, dtype=np.float64)
    if covariance_type == "full":
        return np.stack([_flipudlr(np.linalg.cholesky(_flipudlr(p[k])))
                         for k in range(p.shape[0])])
    if covariance_type == "tied":
        return np.ascontiguousarray(_flipudlr(np.linalg.cholesky(_flipudlr(p))))
    return np.sqrt(p)


def precisions_from_cholesky(precisions_cholesky, covariance_type):
    """Precisions ``Lambda = U U^T`` (full/tied) or ``U^2`` (diag/spherical).

    Parameters
    ----------
    precisions_cholesky : ndarray
        (K, D, D), (D, D), (K, D) or (K,).
    covariance_type : {'full', 'tied', 'diag', 'spherical'}

    Returns
    -------
    ndarray
        Same shape.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.distributions import precisions_from_cholesky
    >>> precisions_from_cholesky(np.array([[0.5, 1.0]]), "diag")  # squared
    array([[0.25, 1.  ]])
    """
    check_covariance_type(covariance_type)
    u = np.asarray(precisions_cholesky, dtype=np.float64)
    if covariance_type in ("full", "tied"):
        return u @ np.swapaxes(u, -1, -2)
    return u ** 2


def covariances_from_precisions(precisions, covariance_type):
    """Inverse of the precisions, symmetrised.

    Parameters
    ----------
    precisions : ndarray
        (K, D, D), (D, D), (K, D) or (K,), positive (definite).
    covariance_type : {'full', 'tied', 'diag', 'spherical'}

    Returns
    -------
    ndarray
        Same shape.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.distributions import covariances_from_precisions
    >>> covariances_from_precisions(np.array([[[4.0, 0.0], [0.0, 0.5]]]), "full")
    array([[[0.25, 0.  ],
            [0.  , 2.  ]]])
    """
    check_covariance_type(covariance_type)
    p = np.asarray(precisions, dtype=np.float64)
    if covariance_type in ("full", "tied"):
        c = np.linalg.inv(p)
        return 0.5 * (c + np.swapaxes(c, -1, -2))
    return 1.0 / p


def log_det_cholesky(precisions_cholesky, covariance_type, n_features):
    """``log det U`` = ``0.5 log det Lambda`` = ``-0.5 log det Sigma`` per component.

    Parameters
    ----------
    precisions_cholesky : ndarray
        (K, D, D), (D, D), (K, D) or (K,).
    covariance_type : {'full', 'tied', 'diag', 'spherical'}
    n_features : int

    Returns
    -------
    ndarray of shape (K,), or float for 'tied'
        Nats.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.distributions import log_det_cholesky
    >>> U = np.array([[[2.0, 0.0], [0.0, 3.0]]])  # Cholesky factor of a precision
    >>> np.round(log_det_cholesky(U, "full", 2), 6), round(float(np.log(6.0)), 6)
    (array([1.791759]), 1.791759)
    """
    check_covariance_type(covariance_type)
    u = np.asarray(precisions_cholesky, dtype=np.float64)
    if covariance_type == "full":
        return np.log(np.diagonal(u, axis1=1, axis2=2)).sum(axis=1)
    if covariance_type == "tied":
        return float(np.log(np.diag(u)).sum())
    if covariance_type == "diag":
        return np.log(u).sum(axis=1)
    return n_features * np.log(u)
