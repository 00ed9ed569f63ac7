"""numba kernels of the sparse stochastic variational step of LDA.

One SVI step (Hoffman, Blei & Bach 2010, Algorithm 2; Hoffman, Blei, Wang & Paisley 2013,
Algorithm 1) needs ``exp(E[log beta_kw])`` only for the words ``w`` of its minibatch, and it
changes ``lambda_kw - eta`` by the common factor ``1 - rho`` for every other word. The driver
(:mod:`latentkit.topic._lda_svi`) therefore stores ``lambda = eta + S * U`` with a scalar ``S``
and ``U`` of shape (V, K) (topics transposed), and these kernels

* gather the minibatch's columns into the compact E-step tables (:func:`lda_compact_tables`):
  ``E[log beta_kw] = psi(eta + S U_wk) - psi(sum_w lambda_kw)``, shifted per word by its
  maximum over topics exactly as :func:`latentkit._kernels.topic.lda_e_step` expects;
* relabel the minibatch's word ids to compact ids (:func:`compact_columns`);
* gather a minibatch's rows from the training matrix validated once per fit
  (:func:`gather_rows`: no scipy indexing and no validation per step);
* add the scaled minibatch statistics to their columns of ``U`` and sum them over the words
  (:func:`add_scaled_rows`, strict IEEE: the same numbers as NumPy's ``U[cols] += c S`` and
  ``(c S).sum(axis=0)``).

Both are O(nnz + V_B K) per step instead of the O(V K) of the whole table. Each output entry
is written by one iteration of a ``prange`` loop, so results do not depend on the thread count.

Imports only numpy, math and numba (DESIGN.md section 4).
"""

import math

import numpy as np

from ._jit import jit, prange

__all__ = ["add_scaled_rows", "compact_columns", "gather_rows", "lda_compact_tables"]


@jit
def compact_columns(indices, mark, n_cols):
    """Distinct column ids of ``indices`` in increasing order, and ``indices`` relabelled.

    Parameters
    ----------
    indices : int32 or int64[nnz]
        Column ids (CSR ``indices`` of a minibatch), each in ``[0, n_cols)``.
    mark : int64[n_cols] (scratch)
        Overwritten; its content on entry is ignored.
    n_cols : int
        V, the vocabulary size.

    Returns
    -------
    cols : int64[V_B]
        The distinct ids, sorted.
    local : int64[nnz]
        ``local[j]`` is the position of ``indices[j]`` in ``cols``.
    """
    for w in range(n_cols):
        mark[w] = -1
    nnz = indices.shape[0]
    for j in range(nnz):
        mark[indices[j]] = 0
    n = 0
    for w in range(n_cols):
        if mark[w] == 0:
            mark[w] = n
            n += 1
    cols = np.empty(n, dtype=np.int64)
    for w in range(n_cols):
        if mark[w] >= 0:
            cols[mark[w]] = w
    local = np.empty(nnz, dtype=np.int64)
    for j in range(nnz):
        local[j] = mark[indices[j]]
    return cols, local


@jit
def gather_rows(indptr, indices, data, rows):
    """The CSR arrays of the rows ``rows`` (in that order) of a CSR matrix, as ``X[rows]``.

    Parameters
    ----------
    indptr : int32 or int64[n + 1]
    indices : int32 or int64[nnz]
    data : float64[nnz]
        The CSR arrays of the whole matrix.
    rows : int64[m]
        Row ids, each in ``[0, n)``.

    Returns
    -------
    out_indptr : int64[m + 1]
    out_indices : int64[nnz_B]
    out_data : float64[nnz_B]
        Row ``i`` of the result is row ``rows[i]`` of the input, entries in their order.
    """
    m = rows.shape[0]
    out_indptr = np.empty(m + 1, dtype=np.int64)
    out_indptr[0] = 0
    for i in range(m):
        r = rows[i]
        out_indptr[i + 1] = out_indptr[i] + (indptr[r + 1] - indptr[r])
    nnz = out_indptr[m]
    out_indices = np.empty(nnz, dtype=np.int64)
    out_data = np.empty(nnz, dtype=np.float64)
    for i in range(m):
        r = rows[i]
        a = indptr[r]
        o = out_indptr[i]
        for j in range(indptr[r + 1] - a):
            out_indices[o + j] = indices[a + j]
            out_data[o + j] = data[a + j]
    return out_indptr, out_indices, out_data


@jit(fastmath=False)
def add_scaled_rows(u_t, cols, ss_t, c, row_inc):
    """``u_t[cols[i]] += c * ss_t[i]`` for every i, and ``row_inc = sum_i c * ss_t[i]``.

    Strict IEEE arithmetic in NumPy's order: each increment is the product ``c * ss_t[i, k]``
    and ``row_inc`` accumulates the rows from the first to the last, as
    ``inc = c * ss_t; u_t[cols] += inc; row_inc = inc.sum(axis=0)`` does (bit for bit).

    Parameters
    ----------
    u_t : float64[V, K] (in/out)
    cols : int64[V_B]
        Distinct row ids of ``u_t``.
    ss_t : float64[V_B, K]
        The minibatch statistics of the words ``cols``.
    c : float
        The scale of the increments.
    row_inc : float64[K] (out)
        Sum of the increments over the words.
    """
    K = u_t.shape[1]
    n = cols.shape[0]
    for k in range(K):
        row_inc[k] = 0.0
    for i in range(n):
        w = cols[i]
        for k in range(K):
            inc = c * ss_t[i, k]
            u_t[w, k] += inc
            if i == 0:
                row_inc[k] = inc
            else:
                row_inc[k] += inc


#: Words per iteration of :func:`lda_compact_tables`'s parallel loop (each block has its own
#: scratch row).
_BLOCK = 64


@jit(parallel=True, error_model="numpy")
def lda_compact_tables(u_t, cols, scale, eta, psi_row, exp_beta_t, shift):
    """The E-step tables of the words ``cols`` from ``lambda = eta + scale * u_t.T``.

    ``E[log beta_kw] = log y_kw + c_kw - psi_row_k`` with ``(y, c)`` digamma's recurrence
    (10 steps with a 0/1 factor, as :func:`latentkit._kernels.topic._exp_elog_ratio`) and
    series without its logarithm (:func:`latentkit._kernels.topic._psi_parts`), so a word's
    row costs one logarithm, not K: ``e_k = y_k exp(c_k - psi_row_k - m)`` with ``m`` the
    largest ``c_k - psi_row_k`` (every exponent <= 0, the largest ``e_k`` >= 10), then
    ``exp_beta_t = e / max e`` and ``shift = m + log(max e)``.

    Parameters
    ----------
    u_t : float64[V, K]
        ``(lambda - eta) / scale``, topics transposed.
    cols : int64[V_B]
        Word ids of the minibatch.
    scale : float
        S > 0.
    eta : float
        Symmetric topic-word prior.
    psi_row : float64[K]
        ``psi(sum_w lambda_kw)``.
    exp_beta_t : float64[V_B, K] (out)
        ``exp(E[log beta_{k, cols_i}] - shift_i)``.
    shift : float64[V_B] (out)
        ``shift_i = max_k E[log beta_{k, cols_i}]``.
    """
    K = u_t.shape[1]
    n = cols.shape[0]
    for b in prange((n + _BLOCK - 1) // _BLOCK):
        ys = np.empty(K)
        for i in range(b * _BLOCK, min(n, (b + 1) * _BLOCK)):
            row = u_t[cols[i]]
            out = exp_beta_t[i]
            m = -np.inf
            for k in range(K):  # digamma's recurrence and series, branch-free (vectorises)
                x = eta + scale * row[k]
                p = 0.0
                q = 1.0
                for _ in range(10):
                    a = 1.0 if x < 10.0 else 0.0
                    mx = a * x + (1.0 - a)
                    p = p * mx + a * q
                    q = q * mx
                    x = x + a
                f = 1.0 / (x * x)
                t = f * (-1.0 / 12.0 + f * (1.0 / 120.0 + f * (-1.0 / 252.0 + f * (
                    1.0 / 240.0 + f * (-1.0 / 132.0 + f * (691.0 / 32760.0 + f * (
                        -1.0 / 12.0)))))))
                ys[k] = x
                out[k] = -p / q - 0.5 / x + t - psi_row[k]
            for k in range(K):
                if out[k] > m:
                    m = out[k]
            em = 0.0
            for k in range(K):
                e = ys[k] * math.exp(out[k] - m)
                out[k] = e
                if e > em:
                    em = e
            for k in range(K):
                out[k] /= em
            shift[i] = m + math.log(em)
