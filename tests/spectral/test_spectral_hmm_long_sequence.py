"""Issue 32, item 3: SpectralHMM from one long sequence (sliding, dependent windows) and from
independent triples, with bootstrap standard errors that account for the dependence."""

import numpy as np
import pytest

from latentkit.spectral import SpectralHMM
from latentkit.spectral._hmm_bootstrap import block_bootstrap_weights
from latentkit.testing import match_components, mixing_hmm, sample_categorical_hmm


def _independent_triples(pi, A, B, n, rng):
    k, m = B.shape
    cA, cB = np.cumsum(A, axis=1), np.cumsum(B, axis=1)
    h = [rng.choice(k, n, p=pi)]
    for _ in range(2):
        h.append(np.minimum((rng.random(n)[:, None] > cA[h[-1]]).sum(axis=1), k - 1))
    x = [np.minimum((rng.random(n)[:, None] > cB[s]).sum(axis=1), m - 1) for s in h]
    return np.stack(x, axis=1).ravel()


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


def test_long_sequence_agrees_with_independent_triples_within_standard_errors():
    pi, A, B = mixing_hmm(0.9, n_features=8, random_state=0)  # sticky chain
    n = 40000
    long = sample_categorical_hmm(pi, A, B, 1, n + 2, np.random.default_rng(1)).ravel()
    trip = _independent_triples(pi, A, B, n, np.random.default_rng(2))
    est_l = SpectralHMM(3, n_features=8, n_init=3, random_state=0).fit(long)
    est_t = SpectralHMM(3, n_features=8, n_init=3, random_state=0).fit(trip, [3] * n)
    se_l = est_l.standard_errors(long, n_resamples=20, random_state=0)
    se_t = est_t.standard_errors(trip, [3] * n, n_resamples=20, random_state=0)
    assert se_t["block_length"] == 1 and se_l["block_length"] == int(np.ceil(n ** (1 / 3)))
    perm, _ = match_components(est_t.emissionprob_, est_l.emissionprob_, "l1")
    for name in ("emissionprob", "transmat"):
        a, b = getattr(est_t, name + "_"), getattr(est_l, name + "_")
        sb = se_l[name]
        if name == "transmat":
            b, sb = b[np.ix_(perm, perm)], sb[np.ix_(perm, perm)]
        else:
            b, sb = b[perm], sb[perm]
        z = np.abs(a - b) / np.sqrt(se_t[name] ** 2 + sb ** 2 + 1e-12)
        assert z.max() < 4.5, (name, z.max())
    # each estimate is within its standard errors of the truth as well
    for est, se in ((est_t, se_t), (est_l, se_l)):
        p, _ = match_components(B, est.emissionprob_, "l1")
        z = np.abs(est.transmat_[np.ix_(p, p)] - A) / (se["transmat"][np.ix_(p, p)] + 1e-12)
        print("z of the transitions against the truth:", np.round(z, 1).tolist())
        assert np.median(z) < 2.0


def test_blocks_see_the_dependence_of_sliding_windows():
    # a very sticky chain (stays ~22 steps in a state): the state occupancy of a stretch of
    # sliding windows fluctuates far more than that of independent windows, so resampling
    # single windows understates the standard error of the state law that the blocks report
    _, _, B = mixing_hmm(0.9, n_features=8, random_state=0)
    A = np.full((3, 3), 0.015) + np.eye(3) * 0.955
    x = sample_categorical_hmm(np.ones(3) / 3, A, B, 1, 40002, np.random.default_rng(3)).ravel()
    est = SpectralHMM(3, n_features=8, n_init=3, random_state=0).fit(x)
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
