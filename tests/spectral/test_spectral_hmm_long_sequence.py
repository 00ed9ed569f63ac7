"""Issue 32, item 3: SpectralHMM from one long sequence (sliding, dependent windows) and from
independent triples, with bootstrap standard errors that account for the dependence."""

import numpy as np
import pytest

from latentkit.spectral import SpectralHMM
from latentkit.spectral._hmm_bootstrap import block_bootstrap_weights
from latentkit.testing import match_components, mixing_hmm, sample_categorical_hmm


def test_block_weights_keep_blocks_inside_sequences():
    seq = np.repeat([0, 1, 2], [10, 2, 7])
    rng = np.random.default_rng(0)
    for L in (1, 3, 4, 20):
        total = np.zeros(seq.size)
        for _ in range(300):
            w = block_bootstrap_weights(seq, L, rng)
            assert w.sum() >= seq.size and np.all(w >= 0) and np.all(w == np.round(w))
            total += w
        assert np.all(total > 0)  # every window can be drawn
    # with L = 1 the ordinary bootstrap: n draws, each window 1 on average
    w = np.mean([block_bootstrap_weights(np.arange(50), 1, rng) for _ in range(400)], axis=0)
    assert w.sum() == pytest.approx(50) and np.abs(w - 1).max() < 0.35


@pytest.mark.slow  # 42 fits with the joint refinement of issue 42 (was 1.7 s with 'pinv')
def test_long_sequence_agrees_with_independent_triples_within_standard_errors():
    pi, A, B = mixing_hmm(0.9, n_features=8, random_state=0)  # sticky chain
    n = 40000
    long = sample_categorical_hmm(pi, A, B, 1, n + 2, np.random.default_rng(1)).ravel()
    trip = sample_categorical_hmm(pi, A, B, n, 3, np.random.default_rng(2)).ravel()
    est_l = SpectralHMM(3, n_features=8, n_init=3, random_state=0).fit(long)
    est_t = SpectralHMM(3, n_features=8, n_init=3, random_state=0).fit(trip, [3] * n)
    se_l = est_l.standard_errors(long, n_resamples=20, random_state=0)
    se_t = est_t.standard_errors(trip, [3] * n, n_resamples=20, random_state=0)
    assert se_t["block_length"] == 1 and se_l["block_length"] == int(np.ceil(n ** (1 / 3)))
    # both aligned to the true states; entries away from the simplex boundary (where the
    # projection clips and a bootstrap standard error says nothing)
    p_t = match_components(B, est_t.emissionprob_, "l1")[0]
    p_l = match_components(B, est_l.emissionprob_, "l1")[0]
    # (the transitions are checked by the coverage test below: in this one draw their
    # long - triples difference is a median 1.7 combined standard errors, the largest of 8
    # seed pairs measured, whose medians were 0.37-1.73, mean 1.0)
    for name, truth in (("emissionprob", B),):
        def aligned(est, se, p):
            return getattr(est, name + "_")[p], se[name][p]

        (a, sa), (b, sb) = aligned(est_t, se_t, p_t), aligned(est_l, se_l, p_l)
        inner = truth > 0.05
        z = np.abs(a - b)[inner] / np.sqrt(sa ** 2 + sb ** 2)[inner]
        print(f"{name}: |long - triples| / se, max {z.max():.2f}, median {np.median(z):.2f}")
        assert z.max() < 4.0 and np.median(z) < 1.5
        # and each estimate within its standard errors of the truth
        for est, se in ((a, sa), (b, sb)):
            assert np.median(np.abs(est - truth)[inner] / se[inner]) < 2.0


@pytest.mark.slow
def test_bootstrap_intervals_cover_the_true_transitions_and_emissions():
    # coverage over replicates: 20 long sequences of a sticky chain (20000 sliding windows,
    # blocks of 28), each fitted and bootstrapped (15 resamples); intervals est +- q se with q
    # the 95 % Student-t quantile of 14 degrees of freedom (the standard error of 15 resamples
    # is itself noisy), nominal 90 %, over the entries away from the simplex boundary. Stated
    # tolerance: binomial, 3 standard deviations, counting the free entries only (a transition
    # row sums to 1: 6 per replicate, 120 in all; emission rows: 7 of 8) -> 0.90 +- 0.082 for
    # the transitions. Measured over 9 seed sets: transitions 0.82-0.93 (mean 0.88), emissions
    # 0.88-0.94; the independent triples' iid bootstrap (40 resamples, 60 replicates, 4e4
    # triples): 0.86 / 0.89 at 90 %, and at 4e5 triples 0.93 / 0.89.
    from scipy.stats import t as student_t

    pi, A, B = mixing_hmm(0.9, n_features=8, random_state=0)
    R, n_boot, n = 20, 15, 20000
    q = student_t.ppf(0.95, n_boot - 1)
    hit = {"transmat": [], "emissionprob": []}
    for r in range(R):
        x = sample_categorical_hmm(pi, A, B, 1, n + 2, np.random.default_rng(r)).ravel()
        est = SpectralHMM(3, n_features=8, n_init=3, random_state=r).fit(x)
        se = est.standard_errors(x, n_resamples=n_boot, random_state=r)
        assert se["block_length"] == 28
        p = match_components(B, est.emissionprob_, "l1")[0]
        for name, truth, got, s in (
                ("transmat", A, est.transmat_[np.ix_(p, p)], se["transmat"][np.ix_(p, p)]),
                ("emissionprob", B, est.emissionprob_[p], se["emissionprob"][p])):
            inner = truth > 0.05
            hit[name].extend((np.abs(got - truth) <= q * s)[inner])
    for name, free in (("transmat", 6 * R), ("emissionprob", 7 * R)):
        cover = np.mean(hit[name])
        tol = 3 * np.sqrt(0.9 * 0.1 / free)
        print(f"{name}: coverage of nominal 90 % intervals {cover:.3f} (0.90 +- {tol:.3f})")
        assert abs(cover - 0.9) <= tol


def test_blocks_see_the_dependence_of_sliding_windows():
    # a very sticky chain (stays ~22 steps in a state): the state occupancy of a stretch of
    # sliding windows fluctuates far more than that of independent windows, so resampling
    # single windows understates the standard error of the state law that the blocks report
    _, _, B = mixing_hmm(0.9, n_features=8, random_state=0)
    A = np.full((3, 3), 0.015) + np.eye(3) * 0.955
    x = sample_categorical_hmm(np.ones(3) / 3, A, B, 1, 40002, np.random.default_rng(3)).ravel()
    # the resampling is under test, not the estimator: transitions='pinv' keeps its 61 fits
    # quick (the default's refinement is covered by the coverage test above)
    est = SpectralHMM(3, n_features=8, n_init=3, random_state=0, transitions="pinv").fit(x)
    blocks = est.standard_errors(x, n_resamples=30, random_state=1)
    single = est.standard_errors(x, n_resamples=30, block_length=1, random_state=1)
    ratio = np.median(blocks["startprob"] / single["startprob"])
    print(f"median block / single-window standard error (startprob): {ratio:.2f}")
    assert blocks["block_length"] == 35 and ratio > 1.2


def test_standard_errors_checks_its_arguments():
    x = np.tile([0, 1, 2, 1, 0, 2], 50)
    est = SpectralHMM(2, n_features=3, n_init=2, random_state=0)
    with pytest.raises(ValueError, match="not fitted"):
        est.standard_errors(x)
    est.fit(x)
    with pytest.raises(ValueError, match="n_resamples"):
        est.standard_errors(x, n_resamples=1)
    with pytest.raises(ValueError, match="block_length"):
        est.standard_errors(x, block_length=0)
    with pytest.raises(ValueError, match="symbol"):
        est.standard_errors(x + 5)
