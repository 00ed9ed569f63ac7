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
it is called, so it is never handed out unentered). The BLAS thread count is a process-wide
setting, so the blocks of all threads share one reference count under a lock: the first
block entered (in any thread) saves the counts and applies the limit, the last one left (in
any thread) restores them, whatever the order in which threads enter and leave.
"""

import contextlib
import functools
import threading
import warnings

__all__ = ["blas_controller", "blas_single_thread", "blas_scoped", "caught_warnings"]

_CONTROLLER = None
_LOCK = threading.Lock()  # guards _CONTROLLER, _USERS and _LIMITER
_USERS = 0  # blas_single_thread blocks open now, in all threads together
_LIMITER = None  # threadpoolctl's limiter of the first of them (restores the saved counts)
_WARNINGS_LOCK = threading.RLock()  # one caught_warnings block at a time in the process


def blas_controller():
    """The shared ``threadpoolctl.ThreadpoolController`` (built on the first call and reused).

    Building it scans the loaded libraries (the costly part) and changes no thread count.

    Returns
    -------
    threadpoolctl.ThreadpoolController
    """
    global _CONTROLLER
    with _LOCK:
        if _CONTROLLER is None:
            # numba's np.dot calls the BLAS of scipy.linalg.cython_blas; loaded after this
            # scan, it would never be limited (an AVX2 OpenBLAS then ran the E-step's GEMMs on
            # two threads inside each numba thread: 17x slower on 2 loaded cores)
            import scipy.linalg.cython_blas  # noqa: F401
            from threadpoolctl import ThreadpoolController  # first use only: import cost

            _CONTROLLER = ThreadpoolController()
        return _CONTROLLER


@contextlib.contextmanager
def blas_single_thread():
    """Context manager limiting BLAS to one thread for the duration of the ``with`` block.

    The limit is process-wide (BLAS has one thread pool per process), so the blocks of every
    thread share one reference count under a lock: the first block entered while none is
    open saves the thread counts and applies the limit, and the last block left restores
    the saved counts (also on an exception), whichever threads entered and left in whichever
    order. Nested blocks only count. Calling this function without entering the block
    changes nothing.

    Yields
    ------
    None
    """
    global _USERS, _LIMITER
    controller = blas_controller()
    with _LOCK:
        if _USERS == 0:
            _LIMITER = controller.limit(limits=1, user_api="blas")
        _USERS += 1
    try:
        yield
    finally:
        with _LOCK:
            _USERS -= 1
            if _USERS == 0:
                limiter, _LIMITER = _LIMITER, None
                limiter.restore_original_limits()


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


@contextlib.contextmanager
def caught_warnings(action="ignore", category=Warning, record=False):
    """``warnings.catch_warnings`` plus ``simplefilter(action, category)``, safe for library
    code run by several threads at once.

    The warning filters and ``warnings.showwarning`` are process-wide and
    ``warnings.catch_warnings`` restores what it saw on entry, so two threads whose blocks
    overlap leave the filters of the one that entered second behind for the whole process
    (the same mismatch as a per-thread BLAS limit), and ``record=True`` collects the warnings
    of every thread. Here the blocks of all threads take one process-wide (re-entrant) lock,
    so they never overlap and each restores exactly what it found; with ``record=True`` only
    the warnings raised by the recording thread are collected, those of other threads go on
    to where they would have gone.

    Parameters
    ----------
    action : str, default 'ignore'
        A ``warnings.simplefilter`` action ('ignore', 'always', 'error', ...).
    category : type, default Warning
    record : bool, default False

    Yields
    ------
    list of warnings.WarningMessage or None
        The warnings this thread raised in the block (``record=True``), else None.
    """
    with _WARNINGS_LOCK, warnings.catch_warnings():
        warnings.simplefilter(action, category)
        if not record:
            yield None
            return
        caught, owner, forward = [], threading.get_ident(), warnings.showwarning

        def show(message, category, filename, lineno, file=None, line=None):
            if threading.get_ident() == owner:
                caught.append(warnings.WarningMessage(message, category, filename, lineno,
                                                      file, line))
            else:
                forward(message, category, filename, lineno, file, line)

        warnings.showwarning = show  # restored by catch_warnings on leaving
        yield caught
