"""PrivacyAccountant: closed-form calibration, RDP accounting vs direct minimisation, budgets."""

import math

import numpy as np
import pytest
from scipy.optimize import minimize_scalar

from latentkit.spectral._accounting import (PrivacyAccountant, calibrate_gaussian_noise,
                                         gaussian_rdp, rdp_epsilon)


def _paper_nu(eps, delta, K, c=6.0):
    """WA16 Alg. 3, written out independently of the implementation."""
    eps_p = eps / np.sqrt(K * (4 + np.log(2 / delta)))
    delta_p = delta / (2 * K)
    return c * np.sqrt(2 * np.log(1.25 / delta_p)) / eps_p


def _rdp_direct(pairs, delta):
    """min over real orders a > 1 of sum_i a D_i^2/(2 s_i^2) + ln(1/delta)/(a-1), by scipy."""
    def f(log_am1):
        a = 1.0 + np.exp(log_am1)
        return sum(gaussian_rdp(a, D, s) for D, s in pairs) + np.log(1 / delta) / (a - 1)
    res = minimize_scalar(f, bounds=(-30, 30), method="bounded",
                          options={"xatol": 1e-12, "maxiter": 2000})
    return float(res.fun)


@pytest.mark.parametrize("eps,delta,K", [(1.0, 1e-5, 630), (0.3, 1e-6, 5 * 10 * 21),
                                         (2.0, 1e-3, 1), (0.5, 1e-5, 90)])
def test_advanced_calibration_matches_closed_form(eps, delta, K):
    nu = PrivacyAccountant.calibrate(eps, delta, K, 6.0, "advanced")
    assert abs(nu - _paper_nu(eps, delta, K)) <= 1e-12 * _paper_nu(eps, delta, K)
    # the notes' worked example: k=3, L=10, R=20, delta=1e-5 -> nu ~ 3725/eps
    assert PrivacyAccountant.calibrate(1.0, 1e-5, 630, 6.0) == pytest.approx(3725, rel=1e-3)
    # linear in the sensitivity
    assert calibrate_gaussian_noise(eps, delta, K, 1.0, "advanced") * 6 == pytest.approx(nu,
                                                                                        rel=1e-14)


@pytest.mark.parametrize("pairs", [[(1.0, 3.0)], [(6.0, 40.0)] * 500,
                                   [(1.0, 2.0), (2.0, 9.0), (0.5, 0.7)]])
@pytest.mark.parametrize("delta", [1e-7, 1e-5, 1e-2])
def test_rdp_matches_direct_minimisation(pairs, delta):
    acc = PrivacyAccountant()
    for D, s in pairs:
        acc.record(D, s)
    eps = acc.spent(delta, "rdp")
    direct = _rdp_direct(pairs, delta)
    assert eps == pytest.approx(direct, rel=1e-8)
    assert eps >= 0


def test_rdp_epsilon_properties():
    rho = 0.05
    deltas = np.logspace(-12, -0.01, 40)
    eps = np.array([rdp_epsilon(rho, d)[0] for d in deltas])
    assert np.all(eps >= 0)
    assert np.all(np.diff(eps) < 0)  # epsilon falls as delta grows
    assert rdp_epsilon(0.0, 1e-5)[0] == 0.0
    assert PrivacyAccountant().spent(1e-5, "rdp") == 0.0
    # tiny rho, delta close to 1: still non-negative
    assert rdp_epsilon(1e-12, 0.999)[0] >= 0


@pytest.mark.parametrize("K", [1, 30, 1050, 10 ** 5])
def test_rdp_calibration_is_smallest_noise(K):
    eps, delta = 1.0, 1e-5
    s = calibrate_gaussian_noise(eps, delta, K, 6.0, "rdp")
    acc = PrivacyAccountant().record(6.0, s, count=K)
    assert acc.spent(delta, "rdp") <= eps * (1 + 1e-12)
    # 0.1% less noise breaks the budget: the bisection found the smallest sigma
    acc2 = PrivacyAccountant().record(6.0, s * 0.999, count=K)
    assert acc2.spent(delta, "rdp") > eps
    # closed form of the inverse: sqrt(rho) = sqrt(L + eps) - sqrt(L)
    L = math.log(1 / delta)
    rho = (math.sqrt(L + eps) - math.sqrt(L)) ** 2
    assert s == pytest.approx(6.0 * math.sqrt(K / (2 * rho)), rel=1e-10)
    if K >= 30:  # realistic K: strictly smaller than the paper's calibration
        assert s < calibrate_gaussian_noise(eps, delta, K, 6.0, "advanced")


def test_spent_inverts_calibration_and_reports_all_rules():
    eps, delta, K = 0.8, 1e-5, 630
    nu = PrivacyAccountant.calibrate(eps, delta, K, 6.0, "advanced")
    acc = PrivacyAccountant().record(6.0, nu, count=K)
    assert acc.spent(delta, "advanced") == pytest.approx(eps, rel=1e-12)
    rep = acc.report(delta)
    assert rep["n_releases"] == K
    assert 0 < rep["epsilon_rdp"] < eps  # RDP certifies the paper's noise more tightly
    # DRV advanced composition theorem certifies ~sqrt(2) x the target for small delta
    assert rep["epsilon_drv"] > eps
    # scaling the releases (sensitivity and sigma by ||u||_inf^2) changes nothing
    acc2 = PrivacyAccountant()
    scales = np.random.default_rng(0).uniform(0.01, 0.3, K)
    acc2.record_many(6.0 * scales, nu * scales)
    assert acc2.spent(delta, "advanced") == pytest.approx(eps, rel=1e-10)
    assert acc2.spent(delta, "rdp") == pytest.approx(rep["epsilon_rdp"], rel=1e-10)


@pytest.mark.parametrize("bad", [0.0, -1.0, float("nan"), float("inf")])
def test_bad_epsilon(bad):
    with pytest.raises(ValueError, match="epsilon"):
        calibrate_gaussian_noise(bad, 1e-5, 10)


@pytest.mark.parametrize("bad", [0.0, 1.0, 1.5, -1e-5])
def test_bad_delta(bad):
    with pytest.raises(ValueError, match="delta"):
        calibrate_gaussian_noise(1.0, bad, 10)
    with pytest.raises(ValueError, match="delta"):
        PrivacyAccountant().spent(bad)


def test_bad_arguments():
    with pytest.raises(ValueError, match="n_releases"):
        calibrate_gaussian_noise(1.0, 1e-5, 0)
    with pytest.raises(ValueError, match="method"):
        calibrate_gaussian_noise(1.0, 1e-5, 10, method="basic")
    with pytest.raises(ValueError, match="sensitivity"):
        calibrate_gaussian_noise(1.0, 1e-5, 10, sensitivity=0.0)
    with pytest.raises(TypeError, match="n_releases"):
        calibrate_gaussian_noise(1.0, 1e-5, 2.5)


def test_unmeetable_budgets():
    # 'advanced' needs a per-release eps' < 1 for the classical Gaussian mechanism
    with pytest.raises(ValueError, match="budget cannot be met"):
        calibrate_gaussian_noise(100.0, 1e-5, 4)
    assert calibrate_gaussian_noise(100.0, 1e-5, 4, method="rdp") > 0
    # an accountant with a total budget refuses releases beyond it
    acc = PrivacyAccountant(epsilon=1.0, delta=1e-5, method="rdp")
    s = calibrate_gaussian_noise(0.9, 1e-5, 100, 6.0, "rdp")
    acc.check_budget(0.9, 1e-5, 100, 6.0, s)  # fits
    acc.record(6.0, s, count=100)
    with pytest.raises(ValueError, match="budget cannot be met"):
        acc.check_budget(0.9, 1e-5, 100, 6.0, s)
