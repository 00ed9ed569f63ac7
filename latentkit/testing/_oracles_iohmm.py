"""Naive NumPy oracles of the input-output HMM kernels (:mod:`latentkit._kernels.iohmm`).

Log-space forward and backward recursions with :func:`scipy.special.logsumexp` and per-step
transition matrices (no scaling, a different algorithm from the kernels' scaled one), and a
log-space Viterbi written with whole-array maxima. Compared to the kernels to 1e-10 in
``tests/sequence/test_iohmm.py``.
"""

import numpy as np
from scipy.special import logsumexp

__all__ = ["iohmm_forward_backward_oracle", "iohmm_viterbi_oracle"]


def iohmm_forward_backward_oracle(logb, log_startprob, log_transmat, Z, offsets):
    """Posteriors and log-likelihoods of a chain with per-step transition matrices.

    Parameters
    ----------
    logb : ndarray of shape (n_samples, K)
        ``log p(x_t | z_t = k)``.
    log_startprob : ndarray of shape (n_sequences, K)
    log_transmat : ndarray of shape (n_samples, K, K)
        Row ``t``: the transition into step ``t``.
    Z : ndarray of shape (n_samples, P)
    offsets : ndarray of shape (n_sequences + 1,)

    Returns
    -------
    dict
        ``gamma`` (n_samples, K), ``log_pred`` (n_samples,), ``xi_z`` (n_sequences, K, K, P),
        ``loglik`` (n_sequences,): as :func:`latentkit._kernels.iohmm.iohmm_forward_backward`.
    """
    T, K = logb.shape
    n_seq = len(offsets) - 1
    out = {"gamma": np.zeros((T, K)), "log_pred": np.zeros(T),
           "xi_z": np.zeros((n_seq, K, K, Z.shape[1])), "loglik": np.zeros(n_seq)}
    for s in range(n_seq):
        a, b = int(offsets[s]), int(offsets[s + 1])
        la = np.empty((b - a, K))
        la[0] = log_startprob[s] + logb[a]
        for t in range(1, b - a):
            la[t] = logsumexp(la[t - 1][:, None] + log_transmat[a + t], axis=0) + logb[a + t]
        lb = np.zeros((b - a, K))
        for t in range(b - a - 2, -1, -1):
            lb[t] = logsumexp(log_transmat[a + t + 1] + (logb[a + t + 1] + lb[t + 1])[None],
                              axis=1)
        prefix = logsumexp(la, axis=1)
        ll = prefix[-1]
        out["loglik"][s] = ll
        out["log_pred"][a:b] = np.diff(np.concatenate([[0.0], prefix]))
        out["gamma"][a:b] = np.exp(la + lb - ll)
        for t in range(1, b - a):
            xi = np.exp(la[t - 1][:, None] + log_transmat[a + t]
                        + (logb[a + t] + lb[t])[None] - ll)
            out["xi_z"][s] += xi[:, :, None] * Z[a + t][None, None]
    return out


def iohmm_viterbi_oracle(logb, log_startprob, log_transmat, offsets):
    """Most probable path per sequence (log-space Viterbi with per-step transitions).

    Returns
    -------
    path : ndarray of shape (n_samples,) of int
    logprob : ndarray of shape (n_sequences,)
    """
    T, K = logb.shape
    path = np.zeros(T, dtype=np.int64)
    logprob = np.zeros(len(offsets) - 1)
    for s in range(len(offsets) - 1):
        a, b = int(offsets[s]), int(offsets[s + 1])
        delta = log_startprob[s] + logb[a]
        back = []
        for t in range(a + 1, b):
            cand = delta[:, None] + log_transmat[t]
            back.append(np.argmax(cand, axis=0))
            delta = cand.max(axis=0) + logb[t]
        k = int(np.argmax(delta))
        logprob[s] = delta[k]
        path[b - 1] = k
        for t in range(b - 1, a, -1):
            k = int(back[t - a - 1][k])
            path[t - 1] = k
    return path, logprob
