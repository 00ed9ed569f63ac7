"""Make numba's TBB threading layer loadable, so that fitted processes can fork.

numba runs ``parallel=True`` kernels on one of three threading layers, chosen once per
process at the first parallel launch, the first that loads in the order ``tbb``, ``omp``,
``workqueue`` (unless the user sets ``NUMBA_THREADING_LAYER`` or
``NUMBA_THREADING_LAYER_PRIORITY``):

* ``omp`` on Linux is GNU OpenMP, which is not fork-safe: a child forked after a parallel
  kernel ran in the parent (``multiprocessing`` with the ``fork`` start method, joblib's
  ``multiprocessing`` backend) is terminated by numba at its first parallel kernel ("fork()
  called from a process already using GNU OpenMP"), and a pool waiting for it hangs;
* ``workqueue`` is fork-safe but not thread-safe: two Python threads running parallel
  kernels at once abort the process;
* ``tbb`` (Intel oneTBB) is fork-safe and thread-safe, so latentkit depends on the ``tbb``
  package where it has wheels. pip installs ``libtbb.so.12`` into the environment's ``lib/``
  folder, which is not on the dynamic loader's path, so numba's ``tbbpool`` extension fails
  to import ("Unknown import problem" in ``numba -s``) and numba falls back to ``omp``.

:func:`make_tbb_loadable` loads that library by its full path (found from the ``tbb``
package's file list) before numba chooses, so the ``tbb`` layer imports and numba's own
choice picks it. It changes no setting: an explicit user choice of another layer
(``NUMBA_THREADING_LAYER``), a layer already launched, or a missing ``tbb`` package leave
everything as numba would have it.
"""

import ctypes
import importlib.metadata
import os
import sys

__all__ = ["make_tbb_loadable", "TBB_LIBRARY"]

#: The file name of the oneTBB runtime numba's ``tbbpool`` links against, per platform.
TBB_LIBRARY = {"linux": "libtbb.so.12", "darwin": "libtbb.12.dylib",
               "win32": "tbb12.dll"}.get(sys.platform, "libtbb.so.12")

# layer settings under which numba may pick tbb (the rest are explicit other choices)
_MAY_PICK_TBB = ("default", "tbb", "safe", "threadsafe", "forksafe")


def _library_path():
    """Full path of the ``tbb`` package's runtime library, or None."""
    try:
        files = importlib.metadata.files("tbb") or ()
    except importlib.metadata.PackageNotFoundError:
        files = ()
    for f in files:
        if f.name == TBB_LIBRARY:
            path = os.fspath(f.locate())
            if os.path.exists(path):
                return path
    path = os.path.join(sys.prefix, "Library" if sys.platform == "win32" else "lib",
                        "bin" if sys.platform == "win32" else "", TBB_LIBRARY)
    return path if os.path.exists(path) else None


def make_tbb_loadable():
    """Load the ``tbb`` package's runtime library so numba's TBB threading layer can import.

    Does nothing when numba has already launched its threads (the layer is chosen), when the
    configured layer excludes TBB (the user's choice), when the TBB layer already imports,
    or when no ``tbb`` runtime is installed.

    Returns
    -------
    str
        What happened: ``'loaded'`` (the library was loaded by path), ``'importable'`` (the TBB
        layer imported without help), ``'launched'``, ``'user choice'``, ``'no tbb'`` (no
        library found) or ``'failed'`` (the library or the layer did not load; numba then
        picks as it would have).
    """
    import numba
    from numba.np.ufunc import parallel

    if getattr(parallel, "_is_initialized", False):
        return "launched"
    if str(numba.config.THREADING_LAYER).lower() not in _MAY_PICK_TBB:
        return "user choice"
    try:
        from numba.np.ufunc import tbbpool  # noqa: F401
        return "importable"
    except ImportError:
        pass
    path = _library_path()
    if path is None:
        return "no tbb"
    try:
        ctypes.CDLL(path, mode=getattr(ctypes, "RTLD_GLOBAL", 0))
        from numba.np.ufunc import tbbpool  # noqa: F401,F811
    except (OSError, ImportError):
        return "failed"
    return "loaded"
