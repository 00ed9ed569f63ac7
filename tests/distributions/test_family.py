"""The exponential-family blocks shared by the mixture components and the HMM emissions
(issue 25 item 4): each method against scipy's distributions or a brute-force NumPy oracle,
and the structural claim that both families compute with the same block."""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy import stats
from scipy.optimize import minimize_scalar
from scipy.special import gammaln

from latentkit.distributions._counts import Bernoulli, Categorical, Poisson
from latentkit.distributions._family import ExponentialFamily
from latentkit.distributions._gaussian_family import Gaussian
from latentkit.mixture import CategoricalComponent
from latentkit.mixture._components import BernoulliComponent
from latentkit.mixture._components import PoissonComponent
from latentkit.mixture._gaussian_component import GaussianComponent
from latentkit.sequence import CategoricalEmission
from latentkit.sequence._emissions import PoissonEmission
from latentkit.sequence._gaussian_emission import GaussianEmission

RNG = np.random.default_rng(11)


def test_both_families_compute_with_one_block_per_distribution():
    assert type(PoissonComponent.dist) is type(PoissonEmission.dist) is Poisson
    assert type(CategoricalComponent.dist) is type(CategoricalEmission.dist) is Categorical
    assert type(BernoulliComponent.dist) is Bernoulli
    assert type(GaussianComponent()._dist()) is type(GaussianEmission()._dist()) is Gaussian
    with pytest.raises(NotImplementedError, match="Bernoulli does not define maximize"):
        Bernoulli().maximize(None, None)
    assert issubclass(Gaussian, ExponentialFamily)


def test_poisson_against_scipy():
    rates = RNG.uniform(0.2, 5.0, (3, 4))
    X = RNG.poisson(2.0, (6, 4)).astype(float)
    ref = stats.poisson.logpmf(X[:, None, :], rates[None]).sum(2)
    np.testing.assert_allclose(Poisson().log_likelihood(rates, X), ref, rtol=1e-12)
    # E_q[log p] under Gamma(a, b) factors: E[ln lambda] and E[lambda] from scipy's Gamma
    a, b = RNG.uniform(1.0, 4.0, (2, 4)), RNG.uniform(0.5, 2.0, (2, 4))
    e_log = np.vectorize(lambda s, r: stats.gamma(s, scale=1 / r).expect(np.log))(a, b)
    ref = X @ e_log.T - (a / b).sum(1) - gammaln(X + 1).sum(1)[:, None]
    np.testing.assert_allclose(Poisson().expected_log_likelihood((a, b), sp.csr_matrix(X)),
                               ref, rtol=1e-7)
    # posterior predictive: negative binomial per feature
    ref = stats.nbinom.logpmf(X[:, None, :], a[None], (b / (b + 1))[None]).sum(2)
    np.testing.assert_allclose(Poisson().log_predictive((a, b), sp.csr_matrix(X)), ref,
                               rtol=1e-10)


def test_poisson_map_is_the_maximum_of_the_log_posterior():
    """maximize with a Gamma(a, b) prior against a numerical maximisation of sum_i r_i
    log p(x_i | lambda) + log Gamma(lambda | a, b); a weightless row takes the prior's mode
    (or, without a prior, keeps its rates)."""
    X = RNG.poisson(3.0, (30, 1)).astype(float)
    r = RNG.random((30, 2))
    r[:, 1] = 0.0
    prior, previous = (2.5, 0.7), np.array([[1.0], [9.0]])
    nk, sx = r.sum(0), Poisson().sufficient_stats(X, r)
    lam = Poisson().maximize((nk, sx), previous, prior)
    obj = lambda v: -(r[:, 0] @ stats.poisson.logpmf(X[:, 0], v)  # noqa: E731
                      + stats.gamma(prior[0], scale=1 / prior[1]).logpdf(v))
    best = minimize_scalar(obj, bounds=(1e-3, 50), method="bounded", options={"xatol": 1e-10})
    np.testing.assert_allclose(lam[0, 0], best.x, rtol=1e-6)
    assert lam[1, 0] == (prior[0] - 1) / prior[1]
    assert Poisson().maximize((nk, sx), previous)[1, 0] == 9.0
    np.testing.assert_allclose(Poisson().log_prior(lam[:1], prior),
                               stats.gamma(prior[0], scale=1 / prior[1]).logpdf(lam[0, 0]),
                               rtol=1e-12)


def test_categorical_symbols_and_count_rows_agree_with_scipy():
    probs = RNG.dirichlet(np.ones(5), size=3)
    sym = RNG.integers(0, 5, 40)
    onehot = np.eye(5)[sym]
    ll = Categorical().log_likelihood(probs, sym)
    np.testing.assert_allclose(ll, np.log(probs).T[sym], rtol=0)
    np.testing.assert_allclose(Categorical().log_likelihood(probs, onehot), ll, rtol=1e-12)
    r = RNG.random((40, 3))
    np.testing.assert_allclose(Categorical().sufficient_stats(sym, r, 5),
                               Categorical().sufficient_stats(onehot, r), rtol=1e-12)
    # MAP under Dir(alpha) rows: (counts + alpha - 1), normalised
    counts = r.T @ onehot
    np.testing.assert_allclose(Categorical().maximize(counts, probs, 2.0),
                               (counts + 1) / (counts + 1).sum(1, keepdims=True), rtol=1e-12)
    np.testing.assert_allclose(Categorical().log_prior(probs, 2.0),
                               sum(stats.dirichlet(np.full(5, 2.0)).logpdf(p) for p in probs),
                               rtol=1e-12)
    # the predictive of a token sequence: Dirichlet-multinomial without the coefficient
    lam = RNG.uniform(0.3, 3.0, (2, 5))
    X = RNG.multinomial(7, np.full(5, 0.2), size=4).astype(float)
    coef = gammaln(8.0) - gammaln(X + 1).sum(1)
    ref = np.stack([stats.dirichlet_multinomial(l, 7).logpmf(X) - coef for l in lam], axis=1)
    np.testing.assert_allclose(Categorical().log_predictive(lam, sp.csr_matrix(X)), ref,
                               rtol=1e-10)


def test_categorical_and_poisson_samples_follow_their_parameters():
    probs = np.array([[0.7, 0.2, 0.1], [0.1, 0.1, 0.8]])
    labels = np.repeat([0, 1], 20000)
    sym = Categorical().sample(probs, labels, np.random.default_rng(0))
    for k in range(2):  # 5 standard errors at most
        freq = np.bincount(sym[labels == k], minlength=3) / 20000
        assert np.all(np.abs(freq - probs[k]) < 5 * np.sqrt(probs[k] * (1 - probs[k]) / 20000))
    rows = Categorical().sample(probs, labels[::1000], np.random.default_rng(0), n_tokens=9)
    assert rows.shape == (40, 3) and np.all(rows.sum(1) == 9)
    rates = np.array([[0.5, 4.0]])
    x = Poisson().sample(rates, np.zeros(20000, dtype=int), np.random.default_rng(0))
    assert np.all(np.abs(x.mean(0) - rates[0]) < 5 * np.sqrt(rates[0] / 20000))


def test_bernoulli_against_scipy():
    probs = RNG.uniform(0.05, 0.95, (3, 4))
    X = (RNG.random((6, 4)) < 0.5).astype(float)
    ref = stats.bernoulli.logpmf(X[:, None, :], probs[None]).sum(2)
    np.testing.assert_allclose(Bernoulli().log_likelihood(probs, X), ref, rtol=1e-12)
    c = RNG.uniform(0.5, 3.0, (2, 3, 4))
    e_p = np.vectorize(lambda a, b: stats.beta(a, b).expect(np.log))(c[0], c[1])
    e_q = np.vectorize(lambda a, b: stats.beta(b, a).expect(np.log))(c[0], c[1])
    ref = X @ (e_p - e_q).T + e_q.sum(1)
    np.testing.assert_allclose(Bernoulli().expected_log_likelihood(c, X), ref, rtol=1e-7)
    m = Bernoulli().mean(c)
    np.testing.assert_allclose(Bernoulli().log_predictive(c, X),
                               stats.bernoulli.logpmf(X[:, None, :], m[None]).sum(2), rtol=1e-12)


@pytest.mark.parametrize("ct", ["full", "tied", "diag", "spherical"])
def test_gaussian_block_against_scipy_and_numpy(ct):
    K, D = 2, 3
    means = RNG.normal(0, 3, (K, D))
    A = RNG.normal(size=(K, D, D))
    full = A @ A.transpose(0, 2, 1) + np.eye(D)
    cov = {"full": full, "tied": full[0], "diag": np.diagonal(full, 0, 1, 2).copy(),
           "spherical": np.diagonal(full, 0, 1, 2).mean(1)}[ct]
    if ct in ("full", "tied"):
        dense = full if ct == "full" else np.stack([full[0]] * K)
    else:  # diag (K, D) or spherical (K,) variances
        dense = np.stack([np.eye(D) * v for v in cov])
    X = RNG.normal(0, 3, (7, D))
    ref = np.stack([stats.multivariate_normal(means[k], dense[k]).logpdf(X)
                    for k in range(K)], axis=1)
    g = Gaussian(ct, reg_covar=0.0)  # the exact densities scipy computes
    np.testing.assert_allclose(g.log_likelihood((means, cov), X, shift=X.mean(0)), ref,
                               rtol=1e-10)
    # statistics and the M-step: the weighted means and covariances by NumPy
    r = RNG.random((7, K))
    nk, sx, sxx = g.sufficient_stats(X, r, shift=X.mean(0))
    m_hat, c_hat, _ = g.maximize((nk, sx, sxx), shift=X.mean(0))
    np.testing.assert_allclose(m_hat, (r.T @ X) / r.sum(0)[:, None], rtol=1e-10)
    if ct == "full":
        for k in range(K):
            np.testing.assert_allclose(c_hat[k], np.cov(X.T, aweights=r[:, k], bias=True),
                                       rtol=1e-9)
    # samples land at their labels' places
    labels = np.tile([1, 0], 4000)
    Y = g.sample((means, cov), labels, np.random.default_rng(0))
    for k in range(K):
        np.testing.assert_allclose(Y[labels == k].mean(0), means[k],
                                   atol=6 * np.sqrt(dense[k].diagonal().max() / 4000))
