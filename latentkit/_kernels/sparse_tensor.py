"""numba kernel for the truncated tensor power method: batched mode contractions of a dense
(d1, d2, d3) tensor.

``mode_contract(T, mode, Y, Z, out)``:

* mode 0: ``out[i, l] = sum_{j,k} T[i, j, k] Y[j, l] Z[k, l]``   (T(I, y, z))
* mode 1: ``out[j, l] = sum_{i,k} T[i, j, k] Y[i, l] Z[k, l]``   (T(y, I, z))
* mode 2: ``out[k, l] = sum_{i,j} T[i, j, k] Y[i, l] Z[j, l]``   (T(y, z, I))

Serial and allocation-free apart from a small per-call buffer: the tensors of sparse CP (tens to
hundreds per mode) make each call O(d1 d2 d3 L) with small constants, where a BLAS product on a
Khatri-Rao matrix spent its time in thread synchronisation (measured 68 ms vs < 1 ms per call on
a loaded 2-core machine). Each output entry is accumulated in a fixed order: deterministic.
Oracle: ``numpy.einsum`` (:func:`latentkit.testing.mode_contract_oracle`).
"""

import numpy as np

from ._jit import jit

__all__ = ["mode_contract"]


@jit
def mode_contract(T, mode, Y, Z, out):  # pragma: no cover - compiled
    d1, d2, d3 = T.shape
    L = Y.shape[1]
    for a in range(out.shape[0]):
        for l in range(L):
            out[a, l] = 0.0
    if mode == 0 or mode == 1:
        # tmp = T[i, j, :] Z, then added into row i (weighted by Y[j]) or row j (by Y[i])
        tmp = np.empty(L)
        for i in range(d1):
            for j in range(d2):
                for l in range(L):
                    tmp[l] = 0.0
                for k in range(d3):
                    t = T[i, j, k]
                    for l in range(L):
                        tmp[l] += t * Z[k, l]
                if mode == 0:
                    for l in range(L):
                        out[i, l] += Y[j, l] * tmp[l]
                else:
                    for l in range(L):
                        out[j, l] += Y[i, l] * tmp[l]
    else:
        for i in range(d1):
            for j in range(d2):
                for l in range(L):
                    yz = Y[i, l] * Z[j, l]
                    for k in range(d3):
                        out[k, l] += T[i, j, k] * yz
