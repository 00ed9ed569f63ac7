"""init='spectral' hooks of the likelihood models that take their start from latentkit.spectral."""

import numpy as np
import pytest

from latentkit.datasets import make_lda_corpus
from latentkit.spectral._recipes import spectral_init_plsa
from latentkit.testing import match_components
from latentkit.topic import PLSA


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
    with pytest.raises(ValueError, match="'random', 'spectral'"):
        PLSA(2, init="moments").fit(X)
