"""Analytic Gaussian mechanism (Balle & Wang 2018) in PrivacyAccountant, the exact accounting of
Gaussian compositions, and epsilon=inf runs (issue 11 item 12, issue 17 item 3)."""

import math

import numpy as np
import pytest
from scipy import integrate, stats

from latentkit.spectral._private_power import input_perturbation_power, private_tensor_power
from test_private_power import FactorTensor
from latentkit.spectral._accounting import (PrivacyAccountant, analytic_gaussian_delta,
                                         analytic_gaussian_epsilon, calibrate_gaussian_noise,
                                         rho_for_budget)


def _hockey_stick(eps, mu):
    """sup_S P[N(mu,1) in S] - e^eps P[N(0,1) in S] by numerical integration of
    max(p - e^eps q, 0): the privacy profile from its definition, independent of the closed form."""
    f = lambda x: max(stats.norm.pdf(x, mu) - math.exp(eps) * stats.norm.pdf(x), 0.0)
    # p > e^eps q  iff  x > eps/mu + mu/2
    x0 = eps / mu + mu / 2
    val, _ = integrate.quad(f, x0, x0 + 40.0, epsabs=1e-15, epsrel=1e-12, limit=200)
    return val


@pytest.mark.parametrize("eps,mu", [(0.0, 0.5), (0.5, 1.0), (1.0, 0.3), (2.0, 3.0), (5.0, 2.0),
                                    (10.0, 6.0)])
def test_closed_form_profile_equals_hockey_stick_integral(eps, mu):
    assert analytic_gaussian_delta(eps, mu) == pytest.approx(_hockey_stick(eps, mu), rel=1e-7,
                                                             abs=1e-15)


@pytest.mark.parametrize("eps", [0.1, 0.5, 1.0, 3.0, 10.0])
@pytest.mark.parametrize("delta", [1e-3, 1e-5, 1e-8])
def test_analytic_calibration_meets_the_profile_exactly(eps, delta):
    sens = 2.5
    sigma = PrivacyAccountant.calibrate(eps, delta, 1, sens, "analytic")
    # the released mechanism meets (eps, delta) with equality (it is the smallest sigma)
    assert analytic_gaussian_delta(eps, sens / sigma) == pytest.approx(delta, rel=1e-9)
    assert analytic_gaussian_delta(eps, sens / (0.999 * sigma)) > delta
    # and is never noisier than the classical mechanism (when that applies) or Renyi-DP
    assert sigma <= calibrate_gaussian_noise(eps, delta, 1, sens, "rdp") * (1 + 1e-12)
    if eps < 1:
        assert sigma < sens * math.sqrt(2 * math.log(1.25 / delta)) / eps
    # the accountant's spent('analytic') inverts it
    acc = PrivacyAccountant().record(sens, sigma)
    assert acc.spent(delta, "analytic") == pytest.approx(eps, rel=1e-9)
    assert analytic_gaussian_epsilon(sens / sigma, delta) == pytest.approx(eps, rel=1e-9)


def test_rdp_overclaim_measured():
    """The ratio the input_perturbation_power docstring states: Renyi-DP sigma / analytic sigma."""
    r = [calibrate_gaussian_noise(e, 1e-5, 1, 1.0, "rdp")
         / calibrate_gaussian_noise(e, 1e-5, 1, 1.0, "analytic") for e in (0.1, 1.0, 10.0)]
    assert r[0] == pytest.approx(1.564, abs=2e-3)
    assert r[1] == pytest.approx(1.314, abs=2e-3)
    assert r[2] == pytest.approx(1.136, abs=2e-3)


def test_composition_is_root_sum_of_squares():
    """K releases with different ratios: spent('analytic') uses mu = sqrt(sum (D/s)^2), checked
    against the profile of one release with that mu, and never above the RDP figure."""
    rng = np.random.default_rng(0)
    sens, sig = rng.uniform(0.5, 2, 50), rng.uniform(20, 60, 50)
    acc = PrivacyAccountant().record_many(sens, sig)
    mu = math.sqrt(float(np.sum((sens / sig) ** 2)))
    eps = acc.spent(1e-6, "analytic")
    assert analytic_gaussian_delta(eps, mu) == pytest.approx(1e-6, rel=1e-8)
    assert eps < acc.spent(1e-6, "rdp")
    rep = acc.report(1e-6)
    assert rep["epsilon_analytic"] == eps
    # K-fold calibration: total mu = sqrt(K) D / sigma
    s = calibrate_gaussian_noise(1.0, 1e-5, 630, 6.0, "analytic")
    assert PrivacyAccountant().record(6.0, s, 630).spent(1e-5, "analytic") == pytest.approx(1.0,
                                                                                          rel=1e-9)
    # rho_for_budget inverts both rules
    for m in ("rdp", "analytic"):
        rho = rho_for_budget(1.0, 1e-5, m)
        a = PrivacyAccountant().record(1.0, 1.0 / math.sqrt(2 * rho))
        assert a.spent(1e-5, m) == pytest.approx(1.0, rel=1e-9)
    assert rho_for_budget(math.inf, 1e-5) == math.inf


def test_noiseless_release_spends_infinity():
    acc = PrivacyAccountant().record(1.0, 0.0)
    for m in ("rdp", "analytic", "advanced", "drv"):
        assert acc.spent(1e-5, m) == math.inf
    with pytest.raises(ValueError, match="sigma"):
        acc.record(1.0, -1.0)


def test_private_tensor_power_epsilon_inf_is_the_noiseless_algorithm():
    rng = np.random.default_rng(3)
    V = np.linalg.qr(rng.standard_normal((20, 3)))[0]
    lam = np.array([3.0, 2.0, 1.0])
    T = FactorTensor(lam, V)
    seen = []
    res = private_tensor_power(T, 3, np.inf, 1e-5, n_restarts=5, n_iter=30, random_state=1,
                               callback=lambda kind, U, out: seen.append((kind, U, out)))
    assert res.nu == 0.0 and res.n_releases == 3 * 5 * 31
    # every "release" is the exact (deflated) contraction: no noise at all
    kind, U, out = seen[0]
    np.testing.assert_allclose(out, T.contract(U), rtol=0, atol=1e-14)
    np.testing.assert_allclose(np.sort(res.weights)[::-1], lam, rtol=1e-8)
    # each recovered factor is one planted component up to sign
    np.testing.assert_allclose(np.sort(np.abs(V.T @ res.factors).max(axis=0)), 1.0, atol=1e-10)
    assert res.privacy_spent()["epsilon_rdp"] == math.inf
    # the same random stream as a private run: same starting vectors
    seen2 = []
    private_tensor_power(T, 3, 1.0, 1e-5, n_restarts=5, n_iter=30, random_state=1,
                         callback=lambda kind, U, out: seen2.append(U))
    np.testing.assert_array_equal(seen[0][1], seen2[0])
    dense = np.einsum("r,ir,jr,kr->ijk", lam, V, V, V)
    r2 = input_perturbation_power(dense, 3, np.inf, 1e-5, random_state=0)
    assert r2.nu == 0.0
    np.testing.assert_allclose(np.sort(r2.weights)[::-1], lam, rtol=1e-8)
    with pytest.raises(ValueError, match="epsilon"):
        private_tensor_power(T, 1, -np.inf, 1e-5)
