"""numba kernel of the missing-data Gaussian block (:mod:`latentkit.distributions._missing`).

:func:`missing_rows_full` is the per-row middle of the full/tied E-step with missing entries:
the caller sorts the partially observed rows by missing pattern and computes ``x0 U_k`` for all
rows and components with one GEMM (``x0``: the shifted row with zeros at its missing
coordinates; the kernel subtracts ``(mu_k - shift) U_k``). For each pattern the kernel
factorises the ``q x q`` blocks ``Lambda_k,mm`` of the precisions once (Cholesky, ``C_k =
Lambda_k,mm^{-1}``, the conditional covariance); then for each row of the pattern and each
component: ``g = U_k[m, :] y0``, the conditional mean of the missing entries ``e = -C_k g``, the
marginal Mahalanobis distance ``||y0||^2 + e . g``, the marginal log density, log-sum-exp and
log-responsibilities, and the low-rank corrections of the statistics on the missing coordinates
(``sum r e``, ``sum r (x0 e^T + e x0^T + e e^T)``, ``(sum r) C_k``). The ``x0 x0^T`` part of
the second moments is left to one GEMM by the caller, on the ``Z = r x0`` the kernel writes.
Serial (the patterns are visited in order, so the result is deterministic; the caller runs
chunks of rows in threads and sums them in chunk order).

Imports only numpy, math and numba (DESIGN.md section 4). Oracle:
:mod:`latentkit.testing._oracles_missing` (row by row with scipy).
"""

import math

import numpy as np

from ._jit import jit

__all__ = ["missing_rows_diag", "missing_rows_full"]

_LOG_2PI = math.log(2.0 * math.pi)


@jit
def _normalise_row(lp, best, i, log_resp, lse):
    """Row ``i``: ``lse[i] = log sum_k exp(lp_k)`` (``best`` = max lp) and the
    log-responsibilities ``lp_k - lse[i]``."""
    tot = 0.0
    for k in range(lp.shape[0]):
        tot += math.exp(lp[k] - best)
    ls = best + math.log(tot)
    lse[i] = ls
    for k in range(lp.shape[0]):
        log_resp[i, k] = lp[k] - ls


@jit
def _missing_rows_full_kernel(X0, Y0, bvec, U, P, miss, n_miss, starts, const, w, log_resp, lse,
                              sx_c, sxx_c, R, Z):
    n, D = X0.shape
    K = U.shape[0]
    n_pat = n_miss.shape[0]
    L = np.zeros((D, D))
    C = np.zeros((K, D, D))
    log_det = np.zeros(K)
    g = np.zeros((K, D))
    e = np.zeros((K, D))
    lp = np.zeros(K)
    y = np.zeros(D)
    mass = np.zeros(K)
    # per-pattern accumulators on the pattern's own (contiguous) coordinates
    acc_x = np.zeros((K, D))
    acc_cross = np.zeros((K, D, D))  # [k, a, d]: sum r e_a x0_d
    acc_ee = np.zeros((K, D, D))
    for p in range(n_pat):
        q = n_miss[p]
        m = miss[p]
        # --- once per pattern: Cholesky of Lambda_k,mm and its inverse C_k
        for k in range(K):
            for a in range(q):
                for b in range(a + 1):
                    s = P[k, m[a], m[b]]
                    for c in range(b):
                        s -= L[a, c] * L[b, c]
                    if a == b:
                        L[a, a] = math.sqrt(s)
                    else:
                        L[a, b] = s / L[b, b]
            ld = 0.0
            for a in range(q):
                ld += math.log(L[a, a])
            log_det[k] = ld
            # L^{-1} (lower), column by column, into C[k]
            for j in range(q):
                for a in range(q):
                    g[0, a] = 0.0
                g[0, j] = 1.0
                for a in range(j, q):
                    s = g[0, a]
                    for c in range(j, a):
                        s -= L[a, c] * e[0, c]
                    e[0, a] = s / L[a, a]
                for a in range(q):
                    C[k, a, j] = e[0, a] if a >= j else 0.0
            # C = L^{-T} L^{-1}: C[a, b] = sum_c Linv[c, a] Linv[c, b]
            for a in range(q):
                for b in range(q):
                    s = 0.0
                    for c in range(max(a, b), q):
                        s += C[k, c, a] * C[k, c, b]
                    L[a, b] = s
            for a in range(q):
                for b in range(q):
                    C[k, a, b] = L[a, b]
            mass[k] = 0.0
            for a in range(q):
                acc_x[k, a] = 0.0
                for d in range(D):
                    acc_cross[k, a, d] = 0.0
                for b in range(q):
                    acc_ee[k, a, b] = 0.0
        # --- rows of the pattern
        for i in range(starts[p], starts[p + 1]):
            best = -np.inf
            for k in range(K):
                ss = 0.0
                for d in range(D):
                    y[d] = Y0[i, k, d] - bvec[k, d]
                    ss += y[d] * y[d]
                for a in range(q):
                    s = 0.0
                    for d in range(m[a], D):  # U upper triangular
                        s += U[k, m[a], d] * y[d]
                    g[k, a] = s
                eg = 0.0
                for a in range(q):
                    s = 0.0
                    for b in range(q):
                        s -= C[k, a, b] * g[k, b]
                    e[k, a] = s
                    eg += s * g[k, a]
                lp[k] = const[k] + 0.5 * q * _LOG_2PI - log_det[k] - 0.5 * (ss + eg)
                if lp[k] > best:
                    best = lp[k]
            _normalise_row(lp, best, i, log_resp, lse)
            for k in range(K):
                r = math.exp(log_resp[i, k]) * w[i]
                R[i, k] = r
                for d in range(D):
                    Z[i, k, d] = r * X0[i, d]
                mass[k] += r
                for a in range(q):
                    re = r * e[k, a]
                    acc_x[k, a] += re
                    for d in range(D):
                        acc_cross[k, a, d] += re * X0[i, d]
                    for b in range(q):
                        acc_ee[k, a, b] += re * e[k, b]
        # --- scatter the pattern's accumulators (x0 is 0 on m, so cross has no m x m part)
        for k in range(K):
            for a in range(q):
                sx_c[k, m[a]] += acc_x[k, a]
                for d in range(D):
                    v = acc_cross[k, a, d]
                    sxx_c[k, m[a], d] += v
                    sxx_c[k, d, m[a]] += v
                for b in range(q):
                    sxx_c[k, m[a], m[b]] += acc_ee[k, a, b] + mass[k] * C[k, a, b]


def missing_rows_full(X0, Y0, bvec, U, P, miss, n_miss, starts, const, w, log_resp, lse, sx_c,
                      sxx_c, R, Z):
    """Per-row middle of the full/tied E-step with missing entries (see module docstring).

    Parameters
    ----------
    X0 : ndarray (n, D), float64
        Shifted rows, zeros at missing coordinates, sorted by pattern.
    Y0 : ndarray (n, K, D), float64
        ``x0_i U_k`` (one GEMM).
    bvec : ndarray (K, D)
        ``(mu_k - shift) U_k``: ``y0 = Y0[i, k] - bvec[k]``.
    U : ndarray (K, D, D)
        Upper-triangular precision Cholesky factors (tied: broadcast).
    P : ndarray (K, D, D)
        Precisions ``U U^T``.
    miss : ndarray (n_patterns, D), int64
        Missing coordinates of each pattern, ascending, padded.
    n_miss : ndarray (n_patterns,), int64
        Number of missing coordinates of each pattern (>= 1).
    starts : ndarray (n_patterns + 1,), int64
        Rows ``starts[p]:starts[p+1]`` share pattern ``p``.
    const : ndarray (K,)
        ``log_weights_k + log det U_k - D/2 log(2 pi)``.
    w : ndarray (n,)
        Sample weights.
    log_resp : ndarray (n, K)
        Output: log-responsibilities.
    lse : ndarray (n,)
        Output: log-likelihood of each row's observed entries (nats).
    sx_c : ndarray (K, D)
        Added to: ``sum_i w_i r_ik e_ik`` on the missing coordinates.
    sxx_c : ndarray (K, D, D)
        Added to: the second-moment corrections on the missing rows/columns.
    R : ndarray (n, K)
        Output: weighted responsibilities ``w_i r_ik``.
    Z : ndarray (n, K, D)
        Output: ``w_i r_ik x0_i``, for the GEMM ``x0^T [Z_1 ... Z_K]`` of the ``x0 x0^T`` part.

    Raises
    ------
    ValueError
        Wrong shapes or dtypes.
    """
    n, D = X0.shape
    K = U.shape[0]
    for name, arr, shape, dt in (("X0", X0, (n, D), np.float64), ("Y0", Y0, (n, K, D), np.float64),
                                 ("bvec", bvec, (K, D), np.float64),
                                 ("U", U, (K, D, D), np.float64), ("P", P, (K, D, D), np.float64),
                                 ("miss", miss, (n_miss.shape[0], D), np.int64),
                                 ("starts", starts, (n_miss.shape[0] + 1,), np.int64),
                                 ("const", const, (K,), np.float64), ("w", w, (n,), np.float64),
                                 ("log_resp", log_resp, (n, K), np.float64),
                                 ("lse", lse, (n,), np.float64), ("sx_c", sx_c, (K, D), np.float64),
                                 ("R", R, (n, K), np.float64), ("Z", Z, (n, K, D), np.float64),
                                 ("sxx_c", sxx_c, (K, D, D), np.float64)):
        if not (isinstance(arr, np.ndarray) and arr.dtype == dt and arr.shape == shape
                and arr.flags.c_contiguous):
            raise ValueError(f"{name} must be a C-contiguous {np.dtype(dt).name} array of shape "
                             f"{shape}, got {getattr(arr, 'dtype', None)} "
                             f"{getattr(arr, 'shape', None)}.")
    _missing_rows_full_kernel(X0, Y0, bvec, U, P, miss, n_miss, starts, const, w, log_resp, lse,
                              sx_c, sxx_c, R, Z)


@jit
def _missing_rows_diag_kernel(X, shift, means_c, prec, log_pc, const, w, log_resp, lse, nk, sx,
                              sxx):
    n, D = X.shape
    K = means_c.shape[0]
    lp = np.zeros(K)
    xc = np.zeros(D)
    ob = np.zeros(D)  # 1.0 where observed: branch-free (vectorisable) inner loops
    half_log_2pi = 0.5 * _LOG_2PI
    for i in range(n):
        best = -np.inf
        for d in range(D):
            v = X[i, d] - shift[d]
            if math.isnan(v):
                xc[d] = 0.0
                ob[d] = 0.0
            else:
                xc[d] = v
                ob[d] = 1.0
        for k in range(K):
            s = const[k]
            for d in range(D):
                z = xc[d] - means_c[k, d]
                s += ob[d] * (log_pc[k, d] - half_log_2pi - 0.5 * prec[k, d] * z * z)
            lp[k] = s
            if s > best:
                best = s
        _normalise_row(lp, best, i, log_resp, lse)
        for k in range(K):
            r = math.exp(log_resp[i, k]) * w[i]
            nk[k] += r
            for d in range(D):
                mu = means_c[k, d]
                u = 1.0 - ob[d]
                sx[k, d] += r * (xc[d] + u * mu)
                sxx[k, d] += r * (xc[d] * xc[d] + u * (mu * mu + 1.0 / prec[k, d]))


def missing_rows_diag(X, shift, means_c, prec, log_pc, const, w, log_resp, lse, nk, sx, sxx):
    """Fused E-step of a diagonal-covariance mixture over rows with NaN entries.

    For each row: ``log rho_ik = const_k + sum_{d observed} (log_pc_kd - 1/2 log 2 pi -
    1/2 prec_kd (x_id - c_d - means_c_kd)^2)`` (coordinates are independent given k, so the
    marginal drops the missing ones), log-sum-exp, responsibilities, and the expected
    statistics with ``E[x_d | k] = mu_kd``, ``E[x_d^2 | k] = mu_kd^2 + 1 / prec_kd`` at the
    missing coordinates (Ghahramani & Jordan 1994). Serial; the caller threads chunks.

    Parameters
    ----------
    X : ndarray (n, D), float64
        NaN marks a missing entry.
    shift : ndarray (D,)
    means_c : ndarray (K, D)
        Means minus ``shift``.
    prec, log_pc : ndarray (K, D)
        Precisions and the logs of their square roots.
    const : ndarray (K,)
        Per-component offsets (log weights), nats.
    w : ndarray (n,)
    log_resp : ndarray (n, K)
        Output.
    lse : ndarray (n,)
        Output: log-likelihood of each row's observed entries.
    nk, sx, sxx : ndarray (K,), (K, D), (K, D)
        Added to (shifted moments, diagonal).

    Raises
    ------
    ValueError
        Wrong shapes or dtypes.
    """
    n, D = X.shape
    K = means_c.shape[0]
    for name, arr, shape in (("X", X, (n, D)), ("shift", shift, (D,)),
                             ("means_c", means_c, (K, D)), ("prec", prec, (K, D)),
                             ("log_pc", log_pc, (K, D)), ("const", const, (K,)), ("w", w, (n,)),
                             ("log_resp", log_resp, (n, K)), ("lse", lse, (n,)),
                             ("nk", nk, (K,)), ("sx", sx, (K, D)), ("sxx", sxx, (K, D))):
        if not (isinstance(arr, np.ndarray) and arr.dtype == np.float64 and arr.shape == shape
                and arr.flags.c_contiguous):
            raise ValueError(f"{name} must be a C-contiguous float64 array of shape {shape}, "
                             f"got {getattr(arr, 'dtype', None)} {getattr(arr, 'shape', None)}.")
    _missing_rows_diag_kernel(X, shift, means_c, prec, log_pc, const, w, log_resp, lse, nk, sx,
                              sxx)
