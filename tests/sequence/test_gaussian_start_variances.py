"""Issue 42, item 2: the Gaussian HMM spectral start's per-state variances (diag, spherical)
are exact on population moments and converge at the moments' n^-1/2 rate (the variance floor
shrinks with the sampling error instead of biasing narrow states)."""

import itertools

import numpy as np
import pytest

from latentkit.sequence import spectral_init_gaussian_hmm
from latentkit.sequence._spectral_start import variance_floor
from latentkit.spectral._multiview import n_powers, views_estimate
from latentkit.testing import sample_categorical_hmm


def _normal_moment(mu, sd, q):
    """E[z^q] of N(mu, sd^2), q <= 4 (closed forms)."""
    return {0: np.ones_like(mu), 1: mu, 2: mu ** 2 + sd ** 2, 3: mu ** 3 + 3 * mu * sd ** 2,
            4: mu ** 4 + 6 * mu ** 2 * sd ** 2 + 3 * sd ** 4}[q]


@pytest.mark.parametrize("K, D", [(3, 2), (3, 1), (4, 1), (2, 3)])
def test_means_variances_transitions_exact_on_population_moments(K, D):
    # the population moments as the weighted set of all K^3 state paths of a window, each
    # view's row the conditional mean of the features (1, z, ..., z^p) given its state
    rng = np.random.default_rng(K + 10 * D)
    pi = rng.dirichlet(np.ones(K) * 3)
    A = rng.dirichlet(np.ones(K), size=K) + np.eye(K)
    A /= A.sum(1, keepdims=True)
    mu = rng.normal(size=(K, D)) * 1.5
    sd = rng.uniform(0.2, 1.0, size=(K, D))
    p = n_powers(K, D)
    m = np.concatenate([np.ones((K, 1))] + [_normal_moment(mu, sd, q) for q in range(1, p + 1)],
                       axis=1)
    paths = np.array(list(itertools.product(range(K), repeat=3)))
    weights = pi[paths[:, 0]] * A[paths[:, 0], paths[:, 1]] * A[paths[:, 1], paths[:, 2]]
    mean_z, sq_z, w, Ah = views_estimate(m[paths[:, 0]], m[paths[:, 1]], m[paths[:, 2]], K, D,
                                         np.random.default_rng(0), weights=weights)
    order = [int(np.argmin(np.abs(mean_z - mu[j]).sum(1))) for j in range(K)]
    var = sq_z[order] - mean_z[order] ** 2
    # 1e-12: the estimator is exact algebra; what is left is rounding of O(1) numbers
    np.testing.assert_allclose(mean_z[order], mu, atol=1e-12)
    np.testing.assert_allclose(var, sd ** 2, atol=1e-12)  # 'diag'
    np.testing.assert_allclose(var.mean(1), (sd ** 2).mean(1), atol=1e-12)  # 'spherical'
    np.testing.assert_allclose(Ah[np.ix_(order, order)], A, atol=1e-12)
    np.testing.assert_allclose(w[order], pi @ A, atol=1e-12)


def test_variance_floor_shrinks_as_n_to_the_minus_half_beyond_1e4_windows():
    assert variance_floor(1e-2, np.array([0, 5002, 10004])) == 1e-2  # 1e4 windows
    assert variance_floor(1e-2, np.array([0, 100])) == 1e-2
    assert variance_floor(1e-2, np.array([0, 10 ** 6 + 2])) == pytest.approx(1e-3, rel=1e-12)


def _narrow_state_errors(n, seeds):
    """Errors of the variances of a 3-state chain with a narrow middle state (0.3 % of the
    feature's variance, below the old fixed floor of 1 %), mean over seeds: the raw moment
    estimate (unfloored) and the start's."""
    from latentkit.spectral._multiview import multiview_estimate

    A = np.array([[0.9, 0.05, 0.05], [0.05, 0.9, 0.05], [0.05, 0.05, 0.9]])
    mu = np.array([[0.0], [2.0], [4.0]])
    sd = np.array([[1.0], [0.1], [0.5]])
    raw, start = [], []
    for s in seeds:
        rng = np.random.default_rng(s)
        z = sample_categorical_hmm(np.full(3, 1 / 3), A, np.eye(3), n, 3, rng).ravel()
        X = mu[z] + sd[z] * rng.standard_normal((z.size, 1))
        m, q, _, _, _, scale = multiview_estimate(X, np.arange(0, 3 * n + 1, 3), 3,
                                                  np.random.default_rng(s))
        o = np.argsort(m[:, 0])
        raw.append(np.abs(scale ** 2 * (q - m ** 2)[o, 0] - sd[:, 0] ** 2))
        est = spectral_init_gaussian_hmm(X, [3] * n, 3, "diag", random_state=s)
        o = np.argsort(est["means"][:, 0])
        start.append(np.abs(est["covars"][o, 0] - sd[:, 0] ** 2))
    return np.mean(raw, axis=0), np.mean(start, axis=0)


@pytest.mark.slow  # 25 s of one core: 2 x 3 samples up to 9e5 observations
def test_variances_converge_and_the_floor_does_not_hold_a_narrow_state():
    raw_small, _ = _narrow_state_errors(20_000, (0, 1, 2))
    raw_large, start_large = _narrow_state_errors(300_000, (0, 1, 2))
    # the moments' variances: n^-1/2 predicts a ratio 0.26 from 2e4 to 3e5 triples (measured
    # 0.19 for the narrow state, 0.32 and 0.21 for the others); 0.5 leaves room for 3 seeds
    assert np.all(raw_large < 0.5 * raw_small), (raw_small, raw_large)
    # the start's: the old fixed floor (1 % of the data variance, 0.031) held the narrow
    # state's variance 0.021 above its 0.01 at any n; the shrinking floor (0.0057 at 3e5
    # windows) lets the moments through (0.0087 measured)
    assert start_large[1] < 0.015, start_large
