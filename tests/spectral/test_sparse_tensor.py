"""Truncated tensor power method (Sun, Lu, Liu & Cheng 2017) and sparse spectral clustering."""

import gzip
import os
from itertools import permutations

import numpy as np
import pytest
from sklearn.metrics import adjusted_rand_score

from latentkit.spectral._sparse import (SparseSpectralGMM, ThirdCumulantTensor,
                                        TruncatedTensorPower, select_rank_sparsity,
                                        sparse_spectral_gmm, truncated_tensor_power)
from latentkit.testing import mode_contract_oracle

DIMS = (40, 30, 20)


def planted(seed, sigma=0.1, s=5, w=(20.0, 15.0, 10.0)):
    """Rank 3, 5 non-zeros per mode with magnitudes in [0.5, 1] before normalisation."""
    rng = np.random.default_rng(seed)
    F = []
    for d in DIMS:
        M = np.zeros((d, 3))
        for j in range(3):
            idx = rng.choice(d, s, replace=False)
            v = rng.uniform(0.5, 1.0, s) * rng.choice([-1, 1], s)
            M[idx, j] = v / np.linalg.norm(v)
        F.append(M)
    T = np.einsum("r,ir,jr,kr->ijk", np.array(w), *F) + sigma * rng.standard_normal(DIMS)
    return T, np.array(w), F


def component_error(factors, F):
    """Mean over components and modes of the sign-aware error, best permutation."""
    best = np.inf
    for p in permutations(range(3)):
        e = np.mean([[min(np.linalg.norm(factors[m][:, p[j]] - F[m][:, j]),
                          np.linalg.norm(factors[m][:, p[j]] + F[m][:, j])) for m in range(3)]
                     for j in range(3)])
        best = min(best, e)
    return best


def test_ttp_recovers_supports_and_beats_dense_power():
    seed = 0
    T, w, F = planted(seed, sigma=0.25)
    T0 = T.copy()
    res = truncated_tensor_power(T, 3, 5, random_state=seed)
    assert np.array_equal(T, T0)
    for m in range(3):
        found = {tuple(np.flatnonzero(res.factors[m][:, i])) for i in range(3)}
        truth = {tuple(np.flatnonzero(F[m][:, j])) for j in range(3)}
        assert found == truth
    np.testing.assert_allclose(np.sort(res.weights), np.sort(w), rtol=0.05)
    dense = truncated_tensor_power(T, 3, None, random_state=seed)
    e_sparse = component_error(res.factors, F)
    e_dense = component_error(dense.factors, F)
    assert e_sparse < 0.7 * e_dense
    assert e_sparse < 0.1


def test_random_init_and_class_forwarding():
    T, w, F = planted(2, sigma=0.1)
    res = truncated_tensor_power(T, 3, (5, 5, 5), init="random", n_init=30, random_state=0)
    assert component_error(res.factors, F) < 0.05
    est = TruncatedTensorPower(3, (5, 5, 5), init="random", n_init=30, random_state=0).fit(T)
    for a, b in zip(est.factors_, res.factors):
        np.testing.assert_array_equal(a, b)


@pytest.mark.slow
def test_bic_selects_rank_three():
    T, w, F = planted(0, sigma=0.25)
    best, table = select_rank_sparsity(T, [2, 3, 4], [3, 5, (40, 30, 20)], random_state=0,
                                       n_init=27)
    assert best["rank"] == 3
    assert best["sparsity"] == 5
    assert len(table) == 9


def test_third_cumulant_tensor_matches_dense():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((50, 6)) ** 2
    Tc = ThirdCumulantTensor(X)
    Xc = X - X.mean(0)
    dense = np.einsum("ti,tj,tk->ijk", Xc, Xc, Xc) / 50
    Y, Z = rng.standard_normal((6, 3)), rng.standard_normal((6, 3))
    np.testing.assert_allclose(Tc.mode_contract(0, Y, Z),
                               np.einsum("ijk,jl,kl->il", dense, Y, Z), atol=1e-10)


def _golub():
    path = "/work/shared/data/golub_leukemia/golub_dudoit_38x3051.csv.gz"
    try:
        from latentkit.datasets import load_golub
        data = load_golub(kind="dudoit")
        X = np.asarray(data.data if hasattr(data, "data") else data[0], dtype=float)
        y = np.asarray(data.target if hasattr(data, "target") else data[1])
        y = np.array([str(v) in ("AML", "1") for v in y], dtype=int)
        if X.shape == (38, 3051):
            return X, y
    except Exception:  # the loader is another module's; fall back to the shared file
        pass
    if not os.path.exists(path):
        pytest.fail("Golub data not found (neither latentkit.datasets.load_golub nor " + path)
    with gzip.open(path, "rt") as fh:
        rows = [line.rstrip("\n").split(",") for line in fh.readlines()[1:]]
    y = np.array([r[1] == "AML" for r in rows], dtype=int)
    X = np.array([[float(v) for v in r[2:]] for r in rows])
    return X, y


def test_golub_all_vs_aml():
    X, y = _golub()
    res = sparse_spectral_gmm(X, 2, 200, random_state=0)
    ari = adjusted_rand_score(y, res.labels)
    assert ari >= 0.6
    assert 0 < res.selected_features.size <= 200
    assert res.means.shape == (2, 3051) and res.weights.sum() == pytest.approx(1.0)
    print(f"Golub: ARI {ari:.3f} with {res.selected_features.size} selected genes")


def test_sparse_gmm_class_forwards_and_planted_mixture():
    """Two clusters differing in 5 of 200 features (weights 0.7/0.3): exact support found."""
    rng = np.random.default_rng(0)
    n, d = 300, 200
    y = (rng.random(n) < 0.3).astype(int)
    X = rng.standard_normal((n, d))
    X[:, :5] += 4.0 * y[:, None]
    res = sparse_spectral_gmm(X, 2, 5, random_state=0)
    assert set(res.selected_features) == set(range(5))
    assert adjusted_rand_score(y, res.labels) > 0.9
    est = SparseSpectralGMM(2, 5, random_state=0).fit(X)
    np.testing.assert_array_equal(est.labels_, res.labels)


def test_bad_input():
    T, _, _ = planted(0)
    with pytest.raises(ValueError, match="sparsity"):
        truncated_tensor_power(T, 2, 41)
    with pytest.raises(ValueError, match="sparsity"):
        truncated_tensor_power(T, 2, (5, 31, 5))
    with pytest.raises(ValueError, match="sparsity"):
        truncated_tensor_power(T, 2, 0)
    with pytest.raises(TypeError, match="sparsity"):
        truncated_tensor_power(T, 2, (5, 5))
    with pytest.raises(ValueError, match="init"):
        truncated_tensor_power(T, 2, 5, init="svd")
    with pytest.raises(ValueError, match="third-order"):
        truncated_tensor_power(np.zeros((3, 3)), 1, 1)
    with pytest.raises(ValueError, match="NaN"):
        truncated_tensor_power(np.full((3, 3, 3), np.nan), 1, 1)
    with pytest.raises(ValueError, match="rank"):
        truncated_tensor_power(T, 0, 5)
    X = np.random.default_rng(0).standard_normal((10, 4))
    with pytest.raises(ValueError, match="sparsity"):
        sparse_spectral_gmm(X, 2, 5)
    with pytest.raises(ValueError, match="n_components"):
        sparse_spectral_gmm(X, 1, 2)


def test_mode_contract_kernel_matches_einsum_oracle():
    from latentkit._kernels.sparse_tensor import mode_contract
    rng = np.random.default_rng(3)
    T = rng.standard_normal((5, 6, 7))
    dims = T.shape
    others = {0: (1, 2), 1: (0, 2), 2: (0, 1)}
    for mode, (a, b) in others.items():
        Y, Z = rng.standard_normal((dims[a], 4)), rng.standard_normal((dims[b], 4))
        out = np.empty((dims[mode], 4))
        mode_contract(T, mode, Y, Z, out)
        np.testing.assert_allclose(out, mode_contract_oracle(T, mode, Y, Z), rtol=0, atol=1e-10)


def test_spectral_gmm_sparsity_on_golub():
    """SpectralGMM(sparsity=...) on Golub (38 x 3,051, ALL/AML) through latentkit.datasets."""
    from latentkit.datasets import load_golub
    from latentkit.spectral import SpectralGMM
    data = load_golub(kind="dudoit")
    X, y = data.data, data.target
    est = SpectralGMM(2, sparsity=100, random_state=0).fit(X)
    ari = adjusted_rand_score(y, est.labels_)
    n_sel = est.selected_features_.size
    print(f"Golub, SpectralGMM(2, sparsity=100): ARI {ari:.3f} with {n_sel} selected genes")
    assert ari >= 0.6
    assert 0 < n_sel <= 100
    np.testing.assert_array_equal(est.predict(X), est.labels_)
    resid = X - est.means_[est.labels_]
    assert est.sigma2_ == pytest.approx((resid ** 2).sum() / ((38 - 2) * 3051), rel=1e-12)


def test_spectral_gmm_sparsity_planted_mixture(tmp_path):
    """Two clusters differing in 5 of 200 features (weights 0.7/0.3, unit noise)."""
    import latentkit
    from latentkit.spectral import SpectralGMM
    rng = np.random.default_rng(0)
    n, d = 300, 200
    y = (rng.random(n) < 0.3).astype(int)
    X = rng.standard_normal((n, d))
    X[:, :5] += 4.0 * y[:, None]
    est = SpectralGMM(2, sparsity=5, random_state=0).fit(X)
    assert set(est.selected_features_) == set(range(5))
    assert adjusted_rand_score(y, est.labels_) > 0.9
    big = int(np.argmax(est.weights_))  # the 0.7 cluster is the one without the shift
    np.testing.assert_allclose(np.sort(est.weights_), [0.3, 0.7], atol=0.06)
    np.testing.assert_allclose(est.means_[1 - big, :5] - est.means_[big, :5], 4.0, atol=0.5)
    assert abs(est.sigma2_ - 1.0) < 0.05  # unit noise
    np.testing.assert_allclose(est.covariances_, est.sigma2_)
    np.testing.assert_array_equal(est.predict(X), est.labels_)
    # the hyper-parameters reach sparse_spectral_gmm (n_restarts -> n_init, n_iter, tol, rng)
    ref = sparse_spectral_gmm(X, 2, 5, n_init=20, n_iter=100, tol=1e-8, random_state=0)
    np.testing.assert_array_equal(est.labels_, ref.labels)
    # (fit limits BLAS to one thread: last-bit differences only)
    np.testing.assert_allclose(est.components_, ref.components, rtol=1e-12, atol=1e-15)
    latentkit.save(est, tmp_path / "sgmm.npz")
    back = latentkit.load(tmp_path / "sgmm.npz")
    np.testing.assert_array_equal(back.predict(X), est.labels_)
    assert back.whitening_ is None and back.history_ is None
    dense = est.set_params(sparsity=None).fit(X)  # a refit forgets the sparse attributes
    assert not hasattr(dense, "selected_features_") and dense.whitening_ is not None
    with pytest.raises(ValueError, match="sparsity"):
        SpectralGMM(2, sparsity=201).fit(X)
    with pytest.raises(TypeError, match="sparsity"):
        SpectralGMM(2, sparsity=2.5).fit(X)
    with pytest.raises(ValueError, match="n_components"):
        SpectralGMM(1, sparsity=5).fit(X)
