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

**Modules.** The shapes, checks and Cholesky factors of the four structures live in
:mod:`latentkit.distributions._gaussian_covariance` (re-exported here); this module holds the
densities, the sufficient statistics, the M-step and sampling.

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

from .._utils.user_frame import user_stacklevel
from ..base import Stats, stats_dataclass
from ._gaussian_covariance import (COVARIANCE_TYPES, CollapsedComponentWarning,
                                   check_covariance_type, check_gaussian_parameters,
                                   compute_precision_cholesky, covariance_shape,
                                   covariances_from_precisions, log_det_cholesky,
                                   n_gaussian_parameters, precision_cholesky_from_precisions,
                                   precisions_from_cholesky)

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

_LOG_2PI = math.log(2.0 * math.pi)
_EPS = np.finfo(np.float64).eps


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

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.distributions import log_gaussian_prob
    >>> lp = log_gaussian_prob(np.zeros((1, 1)), np.zeros((1, 1)), np.ones((1, 1)), "diag")
    >>> round(float(lp[0, 0]), 6), round(float(-0.5 * np.log(2 * np.pi)), 6)  # N(0 | 0, 1)
    (-0.918939, -0.918939)
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

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.distributions import GaussianStats
    >>> s = GaussianStats(n=2.0, data_term=-3.5, nk=np.array([2.0]), sx=np.array([[2.0, 4.0]]),
    ...                   sxx=np.array([[4.0, 16.0]]))
    >>> s.n, s.sx / s.nk[:, None]  # statistics of two points; their mean
    (2.0, array([[1., 2.]]))
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

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.distributions import accumulate_gaussian_stats
    >>> X = np.array([[0.0, 0.0], [2.0, 4.0]])
    >>> nk, sx, sxx = accumulate_gaussian_stats(X, np.ones((2, 1)), "diag")
    >>> nk, sx, sxx  # sum r, sum r x, sum r x^2
    (array([2.]), array([[2., 4.]]), array([[ 4., 16.]]))
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

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.distributions import accumulate_gaussian_stats, estimate_gaussian_parameters
    >>> X = np.array([[0.0, 0.0], [2.0, 4.0]])
    >>> stats = accumulate_gaussian_stats(X, np.ones((2, 1)), "diag")
    >>> means, covariances, collapsed = estimate_gaussian_parameters(*stats, "diag", reg_covar=0.0)
    >>> means, covariances  # mean (1, 2), variances (1, 4)
    (array([[1., 2.]]), array([[1., 4.]]))
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
            CollapsedComponentWarning, stacklevel=user_stacklevel())
    return means, cov, collapsed


def params_from_resp(X, resp, covariance_type, reg_covar, w):
    """The mixture's parameters from responsibilities (one-hot or soft): one M-step about the
    weighted mean of ``X``, as :class:`~latentkit.mixture.GaussianMixture` starts from its
    k-means++ or random responsibilities (also the spectral start's, from its labels).

    Returns
    -------
    dict
        ``'weights'`` (K,), ``'means'`` (K, D), ``'covariances'`` (shape of the type), K =
        ``resp.shape[1]``.
    """
    shift = (w @ X) / w.sum()
    nk, sx, sxx = accumulate_gaussian_stats(X, resp, covariance_type, sample_weight=w,
                                            shift=shift)
    means, cov, _ = estimate_gaussian_parameters(nk, sx, sxx, covariance_type,
                                                 reg_covar=reg_covar, shift=shift, warn=False)
    nks = nk + 10.0 * np.finfo(np.float64).eps
    return {"weights": nks / nks.sum(), "means": means, "covariances": cov}


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

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.distributions import sample_gaussian
    >>> X, labels = sample_gaussian(np.array([[0.0], [100.0]]), np.array([1.0, 1.0]), "spherical",
    ...                             np.array([2, 3]), np.random.default_rng(0))
    >>> X.shape, labels
    ((5, 1), array([0, 0, 1, 1, 1]))
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
