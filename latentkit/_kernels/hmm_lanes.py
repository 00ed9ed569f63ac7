"""numba kernel of the scaled forward-backward over four sequences of equal length in lockstep.

One sequence's forward-backward is a chain of dependent steps: each step's K x K product
waits for the previous step's message and its normaliser (a sum and a division), so one core
idles most of each step (K = 10: about 36 ns per step forward, a quarter of its arithmetic
rate). Four sequences stepped together give four independent chains in the same loop body,
which the core overlaps. Each lane does exactly the arithmetic of
:func:`latentkit._kernels.hmm.fb_sequences` on its sequence, in the same order, so the
posteriors, transition counts and predictive densities are bit-for-bit those of the
per-sequence kernel (the lanes are scalar variables: no reduction crosses lanes); the
per-sequence log-likelihood, a sum the compiler may vectorise, can differ in the last bit.
:func:`lockstep_plan` picks the groups, and only where the work pays for compiling this
kernel (a small fit never compiles it).

The lanes are written out as scalars (``x0 .. x3``): an array of lane accumulators stays in
memory and was slower than one sequence at a time. Lanes interleaved in memory (``(T, K, 8)``
messages, the lane loop innermost) were tried as well (issue 46): numba runs LLVM without its
SLP vectoriser (``NUMBA_SLP_VECTORIZE=0``), a constant 8-lane loop is unrolled to scalars,
and with a run-time lane count the loop vectoriser kept the accumulators in memory: 2x slower.

Only numpy, math and numba are imported here (DESIGN.md section 4).
"""

import math

import numpy as np

from ._jit import jit

__all__ = ["LANES", "LANES_MIN_WORK", "fb_four", "lockstep_plan"]

#: Sequences stepped together by :func:`fb_four`.
LANES = 4


#: Least work (time steps x states^2, summed over the groups of ``LANES`` consecutive
#: sequences of equal length) for which :func:`latentkit._kernels.hmm.forward_backward_scaled`
#: runs those groups in lockstep (:func:`fb_four`, the same values): it saves about a fifth of
#: the per-sequence kernel's time, and compiling it costs 1.5-4 s in a process with an empty
#: numba cache, so a small fit never compiles it (``benchmarks/bench_cold_start.py``, job
#: ``hmm-small``). The choice depends on the lengths only, never on the thread count.
LANES_MIN_WORK = 4_000_000


def lockstep_plan(offsets, n_components, lanes=None):
    """Which sequences :func:`latentkit._kernels.hmm.forward_backward_scaled` runs in
    lockstep: ``(starts, rest)``, int64 arrays of the first sequence of each lockstep group
    (groups of ``LANES`` consecutive sequences counted from the first, of equal lengths) and
    of the sequences run one at a time (increasing). ``lanes``: True uses every such group,
    False none, None (default) uses them when their work reaches :data:`LANES_MIN_WORK`."""
    lens = np.diff(offsets)
    n_full = lens.shape[0] // LANES
    groups = lens[:n_full * LANES].reshape(n_full, LANES)
    equal = (groups == groups[:, :1]).all(axis=1)
    if lanes is None:
        lanes = int(groups[equal].sum()) * n_components ** 2 >= LANES_MIN_WORK
    if not lanes:
        equal[:] = False
    starts = (np.flatnonzero(equal) * LANES).astype(np.int64)
    alone = np.ones(lens.shape[0], dtype=bool)
    alone[(starts[:, None] + np.arange(LANES)).ravel()] = False
    return starts, np.flatnonzero(alone).astype(np.int64)


@jit
def fb_four(g0, g1, starts, frame, log_offset, rows, startprob, transmat, transmat_t,
            offsets, gamma_out, log_scale_out, xi_out, loglik_out, ok_out):
    """Scaled forward-backward of the groups ``g0 <= g < g1`` of four sequences
    ``starts[g] .. starts[g] + 3`` (int64); the four of a group must have the same length
    (samples ``offsets[s]:offsets[s + 1]``; sample ``t``'s scaled emission probabilities are
    ``frame[rows[t]]``, its offset ``log_offset[rows[t]]``: module conventions of
    :mod:`latentkit._kernels.hmm`).
    Writes their rows of ``gamma_out`` and ``log_scale_out`` and their slots of ``xi_out``
    and ``loglik_out``: ``gamma``, ``log_scale`` and ``xi`` bit-for-bit as
    :func:`latentkit._kernels.hmm.fb_sequences`, ``loglik`` to the last bit (its sum's
    order).

    ``ok_out[g]`` (bool) is False when a scale factor of group ``g`` is zero or not positive
    (an impossible observation in one of the four): the outputs of the four are then
    undefined and the caller runs the per-sequence kernel on them, which reports where.
    The loop over groups is in this function (not a call per group): numba re-optimises a
    jitted callee inside every caller (cold start). Groups are independent, so callers may
    run ranges of them on several threads (the kernel releases the GIL) with the same bits.
    """
    K = startprob.shape[0]
    beta = np.empty((K, 4))
    tmp = np.empty((K, 4))
    for g in range(g0, g1):
        s0 = starts[g]
        good = True
        a0 = offsets[s0]
        a1 = offsets[s0 + 1]
        a2 = offsets[s0 + 2]
        a3 = offsets[s0 + 3]
        T = a1 - a0
        # forward: alpha (normalised) in gamma_out, raw scale factors in log_scale_out
        for a in (a0, a1, a2, a3):
            c = 0.0
            for k in range(K):
                v = startprob[k] * frame[rows[a], k]
                gamma_out[a, k] = v
                c += v
            log_scale_out[a] = c
            if not (c > 0.0):
                good = False
                break
            inv = 1.0 / c
            for k in range(K):
                gamma_out[a, k] *= inv
        for t in range(1, T if good else 1):
            r0 = a0 + t
            r1 = a1 + t
            r2 = a2 + t
            r3 = a3 + t
            c0 = 0.0
            c1 = 0.0
            c2 = 0.0
            c3 = 0.0
            f0 = rows[r0]
            f1 = rows[r1]
            f2 = rows[r2]
            f3 = rows[r3]
            for j in range(K):
                x0 = 0.0
                x1 = 0.0
                x2 = 0.0
                x3 = 0.0
                for i in range(K):
                    aji = transmat_t[j, i]
                    x0 += gamma_out[r0 - 1, i] * aji
                    x1 += gamma_out[r1 - 1, i] * aji
                    x2 += gamma_out[r2 - 1, i] * aji
                    x3 += gamma_out[r3 - 1, i] * aji
                x0 *= frame[f0, j]
                x1 *= frame[f1, j]
                x2 *= frame[f2, j]
                x3 *= frame[f3, j]
                gamma_out[r0, j] = x0
                gamma_out[r1, j] = x1
                gamma_out[r2, j] = x2
                gamma_out[r3, j] = x3
                c0 += x0
                c1 += x1
                c2 += x2
                c3 += x3
            log_scale_out[r0] = c0
            log_scale_out[r1] = c1
            log_scale_out[r2] = c2
            log_scale_out[r3] = c3
            if not (c0 > 0.0 and c1 > 0.0 and c2 > 0.0 and c3 > 0.0):
                good = False
                break
            i0 = 1.0 / c0
            i1 = 1.0 / c1
            i2 = 1.0 / c2
            i3 = 1.0 / c3
            for j in range(K):
                gamma_out[r0, j] *= i0
                gamma_out[r1, j] *= i1
                gamma_out[r2, j] *= i2
                gamma_out[r3, j] *= i3
        ok_out[g] = good
        if not good:
            continue
        # backward: beta of each lane in one column; gamma = alpha * beta; xi on the way
        xi0 = xi_out[s0]
        xi1 = xi_out[s0 + 1]
        xi2 = xi_out[s0 + 2]
        xi3 = xi_out[s0 + 3]
        for i in range(K):
            for j in range(K):
                xi0[i, j] = 0.0
                xi1[i, j] = 0.0
                xi2[i, j] = 0.0
                xi3[i, j] = 0.0
        beta[:, :] = 1.0
        for t in range(T - 2, -1, -1):
            r0 = a0 + t
            r1 = a1 + t
            r2 = a2 + t
            r3 = a3 + t
            i0 = 1.0 / log_scale_out[r0 + 1]
            i1 = 1.0 / log_scale_out[r1 + 1]
            i2 = 1.0 / log_scale_out[r2 + 1]
            i3 = 1.0 / log_scale_out[r3 + 1]
            f0 = rows[r0 + 1]
            f1 = rows[r1 + 1]
            f2 = rows[r2 + 1]
            f3 = rows[r3 + 1]
            for j in range(K):
                tmp[j, 0] = frame[f0, j] * beta[j, 0] * i0
                tmp[j, 1] = frame[f1, j] * beta[j, 1] * i1
                tmp[j, 2] = frame[f2, j] * beta[j, 2] * i2
                tmp[j, 3] = frame[f3, j] * beta[j, 3] * i3
            n0 = 0.0
            n1 = 0.0
            n2 = 0.0
            n3 = 0.0
            for i in range(K):
                x0 = 0.0
                x1 = 0.0
                x2 = 0.0
                x3 = 0.0
                g0 = gamma_out[r0, i]
                g1 = gamma_out[r1, i]
                g2 = gamma_out[r2, i]
                g3 = gamma_out[r3, i]
                for j in range(K):
                    aij = transmat[i, j]
                    p0 = aij * tmp[j, 0]
                    p1 = aij * tmp[j, 1]
                    p2 = aij * tmp[j, 2]
                    p3 = aij * tmp[j, 3]
                    x0 += p0
                    x1 += p1
                    x2 += p2
                    x3 += p3
                    xi0[i, j] += g0 * p0
                    xi1[i, j] += g1 * p1
                    xi2[i, j] += g2 * p2
                    xi3[i, j] += g3 * p3
                beta[i, 0] = x0
                beta[i, 1] = x1
                beta[i, 2] = x2
                beta[i, 3] = x3
                # gamma = alpha * beta and its normaliser in the same loop (a second pass
                # over the K states cost 0.8 of 13.5 ms)
                v0 = g0 * x0
                v1 = g1 * x1
                v2 = g2 * x2
                v3 = g3 * x3
                gamma_out[r0, i] = v0
                gamma_out[r1, i] = v1
                gamma_out[r2, i] = v2
                gamma_out[r3, i] = v3
                n0 += v0
                n1 += v1
                n2 += v2
                n3 += v3
            i0 = 1.0 / n0
            i1 = 1.0 / n1
            i2 = 1.0 / n2
            i3 = 1.0 / n3
            for i in range(K):
                gamma_out[r0, i] *= i0
                gamma_out[r1, i] *= i1
                gamma_out[r2, i] *= i2
                gamma_out[r3, i] *= i3
        # (the last rows already hold alpha_T = gamma_T)
        for lane in range(4):
            a = offsets[s0 + lane]
            for t in range(a, a + T):
                log_scale_out[t] = math.log(log_scale_out[t]) + log_offset[rows[t]]
            # the sum in a read-only loop: a loop that stores and sums is vectorised behind a
            # run-time aliasing check, and this kernel inlined in a prange kernel summed in
            # another order than alone (the hmm.py "Determinism" note)
            ll = 0.0
            for t in range(a, a + T):
                ll += log_scale_out[t]
            loglik_out[s0 + lane] = ll

