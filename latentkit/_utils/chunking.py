"""The one sequence splitter: cut stacked sequences into chunks of whole sequences.

Every place that cuts HMM data into pieces uses :func:`split_sequences`, with one rule:

    Each **target** (a row position where a chunk should end) moves to the **nearest interior
    sequence boundary** (ties go to the earlier one); targets that land on the same boundary
    merge.

So no sequence is ever split, no chunk is empty, there are at most ``len(targets) + 1``
chunks, and with two sequences or more and at least one target there are at least two. Each
cut is within half a sequence of its target, so chunk sizes are unbiased (neither always
above nor always below the target size). Its callers:

* ``HiddenMarkovModel._split_data(data, n_chunks)`` (the contract checks that chunk
  statistics add up): targets at ``N * j / n_chunks``, ``j = 1..n_chunks-1``;
* :class:`latentkit.parallel.dask.DaskData`: targets at the Dask array's own row-chunk
  boundaries, so blocks hold whole sequences;
* :class:`latentkit.inference.StochasticVI` on a source of ``(X, {'lengths': ...})`` chunks:
  targets at ``batch_size, 2 batch_size, ...`` rows of each chunk, so an epoch has about
  ``N / batch_size`` minibatches of about ``batch_size`` rows, as with unsequenced data (where
  every row is a boundary and the rule gives exactly ``X[a:a + batch_size]``).

Earlier each caller had its own rule (first boundary at or after the target; the same with a
cut forced before the last sequence; greedy packing of at most ``batch_size`` rows). None
changes a fitted batch model: EM and VB statistics are sums, the Dask fit equals the local one
to rounding either way, and ``_split_data`` is not used by ``fit``. The SVI minibatches of
sequences did change (see :meth:`StochasticVI._minibatches`).
"""

import numpy as np

__all__ = ["split_sequences"]


def split_sequences(offsets, targets):
    """Sequence-index bounds of chunks of whole sequences, cut near the target rows.

    Parameters
    ----------
    offsets : array-like of int of shape (n_sequences + 1,)
        Sequence ``s`` is rows ``offsets[s]:offsets[s + 1]`` (increasing, ``offsets[0] = 0``;
        as :func:`latentkit._utils.validation.check_lengths` returns them).
    targets : array-like of float of shape (n_targets,)
        Row positions where a chunk should end (any order; values outside ``(0, N)`` still
        move to the nearest interior boundary).

    Returns
    -------
    bounds : ndarray of int64 of shape (n_chunks + 1,)
        ``0 = bounds[0] < bounds[1] < ... < bounds[-1] = n_sequences``; chunk ``j`` holds
        sequences ``bounds[j]:bounds[j + 1]``, i.e. rows
        ``offsets[bounds[j]]:offsets[bounds[j + 1]]``. Each interior bound is the interior
        sequence boundary nearest to a target (ties to the earlier boundary).

    Examples
    --------
    >>> import numpy as np
    >>> split_sequences(np.array([0, 3, 10, 12, 20]), [10]).tolist()
    [0, 2, 4]
    >>> split_sequences(np.array([0, 3, 10, 12, 20]), [6, 7, 11]).tolist()
    [0, 1, 2, 4]
    """
    offsets = np.asarray(offsets, dtype=np.int64)
    n_seq = offsets.shape[0] - 1
    inner = offsets[1:-1]
    targets = np.asarray(targets, dtype=float).reshape(-1)
    if inner.size == 0 or targets.size == 0:
        return np.array([0, n_seq], dtype=np.int64)
    j = np.searchsorted(inner, targets, side="left")  # inner[j-1] < t <= inner[j]
    lo = np.clip(j - 1, 0, inner.size - 1)
    hi = np.clip(j, 0, inner.size - 1)
    pick = np.where(targets - inner[lo] <= inner[hi] - targets, lo, hi)
    return np.concatenate([[0], np.unique(pick + 1), [n_seq]]).astype(np.int64)
