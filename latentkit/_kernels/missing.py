"""numba kernels of the missing-data Gaussian block (:mod:`latentkit.distributions._missing`).

:func:`missing_full_parallel` is the full/tied E-step with missing entries. Its input is the
rows grouped by missing pattern, shifted, with zeros at the missing coordinates: a contiguous
copy made once by :func:`pattern_sorted_rows` (and kept by a fit between iterations), so each
chunk streams memory instead of gathering rows scattered over ``X``. The rows are cut into
partitions fixed by their number; ``prange`` runs over the partitions. Inside one, chunks of
rows: ``Y = x0 [Lambda_1 ... Lambda_K]`` (one single-threaded BLAS GEMM of the size of the
complete-data E-step's), then per row the middle: for each pattern met, the ``q x q`` blocks
``Lambda_k,mm`` of the precisions factorised once (Cholesky, ``C_k = Lambda_k,mm^{-1}``, the
conditional covariance); for each row and component ``v = Y_k - (mu_k - shift) Lambda_k =
Lambda_k (x0 - mu_k)``, whose entries at ``m`` are ``g = Lambda_k,m: (x0 - mu_k)`` (read off,
no product), the conditional mean of the missing entries ``e = -C_k g``, the marginal
Mahalanobis distance ``(x0 - mu_k) . v + e . g``, the marginal log density, log-sum-exp and
responsibilities; then the
second moments as one GEMM ``x0^T [r_1 (x0 + 2 e_1), ..., r_K (x0 + 2 e_K)]`` whose symmetric
part (taken by the caller) is ``sum r (x0 x0^T + x0 e^T + e x0^T)``, so the cross terms cost
``|m|`` writes per row and component instead of ``|m| D`` multiply-adds; only ``sum r e``,
``sum r e e^T`` and ``(sum r) C_k`` are accumulated per pattern.
:func:`missing_diag_parallel` is the fused diag/spherical pass (coordinates independent given
the component), also over partitions. Each partition writes only its own slot of the
accumulators and the caller sums the slots in index order: bit-identical results for any
number of threads.

Imports only numpy, math and numba (DESIGN.md section 4). Oracle:
:mod:`latentkit.testing._oracles_missing` (row by row with scipy).
"""

import math

import numpy as np

from ._jit import jit, prange

__all__ = ["missing_diag_parallel", "missing_full_parallel", "missing_rows_diag",
           "nan_column_stats", "nan_row_keys", "pattern_sorted_rows"]

_LOG_2PI = math.log(2.0 * math.pi)


@jit
def _missing_rows_diag_kernel(X, shift, means_c, prec, log_pc, const, w, log_resp, lse, nk, sx,
                              sxx):
    n, D = X.shape
    K = means_c.shape[0]
    lp = np.zeros(K)
    ex = np.zeros(K)
    xc = np.zeros(D)
    ob = np.zeros(D)  # 1.0 where observed: branch-free (vectorisable) inner loops
    half_log_2pi = 0.5 * _LOG_2PI
    lc = np.empty((K, D))  # per-coordinate log normaliser and moment, hoisted out of the rows
    mm = np.empty((K, D))
    for k in range(K):
        for d in range(D):
            lc[k, d] = log_pc[k, d] - half_log_2pi
            mm[k, d] = means_c[k, d] * means_c[k, d] + 1.0 / prec[k, d]
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
                s += ob[d] * (lc[k, d] - 0.5 * prec[k, d] * z * z)
            lp[k] = s
            if s > best:
                best = s
        # one exp per row and component (the responsibilities reuse the normaliser's terms)
        for k in range(K):
            ex[k] = math.exp(lp[k] - best)
        tot = 0.0
        for k in range(K):
            tot += ex[k]
        ls = best + math.log(tot)
        lse[i] = ls
        for k in range(K):
            log_resp[i, k] = lp[k] - ls
        wt = w[i] / tot
        for k in range(K):
            r = ex[k] * wt
            nk[k] += r
            for d in range(D):
                mu = means_c[k, d]
                u = 1.0 - ob[d]
                sx[k, d] += r * (xc[d] + u * mu)
                sxx[k, d] += r * (xc[d] * xc[d] + u * mm[k, d])


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


@jit
def _pattern_factors(P, m, q, L, W, rd, C, log_det):
    """For each component ``k``: the Cholesky factor ``L`` of ``Lambda_k,mm`` (``q x q``,
    lower), ``W = L^{-1}``, ``C[k] = Lambda_k,mm^{-1} = W^T W`` (top-left ``q x q``) and
    ``log_det[k] = log det L``; ``rd`` holds ``1 / diag(L)`` (one division per pivot)."""
    K = P.shape[0]
    for k in range(K):
        ld = 0.0
        for a in range(q):
            for b in range(a + 1):
                s = P[k, m[a], m[b]]
                for c in range(b):
                    s -= L[a, c] * L[b, c]
                if a == b:
                    L[a, a] = math.sqrt(s)
                    rd[a] = 1.0 / L[a, a]
                    ld += math.log(L[a, a])
                else:
                    L[a, b] = s * rd[b]
        log_det[k] = ld
        for j in range(q):  # W = L^{-1}, lower, column by column
            W[j, j] = rd[j]
            for a in range(j + 1, q):
                s = 0.0
                for c in range(j, a):
                    s -= L[a, c] * W[c, j]
                W[a, j] = s * rd[a]
        for a in range(q):  # C = W^T W
            for b in range(a + 1):
                s = 0.0
                for c in range(a, q):
                    s += W[c, a] * W[c, b]
                C[k, a, b] = s
                C[k, b, a] = s


@jit
def _flush_pattern(m, q, mass, acc_x, acc_ee, C, sxc, sxxc):
    """Scatter one pattern's accumulators onto its missing coordinates and zero them: ``sum r
    e`` and ``sum r e e^T + (sum r) C`` (the cross terms ``x0 e^T`` went through the GEMM)."""
    K = sxc.shape[0]
    for k in range(K):
        for a in range(q):
            sxc[k, m[a]] += acc_x[k, a]
            acc_x[k, a] = 0.0
            for b in range(q):
                sxxc[k, m[a], m[b]] += acc_ee[k, a, b] + mass[k] * C[k, a, b]
                acc_ee[k, a, b] = 0.0
        mass[k] = 0.0


@jit
def _missing_full_partition(Xs, ws, pat, miss, n_miss, lo, hi, chunk, pcat, hcat, means_c, P,
                            const, tied, lse, log_resp, store, nk, sx, sxx, sxc, sxxc):
    """Rows ``lo:hi`` of :func:`missing_full_parallel` (one partition), serial, adding to that
    partition's accumulators ``nk, sx, sxx, sxc, sxxc``.

    Kept out of the ``prange`` body so that numba's parfor passes see one call instead of the
    GEMMs and loops: the parallel kernel with this body inlined compiled in 13 s of CPU
    (``benchmarks/bench_cold_start.py``); and one partition calls it without any parallel
    kernel."""
    D = Xs.shape[1]
    K = const.shape[0]
    KD = sxx.shape[1]
    # separate allocations (not views of one scratch buffer): LLVM then knows they do not
    # alias and vectorises the loops over d
    Y = np.empty((chunk, K * D))
    Z = np.empty((chunk, KD))
    R = np.empty((chunk, K))
    T1 = np.empty((D, KD))
    T2 = np.empty((K, D))
    L = np.zeros((D, D))
    W = np.zeros((D, D))
    rd = np.zeros(D)
    C = np.zeros((K, D, D))
    log_det = np.zeros(K)
    g = np.zeros(D)
    e = np.zeros((K, D))
    lp = np.zeros(K)
    ex = np.zeros(K)
    mass = np.zeros(K)
    acc_x = np.zeros((K, D))
    acc_ee = np.zeros((K, D, D))
    cur = -1
    q = np.int64(0)   # not a literal 0: one signature of _flush_pattern
    m = miss[0]
    for a0 in range(lo, hi, chunk):
        B = min(hi, a0 + chunk) - a0
        Xv = Xs[a0:a0 + B]
        Yv, Zv, Rv = Y[:B], Z[:B], R[:B]
        np.dot(Xv, pcat, Yv)
        for i in range(B):
            pi = pat[a0 + i]
            if pi != cur:  # rows are sorted by pattern: a new pattern starts here
                if cur >= 0:
                    _flush_pattern(m, q, mass, acc_x, acc_ee, C, sxc, sxxc)
                cur = pi
                q = n_miss[pi]
                m = miss[pi]
                _pattern_factors(P, m, q, L, W, rd, C, log_det)
            best = -np.inf
            for k in range(K):
                # Y_k - h_k = Lambda_k (x0 - mu_k): the Mahalanobis distance is its dot
                # with x0 - mu_k, and g = Lambda_k,m: (x0 - mu_k) is read off at m
                ss = 0.0
                for d in range(D):
                    ss += (Xv[i, d] - means_c[k, d]) * (Y[i, k * D + d] - hcat[k * D + d])
                lpk = const[k] - 0.5 * ss
                if q > 0:
                    for a in range(q):
                        g[a] = Y[i, k * D + m[a]] - hcat[k * D + m[a]]
                    for a in range(q):
                        s = 0.0
                        for b in range(q):
                            s -= C[k, a, b] * g[b]
                        e[k, a] = s
                    eg = 0.0
                    for a in range(q):
                        eg += e[k, a] * g[a]
                    lpk += 0.5 * q * _LOG_2PI - log_det[k] - 0.5 * eg
                lp[k] = lpk
                best = max(best, lpk)
            for k in range(K):
                ex[k] = math.exp(lp[k] - best)
            tot = 0.0
            for k in range(K):
                tot += ex[k]
            ls = best + math.log(tot)
            lse[a0 + i] = ls
            wt = ws[a0 + i] / tot
            if store:
                for k in range(K):
                    log_resp[a0 + i, k] = lp[k] - ls
            for k in range(K):
                r = ex[k] * wt
                R[i, k] = r
                nk[k] += r
                mass[k] += r
            if tied:
                rs = 0.0
                for k in range(K):
                    rs += R[i, k]
                for d in range(D):
                    Z[i, d] = rs * Xv[i, d]
            for k in range(K):
                r = R[i, k]
                off = 0 if tied else k * D
                if not tied:
                    for d in range(D):
                        Z[i, off + d] = r * Xv[i, d]
                # Z = r (x0 + 2 e) on the missing coordinates (x0 is 0 there): the GEMM
                # gives x0 x0^T + 2 x0 e^T, whose symmetric part, taken by the caller, is
                # x0 x0^T + x0 e^T + e x0^T
                for a in range(q):
                    re = r * e[k, a]
                    Z[i, off + m[a]] += 2.0 * re
                    acc_x[k, a] += re
                    for b in range(q):
                        acc_ee[k, a, b] += re * e[k, b]
        np.dot(Rv.T, Xv, T2)
        np.dot(Xv.T, Zv, T1)
        for k in range(K):
            for d in range(D):
                sx[k, d] += T2[k, d]
        for d in range(D):
            for j in range(KD):
                sxx[d, j] += T1[d, j]
    if cur >= 0:
        _flush_pattern(m, q, mass, acc_x, acc_ee, C, sxc, sxxc)


@jit(parallel=True)
def _missing_full_parallel_kernel(Xs, ws, pat, miss, n_miss, edges, chunk, pcat, hcat, means_c, P,
                                  const, tied, lse, log_resp, store, nk_p, sx_p, sxx_p, sxc_p,
                                  sxxc_p):
    for p in prange(edges.shape[0] - 1):
        _missing_full_partition(Xs, ws, pat, miss, n_miss, edges[p], edges[p + 1], chunk, pcat,
                                hcat, means_c, P, const, tied, lse, log_resp, store, nk_p[p],
                                sx_p[p], sxx_p[p], sxc_p[p], sxxc_p[p])


def missing_full_parallel(Xs, ws, pat, miss, n_miss, edges, chunk, pcat, hcat, means_c, P, const,
                          tied, lse, log_resp, nk_p, sx_p, sxx_p, sxc_p, sxxc_p):
    """Full/tied-covariance E-step with missing entries, parallel over row partitions.

    The rows come grouped by missing pattern, shifted, with zeros at the missing entries
    (:func:`pattern_sorted_rows`: a contiguous copy, so every chunk streams memory). They are
    cut into the partitions ``edges`` (fixed by the number of rows only); ``prange`` runs over
    the partitions, each writes only its own slot of the accumulators, and BLAS must be limited
    to one thread by the caller, so the caller's index-order sum of the slots is bit-identical
    for any number of threads. Inside a partition, chunks of ``chunk`` rows: ``Y = x0
    [Lambda_1 ... Lambda_K]`` (one GEMM); per row and component ``v = Y_k - h_k = Lambda_k (x0
    - mu_k)``, ``g = v[m]``, the conditional mean of the missing entries ``e = -C_k g`` with
    ``C_k = Lambda_k,mm^{-1}`` (factorised once per pattern and partition), the marginal log
    density ``const_k + |m|/2 log(2 pi) - log det chol(Lambda_k,mm) - ((x0 - mu_k) . v + e .
    g) / 2``, the
    log-sum-exp and responsibilities; then ``R^T x0`` and ``x0^T [r_1 (x0 + 2 e_1), ..., r_K
    (x0 + 2 e_K)]`` (full; tied: ``x0^T sum_k r_k (x0 + 2 e_k)``) as GEMMs, whose symmetric
    part is ``sum r (x0 x0^T + x0 e^T + e x0^T)``; ``sum r e`` and ``sum r e e^T + (sum r) C_k``
    are accumulated per pattern on its missing coordinates.

    Parameters
    ----------
    Xs : ndarray (n, D), float64
        Rows in pattern order, minus the shift, 0 at the missing entries.
    ws : ndarray (n,)
        Sample weights in the same order.
    pat : ndarray (n,), int64
        Pattern of each row of ``Xs`` (non-decreasing).
    miss, n_miss : ndarray (n_patterns, D), (n_patterns,), int64
        Missing coordinates (ascending, padded) and their number (0 for complete rows).
    edges : ndarray (n_parts + 1,), int64
        Partition boundaries.
    chunk : int
        Rows per GEMM.
    pcat : ndarray (D, K D)
        ``[Lambda_1 ... Lambda_K]``, the precisions side by side.
    hcat : ndarray (K D,)
        ``(mu_k - shift) Lambda_k`` stacked.
    means_c : ndarray (K, D)
        ``mu_k - shift``.
    P : ndarray (K, D, D)
        The precisions ``Lambda_k`` (their ``m x m`` blocks are factorised per pattern).
    const : ndarray (K,)
        ``log_weights_k + log det U_k - D/2 log(2 pi)`` (nats).
    tied : bool
        Second moments summed over components (``sxx_p`` of shape (n_parts, D, D)).
    lse : ndarray (n,)
        Output (order of ``Xs``): log-likelihood of each row's observed entries, nats.
    log_resp : ndarray (n, K) or None
        Output (order of ``Xs``): log-responsibilities; not computed when None.
    nk_p, sx_p : ndarray (n_parts, K), (n_parts, K, D)
        Added to: per-partition ``sum w r`` and ``sum w r x0``.
    sxx_p : ndarray (n_parts, D, K D) or (n_parts, D, D) (tied)
        Added to: per-partition ``x0^T Z`` (not yet symmetrised).
    sxc_p, sxxc_p : ndarray (n_parts, K, D), (n_parts, K, D, D)
        Added to: per-partition ``sum r e`` and ``sum r e e^T + (sum r) C`` on the missing
        coordinates.

    Raises
    ------
    ValueError
        Wrong shapes, dtypes or layouts.

    Source: Ghahramani & Jordan (1994) section 3; Bishop (2006) eqs. (2.73)-(2.75).
    """
    n, D = Xs.shape
    K = const.shape[0]
    n_parts = edges.shape[0] - 1
    n_pat = n_miss.shape[0]
    KD = D if tied else K * D
    shapes = [("Xs", Xs, (n, D), np.float64), ("ws", ws, (n,), np.float64),
              ("pat", pat, (n,), np.int64), ("miss", miss, (n_pat, D), np.int64),
              ("n_miss", n_miss, (n_pat,), np.int64), ("edges", edges, (n_parts + 1,), np.int64),
              ("pcat", pcat, (D, K * D), np.float64), ("hcat", hcat, (K * D,), np.float64),
              ("means_c", means_c, (K, D), np.float64), ("P", P, (K, D, D), np.float64),
              ("const", const, (K,), np.float64), ("lse", lse, (n,), np.float64),
              ("nk_p", nk_p, (n_parts, K), np.float64),
              ("sx_p", sx_p, (n_parts, K, D), np.float64),
              ("sxx_p", sxx_p, (n_parts, D, KD), np.float64),
              ("sxc_p", sxc_p, (n_parts, K, D), np.float64),
              ("sxxc_p", sxxc_p, (n_parts, K, D, D), np.float64)]
    if log_resp is not None:
        shapes.append(("log_resp", log_resp, (n, K), np.float64))
    _check_arrays(shapes)
    if n_parts < 1 or edges[0] != 0 or edges[-1] != n or np.any(np.diff(edges) < 0):
        raise ValueError(f"edges must be non-decreasing from 0 to n={n}, got {edges!r}.")
    if int(chunk) < 1:
        raise ValueError(f"chunk must be a positive integer, got {chunk!r}.")
    store = log_resp is not None
    log_resp = log_resp if store else np.empty((1, K))
    if n_parts == 1:  # the serial function without the parallel kernel (its compilation
        # never pays for one partition)
        _missing_full_partition(Xs, ws, pat, miss, n_miss, 0, n, int(chunk), pcat, hcat,
                                means_c, P, const, bool(tied), lse, log_resp, store, nk_p[0],
                                sx_p[0], sxx_p[0], sxc_p[0], sxxc_p[0])
        return
    _missing_full_parallel_kernel(Xs, ws, pat, miss, n_miss, edges, int(chunk), pcat, hcat,
                                  means_c, P, const, bool(tied), lse, log_resp, store, nk_p,
                                  sx_p, sxx_p, sxc_p, sxxc_p)


def _check_arrays(specs):
    """Raise ``ValueError`` unless each ``(name, array, shape, dtype)`` is a C-contiguous
    ndarray of that shape and dtype."""
    for name, arr, shape, dt in specs:
        if not (isinstance(arr, np.ndarray) and arr.dtype == dt and arr.shape == shape
                and arr.flags.c_contiguous):
            raise ValueError(f"{name} must be a C-contiguous {np.dtype(dt).name} array of shape "
                             f"{shape}, got {getattr(arr, 'dtype', None)} "
                             f"{getattr(arr, 'shape', None)}.")


def pattern_sorted_rows(X, order, shift, w):
    """The rows of ``X`` in the order ``order``, minus ``shift``, with 0 at the NaN entries,
    and the weights in the same order (the input of :func:`missing_full_parallel`).

    Parameters
    ----------
    X : ndarray (n, D), float64, C-contiguous
        NaN marks a missing entry.
    order : ndarray (n,), int64
        A permutation of ``range(n)``.
    shift : ndarray (D,), float64
    w : ndarray (n,), float64

    Returns
    -------
    Xs : ndarray (n, D)
    ws : ndarray (n,)

    Raises
    ------
    ValueError
        Wrong shapes, dtypes or layouts, or ``order`` out of range.
    """
    if not (isinstance(X, np.ndarray) and X.ndim == 2):
        raise ValueError("X must be a 2-D array.")
    n, D = X.shape
    _check_arrays((("X", X, (n, D), np.float64), ("order", order, (n,), np.int64),
                   ("shift", shift, (D,), np.float64), ("w", w, (n,), np.float64)))
    if n and (order.min() < 0 or order.max() >= n):
        raise ValueError(f"order must hold row indices in [0, {n}).")
    # NumPy, not a kernel: one gather per fit (its rows are cached), where a parallel kernel
    # cost 1-1.7 s of compilation on every cold start. Same values: one subtraction each.
    Xs = X[order]
    missing = np.isnan(Xs)
    np.subtract(Xs, shift, out=Xs)
    Xs[missing] = 0.0
    return Xs, w[order]


@jit
def _nan_row_keys_kernel(X, out):
    # serial: a few ms for 10^6 rows, and no wait for numba's threads on a loaded machine
    n, D = X.shape
    for i in range(n):
        key = np.uint64(0)
        for d in range(D):
            if math.isnan(X[i, d]):
                key |= np.uint64(1) << np.uint64(d)
        out[i] = key


def nan_row_keys(X):
    """Missing pattern of each row as bits of one integer (bit ``d`` set: ``X[i, d]`` is NaN).

    Parameters
    ----------
    X : ndarray (n, D), float64, C-contiguous, ``D <= 64``

    Returns
    -------
    ndarray (n,), uint64

    Raises
    ------
    ValueError
        Wrong dtype, layout or more than 64 columns.
    """
    if not (isinstance(X, np.ndarray) and X.ndim == 2 and X.dtype == np.float64
            and X.flags.c_contiguous and X.shape[1] <= 64):
        raise ValueError(f"X must be a C-contiguous float64 array with at most 64 columns, got "
                         f"{getattr(X, 'dtype', None)} {getattr(X, 'shape', None)}.")
    out = np.empty(X.shape[0], dtype=np.uint64)
    _nan_row_keys_kernel(X, out)
    return out


@jit(parallel=True)
def _missing_diag_parallel_kernel(X, shift, means_c, prec, log_pc, const, w, edges, log_resp,
                                  lse, nk_p, sx_p, sxx_p):
    for p in prange(edges.shape[0] - 1):
        a = edges[p]
        b = edges[p + 1]
        _missing_rows_diag_kernel(X[a:b], shift, means_c, prec, log_pc, const, w[a:b],
                                  log_resp[a:b], lse[a:b], nk_p[p], sx_p[p], sxx_p[p])


def missing_diag_parallel(X, shift, means_c, prec, log_pc, const, w, edges, log_resp, lse, nk_p,
                          sx_p, sxx_p):
    """:func:`missing_rows_diag` over the row partitions ``edges`` in parallel (``prange``).

    Partition ``p`` adds only to its own slots ``nk_p[p], sx_p[p], sxx_p[p]`` (shapes
    (P, K), (P, K, D), (P, K, D)); with partitions fixed by the number of rows, the caller's
    index-order sum of the slots is bit-identical for any number of threads. Other arguments
    and errors as :func:`missing_rows_diag`.
    """
    n, D = X.shape
    K = means_c.shape[0]
    n_parts = edges.shape[0] - 1
    if not (isinstance(edges, np.ndarray) and edges.dtype == np.int64 and n_parts >= 1
            and edges[0] == 0 and edges[-1] == n and np.all(np.diff(edges) >= 0)):
        raise ValueError(f"edges must be a non-decreasing int64 array from 0 to n={n}, "
                         f"got {edges!r}.")
    for name, arr, shape in (("X", X, (n, D)), ("shift", shift, (D,)),
                             ("means_c", means_c, (K, D)), ("prec", prec, (K, D)),
                             ("log_pc", log_pc, (K, D)), ("const", const, (K,)), ("w", w, (n,)),
                             ("log_resp", log_resp, (n, K)), ("lse", lse, (n,)),
                             ("nk_p", nk_p, (n_parts, K)), ("sx_p", sx_p, (n_parts, K, D)),
                             ("sxx_p", sxx_p, (n_parts, K, D))):
        if not (isinstance(arr, np.ndarray) and arr.dtype == np.float64 and arr.shape == shape
                and arr.flags.c_contiguous):
            raise ValueError(f"{name} must be a C-contiguous float64 array of shape {shape}, "
                             f"got {getattr(arr, 'dtype', None)} {getattr(arr, 'shape', None)}.")
    _missing_diag_parallel_kernel(X, shift, means_c, prec, log_pc, const, w, edges, log_resp,
                                  lse, nk_p, sx_p, sxx_p)


@jit
def _nan_column_stats_kernel(X, w, col_w, mu, ss, omin, omax):
    n, D = X.shape
    sx = np.zeros(D)
    for i in range(n):
        for d in range(D):
            v = X[i, d]
            if not math.isnan(v):
                col_w[d] += w[i]
                sx[d] += w[i] * v
                omin[d] = min(omin[d], v)
                omax[d] = max(omax[d], v)
    for d in range(D):
        mu[d] = sx[d] / col_w[d] if col_w[d] > 0 else 0.0
    for i in range(n):
        for d in range(D):
            v = X[i, d]
            if not math.isnan(v):
                z = v - mu[d]
                ss[d] += w[i] * z * z


def nan_column_stats(X, w):
    """Per-column statistics of the observed (non-NaN) entries, two passes.

    Parameters
    ----------
    X : ndarray (n, D), float64, C-contiguous
        NaN marks a missing entry.
    w : ndarray (n,), float64
        Row weights.

    Returns
    -------
    col_w : ndarray (D,)
        ``sum_i w_i [x_id observed]``.
    mu : ndarray (D,)
        Weighted mean of the observed entries (0 for a column without any).
    ss : ndarray (D,)
        ``sum_i w_i (x_id - mu_d)^2`` over the observed entries.
    omin, omax : ndarray (D,)
        Smallest and largest observed entry (+inf / -inf for a column without any).

    Raises
    ------
    ValueError
        Wrong shapes, dtypes or layouts.
    """
    if not (isinstance(X, np.ndarray) and X.ndim == 2 and X.dtype == np.float64
            and X.flags.c_contiguous):
        raise ValueError(f"X must be a C-contiguous 2-D float64 array, got "
                         f"{getattr(X, 'dtype', None)} {getattr(X, 'shape', None)}.")
    if not (isinstance(w, np.ndarray) and w.dtype == np.float64 and w.shape == (X.shape[0],)):
        raise ValueError(f"w must be a float64 array of shape ({X.shape[0]},), got "
                         f"{getattr(w, 'dtype', None)} {getattr(w, 'shape', None)}.")
    D = X.shape[1]
    col_w, mu, ss = np.zeros(D), np.zeros(D), np.zeros(D)
    omin, omax = np.full(D, np.inf), np.full(D, -np.inf)
    _nan_column_stats_kernel(X, np.ascontiguousarray(w), col_w, mu, ss, omin, omax)
    return col_w, mu, ss, omin, omax
