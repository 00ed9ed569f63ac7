"""Coherence on the texts users have (issue 27): with the removed words' positions kept or
dropped, each against gensim's CoherenceModel given the matching texts (the unfiltered
tokenised texts, or the filtered token lists)."""

import numpy as np
import pytest

from latentkit.text import load_texts
from latentkit.topic import coherence

STOP = ["the", "and", "of", "is", "can", "it", "with", "for"]


@pytest.fixture(scope="module")
def texts():
    """Documents of content words from two planted topics, interleaved with stop words."""
    rng = np.random.default_rng(7)
    topics = [[f"alpha{c}" for c in "abcdefgh"], [f"beta{c}" for c in "abcdefgh"]]
    docs = []
    for d in range(60):
        mix = rng.dirichlet([0.5, 0.5])
        words = []
        for _ in range(rng.integers(15, 40)):
            if rng.random() < 0.4:
                words.append(str(rng.choice(STOP)))
            else:
                words.append(str(rng.choice(topics[rng.choice(2, p=mix)])))
        docs.append(" ".join(words))
    return docs


@pytest.mark.parametrize("measure", ["c_uci", "c_npmi", "c_v", "u_mass"])
def test_keep_and_drop_equal_gensim_on_the_matching_texts(texts, measure):
    pytest.importorskip("gensim")
    from gensim.corpora import Dictionary
    from gensim.models import CoherenceModel

    corpus = load_texts(texts, stop_words=STOP, min_length=2)
    vocab = [str(w) for w in corpus.vocabulary]
    raw = [t.split() for t in texts]                      # unfiltered tokenised texts
    filtered = [[w for w in t if w not in STOP] for t in raw]  # ordinary filtered lists
    top = [["alphaa", "alphab", "alphac", "betad", "alphae"],
           ["betaa", "betab", "betac", "betad", "alphah"]]
    expected = {}
    for name, docs in (("keep", raw), ("drop", filtered)):
        dictionary = Dictionary(docs)
        cm = CoherenceModel(topics=top, texts=docs, dictionary=dictionary, coherence=measure,
                            topn=5, processes=1)
        expected[name] = np.asarray(cm.get_coherence_per_topic())
    for removed in ("keep", "drop"):
        ours = coherence(top, corpus, measure, top_n=5, removed_words=removed)
        np.testing.assert_allclose(ours.per_topic, expected[removed], rtol=0, atol=1e-10)
        assert ours.token_streams == ("boolean documents" if measure == "u_mass" else
                                      "texts, removed words' positions kept" if removed == "keep"
                                      else "texts, removed words dropped")
    if measure in ("c_uci", "c_npmi"):  # the two conventions really differ on these texts
        assert np.abs(expected["keep"] - expected["drop"]).max() > 1e-3


def test_drop_on_token_lists_and_bad_value(texts):
    corpus = load_texts(texts, stop_words=STOP)
    top = [["alphaa", "alphab", "alphac"]]
    a = coherence(top, corpus, "c_npmi", top_n=3, removed_words="drop")
    # the same streams given as token lists without the stop words, positions gone
    lists = [[w for w in t.split() if w not in STOP] for t in texts]
    b = coherence(top, lists, "c_npmi", top_n=3, vocabulary=list(corpus.vocabulary))
    np.testing.assert_allclose(a.per_topic, b.per_topic, rtol=0, atol=1e-15)
    assert a.n_windows == b.n_windows
    with pytest.raises(ValueError, match="removed_words must be 'keep' or 'drop', got 'no'"):
        coherence(top, corpus, "c_npmi", top_n=3, removed_words="no")
