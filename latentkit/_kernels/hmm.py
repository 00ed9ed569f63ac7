"""numba kernels of hidden Markov models: scaled forward-backward, forward-only scoring,
Viterbi decoding and categorical emission statistics.

Conventions (all kernels):

* ``offsets`` (n_sequences + 1,) int64 holds the sequence boundaries in the stacked rows:
  sequence ``s`` is rows ``offsets[s]:offsets[s + 1]`` (every sequence has length >= 1).
* ``frame`` (n_samples, n_components) holds *scaled* emission probabilities
  ``p(x_t | z_t = k) = frame[t, k] * exp(log_offset[t])`` (the offset keeps ``frame`` in a safe
  range, e.g. ``frame[t].max() == 1``), ``log_frame`` the emission log-probabilities.
* each sequence writes only its own rows and its own slot of the per-sequence outputs, so
  the results do not depend on how sequences are split over threads (Python threads over
  ranges of sequences for the forward-backward, ``prange`` over time blocks for one long
  sequence). Callers sum per-sequence outputs in index order.
* A kernel's loop over sequences and its per-sequence passes are one jitted function: numba
  re-optimises a jitted callee's code inside every caller, so a per-sequence function under
  a loop compiled the same code twice (cold start, ``benchmarks/bench_cold_start.py``).

The wrappers that validate inputs and carry the documentation live in
:mod:`latentkit.sequence` (``_forward_backward``, ``_hmm_inference``); the naive NumPy oracles
in :mod:`latentkit.testing`.
Only numpy, math and numba are imported here (DESIGN.md section 4).
"""

import math

import numpy as np

from ._jit import jit, prange
from .hmm_lanes import LANES, fb_four, lockstep_plan

__all__ = [
    "forward_backward_scaled",
    "forward_backward_scaled_serial",
    "fb_sequences",
    "forward_backward_blocked",
    "forward_scaled",
    "forward_blocked",
    "viterbi_log",
    "categorical_emission_counts",
    "scaled_frame_from_log",
]


#: Determinism: no loop both stores and sums. Such a loop is vectorised behind a run-time
#: aliasing check of its arrays' addresses, and the scalar fallback sums in another order, so
#: the result would depend on where the thread that ran the sequence allocated its scratch
#: arrays, i.e. on the thread count. Each sum is a separate read-only loop, written inline: as
#: a call to a small jitted helper it was not inlined and cost 27% of the kernel (one call per
#: time step and pass; 15.1 against 19.3 ms for 200 x 1,000 steps, K=10, one thread).


@jit
def _propagate(prev, transmat_t, frame_row, new):
    """One unnormalised forward step (Rabiner 1989, eq. 20):
    ``new[j] = (sum_i prev[i] A[i, j]) * frame_row[j]`` with ``transmat_t = A.T``; returns
    ``sum_j new[j]`` (summed in j order)."""
    c = 0.0
    for j in range(new.shape[0]):
        acc = 0.0
        for i in range(prev.shape[0]):
            acc += prev[i] * transmat_t[j, i]
        v = acc * frame_row[j]
        new[j] = v
        c += v
    return c


@jit
def fb_sequences(i0, i1, seqs, frame, log_offset, rows, startprob, transmat, transmat_t,
                 offsets, gamma_out, log_scale_out, xi_out, loglik_out):
    """Scaled forward-backward of the sequences ``seqs[i0:i1]`` (int64 indices; samples
    ``offsets[s]:offsets[s + 1]``, sample ``t`` with the frame row ``frame[rows[t]]`` and
    offset ``log_offset[rows[t]]``), serial: writes their rows of ``gamma_out`` and
    ``log_scale_out`` and their slots of ``xi_out`` and ``loglik_out`` (see
    :func:`forward_backward_scaled`).

    The sequence loop and the per-sequence passes are one function: numba re-optimises a
    callee's code inside every caller, so a per-sequence function under a serial loop
    compiled the same code twice (0.9 s of a cold HMM fit, ``benchmarks/bench_cold_start.py``).
    Sequences are independent, so callers may run ranges of them on several threads (the
    kernel releases the GIL) with the same bits."""
    K = startprob.shape[0]
    for s in seqs[i0:i1]:
        a = offsets[s]
        b = offsets[s + 1]
        xi = xi_out[s]
        for i in range(K):
            for j in range(K):
                xi[i, j] = 0.0
        # forward pass: alpha kept (normalised) in gamma_out, raw scale factors in log_scale_out
        c = 0.0
        for k in range(K):
            v = startprob[k] * frame[rows[a], k]
            gamma_out[a, k] = v
            c += v
        log_scale_out[a] = c
        if c <= 0.0:
            first = a
        else:
            first = b
            inv = 1.0 / c
            for k in range(K):
                gamma_out[a, k] *= inv
            for t in range(a + 1, b):
                c = _propagate(gamma_out[t - 1], transmat_t, frame[rows[t]],
                               gamma_out[t])
                log_scale_out[t] = c
                if c <= 0.0:
                    first = t
                    break
                inv = 1.0 / c
                for j in range(K):
                    gamma_out[t, j] *= inv
        if first < b:
            # impossible observation at row `first`: -inf from there on, NaN posteriors
            for u in range(a, first):
                log_scale_out[u] = math.log(log_scale_out[u]) + log_offset[rows[u]]
            for u in range(first, b):
                log_scale_out[u] = -np.inf
                for k in range(K):
                    gamma_out[u, k] = np.nan
            loglik_out[s] = -np.inf
            continue
        # backward pass: beta kept in one row; gamma = alpha * beta; xi accumulated on the way
        beta = np.ones(K)
        tmp = np.empty(K)
        for t in range(b - 2, a - 1, -1):
            inv = 1.0 / log_scale_out[t + 1]
            f = rows[t + 1]
            for j in range(K):
                tmp[j] = frame[f, j] * beta[j] * inv
            norm = 0.0
            for i in range(K):
                acc = 0.0
                ai = gamma_out[t, i]
                for j in range(K):
                    p = transmat[i, j] * tmp[j]
                    acc += p
                    xi[i, j] += ai * p
                beta[i] = acc
                v = ai * acc  # gamma = alpha * beta and its normaliser in this loop
                gamma_out[t, i] = v
                norm += v
            inv = 1.0 / norm
            for i in range(K):
                gamma_out[t, i] *= inv
        # (the last row already holds alpha_T = gamma_T)
        ll = 0.0
        for t in range(a, b):
            v = math.log(log_scale_out[t]) + log_offset[rows[t]]
            log_scale_out[t] = v
            ll += v
        loglik_out[s] = ll


def _serially(kernel, edges, *args):
    """Run ``kernel(edges[b], edges[b + 1], *args)`` for every range ``b`` in this thread."""
    for b in range(edges.shape[0] - 1):
        kernel(edges[b], edges[b + 1], *args)


def forward_backward_scaled(frame, log_offset, startprob, transmat, offsets,
                            gamma_out, log_scale_out, xi_out, loglik_out, lanes=None,
                            over_ranges=None, n_ranges=1, rows=None):
    """Scaled forward-backward over many sequences (Rabiner 1989, section V.A): groups of
    :data:`~latentkit._kernels.hmm_lanes.LANES` consecutive sequences of equal length in
    lockstep (:func:`~latentkit._kernels.hmm_lanes.lockstep_plan` with ``lanes``;
    :func:`~latentkit._kernels.hmm_lanes.fb_four`, the same values except the last bit of the
    log-likelihood sums), the other sequences one at a time (:func:`fb_sequences`).

    Writes ``gamma_out`` (n_samples, K) posteriors, ``log_scale_out`` (n_samples,) the
    one-step predictive log-densities ``log p(x_t | x_<t)`` (log scale factor plus frame
    offset), ``xi_out`` (n_sequences, K, K) expected transition counts of each sequence and
    ``loglik_out`` (n_sequences,) the log-likelihood of each sequence. A sequence that is
    impossible under the parameters (a zero scale factor) gets ``loglik = -inf``, ``-inf``
    predictive densities and NaN posteriors from the first impossible step on.

    ``rows`` (n_samples,) int64: sample ``t`` has the frame row ``frame[rows[t]]`` and the
    offset ``log_offset[rows[t]]`` (a categorical emission passes its (n_features, K) table
    and the symbols: no (n_samples, K) frame is made); None: ``rows[t] = t``.

    ``over_ranges(kernel, edges, *args)`` runs ``kernel(edges[b], edges[b + 1], *args)`` for
    every range ``b`` of ``edges``, e.g. on threads
    (:func:`latentkit._utils.doc_threads.over_ranges`); None runs them in this thread. The
    work is split into ``n_ranges`` ranges of groups and of sequences; every sequence is
    computed by the same serial code either way, so the results do not depend on the ranges
    or the threads.
    """
    run = _serially if over_ranges is None else over_ranges
    if rows is None:
        rows = np.arange(gamma_out.shape[0], dtype=np.int64)
    transmat_t = np.ascontiguousarray(transmat.T)
    starts, rest = lockstep_plan(offsets, startprob.shape[0], lanes)
    if starts.size:
        ok = np.ones(starts.size, dtype=np.bool_)
        run(fb_four, _edges(starts.size, n_ranges), starts, frame, log_offset, rows,
            startprob, transmat, transmat_t, offsets, gamma_out, log_scale_out, xi_out,
            loglik_out, ok)
        if not ok.all():  # an impossible observation: the per-sequence kernel says where
            failed = (starts[~ok][:, None] + np.arange(LANES)).ravel()
            rest = np.sort(np.concatenate([rest, failed])).astype(np.int64)
    if rest.size:
        run(fb_sequences, _edges(rest.size, n_ranges), rest, frame, log_offset, rows,
            startprob, transmat, transmat_t, offsets, gamma_out, log_scale_out, xi_out,
            loglik_out)


def _edges(n, n_ranges):
    """``min(n, n_ranges) + 1`` int64 edges of about equal ranges of ``0..n``."""
    m = max(1, min(n, n_ranges))
    return (np.arange(m + 1) * n // m).astype(np.int64)


def forward_backward_scaled_serial(frame, log_offset, startprob, transmat, offsets,
                                   gamma_out, log_scale_out, xi_out, loglik_out, lanes=None,
                                   rows=None):
    """:func:`forward_backward_scaled` in this thread (one range each)."""
    forward_backward_scaled(frame, log_offset, startprob, transmat, offsets, gamma_out,
                            log_scale_out, xi_out, loglik_out, lanes=lanes, rows=rows)


@jit
def forward_scaled(frame, log_offset, startprob, transmat, offsets, log_scale_out,
                          loglik_out):
    """Scaled forward pass only (Rabiner 1989, eqs. 19-21 with scaling): ``log_scale_out``
    (n_samples,) the one-step predictive log-densities and ``loglik_out`` (n_sequences,) the
    log-likelihood of each sequence (``-inf`` for an impossible sequence). One thread: it is
    used for scoring, where the data are read once."""
    transmat_t = np.ascontiguousarray(transmat.T)
    K = startprob.shape[0]
    for s in range(offsets.shape[0] - 1):
        a = offsets[s]
        b = offsets[s + 1]
        alpha = np.empty(K)
        new = np.empty(K)
        c = 0.0
        for k in range(K):
            v = startprob[k] * frame[a, k]
            alpha[k] = v
            c += v
        ll = 0.0
        dead = c <= 0.0
        if dead:
            log_scale_out[a] = -np.inf
        else:
            inv = 1.0 / c
            for k in range(K):
                alpha[k] *= inv
            v = math.log(c) + log_offset[a]
            log_scale_out[a] = v
            ll += v
        for t in range(a + 1, b):
            if dead:
                log_scale_out[t] = -np.inf
                continue
            c = _propagate(alpha, transmat_t, frame[t], new)
            if c <= 0.0:
                dead = True
                log_scale_out[t] = -np.inf
                continue
            inv = 1.0 / c
            for j in range(K):
                alpha[j] = new[j] * inv
            v = math.log(c) + log_offset[t]
            log_scale_out[t] = v
            ll += v
        loglik_out[s] = -np.inf if dead else ll


@jit
def viterbi_log(log_frame, log_startprob, log_transmat, offsets, path_out, logprob_out):
    """Viterbi decoding in log space (Viterbi 1967; Rabiner 1989, eqs. 32-35). Writes the most
    probable state path of each sequence into ``path_out`` (n_samples,) int64 and its joint
    log-probability ``max_z log p(x, z)`` into ``logprob_out`` (n_sequences,). Ties between
    predecessors go to the highest state index, a tie of the final state to the lowest
    (hmmlearn 0.3's traceback convention)."""
    log_transmat_t = np.ascontiguousarray(log_transmat.T)
    K = log_startprob.shape[0]
    for s in range(offsets.shape[0] - 1):
        a = offsets[s]
        b = offsets[s + 1]
        T = b - a
        back = np.empty((T, K), dtype=np.int64)
        delta = np.empty(K)
        new = np.empty(K)
        for k in range(K):
            delta[k] = log_startprob[k] + log_frame[a, k]
        for t in range(1, T):
            for j in range(K):
                best = -np.inf
                arg = 0
                for i in range(K):
                    v = delta[i] + log_transmat_t[j, i]
                    if v >= best:
                        best = v
                        arg = i
                back[t, j] = arg
                new[j] = best + log_frame[a + t, j]
            for j in range(K):
                delta[j] = new[j]
        best = -np.inf
        arg = 0
        for k in range(K):
            if delta[k] > best:
                best = delta[k]
                arg = k
        path_out[b - 1] = arg
        for t in range(T - 1, 0, -1):
            arg = back[t, arg]
            path_out[a + t - 1] = arg
        logprob_out[s] = best


@jit
def categorical_emission_counts(gamma, symbols, counts_out):
    """``counts_out[k, m] = sum_t gamma[t, k] [symbols[t] == m]`` (expected emission counts);
    ``counts_out`` (K, M) is overwritten. Sequential, so deterministic. Accumulated in an
    (M, K) table (one contiguous row per step, not a column with stride M: 0.9 -> 0.7 ms for
    200,000 steps, K = 10), the same additions in the same order."""
    K = gamma.shape[1]
    acc = np.zeros((counts_out.shape[1], K))
    for t in range(gamma.shape[0]):
        m = symbols[t]
        for k in range(K):
            acc[m, k] += gamma[t, k]
    for k in range(K):
        for m in range(counts_out.shape[1]):
            counts_out[k, m] = acc[m, k]


@jit
def scaled_frame_from_log(log_frame, frame_out, offset_out):
    """``offset_out[t] = max_k log_frame[t, k]`` (0 when the row has no finite entry) and
    ``frame_out[t, k] = exp(log_frame[t, k] - offset_out[t])`` in [0, 1]. One thread: one
    pass over memory, and models call it every iteration on data of any size."""
    T, K = log_frame.shape
    for t in range(T):
        m = -np.inf
        for k in range(K):
            if log_frame[t, k] > m:
                m = log_frame[t, k]
        if not (m > -np.inf and m < np.inf):
            m = 0.0
        offset_out[t] = m
        for k in range(K):
            frame_out[t, k] = math.exp(log_frame[t, k] - m)


# --------------------------------------------------------------------------------------------
# One long sequence: blocked forward-backward, parallel over time blocks
# --------------------------------------------------------------------------------------------

#: Elementwise relative agreement at which a re-run from the true boundary message has caught
#: up with the speculative run of a block (2^-50, about 4 units in the last place): from there
#: on the two runs agree to this relative accuracy forever (positive linear maps do not amplify
#: elementwise relative errors), so the speculative values are kept.
CATCH_UP_RTOL = 2.0 ** -50


@jit
def _agrees(new, old):
    for k in range(new.shape[0]):
        if abs(new[k] - old[k]) > CATCH_UP_RTOL * abs(new[k]):
            return False
    return True


@jit
def _fwd_run(frame, transmat_t, alpha, s, e, start, first_is_start, store_c, check):
    """Normalised forward recursion over rows ``s:e`` starting from the normalised message
    ``start`` (``alpha_{s-1}``, or when ``first_is_start`` the unnormalised ``alpha_s`` itself).
    With ``check``, stops at the first row whose new message agrees with the one already in
    ``alpha`` (CATCH_UP_RTOL) and returns its index; otherwise returns ``e``. Returns -1 on a
    zero scale factor (an impossible observation)."""
    K = alpha.shape[1]
    prev = np.empty(K)
    new = np.empty(K)
    for k in range(K):
        prev[k] = start[k]
    for t in range(s, e):
        if first_is_start and t == s:
            c = 0.0
            for j in range(K):
                new[j] = prev[j]
                c += prev[j]
        else:
            c = _propagate(prev, transmat_t, frame[t], new)
        if not (c > 0.0) or not math.isfinite(c):
            return -1
        inv = 1.0 / c
        for j in range(K):
            new[j] *= inv
        store_c[t] = c  # the true scale factor even at the catch-up row
        if check and _agrees(new, alpha[t]):
            return t
        for j in range(K):
            alpha[t, j] = new[j]
            prev[j] = new[j]
    return e


@jit
def _bwd_run(frame, transmat, beta, bnorm, s, e, start, check):
    """Self-normalised backward recursion ``b_t = m_t / bnorm_t``, ``m_t = A (f_{t+1} *
    b_{t+1})``, ``bnorm_t = sum_i m_t(i)``, for rows ``e-1`` down to ``s``, where ``start`` is
    ``b_e`` (normalised). Catch-up rule as :func:`_fwd_run`; returns the row it stopped at, or
    ``s - 1``."""
    K = beta.shape[1]
    nxt = np.empty(K)
    tmp = np.empty(K)
    new = np.empty(K)
    for k in range(K):
        nxt[k] = start[k]
    for t in range(e - 1, s - 1, -1):
        for j in range(K):
            tmp[j] = frame[t + 1, j] * nxt[j]
        for i in range(K):
            acc = 0.0
            for j in range(K):
                acc += transmat[i, j] * tmp[j]
            new[i] = acc
        norm = 0.0
        for i in range(K):
            norm += new[i]
        bnorm[t] = norm  # the true normaliser even at the catch-up row
        inv = 1.0 / norm
        for i in range(K):
            new[i] *= inv
        if check and _agrees(new, beta[t]):
            return t
        for i in range(K):
            beta[t, i] = new[i]
            nxt[i] = new[i]
    return s - 1


# strict IEEE (no fastmath): with reassociation allowed, LLVM's vectorised reductions in this
# kernel peel by the buffers' alignment, and a long-sequence fit's startprob_ differed in its
# last bit between runs of the same process setup (1 of 8 runs on main, 2-3 of 8 after issue
# 46's HMM work; 0 of 20 now): tests/parallel/test_thread_independence.py failed in CI
@jit(parallel=True, fastmath=False)
def forward_backward_blocked(frame, log_offset, startprob, transmat, block, gamma_out,
                             log_scale_out, xi_blocks, beta, bnorm):
    """Forward-backward over ONE sequence, parallel over time blocks of ``block`` rows
    (blocked forward-backward with boundary messages; cf. Sarkka & Garcia-Fernandez 2021 for
    the parallel-in-time view).

    1. Speculative forward, all blocks at once: block ``b > 0`` starts from the uniform
       message in place of the unknown ``alpha_{s_b - 1}``.
    2. Catch-up, all blocks at once: block ``b`` re-runs from the speculative end of block
       ``b - 1`` until its message agrees with the speculative one (the chain forgets its
       start), overwriting only the rows before. A block whose re-run reached its end changed
       its last message, so the next block is re-run again (serially; rare: the chain would
       have to remember its state over a whole block).
    3. and 4. The same for the backward messages (self-normalised, speculative start uniform).
    5. All blocks at once: ``gamma_t ∝ alpha_t * b_t``, the expected transitions of each block
       ``xi_blocks[b] = sum_t alpha_t(i) A_ij f_{t+1,j} b_{t+1}(j) / Z_t`` with
       ``Z_t = sum_i alpha_t(i) m_t(i) = bnorm_t sum_i alpha_t(i) b_t(i)``, and
       ``log_scale_out[t] = log c_t + log_offset[t]``.

    The blocks depend on the sequence length only, so the result does not depend on the
    thread count. Returns False (outputs undefined) when a scale factor was zero or not
    finite; the caller then runs the sequential kernel, which reports where.

    Parameters
    ----------
    frame, log_offset : (T, K), (T,)
        Scaled emission probabilities and their log offsets (module conventions).
    startprob, transmat : (K,), (K, K)
    block : int
        Rows per time block (>= 1).
    gamma_out : (T, K) out; log_scale_out : (T,) out
    xi_blocks : (ceil(T / block), K, K) out
    beta : (T, K) scratch; bnorm : (T,) scratch
    """
    T, K = frame.shape
    B = xi_blocks.shape[0]
    transmat_t = np.ascontiguousarray(transmat.T)
    alpha = gamma_out
    c_out = log_scale_out
    uniform = np.full(K, 1.0 / K)
    ok = np.ones(B, dtype=np.bool_)
    # 1. speculative forward
    for b in prange(B):
        s = b * block
        e = min(T, s + block)
        if b == 0:
            first = np.empty(K)
            for k in range(K):
                first[k] = startprob[k] * frame[0, k]
            r = _fwd_run(frame, transmat_t, alpha, s, e, first, True, c_out, False)
        else:
            r = _fwd_run(frame, transmat_t, alpha, s, e, uniform, False, c_out, False)
        ok[b] = r >= 0
    if not ok.all():
        return False
    # 2. catch-up from the speculative ends (snapshotted: blocks rewrite their own rows)
    ends = np.empty((B, K))
    for b in range(B):
        for k in range(K):
            ends[b, k] = alpha[min(T, (b + 1) * block) - 1, k]
    stop = np.empty(B, dtype=np.int64)
    for b in prange(1, B):
        s = b * block
        e = min(T, s + block)
        stop[b] = _fwd_run(frame, transmat_t, alpha, s, e, ends[b - 1], False, c_out, True)
    for b in range(1, B):
        # cascade: block b started from the snapshot of block b - 1's end; if that end has
        # changed since (block b - 1 did not catch up within its rows), re-run from the new one
        s = b * block
        e = min(T, s + block)
        if not _agrees(alpha[s - 1], ends[b - 1]):
            stop[b] = _fwd_run(frame, transmat_t, alpha, s, e, alpha[s - 1], False, c_out,
                               True)
        if stop[b] < 0:
            return False
    # 3. speculative backward (b_{T-1} = uniform is exact for the last block)
    for b in prange(B):
        s = b * block
        e = min(T, s + block)
        for k in range(K):
            beta[e - 1, k] = 1.0 / K
        if e - 1 > s:
            _bwd_run(frame, transmat, beta, bnorm, s, e - 1, uniform, False)
    # 4. catch-up: block b re-runs from the speculative start of block b + 1
    starts = np.empty((B, K))
    for b in range(B):
        for k in range(K):
            starts[b, k] = beta[b * block, k]
    for b in prange(B - 1):
        s = b * block
        e = min(T, s + block)
        _bwd_run(frame, transmat, beta, bnorm, s, e, starts[b + 1], True)
    for b in range(B - 2, -1, -1):  # cascade, as for the forward messages
        s = b * block
        e = min(T, s + block)
        if not _agrees(beta[e], starts[b + 1]):
            _bwd_run(frame, transmat, beta, bnorm, s, e, beta[e], True)
    # 5. posteriors, transitions, log scale factors
    for b in prange(B):
        s = b * block
        e = min(T, s + block)
        xi = xi_blocks[b]
        for i in range(K):
            for j in range(K):
                xi[i, j] = 0.0
        tmp = np.empty(K)
        for t in range(s, e):
            norm = 0.0  # sum_i alpha_t(i) b_t(i), read-only loop (see the "Determinism" note)
            for k in range(K):
                norm += alpha[t, k] * beta[t, k]
            if t + 1 < T:
                for j in range(K):
                    tmp[j] = frame[t + 1, j] * beta[t + 1, j]
                inv = 1.0 / (bnorm[t] * norm)
                for i in range(K):
                    ai = alpha[t, i] * inv
                    for j in range(K):
                        xi[i, j] += ai * (transmat[i, j] * tmp[j])
            for k in range(K):
                gamma_out[t, k] = alpha[t, k] * beta[t, k]
            inv = 1.0 / norm
            for k in range(K):
                gamma_out[t, k] *= inv
            log_scale_out[t] = math.log(c_out[t]) + log_offset[t]
    return True


@jit
def _fwd_scan(frame, transmat_t, start, first_is_start, s, e, c_out, end_out, check, min_stop):
    """Normalised forward recursion over rows ``s:e`` keeping only the current message: the
    scale factors go to ``c_out[s:e]``, the last message to ``end_out``. ``start`` is
    ``alpha_{s-1}`` (normalised), or when ``first_is_start`` the unnormalised ``alpha_s``.

    With ``check``, the speculative recursion of the block (from the uniform message at
    ``s``) runs in lockstep, and the scan stops at the first row ``t >= min_stop`` where the
    two messages agree (CATCH_UP_RTOL): from there on the speculative scale factors already in
    ``c_out`` are right. Returns that row, ``e`` when they never agree (``end_out`` then holds
    the true last message), or -1 on a zero or non-finite scale factor."""
    K = start.shape[0]
    prev = np.empty(K)
    new = np.empty(K)
    spec = np.full(K, 1.0 / K)
    spec_new = np.empty(K)
    for k in range(K):
        prev[k] = start[k]
    for t in range(s, e):
        c = 0.0
        if first_is_start and t == s:
            for j in range(K):
                new[j] = prev[j]
                c += prev[j]
        else:
            c = _propagate(prev, transmat_t, frame[t], new)
        if not (c > 0.0):  # zero or NaN (frame <= 1 and normalised messages: never inf)
            return -1
        inv = 1.0 / c
        for j in range(K):
            prev[j] = new[j] * inv
        c_out[t] = c
        if check:
            cs = _propagate(spec, transmat_t, frame[t], spec_new)
            inv = 1.0 / cs
            for j in range(K):
                spec[j] = spec_new[j] * inv
            if t >= min_stop and _agrees(prev, spec):
                return t
    for k in range(K):
        end_out[k] = prev[k]
    return e


# strict IEEE, as forward_backward_blocked (same reason)
@jit(parallel=True, fastmath=False)
def forward_blocked(frame, log_offset, startprob, transmat, block, log_scale_out):
    """Scaled forward pass only over ONE sequence, parallel over time blocks of ``block`` rows,
    in O(blocks x states) memory: the scoring counterpart of :func:`forward_scaled`, equal to
    it to rounding (the catch-up tolerance CATCH_UP_RTOL; blocked forward with boundary
    messages, cf. Sarkka & Garcia-Fernandez 2021 for the parallel-in-time view).

    1. All blocks at once: block ``b > 0`` runs from the uniform message in place of the
       unknown ``alpha_{s_b - 1}`` (block 0 from ``startprob``, exact), keeping its scale
       factors and its last message.
    2. All blocks at once: block ``b`` re-runs from the last message of block ``b - 1``,
       beside its speculative run recomputed in lockstep (nothing of size T is stored), until
       the two agree (the chain forgets its start), rewriting the scale factors before.
    3. Serially, rarely: a block whose re-run never agreed changed its last message, so the
       next block re-runs from the new one (as in :func:`forward_backward_blocked`).

    Then ``log_scale_out[t] = log c_t + log_offset[t]``. The blocks depend on the sequence
    length only, so the result does not depend on the thread count.

    Parameters
    ----------
    frame, log_offset : (T, K), (T,)
    startprob, transmat : (K,), (K, K)
    block : int
        Rows per time block (>= 1).
    log_scale_out : (T,) out
        One-step predictive log-densities (nats); their sum is the log-likelihood.

    Returns False (outputs undefined) on an impossible observation; the caller then runs
    :func:`forward_scaled`, which gives ``-inf`` from that row on.
    """
    T, K = frame.shape
    B = (T + block - 1) // block
    transmat_t = np.ascontiguousarray(transmat.T)
    c_out = log_scale_out
    ends = np.empty((B, K))
    true_ends = np.empty((B, K))
    stop = np.zeros(B, dtype=np.int64)
    ok = np.ones(B, dtype=np.bool_)
    uniform = np.full(K, 1.0 / K)
    # 1. speculative runs
    for b in prange(B):
        s = b * block
        e = min(T, s + block)
        if b == 0:
            first = np.empty(K)
            for k in range(K):
                first[k] = startprob[k] * frame[0, k]
            r = _fwd_scan(frame, transmat_t, first, True, s, e, c_out, ends[b], False, s)
        else:
            r = _fwd_scan(frame, transmat_t, uniform, False, s, e, c_out, ends[b], False, s)
        ok[b] = r >= 0
    if not ok.all():
        return False
    for k in range(K):
        true_ends[0, k] = ends[0, k]
    # 2. catch-up from the speculative end of the previous block
    for b in prange(1, B):
        s = b * block
        e = min(T, s + block)
        stop[b] = _fwd_scan(frame, transmat_t, ends[b - 1], False, s, e, c_out, true_ends[b],
                            True, s)
    # 3. cascade: block b started from ends[b - 1]; if the true end of block b - 1 differs
    # (its re-run never agreed), re-run block b from the true one, not stopping before its
    # previous stop (the scale factors up to there came from the wrong start)
    for b in range(1, B):
        s = b * block
        e = min(T, s + block)
        if stop[b] < 0:
            return False
        prev_caught = b == 1 or stop[b - 1] < min(T, (b - 1) * block + block)
        if not prev_caught and not _agrees(true_ends[b - 1], ends[b - 1]):
            stop[b] = _fwd_scan(frame, transmat_t, true_ends[b - 1], False, s, e, c_out,
                                true_ends[b], True, stop[b])
            if stop[b] < 0:
                return False
        if stop[b] < e:  # caught up: the block's last message is the speculative one
            for k in range(K):
                true_ends[b, k] = ends[b, k]
    for t in prange(T):
        log_scale_out[t] = math.log(c_out[t]) + log_offset[t]
    return True
