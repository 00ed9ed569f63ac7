"""The checkpointed (blocked) segment forward-backward of long HSMM sequences (issue 45):
the same answers as the unblocked kernels (1e-12) for every block size against the duration
bound (block < D, block = 1, one block), with impossible sequences, and through the model on a
sequence long enough to take the blocked path."""

import numpy as np
import pytest

from latentkit import HiddenSemiMarkovModel
from latentkit._kernels import hsmm_blocked
from latentkit._kernels.hsmm import hsmm_backward, hsmm_forward


def _inputs(rng, K, D, T):
    logb = rng.normal(size=(T, K)) * 2
    log_pi = np.log(rng.dirichlet(np.ones(K)))
    A = rng.dirichlet(np.ones(K), size=K)
    A[np.arange(K), np.arange(K)] = 0
    A /= A.sum(axis=1, keepdims=True)
    with np.errstate(divide="ignore"):
        log_A = np.log(A)
    p = rng.dirichlet(np.ones(D), size=K)
    S = np.cumsum(p[:, ::-1], axis=1)[:, ::-1]
    return logb, log_pi, log_A, np.log(p), np.log(S)


def _outputs(T, K, D, n):
    return [np.zeros((T, K)), np.empty(T), np.zeros((n, K)), np.zeros((n, K, K)),
            np.zeros((n, K, D)), np.empty(n)]


def _unblocked(args, offsets, K, D):
    T, n = int(offsets[-1]), len(offsets) - 1
    out = _outputs(T, K, D, n)
    astar, alpha = np.empty((T, K)), np.empty((T, K))
    hsmm_forward(*args, offsets, astar, alpha, out[1], out[5])
    hsmm_backward(args[0], *args[2:], offsets, astar, alpha, out[5], out[0], *out[2:5])
    return out


@pytest.mark.parametrize("K, D, lengths, block", [
    (3, 5, [40, 1, 19], 3),    # blocks shorter than the longest duration
    (2, 4, [37], 7),
    (3, 6, [50, 3], 1),        # one step per block
    (2, 3, [30], 30),          # one block
    (2, 3, [30], 100),         # a block longer than the sequence
    (4, 12, [200, 64], 16),
])
def test_blocked_equals_unblocked(K, D, lengths, block):
    rng = np.random.default_rng(K * 100 + D)
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    args = _inputs(rng, K, D, int(offsets[-1]))
    ref = _unblocked(args, offsets, K, D)
    out = _outputs(int(offsets[-1]), K, D, len(lengths))
    hsmm_blocked.hsmm_forward_backward_blocked(*args, offsets, block, *out)
    names = ("gamma", "log_pred", "start", "trans", "durations", "loglik")
    for name, a, b in zip(names, out, ref):
        # the occupancies and transition counts are summed in another order: rounding only
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12, err_msg=name)


def test_blocked_impossible_sequence_and_scoring():
    rng = np.random.default_rng(7)
    K, D = 2, 4
    offsets = np.array([0, 25, 50], dtype=np.int64)
    logb, log_pi, log_A, log_p, log_S = _inputs(rng, K, D, 50)
    logb[30] = -np.inf  # the second sequence is impossible from its 6th step on
    ref = _unblocked((logb, log_pi, log_A, log_p, log_S), offsets, K, D)
    out = _outputs(50, K, D, 2)
    hsmm_blocked.hsmm_forward_backward_blocked(logb, log_pi, log_A, log_p, log_S, offsets, 4,
                                               *out)
    np.testing.assert_array_equal(out[5][1], -np.inf)
    np.testing.assert_allclose(out[5][0], ref[5][0], rtol=1e-12)
    np.testing.assert_array_equal(out[1], ref[1])  # the forward pass: the same operations
    np.testing.assert_allclose(out[0][:25], ref[0][:25], atol=1e-12)
    scored = _outputs(50, K, D, 2)
    hsmm_blocked.hsmm_forward_backward_blocked(logb, log_pi, log_A, log_p, log_S, offsets, 4,
                                               *scored, backward=False)
    np.testing.assert_array_equal(scored[1], out[1])
    np.testing.assert_array_equal(scored[5], out[5])


def test_without_a_long_sequence_the_dispatch_is_the_unblocked_call():
    """Bit for bit: the HSMM's fits on sequences shorter than HSMM_BLOCKED_MIN_LENGTH are
    unchanged by the dispatch."""
    rng = np.random.default_rng(3)
    K, D = 3, 7
    offsets = np.array([0, 30, 31, 90], dtype=np.int64)
    args = _inputs(rng, K, D, 90)
    ref = _unblocked(args, offsets, K, D)
    out = _outputs(90, K, D, 3)
    hsmm_blocked.hsmm_forward_backward_any(*args, offsets, True, *out)
    for a, b in zip(out, ref):
        np.testing.assert_array_equal(a, b)


def test_model_on_a_long_sequence_takes_the_blocked_path(monkeypatch):
    rng = np.random.default_rng(0)
    states = np.repeat(np.arange(120) % 2, rng.integers(3, 12, size=120))
    X = rng.normal(np.where(states == 0, 0.0, 3.0), 1.0)[:, None]
    lengths = [len(X) - 40, 40]
    m = HiddenSemiMarkovModel(2, "gaussian", max_duration=15, max_iter=3, tol=0,
                              random_state=0).fit(X, lengths=lengths)
    data = m._validate_data(X, reset=False, lengths=lengths)
    ref = (m._e_step(data), m.predict_proba(X, lengths), m.score_samples(X, lengths))
    calls = []
    real = hsmm_blocked.hsmm_forward_backward_blocked

    def spy(*args, **kw):
        calls.append(args[5][-1])
        return real(*args, **kw)

    # the long sequence (>= 500 steps) in blocks of 64: the short one stays unblocked
    monkeypatch.setattr(hsmm_blocked, "HSMM_BLOCKED_MIN_LENGTH", 500)
    monkeypatch.setattr(hsmm_blocked, "HSMM_BLOCK", 64)
    monkeypatch.setattr(hsmm_blocked, "hsmm_forward_backward_blocked", spy)
    got = (m._e_step(data), m.predict_proba(X, lengths), m.score_samples(X, lengths))
    assert calls and all(c == len(X) - 40 for c in calls)
    for f in ("data_term", "start", "trans", "durations", "nk", "sx", "sxx"):
        np.testing.assert_allclose(getattr(got[0], f), getattr(ref[0], f), rtol=1e-12,
                                   atol=1e-12, err_msg=f)
    np.testing.assert_allclose(got[1], ref[1], atol=1e-12)
    np.testing.assert_allclose(got[2], ref[2], rtol=1e-12, atol=1e-12)
