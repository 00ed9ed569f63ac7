"""init='spectral' for GaussianHMM (diag, spherical) and PoissonHMM: three-view moments of
consecutive observations recover planted chains; degenerate moments fall back with a warning."""

import warnings

import numpy as np
import pytest

from latentkit.datasets import load_earthquakes
from latentkit.sequence import GaussianHMM, PoissonHMM, check_lengths
from latentkit.spectral import SpectralInitWarning
from latentkit.sequence import spectral_init_gaussian_hmm, spectral_init_poisson_hmm
from latentkit.spectral._moments import three_view_moments
from latentkit.testing import match_components

A3 = np.array([[0.9, 0.05, 0.05], [0.05, 0.9, 0.05], [0.05, 0.05, 0.9]])


def _chain(A, n, rng, start=0):
    z = np.empty(n, dtype=np.int64)
    z[0] = start
    u = rng.random(n)
    cdf = np.cumsum(A, axis=1)
    for t in range(1, n):
        z[t] = min(np.searchsorted(cdf[z[t - 1]], u[t]), A.shape[0] - 1)
    return z


def test_three_view_windows_stay_inside_sequences():
    Phi = np.arange(12.0)[:, None]
    offsets = check_lengths([4, 2, 6], 12)
    a, b, c = three_view_moments(Phi, offsets)
    np.testing.assert_array_equal(a[:, 0], [0, 1, 6, 7, 8, 9])
    np.testing.assert_array_equal(b[:, 0] - a[:, 0], 1)
    np.testing.assert_array_equal(c[:, 0] - a[:, 0], 2)


@pytest.mark.parametrize("ct", ["diag", "spherical"])
def test_gaussian_start_recovers_a_planted_chain(ct):
    rng = np.random.default_rng(0)
    z = _chain(A3, 20000, rng)
    mu = np.array([[0.0, 0.0], [3.0, 0.0], [0.0, 3.0]])
    sd = np.array([[0.7, 1.0], [0.5, 0.5], [1.0, 0.7]])
    if ct == "spherical":
        sd = np.repeat([[0.7], [0.5], [1.0]], 2, axis=1)
    X = mu[z] + rng.normal(size=(z.size, 2)) * sd[z]
    p = spectral_init_gaussian_hmm(X, None, 3, ct, random_state=0)
    perm, err = match_components(mu, p["means"])
    assert err.max() < 0.1, p["means"]
    var = sd ** 2 if ct == "diag" else (sd ** 2).mean(axis=1)
    np.testing.assert_allclose(p["covars"][perm], var, rtol=0.15)
    np.testing.assert_allclose(p["transmat"][np.ix_(perm, perm)], A3, atol=0.03)


def test_poisson_start_recovers_a_univariate_chain_with_three_states():
    # one count series (D = 1) with K = 3 states: the feature map (1, z, z^2) identifies them
    rng = np.random.default_rng(1)
    z = _chain(A3, 30000, rng)
    lam = np.array([3.0, 12.0, 30.0])
    X = rng.poisson(lam[z])[:, None].astype(float)
    p = spectral_init_poisson_hmm(X, None, 3, random_state=0)
    order = np.argsort(p["lambdas"][:, 0])
    np.testing.assert_allclose(p["lambdas"][order, 0], lam, rtol=0.1)
    np.testing.assert_allclose(p["transmat"][np.ix_(order, order)], A3, atol=0.04)


def test_spectral_start_needs_fewer_iterations_on_the_earthquakes():
    # Zucchini & MacDonald's earthquake counts, K = 2: from the spectral start Baum-Welch
    # reaches the optimum (341.8787, see test_hmm) in fewer iterations than from random starts
    X = load_earthquakes().data
    spec = PoissonHMM(2, init="spectral", random_state=0, tol=1e-10, max_iter=2000).fit(X)
    assert -spec.lower_bound_ * len(X) == pytest.approx(341.8787, abs=1e-4)
    iters = [PoissonHMM(2, init="random", random_state=s, tol=1e-10, max_iter=2000).fit(X).n_iter_
             for s in range(3)]
    assert spec.n_iter_ < min(iters), (spec.n_iter_, iters)


def test_gaussian_hmm_spectral_start_is_near_the_optimum():
    rng = np.random.default_rng(2)
    z = _chain(A3, 3000, rng)
    mu = np.array([[0.0, 0.0], [3.0, 0.0], [0.0, 3.0]])
    X = mu[z] + rng.normal(size=(z.size, 2)) * 0.8
    lengths = [1000, 1500, 500]
    m = GaussianHMM(3, "diag", init="spectral", random_state=0, tol=1e-8,
                    max_iter=500).fit(X, lengths=lengths)
    assert m.n_iter_ < 15
    _, err = match_components(mu, m.means_)
    assert err.max() < 0.2  # L1 over 2 coordinates; sampling s.e. ~0.8 / sqrt(1000) each


def test_degenerate_moments_fall_back_to_the_default_start_with_a_warning():
    # the default start of the class (PoissonHMM: init='random'), issue 32
    rng = np.random.default_rng(3)
    X = rng.poisson(5.0, size=(40, 1)).astype(float)  # too few windows for K = 3
    with pytest.warns(SpectralInitWarning, match="too few triples.*the random start"):
        a = PoissonHMM(3, init="spectral", random_state=0, max_iter=1, tol=0).fit(X)
    b = PoissonHMM(3, init="random", random_state=0, max_iter=1, tol=0).fit(X)
    np.testing.assert_array_equal(a.lower_bounds_, b.lower_bounds_)
    X = np.column_stack([rng.normal(size=3000), np.full(3000, 2.0)])  # a constant feature
    with pytest.warns(SpectralInitWarning, match="constant"):
        GaussianHMM(2, "diag", init="spectral", random_state=0, max_iter=2).fit(X)


def test_spectral_init_of_full_and_tied_covariances():
    # refused before issue 42; now the feature map's cross products give them
    # (tests/sequence/test_gaussian_start_rates.py for their accuracy)
    X = np.random.default_rng(0).normal(size=(300, 2))
    for ct, shape in (("full", (2, 2, 2)), ("tied", (2, 2))):
        assert GaussianHMM(2, ct, init="spectral", random_state=0).fit(X).covariances_.shape \
            == shape
        assert spectral_init_gaussian_hmm(X, None, 2, ct, random_state=0)["covars"].shape \
            == shape
    with pytest.raises(ValueError, match="covariance_type"):
        spectral_init_gaussian_hmm(X, None, 2, "banded")


def test_public_functions_validate_their_input():
    X = np.random.default_rng(0).normal(size=(100, 2))
    with pytest.raises(ValueError, match="lengths sum to 90"):
        spectral_init_gaussian_hmm(X, [50, 40], 2)
    bad = X.copy()
    bad[7, 1] = np.nan
    with pytest.raises(ValueError, match="NaN or infinity at row 7"):
        spectral_init_gaussian_hmm(bad, None, 2)
    with pytest.raises(ValueError, match="n_components"):
        spectral_init_poisson_hmm(np.ones((100, 1)), None, 0)
    with pytest.raises(ValueError, match="negative"):
        spectral_init_poisson_hmm(-np.ones((100, 1)), None, 2)
    with pytest.raises(ValueError, match="floor"):
        spectral_init_poisson_hmm(np.ones((100, 1)), None, 2, floor=1.5)


def test_spectral_start_does_not_mutate_input():
    rng = np.random.default_rng(4)
    X = rng.poisson(4.0, size=(600, 2)).astype(float)
    X0 = X.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        PoissonHMM(2, init="spectral", random_state=0, max_iter=3).fit(X)
    np.testing.assert_array_equal(X, X0)


def test_last_view_variant_recovers_a_slow_chain():
    # the adjacent-pair variant (inverts P_12 only; emissions from P_23 = O diag(w) M_3^T)
    from latentkit.spectral._multiview import multiview_estimate

    rng = np.random.default_rng(5)
    z = _chain(A3, 20000, rng)
    mu = np.array([[0.0, 0.0], [3.0, 0.0], [0.0, 3.0]])
    X = mu[z] + rng.normal(size=(z.size, 2)) * 0.7
    mz, _, w, A, loc, scale = multiview_estimate(X, check_lengths(None, len(X)), 3,
                                                 np.random.default_rng(0), target_view=3)
    perm, err = match_components(mu, loc + scale * mz)
    assert err.max() < 0.1
    np.testing.assert_allclose(A[np.ix_(perm, perm)], A3, atol=0.03)
    np.testing.assert_allclose(w[perm], np.bincount(z, minlength=3) / z.size, atol=0.03)


def test_feature_map_transitions_from_both_pairs_exact_on_population_moments():
    # conditional means of phi = (1, z, z^2) of 3 Gaussian states in 2 features; a first state
    # away from the stationary law, so P_12 and P_23 differ
    from latentkit.spectral._moments import transitions_from_pairs

    mean = np.array([[0.0, 1.0, -1.0], [0.5, -1.0, 1.5]])  # (D, K)
    var = np.array([[1.0, 0.5, 2.0], [0.3, 1.0, 0.7]])
    M = np.vstack([np.ones(3), mean, mean ** 2 + var])  # (F = 5, K)
    A = np.array([[0.7, 0.2, 0.1], [0.3, 0.4, 0.3], [0.05, 0.15, 0.8]])
    pi = np.array([0.6, 0.1, 0.3])
    w = pi @ A
    P12 = M @ (pi[:, None] * A) @ M.T
    P23 = M @ (w[:, None] * A) @ M.T
    S12, S23, T = transitions_from_pairs(np.linalg.pinv(M), P12, P23)
    np.testing.assert_allclose(T, A, atol=1e-12)
    np.testing.assert_allclose(S12, pi[:, None] * A, atol=1e-12)
    np.testing.assert_allclose(S23, w[:, None] * A, atol=1e-12)


def test_gaussian_start_takes_transitions_from_both_adjacent_pairs():
    # many short sequences whose first state is not stationary: the estimator's transitions are
    # those of SpectralHMM's recovery (both pairs pooled), recomputed from the same windows
    from latentkit.spectral._moments import transitions_from_pairs
    from latentkit.spectral._multiview import multiview_estimate

    rng = np.random.default_rng(3)
    mu = np.array([[0.0, 0.0], [3.0, 0.0], [0.0, 3.0]])
    z = np.concatenate([_chain(A3, 5, rng, start=0) for _ in range(4000)])
    X = mu[z] + rng.normal(size=(z.size, 2)) * 0.7
    offsets = check_lengths([5] * 4000, z.size)
    mz, sq, w, A, loc, scale = multiview_estimate(X, offsets, 3, np.random.default_rng(0))
    Z = (X - loc) / scale
    a1, a2, a3 = three_view_moments(np.hstack([np.ones((z.size, 1)), Z, Z ** 2]), offsets)
    Mp = np.linalg.pinv(np.vstack([np.ones(3), mz.T, sq.T]))
    expect = transitions_from_pairs(Mp, a1.T @ a2 / len(a1), a2.T @ a3 / len(a1))[2]
    np.testing.assert_allclose(A, expect, atol=1e-10)
    perm, err = match_components(mu, loc + scale * mz)
    assert err.max() < 0.15
    np.testing.assert_allclose(A[np.ix_(perm, perm)], A3, atol=0.05)
