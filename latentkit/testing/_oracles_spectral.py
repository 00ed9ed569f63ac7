"""Naive NumPy (einsum) oracles of the spectral kernels in :mod:`latentkit._kernels.spectral`.

Each builds the tensor explicitly (small sizes only) and contracts it with ``einsum``.
"""

import numpy as np
import scipy.sparse as sp

__all__ = [
    "oracle_dense_contract",
    "oracle_dense_evaluate",
    "oracle_rows_tensor",
    "oracle_doc_third_moment",
    "oracle_whitened_doc_tensor",
    "oracle_sym_term",
]


def oracle_dense_contract(T, U):
    """``T(I, u_l, u_l)`` for each column: ``einsum('ijk,jl,kl->il')``; shape (d, L)."""
    return np.einsum("ijk,jl,kl->il", T, U, U)


def oracle_dense_evaluate(T, U):
    """``T(u_l, u_l, u_l)``: ``einsum('ijk,il,jl,kl->l')``; shape (L,)."""
    return np.einsum("ijk,il,jl,kl->l", T, U, U, U)


def oracle_rows_tensor(Y, w=None):
    """Dense ``sum_t w_t y_t (x) y_t (x) y_t`` (default ``w_t = 1/n``); shape (k, k, k)."""
    Y = np.asarray(Y, dtype=float)
    w = np.full(Y.shape[0], 1.0 / Y.shape[0]) if w is None else np.asarray(w, dtype=float)
    return np.einsum("t,ti,tj,tk->ijk", w, Y, Y, Y)


def oracle_doc_third_moment(c):
    """Unbiased ``e3(c)`` of one count vector by brute force over ordered triples of distinct
    token positions (V x V x V); ``None`` when the document has fewer than 3 tokens."""
    c = np.asarray(c, dtype=np.int64).ravel()
    tokens = np.repeat(np.arange(c.size), c)
    n = tokens.size
    if n < 3:
        return None
    V = c.size
    out = np.zeros((V, V, V))
    for a in range(n):
        for b in range(n):
            if b == a:
                continue
            for e in range(n):
                if e == a or e == b:
                    continue
                out[tokens[a], tokens[b], tokens[e]] += 1.0
    return out / (n * (n - 1) * (n - 2))


def oracle_sym_term(m, G):
    """Dense ``Sym(m (x) G)_abc = m_a G_bc + m_b G_ac + m_c G_ab``; shape (k, k, k)."""
    return (np.einsum("a,bc->abc", m, G) + np.einsum("b,ac->abc", m, G)
            + np.einsum("c,ab->abc", m, G))


def oracle_whitened_doc_tensor(X, W):
    """Mean over documents with >= 3 tokens of ``e3(c)(W, W, W)`` (brute-force e3); (k, k, k)."""
    X = sp.csr_matrix(X).toarray()
    mats = [oracle_doc_third_moment(row) for row in X]
    mats = [m for m in mats if m is not None]
    M3 = np.mean(mats, axis=0)
    return np.einsum("abc,ai,bj,ck->ijk", M3, W, W, W)
