"""Spectral kernels vs their einsum oracles (to 1e-10)."""

import numpy as np
import pytest
import scipy.sparse as sp

from latentkit._kernels import spectral as K
from latentkit.spectral import ImplicitMomentTensor, SymmetricTensor
from latentkit.testing import (oracle_dense_contract, oracle_dense_evaluate, oracle_rows_tensor,
                               oracle_sym_term, oracle_whitened_doc_tensor)


def sym_tensor(d, seed):
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((d, d, d))
    perms = [(0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)]
    return sum(A.transpose(p) for p in perms) / 6


@pytest.mark.slow
@pytest.mark.parametrize("d,L", [(1, 1), (7, 3), (13, 20)])
def test_dense_kernel_vs_oracle(d, L):
    T = sym_tensor(d, d)
    U = np.random.default_rng(1).standard_normal((d, L))
    out = np.empty((d, L))
    K.dense_contract(T, U, out)
    np.testing.assert_allclose(out, oracle_dense_contract(T, U), rtol=1e-10, atol=1e-10)
    ev = np.empty(L)
    K.dense_evaluate(T, U, ev)
    np.testing.assert_allclose(ev, oracle_dense_evaluate(T, U), rtol=1e-10, atol=1e-10)
    # the wrapper (GEMM path) agrees as well
    np.testing.assert_allclose(SymmetricTensor(T).contract(U), oracle_dense_contract(T, U),
                               rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(SymmetricTensor(T).evaluate(U), oracle_dense_evaluate(T, U),
                               rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("d,L,n", [(1, 1, 1), (9, 4, 3), (16, 6, 6)])
def test_dense_rows_kernels_vs_oracle(d, L, n):
    T = sym_tensor(d, 10 + d)
    Ut = np.random.default_rng(2).standard_normal((L, d))
    ref = oracle_dense_contract(T, Ut[:n].T).T
    out = np.full((L, d), 7.0)
    K.dense_rows_contract(T, Ut, n, out)
    np.testing.assert_allclose(out[:n], ref, rtol=1e-10, atol=1e-10)
    assert np.all(out[n:] == 7.0)  # rows >= n untouched
    out_par = np.empty((L, d))
    K.dense_rows_contract_par(T, Ut, n, out_par)
    np.testing.assert_array_equal(out_par[:n], out[:n])  # same order of operations


def _power_reference(T, U0, V, lam, n_iter, tol):
    """NumPy transcription of dense_power_iterate (Ut rows = vectors), no redraws."""
    U = U0.copy()
    active = list(range(U.shape[0]))
    iters = np.zeros(U.shape[0], dtype=int)
    conv = np.zeros(U.shape[0], dtype=bool)
    for _ in range(n_iter):
        keep = []
        for l in active:
            u = U[l]
            y = np.einsum("ijk,j,k->i", T, u, u) - V.T @ (lam * (V @ u) ** 2)
            y = y / np.linalg.norm(y)
            change = min(np.linalg.norm(y - u), np.linalg.norm(y + u))
            U[l] = y
            iters[l] += 1
            if change < tol:
                conv[l] = True
            else:
                keep.append(l)
        active = keep
        if not active:
            break
    return U, iters, conv


@pytest.mark.parametrize("tol", [0.0, 1e-6])
def test_dense_power_iterate_vs_numpy_reference(tol):
    rng = np.random.default_rng(4)
    d, L, k = 8, 5, 3
    Q = np.linalg.qr(rng.standard_normal((d, k)))[0]
    T = np.einsum("i,ai,bi,ci->abc", [3.0, 2.0, 1.0], Q, Q, Q) + 0.01 * sym_tensor(d, 5)
    V = np.ascontiguousarray(Q[:, :1].T)  # deflate one (approximate) component
    lam = np.array([3.0])
    U0 = rng.standard_normal((L, d))
    U0 /= np.linalg.norm(U0, axis=1)[:, None]
    ref, ref_it, ref_conv = _power_reference(T, U0, V, lam, 40, tol)
    Ut = U0.copy()
    iters = np.zeros(L, dtype=np.int64)
    conv = np.zeros(L, dtype=np.int8)
    info = np.zeros(2)
    spare = rng.standard_normal((L, d))
    for par_min in (2 ** 62, 0):  # serial and thread-pool contraction
        Ut = U0.copy()
        iters[:] = 0
        conv[:] = 0
        K.dense_power_iterate(T, Ut, V, lam, 1, 40, tol, spare, iters, conv, info, par_min)
        np.testing.assert_allclose(Ut, ref, rtol=1e-10, atol=1e-10)
        np.testing.assert_array_equal(iters, ref_it)
        np.testing.assert_array_equal(conv.astype(bool), ref_conv)
        assert info[0] > 0 and info[1] == 0
    if tol > 0:
        assert ref_conv.all() and ref_it.max() < 40


def test_dense_power_iterate_redraws_on_zero_tensor():
    d, L = 4, 3
    T = np.zeros((d, d, d))
    Ut = np.eye(L, d)
    spare = np.arange(1.0, 1.0 + 2 * d).reshape(2, d)
    iters = np.zeros(L, dtype=np.int64)
    conv = np.zeros(L, dtype=np.int8)
    info = np.zeros(2)
    K.dense_power_iterate(T, Ut, np.zeros((0, d)), np.zeros(0), 0, 2, 0.0, spare, iters, conv,
                          info, 2 ** 62)
    assert info[0] == 0.0 and info[1] == 2 * L  # every update redrawn, spares cycled
    np.testing.assert_allclose(np.linalg.norm(Ut, axis=1), 1.0)
    np.testing.assert_allclose(Ut[1], spare[0] / np.linalg.norm(spare[0]))


def test_rows_kernel_with_corrections_vs_oracle():
    rng = np.random.default_rng(0)
    n, k, L = 700, 4, 6   # 700 rows -> 3 reduction blocks
    Y = rng.standard_normal((n, k))
    w = rng.uniform(0, 1, n)
    m = rng.standard_normal(k)
    G = rng.standard_normal((k, k))
    G = G + G.T
    q = rng.standard_normal(k)
    T = ImplicitMomentTensor.from_rows(Y, w, sym_terms=[(m, G)], cube_terms=[(0.7, q)])
    dense = oracle_rows_tensor(Y, w) - oracle_sym_term(m, G) + 0.7 * np.einsum("a,b,c->abc", q, q, q)
    U = rng.standard_normal((k, L))
    np.testing.assert_allclose(T.contract(U), oracle_dense_contract(dense, U), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(T.evaluate(U), oracle_dense_evaluate(dense, U), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(T.to_dense(chunk_size=128), dense, rtol=1e-10, atol=1e-10)


@pytest.mark.slow
def test_csr_documents_kernel_vs_bruteforce_oracle():
    # documents of length 0, 1, 2 (skipped), exactly 3 (smallest allowed), and longer,
    # with repeated words (counts > 1)
    rows = [
        [0, 0, 0, 0, 0, 0],  # empty
        [1, 0, 0, 0, 0, 0],  # length 1: skipped
        [0, 2, 0, 0, 0, 0],  # length 2: skipped
        [1, 1, 1, 0, 0, 0],  # length 3, distinct words
        [0, 0, 3, 0, 0, 0],  # length 3, one word thrice
        [0, 2, 0, 0, 1, 0],  # length 3 with a repeat
        [2, 0, 1, 3, 0, 1],  # length 7
        [0, 1, 0, 1, 4, 1],  # length 7
    ]
    X = sp.csr_matrix(np.array(rows, dtype=float))
    rng = np.random.default_rng(0)
    W = rng.standard_normal((6, 3))
    T = ImplicitMomentTensor.from_documents(X, W)
    assert T.n_used == 5
    dense = oracle_whitened_doc_tensor(X, W)
    U = rng.standard_normal((3, 5))
    np.testing.assert_allclose(T.contract(U), oracle_dense_contract(dense, U), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(T.evaluate(U), oracle_dense_evaluate(dense, U), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(T.to_dense(chunk_size=3), dense, rtol=1e-10, atol=1e-10)
    # the reference O(nnz k L) kernel agrees with the regrouped one used by contract()
    P = T._payload
    out = np.empty((1, 3, 5))
    K.csr_docs_contract(P["indptr"], P["indices"].astype(np.int64), P["data"], P["scale"], W,
                        np.ascontiguousarray(U.T), 1, out)
    np.testing.assert_allclose(out[0], oracle_dense_contract(dense, U), rtol=1e-10, atol=1e-10)
    # the skipped documents change nothing
    T2 = ImplicitMomentTensor.from_documents(X[3:], W)
    np.testing.assert_allclose(T2.contract(U), T.contract(U), rtol=1e-12, atol=1e-12)


def test_csr_many_documents_blocks_deterministic():
    rng = np.random.default_rng(1)
    X = sp.random(1500, 40, density=0.1, random_state=2, format="csr")
    X.data = rng.integers(1, 4, X.data.size).astype(float)
    W = rng.standard_normal((40, 4))
    T = ImplicitMomentTensor.from_documents(X, W)
    U = rng.standard_normal((4, 7))
    a = T.contract(U)
    np.testing.assert_allclose(a, oracle_dense_contract(T.to_dense(), U), rtol=1e-10, atol=1e-10)
    import numba
    old = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        b = T.contract(U)
    finally:
        numba.set_num_threads(old)
    np.testing.assert_array_equal(a, b)


def test_only_short_documents_raises():
    X = sp.csr_matrix(np.array([[1, 1, 0], [0, 2, 0], [0, 0, 0]], dtype=float))
    with pytest.raises(ValueError, match="at least 3 tokens"):
        ImplicitMomentTensor.from_documents(X, np.ones((3, 2)))
    with pytest.raises(ValueError, match="W must have shape"):
        ImplicitMomentTensor.from_documents(X, np.ones((4, 2)))
