"""The default vocabulary rule (issue 41, item 2): ``min_df='auto'`` / ``max_df='auto'`` resolve
to max(2, ceil(N/2000)) documents and half the documents (every word kept below 100 documents),
the same in ``latentkit.text`` and on the command line, and printed in the vocabulary line."""

import io
import math

import numpy as np
import pytest

from latentkit import cli
from latentkit._utils.vocabulary_rule import (MAX_DF_SHARE, MIN_DF_DOCS_PER_DOC, SMALL_CORPUS,
                                              auto_document_frequencies)
from latentkit.text import TextVectorizer, load_texts

CountVectorizer = pytest.importorskip("sklearn.feature_extraction.text").CountVectorizer


def _texts(n, seed=0):
    """n documents: topical words from two pools, one word in every document ('item', the
    boilerplate) and a word of its own in each document ('uniqaabc', never shared)."""
    rng = np.random.default_rng(seed)
    pools = [[f"alpha{c}" for c in "abcdefgh"], [f"beta{c}" for c in "abcdefgh"]]
    docs = []
    for i in range(n):
        pool = pools[i % 2]
        own = "".join(chr(97 + int(c)) for c in f"{i:04d}")   # letters only: 'uniqaabc'
        words = list(rng.choice(pool, size=6)) + ["item", f"uniq{own}"]
        docs.append(" ".join(words))
    return docs


def _document_frequencies(texts):
    docs = [set(t.split()) for t in texts]
    return {w: sum(w in d for d in docs) for w in set().union(*docs)}


@pytest.mark.parametrize("n", [0, 1, 99, 100, 2000, 2001, 15000, 59961])
def test_the_rule_in_closed_form(n):
    lo, hi = auto_document_frequencies(n)
    if n < SMALL_CORPUS:
        assert (lo, hi) == (1, 1.0)
    else:
        assert lo == max(2, math.ceil(n / MIN_DF_DOCS_PER_DOC)) and hi == MAX_DF_SHARE
    assert auto_document_frequencies(2001)[0] == 2 and auto_document_frequencies(4001)[0] == 3


def test_default_drops_words_of_one_document_and_boilerplate():
    # on main the defaults were min_df=1, max_df=1.0: 'item' and every 'uniq' word stayed
    texts = _texts(300)
    vec = TextVectorizer(stop_words=None)
    X = vec.fit_transform(texts)
    df = _document_frequencies(texts)
    want = sorted(w for w, d in df.items() if 2 <= d <= 0.5 * 300)
    assert list(vec.vocabulary_) == want
    assert "item" not in want and not any(w.startswith("uniq") for w in want)
    assert (vec.min_df_, vec.max_df_) == (2, 0.5)
    cv = CountVectorizer(**dict(vec.count_vectorizer_params(), min_df=2, max_df=0.5))
    np.testing.assert_array_equal(X.toarray(), cv.fit_transform(texts).toarray())
    assert vec.get_settings()["min_df"] == "auto"  # the rule is saved, not the number


def test_small_corpus_keeps_every_word_and_settings_round_trip():
    texts = _texts(40)
    vec = TextVectorizer(stop_words=None).fit(texts)
    assert set(vec.vocabulary_) == set(_document_frequencies(texts))
    again = TextVectorizer.from_settings(vec.get_settings(), vec.vocabulary_)
    np.testing.assert_array_equal(again.transform(texts).toarray(),
                                  vec.transform(texts).toarray())
    explicit = TextVectorizer(stop_words=None, min_df=2, max_df=0.5).fit(texts)
    assert (explicit.min_df_, explicit.max_df_) == (2, 0.5)
    with pytest.raises(ValueError, match="min_df must be a document count .* or 'auto'"):
        TextVectorizer(min_df="some").fit(texts)


def test_cli_uses_the_library_rule_and_prints_it(tmp_path):
    texts = _texts(300)
    path = tmp_path / "docs.txt"
    path.write_text("\n".join(texts) + "\n")
    out = io.StringIO()
    status = cli.main(["fit", "lda", "--text", str(path), "-k", "2", "--max-iter", "5",
                       "--quiet", "--stop-words", "none"], out=out)
    assert status == 0
    line = next(ln for ln in out.getvalue().splitlines() if ln.startswith("vocabulary"))
    df = _document_frequencies(texts)
    assert f"min_df=2 (auto, N=300) -{sum(d < 2 for d in df.values())}" in line, line
    assert "max_df=0.5 (auto, N=300) -1" in line, line
    lib = load_texts(path, stop_words=None)
    assert f"{len(lib.vocabulary)} words kept" in line
    out = io.StringIO()
    status = cli.main(["fit", "lda", "--text", str(path), "-k", "2", "--max-iter", "5",
                       "--quiet", "--stop-words", "none", "--min-df", "1", "--max-df",
                       "auto"], out=out)
    line = next(ln for ln in out.getvalue().splitlines() if ln.startswith("vocabulary"))
    assert status == 0 and "min_df=1 -0" in line and "max_df=0.5 (auto" in line, line
