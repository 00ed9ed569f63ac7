"""BLAS thread limit for latentkit's small dense products.

Several models call BLAS on small or thin matrices (a minibatch times a hidden layer in the
VAE; range-finder blocks and k x L batches in the spectral module). A multithreaded OpenBLAS
spends more time synchronising its threads than computing on such shapes, and on a loaded
machine its spinning threads make these products several times (up to hundreds of times)
slower than one thread. The heavy loops run in numba kernels with their own thread pool, so
BLAS is limited to one thread around them, through threadpoolctl when it is installed (it
comes with scikit-learn), else nothing changes.
"""

import contextlib

__all__ = ["blas_single_thread"]

_CONTROLLER = None


def blas_single_thread():
    """Context manager limiting BLAS to one thread (a no-op without threadpoolctl).

    The threadpoolctl controller (which scans the loaded libraries, the costly part) is
    created on the first call and reused.

    Returns
    -------
    context manager
        ``threadpoolctl.ThreadpoolController.limit(limits=1, user_api='blas')``, or
        :func:`contextlib.nullcontext` when threadpoolctl is not installed.
    """
    global _CONTROLLER
    if _CONTROLLER is None:
        try:
            from threadpoolctl import ThreadpoolController
        except ImportError:  # pragma: no cover - threadpoolctl comes with scikit-learn
            _CONTROLLER = False
        else:
            _CONTROLLER = ThreadpoolController()  # scanning the loaded libraries is the cost
    if _CONTROLLER is False:  # pragma: no cover
        return contextlib.nullcontext()
    return _CONTROLLER.limit(limits=1, user_api="blas")
