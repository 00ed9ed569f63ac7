"""Containers (``Bunch``, ``Corpus``) and parsers for user files (UCI docword, vocabulary, CSV).

Parsers report the line number of the first malformed line. Gzip files are recognised by their
magic bytes, whatever their name.
"""

import io
import os
import re

import numpy as np
import scipy.sparse as sp

from .._utils.formats import DocwordParser, NumericCSVParser, read_docword_header
from .._utils.formats import open_text as _open_text
from .._utils.validation import check_dense_width
from ..exceptions import InputError

__all__ = ["Bunch", "Corpus", "read_docword", "read_vocab", "read_numeric_csv", "tokenize",
           "english_stop_words", "split_lines"]


class Bunch(dict):
    """A dict whose keys are also attributes (``b.data is b['data']``), as scikit-learn's.

    Loaders return one with at least ``data`` (the samples), ``target`` (integer labels or None),
    ``feature_names`` and ``DESCR`` (description, license and citation).

    Examples
    --------
    >>> from latentkit.datasets import Bunch
    >>> b = Bunch(data=[[1.0, 2.0]], target=None)
    >>> b.data is b["data"], sorted(b)
    (True, ['data', 'target'])
    """

    def __getattr__(self, key):
        try:
            return self[key]
        except KeyError:
            raise AttributeError(key) from None

    def __setattr__(self, key, value):
        self[key] = value

    def __dir__(self):
        return sorted(set(dir(type(self))) | set(self.keys()))

    def __repr__(self):
        parts = []
        for k, v in self.items():
            if k == "DESCR":
                continue
            if hasattr(v, "shape"):
                parts.append(f"{k}: {type(v).__name__} {tuple(v.shape)}")
            elif isinstance(v, (list, tuple)):
                parts.append(f"{k}: {type(v).__name__} of {len(v)}")
            else:
                parts.append(f"{k}: {v!r}" if len(repr(v)) < 60 else f"{k}: {type(v).__name__}")
        return f"{type(self).__name__}(" + ", ".join(parts) + ")"

    # dict pickling is enough; attributes live in the dict
    def __getstate__(self):
        return dict(self)

    def __setstate__(self, state):
        self.update(state)


class Corpus(Bunch):
    """A bag-of-words corpus (each attribute is also a key: ``corpus["data"]``).

    Attributes
    ----------
    data : scipy.sparse.csr_matrix of shape (n_docs, n_words), float64
        Word counts (integers stored as float64), the input of
        :class:`latentkit.topic.LatentDirichletAllocation` and ``PLSA``.
    vocabulary : ndarray of str, shape (n_words,)
        Column j of ``data`` counts ``vocabulary[j]``. ``feature_names`` is the same array.
    target : ndarray of int64, shape (n_docs,), or None
        Known document labels (e.g. the book of a chapter), codes into ``target_names``.
    target_names : ndarray of str or None
    titles : ndarray of str, shape (n_docs,), or None
        A human-readable name per document.
    DESCR : str
        Description, license and citation.

    Examples
    --------
    >>> from latentkit.datasets import load_kos
    >>> corpus = load_kos()
    >>> type(corpus).__name__, corpus.data.shape, corpus.vocabulary.shape
    ('Corpus', (3430, 6906), (6906,))
    >>> corpus.data is corpus["data"]
    True
    """

    @property
    def n_docs(self):
        """Number of documents (rows of ``data``)."""
        return self["data"].shape[0]

    @property
    def n_words(self):
        """Vocabulary size (columns of ``data``)."""
        return self["data"].shape[1]

    @property
    def n_tokens(self):
        """Total number of tokens (sum of all counts), as a float."""
        return float(self["data"].sum())

    @property
    def shape(self):
        """``(n_docs, n_words)``."""
        return self["data"].shape

    def word_counts(self):
        """Total count of every word over the corpus, shape (n_words,), float64."""
        return np.asarray(self["data"].sum(axis=0)).ravel()

    def top_words(self, n=10):
        """The ``n`` most frequent words with their total counts, most frequent first.

        Returns
        -------
        list of (str, int)
        """
        counts = self.word_counts()
        order = np.argsort(-counts, kind="stable")[:n]
        return [(str(self["vocabulary"][j]), int(counts[j])) for j in order]


# ----------------------------------------------------------------------------- file helpers

def split_lines(text):
    """Split text into lines at LF and CRLF only.

    ``str.splitlines`` also splits at CR, VT, FF, U+001C-U+001E, U+0085, U+2028 and U+2029,
    which can be part of a word (a vocabulary line) or a field; line-based file formats end
    lines with LF (or CRLF). A final LF does not start an empty last line.

    Parameters
    ----------
    text : str

    Returns
    -------
    list of str
        The lines without their LF or CRLF ending.
    """
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [ln[:-1] if ln.endswith("\r") else ln for ln in lines]


def _read_text(path, what):
    try:
        with _open_text(path) as fh:
            return fh.read()
    except FileNotFoundError:
        raise FileNotFoundError(f"{what} file not found: {os.fspath(path)!r}.") from None
    except (UnicodeDecodeError, OSError, EOFError) as exc:
        raise InputError(f"{what} file {os.fspath(path)!r} could not be read as UTF-8 text "
                         f"(plain or gzip): {exc}.") from None


def read_vocab(path):
    """Read a vocabulary file: one word per line, line k naming word id k (1-based).

    Parameters
    ----------
    path : str or path-like
        Plain text or gzip, UTF-8; lines end with LF or CRLF (nothing else splits a line, see
        :func:`split_lines`). Surrounding spaces and tabs are stripped (other characters,
        form feeds, U+0085, U+2028 included, belong to the word); trailing empty lines are
        ignored.

    Returns
    -------
    ndarray of str, shape (n_words,)

    Raises
    ------
    ValueError
        An empty line or a NUL character inside the file (with its line number) or an
        unreadable file.
    FileNotFoundError

    Examples
    --------
    >>> import os, tempfile
    >>> from latentkit.datasets import read_vocab
    >>> path = os.path.join(tempfile.mkdtemp(), "vocab.txt")
    >>> with open(path, "w") as f:
    ...     print("apple", "bread", sep=os.linesep, file=f)
    >>> read_vocab(path).tolist()  # line k names word id k
    ['apple', 'bread']
    """
    text = _read_text(path, "vocabulary")
    lines = split_lines(text)
    while lines and not lines[-1].strip(" \t"):
        lines.pop()
    words = []
    for i, line in enumerate(lines, start=1):
        w = line.strip(" \t")
        if not w:
            raise InputError(f"vocabulary file {os.fspath(path)!r}, line {i}: empty line; expected "
                             "one word per line.")
        if "\x00" in w:  # NumPy's str arrays drop trailing NULs: the word would change
            raise InputError(f"vocabulary file {os.fspath(path)!r}, line {i}: a NUL character "
                             "(binary data?); expected one word of text per line.")
        words.append(w)
    return np.array(words, dtype=str)


def read_docword(path, vocab=None):
    """Read a bag-of-words file in the UCI format (``docword.*.txt``, plain or gzip).

    The format: line 1 is D (documents), line 2 is W (words), line 3 is NNZ (entries), then NNZ
    lines ``docID wordID count`` with 1-based ids.

    Parameters
    ----------
    path : str or path-like
        The docword file (gzip is detected from its content, not its name).
    vocab : str, path-like, sequence of str or None
        The vocabulary: a file with one word per line (line k is wordID k) or a list. Its length
        must equal W. ``None`` names the words ``'w1'``, ``'w2'``, ...

    Returns
    -------
    Corpus
        ``data`` is a CSR matrix of shape (D, W), float64; ``vocabulary`` has shape (W,).
        Entries repeated for the same (docID, wordID) are summed. Documents without entries
        are empty rows.

    Raises
    ------
    ValueError
        A malformed line, an id outside the header's range, a negative or non-numeric count,
        fewer or more entries than NNZ (each with the line number), a bad header, or a
        vocabulary whose length is not W.
    FileNotFoundError
        A missing file.

    Notes
    -----
    Source: the UCI Bag of Words data set's documentation (Newman 2008, UCI ML Repository
    id 164).

    Examples
    --------
    >>> import os, tempfile
    >>> from latentkit.datasets import read_docword
    >>> path = os.path.join(tempfile.mkdtemp(), "docword.txt")
    >>> with open(path, "w") as f:  # D = 2 documents, W = 3 words, NNZ = 3 entries
    ...     print("2", "3", "3", "1 1 2", "1 3 1", "2 2 4", sep=os.linesep, file=f)
    >>> corpus = read_docword(path, vocab=["apple", "bread", "cheese"])
    >>> corpus.data.toarray(), corpus.vocabulary.tolist()
    (array([[2., 0., 1.],
           [0., 4., 0.]]), ['apple', 'bread', 'cheese'])
    """
    text = _read_text(path, "docword")
    fh = io.StringIO(text, newline="\n")  # lines end at LF only, as open_text reads them
    n_docs, n_words, n_nnz = read_docword_header(fh, path)
    # the one parser of the entry lines (also DocwordSource's): NumPy over the whole body,
    # line by line only to report the first bad line
    body = fh.read()
    parser = DocwordParser(path, n_docs, n_words, n_nnz)
    d, w, vals = parser.parse(body, first_lineno=4)
    parser.finish(last_lineno=3 + body.count("\n") + (bool(body) and not body.endswith("\n")))
    rows, cols = d - 1, w - 1

    X = sp.csr_matrix((vals, (rows, cols)), shape=(n_docs, n_words), dtype=np.float64)
    X.sum_duplicates()
    X.sort_indices()

    # the vocabulary is a dense array of W strings: refuse a header W far beyond the word ids
    # used (hashed ids) before building it
    check_dense_width(n_words, np.unique(cols).size, 1, name="the docword file",
                      unit="words", owner="read_docword", what="vocabulary array")
    if vocab is None:
        vocabulary = np.array([f"w{j + 1}" for j in range(n_words)], dtype=str)
    elif isinstance(vocab, (str, os.PathLike)):
        vocabulary = read_vocab(vocab)
    else:
        vocabulary = np.array([str(v) for v in vocab], dtype=str)
    if vocabulary.shape != (n_words,):
        raise InputError(f"vocab has {vocabulary.shape[0]} words but the docword header of "
                         f"{os.fspath(path)!r} announces W = {n_words}; they must match.")
    return Corpus(data=X, vocabulary=vocabulary, feature_names=vocabulary, target=None,
                  target_names=None, titles=None,
                  DESCR=f"Bag-of-words corpus read from {os.fspath(path)!r}: {n_docs} documents, "
                        f"{n_words} words, {int(round(vals.sum()))} tokens.")


def read_numeric_csv(path, delimiter=","):
    """Read a CSV file of numbers into a float64 array.

    A first row that is not all numbers is taken as the header (column names). Empty lines are
    skipped. Plain or gzip.

    Parameters
    ----------
    path : str or path-like
    delimiter : str, default ','

    Returns
    -------
    X : ndarray of shape (n_rows, n_columns), float64
    feature_names : ndarray of str, shape (n_columns,)
        The header, or ``'x0'``, ``'x1'``, ... when there is none.

    Raises
    ------
    ValueError
        A row with a different number of fields or a field that is not a number (with the line
        number), or no data rows.
    FileNotFoundError

    Examples
    --------
    >>> import os, tempfile
    >>> from latentkit.datasets import read_numeric_csv
    >>> path = os.path.join(tempfile.mkdtemp(), "data.csv")
    >>> with open(path, "w") as f:
    ...     print("height,weight", "1.8,75", "1.6,60", sep=os.linesep, file=f)
    >>> X, names = read_numeric_csv(path)
    >>> X, names.tolist()
    (array([[ 1.8, 75. ],
           [ 1.6, 60. ]]), ['height', 'weight'])
    """
    text = _read_text(path, "CSV")
    parser = NumericCSVParser(path, delimiter)
    rows = parser.parse(split_lines(text), first_lineno=1)
    header, width = parser.header, parser.width
    if not rows:
        raise InputError(f"CSV file {os.fspath(path)!r} has no numeric data rows.")
    X = np.array(rows, dtype=np.float64)
    names = np.array(header if header is not None else [f"x{j}" for j in range(width)], dtype=str)
    return X, names


# ----------------------------------------------------------------------------- tokenising

_TOKEN_RE = re.compile(r"[a-z]+")
_STOP_WORDS = None


def english_stop_words():
    """The English stop list shipped with latentkit (318 words).

    It is the Glasgow Information Retrieval Group list as shipped by scikit-learn
    (``ENGLISH_STOP_WORDS``, BSD-3-Clause), stored in ``latentkit/datasets/stopwords_en.txt``.

    Returns
    -------
    frozenset of str

    Examples
    --------
    >>> from latentkit.datasets import english_stop_words
    >>> stop = english_stop_words()
    >>> "the" in stop, "topic" in stop
    (True, False)
    """
    global _STOP_WORDS
    if _STOP_WORDS is None:
        path = os.path.join(os.path.dirname(__file__), "stopwords_en.txt")
        with open(path, encoding="utf-8") as fh:
            _STOP_WORDS = frozenset(ln.strip() for ln in fh
                                    if ln.strip() and not ln.startswith("#"))
    return _STOP_WORDS


def tokenize(text, stop_words=None, min_length=2):
    """Split text into lowercase alphabetic tokens.

    Tokens are the maximal runs of the letters a-z after lowercasing (so "don't" gives "don"
    and "t", and digits and other symbols separate tokens); tokens shorter than ``min_length``
    and stop words are dropped.

    Parameters
    ----------
    text : str
    stop_words : collection of str, 'english' or None
        Words to drop; ``'english'`` is :func:`english_stop_words`.
    min_length : int, default 2

    Returns
    -------
    list of str

    Examples
    --------
    >>> from latentkit.datasets import english_stop_words, tokenize
    >>> tokenize("The cat sat on the mat, twice!")
    ['the', 'cat', 'sat', 'on', 'the', 'mat', 'twice']
    >>> tokenize("The cat sat on the mat, twice!", stop_words=english_stop_words())
    ['cat', 'sat', 'mat', 'twice']
    """
    if stop_words == "english":
        stop_words = english_stop_words()
    tokens = _TOKEN_RE.findall(text.lower())
    if stop_words:
        return [t for t in tokens if len(t) >= min_length and t not in stop_words]
    return [t for t in tokens if len(t) >= min_length]
