"""init='spectral' hooks of the likelihood models that take their start from latentkit.spectral."""

import numpy as np
import pytest

from latentkit.datasets import make_lda_corpus
from latentkit.topic import spectral_init_plsa
from latentkit.testing import match_components
from latentkit.topic import PLSA


@pytest.mark.slow
def test_plsa_init_spectral_starts_at_the_planted_topics():
    X, truth = make_lda_corpus(1500, n_components=4, vocab_size=60, doc_length=60,
                               doc_topic_prior=0.25, topic_word_prior=0.05, random_state=1)
    start = spectral_init_plsa(X, 4, random_state=0)["components"]
    assert start.shape == (4, 60) and np.all(start > 0)
    np.testing.assert_allclose(start.sum(1), 1.0)
    _, err_start = match_components(truth["topics"], start, "l1")
    assert err_start.max() < 0.35, err_start
    spec = PLSA(4, init="spectral", max_iter=1, tol=0.0, random_state=0).fit(X)
    rand = PLSA(4, init="random", max_iter=1, tol=0.0, random_state=0).fit(X)
    assert spec.lower_bounds_[0] > rand.lower_bounds_[0] + 0.05  # nats per token
    _, err_spec = match_components(truth["topics"], spec.components_, "l1")
    _, err_rand = match_components(truth["topics"], rand.components_, "l1")
    assert err_spec.mean() < 0.5 * err_rand.mean()


def test_plsa_init_validation_names_spectral():
    X, _ = make_lda_corpus(20, n_components=2, vocab_size=10, random_state=0)
    with pytest.raises(ValueError, match="'random', 'documents', 'spectral'"):
        PLSA(2, init="moments").fit(X)


def _planted_chain():
    """3 states, 8 symbols, start law (0.6, 0.3, 0.1): 1000 sequences of 100 = 10^5 observations
    (states and symbols drawn by inverse CDF, all sequences one time step at a time)."""
    rng = np.random.default_rng(2)
    A = np.array([[0.8, 0.1, 0.1], [0.15, 0.7, 0.15], [0.1, 0.2, 0.7]])
    B = rng.dirichlet(np.full(8, 0.5), size=3)
    pi = np.array([0.6, 0.3, 0.1])
    n_seq, length = 1000, 100
    h = np.empty((n_seq, length), dtype=np.int64)
    h[:, 0] = rng.choice(3, n_seq, p=pi)
    cA, cB = np.cumsum(A, 1), np.cumsum(B, 1)
    for t in range(1, length):
        h[:, t] = (rng.random(n_seq)[:, None] > cA[h[:, t - 1]]).sum(1)
    x = np.minimum((rng.random((n_seq, length))[..., None] > cB[h]).sum(-1), 7)
    return x.reshape(-1, 1), [length] * n_seq, pi, A, B


@pytest.mark.slow
def test_categorical_hmm_init_spectral_planted_chain():
    from latentkit.sequence import CategoricalHMM
    from latentkit.sequence import spectral_init_hmm
    x, lengths, pi, A, B = _planted_chain()
    start = spectral_init_hmm(x, lengths, 3, 8, random_state=0)
    for name in ("startprob", "transmat", "emissionprob"):
        assert np.all(start[name] > 0)
        np.testing.assert_allclose(start[name].sum(-1), 1.0)
    perm, _ = match_components(B, start["emissionprob"], "l1")
    assert np.abs(start["emissionprob"][perm] - B).max() < 0.03
    assert np.abs(start["transmat"][np.ix_(perm, perm)] - A).max() < 0.05
    assert np.abs(start["startprob"][perm] - pi).max() < 0.1
    rand = CategoricalHMM(3, 8, init="random", max_iter=1000, tol=1e-6, random_state=0).fit(
        x, lengths)
    spec = CategoricalHMM(3, 8, init="spectral", max_iter=1000, tol=1e-6, random_state=0).fit(
        x, lengths)
    assert spec.converged_ and rand.converged_
    assert spec.lower_bound_ >= rand.lower_bound_ - 1e-9
    # iterations the spectral start needs to reach the random start's final log-likelihood
    reached = np.flatnonzero(spec.lower_bounds_ >= rand.lower_bound_ - 1e-9)
    assert reached.size and reached[0] < rand.n_iter_
    assert spec.n_iter_ < rand.n_iter_
    print(f"HMM init: random {rand.n_iter_} iterations to {rand.lower_bound_:.6f} nats/step; "
          f"spectral {spec.n_iter_} to {spec.lower_bound_:.6f} (reaches random's final at "
          f"iteration {reached[0]})")


def test_spectral_init_hmm_falls_back_on_degenerate_moments():
    from latentkit.sequence import CategoricalHMM
    from latentkit.sequence import spectral_init_hmm
    from latentkit.spectral import SpectralInitWarning
    rng = np.random.default_rng(0)
    short = rng.integers(0, 4, 30)
    with pytest.warns(SpectralInitWarning, match="too few triples"):
        p = spectral_init_hmm(short, None, 2, 4, random_state=0)
    constant = np.zeros(1000, dtype=int)  # pair moments of rank 1 < 2 states
    with pytest.warns(SpectralInitWarning, match="rank"):
        q = spectral_init_hmm(constant, [500, 500], 2, 4, random_state=0)
    with pytest.warns(SpectralInitWarning, match="exceeds the number of symbols"):
        spectral_init_hmm(short, None, 5, 4, random_state=0)
    for start in (p, q):
        assert start["emissionprob"].shape == (2, 4) and start["transmat"].shape == (2, 2)
        for v in start.values():
            assert np.all(v > 0)
            np.testing.assert_allclose(v.sum(-1), 1.0)
    with pytest.warns(SpectralInitWarning):
        m = CategoricalHMM(2, 4, init="spectral", tol=1e-3, random_state=0).fit(
            short.reshape(-1, 1))
    assert np.isfinite(m.lower_bound_)
