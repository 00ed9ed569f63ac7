"""Tests of DirichletProcessMixture and the stick-breaking block: closed forms of the sticks,
the 'tail' truncation against a long fixed truncation, Old Faithful and olive oil, categorical
components, the common contract and bad input."""


import numpy as np
import pytest
from scipy import stats
from scipy.special import digamma

from latentkit.datasets import load_old_faithful, load_olive_oil
from latentkit.distributions._stick_breaking import (beta_kl, stick_expected_log_weights,
                                                     stick_expected_weights, stick_kl,
                                                     stick_posterior)
from latentkit.mixture import CategoricalComponent
from latentkit.mixture._gaussian_component import GaussianComponent
from latentkit.mixture._dirichlet_process import DirichletProcessMixture
from latentkit.testing import check_latent_model


def _standardise(X):
    return (X - X.mean(0)) / X.std(0)


def _faithful():
    return _standardise(load_old_faithful().data)


# --------------------------------------------------------------------------------------------
# Stick-breaking block
# --------------------------------------------------------------------------------------------

def test_stick_expectations_match_monte_carlo():
    rng = np.random.default_rng(0)
    g = np.vstack((rng.uniform(1, 5, 6), rng.uniform(1, 5, 6)))
    v = rng.beta(g[0], g[1], size=(200000, 6))
    for method in ("fixed", "tail"):
        vv = v.copy()
        if method == "fixed":
            vv[:, -1] = 1.0
        rest = np.hstack((np.ones((vv.shape[0], 1)), np.cumprod(1 - vv, axis=1)[:, :-1]))
        pi = vv * rest
        np.testing.assert_allclose(stick_expected_weights(g, method), pi.mean(0), rtol=1e-2)
        elog, _ = stick_expected_log_weights(g, method)
        np.testing.assert_allclose(elog, np.log(pi).mean(0), rtol=1e-2, atol=1e-3)


def test_tail_mass_is_the_geometric_series():
    g = np.array([[3.0, 2.0, 1.5], [4.0, 2.5, 1.2]])
    a, b = 1.0, 0.7
    elog, log_tail = stick_expected_log_weights(g, "tail", (a, b))
    s_t = np.sum(digamma(g[1]) - digamma(g.sum(0)))
    lv, l1v = digamma(a) - digamma(a + b), digamma(b) - digamma(a + b)
    brute = np.log(sum(np.exp(s_t + j * l1v + lv) for j in range(5000)))
    np.testing.assert_allclose(log_tail, brute, rtol=1e-12)
    # fixed truncation: the last stick is 1, weights sum to 1 exactly
    assert abs(stick_expected_weights(g, "fixed").sum() - 1.0) < 1e-15


def test_stick_posterior_and_kl():
    nk = np.array([5.0, 0.0, 3.0, 2.0])
    g = stick_posterior(nk, 1.5, (1.0, 2.0), "tail")
    np.testing.assert_allclose(g[0], 1.0 + nk)
    np.testing.assert_allclose(g[1], 2.0 + np.array([5.0, 5.0, 2.0, 0.0]) + 1.5)
    gf = stick_posterior(nk, 0.0, (1.0, 2.0), "fixed")
    np.testing.assert_allclose(gf[:, -1], [1.0, 0.0])
    # Beta KL vs numerical integration, and the fixed truncation drops the last stick
    from scipy.integrate import quad
    p, q = stats.beta(3.0, 4.0), stats.beta(1.0, 2.0)
    num = quad(lambda t: p.pdf(t) * (p.logpdf(t) - q.logpdf(t)), 0, 1)[0]
    np.testing.assert_allclose(beta_kl(3.0, 4.0, 1.0, 2.0), num, rtol=1e-8)
    np.testing.assert_allclose(stick_kl(gf, (1.0, 2.0), "fixed"),
                               beta_kl(gf[0, :-1], gf[1, :-1], 1.0, 2.0).sum())


# --------------------------------------------------------------------------------------------
# Model
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("method", ["fixed", "tail"])
def test_common_contract(method):
    X = np.ascontiguousarray(_faithful()[::3])
    check_latent_model(DirichletProcessMixture(6, truncation_method=method, max_iter=15,
                                               tol=0.0, random_state=0), X)


def test_common_contract_categorical_tail():
    rng = np.random.default_rng(0)
    phi = rng.dirichlet(np.full(12, 0.3), size=3)
    X = np.vstack([rng.multinomial(30, phi[k]) for k in rng.integers(0, 3, 60)]).astype(float)
    check_latent_model(DirichletProcessMixture(5, component="categorical",
                                               truncation_method="tail", max_iter=15, tol=0.0,
                                               random_state=0), X)


def test_old_faithful_two_effective_components():
    X = _faithful()
    for method in ("fixed", "tail"):
        m = DirichletProcessMixture(30, truncation_method=method, max_iter=500, tol=1e-7,
                                    random_state=0).fit(X)
        assert m.n_effective_components_ == 2
        assert np.all(np.diff(m.lower_bounds_) >= -1e-9 * np.abs(m.lower_bounds_[:-1]))
        if method == "fixed":
            assert abs(m.weights_.sum() - 1.0) < 1e-12
        else:
            assert m.weights_.sum() < 1.0


def test_tail_elbo_matches_long_fixed_truncation():
    """Kurihara et al.'s tail bound equals the bound of a fixed truncation at T = 200 when the
    data use few components (the unused components stay at their prior)."""
    X = _faithful()
    tail = DirichletProcessMixture(8, truncation_method="tail", max_iter=1000, tol=1e-11,
                                   random_state=0).fit(X)
    R = np.zeros((X.shape[0], 200))
    R[:, :8] = tail.predict_proba(X)
    fixed = DirichletProcessMixture(200, truncation_method="fixed", max_iter=1000, tol=1e-11,
                                    init={"responsibilities": R}).fit(X)
    assert fixed.n_effective_components_ == tail.n_effective_components_ == 2
    np.testing.assert_allclose(tail.lower_bound_, fixed.lower_bound_, rtol=0, atol=1e-6)
    # and a short fixed truncation is a different (lower-mass) model: its bound differs
    short = DirichletProcessMixture(3, truncation_method="fixed", max_iter=1000, tol=1e-11,
                                    init={"responsibilities": R[:, :3] /
                                          R[:, :3].sum(1, keepdims=True)}).fit(X)
    assert abs(short.lower_bound_ - tail.lower_bound_) > 1e-4


def test_olive_oil_areas():
    """Cheap version of the benchmark's olive-oil comparison (benchmarks/bench_vgmm.py runs five
    seeds of ours and of scikit-learn's dirichlet_process BayesianGaussianMixture with the same
    priors; scikit-learn reaches an ARI of about 0.5 there): two seeds, both truncations."""
    from sklearn.metrics import adjusted_rand_score
    from threadpoolctl import threadpool_limits

    b = load_olive_oil()
    X = _standardise(b.data)
    aris = {}
    # one BLAS thread: the matrices are tiny and threaded BLAS only contends on a busy machine
    with threadpool_limits(1):
        for method in ("fixed", "tail"):
            aris[method] = [adjusted_rand_score(b.area, DirichletProcessMixture(
                30, concentration=1 / 30, truncation_method=method, max_iter=1000, tol=1e-6,
                random_state=seed).fit(X).predict(X)) for seed in (0, 1)]
    assert np.mean(aris["fixed"]) > 0.45, aris
    assert np.mean(aris["tail"]) > 0.45, aris


def test_categorical_components_recover_clusters():
    from sklearn.metrics import adjusted_rand_score

    rng = np.random.default_rng(1)
    phi = rng.dirichlet(np.full(20, 0.2), size=3)
    z = rng.integers(0, 3, 150)
    X = np.vstack([rng.multinomial(40, phi[k]) for k in z]).astype(float)
    m = DirichletProcessMixture(10, component="categorical", max_iter=200, tol=1e-8,
                                random_state=0).fit(X)
    assert adjusted_rand_score(z, m.predict(X)) > 0.95
    assert m.n_effective_components_ == 3
    assert np.all(np.diff(m.lower_bounds_) >= -1e-9 * np.abs(m.lower_bounds_[:-1]))


def test_general_beta_sticks_and_sample():
    X = _faithful()
    m = DirichletProcessMixture(10, concentration=(2.0, 0.5), max_iter=50, tol=0.0,
                                random_state=0).fit(X)
    np.testing.assert_allclose(m.stick_prior_, [2.0, 0.5])
    Xs, labels = m.sample(50, random_state=0)
    assert Xs.shape == (50, 2) and labels.shape == (50,)
    np.testing.assert_allclose(m.predict_proba(X).sum(1), 1.0)


@pytest.mark.parametrize("method", ["fixed", "tail"])
def test_kmeans_start_weighted_equals_repeated_rows(method):
    """On the data of scikit-learn's weight-equivalence check: integer weights (0 included)
    equal repeated rows in the same row order (k-means++ draws rows by position); with the
    rows shuffled, from the same starting responsibilities."""
    from sklearn.utils import shuffle

    rng = np.random.RandomState(42)
    X = rng.rand(15, 30)
    rng.randint(0, 3, size=15)  # the check's y
    w = rng.randint(0, 5, size=15)
    perm = shuffle(np.arange(15), random_state=0)
    Xr = np.repeat(X, w, axis=0)
    a = DirichletProcessMixture(3, truncation_method=method, random_state=0).fit(
        X, sample_weight=w)
    b = DirichletProcessMixture(3, truncation_method=method, random_state=0).fit(Xr)
    np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X), rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(a.lower_bounds_, b.lower_bounds_, rtol=1e-9)
    R = np.random.default_rng(1).dirichlet(np.ones(3), size=15)
    c = DirichletProcessMixture(3, truncation_method=method,
                                init={"responsibilities": R[perm]}).fit(
        X[perm], sample_weight=w[perm])
    d = DirichletProcessMixture(3, truncation_method=method,
                                init={"responsibilities": np.repeat(R, w, axis=0)}).fit(Xr)
    np.testing.assert_allclose(c.predict_proba(X), d.predict_proba(X), rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(c.lower_bound_, d.lower_bound_, rtol=1e-9)


@pytest.mark.parametrize("method", ["fixed", "tail"])
def test_tiny_repeated_rank_deficient_data_has_a_finite_elbo(method):
    """Three distinct points repeated, two features differing by a constant (a singular
    covariance of X): the bound stays finite and non-decreasing for every seed."""
    X = np.array([[1.0, 2.0, 3.0], [2.0, 3.0, 4.0], [5.0, 1.0, 2.0]] * 4)
    for seed in range(3):
        m = DirichletProcessMixture(3, truncation_method=method, random_state=seed,
                                    max_iter=10, tol=0.0).fit(X)
        assert np.all(np.isfinite(m.lower_bounds_))
        assert np.all(np.diff(m.lower_bounds_) >= -1e-9 * np.abs(m.lower_bounds_[:-1]))
        assert np.isfinite(m.score(X))


def test_bad_input_and_priors():
    X = _faithful()
    D = DirichletProcessMixture
    with pytest.raises(ValueError, match="truncation_method"):
        D(5, truncation_method="soft").fit(X)
    with pytest.raises(ValueError, match="concentration"):
        D(5, concentration=-1.0).fit(X)
    with pytest.raises(ValueError, match="concentration"):
        D(5, concentration=(1.0, 2.0, 3.0)).fit(X)
    with pytest.raises(ValueError, match="concentration\\[1\\]"):
        D(5, concentration=(1.0, 0.0)).fit(X)
    with pytest.raises(TypeError, match="n_components"):
        D(2.5).fit(X)
    with pytest.raises(ValueError, match="component must be one of"):
        D(5, component="gamma").fit(X)
    with pytest.raises(TypeError, match="component must be one of .* got dict"):
        D(5, component={"rate_prior": 1.0}).fit(X)
    with pytest.raises(ValueError, match="tied"):
        D(5, truncation_method="tail", component=GaussianComponent("tied")).fit(X)
    with pytest.raises(ValueError, match="category_prior"):
        D(5, component=CategoricalComponent(category_prior=-1.0)).fit(np.ones((10, 3)))
    with pytest.raises(ValueError, match="non-negative"):
        D(5, component="categorical").fit(-np.ones((10, 3)))
    with pytest.raises(ValueError, match="covariance_prior"):
        D(5, component=GaussianComponent(covariance_prior=np.eye(3))).fit(X)
    with pytest.raises(ValueError, match="degrees_of_freedom_prior"):
        D(5, component=GaussianComponent(degrees_of_freedom_prior=0.5)).fit(X)
    with pytest.raises(ValueError, match="covariance_type"):
        D(5, component=GaussianComponent("round")).fit(X)
    with pytest.raises(ValueError, match="reg_covar"):
        D(5, component=GaussianComponent(reg_covar=-1.0)).fit(X)
    with pytest.raises(ValueError, match="infinity"):
        Xi = X.copy()
        Xi[2, 1] = np.inf
        D(5).fit(Xi)


@pytest.mark.parametrize("method", ["fixed", "tail"])
def test_save_load_round_trip(tmp_path, method):
    from latentkit.io import load, save

    X = _faithful()
    m = DirichletProcessMixture(6, truncation_method=method, component=GaussianComponent("diag"),
                                max_iter=20, tol=0.0, random_state=0).fit(X)
    save(m, tmp_path / "dpmm.npz")
    m2 = load(tmp_path / "dpmm.npz")
    np.testing.assert_allclose(m2.score_samples(X), m.score_samples(X), rtol=1e-12)
    np.testing.assert_allclose(m2.elbo(X), m.elbo(X), rtol=1e-12)


def test_truncation_is_the_deprecated_name_of_n_components():
    """``n_components`` is T, as for every mixture; ``truncation=`` gives the same fit with a
    DeprecationWarning naming the new name, and both names with different values raise."""
    X = np.random.default_rng(0).normal(size=(40, 2))
    new = DirichletProcessMixture(n_components=4, max_iter=5, tol=0.0, random_state=0).fit(X)
    with pytest.warns(DeprecationWarning, match="use 'n_components=' instead"):
        old = DirichletProcessMixture(truncation=4, max_iter=5, tol=0.0, random_state=0).fit(X)
    assert old.weights_.shape == (4,)
    np.testing.assert_array_equal(old.means_, new.means_)
    np.testing.assert_array_equal(old.lower_bounds_, new.lower_bounds_)
    with pytest.raises(ValueError, match="give n_components= only"):
        DirichletProcessMixture(n_components=3, truncation=4).fit(X)
    with pytest.raises(TypeError, match="truncation"):
        DirichletProcessMixture(truncation=2.5).fit(X)
