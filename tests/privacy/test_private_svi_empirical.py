"""Empirical privacy of PrivateStochasticVI (issue 30 item 4).

A tiny corpus ``b`` (documents on words 0-2) and its neighbour ``a`` = ``b`` plus one long
document on words 3-5 (its expected topic-word counts are clipped: norm exactly ``clip``). One
private step (T = 1, sampling rate q) is released many times on each; the release is reduced to
the statistic ``<S, u> / sigma`` with ``u`` the unit direction of the added document's clipped
statistics (a post-processing chosen in advance; the other documents' statistics are orthogonal
to ``u``, so this is the worst case of the subsampled Gaussian:
``N(0, 1)`` against ``(1 - q) N(0, 1) + q N(clip / sigma, 1)``). For every threshold event the
Clopper-Pearson bounds give a lower confidence bound on epsilon
(:func:`latentkit.testing.empirical_epsilon_lower_bound`) that must not exceed the accountant's
epsilon, while an under-noised variant (a third of the noise) must be caught.

Two sample sizes: 1,500 runs of the fit's own release code
(``latentkit.inference._private_svi.release``) per data set, and 200,000 vectorised draws of the same release (Bernoulli(q) row masks times
the clipped per-document statistics plus ``sigma`` N(0, I)), which ``test_release_layout``
checks draw for draw against the release code.
"""

import math

import numba
import numpy as np
import pytest
import scipy.sparse as sp

import latentkit.inference._private_svi as psvi
from latentkit.inference import PrivateStochasticVI
from latentkit.spectral import calibrate_noise_multiplier
from latentkit.testing import empirical_epsilon_lower_bound
from latentkit.topic import LatentDirichletAllocation

EPS, DELTA, Q, CLIP = 2.0, 1e-5, 0.5, 3.0


def _neighbours():
    b = np.array([[2, 1, 0, 0, 0, 0], [0, 3, 1, 0, 0, 0], [1, 0, 2, 0, 0, 0]], dtype=float)
    a = np.vstack([b, [[0, 0, 0, 9, 8, 7]]])
    return sp.csr_matrix(a), sp.csr_matrix(b)


def _pieces():
    m = LatentDirichletAllocation(n_components=2)
    p = m._private_svi_pieces(None)
    p.start(6, np.random.default_rng(0))
    return p


def _per_doc(p, X):
    """Each document's clipped statistics, flattened (one row per document)."""
    return np.array([p.clipped_sum(X[i], CLIP)[0].ravel() for i in range(X.shape[0])])


def _direction(p):
    Xa, _ = _neighbours()
    c = _per_doc(p, Xa)[-1]
    assert np.linalg.norm(c) == pytest.approx(CLIP, rel=1e-12)  # the added document is clipped
    return c / CLIP


def _sigma(factor=1.0):
    return factor * CLIP * calibrate_noise_multiplier(EPS, DELTA, Q, 1)


def _run(p, X, sigma, n, seed):
    rng = np.random.default_rng(seed)
    threads = numba.get_num_threads()
    numba.set_num_threads(1)  # 3 or 4 documents: thread start-up would dominate each E-step
    try:
        return np.array([psvi.release(p, X, Q, CLIP, sigma, rng)[0].ravel() for _ in range(n)])
    finally:
        numba.set_num_threads(threads)


def _bulk(C, sigma, n, seed):
    rng = np.random.default_rng(seed)
    masks = rng.random((n, C.shape[0])) < Q
    return masks @ C + sigma * rng.standard_normal((n, C.shape[1]))


def test_fit_is_this_release_and_accounts_it():
    Xa, _ = _neighbours()
    f = PrivateStochasticVI(LatentDirichletAllocation(n_components=2), epsilon=EPS,
                            delta=DELTA, clip=CLIP, sampling_rate=Q, max_steps=1,
                            random_state=0).fit(Xa)
    assert f.n_steps_ == 1 and f.sigma_ == pytest.approx(_sigma(), rel=1e-12)
    assert f.epsilon_["rdp_improved"] == pytest.approx(EPS, rel=1e-8)
    assert f.accountant_.subsampled_releases == [(CLIP, f.sigma_, 1, Q, "poisson")]


def test_release_layout():
    p = _pieces()
    Xa, _ = _neighbours()
    C = _per_doc(p, Xa)
    runs = _run(p, Xa, 0.7, 3, 11)
    rng = np.random.default_rng(11)
    for r in runs:
        mask = rng.random(C.shape[0]) < Q
        expect = mask @ C + rng.normal(0.0, 0.7, size=C.shape[1])
        np.testing.assert_allclose(r, expect, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("n,bulk", [(1500, False), (200_000, True)])
def test_empirical_privacy_loss_below_the_claim_and_under_noise_caught(n, bulk):
    p = _pieces()
    Xa, Xb = _neighbours()
    u = _direction(p)
    Ca, Cb = _per_doc(p, Xa), _per_doc(p, Xb)
    assert np.allclose(Cb @ u, 0.0)  # the other documents do not move the statistic
    sigma = _sigma()

    def draw(X, C, s, seed):
        return _bulk(C, s, n, seed) if bulk else _run(p, X, s, n, seed)

    ta = draw(Xa, Ca, sigma, 1) @ u / sigma
    tb = draw(Xb, Cb, sigma, 2) @ u / sigma
    # the statistic has the distribution the accounting assumes
    mu = CLIP / sigma
    assert abs(np.mean(ta) - Q * mu) < 5 * math.sqrt((1 + mu * mu) / n)
    assert abs(np.mean(tb)) < 5 / math.sqrt(n) and abs(np.std(tb) - 1) < 5 / math.sqrt(n)
    eps_hat = empirical_epsilon_lower_bound(ta, tb, DELTA)
    assert eps_hat <= EPS
    if not bulk:
        return
    assert eps_hat > 0.3 * EPS  # the audit has power: it sees a large part of the loss
    # a third of the noise spends more than claimed, and the audit catches it
    s3 = _sigma(1 / 3)
    ta = _bulk(Ca, s3, n, 3) @ u / s3
    tb = _bulk(Cb, s3, n, 4) @ u / s3
    assert empirical_epsilon_lower_bound(ta, tb, DELTA) > EPS
