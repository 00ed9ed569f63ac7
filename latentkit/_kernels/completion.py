"""numba kernels for symmetric tensor completion over observed (COO) entries.

Observed entries ``(i_e, j_e, k_e, t_e)`` are stored sorted by the first index ``i`` with a row
pointer ``rowptr`` (``rowptr[i]:rowptr[i+1]`` are the entries whose first index is ``i``), so
every kernel loops (``prange``) over ``i`` and each ``i`` owns its output row, so the loops are
safe to parallelise and results cannot depend on the thread count. They are compiled serial
(``parallel=False``; ``prange`` is then ``range``): one call is O(|Omega| L) or O(|Omega|) with
|Omega| ~ 10^4-10^6 in practice, where thread start-up cost more than it saved (measured 30 ms
per call parallel vs < 1 ms serial at |Omega| = 7000). A dense ``n^3`` array is never formed.

Used by :mod:`latentkit.spectral._completion` (Jain & Oh 2014, Algorithm 1). No validation here:
the wrapper checks shapes, dtypes, bounds and contiguity. Oracles: naive NumPy versions in
:mod:`latentkit.testing._oracles_tensor`.
"""


from ._jit import jit, prange

__all__ = ["coo_contract", "coo_als_update", "coo_residual_update", "coo_residual",
           "cp_predict"]


@jit
def coo_contract(rowptr, jj, kk, vals, scale, U, out):  # pragma: no cover - compiled
    """out[i, l] = scale * sum_{e in row i} vals[e] U[jj[e], l] U[kk[e], l]  (out: n x L)."""
    n = rowptr.shape[0] - 1
    L = U.shape[1]
    for i in prange(n):
        for l in range(L):
            out[i, l] = 0.0
        for e in range(rowptr[i], rowptr[i + 1]):
            v = vals[e] * scale
            j = jj[e]
            k = kk[e]
            for l in range(L):
                out[i, l] += v * U[j, l] * U[k, l]


@jit
def coo_als_update(rowptr, jj, kk, resid, u, sigma, unew):  # pragma: no cover - compiled
    """Least-squares row update of one component (Jain & Oh 2014, Alg. 1, step 3).

    With ``R_e = resid[e] + sigma u_i u_j u_k`` (the residual of the other components),
    ``unew[i] = sum_e R_e u_j u_k / sum_e (u_j u_k)^2`` over the entries of row ``i``
    (0 for a row with no information).
    """
    n = rowptr.shape[0] - 1
    for i in prange(n):
        num = 0.0
        den = 0.0
        ui = u[i]
        for e in range(rowptr[i], rowptr[i + 1]):
            b = u[jj[e]] * u[kk[e]]
            r = resid[e] + sigma * ui * b
            num += r * b
            den += b * b
        if den > 0.0:
            unew[i] = num / den
        else:
            unew[i] = 0.0


@jit
def coo_residual_update(rowptr, jj, kk, resid, u_old, sigma_old, u_new,
                        sigma_new):  # pragma: no cover - compiled
    """resid[e] += sigma_old u_old^{(x)3}[e] - sigma_new u_new^{(x)3}[e] (in place)."""
    n = rowptr.shape[0] - 1
    for i in prange(n):
        a = sigma_old * u_old[i]
        b = sigma_new * u_new[i]
        for e in range(rowptr[i], rowptr[i + 1]):
            j = jj[e]
            k = kk[e]
            resid[e] += a * u_old[j] * u_old[k] - b * u_new[j] * u_new[k]


@jit
def coo_residual(rowptr, jj, kk, vals, weights, F, resid):  # pragma: no cover - compiled
    """resid[e] = vals[e] - sum_r weights[r] F[i, r] F[j, r] F[k, r]."""
    n = rowptr.shape[0] - 1
    R = weights.shape[0]
    for i in prange(n):
        for e in range(rowptr[i], rowptr[i + 1]):
            j = jj[e]
            k = kk[e]
            s = 0.0
            for r in range(R):
                s += weights[r] * F[i, r] * F[j, r] * F[k, r]
            resid[e] = vals[e] - s


@jit
def cp_predict(ii, jj, kk, weights, A, B, C, out):  # pragma: no cover - compiled
    """out[e] = sum_r weights[r] A[ii[e], r] B[jj[e], r] C[kk[e], r] (any list of entries)."""
    m = ii.shape[0]
    R = weights.shape[0]
    for e in prange(m):
        s = 0.0
        i = ii[e]
        j = jj[e]
        k = kk[e]
        for r in range(R):
            s += weights[r] * A[i, r] * B[j, r] * C[k, r]
        out[e] = s
