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
:func:`latentkit.distributions.gaussian_mixture_e_step`: there the projections are two
single-threaded BLAS GEMMs over all K components at once (``(x - c)[:h] [U_k[:h, :h]]`` and
``(x - c) [U_k[:, h:]]``, ``h = D / 2``: the triangular factors' zero block is skipped;
numba's ``np.dot``), called from numba's threads over row partitions fixed by the data size,
followed by a serial element-wise middle (norms, log-sum-exp, responsibilities, with the
exponentials vectorised by :func:`exp_nonpositive`) and the statistics of all K components,
``sum r [x - c, 1, (x_a x_j)_{a <= j}]``, eight components per pass over the chunk's rows
(:func:`_chunk_moments`; the same sums as a BLAS GEMM ran 2x slower under OpenBLAS's AVX2
kernel). No Python (no GIL) runs inside the E-step, so it scales past a few threads.

Imports only numpy, math and numba (DESIGN.md section 4). Oracles:
:mod:`latentkit.testing._oracles_gaussian`.
"""

import math

import numpy as np

from ._jit import jit, prange

__all__ = ["TILE", "exp_nonpositive", "mixture_estep_full", "mixture_estep_diag",
           "mixture_estep_full_gemm", "n_blocks_for"]

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


#: Cody-Waite split of ln 2 (fdlibm's: ``_LN2_HI`` has 32 trailing zero bits, so
#: ``n * _LN2_HI`` is exact for |n| < 2^11) and 1 / ln 2, for :func:`exp_nonpositive`.
_LN2_HI = 6.93147180369123816490e-01
_LN2_LO = 1.90821492927058770002e-10
_LOG2E = 1.44269504088896338700e+00
#: 2^-600: the power of two is built as 2^(n + 600) (a normal number for every n >= -1076)
#: and scaled back by one multiplication, which rounds once into the subnormal range.
_TWO_M600 = 2.0 ** -600


@jit(fastmath=False)
def exp_nonpositive(x, out, bits):
    """``out[j] = exp(x[j])`` for ``x[j] <= 0`` (or -inf), vectorised: libm's ``exp`` is a
    scalar call per value (numba without SVML), which took a third of the full-covariance
    E-step; this loop runs 8 values per instruction.

    ``x = n ln 2 + r`` with ``n = round(x / ln 2)``, ``|r| <= ln 2 / 2`` (Cody-Waite, two-part
    ln 2), ``exp(r)`` by its Taylor polynomial of degree 13 (truncation below 5e-18
    relative), times ``2^n`` built from its bits in ``bits`` (an int64 scratch of the same
    length) as ``2^(n + 600) * 2^-600``. Within 1 ulp of ``numpy.exp`` for normal results
    (3 million arguments in [-745, 0]: 11% differ by 1 ulp, none by more), gradual underflow
    below ``exp(-708)`` (within one subnormal step), exactly 0 below ``exp(-745.14)`` and for
    -inf, NaN propagated. Compiled without fast-math, so the Cody-Waite subtraction is not
    re-associated and the polynomial is evaluated as written.

    Parameters
    ----------
    x : ndarray of shape (m,), float64
        Arguments, <= 0 (positive ones lose accuracy above 0 and overflow above 423).
    out : ndarray of shape (m,), float64
        Output (may be ``x`` itself).
    bits : ndarray of shape (>= m,), int64
        Scratch.
    """
    m = x.shape[0]
    scale = bits.view(np.float64)
    for j in range(m):
        v = x[j]
        v = -746.0 if v < -746.0 else v  # noqa: FURB136 (max() would turn NaN into -746)
        nf = 0.0 if math.isnan(v) else math.floor(v * _LOG2E + 0.5)  # -746 (and -inf) -> 0
        r = (v - nf * _LN2_HI) - nf * _LN2_LO
        p = 1.0 / 6227020800.0
        p = p * r + 1.0 / 479001600.0
        p = p * r + 1.0 / 39916800.0
        p = p * r + 1.0 / 3628800.0
        p = p * r + 1.0 / 362880.0
        p = p * r + 1.0 / 40320.0
        p = p * r + 1.0 / 5040.0
        p = p * r + 1.0 / 720.0
        p = p * r + 1.0 / 120.0
        p = p * r + 1.0 / 24.0
        p = p * r + 1.0 / 6.0
        p = p * r + 0.5
        p = p * r + 1.0
        p = p * r + 1.0
        out[j] = p
        bits[j] = (np.int64(nf) + 1623) << 52  # 2^(n + 600), a normal number
    for j in range(m):
        out[j] = out[j] * scale[j] * _TWO_M600


@jit
def _rows_full(Y1T, Y2T, b1, b2, const, w, lse, log_resp, store_log_resp, B, RT, LR, SH, EX,
               bits):
    """Element-wise middle of one chunk of :func:`mixture_estep_full_gemm` (rows ``:B``),
    every loop over the chunk's rows (vectorised, no reduction across a vector): component
    ``k``'s projection is ``Y1T[k h:(k + 1) h]`` then ``Y2T[k (D - h):(k + 1) (D - h)]``
    (transposed: one row per coordinate), ``b1``, ``b2`` its offsets; ``RT[k, i]`` gets
    ``w_i r_ik``. ``LR``, ``SH``, ``EX``: (K, C) scratch; ``bits``: (>= C) int64 scratch."""
    K = const.shape[0]
    h = Y1T.shape[0] // K
    g = Y2T.shape[0] // K
    amax = lse  # lse[:B] holds the row maxima until the log-sum-exp replaces them
    for k in range(K):
        lr = LR[k]
        lr[:B] = 0.0
        for a in range(h):
            y = Y1T[k * h + a]
            b = b1[k * h + a]
            for i in range(B):
                v = y[i] - b
                lr[i] += v * v
        for a in range(g):
            y = Y2T[k * g + a]
            b = b2[k * g + a]
            for i in range(B):
                v = y[i] - b
                lr[i] += v * v
        ck = const[k]
        for i in range(B):
            lr[i] = ck - 0.5 * lr[i]
            if k == 0 or lr[i] > amax[i]:
                amax[i] = lr[i]
    for i in range(B):
        if not math.isfinite(amax[i]):
            amax[i] = 0.0
    for k in range(K):
        for i in range(B):
            SH[k, i] = LR[k, i] - amax[i]
        exp_nonpositive(SH[k, :B], EX[k, :B], bits)
    ssum = SH[0]  # SH is spent: its first row holds the sums, then the weights w_i / s_i
    for i in range(B):
        ssum[i] = EX[0, i]
    for k in range(1, K):
        for i in range(B):
            ssum[i] += EX[k, i]
    for i in range(B):
        s = ssum[i]
        lse[i] = math.log(s) + amax[i]
        ssum[i] = w[i] / s
    for k in range(K):
        for i in range(B):
            RT[k, i] = EX[k, i] * ssum[i]
    if store_log_resp:
        for i in range(B):
            for k in range(K):
                log_resp[i, k] = LR[k, i] - lse[i]


@jit
def _moment_row(XT, p, V, B):
    """Fill ``V[:B]`` with the counts' ones (``p = -1``; returns column D) or coordinate
    ``p < D`` of the rows of ``XT`` (D, C) (returns column p)."""
    if p < 0:
        V[:B] = 1.0
        return XT.shape[0]
    V[:B] = XT[p, :B]
    return p


@jit
def _pair(q, D):
    """``(a, j)``, ``a <= j``: the ``q``-th entry of a D x D upper triangle read row by row
    (the products ``x_a x_j`` sit in columns ``D + 1 + q``)."""
    a = 0
    while q >= D - a:
        q -= D - a
        a += 1
    return a, a + q


@jit
def _moments8(XT, RT, acc, k0, B, V):
    """Components ``k0:k0 + 8`` of :func:`_chunk_moments`: eight sums per loop over the rows,
    so each moment row is loaded once for eight multiply-adds (a dot product per component
    would load two operands per multiply-add)."""
    D = XT.shape[0]
    r0, r1, r2, r3 = RT[k0], RT[k0 + 1], RT[k0 + 2], RT[k0 + 3]
    r4, r5, r6, r7 = RT[k0 + 4], RT[k0 + 5], RT[k0 + 6], RT[k0 + 7]
    for p in range(-1, D + D * (D + 1) // 2):
        s0 = s1 = s2 = s3 = s4 = s5 = s6 = s7 = 0.0
        if p < D:  # the counts and the coordinates through V
            col = _moment_row(XT, p, V, B)
            xa = V
            xj = V
        else:  # the products, formed in the loop (5% faster than through V)
            a, j = _pair(p - D, D)
            col = p + 1
            xa = XT[a]
            xj = XT[j]
        for i in range(B):
            v = xa[i] * xj[i] if p >= D else xa[i]
            s0 += r0[i] * v
            s1 += r1[i] * v
            s2 += r2[i] * v
            s3 += r3[i] * v
            s4 += r4[i] * v
            s5 += r5[i] * v
            s6 += r6[i] * v
            s7 += r7[i] * v
        acc[k0, col] += s0
        acc[k0 + 1, col] += s1
        acc[k0 + 2, col] += s2
        acc[k0 + 3, col] += s3
        acc[k0 + 4, col] += s4
        acc[k0 + 5, col] += s5
        acc[k0 + 6, col] += s6
        acc[k0 + 7, col] += s7


@jit
def _moments4(XT, RT, acc, k0, B, V):
    """:func:`_moments8` for four components ``k0:k0 + 4`` (the last block when K is not a
    multiple of 8)."""
    D = XT.shape[0]
    r0, r1, r2, r3 = RT[k0], RT[k0 + 1], RT[k0 + 2], RT[k0 + 3]
    for p in range(-1, D + D * (D + 1) // 2):
        s0 = s1 = s2 = s3 = 0.0
        if p < D:
            col = _moment_row(XT, p, V, B)
            xa = V
            xj = V
        else:
            a, j = _pair(p - D, D)
            col = p + 1
            xa = XT[a]
            xj = XT[j]
        for i in range(B):
            v = xa[i] * xj[i] if p >= D else xa[i]
            s0 += r0[i] * v
            s1 += r1[i] * v
            s2 += r2[i] * v
            s3 += r3[i] * v
        acc[k0, col] += s0
        acc[k0 + 1, col] += s1
        acc[k0 + 2, col] += s2
        acc[k0 + 3, col] += s3


@jit
def _chunk_moments(XT, RT, acc, B, V):
    """``acc[k] += [sum_i r_ik x_i, sum_i r_ik, (sum_i r_ik x_ia x_ij)_{a <= j}]`` over the
    chunk's rows ``i < B`` (``XT`` (D, C): the centred rows transposed; ``RT`` (Kp, C): the
    weighted responsibilities, ``Kp`` a multiple of 4, padded with zero rows; ``V`` (C,)
    scratch), eight (then four) components per pass, vectorised over the rows. Replaces a
    BLAS GEMM ``R^T W`` whose packing of ``W`` cost as much as its multiply-adds under
    OpenBLAS's AVX2 (``Haswell``) kernel, which has no small-matrix path (one thread,
    N = 100k, D = 16, K = 8: 12.6 ms with the GEMM, about 6 here)."""
    Kp = RT.shape[0]
    k0 = 0
    while k0 + 8 <= Kp:
        _moments8(XT, RT, acc, k0, B, V)
        k0 += 8
    if k0 < Kp:
        _moments4(XT, RT, acc, k0, B, V)


@jit
def _partition_full_gemm(X, shift, ucat, bcat, const, w, lo, hi, chunk, nk, sx, sxx, lse,
                         log_resp, store_log_resp):
    """Rows ``lo:hi`` of :func:`mixture_estep_full_gemm` (one partition), serial.

    Kept out of the ``prange`` body of :func:`_estep_full_gemm_kernel` so that numba's parfor
    passes see one call instead of the GEMMs and loops: the parallel kernel compiled in 12 s
    with this body inlined (``benchmarks/bench_cold_start.py``), in a fraction of it now."""
    D = X.shape[1]
    K = const.shape[0]
    NW = D + 1 + D * (D + 1) // 2
    # the projections in two GEMMs: coordinates a < h of every (x - c) U_k read only the first
    # h coordinates of x (U_k is upper triangular), so (D - h) h K multiply-adds per row drop
    h = D // 2
    g = D - h
    u1T = np.empty((K * h, h))  # transposed: the GEMMs give one row per coordinate
    u2T = np.empty((K * g, D))
    b1 = np.empty(K * h)
    b2 = np.empty(K * g)
    for k in range(K):
        for a in range(h):
            b1[k * h + a] = bcat[k * D + a]
            for d in range(h):
                u1T[k * h + a, d] = ucat[d, k * D + a]
        for a in range(g):
            b2[k * g + a] = bcat[k * D + h + a]
            for d in range(D):
                u2T[k * g + a, d] = ucat[d, k * D + h + a]
    Kp = (K + 3) // 4 * 4  # the moments run over blocks of 8 and 4 components
    XT = np.zeros((D, chunk))  # the centred rows, transposed; columns from B are not read
    Y1T = np.empty((K * h, chunk))
    Y2T = np.empty((K * g, chunk))
    RT = np.zeros((Kp, chunk))  # rows K: stay zero
    LR = np.empty((K, chunk))
    SH = np.empty((K, chunk))
    EX = np.empty((K, chunk))
    bits = np.empty(chunk, dtype=np.int64)
    acc = np.zeros((Kp, NW))
    V = np.empty(chunk)
    for a in range(lo, hi, chunk):
        B = min(hi, a + chunk) - a
        for i in range(B):
            for d in range(D):
                XT[d, i] = X[a + i, d] - shift[d]
        if h > 0:
            np.dot(u1T, XT[:h], Y1T)
        np.dot(u2T, XT, Y2T)
        _rows_full(Y1T, Y2T, b1, b2, const, w[a:], lse[a:], log_resp[a:], store_log_resp, B,
                   RT, LR, SH, EX, bits)
        _chunk_moments(XT, RT, acc, B, V)
    for k in range(K):
        nk[k] += acc[k, D]
        for d in range(D):
            sx[k, d] += acc[k, d]
        p = D + 1
        for d in range(D):
            for j in range(d, D):
                sxx[d, k * D + j] += acc[k, p]
                if j != d:
                    sxx[j, k * D + d] += acc[k, p]
                p += 1


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
    ``Y = (X - c) [U_1 ... U_K]`` (two GEMMs for all K projections, the second half of the
    coordinates' factors' zero block skipped), then for every row ``i`` and component ``k``:
    ``log rho_ik = const_k - 0.5 ||Y_i,k - bcat_k||^2``, ``lse_i = log sum_k rho_ik``,
    ``r_ik = w_i rho_ik / exp(lse_i)`` (:func:`exp_nonpositive`); then ``sum r (x - c)``,
    ``sum r`` and the upper triangle of ``sum r (x - c)(x - c)^T`` of all K components
    (:func:`_chunk_moments`), added up over the partition's chunks and written, both
    triangles, to
    the partition's slots (second moments stored ``(D, K D)``). ``prange`` runs over the
    partitions; each writes only its own slot, and every operation inside a partition is
    independent of the thread that runs it (BLAS must be limited to one thread by the
    caller), so with partitions fixed by the data size the caller's index-order sum is
    bit-identical for any number of threads.

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
        Wrong shapes, dtypes or layouts, edges that do not partition ``0..n``, or ``ucat``
        with an entry below a factor's diagonal.

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
    if np.any(np.tril(ucat.reshape(D, K, D).transpose(1, 0, 2), -1)):
        raise ValueError("ucat must hold upper-triangular factors [U_1 ... U_K] (the kernel "
                         "reads only their upper triangles).")
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
