"""Data sources read lazily in chunks, for fitting data larger than memory.

``model.fit(source)`` sums the E-step statistics over the chunks in every iteration, so a data
set larger than memory is fitted by exact batch EM / VB with memory bounded by one chunk plus
the model; :class:`latentkit.inference.StochasticVI` takes its minibatches from the chunks.
These classes are also importable from :mod:`latentkit.inference`.
"""

import contextlib
import itertools
import numbers

import numpy as np
import scipy.sparse as sp

from ._utils.formats import (DocwordParser, NumericCSVParser, open_text, read_docword_header,
                       strip_eol)
from ._utils.validation import check_scalar
from ._utils.row_params import check_row_count, n_rows, slice_row_params
from ._engine.hook_state import deferred_data_defaults
from .exceptions import InputError, InputTypeError

__all__ = [
    "ChunkSource",
    "ArraySource",
    "IterableSource",
    "DocwordSource",
    "CSVSource",
    "ValidatedChunks",
]


# --------------------------------------------------------------------------------------------
# Sources
# --------------------------------------------------------------------------------------------

class ChunkSource:
    """A data set read as a sequence of chunks; re-iterable (each iteration of a fit re-reads).

    Subclasses implement :meth:`iter_chunks` and set :attr:`n_samples` when known.

    Attributes
    ----------
    n_samples : int or None
        Total number of samples (rows, documents), when known without a pass over the data.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit import GaussianMixture
    >>> from latentkit.sources import ChunkSource
    >>> class ArrayChunks(ChunkSource):
    ...     def __init__(self, X, size):
    ...         self.X, self.size, self.n_samples = X, size, len(X)
    ...     def iter_chunks(self):
    ...         for i in range(0, len(self.X), self.size):
    ...             yield self.X[i:i + self.size]
    >>> X = np.random.default_rng(0).normal(size=(60, 2))
    >>> GaussianMixture(2, random_state=0).fit(ArrayChunks(X, 20)).means_.shape
    (2, 2)
    """

    n_samples = None

    def iter_chunks(self):  # pragma: no cover - abstract
        """Yield the chunks in order: arrays, CSR matrices, or ``(X, fit_params)`` tuples."""
        raise NotImplementedError

    def __iter__(self):
        return self.iter_chunks()


class ArraySource(ChunkSource):
    """Chunks of ``chunk_size`` consecutive rows of an in-memory array or CSR matrix.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features) or scipy.sparse matrix
    chunk_size : int
        Rows per chunk (the last chunk may be shorter).

    Raises
    ------
    ValueError
        ``chunk_size`` < 1.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.sources import ArraySource
    >>> source = ArraySource(np.arange(10.0).reshape(5, 2), chunk_size=2)
    >>> [chunk.shape for chunk in source]
    [(2, 2), (2, 2), (1, 2)]
    """

    def __init__(self, X, chunk_size):
        self.X = X
        self.chunk_size = check_scalar(chunk_size, "chunk_size", numbers.Integral, low=1)
        self.n_samples = X.shape[0]

    def iter_chunks(self):
        for a in range(0, self.n_samples, self.chunk_size):
            yield self.X[a:a + self.chunk_size]


class IterableSource(ChunkSource):
    """Chunks from any re-iterable: a list of arrays, or a zero-argument callable returning a
    fresh iterator of chunks (a generator function), called once per pass.

    Parameters
    ----------
    chunks : sequence or callable
    n_samples : int, optional
        Total number of samples, if known (needed by :class:`StochasticVI` for ``N``).

    Raises
    ------
    TypeError
        A one-shot iterator (a generator object) is refused: a fit reads the data many times.

    Examples
    --------
    >>> import numpy as np
    >>> import latentkit as lk
    >>> from latentkit.sources import IterableSource
    >>> rng = np.random.default_rng(0)
    >>> blocks = [rng.normal(size=(50, 2)) for _ in range(4)]
    >>> source = IterableSource(lambda: iter(blocks))   # a callable: one pass per call
    >>> gmm = lk.GaussianMixture(n_components=2, random_state=0).fit(source)
    >>> gmm.means_.shape
    (2, 2)
    """

    def __init__(self, chunks, n_samples=None):
        if not callable(chunks) and iter(chunks) is chunks:
            raise InputTypeError(
                "chunks is a one-shot iterator; pass a list of chunks or a function that "
                "returns a new iterator (e.g. the generator function itself)."
            )
        self.chunks = chunks
        self.n_samples = n_samples

    def iter_chunks(self):
        return iter(self.chunks() if callable(self.chunks) else self.chunks)


@contextlib.contextmanager
def _readable(path):
    """Turn a corrupt gzip stream (OSError, EOFError) into the documented ValueError; a
    missing file stays FileNotFoundError, undecodable text is already a ValueError."""
    try:
        yield
    except FileNotFoundError:
        raise
    except (OSError, EOFError) as exc:
        raise InputError(f"{path}: could not be read as UTF-8 text (plain or gzip): "
                         f"{exc}.") from None


class DocwordSource(ChunkSource):
    """Documents of a UCI bag-of-words ``docword`` file, read ``chunk_size`` documents at a time.

    The file (plain or gzip) is ``D``, ``W``, ``NNZ`` on three lines, then ``docID wordID count``
    lines, 1-based ids, sorted by document (Newman 2008, UCI Bag of Words). Only one chunk's
    entries are held in memory.

    Parameters
    ----------
    path : str or path-like
    chunk_size : int, default 10000
        Documents per chunk.

    Attributes
    ----------
    n_samples : int
        D, from the header.
    n_features : int
        W, the vocabulary size.

    Raises
    ------
    ValueError
        A malformed header or line (the message gives the line number), ids outside the header's
        ranges, documents out of order, counts that are negative or not finite, or a number of
        entries other than the header's NNZ (after the last chunk). The header and the entry
        lines are parsed by the parser of :func:`latentkit.datasets.read_docword`
        (:class:`latentkit._utils.formats.DocwordParser`), with the same messages; only the order of
        documents is checked here alone (chunks are cut by document).

    Examples
    --------
    >>> import os, tempfile
    >>> from latentkit.sources import DocwordSource
    >>> path = os.path.join(tempfile.mkdtemp(), "docword.txt")
    >>> with open(path, "w") as f:  # 3 documents, 2 words
    ...     print("3", "2", "4", "1 1 2", "2 1 1", "2 2 1", "3 2 5", sep=os.linesep, file=f)
    >>> [chunk.toarray().tolist() for chunk in DocwordSource(path, chunk_size=2).iter_chunks()]
    [[[2.0, 0.0], [1.0, 1.0]], [[0.0, 5.0]]]
    """

    def __init__(self, path, chunk_size=10000):
        self.path = path
        self.chunk_size = check_scalar(chunk_size, "chunk_size", numbers.Integral, low=1)
        with _readable(path), open_text(path) as fh:
            self.n_samples, self.n_features, self.nnz = read_docword_header(fh, path)

    # text read per block: parsing memory is O(block), independent of the file and chunk sizes
    _block_bytes = 1 << 15

    def _flush(self, parts, first_doc, n_docs):
        if parts:
            d, w, c = (np.concatenate(x) for x in zip(*parts))
        else:
            d = w = np.zeros(0, dtype=np.int64)
            c = np.zeros(0)
        # entries are sorted by document: build CSR directly (no COO copies)
        indptr = np.searchsorted(d, np.arange(first_doc, first_doc + n_docs + 1))
        idx_dtype = np.int32 if self.n_features < 2**31 and c.size < 2**31 else np.int64
        m = sp.csr_matrix((c, (w - 1).astype(idx_dtype), indptr.astype(idx_dtype)),
                          shape=(n_docs, self.n_features))
        m.sum_duplicates()  # sorts the word ids of every document, adds repeated entries
        return m

    def iter_chunks(self):
        D, cs = self.n_samples, self.chunk_size
        chunk_start = 1  # first document id of the current chunk
        parts = []  # entries of the current chunk, as arrays
        parser = DocwordParser(self.path, D, self.n_features, self.nnz, sorted_docs=True)
        with _readable(self.path), open_text(self.path) as fh:
            read_docword_header(fh, self.path)
            lineno = 4
            while True:
                lines = fh.readlines(self._block_bytes)
                if not lines:
                    break
                d, w, c = parser.parse("".join(lines), lineno)
                lineno += len(lines)
                if d.size == 0:
                    continue
                while d.size and d[-1] >= chunk_start + cs:
                    cut = int(np.searchsorted(d, chunk_start + cs))
                    parts.append((d[:cut], w[:cut], c[:cut]))
                    yield self._flush(parts, chunk_start, cs)
                    parts = []
                    chunk_start += cs
                    d, w, c = d[cut:], w[cut:], c[cut:]
                if d.size:
                    parts.append((d, w, c))
        parser.finish(lineno - 1)
        while chunk_start <= D:
            n = min(cs, D - chunk_start + 1)
            yield self._flush(parts, chunk_start, n)
            parts = []
            chunk_start += cs


class CSVSource(ChunkSource):
    """Rows of a CSV file of numbers, read ``chunk_size`` rows at a time.

    Parameters
    ----------
    path : str or path-like
        Comma-separated numbers; a first line that is not numeric is taken as a header.
    chunk_size : int, default 10000
    n_samples : int, optional
        Number of data rows, if known (counted on first use otherwise).

    Raises
    ------
    ValueError
        A row that is not numeric or has the wrong number of fields (with its line number).

    Examples
    --------
    >>> import os, tempfile
    >>> import numpy as np
    >>> from latentkit import GaussianMixture
    >>> from latentkit.sources import CSVSource
    >>> path = os.path.join(tempfile.mkdtemp(), "data.csv")
    >>> np.savetxt(path, np.random.default_rng(0).normal(size=(60, 2)), delimiter=",")
    >>> source = CSVSource(path, chunk_size=25)
    >>> [len(chunk) for chunk in source.iter_chunks()]
    [25, 25, 10]
    >>> GaussianMixture(2, random_state=0).fit(source).n_features_in_  # out of core
    2
    """

    def __init__(self, path, chunk_size=10000, n_samples=None):
        self.path = path
        self.chunk_size = check_scalar(chunk_size, "chunk_size", numbers.Integral, low=1)
        with _readable(path), open_text(path) as fh:
            first = fh.readline()
        probe = NumericCSVParser(path)
        probe.parse([strip_eol(first)], first_lineno=1)
        self._skip = int(probe.header is not None)  # a first row that is not numeric
        self._n = n_samples

    @property
    def n_samples(self):
        if self._n is None:
            with _readable(self.path), open_text(self.path) as fh:
                self._n = sum(1 for line in itertools.islice(fh, self._skip, None) if line.strip())
        return self._n

    def iter_chunks(self):
        parser = NumericCSVParser(self.path)  # the parser of read_numeric_csv
        with _readable(self.path), open_text(self.path) as fh:
            if self._skip:
                parser.parse([strip_eol(fh.readline())], first_lineno=1)  # the header
            lineno = self._skip + 1
            while True:
                block = list(itertools.islice(fh, self.chunk_size))
                if not block:
                    return
                rows = parser.parse([strip_eol(line) for line in block], first_lineno=lineno)
                lineno += len(block)
                if rows:
                    yield np.array(rows)


class ValidatedChunks:
    """A :class:`ChunkSource` seen through a model's ``_validate_data`` (used by ``fit``).

    The first chunk is validated with ``reset`` (it sets ``n_features_in_``) and kept as
    ``init_data`` (the start of a model whose start needs only the data's width; the others
    start from the sample of :mod:`latentkit._engine.start_sample`, gathered from ``source``, as an
    in-memory fit draws it); ``iter_chunks`` yields validated chunks lazily. With
    ``reset``, a model with data-derived defaults (``_data_summary``) gets them from one
    statistics pass over **all** chunks (the summaries merged), never from the first chunk.

    Examples
    --------
    >>> import os, tempfile
    >>> import numpy as np
    >>> from latentkit import GaussianMixture
    >>> from latentkit.sources import CSVSource, ValidatedChunks
    >>> path = os.path.join(tempfile.mkdtemp(), "data.csv")
    >>> np.savetxt(path, np.random.default_rng(0).normal(size=(60, 2)), delimiter=",")
    >>> chunks = ValidatedChunks(GaussianMixture(2), CSVSource(path, chunk_size=25), True, {})
    >>> chunks.init_data.shape, [c.shape for c in chunks.iter_chunks()]  # what fit(source) sees
    ((25, 2), [(25, 2), (25, 2), (10, 2)])
    """

    def __init__(self, model, source, reset, fit_params):
        self.model = model
        self.source = source
        self.fit_params = fit_params
        self._row_names = tuple(model._row_fit_params)
        chunks = iter(source.iter_chunks())
        first = next(chunks, None)
        if first is None:
            raise InputError("The data source yielded no chunk.")
        self.summary = None
        if not reset:
            self.init_data = self._validate(first, False)[0]
            return
        with deferred_data_defaults(model):
            self.init_data, rows = self._validate(first, True)
            summary = model._data_summary(self.init_data)
            if summary is not None:
                for chunk in chunks:
                    data, n = self._validate(chunk, False, rows)
                    summary = summary + model._data_summary(data)
                    rows += n
                check_row_count(fit_params, self._row_names, rows, "the data source")
        close = getattr(chunks, "close", None)
        if close is not None:
            close()
        if summary is not None:
            model._set_data_defaults(summary)
        self.summary = summary

    def _validate(self, chunk, reset, start=0):
        """The validated chunk and its number of rows; the row-aligned fit arguments
        (``_row_fit_params``) cut to the chunk's rows ``start:start + n`` (a chunk's own
        ``(X, kw)`` arguments win)."""
        X, kw = chunk if isinstance(chunk, tuple) else (chunk, {})
        if getattr(X, "shape", (1,))[0] == 0:
            raise InputError("The data source yielded an empty chunk (0 samples).")
        n = n_rows(X)
        params = slice_row_params(self.fit_params, self._row_names, start, start + n)
        return self.model._validate_data(X, reset=reset, **{**params, **kw}), n

    def raw_chunks(self):
        """Iterator of the raw chunks as ``(X, fit_params)``, the row-aligned arguments cut
        to each chunk (the start sample's pass, :mod:`latentkit._engine.start_sample`)."""
        start = 0
        for chunk in self.source.iter_chunks():
            X, kw = chunk if isinstance(chunk, tuple) else (chunk, {})
            n = n_rows(X)
            params = slice_row_params(self.fit_params, self._row_names, start, start + n)
            start += n
            yield X, {**params, **kw}

    def iter_chunks(self):
        """Yield the source's chunks, each validated by the model (``_validate_data``)."""
        start = 0
        for chunk in self.source.iter_chunks():
            data, n = self._validate(chunk, False, start)
            start += n
            yield data
