"""numba kernels of the Gaussian block (:mod:`latentkit.distributions._gaussian`).

The heavy linear algebra (the batched triangular products ``X @ [U_1 ... U_K]`` and the
second-moment GEMM) runs in BLAS; these kernels fuse the element-wise passes in between --
squared norms per component, log-sum-exp, normalisation, exponentiation and weighting -- into
one pass over each chunk of rows, with ``prange`` over rows. Every row writes its own outputs,
so results do not depend on the number of threads.

Imports only numpy, math and numba (DESIGN.md section 4). Oracles:
:mod:`latentkit.testing._oracles_gaussian`.
"""

import math

import numpy as np

from ._jit import jit, prange

__all__ = ["log_resp_from_projection", "log_resp_from_maha"]


@jit(parallel=True)
def _log_resp_projection_kernel(y, bcat, const, w, log_resp, resp, lse):
    n = y.shape[0]
    K = const.shape[0]
    D = bcat.shape[0] // K
    for i in prange(n):
        amax = -np.inf
        for k in range(K):
            s = 0.0
            off = k * D
            for j in range(D):
                t = y[i, off + j] - bcat[off + j]
                s += t * t
            v = const[k] - 0.5 * s
            log_resp[i, k] = v
            if v > amax:
                amax = v
        if not math.isfinite(amax):
            amax = 0.0
        acc = 0.0
        for k in range(K):
            acc += math.exp(log_resp[i, k] - amax)
        ls = math.log(acc) + amax
        lse[i] = ls
        for k in range(K):
            v = log_resp[i, k] - ls
            log_resp[i, k] = v
            resp[i, k] = math.exp(v) * w[i]


@jit(parallel=True)
def _log_resp_maha_kernel(maha, const, w, log_resp, resp, lse):
    n = maha.shape[0]
    K = const.shape[0]
    for i in prange(n):
        amax = -np.inf
        for k in range(K):
            v = const[k] - 0.5 * maha[i, k]
            log_resp[i, k] = v
            if v > amax:
                amax = v
        if not math.isfinite(amax):
            amax = 0.0
        acc = 0.0
        for k in range(K):
            acc += math.exp(log_resp[i, k] - amax)
        ls = math.log(acc) + amax
        lse[i] = ls
        for k in range(K):
            v = log_resp[i, k] - ls
            log_resp[i, k] = v
            resp[i, k] = math.exp(v) * w[i]


def _check_out(name, arr, shape):
    if not (isinstance(arr, np.ndarray) and arr.dtype == np.float64 and arr.shape == shape
            and arr.flags.c_contiguous):
        raise ValueError(f"{name} must be a C-contiguous float64 array of shape {shape}.")


def log_resp_from_projection(y, bcat, const, w, log_resp, resp, lse):
    """Log-responsibilities from the batched projections ``y = (X - c) @ [U_1 ... U_K]``.

    ``log rho_ik = const_k - 0.5 ||y_i[kD:(k+1)D] - bcat[kD:(k+1)D]||^2``,
    ``lse_i = log sum_k rho_ik``, ``log_resp_ik = log rho_ik - lse_i``,
    ``resp_ik = w_i exp(log_resp_ik)``.

    Parameters
    ----------
    y : ndarray of shape (n, K D), float64, C-contiguous
    bcat : ndarray of shape (K D,)
        ``(mu_k - c) U_k`` stacked.
    const : ndarray of shape (K,)
        Per-component additive constant (log weight + log det U_k - D/2 log 2 pi), nats.
    w : ndarray of shape (n,)
        Sample weights.
    log_resp, resp : ndarray of shape (n, K)
        Outputs (overwritten).
    lse : ndarray of shape (n,)
        Output: per-row log normaliser, nats.

    Raises
    ------
    ValueError
        Wrong shapes, dtypes or layouts.

    Source: Bishop (2006) eq. (9.23) in log space.
    """
    n = y.shape[0]
    K = const.shape[0]
    _check_out("y", y, (n, bcat.shape[0]))
    if bcat.shape[0] % max(K, 1):
        raise ValueError("bcat must have K*D entries.")
    for name, arr, shape in (("bcat", bcat, bcat.shape), ("const", const, (K,)), ("w", w, (n,)),
                             ("log_resp", log_resp, (n, K)), ("resp", resp, (n, K)),
                             ("lse", lse, (n,))):
        _check_out(name, arr, shape)
    _log_resp_projection_kernel(y, bcat, const, w, log_resp, resp, lse)


def log_resp_from_maha(maha, const, w, log_resp, resp, lse):
    """Log-responsibilities from squared Mahalanobis distances.

    ``log rho_ik = const_k - 0.5 maha_ik``; otherwise as :func:`log_resp_from_projection`.

    Parameters
    ----------
    maha : ndarray of shape (n, K), float64, C-contiguous
    const : ndarray of shape (K,)
    w : ndarray of shape (n,)
    log_resp, resp : ndarray of shape (n, K)
        Outputs.
    lse : ndarray of shape (n,)
        Output, nats.

    Raises
    ------
    ValueError
        Wrong shapes, dtypes or layouts.
    """
    n, K = maha.shape
    for name, arr, shape in (("maha", maha, (n, K)), ("const", const, (K,)), ("w", w, (n,)),
                             ("log_resp", log_resp, (n, K)), ("resp", resp, (n, K)),
                             ("lse", lse, (n,))):
        _check_out(name, arr, shape)
    _log_resp_maha_kernel(maha, const, w, log_resp, resp, lse)
