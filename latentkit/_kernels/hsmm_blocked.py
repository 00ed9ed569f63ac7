"""The segment forward-backward of :mod:`latentkit._kernels.hsmm` for long sequences, in
memory ``O(block K + (T / block) D K)`` instead of six ``(T, K)`` work arrays.

The forward pass keeps only a checkpoint at the start of every block of ``block`` steps (the
``D`` rows of ``astar`` before it, the ``alpha`` row before it and the prefix log-likelihood);
the backward pass runs over the blocks from the last to the first, recomputes each block's
forward messages from its checkpoint (the same operations in the same order, so the same
numbers) and carries the ``D`` rows of ``beta`` and the row of ``bstar`` that the earlier block
reads (a Python loop over the blocks; the per-block kernels :func:`_forward_block` and
:func:`_backward_block` each compile in about the time of the unblocked forward and backward).
Each step computes what :func:`latentkit._kernels.hsmm.hsmm_backward` computes; the
occupancies are accumulated as ``first[t] - last[t - 1]`` in ``gamma`` and summed once at the
end, and the transition counts at each step of the backward pass, so the posteriors agree
with the unblocked kernel to rounding (1e-12, ``tests/sequence/test_hsmm_blocked.py``), not
bit for bit. The forward is done twice (recomputed once per block). Serial, like the
unblocked kernels. Only numpy, math and numba are imported here.
"""

import math

import numpy as np

from ._jit import jit
from .hsmm import _lse_given_max, hsmm_backward, hsmm_forward

__all__ = ["hsmm_forward_backward_any", "hsmm_forward_backward_blocked"]

_NEG_INF = -np.inf

#: Steps per block of the checkpointed forward-backward, and the length from which a sequence
#: uses it: its work arrays take ``O(HSMM_BLOCK K + (T / HSMM_BLOCK) D K)`` memory instead of
#: six ``(T, K)`` arrays. Both depend on the data only, never on the machine.
HSMM_BLOCK = 4096
HSMM_BLOCKED_MIN_LENGTH = 4 * HSMM_BLOCK


def hsmm_forward_backward_any(logb, log_pi, log_A, log_p, log_S, offsets, backward, gamma,
                              log_pred, start, trans, durations, loglik):
    """:func:`latentkit._kernels.hsmm.hsmm_forward_backward` (same arguments and outputs),
    with each sequence of at least ``HSMM_BLOCKED_MIN_LENGTH`` steps run by
    :func:`hsmm_forward_backward_blocked` (the same numbers to 1e-12) and the runs of shorter
    ones between them by the unblocked kernels (with no long sequence: exactly the unblocked
    call)."""
    lens = np.diff(offsets)
    long = lens >= HSMM_BLOCKED_MIN_LENGTH
    s = 0
    while s < lens.shape[0]:
        e = s + 1
        while e < lens.shape[0] and long[e] == long[s]:
            e += 1
        a, b = int(offsets[s]), int(offsets[e])
        off = offsets[s:e + 1] - a
        if long[s]:
            hsmm_forward_backward_blocked(logb[a:b], log_pi, log_A, log_p, log_S, off,
                                          HSMM_BLOCK, gamma[a:b], log_pred[a:b], start[s:e],
                                          trans[s:e], durations[s:e], loglik[s:e], backward)
        else:
            astar = np.empty((b - a, logb.shape[1]))
            alpha = np.empty((b - a, logb.shape[1]))
            hsmm_forward(logb[a:b], log_pi, log_A, log_p, log_S, off, astar, alpha,
                         log_pred[a:b], loglik[s:e])
            if backward:
                hsmm_backward(logb[a:b], log_A, log_p, log_S, off, astar, alpha, loglik[s:e],
                              gamma[a:b], start[s:e], trans[s:e], durations[s:e])
        s = e


@jit
def _forward_block(logb, a, b0, b1, log_pi, log_A, log_p, log_S, astar, alpha, prefix_prev,
                   log_pred, write_pred):
    """The forward recursion of :func:`latentkit._kernels.hsmm.hsmm_forward` over steps
    ``b0..b1-1`` of the sequence starting at row ``a``. ``astar`` (b1 - b0 + D, K): rows ``0..D-1``
    hold steps ``b0-D..b0-1`` on entry; ``alpha`` (b1 - b0 + 1, K): row 0 holds step ``b0-1``.
    Returns the prefix log-likelihood at ``b1 - 1``."""
    K = logb.shape[1]
    D = log_p.shape[1]
    tmp_p = np.empty(D)
    tmp_s = np.empty(D)
    pref = np.empty(K)
    col = np.empty(K)
    prefix = prefix_prev
    for t in range(b0, b1):
        r = t - b0 + D  # the row of step t in astar
        q = t - b0 + 1  # the row of step t in alpha
        for j in range(K):
            if t == 0:
                astar[r, j] = log_pi[j]
            else:
                m = _NEG_INF
                for i in range(K):
                    col[i] = alpha[q - 1, i] + log_A[i, j]
                    if col[i] > m:
                        m = col[i]
                if m == _NEG_INF:
                    astar[r, j] = _NEG_INF
                else:
                    acc = 0.0
                    for i in range(K):
                        acc += math.exp(col[i] - m)
                    astar[r, j] = m + math.log(acc)
        for j in range(K):
            nd = min(D, t + 1)
            seg = 0.0
            mp = _NEG_INF
            ms = _NEG_INF
            for d in range(1, nd + 1):
                seg += logb[a + t - d + 1, j]
                base = astar[r - d + 1, j] + seg
                vp = base + log_p[j, d - 1]
                vs = base + log_S[j, d - 1]
                tmp_p[d - 1] = vp
                tmp_s[d - 1] = vs
                if vp > mp:
                    mp = vp
                if vs > ms:
                    ms = vs
            alpha[q, j] = _lse_given_max(tmp_p, nd, mp)
            pref[j] = _lse_given_max(tmp_s, nd, ms)
        m = _NEG_INF
        for j in range(K):
            if pref[j] > m:
                m = pref[j]
        new = _lse_given_max(pref, K, m)
        if write_pred:
            if new == _NEG_INF:
                log_pred[a + t] = _NEG_INF
            elif t == 0:
                log_pred[a + t] = new
            else:
                log_pred[a + t] = new - prefix
        prefix = new
    return prefix


@jit
def _backward_block(logb, a, T, b0, b1, log_A, log_p, log_S, astar, alpha, beta, bstar, ll,
                    gamma, trans, durations, censor):
    """The backward steps ``b1-1..b0`` of :func:`latentkit._kernels.hsmm.hsmm_backward` for
    one sequence (row ``a``, ``T`` steps), from the block's recomputed ``astar`` (row ``D + t -
    b0``) and ``alpha`` (row ``t - b0 + 1``); ``beta`` (block + D, K) and ``bstar`` (block + 1,
    K) hold step ``b0 + r`` in row ``r``, the rows after the block carried from the later one.
    Writes ``first[t] - last[t - 1]`` in ``gamma`` and adds to ``trans`` (K, K), ``durations``
    (K, D) and ``censor`` (K, D)."""
    K = logb.shape[1]
    D = log_p.shape[1]
    tmp_p = np.empty(D)
    col = np.empty(K)
    for t in range(b1 - 1, b0 - 1, -1):
        r = t - b0
        if t < T - 1:
            for j in range(K):
                m = _NEG_INF
                for k in range(K):
                    col[k] = log_A[j, k] + bstar[r + 1, k]
                    if col[k] > m:
                        m = col[k]
                beta[r, j] = _lse_given_max(col, K, m)
                last = math.exp(alpha[r + 1, j] + beta[r, j] - ll) \
                    if beta[r, j] > _NEG_INF else 0.0
                gamma[a + t + 1, j] -= last
        for k in range(K):
            nd = min(D, T - t)
            seg = 0.0
            mp = _NEG_INF
            for d in range(1, nd + 1):
                seg += logb[a + t + d - 1, k]
                if t + d == T:
                    v = seg + log_S[k, d - 1]
                else:
                    v = seg + log_p[k, d - 1] + beta[r + d - 1, k]
                tmp_p[d - 1] = v
                if v > mp:
                    mp = v
            bstar[r, k] = _lse_given_max(tmp_p, nd, mp)
            gamma[a + t, k] = 0.0
            if astar[r + D, k] == _NEG_INF:
                continue
            for d in range(1, nd + 1):
                if tmp_p[d - 1] == _NEG_INF:
                    continue
                w = math.exp(astar[r + D, k] + tmp_p[d - 1] - ll)
                if t + d == T:
                    censor[k, d - 1] = w
                else:
                    durations[k, d - 1] += w
            gamma[a + t, k] = math.exp(astar[r + D, k] + bstar[r, k] - ll) \
                if bstar[r, k] > _NEG_INF else 0.0
        if t < T - 1:
            for i in range(K):
                if alpha[r + 1, i] == _NEG_INF:
                    continue
                for j in range(K):
                    v = alpha[r + 1, i] + log_A[i, j] + bstar[r + 1, j]
                    if v > _NEG_INF:
                        trans[i, j] += math.exp(v - ll)


def hsmm_forward_backward_blocked(logb, log_pi, log_A, log_p, log_S, offsets, block, gamma,
                                  log_pred, start, trans, durations, loglik, backward=True):
    """Segment forward-backward with checkpointed forward messages (a Python loop over the
    blocks of each sequence, two compiled kernels per block).

    Parameters
    ----------
    logb, log_pi, log_A, log_p, log_S, offsets
        As :func:`latentkit._kernels.hsmm.hsmm_forward_backward`.
    block : int
        Steps per block (>= 1).
    gamma, log_pred, start, trans, durations, loglik : out
        As :func:`latentkit._kernels.hsmm.hsmm_forward_backward` with ``backward=True``
        (a sequence of probability zero: ``log_pred`` and ``loglik`` only).
    backward : bool, default True
        False: only ``log_pred`` and ``loglik`` (scoring).
    """
    K = logb.shape[1]
    D = log_p.shape[1]
    block = int(block)
    for s in range(offsets.shape[0] - 1):
        a = int(offsets[s])
        T = int(offsets[s + 1]) - a
        nb = (T + block - 1) // block
        ck_astar = np.empty((nb, D, K))
        ck_alpha = np.empty((nb, K))
        ck_prefix = np.empty(nb)
        astar = np.full((block + D, K), _NEG_INF)
        alpha = np.full((block + 1, K), _NEG_INF)
        prefix = 0.0
        for bi in range(nb):  # forward: log_pred, loglik and the checkpoints
            b0, b1 = bi * block, min(T, (bi + 1) * block)
            ck_astar[bi], ck_alpha[bi], ck_prefix[bi] = astar[:D], alpha[0], prefix
            prefix = _forward_block(logb, a, b0, b1, log_pi, log_A, log_p, log_S, astar,
                                    alpha, prefix, log_pred, True)
            astar[:D] = astar[b1 - b0:b1 - b0 + D].copy()  # the D rows before the next block
            alpha[0] = alpha[b1 - b0]
        loglik[s] = prefix
        if not backward or not np.isfinite(prefix):
            continue
        trans[s] = 0.0
        durations[s] = 0.0
        censor = np.zeros((K, D))
        beta = np.full((block + D, K), _NEG_INF)
        bstar = np.full((block + 1, K), _NEG_INF)
        for bi in range(nb - 1, -1, -1):  # backward, from the last block
            b0, b1 = bi * block, min(T, (bi + 1) * block)
            astar[:D], alpha[0] = ck_astar[bi], ck_alpha[bi]
            _forward_block(logb, a, b0, b1, log_pi, log_A, log_p, log_S, astar, alpha,
                           ck_prefix[bi], log_pred, False)
            _backward_block(logb, a, T, b0, b1, log_A, log_p, log_S, astar, alpha, beta, bstar,
                            prefix, gamma, trans[s], durations[s], censor)
            # what the earlier (full) block reads: beta of steps b0..b0+D-1, bstar of step b0
            beta[block:block + D] = beta[:D].copy()
            bstar[block] = bstar[0]
        # the censored last segment's full duration (as hsmm_backward)
        for k in range(K):
            acc = 0.0
            for d in range(D):
                if censor[k, d] > 0.0:
                    acc += censor[k, d] / math.exp(log_S[k, d])
                if acc > 0.0 and log_p[k, d] > _NEG_INF:
                    durations[s, k, d] += acc * math.exp(log_p[k, d])
        # occupancies: gamma holds first[t] - last[t - 1]
        # summed block by block (a block-sized temporary, the same sums in the same order)
        start[s] = gamma[a]
        carry = np.zeros(K)
        for b0 in range(0, T, block):
            rows = gamma[a + b0:a + min(T, b0 + block)]
            rows[0] += carry
            occ = np.cumsum(rows, axis=0)
            carry = occ[-1]
            np.maximum(occ, 0.0, out=rows)
