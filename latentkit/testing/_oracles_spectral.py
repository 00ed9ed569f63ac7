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
    """``T(I, u_l, u_l)`` for each column: ``einsum('ijk,jl,kl->il')``; shape (d, L).

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.testing import oracle_dense_contract
    >>> T = np.zeros((2, 2, 2)); T[0, 0, 0] = 1.0; T[1, 1, 1] = 2.0
    >>> oracle_dense_contract(T, np.ones((2, 1)))
    array([[1.],
           [2.]])
    """
    return np.einsum("ijk,jl,kl->il", T, U, U)


def oracle_dense_evaluate(T, U):
    """``T(u_l, u_l, u_l)``: ``einsum('ijk,il,jl,kl->l')``; shape (L,).

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.testing import oracle_dense_evaluate
    >>> T = np.zeros((2, 2, 2)); T[0, 0, 0] = 1.0; T[1, 1, 1] = 2.0
    >>> oracle_dense_evaluate(T, np.ones((2, 1)))  # 1 + 2
    array([3.])
    """
    return np.einsum("ijk,il,jl,kl->l", T, U, U, U)


def oracle_rows_tensor(Y, w=None):
    """Dense ``sum_t w_t y_t (x) y_t (x) y_t`` (default ``w_t = 1/n``); shape (k, k, k).

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.testing import oracle_rows_tensor
    >>> Y = np.array([[1.0, 0.0], [0.0, 1.0]])
    >>> T = oracle_rows_tensor(Y)  # (e1 x e1 x e1 + e2 x e2 x e2) / 2
    >>> T.shape, float(T[0, 0, 0]), float(T[0, 1, 1])
    ((2, 2, 2), 0.5, 0.0)
    """
    Y = np.asarray(Y, dtype=float)
    w = np.full(Y.shape[0], 1.0 / Y.shape[0]) if w is None else np.asarray(w, dtype=float)
    return np.einsum("t,ti,tj,tk->ijk", w, Y, Y, Y)


def oracle_doc_third_moment(c):
    """Unbiased ``e3(c)`` of one count vector by brute force over ordered triples of distinct
    token positions (V x V x V); ``None`` when the document has fewer than 3 tokens.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.testing import oracle_doc_third_moment
    >>> oracle_doc_third_moment(np.array([1.0, 1.0])) is None  # only 2 tokens
    True
    >>> e3 = oracle_doc_third_moment(np.array([3.0, 0.0]))
    >>> e3.shape, round(float(e3.sum()), 6)
    ((2, 2, 2), 1.0)
    """
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
    """Dense ``Sym(m (x) G)_abc = m_a G_bc + m_b G_ac + m_c G_ab``; shape (k, k, k).

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.testing import oracle_sym_term
    >>> T = oracle_sym_term(np.array([1.0, 0.0]), np.eye(2))
    >>> T.shape, float(T[0, 0, 0]), float(T[0, 1, 1]), float(T[1, 1, 1])
    ((2, 2, 2), 3.0, 1.0, 0.0)
    """
    return (np.einsum("a,bc->abc", m, G) + np.einsum("b,ac->abc", m, G)
            + np.einsum("c,ab->abc", m, G))


def oracle_whitened_doc_tensor(X, W):
    """Mean over documents with >= 3 tokens of ``e3(c)(W, W, W)`` (brute-force e3); (k, k, k).

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.testing import oracle_whitened_doc_tensor
    >>> X = np.array([[3.0, 0.0], [0.0, 3.0]])
    >>> T = oracle_whitened_doc_tensor(X, np.eye(2))
    >>> T.shape
    (2, 2, 2)
    """
    X = sp.csr_matrix(X).toarray()
    mats = [oracle_doc_third_moment(row) for row in X]
    mats = [m for m in mats if m is not None]
    M3 = np.mean(mats, axis=0)
    return np.einsum("abc,ai,bj,ck->ijk", M3, W, W, W)
