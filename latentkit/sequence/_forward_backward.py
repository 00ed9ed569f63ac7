"""The forward-backward driver of the HMMs and the data object it reads.

:class:`SequenceData` holds validated stacked sequences (``X`` and ``offsets``).
:func:`_forward_backward_any` (fitting, posteriors) and :func:`_forward_any` (scoring) run the
kernels of :mod:`latentkit._kernels.hmm` over it: a sequence of at least
``_BLOCKED_MIN_LENGTH`` steps by the blocked kernels (parallel over its time blocks, Sarkka &
Garcia-Fernandez 2021 for the parallel-in-time view), the runs of shorter sequences between
them by the per-sequence kernels (Rabiner 1989 section V.A; the forward-backward pass on
Python threads over ranges of sequences, :func:`latentkit._utils.doc_threads.over_ranges`:
the serial kernel's compiled code runs everywhere, and no ``prange`` kernel is compiled).
Which path a sequence takes depends on its length only, so results do not depend on the
thread count.
"""

import numba
import numpy as np

from .._kernels import hmm as kernels
from .._utils.doc_threads import over_ranges

__all__ = ["SequenceData"]

#: Below this much work (time steps x states^2) or with one sequence, kernels run on one
#: thread: handing ranges to the thread pool costs more than it saves (results are identical).
_PARALLEL_MIN_WORK = 1_000_000

#: Ranges of sequences (or lockstep groups) per thread for the forward-backward on Python
#: threads (a few per thread even out unequal lengths); the split never changes the results:
#: every sequence runs the same serial kernel code.
_RANGES_PER_THREAD = 4


#: Time steps per block of the blocked forward-backward (one long sequence, parallel over
#: time); a sequence of at least ``_BLOCKED_MIN_LENGTH`` steps uses it. Both depend on the data
#: only, never on the thread count, so results do not either.
_TIME_BLOCK = 16384
_BLOCKED_MIN_LENGTH = 8 * _TIME_BLOCK


def _runs(offsets):
    """``(s, e, long)``: the sequences ``s..e-1`` taken together, in order: each sequence of at
    least ``_BLOCKED_MIN_LENGTH`` steps alone (``long``, ``e = s + 1``), the shorter ones in
    maximal runs between them. Depends on the lengths only (never on the thread count)."""
    lens = np.diff(offsets)
    n_seq = lens.shape[0]
    s = 0
    while s < n_seq:
        if lens[s] >= _BLOCKED_MIN_LENGTH:
            yield s, s + 1, True
            s += 1
            continue
        e = s
        while e < n_seq and lens[e] < _BLOCKED_MIN_LENGTH:
            e += 1
        yield s, e, False
        s = e


def _forward_backward_any(frame, log_offset, startprob, transmat, offsets, gamma, log_pred, xi,
                          loglik, rows=None):
    """Forward-backward over stacked sequences: each sequence of at least
    ``_BLOCKED_MIN_LENGTH`` steps by the blocked kernel (parallel over its time blocks), the
    runs of shorter sequences between them by the per-sequence kernels (on threads over
    ranges of sequences). Same outputs as
    :func:`latentkit._kernels.hmm.forward_backward_scaled`; ``rows`` as there (sample ``t``
    reads ``frame[rows[t]]`` and ``log_offset[rows[t]]``; None: ``t``)."""
    K = frame.shape[1]
    for s, e, long in _runs(offsets):
        a, b = int(offsets[s]), int(offsets[e])
        if long:
            n_blocks = -(-(b - a) // _TIME_BLOCK)
            xi_b = np.empty((n_blocks, K, K))
            f, o = (frame[a:b], log_offset[a:b]) if rows is None else \
                (frame[rows[a:b]], log_offset[rows[a:b]])
            ok = kernels.forward_backward_blocked(
                f, o, startprob, transmat, _TIME_BLOCK, gamma[a:b],
                log_pred[a:b], xi_b, np.empty((b - a, K)), np.empty(b - a))
            if ok:
                xi[s] = xi_b.sum(axis=0)
                loglik[s] = float(log_pred[a:b].sum())
                continue
            # an impossible observation: the sequential kernel says where (-inf, NaN)
        serial = e - s < 2 or (b - a) * K ** 2 < _PARALLEL_MIN_WORK
        f, o, r = (frame[a:b], log_offset[a:b], None) if rows is None else \
            (frame, log_offset, rows[a:b])
        kernels.forward_backward_scaled(
            f, o, startprob, transmat, offsets[s:e + 1] - a, gamma[a:b], log_pred[a:b],
            xi[s:e], loglik[s:e], over_ranges=None if serial else over_ranges,
            n_ranges=1 if serial else _RANGES_PER_THREAD * numba.get_num_threads(), rows=r)


def _forward_any(frame, log_offset, startprob, transmat, offsets, log_pred, loglik):
    """Scaled forward pass over stacked sequences: each sequence of at least
    ``_BLOCKED_MIN_LENGTH`` steps by the blocked kernel (parallel over its time blocks), the
    runs of shorter sequences by :func:`latentkit._kernels.hmm.forward_scaled`. Same outputs
    as ``forward_scaled`` (to 1e-10 relative on the long sequences): ``log_pred`` (T,) the
    one-step predictive log-densities, ``loglik`` (n_sequences,) their sums (``-inf`` for an
    impossible sequence)."""
    for s, e, long in _runs(offsets):
        a, b = int(offsets[s]), int(offsets[e])
        if long and kernels.forward_blocked(frame[a:b], log_offset[a:b], startprob, transmat,
                                            _TIME_BLOCK, log_pred[a:b]):
            loglik[s] = float(log_pred[a:b].sum())
            continue
        # short sequences, or an impossible observation (the sequential kernel gives -inf
        # from there on)
        kernels.forward_scaled(frame[a:b], log_offset[a:b], startprob, transmat,
                               offsets[s:e + 1] - a, log_pred[a:b], loglik[s:e])


class SequenceData:
    """Validated stacked sequences: the data object HMM E-steps consume.

    Attributes
    ----------
    X : ndarray
        Observations as the emission component validated them (n_samples rows).
    offsets : ndarray of shape (n_sequences + 1,) of int64

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.sequence import SequenceData, check_lengths
    >>> data = SequenceData(np.arange(5.0).reshape(-1, 1), check_lengths([3, 2], 5))
    >>> data.X.shape, data.offsets
    ((5, 1), array([0, 3, 5]))
    """

    def __init__(self, X, offsets):
        self.X = X
        self.offsets = offsets

    @property
    def n_samples(self):
        return int(self.offsets[-1])

    @property
    def n_sequences(self):
        return len(self.offsets) - 1

    def subset(self, s0, s1):
        """Sequences ``s0..s1-1`` as a new SequenceData."""
        a, b = self.offsets[s0], self.offsets[s1]
        return SequenceData(self.X[a:b], self.offsets[s0:s1 + 1] - a)
