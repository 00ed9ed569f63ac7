"""HMM kernels against their naive NumPy oracles (1e-10) and a brute-force enumeration."""

import numba
import numpy as np
import pytest

from latentkit._kernels import hmm as kernels
from latentkit._kernels import hmm_lanes
from latentkit.testing import (
    brute_force_hmm_loglik,
    categorical_counts_oracle,
    forward_backward_oracle,
    viterbi_oracle,
)


def _problem(seed, lengths, K=3, scale=3.0):
    rng = np.random.default_rng(seed)
    T = int(sum(lengths))
    log_frame = rng.normal(scale=scale, size=(T, K)) - 5.0
    startprob = rng.dirichlet(np.ones(K))
    transmat = rng.dirichlet(np.ones(K), size=K)
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    return log_frame, startprob, transmat, offsets


def _run_fb(fn, log_frame, startprob, transmat, offsets, **kwargs):
    off = log_frame.max(axis=1)
    off = np.where(np.isfinite(off), off, 0.0)
    frame = np.exp(log_frame - off[:, None])
    T, K = frame.shape
    n_seq = len(offsets) - 1
    gamma, log_pred = np.empty((T, K)), np.empty(T)
    xi, ll = np.empty((n_seq, K, K)), np.empty(n_seq)
    fn(frame, off, startprob, transmat, offsets, gamma, log_pred, xi, ll, **kwargs)
    return gamma, log_pred, xi, ll


# the last: two groups of four equal lengths (the lockstep kernel) and a short group
LENGTHS = [[1], [7], [5, 1, 12, 1, 3], [40, 2, 17], [6, 6, 6, 6, 9, 9, 9, 9, 2, 2]]


@pytest.mark.parametrize("lanes", [True, None])  # None: these tiny problems run no lockstep
@pytest.mark.parametrize("lengths", LENGTHS)
@pytest.mark.parametrize("name", ["forward_backward_scaled", "forward_backward_scaled_serial"])
def test_forward_backward_matches_oracle(name, lengths, lanes):
    log_frame, pi, A, offsets = _problem(0, lengths)
    got = _run_fb(getattr(kernels, name), log_frame, pi, A, offsets, lanes=lanes)
    want = forward_backward_oracle(log_frame, pi, A, lengths)
    for g, w, what in zip(got, want, ("gamma", "log_pred", "xi", "loglik")):
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12, err_msg=what)


def test_forward_only_matches_oracle():
    lengths = [5, 1, 12, 1, 3]
    log_frame, pi, A, offsets = _problem(1, lengths)
    off = log_frame.max(axis=1)
    frame = np.exp(log_frame - off[:, None])
    log_pred, ll = np.empty(len(frame)), np.empty(len(lengths))
    kernels.forward_scaled(frame, off, pi, A, offsets, log_pred, ll)
    _, want_pred, _, want_ll = forward_backward_oracle(log_frame, pi, A, lengths)
    np.testing.assert_allclose(log_pred, want_pred, rtol=1e-10)
    np.testing.assert_allclose(ll, want_ll, rtol=1e-10)


def test_oracle_matches_brute_force_enumeration():
    log_frame, pi, A, _ = _problem(2, [6], K=3)
    _, _, _, ll = forward_backward_oracle(log_frame, pi, A)
    assert ll[0] == pytest.approx(brute_force_hmm_loglik(log_frame, pi, A), rel=1e-12)


@pytest.mark.parametrize("lengths", LENGTHS)
def test_viterbi_matches_oracle(lengths):
    log_frame, pi, A, offsets = _problem(3, lengths, scale=1.0)
    path = np.empty(len(log_frame), dtype=np.int64)
    lp = np.empty(len(lengths))
    kernels.viterbi_log(log_frame, np.log(pi), np.log(A), offsets, path, lp)
    want_path, want_lp = viterbi_oracle(log_frame, pi, A, lengths)
    np.testing.assert_array_equal(path, want_path)
    np.testing.assert_allclose(lp, want_lp, rtol=1e-12)


def test_viterbi_path_is_the_brute_force_argmax():
    import itertools

    log_frame, pi, A, offsets = _problem(4, [6], K=3, scale=1.0)
    best, arg = -np.inf, None
    for z in itertools.product(range(3), repeat=6):
        lp = np.log(pi[z[0]]) + log_frame[0, z[0]] + sum(
            np.log(A[z[t - 1], z[t]]) + log_frame[t, z[t]] for t in range(1, 6))
        if lp > best:
            best, arg = lp, z
    path = np.empty(6, dtype=np.int64)
    lp = np.empty(1)
    kernels.viterbi_log(log_frame, np.log(pi), np.log(A), offsets, path, lp)
    assert tuple(path) == arg
    assert lp[0] == pytest.approx(best, rel=1e-12)


def test_categorical_counts_match_oracle():
    rng = np.random.default_rng(5)
    gamma = rng.dirichlet(np.ones(4), size=200)
    sym = rng.integers(0, 7, size=200)
    out = np.empty((4, 7))
    kernels.categorical_emission_counts(gamma, sym, out)
    np.testing.assert_allclose(out, categorical_counts_oracle(gamma, sym, 7), rtol=1e-10)


def test_impossible_sequence_gives_minus_inf_not_nan():
    log_frame, pi, A, offsets = _problem(6, [4, 5])
    log_frame[6] = -np.inf  # second sequence, position 2: impossible in every state
    gamma, log_pred, xi, ll = _run_fb(kernels.forward_backward_scaled_serial, log_frame, pi, A,
                                      offsets)
    assert np.isfinite(ll[0]) and ll[1] == -np.inf
    assert np.all(np.isneginf(log_pred[6:]))
    assert np.all(np.isfinite(log_pred[:6]))
    np.testing.assert_allclose(gamma[:4].sum(axis=1), 1.0)


def test_lockstep_group_is_bit_for_bit_the_per_sequence_kernel():
    # four equal lengths run in lockstep (hmm_lanes.fb_four); groups that are not four equal
    # lengths run one sequence at a time: every output must be the same bits either way (the
    # lanes do the same arithmetic in the same order), except the log-likelihood sums
    lengths = [25, 25, 25, 25, 25, 25, 25, 24]
    log_frame, pi, A, offsets = _problem(9, lengths, K=5)
    lock = _run_fb(kernels.forward_backward_scaled_serial, log_frame, pi, A, offsets,
                   lanes=True)
    alone = [_run_fb(kernels.forward_backward_scaled_serial, log_frame[a:b], pi, A,
                     np.array([0, b - a], dtype=np.int64))
             for a, b in zip(offsets[:-1], offsets[1:])]
    np.testing.assert_array_equal(lock[0], np.concatenate([g[0] for g in alone]))
    np.testing.assert_array_equal(lock[2], np.concatenate([g[2] for g in alone]))
    # one sum over 25 terms: its order may differ (vectorised), 1e-13 relative is round-off
    np.testing.assert_allclose(lock[1], np.concatenate([g[1] for g in alone]), rtol=1e-13)
    np.testing.assert_allclose(lock[3], np.concatenate([g[3] for g in alone]), rtol=1e-13)


def test_lockstep_plan_groups_equal_lengths_and_only_when_the_work_pays():
    offsets = np.concatenate([[0], np.cumsum([5, 5, 5, 5, 5, 5, 5, 4, 3, 3, 3, 3, 2])])
    starts, rest = hmm_lanes.lockstep_plan(offsets, 3, lanes=True)
    np.testing.assert_array_equal(starts, [0, 8])  # groups 0-3 and 8-11; 4-7 are unequal
    np.testing.assert_array_equal(rest, [4, 5, 6, 7, 12])
    starts, rest = hmm_lanes.lockstep_plan(offsets, 3, lanes=False)
    assert starts.size == 0 and rest.tolist() == list(range(13))
    # the default: a small fit (8 x 200 steps, K=3) never runs (so never compiles) the
    # lockstep kernel; the benchmark's 200 x 1000 steps at K=10 does
    small = np.arange(0, 8 * 200 + 1, 200)
    assert hmm_lanes.lockstep_plan(small, 3)[0].size == 0
    big = np.arange(0, 200 * 1000 + 1, 1000)
    assert hmm_lanes.lockstep_plan(big, 10)[0].size == 50


@pytest.mark.parametrize("name", ["forward_backward_scaled", "forward_backward_scaled_serial"])
def test_impossible_observation_in_a_lockstep_group(name):
    # the third of four equal-length sequences is impossible at its position 2: the group
    # falls back to the per-sequence kernel, which gives -inf there and the oracle elsewhere
    lengths = [6, 6, 6, 6]
    log_frame, pi, A, offsets = _problem(10, lengths)
    log_frame[12 + 2] = -np.inf
    gamma, log_pred, xi, ll = _run_fb(getattr(kernels, name), log_frame, pi, A, offsets,
                                      lanes=True)
    assert ll[2] == -np.inf and np.all(np.isneginf(log_pred[14:18]))
    for s in (0, 1, 3):
        a, b = offsets[s], offsets[s + 1]
        want = forward_backward_oracle(log_frame[a:b], pi, A)
        np.testing.assert_allclose(gamma[a:b], want[0], rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(xi[s], want[2][0], rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(ll[s], want[3][0], rtol=1e-10)


@pytest.mark.parametrize("lanes", [True, False])
def test_results_do_not_depend_on_thread_count(lanes):
    # the driver's split: ranges of sequences (or lockstep groups) on Python threads
    from latentkit._utils.doc_threads import over_ranges

    lengths = [30] * 9 + [1, 2]
    log_frame, pi, A, offsets = _problem(7, lengths)
    old = numba.get_num_threads()
    runs = []
    try:
        for threads, n_ranges in ((1, 1), (max(2, min(old, 4)) if old >= 2 else 1, 3), (2, 11)):
            numba.set_num_threads(threads)
            runs.append(_run_fb(kernels.forward_backward_scaled, log_frame, pi, A, offsets,
                                lanes=lanes, over_ranges=over_ranges, n_ranges=n_ranges))
    finally:
        numba.set_num_threads(old)
    runs.append(_run_fb(kernels.forward_backward_scaled_serial, log_frame, pi, A, offsets,
                        lanes=lanes))
    for run in runs[1:]:
        for a, b in zip(runs[0], run):
            np.testing.assert_array_equal(a, b)


def test_scaled_frame_from_log_matches_numpy():
    rng = np.random.default_rng(8)
    log_frame = rng.normal(scale=50.0, size=(300, 4)) - 700.0  # exp() alone would underflow
    log_frame[3] = -np.inf
    log_frame[5, 1] = -np.inf
    frame, off = np.empty_like(log_frame), np.empty(300)
    kernels.scaled_frame_from_log(log_frame, frame, off)
    want_off = log_frame.max(axis=1)
    want_off[3] = 0.0
    np.testing.assert_allclose(off, want_off, rtol=1e-15)
    np.testing.assert_allclose(frame, np.exp(log_frame - want_off[:, None]), rtol=1e-10,
                               atol=1e-300)
    assert np.all(frame.max(axis=1)[np.arange(300) != 3] == 1.0)


@pytest.mark.parametrize("lanes", [True, False])
def test_frame_rows_read_a_table_as_the_materialised_frame(lanes):
    # a categorical emission passes its (n_features, K) table and the symbols (rows=): the
    # same outputs as the (n_samples, K) frame they index, and the oracle's (1e-10)
    rng = np.random.default_rng(11)
    lengths = [20, 20, 20, 20, 7, 13]
    table = rng.dirichlet(np.ones(5), size=3).T.copy()  # (n_features=5, K=3)
    table_off = rng.normal(size=5)
    sym = rng.integers(0, 5, size=sum(lengths)).astype(np.int64)
    pi, A = rng.dirichlet(np.ones(3)), rng.dirichlet(np.ones(3), size=3)
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    T, n = len(sym), len(lengths)
    got = (np.empty((T, 3)), np.empty(T), np.empty((n, 3, 3)), np.empty(n))
    kernels.forward_backward_scaled_serial(table, table_off, pi, A, offsets, *got, lanes=lanes,
                                           rows=sym)
    log_frame = np.log(table[sym]) + table_off[sym, None]
    want = _run_fb(kernels.forward_backward_scaled_serial, log_frame, pi, A, offsets,
                   lanes=lanes)
    oracle = forward_backward_oracle(log_frame, pi, A, lengths)
    for g, w, o, what in zip(got, want, oracle, ("gamma", "log_pred", "xi", "loglik")):
        np.testing.assert_allclose(g, w, rtol=1e-13, atol=1e-15, err_msg=what)
        np.testing.assert_allclose(g, o, rtol=1e-10, atol=1e-12, err_msg=what)
