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
