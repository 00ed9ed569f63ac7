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

__all__ = ["blas_controller", "blas_single_thread"]

_CONTROLLER = None


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
    with blas_controller().limit(limits=1, user_api="blas"):
        yield
