"""Property-based tests of the file readers (issue 11): on arbitrary bytes -- plain, gzip, or
starting with the gzip magic and then garbage -- ``read_docword``, ``read_vocab``,
``read_numeric_csv``, ``DocwordSource`` and ``CSVSource`` either return a well-formed result or
raise the documented ``ValueError``; never another exception (IndexError, OverflowError,
UnicodeDecodeError outside a ValueError, csv.Error, MemoryError...)."""

import gzip
import os
import tempfile

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from latentkit.datasets import read_docword, read_numeric_csv, read_vocab
from latentkit.inference import CSVSource, DocwordSource

SETTINGS = settings(max_examples=60, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])

# bytes that look like the formats (digits, separators, line ends, signs, exponents) mixed with
# arbitrary ones, so that the parsers get past their first check
_alphabet = st.sampled_from(list(b"0123456789 \t\r\n,.-+eE") + [0x0c, 0x1e, 0x85, 0xff, 0x00])
_formatted = st.lists(_alphabet, max_size=200).map(bytes)
_raw = st.binary(max_size=200)


def _docword_like(draw_header):
    return st.tuples(st.integers(-2, 12), st.integers(-2, 12), st.integers(-2, 20),
                     _formatted).map(
        lambda t: f"{t[0]}\n{t[1]}\n{t[2]}\n".encode() + t[3] if draw_header else t[3])


payloads = st.one_of(_raw, _formatted, _docword_like(True),
                     st.sampled_from([b"1\n99999999999999999999\n1\n1 1 1\n",
                                      b"2\n3\n1\n1 3 1e400\n", b"1\n1\n1\n1 1 nan\n",
                                      b"\x1f\x8b", b"\x1f\x8bgarbage"]))
wrappings = st.sampled_from(["plain", "gzip", "magic"])


def _write(data, wrapping):
    fd, path = tempfile.mkstemp()
    with os.fdopen(fd, "wb") as fh:
        if wrapping == "gzip":
            fh.write(gzip.compress(data))
        elif wrapping == "magic":
            fh.write(b"\x1f\x8b" + data)
        else:
            fh.write(data)
    return path


def _only_documented(fn, path):
    try:
        return fn(path)
    except ValueError:
        return None
    finally:
        os.unlink(path)


@SETTINGS
@given(payloads, wrappings)
def test_read_docword_raises_only_value_error(data, wrapping):
    corpus = _only_documented(read_docword, _write(data, wrapping))
    if corpus is not None:
        X = corpus.data
        assert sp.isspmatrix_csr(X) and X.shape[1] == corpus.vocabulary.shape[0]
        assert np.all(np.isfinite(X.data)) and np.all(X.data >= 0)


@SETTINGS
@given(payloads, wrappings)
def test_read_vocab_raises_only_value_error(data, wrapping):
    words = _only_documented(read_vocab, _write(data, wrapping))
    if words is not None:
        assert all(w and "\n" not in w for w in words)


@SETTINGS
@given(payloads, wrappings)
def test_read_numeric_csv_raises_only_value_error(data, wrapping):
    out = _only_documented(read_numeric_csv, _write(data, wrapping))
    if out is not None:
        X, names = out
        assert X.ndim == 2 and X.shape[1] == names.shape[0] and X.shape[0] >= 1


def _read_source(make, check):
    def read(path):
        src = make(path)
        chunks = list(src.iter_chunks())
        assert sum(c.shape[0] for c in chunks) == src.n_samples
        assert all(check(src, c) for c in chunks)
        return chunks
    return read


@SETTINGS
@given(payloads, wrappings, st.integers(1, 4))
def test_docword_source_raises_only_value_error(data, wrapping, chunk_size):
    read = _read_source(lambda p: DocwordSource(p, chunk_size=chunk_size),
                        lambda src, c: c.shape[1] == src.n_features and np.all(c.data >= 0))
    _only_documented(read, _write(data, wrapping))


@SETTINGS
@given(payloads, wrappings, st.integers(1, 4))
def test_csv_source_raises_only_value_error(data, wrapping, chunk_size):
    read = _read_source(lambda p: CSVSource(p, chunk_size=chunk_size),
                        lambda src, c: c.ndim == 2)
    _only_documented(read, _write(data, wrapping))


def test_missing_files_are_file_not_found(tmp_path):
    for fn in (read_docword, read_vocab, read_numeric_csv):
        with pytest.raises(FileNotFoundError):
            fn(tmp_path / "nope.txt")
