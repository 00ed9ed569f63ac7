"""SpectralHMM's transition estimators (issue 42, item 3): 'pinv' (before), 'simplex_ls'
(Kontorovich, Nadler & Weiss 2013; Mattila et al. 2017) and 'triple_fit' (the default: the
spectral estimate refined by the minimum-KL fit of the window law).

Oracles: exact recovery from population moments (the moments of the planted parameters), an EM
step against brute-force enumeration of the 27 hidden paths of every window, the window
log-likelihood (the refinement never lowers it), and the calibrated reference of the issue: the
minimum-KL (maximum composite likelihood) estimate found from the *true* parameters, to which
the transition error of the default is compared on counts of windows drawn from the planted law.
"""

import itertools

import numpy as np
import pytest

from latentkit.spectral import HMMMoments, SpectralHMM
from latentkit.spectral._hmm_transitions import (
    _em_step,
    fit_triple_law,
    transitions_pinv,
    transitions_simplex_ls,
)
from latentkit.testing import match_components, mixing_hmm


def chains():
    """Sticky, fast-mixing and periodic 3-state chains over 8 symbols (as the benchmark's),
    each with a first state that is not stationary."""
    _, S, B = mixing_hmm(0.9, n_features=8, random_state=0)
    _, F, _ = mixing_hmm(0.3, n_features=8, random_state=0)
    P = np.array([[0.1, 0.8, 0.1], [0.1, 0.1, 0.8], [0.8, 0.1, 0.1]])
    pi = np.array([0.5, 0.3, 0.2])
    return [(pi, A, B) for A in (S, F, P)]


def cell_moments(P123, n, rng):
    """Moments of n independent windows: multinomial counts of the m^3 cells of the law."""
    m = P123.shape[0]
    p = np.maximum(P123.ravel(), 0.0)
    counts = rng.multinomial(int(n), p / p.sum()).astype(np.float64)
    cells = np.arange(m ** 3, dtype=np.int64)
    return HMMMoments.from_windows(cells // (m * m), cells // m % m, cells % m, m, 3,
                                   weights=counts)


def window_loglik(P123, pi, A, E):
    """sum P123 log law (nats per window), the law by enumeration of the hidden paths."""
    law = np.zeros_like(P123)
    for i, j, l in itertools.product(range(len(pi)), repeat=3):
        law += pi[i] * A[i, j] * A[j, l] * np.einsum("a,b,c->abc", E[i], E[j], E[l])
    seen = P123 > 0
    return float(np.sum(P123[seen] * np.log(law[seen])))


@pytest.mark.parametrize("chain", range(3))
def test_every_estimator_is_exact_on_population_moments(chain):
    pi, A, B = chains()[chain]
    mom = HMMMoments.population(pi, A, B)
    w = pi @ A
    for f in (transitions_pinv, transitions_simplex_ls):  # from the true emissions
        p, T, mid = f(B.T, w, mom.P12, mom.P23)
        np.testing.assert_allclose(T, A, rtol=0, atol=1e-12)
        np.testing.assert_allclose(p, pi, rtol=0, atol=1e-12)
        np.testing.assert_allclose(mid, w, rtol=0, atol=1e-12)
    p, T, E, _ = fit_triple_law(mom.P123, pi, A, B)  # the truth is a fixed point
    for got, want in ((p, pi), (T, A), (E, B)):
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
    for tr in ("triple_fit", "simplex_ls", "pinv"):  # the whole estimator
        est = SpectralHMM(3, random_state=0, transitions=tr)._fit_moments(mom)
        perm, _ = match_components(B, est.emissionprob_, "l1")
        np.testing.assert_allclose(est.transmat_[np.ix_(perm, perm)], A, rtol=0, atol=1e-12)
        np.testing.assert_allclose(est.emissionprob_[perm], B, rtol=0, atol=1e-12)
        np.testing.assert_allclose(est.startprob_[perm], pi, rtol=0, atol=1e-12)
        np.testing.assert_allclose(est.state_weights_[perm], w, rtol=0, atol=1e-12)


def test_em_step_matches_brute_force_enumeration():
    # 3 states, 4 symbols, random parameters and a random window law: the expected counts
    # of (h1, x1), (h2, x2), (h3, x3) and of both transitions, by enumeration of the hidden
    # paths of every cell (NumPy oracle, 1e-12: sums of a few hundred positive terms)
    rng = np.random.default_rng(5)
    k, m = 3, 4
    pi, A, E = rng.dirichlet(np.ones(k)), rng.dirichlet(np.ones(k), k), rng.dirichlet(np.ones(m), k)
    P = rng.dirichlet(np.ones(m ** 3)).reshape(m, m, m)
    Npi, NA, NE = np.zeros(k), np.zeros((k, k)), np.zeros((k, m))
    law = np.zeros((m, m, m))
    for i, j, l in itertools.product(range(k), repeat=3):
        law += pi[i] * A[i, j] * A[j, l] * np.einsum("a,b,c->abc", E[i], E[j], E[l])
    for a, b, c in itertools.product(range(m), repeat=3):
        for i, j, l in itertools.product(range(k), repeat=3):
            q = P[a, b, c] * pi[i] * A[i, j] * A[j, l] * E[i, a] * E[j, b] * E[l, c] / law[a, b, c]
            Npi[i] += q
            NA[i, j] += q
            NA[j, l] += q
            NE[i, a] += q
            NE[j, b] += q
            NE[l, c] += q
    fit, p, T, O = _em_step(P.reshape(m, m * m), pi, A, E)
    assert fit == pytest.approx(float(np.sum(P * np.log(law))), rel=1e-12)
    np.testing.assert_allclose(p, Npi / Npi.sum(), rtol=0, atol=1e-12)
    np.testing.assert_allclose(T, NA / NA.sum(1, keepdims=True), rtol=0, atol=1e-12)
    np.testing.assert_allclose(O, NE / NE.sum(1, keepdims=True), rtol=0, atol=1e-12)


def test_refinement_raises_the_window_likelihood_and_names_bad_options():
    pi, A, B = chains()[0]
    mom = cell_moments(HMMMoments.population(pi, A, B).P123, 10 ** 4, np.random.default_rng(0))
    start = SpectralHMM(3, n_features=8, random_state=0, transitions="simplex_ls")
    start = start._fit_moments(mom)
    p, T, E, n_iter = fit_triple_law(mom.P123, start.startprob_, start.transmat_,
                                     start.emissionprob_, max_iter=50)  # SpectralHMM's cap
    assert 1 <= n_iter <= 50
    before = window_loglik(mom.P123, start.startprob_, start.transmat_, start.emissionprob_)
    after = window_loglik(mom.P123, p, T, E)
    assert after > before + 1e-3  # measured +7.5e-3 nats per window (50 cycles, the cap)
    for M in (p, T, E):
        assert np.all(M >= 0) and np.allclose(M.sum(axis=-1), 1.0, rtol=0, atol=1e-12)
    est = SpectralHMM(3, n_features=8, random_state=0)._fit_moments(mom)
    np.testing.assert_allclose(est.transmat_, T, rtol=1e-10)  # the default is that fit
    assert est.n_refine_iter_ == n_iter
    x = np.random.default_rng(0).integers(0, 4, 300)
    for bad in ("mle", None, 1):
        with pytest.raises(ValueError, match=r"transitions must be one of .* got "):
            SpectralHMM(2, transitions=bad).fit(x)


@pytest.mark.slow
def test_transitions_reach_the_calibrated_reference_on_a_sticky_chain():
    """Issue 42, item 3. Sticky chain (self-transitions 0.66-0.75), 1e6 windows drawn as
    cell counts, seeds 0-4, mean of the max-abs transition error after matching the states.

    The calibrated reference is the minimum-KL estimate of the window law found from the true
    parameters (not from the spectral start). Measured: default ('triple_fit') 0.0073, the
    reference 0.0068 (1.07x), main's 'pinv' 0.0103 (1.51x; 'simplex_ls' the same): this test
    fails on main's estimator. The issue's ratio to the emission error (L1 over the symbols,
    max over states) holds for both (0.0073 / 0.0128; main 0.0103 / 0.0171), so it cannot
    tell them apart and is checked for the default only. The error falls as n^-1/2 (slope
    from 1e4 to 1e6 -0.50 over 10 replicates in the benchmark; -0.4 asserted on 5).
    """
    pi, A, B = mixing_hmm(0.9, n_features=8, random_state=0)
    pop = HMMMoments.population(pi, A, B)
    errs = {n: [] for n in (10 ** 4, 10 ** 6)}
    ref, old, em = [], [], []
    for n in errs:
        for r in range(5):
            mom = cell_moments(pop.P123, n, np.random.default_rng(r))
            est = SpectralHMM(3, n_features=8, random_state=r)._fit_moments(mom)
            perm, _ = match_components(B, est.emissionprob_, "l1")
            errs[n].append(np.abs(est.transmat_[np.ix_(perm, perm)] - A).max())
            if n < 10 ** 6:
                continue
            em.append(np.abs(est.emissionprob_[perm] - B).sum(axis=1).max())
            T = fit_triple_law(mom.P123, pi, A, B, max_iter=1000, tol=1e-14)[1]
            ref.append(np.abs(T - A).max())
            est = SpectralHMM(3, n_features=8, random_state=r, transitions="pinv")
            est = est._fit_moments(mom)
            perm, _ = match_components(B, est.emissionprob_, "l1")
            old.append(np.abs(est.transmat_[np.ix_(perm, perm)] - A).max())
    new = np.mean(errs[10 ** 6])
    print(f"transition max-abs error at 1e6: default {new:.4f}, reference {np.mean(ref):.4f}, "
          f"pinv {np.mean(old):.4f}; emission L1 {np.mean(em):.4f}; 1e4 "
          f"{np.mean(errs[10 ** 4]):.4f}")
    assert new <= 1.2 * np.mean(ref)
    assert np.mean(old) > 1.3 * np.mean(ref)  # main's estimator: 1.51x
    assert new <= 1.5 * np.mean(em)
    slope = np.log(new / np.mean(errs[10 ** 4])) / np.log(100.0)
    assert slope < -0.4


def test_a_state_without_posterior_mass_keeps_its_rows_instead_of_nan():
    # state 1 unreachable (never first, never entered) and no floor: its expected counts are
    # 0, and 0 / 0 would have made its transition and emission rows NaN
    rng = np.random.default_rng(0)
    P = rng.dirichlet(np.ones(4 ** 3)).reshape(4, 4, 4)
    A = np.array([[1.0, 0.0], [0.5, 0.5]])
    E = rng.dirichlet(np.ones(4), 2)
    p, T, O, _ = fit_triple_law(P, np.array([1.0, 0.0]), A, E, max_iter=5, floor=0.0)
    assert np.all(np.isfinite(p)) and np.all(np.isfinite(T)) and np.all(np.isfinite(O))
    np.testing.assert_array_equal(T[1], A[1])
    np.testing.assert_array_equal(O[1], E[1])
    np.testing.assert_array_equal(p, [1.0, 0.0])
