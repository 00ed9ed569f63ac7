"""The single-topic spectral start on an indefinite pair moment (issue 43: the start fell back
on the Debian descriptions, whose pair moment without its diagonal term has negative
eigenvalues as large as its positive ones)."""

import numpy as np
import pytest
from scipy.sparse.linalg import LinearOperator

from latentkit.exceptions import InputError
from latentkit.spectral import whiten
from latentkit.topic._dmm_start import algebraic_whitening


def _indefinite(V=300, K=6, n_negative=40, seed=0):
    """A symmetric operator with K small positive eigenvalues and many larger negative ones."""
    rng = np.random.default_rng(seed)
    Q = np.linalg.qr(rng.standard_normal((V, V)))[0]
    s = np.zeros(V)
    s[:K] = np.linspace(1.0, 0.5, K)
    s[K:K + n_negative] = -np.linspace(3.0, 1.0, n_negative)
    A = (Q * s) @ Q.T
    A = (A + A.T) / 2
    op = LinearOperator((V, V), matvec=lambda z: A @ z, matmat=lambda Z: A @ Z, dtype=float)
    return A, op, s[:K], Q[:, :K]


def test_algebraic_whitening_finds_the_positive_eigenpairs_a_range_finder_misses():
    A, op, s, U = _indefinite()
    # the range finder (largest magnitude) sees the negative directions first: the failure
    # of init='spectral' on the Debian descriptions
    with pytest.raises(ValueError, match="exceeds the rank"):
        whiten(op, 6, random_state=np.random.default_rng(0))
    wh = algebraic_whitening(op, 6, np.random.default_rng(0))
    # 1e-10: ARPACK converges to its default tolerance (machine precision) on a 300 x 300
    # operator with a spectral gap of 0.1 between the wanted eigenvalues
    np.testing.assert_allclose(wh.eigenvalues, s, atol=1e-10)
    np.testing.assert_allclose(wh.W.T @ A @ wh.W, np.eye(6), atol=1e-10)
    np.testing.assert_allclose(np.abs(wh.eigenvectors.T @ U), np.eye(6), atol=1e-8)


def test_algebraic_whitening_raises_below_k_positive_eigenvalues():
    _, op, _, _ = _indefinite(V=120, K=3, n_negative=20)
    with pytest.raises(InputError, match="positive eigenvalues"):
        algebraic_whitening(op, 5, np.random.default_rng(0))


def test_dense_and_tiny_inputs_use_the_exact_eigendecomposition():
    A, op, s, _ = _indefinite(V=8, K=3, n_negative=3)
    # a dense array: whiten's eigh; an operator with K < V - 1: Lanczos; both exact (1e-12 on
    # an 8 x 8 matrix)
    for m2 in (A, op):
        np.testing.assert_allclose(algebraic_whitening(m2, 3, np.random.default_rng(0))
                                   .eigenvalues, s, atol=1e-12)
    # K >= V - 1 (ARPACK needs k < V): the operator is densified; 3 positive eigenvalues < 7
    with pytest.raises(ValueError, match="exceeds the rank"):
        algebraic_whitening(op, 7, np.random.default_rng(0))


def test_no_convergence_is_a_value_error_the_start_falls_back_on(monkeypatch):
    import scipy.sparse.linalg as sla

    import latentkit.topic._dmm_start as start

    def no_convergence(*args, **kwargs):
        raise sla.ArpackNoConvergence("ARPACK error -1: No convergence", np.zeros(0),
                                      np.zeros((0, 0)))

    monkeypatch.setattr(start, "eigsh", no_convergence)
    _, op, _, _ = _indefinite(V=60, K=3, n_negative=5)
    with pytest.raises(InputError, match="did not converge"):
        algebraic_whitening(op, 3, np.random.default_rng(0))
