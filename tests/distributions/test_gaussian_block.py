"""The shared Gaussian block: kernels vs naive oracles (1e-10), functions vs scikit-learn's
private reference implementation and vs textbook formulas, statistics algebra, collapse
handling."""

import warnings

import numpy as np
import pytest
from sklearn.mixture import _gaussian_mixture as skg

from latentkit._kernels import gaussian as kern
from latentkit.distributions import (COVARIANCE_TYPES, CollapsedComponentWarning, GaussianStats,
                                     accumulate_gaussian_stats, check_gaussian_parameters,
                                     compute_precision_cholesky, covariance_shape,
                                     covariances_from_precisions, estimate_gaussian_parameters,
                                     gaussian_mixture_e_step, log_gaussian_prob,
                                     n_gaussian_parameters, precision_cholesky_from_precisions,
                                     precisions_from_cholesky, sample_gaussian)
from latentkit.testing import (oracle_gaussian_stats, oracle_log_gaussian_prob,
                               oracle_log_resp)

K, D = 3, 4


def _data(n=300, seed=0, offset=5.0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, D)) @ rng.normal(size=(D, D)) + offset
    resp = rng.dirichlet(np.ones(K), size=n)
    w = rng.uniform(0.2, 2.0, size=n)
    return X, resp, w


def _params(ct, seed=1):
    rng = np.random.default_rng(seed)
    means = rng.normal(size=(K, D)) + 5.0
    A = rng.normal(size=(K, D, D))
    full = A @ A.transpose(0, 2, 1) + D * np.eye(D)
    cov = {"full": full, "tied": full[0], "diag": rng.uniform(0.5, 2.0, size=(K, D)),
           "spherical": rng.uniform(0.5, 2.0, size=K)}[ct]
    return means, cov


@pytest.mark.parametrize("ct", COVARIANCE_TYPES)
def test_stats_match_oracle_and_shift_is_exact(ct):
    X, resp, w = _data()
    shift = X.mean(axis=0)
    got = accumulate_gaussian_stats(X, resp, ct, sample_weight=w, shift=shift)
    want = oracle_gaussian_stats(X, resp, ct, sample_weight=w, shift=shift)
    for g, o in zip(got, want):
        np.testing.assert_allclose(g, o, rtol=1e-10, atol=1e-10)
    assert got[2].shape == (covariance_shape(ct, K, D) if ct != "spherical" else (K,))
    # the M-step does not depend on the shift (up to rounding)
    m1, c1, _ = estimate_gaussian_parameters(*got, ct, shift=shift)
    m0, c0, _ = estimate_gaussian_parameters(
        *accumulate_gaussian_stats(X, resp, ct, sample_weight=w), ct)
    np.testing.assert_allclose(m1, m0, rtol=1e-10)
    np.testing.assert_allclose(c1, c0, rtol=1e-8)


@pytest.mark.kernel_sensitive
@pytest.mark.parametrize("ct", COVARIANCE_TYPES)
def test_m_step_equals_sklearn(ct):
    X, resp, _ = _data()
    nk, means, cov = skg._estimate_gaussian_parameters(X, resp, 1e-6, ct)
    shift = X.mean(axis=0)
    m, c, collapsed = estimate_gaussian_parameters(
        *accumulate_gaussian_stats(X, resp, ct, shift=shift), ct, reg_covar=1e-6, shift=shift)
    np.testing.assert_allclose(m, means, rtol=1e-12)
    np.testing.assert_allclose(c, cov, rtol=1e-10)
    assert not collapsed.any()
    prec_chol, c2 = compute_precision_cholesky(c, ct)
    assert c2 is c or np.array_equal(c2, c)
    np.testing.assert_allclose(prec_chol, skg._compute_precision_cholesky(cov, ct), rtol=1e-9)


@pytest.mark.kernel_sensitive
@pytest.mark.parametrize("ct", COVARIANCE_TYPES)
def test_log_prob_matches_oracle_and_sklearn(ct):
    X, _, _ = _data(n=200)
    means, cov = _params(ct)
    pc, _ = compute_precision_cholesky(cov, ct)
    lp = log_gaussian_prob(X, means, pc, ct)
    np.testing.assert_allclose(lp, oracle_log_gaussian_prob(X, means, cov, ct), rtol=1e-10)
    np.testing.assert_allclose(lp, skg._estimate_log_gaussian_prob(X, means, pc, ct),
                               rtol=1e-10)
    np.testing.assert_allclose(log_gaussian_prob(X, means, pc, ct, shift=X.mean(0)), lp,
                               rtol=1e-10)


@pytest.mark.parametrize("ct", COVARIANCE_TYPES)
def test_precision_round_trips(ct):
    _, cov = _params(ct)
    pc, _ = compute_precision_cholesky(cov, ct)
    prec = precisions_from_cholesky(pc, ct)
    np.testing.assert_allclose(covariances_from_precisions(prec, ct), cov, rtol=1e-10)
    pc2 = precision_cholesky_from_precisions(prec, ct)
    np.testing.assert_allclose(precisions_from_cholesky(pc2, ct), prec, rtol=1e-10)
    np.testing.assert_array_equal(
        pc2, skg._compute_precision_cholesky_from_precisions(prec, ct, xp=np))
    if ct in ("full", "tied"):
        u = pc.reshape(-1, D, D)
        assert np.allclose(np.tril(u, -1), 0.0)  # upper triangular like scikit-learn


@pytest.mark.slow
@pytest.mark.parametrize("ct", COVARIANCE_TYPES)
def test_fused_e_step_matches_oracles(ct):
    X, _, w = _data(n=5000, seed=3)  # several row chunks
    means, cov = _params(ct)
    pc, _ = compute_precision_cholesky(cov, ct)
    logw = np.log(np.array([0.2, 0.3, 0.5]))
    shift = X.mean(axis=0)
    st, lr = gaussian_mixture_e_step(X, logw, means, pc, ct, sample_weight=w, shift=shift,
                                     return_log_resp=True)
    log_rho = oracle_log_gaussian_prob(X, means, cov, ct) + logw
    o_lr, o_resp, o_lse = oracle_log_resp(log_rho, w)
    np.testing.assert_allclose(lr, o_lr, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(st.data_term, w @ o_lse, rtol=1e-10)
    assert st.n == pytest.approx(w.sum(), rel=1e-14)
    nk, sx, sxx = oracle_gaussian_stats(X, np.exp(o_lr), ct, sample_weight=w, shift=shift)
    np.testing.assert_allclose(st.nk, nk, rtol=1e-10)
    np.testing.assert_allclose(st.sx, sx, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(st.sxx, sxx, rtol=1e-10)
    # chunks add up (statistics are a monoid)
    parts = [gaussian_mixture_e_step(X[a:a + 1700], logw, means, pc, ct,
                                     sample_weight=w[a:a + 1700], shift=shift)
             for a in range(0, 5000, 1700)]
    total = sum(parts, GaussianStats.empty(K, D, ct))
    assert total.allclose(st, rtol=1e-10, atol=1e-8)


def test_kernels_match_oracle_directly():
    rng = np.random.default_rng(5)
    n, k, d = 261, 4, 3  # not a multiple of the tile
    X = rng.normal(size=(n, d)) + 2.0
    c = X.mean(0)
    w = rng.uniform(0, 2, size=n)
    means, cov = rng.normal(size=(k, d)), None
    A = rng.normal(size=(k, d, d))
    cov = A @ A.transpose(0, 2, 1) + d * np.eye(d)
    U, _ = compute_precision_cholesky(cov, "full")
    const = rng.normal(size=k)
    T = kern.n_blocks_for(n, k, d)
    nk, sx, sxx = np.zeros((T, k)), np.zeros((T, k, d)), np.zeros((T, k, d, d))
    lse, lr = np.empty(n), np.empty((n, k))
    bvec = np.einsum("kd,kde->ke", means - c, U)
    kern.mixture_estep_full(X, c, U, bvec, const, w, nk, sx, sxx, lse, lr)
    maha = np.stack([(((X - means[j]) @ U[j]) ** 2).sum(1) for j in range(k)], axis=1)
    o_lr, o_r, o_lse = oracle_log_resp(const - 0.5 * maha, w)
    np.testing.assert_allclose(lr, o_lr, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(lse, o_lse, rtol=1e-10)
    o_nk, o_sx, o_sxx = oracle_gaussian_stats(X, np.exp(o_lr), "full", sample_weight=w, shift=c)
    np.testing.assert_allclose(nk.sum(0), o_nk, rtol=1e-10)
    np.testing.assert_allclose(sx.sum(0), o_sx, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(np.triu(sxx.sum(0)), np.triu(o_sxx), rtol=1e-10, atol=1e-10)
    # diagonal kernel
    prec = rng.uniform(0.5, 2.0, size=(k, d))
    nk, sx, sxx = np.zeros((T, k)), np.zeros((T, k, d)), np.zeros((T, k, d))
    kern.mixture_estep_diag(X, c, means - c, prec, const, w, nk, sx, sxx, lse, lr)
    maha = np.stack([(((X - means[j]) ** 2) * prec[j]).sum(1) for j in range(k)], axis=1)
    o_lr, _, o_lse = oracle_log_resp(const - 0.5 * maha, w)
    np.testing.assert_allclose(lr, o_lr, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(lse, o_lse, rtol=1e-10)
    o_nk, o_sx, o_sxx = oracle_gaussian_stats(X, np.exp(o_lr), "diag", sample_weight=w, shift=c)
    np.testing.assert_allclose(sxx.sum(0), o_sxx, rtol=1e-10)
    # extreme distances: no overflow, rows still normalised, zero weights contribute nothing
    far = X.copy()
    far[0] = 1e6
    nk0 = np.zeros((T, k))
    kern.mixture_estep_diag(far, c, means - c, prec, const, np.ones(n), nk0, sx * 0, sxx * 0,
                            lse, lr)
    assert np.all(np.isfinite(lr[0])) and np.exp(lr[0]).sum() == pytest.approx(1.0)
    with pytest.raises(ValueError, match="C-contiguous float64"):
        kern.mixture_estep_diag(X[:, ::2], c, means - c, prec, const, w, nk, sx, sxx, lse, lr)


def test_e_step_is_independent_of_thread_count():
    import numba

    X, _, w = _data(n=3000, seed=9)
    means, cov = _params("full")
    pc, _ = compute_precision_cholesky(cov, "full")
    logw = np.log(np.array([0.2, 0.3, 0.5]))
    ref = gaussian_mixture_e_step(X, logw, means, pc, "full", sample_weight=w)
    old = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = gaussian_mixture_e_step(X, logw, means, pc, "full", sample_weight=w)
    finally:
        numba.set_num_threads(old)
    assert one == ref  # bit for bit


def test_collapsed_component_warns_and_stays_finite():
    rng = np.random.default_rng(0)
    X = np.vstack([np.repeat([[1.0, 2.0, 3.0]], 10, axis=0), rng.normal(size=(50, 3))])
    resp = np.zeros((60, 2))
    resp[:10, 0] = 1.0
    resp[10:, 1] = 1.0
    with pytest.warns(CollapsedComponentWarning, match=r"component\(s\) \[0\]"):
        means, cov, collapsed = estimate_gaussian_parameters(
            *accumulate_gaussian_stats(X, resp, "full"), "full", reg_covar=1e-6)
    assert collapsed.tolist() == [True, False]
    np.testing.assert_allclose(means[0], [1.0, 2.0, 3.0], rtol=1e-12)
    np.testing.assert_allclose(cov[0], 1e-6 * np.eye(3), atol=1e-12)
    pc, _ = compute_precision_cholesky(cov, "full")
    assert np.all(np.isfinite(pc))
    # an empty component: mean at the shift, covariance reg_covar I, no NaN
    resp2 = np.zeros((60, 2))
    resp2[:, 1] = 1.0
    with pytest.warns(CollapsedComponentWarning):
        means, cov, collapsed = estimate_gaussian_parameters(
            *accumulate_gaussian_stats(X, resp2, "diag", shift=X.mean(0)), "diag",
            shift=X.mean(0))
    assert collapsed[0] and np.all(np.isfinite(means)) and np.all(cov > 0)


@pytest.mark.parametrize("ct", COVARIANCE_TYPES)
def test_non_positive_definite_is_repaired_with_warning(ct):
    shape = covariance_shape(ct, 2, 3)
    bad = np.zeros(shape)
    if ct in ("full", "tied"):
        m = np.array([[1.0, 2.0, 0.0], [2.0, 1.0, 0.0], [0.0, 0.0, 1.0]])  # eigenvalue -1
        bad[...] = m
    else:
        bad[...] = 1.0
        bad.reshape(-1)[0] = -0.5
    with pytest.warns(CollapsedComponentWarning, match="re-regularised"):
        pc, fixed = compute_precision_cholesky(bad, ct, reg_covar=1e-6)
    assert np.all(np.isfinite(pc)) and fixed is not bad
    np.testing.assert_allclose(precisions_from_cholesky(pc, ct),
                               np.linalg.inv(fixed) if ct in ("full", "tied") else 1 / fixed,
                               rtol=1e-6)
    with pytest.raises(ValueError, match="not positive"):
        compute_precision_cholesky(bad, ct, repair=False)


def test_parameter_checks_and_counts():
    with pytest.raises(ValueError, match="covariance_type"):
        covariance_shape("banana", 2, 2)
    with pytest.raises(ValueError, match=r"must have shape \(2, 3, 3\)"):
        check_gaussian_parameters("init['covariances']", np.eye(3), "full", 2, 3)
    with pytest.raises(ValueError, match="not symmetric"):
        check_gaussian_parameters("c", np.array([[1.0, 0.5], [0.0, 1.0]]), "tied", 2, 2)
    with pytest.raises(ValueError, match="positive"):
        check_gaussian_parameters("c", np.array([1.0, -1.0]), "spherical", 2, 2)
    # free parameters agree with scikit-learn's count (minus the K - 1 weights)
    from sklearn.mixture import GaussianMixture as SK
    for ct in COVARIANCE_TYPES:
        sk = SK(3, covariance_type=ct).fit(np.random.default_rng(0).normal(size=(40, 4)))
        assert n_gaussian_parameters(3, 4, ct) + 2 == sk._n_parameters()


@pytest.mark.parametrize("ct", ["full", "tied", "diag", "spherical"])
def test_sample_gaussian_moments(ct):
    means, cov = _params(ct)
    rng = np.random.default_rng(0)
    X, labels = sample_gaussian(means, cov, ct, np.array([20000, 10, 5]), rng)
    assert X.shape == (20015, D) and np.bincount(labels).tolist() == [20000, 10, 5]
    x0 = X[labels == 0]
    c0 = {"full": cov[0] if ct == "full" else None, "tied": cov,
          "diag": np.diag(cov[0]) if ct == "diag" else None,
          "spherical": cov[0] * np.eye(D) if ct == "spherical" else None}[ct]
    # standard errors at n = 20000: ~0.7% of the scale; 5 sigma
    scale = np.sqrt(np.diag(c0))
    assert np.all(np.abs(x0.mean(0) - means[0]) < 5 * scale / np.sqrt(20000))
    np.testing.assert_allclose(np.cov(x0.T), c0, atol=0.05 * np.abs(c0).max())
