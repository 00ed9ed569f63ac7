"""Missing data marginalised exactly (issue 15 item 1): GaussianMixture(missing='marginalize')
against brute-force marginal likelihoods and a row-by-row oracle of the expected statistics,
equality with today's fit on complete data, the common contract on data with NaN, real data
with 20% of the entries removed, imputation, bad input."""

import numpy as np
import pytest
from scipy.special import logsumexp

from latentkit.datasets import load_old_faithful, load_wine, make_gmm
from latentkit.distributions import COVARIANCE_TYPES, compute_precision_cholesky
from latentkit.distributions._missing import (conditional_impute, group_missing_patterns,
                                              marginal_log_gaussian_prob,
                                              missing_gaussian_e_step)
from latentkit.mixture import GaussianMixture
from latentkit.testing import check_latent_model
from latentkit.testing._oracles_missing import (oracle_conditional, oracle_marginal_log_prob,
                                                oracle_missing_stats)
from latentkit.testing._oracles_gaussian import _full_cov


def _mcar(X, frac, seed):
    """X with a missing-completely-at-random mask; row 0 fully missing, row 1 complete."""
    rng = np.random.default_rng(seed)
    M = rng.random(X.shape) < frac
    M[0] = True
    M[1] = False
    return np.where(M, np.nan, X), M


def _random_params(ct, K, D, rng):
    A = rng.normal(size=(K, D, D))
    cov = {"full": A @ A.transpose(0, 2, 1) + np.eye(D), "tied": A[0] @ A[0].T + np.eye(D),
           "diag": rng.uniform(0.5, 2.0, (K, D)), "spherical": rng.uniform(0.5, 2.0, K)}[ct]
    return rng.dirichlet(np.ones(K)), rng.normal(size=(K, D)), cov


@pytest.mark.slow
@pytest.mark.parametrize("ct", COVARIANCE_TYPES)
def test_block_matches_row_by_row_oracle(ct):
    """Marginal log densities, data term, responsibilities and the expected complete-data
    statistics against the textbook formulas row by row (Sigma_mo Sigma_oo^-1, scipy)."""
    rng = np.random.default_rng(1)
    n, D, K = 120, 4, 3
    X = rng.normal(size=(n, D)) * [1.0, 2.0, 3.0, 0.5] + 5.0
    Xm, _ = _mcar(X, 0.35, 2)
    w = rng.uniform(0.5, 2.0, n)
    shift = X.mean(axis=0)
    weights, means, cov = _random_params(ct, K, D, rng)
    pc, _ = compute_precision_cholesky(cov, ct)
    lp = marginal_log_gaussian_prob(Xm, means, pc, ct, shift=shift)
    ref_lp = oracle_marginal_log_prob(Xm, means, cov, ct)
    np.testing.assert_allclose(lp, ref_lp, rtol=1e-11, atol=1e-11)
    st, log_resp = missing_gaussian_e_step(Xm, np.log(weights), means, pc, ct, sample_weight=w,
                                           shift=shift, return_log_resp=True)
    n_ref, dt_ref, nk, sx, sxx = oracle_missing_stats(Xm, weights, means, cov, ct, w, shift)
    assert st.n == pytest.approx(n_ref, rel=1e-14)
    assert st.data_term == pytest.approx(dt_ref, rel=1e-12)
    lw = ref_lp + np.log(weights)
    np.testing.assert_allclose(log_resp, lw - logsumexp(lw, axis=1, keepdims=True), atol=1e-10)
    for got, ref in ((st.nk, nk), (st.sx, sx), (st.sxx, sxx)):
        np.testing.assert_allclose(got, ref, rtol=1e-10, atol=1e-10)


def test_patterns_group_rows():
    M = np.array([[1, 0], [0, 0], [1, 0], [0, 1], [0, 0]], dtype=bool)
    groups = group_missing_patterns(M)
    assert [(r.tolist(), m.tolist()) for r, m in groups] == \
        [([0, 2], [0]), ([1, 4], []), ([3], [1])]


@pytest.mark.parametrize("ct", COVARIANCE_TYPES)
def test_elbo_equals_brute_force_marginal_likelihood(ct):
    X, _, _ = make_gmm(150, 3, 3, covariance_type=ct, separation=3.0, random_state=0)
    Xm, _ = _mcar(X, 0.25, 0)
    m = GaussianMixture(3, covariance_type=ct, missing="marginalize", max_iter=15, tol=0.0,
                        random_state=0).fit(Xm)
    assert np.all(np.diff(m.lower_bounds_) >= -1e-12 * np.abs(m.lower_bounds_[:-1]))
    brute = logsumexp(oracle_marginal_log_prob(Xm, m.means_, m.covariances_, ct)
                      + np.log(m.weights_), axis=1)
    assert m.elbo(Xm) == pytest.approx(brute.mean(), rel=1e-10, abs=1e-10)
    np.testing.assert_allclose(m.score_samples(Xm), brute, rtol=1e-10, atol=1e-10)
    assert abs(m.score_samples(Xm[:1])[0]) < 1e-12  # a fully missing row has likelihood 1
    # the bound of iteration i is the marginal likelihood at the parameters entering it
    m1 = GaussianMixture(3, covariance_type=ct, missing="marginalize", max_iter=1, tol=0.0,
                         random_state=0).fit(Xm)
    assert m.lower_bounds_[0] == m1.lower_bounds_[0]


@pytest.mark.parametrize("ct", COVARIANCE_TYPES)
def test_without_missing_entries_equals_complete_data_fit(ct):
    X, _, _ = make_gmm(200, 3, 3, covariance_type=ct, random_state=2)
    kw = dict(covariance_type=ct, max_iter=10, tol=0.0, random_state=0)
    a = GaussianMixture(3, **kw).fit(X)
    b = GaussianMixture(3, missing="marginalize", **kw).fit(X)
    np.testing.assert_array_equal(a.lower_bounds_, b.lower_bounds_)
    for name in ("weights_", "means_", "covariances_", "precisions_cholesky_"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))


@pytest.mark.parametrize("ct", COVARIANCE_TYPES)
def test_common_contract_with_missing_entries(ct):
    """Chunked E-steps sum to the batch E-step, partial_fit(step 1) equals a batch step,
    monotone bound, pickling, determinism, input untouched -- all on data with NaN."""
    X, _, _ = make_gmm(150, 2, 3, covariance_type=ct, random_state=3)
    Xm, _ = _mcar(X, 0.2, 3)
    w = np.random.default_rng(0).uniform(0.5, 2.0, X.shape[0])
    check_latent_model(GaussianMixture(2, covariance_type=ct, missing="marginalize",
                                       max_iter=6, tol=0.0, random_state=0), Xm,
                       fit_params={"sample_weight": w})


def _standardised(X):
    return (X - X.mean(axis=0)) / X.std(axis=0)


@pytest.mark.filterwarnings("ignore::latentkit.base.ConvergenceWarning")  # wine full: slow tail
@pytest.mark.parametrize("name,K,ct", [("faithful", 2, "full"), ("wine", 3, "diag"),
                                       ("wine", 3, "tied"), ("wine", 3, "full")])
def test_real_data_with_20_percent_removed(name, K, ct):
    """With 20% of the entries removed at random, the fit started from the complete-data fit
    stays within 3 standard errors (of the complete-data estimates: sqrt(var / N_k) for a mean,
    var sqrt(2 / N_k) for a variance) on every coordinate, and weights within 0.05. Why 3: the
    missing-data estimate uses ~80% of the information, so it differs from the complete-data
    one by a sampling error of about 0.5-1 SE per coordinate (measured max over 3 masks: 2.5
    SE for the means, 3.2 for wine diag variances with other seeds); a wrong conditional
    covariance or mean (dropped C term, wrong pattern) moves estimates by several SE in a
    consistent direction. Imputation beats column means in RMSE on the removed entries."""
    X = _standardised(load_old_faithful().data if name == "faithful" else load_wine().data)
    rng = np.random.default_rng(0)
    M = rng.random(X.shape) < 0.2
    Xm = np.where(M, np.nan, X)
    full = GaussianMixture(K, covariance_type=ct, tol=1e-6, max_iter=300, random_state=0).fit(X)
    start = dict(weights=full.weights_, means=full.means_, covariances=full.covariances_)
    miss = GaussianMixture(K, covariance_type=ct, tol=1e-6, max_iter=300, init=start,
                           missing="marginalize").fit(Xm)
    assert np.all(np.diff(miss.lower_bounds_) >= -1e-9 * np.abs(miss.lower_bounds_[:-1]))
    nk = full.weights_ * X.shape[0]
    D = X.shape[1]
    v0 = np.diagonal(_full_cov(full.covariances_, ct, K, D), axis1=1, axis2=2)
    v1 = np.diagonal(_full_cov(miss.covariances_, ct, K, D), axis1=1, axis2=2)
    n_var = np.full(K, float(X.shape[0])) if ct == "tied" else nk  # points behind a variance
    assert np.max(np.abs(full.means_ - miss.means_) / np.sqrt(v0 / nk[:, None])) < 3.0
    assert np.max(np.abs(v1 - v0) / (v0 * np.sqrt(2.0 / n_var[:, None]))) < 3.0
    assert np.max(np.abs(full.weights_ - miss.weights_)) < 0.05
    imputed = miss.impute(Xm)
    col = np.nanmean(Xm, axis=0)
    rmse = np.sqrt(np.mean((imputed[M] - X[M]) ** 2))
    rmse_col = np.sqrt(np.mean((np.broadcast_to(col, X.shape)[M] - X[M]) ** 2))
    assert rmse < 0.9 * rmse_col
    np.testing.assert_array_equal(imputed[~M], X[~M])


@pytest.mark.parametrize("ct", COVARIANCE_TYPES)
def test_impute_matches_oracle(ct):
    rng = np.random.default_rng(4)
    n, D, K = 60, 4, 3
    Xm, M = _mcar(rng.normal(size=(n, D)), 0.4, 5)
    weights, means, cov = _random_params(ct, K, D, rng)
    pc, _ = compute_precision_cholesky(cov, ct)
    before = Xm.copy()
    out, std = conditional_impute(Xm, np.log(weights), means, pc, ct, return_std=True)
    np.testing.assert_array_equal(Xm, before)
    lw = oracle_marginal_log_prob(Xm, means, cov, ct) + np.log(weights)
    r = np.exp(lw - logsumexp(lw, axis=1, keepdims=True))
    covs = _full_cov(cov, ct, K, D)
    for i in range(n):
        cond = [oracle_conditional(Xm[i], means[k], covs[k]) for k in range(K)]
        mean = sum(r[i, k] * cond[k][0] for k in range(K))
        second = sum(r[i, k] * (cond[k][0] ** 2 + np.diag(cond[k][1])) for k in range(K))
        np.testing.assert_allclose(out[i], mean, rtol=1e-10, atol=1e-10)
        np.testing.assert_allclose(std[i][M[i]], np.sqrt((second - mean ** 2)[M[i]]),
                                   rtol=1e-10, atol=1e-10)
    assert np.all(std[~M] == 0.0)


def test_impute_through_the_model():
    X, _, _ = make_gmm(200, 2, 3, random_state=6)
    Xm, M = _mcar(X, 0.2, 6)
    m = GaussianMixture(2, missing="marginalize", random_state=0).fit(Xm)
    out = m.impute(Xm)
    out2, std = m.impute(Xm, return_std=True)
    np.testing.assert_array_equal(out, out2)
    assert not np.isnan(out).any() and np.all(std[M] > 0)
    # the default model imputes too (NaN at predict time only needs impute)
    d = GaussianMixture(2, random_state=0).fit(X)
    assert not np.isnan(d.impute(Xm)).any()
    with pytest.raises(ValueError, match="n_features|features"):
        m.impute(Xm[:, :2])


def test_bad_input():
    X, _, _ = make_gmm(60, 2, 2, random_state=0)
    Xm, _ = _mcar(X, 0.2, 0)
    with pytest.raises(ValueError, match="Input X contains NaN; remove or impute"):
        GaussianMixture(2).fit(Xm)
    with pytest.raises(ValueError, match="missing must be 'error'"):
        GaussianMixture(2, missing="drop").fit(X)
    Xi = Xm.copy()
    Xi[3, 0] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        GaussianMixture(2, missing="marginalize").fit(Xi)
    m = GaussianMixture(2, missing="marginalize", random_state=0).fit(Xm)
    with pytest.raises(ValueError, match="infinity"):
        m.impute(Xi)


@pytest.mark.slow
@pytest.mark.parametrize("ct", ["full", "tied", "diag", "spherical"])
def test_patterns_cut_across_chunks(ct, monkeypatch):
    """Tiny partitions and GEMM chunks (patterns split between partitions and chunks, several
    threads) give the oracle's statistics too."""
    from latentkit.distributions import _missing

    monkeypatch.setattr(_missing, "_PART_ROWS", 7)
    monkeypatch.setattr(_missing, "_GEMM_ROWS", 3)
    rng = np.random.default_rng(7)
    X = rng.normal(size=(90, 3))
    Xm, _ = _mcar(X, 0.3, 8)
    weights, means, cov = _random_params(ct, 2, 3, rng)
    pc, _ = compute_precision_cholesky(cov, ct)
    st = missing_gaussian_e_step(Xm, np.log(weights), means, pc, ct)
    _, dt, nk, sx, sxx = oracle_missing_stats(Xm, weights, means, cov, ct)
    assert st.data_term == pytest.approx(dt, rel=1e-12)
    for got, ref in ((st.nk, nk), (st.sx, sx), (st.sxx, sxx)):
        np.testing.assert_allclose(got, ref, rtol=1e-10, atol=1e-10)


def test_chunked_source_with_missing_entries():
    """Statistics are the currency: a ChunkSource read chunk by chunk gives the in-memory fit
    (up to the shift, which the source takes from its first chunk)."""
    from latentkit.inference import ArraySource

    X, _, _ = make_gmm(600, 3, 3, random_state=0)
    Xm, _ = _mcar(X, 0.2, 0)
    init = dict(weights=np.ones(3) / 3, means=np.nan_to_num(Xm[2:5]),
                covariances=np.stack([np.eye(3)] * 3))
    kw = dict(missing="marginalize", init=init, max_iter=10, tol=0.0)
    a = GaussianMixture(3, **kw).fit(Xm)
    b = GaussianMixture(3, **kw).fit(ArraySource(Xm, chunk_size=100))
    np.testing.assert_allclose(a.lower_bounds_, b.lower_bounds_, rtol=1e-12)
    np.testing.assert_allclose(a.means_, b.means_, rtol=1e-10, atol=1e-12)


def test_pattern_index_cache_is_keyed_on_the_mask():
    """The cached pattern index is reused for the same mask (any array) and rebuilt for
    another mask, including the same array modified in place."""
    from latentkit.distributions import _missing

    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 4))
    X[rng.random(X.shape) < 0.3] = np.nan
    first = _missing.cached_pattern_index(X)
    assert _missing.cached_pattern_index(X.copy()) is first  # same mask: reused
    X[0, :] = np.nan if not np.isnan(X[0]).all() else 1.0  # in place: another mask
    second = _missing.cached_pattern_index(X)
    assert second is not first
    for got, ref in zip(second[:4], _missing._pattern_index(np.isnan(X))):
        np.testing.assert_array_equal(got, ref)
    wide = np.where(rng.random((30, 70)) < 0.2, np.nan, 1.0)  # > 64 columns: packed bytes
    for got, ref in zip(_missing.cached_pattern_index(wide)[:4],
                        _missing._pattern_index(np.isnan(wide))):
        np.testing.assert_array_equal(got, ref)
