"""Tensor completion by alternating minimisation (Jain & Oh 2014, Alg. 1) and its COO kernels."""

import warnings

import numpy as np
import pytest

from latentkit._kernels.completion import (coo_als_update, coo_contract, coo_residual,
                                           coo_residual_update, cp_predict)
from latentkit.spectral._completion import (_COO, ObservedTensor, TensorCompletion,
                                            complete_tensor)
from latentkit.testing import (coo_als_update_oracle, coo_contract_oracle, coo_residual_oracle,
                               coo_residual_update_oracle, cp_predict_oracle)


def _random_coo(n=7, m=60, seed=0):
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, n, size=(m, 3))
    idx = np.unique(idx, axis=0)
    return _COO(idx[:, 0], idx[:, 1], idx[:, 2], rng.standard_normal(len(idx)), n), rng


def test_kernels_match_oracles():
    c, rng = _random_coo()
    n = c.n
    U = rng.standard_normal((n, 4))
    out = np.empty_like(U)
    coo_contract(c.rowptr, c.jj, c.kk, c.vals, 2.5, U, out)
    np.testing.assert_allclose(out, coo_contract_oracle(c.ii, c.jj, c.kk, c.vals, 2.5, U),
                               rtol=0, atol=1e-10)
    u = rng.standard_normal(n)
    resid = rng.standard_normal(c.size)
    unew = np.empty(n)
    coo_als_update(c.rowptr, c.jj, c.kk, resid, u, 0.7, unew)
    np.testing.assert_allclose(unew, coo_als_update_oracle(c.ii, c.jj, c.kk, resid, u, 0.7, n),
                               atol=1e-10)
    u2 = rng.standard_normal(n)
    r2 = resid.copy()
    coo_residual_update(c.rowptr, c.jj, c.kk, r2, u, 0.7, u2, 1.3)
    np.testing.assert_allclose(
        r2, coo_residual_update_oracle(c.ii, c.jj, c.kk, resid, u, 0.7, u2, 1.3), atol=1e-10)
    w = rng.standard_normal(3)
    F = rng.standard_normal((n, 3))
    r3 = np.empty(c.size)
    coo_residual(c.rowptr, c.jj, c.kk, c.vals, w, F, r3)
    np.testing.assert_allclose(r3, coo_residual_oracle(c.ii, c.jj, c.kk, c.vals, w, F),
                               atol=1e-10)
    A, B, C = (rng.standard_normal((n, 3)) for _ in range(3))
    p = np.empty(c.size)
    cp_predict(c.ii, c.jj, c.kk, w, A, B, C, p)
    np.testing.assert_allclose(p, cp_predict_oracle(c.ii, c.jj, c.kk, w, A, B, C), atol=1e-10)
    # the operator equals the dense (1/p) P_Omega(T) contraction
    dense = np.zeros((n, n, n))
    dense[c.ii, c.jj, c.kk] = c.vals
    op = ObservedTensor(c, 3.0)
    np.testing.assert_allclose(op.contract(U), 3.0 * np.einsum("ijk,jl,kl->il", dense, U, U),
                               atol=1e-10)


def jain_oh_instance(n, r, p, seed):
    """Orthonormal factors, unit weights, each of the n^3 entries observed independently."""
    rng = np.random.default_rng(seed)
    U, _ = np.linalg.qr(rng.standard_normal((n, r)))
    T = np.einsum("ir,jr,kr->ijk", U, U, U)
    idx = np.stack(np.unravel_index(np.flatnonzero(rng.random(n ** 3) < p), (n, n, n)), 1)
    return T, idx, T[idx[:, 0], idx[:, 1], idx[:, 2]]


def _recovery_rate(alpha, n_instances, n=50, r=3):
    p = alpha * np.sqrt(r) * np.log(n) / n ** 1.5
    ok = 0
    for s in range(n_instances):
        T, idx, v = jain_oh_instance(n, r, p, 1000 + s)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # failed instances may warn (divergence)
            res = complete_tensor(idx, v, n, r, symmetric=False, random_state=s)
        ok += np.linalg.norm(res.to_dense() - T) / np.linalg.norm(T) < 1e-7
    return ok / n_instances


def test_jain_oh_phase_transition():
    assert _recovery_rate(3.0, 20) >= 0.9
    assert _recovery_rate(0.5, 10) <= 0.2


def test_fit_error_geometric_to_machine_precision():
    n, r = 40, 3
    T, idx, v = jain_oh_instance(n, r, 0.1, 7)
    res = complete_tensor(idx, v, n, r, symmetric=False, tol=1e-14, max_iter=200,
                          random_state=0)
    e = res.fit_errors
    assert e[-1] < 1e-13
    assert np.linalg.norm(res.to_dense() - T) / np.linalg.norm(T) < 1e-12
    # linear convergence: log error against sweep is a straight line on [1e-13, 1e-2]
    sel = (e > 1e-13) & (e < 1e-2)
    t = np.flatnonzero(sel)
    assert t.size >= 4
    slope, icpt = np.polyfit(t, np.log10(e[sel]), 1)
    resid = np.log10(e[sel]) - (slope * t + icpt)
    assert slope < -0.3 and np.max(np.abs(resid)) < 1.0
    assert np.all(np.diff(e[1:]) < 0)  # monotone after the first sweep
    # predict on missing entries
    rng = np.random.default_rng(1)
    q = rng.integers(0, n, size=(50, 3))
    np.testing.assert_allclose(res.predict(q), T[q[:, 0], q[:, 1], q[:, 2]], atol=1e-11)


def test_symmetric_sampling_and_splitting():
    """Canonical triples stand for all permutations; sample splitting still recovers."""
    n, r = 30, 2
    rng = np.random.default_rng(3)
    U, _ = np.linalg.qr(rng.standard_normal((n, r)))
    w = np.array([2.0, 1.0])
    T = np.einsum("r,ir,jr,kr->ijk", w, U, U, U)
    I, J, K = np.meshgrid(*(np.arange(n),) * 3, indexing="ij")
    m = (I <= J) & (J <= K)
    cand = np.stack([I[m], J[m], K[m]], 1)
    idx = cand[rng.random(len(cand)) < 0.3]
    idx_shuffled = np.array([rng.permutation(t) for t in idx])  # any order of each triple
    vals = T[idx[:, 0], idx[:, 1], idx[:, 2]]
    res = complete_tensor(idx_shuffled, vals, n, r, random_state=0)
    np.testing.assert_allclose(res.to_dense(), T, atol=1e-9)
    n_perm = sum(len(set(__import__("itertools").permutations(t))) for t in map(tuple, idx))
    assert res.p == pytest.approx(n_perm / n ** 3, rel=1e-12)
    res2 = complete_tensor(idx, vals, (n, n, n), r, sample_splitting=3, random_state=0)
    assert np.linalg.norm(res2.to_dense() - T) / np.linalg.norm(T) < 1e-8
    # clipping at a generous mu leaves a good initialisation usable
    res3 = complete_tensor(idx, vals, n, r, mu=10.0, random_state=0)
    np.testing.assert_allclose(res3.to_dense(), T, atol=1e-9)


def test_duplicates_rule_and_class():
    n, r = 20, 1
    rng = np.random.default_rng(0)
    u = rng.standard_normal(n)
    u /= np.linalg.norm(u)
    idx = rng.integers(0, n, size=(900, 3))
    idx = np.unique(np.sort(idx, axis=1), axis=0)
    vals = 3 * u[idx[:, 0]] * u[idx[:, 1]] * u[idx[:, 2]]
    dup_idx = np.vstack([idx, idx[:5, ::-1]])  # same entries, permuted
    dup_vals = np.concatenate([vals, vals[:5]])
    with pytest.raises(ValueError, match="duplicated"):
        complete_tensor(dup_idx, dup_vals, n, r)
    res = complete_tensor(dup_idx, dup_vals, n, r, duplicates="average", random_state=0)
    assert res.weights[0] == pytest.approx(3.0, rel=1e-9)
    est = TensorCompletion(r, duplicates="average", random_state=0).fit(dup_idx, dup_vals, n)
    np.testing.assert_array_equal(est.factors_, res.factors)
    assert est.get_params()["duplicates"] == "average"
    idx_copy = dup_idx.copy()
    assert np.array_equal(idx_copy, dup_idx)  # input untouched


def test_bad_input():
    idx = np.array([[0, 1, 2], [1, 1, 1]])
    v = np.array([1.0, 2.0])
    with pytest.raises(ValueError, match="out of bounds"):
        complete_tensor(np.array([[0, 1, 5]]), [1.0], 5, 1)
    with pytest.raises(ValueError, match="out of bounds"):
        complete_tensor(np.array([[0, -1, 2]]), [1.0], 5, 1)
    with pytest.raises(ValueError, match=r"shape \(m, 3\)"):
        complete_tensor(np.array([[0, 1]]), [1.0], 5, 1)
    with pytest.raises(TypeError, match="integer"):
        complete_tensor(np.array([[0.5, 1, 2]]), [1.0], 5, 1)
    with pytest.raises(ValueError, match="one entry per row"):
        complete_tensor(idx, [1.0], 5, 1)
    with pytest.raises(ValueError, match="NaN"):
        complete_tensor(idx, [1.0, np.nan], 5, 1)
    with pytest.raises(ValueError, match="shape"):
        complete_tensor(idx, v, (5, 5, 6), 1)
    with pytest.raises(ValueError, match="rank"):
        complete_tensor(idx, v, 5, 6)
    with pytest.raises(ValueError, match="duplicates"):
        complete_tensor(idx, v, 5, 1, duplicates="first")
    with pytest.raises(ValueError, match="duplicated"):
        complete_tensor(np.array([[0, 1, 2], [0, 1, 2]]), v, 5, 1, symmetric=False)
    res = complete_tensor(idx, v, 5, 1, max_iter=2, random_state=0)
    with pytest.raises(ValueError, match="out of bounds"):
        res.predict([[0, 0, 9]])


def test_estimator_predicts_after_save_load(tmp_path):
    import latentkit
    rng = np.random.default_rng(0)
    n = 8
    u = np.linalg.qr(rng.standard_normal((n, 2)))[0]
    full = np.einsum("r,ir,jr,kr->ijk", np.array([3.0, 2.0]), u, u, u)
    idx = np.array([(i, j, k) for i in range(n) for j in range(i, n) for k in range(j, n)])
    est = TensorCompletion(2, random_state=0).fit(idx, full[tuple(idx.T)], n)
    latentkit.save(est, tmp_path / "tc.npz")
    back = latentkit.load(tmp_path / "tc.npz")
    query = np.array([[0, 1, 2], [7, 7, 3]])
    np.testing.assert_array_equal(back.predict(query), est.predict(query))
    np.testing.assert_allclose(back.predict(query), full[tuple(query.T)], atol=1e-8)
