"""The validated data of the dynamic topic model: a document-term matrix and each document's
time slice, with the documents of each slice gathered once (the E-step runs slice by slice)."""

import numpy as np

from .._utils.validation import check_counts, check_n_features
from ..exceptions import InputError, InputTypeError

__all__ = ["SlicedCounts", "slice_labels", "slice_index", "slice_times"]


class SlicedCounts:
    """Counts with a slice index per document (the DTM's validated data object).

    Parameters
    ----------
    X : scipy.sparse.csr_matrix of shape (n_documents, n_features)
    slices : ndarray of int64, shape (n_documents,)
        Each document's slice, in ``0 .. n_slices - 1``.
    labels : ndarray of shape (n_slices,)
        The slice labels ``slices`` index (the fitted ``time_slices_``, or while a driver
        merges the chunks' summaries, this chunk's own).

    Attributes
    ----------
    n_slices : int
    rows : list of ndarray of int64
        The documents of each slice, in data order.
    parts : list of csr_matrix
        Their rows of ``X`` (None for a slice without documents here).
    """

    def __init__(self, X, slices, labels):
        self.X, self.slices, self.labels = X, slices, labels
        self.n_slices = int(labels.shape[0])
        self.rows = [np.flatnonzero(slices == t) for t in range(self.n_slices)]
        self.parts = [X[r] if r.size else None for r in self.rows]

    @property
    def shape(self):
        return self.X.shape

    def __getitem__(self, key):
        """Rows ``a:b`` (the default ``_split_data`` of the drivers)."""
        if not isinstance(key, slice):
            raise InputTypeError("SlicedCounts takes a slice of rows.")
        return SlicedCounts(self.X[key], self.slices[key], self.labels)


def _as_times(times, n_docs):
    t = np.asarray(times)
    if t.ndim != 1 or t.shape[0] != n_docs:
        raise InputError(f"times must be a 1-D array with one entry per document ({n_docs}), "
                         f"got shape {t.shape}.")
    if t.dtype.kind == "f" and not np.all(np.isfinite(t)):
        raise InputError("times must be finite (found NaN or inf).")
    if t.dtype.kind not in "biufUSM":
        raise InputError(f"times must hold numbers, dates or strings, got dtype {t.dtype}.")
    return t


def slice_labels(times, n_docs):
    """The sorted distinct ``times`` (the slices) and each document's slice index.

    Raises
    ------
    InputError
        ``times`` missing, of the wrong length, or non-finite.
    """
    if times is None:
        raise InputError("fit needs times=: one time slice label per document (e.g. the year), "
                         "got None.")
    t = _as_times(times, n_docs)
    labels, index = np.unique(t, return_inverse=True)
    return labels, index.astype(np.int64).ravel()


def slice_index(times, labels, n_docs):
    """Each document's index among the fitted slice ``labels``; None ``times``: the last slice.

    Raises
    ------
    InputError
        A label the model was not fitted on.
    """
    if times is None:
        return np.full(n_docs, labels.shape[0] - 1, dtype=np.int64)
    t = _as_times(times, n_docs)
    try:
        idx = np.searchsorted(labels, t)
    except TypeError:
        raise InputError(f"times of dtype {t.dtype} cannot be compared with the fitted "
                         f"slices {labels[:5].tolist()}...") from None
    idx = np.minimum(idx, labels.shape[0] - 1)
    bad = labels[idx] != t
    if np.any(bad):
        raise InputError(f"times holds {t[bad][0]!r}, which is not a fitted time slice "
                         f"(time_slices_: {labels.tolist()[:10]}).")
    return idx.astype(np.int64)


def validate_sliced(X, times, kw, name, labels=None, n_features=None):
    """Counts and slices: the DTM's validated data.

    Parameters
    ----------
    X : array-like or sparse matrix of shape (n_documents, n_features)
    times : array-like of shape (n_documents,) or None
    kw : dict
        Other keyword arguments (refused).
    name : str
        The model's name, for the messages.
    labels : ndarray, optional
        The fitted slices (``times`` must be among them); None: the sorted distinct
        ``times`` (a fit, or a chunk while a driver merges the chunks' summaries).
    n_features : int, optional
        The fitted width, checked.

    Returns
    -------
    SlicedCounts
    """
    if kw:
        raise InputTypeError(f"{name} got unexpected arguments {sorted(kw)}.")
    X = check_counts(X, "X")
    if n_features is not None:
        check_n_features(X.shape[1], n_features, "X", name)
    if labels is None:
        labels, index = slice_labels(times, X.shape[0])
        return SlicedCounts(X, index, labels)
    return SlicedCounts(X, slice_index(times, labels, X.shape[0]), labels)


def _missing(v):
    return v is None or (isinstance(v, str) and not v.strip()) or (
        isinstance(v, float) and not np.isfinite(v))


def slice_times(values, by="year"):
    """Time slices of documents from a column of times (dates, years or any sortable values).

    Parameters
    ----------
    values : sequence of length n_documents
        Each document's time: an ISO date or date-time string (``'2001-07-07'``), a number
        (a year, a timestamp), or None / ``''`` / NaN when unknown.
    by : {'year', 'month', 'none'} or int, default 'year'
        ``'year'``: the year of each date (numbers are taken as years); ``'month'``: ``'YYYY-MM'``
        of each date; ``'none'``: the values themselves; an int N: N slices of (nearly) equal
        numbers of documents in time order, labelled 0 .. N-1.

    Returns
    -------
    times : ndarray of shape (n_kept,)
        Each kept document's slice label (the ``times`` of
        :meth:`latentkit.topic.DynamicTopicModel.fit`).
    keep : ndarray of bool, shape (n_documents,)
        The documents with a known time.

    Raises
    ------
    InputError
        ``by`` unknown, a value that is not a date where one is needed, or no known time.

    Examples
    --------
    >>> from latentkit.topic import slice_times
    >>> slice_times(["2001-07-07", None, "2003-01-02"])
    (array([2001, 2003]), array([ True, False,  True]))
    >>> slice_times([5.0, 1.0, 3.0, 2.0], by=2)[0]
    array([1, 0, 1, 0])
    """
    vals = list(values)
    keep = np.array([not _missing(v) for v in vals], dtype=bool)
    kept = [v for v, k in zip(vals, keep) if k]
    if not kept:
        raise InputError("no document has a known time (every value is missing).")
    numeric = all(isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)
                  for v in kept)

    def dates(unit):
        try:
            return np.array([np.datetime64(str(v).strip()[:19]) for v in kept]).astype(
                f"datetime64[{unit}]")
        except ValueError as exc:
            raise InputError(f"times: {exc}; expected ISO dates such as 2001-07-07.") from None

    if isinstance(by, (int, np.integer)) and not isinstance(by, bool):
        if by < 1:
            raise InputError(f"slices must be a positive number of slices, got {by}.")
        key = np.asarray(kept, dtype=np.float64) if numeric else dates("s").astype(np.int64)
        rank = np.empty(key.size, dtype=np.int64)
        rank[np.argsort(key, kind="stable")] = np.arange(key.size)
        return (rank * int(by)) // key.size, keep
    if by == "year":
        if numeric:
            return np.asarray(kept, dtype=np.float64).astype(np.int64), keep
        return dates("Y").astype(np.int64) + 1970, keep
    if by == "month":
        if numeric:
            raise InputError("slices 'month' needs dates (strings such as 2001-07-07), got "
                             "numbers.")
        return np.datetime_as_string(dates("M")), keep
    if by == "none":
        return np.asarray(kept), keep
    raise InputError(f"slices must be 'year', 'month', 'none' or a number of slices, got {by!r}.")
