"""Write the bundled Gutenberg novels as raw text (a folder of .txt files or a JSON-lines file),
the input of ``latentkit.text`` and ``latentkit fit lda --text``."""

import json
import os
from pathlib import Path

from ._text import _gutenberg_documents
from ..exceptions import InputError

__all__ = ["export_gutenberg_texts"]


def export_gutenberg_texts(path, format="jsonl", level="paragraph", books=None):
    """Write the novels' documents as raw text.

    Parameters
    ----------
    path : str or path-like
        'jsonl': the file to write; 'folder': the folder to create (it must not exist or be
        empty), one ``<book>_c<chapter>_p<paragraph>.txt`` file per document.
    format : {'jsonl', 'folder'}, default 'jsonl'
        JSON lines hold one object per document: ``text``, ``title``, ``book``, ``chapter``,
        ``paragraph`` (0 where not applicable).
    level : {'paragraph', 'chapter', 'book'}, default 'paragraph'
        One document per paragraph (17,080 for all books), chapter (401) or book (9); the same
        documents as :func:`load_gutenberg_novels`.
    books : str or list of str, optional
        Book ids (default all nine).

    Returns
    -------
    int
        Number of documents written.

    Raises
    ------
    ValueError
        Unknown ``format``, ``level`` or book; a folder that is not empty; a file where the
        folder should be.

    Examples
    --------
    >>> import json, os, tempfile
    >>> from latentkit.datasets import export_gutenberg_texts
    >>> path = os.path.join(tempfile.mkdtemp(), "novels.jsonl")
    >>> export_gutenberg_texts(path, level="chapter")
    401
    >>> sorted(json.loads(open(path, encoding="utf-8").readline()))
    ['book', 'chapter', 'paragraph', 'text', 'title']
    """
    if format not in ("jsonl", "folder"):
        raise InputError(f"format must be 'jsonl' or 'folder', got {format!r}.")
    docs, labels, titles, meta, _, _ = _gutenberg_documents(level, books)
    path = Path(path)
    if format == "jsonl":
        with open(path, "w", encoding="utf-8") as fh:
            for text, book, title, (ch, p) in zip(docs, labels, titles, meta):
                fh.write(json.dumps({"text": text, "title": title, "book": book, "chapter": ch,
                                     "paragraph": p}, ensure_ascii=False) + "\n")
        return len(docs)
    if path.exists() and (not path.is_dir() or any(path.iterdir())):
        raise InputError(f"{path}: exists and is not an empty folder; choose a new folder.")
    os.makedirs(path, exist_ok=True)
    for text, book, (ch, p) in zip(docs, labels, meta):
        name = book + (f"_c{ch:03d}" if ch else "") + (f"_p{p:04d}" if p else "") + ".txt"
        (path / name).write_text(text + "\n", encoding="utf-8")
    return len(docs)
