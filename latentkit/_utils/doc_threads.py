"""Documents in parallel on Python threads: a serial numba kernel over a range of documents,
called on contiguous ranges from a thread pool (the kernels release the GIL: ``nogil=True``).

Why not ``prange``: a ``parallel=True`` kernel costs numba's parfor passes and a second,
gufunc, compilation on every cold start. For LDA's E-step and CVB0 sweep that was 2.5-3 of
the 8 CPU seconds of compilation of a first ``LatentDirichletAllocation().fit`` (measured
with ``benchmarks/bench_cold_start.py``), while the work per document is the same serial
function either way. Documents are independent in both kernels (each writes only its own
outputs), so the result does not depend on the ranges or the number of threads.

Threads: numba's thread count in the calling thread (``numba.get_num_threads()``, which
``NUMBA_NUM_THREADS`` and ``numba.set_num_threads`` set), so the same setting governs these
kernels and the ``prange`` ones. The pool of that many threads is kept between calls (issue
46: a pool made per call cost 13-16 ms per call on a loaded 2-core machine, a third of a
128-document SVI step on KOS); a process made by ``fork`` (whose copy of the pool has no
threads) or another thread count makes a new one.
"""

import os
import threading
from concurrent.futures import ThreadPoolExecutor

import numba
import numpy as np

__all__ = ["document_edges", "over_documents", "over_ranges"]

#: Ranges per thread (contiguous ranges of about equal token counts; a few per thread even out
#: documents of unequal cost).
RANGES_PER_THREAD = 8


#: The kept pool: (pid, thread count, ThreadPoolExecutor) or None.
_POOL = None
_POOL_LOCK = threading.Lock()


def _forget_pool():
    """In a child made by ``fork``: no pool (its copy has no threads) and a fresh lock (the
    parent's may have been held by another thread at the fork)."""
    global _POOL, _POOL_LOCK
    _POOL, _POOL_LOCK = None, threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pool)


def _pool(threads):
    """The kept pool of ``threads`` workers of this process (made on first use)."""
    global _POOL
    with _POOL_LOCK:
        if _POOL is None or _POOL[:2] != (os.getpid(), threads):
            old, _POOL = _POOL, (os.getpid(), threads, ThreadPoolExecutor(
                threads, thread_name_prefix="latentkit-documents"))
            if old is not None and old[0] == os.getpid():
                old[2].shutdown(wait=False)  # its queued ranges still run
        return _POOL[2]


def document_edges(indptr, n):
    """``n + 1`` edges (int64) of ``n`` contiguous document ranges of about equal token counts.

    Parameters
    ----------
    indptr : ndarray of int64, shape (D + 1,)
        CSR row pointers.
    n : int
        Number of ranges (>= 1).

    Returns
    -------
    ndarray of int64, shape (n + 1,)
        Non-decreasing, from 0 to D.
    """
    D = indptr.shape[0] - 1
    edges = np.searchsorted(indptr, np.arange(n + 1) * (indptr[-1] / n)).astype(np.int64)
    edges[0], edges[-1] = 0, D
    return np.maximum.accumulate(edges)


def over_ranges(kernel, edges, *args, block_out=None):
    """Run ``kernel(edges[b], edges[b + 1], *args)`` for every range ``b`` (with
    ``block_out[b]`` appended when given) on numba's thread count of Python threads, in the
    calling thread when that is 1 or there is one range.

    Parameters
    ----------
    kernel : numba dispatcher
        Serial kernel taking the range first; it must write only its own outputs.
    edges : ndarray of int64, shape (n + 1,)
        Range edges (:func:`document_edges`).
    *args
        The kernel's other arguments.
    block_out : sequence of length n or None
        A per-range output (e.g. one slab of statistics per fixed block).

    Returns
    -------
    None
    """
    n = edges.shape[0] - 1
    threads = numba.get_num_threads()

    def run(b):
        extra = () if block_out is None else (block_out[b],)
        kernel(edges[b], edges[b + 1], *args, *extra)

    if threads <= 1 or n <= 1:
        for b in range(n):
            run(b)
        return
    list(_pool(threads).map(run, range(n)))


def over_documents(kernel, indptr, *args, serial_below=0):
    """Run ``kernel(d0, d1, indptr, *args)`` over ``[0, D)`` in contiguous document ranges.
    Parameters
    ----------
    kernel : numba dispatcher
        Serial kernel taking the range ``d0 <= d < d1`` (int64) first, then ``indptr`` and
        ``args``; it must write only the outputs of its own documents.
    indptr : ndarray of int64, shape (D + 1,)
        CSR row pointers (the ranges hold about equal numbers of entries).
    *args
        The kernel's other arguments.
    serial_below : int, default 0
        Run in the calling thread, as one range, when ``indptr[-1]`` (entries) is below this.

    Returns
    -------
    None
    """
    D = indptr.shape[0] - 1
    threads = numba.get_num_threads()
    if threads <= 1 or D < 2 or indptr[-1] < serial_below:
        kernel(np.int64(0), np.int64(D), indptr, *args)
        return
    over_ranges(kernel, document_edges(indptr, int(min(D, threads * RANGES_PER_THREAD))),
                indptr, *args)
