"""Every reader takes what real files contain (issue 48, item 5): a UTF-8 byte-order mark,
CRLF line ends, gzip, one-row and one-column CSVs, rows of a JSON-lines file without their
text (skipped with one counted warning naming the lines). A property test writes random valid
files with these features and checks that each reader gives back what was written; on main a
BOM was read as content (``read_vocab`` returned '\\ufeffapple', ``read_docword`` refused
line 1, ``read_numeric_csv`` took the first data row for a header) and a row without text
became an empty document silently."""

import gzip
import json
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from latentkit.datasets import read_docword, read_numeric_csv, read_vocab
from latentkit.text import read_texts

SETTINGS = settings(max_examples=25, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])
#: how a file is written: byte-order mark, line end, a last line end, gzip
STYLE = st.fixed_dictionaries({"bom": st.booleans(), "eol": st.sampled_from(["\n", "\r\n"]),
                               "last": st.booleans(), "gz": st.booleans()})


def _write(path, lines, style, gz_ok=True):
    text = style["eol"].join(lines) + (style["eol"] if style["last"] else "")
    raw = ("\ufeff" if style["bom"] else "").encode() + text.encode("utf-8")
    if style["gz"] and gz_ok:
        raw = gzip.compress(raw)
    path.write_bytes(raw)
    return path


WORD = st.text(st.characters(blacklist_categories=("Cs", "Cc", "Zs", "Zl", "Zp"),
                             blacklist_characters="\ufeff\x85"), min_size=1, max_size=8)


@SETTINGS
@given(words=st.lists(WORD, min_size=1, max_size=12), style=STYLE)
def test_vocabulary_round_trip(tmp_path, words, style):
    got = read_vocab(_write(tmp_path / "vocab.txt", words, style))
    assert list(got) == words


@SETTINGS
@given(X=st.integers(1, 5).flatmap(lambda n: st.integers(1, 4).flatmap(
           lambda d: st.lists(st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=d,
                                       max_size=d), min_size=n, max_size=n))),
       header=st.booleans(), style=STYLE)
def test_numeric_csv_round_trip_one_row_and_one_column_included(tmp_path, X, header, style):
    X = np.array(X, dtype=np.float64)
    names = [f"col{chr(97 + j)}" for j in range(X.shape[1])]
    lines = ([",".join(names)] if header else []) + [",".join(map(repr, r)) for r in X.tolist()]
    got, got_names = read_numeric_csv(_write(tmp_path / "x.csv", lines, style))
    np.testing.assert_array_equal(got, X)   # every row kept: the first is never a header
    assert list(got_names) == (names if header else [f"x{j}" for j in range(X.shape[1])])


@SETTINGS
@given(counts=st.integers(1, 6).flatmap(lambda D: st.integers(1, 6).flatmap(
           lambda W: st.lists(st.lists(st.integers(0, 3), min_size=W, max_size=W),
                              min_size=D, max_size=D))), style=STYLE)
def test_docword_round_trip(tmp_path, counts, style):
    C = np.array(counts, dtype=np.float64)
    M = sp.coo_matrix(C)
    lines = [str(C.shape[0]), str(C.shape[1]), str(M.nnz)]
    lines += [f"{d + 1} {w + 1} {int(c)}" for d, w, c in zip(M.row, M.col, M.data)]
    corpus = read_docword(_write(tmp_path / "docword.txt", lines, style))
    np.testing.assert_array_equal(corpus.data.toarray(), C)


TEXT = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\ufeff"),
               min_size=1, max_size=20).filter(lambda t: t.strip())


@SETTINGS
@given(rows=st.lists(st.one_of(TEXT, st.sampled_from(["<missing>", "<null>"])), min_size=1,
                     max_size=8).filter(lambda r: any(x not in ("<missing>", "<null>")
                                                      for x in r)),
       style=STYLE)
def test_json_lines_round_trip_rows_without_text_counted(tmp_path, rows, style):
    lines, want, skipped = [], [], []
    for i, r in enumerate(rows, 1):
        obj = {"id": i} if r == "<missing>" else {"id": i, "text": None if r == "<null>" else r}
        lines.append(json.dumps(obj, ensure_ascii=False))
        (skipped if r in ("<missing>", "<null>") else want).append(i if r in (
            "<missing>", "<null>") else r)
    path = _write(tmp_path / "docs.jsonl", lines, style, gz_ok=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        texts, _, meta = read_texts(path)
    assert texts == want
    assert meta["id"] == [i for i, r in enumerate(rows, 1) if r not in ("<missing>", "<null>")]
    msgs = [str(w.message) for w in caught if "skipped" in str(w.message)]
    if skipped:
        assert len(msgs) == 1 and f"{len(skipped)} row" in msgs[0]
        assert "line" in msgs[0] and str(skipped[0]) in msgs[0]
    else:
        assert not msgs


@SETTINGS
@given(texts=st.lists(TEXT.filter(lambda t: not set(t) & set("\"\r\x00")
                                  and "\n" not in t), min_size=1, max_size=6),
       style=STYLE)
def test_text_csv_round_trip(tmp_path, texts, style):
    import csv
    import io

    buf = io.StringIO(newline="")
    writer = csv.writer(buf, lineterminator=style["eol"])
    writer.writerow(["title", "text"])
    for i, t in enumerate(texts):
        writer.writerow([f"doc {i}", t])
    raw = ("\ufeff" if style["bom"] else "").encode() + buf.getvalue().encode("utf-8")
    path = tmp_path / "docs.csv"
    path.write_bytes(raw)
    got, titles, _ = read_texts(path)
    assert got == texts and titles == [f"doc {i}" for i in range(len(texts))]


def test_a_json_lines_file_without_any_text_is_refused(tmp_path):
    path = tmp_path / "docs.jsonl"
    path.write_text('{"text": null}\n{"title": "a"}\n')
    with pytest.raises(ValueError, match=r"no row has a 'text' field with text \(2 rows"):
        read_texts(path)


def test_cli_refuses_k_above_the_vocabulary_and_the_rows(tmp_path, capsys):
    from latentkit.cli import main

    docs = tmp_path / "docs.jsonl"
    docs.write_text('{"text": "apple banana"}\n{"text": "cherry apple"}\n')
    assert main(["fit", "lda", "--text", str(docs), "-k", "1000000", "--min-df", "1"]) != 0
    err = capsys.readouterr().err
    assert "-k 1000000 is more than the 3 words of the vocabulary" in err
    assert "2 documents" in err
    one = tmp_path / "one.csv"
    one.write_text("1.5,2\n")
    assert main(["fit", "gmm", "--data", str(one), "-k", "2"]) != 0
    err = capsys.readouterr().err
    assert "-k 2 is more than the 1 row of the data (1 x 2)" in err
    assert "Expected n_samples" not in err
