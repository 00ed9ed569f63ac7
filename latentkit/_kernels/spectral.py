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
           "n_blocks_for"]


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
