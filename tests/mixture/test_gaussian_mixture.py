"""GaussianMixture (EM): the common contract, parity with scikit-learn iteration by iteration,
the published Old Faithful optimum, scikit-learn's estimator checks, bad input, stepwise EM."""

import copy
import warnings

import numpy as np
import pytest
from sklearn.mixture import GaussianMixture as SKGaussianMixture

from latentkit.base import ConvergenceWarning, NotFittedError
from latentkit.datasets import make_gmm
from latentkit.distributions import COVARIANCE_TYPES, CollapsedComponentWarning
from latentkit.mixture import GaussianMixture
from latentkit.testing import check_latent_model, match_components
from latentkit.testing._mixtures import gaussian_mixture

def _faithful():
    from latentkit.datasets import load_old_faithful

    return load_old_faithful().data  # raw units, 272 x 2 (bundled, checksummed)


def _planted(ct="full", n=300, k=3, d=3, seed=0, separation=3.0):
    X, labels, truth = make_gmm(n, k, d, covariance_type=ct, separation=separation,
                                random_state=seed)
    return X, labels, truth


def _sk_precisions(X, ct, k):
    """A deliberately rough, identical starting point: the pooled precision for every
    component, in the covariance type's shape."""
    D = X.shape[1]
    P = np.linalg.inv(np.cov(X.T) + 0.1 * np.eye(D))
    return {"full": np.repeat(P[None], k, axis=0), "tied": P,
            "diag": np.repeat(np.diag(P)[None], k, axis=0),
            "spherical": np.full(k, np.diag(P).mean())}[ct]


# --------------------------------------------------------------------------------------------
# the common contract
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("ct", COVARIANCE_TYPES)
def test_common_contract(ct):
    X, _, _ = _planted(ct, n=240)
    model = GaussianMixture(3, covariance_type=ct, max_iter=8, tol=0.0, random_state=0)
    m = check_latent_model(model, X)
    assert m.weights_.shape == (3,) and m.means_.shape == (3, 3)
    assert m.covariances_.shape == {"full": (3, 3, 3), "tied": (3, 3), "diag": (3, 3),
                                    "spherical": (3,)}[ct]
    assert m.precisions_cholesky_.shape == m.covariances_.shape == m.precisions_.shape
    assert m.n_features_in_ == 3


def test_common_contract_with_sample_weight():
    X, _, _ = _planted("full", n=240, seed=1)
    w = np.random.default_rng(0).uniform(0.5, 2.0, size=X.shape[0])
    check_latent_model(GaussianMixture(2, max_iter=6, tol=0.0, random_state=1), X,
                       fit_params={"sample_weight": w})


def test_integer_sample_weight_equals_repeated_rows():
    X, _, _ = _planted("diag", n=120, seed=2)
    w = np.random.default_rng(1).integers(1, 4, size=X.shape[0])
    start = {"weights": np.full(3, 1 / 3), "means": X[:3].copy(),
             "covariances": np.ones((3, 3))}
    a = GaussianMixture(3, covariance_type="diag", init=start, tol=0, max_iter=15).fit(
        X, sample_weight=w)
    b = GaussianMixture(3, covariance_type="diag", init=start, tol=0, max_iter=15).fit(
        np.repeat(X, w, axis=0))
    np.testing.assert_allclose(a.lower_bounds_, b.lower_bounds_, rtol=1e-10)
    np.testing.assert_allclose(a.means_, b.means_, rtol=1e-9)


# --------------------------------------------------------------------------------------------
# parity with scikit-learn from identical starting parameters
# --------------------------------------------------------------------------------------------

@pytest.mark.kernel_sensitive
@pytest.mark.parametrize("ct", COVARIANCE_TYPES)
def test_parity_with_sklearn_every_iteration(ct):
    # overlapping components so that EM moves for many iterations
    X, _, _ = _planted(ct, n=400, k=3, d=3, seed=4, separation=1.2)
    k, n_iter = 3, 25
    weights = np.array([0.5, 0.3, 0.2])
    means = X[[0, 1, 2]].copy()
    precisions = _sk_precisions(X, ct, k)
    sk = SKGaussianMixture(k, covariance_type=ct, tol=0.0, max_iter=n_iter,
                           weights_init=weights, means_init=means, precisions_init=precisions)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # sklearn warns that tol=0 did not converge
        sk.fit(X)
    ours = GaussianMixture(k, covariance_type=ct, tol=0.0, max_iter=n_iter,
                           init={"weights": weights, "means": means, "precisions": precisions})
    ours.fit(X)
    sk_bounds = np.asarray(sk.lower_bounds_)
    assert sk_bounds.shape == (n_iter,) and ours.lower_bounds_.shape == (n_iter,)
    # the trace really moves (otherwise the comparison would be vacuous)
    assert sk_bounds[-1] - sk_bounds[0] > 0.05
    np.testing.assert_allclose(ours.lower_bounds_, sk_bounds, rtol=1e-8, atol=0)
    # and the parameters after the last M-step agree
    np.testing.assert_allclose(ours.weights_, sk.weights_, rtol=1e-7)
    np.testing.assert_allclose(ours.means_, sk.means_, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(ours.covariances_, sk.covariances_, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(ours.precisions_cholesky_, sk.precisions_cholesky_, rtol=1e-6)
    np.testing.assert_allclose(ours.score_samples(X), sk.score_samples(X), rtol=1e-8)
    np.testing.assert_allclose(ours.predict_proba(X), sk.predict_proba(X), atol=1e-7)
    assert ours.bic(X) == pytest.approx(sk.bic(X), rel=1e-8)
    assert ours.aic(X) == pytest.approx(sk.aic(X), rel=1e-8)


def test_tol_is_per_sample_like_sklearn():
    # tol is per sample, as scikit-learn's; our default (1e-3 / n_samples) is stricter, so
    # scikit-learn's default is passed explicitly
    X, _, _ = _planted("full", n=400, k=3, d=2, seed=5, separation=1.5)
    start = dict(weights=np.full(3, 1 / 3), means=X[:3].copy(),
                 precisions=_sk_precisions(X, "full", 3))
    sk = SKGaussianMixture(3, weights_init=start["weights"], means_init=start["means"],
                           precisions_init=start["precisions"]).fit(X)
    ours = GaussianMixture(3, init=start, tol=1e-3).fit(X)
    assert sk.converged_ and ours.converged_
    assert ours.n_iter_ == sk.n_iter_
    assert ours.lower_bound_ == pytest.approx(sk.lower_bound_, rel=1e-9)


# --------------------------------------------------------------------------------------------
# real data: the published optimum
# --------------------------------------------------------------------------------------------

def test_old_faithful_reaches_published_log_likelihood():
    X = _faithful()
    assert X.shape == (272, 2)
    m = GaussianMixture(2, covariance_type="full", tol=1e-8, max_iter=500, n_init=3,
                        random_state=0).fit(X)
    total = m.score(X) * X.shape[0]
    assert total == pytest.approx(-1130.26, abs=0.01)
    assert m.lower_bound_ * X.shape[0] == pytest.approx(-1130.26, abs=0.01)
    # the two clusters: short (~2 min, ~55 min wait) and long (~4.3 min, ~80 min wait)
    order = np.argsort(m.means_[:, 0])
    np.testing.assert_allclose(m.means_[order], [[2.04, 54.5], [4.29, 80.0]], atol=0.05)


# --------------------------------------------------------------------------------------------
# scikit-learn's estimator checks
# --------------------------------------------------------------------------------------------

def test_unfitted_raises():
    m = GaussianMixture(2)
    X = np.zeros((5, 2))
    for call in (lambda: m.predict(X), lambda: m.predict_proba(X), lambda: m.score(X),
                 lambda: m.sample(3), lambda: m.elbo(X), lambda: m.bic(X)):
        with pytest.raises(NotFittedError, match="not fitted"):
            call()


# --------------------------------------------------------------------------------------------
# bad input
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("bad, match", [(np.nan, "NaN"), (np.inf, "infinity")])
def test_nan_and_inf_are_rejected(bad, match):
    X, _, _ = _planted(n=50)
    X = X.copy()
    X[3, 1] = bad
    with pytest.raises(ValueError, match=match):
        GaussianMixture(2).fit(X)
    m = GaussianMixture(2, random_state=0).fit(np.nan_to_num(X, posinf=0.0))
    with pytest.raises(ValueError, match=match):
        m.predict(X)


def test_wrong_dimensions():
    X, _, _ = _planted(n=50)
    with pytest.raises(ValueError, match="Expected 2D array"):
        GaussianMixture(2).fit(X[:, 0])
    with pytest.raises(ValueError, match="3D"):
        GaussianMixture(2).fit(X[:, :, None])
    m = GaussianMixture(2, random_state=0).fit(X)
    with pytest.raises(ValueError, match="X has 2 features, but GaussianMixture is expecting 3"):
        m.predict(X[:, :2])
    with pytest.raises(ValueError, match="at least|minimum"):
        GaussianMixture(1).fit(np.empty((0, 3)))


def test_more_components_than_samples():
    X = np.random.default_rng(0).normal(size=(4, 2))
    with pytest.raises(ValueError, match="n_components = 5, n_samples = 4"):
        GaussianMixture(5).fit(X)
    w = np.array([1.0, 0.0, 0.0, 1.0])
    with pytest.raises(ValueError, match="positive sample_weight"):
        GaussianMixture(3).fit(X, sample_weight=w)


@pytest.mark.parametrize("params, err, match", [
    (dict(n_components=0), ValueError, "n_components must be >= 1"),
    (dict(n_components=2.5), TypeError, "n_components must be an int"),
    (dict(covariance_type="banana"), ValueError, "covariance_type must be one of"),
    (dict(reg_covar=-1.0), ValueError, "reg_covar must be >= 0"),
    (dict(tol=-1.0), ValueError, "tol must be >= 0"),
    (dict(max_iter=0), ValueError, "max_iter must be >= 1"),
    (dict(init="kmeans"), ValueError, "init must be 'kmeans\\+\\+'"),
    (dict(init={"mean": 0}), ValueError, "unknown key"),
    (dict(init={"covariances": 1, "precisions": 1}), ValueError, "not both"),
    (dict(init={"weights": [0.5, 0.6]}), ValueError, "sum to 1"),
    (dict(init={"means": np.zeros((3, 3))}), ValueError, r"init\['means'\] must have shape"),
    (dict(init={"covariances": -np.ones((2, 3))}, covariance_type="diag"), ValueError,
     "positive"),
    (dict(learning_decay=0.3), ValueError, "learning_decay"),
])
def test_bad_hyperparameters(params, err, match):
    X, _, _ = _planted(n=60)
    params = {"n_components": 2, **params}
    with pytest.raises(err, match=match):
        GaussianMixture(**params).fit(X)


def _three_mixtures():
    from latentkit.mixture import DirichletProcessMixture, VariationalGaussianMixture

    return [lambda **kw: GaussianMixture(2, **kw),
            lambda **kw: VariationalGaussianMixture(2, **kw),
            lambda **kw: gaussian_mixture(DirichletProcessMixture, 3, **kw)]


@pytest.mark.parametrize("make", _three_mixtures(), ids=["em", "variational", "dp"])
def test_overflowing_scale_is_refused_up_front_and_large_scales_are_equivariant(make):
    """Squared deviations of X * 1e200 overflow float64: a ValueError naming X and the fix,
    not a LinAlgError/FloatingPointError from inside. Scaling by a power of two (exact in
    floating point) up to ~1e99 gives the same fit in scaled units: means * s,
    covariances * s^2, ELBO - D ln s (reg_covar scaled with the data)."""
    X, _, _ = _planted(n=60, k=2, d=2)
    with pytest.raises(ValueError, match=r"X .*overflow.*(standardise|rescale)"):
        make(random_state=0).fit(X * 1e200)
    s = 2.0 ** 330
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        ref = make(random_state=0, max_iter=20, tol=0.0).fit(X)
        big = make(random_state=0, max_iter=20, tol=0.0, reg_covar=1e-6 * s * s).fit(X * s)
    np.testing.assert_allclose(big.means_ / s, ref.means_, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(big.covariances_ / (s * s), ref.covariances_, rtol=1e-8)
    np.testing.assert_allclose(big.lower_bounds_ + 2 * np.log(s), ref.lower_bounds_,
                               rtol=1e-9)


def test_duplicates_collapse_a_component_with_warning_and_valid_result():
    rng = np.random.default_rng(0)
    X = np.vstack([np.repeat([[3.0, -2.0]], 30, axis=0), rng.normal(size=(80, 2)) * 2 + 8])
    start = {"weights": [0.3, 0.35, 0.35], "means": [[3.0, -2.0], [7.0, 8.0], [9.0, 8.0]],
             "covariances": np.repeat(np.eye(2)[None], 3, axis=0)}
    m = GaussianMixture(3, init=start, max_iter=50, tol=1e-6)
    with pytest.warns(CollapsedComponentWarning, match=r"component\(s\) \[0\] collapsed"):
        m.fit(X)
    for attr in ("weights_", "means_", "covariances_", "precisions_cholesky_",
                 "lower_bounds_"):
        assert np.all(np.isfinite(getattr(m, attr))), attr
    # the collapsed component sits on the duplicates with covariance reg_covar * I
    np.testing.assert_allclose(m.means_[0], [3.0, -2.0], atol=1e-9)
    np.testing.assert_allclose(m.covariances_[0], 1e-6 * np.eye(2), atol=1e-9)
    np.testing.assert_allclose(m.weights_[0], 30 / 110, atol=1e-6)
    assert np.all(m.predict(X[:30]) == 0)
    assert np.all(np.diff(m.lower_bounds_) >= -1e-9 * np.abs(m.lower_bounds_[:-1]))


def test_float32_and_non_contiguous_input_give_the_same_fit_and_are_not_modified():
    X, _, _ = _planted("full", n=200, seed=6)
    X32 = X.astype(np.float32)
    Xf = np.asfortranarray(X32.astype(np.float64))
    wide = np.empty((200, 6))
    wide[:, ::2] = X32
    Xs = wide[:, ::2]  # strided view
    snapshots = [a.copy() for a in (X32, Xf, Xs)]
    fits = [GaussianMixture(3, random_state=0, max_iter=20).fit(a) for a in (X32, Xf, Xs)]
    ref = GaussianMixture(3, random_state=0, max_iter=20).fit(X32.astype(np.float64))
    for m in fits:
        np.testing.assert_array_equal(m.lower_bounds_, ref.lower_bounds_)
        np.testing.assert_array_equal(m.means_, ref.means_)
        assert m.means_.dtype == np.float64
    for a, s in zip((X32, Xf, Xs), snapshots):
        np.testing.assert_array_equal(a, s)
    assert X32.dtype == np.float32 and Xf.flags.f_contiguous and not Xs.flags.c_contiguous


def test_callers_arrays_and_init_dict_are_not_modified():
    X, _, _ = _planted("tied", n=150, seed=7)
    w = np.random.default_rng(0).uniform(0.5, 1.5, size=150)
    start = {"weights": np.full(3, 1 / 3), "means": X[:3].copy(), "covariances": np.eye(3)}
    copies = (X.copy(), w.copy(), copy.deepcopy(start))
    m = GaussianMixture(3, covariance_type="tied", init=start, max_iter=10).fit(
        X, sample_weight=w)
    m.partial_fit(X[:50], sample_weight=w[:50])
    m.predict(X), m.score_samples(X), m.bic(X)
    np.testing.assert_array_equal(X, copies[0])
    np.testing.assert_array_equal(w, copies[1])
    for k in start:
        np.testing.assert_array_equal(start[k], copies[2][k])
    assert m.init is start


# --------------------------------------------------------------------------------------------
# behaviour
# --------------------------------------------------------------------------------------------

def test_lower_bounds_monotone_and_recovers_planted_mixture():
    X, labels, truth = _planted("full", n=1500, k=4, d=3, seed=8, separation=4.0)
    m = GaussianMixture(4, tol=1e-9, max_iter=300, n_init=2, random_state=0).fit(X)
    lb = m.lower_bounds_
    assert lb.size > 3 and np.all(np.diff(lb) >= -1e-9 * np.abs(lb[:-1]))
    perm, err = match_components(truth["means"], m.means_, metric="l2")
    assert err.max() < 0.25  # ~375 points per component: standard error ~0.05 per coordinate
    np.testing.assert_allclose(m.weights_[perm], truth["weights"], atol=0.04)


def test_kmeanspp_init_reaches_a_good_fit():
    X, _, truth = _planted("diag", n=600, k=3, d=2, seed=9, separation=5.0)
    m = GaussianMixture(3, covariance_type="diag", max_iter=500, tol=1e-8,
                        random_state=0).fit(X)
    perm, err = match_components(truth["means"], m.means_, metric="l2")
    assert err.max() < 0.3


def test_random_init_is_sklearns_random_responsibilities():
    # one M-step from uniform random responsibilities: every starting mean is a weighted
    # average of the whole data with weights in [0, 1], so it is close to the data mean
    X, _, _ = _planted("diag", n=600, k=3, d=2, seed=9, separation=5.0)
    starts = []
    for seed in (0, 1):
        m = GaussianMixture(3, covariance_type="diag", init="random", random_state=seed)
        m._validate_params()
        m._init_params(m._validate_data(X, reset=True), np.random.default_rng(seed))
        spread = np.abs(m.means_ - X.mean(0)).max()
        assert spread < 0.2 * X.std(0).max()
        starts.append(m.means_)
    assert not np.allclose(starts[0], starts[1])
    m = GaussianMixture(3, covariance_type="diag", init="random", max_iter=200,
                        random_state=0).fit(X)
    assert np.all(np.diff(m.lower_bounds_) >= -1e-9 * np.abs(m.lower_bounds_[:-1]))


def test_partial_fit_stepwise_em_approaches_batch():
    X, _, truth = _planted("full", n=4000, k=3, d=2, seed=10, separation=4.0)
    batch = GaussianMixture(3, tol=1e-9, max_iter=500, random_state=0).fit(X)
    online = GaussianMixture(3, random_state=0, learning_offset=2.0, learning_decay=0.6)
    rng = np.random.default_rng(0)
    for _ in range(6):
        order = rng.permutation(4000)
        for a in range(0, 4000, 200):
            online.partial_fit(X[order[a:a + 200]], total_samples=4000)
    assert online.n_steps_ == 120
    perm, err = match_components(batch.means_, online.means_, metric="l2")
    assert err.max() < 0.1
    np.testing.assert_allclose(online.weights_[perm], batch.weights_, atol=0.02)
    assert online.score(X) == pytest.approx(batch.score(X), abs=0.01)
    assert online.score(X) <= batch.score(X) + 1e-9


def test_init_dict_partial_and_precisions():
    X, _, _ = _planted("spherical", n=200, seed=11)
    m = GaussianMixture(3, covariance_type="spherical", init={"means": X[:3]}, max_iter=1,
                        tol=0, random_state=0)
    m._validate_params()
    m._init_params(m._validate_data(X, reset=True), np.random.default_rng(0))
    np.testing.assert_array_equal(m.means_, X[:3])
    assert m.weights_.sum() == pytest.approx(1.0)
    m2 = GaussianMixture(3, covariance_type="spherical", init={"precisions": [1.0, 2.0, 4.0]},
                         max_iter=1, tol=0, random_state=0)
    m2._validate_params()
    m2._init_params(m2._validate_data(X, reset=True), np.random.default_rng(0))
    np.testing.assert_allclose(m2.covariances_, [1.0, 0.5, 0.25])
    np.testing.assert_allclose(m2.precisions_cholesky_, np.sqrt([1.0, 2.0, 4.0]))


def test_spectral_init_hook(monkeypatch):
    from latentkit.mixture import _gaussian

    # the hook runs the checked spectral start of spectral_init_gmm with its own look-ahead
    X, _, _ = _planted("full", n=200, seed=12)
    seen = {}

    def fake(X_, k, ct, reg_covar, w, rng, *, n_lloyd_kmeans, lookahead):
        seen.update(k=k, ct=ct, n=X_.shape[0], n_lloyd=n_lloyd_kmeans,
                    model=type(lookahead.model))
        resp = np.zeros((X_.shape[0], k))
        resp[np.arange(X_.shape[0]), np.arange(X_.shape[0]) % k] = 1.0
        return resp, {"n_iter": 0}

    monkeypatch.setattr(_gaussian, "_checked_start", fake)
    m = GaussianMixture(3, init="spectral", max_iter=1, tol=0, random_state=0).fit(X)
    assert seen == {"k": 3, "ct": "full", "n": 200, "n_lloyd": 10, "model": GaussianMixture}
    assert m.n_iter_ == 1 and m.spectral_report_ == {"n_iter": 0}


def test_sample_predict_and_information_criteria():
    X, _, truth = _planted("full", n=500, k=2, d=2, seed=13, separation=5.0)
    m = GaussianMixture(2, random_state=0).fit(X)
    S, z = m.sample(4000, random_state=1)
    assert S.shape == (4000, 2) and z.shape == (4000,)
    assert np.all(m.predict(S[z == 0]) == 0) or np.mean(m.predict(S) == z) > 0.95
    S2, _ = m.sample(4000, random_state=1)
    np.testing.assert_array_equal(S, S2)
    p = m.predict_proba(X)
    np.testing.assert_allclose(p.sum(1), 1.0)
    np.testing.assert_array_equal(m.predict(X), p.argmax(1))
    n_params = 2 * (2 + 3) + 1
    ll = m.score_samples(X).sum()
    assert m.bic(X) == pytest.approx(-2 * ll + n_params * np.log(500))
    assert m.aic(X) == pytest.approx(-2 * ll + 2 * n_params)
    assert m.elbo(X) == pytest.approx(m.score(X), rel=1e-12)


def test_non_convergence_warns():
    X, _, _ = _planted("full", n=300, seed=14, separation=1.0)
    with pytest.warns(ConvergenceWarning):
        GaussianMixture(3, max_iter=2, tol=1e-12, random_state=0).fit(X)
