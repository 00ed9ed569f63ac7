"""numba kernels of hidden Markov chains whose transition matrix changes at every step (the
input-output HMM of Bengio & Frasconi 1995): the scaled forward-backward (Rabiner 1989,
section V.A, with ``A_t`` in place of ``A``) and the Viterbi path in log space.

Conventions: ``offsets`` (n_sequences + 1,) delimit the stacked rows; ``frame`` (n_samples, K)
holds the scaled emission probabilities ``exp(log p(x_t | k) - log_offset[t])``;
``startprob`` (n_sequences, K) the initial distribution of each sequence; ``transmat``
(n_samples, K, K) the transition **into** row ``t``, ``transmat[t, i, j] = p(z_t = j | z_{t-1}
= i, u_t)`` (the matrix at a sequence's first row is not read). Each sequence writes its own
rows and its own slot of the per-sequence outputs, in a serial loop (the model is fitted on
few sequences; a serial kernel compiles in about a second). The NumPy oracles are in
:mod:`latentkit.testing._oracles_iohmm`. Only numpy, math and numba are imported here.
"""

import math

import numpy as np

from ._jit import jit

__all__ = ["iohmm_forward_backward", "iohmm_viterbi"]


@jit
def iohmm_forward_backward(frame, log_offset, startprob, transmat, Z, offsets, backward, gamma,
                           log_pred, xi_z, loglik):
    """Scaled forward(-backward) with per-step transition matrices.

    Parameters
    ----------
    frame : (n_samples, K) float64
    log_offset : (n_samples,) float64
    startprob : (n_sequences, K) float64
    transmat : (n_samples, K, K) float64
    Z : (n_samples, P) float64
        Regressors of each row; the expected transitions are accumulated against them.
    offsets : (n_sequences + 1,) int64
    backward : bool
        False: only ``log_pred`` and ``loglik`` are written (scoring).
    gamma : (n_samples, K) out
        ``p(z_t = k | x, u)`` (NaN rows for a sequence of probability zero).
    log_pred : (n_samples,) out
        ``log p(x_t | x_<t, u)``, nats (``-inf`` from the first impossible step on).
    xi_z : (n_sequences, K, K, P) out
        ``sum_t p(z_{t-1} = i, z_t = j | x, u) Z[t]`` over the rows after each sequence's
        first.
    loglik : (n_sequences,) out
        ``log p(x | u)`` per sequence, nats.
    """
    n_seq = offsets.shape[0] - 1
    K = frame.shape[1]
    P = Z.shape[1]
    for s in range(n_seq):
        a = offsets[s]
        b = offsets[s + 1]
        for i in range(K):
            for j in range(K):
                for q in range(P):
                    xi_z[s, i, j, q] = 0.0
        c = 0.0
        for k in range(K):
            v = startprob[s, k] * frame[a, k]
            gamma[a, k] = v
            c += v
        log_pred[a] = c
        first = b
        if c <= 0.0:
            first = a
        else:
            inv = 1.0 / c
            for k in range(K):
                gamma[a, k] *= inv
            for t in range(a + 1, b):
                c = 0.0
                for j in range(K):
                    acc = 0.0
                    for i in range(K):
                        acc += gamma[t - 1, i] * transmat[t, i, j]
                    gamma[t, j] = acc * frame[t, j]
                for j in range(K):
                    c += gamma[t, j]
                log_pred[t] = c
                if c <= 0.0:
                    first = t
                    break
                inv = 1.0 / c
                for j in range(K):
                    gamma[t, j] *= inv
        if first < b:
            for u in range(a, first):
                log_pred[u] = math.log(log_pred[u]) + log_offset[u]
            for u in range(first, b):
                log_pred[u] = -np.inf
                for k in range(K):
                    gamma[u, k] = np.nan
            loglik[s] = -np.inf
            continue
        if backward:
            beta = np.ones(K)
            tmp = np.empty(K)
            w = np.empty((K, K))
            for t in range(b - 2, a - 1, -1):
                inv = 1.0 / log_pred[t + 1]
                for j in range(K):
                    tmp[j] = frame[t + 1, j] * beta[j] * inv
                for i in range(K):
                    for j in range(K):
                        w[i, j] = gamma[t, i] * transmat[t + 1, i, j] * tmp[j]
                for i in range(K):
                    acc = 0.0
                    for j in range(K):
                        acc += transmat[t + 1, i, j] * tmp[j]
                    beta[i] = acc
                for i in range(K):
                    for j in range(K):
                        for q in range(P):
                            xi_z[s, i, j, q] += w[i, j] * Z[t + 1, q]
                norm = 0.0
                for i in range(K):
                    gamma[t, i] = gamma[t, i] * beta[i]
                for i in range(K):
                    norm += gamma[t, i]
                inv = 1.0 / norm
                for i in range(K):
                    gamma[t, i] *= inv
        ll = 0.0
        for t in range(a, b):
            v = math.log(log_pred[t]) + log_offset[t]
            log_pred[t] = v
            ll += v
        loglik[s] = ll


@jit
def iohmm_viterbi(log_frame, log_startprob, log_transmat, offsets, path, logprob):
    """Most probable state path of each sequence given the inputs (Viterbi 1967 in log space,
    with the per-step ``log_transmat``).

    Parameters
    ----------
    log_frame : (n_samples, K) float64
        ``log p(x_t | z_t = k)``.
    log_startprob : (n_sequences, K) float64
    log_transmat : (n_samples, K, K) float64
    offsets : (n_sequences + 1,) int64
    path : (n_samples,) int64 out
    logprob : (n_sequences,) out
        ``max_z log p(x, z | u)`` per sequence, nats.
    """
    n_seq = offsets.shape[0] - 1
    K = log_frame.shape[1]
    for s in range(n_seq):
        a = offsets[s]
        b = offsets[s + 1]
        T = b - a
        delta = np.empty((T, K))
        back = np.zeros((T, K), dtype=np.int64)
        for k in range(K):
            delta[0, k] = log_startprob[s, k] + log_frame[a, k]
        for t in range(1, T):
            for j in range(K):
                m = -np.inf
                arg = 0
                for i in range(K):
                    v = delta[t - 1, i] + log_transmat[a + t, i, j]
                    if v > m:
                        m = v
                        arg = i
                delta[t, j] = m + log_frame[a + t, j]
                back[t, j] = arg
        m = -np.inf
        arg = 0
        for k in range(K):
            if delta[T - 1, k] > m:
                m = delta[T - 1, k]
                arg = k
        logprob[s] = m
        path[a + T - 1] = arg
        for t in range(T - 1, 0, -1):
            arg = back[t, arg]
            path[a + t - 1] = arg
