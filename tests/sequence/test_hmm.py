"""Hidden Markov models: published results, hmmlearn parity, numerics, the common contract,
bad input."""

import warnings

import numpy as np
import pytest

from latentkit.datasets import (
    load_earthquakes,
    load_gutenberg_characters,
    load_old_faithful,
)
from latentkit.sequence import (
    CategoricalEmission,
    CategoricalHMM,
    GaussianHMM,
    GMMHMM,
    HiddenMarkovModel,
    PoissonEmission,
    PoissonHMM,
)
from latentkit.testing import (
    check_latent_model,
    forward_backward_oracle,
    match_components,
)

hmm = pytest.importorskip("hmmlearn.hmm")

PARITY_LENGTHS = [37, 1, 120, 5, 64]


# --------------------------------------------------------------------------------------------
# Published results
# --------------------------------------------------------------------------------------------

@pytest.mark.kernel_sensitive
@pytest.mark.parametrize("K, neg_loglik, lambdas", [
    (2, 341.8787, [15.421, 26.018]),
    (3, 328.5275, [13.134, 19.713, 29.710]),
])
def test_earthquakes_poisson_hmm_reproduces_zucchini_macdonald(K, neg_loglik, lambdas):
    # Zucchini & MacDonald (2009) data; the free-initial-distribution Baum-Welch optimum
    X = load_earthquakes().data
    m = PoissonHMM(K, n_init=5, tol=1e-10, max_iter=3000, random_state=0).fit(X)
    assert -m.lower_bound_ * len(X) == pytest.approx(neg_loglik, abs=5e-5)
    assert -m.score_sequences(X)[0] == pytest.approx(neg_loglik, abs=5e-5)
    np.testing.assert_allclose(np.sort(m.lambdas_[:, 0]), lambdas, atol=6e-4)
    # the free initial distribution of the optimum is one-hot on the low-rate state
    assert m.startprob_[np.argmin(m.lambdas_[:, 0])] == pytest.approx(1.0, abs=1e-6)
    if K == 2:
        order = np.argsort(m.lambdas_[:, 0])
        np.testing.assert_allclose(m.transmat_[np.ix_(order, order)],
                                   [[.9284, .0716], [.1190, .8810]], atol=6e-4)


def test_cave_neuwirth_vowels_and_consonants():
    # 2-state categorical HMM on English text (27 symbols): one state emits the vowels
    data = load_gutenberg_characters(level="paragraph", books="pride_and_prejudice",
                                     max_length=20000)
    m = CategoricalHMM(2, n_features=27, n_init=4, tol=1e-6, max_iter=300, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a non-converged restart is fine; the best is kept
        m.fit(data.data, lengths=data.lengths)
    B = m.emissionprob_
    vowels = [data.alphabet.index(c) for c in "aeiou"]
    v = int(np.argmax(B[:, vowels].sum(axis=1)))
    high = {data.alphabet[i] for i in range(27) if B[v, i] > B[1 - v, i]}
    assert set("aeiou") <= high
    consonants = set("bcdfghjklmnpqrstvwxz")
    assert len(high & consonants) <= 2, high
    # the states alternate (the vowel state rarely follows itself)
    assert m.transmat_[v, v] < 0.5


def test_geyser_gaussian_hmm_short_and_long_eruptions():
    # 299 consecutive eruptions (waiting, duration): a short eruption is almost always followed
    # by a long one (Azzalini & Bowman 1990)
    X = load_old_faithful(kind="geyser").data
    m = GaussianHMM(2, "full", n_init=4, tol=1e-8, max_iter=500, random_state=0).fit(X)
    short = int(np.argmin(m.means_[:, 1]))
    assert m.means_[short, 1] < 2.7 and m.means_[1 - short, 1] > 4.2
    assert m.transmat_[short, 1 - short] > 0.9
    assert m.transmat_[1 - short, short] > 0.5  # and long ones alternate with short ones


# --------------------------------------------------------------------------------------------
# hmmlearn parity from identical starting parameters
# --------------------------------------------------------------------------------------------

def _hmmlearn_trace(h, X, lengths, n_iter):
    """hmmlearn's log-likelihood at each iteration's E-step, one EM step per fit call."""
    trace = []
    for _ in range(n_iter):
        h.fit(X, lengths)
        trace.append(h.monitor_.history[-1])
    return np.array(trace)


@pytest.mark.kernel_sensitive
def test_categorical_hmm_parity_with_hmmlearn():
    rng = np.random.default_rng(0)
    K, M, N = 3, 6, 15
    X = rng.integers(0, M, size=(sum(PARITY_LENGTHS), 1))
    sp, A = rng.dirichlet(np.ones(K)), rng.dirichlet(np.ones(K), size=K)
    B = rng.dirichlet(np.ones(M), size=K)
    ours = CategoricalHMM(K, init=dict(startprob=sp, transmat=A, emissionprob=B), tol=0,
                          max_iter=N).fit(X, lengths=PARITY_LENGTHS)
    for impl in ("scaling", "log"):
        h = hmm.CategoricalHMM(K, n_features=M, init_params="", n_iter=1, implementation=impl)
        h.startprob_, h.transmat_, h.emissionprob_ = sp.copy(), A.copy(), B.copy()
        trace = _hmmlearn_trace(h, X, PARITY_LENGTHS, N)
        np.testing.assert_allclose(ours.lower_bounds_ * len(X), trace, rtol=1e-8)
        np.testing.assert_allclose(ours.emissionprob_, h.emissionprob_, rtol=1e-8, atol=1e-12)
        np.testing.assert_allclose(ours.transmat_, h.transmat_, rtol=1e-8, atol=1e-12)
    # the same Viterbi path and log-probability, sequence by sequence
    lp, path = ours.decode(X, PARITY_LENGTHS)
    hlp, hpath = h.decode(X, PARITY_LENGTHS)
    np.testing.assert_array_equal(path, hpath)
    assert lp == pytest.approx(hlp, rel=1e-10)
    # hmmlearn's score is the total log-likelihood; ours is per time step
    assert ours.score(X, PARITY_LENGTHS) * len(X) == pytest.approx(
        h.score(X, PARITY_LENGTHS), rel=1e-10)
    np.testing.assert_allclose(ours.predict_proba(X, PARITY_LENGTHS),
                               h.predict_proba(X, PARITY_LENGTHS), rtol=1e-8, atol=1e-12)


@pytest.mark.kernel_sensitive
@pytest.mark.parametrize("covariance_type", ["diag", "full", "spherical", "tied"])
def test_gaussian_hmm_parity_with_hmmlearn(covariance_type):
    rng = np.random.default_rng(1)
    K, D, N = 3, 3, 12
    T = sum(PARITY_LENGTHS)
    X = rng.normal(size=(T, D)) + 2.0 * rng.integers(0, 3, size=(T, 1))
    sp, A = rng.dirichlet(np.ones(K)), rng.dirichlet(np.ones(K), size=K)
    means = rng.normal(size=(K, D)) * 2
    Q = rng.normal(size=(D, D)) * 0.3
    covars = {"diag": rng.uniform(0.5, 2.0, (K, D)),
              "full": np.array([np.eye(D) + Q @ Q.T * (k + 1) for k in range(K)]),
              "spherical": rng.uniform(0.5, 2.0, K),
              "tied": np.eye(D) + Q @ Q.T}[covariance_type]
    ours = GaussianHMM(K, covariance_type, reg_covar=0.0, tol=0, max_iter=N,
                       init=dict(startprob=sp, transmat=A, means=means, covars=covars)
                       ).fit(X, lengths=PARITY_LENGTHS)
    h = hmm.GaussianHMM(K, covariance_type, init_params="", n_iter=1, covars_prior=0.0,
                        implementation="scaling")
    h.startprob_, h.transmat_, h.means_ = sp.copy(), A.copy(), means.copy()
    h.covars_ = covars.copy()
    trace = _hmmlearn_trace(h, X, PARITY_LENGTHS, N)
    np.testing.assert_allclose(ours.lower_bounds_ * T, trace, rtol=1e-8)
    np.testing.assert_allclose(ours.means_, h.means_, rtol=1e-8, atol=1e-10)
    if covariance_type in ("diag", "full"):
        np.testing.assert_allclose(ours.covariances_, h._covars_, rtol=1e-8, atol=1e-10)
    np.testing.assert_array_equal(ours.predict(X, PARITY_LENGTHS), h.predict(X, PARITY_LENGTHS))
    assert ours.decode(X, PARITY_LENGTHS)[0] == pytest.approx(
        h.decode(X, PARITY_LENGTHS)[0], rel=1e-10)


# --------------------------------------------------------------------------------------------
# Numerics
# --------------------------------------------------------------------------------------------

def _frozen_model(cls, X, **params):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return cls(len(params["startprob"]), init=params, frozen=set(params), max_iter=1,
                   tol=0).fit(X)


@pytest.mark.slow
def test_million_step_sequence_does_not_underflow():
    n = 1_000_000
    rng = np.random.default_rng(2)
    X = rng.integers(0, 2, size=(n, 1))
    # every emission has probability 0.5: log L = n log 0.5 whatever the chain
    m = _frozen_model(CategoricalHMM, X, startprob=[0.3, 0.7], transmat=[[0.9, 0.1], [0.2, 0.8]],
                      emissionprob=[[0.5, 0.5], [0.5, 0.5]])
    # (a sum of 10^6 rounded terms: relative error up to ~n eps)
    assert m.lower_bound_ * n == pytest.approx(n * np.log(0.5), rel=1e-10)
    # transition rows equal to the start distribution: an i.i.d. mixture, log L in closed form
    pi, B = np.array([0.3, 0.7]), np.array([[0.9, 0.1], [0.2, 0.8]])
    m = _frozen_model(CategoricalHMM, X, startprob=pi, transmat=[pi, pi], emissionprob=B)
    closed = np.log(pi @ B)[X[:, 0]].sum()
    ll = m.score_sequences(X)[0]
    assert np.isfinite(ll) and ll == pytest.approx(closed, rel=1e-10)
    assert m.lower_bound_ * n == pytest.approx(closed, rel=1e-10)
    post = m.predict_proba(X[:1000])
    assert np.all(np.isfinite(post))


def test_lower_bounds_never_decrease_with_many_and_length_one_sequences():
    rng = np.random.default_rng(3)
    lengths = np.concatenate([np.ones(300, dtype=int), rng.integers(1, 30, size=200)])
    X = rng.integers(0, 5, size=(lengths.sum(), 1))
    for m in (CategoricalHMM(3, tol=0, max_iter=40, random_state=0),
              CategoricalHMM(3, tol=0, max_iter=40, random_state=0, transmat_prior=2.0,
                             startprob_prior=1.5, emissionprob_prior=1.2)):
        m.fit(X, lengths=lengths)  # ELBODecreaseWarning is an error in this suite
        assert np.all(np.diff(m.lower_bounds_) >= -1e-12 * np.abs(m.lower_bounds_[:-1]))
    ones = np.ones(50, dtype=int)
    Xg = rng.normal(size=(50, 2))
    m = GaussianHMM(2, tol=0, max_iter=30, random_state=0).fit(Xg, lengths=ones)
    assert np.all(np.diff(m.lower_bounds_) >= -1e-12 * np.abs(m.lower_bounds_[:-1]))


def test_unvisited_state_keeps_valid_distributions():
    rng = np.random.default_rng(4)
    X = rng.integers(0, 3, size=(60, 1))
    init = dict(startprob=[1.0, 0.0], transmat=[[1.0, 0.0], [0.5, 0.5]],
                emissionprob=[[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]])
    m = CategoricalHMM(2, init=init, tol=0, max_iter=5).fit(X)
    # state 1 is never visited: its rows keep their previous values (no 0/0)
    np.testing.assert_allclose(m.transmat_[1], [0.5, 0.5])
    np.testing.assert_allclose(m.emissionprob_[1], [0.1, 0.1, 0.8])
    assert np.all(np.isfinite(m.transmat_)) and np.all(np.isfinite(m.emissionprob_))
    np.testing.assert_allclose(m.transmat_.sum(axis=1), 1.0)
    np.testing.assert_allclose(m.emissionprob_[0], np.bincount(X[:, 0], minlength=3) / 60)
    # Poisson and Gaussian: the unvisited state keeps its parameters
    Xp = rng.poisson(3.0, size=(40, 1))
    p = PoissonHMM(2, init=dict(startprob=[1.0, 0.0], transmat=[[1.0, 0.0], [0.5, 0.5]],
                                lambdas=[[2.0], [9.0]]), tol=0, max_iter=3).fit(Xp)
    assert p.lambdas_[1, 0] == 9.0 and p.lambdas_[0, 0] == pytest.approx(Xp.mean())
    Xg = rng.normal(size=(40, 2))
    g = GaussianHMM(2, "full", init=dict(startprob=[1.0, 0.0], transmat=[[1.0, 0.0], [0.5, 0.5]],
                                         means=[[0.0, 0.0], [5.0, 5.0]],
                                         covars=[np.eye(2), 2 * np.eye(2)]),
                    tol=0, max_iter=3).fit(Xg)
    np.testing.assert_array_equal(g.means_[1], [5.0, 5.0])
    np.testing.assert_array_equal(g.covariances_[1], 2 * np.eye(2))


def test_m_step_with_priors_is_the_dirichlet_map_estimate():
    rng = np.random.default_rng(5)
    lengths = [20, 15, 30]
    X = rng.integers(0, 4, size=(65, 1))
    sp, A, B = [0.5, 0.5], [[0.7, 0.3], [0.4, 0.6]], rng.dirichlet(np.ones(4), size=2)
    m = CategoricalHMM(2, init=dict(startprob=sp, transmat=A, emissionprob=B), tol=0,
                       max_iter=1, startprob_prior=2.0, transmat_prior=[[3.0, 1.0], [1.0, 2.0]],
                       emissionprob_prior=1.5).fit(X, lengths=lengths)
    gamma, _, xi, ll = forward_backward_oracle(np.log(B).T[X[:, 0]], np.array(sp),
                                               np.array(A), lengths)
    start = gamma[[0, 20, 35]].sum(0) + 1.0
    trans = xi.sum(0) + np.array([[2.0, 0.0], [0.0, 1.0]])
    counts = gamma.T @ np.eye(4)[X[:, 0]] + 0.5
    np.testing.assert_allclose(m.startprob_, start / start.sum(), rtol=1e-10)
    np.testing.assert_allclose(m.transmat_, trans / trans.sum(1, keepdims=True), rtol=1e-10)
    np.testing.assert_allclose(m.emissionprob_, counts / counts.sum(1, keepdims=True), rtol=1e-10)
    # the recorded ELBO is log-likelihood + log prior at the starting parameters
    from scipy.stats import dirichlet

    log_prior = (dirichlet.logpdf(sp, [2.0, 2.0]) + dirichlet.logpdf(A[0], [3.0, 1.0])
                 + dirichlet.logpdf(A[1], [1.0, 2.0])
                 + sum(dirichlet.logpdf(B[k], [1.5] * 4) for k in range(2)))
    assert m.lower_bounds_[0] * 65 == pytest.approx(ll.sum() + log_prior, rel=1e-10)


def test_frozen_parameters_stay_fixed():
    rng = np.random.default_rng(6)
    X = rng.integers(0, 3, size=(100, 1))
    sp, A = np.array([0.2, 0.8]), np.array([[0.6, 0.4], [0.3, 0.7]])
    m = CategoricalHMM(2, init=dict(startprob=sp, transmat=A), frozen={"startprob", "transmat"},
                       tol=0, max_iter=10, random_state=0).fit(X)
    np.testing.assert_array_equal(m.startprob_, sp)
    np.testing.assert_array_equal(m.transmat_, A)
    assert not np.allclose(m.emissionprob_, CategoricalHMM(
        2, init=dict(startprob=sp, transmat=A), max_iter=1, tol=0, random_state=0,
        frozen={"startprob", "transmat", "emissionprob"}).fit(X).emissionprob_)
    # fewer free parameters in BIC/AIC: only the emissions (2 x 2)
    assert m.aic(X) == pytest.approx(-2 * m.score(X) * 100 + 2 * 4)
    assert m.bic(X) == pytest.approx(-2 * m.score(X) * 100 + 4 * np.log(100))
    g = GaussianHMM(2, "diag", frozen={"means"}, init=dict(means=[[-1.0], [1.0]]), tol=0,
                    max_iter=5, random_state=0).fit(rng.normal(size=(50, 1)))
    np.testing.assert_array_equal(g.means_, [[-1.0], [1.0]])
    assert np.all(np.diff(g.lower_bounds_) >= -1e-12)


def test_scores_are_consistent():
    rng = np.random.default_rng(7)
    lengths = [10, 1, 25]
    X = rng.integers(0, 4, size=(36, 1))
    m = CategoricalHMM(2, max_iter=5, tol=0, random_state=0).fit(X, lengths=lengths)
    steps = m.score_samples(X, lengths)
    seqs = m.score_sequences(X, lengths)
    assert steps.shape == (36,) and seqs.shape == (3,)
    np.testing.assert_allclose([steps[:10].sum(), steps[10], steps[11:].sum()], seqs, rtol=1e-12)
    assert m.score(X, lengths) == pytest.approx(seqs.sum() / 36, rel=1e-12)
    assert m.elbo(X, lengths=lengths) == pytest.approx(m.score(X, lengths), rel=1e-12)
    gamma, log_pred, _, ll = forward_backward_oracle(np.log(m.emissionprob_).T[X[:, 0]],
                                                     m.startprob_, m.transmat_, lengths)
    np.testing.assert_allclose(steps, log_pred, rtol=1e-10)
    np.testing.assert_allclose(m.predict_proba(X, lengths), gamma, rtol=1e-10, atol=1e-14)
    p = 1 + 2 + 2 * 3  # (K-1) + K(K-1) + K(M-1)
    assert m.bic(X, lengths) == pytest.approx(-2 * seqs.sum() + p * np.log(36))
    assert m.aic(X, lengths) == pytest.approx(-2 * seqs.sum() + 2 * p)


def test_sample_and_recover_planted_parameters():
    pi = np.array([0.6, 0.4])
    A = np.array([[0.9, 0.1], [0.2, 0.8]])
    B = np.array([[0.7, 0.2, 0.1, 0.0], [0.05, 0.1, 0.35, 0.5]])
    truth = CategoricalHMM(2, init=dict(startprob=pi, transmat=A, emissionprob=B),
                           frozen={"startprob", "transmat", "emissionprob"}, max_iter=1, tol=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        truth.fit(np.array([[0], [3]]))
    X, Z = truth.sample(20000, random_state=0)
    assert X.shape == (20000, 1) and Z.shape == (20000,)
    # empirical transition frequencies of the drawn states match the chain
    counts = np.zeros((2, 2))
    np.add.at(counts, (Z[:-1], Z[1:]), 1)
    np.testing.assert_allclose(counts / counts.sum(1, keepdims=True), A, atol=0.02)
    m = CategoricalHMM(2, n_features=4, tol=1e-8, max_iter=500, n_init=2, random_state=1).fit(X)
    perm, err = match_components(B, m.emissionprob_)
    assert err.max() < 0.05
    np.testing.assert_allclose(m.transmat_[np.ix_(perm, perm)], A, atol=0.03)
    # decoding recovers most states
    assert np.mean(perm[Z] == m.predict(X)) > 0.85
    Xs, Zs = truth.sample(5, random_state=3)
    np.testing.assert_array_equal(Xs, truth.sample(5, random_state=3)[0])
    g = GaussianHMM(2, "full", max_iter=3, random_state=0).fit(np.random.default_rng(0).normal(
        size=(30, 2)))
    assert g.sample(7, random_state=0)[0].shape == (7, 2)


def test_partial_fit_stepwise_em_over_minibatches_of_sequences():
    rng = np.random.default_rng(8)
    truth_B = np.array([[0.8, 0.1, 0.1], [0.1, 0.1, 0.8]])
    lengths = rng.integers(20, 60, size=60)
    Z = [rng.integers(0, 2)]
    for _ in range(lengths.sum() - 1):
        Z.append(Z[-1] if rng.random() < 0.9 else 1 - Z[-1])
    Z = np.array(Z)
    X = np.array([rng.choice(3, p=truth_B[z]) for z in Z])[:, None]
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    init = dict(startprob=[0.5, 0.5], transmat=[[0.6, 0.4], [0.3, 0.7]],
                emissionprob=[[0.5, 0.2, 0.3], [0.3, 0.2, 0.5]])
    m = CategoricalHMM(2, n_features=3, init=init)
    total, t = len(X), 0
    for epoch in range(8):
        for s in range(0, 60, 10):
            a, b = offsets[s], offsets[s + 10]
            # stepwise EM (Liang & Klein 2009): rho_t = (t + 2)^-0.6
            m.partial_fit(X[a:b], lengths=lengths[s:s + 10], total_samples=total,
                          step_size=(t + 2.0) ** -0.6)
            t += 1
    assert m.n_steps_ == 48
    batch = CategoricalHMM(2, n_features=3, init=init, tol=1e-8, max_iter=300).fit(
        X, lengths=lengths)
    start = CategoricalHMM(2, n_features=3, init=init, max_iter=1, frozen=set(init)).fit(
        X, lengths=lengths)
    # from -0.97 nats per step to within 0.001 of the batch optimum (-0.79)
    assert m.score(X, lengths) > batch.score(X, lengths) - 1e-3
    assert m.score(X, lengths) > start.score(X, lengths) + 0.15
    perm, err = match_components(truth_B, m.emissionprob_)
    assert err.max() < 0.15


def test_hidden_markov_model_with_composed_emission_equals_familiar_name():
    rng = np.random.default_rng(9)
    X = rng.poisson(4.0, size=(80, 2))
    a = HiddenMarkovModel(3, emission=PoissonEmission(), max_iter=15, tol=0,
                          random_state=0).fit(X, lengths=[30, 50])
    b = PoissonHMM(3, max_iter=15, tol=0, random_state=0).fit(X, lengths=[30, 50])
    np.testing.assert_array_equal(a.lower_bounds_, b.lower_bounds_)
    np.testing.assert_array_equal(a.lambdas_, b.lambdas_)
    c = HiddenMarkovModel(2, emission="categorical", max_iter=3, random_state=0).fit(
        rng.integers(0, 3, size=(20, 1)))
    assert c.emissionprob_.shape == (2, 3)
    emission = CategoricalEmission(n_features=5)
    HiddenMarkovModel(2, emission=emission, max_iter=2, random_state=0).fit(np.zeros((4, 1), int))
    assert not hasattr(emission, "n_features_")  # the user's component is never modified


# --------------------------------------------------------------------------------------------
# The common contract
# --------------------------------------------------------------------------------------------

def test_contract_categorical():
    rng = np.random.default_rng(10)
    X = rng.integers(0, 4, size=(60, 1))
    check_latent_model(CategoricalHMM(2, max_iter=5, random_state=0, n_init=2), X,
                       {"lengths": [10, 1, 20, 29]})


def test_contract_poisson():
    X = load_earthquakes().data
    check_latent_model(PoissonHMM(2, max_iter=5, random_state=0), X,
                       {"lengths": [50, 57]})


@pytest.mark.parametrize("covariance_type", ["diag", "full"])
def test_contract_gaussian(covariance_type):
    X = load_old_faithful(kind="geyser").data
    check_latent_model(GaussianHMM(2, covariance_type, max_iter=5, random_state=0), X,
                       {"lengths": [100, 1, 198]})


def test_contract_composed_model_with_priors():
    rng = np.random.default_rng(11)
    X = rng.integers(0, 3, size=(40, 1))
    model = HiddenMarkovModel(2, emission=CategoricalEmission(emissionprob_prior=1.5),
                              transmat_prior=2.0, max_iter=5, random_state=0)
    check_latent_model(model, X, {"lengths": [15, 25]})


# --------------------------------------------------------------------------------------------
# Bad input
# --------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def fitted_categorical():
    X = np.array([[0], [1], [2], [1], [0], [2]])
    return CategoricalHMM(2, max_iter=3, random_state=0).fit(X)


def test_symbol_out_of_range_at_fit_names_symbol_and_position():
    X = np.array([[0], [1], [2], [5], [1]])
    with pytest.raises(ValueError, match=r"symbol 5 at row 3 \(sequence 1, position 1\).*"
                                         r"0\.\.2"):
        CategoricalHMM(2, n_features=3).fit(X, lengths=[2, 3])
    with pytest.raises(ValueError, match=r"negative symbol -1 at row 1"):
        CategoricalHMM(2).fit(np.array([[0], [-1]]))


def test_symbol_out_of_range_at_predict(fitted_categorical):
    with pytest.raises(ValueError, match=r"symbol 3 at row 2 \(sequence 0, position 2\)"):
        fitted_categorical.predict(np.array([[0], [1], [3]]))
    with pytest.raises(ValueError, match=r"symbol 7"):
        fitted_categorical.score(np.array([[7]]))


def test_float_and_nan_symbols(fitted_categorical):
    with pytest.raises(ValueError, match=r"non-integer value 0\.5 at row 1"):
        CategoricalHMM(2).fit(np.array([[0.0], [0.5], [1.0]]))
    with pytest.raises(ValueError, match=r"NaN or infinity at row 2"):
        fitted_categorical.predict(np.array([[0.0], [1.0], [np.nan]]))
    with pytest.raises(TypeError, match="integer symbol"):
        CategoricalHMM(2).fit(np.array([["a"], ["b"]]))
    # integral floats are symbols
    fitted_categorical.predict(np.array([[0.0], [2.0]]))


def test_bad_lengths():
    X = np.zeros((6, 1), dtype=int)
    with pytest.raises(ValueError, match="lengths sum to 5, but X has 6 rows"):
        CategoricalHMM(2).fit(X, lengths=[2, 3])
    with pytest.raises(ValueError, match=r"lengths\[1\] = 0"):
        CategoricalHMM(2).fit(X, lengths=[3, 0, 3])
    with pytest.raises(ValueError, match=r"lengths\[0\] = -1"):
        CategoricalHMM(2).fit(X, lengths=[-1, 7])
    with pytest.raises(ValueError, match="integers"):
        CategoricalHMM(2).fit(X, lengths=[2.5, 3.5])


def test_nan_and_bad_counts_in_poisson_and_gaussian():
    with pytest.raises(ValueError, match=r"NaN or infinity at row 1"):
        PoissonHMM(2).fit(np.array([[1.0], [np.nan], [2.0]]))
    with pytest.raises(ValueError, match=r"negative count -2 at row 1"):
        PoissonHMM(2).fit(np.array([[1], [-2], [2]]))
    with pytest.raises(ValueError, match=r"non-integer value 1\.5"):
        PoissonHMM(2).fit(np.array([[1.5], [2.0]]))
    with pytest.raises(ValueError, match=r"NaN or infinity at row 2 \(sequence 1, position 0\)"):
        GaussianHMM(2).fit(np.array([[1.0], [2.0], [np.nan], [1.0]]), lengths=[2, 2])
    g = GaussianHMM(2, max_iter=2, random_state=0).fit(np.random.default_rng(0).normal(
        size=(10, 2)))
    with pytest.raises(ValueError, match="X has 3 features, but the model is expecting 2"):
        g.predict(np.zeros((4, 3)))


def test_bad_hyper_parameters():
    X = np.array([[0], [1], [1], [0]])
    with pytest.raises(ValueError, match="n_components must be >= 1"):
        CategoricalHMM(0).fit(X)
    with pytest.raises(ValueError, match="emission must be one of"):
        HiddenMarkovModel(2, emission="binomial").fit(X)
    with pytest.raises(ValueError, match=r"frozen has unknown parameter\(s\) \['means'\]"):
        CategoricalHMM(2, frozen={"means"}).fit(X)
    with pytest.raises(TypeError, match="frozen must be a set"):
        CategoricalHMM(2, frozen="startprob").fit(X)
    with pytest.raises(ValueError, match="init must be one of"):
        CategoricalHMM(2, init="moments").fit(X)
    with pytest.raises(ValueError, match="init='spectral' needs categorical, Poisson or "
                                         "Gaussian emissions .* got GMMEmission"):
        GMMHMM(2, n_mix=2, init="spectral").fit(np.zeros((6, 1)))
    with pytest.raises(ValueError, match=r"init has unknown parameter\(s\) \['lambdas'\]"):
        CategoricalHMM(2, init={"lambdas": [[1.0], [2.0]]}).fit(X)
    with pytest.raises(ValueError, match=r"init\['transmat'\] must sum to 1"):
        CategoricalHMM(2, init={"transmat": [[0.5, 0.6], [0.5, 0.5]]}).fit(X)
    with pytest.raises(ValueError, match="transmat_prior must be finite and >= 1"):
        CategoricalHMM(2, transmat_prior=0.5).fit(X)
    with pytest.raises(ValueError, match="covariance_type"):
        GaussianHMM(2, covariance_type="banded").fit(np.zeros((4, 1)))


def test_impossible_sequence_at_predict_proba_is_a_clear_error():
    X = np.array([[0], [1], [0], [1]])
    m = CategoricalHMM(2, n_features=3, max_iter=20, tol=0, random_state=0).fit(X)
    assert m.emissionprob_[:, 2].max() < 1e-12  # symbol 2 never seen
    m.emissionprob_ = np.array([[0.5, 0.5, 0.0], [0.5, 0.5, 0.0]])
    assert m.score_sequences(np.array([[0], [2]]))[0] == -np.inf
    with pytest.raises(ValueError, match=r"probability zero .* position 1"):
        m.predict_proba(np.array([[0], [2]]))


def test_save_and_load_round_trip(tmp_path):
    from latentkit.io import load, save

    rng = np.random.default_rng(12)
    cases = [(GaussianHMM(2, "full", max_iter=5, tol=0, random_state=0), rng.normal(size=(40, 2))),
             (HiddenMarkovModel(2, emission=CategoricalEmission(emissionprob_prior=1.5),
                                frozen={"startprob"}, max_iter=5, tol=0, random_state=0),
              rng.integers(0, 4, size=(40, 1)))]
    for model, X in cases:
        model.fit(X, lengths=[15, 25])
        save(model, tmp_path / "m.npz")
        back = load(tmp_path / "m.npz")
        assert back.score(X, [15, 25]) == model.score(X, [15, 25])
        np.testing.assert_array_equal(back.predict(X, [15, 25]), model.predict(X, [15, 25]))
        assert back.bic(X, [15, 25]) == model.bic(X, [15, 25])  # same frozen set


def test_stray_huge_symbol_is_refused_not_allocated():
    from latentkit.sequence import CategoricalHMM
    X = np.array([[0], [1], [10**9], [1]])
    with pytest.raises(ValueError, match="Re-code the symbols to 0..2"):
        CategoricalHMM(2).fit(X)
    # an explicit, large alphabet is the user's choice and is honoured
    m = CategoricalHMM(2, n_features=200_000, max_iter=2, tol=0, random_state=0)
    m.fit(np.array([[0], [1], [199_999], [1]]))
    assert m.emissionprob_.shape == (2, 200_000)


def test_more_states_than_time_steps_and_zero_features_are_refused():
    from latentkit.sequence import GaussianHMM, PoissonHMM
    with pytest.raises(ValueError, match="n_components=6 is larger than the number of time steps"):
        GaussianHMM(6).fit(np.random.default_rng(0).normal(size=(5, 2)))
    with pytest.raises(ValueError, match="0 features"):
        PoissonHMM(2).fit(np.zeros((10, 0)))
