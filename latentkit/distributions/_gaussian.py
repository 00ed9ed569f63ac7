"""The Gaussian block shared by GaussianMixture, VariationalGaussianMixture,
DirichletProcessMixture and GaussianHMM.

Everything a model with Gaussian components needs, as plain functions over arrays (no model
state), for the four covariance structures of scikit-learn (same shapes, same conventions):

=================  ==========================  ==========================================
covariance_type    covariances / precisions    precisions_cholesky (``Lambda = U U^T``)
=================  ==========================  ==========================================
``'full'``         (K, D, D)                   (K, D, D), upper triangular
``'tied'``         (D, D)                      (D, D), upper triangular
``'diag'``         (K, D)                      (K, D), ``1 / sqrt(variance)``
``'spherical'``    (K,)                        (K,), ``1 / sqrt(variance)``
=================  ==========================  ==========================================

The pipeline of one EM iteration is

1. ``log_gaussian_prob(X, means, precisions_cholesky, covariance_type)`` -> (n, K), or the fused
   :func:`latentkit.distributions._gaussian_estep.gaussian_mixture_e_step` that also normalises and accumulates statistics;
2. ``accumulate_gaussian_stats(X, resp, covariance_type, sample_weight, shift)`` ->
   ``(nk, sx, sxx)``: zeroth, first and second moments of the responsibilities, additive over
   chunks of rows (so chunked, streaming, stochastic and distributed fits share them);
3. ``estimate_gaussian_parameters(nk, sx, sxx, covariance_type, reg_covar, shift)`` ->
   ``(means, covariances, collapsed)`` (closed-form maximum-likelihood M-step), then
   ``compute_precision_cholesky(covariances, covariance_type)``.

**Shift.** Statistics are accumulated about a fixed point ``shift`` (D,) -- typically the data
mean, fixed when a model is initialised -- ``sx = sum_i r_ik (x_i - shift)``,
``sxx = sum_i r_ik (x_i - shift)(x_i - shift)^T``. The M-step ``cov = sxx / N_k - m m^T``
(``m = sx / N_k``) then loses digits only as ``|mu_k - shift|^2 / var_k``, not as
``|mu_k|^2 / var_k`` (one-pass moment formulas about the origin cancel catastrophically for
data far from zero). Statistics of different chunks add only when they share the shift.

**Collapse.** A component whose covariance is singular (all its weight on fewer than D+1
distinct points, e.g. duplicated rows) gets ``reg_covar`` on its diagonal like every component;
it is reported with :class:`CollapsedComponentWarning`, and if rounding still leaves it not
positive definite it is re-regularised by its smallest eigenvalue plus the floor. The result is
never NaN.

**Speed.** The fused E-step of a mixture, :func:`gaussian_mixture_e_step`, lives in
:mod:`latentkit.distributions._gaussian_estep` (threaded BLAS path for full covariances, fused
numba passes otherwise). The standalone :func:`log_gaussian_prob` (predict, HMM emissions)
uses numpy/BLAS in row chunks.

Source: Bishop (2006), *Pattern Recognition and Machine Learning*, section 9.2.2, eqs.
(9.23)-(9.28) (E and M steps of a Gaussian mixture); scikit-learn's ``_gaussian_mixture.py``
(parameterisation through Cholesky factors of precisions, the ``10 * eps`` floor on ``N_k``).
"""

import math
import warnings

import numpy as np
from scipy.linalg import lapack

from ..base import Stats, stats_dataclass

__all__ = [
    "COVARIANCE_TYPES",
    "CollapsedComponentWarning",
    "GaussianStats",
    "check_covariance_type",
    "covariance_shape",
    "compute_precision_cholesky",
    "precision_cholesky_from_precisions",
    "precisions_from_cholesky",
    "covariances_from_precisions",
    "log_det_cholesky",
    "log_gaussian_prob",
    "accumulate_gaussian_stats",
    "estimate_gaussian_parameters",
    "sample_gaussian",
    "n_gaussian_parameters",
    "check_gaussian_parameters",
]

COVARIANCE_TYPES = ("full", "tied", "diag", "spherical")

_LOG_2PI = math.log(2.0 * math.pi)
_EPS = np.finfo(np.float64).eps


class CollapsedComponentWarning(RuntimeWarning):
    """A Gaussian component's covariance was singular (it collapsed onto fewer points than
    dimensions, or lost all its weight) and is held positive definite only by ``reg_covar``
    or by an extra re-regularisation."""


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
    """
    if not isinstance(covariance_type, str) or covariance_type not in COVARIANCE_TYPES:
        raise ValueError(
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
    """
    shape = covariance_shape(covariance_type, n_components, n_features)
    arr = np.array(value, dtype=np.float64, copy=True, order="C")
    if arr.shape != shape:
        raise ValueError(
            f"{name} must have shape {shape} for covariance_type={covariance_type!r}, "
            f"got {arr.shape}."
        )
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinity.")
    if covariance_type in ("full", "tied"):
        mats = arr.reshape(-1, shape[-1], shape[-1])
        for k, m in enumerate(mats):
            if not np.allclose(m, m.T, rtol=1e-10, atol=1e-12 * max(1.0, np.abs(m).max())):
                raise ValueError(f"{name}[{k}] is not symmetric; {kind} must be symmetric.")
            try:
                np.linalg.cholesky(m)
            except np.linalg.LinAlgError:
                raise ValueError(
                    f"{name}[{k}] is not positive definite; {kind} must be symmetric "
                    "positive definite.") from None
    elif np.any(arr <= 0):
        raise ValueError(f"{name} must be positive, got a minimum of {arr.min()}.")
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
                    raise ValueError(
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
                raise ValueError(
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
            "or removing duplicated samples.", CollapsedComponentWarning, stacklevel=2)
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


# --------------------------------------------------------------------------------------------
# Log densities
# --------------------------------------------------------------------------------------------

def _chunk_rows(n_features, n_components, target_bytes=1 << 20):
    """Rows per chunk so that the (rows x K D) temporaries of a chunk fit in ~1 MiB."""
    per_row = 8 * max(1, n_components * n_features + n_components + n_features)
    return int(max(64, min(65536, target_bytes // per_row)))


def _stacked_cholesky(means, precisions_cholesky, covariance_type, shift):
    """``Ucat`` (D, K D) with ``Ucat[:, kD:(k+1)D] = U_k`` and ``bcat`` (K D,) with the
    matching ``(mu_k - shift) U_k``, for the batched triangular product."""
    K, D = means.shape
    u = np.asarray(precisions_cholesky, dtype=np.float64)
    if covariance_type == "tied":
        u = np.broadcast_to(u, (K, D, D))
    mc = means - shift
    ucat = np.ascontiguousarray(u.transpose(1, 0, 2).reshape(D, K * D))
    bcat = np.einsum("kd,kde->ke", mc, u).reshape(K * D)
    return ucat, bcat


def _mahalanobis_chunk(Xc, means_c, precisions_cholesky, covariance_type, ucat=None, bcat=None):
    """Squared Mahalanobis distances (B, K) of shifted rows ``Xc`` to shifted means."""
    K, D = means_c.shape
    if covariance_type in ("full", "tied"):
        y = Xc @ ucat
        y -= bcat
        y *= y
        return y.reshape(Xc.shape[0], K, D).sum(axis=2)
    prec = np.asarray(precisions_cholesky, dtype=np.float64) ** 2
    if covariance_type == "diag":
        return ((means_c ** 2 * prec).sum(axis=1) - 2.0 * (Xc @ (means_c * prec).T)
                + (Xc * Xc) @ prec.T)
    # spherical
    return (np.outer(np.einsum("ij,ij->i", Xc, Xc), prec) - 2.0 * (Xc @ means_c.T) * prec
            + (means_c ** 2).sum(axis=1) * prec)


def log_gaussian_prob(X, means, precisions_cholesky, covariance_type, *, shift=None):
    """Per-sample, per-component log densities ``log N(x_i | mu_k, Sigma_k)``.

    Computed through the Cholesky factors of the precisions:
    ``log N = -D/2 log(2 pi) + log det U_k - 0.5 ||(x - mu_k) U_k||^2``.

    Parameters
    ----------
    X : ndarray of shape (n, D), float64
        Validated data.
    means : ndarray of shape (K, D)
    precisions_cholesky : ndarray
        (K, D, D), (D, D), (K, D) or (K,) (see module docstring).
    covariance_type : {'full', 'tied', 'diag', 'spherical'}
    shift : ndarray of shape (D,), optional
        Subtracted from ``X`` and ``means`` first (numerically better for data far from the
        origin; does not change the result mathematically). Default: none.

    Returns
    -------
    ndarray of shape (n, K)
        Nats.

    Source: Bishop (2006) eq. (2.43); scikit-learn ``_estimate_log_gaussian_prob``.
    """
    check_covariance_type(covariance_type)
    X = np.asarray(X, dtype=np.float64)
    means = np.asarray(means, dtype=np.float64)
    K, D = means.shape
    shift = np.zeros(D) if shift is None else np.asarray(shift, dtype=np.float64)
    log_det = log_det_cholesky(precisions_cholesky, covariance_type, D)
    out = np.empty((X.shape[0], K))
    ucat = bcat = None
    if covariance_type in ("full", "tied"):
        ucat, bcat = _stacked_cholesky(means, precisions_cholesky, covariance_type, shift)
    mc = means - shift
    step = _chunk_rows(D, K)
    for a in range(0, X.shape[0], step):
        Xc = X[a:a + step] - shift
        out[a:a + step] = _mahalanobis_chunk(Xc, mc, precisions_cholesky, covariance_type,
                                             ucat, bcat)
    out *= -0.5
    out += log_det - 0.5 * D * _LOG_2PI
    return out


# --------------------------------------------------------------------------------------------
# Sufficient statistics and the M-step
# --------------------------------------------------------------------------------------------

@stats_dataclass
class GaussianStats(Stats):
    """Expected sufficient statistics of a mixture of Gaussians (additive over rows).

    Attributes
    ----------
    n : float
        Total sample weight summarised.
    data_term : float
        Additive ELBO data term in nats (for EM: the summed weighted log-likelihood
        ``sum_i w_i log sum_k pi_k N(x_i | k)``).
    nk : ndarray of shape (K,)
        ``sum_i w_i r_ik``.
    sx : ndarray of shape (K, D)
        ``sum_i w_i r_ik (x_i - shift)``.
    sxx : ndarray
        Second moments about ``shift``: (K, D, D) full, (D, D) tied
        (``sum_i w_i (x_i - c)(x_i - c)^T``, summed over components), (K, D) diag (diagonal
        only), (K,) spherical (``sum_i w_i r_ik ||x_i - c||^2``).
    """

    n: float
    data_term: float
    nk: np.ndarray
    sx: np.ndarray
    sxx: np.ndarray

    @classmethod
    def empty(cls, n_components, n_features, covariance_type):
        """Zero statistics of the right shapes."""
        K, D = int(n_components), int(n_features)
        sxx_shape = {"full": (K, D, D), "tied": (D, D), "diag": (K, D),
                     "spherical": (K,)}[check_covariance_type(covariance_type)]
        return cls(n=0.0, data_term=0.0, nk=np.zeros(K), sx=np.zeros((K, D)),
                   sxx=np.zeros(sxx_shape))


def _accumulate_chunk(Xc, rw, covariance_type, nk, sx, sxx):
    """Add the statistics of shifted rows ``Xc`` (B, D) with weighted responsibilities
    ``rw`` (B, K) into ``nk``, ``sx``, ``sxx`` (in place)."""
    B, D = Xc.shape
    K = rw.shape[1]
    nk += rw.sum(axis=0)
    sx += rw.T @ Xc
    if covariance_type == "full":
        # all K second moments in one GEMM: X^T [r_1 X, ..., r_K X] -> (D, K D)
        Z = (rw[:, :, None] * Xc[:, None, :]).reshape(B, K * D)
        sxx += (Xc.T @ Z).reshape(D, K, D).transpose(1, 0, 2)
    elif covariance_type == "tied":
        w = rw.sum(axis=1)
        sxx += (Xc * w[:, None]).T @ Xc
    elif covariance_type == "diag":
        sxx += rw.T @ (Xc * Xc)
    else:
        sxx += rw.T @ np.einsum("ij,ij->i", Xc, Xc)


def accumulate_gaussian_stats(X, resp, covariance_type, *, sample_weight=None, shift=None):
    """Sufficient statistics of weighted responsibilities.

    Parameters
    ----------
    X : ndarray of shape (n, D)
    resp : ndarray of shape (n, K)
        Responsibilities (rows need not sum to one: HMM posteriors, variational factors...).
    covariance_type : {'full', 'tied', 'diag', 'spherical'}
    sample_weight : ndarray of shape (n,), optional
        Multiplies each row's responsibilities.
    shift : ndarray of shape (D,), optional
        The point about which moments are taken (default the origin); statistics of different
        chunks add only when they share the shift.

    Returns
    -------
    nk : ndarray of shape (K,)
        ``sum_i w_i r_ik``.
    sx : ndarray of shape (K, D)
        ``sum_i w_i r_ik (x_i - shift)``.
    sxx : ndarray
        (K, D, D) full, (D, D) tied (``sum_i w_i (sum_k r_ik) (x_i - c)(x_i - c)^T``), (K, D)
        diag, (K,) spherical (see :class:`GaussianStats`).

    Source: Bishop (2006) eqs. (9.26)-(9.27) written as sums of moments.
    """
    check_covariance_type(covariance_type)
    X = np.asarray(X, dtype=np.float64)
    resp = np.asarray(resp, dtype=np.float64)
    n, D = X.shape
    K = resp.shape[1]
    st = GaussianStats.empty(K, D, covariance_type)
    nk, sx, sxx = st.nk, st.sx, st.sxx
    shift = np.zeros(D) if shift is None else np.asarray(shift, dtype=np.float64)
    step = _chunk_rows(D, K)
    for a in range(0, n, step):
        rw = resp[a:a + step]
        if sample_weight is not None:
            rw = rw * np.asarray(sample_weight, dtype=np.float64)[a:a + step, None]
        _accumulate_chunk(X[a:a + step] - shift, rw, covariance_type, nk, sx, sxx)
    return nk, sx, sxx


def _moment_counts(nk):
    """The divisor of the first and second moments: ``N_k`` floored at ``10 eps`` only where
    it is smaller. Adding the floor to every count (scikit-learn's ``nk + 10 eps``) divides
    ``sx`` and ``sxx`` by ``N_k (1 + 10 eps / N_k)``, which biases ``sxx / N_k - m m^T`` by
    ``10 eps |m|^2 / N_k``: a one-point component 1e4 from the shift got a variance of
    ``reg_covar + 2e-7``, 1e8 away ``reg_covar + 22``. With the plain count a component on
    one point (or on copies of it) gets exactly ``reg_covar`` whatever its offset."""
    return np.maximum(nk, 10.0 * _EPS)


def estimate_gaussian_parameters(nk, sx, sxx, covariance_type, *, reg_covar=1e-6, shift=None,
                                 warn=True):
    """Closed-form maximum-likelihood means and covariances from sufficient statistics.

    ``mu_k = shift + sx_k / N_k``, ``Sigma_k = sxx_k / N_k - m_k m_k^T + reg_covar I`` with
    ``m_k = sx_k / N_k`` and ``N_k`` floored at ``10 eps`` where smaller (so an empty
    component gets ``mu_k = shift`` and ``Sigma_k = reg_covar I`` rather than NaN, and a
    component on a single point exactly ``reg_covar``, whatever its distance from the shift). Tied:
    ``Sigma = (sxx - sum_k N_k m_k m_k^T) / sum_k N_k + reg_covar I``; diag/spherical keep the
    diagonal / its mean.

    Parameters
    ----------
    nk : ndarray of shape (K,)
    sx : ndarray of shape (K, D)
    sxx : ndarray
        As returned by :func:`accumulate_gaussian_stats`.
    covariance_type : {'full', 'tied', 'diag', 'spherical'}
    reg_covar : float, default 1e-6
        Added to the diagonal of every covariance (to every variance).
    shift : ndarray of shape (D,), optional
        The shift the statistics were accumulated with.
    warn : bool, default True
        Emit :class:`CollapsedComponentWarning` for collapsed components.

    Returns
    -------
    means : ndarray of shape (K, D)
    covariances : ndarray
        (K, D, D), (D, D), (K, D) or (K,), positive definite.
    collapsed : ndarray of shape (K,), bool
        Components whose unregularised covariance had an eigenvalue (variance) below
        ``max(reg_covar, 1e-12 x its scale)``, or that lost (almost) all their weight.

    Source: Bishop (2006) eqs. (9.24)-(9.25); scikit-learn ``_estimate_gaussian_parameters``.
    """
    check_covariance_type(covariance_type)
    nk = np.asarray(nk, dtype=np.float64)
    sx = np.asarray(sx, dtype=np.float64)
    sxx = np.asarray(sxx, dtype=np.float64)
    K, D = sx.shape
    shift = np.zeros(D) if shift is None else np.asarray(shift, dtype=np.float64)
    nks = _moment_counts(nk)
    m = sx / nks[:, None]
    means = m + shift
    collapsed = nk <= 1e-8 * max(float(nk.sum()), 1e-300)
    if covariance_type == "full":
        cov = sxx / nks[:, None, None] - m[:, :, None] * m[:, None, :]
        cov = 0.5 * (cov + cov.transpose(0, 2, 1))
        for k in range(K):
            lam = np.linalg.eigvalsh(cov[k]) if np.all(np.isfinite(cov[k])) else [-np.inf]
            scale = max(abs(lam[-1]), 1e-300) if np.isfinite(lam[0]) else 1.0
            if lam[0] < max(reg_covar, 1e-12 * scale):
                collapsed[k] = True
        cov[:, np.arange(D), np.arange(D)] += reg_covar
    elif covariance_type == "tied":
        cov = (sxx - np.einsum("k,ki,kj->ij", nk, m, m)) / nks.sum()
        cov = 0.5 * (cov + cov.T)
        cov[np.arange(D), np.arange(D)] += reg_covar
    else:
        var = sxx / nks[:, None] - m ** 2 if covariance_type == "diag" else \
            sxx / nks - (m ** 2).sum(axis=1)
        if covariance_type == "spherical":
            var = var / D
        low = (var < reg_covar) | (var < 1e-12 * max(float(np.abs(var).max()), 1e-300))
        collapsed |= low.reshape(K, -1).any(axis=1)
        cov = var + reg_covar
    if warn and collapsed.any():
        warnings.warn(
            f"component(s) {np.flatnonzero(collapsed).tolist()} collapsed (a singular "
            f"covariance: fewer distinct points than dimensions, duplicated samples, or no "
            f"weight); held positive definite by reg_covar={reg_covar:g}.",
            CollapsedComponentWarning, stacklevel=2)
    return means, cov, collapsed


# --------------------------------------------------------------------------------------------
# Sampling
# --------------------------------------------------------------------------------------------

def sample_gaussian(means, covariances, covariance_type, counts, rng):
    """Draw ``counts[k]`` samples from each component, concatenated in component order.

    Parameters
    ----------
    means : ndarray of shape (K, D)
    covariances : ndarray
        (K, D, D), (D, D), (K, D) or (K,).
    covariance_type : {'full', 'tied', 'diag', 'spherical'}
    counts : ndarray of shape (K,), int
    rng : numpy.random.Generator

    Returns
    -------
    X : ndarray of shape (sum(counts), D)
    labels : ndarray of shape (sum(counts),), int
    """
    check_covariance_type(covariance_type)
    means = np.asarray(means, dtype=np.float64)
    K, D = means.shape
    cov = np.asarray(covariances, dtype=np.float64)
    xs, ys = [], []
    for k in range(K):
        c = int(counts[k])
        z = rng.standard_normal((c, D))
        if covariance_type == "full":
            x = means[k] + z @ np.linalg.cholesky(cov[k]).T
        elif covariance_type == "tied":
            x = means[k] + z @ np.linalg.cholesky(cov).T
        elif covariance_type == "diag":
            x = means[k] + z * np.sqrt(cov[k])
        else:
            x = means[k] + z * np.sqrt(cov[k])
        xs.append(x)
        ys.append(np.full(c, k, dtype=np.int64))
    return np.concatenate(xs, axis=0), np.concatenate(ys)
