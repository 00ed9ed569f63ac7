"""Topic coherence: the numba co-occurrence kernels against brute-force NumPy oracles, and the
measures against gensim's CoherenceModel on KOS (same top words, reference corpus, windows)."""

import numpy as np
import pytest
import scipy.sparse as sp

from latentkit._kernels.coherence import document_cooccurrence, window_cooccurrence
from latentkit.datasets import load_kos
from latentkit.testing import (gensim_corpus_and_texts, oracle_document_cooccurrence,
                               oracle_window_cooccurrence)
from latentkit.topic import LatentDirichletAllocation, coherence


def _streams(docs):
    offsets = np.concatenate([[0], np.cumsum([len(d) for d in docs])]).astype(np.int64)
    tokens = np.concatenate([np.asarray(d, np.int64) for d in docs]) if docs else np.zeros(0, int)
    return offsets, tokens.astype(np.int64)


@pytest.mark.parametrize("exact", [True, False])
@pytest.mark.parametrize("window", [1, 2, 4, 9])
def test_window_kernel_equals_brute_force(exact, window):
    rng = np.random.default_rng(window)
    # small vocabulary so words repeat inside windows; lengths 0..25 (shorter and longer than
    # the window, and empty documents)
    docs = [rng.integers(0, 8, size=rng.integers(0, 26)).tolist() for _ in range(40)]
    relevant_words = [1, 3, 4, 6]
    relevant = np.full(8, -1, np.int64)
    relevant[relevant_words] = np.arange(4)
    offsets, tokens = _streams(docs)
    counts, n = window_cooccurrence(offsets, tokens, relevant, 4, window, exact)
    ref, n_ref = oracle_window_cooccurrence(docs, relevant_words, window, exact=exact)
    assert n == n_ref
    np.testing.assert_array_equal(counts, ref)


def test_gensim_and_exact_window_counting_differ_only_on_repeats():
    relevant = np.array([0, 1, -1], np.int64)
    # window 3 over a b a c: exact keeps 'a' in the second window [b a c], gensim drops it
    offsets, tokens = _streams([[0, 1, 0, 2]])
    exact, _ = window_cooccurrence(offsets, tokens, relevant, 2, 3, True)
    quirk, _ = window_cooccurrence(offsets, tokens, relevant, 2, 3, False)
    assert exact[0, 0] == 2 and quirk[0, 0] == 1
    offsets, tokens = _streams([[0, 1, 2, 2, 0, 1]])  # no top word repeats inside a window
    a, _ = window_cooccurrence(offsets, tokens, relevant, 2, 3, True)
    b, _ = window_cooccurrence(offsets, tokens, relevant, 2, 3, False)
    np.testing.assert_array_equal(a, b)


def test_document_kernel_equals_brute_force():
    X = sp.random(60, 30, density=0.2, random_state=2, format="csr") * 5
    X.data = np.floor(X.data)  # some explicit zeros stay stored: they are not occurrences
    words = [0, 5, 7, 29, 13]
    relevant = np.full(30, -1, np.int64)
    relevant[words] = np.arange(5)
    got = document_cooccurrence(X.indptr.astype(np.int64), X.indices.astype(np.int64), X.data,
                                relevant, 5)
    np.testing.assert_array_equal(got, oracle_document_cooccurrence(X, words))


# ----------------------------------------------------------------------------- gensim parity

@pytest.fixture(scope="module")
def kos_gensim():
    pytest.importorskip("gensim")
    from gensim.corpora import Dictionary

    corpus = load_kos()
    X, vocab = corpus.data, [str(w) for w in corpus.vocabulary]
    lda = LatentDirichletAllocation(n_components=4, max_iter=5, tol=1e3, init="spectral",
                                    random_state=0).fit(X)
    lda.feature_names_in_ = np.asarray(vocab)
    bow, texts = gensim_corpus_and_texts(X, vocab)
    dictionary = Dictionary()
    dictionary.token2id = {w: i for i, w in enumerate(vocab)}
    return X, vocab, lda, texts, bow, dictionary


@pytest.mark.slow
@pytest.mark.parametrize("measure", ["u_mass", "c_npmi", "c_uci", "c_v"])
def test_equals_gensim_coherencemodel_on_kos(kos_gensim, measure):
    from gensim.models import CoherenceModel

    X, vocab, lda, texts, bow, dictionary = kos_gensim
    top_n = 6
    ours = coherence(lda, X, measure, top_n=top_n)
    topics = lda.top_words(vocab, n=top_n)
    assert ours.topics == topics
    cm = CoherenceModel(topics=topics, texts=texts, corpus=bow, dictionary=dictionary,
                        coherence=measure, topn=top_n, processes=1)
    np.testing.assert_allclose(ours.per_topic, cm.get_coherence_per_topic(), rtol=0, atol=1e-6)
    assert abs(ours.mean - cm.get_coherence()) < 1e-6
    # the same topics given as words, as ids, and the corpus given as token lists
    again = coherence(topics, texts, measure, top_n=top_n, vocabulary=vocab)
    np.testing.assert_allclose(again.per_topic, ours.per_topic, rtol=0, atol=1e-12)
    ids = lda.top_words(range(X.shape[1]), n=top_n)  # column ids (None: the model's words)
    np.testing.assert_allclose(coherence(ids, X, measure, top_n=top_n).per_topic,
                               ours.per_topic, rtol=0, atol=1e-12)


def test_exact_counting_on_texts_without_repeats_equals_gensim_counting():
    docs = [["a", "b", "c", "d", "e", "f"], ["c", "a", "x", "b"], ["f", "e"], []]
    vocab = ["a", "b", "c", "d", "e", "f", "x"]
    for m in ("c_v", "c_npmi"):
        a = coherence([["a", "b", "c"], ["d", "e", "f"]], docs, m, top_n=3, vocabulary=vocab,
                      window_size=3, window_counting="exact")
        b = coherence([["a", "b", "c"], ["d", "e", "f"]], docs, m, top_n=3, vocabulary=vocab,
                      window_size=3)
        np.testing.assert_allclose(a.per_topic, b.per_topic, rtol=0, atol=1e-15)
        assert a.n_windows == 4 + 2 + 1 + 1


def test_u_mass_closed_form():
    # 4 documents; a in 1,2,3; b in 2,3; u_mass of [a, b] = log((2/4 + eps) / (3/4))
    X = sp.csr_matrix(np.array([[1, 0], [2, 1], [1, 3], [0, 0]], float))
    got = coherence([[0, 1]], X, "u_mass", top_n=2)
    assert got.per_topic[0] == pytest.approx(np.log((0.5 + 1e-12) / 0.75), abs=1e-15)


def test_bad_input_is_named():
    X = sp.csr_matrix(np.array([[1, 0, 0], [2, 1, 0]], float))
    with pytest.raises(ValueError, match="measure"):
        coherence([[0, 1]], X, "c_w2v")
    with pytest.raises(ValueError, match="top_n"):
        coherence([[0, 1]], X, "u_mass", top_n=1)
    with pytest.raises(ValueError, match="never occur"):
        coherence([[0, 2]], X, "u_mass", top_n=2)
    with pytest.raises(ValueError, match="vocabulary"):
        coherence([["a", "b"]], X, "u_mass", top_n=2)
    with pytest.raises(ValueError, match="not in the vocabulary"):
        coherence([["a", "z"]], X, "u_mass", top_n=2, vocabulary=["a", "b", "c"])
    with pytest.raises(ValueError, match="window_size"):
        coherence([[0, 1]], X, "c_v", window_size=0)
    with pytest.raises(TypeError, match="corpus"):
        coherence([[0, 1]], "some text", "c_v")
    before = X.copy()
    coherence([[0, 1]], X, "c_v")
    assert (X != before).nnz == 0


def test_top_words_of_a_model_follow_stable_argsort_with_ties():
    from latentkit._utils.words import top_word_ids

    rng = np.random.default_rng(0)
    for _ in range(50):
        A = rng.integers(0, 4, size=(3, 25)).astype(float)  # many ties at the boundary
        # the stable order, words of weight zero left out (they have no rank)
        expected = [[j for j in r if a[j] > 0]
                    for a, r in zip(A, np.argsort(-A, axis=1, kind="stable")[:, :6])]
        assert [list(r) for r in top_word_ids(A, 6)] == expected
