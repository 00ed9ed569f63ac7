"""The one numba decorator of latentkit.

Every kernel in :mod:`latentkit._kernels` is compiled through :func:`jit`, so the compilation
policy lives in one place:

* **lazy**: no signatures are given, so importing latentkit compiles nothing; a kernel is
  compiled the first time it is called with a new combination of argument types;
* ``cache=True``: the machine code is written next to the source (``__pycache__``) and reused
  by later processes, so a test suite or a CLI call pays the compile cost once per machine;
* one ``fastmath`` policy, :data:`FASTMATH`: re-association and contraction are allowed (so
  reductions vectorise), but NaN and inf semantics are kept (no ``nnan``/``ninf``), so a NaN
  in a kernel surfaces instead of being optimised away;
* ``LATENTKIT_DISABLE_JIT=1`` in the environment turns every kernel into plain Python
  (``prange`` becomes ``range``), for debugging and for coverage;
* numba's TBB threading layer (fork-safe and thread-safe) is made loadable before the first
  kernel runs (:mod:`._layer`), unless the user chose another layer.

Kernels import only numpy, math and numba (DESIGN.md section 4).
"""

import os

import numba

from ._layer import make_tbb_loadable

__all__ = ["jit", "prange", "FASTMATH", "JIT_DISABLED", "THREADING_LAYER_SETUP"]

#: True when ``LATENTKIT_DISABLE_JIT`` is set to anything but ``""``/``"0"``.
JIT_DISABLED = os.environ.get("LATENTKIT_DISABLE_JIT", "0") not in ("", "0")

#: What :func:`._layer.make_tbb_loadable` did when the kernels were first imported (so that
#: numba picks its fork-safe and thread-safe TBB layer; see :mod:`._layer`).
THREADING_LAYER_SETUP = "jit disabled" if JIT_DISABLED else make_tbb_loadable()

#: The fastmath flags used by every kernel (LLVM flags; see numba's documentation).
FASTMATH = frozenset({"nsz", "arcp", "contract", "reassoc"})

prange = numba.prange


def jit(func=None, *, parallel=False, fastmath=True, error_model="python"):
    """Compile a kernel with latentkit's numba policy.

    Parameters
    ----------
    func : callable, optional
        The kernel. When omitted, a decorator is returned (``@jit(parallel=True)``).
    parallel : bool, default False
        Compile with ``parallel=True`` so that ``prange`` loops run on numba's thread pool.
        Parallel kernels must reduce in a fixed order (per-item outputs combined in index
        order) so results do not depend on the number of threads.
    fastmath : bool, default True
        Apply :data:`FASTMATH`; ``False`` compiles with strict IEEE semantics.
    error_model : {"python", "numpy"}, default "python"
        numba's error model. ``"numpy"`` drops the division-by-zero check (x / 0 gives inf or
        NaN instead of raising), which lets a loop of divisions vectorise; for kernels whose
        divisors are positive by construction (the LDA E-step's normalisers).

    Returns
    -------
    callable
        The compiled dispatcher, or ``func`` unchanged when ``LATENTKIT_DISABLE_JIT`` is set.
    """

    def decorate(f):
        if JIT_DISABLED:
            return f
        return numba.njit(
            cache=True,
            nogil=True,
            parallel=parallel,
            fastmath=set(FASTMATH) if fastmath else False,
            error_model=error_model,
        )(f)

    if func is not None:
        return decorate(func)
    return decorate
