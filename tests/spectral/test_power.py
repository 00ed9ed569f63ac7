"""Robust tensor power method: exact recovery, noise, operators, class forwarding, bad input."""

import inspect

import numpy as np
import pytest

from latentkit.spectral import RobustTensorPower, SymmetricTensor, robust_tensor_power
from latentkit.testing import match_components


def odeco(d, k, seed):
    rng = np.random.default_rng(seed)
    V = np.linalg.qr(rng.standard_normal((d, k)))[0]
    lam = rng.uniform(0.5, 5.0, k)
    return np.einsum("i,ai,bi,ci->abc", lam, V, V, V), lam, V


def vec_error(V_true, V_est):
    """max_i min(||v_i - v^||, ||v_i + v^||) after Hungarian matching."""
    perm, _ = match_components(V_true.T, V_est.T, "abs_cos")
    E = V_est[:, perm]
    signs = np.sign(np.sum(E * V_true, axis=0))
    return np.abs(E * signs - V_true).max(), perm


def test_exact_recovery_orthogonal_d50_k10():
    T, lam, V = odeco(50, 10, 0)
    res = robust_tensor_power(T, 10, random_state=1)
    err, perm = vec_error(V, res.eigenvectors)
    assert err < 1e-10
    np.testing.assert_allclose(res.eigenvalues[perm], lam, rtol=1e-10)
    assert np.all(np.diff(res.eigenvalues) <= 0)
    assert len(res.history) == 10 and all(h["converged"] for h in res.history)


def test_exact_recovery_non_orthogonal_after_whitening():
    rng = np.random.default_rng(3)
    d, k = 50, 10
    A = rng.standard_normal((d, k))  # linearly independent, not orthogonal
    A /= np.linalg.norm(A, axis=0)
    w = rng.dirichlet(np.ones(k)) + 0.02
    M2 = (A * w) @ A.T
    M3 = np.einsum("i,ai,bi,ci->abc", w, A, A, A)
    s, U = np.linalg.eigh(M2)
    U, s = U[:, -k:], s[-k:]
    W = U / np.sqrt(s)
    Tw = np.einsum("abc,ai,bj,ck->ijk", M3, W, W, W)
    res = robust_tensor_power(Tw, k, random_state=0)
    B = U * np.sqrt(s)
    A_est = B @ res.eigenvectors * res.eigenvalues
    w_est = res.eigenvalues ** -2.0
    perm, err = match_components(A.T, A_est.T, "l2")
    assert err.max() < 1e-10
    np.testing.assert_allclose(w_est[perm], w, rtol=1e-9)


def test_matches_explicit_deflation_on_noisy_tensor():
    # implicit deflation == explicit subtraction of the found components (reference)
    T, lam, V = odeco(12, 3, 5)
    rng = np.random.default_rng(0)
    E = rng.standard_normal(T.shape) * 0.01
    E = sum(E.transpose(p) for p in [(0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)]) / 6
    Tn = T + E
    res = robust_tensor_power(Tn, 3, random_state=2, tol=1e-13)
    # each found vector is a fixed point of the explicitly deflated tensor
    for i in range(3):
        order = res.history[i]["extraction_order"]
        prev = [j for j in range(3) if res.history[j]["extraction_order"] < order]
        Td = Tn - sum(res.eigenvalues[j] * np.einsum("a,b,c->abc", *[res.eigenvectors[:, j]] * 3)
                      for j in prev) if prev else Tn
        v = res.eigenvectors[:, i]
        g = np.einsum("ijk,j,k->i", Td, v, v)
        np.testing.assert_allclose(g / np.linalg.norm(g), v, atol=1e-9)
        np.testing.assert_allclose(np.linalg.norm(g), res.eigenvalues[i], rtol=1e-9)
    err, _ = vec_error(V, res.eigenvectors)
    assert err < 0.05  # Theorem 5.1: ||v - v^|| <= 8 eps / lambda


def test_user_operator_and_implicit_rows():
    # an operator object (not an array) is accepted: T = sum_t y_t^3 / n implicit
    rng = np.random.default_rng(0)
    k = 5
    V = np.linalg.qr(rng.standard_normal((k, k)))[0]
    lam = np.array([3.0, 2.5, 2.0, 1.5, 1.0])

    class Op:
        shape = (k, k, k)

        def contract(self, U):
            return V @ (lam[:, None] * (V.T @ U) ** 2)

        def evaluate(self, U):
            return (lam[:, None] * (V.T @ U) ** 3).sum(0)

    res = robust_tensor_power(Op(), k, random_state=0)
    err, _ = vec_error(V, res.eigenvectors)
    assert err < 1e-10
    np.testing.assert_allclose(res.eigenvalues, lam, rtol=1e-10)


def test_dense_kernel_path_equals_operator_path_on_noisy_tensor():
    # a dense array runs every phase in the numba kernel; wrapping the same array in a plain
    # operator runs the generic NumPy loop: both must reach the same fixed points
    from latentkit.spectral import SymmetricTensor as ST
    T, lam, V = odeco(15, 4, 8)
    E = np.random.default_rng(1).standard_normal(T.shape) * 0.02
    Tn = T + sum(E.transpose(p) for p in [(0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1),
                                          (2, 1, 0)]) / 6
    inner = ST(Tn)

    class Op:
        shape = Tn.shape

        def contract(self, U):
            return inner.contract(U)

        def evaluate(self, U):
            return inner.evaluate(U)

    fast = robust_tensor_power(Tn, 4, tol=1e-13, random_state=0)
    slow = robust_tensor_power(Op(), 4, tol=1e-13, random_state=0)
    np.testing.assert_allclose(fast.eigenvalues, slow.eigenvalues, rtol=1e-9)
    signs = np.sign(np.sum(fast.eigenvectors * slow.eigenvectors, axis=0))
    np.testing.assert_allclose(fast.eigenvectors, slow.eigenvectors * signs, atol=1e-8)
    assert all(h["converged"] for h in fast.history)
    assert [h["extraction_order"] for h in fast.history] == [h["extraction_order"] for h in slow.history]


def test_reproducible_and_seed_dependent_history():
    T, _, _ = odeco(10, 3, 1)
    a = robust_tensor_power(T, 3, random_state=7)
    b = robust_tensor_power(T, 3, random_state=np.random.default_rng(7))
    np.testing.assert_array_equal(a.eigenvectors, b.eigenvectors)
    np.testing.assert_array_equal(a.history[0]["scores"], b.history[0]["scores"])


def test_class_forwards_every_argument(monkeypatch):
    import latentkit.spectral._power as P
    seen = {}

    def fake(T, **kw):
        seen.update(kw)
        return P.TensorPowerResult(np.ones(1), np.ones((2, 1)), [{}])

    monkeypatch.setattr(P, "robust_tensor_power", fake)
    params = dict(n_components=1, n_restarts=3, n_iter=4, tol=1e-3, random_state=11,
                  check_symmetric=False)
    RobustTensorPower(**params).fit(np.zeros((2, 2, 2)))
    func_params = set(inspect.signature(robust_tensor_power).parameters) - {"T"}
    class_params = set(inspect.signature(RobustTensorPower.__init__).parameters) - {"self"}
    assert func_params == class_params
    assert seen == params


def test_class_equals_function():
    T, _, _ = odeco(8, 2, 4)
    est = RobustTensorPower(2, n_restarts=5, random_state=3).fit(T)
    res = robust_tensor_power(T, 2, n_restarts=5, random_state=3)
    np.testing.assert_array_equal(est.eigenvectors_, res.eigenvectors)
    np.testing.assert_allclose(est.reconstruct(), T, atol=1e-12)


def test_bad_input():
    T, _, _ = odeco(6, 2, 0)
    with pytest.raises(ValueError, match="n_components=7 exceeds"):
        robust_tensor_power(T, 7)
    bad = T.copy()
    bad[0, 1, 2] += 1.0
    with pytest.raises(ValueError, match="symmetric"):
        robust_tensor_power(bad, 2)
    nan = T.copy()
    nan[0, 0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        robust_tensor_power(nan, 2)
    with pytest.raises(ValueError, match=r"shape \(d, d, d\)"):
        robust_tensor_power(np.zeros((3, 3)), 1)
    with pytest.raises(ValueError, match="exceeds its rank"):
        robust_tensor_power(T, 4)  # rank-2 tensor: the third component is zero
    with pytest.raises(TypeError, match="n_restarts"):
        robust_tensor_power(T, 2, n_restarts=2.5)
    with pytest.raises(TypeError, match="contract"):
        robust_tensor_power("abc", 1)
    with pytest.raises(ValueError, match="shape"):
        SymmetricTensor(T).contract(np.ones((5, 2)))


def test_class_history_round_trips_through_save_load(tmp_path):
    import latentkit
    T, _, _ = odeco(8, 3, 5)
    est = RobustTensorPower(3, n_restarts=4, random_state=0).fit(T)
    latentkit.save(est, tmp_path / "rtpm.npz")
    back = latentkit.load(tmp_path / "rtpm.npz")
    np.testing.assert_array_equal(back.eigenvectors_, est.eigenvectors_)
    assert len(back.history_) == 3
    for ha, hb in zip(est.history_, back.history_):
        assert ha.keys() == hb.keys()
        for key in ha:
            np.testing.assert_array_equal(ha[key], hb[key])
