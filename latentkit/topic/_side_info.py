"""The data summary of the topic models whose documents carry side information (a time, labels,
covariates): the count summary and the distinct values seen, merged over the chunks of a source
or the blocks of Dask, so that a chunked or Dask fit resolves the slices, the label topics or
the covariate groups from all the documents, as an in-memory fit does."""

import numpy as np

__all__ = ["SideSummary"]


def _union(a, b):
    if a.shape[0] == 0:
        return b
    if b.shape[0] == 0:
        return a
    if a.ndim == 1:
        return np.union1d(a, b)
    return np.unique(np.concatenate([a, b], axis=0), axis=0)


class SideSummary:
    """A :class:`latentkit._utils.summaries.CountSummary` and the sorted distinct side values.

    Parameters
    ----------
    counts : CountSummary
    values : ndarray of shape (n_values,) or (n_values, n_columns)
        Sorted distinct values (time labels, label names) or rows (covariate rows).

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit._utils.summaries import CountSummary
    >>> from latentkit.topic._side_info import SideSummary
    >>> a = SideSummary(CountSummary.of(np.ones((2, 3))), np.array([2001, 2003]))
    >>> b = SideSummary(CountSummary.of(np.ones((1, 3))), np.array([2002]))
    >>> (a + b).values.tolist(), (a + b).counts.n_rows
    ([2001, 2002, 2003], 3.0)
    """

    def __init__(self, counts, values):
        self.counts, self.values = counts, np.asarray(values)

    def __add__(self, other):
        return SideSummary(self.counts + other.counts, _union(self.values, other.values))
