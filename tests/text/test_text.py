"""latentkit.text: equal to scikit-learn's CountVectorizer, file readers and their errors, gensim
and scikit-learn interop, and the vectorizer saved with a model."""

import json

import numpy as np
import pytest
import scipy.sparse as sp

import latentkit as lk
from latentkit.text import (TextInputError, TextVectorizer, attach, from_gensim, from_sklearn,
                            load_texts, read_texts)
from latentkit.topic import PLSA, LatentDirichletAllocation

pytestmark = pytest.mark.filterwarnings("ignore::latentkit.base.ConvergenceWarning")
CountVectorizer = pytest.importorskip("sklearn.feature_extraction.text").CountVectorizer

TEXTS = [
    "The Café served crème brûlée; the café's owner, Zoë, smiled.",
    "Dogs and cats: 3 dogs, 2 cats and one über-cat in München.",
    "Cats sleep. Dogs bark! The owner of the café feeds the cats.",
    "Straße und Fluß: naïve coöperation between dogs and owners.",
    "Zoë bakes brûlée for the owner; dogs wait, cats watch.",
]


@pytest.mark.parametrize("settings", [
    {},
    {"min_df": 2, "max_df": 0.9},
    {"min_df": 0.3, "max_features": 6},
    {"bigrams": True, "extra_stop_words": ["dogs"], "min_length": 3},
    {"stop_words": None, "lowercase": False},
])
def test_equals_countvectorizer(settings):
    vec = TextVectorizer(**settings)
    X = vec.fit_transform(TEXTS)
    cv = CountVectorizer(**vec.count_vectorizer_params())
    Y = cv.fit_transform(TEXTS)
    assert list(vec.vocabulary_) == list(cv.get_feature_names_out())
    assert X.dtype == np.float64 and sp.isspmatrix_csr(X)
    np.testing.assert_array_equal(X.toarray(), Y.toarray())
    # the settings are the documented ones, not sklearn's defaults
    params = vec.count_vectorizer_params()
    assert params["token_pattern"] == r"(?u)\b[^\W\d_]{%d,}\b" % settings.get("min_length", 2)
    if settings.get("stop_words", "english") == "english":
        assert "the" in params["stop_words"]


def test_unicode_letters_are_words_and_digits_are_not():
    vec = TextVectorizer(stop_words=None)
    vec.fit(TEXTS)
    vocab = set(vec.vocabulary_)
    assert {"café", "brûlée", "zoë", "straße", "münchen", "über"} <= vocab
    assert not any(ch.isdigit() for w in vocab for ch in w)


def test_readers(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    for i, t in enumerate(TEXTS):
        (folder / f"doc{i}.txt").write_text(t, encoding="utf-8")
    (folder / "notes.md").write_text("ignored", encoding="utf-8")
    texts, titles, meta = read_texts(folder)
    assert texts == TEXTS and meta == {}
    assert titles == [f"doc{i}.txt: {t}" for i, t in enumerate(TEXTS)]

    lines = tmp_path / "lines.txt"
    lines.write_text("\n".join(TEXTS[:2]) + "\n\n" + TEXTS[2] + "\n", encoding="utf-8")
    texts, titles, _ = read_texts(lines)
    assert texts == TEXTS[:3] and titles == ["line 1", "line 2", "line 4"]

    table = tmp_path / "t.csv"
    table.write_text("id,body,year\n" + "".join(f'{i},"{t}",{2000 + i}\n'
                                                for i, t in enumerate(TEXTS)), encoding="utf-8")
    texts, _, meta = read_texts(table, text_column="body")
    assert texts == TEXTS and meta["year"] == [str(2000 + i) for i in range(5)]

    jl = tmp_path / "t.jsonl"
    jl.write_text("".join(json.dumps({"text": t, "title": f"T{i}", "n": i}) + "\n"
                          for i, t in enumerate(TEXTS)), encoding="utf-8")
    c = load_texts(jl, min_df=1)
    assert list(c.titles) == [f"T{i}" for i in range(5)] and c.metadata["n"] == list(range(5))
    ref = TextVectorizer().fit_transform(TEXTS)
    np.testing.assert_array_equal(c.data.toarray(), ref.toarray())
    # token streams in reading order, -1 for dropped words
    first = [c.vocabulary[i] if i >= 0 else None for i in c.tokens[0]]
    assert first[:3] == [None, "café", "served"]


def test_bad_input_gets_one_line_naming_the_file(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(TextInputError, match=r"empty: the folder holds no \.txt files"):
        read_texts(empty)
    binary = tmp_path / "b.txt"
    binary.write_bytes(b"\x00\x01\x02binary")
    with pytest.raises(TextInputError, match="b.txt: looks like a binary file"):
        read_texts(binary)
    latin = tmp_path / "latin.txt"
    latin.write_bytes("café crème".encode("latin-1"))
    with pytest.raises(TextInputError, match="latin.txt: not UTF-8 text.*iconv"):
        read_texts(latin)
    table = tmp_path / "t.csv"
    table.write_text("id,body\n1,hello\n", encoding="utf-8")
    with pytest.raises(TextInputError, match=r"t.csv: no column 'text' \(columns: id, body\)"):
        read_texts(table)
    docx = tmp_path / "x.docx"
    docx.write_text("x", encoding="utf-8")
    with pytest.raises(TextInputError, match="x.docx: unknown kind of file '.docx'"):
        read_texts(docx)
    with pytest.raises(TextInputError, match="stop_words removed every word"):
        load_texts(["the and of", "it is the"])
    with pytest.raises(TextInputError, match="min_df=5"):
        load_texts(TEXTS, min_df=5)
    with pytest.raises(TextInputError, match="min_length=30"):
        load_texts(TEXTS, min_length=30)
    with pytest.raises(ValueError, match="max_df"):
        TextVectorizer(max_df=1.5).fit(TEXTS)
    with pytest.raises(TextInputError) as info:
        read_texts(binary)
    assert "\n" not in str(info.value)


def test_gensim_and_sklearn_interop():
    from gensim.corpora import Dictionary

    tokens = [t.lower().replace(",", " ").replace(".", " ").split() for t in TEXTS]
    dictionary = Dictionary(tokens)
    bow = [dictionary.doc2bow(t) for t in tokens]
    c = from_gensim(bow, dictionary)
    dense = np.zeros((len(tokens), len(dictionary)))
    for d, t in enumerate(tokens):
        for w in t:
            dense[d, dictionary.token2id[w]] += 1
    np.testing.assert_array_equal(c.data.toarray(), dense)
    assert [c.vocabulary[dictionary.token2id[w]] for w in tokens[0]] == tokens[0]
    with pytest.raises(ValueError, match="word id 99"):
        from_gensim([[(99, 1)]], dictionary)

    cv = CountVectorizer()
    Xi = cv.fit_transform(TEXTS)
    c = from_sklearn(Xi, cv)
    np.testing.assert_array_equal(c.data.toarray(), Xi.toarray())
    Xf = Xi.astype(np.float64).tocsr()
    assert from_sklearn(Xf, cv).data is Xf  # no copy of float64 CSR


@pytest.mark.parametrize("cls", [LatentDirichletAllocation, PLSA])
def test_settings_saved_with_model_and_transform_on_raw_texts(tmp_path, cls):
    c = load_texts(TEXTS * 4, extra_stop_words=["owner"], bigrams=True)
    model = cls(n_components=2, max_iter=20, random_state=0).fit(c.data)
    attach(model, c.vectorizer)
    path = tmp_path / "m.npz"
    lk.save(model, path)
    loaded = lk.load(path)
    new = ["Cats and dogs in the café with Zoë.", "brûlée owner owner bakes"]
    expected = model.transform(c.vectorizer.transform(new))
    np.testing.assert_allclose(loaded.transform(new), expected, rtol=0, atol=1e-12)
    vec = TextVectorizer.from_model(loaded)
    assert vec.bigrams and "owner" not in set(vec.vocabulary_)
    np.testing.assert_array_equal(vec.transform(new).toarray(),
                                  c.vectorizer.transform(new).toarray())
    with pytest.raises(ValueError, match="no text settings"):
        TextVectorizer.from_model(cls(n_components=2, max_iter=5, random_state=0).fit(c.data))
