"""Documents of a table file (``.csv`` or TAB-separated ``.tsv`` with a header row,
``.jsonl`` / ``.ndjson`` with one JSON object per line), for :func:`latentkit.text.read_texts`:
one document per row, the other columns as metadata. A ``.tsv`` is read as IANA's
``text/tab-separated-values`` (what ``apt``, ``cut`` or ``paste`` write): no quoting, so a
field never holds a TAB or a line break and a ``"`` in it is text.

What real files contain (issue 48): a row without the text field, or with ``null`` there
(JSON) or a missing trailing field (CSV), is skipped with one warning that counts the rows and
names their lines (an empty string is an empty document); JSON lines end at LF (a CR before it
dropped), never at U+2028 or U+0085, which JSON strings may hold. A byte-order mark is removed
by the caller's UTF-8 decoding.
"""

import csv
import io
import json
import warnings

from ..exceptions import TextInputError
from .user_frame import user_stacklevel

__all__ = ["table_texts"]


def table_texts(path, text, text_column=None, kind=None):
    """Texts and metadata of a ``.csv``, ``.tsv`` or ``.jsonl`` file (module docstring).

    Parameters
    ----------
    path : pathlib.Path
        The file (its suffix picks the format; named in the messages).
    text : str
        Its content, decoded.
    text_column : str, optional
        The column or key holding the text; default ``'text'``.
    kind : {'.csv', '.tsv', '.jsonl', '.ndjson'}, optional
        The format; default the suffix of ``path`` (given for ``x.csv.gz``).

    Returns
    -------
    texts : list of str
    meta : dict of str to list
        The other columns, one value per document.

    Raises
    ------
    TextInputError
        Malformed CSV or JSON (with the line), no rows, no such column, a non-text value, or
        no row with text.
    """
    kind = path.suffix.lower() if kind is None else kind
    if kind in (".csv", ".tsv"):
        # TSV as IANA's text/tab-separated-values (and apt, cut, awk) write it: no quoting,
        # a field holds no TAB or newline, so a quote is text ('"free form" document ...').
        tsv = dict(delimiter="\t", quoting=csv.QUOTE_NONE) if kind == ".tsv" else {}
        reader = csv.DictReader(io.StringIO(text, newline=""), strict=True, **tsv)
        rows, lines = _csv_rows(path, reader, kind[1:].upper())
        return _table_rows(path, rows, text_column, reader.fieldnames or [], lines)
    rows, lines = [], []
    for i, line in enumerate(text.split("\n"), 1):
        line = line[:-1] if line.endswith("\r") else line
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except ValueError as exc:
            raise TextInputError(f"{path}, line {i}: not valid JSON ({exc}); write one "
                                 "JSON object per line.") from None
        if not isinstance(obj, dict):
            raise TextInputError(f"{path}, line {i}: a JSON {type(obj).__name__}, not an "
                                 "object with a text field.")
        rows.append(obj)
        lines.append(i)
    columns = list(dict.fromkeys(k for r in rows for k in r))
    return _table_rows(path, rows, text_column, columns, lines)


def _table_rows(path, rows, text_column, columns, lines):
    """Texts and metadata of a table's rows (``lines``: each row's line in the file). A row
    without the text field, or with ``null`` there (JSON) or a missing trailing field (CSV),
    is skipped with one warning that counts them and names their lines; an empty string is
    an empty document."""
    if not rows:
        raise TextInputError(f"{path}: no rows; the file must hold one document per row.")
    if text_column is None:
        text_column = "text"
    if text_column not in columns:
        raise TextInputError(f"{path}: no column {text_column!r} (columns: "
                             f"{', '.join(map(str, columns))}); name the column that "
                             "holds the text with text_column=NAME.")
    texts, meta, skipped = [], {c: [] for c in columns if c != text_column}, []
    for row, line in zip(rows, lines):
        value = row.get(text_column)
        if value is None:
            skipped.append(line)
            continue
        if not isinstance(value, str):
            raise TextInputError(f"{path}, line {line}: {text_column!r} holds a "
                                 f"{type(value).__name__}, not text.")
        texts.append(value)
        for c in meta:
            meta[c].append(row.get(c))
    if skipped:
        if not texts:
            raise TextInputError(f"{path}: no row has a {text_column!r} field with text "
                                 f"({len(skipped)} rows without it or with null).")
        shown = ", ".join(map(str, skipped[:10])) + (", ..." if len(skipped) > 10 else "")
        warnings.warn(f"{path}: {len(skipped)} row{'s' if len(skipped) > 1 else ''} without "
                      f"{text_column!r} (missing or null) skipped (line"
                      f"{'s' if len(skipped) > 1 else ''} {shown}).", UserWarning,
                      stacklevel=user_stacklevel())
    return texts, meta


def _csv_rows(path, reader, kind="CSV"):
    """The rows of a CSV reader; a parse error names the line where its record starts (an
    unterminated quote otherwise swallows the rest of the file into one field)."""
    rows, lines, start = [], [], 1
    try:
        reader.fieldnames  # the header (line 1)
        start = reader.line_num + 1
        for row in reader:
            rows.append(row)
            lines.append(start)
            start = reader.line_num + 1
    except csv.Error as exc:
        raise TextInputError(f"{path}, line {start}: not valid {kind} ({exc}); a quoted "
                             "field that starts on this line is not closed (or a quote inside "
                             "a field is not doubled).") from None
    return rows, lines
