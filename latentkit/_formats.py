"""Readers of line-based file formats shared by the eager loaders
(:mod:`latentkit.datasets`) and the chunked sources (:mod:`latentkit.sources`): one way to open
text, one parser of UCI docword entry lines.
"""

import csv
import gzip
import os
import warnings

import numpy as np

__all__ = ["open_text", "strip_eol", "fast_docword_body", "NumericCSVParser"]


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
        return gzip.open(path, "rt", encoding="utf-8", newline="\n")
    return open(path, "r", encoding="utf-8", newline="\n")


def strip_eol(line):
    """A line read from :func:`open_text` without its LF or CRLF ending."""
    if line.endswith("\n"):
        line = line[:-1]
    return line[:-1] if line.endswith("\r") else line


def fast_docword_body(body, n_nnz):
    """Parse the entry lines with NumPy; None when anything looks wrong (the caller then runs the
    line-by-line parser, which reports the line). Checks exactly 3 fields on every non-blank
    line and ``n_nnz`` such lines."""
    try:
        raw = np.frombuffer(body.encode("ascii"), dtype=np.uint8)
    except UnicodeEncodeError:
        return None
    if raw.size == 0:
        return np.zeros((0, 3)) if n_nnz == 0 else None
    newline = raw == 10
    ws = (raw == 32) | (raw == 9) | newline | (raw == 13)
    start = np.flatnonzero(~ws & np.concatenate(([True], ws[:-1])))
    nl = np.flatnonzero(newline)
    fields = np.bincount(np.searchsorted(nl, start), minlength=nl.size + 1)
    if not np.all((fields == 3) | (fields == 0)) or int((fields == 3).sum()) != n_nnz:
        return None
    values = None
    for dtype in (np.int64, np.float64):  # integer parsing is much faster; float counts allowed
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            try:
                values = np.fromstring(body, dtype=dtype, sep=" ").astype(np.float64)
                break
            except (ValueError, DeprecationWarning):
                continue
    if values is None:
        return None
    if values.size != 3 * n_nnz:
        return None
    return values.reshape(-1, 3)


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
                raise ValueError(f"CSV file {self.path!r}, line {lineno}: {why}.") from None
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
                values = [float(f) for f in fields]
            except ValueError:
                if self.header is None and not self._seen_row:
                    self.header = [f.strip() for f in fields]
                    self.width = len(self.header)
                    self._seen_row = True
                    continue
                bad = next(f for f in fields if not _is_float(f))
                raise ValueError(f"CSV file {self.path!r}, line {lineno}: {bad!r} is not a "
                                 "number; every field after the header must be numeric.") from None
            self._seen_row = True
            if self.width is None:
                self.width = len(values)
            if len(values) != self.width:
                raise ValueError(f"CSV file {self.path!r}, line {lineno}: expected {self.width} "
                                 f"fields, found {len(values)}.")
            rows.append(values)
        return rows


def _is_float(s):
    try:
        float(s)
        return True
    except ValueError:
        return False
