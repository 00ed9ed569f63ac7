"""The shared top-words code: zero-probability words are never listed as if ranked (issue 18)."""

import numpy as np
import pytest

from latentkit.spectral import SpectralLDA
from latentkit.datasets import make_lda_corpus
from latentkit.topic import PLSA, LatentDirichletAllocation
from latentkit._utils.words import top_words


def test_rule_on_a_clipped_matrix():
    C = np.array([[0.5, 0.0, 0.3, 0.2, 0.0],
                  [0.0, 0.0, 0.0, 0.0, 1.0],
                  [0.2, 0.2, 0.2, 0.2, 0.2]])
    vocab = ["a", "b", "c", "yadda", "zebra"]
    assert top_words(C, vocab, 4) == [["a", "c", "yadda"], ["zebra"], ["a", "b", "c", "yadda"]]
    assert top_words(C, None, 10) == [[0, 2, 3], [4], [0, 1, 2, 3, 4]]
    assert all(type(w) is str for w in top_words(C, np.array(vocab), 2)[0])
    with pytest.raises(ValueError, match="vocabulary"):
        top_words(C, vocab[:-1])
    with pytest.raises(ValueError, match="n"):
        top_words(C, vocab, 0)
    with pytest.raises(ValueError, match="NaN"):
        top_words(np.full((1, 2), np.nan))


@pytest.mark.filterwarnings("ignore::latentkit.base.ConvergenceWarning")
def test_every_model_uses_it():
    X, _ = make_lda_corpus(400, 3, 30, 30, doc_topic_prior=0.2, topic_word_prior=0.05,
                           random_state=0)
    vocab = [f"w{j}" for j in range(30)]
    spec = SpectralLDA(3, doc_topic_prior=0.2, random_state=0).fit(X)
    assert (spec.components_ == 0).any()  # the simplex projection clips words to zero
    lda = LatentDirichletAllocation(3, max_iter=3, random_state=0, init="random").fit(X)
    plsa = PLSA(3, max_iter=3, random_state=0).fit(X)
    for m in (spec, lda, plsa):
        assert m.top_words(vocab, 30) == top_words(m.components_, vocab, 30)
    for row, words in zip(spec.components_, spec.top_words(vocab, 30)):
        assert len(words) == int((row > 0).sum())
