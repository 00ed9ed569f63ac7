"""PrivateSpectralGMM: per-sample DP spherical mixture (issue 18, item 1)."""

import math
import warnings

import numpy as np
import pytest
from scipy.optimize import linear_sum_assignment

from latentkit.spectral import PrivacyNoiseWarning, PrivateSpectralGMM, SpectralGMM


def _mixture(n, seed=0):
    rng = np.random.default_rng(seed)
    mu = np.eye(8)[:3] * 3.0
    z = rng.choice(3, n, p=[0.5, 0.3, 0.2])
    return mu[z] + 0.5 * rng.standard_normal((n, 8)), mu


def _err(m, mu):
    D = np.linalg.norm(m.means_[:, None] - mu[None], axis=2)
    r, c = linear_sum_assignment(D)
    return D[r, c].mean()


def test_epsilon_inf_matches_nonprivate_and_accuracy_grows_with_epsilon():
    X, mu = _mixture(100_000)
    ref = SpectralGMM(3, random_state=0).fit(X)
    m = PrivateSpectralGMM(3, clip_norm=6.0, epsilon=np.inf, random_state=0).fit(X)
    assert _err(m, mu) < 0.02 and abs(_err(m, mu) - _err(ref, mu)) < 0.01
    assert m.sigma2_ == pytest.approx(ref.sigma2_, rel=1e-10)  # no clipping at R=6 here
    errs = []
    for eps in (1.0, 10.0, 100.0):
        m = PrivateSpectralGMM(3, clip_norm=6.0, epsilon=eps, n_init=5, max_iter=10,
                               random_state=0).fit(X)
        assert m.privacy_report_["epsilon"] == pytest.approx(eps, rel=1e-9)
        assert m.n_releases_ == 3 * 5 * 11 + 2
        errs.append(_err(m, mu))
    assert errs[0] > errs[1] > errs[2] and errs[2] < 0.05


def test_sensitivities_by_brute_force():
    """Clipped samples: each stage's change over random replacements stays within the bound."""
    rng = np.random.default_rng(1)
    R, n, d = 2.0, 7, 4
    worst = np.zeros(4)
    for _ in range(400):
        A = rng.standard_normal((n, d)) * rng.uniform(0.1, 3)
        B = A.copy()
        B[0] = rng.standard_normal(d) * rng.uniform(0.1, 5)
        clip = [Z * np.minimum(1, R / np.linalg.norm(Z, axis=1))[:, None] for Z in (A, B)]
        W = rng.standard_normal((d, 2)) * rng.uniform(0.1, 2)
        u = rng.standard_normal(2)
        u /= np.linalg.norm(u)
        s = [Z.sum(0) for Z in clip]
        S2 = [(Z.T @ Z)[np.triu_indices(d)] for Z in clip]
        Tp, Te = [], []
        for Z in clip:
            Y = Z @ W
            Tp.append(Y.T @ (Y @ u) ** 2)
            Te.append(((Y @ u) ** 3).sum())
        Wu = np.linalg.norm(W @ u)
        worst = np.maximum(worst, [
            np.linalg.norm(s[0] - s[1]) / (2 * R),
            np.linalg.norm(S2[0] - S2[1]) / (math.sqrt(2) * R ** 2),
            np.linalg.norm(Tp[0] - Tp[1]) / (2 * np.linalg.norm(W, 2) * R ** 3 * Wu ** 2),
            abs(Te[0] - Te[1]) / (2 * R ** 3 * Wu ** 3)])
    assert np.all(worst <= 1 + 1e-12) and np.all(worst > 0.3)


def test_errors_and_noise_warning():
    X, _ = _mixture(300)
    with pytest.raises(ValueError, match="clip_norm"):
        PrivateSpectralGMM(3).fit(X)
    with pytest.raises(ValueError, match="clip_norm"):
        PrivateSpectralGMM(3, clip_norm=-1.0).fit(X)
    with pytest.raises(ValueError, match="budget_split"):
        PrivateSpectralGMM(3, clip_norm=1.0, budget_split=(1, 0, 0)).fit(X)
    with pytest.raises(ValueError, match="accountant"):
        PrivateSpectralGMM(3, clip_norm=1.0, accountant="advanced").fit(X)
    with pytest.warns(PrivacyNoiseWarning):
        m = PrivateSpectralGMM(3, clip_norm=6.0, epsilon=0.5, random_state=0).fit(X)
    assert m.predict(X).shape == (300,)
    Xc = X.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyNoiseWarning)
        PrivateSpectralGMM(3, clip_norm=1.0, random_state=0).fit(Xc)
    np.testing.assert_array_equal(X, Xc)
