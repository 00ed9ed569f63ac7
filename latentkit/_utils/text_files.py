"""Documents of one text file, for :func:`latentkit.text.read_texts`: a ``.txt`` file (one
document per non-blank line), a ``.csv`` or ``.tsv`` table (header row; one document per row), a
``.jsonl`` / ``.ndjson`` file (one JSON object per line), each of them also gzip-compressed
(``.txt.gz``, ``.csv.gz``, ``.tsv.gz``, ``.jsonl.gz``, ...: the kind is the suffix before
``.gz``, decompressed with the standard library's :mod:`gzip`).

The checks for a binary file (NUL bytes) and for UTF-8 apply to the decompressed bytes; a
corrupt gzip stream is a :class:`~latentkit.exceptions.TextInputError` naming the path.
"""

import gzip
import zlib

from ..exceptions import TextInputError
from .text_tables import table_texts

__all__ = ["read_utf8", "file_kind", "file_texts", "TEXT_KINDS"]

_BINARY_SNIFF = 8192
#: The suffixes of the files read (each also with ``.gz`` after it).
TEXT_KINDS = (".txt", ".csv", ".tsv", ".jsonl", ".ndjson")
_FORMATS = "a .txt, .csv, .tsv or .jsonl file (optionally gzip-compressed: .gz)"


def file_kind(path):
    """The kind of a file, from its suffix: ``('.csv', False)`` for ``x.csv``, ``('.csv',
    True)`` for ``x.csv.gz`` (lower case; ``''`` when there is none)."""
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] == ".gz":
        return (suffixes[-2] if len(suffixes) > 1 else ""), True
    return (suffixes[-1] if suffixes else ""), False


def read_utf8(path):
    """The text of a file in UTF-8 (a byte-order mark dropped; gunzipped when it ends in
    ``.gz``).

    Raises
    ------
    TextInputError
        A corrupt gzip stream, a binary file (NUL bytes) or bytes that are not UTF-8, naming
        the path.
    """
    with open(path, "rb") as fh:
        raw = fh.read()
    if path.suffix.lower() == ".gz":
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError, zlib.error) as exc:  # BadGzipFile is an OSError
            raise TextInputError(f"{path}: not a valid gzip stream ({exc}); the file is "
                                 "corrupt or truncated, or not gzip-compressed (drop the .gz "
                                 "suffix).") from None
    if b"\x00" in raw[:_BINARY_SNIFF]:
        raise TextInputError(f"{path}: looks like a binary file (it contains NUL bytes), not "
                             f"text; pass {_FORMATS} in UTF-8.")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise TextInputError(
            f"{path}: not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset {exc.start}"
            f"{' of the decompressed data' if path.suffix.lower() == '.gz' else ''}); "
            f"convert it first, e.g. `iconv -f latin1 -t utf-8 {path} > fixed.txt`.") from None


def file_texts(path, text_column=None):
    """Texts, line titles and metadata of one file (module docstring).

    Parameters
    ----------
    path : pathlib.Path
        An existing file; its suffix (before ``.gz``) picks the format.
    text_column : str, optional
        The column (CSV / TSV) or key (JSON lines) holding the text; default ``'text'``.

    Returns
    -------
    texts : list of str
    titles : list of str or None
        ``'line N'`` for a ``.txt`` file; ``None`` for a table (the caller titles its rows).
    meta : dict of str to list
        The other columns of a table, one value per document; empty for ``.txt``.

    Raises
    ------
    TextInputError
        An unknown suffix, an empty ``.txt`` file, and the errors of :func:`read_utf8` and of
        :func:`~latentkit._utils.text_tables.table_texts`.
    """
    kind, gz = file_kind(path)
    if kind not in TEXT_KINDS:
        shown = kind + (".gz" if gz else "")
        raise TextInputError(f"{path}: unknown kind of file {shown or '(no extension)'!r}; "
                             f"pass a folder of .txt files, or {_FORMATS}.")
    text = read_utf8(path)
    if kind == ".txt":
        keep = [(i, ln) for i, ln in enumerate(text.splitlines(), 1) if ln.strip()]
        if not keep:
            raise TextInputError(f"{path}: the file is empty; write one document per line.")
        return [ln for _, ln in keep], [f"line {i}" for i, _ in keep], {}
    texts, meta = table_texts(path, text, text_column, kind=kind)
    return texts, None, meta
