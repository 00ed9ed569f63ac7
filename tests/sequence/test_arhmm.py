"""The autoregressive HMM: brute-force enumeration of every state path on tiny cases, the
M-step as the maximiser of the expected complete-data log-likelihood (with and without the
ridge prior), planted AR coefficients recovered, the bound never decreasing, save/load."""

import itertools
import warnings

import numpy as np
import pytest
from scipy.special import logsumexp
from scipy.stats import multivariate_normal

import latentkit as lk
from latentkit.exceptions import InputError, StateCheckError
from latentkit.sequence._arhmm import AutoregressiveEmission, lagged_rows

AR = lk.AutoregressiveHMM


def _hand_set(K=2, D=2, p=2, seed=0):
    rng = np.random.default_rng(seed)
    m = AR(K, n_lags=p)
    m.startprob_ = rng.dirichlet(np.ones(K))
    m.transmat_ = rng.dirichlet(np.ones(K), size=K)
    m.intercepts_ = rng.normal(size=(K, D))
    m.coefs_ = rng.normal(scale=0.3, size=(K, D, p * D))
    L = rng.normal(scale=0.3, size=(K, D, D)) + np.eye(D)
    m.covariances_ = L @ np.transpose(L, (0, 2, 1))
    return m


def _emission_logpdf(m, x_seq):
    """log N(x_t | coefs[k] lags_t + intercepts[k], cov[k]) written directly (zero lags before
    the start)."""
    T, D = x_seq.shape
    p = m.n_lags
    out = np.empty((T, m.n_components))
    for t in range(T):
        lags = np.concatenate([x_seq[t - l] if t - l >= 0 else np.zeros(D)
                               for l in range(1, p + 1)])
        for k in range(m.n_components):
            mean = m.coefs_[k] @ lags + m.intercepts_[k]
            out[t, k] = multivariate_normal.logpdf(x_seq[t], mean, m.covariances_[k])
    return out


def _brute(m, x_seq):
    logb = _emission_logpdf(m, x_seq)
    T, K = logb.shape
    logs, paths = [], []
    for path in itertools.product(range(K), repeat=T):
        v = np.log(m.startprob_[path[0]]) + logb[np.arange(T), path].sum()
        v += sum(np.log(m.transmat_[a, b]) for a, b in zip(path[:-1], path[1:]))
        logs.append(v)
        paths.append(np.array(path))
    logs = np.array(logs)
    ll = logsumexp(logs)
    gamma = np.zeros((T, K))
    for w, path in zip(np.exp(logs - ll), paths):
        gamma[np.arange(T), path] += w
    return ll, gamma, paths[int(np.argmax(logs))], logs.max()


def test_brute_force_enumeration_of_every_path():
    """Score, posteriors and Viterbi of a hand-set AR(2) HMM on two sequences equal the
    enumeration of every state path with the regression written out (1e-12)."""
    m = _hand_set()
    X = np.random.default_rng(1).normal(size=(11, 2))
    lengths = [6, 5]
    parts = np.split(X, [6])
    refs = [_brute(m, x) for x in parts]
    np.testing.assert_allclose(m.score_sequences(X, lengths), [r[0] for r in refs],
                               rtol=1e-12)
    np.testing.assert_allclose(m.predict_proba(X, lengths), np.vstack([r[1] for r in refs]),
                               atol=1e-12)
    logprob, path = m.decode(X, lengths)
    np.testing.assert_allclose(logprob, sum(r[3] for r in refs), rtol=1e-12)
    np.testing.assert_array_equal(path, np.concatenate([r[2] for r in refs]))


def _expected_complete(em, params, stats):
    """Expected complete-data emission log-likelihood plus the log prior, from the moments."""
    out = em.log_prior(params)
    B = np.concatenate([params["coefs"], params["intercepts"][:, :, None]], axis=2)
    for k in range(B.shape[0]):
        S = params["covars"][k]
        D = S.shape[0]
        M = stats["sxx"][k] - B[k] @ stats["sxz"][k].T - stats["sxz"][k] @ B[k].T \
            + B[k] @ stats["szz"][k] @ B[k].T
        _, logdet = np.linalg.slogdet(S)
        out += -0.5 * stats["nk"][k] * (D * np.log(2 * np.pi) + logdet) \
            - 0.5 * np.trace(np.linalg.solve(S, M))
    return out


@pytest.mark.parametrize("coefs_prior", [0.0, 2.5])
def test_m_step_maximises_the_expected_complete_data_objective(coefs_prior):
    """The closed-form M-step (weighted least squares; the matrix-normal MAP with a ridge)
    beats 200 random perturbations of its own solution."""
    rng = np.random.default_rng(2)
    em = AutoregressiveEmission(n_lags=2, coefs_prior=coefs_prior, reg_covar=0.0)
    em.n_features_ = 2
    X = lagged_rows(rng.normal(size=(80, 2)), np.array([0, 50, 80]), 2)
    w = rng.dirichlet(np.ones(3), size=80)
    stats = em.accumulate(None, X, w)
    new = em._solve(stats["nk"], stats["sxx"], stats["sxz"], stats["szz"], None)
    best = _expected_complete(em, new, stats)
    for _ in range(200):
        moved = {k: v + rng.normal(scale=1e-3, size=v.shape) for k, v in new.items()}
        moved["covars"] = 0.5 * (moved["covars"] + np.transpose(moved["covars"], (0, 2, 1)))
        assert _expected_complete(em, moved, stats) < best


def test_planted_ar_coefficients_are_recovered():
    """A two-state bivariate AR(1) switching every ~50 steps: from 3,000 simulated steps the
    coefficients come back within 0.08 (their standard errors are about 1 / sqrt(1,500
    steps per state) ~ 0.03) and the bound never decreases."""
    truth = AR(2, n_lags=1)
    truth.startprob_ = np.array([0.5, 0.5])
    truth.transmat_ = np.array([[0.98, 0.02], [0.02, 0.98]])
    truth.intercepts_ = np.array([[0.0, 0.0], [1.0, -1.0]])
    truth.coefs_ = np.array([[[0.8, 0.1], [0.0, 0.5]], [[-0.4, 0.0], [0.3, -0.6]]])
    truth.covariances_ = np.array([np.eye(2) * 0.5, [[1.0, 0.3], [0.3, 0.8]]])
    X, states = truth.sample(3000, random_state=3)
    fit = AR(2, n_lags=1, random_state=0, tol=1e-9, max_iter=300).fit(X)
    order = np.argsort(fit.intercepts_[:, 0])  # state 1 has the larger first intercept
    np.testing.assert_allclose(fit.coefs_[order], truth.coefs_, atol=0.08)
    np.testing.assert_allclose(fit.covariances_[order], truth.covariances_, atol=0.15)
    assert np.all(np.diff(fit.lower_bounds_) >= -1e-12)
    assert (order[fit.predict(X)] == states).mean() > 0.95


@pytest.mark.parametrize("coefs_prior", [0.0, 1.0])
def test_the_bound_never_decreases(coefs_prior):
    X = _hand_set(seed=4).sample(300, random_state=4)[0]
    m = AR(2, n_lags=2, coefs_prior=coefs_prior, reg_covar=0.0, random_state=0, tol=0,
           max_iter=25)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", lk.ConvergenceWarning)
        m.fit(X, lengths=[100, 200])
    # per time step; 1e-12 allows the sums' rounding
    assert np.all(np.diff(m.lower_bounds_) >= -1e-12), np.diff(m.lower_bounds_).min()


def test_bad_input_is_named():
    with pytest.raises(InputError, match="n_lags"):
        AR(2, n_lags=0).fit(np.zeros((10, 1)))
    with pytest.raises(InputError, match="NaN"):
        AR(2).fit(np.array([[0.0], [np.nan], [1.0]]))
    with pytest.raises(InputError, match="spectral"):
        AR(2, init="spectral").fit(np.zeros((10, 1)))
    m = _hand_set()
    m.coefs_ = np.zeros((2, 2, 3))
    with pytest.raises(InputError, match="coefs_"):
        m.score(np.zeros((5, 2)))


def test_save_load_round_trip_and_state_check(tmp_path):
    X = _hand_set().sample(200, random_state=0)[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", lk.ConvergenceWarning)
        m = AR(2, n_lags=2, random_state=0, max_iter=5).fit(X)
    back = lk.load(lk.save(m, tmp_path / "ar.npz"))
    np.testing.assert_allclose(back.score(X), m.score(X), rtol=1e-12)
    back.covariances_ = -back.covariances_
    with pytest.raises(StateCheckError, match="covariances_"):
        back._check_state()


def test_coefficient_errors_fall_as_one_over_root_n():
    """Maximum-likelihood errors of the AR coefficients shrink as n^-1/2: 16 times more steps,
    about 4 times smaller root-mean-square error (8 seeds per size, EM started at the truth so
    that only the sampling error is measured; accepted between 2.5 and 6.5)."""
    truth = AR(2, n_lags=1)
    truth.startprob_ = np.array([0.5, 0.5])
    truth.transmat_ = np.array([[0.95, 0.05], [0.05, 0.95]])
    truth.intercepts_ = np.array([[-1.0], [1.0]])
    truth.coefs_ = np.array([[[0.7]], [[-0.3]]])
    truth.covariances_ = np.array([[[0.5]], [[0.5]]])
    start = {"startprob": truth.startprob_, "transmat": truth.transmat_,
             "intercepts": truth.intercepts_, "coefs": truth.coefs_,
             "covariances": truth.covariances_}
    rmse = []
    for n in (400, 6400):
        err = []
        for seed in range(8):
            X, _ = truth.sample(n, random_state=100 + seed)
            fit = AR(2, n_lags=1, init=start, tol=1e-10, max_iter=500).fit(X)
            err.append(((fit.coefs_ - truth.coefs_) ** 2).mean())
        rmse.append(np.sqrt(np.mean(err)))
    assert 2.5 < rmse[0] / rmse[1] < 6.5, rmse
