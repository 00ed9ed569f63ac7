"""Naive NumPy oracles of the hidden semi-Markov kernels (:mod:`latentkit._kernels.hsmm`).

The forward-backward oracle is a different algorithm from the kernel: the **expanded-state
HMM** of the semi-Markov model (state ``(k, r)``, ``r`` the steps left in the current segment,
counting down; Yu 2010, section 4.1), run by a log-space forward-backward over ``K D`` states
with :func:`scipy.special.logsumexp`. Its right-censoring is automatic (the chain may stop in
any countdown state), and the full duration of a segment is the countdown value it is entered
with, so the expected duration counts include the censored last segment's imputed duration as
the kernel's do. The Viterbi oracle is the segment recursion written with a full table of
segment log-likelihoods. Compared to the kernels to 1e-10 in ``tests/sequence/test_hsmm.py``.
"""

import numpy as np
from scipy.special import logsumexp

__all__ = ["hsmm_forward_backward_oracle", "hsmm_viterbi_oracle"]


def _expanded(log_pi, log_A, log_p):
    """Log start (K D,) and transition (K D, K D) of the countdown chain; index ``k D + r - 1``
    is state ``k`` with ``r`` steps left."""
    K, D = log_p.shape
    start = (log_pi[:, None] + log_p).ravel()
    A = np.full((K * D, K * D), -np.inf)
    for k in range(K):
        for r in range(2, D + 1):
            A[k * D + r - 1, k * D + r - 2] = 0.0
        for j in range(K):
            A[k * D, j * D:(j + 1) * D] = log_A[k, j] + log_p[j]
    return start, A


def hsmm_forward_backward_oracle(logb, log_pi, log_A, log_p, offsets):
    """Posteriors and log-likelihood of an explicit-duration HSMM by its expanded-state HMM.

    Parameters
    ----------
    logb : ndarray of shape (n_samples, K)
        ``log p(x_t | state k)``.
    log_pi : ndarray of shape (K,)
    log_A : ndarray of shape (K, K)
    log_p : ndarray of shape (K, D)
        Log duration pmf, column ``d - 1`` for duration ``d``.
    offsets : ndarray of shape (n_sequences + 1,)

    Returns
    -------
    dict
        ``gamma`` (n_samples, K), ``log_pred`` (n_samples,), ``start`` (n_sequences, K),
        ``trans`` (n_sequences, K, K), ``durations`` (n_sequences, K, D), ``loglik``
        (n_sequences,): as :func:`latentkit._kernels.hsmm.hsmm_forward_backward`.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.testing import hsmm_forward_backward_oracle
    >>> logb = np.log(np.full((3, 2), 0.5))
    >>> log_pi = np.log([0.5, 0.5]); log_A = np.log([[0.0 + 1e-300, 1.0], [1.0, 1e-300]])
    >>> log_p = np.log([[0.5, 0.5], [0.5, 0.5]])  # durations 1 or 2
    >>> out = hsmm_forward_backward_oracle(logb, log_pi, log_A, log_p, np.array([0, 3]))
    >>> out["gamma"].shape, out["durations"].shape
    ((3, 2), (1, 2, 2))
    >>> np.round(out["loglik"], 6)  # every path emits 3 symbols of probability 1/2
    array([-2.079442])
    """
    logb = np.asarray(logb, dtype=float)
    K, D = log_p.shape
    n_seq = len(offsets) - 1
    out = {"gamma": np.zeros((logb.shape[0], K)), "log_pred": np.zeros(logb.shape[0]),
           "start": np.zeros((n_seq, K)), "trans": np.zeros((n_seq, K, K)),
           "durations": np.zeros((n_seq, K, D)), "loglik": np.zeros(n_seq)}
    start, A = _expanded(log_pi, log_A, log_p)
    for s in range(n_seq):
        a, b = int(offsets[s]), int(offsets[s + 1])
        T = b - a
        lb = np.repeat(logb[a:b], D, axis=1)  # (T, K D)
        la = np.empty((T, K * D))
        la[0] = start + lb[0]
        for t in range(1, T):
            la[t] = logsumexp(la[t - 1][:, None] + A, axis=0) + lb[t]
        lbeta = np.zeros((T, K * D))
        for t in range(T - 2, -1, -1):
            lbeta[t] = logsumexp(A + (lb[t + 1] + lbeta[t + 1])[None, :], axis=1)
        prefix = logsumexp(la, axis=1)
        ll = prefix[-1]
        out["loglik"][s] = ll
        out["log_pred"][a:b] = np.diff(prefix, prepend=0.0)
        post = np.exp(la + lbeta - ll)  # (T, K D)
        out["gamma"][a:b] = post.reshape(T, K, D).sum(axis=2)
        entered = np.zeros((K, D))
        entered += post[0].reshape(K, D)
        out["start"][s] = post[0].reshape(K, D).sum(axis=1)
        for t in range(T - 1):
            xi = np.exp(la[t][:, None] + A + (lb[t + 1] + lbeta[t + 1])[None, :] - ll)
            ends = xi.reshape(K, D, K, D)[:, 0]  # from (i, 1) to (j, r): a new segment
            entered += ends.sum(axis=0)
            out["trans"][s] += ends.sum(axis=2)
        out["durations"][s] = entered
    return out


def hsmm_viterbi_oracle(logb, log_pi, log_A, log_p, log_S, offsets):
    """Best segmentation by the segment Viterbi with a table of segment log-likelihoods.

    Parameters
    ----------
    logb, log_pi, log_A, log_p, offsets
        As in :func:`hsmm_forward_backward_oracle`.
    log_S : ndarray of shape (K, D)
        Log survival function ``log sum_{d' >= d} p(d')`` (the censored last segment).

    Returns
    -------
    path : ndarray of shape (n_samples,) of int
    logprob : ndarray of shape (n_sequences,)

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.testing import hsmm_viterbi_oracle
    >>> logb = np.log([[0.9, 0.1], [0.9, 0.1], [0.1, 0.9]])
    >>> log_pi = np.log([0.5, 0.5]); log_A = np.log([[1e-300, 1.0], [1.0, 1e-300]])
    >>> log_p = np.log([[0.5, 0.5], [0.5, 0.5]])
    >>> log_S = np.log([[1.0, 0.5], [1.0, 0.5]])
    >>> path, logprob = hsmm_viterbi_oracle(logb, log_pi, log_A, log_p, log_S, np.array([0, 3]))
    >>> path
    array([0, 0, 1])
    """
    logb = np.asarray(logb, dtype=float)
    K, D = log_p.shape
    path = np.zeros(logb.shape[0], dtype=int)
    logprob = np.zeros(len(offsets) - 1)
    for s in range(len(offsets) - 1):
        a, b = int(offsets[s]), int(offsets[s + 1])
        T = b - a
        cum = np.vstack([np.zeros(K), np.cumsum(logb[a:b], axis=0)])  # (T + 1, K)
        # best[t] = (score, state, duration, previous state) of the best segmentation of
        # x_0..x_t whose last segment ends at t (complete)
        delta = np.full((T, K), -np.inf)
        back = {}
        for t in range(T):
            for j in range(K):
                for d in range(1, min(D, t + 1) + 1):
                    s0 = t - d + 1
                    seg = cum[t + 1, j] - cum[s0, j]
                    if s0 == 0:
                        v, arg = log_pi[j], -1
                    else:
                        cand = delta[s0 - 1] + log_A[:, j]
                        arg = int(np.argmax(cand))
                        v = cand[arg]
                    v = v + seg + log_p[j, d - 1]
                    if v > delta[t, j]:
                        delta[t, j] = v
                        back[t, j] = (d, arg)
        best, end = -np.inf, None
        for j in range(K):
            for d in range(1, min(D, T) + 1):
                s0 = T - d
                seg = cum[T, j] - cum[s0, j]
                if s0 == 0:
                    v, arg = log_pi[j], -1
                else:
                    cand = delta[s0 - 1] + log_A[:, j]
                    arg = int(np.argmax(cand))
                    v = cand[arg]
                v = v + seg + log_S[j, d - 1]
                if v > best:
                    best, end = v, (j, d, arg)
        logprob[s] = best
        j, d, arg = end
        t = T - 1
        while True:
            path[a + t - d + 1:a + t + 1] = j
            t -= d
            if t < 0:
                break
            j = arg
            d, arg = back[t, j]
    return path, logprob
