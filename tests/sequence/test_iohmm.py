"""The input-output HMM (issue 45, item 3): kernels against NumPy oracles, the likelihood and
posteriors against enumeration of every state path, constant inputs against GaussianHMM, the
bound step against a direct maximisation, planted transition weights at n^-1/2, bad input."""

import itertools
import warnings

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.special import logsumexp

import latentkit as lk
from latentkit import GaussianHMM, InputOutputHMM
from latentkit._kernels.iohmm import iohmm_forward_backward, iohmm_viterbi
from latentkit.exceptions import InputError
from latentkit.sources import IterableSource
from latentkit.sequence import _transition_regression as tr
from latentkit.testing._oracles_iohmm import (iohmm_forward_backward_oracle,
                                              iohmm_viterbi_oracle)


def _random_chain(rng, T, K, P, offsets):
    logb = rng.normal(size=(T, K)) * 2
    Z = np.hstack([rng.normal(size=(T, P - 1)), np.ones((T, 1))])
    A = rng.dirichlet(np.ones(K), size=(T, K))
    pi = rng.dirichlet(np.ones(K), size=len(offsets) - 1)
    return logb, Z, A, pi


@pytest.mark.parametrize("seed", [0, 1])
def test_kernels_equal_oracles(seed):
    rng = np.random.default_rng(seed)
    K, P = 3, 3
    offsets = np.array([0, 1, 7, 19])
    T = offsets[-1]
    logb, Z, A, pi = _random_chain(rng, T, K, P, offsets)
    off = logb.max(axis=1)
    out = {"gamma": np.empty((T, K)), "log_pred": np.empty(T),
           "xi_z": np.empty((3, K, K, P)), "loglik": np.empty(3)}
    iohmm_forward_backward(np.exp(logb - off[:, None]), off, pi, A, Z, offsets, True,
                           out["gamma"], out["log_pred"], out["xi_z"], out["loglik"])
    ref = iohmm_forward_backward_oracle(logb, np.log(pi), np.log(A), Z, offsets)
    for key in ref:  # two algorithms (scaled vs log space): rounding only
        np.testing.assert_allclose(out[key], ref[key], rtol=1e-10, atol=1e-12, err_msg=key)
    path = np.empty(T, dtype=np.int64)
    logprob = np.empty(3)
    iohmm_viterbi(logb, np.log(pi), np.log(A), offsets, path, logprob)
    ref_path, ref_lp = iohmm_viterbi_oracle(logb, np.log(pi), np.log(A), offsets)
    np.testing.assert_array_equal(path, ref_path)
    np.testing.assert_allclose(logprob, ref_lp, rtol=1e-12)


def _fitted(K=2, M=1, input_start=False, cov="diag", seed=0):
    """A model with random parameters (fitted one step, then overwritten)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(30, 2))
    U = rng.normal(size=(30, M))
    m = InputOutputHMM(K, cov, input_start=input_start, max_iter=1, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", lk.ConvergenceWarning)
        m.fit(X, inputs=U)
    W = rng.normal(size=(K, K, M))
    b = rng.normal(size=(K, K))
    W[np.arange(K), np.arange(K)] = 0
    b[np.arange(K), np.arange(K)] = 0
    m.transition_coefs_, m.transition_intercepts_ = W, b
    m.means_ = rng.normal(size=(K, 2)) * 2
    if input_start:
        m.start_coefs_ = np.vstack([np.zeros((1, M)), rng.normal(size=(K - 1, M))])
        m.start_intercepts_ = np.concatenate([[0.0], rng.normal(size=K - 1)])
    else:
        m.startprob_ = rng.dirichlet(np.ones(K))
    return m


def _log_norm(X, means, var):
    return -0.5 * (((X - means) ** 2 / var) + np.log(2 * np.pi * var)).sum()


def _enumerate(m, X, U):
    """log p(x, z | u) of every path z of one sequence, straight from the definition."""
    K, T = m.n_components, X.shape[0]
    softmax = lambda v: np.exp(v - logsumexp(v))  # noqa: E731
    if m.input_start:
        log_pi = np.log(softmax(m.start_coefs_ @ U[0] + m.start_intercepts_))
    else:
        log_pi = np.log(m.startprob_)
    paths, values = [], []
    for z in itertools.product(range(K), repeat=T):
        v = log_pi[z[0]] + _log_norm(X[0], m.means_[z[0]], m.covariances_[z[0]])
        for t in range(1, T):
            logits = m.transition_coefs_[z[t - 1]] @ U[t] + m.transition_intercepts_[z[t - 1]]
            v += np.log(softmax(logits)[z[t]])
            v += _log_norm(X[t], m.means_[z[t]], m.covariances_[z[t]])
        paths.append(z)
        values.append(v)
    return np.array(paths), np.array(values)


@pytest.mark.parametrize("input_start", [False, True])
@pytest.mark.parametrize("K", [2, 3])
def test_equals_enumeration_of_every_path(K, input_start):
    m = _fitted(K, 2, input_start, seed=K)
    rng = np.random.default_rng(10 + K)
    lengths = [4, 1, 5]
    X = rng.normal(size=(10, 2)) * 2
    U = rng.normal(size=(10, 2))
    lls, gammas, best, best_paths = [], [], [], []
    a = 0
    for n in lengths:
        paths, values = _enumerate(m, X[a:a + n], U[a:a + n])
        ll = logsumexp(values)
        lls.append(ll)
        w = np.exp(values - ll)
        gammas.append(np.stack([w @ (paths == k) for k in range(K)], axis=1))
        best.append(values.max())
        best_paths.append(paths[np.argmax(values)])
        a += n
    # 1e-12 relative: the same sums in another order
    np.testing.assert_allclose(m.score_sequences(X, lengths, inputs=U), lls, rtol=1e-12)
    np.testing.assert_allclose(m.predict_proba(X, lengths, inputs=U), np.vstack(gammas),
                               atol=1e-12)
    logprob, path = m.decode(X, lengths, inputs=U)
    np.testing.assert_allclose(logprob, sum(best), rtol=1e-12)
    np.testing.assert_array_equal(path, np.concatenate(best_paths))
    # the E-step's statistics: the bound is the log-likelihood plus the log prior
    data = m._validate_data(X, reset=False, lengths=lengths, inputs=U)
    stats = m._e_step(data)
    np.testing.assert_allclose(stats.data_term, sum(lls), rtol=1e-12)


@pytest.mark.filterwarnings("ignore::latentkit.ConvergenceWarning")
def test_constant_inputs_are_a_gaussian_hmm():
    rng = np.random.default_rng(3)
    X = np.concatenate([rng.normal(0, 1, (40, 2)), rng.normal(3, 1, (40, 2))])
    hmm = GaussianHMM(3, "full", random_state=0, max_iter=5).fit(X)
    c = np.array([0.7, -1.3])
    U = np.tile(c, (80, 1))
    io = InputOutputHMM(3, "full", max_iter=1, random_state=0).fit(X, inputs=U)
    K = 3
    W = rng.normal(size=(K, K, 2))
    W[np.arange(K), np.arange(K)] = 0
    log_A = np.log(hmm.transmat_)
    io.transition_coefs_ = W
    io.transition_intercepts_ = log_A - np.diag(log_A)[:, None] - W @ c
    io.startprob_, io.means_, io.covariances_ = hmm.startprob_, hmm.means_, hmm.covariances_
    np.testing.assert_allclose(io.transition_matrices(U), np.broadcast_to(hmm.transmat_,
                                                                          (80, K, K)), rtol=1e-12)
    lengths = [30, 50]
    # 1e-10: the same recursion with the same matrices, rounded in the softmax
    np.testing.assert_allclose(io.score_sequences(X, lengths, inputs=U),
                               hmm.score_sequences(X, lengths), rtol=1e-10)
    np.testing.assert_allclose(io.score_samples(X, lengths, inputs=U),
                               hmm.score_samples(X, lengths), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(io.predict_proba(X, lengths, inputs=U),
                               hmm.predict_proba(X, lengths), atol=1e-10)
    np.testing.assert_array_equal(io.predict(X, lengths, inputs=U), hmm.predict(X, lengths))


def _q(theta, Z, W, lam, ref):
    """The expected complete-data log posterior of one source state's regression (per-step
    target weights W (T, K))."""
    logits = Z @ theta.T
    logp = logits - logsumexp(logits, axis=1, keepdims=True)
    free = np.array([j for j in range(theta.shape[0]) if j != ref])
    return float((W * logp).sum() - 0.5 * lam * (theta[free, :-1] ** 2).sum())


@pytest.mark.parametrize("lam", [0.0, 2.0])
def test_bound_step_raises_q_and_iterates_to_its_maximum(lam):
    rng = np.random.default_rng(5)
    T, K, P = 200, 3, 3
    Z = np.hstack([rng.normal(size=(T, P - 1)), np.ones((T, 1))])
    W = rng.dirichlet(np.ones(K) * 0.5, size=T) * rng.uniform(0.2, 1.0, size=(T, 1))
    theta = np.zeros((K, P))
    theta[1:] = rng.normal(size=(K - 1, P))
    values = [_q(theta, Z, W, lam, 0)]
    for _ in range(300):
        p = tr.softmax_rows(Z @ theta.T)[0]
        n = W.sum(axis=1)
        grad = (W - n[:, None] * p).T @ Z
        moment = (Z * n[:, None]).T @ Z
        theta = tr.bound_step(theta, grad, moment, lam, 0)
        values.append(_q(theta, Z, W, lam, 0))
    assert np.all(np.diff(values) >= -1e-10 * abs(values[0]))  # minorise-maximise: monotone

    def neg(v):
        full = np.vstack([np.zeros((1, P)), v.reshape(K - 1, P)])
        return -_q(full, Z, W, lam, 0)
    best = minimize(neg, np.zeros((K - 1) * P), method="BFGS", options={"gtol": 1e-10})
    np.testing.assert_allclose(values[-1], -best.fun, rtol=1e-9)
    np.testing.assert_allclose(theta[1:].ravel(), best.x, atol=1e-5)


def _simulate(n, rng, W, b, means):
    K = W.shape[0]
    U = rng.normal(size=(n, W.shape[2]))
    z = np.zeros(n, dtype=int)
    z[0] = rng.integers(K)
    for t in range(1, n):
        logits = W[z[t - 1]] @ U[t] + b[z[t - 1]]
        p = np.exp(logits - logsumexp(logits))
        z[t] = rng.choice(K, p=p)
    X = rng.normal(means[z], 1.0)
    return X, U


@pytest.mark.slow  # 10-25 s: six fits of up to 16,000 steps
def test_planted_transition_weights_recovered_at_root_n():
    W = np.array([[[0.0], [1.5]], [[-2.0], [0.0]]])
    b = np.array([[0.0, -1.5], [-1.0, 0.0]])
    means = np.array([[0.0, 0.0], [2.5, 2.5]])
    errors = {}
    for n in (1000, 16000):
        errs = []
        for seed in range(3):
            X, U = _simulate(n, np.random.default_rng(seed), W, b, means)
            m = InputOutputHMM(2, coefs_prior=0.0, random_state=0, tol=1e-8, init={
                "transition_coefs": W, "transition_intercepts": b, "means": means}).fit(
                    X, inputs=U)
            errs.append(np.sqrt(np.mean((m.transition_coefs_ - W) ** 2)
                                + np.mean((m.transition_intercepts_ - b) ** 2)))
        errors[n] = np.mean(errs)
    # 16x the data: the error falls as n^-1/2 to about 1/4; 0.45 leaves room for 3 seeds' noise
    print(errors)
    assert errors[16000] < 0.45 * errors[1000], errors
    assert errors[16000] < 0.15, errors


def test_fit_raises_the_bound_at_every_iteration_and_recovers_the_sign():
    W = np.array([[[0.0], [2.0]], [[-2.0], [0.0]]])
    b = np.array([[0.0, -1.0], [-1.0, 0.0]])
    X, U = _simulate(3000, np.random.default_rng(0), W, b, np.array([[0.0, 0.0], [3, 3]]))
    m = InputOutputHMM(2, input_start=True, random_state=1).fit(X, inputs=U)
    lb = np.asarray(m.lower_bounds_)
    assert np.all(np.diff(lb) >= -1e-12 * np.abs(lb[:-1]))
    k = int(np.argmax(m.means_[:, 0]))  # the state with mean 3 (label switching)
    assert m.transition_coefs_[1 - k, k, 0] > 1.0 and m.transition_coefs_[k, 1 - k, 0] < -1.0


@pytest.mark.parametrize("input_start", [False, True])
def test_bic_counts_the_free_parameters(input_start):
    m = _fitted(3, 2, input_start=input_start)  # diag covariances, 2 features
    rng = np.random.default_rng(1)
    X, U = rng.normal(size=(40, 2)), rng.normal(size=(40, 2))
    # by hand: start 2 (or 2 x 3 regression), transitions 3 x 2 x 3, means 6, variances 6
    p = (6 if input_start else 2) + 18 + 6 + 6
    ll = m.score_sequences(X, inputs=U).sum()
    np.testing.assert_allclose(m.bic(X, inputs=U), -2 * ll + p * np.log(40), rtol=1e-12)
    np.testing.assert_allclose(m.aic(X, inputs=U), -2 * ll + 2 * p, rtol=1e-12)


def test_save_load_round_trip_and_bad_state(tmp_path):
    m = _fitted(3, 2, input_start=True)
    rng = np.random.default_rng(0)
    X, U = rng.normal(size=(12, 2)), rng.normal(size=(12, 2))
    lk.save(m, tmp_path / "io.npz")
    m2 = lk.load(tmp_path / "io.npz")
    np.testing.assert_array_equal(m2.score_samples(X, inputs=U), m.score_samples(X, inputs=U))
    m2.transition_intercepts_ = np.ones((3, 3))
    with pytest.raises(ValueError, match="transition_coefs_"):
        m2._check_state()


@pytest.mark.filterwarnings("ignore::latentkit.ConvergenceWarning")
def test_bad_input_names_the_argument():
    rng = np.random.default_rng(0)
    X, U = rng.normal(size=(20, 2)), rng.normal(size=(20, 1))
    with pytest.raises(InputError, match="inputs="):
        InputOutputHMM(2).fit(X)
    with pytest.raises(InputError, match=r"inputs must have one row per row of X \(20"):
        InputOutputHMM(2).fit(X, inputs=U[:19])
    bad = U.copy()
    bad[4, 0] = np.nan
    with pytest.raises(InputError, match="inputs must be finite; row 4"):
        InputOutputHMM(2).fit(X, inputs=bad)
    m = InputOutputHMM(2, max_iter=2, random_state=0).fit(X, inputs=U)
    with pytest.raises(InputError, match="inputs must have 1 columns"):
        m.predict(X, inputs=np.ones((20, 2)))
    with pytest.raises(InputError, match="inputs must have one row per row of X"):
        m.score(X, inputs=U[:5])
    with pytest.raises(InputError, match="inputs must have one row per row of X"):
        m.sample(5, inputs=U)
    with pytest.raises(InputError, match="coefs_prior"):
        InputOutputHMM(2, coefs_prior=-1).fit(X, inputs=U)
    with pytest.raises(InputError, match="reference category"):
        InputOutputHMM(2, init={"transition_intercepts": np.ones((2, 2))}).fit(X, inputs=U)
    # chunked data: inputs= travel with the rows (tests/contract/test_data_location.py), and
    # are still required
    source = IterableSource([(X[:10], {"lengths": [10]}), (X[10:], {"lengths": [10]})])
    with pytest.raises(InputError, match="needs inputs="):
        InputOutputHMM(2).fit(source)
    with pytest.raises(InputError, match="inputs must have one row per row of X"):
        InputOutputHMM(2).fit(source, inputs=U[:15])


def test_sample_follows_the_inputs():
    m = _fitted(2, 1)
    m.transition_coefs_ = np.array([[[0.0], [8.0]], [[-8.0], [0.0]]])
    m.transition_intercepts_ = np.zeros((2, 2))
    U = np.where(np.arange(400) % 100 < 50, 1.0, -1.0)[:, None]
    X, states = m.sample(400, random_state=0, inputs=U)
    assert X.shape == (400, 2)
    # u = 1 sends the chain to state 1 and keeps it there; u = -1 to state 0
    assert np.mean(states[U[:, 0] > 0] == 1) > 0.95
    assert np.mean(states[U[:, 0] < 0] == 0) > 0.95
