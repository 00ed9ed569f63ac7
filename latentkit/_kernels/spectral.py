"""numba kernels of the spectral module: batched tensor contractions.

All kernels compute ``T(I, u_l, u_l)`` for the L columns ``u_l`` of a matrix ``U`` at once
(SPECTRAL_NOTES.md section 0) for three kinds of third-order tensors:

* a dense ``d x d x d`` array (:func:`dense_contract`, :func:`dense_evaluate`);
* the implicit data tensor ``(1/n) sum_t y_t^{(x)3}`` of dense rows ``Y`` (:func:`rows_contract`),
  cost O(n k L), the tensor is never formed;
* the implicit whitened third-moment tensor of word-count documents in CSR form with the
  unbiased inclusion-exclusion corrections ``e3(c)`` of Anandkumar et al. (2012)
  (:func:`csr_docs_contract`), cost O(nnz k L).

Determinism: parallel kernels split the items (rows, documents) into a number of blocks that
depends only on the number of items (never on the number of threads); each block accumulates
sequentially into its own output slice and the blocks are summed in index order by the
caller, so the result is bit-identical whatever the thread count.

The kernels do no validation: the wrappers in :mod:`latentkit.spectral._tensors` check shapes,
dtypes and contiguity. Oracles: :mod:`latentkit.testing._oracles_spectral`.
"""

import numpy as np

from ._jit import jit, prange

__all__ = ["dense_contract", "dense_evaluate", "rows_contract", "csr_docs_contract",
           "n_blocks_for", "dense_rows_contract", "dense_rows_contract_par",
           "dense_power_iterate", "csr_docs_contract_fast"]


def n_blocks_for(n_items):
    """Number of reduction blocks for ``n_items`` items (a function of ``n_items`` only)."""
    return int(max(1, min(64, n_items // 256 + 1)))


@jit(parallel=True)
def dense_contract(T, U, out):  # pragma: no cover - compiled
    """out[i, l] = sum_{j,k} T[i, j, k] U[j, l] U[k, l]  (T: d x d x d, U: d x L, out: d x L)."""
    d = T.shape[0]
    L = U.shape[1]
    for i in prange(d):
        acc = np.zeros(L)
        tmp = np.empty(L)
        for j in range(d):
            for l in range(L):
                tmp[l] = 0.0
            for k in range(d):
                t = T[i, j, k]
                for l in range(L):
                    tmp[l] += t * U[k, l]
            for l in range(L):
                acc[l] += U[j, l] * tmp[l]
        for l in range(L):
            out[i, l] = acc[l]


@jit(parallel=True)
def dense_evaluate(T, U, out):  # pragma: no cover - compiled
    """out[l] = sum_{i,j,k} T[i, j, k] U[i, l] U[j, l] U[k, l]  (out: L)."""
    d = T.shape[0]
    L = U.shape[1]
    part = np.zeros((d, L))
    for i in prange(d):
        tmp = np.empty(L)
        for j in range(d):
            for l in range(L):
                tmp[l] = 0.0
            for k in range(d):
                t = T[i, j, k]
                for l in range(L):
                    tmp[l] += t * U[k, l]
            for l in range(L):
                part[i, l] += U[i, l] * U[j, l] * tmp[l]
    for l in range(L):
        out[l] = 0.0
    for i in range(d):
        for l in range(L):
            out[l] += part[i, l]


@jit(parallel=True)
def rows_contract(Y, w, U, n_blocks, out_blocks):  # pragma: no cover - compiled
    """out_blocks[b] = sum_{t in block b} w[t] y_t (y_t . u_l)^2  for every column l.

    Y: n x k rows, w: n row weights (e.g. 1/n), U: k x L, out_blocks: n_blocks x k x L.
    The caller sums ``out_blocks`` over axis 0 in index order.
    """
    n = Y.shape[0]
    k = Y.shape[1]
    L = U.shape[1]
    for b in prange(n_blocks):
        start = (n * b) // n_blocks
        stop = (n * (b + 1)) // n_blocks
        acc = out_blocks[b]
        for i in range(k):
            for l in range(L):
                acc[i, l] = 0.0
        yu = np.empty(L)
        for t in range(start, stop):
            for l in range(L):
                yu[l] = 0.0
            for i in range(k):
                y = Y[t, i]
                for l in range(L):
                    yu[l] += y * U[i, l]
            wt = w[t]
            for l in range(L):
                yu[l] = wt * yu[l] * yu[l]
            for i in range(k):
                y = Y[t, i]
                for l in range(L):
                    acc[i, l] += y * yu[l]


@jit(parallel=True)
def csr_docs_contract(indptr, indices, data, scale, W, Ut, n_blocks,
                      out_blocks):  # pragma: no cover - compiled
    """Whitened unbiased third-moment contraction over CSR documents.

    For each document with counts c (row of the CSR matrix), p = W^T c, w_v = W[v],
    adds ``scale[doc]`` times

        p (p.u)^2 - sum_v c_v (2 w_v (w_v.u)(p.u) + p (w_v.u)^2) + 2 sum_v c_v w_v (w_v.u)^2

    for every vector u (row of Ut, L x k) into the document's block of ``out_blocks``
    (n_blocks x k x L). Documents with ``scale == 0`` (e.g. fewer than 3 tokens) are skipped.
    W: V x k. Cost O(nnz k L).
    """
    D = indptr.shape[0] - 1
    k = W.shape[1]
    L = Ut.shape[0]
    for b in prange(n_blocks):
        start = (D * b) // n_blocks
        stop = (D * (b + 1)) // n_blocks
        acc = out_blocks[b]
        for i in range(k):
            for l in range(L):
                acc[i, l] = 0.0
        p = np.empty(k)
        pu = np.empty(L)
        wu = np.empty(L)
        cw = np.empty(L)
        coef_p = np.empty(L)
        for doc in range(start, stop):
            s = scale[doc]
            if s == 0.0:
                continue
            lo = indptr[doc]
            hi = indptr[doc + 1]
            for i in range(k):
                p[i] = 0.0
            for jj in range(lo, hi):
                v = indices[jj]
                c = data[jj]
                for i in range(k):
                    p[i] += c * W[v, i]
            for l in range(L):
                t = 0.0
                for i in range(k):
                    t += p[i] * Ut[l, i]
                pu[l] = t
                coef_p[l] = t * t
            for jj in range(lo, hi):
                v = indices[jj]
                c = data[jj]
                for l in range(L):
                    t = 0.0
                    for i in range(k):
                        t += W[v, i] * Ut[l, i]
                    wu[l] = t
                for l in range(L):
                    coef_p[l] -= c * wu[l] * wu[l]
                    # coefficient of w_v: -2 c (w_v.u)(p.u) + 2 c (w_v.u)^2
                    cw[l] = s * 2.0 * c * wu[l] * (wu[l] - pu[l])
                for i in range(k):
                    wvi = W[v, i]
                    for l in range(L):
                        acc[i, l] += cw[l] * wvi
            for l in range(L):
                coef_p[l] *= s
            for i in range(k):
                pi = p[i]
                for l in range(L):
                    acc[i, l] += coef_p[l] * pi


@jit
def _contract_coordinate(T, Ut, n, i, acc):  # pragma: no cover - compiled
    """acc[a] = sum_j Ut[a, j] sum_k T[i, j, k] Ut[a, k] for a < n (coordinate i of T(I, u, u)).

    The row ``T[i, j, :]`` is loaded once (it stays in L1) and dotted with the vectors four at
    a time (register blocking: one load of T feeds four multiply-adds), so T is streamed from
    memory once per call whatever n is.
    """
    d = T.shape[0]
    for a in range(n):
        acc[a] = 0.0
    for j in range(d):
        a = 0
        while a + 4 <= n:
            s0 = 0.0
            s1 = 0.0
            s2 = 0.0
            s3 = 0.0
            for k in range(d):
                t = T[i, j, k]
                s0 += t * Ut[a, k]
                s1 += t * Ut[a + 1, k]
                s2 += t * Ut[a + 2, k]
                s3 += t * Ut[a + 3, k]
            acc[a] += Ut[a, j] * s0
            acc[a + 1] += Ut[a + 1, j] * s1
            acc[a + 2] += Ut[a + 2, j] * s2
            acc[a + 3] += Ut[a + 3, j] * s3
            a += 4
        while a < n:
            s = 0.0
            for k in range(d):
                s += T[i, j, k] * Ut[a, k]
            acc[a] += Ut[a, j] * s
            a += 1


@jit
def dense_rows_contract(T, Ut, n, out):  # pragma: no cover - compiled
    """out[a, i] = sum_j Ut[a, j] sum_k T[i, j, k] Ut[a, k] for the first ``n`` rows of ``Ut``.

    T: d x d x d, Ut: L x d (one vector per row, L >= n), out: L x d (rows ``< n`` written).
    Serial; ``d^3 n`` multiply-adds, T read once (see :func:`_contract_coordinate`).
    """
    d = T.shape[0]
    acc = np.empty(max(n, 1))
    for i in range(d):
        _contract_coordinate(T, Ut, n, i, acc)
        for a in range(n):
            out[a, i] = acc[a]


@jit(parallel=True)
def dense_rows_contract_par(T, Ut, n, out):  # pragma: no cover - compiled
    """:func:`dense_rows_contract` with ``prange`` over the output coordinate i (each entry is
    accumulated in the same order, so the result does not depend on the thread count)."""
    d = T.shape[0]
    for i in prange(d):
        acc = np.empty(max(n, 1))
        _contract_coordinate(T, Ut, n, np.int64(i), acc)  # int64: one signature
        for a in range(n):
            out[a, i] = acc[a]


@jit
def dense_power_iterate(T, Ut, Vt, lam, ncomp, n_iter, tol, spare, iters, conv, info,
                        par_min_work):  # pragma: no cover - compiled
    """Deflated tensor power iterations on the rows of ``Ut`` (in place) for a dense symmetric T.

    Runs up to ``n_iter`` updates ``u <- T_i(I, u, u) / ||T_i(I, u, u)||`` on every row u of
    ``Ut`` (L x d) together, with the implicit deflation
    ``T_i(I, u, u) = T(I, u, u) - sum_{j<ncomp} lam_j (v_j.u)^2 v_j`` (``Vt``: rows v_j).
    A row stops (leaves the batch) when ``min(||u_t - u_{t-1}||, ||u_t + u_{t-1}||) < tol``
    (``conv[l] = 1``); a row whose update has (near) zero norm is replaced by the next row of
    ``spare`` (pre-drawn Gaussian vectors, cycled). ``iters[l]`` counts the updates of row l.
    ``info[0]`` = largest update norm of the first iteration (0 means the deflated tensor is
    zero on every start), ``info[1]`` = number of spare rows used. The contraction runs on
    numba's thread pool (:func:`dense_rows_contract_par`) when ``d^3 * (active rows)`` is at
    least ``par_min_work``, else serially (a thread-pool round trip per iteration costs more
    than small contractions).
    """
    L, d = Ut.shape
    active = np.arange(L)
    n_act = L
    Ya = np.empty((L, d))
    Ua = np.empty((L, d))
    nspare = spare.shape[0]
    used = 0
    first_max = 0.0
    for t in range(n_iter):
        for a in range(n_act):
            l = active[a]
            for i in range(d):
                Ua[a, i] = Ut[l, i]
        if d * d * d * n_act >= par_min_work:
            dense_rows_contract_par(T, Ua, n_act, Ya)
        else:
            dense_rows_contract(T, Ua, n_act, Ya)
        n_keep = 0
        for a in range(n_act):
            l = active[a]
            for j in range(ncomp):
                pj = 0.0
                for i in range(d):
                    pj += Vt[j, i] * Ua[a, i]
                c = lam[j] * pj * pj
                for i in range(d):
                    Ya[a, i] -= c * Vt[j, i]
            nrm = 0.0
            for i in range(d):
                nrm += Ya[a, i] * Ya[a, i]
            nrm = np.sqrt(nrm)
            if t == 0 and nrm > first_max:
                first_max = nrm
            if not nrm > 1e-300:
                r = used % nspare
                used += 1
                nrm = 0.0
                for i in range(d):
                    Ya[a, i] = spare[r, i]
                    nrm += spare[r, i] * spare[r, i]
                nrm = np.sqrt(nrm)
            dm = 0.0
            dp = 0.0
            for i in range(d):
                y = Ya[a, i] / nrm
                dm += (y - Ua[a, i]) ** 2
                dp += (y + Ua[a, i]) ** 2
                Ut[l, i] = y
            iters[l] += 1
            if min(dm, dp) < tol * tol:
                conv[l] = 1
            else:
                active[n_keep] = l
                n_keep += 1
        n_act = n_keep
        if n_act == 0:
            break
    info[0] = first_max
    info[1] = used


@jit(parallel=True)
def csr_docs_contract_fast(indptr, indices, data, scale, P, U, WU, t_indptr, t_indices, t_data,
                           a, W, n_blocks, SPU, out_doc_blocks,
                           out_word_blocks):  # pragma: no cover - compiled
    """Whitened unbiased third-moment contraction over CSR documents, O(nnz L + (D + V) k L).

    Same quantity as :func:`csr_docs_contract`, regrouped (SPECTRAL_NOTES.md section 1.3):
    with ``p_d = W^T c_d`` (rows of ``P``, precomputed), ``WU = W U`` (V x L, so that
    ``(w_v.u_l) = WU[v, l]``), ``pu_dl = p_d.u_l`` and ``a_v = sum_d s_d c_dv``::

        sum_d s_d e3w(c_d)(I, u, u) = sum_d p_d s_d [(pu_d)^2 - sum_v c_dv WU_v^2]
                                     + sum_v w_v 2 WU_v (a_v WU_v - sum_d s_d c_dv pu_d).

    Pass 1 (``prange`` over document blocks) accumulates the first sum into
    ``out_doc_blocks[b]`` (k x L) and stores ``SPU[d] = s_d pu_d``; pass 2 (``prange`` over
    word blocks, on the transposed matrix ``t_*``) accumulates the second sum into
    ``out_word_blocks[b]``. The caller adds the blocks in index order (deterministic).
    Shapes: P D x k, U k x L, WU V x L, a V, W V x k, SPU D x L, blocks n_blocks x k x L.
    """
    D = indptr.shape[0] - 1
    V = t_indptr.shape[0] - 1
    k = P.shape[1]
    L = U.shape[1]
    for b in prange(n_blocks):
        start = (D * b) // n_blocks
        stop = (D * (b + 1)) // n_blocks
        acc = out_doc_blocks[b]
        for i in range(k):
            for l in range(L):
                acc[i, l] = 0.0
        pu = np.empty(L)
        q = np.empty(L)
        for doc in range(start, stop):
            s = scale[doc]
            if s == 0.0:
                for l in range(L):
                    SPU[doc, l] = 0.0
                continue
            for l in range(L):
                pu[l] = 0.0
            for i in range(k):
                pi = P[doc, i]
                for l in range(L):
                    pu[l] += pi * U[i, l]
            for l in range(L):
                q[l] = pu[l] * pu[l]
            for jj in range(indptr[doc], indptr[doc + 1]):
                v = indices[jj]
                c = data[jj]
                for l in range(L):
                    wu = WU[v, l]
                    q[l] -= c * wu * wu
            for l in range(L):
                q[l] *= s
                SPU[doc, l] = s * pu[l]
            for i in range(k):
                pi = P[doc, i]
                for l in range(L):
                    acc[i, l] += q[l] * pi
    for b in prange(n_blocks):
        start = (V * b) // n_blocks
        stop = (V * (b + 1)) // n_blocks
        acc = out_word_blocks[b]
        for i in range(k):
            for l in range(L):
                acc[i, l] = 0.0
        bv = np.empty(L)
        for v in range(start, stop):
            lo = t_indptr[v]
            hi = t_indptr[v + 1]
            if lo == hi:
                continue
            for l in range(L):
                bv[l] = 0.0
            for jj in range(lo, hi):
                doc = t_indices[jj]
                c = t_data[jj]
                for l in range(L):
                    bv[l] += c * SPU[doc, l]
            av = a[v]
            for l in range(L):
                wu = WU[v, l]
                bv[l] = 2.0 * wu * (av * wu - bv[l])
            for i in range(k):
                wvi = W[v, i]
                for l in range(L):
                    acc[i, l] += bv[l] * wvi
