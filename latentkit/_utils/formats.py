"""Readers of line-based file formats shared by the eager loaders
(:mod:`latentkit.datasets`) and the chunked sources (:mod:`latentkit.sources`): one way to open
text, one parser of UCI docword entry lines.
"""

import csv
import functools
import gzip
import math
import os
import re

import numpy as np

from .threads import caught_warnings
from ..exceptions import InputError

__all__ = ["open_text", "strip_eol", "fast_docword_body", "read_docword_header", "DocwordParser",
           "NumericCSVParser"]


def open_text(path):
    """Open a plain or gzip text file (detected by magic bytes) as UTF-8 text whose lines end
    at LF only (``newline='\\n'``: no translation; a CR before the LF stays, for
    :func:`latentkit.datasets.split_lines` or the parser to drop). Every line-based reader of
    latentkit (vocabulary, docword, CSV, the chunked sources) opens files here, so a CR, form
    feed, U+001E, U+0085 or U+2028 inside a line never splits it."""
    path = os.fspath(path)
    with open(path, "rb") as fh:
        magic = fh.read(2)
    if magic == b"\x1f\x8b":
        return gzip.open(path, "rt", encoding="utf-8-sig", newline="\n")
    return open(path, "r", encoding="utf-8-sig", newline="\n")


def strip_eol(line):
    """A line read from :func:`open_text` without its LF or CRLF ending."""
    if line.endswith("\n"):
        line = line[:-1]
    return line[:-1] if line.endswith("\r") else line


def fast_docword_body(body, n_nnz=None):
    """Parse the entry lines with NumPy; None when anything looks wrong (the caller then runs the
    line-by-line parser, which reports the line). Checks exactly 3 fields on every non-blank
    line and, unless ``n_nnz`` is None, ``n_nnz`` such lines."""
    try:
        raw = np.frombuffer(body.encode("ascii"), dtype=np.uint8)
    except UnicodeEncodeError:
        return None
    if raw.size == 0:
        return np.zeros((0, 3)) if n_nnz in (0, None) else None
    newline = raw == 10
    ws = (raw == 32) | (raw == 9) | newline | (raw == 13)
    start = np.flatnonzero(~ws & np.concatenate(([True], ws[:-1])))
    nl = np.flatnonzero(newline)
    fields = np.bincount(np.searchsorted(nl, start), minlength=nl.size + 1)
    n_entries = int((fields == 3).sum())
    if not np.all((fields == 3) | (fields == 0)) or n_nnz not in (None, n_entries):
        return None
    values = None
    for dtype in (np.int64, np.float64):  # integer parsing is much faster; float counts allowed
        with caught_warnings("error"):
            try:
                values = np.fromstring(body, dtype=dtype, sep=" ").astype(np.float64)
                break
            except (ValueError, DeprecationWarning):
                continue
    if values is None:
        return None
    if values.size != 3 * n_entries:
        return None
    return values.reshape(-1, 3)


_ENTRY_SEP = re.compile(r"[ \t\r]+")

_DOCWORD_HEADER = ("D (number of documents)", "W (number of words)", "NNZ (number of entries)")


def _docword_error(path, lineno, msg):
    return InputError(f"docword file {os.fspath(path)!r}, line {lineno}: {msg}")


def read_docword_header(fh, path):
    """``(D, W, NNZ)`` from the first three lines of a UCI docword file.

    Parameters
    ----------
    fh : text file
        Positioned at the start (as :func:`open_text` opens it); left after line 3.
    path : str or path-like
        For the messages.

    Returns
    -------
    tuple of int
        D documents, W words, NNZ entries.

    Raises
    ------
    ValueError
        A missing header line, or one that is not an integer in ``0..2**62`` (with the line).
    """
    header = []
    for i, name in enumerate(_DOCWORD_HEADER, start=1):
        line = fh.readline()
        if not line:
            raise _docword_error(path, i, f"missing header line {name}; the file has only "
                                          f"{i - 1} lines.")
        try:
            value = int(line.strip())
        except ValueError:
            raise _docword_error(path, i, f"expected the integer {name}, found "
                                          f"{line.strip()!r}.") from None
        if value < 0:
            raise _docword_error(path, i, f"{name} must be >= 0, found {value}.")
        if value >= 2**62:
            raise _docword_error(path, i, f"{name} = {value} is too large (at most 2**62).")
        header.append(value)
    return tuple(header)


class DocwordParser:
    """The one parser of the entry lines ``docID wordID count`` of a UCI docword file (Newman
    2008, UCI Bag of Words), used whole by :func:`latentkit.datasets.read_docword` and a block
    of lines at a time by :class:`latentkit.sources.DocwordSource`.

    Each block is parsed by NumPy (:func:`fast_docword_body`); any irregularity (a blank or
    malformed line, an id out of range, a count that is negative or not finite, an unsorted
    document) re-parses the block line by line, which raises with the number of the first bad
    line. The checks, in this order, on every non-blank line: 3 fields; integer ids; a numeric
    count; ``1 <= docID <= D``; ``1 <= wordID <= W``; a finite count ``>= 0``; and, with
    ``sorted_docs``, a docID not below the previous one. :meth:`finish` checks NNZ.

    Parameters
    ----------
    path : str or path-like
        For the messages.
    n_docs, n_words, n_nnz : int
        D, W and NNZ of the header.
    sorted_docs : bool, default False
        Require entries sorted by document (the chunked source cuts documents in order).
    """

    def __init__(self, path, n_docs, n_words, n_nnz, sorted_docs=False):
        self.path = path
        self.n_docs, self.n_words, self.n_nnz = n_docs, n_words, n_nnz
        self.sorted_docs = sorted_docs
        self.n_seen = 0
        self.prev_doc = 0

    def parse(self, body, first_lineno):
        """Entries of ``body`` (text of whole lines, starting at line ``first_lineno``).

        Returns
        -------
        docs, words : ndarray of int64 of shape (n_entries,)
            1-based ids.
        counts : ndarray of float64 of shape (n_entries,)

        Raises
        ------
        ValueError
            The first bad line, with its number and what is wrong.
        """
        vals = fast_docword_body(body)
        if vals is not None and vals.shape[0]:
            d = vals[:, 0].astype(np.int64)
            w = vals[:, 1].astype(np.int64)
            c = np.ascontiguousarray(vals[:, 2])
            ok = (np.array_equal(d, vals[:, 0]) and np.array_equal(w, vals[:, 1])
                  and d.min() >= 1 and d.max() <= self.n_docs
                  and w.min() >= 1 and w.max() <= self.n_words
                  and bool(np.all(np.isfinite(c) & (c >= 0))))
            if ok and self.sorted_docs:
                ok = d[0] >= self.prev_doc and bool(np.all(np.diff(d) >= 0))
            if ok:
                self.n_seen += d.size
                self.prev_doc = int(d[-1])
                return d, w, c
        elif vals is not None:
            return (np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0))
        return self._parse_lines(body, first_lineno)

    def _parse_lines(self, body, first_lineno):
        docs, words, counts = [], [], []
        err = functools.partial(_docword_error, self.path)
        for lineno, line in enumerate(body.split("\n"), start=first_lineno):
            # fields are separated by spaces and tabs only, as in the NumPy path (a CR is the
            # end of a CRLF line); any other character, Unicode spaces included, is data
            parts = [p for p in _ENTRY_SEP.split(line) if p]
            if not parts:
                continue
            if len(parts) != 3:
                raise err(lineno, f"expected 3 fields 'docID wordID count', found {len(parts)}: "
                                  f"{line.strip()!r}.")
            d, w = _integer(parts[0]), _integer(parts[1])
            if d is None or w is None:
                raise err(lineno, f"docID and wordID must be integers, found "
                                  f"{line.strip()!r}.")
            try:
                c = float(parts[2])
            except ValueError:
                raise err(lineno, f"count must be a number, found {parts[2]!r}.") from None
            if not 1 <= d <= self.n_docs:
                raise err(lineno, f"docID {d} is outside 1..{self.n_docs} (the header's D).")
            if not 1 <= w <= self.n_words:
                raise err(lineno, f"wordID {w} is outside 1..{self.n_words} (the header's W).")
            if not math.isfinite(c) or c < 0:
                raise err(lineno, f"count must be finite and >= 0, found {parts[2]!r}.")
            if self.sorted_docs and d < self.prev_doc:
                raise err(lineno, f"docID {d} after {self.prev_doc}: the entries must be sorted "
                                  "by document.")
            self.prev_doc = d
            docs.append(d)
            words.append(w)
            counts.append(c)
        self.n_seen += len(docs)
        return (np.array(docs, dtype=np.int64), np.array(words, dtype=np.int64),
                np.array(counts, dtype=np.float64))

    def finish(self, last_lineno):
        """Check that the file held NNZ entries (``last_lineno``: its last line, for the
        message).

        Raises
        ------
        ValueError
            Fewer or more entries than the header's NNZ.
        """
        if self.n_seen != self.n_nnz:
            raise _docword_error(self.path, last_lineno,
                                 f"the header (line 3) announces NNZ = {self.n_nnz} entries but "
                                 f"the file has {self.n_seen}.")


def _integer(text):
    """``int(text)``, also for an integral float such as ``'3.0'`` (as the NumPy path reads
    it); None when it is not an integer."""
    try:
        return int(text)
    except ValueError:
        pass
    try:
        value = float(text)
    except ValueError:
        return None
    return int(value) if value.is_integer() else None


class NumericCSVParser:
    """Rows of a CSV file of numbers, parsed a block of lines at a time (the whole file for
    :func:`latentkit.datasets.read_numeric_csv`, one chunk for
    :class:`latentkit.sources.CSVSource`).

    A first row that is not all numbers is the header; blank lines are skipped; every other
    row must be numeric with the width of the header (or of the first row).

    Parameters
    ----------
    path : str or path-like
        For the messages.
    delimiter : str, default ','

    Attributes
    ----------
    header : list of str or None
        The column names, once a header row has been read.
    width : int or None
        Fields per row, once known.
    """

    def __init__(self, path, delimiter=","):
        self.path = os.fspath(path)
        self.delimiter = delimiter
        self.header = None
        self.width = None
        self._seen_row = False

    def _fields(self, lines, first_lineno):
        """(line number, fields); a csv.Error (a quote left open, a CR inside an unquoted
        field) is a ValueError naming the line."""
        reader = csv.reader(lines, delimiter=self.delimiter)
        lineno = first_lineno - 1
        while True:
            lineno += 1
            try:
                fields = next(reader)
            except StopIteration:
                return
            except csv.Error as exc:
                why = ("a carriage return (CR) inside a field; lines end with LF or CRLF only"
                       if "new-line" in str(exc) else str(exc))
                raise InputError(f"CSV file {self.path!r}, line {lineno}: {why}.") from None
            yield lineno, fields

    def parse(self, lines, first_lineno):
        """The numeric rows of ``lines`` (without their LF / CRLF endings).

        Parameters
        ----------
        lines : list of str
        first_lineno : int
            1-based line number of ``lines[0]`` in the file.

        Returns
        -------
        list of list of float

        Raises
        ------
        ValueError
            A field that is not a number or a row of another width (with the line number).
        """
        rows = []
        for lineno, fields in self._fields(lines, first_lineno):
            if not fields or all(not f.strip() for f in fields):
                continue
            try:
                values = [_number(f) for f in fields]
            except ValueError:
                if self.header is None and not self._seen_row:
                    self.header = [f.strip() for f in fields]
                    self.width = len(self.header)
                    self._seen_row = True
                    continue
                bad = next(f for f in fields if not _is_float(f))
                raise InputError(f"CSV file {self.path!r}, line {lineno}: {bad!r} is not a "
                                 "number; every field after the header must be numeric.") from None
            self._seen_row = True
            if self.width is None:
                self.width = len(values)
            if len(values) != self.width:
                raise InputError(f"CSV file {self.path!r}, line {lineno}: expected {self.width} "
                                 f"fields, found {len(values)}.")
            rows.append(values)
        return rows


#: Fields read as a missing value (NaN), as pandas' and R's CSV writers spell it: an empty
#: field (pandas' default ``na_rep``), ``NA`` (R), ``N/A`` and ``null``. A model refuses NaN
#: unless it was asked to marginalise it (``missing='marginalize'``).
MISSING_FIELDS = frozenset({"", "NA", "N/A", "null", "NULL"})


def _number(field):
    """A CSV field as a float: NaN for a missing-value spelling (:data:`MISSING_FIELDS`)."""
    if field.strip() in MISSING_FIELDS:
        return float("nan")
    return float(field)


def _is_float(s):
    try:
        _number(s)
        return True
    except ValueError:
        return False
