"""Bundled data loaders, user-file parsers and synthetic generators.

Known facts come from the data README (/work/shared/data/README.md, copied to datasets/README.md)
or from independent computations on the raw files; nothing is copied from our own output.
"""

import gzip
import hashlib
import re
import shutil

import numpy as np
import pytest
import scipy.sparse as sp

import latentkit.datasets as ds
from latentkit.datasets import _files


# ----------------------------------------------------------------------------- fixtures

@pytest.fixture(scope="module")
def kos():
    return ds.load_kos()


@pytest.fixture(scope="module")
def nips():
    return ds.load_nips()


@pytest.fixture(scope="module")
def novels_chapter():
    return ds.load_gutenberg_novels("chapter")


# ----------------------------------------------------------------------------- manifest

def test_manifest_lists_every_file_with_correct_sha256():
    root = ds.bundled_data_dir()
    entries = ds.manifest()
    on_disk = {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}
    assert on_disk - {"MANIFEST", "README.md"} == set(entries)
    for rel, e in entries.items():
        blob = (root / rel).read_bytes()
        assert hashlib.sha256(blob).hexdigest() == e["sha256"], rel
        assert len(blob) == e["bytes"]
        assert e["license"] and e["source"] and e["citation"]


def test_readme_ships_with_provenance():
    text = (ds.bundled_data_dir() / "README.md").read_text(encoding="utf-8")
    for needle in ("CC BY 4.0", "Newman, D. (2008)", "Zucchini", "NC_001416.1", "Golub"):
        assert needle in text


@pytest.fixture
def fake_data_dir(tmp_path, monkeypatch):
    """A copy of the iris files + MANIFEST in tmp, with fresh caches."""
    root = ds.bundled_data_dir()
    (tmp_path / "iris").mkdir()
    shutil.copy(root / "iris" / "iris.csv", tmp_path / "iris" / "iris.csv")
    shutil.copy(root / "MANIFEST", tmp_path / "MANIFEST")
    monkeypatch.setattr(_files, "_DATA_DIR", tmp_path)
    monkeypatch.setattr(_files, "_VERIFIED", set())
    monkeypatch.setattr(_files, "_MANIFEST_CACHE", {})
    return tmp_path


def test_corrupt_file_gives_clear_error(fake_data_dir):
    assert ds.load_iris().data.shape == (150, 4)  # intact copy loads
    _files._VERIFIED.clear()
    path = fake_data_dir / "iris" / "iris.csv"
    path.write_bytes(path.read_bytes().replace(b"5.1,3.5", b"5.1,3.6", 1))
    with pytest.raises(ds.DatasetIntegrityError, match=r"iris\.csv is corrupt: its sha256"):
        ds.load_iris()


def test_missing_and_unlisted_files_are_refused(fake_data_dir):
    with pytest.raises(ds.DatasetIntegrityError, match="missing"):
        ds.load_wine()  # listed in MANIFEST but not copied
    with pytest.raises(ds.DatasetIntegrityError, match="not listed"):
        _files._bundled("iris/other.csv")


# ----------------------------------------------------------------------------- text corpora

def test_kos_facts_from_readme(kos):
    X = kos.data
    assert sp.isspmatrix_csr(X) and X.dtype == np.float64
    assert X.shape == (3430, 6906) and X.nnz == 353160 and X.sum() == 467714
    assert kos.top_words(5) == [("bush", 6781), ("kerry", 4679), ("november", 3781),
                                ("poll", 2640), ("democratic", 2566)]
    lengths = np.asarray(X.sum(axis=1)).ravel()
    assert lengths.min() == 25 and lengths.max() == 670
    assert list(kos.vocabulary) == sorted(kos.vocabulary)  # alphabetical
    assert "CC BY 4.0" in kos.DESCR and "Newman" in kos.DESCR


def test_kos_matches_independent_parse():
    # parse the raw file line by line with plain Python and compare a few documents
    root = ds.bundled_data_dir() / "kos"
    with gzip.open(root / "docword.kos.txt.gz", "rt") as fh:
        lines = fh.read().split("\n")[3:]
    first = {}
    for ln in lines[:2000]:
        d, w, c = map(int, ln.split())
        if d <= 3:
            first[(d - 1, w - 1)] = c
    X = ds.load_kos().data[:3].toarray()
    for (d, w), c in first.items():
        assert X[d, w] == c
    assert X.sum() == sum(first.values())


def test_nips_facts_and_split(nips):
    X = nips.data
    assert X.shape == (1500, 7605) and X.nnz == 709477 and X.sum() == 1870706
    assert [w for w, _ in nips.top_words(5)] == ["network", "model", "learning", "function",
                                                 "input"]
    lengths = np.asarray(X.sum(axis=1)).ravel()
    assert lengths.min() == 2 and lengths.max() == 2203
    assert (nips.subset == "train").sum() == 1350
    test = ds.load_nips("test")
    assert test.data.shape == (150, 7605)
    assert (test.data != X[1350:]).nnz == 0
    with pytest.raises(ValueError, match="subset"):
        ds.load_nips("dev")


def test_gutenberg_chapters_match_books_table(novels_chapter):
    c = novels_chapter
    assert c.data.shape[0] == 401
    table = c.books_table
    assert [b["book"] for b in table] == list(c.target_names)
    np.testing.assert_array_equal(np.bincount(c.target, minlength=9),
                                  [int(b["n_chapters"]) for b in table])
    assert c.titles[0] == "Sense and Sensibility, chapter 1"
    # tokenising: no stop words, alphabetic lowercase, min_df 2 on the chapters
    stop = ds.english_stop_words()
    assert len(stop) == 318 and not set(c.vocabulary) & stop
    assert all(re.fullmatch(r"[a-z]{2,}", w) for w in c.vocabulary)
    df = np.asarray((c.data > 0).sum(axis=0)).ravel()
    assert df.min() >= 2


def test_gutenberg_word_count_matches_direct_count(novels_chapter):
    # count 'elinor' in Sense and Sensibility directly from the raw paragraphs
    with gzip.open(ds.bundled_data_dir() / "gutenberg_novels" / "paragraphs.tsv.gz", "rt",
                   encoding="utf-8") as fh:
        next(fh)
        text = " ".join(ln.rstrip("\n").split("\t")[3] for ln in fh
                        if ln.startswith("sense_and_sensibility\t"))
    direct = len(re.findall(r"(?<![a-z])elinor(?![a-z])", text.lower()))
    c = novels_chapter
    j = list(c.vocabulary).index("elinor")
    rows = c.target == list(c.target_names).index("sense_and_sensibility")
    assert direct > 500
    assert c.data[rows][:, j].sum() == direct
    assert c.data[~rows][:, j].sum() == 0


def test_gutenberg_paragraphs_and_heist_subset():
    p = ds.load_gutenberg_novels("paragraph")
    assert p.data.shape[0] == 17080
    np.testing.assert_array_equal(np.bincount(p.target),
                                  [int(b["n_paragraphs"]) for b in p.books_table])
    heist = ["great_expectations", "pride_and_prejudice", "war_of_the_worlds",
             "twenty_thousand_leagues"]
    h = ds.load_gutenberg_novels("chapter", books=heist)
    assert h.data.shape[0] == 193 and len(h.target_names) == 4
    with pytest.raises(ValueError, match="book ids"):
        ds.load_gutenberg_novels(books=["moby_dick"])
    with pytest.raises(ValueError, match="level"):
        ds.load_gutenberg_novels(level="sentence")


def test_gutenberg_characters():
    b = ds.load_gutenberg_characters(level="book", books="persuasion")
    assert ds.CHARACTER_ALPHABET == "abcdefghijklmnopqrstuvwxyz " and len(b.alphabet) == 27
    seq = b.sequences[0]
    assert b.data.shape == (seq.size, 1) and b.lengths.tolist() == [seq.size]
    assert seq.min() >= 0 and seq.max() == 26
    decoded = "".join(b.alphabet[i] for i in seq[:2000])
    assert "  " not in decoded and not decoded.startswith(" ")
    # direct: lowercase, non-letters -> space, collapse
    with gzip.open(ds.bundled_data_dir() / "gutenberg_novels" / "paragraphs.tsv.gz", "rt",
                   encoding="utf-8") as fh:
        text = " ".join(ln.rstrip("\n").split("\t")[3] for ln in fh
                        if ln.startswith("persuasion\t"))
    direct = re.sub(r"[^a-z]+", " ", text.lower()).strip()
    assert "".join(b.alphabet[i] for i in seq) == direct
    small = ds.load_gutenberg_characters(max_length=1000)
    assert small.data.shape == (1000, 1) and small.lengths.sum() == 1000


# ----------------------------------------------------------------------------- sequences

def test_earthquakes():
    b = ds.load_earthquakes()
    assert b.data.shape == (107, 1) and b.data.dtype == np.int64
    assert b.data.sum() == 2072
    np.testing.assert_array_equal(b.years, np.arange(1900, 2007))
    assert "Zucchini" in b.DESCR


def test_lambda_phage_length_and_base_counts():
    b = ds.load_lambda_phage()
    assert b.alphabet == "ACGT" and b.data.shape == (48502, 1)
    np.testing.assert_array_equal(np.bincount(b.data[:, 0]), [12334, 11362, 12820, 11986])
    assert b.sequence.startswith("GGGCGGCGACCTCGCGGG")
    assert b.header.startswith("gi|9626243|ref|NC_001416.1|")


# ----------------------------------------------------------------------------- tables

def test_old_faithful():
    f = ds.load_old_faithful()
    assert f.data.shape == (272, 2) and list(f.feature_names) == ["eruptions", "waiting"]
    # R: mean(faithful$eruptions) = 3.487783, mean(faithful$waiting) = 70.89706
    np.testing.assert_allclose(f.data.mean(axis=0), [3.487783, 70.89706], atol=1e-6)
    g = ds.load_old_faithful("geyser")
    assert g.data.shape == (299, 2) and list(g.feature_names) == ["waiting", "duration"]
    with pytest.raises(ValueError, match="kind"):
        ds.load_old_faithful("yellowstone")


def test_iris_against_scikit_learn():
    from sklearn.datasets import load_iris as sk_iris

    b, sk = ds.load_iris(), sk_iris()
    np.testing.assert_array_equal(b.data, sk.data)
    np.testing.assert_array_equal(b.target, sk.target)
    assert list(b.target_names) == list(sk.target_names)


def test_wine_against_scikit_learn():
    from sklearn.datasets import load_wine as sk_wine

    b, sk = ds.load_wine(), sk_wine()
    np.testing.assert_allclose(b.data, sk.data)
    np.testing.assert_array_equal(b.target, sk.target)
    np.testing.assert_array_equal(np.bincount(b.target), [59, 71, 48])


def test_seeds_banknote_olive():
    s = ds.load_seeds()
    assert s.data.shape == (210, 7) and np.bincount(s.target).tolist() == [70, 70, 70]
    assert list(s.target_names) == ["Kama", "Rosa", "Canadian"]
    b = ds.load_swiss_banknote()
    assert b.data.shape == (200, 6) and np.bincount(b.target).tolist() == [100, 100]
    assert list(b.feature_names) == ["Length", "Left", "Right", "Bottom", "Top", "Diagonal"]
    o = ds.load_olive_oil()
    assert o.data.shape == (572, 8)
    assert dict(zip(o.target_names, np.bincount(o.target))) == {
        "Northern Italy": 151, "Sardinia": 98, "Southern Italy": 323}
    assert len(o.area_names) == 9
    # nesting: every oil's region is its area's region
    np.testing.assert_array_equal(o.area_region[o.area], o.target)
    assert np.all(np.abs(o.data.sum(axis=1) - 100) < 5)


def test_optdigits_train_test_and_scalings():
    from sklearn.datasets import load_digits

    b = ds.load_optdigits()
    assert b.data.shape == (3823 + 1797, 64)
    assert (b.subset == "train").sum() == 3823
    assert b.data.min() == 0 and b.data.max() == 16 and np.all(b.data == np.round(b.data))
    test = ds.load_optdigits("test")
    sk = load_digits()  # README: the test file is identical to scikit-learn's load_digits
    np.testing.assert_array_equal(test.data, sk.data)
    np.testing.assert_array_equal(test.target, sk.target)
    unit = ds.load_optdigits("test", scale="unit")
    np.testing.assert_array_equal(unit.data, sk.data / 16)
    binary = ds.load_optdigits("test", scale="binary", threshold=8)
    np.testing.assert_array_equal(binary.data, (sk.data >= 8).astype(float))
    assert unit.images.shape == (1797, 8, 8)
    with pytest.raises(ValueError, match="scale"):
        ds.load_optdigits(scale="zscore")
    with pytest.raises(ValueError, match="threshold"):
        ds.load_optdigits(scale="binary", threshold=17)


def test_golub_dudoit_recipe_from_raw():
    raw = ds.load_golub("raw")
    assert raw.data.shape == (72, 7129)
    assert raw.data.min() == -28400 and raw.data.max() == 71369
    tr = raw.subset == "train"
    assert np.bincount(raw.target[tr]).tolist() == [27, 11]
    assert np.bincount(raw.target[~tr]).tolist() == [20, 14]
    d = ds.load_golub()
    assert d.data.shape == (38, 3051) and list(d.target_names) == ["ALL", "AML"]
    np.testing.assert_array_equal(d.target, raw.target[tr])
    # Dudoit, Fridlyand & Speed (2002), as the README's verified recipe
    x = np.clip(raw.data[tr], 100, 16000)
    keep = (x.max(0) / x.min(0) > 5) & (x.max(0) - x.min(0) > 500)
    x = np.log10(x[:, keep])
    x = (x - x.mean(1, keepdims=True)) / x.std(1, ddof=1, keepdims=True)
    assert keep.sum() == 3051
    np.testing.assert_allclose(x, d.data, atol=6e-6)


def test_khan_and_nci60():
    k = ds.load_khan()
    assert k.data.shape == (83, 2308)
    tr = k.subset == "train"
    assert np.bincount(k.target[tr]).tolist() == [8, 23, 12, 20]
    assert np.bincount(k.target[~tr]).tolist() == [3, 6, 6, 5]
    assert ds.load_khan("test").data.shape == (20, 2308)
    n = ds.load_nci60()
    assert n.data.shape == (64, 6830) and len(n.target_names) == 14
    counts = dict(zip(n.target_names, np.bincount(n.target)))
    assert counts["RENAL"] == 9 and counts["PROSTATE"] == 2 and counts["K562A-repro"] == 1


def test_list_datasets_shapes_match_loaders(kos, nips, novels_chapter):
    loaded = {"kos": kos, "nips": nips, "gutenberg_novels": novels_chapter}
    for entry in ds.list_datasets():
        assert set(entry) == {"name", "kind", "description", "shape", "license", "loader"}
        assert entry["kind"] in ("counts", "matrix", "sequence")
        m = re.fullmatch(r"(\d+) x (\d+)", entry["shape"])
        b = loaded.get(entry["name"]) or entry["loader"]()
        if m:
            assert b.data.shape == (int(m[1]), int(m[2])), entry["name"]
        else:
            assert b.data.shape[0] == int(entry["shape"].split()[0]) or \
                len(b.lengths) == int(entry["shape"].split()[0]), entry["name"]
        assert b.DESCR and "License" in b.DESCR
    with pytest.raises(ValueError, match="unknown dataset"):
        ds.load_dataset("mnist")


# ----------------------------------------------------------------------------- read_docword

def _write_docword(path, D, W, entries, gz=False, header=None):
    lines = header if header is not None else [str(D), str(W), str(len(entries))]
    lines = lines + [" ".join(map(str, e)) for e in entries]
    data = ("\n".join(lines) + "\n").encode()
    if gz:
        data = gzip.compress(data)
    path.write_bytes(data)
    return path


def test_read_docword_round_trip_plain_and_gzip(tmp_path):
    X, _ = ds.make_lda_corpus(30, 3, 25, doc_length=20, random_state=1)
    coo = X.tocoo()
    entries = sorted(zip(coo.row + 1, coo.col + 1, coo.data.astype(int)))
    vocab = [f"word{j}" for j in range(25)]
    (tmp_path / "vocab.txt").write_text("\n".join(vocab) + "\n")
    for gz in (False, True):
        p = _write_docword(tmp_path / f"doc{gz}.txt", 30, 25, entries, gz=gz)
        c = ds.read_docword(p, tmp_path / "vocab.txt")
        assert (c.data != X).nnz == 0 and list(c.vocabulary) == vocab
    # empty documents and duplicates (summed, documented)
    p = _write_docword(tmp_path / "dup.txt", 4, 3, [(1, 1, 2), (1, 1, 3), (3, 2, 1)])
    c = ds.read_docword(p)
    np.testing.assert_array_equal(c.data.toarray(), [[5, 0, 0], [0, 0, 0], [0, 1, 0], [0, 0, 0]])
    assert list(c.vocabulary) == ["w1", "w2", "w3"]


@pytest.mark.parametrize("bad_line, message", [
    ("2 3", r"line 5: expected 3 fields"),
    ("2 x 1", r"line 5: docID and wordID must be integers"),
    ("9 1 1", r"line 5: docID 9 is outside 1\.\.3"),
    ("2 0 1", r"line 5: wordID 0 is outside 1\.\.4"),
    ("2 1 -1", r"line 5: count must be finite and >= 0"),
    ("2 1 1 7", r"line 5: expected 3 fields"),
])
def test_read_docword_malformed_line_reports_line_number(tmp_path, bad_line, message):
    p = tmp_path / "bad.txt"
    p.write_text("3\n4\n3\n1 1 2\n" + bad_line + "\n3 4 1\n")
    with pytest.raises(ValueError, match=message):
        ds.read_docword(p)


def test_read_docword_header_and_vocab_errors(tmp_path):
    p = tmp_path / "h.txt"
    p.write_text("3\nfour\n1\n1 1 1\n")
    with pytest.raises(ValueError, match="line 2: expected the integer W"):
        ds.read_docword(p)
    p.write_text("3\n4\n3\n1 1 1\n2 2 2\n")
    with pytest.raises(ValueError, match="announces NNZ = 3 entries but the file has 2"):
        ds.read_docword(p)
    p.write_text("3\n4\n1\n1 1 1\n")
    with pytest.raises(ValueError, match="vocab has 2 words but .* W = 4"):
        ds.read_docword(p, vocab=["a", "b"])
    (tmp_path / "v.txt").write_text("a\n\nb\nc\n")
    with pytest.raises(ValueError, match="line 2: empty line"):
        ds.read_docword(p, vocab=tmp_path / "v.txt")
    with pytest.raises(FileNotFoundError):
        ds.read_docword(tmp_path / "nope.txt")


def test_read_numeric_csv(tmp_path):
    p = tmp_path / "a.csv"
    p.write_text("x,y\n1,2\n3.5,-4\n\n")
    X, names = ds.read_numeric_csv(p)
    np.testing.assert_array_equal(X, [[1, 2], [3.5, -4]])
    assert list(names) == ["x", "y"]
    p.write_text("1,2\n3,4\n")
    assert list(ds.read_numeric_csv(p)[1]) == ["x0", "x1"]
    p.write_text("x,y\n1,2\n3\n")
    with pytest.raises(ValueError, match="line 3: expected 2 fields, found 1"):
        ds.read_numeric_csv(p)
    p.write_text("x,y\n1,2\n3,abc\n")
    with pytest.raises(ValueError, match="line 3: 'abc' is not a number"):
        ds.read_numeric_csv(p)


# ----------------------------------------------------------------------------- generators

@pytest.mark.parametrize("covariance_type, cov_shape", [
    ("full", (3, 2, 2)), ("diag", (3, 2)), ("spherical", (3,)), ("tied", (2, 2))])
def test_make_gmm_planted_parameters(covariance_type, cov_shape):
    n = 30000
    X, labels, truth = ds.make_gmm(n, 3, 2, covariance_type=covariance_type, random_state=0)
    assert X.shape == (n, 2) and labels.shape == (n,)
    assert truth["covariances"].shape == cov_shape
    w = truth["weights"]
    assert np.isclose(w.sum(), 1.0)
    # empirical frequencies within 5 binomial standard errors
    freq = np.bincount(labels, minlength=3) / n
    assert np.all(np.abs(freq - w) < 5 * np.sqrt(w * (1 - w) / n))
    for k in range(3):
        Xk = X[labels == k]
        cov = {"full": lambda: truth["covariances"][k],
               "tied": lambda: truth["covariances"],
               "diag": lambda: np.diag(truth["covariances"][k]),
               "spherical": lambda: truth["covariances"][k] * np.eye(2)}[covariance_type]()
        se = np.sqrt(np.diag(cov) / Xk.shape[0])
        assert np.all(np.abs(Xk.mean(0) - truth["means"][k]) < 5 * se)
        np.testing.assert_allclose(np.cov(Xk.T), cov, atol=0.08)


def test_make_gmm_reproducible_and_validates():
    a = ds.make_gmm(50, 2, 3, random_state=3)
    b = ds.make_gmm(50, 2, 3, random_state=3)
    np.testing.assert_array_equal(a[0], b[0])
    w = np.array([0.2, 0.8])
    X, labels, truth = ds.make_gmm(50, 2, 1, weights=w, random_state=0)
    assert w.tolist() == [0.2, 0.8] and np.allclose(truth["weights"], w)
    with pytest.raises(ValueError, match="covariance_type"):
        ds.make_gmm(10, covariance_type="banded")
    with pytest.raises(ValueError, match="weights must have shape"):
        ds.make_gmm(10, 3, weights=[0.5, 0.5])
    with pytest.raises(ValueError, match="n_samples"):
        ds.make_gmm(0)
    with pytest.raises(ValueError, match="separation"):
        ds.make_gmm(10, separation=0)


def test_make_lda_corpus_planted_truth():
    D, K, V, L = 3000, 4, 60, 200
    X, truth = ds.make_lda_corpus(D, K, V, doc_length=L, topic_word_prior=0.2, random_state=0)
    assert sp.isspmatrix_csr(X) and X.shape == (D, V) and X.dtype == np.float64
    np.testing.assert_array_equal(np.asarray(X.sum(1)).ravel(), np.full(D, L))
    np.testing.assert_allclose(truth["topics"].sum(1), 1.0)
    np.testing.assert_allclose(truth["doc_topic"].sum(1), 1.0)
    np.testing.assert_allclose(truth["doc_topic_prior"], np.full(K, 1 / K))
    # the corpus-wide word frequencies match the planted mixture (multinomial CLT)
    p = (truth["doc_topic"] @ truth["topics"]).sum(0) * L
    counts = np.asarray(X.sum(0)).ravel()
    assert np.all(np.abs(counts - p) < 6 * np.sqrt(p) + 1)
    # variable lengths, and validation
    X2, t2 = ds.make_lda_corpus(5, 2, 10, doc_length=[0, 1, 2, 3, 4], random_state=0)
    np.testing.assert_array_equal(np.asarray(X2.sum(1)).ravel(), [0, 1, 2, 3, 4])
    with pytest.raises(ValueError, match="doc_topic_prior"):
        ds.make_lda_corpus(5, 2, 10, doc_topic_prior=[1, 2, 3])
    with pytest.raises(ValueError, match="topic_word_prior"):
        ds.make_lda_corpus(5, 2, 10, topic_word_prior=-1)
    with pytest.raises(ValueError, match="doc_length"):
        ds.make_lda_corpus(5, 2, 10, doc_length=-3)


def test_bunch_attribute_access_and_pickle():
    import pickle

    b = ds.load_iris()
    assert b.data is b["data"]
    b.extra = 1
    assert b["extra"] == 1
    b2 = pickle.loads(pickle.dumps(b))
    np.testing.assert_array_equal(b2.data, b.data)
    with pytest.raises(AttributeError):
        b.nope
