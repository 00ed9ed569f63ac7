"""Blocked forward-backward over one long sequence (parallel over time blocks): equal to the
sequential kernel and to two independent oracles (log-space, and transfer matrices by block)
to 1e-10 relative, on forgetting, sticky, periodic and reducible chains (the last two never
forget their start, so every block is re-run serially), with ragged last blocks; and the HMM
models use it automatically for long sequences."""

import numpy as np
import pytest

from latentkit._kernels import hmm as kernels
from latentkit.sequence import CategoricalHMM, GaussianHMM
from latentkit.sequence import _forward_backward as _fb
from latentkit.testing import blocked_forward_backward_oracle, forward_backward_oracle


def _chain(kind, K, rng):
    if kind == "random":
        return rng.dirichlet(np.ones(K), size=K)
    if kind == "sticky":
        A = np.eye(K) * 0.999 + 0.001 / K
        return A / A.sum(1, keepdims=True)
    if kind == "periodic":
        return np.eye(K)[np.roll(np.arange(K), 1)]
    return np.eye(K)  # reducible: never leaves its state


def _blocked(log_frame, startprob, transmat, block):
    off = log_frame.max(axis=1)
    frame = np.exp(log_frame - off[:, None])
    T, K = frame.shape
    g, lp = np.empty((T, K)), np.empty(T)
    xi = np.empty((-(-T // block), K, K))
    ok = kernels.forward_backward_blocked(frame, off, startprob, transmat, block, g, lp, xi,
                                          np.empty((T, K)), np.empty(T))
    return ok, g, lp, xi.sum(axis=0)


def _sequential(log_frame, startprob, transmat):
    off = log_frame.max(axis=1)
    frame = np.exp(log_frame - off[:, None])
    T, K = frame.shape
    g, lp, xi, ll = np.empty((T, K)), np.empty(T), np.empty((1, K, K)), np.empty(1)
    kernels.forward_backward_scaled_serial(frame, off, startprob, transmat,
                                           np.array([0, T], dtype=np.int64), g, lp, xi, ll)
    return g, lp, xi[0], ll[0]


@pytest.mark.parametrize("kind", ["random", "sticky", "periodic", "reducible"])
@pytest.mark.parametrize("T,K,block", [(1, 3, 4), (9, 3, 4), (700, 4, 64), (701, 3, 100),
                                       (40, 2, 1)])
def test_blocked_equals_sequential_and_oracles(kind, T, K, block):
    rng = np.random.default_rng(T * 7 + K)
    log_frame = rng.normal(scale=2.0, size=(T, K)) - 4.0
    pi = rng.dirichlet(np.ones(K))
    A = _chain(kind, K, rng)
    ok, g, lp, xi = _blocked(log_frame, pi, A, block)
    assert ok
    sg, slp, sxi, sll = _sequential(log_frame, pi, A)
    og, olp, oxi, oll = forward_backward_oracle(log_frame, pi, A)
    bg, blp, bxi, bll = blocked_forward_backward_oracle(log_frame, pi, A, block)
    ll = lp.sum()
    for ref_ll in (sll, oll[0], bll):
        assert abs(ll - ref_ll) <= 1e-10 * abs(ref_ll)
    for ref_g, ref_lp, ref_xi in ((sg, slp, sxi), (og, olp, oxi[0]), (bg, blp, bxi)):
        np.testing.assert_allclose(g, ref_g, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(lp, ref_lp, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(xi, ref_xi, rtol=1e-10, atol=1e-10)
    # the forward-only blocked pass (scoring) gives the same predictive log-densities
    off = log_frame.max(axis=1)
    flp = np.empty(T)
    assert kernels.forward_blocked(np.exp(log_frame - off[:, None]), off, pi, A, block, flp)
    np.testing.assert_allclose(flp, slp, rtol=1e-10, atol=1e-12)
    assert abs(flp.sum() - sll) <= 1e-10 * abs(sll)


def test_impossible_observation_is_reported_not_hidden():
    rng = np.random.default_rng(3)
    log_frame = rng.normal(size=(500, 3))
    log_frame[321] = -np.inf  # no state can emit it
    off = np.where(np.isfinite(log_frame.max(1)), log_frame.max(1), 0.0)
    frame = np.exp(log_frame - off[:, None])
    g, lp = np.empty((500, 3)), np.empty(500)
    assert not kernels.forward_backward_blocked(frame, off, np.ones(3) / 3,
                                                rng.dirichlet(np.ones(3), size=3), 50, g, lp,
                                                np.empty((10, 3, 3)), np.empty((500, 3)),
                                                np.empty(500))


@pytest.fixture
def small_blocks(monkeypatch):
    """Blocks of 64 steps from 256 steps on, so small data run the blocked path."""
    monkeypatch.setattr(_fb, "_TIME_BLOCK", 64)
    monkeypatch.setattr(_fb, "_BLOCKED_MIN_LENGTH", 256)


def _small_blocks_spying_on(kernel, monkeypatch):
    """Blocks of 64 steps from 256 on; the returned list records the length of every
    sequence the blocked ``kernel`` runs on."""
    calls = []
    real = getattr(kernels, kernel)

    def spy(*a):
        calls.append(a[0].shape[0])
        return real(*a)

    monkeypatch.setattr(_fb, "_TIME_BLOCK", 64)
    monkeypatch.setattr(_fb, "_BLOCKED_MIN_LENGTH", 256)
    monkeypatch.setattr(kernels, kernel, spy)
    return calls


def _fit(model_cls, X, lengths, **kw):
    return model_cls(3, max_iter=3, tol=0, random_state=0, **kw).fit(X, lengths=lengths)


@pytest.mark.parametrize("lengths", [[1500], [300, 1000, 40, 7, 500]])
def test_models_use_it_for_long_sequences_and_agree(lengths, monkeypatch):
    rng = np.random.default_rng(1)
    sym = rng.integers(0, 5, size=(sum(lengths), 1))
    Xg = rng.normal(size=(sum(lengths), 2)) + 2.0 * (sym % 2)
    data = [(CategoricalHMM, sym, {"n_features": 5}), (GaussianHMM, Xg, {})]
    seq = [_fit(cls, X, lengths, **kw) for cls, X, kw in data]
    calls = _small_blocks_spying_on("forward_backward_blocked", monkeypatch)
    blk = [_fit(cls, X, lengths, **kw) for cls, X, kw in data]
    assert sorted(set(calls)) == sorted(n for n in lengths if n >= 256)
    for a, b, (_, X, _) in zip(seq, blk, data):
        np.testing.assert_allclose(b.lower_bounds_, a.lower_bounds_, rtol=1e-10)
        np.testing.assert_allclose(b.transmat_, a.transmat_, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(b.predict_proba(X, lengths), a.predict_proba(X, lengths),
                                   rtol=1e-9, atol=1e-12)


def test_model_reports_impossible_observation_in_a_long_sequence(monkeypatch):
    monkeypatch.setattr(_fb, "_TIME_BLOCK", 64)
    monkeypatch.setattr(_fb, "_BLOCKED_MIN_LENGTH", 256)
    sym = np.zeros((1000, 1), dtype=int)
    sym[700] = 2
    m = CategoricalHMM(2, n_features=3, max_iter=1, tol=0, random_state=0).fit(
        np.arange(3)[:, None].repeat(10, axis=0))
    m.emissionprob_ = np.array([[0.5, 0.5, 0.0], [0.5, 0.5, 0.0]])
    with pytest.raises(ValueError, match="first impossible observation at position 700"):
        m.predict_proba(sym)


@pytest.mark.parametrize("lengths", [[3000], [300, 1000, 40, 7, 500]])
def test_scoring_uses_the_blocked_forward_pass_and_agrees(lengths, monkeypatch):
    # issue 16 item 4: score / score_samples / score_sequences / bic on one long sequence run
    # the forward pass parallel over time blocks; equal to the sequential pass to 1e-10
    rng = np.random.default_rng(2)
    Xg = rng.normal(size=(sum(lengths), 2)) + 2.0 * (rng.random((sum(lengths), 1)) < 0.5)
    m = _fit(GaussianHMM, Xg, lengths)
    seq = (m.score_samples(Xg, lengths), m.score_sequences(Xg, lengths), m.score(Xg, lengths),
           m.bic(Xg, lengths))
    calls = _small_blocks_spying_on("forward_blocked", monkeypatch)
    blk = (m.score_samples(Xg, lengths), m.score_sequences(Xg, lengths), m.score(Xg, lengths),
           m.bic(Xg, lengths))
    long = [n for n in lengths if n >= 256]
    assert calls == long * 4
    np.testing.assert_allclose(blk[0], seq[0], rtol=1e-10)
    np.testing.assert_allclose(blk[1], seq[1], rtol=1e-10)
    assert blk[2] == pytest.approx(seq[2], rel=1e-10)
    assert blk[3] == pytest.approx(seq[3], rel=1e-10)


def test_scoring_an_impossible_long_sequence_gives_minus_inf_from_there(monkeypatch):
    monkeypatch.setattr(_fb, "_TIME_BLOCK", 64)
    monkeypatch.setattr(_fb, "_BLOCKED_MIN_LENGTH", 256)
    m = CategoricalHMM(2, n_features=3, max_iter=1, tol=0, random_state=0).fit(
        np.arange(3)[:, None].repeat(10, axis=0))
    m.emissionprob_ = np.array([[0.5, 0.5, 0.0], [0.5, 0.5, 0.0]])
    sym = np.zeros((1000, 1), dtype=int)
    sym[700] = 2
    lp = m.score_samples(sym)
    assert np.all(np.isfinite(lp[:700])) and np.all(lp[700:] == -np.inf)
    assert m.score_sequences(np.vstack([sym, sym[:5]]), [1000, 5])[0] == -np.inf


def test_forward_blocked_on_random_chains_and_block_sizes():
    # forgetting, slowly forgetting, periodic and noisy-periodic chains with small blocks:
    # every catch-up path (agreement inside a block, never, a cascade re-run that must not
    # stop before the first run's stop row) against the sequential forward pass
    rng = np.random.default_rng(5)
    for _ in range(40):  # each call starts numba's threads: tiny data, few calls
        K, T, block = int(rng.integers(1, 5)), int(rng.integers(1, 300)), int(rng.integers(1, 40))
        kind = int(rng.integers(0, 4))
        if kind == 0:
            A = rng.dirichlet(np.ones(K), size=K)
        elif kind == 1:
            eps = 10 ** rng.uniform(-8, -1)
            A = np.eye(K) * (1 - eps) + eps / K
        else:
            A = np.eye(K)[np.roll(np.arange(K), 1)] * (1.0 if kind == 2 else 0.97) + \
                (0.0 if kind == 2 else 0.03 / K)
        log_frame = rng.normal(scale=rng.uniform(0.1, 3.0), size=(T, K))
        off = log_frame.max(axis=1)
        frame = np.exp(log_frame - off[:, None])
        pi = rng.dirichlet(np.ones(K))
        ref, ll = np.empty(T), np.empty(1)
        kernels.forward_scaled(frame, off, pi, A, np.array([0, T], dtype=np.int64), ref, ll)
        got = np.empty(T)
        assert kernels.forward_blocked(frame, off, pi, A, block, got)
        np.testing.assert_allclose(got, ref, rtol=1e-10, atol=1e-12)
        assert abs(got.sum() - ll[0]) <= 1e-10 * abs(ll[0])


def test_forward_blocked_cascade_rewrites_up_to_the_first_catch_up():
    # A = I never forgets. Block 1 ends, from the true start, exactly uniform but
    # speculatively at (0.01, 0.99); block 2 first catches up (from that speculative end) only
    # at row 25, whose observation only state 0 can emit. The cascade re-run from the true
    # (uniform) end agrees with the speculative run at once, yet must rewrite up to row 25:
    # c_25 is 0.5, not the 0.01 of the first catch-up
    frame = np.ones((30, 2))
    frame[10] = [0.01, 0.99]
    frame[25] = [1.0, 0.0]
    off = np.zeros(30)
    pi, A = np.array([0.99, 0.01]), np.eye(2)
    ref, ll = np.empty(30), np.empty(1)
    kernels.forward_scaled(frame, off, pi, A, np.array([0, 30], dtype=np.int64), ref, ll)
    got = np.empty(30)
    assert kernels.forward_blocked(frame, off, pi, A, 10, got)
    assert ref[25] == pytest.approx(np.log(0.5))
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-14)
