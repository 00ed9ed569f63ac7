"""Reduced utility curve of private SVI LDA (issue 30 item 5; the full curve on KOS and NIPS is
benchmarks/bench_private_svi.py): on a planted corpus, held-out perplexity at epsilon = inf is
today's non-private SVI exactly, a large epsilon comes within 10% of it and a tiny epsilon is
far worse than a large one."""

import math

import numpy as np
import pytest

import latentkit.inference._private_svi as psvi
from latentkit.datasets import make_lda_corpus
from latentkit.inference import PrivateStochasticVI, StochasticVI
from latentkit.topic import LatentDirichletAllocation

KW = dict(batch_size=400, n_epochs=2, learning_offset=1.0)


@pytest.fixture(scope="module")
def corpus():
    X, _ = make_lda_corpus(2200, 3, 25, doc_length=40, doc_topic_prior=0.3,
                           topic_word_prior=0.1, random_state=2)
    X = X.tocsr()
    return X[:2000], X[2000:]


def _perplexity(eps, Xtr, Xte, seed=0):
    f = PrivateStochasticVI(LatentDirichletAllocation(3), epsilon=eps, delta=1e-5, clip=5.0,
                            random_state=seed, **KW).fit(Xtr)
    return f.model_.perplexity(Xte, include_prior_kl=False)


def test_utility_is_ordered_in_epsilon(corpus, monkeypatch):
    # a utility check, not a privacy one: the secret minibatches and the noise (OS entropy in a
    # fit) come from a seeded generator here, a fresh one per fit, so that the single-seed
    # comparisons below are repeatable (as in tests/spectral/test_private_lda_utility.py).
    # Under OS entropy (10 fits each): large / inf 1.012 +- 0.004 (max 1.019, bound 1.1);
    # tiny / large 1.58 +- 0.07 (min 1.44, bound 1.2: 5.4 sigma on 10 draws, too thin a
    # sample to promise 1e-6). At this pin: 1.035 and 1.63.
    seeds = np.random.SeedSequence(30)
    monkeypatch.setattr(psvi, "_os_rng", lambda: np.random.default_rng(seeds.spawn(1)[0]))
    Xtr, Xte = corpus
    inf = _perplexity(math.inf, Xtr, Xte)
    svi = StochasticVI(LatentDirichletAllocation(3), random_state=0, **KW).fit(Xtr)
    assert inf == svi.model_.perplexity(Xte, include_prior_kl=False)
    large = _perplexity(100.0, Xtr, Xte)
    tiny = _perplexity(0.05, Xtr, Xte)
    # measured over 4 seeds: inf 7.74-7.86, epsilon 100: 7.84-8.05, epsilon 0.05: 11.5-13.9
    assert large <= 1.1 * inf
    assert tiny > 1.2 * large
