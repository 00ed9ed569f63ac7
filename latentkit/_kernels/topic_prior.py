"""numba kernel of LDA's E-step under an asymmetric document-topic prior alpha (K,).

The same per-document coordinate ascent as :func:`latentkit._kernels.topic.lda_e_step` (Blei,
Ng & Jordan 2003, section 5.2, Fig. 6, with phi eliminated as in Hoffman, Blei & Bach 2010)::

    gamma_k <- alpha_k + exp(E[log theta_k]) * sum_j n_j exp(E[log beta_{k w_j}]) / phinorm_j,

with the same shifted tables, stopping rule and thread-count independent schedule; only alpha
is a vector, so the start is ``alpha_k + N_d / K`` and the theta terms of the local ELBO are
``lnGamma(sum_k alpha_k) - sum_k lnGamma(alpha_k) + sum_k (alpha_k - 1) E[log theta_k]`` (Blei
et al. 2003, eq. 15). A separate kernel, so the symmetric kernel (the default) is untouched.

Imports only numpy, math and numba (DESIGN.md section 4).
"""

import math

import numpy as np

from ._jit import jit, prange
from .topic import _exp_elog_shifted, _final_pass, _sweep, digamma

__all__ = ["lda_e_step_asym"]


@jit
def _final_pass_asym(indices, data, s, e, nd, exp_beta_t, beta_shift, alpha, const, g, t,
                     psi_d, ratio):
    """The ratios n_j / phinorm_j and the local ELBO (nats) at fixed gamma, alpha a vector:
    the symmetric pass with alpha = 0 plus ``sum_k alpha_k E[log theta_k]``."""
    K = exp_beta_t.shape[1]
    val = _final_pass(indices, data, s, e, nd, exp_beta_t, beta_shift, 0.0, const, g, t, psi_d,
                      ratio)
    gsum = 0.0
    for k in range(K):
        gsum += g[k]
    psi_sum = digamma(gsum)
    for k in range(K):
        val += alpha[k] * (psi_d[k] - psi_sum)
    return val


@jit
def _doc_e_step_asym(indices, data, s, e, exp_beta_t, beta_shift, alpha, const, g, t, psi_d,
                     acc, warm_start, max_iter, tol, ratio):
    """One document (serial). Returns (local ELBO in nats, sweeps run)."""
    K = exp_beta_t.shape[1]
    nd = 0.0
    for j in range(s, e):
        nd += data[j]
    if nd <= 0.0:  # empty document: q(theta) = p(theta), contributes exactly 0
        for k in range(K):
            g[k] = alpha[k]
            t[k] = 1.0
        for j in range(s, e):
            ratio[j] = 0.0
        return 0.0, 0
    if not warm_start:
        for k in range(K):
            g[k] = alpha[k] + nd / K
    _exp_elog_shifted(g, psi_d, t)
    it = 0
    while it < max_iter:
        it += 1
        _sweep(indices, data, s, e, exp_beta_t, t, acc)
        change = 0.0  # two loops, as in the symmetric kernel (a fixed summation order)
        for k in range(K):
            change += abs(alpha[k] + t[k] * acc[k] - g[k])
        for k in range(K):
            g[k] = alpha[k] + t[k] * acc[k]
        _exp_elog_shifted(g, psi_d, t)
        if change / K < tol:
            break
    val = _final_pass_asym(indices, data, s, e, nd, exp_beta_t, beta_shift, alpha, const, g, t,
                           psi_d, ratio)
    return val, it


@jit(parallel=True)
def lda_e_step_asym(indptr, indices, data, exp_beta_t, beta_shift, alpha, gamma, warm_start,
                    max_iter, tol, exp_theta, ratio, doc_elbo, n_iter):
    """:func:`latentkit._kernels.topic.lda_e_step` with ``alpha`` a float64[K] vector (> 0);
    every other argument and output as there."""
    D = indptr.shape[0] - 1
    K = exp_beta_t.shape[1]
    const = 0.0
    asum = 0.0
    for k in range(K):
        const -= math.lgamma(alpha[k])
        asum += alpha[k]
    const += math.lgamma(asum)
    for d in prange(D):
        psi_d = np.empty(K)
        acc = np.empty(K)
        val, it = _doc_e_step_asym(indices, data, indptr[d], indptr[d + 1], exp_beta_t,
                                   beta_shift, alpha, const, gamma[d], exp_theta[d], psi_d, acc,
                                   warm_start, max_iter, tol, ratio)
        doc_elbo[d] = val
        n_iter[d] = it
