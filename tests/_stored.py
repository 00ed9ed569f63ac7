"""Comparing with a result stored by an earlier run (the model files of ``tests/data``).

A stored float is never compared bit for bit: OpenBLAS picks its kernels by CPU model
(``OPENBLAS_CORETYPE`` overrides the choice), and two kernels sum a dot product in different
orders. The same ``transform`` of the HDP file of ``tests/data/hdp_c72e84d`` differs by
2.7e-15 (relative 4.5e-13 on its smallest entry) between the SkylakeX kernel that wrote it and
the Prescott, Haswell or Zen kernels (issue 48). ``.ci/run`` runs these tests a second time
under another kernel (the ``kernel_sensitive`` marker).

The tolerance is for well-conditioned arithmetic of fixed parameters (a transform, a score, a
predictive probability: tens to a few thousand floating-point operations per value, each
correct to half an ulp, so a few hundred ulps at most): relative :data:`RTOL` = 1e-12 (4500
ulps), with an absolute floor :data:`ATOL` = 1e-13 for the probabilities near 0, whose own
rounding is relative to the sum they are normalised by (<= 1). A change in the code that
moved a stored value by more than that is a real change, not rounding.
"""

import numpy as np

__all__ = ["ATOL", "RTOL", "assert_stored"]

#: Relative tolerance of a stored float (module docstring: well-conditioned arithmetic).
RTOL = 1e-12
#: Absolute floor for stored probabilities (in [0, 1]) and other O(1) values near 0.
ATOL = 1e-13


def assert_stored(actual, stored, what="", rtol=RTOL, atol=ATOL):
    """``actual`` equals the ``stored`` result to the tolerance of the module docstring
    (shape and dtype kind exactly; integers and booleans exactly)."""
    actual, stored = np.asarray(actual), np.asarray(stored)
    assert actual.shape == stored.shape, f"{what}: shape {actual.shape} != {stored.shape}"
    if stored.dtype.kind in "biu" and actual.dtype.kind in "biu":
        np.testing.assert_array_equal(actual, stored, err_msg=what)
        return
    np.testing.assert_allclose(actual, stored, rtol=rtol, atol=atol, err_msg=what)
