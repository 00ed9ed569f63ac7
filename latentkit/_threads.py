"""BLAS thread limit for latentkit's small dense products.

Several models call BLAS on small or thin matrices (a minibatch times a hidden layer in the
VAE; range-finder blocks and k x L batches in the spectral module; the per-thread GEMMs of
the full-covariance Gaussian E-step). A multithreaded OpenBLAS spends more time synchronising
its threads than computing on such shapes, and on a loaded machine its spinning threads make
these products several times (up to hundreds of times) slower than one thread. The heavy
loops run in numba kernels with their own thread pool, so BLAS is limited to one thread
around them through threadpoolctl (a runtime dependency, so every installation runs the same
code path).

The limit holds only inside a ``with`` block: no latentkit call changes the process's BLAS
thread count once it returns (threadpoolctl's own ``limit()`` applies the limit as soon as
it is called, so it is never handed out unentered).
"""

import contextlib
import functools
import threading

__all__ = ["blas_controller", "blas_single_thread", "blas_scoped"]

_CONTROLLER = None
_DEPTH = threading.local()  # nesting depth of blas_single_thread in this thread


def blas_controller():
    """The shared ``threadpoolctl.ThreadpoolController`` (built on the first call and reused).

    Building it scans the loaded libraries (the costly part) and changes no thread count.

    Returns
    -------
    threadpoolctl.ThreadpoolController
    """
    global _CONTROLLER
    if _CONTROLLER is None:
        from threadpoolctl import ThreadpoolController  # first use only: import cost

        _CONTROLLER = ThreadpoolController()
    return _CONTROLLER


@contextlib.contextmanager
def blas_single_thread():
    """Context manager limiting BLAS to one thread for the duration of the ``with`` block.

    The limit is applied on entering the block and the previous thread counts are restored on
    leaving it (also on an exception); calling this function without entering the block
    changes nothing.

    Yields
    ------
    None
    """
    depth = getattr(_DEPTH, "n", 0)
    if depth:  # already limited by an enclosing block: nothing to apply or restore
        yield
        return
    with blas_controller().limit(limits=1, user_api="blas"):
        _DEPTH.n = 1
        try:
            yield
        finally:
            _DEPTH.n = 0


def blas_scoped(method):
    """Decorator: run ``method`` inside :func:`blas_single_thread` (used by
    :class:`latentkit.base.LatentModel` for the inference methods called outside ``fit``:
    ``score``, ``predict`` ... run the same threaded kernels as the fit loop, whose small BLAS
    products would otherwise wake OpenBLAS threads that spin on the cores numba's threads
    need).

    Parameters
    ----------
    method : callable

    Returns
    -------
    callable
        The wrapped method (``__wrapped__`` is ``method``; signature and docstring kept).
    """
    if getattr(method, "_blas_scoped", False):
        return method

    @functools.wraps(method)
    def scoped(*args, **kwargs):
        with blas_single_thread():
            return method(*args, **kwargs)

    scoped._blas_scoped = True
    return scoped
