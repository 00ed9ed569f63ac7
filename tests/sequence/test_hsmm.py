"""The explicit-duration hidden semi-Markov model: kernels against their NumPy oracles,
brute-force enumeration of every segmentation on tiny cases, the HMMs it reduces to (D = 1;
geometric durations; the expanded-state HMM for any durations), planted durations recovered,
a bound that never decreases, hand-set parameters and save/load."""

import itertools
import warnings

import numpy as np
import pytest
from scipy.special import logsumexp

import latentkit as lk
from latentkit._kernels.hsmm import hsmm_forward_backward, hsmm_viterbi
from latentkit.exceptions import InputError, NotFittedError, StateCheckError
from latentkit.sequence._durations import log_pmf_and_survival
from latentkit.testing import hsmm_forward_backward_oracle, hsmm_viterbi_oracle

HSMM = lk.HiddenSemiMarkovModel


@pytest.fixture(autouse=True)
def _restore_errstate():
    with np.errstate():
        yield


def _random_case(rng, K, D, lengths, zeros=False):
    off = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    logb = rng.normal(size=(off[-1], K))
    pi = rng.dirichlet(np.ones(K))
    A = rng.dirichlet(np.ones(K), size=K)
    p = rng.dirichlet(np.ones(D), size=K)
    if zeros:  # impossible transitions and durations: -inf in the kernels' inputs
        A[np.arange(K), np.arange(K)] = 0.0
        A /= A.sum(axis=1, keepdims=True)
        p[0, 1] = 0.0
        p /= p.sum(axis=1, keepdims=True)
    return logb, pi, A, p, off


def _run_kernel(logb, pi, A, p, off):
    K, D = p.shape
    n = len(off) - 1
    log_p, log_S = log_pmf_and_survival(p)
    with np.errstate(divide="ignore"):
        lpi, lA = np.log(pi), np.log(A)
    out = {"gamma": np.zeros(logb.shape), "log_pred": np.empty(len(logb)),
           "start": np.zeros((n, K)), "trans": np.zeros((n, K, K)),
           "durations": np.zeros((n, K, D)), "loglik": np.empty(n)}
    hsmm_forward_backward(logb, lpi, lA, log_p, log_S, off, True, out["gamma"],
                          out["log_pred"], out["start"], out["trans"], out["durations"],
                          out["loglik"])
    path, logprob = np.empty(len(logb), dtype=np.int64), np.empty(n)
    hsmm_viterbi(logb, lpi, lA, log_p, log_S, off, path, logprob)
    return out, path, logprob, (lpi, lA, log_p, log_S)


@pytest.mark.parametrize("zeros", [False, True])
def test_kernels_equal_their_numpy_oracles(zeros):
    """Forward-backward against the expanded-state HMM oracle, Viterbi against the table
    oracle (1e-10); sequences shorter and longer than D."""
    rng = np.random.default_rng(3)
    logb, pi, A, p, off = _random_case(rng, 3, 5, [9, 1, 4, 17], zeros)
    out, path, logprob, (lpi, lA, log_p, log_S) = _run_kernel(logb, pi, A, p, off)
    ref = hsmm_forward_backward_oracle(logb, lpi, lA, log_p, off)
    for name in out:
        np.testing.assert_allclose(out[name], ref[name], rtol=1e-10, atol=1e-10, err_msg=name)
    ref_path, ref_logprob = hsmm_viterbi_oracle(logb, lpi, lA, log_p, log_S, off)
    np.testing.assert_array_equal(path, ref_path)
    np.testing.assert_allclose(logprob, ref_logprob, rtol=1e-10)


def _segmentations(T, K, D):
    """Every (states, durations) of a sequence of T steps, durations <= D."""
    for n_seg in range(1, T + 1):
        for cuts in itertools.combinations(range(1, T), n_seg - 1):
            durs = np.diff([0, *cuts, T])
            if durs.max() > D:
                continue
            for states in itertools.product(range(K), repeat=n_seg):
                yield states, durs


def _brute_force(model, X):
    """log p(x), posteriors and the best path by enumerating every segmentation."""
    logb = model.emission_.log_likelihood(model._emission_params(), X)
    T, K = logb.shape
    pmf = model.durationprob_
    surv = np.cumsum(pmf[:, ::-1], axis=1)[:, ::-1]
    logs, paths = [], []
    np.seterr(divide="ignore")  # log 0 = -inf (the zero diagonal); restored by the fixture
    for states, durs in _segmentations(T, K, pmf.shape[1]):
        path = np.repeat(states, durs)
        v = np.log(model.startprob_[states[0]]) + logb[np.arange(T), path].sum()
        v += sum(np.log(model.transmat_[a, b]) for a, b in zip(states[:-1], states[1:]))
        v += sum(np.log(pmf[k, d - 1]) for k, d in zip(states[:-1], durs[:-1]))
        v += np.log(surv[states[-1], durs[-1] - 1])  # the censored last segment
        logs.append(v)
        paths.append(path)
    logs = np.array(logs)
    ll = logsumexp(logs)
    w = np.exp(logs - ll)
    gamma = np.zeros((T, K))
    for wi, path in zip(w, paths):
        gamma[np.arange(T), path] += wi
    return ll, gamma, paths[int(np.argmax(logs))], logs.max()


def _hand_set_gaussian(K=3, D=4, seed=0):
    rng = np.random.default_rng(seed)
    m = HSMM(K, "gaussian", max_duration=D)
    m.startprob_ = rng.dirichlet(np.ones(K))
    A = rng.dirichlet(np.ones(K), size=K) * (1 - np.eye(K))
    m.transmat_ = A / A.sum(axis=1, keepdims=True)
    m.durationprob_ = rng.dirichlet(np.ones(D), size=K)
    m.means_ = rng.normal(scale=1.5, size=(K, 1))
    m.covariances_ = rng.uniform(0.5, 2.0, size=(K, 1))
    return m


def test_brute_force_enumeration_of_every_segmentation():
    """Score, posteriors and Viterbi of a hand-set model equal the enumeration of every
    (state, duration) path (1e-12)."""
    m = _hand_set_gaussian()
    X = np.random.default_rng(1).normal(size=(7, 1))
    m.score(X)  # completes the hand-set model (its emission_)
    ll, gamma, path, best = _brute_force(m, X)
    np.testing.assert_allclose(m.score_sequences(X)[0], ll, rtol=1e-12)
    np.testing.assert_allclose(m.score_samples(X).sum(), ll, rtol=1e-12)
    np.testing.assert_allclose(m.predict_proba(X), gamma, atol=1e-12)
    logprob, vpath = m.decode(X)
    np.testing.assert_allclose(logprob, best, rtol=1e-12)
    np.testing.assert_array_equal(vpath, path)
    # several sequences: the sum of each one's enumeration
    lengths = [3, 6, 2]
    X3 = np.random.default_rng(2).normal(size=(11, 1))
    parts = np.split(X3, np.cumsum(lengths)[:-1])
    np.testing.assert_allclose(m.score_sequences(X3, lengths),
                               [_brute_force(m, x)[0] for x in parts], rtol=1e-12)


def _hand_set_hmm(cls, K, seed, **emission):
    rng = np.random.default_rng(seed)
    hmm = cls(K)
    hmm.startprob_ = rng.dirichlet(np.ones(K))
    hmm.transmat_ = rng.dirichlet(np.ones(K), size=K)
    for name, value in emission.items():
        setattr(hmm, name, value)
    return hmm


def _same_answers(hsmm, hmm, X, lengths, rtol=1e-12):
    np.testing.assert_allclose(hsmm.score_sequences(X, lengths),
                               hmm.score_sequences(X, lengths), rtol=rtol)
    np.testing.assert_allclose(hsmm.score_samples(X, lengths), hmm.score_samples(X, lengths),
                               rtol=rtol, atol=1e-12)
    np.testing.assert_allclose(hsmm.predict_proba(X, lengths), hmm.predict_proba(X, lengths),
                               atol=1e-12)
    lp1, p1 = hsmm.decode(X, lengths)
    lp2, p2 = hmm.decode(X, lengths)
    np.testing.assert_allclose(lp1, lp2, rtol=rtol)
    np.testing.assert_array_equal(p1, p2)


def test_one_step_durations_are_the_hmm():
    """max_duration=1: every segment lasts one step and transmat_ (diagonal included) is the
    HMM's; score, posteriors, Viterbi and one EM step equal CategoricalHMM's (1e-12)."""
    K, V = 3, 4
    rng = np.random.default_rng(5)
    B = rng.dirichlet(np.ones(V), size=K)
    hmm = _hand_set_hmm(lk.CategoricalHMM, K, 6, emissionprob_=B)
    hsmm = HSMM(K, "categorical", max_duration=1)
    hsmm.startprob_, hsmm.transmat_, hsmm.emissionprob_ = hmm.startprob_, hmm.transmat_, B
    hsmm.durationprob_ = np.ones((K, 1))
    X, _ = hmm.sample(60, random_state=1)
    lengths = [25, 1, 34]
    _same_answers(hsmm, hmm, X, lengths)
    start = {"startprob": hmm.startprob_, "transmat": hmm.transmat_, "emissionprob": B}
    a = lk.CategoricalHMM(K, n_features=V, init=start, max_iter=1, tol=0).fit(X, lengths)
    b = HSMM(K, lk.sequence.CategoricalEmission(n_features=V), max_duration=1, max_iter=1,
             tol=0, init={**start, "durationprob": np.ones((K, 1))}).fit(X, lengths)
    for name in ("startprob_", "transmat_", "emissionprob_", "lower_bound_"):
        np.testing.assert_allclose(getattr(b, name), getattr(a, name), rtol=1e-12,
                                   err_msg=name)


def test_geometric_durations_are_the_hmm():
    """An HMM with self-transitions a_kk is the HSMM with durations (1 - a_kk) a_kk^(d-1) and
    transmat A_kj / (1 - a_kk) off the diagonal (the right-censored last segment is the HMM's
    unfinished stay). Truncated at D = 600 the lost mass a^600 < 1e-40 is far below double
    precision, so the answers agree to 1e-12 (GaussianHMM, two sequences)."""
    K, D = 3, 600
    rng = np.random.default_rng(7)
    A = rng.dirichlet(np.ones(K), size=K) * 0.2 + np.diag([0.75, 0.6, 0.7])
    A /= A.sum(axis=1, keepdims=True)
    means, cov = np.array([[0.0], [1.5], [-1.0]]), np.array([[1.0], [0.5], [2.0]])
    hmm = _hand_set_hmm(lk.GaussianHMM, K, 8, means_=means, covariances_=cov)
    hmm.transmat_ = A
    a = np.diag(A)
    assert a.max() ** D < 1e-40
    hsmm = HSMM(K, "gaussian", max_duration=D)
    hsmm.startprob_ = hmm.startprob_
    off = A * (1 - np.eye(K))
    hsmm.transmat_ = off / off.sum(axis=1, keepdims=True)
    pmf = (1 - a)[:, None] * a[:, None] ** np.arange(D)[None, :]
    hsmm.durationprob_ = pmf / pmf.sum(axis=1, keepdims=True)
    hsmm.means_, hsmm.covariances_ = means, cov
    X, _ = hmm.sample(120, random_state=2)
    _same_answers(hsmm, hmm, X, [70, 50])


def test_any_durations_are_the_expanded_state_hmm():
    """Any duration pmf: the HSMM is the CategoricalHMM over K D countdown states (k, r)
    (Yu 2010, section 4.1), set by hand; log-likelihoods and state posteriors (summed over
    r) agree to 1e-12."""
    K, D, V = 2, 5, 3
    rng = np.random.default_rng(9)
    hsmm = HSMM(K, "categorical", max_duration=D)
    hsmm.startprob_ = rng.dirichlet(np.ones(K))
    hsmm.transmat_ = np.array([[0.0, 1.0], [1.0, 0.0]])
    hsmm.durationprob_ = rng.dirichlet(np.ones(D), size=K)
    hsmm.emissionprob_ = rng.dirichlet(np.ones(V), size=K)
    big = lk.CategoricalHMM(K * D)
    big.startprob_ = (hsmm.startprob_[:, None] * hsmm.durationprob_).ravel()
    T = np.zeros((K * D, K * D))
    for k in range(K):
        for r in range(2, D + 1):
            T[k * D + r - 1, k * D + r - 2] = 1.0
        for j in range(K):
            T[k * D, j * D:(j + 1) * D] = hsmm.transmat_[k, j] * hsmm.durationprob_[j]
    big.transmat_ = T
    big.emissionprob_ = np.repeat(hsmm.emissionprob_, D, axis=0)
    X, _ = hsmm.sample(80, random_state=3)
    lengths = [30, 3, 47]
    np.testing.assert_allclose(hsmm.score_sequences(X, lengths),
                               big.score_sequences(X, lengths), rtol=1e-12)
    np.testing.assert_allclose(hsmm.predict_proba(X, lengths),
                               big.predict_proba(X, lengths).reshape(-1, K, D).sum(axis=2),
                               atol=1e-12)


def _planted(kind):
    m = HSMM(2, "gaussian", duration=kind, max_duration=30)
    m.startprob_ = np.array([0.5, 0.5])
    m.transmat_ = np.array([[0.0, 1.0], [1.0, 0.0]])
    if kind == "nonparametric":
        pmf = np.zeros((2, 30))
        pmf[0, [3, 4, 5]] = [0.3, 0.4, 0.3]     # durations 4, 5, 6
        pmf[1, [14, 19]] = [0.5, 0.5]           # durations 15, 20: bimodal
        m.durationprob_ = pmf
    else:
        m.duration_lambdas_ = np.array([3.0, 12.0])
    m.means_ = np.array([[0.0], [3.0]])
    m.covariances_ = np.array([[1.0], [1.0]])
    return m


@pytest.mark.parametrize("kind", ["nonparametric", "poisson"])
def test_planted_durations_are_recovered(kind):
    """Fitted from a random start on 4,000 simulated steps (about 300 segments): the duration
    pmf within 0.06 in total variation per state (the sampling error of ~150 segments per
    state is about sqrt(1/150) ~ 0.08 per cell at most, far less summed over a sparse pmf),
    the Poisson means within 10%; the bound never decreases."""
    truth = _planted(kind)
    X, states = truth.sample(4000, random_state=11)
    fit = HSMM(2, "gaussian", duration=kind, max_duration=30, random_state=0, tol=1e-8,
               max_iter=200).fit(X)
    order = np.argsort(fit.means_[:, 0])
    tv = 0.5 * np.abs(fit.durationprob_[order] - truth.durationprob_).sum(axis=1)
    assert np.all(tv < 0.06), tv
    if kind == "poisson":
        np.testing.assert_allclose(fit.duration_lambdas_[order], [3.0, 12.0], rtol=0.1)
    assert np.all(np.diff(fit.lower_bounds_) >= -1e-10), np.diff(fit.lower_bounds_).min()
    assert (fit.predict(X) == order[states]).mean() > 0.95 or \
        (fit.predict(X) == order[1 - states]).mean() > 0.95


@pytest.mark.parametrize("kind", ["nonparametric", "poisson", "negative_binomial"])
@pytest.mark.parametrize("emission", ["categorical", "poisson", "gaussian"])
def test_the_bound_never_decreases(kind, emission):
    rng = np.random.default_rng(4)
    z = np.repeat(np.arange(30) % 3, rng.integers(1, 8, 30))
    X = {"categorical": (z + (rng.random(z.size) < 0.3)) % 3,
         "poisson": rng.poisson(1.0 + 3 * z),
         "gaussian": rng.normal(z, 0.7)}[emission][:, None]
    m = HSMM(3, emission, duration=kind, max_duration=10, random_state=1, max_iter=30, tol=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", lk.ConvergenceWarning)
        m.fit(X, lengths=[X.shape[0] - 20, 20])
    # per time step; 1e-12 allows the sums' rounding
    assert np.all(np.diff(m.lower_bounds_) >= -1e-12), np.diff(m.lower_bounds_).min()
    assert np.allclose(np.diag(m.transmat_), 0.0)


def test_missing_values_are_marginalized():
    """GaussianEmission(missing='marginalize'): a fully missing step has likelihood 1, so a
    sequence with its middle missing scores as its two observed parts under the chain."""
    m = _hand_set_gaussian(K=2, D=3, seed=4)
    m.emission = lk.distributions.Gaussian("diag", missing="marginalize")
    X = np.random.default_rng(0).normal(size=(6, 1))
    Xm = X.copy()
    Xm[2:4] = np.nan
    m.score(X)
    ref = _brute_force_missing(m, Xm)
    np.testing.assert_allclose(m.score_sequences(Xm)[0], ref, rtol=1e-12)


def _brute_force_missing(m, X):
    with np.errstate(invalid="ignore"):
        logb = m.emission_.log_likelihood(m._emission_params(), X)
    T, K = logb.shape
    pmf = m.durationprob_
    surv = np.cumsum(pmf[:, ::-1], axis=1)[:, ::-1]
    logs = []
    np.seterr(divide="ignore")  # log 0 = -inf (the zero diagonal); restored by the fixture
    for states, durs in _segmentations(T, K, pmf.shape[1]):
        path = np.repeat(states, durs)
        v = np.log(m.startprob_[states[0]]) + logb[np.arange(T), path].sum()
        v += sum(np.log(m.transmat_[a, b]) for a, b in zip(states[:-1], states[1:]))
        v += sum(np.log(pmf[k, d - 1]) for k, d in zip(states[:-1], durs[:-1]))
        logs.append(v + np.log(surv[states[-1], durs[-1] - 1]))
    return logsumexp(logs)


def test_hand_set_parameters_are_checked():
    m = HSMM(2, "poisson", max_duration=4)
    m.startprob_ = np.array([0.5, 0.5])
    m.transmat_ = np.array([[0.0, 1.0], [1.0, 0.0]])
    m.lambdas_ = np.array([[1.0], [5.0]])
    X = np.array([[0], [1], [6], [5]])
    with pytest.raises(NotFittedError, match="durationprob_"):
        m.score(X)
    m.durationprob_ = np.full((2, 3), 1 / 3)  # max_duration=4 columns expected
    with pytest.raises(InputError, match=r"durationprob_ must have shape"):
        m.score(X)
    m.durationprob_ = np.full((2, 4), 0.25)
    assert np.isfinite(m.score(X))
    p = HSMM(2, "poisson", duration="poisson", max_duration=4)
    p.startprob_, p.transmat_, p.lambdas_ = m.startprob_, m.transmat_, m.lambdas_
    p.duration_lambdas_ = np.array([1.0, -2.0])
    with pytest.raises(InputError, match="duration_lambdas_ must be positive"):
        p.score(X)


def test_bad_hyper_parameters_are_named():
    X = np.zeros((10, 1), dtype=int)
    with pytest.raises(InputError, match="duration must be one of"):
        HSMM(2, duration="gamma").fit(X)
    with pytest.raises(InputError, match="max_duration"):
        HSMM(2, max_duration=0).fit(X)
    with pytest.raises(InputError, match="spectral"):
        HSMM(2, init="spectral").fit(X)
    with pytest.raises(InputError, match="durationprob"):
        HSMM(2, init={"durationprob": np.ones((2, 3))}, max_duration=4).fit(X)


def test_save_load_round_trip_and_state_check(tmp_path):
    X = _planted("poisson").sample(300, random_state=0)[0]
    m = HSMM(2, "gaussian", duration="negative_binomial", max_duration=20, random_state=0,
             max_iter=5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", lk.ConvergenceWarning)
        m.fit(X, lengths=[150, 150])
    path = lk.save(m, tmp_path / "hsmm.npz")
    back = lk.load(path)
    np.testing.assert_allclose(back.score(X, [150, 150]), m.score(X, [150, 150]), rtol=1e-12)
    np.testing.assert_array_equal(back.durationprob_, m.durationprob_)
    back.duration_p_ = np.array([0.5, 1.5])
    with pytest.raises(StateCheckError, match="duration_p_"):
        back._check_state()


@pytest.mark.slow
def test_duration_errors_fall_as_one_over_root_n():
    """Maximum-likelihood errors of the Poisson duration means shrink as n^-1/2: 16 times more
    steps, about 4 times smaller root-mean-square error (6 seeds per size, EM started at the
    truth so that only the sampling error is measured; accepted between 2.5 and 6.5)."""
    truth = _planted("poisson")
    start = {"startprob": truth.startprob_, "transmat": truth.transmat_,
             "duration_lambdas": truth.duration_lambdas_, "means": truth.means_,
             "covariances": truth.covariances_}
    rmse = []
    for n in (500, 8000):
        err = []
        for seed in range(6):
            X, _ = truth.sample(n, random_state=200 + seed)
            fit = HSMM(2, "gaussian", duration="poisson", max_duration=30, init=start,
                       tol=1e-10, max_iter=300).fit(X)
            err.append(((fit.duration_lambdas_ - truth.duration_lambdas_) ** 2).mean())
        rmse.append(np.sqrt(np.mean(err)))
    assert 2.5 < rmse[0] / rmse[1] < 6.5, rmse
