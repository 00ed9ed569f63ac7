"""numba kernels of explicit-duration hidden semi-Markov models: the segment forward-backward
(Yu 2010, "Hidden semi-Markov models", Artif. Intell. 174, section 3.1, in O(T K D)) and the
segment Viterbi, in log space.

The model (per sequence of ``T`` steps): a first segment starts at ``t = 0`` in state ``j``
with probability ``startprob[j]``; a segment of state ``j`` lasts ``d`` steps with
probability ``p_j(d)`` (``1 <= d <= D``) and emits its ``d`` observations independently given
``j``; the next segment's state is drawn from ``transmat[j]``. The last segment is
**right-censored** (Guedon 2003): it has lasted at least the steps left, with probability
``S_j(d) = sum_{d' >= d} p_j(d')``, so the sequence need not end at a segment boundary (as an
HMM's does not; with ``D = 1`` the model is the HMM with ``transmat``).

Conventions: ``offsets`` (n_sequences + 1,) delimit the stacked rows; ``logb`` (n_samples, K)
holds ``log p(x_t | state k)``; ``log_p`` and ``log_S`` (K, D) the log duration pmf and
survival function (column ``d - 1`` for duration ``d``). Each sequence writes its own rows and
its own slot of the per-sequence outputs (callers sum them in index order). The kernels are
serial: compiled with ``parallel=True`` (prange over sequences) the one forward-backward kernel
took 8 s of CPU to compile against 3 s serial (semi-Markov fits are usually on few sequences),
and it is split in a forward and a backward kernel so that each compiles in under 2 s.
The NumPy oracles are in :mod:`latentkit.testing._oracles_hsmm`.
Only numpy, math and numba are imported here (DESIGN.md section 4).
"""

import math

import numpy as np

from ._jit import jit

__all__ = ["hsmm_forward_backward", "hsmm_forward", "hsmm_backward", "hsmm_viterbi"]

_NEG_INF = -np.inf


def hsmm_forward_backward(logb, log_pi, log_A, log_p, log_S, offsets, backward, gamma,
                          log_pred, start, trans, durations, loglik):
    """Segment forward(-backward) over stacked sequences: :func:`hsmm_forward`, then (with
    ``backward``) :func:`hsmm_backward` (two kernels, each compiled in about half the time of
    one).

    Forward (Yu 2010, eqs. 9-10): ``astar[t, j] = log P(x_<t, a segment of j starts at t)``,
    ``alpha[t, j] = log P(x_<=t, a segment of j ends at t)``; the prefix log-likelihood
    ``log P(x_<=t)`` sums the segments ending at ``t`` and the censored ones still running.
    Backward: ``bstar[s, k] = log P(x_>=s | a segment of k starts at s)``,
    ``beta[t, j] = log P(x_>t | a segment of j ends at t)``.

    Parameters
    ----------
    logb : (n_samples, K) float64
    log_pi : (K,) ; log_A : (K, K) ; log_p, log_S : (K, D)
    offsets : (n_sequences + 1,) int64
    backward : bool
        False: only ``log_pred`` and ``loglik`` are written (scoring).
    gamma : (n_samples, K) out
        ``P(z_t = k | x)``.
    log_pred : (n_samples,) out
        ``log p(x_t | x_<t)`` (``-inf`` from the first impossible step on).
    start : (n_sequences, K) out
        ``P(first segment in k | x)``.
    trans : (n_sequences, K, K) out
        Expected numbers of segment transitions ``i -> j``.
    durations : (n_sequences, K, D) out
        Expected numbers of segments of state ``k`` lasting ``d`` steps; the censored last
        segment's full duration is imputed from ``p_k(d' | d' >= d)`` (the EM of Guedon 2003).
    loglik : (n_sequences,) out
        ``log p(x)`` per sequence, nats.
    """
    astar = np.empty(logb.shape)
    alpha = np.empty(logb.shape)
    hsmm_forward(logb, log_pi, log_A, log_p, log_S, offsets, astar, alpha, log_pred, loglik)
    if backward:
        hsmm_backward(logb, log_A, log_p, log_S, offsets, astar, alpha, loglik, gamma, start,
                      trans, durations)


@jit
def hsmm_forward(logb, log_pi, log_A, log_p, log_S, offsets, astar, alpha, log_pred, loglik):
    """The forward pass of :func:`hsmm_forward_backward`: writes ``astar``, ``alpha``
    (n_samples, K), ``log_pred`` and ``loglik``."""
    n_seq = offsets.shape[0] - 1
    K = logb.shape[1]
    D = log_p.shape[1]
    for s in range(n_seq):
        a = offsets[s]
        T = offsets[s + 1] - a
        prefix = np.empty(T)
        tmp_p = np.empty(D)
        tmp_s = np.empty(D)
        pref = np.empty(K)
        col = np.empty(K)
        for t in range(T):
            for j in range(K):
                if t == 0:
                    astar[a + t, j] = log_pi[j]
                else:
                    m = _NEG_INF
                    for i in range(K):
                        col[i] = alpha[a + t - 1, i] + log_A[i, j]
                        if col[i] > m:
                            m = col[i]
                    if m == _NEG_INF:
                        astar[a + t, j] = _NEG_INF
                    else:
                        acc = 0.0
                        for i in range(K):
                            acc += math.exp(col[i] - m)
                        astar[a + t, j] = m + math.log(acc)
            for j in range(K):
                nd = min(D, t + 1)
                seg = 0.0
                mp = _NEG_INF
                ms = _NEG_INF
                for d in range(1, nd + 1):
                    seg += logb[a + t - d + 1, j]
                    base = astar[a + t - d + 1, j] + seg
                    vp = base + log_p[j, d - 1]
                    vs = base + log_S[j, d - 1]
                    tmp_p[d - 1] = vp
                    tmp_s[d - 1] = vs
                    if vp > mp:
                        mp = vp
                    if vs > ms:
                        ms = vs
                alpha[a + t, j] = _lse_given_max(tmp_p, nd, mp)
                pref[j] = _lse_given_max(tmp_s, nd, ms)
            m = _NEG_INF
            for j in range(K):
                if pref[j] > m:
                    m = pref[j]
            prefix[t] = _lse_given_max(pref, K, m)
            if prefix[t] == _NEG_INF:
                log_pred[a + t] = _NEG_INF
            elif t == 0:
                log_pred[a + t] = prefix[t]
            else:
                log_pred[a + t] = prefix[t] - prefix[t - 1]
        loglik[s] = prefix[T - 1]


@jit
def hsmm_backward(logb, log_A, log_p, log_S, offsets, astar, alpha, loglik, gamma, start, trans,
                  durations):
    """The backward pass and the posteriors of :func:`hsmm_forward_backward`, from the
    forward pass's ``astar``, ``alpha`` and ``loglik`` (a sequence of probability zero is left
    unwritten)."""
    n_seq = offsets.shape[0] - 1
    K = logb.shape[1]
    D = log_p.shape[1]
    for s in range(n_seq):
        a = offsets[s]
        T = offsets[s + 1] - a
        ll = loglik[s]
        if ll == _NEG_INF or math.isnan(ll):
            continue
        tmp_p = np.empty(D)
        col = np.empty(K)
        beta = np.empty((T, K))
        bstar = np.empty((T, K))
        first = np.zeros((T, K))  # P(a segment of k starts at t | x)
        last = np.zeros((T, K))   # P(a segment of k ends at t | x), t < T - 1
        censor = np.zeros((K, D))
        for k in range(K):
            for d in range(D):
                durations[s, k, d] = 0.0
            for j in range(K):
                trans[s, k, j] = 0.0
        for t in range(T - 1, -1, -1):
            if t < T - 1:
                for j in range(K):
                    m = _NEG_INF
                    for k in range(K):
                        col[k] = log_A[j, k] + bstar[t + 1, k]
                        if col[k] > m:
                            m = col[k]
                    beta[t, j] = _lse_given_max(col, K, m)
                    last[t, j] = math.exp(alpha[a + t, j] + beta[t, j] - ll) \
                        if beta[t, j] > _NEG_INF else 0.0
            for k in range(K):
                nd = min(D, T - t)
                seg = 0.0
                mp = _NEG_INF
                for d in range(1, nd + 1):
                    seg += logb[a + t + d - 1, k]
                    if t + d == T:
                        v = seg + log_S[k, d - 1]
                    else:
                        v = seg + log_p[k, d - 1] + beta[t + d - 1, k]
                    tmp_p[d - 1] = v
                    if v > mp:
                        mp = v
                bstar[t, k] = _lse_given_max(tmp_p, nd, mp)
                if astar[a + t, k] == _NEG_INF:
                    continue
                for d in range(1, nd + 1):
                    if tmp_p[d - 1] == _NEG_INF:
                        continue
                    w = math.exp(astar[a + t, k] + tmp_p[d - 1] - ll)
                    if t + d == T:
                        censor[k, d - 1] = w
                    else:
                        durations[s, k, d - 1] += w
                first[t, k] = math.exp(astar[a + t, k] + bstar[t, k] - ll) \
                    if bstar[t, k] > _NEG_INF else 0.0
        # the censored last segment: its full duration d' >= d drawn from p_k(d' | d' >= d)
        for k in range(K):
            acc = 0.0
            for d in range(D):
                if censor[k, d] > 0.0:
                    acc += censor[k, d] / math.exp(log_S[k, d])
                if acc > 0.0 and log_p[k, d] > _NEG_INF:
                    durations[s, k, d] += acc * math.exp(log_p[k, d])
        # occupancies: segments started by t minus those ended before t
        for k in range(K):
            start[s, k] = first[0, k]
            occ = 0.0
            for t in range(T):
                occ += first[t, k]
                if t > 0:
                    occ -= last[t - 1, k]
                gamma[a + t, k] = occ if occ > 0.0 else 0.0
        for t in range(T - 1):
            for i in range(K):
                if alpha[a + t, i] == _NEG_INF:
                    continue
                for j in range(K):
                    v = alpha[a + t, i] + log_A[i, j] + bstar[t + 1, j]
                    if v > _NEG_INF:
                        trans[s, i, j] += math.exp(v - ll)




@jit
def _lse_given_max(v, n, m):
    """``log sum exp v[:n]`` given its maximum ``m`` (``-inf`` when every entry is)."""
    if m == _NEG_INF:
        return _NEG_INF
    acc = 0.0
    for i in range(n):
        acc += math.exp(v[i] - m)
    return m + math.log(acc)


@jit
def hsmm_viterbi(logb, log_pi, log_A, log_p, log_S, offsets, path, logprob):
    """Most probable segmentation (states and durations) of each sequence, the max-product
    form of :func:`hsmm_forward_backward` (Yu 2010, section 3.3); the last segment censored.

    Parameters
    ----------
    logb, log_pi, log_A, log_p, log_S, offsets
        As in :func:`hsmm_forward_backward`.
    path : (n_samples,) int64 out
        The state of every step along the best segmentation.
    logprob : (n_sequences,) out
        ``max log p(x, segmentation)`` per sequence, nats.
    """
    n_seq = offsets.shape[0] - 1
    K = logb.shape[1]
    D = log_p.shape[1]
    for s in range(n_seq):
        a = offsets[s]
        T = offsets[s + 1] - a
        dstar = np.empty((T, K))
        prev = np.zeros((T, K), dtype=np.int64)
        delta = np.empty((T, K))
        best_d = np.ones((T, K), dtype=np.int64)
        for t in range(T):
            for j in range(K):
                if t == 0:
                    dstar[t, j] = log_pi[j]
                else:
                    m = _NEG_INF
                    arg = 0
                    for i in range(K):
                        v = delta[t - 1, i] + log_A[i, j]
                        if v > m:
                            m = v
                            arg = i
                    dstar[t, j] = m
                    prev[t, j] = arg
            for j in range(K):
                seg = 0.0
                m = _NEG_INF
                arg = 1
                for d in range(1, min(D, t + 1) + 1):
                    seg += logb[a + t - d + 1, j]
                    v = dstar[t - d + 1, j] + seg + log_p[j, d - 1]
                    if v > m:
                        m = v
                        arg = d
                delta[t, j] = m
                best_d[t, j] = arg
        # the censored last segment
        m = _NEG_INF
        j_end = 0
        d_end = 1
        for j in range(K):
            seg = 0.0
            for d in range(1, min(D, T) + 1):
                seg += logb[a + T - d, j]
                v = dstar[T - d, j] + seg + log_S[j, d - 1]
                if v > m:
                    m = v
                    j_end = j
                    d_end = d
        logprob[s] = m
        t = T - 1
        j = j_end
        d = d_end
        while True:
            for u in range(t - d + 1, t + 1):
                path[a + u] = j
            t = t - d
            if t < 0:
                break
            j = prev[t + 1, j]
            d = best_d[t, j]
