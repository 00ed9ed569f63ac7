"""Tests of the ELBO base class, statistics, convergence monitor and validation helpers, through a
toy model small enough to check by hand: a 1-D mixture of unit-variance Gaussians."""

import pickle
import warnings

import numpy as np
import pytest
from scipy.stats import norm
from toy_models import ToyMixture, _ToyStats

from latentkit._utils.validation import (
    check_array,
    check_counts,
    check_random_state,
    check_sample_weight,
    check_scalar,
)
from latentkit.base import (
    ConvergenceMonitor,
    ConvergenceWarning,
    ELBODecreaseWarning,
    NotFittedError,
    clone,
)
from latentkit.testing import check_latent_model, match_components
from latentkit._engine.fitting import default_step_size


@pytest.fixture
def X():
    rng = np.random.default_rng(0)
    return np.concatenate([rng.normal(-3, 1, 150), rng.normal(2, 1, 100)])[:, None]


def test_toy_model_passes_the_contract(X):
    check_latent_model(ToyMixture(random_state=0, max_iter=30), X)


def test_elbo_equals_log_likelihood_and_recovers_means(X):
    m = ToyMixture(random_state=1).fit(X)
    assert m.converged_
    # ELBO of exact EM after the E-step is the mean log-likelihood, computed independently
    ll = np.mean(np.log(m.weights_[0] * norm.pdf(X[:, 0], m.means_[0])
                        + m.weights_[1] * norm.pdf(X[:, 0], m.means_[1])))
    assert m.elbo(X) == pytest.approx(ll, rel=1e-12)
    np.testing.assert_allclose(np.sort(m.means_), [-3, 2], atol=0.3)


def test_tol_zero_runs_exactly_max_iter(X):
    m = ToyMixture(tol=0.0, max_iter=7, random_state=0).fit(X)
    assert m.n_iter_ == 7 and len(m.lower_bounds_) == 7 and not m.converged_


def test_convergence_warning_when_max_iter_too_small(X):
    with pytest.warns(ConvergenceWarning, match="max_iter=2"):
        ToyMixture(max_iter=2, random_state=0).fit(X)


def test_callback_stops_and_sees_the_trace(X):
    seen = []

    def cb(model, n_iter, elbo):
        seen.append((n_iter, elbo))
        return n_iter == 3

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a callback stop is not a convergence failure
        m = ToyMixture(callback=cb, random_state=0).fit(X)
    assert m.n_iter_ == 3 and [s[0] for s in seen] == [1, 2, 3]
    np.testing.assert_array_equal([s[1] for s in seen], m.lower_bounds_)


def test_n_init_keeps_the_best_initialisation(X):
    bounds = [ToyMixture(n_init=1, random_state=np.random.default_rng(5)).fit(X).lower_bound_]
    rng = np.random.default_rng(5)
    single = []
    for _ in range(4):
        single.append(ToyMixture(random_state=rng).fit(X).lower_bound_)
    best = ToyMixture(n_init=4, random_state=5).fit(X)
    assert best.lower_bound_ == pytest.approx(max(single), rel=1e-12)
    assert bounds[0] == pytest.approx(single[0], rel=1e-12)


def test_partial_fit_scales_and_blends(X):
    m = ToyMixture(random_state=0).fit(X)
    half = X[::2]
    a = pickle.loads(pickle.dumps(m))
    a.partial_fit(half, step_size=1.0, total_samples=2 * len(half))
    # with step 1 the scale cancels in the weights and means: same as a batch step on half
    b = pickle.loads(pickle.dumps(m))
    b._iterate(half)
    np.testing.assert_allclose(a.means_, b.means_, rtol=1e-12)
    with pytest.raises(ValueError, match="total_samples"):
        a.partial_fit(half, total_samples=3)
    with pytest.raises(ValueError, match="step_size"):
        a.partial_fit(half, step_size=1.5)
    with pytest.raises(ValueError, match="step_size"):
        a.partial_fit(half, step_size=0.0)


def test_partial_fit_from_scratch_then_default_schedule(X):
    m = ToyMixture(random_state=0)
    for _ in range(300):
        m.partial_fit(X)
    assert m.n_steps_ == 300
    assert default_step_size(m, 1) == pytest.approx(11.0 ** -0.7)
    full = ToyMixture(random_state=0).fit(X)
    np.testing.assert_allclose(np.sort(m.means_), np.sort(full.means_), atol=0.05)


def test_unfitted_raises_not_fitted(X):
    with pytest.raises(NotFittedError, match="not fitted"):
        ToyMixture().elbo(X)
    assert issubclass(NotFittedError, ValueError) and issubclass(NotFittedError, AttributeError)


def test_params_roundtrip_and_errors():
    m = ToyMixture(n_components=3, tol=0.5)
    assert m.get_params()["n_components"] == 3
    c = clone(m)
    assert c.get_params() == m.get_params() and c is not m
    m.set_params(n_components=4)
    assert m.n_components == 4
    with pytest.raises(ValueError, match="Invalid parameter 'bogus'"):
        m.set_params(bogus=1)
    assert "n_components=4" in repr(m) and "tol=0.5" in repr(m)


@pytest.mark.parametrize("kw,exc,msg", [
    ({"max_iter": 0}, ValueError, "max_iter must be >= 1"),
    ({"max_iter": 2.5}, TypeError, "max_iter must be an int"),
    ({"tol": -1.0}, ValueError, "tol must be >= 0"),
    ({"n_init": 0}, ValueError, "n_init"),
    ({"callback": 3}, TypeError, "callback must be callable"),
])
def test_common_hyperparameter_errors(X, kw, exc, msg):
    with pytest.raises(exc, match=msg):
        ToyMixture(**kw).fit(X)


def test_stats_monoid_and_scaling():
    a = _ToyStats(2.0, -1.0, np.array([1.0, 1.0]), np.array([0.5, 2.0]))
    b = _ToyStats(3.0, -2.0, np.array([2.0, 1.0]), np.array([1.5, -1.0]))
    assert (a + b) == (b + a)
    assert sum([a, b]) == a + b
    assert a + a.zero() == a
    np.testing.assert_array_equal((2 * a).sx, [1.0, 4.0])
    assert (a * 0.5).n == 1.0
    assert a.allclose(a + a.zero())
    with pytest.raises(Exception):
        a.n = 5.0  # frozen


def test_monitor_exact_rule_warns_on_decrease():
    mon = ConvergenceMonitor(tol=1e-3, max_iter=10)
    mon.report(-2.0)
    assert not mon.converged
    with pytest.warns(ELBODecreaseWarning):
        mon.report(-2.5)
    mon.report(-2.5 + 1e-4)
    assert mon.converged
    with pytest.raises(FloatingPointError):
        ConvergenceMonitor(1e-3, 10).report(np.nan)


def test_monitor_noisy_rule_uses_windows():
    mon = ConvergenceMonitor(tol=0.1, max_iter=100, rule="noisy", window=3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for v in [1.0, 3.0, 2.0, 5.0]:
            mon.report(v)
    assert not mon.converged
    for v in [2.0, 2.1]:  # windows [2,5,2] and ... mean change
        mon.report(v)
    assert mon.converged == (abs(np.mean([5.0, 2.0, 2.1]) - np.mean([1.0, 3.0, 2.0])) < 0.1)
    with pytest.raises(ValueError, match="rule"):
        ConvergenceMonitor(1, 1, rule="fast")


def test_random_state_forms():
    g = np.random.default_rng(3)
    assert check_random_state(g) is g
    assert check_random_state(4).integers(1000) == np.random.default_rng(4).integers(1000)
    assert isinstance(check_random_state(np.random.RandomState(0)), np.random.Generator)
    with pytest.raises(TypeError, match="random_state"):
        check_random_state("seed")
    with pytest.raises(ValueError, match="non-negative"):
        check_random_state(-1)


def test_check_array_messages_and_no_mutation():
    with pytest.raises(ValueError, match="NaN"):
        check_array(np.array([[1.0, np.nan]]))
    with pytest.raises(ValueError, match="infinity"):
        check_array(np.array([[1.0, np.inf]]))
    with pytest.raises(ValueError, match="reshape"):
        check_array(np.ones(3))
    with pytest.raises(ValueError, match="minimum of 1"):
        check_array(np.ones((0, 3)))
    with pytest.raises(ValueError, match="numbers"):
        check_array([["a", "b"]])
    x32 = np.asfortranarray(np.arange(6, dtype=np.float32).reshape(2, 3))
    out = check_array(x32)
    assert out.dtype == np.float64 and out.flags.c_contiguous
    out[0, 0] = 99
    assert x32[0, 0] == 0


def test_check_counts_sparse_and_dense_agree_without_mutation():
    import scipy.sparse as sp
    dense = np.array([[1, 0, 2], [0, 0, 0], [3, 1, 0]])
    s = sp.csr_matrix(dense)
    s.data[0] = 0  # an explicit zero in the caller's matrix
    before = s.data.copy()
    out = check_counts(s)
    np.testing.assert_array_equal(s.data, before)
    assert out.nnz == 3
    np.testing.assert_array_equal(check_counts(dense).toarray(), dense)
    with pytest.raises(ValueError, match=r"non-negative counts, found -1.0 at \(document 1, word 2\)"):
        check_counts(np.array([[1, 0, 0], [0, 0, -1]]))


def test_check_scalar_and_sample_weight():
    assert check_scalar(3, "k", int) == 3
    with pytest.raises(TypeError, match="k must be"):
        check_scalar(True, "k", int)
    with pytest.raises(ValueError, match="> 0"):
        check_scalar(0.0, "x", float, low=0.0, low_inclusive=False)
    w = [1.0, 2.0]
    out = check_sample_weight(w, 2)
    out[0] = 5
    assert w[0] == 1.0
    with pytest.raises(ValueError, match=r"shape \(3,\)"):
        check_sample_weight(w, 3)
    with pytest.raises(ValueError, match="non-negative"):
        check_sample_weight([1.0, -1.0], 2)


def test_match_components_finds_the_permutation():
    true = np.eye(3)
    perm, err = match_components(true, true[[2, 0, 1]])
    np.testing.assert_array_equal(perm, [1, 2, 0])
    np.testing.assert_allclose(err, 0)
    _, err = match_components(true, -true, metric="abs_cos")
    np.testing.assert_allclose(err, 0, atol=1e-15)
