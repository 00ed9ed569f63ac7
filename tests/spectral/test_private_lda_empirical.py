"""Empirical privacy of PrivateSpectralLDA (issue 18, item 2).

A tiny corpus and a neighbour (one document changed from six tokens of the first word to six
tokens of the last one: the change that attains the stage-1 and stage-2 sensitivities). The
mechanism is run many times on both; the released values are reduced to one statistic (the
log-likelihood-ratio direction of the two corpora's exact statistics, a post-processing chosen
in advance), and for every threshold the event {statistic > threshold} gives a lower confidence
bound on the privacy loss, ``ln((P_a(S) - delta) / P_b(S))`` with Clopper-Pearson bounds
(Bonferroni over thresholds and directions). That bound must never exceed the claimed epsilon,
and a deliberately under-noised variant (noise halved) must be caught by it. Stage 3's
sensitivities are checked by brute force in test_private_lda.py.

Two sample sizes: 1,500 runs of the release code itself per corpus, and 200,000 draws of the
same releases vectorised (``exact statistics + sigma * N(0, I)`` in the release code's layout,
which ``test_release_noise_layout`` checks draw for draw against the release code).
"""

import math

import numpy as np
import pytest
import scipy.sparse as sp

from latentkit.spectral import PrivateSpectralLDA
from latentkit.testing import empirical_epsilon_lower_bound as _eps_lower_bound
from test_private_lda import _tiny_neighbours
from latentkit.spectral._private_lda import _SQRT2, _release_moments
from latentkit.spectral._accounting import analytic_gaussian_epsilon, rho_for_budget

EPS, DELTA, SPLIT = 2.0, 1e-5, (0.45, 0.45, 0.1)


def _neighbours():
    """test_private_lda's corpus and its two neighbours, as CSR matrices."""
    _, Xa, Xb = _tiny_neighbours()
    return sp.csr_matrix(Xa), sp.csr_matrix(Xb)


def _exact(X):
    count, s1, _, E2 = _release_moments(X, np.asarray(X.sum(1)).ravel(), 0.0, 0.0, 5,
                                        np.random.default_rng(0))
    return np.concatenate([[count], s1]), E2[np.triu_indices(5)]


def _sigmas(eps=EPS):
    rho = rho_for_budget(eps, DELTA, "analytic") * np.asarray(SPLIT)
    return _SQRT2 / np.sqrt(2 * rho[0]), _SQRT2 / np.sqrt(2 * rho[1])


def _statistic(r1, r2, a, b, s1, s2):
    """<r - b, (a - b)/sigma^2> summed over the two stages, standardised: N(0,1) under b and
    N(mu, 1) under a with mu = ||(a - b)/sigma||."""
    d1, d2 = a[0] - b[0], a[1] - b[1]
    mu = math.sqrt(d1 @ d1 / s1 ** 2 + d2 @ d2 / s2 ** 2)
    return ((r1 - b[0]) @ d1 / s1 ** 2 + (r2 - b[1]) @ d2 / s2 ** 2) / mu, mu


def _run(X, s1, s2, n, seed):
    """The release code the estimator runs (_release_moments), n times."""
    rng = np.random.default_rng(seed)
    ell = np.asarray(X.sum(1)).ravel()
    R1, R2 = [], []
    for _ in range(n):
        count, f, _, E2 = _release_moments(X, ell, s1, s2, 5, rng)
        R1.append(np.concatenate([[count], f]))
        R2.append(E2[np.triu_indices(5)])
    return np.array(R1), np.array(R2)


@pytest.mark.filterwarnings("ignore::latentkit.spectral.PrivacyNoiseWarning")
def test_fit_releases_are_the_tested_mechanism(monkeypatch):
    """fit() releases exactly what _release_moments draws, with the sigmas used here (the
    noise source, OS entropy in a fit, replaced here by a seeded generator to compare draws)."""
    Xa, _ = _neighbours()
    import latentkit.spectral._private_lda as private_lda
    monkeypatch.setattr(private_lda, "_noise_rng", lambda: np.random.default_rng(7))
    m = PrivateSpectralLDA(2, EPS, DELTA, n_words=5, budget_split=SPLIT, n_init=2,
                           max_iter=2, random_state=7).fit(Xa)
    s1, s2 = _sigmas()
    count, f, _, E2 = _release_moments(Xa, np.asarray(Xa.sum(1)).ravel(), s1, s2, 5,
                                       np.random.default_rng(7))
    np.testing.assert_array_equal(m.word_frequencies_, f)
    np.testing.assert_array_equal(m.released_e2_, E2)
    assert m.n_docs_estimate_ == count
    sens, sig, _ = zip(*m.accountant_.releases[:2])
    np.testing.assert_allclose(np.array(sig) / np.array(sens), np.array([s1, s2]) / _SQRT2,
                               rtol=1e-12)


def _bulk(stat, s1, s2, n, seed):
    """n releases at once, in the layout of _release_moments: one normal for the count, V for
    the frequencies, then an m x m matrix whose upper triangle (with diagonal) is used."""
    rng = np.random.default_rng(seed)
    Z = rng.standard_normal((n, 1 + 5 + 25))
    up = np.triu_indices(5)
    return stat[0] + s1 * Z[:, :6], stat[1] + s2 * Z[:, 6:].reshape(n, 5, 5)[:, up[0], up[1]]


def test_release_noise_layout():
    Xa, _ = _neighbours()
    a = _exact(Xa)
    r1, r2 = _run(Xa, 0.7, 1.3, 3, 11)
    b1, b2 = [], []
    rng = np.random.default_rng(11)
    for i in range(3):
        z = rng.standard_normal(1 + 5 + 25)
        up = np.triu_indices(5)
        b1.append(a[0] + 0.7 * z[:6])
        b2.append(a[1] + 1.3 * z[6:].reshape(5, 5)[up])
    np.testing.assert_allclose(r1, np.array(b1), rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(r2, np.array(b2), rtol=1e-13, atol=1e-13)


@pytest.mark.slow
@pytest.mark.parametrize("n,bulk", [(1500, False), (200_000, True)])
def test_empirical_privacy_loss_never_exceeds_the_claim_and_catches_under_noise(n, bulk):
    Xa, Xb = _neighbours()
    a, b = _exact(Xa), _exact(Xb)
    s1, s2 = _sigmas()
    draw = (lambda X, st, x, y, m, seed: _bulk(st, x, y, m, seed)) if bulk else \
        (lambda X, st, x, y, m, seed: _run(X, x, y, m, seed))
    ra, rb = draw(Xa, a, s1, s2, n, 1), draw(Xb, b, s1, s2, n, 2)
    ta, mu = _statistic(*ra, a, b, s1, s2)
    tb, _ = _statistic(*rb, a, b, s1, s2)
    # the neighbours attain the sensitivity: the tested part carries 90% of the budget's rho
    assert mu == pytest.approx(math.sqrt(0.9 * 2 * rho_for_budget(EPS, DELTA, "analytic")),
                               rel=1e-9)
    # the released statistic has the distribution the accounting assumes
    assert abs(np.mean(ta) - mu) < 5 / math.sqrt(n) and abs(np.mean(tb)) < 5 / math.sqrt(n)
    assert abs(np.std(tb) - 1) < 5 / math.sqrt(n)
    eps_hat = _eps_lower_bound(ta, tb, DELTA)
    assert eps_hat <= EPS
    if not bulk:
        return
    assert eps_hat > 0.25 * EPS  # the test has power: it sees a large part of the loss
    # the same mechanism with half the noise spends more than claimed, and is caught
    ra, rb = draw(Xa, a, s1 / 2, s2 / 2, n, 3), draw(Xb, b, s1 / 2, s2 / 2, n, 4)
    ta, _ = _statistic(*ra, a, b, s1 / 2, s2 / 2)
    tb, _ = _statistic(*rb, a, b, s1 / 2, s2 / 2)
    assert analytic_gaussian_epsilon(2 * mu, DELTA) > EPS
    assert _eps_lower_bound(ta, tb, DELTA) > EPS
