"""SQUAREM over sufficient statistics (latentkit._engine.acceleration, issue 19): the same optimum as
plain EM / VB in fewer E-steps, monotone at the accepted points, invalid extrapolations
rejected without an exception, NaN or warning escaping."""

import warnings

import numpy as np
import pytest

from latentkit._engine import acceleration as _acceleration
from latentkit._engine.acceleration import (squarem_extrapolate, squarem_fit,
                                     squarem_step_length)
from latentkit.distributions._gaussian import GaussianStats
from latentkit.mixture import GaussianMixture, VariationalGaussianMixture


def _overlapping(seed=0, n=300):
    """Three overlapping blobs in 2-D: EM creeps (slow linear convergence)."""
    rng = np.random.default_rng(seed)
    centres = np.array([[0.0, 0.0], [2.2, 0.0], [1.1, 1.9]])
    h = rng.integers(0, 3, n)
    return centres[h] + rng.standard_normal((n, 2)) * np.array([1.0, 0.7])


@pytest.mark.slow
@pytest.mark.parametrize("cls", [GaussianMixture, VariationalGaussianMixture])
def test_squarem_reaches_plain_em_optimum_in_fewer_e_steps_and_is_monotone(cls):
    X = _overlapping(0, 150)
    kw = dict(n_components=3, covariance_type="full", random_state=0, max_iter=5000)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing escapes either run
        plain = cls(tol=1e-11, **kw).fit(X)
        fast = squarem_fit(cls(tol=1e-11, **kw), X)
        limit = cls(tol=0.0, **{**kw, "max_iter": 1500}).fit(X)  # the fixed point itself
    assert plain.converged_ and fast.converged_
    # the same fixed point of the same map, from the same start; plain EM, creeping, stops
    # farther from it (measured, GaussianMixture: means 5.3e-5 from the limit, SQUAREM's
    # 1.9e-6; variational: 2.3e-5 and 1.2e-5)
    assert fast.lower_bound_ == pytest.approx(limit.lower_bound_, abs=2e-10)
    assert fast.lower_bound_ >= plain.lower_bound_ - 1e-12
    err = {name: np.abs(m.means_ - limit.means_).max() for name, m in (("fast", fast),
                                                                        ("plain", plain))}
    assert err["fast"] < 2e-5 and err["fast"] <= err["plain"], err
    np.testing.assert_allclose(fast.weights_, limit.weights_, atol=1e-5)
    # every E-step counted, rejected extrapolations included
    assert fast.n_iter_ == fast.lower_bounds_.shape[0]
    assert fast.squarem_["accepted"] >= 1
    # measured 59 against 240 E-steps (GaussianMixture), 56 against 171 (variational)
    assert fast.n_iter_ < 0.5 * plain.n_iter_, (fast.n_iter_, plain.n_iter_)
    # the safeguard: SQUAREM's iterates (cycle starts) never go down; a kept extrapolation
    # may end below the plain point two steps on, never below its cycle's start
    it = fast.squarem_["iterates"]
    assert it.size >= 2 and np.all(np.diff(it) >= -1e-12)
    acc = np.asarray(fast.monitor_.history)
    assert acc[-1] == it[-1] == fast.lower_bound_
    assert set(it) <= set(acc)


def test_invalid_statistics_are_rejected_before_an_e_step():
    X = _overlapping(1, 120)
    m = GaussianMixture(3, random_state=0).fit(X)
    s = m._e_step(m._validate_data(X, reset=False))
    run = _acceleration._Run(m, None, 10)
    negative = GaussianStats(n=s.n, data_term=s.data_term, nk=s.nk * np.array([1, -1, 1]),
                             sx=s.sx, sxx=s.sxx)
    assert not run.trial_m_step(negative)
    # positive counts but an indefinite scatter: the M-step would repair the covariance
    # (with a warning); the proposal is refused instead and nothing escapes
    bad = s.sxx.copy()
    bad[0] = -np.eye(2) * 50.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert not run.trial_m_step(GaussianStats(n=s.n, data_term=s.data_term, nk=s.nk,
                                                  sx=s.sx, sxx=bad))
        assert not run.trial_m_step(GaussianStats(n=s.n, data_term=np.nan, nk=s.nk,
                                                  sx=s.sx, sxx=s.sxx))
    assert run.bounds == []  # no E-step was spent on them
    # the algebra of the extrapolation: a = -1 is the plain point, S3's length is <= -1
    s2 = s * 1.5
    assert squarem_extrapolate(s, s * 1.2, s2, -1.0).allclose(s2)
    assert squarem_step_length(s, s * 1.2, s2) <= -1.0
    assert squarem_step_length(s, s, s) == -1.0


def test_when_every_extrapolation_is_invalid_the_run_is_plain_em(monkeypatch):
    # a step length far out of range makes every proposal invalid or worse: each cycle keeps
    # the plain point, so the run is exactly plain EM, plus one counted E-step per rejected
    # extrapolation that got as far as its E-step; no exception, NaN or warning escapes
    X = _overlapping(2, 150)
    monkeypatch.setattr(_acceleration, "squarem_step_length", lambda *s: -1e9)
    kw = dict(n_components=3, random_state=0, tol=1e-8, max_iter=2000)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        plain = GaussianMixture(**kw).fit(X)
        fast = squarem_fit(GaussianMixture(**kw), X)
    assert fast.squarem_["accepted"] == 0 and fast.squarem_["extrapolations"] > 0
    assert fast.lower_bound_ == plain.lower_bound_
    np.testing.assert_array_equal(fast.means_, plain.means_)
    np.testing.assert_array_equal(fast.monitor_.history, plain.lower_bounds_)
    assert fast.n_iter_ >= plain.n_iter_
    assert np.all(np.isfinite(fast.lower_bounds_) | (fast.lower_bounds_ == -np.inf))


def test_models_with_warm_local_state_are_refused():
    from latentkit.topic import LatentDirichletAllocation

    X = np.random.default_rng(0).poisson(1.0, (20, 12))
    with pytest.raises(ValueError, match="keeps local state"):
        squarem_fit(LatentDirichletAllocation(2, random_state=0), X)


def test_gaussian_mixture_em_drifts_down_by_reg_covar_as_scikit_learn_does():
    # why squarem_ 'iterates' are monotone only "as the model's own plain step can be": the
    # M-step returns S_k + reg_covar I, not the likelihood's maximiser S_k, so near an optimum
    # with a nearly singular class covariance (seeds: smallest eigenvalue 1.2e-5) the EM map
    # walks to its own fixed point, below the likelihood's peak (-1.5e-6 nats per sample per
    # step); scikit-learn's convention, step for step, and gone with a negligible reg_covar
    from sklearn.mixture import GaussianMixture as SkGaussianMixture

    from latentkit.datasets import load_seeds

    X = load_seeds().data
    X = (X - X.mean(0)) / X.std(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        start = GaussianMixture(3, max_iter=5, tol=0.0, random_state=0).fit(X)
        init = dict(weights=start.weights_, means=start.means_, precisions=start.precisions_)
        steps = {}
        for reg in (1e-6, 1e-10):
            ours = GaussianMixture(3, reg_covar=reg, max_iter=20, tol=0.0, init=init).fit(X)
            sk = SkGaussianMixture(3, reg_covar=reg, max_iter=20, tol=0.0,
                                   weights_init=init["weights"], means_init=init["means"],
                                   precisions_init=init["precisions"]).fit(X)
            np.testing.assert_allclose(ours.lower_bounds_, sk.lower_bounds_, atol=1e-10)
            steps[reg] = np.diff(ours.lower_bounds_)
    assert steps[1e-6].min() < -1e-6  # measured -1.51e-6
    assert steps[1e-10].min() > -1e-12  # plain EM: an ascent map


def test_the_decrease_warning_of_a_gaussian_mixture_names_reg_covar():
    # the drift above warns (a decrease over 1e-9 relative), and the warning says why instead
    # of "an exact EM/VB bound must not decrease"; a model without a regularised M-step keeps
    # the exact message
    from latentkit.base import ConvergenceMonitor, ELBODecreaseWarning
    from latentkit.datasets import load_seeds

    X = load_seeds().data
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        GaussianMixture(3, random_state=0).fit(X)
    decreases = [str(w.message) for w in caught if issubclass(w.category, ELBODecreaseWarning)]
    assert decreases and all("reg_covar" in m and "must not" not in m for m in decreases)
    monitor = ConvergenceMonitor(1e-3, 10)
    monitor.report(-1.0)
    with pytest.warns(ELBODecreaseWarning, match="an exact EM/VB bound must not decrease"):
        monitor.report(-1.1)
