"""One parser of docword files (issue 12 item 3): ``read_docword`` (whole file) and
``DocwordSource`` (blocks of lines, chunks of documents) give the same matrix or the same error
(message and line) on the same well-formed, edge and malformed inputs."""

import gzip

import numpy as np
import pytest
import scipy.sparse as sp

from latentkit.datasets import read_docword
from latentkit.sources import DocwordSource

BODY = "1 1 2\n1 3 1\n3 2 4\n4 4 1\n"

CASES = {
    # well formed, and the edge cases both accept
    "plain": "4\n4\n4\n" + BODY,
    "no final newline": "4\n4\n4\n" + BODY.rstrip("\n"),
    "crlf endings": ("4\n4\n4\n" + BODY).replace("\n", "\r\n"),
    "blank and tab lines": "4\n4\n4\n1 1 2\n\n1\t3 1\n  \n3 2 4\n4 4 1\n",
    "integral float ids and counts": "4\n4\n4\n1.0 1 2.5\n1 3 1e0\n3 2.0 4\n4 4 1\n",
    "repeated entries": "4\n4\n3\n1 1 2\n1 1 3\n4 4 1\n",
    "no entries": "2\n3\n0\n",
    "empty documents at the end": "9\n4\n2\n1 1 1\n2 2 2\n",
    "padded header": " 4 \n4\r\n4\n" + BODY,
    # malformed header
    "missing header line": "4\n4\n",
    "header not an integer": "4\nfour\n1\n1 1 1\n",
    "negative header": "-1\n4\n0\n",
    "huge header": f"4\n{2**62}\n0\n",
    # malformed entries
    "two fields": "4\n4\n4\n1 1 2\n1 3\n3 2 4\n4 4 1\n",
    "four fields": "4\n4\n4\n1 1 2\n1 3 1 7\n3 2 4\n4 4 1\n",
    "id not an integer": "4\n4\n4\n1 1 2\n1 x 1\n3 2 4\n4 4 1\n",
    "fractional id": "4\n4\n4\n1 1 2\n1.5 3 1\n3 2 4\n4 4 1\n",
    "count not a number": "4\n4\n4\n1 1 2\n1 3 abc\n3 2 4\n4 4 1\n",
    "docID too large": "4\n4\n4\n1 1 2\n9 3 1\n3 2 4\n4 4 1\n",
    "docID zero": "4\n4\n4\n0 1 2\n1 3 1\n3 2 4\n4 4 1\n",
    "wordID too large": "4\n4\n4\n1 1 2\n1 99 1\n3 2 4\n4 4 1\n",
    "negative count": "4\n4\n4\n1 1 2\n1 3 -1\n3 2 4\n4 4 1\n",
    "infinite count": "4\n4\n4\n1 1 2\n1 3 inf\n3 2 4\n4 4 1\n",
    "nan count": "4\n4\n4\n1 1 2\n1 3 nan\n3 2 4\n4 4 1\n",
    "fewer entries than NNZ": "4\n4\n5\n" + BODY,
    "more entries than NNZ": "4\n4\n3\n" + BODY,
    "non-ascii whitespace": "4\n4\n4\n1 1 2\n1\u00a03 1\n3 2 4\n4 4 1\n",
    "first error wins": "4\n4\n4\n1 1 2\n1 3 -1\n9 2 4\n4 4\n",
}


def _outcome(read):
    try:
        return "ok", read()
    except ValueError as exc:
        return "error", str(exc)


@pytest.mark.parametrize("gz", [False, True])
@pytest.mark.parametrize("name", sorted(CASES))
def test_read_docword_and_docword_source_agree(name, gz, tmp_path):
    path = tmp_path / ("d.txt.gz" if gz else "d.txt")
    data = CASES[name].encode("utf-8")
    path.write_bytes(gzip.compress(data) if gz else data)
    eager = _outcome(lambda: read_docword(path).data)
    streamed = _outcome(lambda: sp.vstack(list(DocwordSource(path, chunk_size=2)), format="csr"))
    assert eager[0] == streamed[0], (eager, streamed)
    if eager[0] == "error":
        assert eager[1] == streamed[1]
        assert "line" in eager[1]
    else:
        np.testing.assert_array_equal(eager[1].toarray(), streamed[1].toarray())


def test_expected_outcomes(tmp_path):
    # the parity test above cannot pass by both readers failing the same wrong way
    def read(text):
        path = tmp_path / "e.txt"
        path.write_bytes(text.encode("utf-8"))
        return _outcome(lambda: read_docword(path).data.toarray())

    expected = np.zeros((4, 4))
    expected[0, 0], expected[0, 2], expected[2, 1], expected[3, 3] = 2, 1, 4, 1
    for name in ("plain", "no final newline", "crlf endings", "blank and tab lines",
                 "padded header"):
        status, X = read(CASES[name])
        assert status == "ok", (name, X)
        np.testing.assert_array_equal(X, expected)
    assert read(CASES["repeated entries"])[1][0, 0] == 5
    messages = {
        "missing header line": "line 3: missing header line NNZ",
        "two fields": "line 5: expected 3 fields",
        "fractional id": "line 5: docID and wordID must be integers",
        "count not a number": "line 5: count must be a number",
        "docID zero": "line 4: docID 0 is outside 1..4",
        "wordID too large": "line 5: wordID 99 is outside 1..4",
        "infinite count": "line 5: count must be finite",
        "fewer entries than NNZ": "announces NNZ = 5 entries but the file has 4",
        "non-ascii whitespace": "line 5: expected 3 fields",  # U+00A0 is not a separator
        "first error wins": "line 5: count must be finite",
    }
    for name, msg in messages.items():
        status, text = read(CASES[name])
        assert status == "error" and msg in text, (name, text)


def test_only_the_source_needs_sorted_documents(tmp_path):
    # the one deliberate difference: DocwordSource cuts chunks by document, so it needs the
    # entries sorted by document (UCI files are); read_docword builds the whole matrix
    path = tmp_path / "unsorted.txt"
    path.write_text("4\n4\n3\n3 1 1\n1 2 2\n4 3 3\n")
    X = read_docword(path).data.toarray()
    assert X[2, 0] == 1 and X[0, 1] == 2 and X[3, 2] == 3
    with pytest.raises(ValueError, match="line 5: docID 1 after 3: the entries must be sorted"):
        list(DocwordSource(path, chunk_size=2))


def test_blocks_cut_anywhere_give_the_same_matrix(tmp_path, monkeypatch):
    rng = np.random.default_rng(0)
    dense = rng.poisson(0.7, size=(23, 9))
    rows, cols = np.nonzero(dense)
    lines = [f"{r + 1} {c + 1} {dense[r, c]}" for r, c in zip(rows, cols)]
    lines.insert(5, "")
    path = tmp_path / "d.txt"
    path.write_text(f"23\n9\n{len(rows)}\n" + "\n".join(lines) + "\n")
    for block in (1, 7, 64, 1 << 15):  # tiny blocks: many parser calls, the slow path too
        monkeypatch.setattr(DocwordSource, "_block_bytes", block)
        X = sp.vstack(list(DocwordSource(path, chunk_size=4))).toarray()
        np.testing.assert_array_equal(X, dense)
    np.testing.assert_array_equal(read_docword(path).data.toarray(), dense)
