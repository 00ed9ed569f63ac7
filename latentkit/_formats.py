"""Readers of line-based file formats shared by the eager loaders
(:mod:`latentkit.datasets`) and the chunked sources (:mod:`latentkit.sources`): one way to open
text, one parser of UCI docword entry lines.
"""

import gzip
import os
import warnings

import numpy as np

__all__ = ["open_text", "fast_docword_body"]


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
