"""numba kernels of the Gaussian block (:mod:`latentkit.distributions._gaussian`).

One fused pass per E-step of a Gaussian mixture: for every row, the log densities of all
components through the Cholesky factors of their precisions, the log-sum-exp, the
responsibilities, and the accumulation of the sufficient statistics ``(N_k, sum r x,
sum r x x^T)`` -- nothing of size (n, K) or (n, K D) is materialised.

Why not BLAS: the products are small (D x D per component), so a BLAS call per chunk of rows
spends its time in call overhead and, worse, in synchronising OpenBLAS's thread pool with
numba's (two pools spinning on the same cores): on a busy 2-core machine that made a
BLAS-chunked E-step 5-10x slower than the same code single-threaded. Here numba alone runs the
threads: ``prange`` over a fixed number of row blocks, each block processing tiles of
``TILE`` rows held transposed (D x TILE), so the inner loops run over the tile's rows
(contiguous, vectorised) and the triangular structure of ``U_k`` halves the work
(``D (D + 1) / 2`` multiply-adds per row and component for the projection and again for the
second moments). Each block accumulates into its own slot of the outputs; the caller sums the
slots in index order, so results do not depend on the number of threads.

:func:`mixture_estep_full_gemm` is the exception, used by the full-covariance E-step of
:func:`latentkit.distributions.gaussian_mixture_e_step`: there the projections and the second
moments are single-threaded BLAS GEMMs over all K components at once (``D x K D``, large enough
that BLAS wins; numba's ``np.dot``), called from numba's threads over row partitions fixed by
the data size, with a serial element-wise middle (norms, log-sum-exp, responsibilities,
``r (x - c)``). No Python (no GIL) runs inside the E-step, so it scales past a few threads.

Imports only numpy, math and numba (DESIGN.md section 4). Oracles:
:mod:`latentkit.testing._oracles_gaussian`.
"""

import math

import numpy as np

from ._jit import jit, prange

__all__ = ["TILE", "mixture_estep_full", "mixture_estep_diag", "mixture_estep_full_gemm", "n_blocks_for"]

#: Rows per tile of the full-covariance kernel (16 measured fastest of 8/16/32 for D=16).
TILE = 16


@jit(parallel=True)
def _estep_full_kernel(X, shift, U, bvec, const, w, nk_b, sx_b, sxx_b, lse, log_resp,
                       store_log_resp):
    n, D = X.shape
    K = const.shape[0]
    n_blocks = nk_b.shape[0]
    n_tiles = (n + TILE - 1) // TILE
    per_block = (n_tiles + n_blocks - 1) // n_blocks
    for t in prange(n_blocks):
        xt = np.zeros((D, TILE))
        acc = np.empty(TILE)
        sq = np.empty(TILE)
        lr = np.empty((K, TILE))
        rw = np.empty((K, TILE))
        rx = np.empty(TILE)
        wt = np.empty(TILE)
        for tile in range(t * per_block, min(n_tiles, (t + 1) * per_block)):
            i0 = tile * TILE
            m = min(TILE, n - i0)
            for r in range(TILE):
                if r < m:
                    wt[r] = w[i0 + r]
                    for a in range(D):
                        xt[a, r] = X[i0 + r, a] - shift[a]
                else:
                    wt[r] = 0.0
                    for a in range(D):
                        xt[a, r] = 0.0
            # log rho_k = const_k - 0.5 ||(x - c) U_k - (mu_k - c) U_k||^2, U_k upper triangular
            for k in range(K):
                for r in range(TILE):
                    sq[r] = 0.0
                for j in range(D):
                    bj = bvec[k, j]
                    for r in range(TILE):
                        acc[r] = -bj
                    for a in range(j + 1):
                        u = U[k, a, j]
                        for r in range(TILE):
                            acc[r] += u * xt[a, r]
                    for r in range(TILE):
                        sq[r] += acc[r] * acc[r]
                ck = const[k]
                for r in range(TILE):
                    lr[k, r] = ck - 0.5 * sq[r]
            # log-sum-exp and weighted responsibilities
            for r in range(TILE):
                amax = -np.inf
                for k in range(K):
                    if lr[k, r] > amax:
                        amax = lr[k, r]
                if not math.isfinite(amax):
                    amax = 0.0
                s = 0.0
                for k in range(K):
                    s += math.exp(lr[k, r] - amax)
                ls = math.log(s) + amax
                if r < m:
                    lse[i0 + r] = ls
                for k in range(K):
                    v = lr[k, r] - ls
                    if store_log_resp and r < m:
                        log_resp[i0 + r, k] = v
                    rw[k, r] = math.exp(v) * wt[r]
            # statistics: N_k, sum r (x - c), upper triangle of sum r (x - c)(x - c)^T
            for k in range(K):
                s = 0.0
                for r in range(TILE):
                    s += rw[k, r]
                nk_b[t, k] += s
                for a in range(D):
                    for r in range(TILE):
                        rx[r] = rw[k, r] * xt[a, r]
                    s = 0.0
                    for r in range(TILE):
                        s += rx[r]
                    sx_b[t, k, a] += s
                    for j in range(a, D):
                        s = 0.0
                        for r in range(TILE):
                            s += rx[r] * xt[j, r]
                        sxx_b[t, k, a, j] += s


@jit(parallel=True)
def _estep_diag_kernel(X, shift, means_c, prec, const, w, nk_b, sx_b, sxx_b, lse, log_resp,
                       store_log_resp):
    n = X.shape[0]
    n_blocks = nk_b.shape[0]
    per_block = (n + n_blocks - 1) // n_blocks
    for t in prange(n_blocks):
        _diag_block(X, shift, means_c, prec, const, w, t * per_block,
                    min(n, (t + 1) * per_block), nk_b[t], sx_b[t], sxx_b[t], lse, log_resp,
                    store_log_resp)


@jit
def _diag_block(X, shift, means_c, prec, const, w, i0, i1, nk, sx, sxx, lse, log_resp,
                store_log_resp):
    """Rows ``i0:i1`` of :func:`mixture_estep_diag` (one block, adding to its slots ``nk``,
    ``sx``, ``sxx``), serial: the whole ``prange`` body of :func:`_estep_diag_kernel` is
    this one call (compile time, ``benchmarks/bench_cold_start.py``), and few rows call it
    without the parallel kernel."""
    D = X.shape[1]
    K = const.shape[0]
    xc = np.empty(D)
    lr = np.empty(K)
    for i in range(i0, i1):
        for a in range(D):
            xc[a] = X[i, a] - shift[a]
        amax = -np.inf
        for k in range(K):
            s = 0.0
            for a in range(D):
                d = xc[a] - means_c[k, a]
                s += d * d * prec[k, a]
            v = const[k] - 0.5 * s
            lr[k] = v
            if v > amax:
                amax = v
        if not math.isfinite(amax):
            amax = 0.0
        s = 0.0
        for k in range(K):
            s += math.exp(lr[k] - amax)
        ls = math.log(s) + amax
        lse[i] = ls
        for k in range(K):
            v = lr[k] - ls
            if store_log_resp:
                log_resp[i, k] = v
            r = math.exp(v) * w[i]
            nk[k] += r
            for a in range(D):
                c = r * xc[a]
                sx[k, a] += c
                sxx[k, a] += c * xc[a]


#: Rows up to which :func:`mixture_estep_diag` runs its blocks one after the other from
#: Python instead of compiling and starting the parallel kernel (same blocks, same results).
DIAG_SERIAL_ROWS = 4096


def n_blocks_for(n, n_components, n_features, full=True, budget_bytes=32 << 20):
    """Number of row blocks (parallel work items): at most 64, at least 1, and few enough that
    the per-block second-moment slots fit in ``budget_bytes``. Depends only on the shapes, never
    on the thread count (so results are reproducible on any machine)."""
    per = 8 * n_components * (n_features * n_features if full else n_features) + 1
    units = (n + TILE - 1) // TILE if full else n
    return int(max(1, min(64, units, budget_bytes // per)))


def _check(name, arr, shape):
    if not (isinstance(arr, np.ndarray) and arr.dtype == np.float64 and arr.shape == shape
            and arr.flags.c_contiguous):
        got = (getattr(arr, "dtype", type(arr).__name__), getattr(arr, "shape", None))
        raise ValueError(
            f"{name} must be a C-contiguous float64 array of shape {shape}, got {got}.")


def _check_common(X, shift, const, w, nk_b, sx_b, lse, log_resp):
    if not (isinstance(X, np.ndarray) and X.ndim == 2):
        raise ValueError("X must be a 2-D array.")
    n, D = X.shape
    K = const.shape[0]
    T = nk_b.shape[0]
    _check("X", X, (n, D))
    _check("shift", shift, (D,))
    _check("const", const, (K,))
    _check("w", w, (n,))
    _check("nk_b", nk_b, (T, K))
    _check("sx_b", sx_b, (T, K, D))
    _check("lse", lse, (n,))
    if log_resp is not None:
        _check("log_resp", log_resp, (n, K))
    return n, D, K, T


def mixture_estep_full(X, shift, U, bvec, const, w, nk_b, sx_b, sxx_b, lse, log_resp=None):
    """Fused E-step of a full-covariance Gaussian mixture (tied: pass U broadcast to K).

    For every row ``i`` and component ``k``: ``log rho_ik = const_k - 0.5 ||(x_i - c) U_k -
    bvec_k||^2``; ``lse_i = log sum_k rho_ik``; ``r_ik = w_i rho_ik / exp(lse_i)``. Block
    ``t`` of rows adds ``sum r_ik`` to ``nk_b[t, k]``, ``sum r_ik (x_i - c)`` to
    ``sx_b[t, k]`` and the **upper triangle** of ``sum r_ik (x_i - c)(x_i - c)^T`` to
    ``sxx_b[t, k]`` (the lower triangle is left untouched).

    Parameters
    ----------
    X : ndarray of shape (n, D), float64, C-contiguous
    shift : ndarray of shape (D,)
        ``c``.
    U : ndarray of shape (K, D, D)
        Upper-triangular Cholesky factors of the precisions (only the upper triangle is read).
    bvec : ndarray of shape (K, D)
        ``(mu_k - c) U_k``.
    const : ndarray of shape (K,)
        ``log pi_k + log det U_k - D/2 log(2 pi)`` (nats).
    w : ndarray of shape (n,)
        Sample weights.
    nk_b, sx_b, sxx_b : ndarray of shapes (T, K), (T, K, D), (T, K, D, D)
        Per-block accumulators (added to; T from :func:`n_blocks_for`).
    lse : ndarray of shape (n,)
        Output: per-row log normaliser (nats).
    log_resp : ndarray of shape (n, K), optional
        Output: log-responsibilities.

    Raises
    ------
    ValueError
        Wrong shapes, dtypes or layouts.

    Source: Bishop (2006) eqs. (9.23)-(9.27).
    """
    n, D, K, T = _check_common(X, shift, const, w, nk_b, sx_b, lse, log_resp)
    _check("U", U, (K, D, D))
    _check("bvec", bvec, (K, D))
    _check("sxx_b", sxx_b, (T, K, D, D))
    store = log_resp is not None
    _estep_full_kernel(X, shift, U, bvec, const, w, nk_b, sx_b, sxx_b, lse,
                       log_resp if store else np.empty((1, 1)), store)


def mixture_estep_diag(X, shift, means_c, prec, const, w, nk_b, sx_b, sxx_b, lse,
                       log_resp=None):
    """Fused E-step of a diagonal (or spherical, ``prec`` repeated) Gaussian mixture.

    ``log rho_ik = const_k - 0.5 sum_a prec_ka ((x_ia - c_a) - means_c_ka)^2``; statistics as
    :func:`mixture_estep_full` with ``sxx_b[t, k, a] += sum r_ik (x_ia - c_a)^2`` (diagonal).

    Parameters
    ----------
    X : ndarray of shape (n, D), float64, C-contiguous
    shift : ndarray of shape (D,)
    means_c : ndarray of shape (K, D)
        ``mu_k - c``.
    prec : ndarray of shape (K, D)
        Precisions (inverse variances).
    const : ndarray of shape (K,)
    w : ndarray of shape (n,)
    nk_b, sx_b, sxx_b : ndarray of shapes (T, K), (T, K, D), (T, K, D)
    lse : ndarray of shape (n,)
    log_resp : ndarray of shape (n, K), optional

    Raises
    ------
    ValueError
        Wrong shapes, dtypes or layouts.
    """
    n, D, K, T = _check_common(X, shift, const, w, nk_b, sx_b, lse, log_resp)
    _check("means_c", means_c, (K, D))
    _check("prec", prec, (K, D))
    _check("sxx_b", sxx_b, (T, K, D))
    store = log_resp is not None
    log_resp = log_resp if store else np.empty((1, 1))
    if n <= DIAG_SERIAL_ROWS:
        per_block = (n + T - 1) // T
        for t in range(T):
            _diag_block(X, shift, means_c, prec, const, w, t * per_block,
                        min(n, (t + 1) * per_block), nk_b[t], sx_b[t], sxx_b[t], lse, log_resp,
                        store)
        return
    _estep_diag_kernel(X, shift, means_c, prec, const, w, nk_b, sx_b, sxx_b, lse, log_resp,
                       store)


@jit
def _rows_full(Y, bcat, const, w, Xc, lse, resp, Z, nk, log_resp, store_log_resp, B, scratch):
    """Element-wise middle of one chunk of :func:`mixture_estep_full_gemm` (rows ``:B``)."""
    D = Xc.shape[1]
    K = const.shape[0]
    lr = scratch[0]
    ex = scratch[1]
    for i in range(B):
        amax = -np.inf
        for k in range(K):
            s = 0.0
            for a in range(D):
                v = Y[i, k * D + a] - bcat[k * D + a]
                s += v * v
            lr[k] = const[k] - 0.5 * s
            amax = max(amax, lr[k])
        if not math.isfinite(amax):
            amax = 0.0
        # Two loops, not one: a loop that both stores and reduces is vectorised behind a
        # run-time aliasing check of the scratch addresses, and its scalar fallback sums in
        # another order -- results would then depend on which thread's buffers a chunk got.
        for k in range(K):
            ex[k] = math.exp(lr[k] - amax)
        s = 0.0
        for k in range(K):
            s += ex[k]
        ls = math.log(s) + amax
        lse[i] = ls
        ws = w[i] / s  # r_ik = w_i exp(lr_k - amax) / s: one exp per row and component
        for k in range(K):
            if store_log_resp:
                log_resp[i, k] = lr[k] - ls
            r = ex[k] * ws
            resp[i, k] = r
            nk[k] += r
            for a in range(D):
                Z[i, k * D + a] = r * Xc[i, a]


@jit
def _partition_full_gemm(X, shift, ucat, bcat, const, w, lo, hi, chunk, nk, sx, sxx, lse,
                         log_resp, store_log_resp):
    """Rows ``lo:hi`` of :func:`mixture_estep_full_gemm` (one partition), serial.

    Kept out of the ``prange`` body of :func:`_estep_full_gemm_kernel` so that numba's parfor
    passes see one call instead of the GEMMs and loops: the parallel kernel compiled in 12 s
    with this body inlined (``benchmarks/bench_cold_start.py``), in a fraction of it now."""
    D = X.shape[1]
    K = const.shape[0]
    Xc = np.empty((chunk, D))
    Y = np.empty((chunk, K * D))
    Z = np.empty((chunk, K * D))
    R = np.empty((chunk, K))
    T1 = np.empty((D, K * D))
    T2 = np.empty((K, D))
    scratch = np.empty((2, K))
    for a in range(lo, hi, chunk):
        B = min(hi, a + chunk) - a
        if B < chunk:  # last chunk of the partition: zero rows add nothing to the GEMMs
            Xc[:, :] = 0.0
            R[:, :] = 0.0
            Z[:, :] = 0.0
        for i in range(B):
            for d in range(D):
                Xc[i, d] = X[a + i, d] - shift[d]
        np.dot(Xc, ucat, Y)
        _rows_full(Y, bcat, const, w[a:], Xc, lse[a:], R, Z, nk,
                   log_resp[a:], store_log_resp, B, scratch)
        np.dot(R.T, Xc, T2)
        np.dot(Xc.T, Z, T1)
        for k in range(K):
            for d in range(D):
                sx[k, d] += T2[k, d]
        for d in range(D):
            for j in range(K * D):
                sxx[d, j] += T1[d, j]


@jit(parallel=True)
def _estep_full_gemm_kernel(X, shift, ucat, bcat, const, w, edges, chunk, nk_p, sx_p, sxx_p,
                            lse, log_resp, store_log_resp):
    for p in prange(edges.shape[0] - 1):
        _partition_full_gemm(X, shift, ucat, bcat, const, w, edges[p], edges[p + 1], chunk,
                             nk_p[p], sx_p[p], sxx_p[p], lse, log_resp, store_log_resp)


def mixture_estep_full_gemm(X, shift, ucat, bcat, const, w, edges, chunk, nk_p, sx_p, sxx_p,
                            lse, log_resp=None):
    """Full-covariance Gaussian-mixture E-step as BLAS GEMMs, parallel over row partitions.

    Partition ``p`` (rows ``edges[p]:edges[p + 1]``) is processed in chunks of ``chunk`` rows:
    ``Y = (X - c) [U_1 ... U_K]`` (one GEMM for all K projections), then for every row ``i``
    and component ``k``: ``log rho_ik = const_k - 0.5 ||Y_i,k - bcat_k||^2``, ``lse_i = log
    sum_k rho_ik``, ``r_ik = w_i rho_ik / exp(lse_i)``, ``Z_i,k = r_ik (x_i - c)``; then
    ``sx_p[p] += R^T (X - c)`` and ``sxx_p[p] += (X - c)^T Z`` (one GEMM for all K second
    moments, stored ``(D, K D)``). ``prange`` runs over the partitions; each writes only its
    own slot, and every operation inside a partition is independent of the thread that runs
    it (BLAS must be limited to one thread by the caller), so with partitions fixed by the data
    size the caller's index-order sum is bit-identical for any number of threads.

    Parameters
    ----------
    X : ndarray of shape (n, D), float64, C-contiguous
    shift : ndarray of shape (D,)
        ``c``.
    ucat : ndarray of shape (D, K D)
        ``[U_1 ... U_K]``, the upper-triangular Cholesky factors of the precisions side by side.
    bcat : ndarray of shape (K D,)
        ``(mu_k - c) U_k`` stacked.
    const : ndarray of shape (K,)
        ``log pi_k + log det U_k - D/2 log(2 pi)`` (nats).
    w : ndarray of shape (n,)
        Sample weights.
    edges : ndarray of shape (P + 1,), int64
        Partition boundaries, ``0 = edges[0] <= ... <= edges[P] = n``.
    chunk : int
        Rows per GEMM (>= 1).
    nk_p, sx_p, sxx_p : ndarray of shapes (P, K), (P, K, D), (P, D, K D)
        Per-partition accumulators (added to).
    lse : ndarray of shape (n,)
        Output: per-row log normaliser (nats).
    log_resp : ndarray of shape (n, K), optional
        Output: log-responsibilities.

    Raises
    ------
    ValueError
        Wrong shapes, dtypes or layouts, or edges that do not partition ``0..n``.

    Source: Bishop (2006) eqs. (9.23), (9.26)-(9.27).
    """
    if not (isinstance(X, np.ndarray) and X.ndim == 2):
        raise ValueError("X must be a 2-D array.")
    n, D = X.shape
    K = const.shape[0]
    edges = np.asarray(edges)
    P = edges.shape[0] - 1
    if (edges.dtype != np.int64 or P < 1 or edges[0] != 0 or edges[-1] != n
            or np.any(np.diff(edges) < 0)):
        raise ValueError(f"edges must be a non-decreasing int64 array from 0 to n={n}, "
                         f"got {edges!r}.")
    if int(chunk) < 1:
        raise ValueError(f"chunk must be a positive integer, got {chunk!r}.")
    _check("X", X, (n, D))
    _check("shift", shift, (D,))
    _check("ucat", ucat, (D, K * D))
    _check("bcat", bcat, (K * D,))
    _check("const", const, (K,))
    _check("w", w, (n,))
    _check("nk_p", nk_p, (P, K))
    _check("sx_p", sx_p, (P, K, D))
    _check("sxx_p", sxx_p, (P, D, K * D))
    _check("lse", lse, (n,))
    store = log_resp is not None
    if store:
        _check("log_resp", log_resp, (n, K))
    log_resp = log_resp if store else np.empty((1, K))
    if P == 1:  # one partition (n <= 4096 rows from the model): the same serial function,
        # called without the parallel kernel, whose compilation (4-5 s) never pays here
        _partition_full_gemm(X, shift, ucat, bcat, const, w, 0, n, int(chunk), nk_p[0], sx_p[0],
                             sxx_p[0], lse, log_resp, store)
        return
    _estep_full_gemm_kernel(X, shift, ucat, bcat, const, w, edges, int(chunk), nk_p, sx_p,
                            sxx_p, lse, log_resp, store)
