"""BLAS thread limit for the spectral module's small dense products.

The spectral computations call BLAS/LAPACK on thin matrices (V x (k + p) range-finder blocks,
k x L batches, k^3 tensors). A multithreaded OpenBLAS spends more time synchronising its
threads than computing on such shapes, and on a loaded machine its spinning threads make a
6906 x 30 QR hundreds of times slower than one thread (measured: 0.37 s vs 0.014 s). The heavy
loops run in numba kernels with their own thread pool, so BLAS is limited to one thread inside
the estimators' ``fit`` and :func:`~latentkit.spectral.robust_tensor_power` (through
threadpoolctl when it is installed, else unchanged).
"""

import contextlib

__all__ = ["blas_single_thread"]

_CONTROLLER = None


def blas_single_thread():
    """Context manager limiting BLAS to one thread (no-op without threadpoolctl).

    Returns
    -------
    context manager
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
