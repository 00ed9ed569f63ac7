"""Poisson-Gamma and Bernoulli-Beta components of DirichletProcessMixture (issue 12 item 6):
the bound against the exact log evidence and a term-by-term NumPy/scipy reference, the
predictive against scipy's distributions, monotone ELBO, known parameters recovered, named
errors for bad input."""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy import stats
from scipy.special import betaln, gammaln, logsumexp, psi

from latentkit._utils.validation import check_array
from latentkit.distributions import gamma_kl
from latentkit.mixture import DirichletProcessMixture
from latentkit.mixture._components import BernoulliComponent
from latentkit.mixture._components import PoissonComponent
from latentkit.mixture._components import ConjugateComponent
from latentkit.testing import check_latent_model

TYPES = ("poisson", "bernoulli")
RATES = np.array([[1.0, 8.0, 3.0, 0.5], [6.0, 1.0, 0.5, 4.0], [12.0, 12.0, 6.0, 0.2]])
PROBS = np.array([[0.9, 0.9, 0.1, 0.1, 0.8, 0.2], [0.1, 0.1, 0.9, 0.9, 0.8, 0.2],
                  [0.5, 0.9, 0.9, 0.1, 0.1, 0.9]])
WEIGHTS = np.array([0.5, 0.3, 0.2])


def _data(kind, n, seed=0):
    rng = np.random.default_rng(seed)
    z = rng.choice(3, size=n, p=WEIGHTS)
    if kind == "poisson":
        return rng.poisson(RATES[z]).astype(np.float64), z
    return (rng.random((n, PROBS.shape[1])) < PROBS[z]).astype(np.float64), z


def _log_evidence(kind, X, a0, b0):
    """Exact log p(X) of the one-component conjugate model."""
    n, s = X.shape[0], X.sum(0)
    if kind == "poisson":
        return float(np.sum(a0 * np.log(b0) - gammaln(a0) + gammaln(a0 + s)
                            - (a0 + s) * np.log(b0 + n)) - gammaln(X + 1.0).sum())
    return float(np.sum(betaln(a0 + s, b0 + n - s) - betaln(a0, b0)))


@pytest.mark.parametrize("kind", TYPES)
def test_one_component_elbo_is_the_exact_log_evidence(kind):
    """With one component (v_1 = 1) q(theta) is the exact posterior and the bound is tight:
    ELBO x n = log p(X) in closed form; integer sample weights equal repeated rows."""
    X, _ = _data(kind, 40, 1)
    prior = {"poisson": {"rate_prior": (2.0, 0.5)},
             "bernoulli": {"probability_prior": (0.7, 1.3)}}[kind]
    a0, b0 = list(prior.values())[0]
    comp = {"poisson": PoissonComponent, "bernoulli": BernoulliComponent}[kind](**prior)
    m = DirichletProcessMixture(1, component=comp, random_state=0).fit(X)
    np.testing.assert_allclose(m.elbo(X) * X.shape[0], _log_evidence(kind, X, a0, b0),
                               rtol=1e-12)
    w = np.arange(X.shape[0]) % 3 + 1.0
    mw = DirichletProcessMixture(1, component=comp, random_state=0)
    mw.fit(X, sample_weight=w)
    Xr = np.repeat(X, w.astype(int), axis=0)
    np.testing.assert_allclose(mw.elbo(X, sample_weight=w) * w.sum(),
                               _log_evidence(kind, Xr, a0, b0), rtol=1e-12)


def _reference_elbo(kind, m, X):
    """The ELBO from its definition, term by term, with the responsibilities of
    predict_proba: sum_ik r_ik (E[ln pi_k] + E[ln p(x_i | theta_k)] - ln r_ik) - KL(sticks)
    - KL(components), every KL as -H(q) - E_q[ln p] with scipy's entropies."""
    R = m.predict_proba(X)
    g = m.weight_concentration_
    T = g.shape[1]
    a_s, b_s = m.stick_prior_
    ev = np.append(psi(g[0, :-1]) - psi(g[:, :-1].sum(0)), 0.0)  # E[ln v_k], v_T = 1
    e1v = np.append(psi(g[1, :-1]) - psi(g[:, :-1].sum(0)), -np.inf)  # E[ln(1 - v_k)]
    elog_pi = ev + np.concatenate(([0.0], np.cumsum(e1v[:-1])))
    kl_stick = sum(-stats.beta(g[0, k], g[1, k]).entropy()
                   - ((a_s - 1) * ev[k] + (b_s - 1) * e1v[k] - betaln(a_s, b_s))
                   for k in range(T - 1))
    if kind == "poisson":
        a, b = m.gamma_shape_, m.gamma_rate_
        a0, b0 = m.rate_prior_
        elog, e = psi(a) - np.log(b), a / b
        ell = np.array([[np.sum(x * elog[k] - e[k] - gammaln(x + 1)) for k in range(T)]
                        for x in X])
        kl = np.sum(-stats.gamma(a, scale=1.0 / b).entropy()
                    - (a0 * np.log(b0) - gammaln(a0) + (a0 - 1) * elog - b0 * e))
    else:
        a, b = m.probability_concentration_
        a0, b0 = m.probability_prior_
        ep, eq = psi(a) - psi(a + b), psi(b) - psi(a + b)
        ell = X @ ep.T + (1 - X) @ eq.T
        kl = np.sum(-stats.beta(a, b).entropy()
                    - ((a0 - 1) * ep + (b0 - 1) * eq - betaln(a0, b0)))
    with np.errstate(divide="ignore", invalid="ignore"):
        ent = -np.sum(np.where(R > 0, R * np.log(R), 0.0))
    return (np.sum(R * (elog_pi + ell)) + ent - kl_stick - kl) / X.shape[0]


@pytest.mark.parametrize("kind", TYPES)
def test_elbo_against_term_by_term_reference_and_predictive_against_scipy(kind):
    X, _ = _data(kind, 60, 2)
    m = DirichletProcessMixture(4, component=kind, random_state=0, max_iter=5,
                                tol=0.0).fit(X)
    np.testing.assert_allclose(m.elbo(X), _reference_elbo(kind, m, X), rtol=1e-10)
    if kind == "poisson":  # negative binomial predictive of every count
        a, b = m.gamma_shape_, m.gamma_rate_
        lp = np.array([[stats.nbinom(a[k], b[k] / (b[k] + 1)).logpmf(x).sum()
                        for k in range(4)] for x in X])
    else:
        p = m.components_
        lp = np.array([[stats.bernoulli(p[k]).logpmf(x).sum() for k in range(4)] for x in X])
    np.testing.assert_allclose(m.score_samples(X), logsumexp(lp + np.log(m.weights_), axis=1),
                               rtol=1e-10)


@pytest.mark.parametrize("method", ("fixed", "tail"))
@pytest.mark.parametrize("kind", TYPES)
def test_monotone_elbo_and_known_parameters_recovered(kind, method):
    X, z = _data(kind, 600, 3)
    # n_init=3: a single start can stop in a local optimum with a true component split in two
    m = DirichletProcessMixture(8, component=kind, truncation_method=method, n_init=3,
                                random_state=0).fit(X)
    lb = m.lower_bounds_
    assert np.all(np.diff(lb) >= -1e-10 * np.abs(lb[:-1]))
    assert m.converged_ and m.n_effective_components_ == 3
    big = np.argsort(m.weights_)[::-1][:3]
    truth = RATES if kind == "poisson" else PROBS
    order = [int(np.argmin(np.abs(truth - m.components_[k]).sum(1))) for k in big]
    assert sorted(order) == [0, 1, 2]
    # four standard errors of the estimate from n w_k rows (plus the prior's pull)
    t, nk = truth[order], X.shape[0] * WEIGHTS[order][:, None]
    tol = 4.0 * np.sqrt((t if kind == "poisson" else t * (1 - t)) / nk) + 0.02
    np.testing.assert_array_less(np.abs(m.components_[big] - truth[order]), tol)
    np.testing.assert_allclose(m.weights_[big], WEIGHTS[order], atol=0.05)
    to_truth = dict(zip(big.tolist(), order))
    assert np.mean([to_truth.get(k, -1) for k in m.predict(X)] == z) > 0.9
    Xs, ls = m.sample(50, random_state=0)
    assert Xs.shape == (50, X.shape[1]) and ls.shape == (50,)
    assert np.all(Xs >= 0) and np.all(Xs == np.round(Xs))
    if kind == "bernoulli":
        assert set(np.unique(Xs)) <= {0.0, 1.0}


@pytest.mark.parametrize("kind", TYPES)
def test_sparse_input_gives_the_dense_fit(kind):
    X, _ = _data(kind, 80, 4)
    make = lambda: DirichletProcessMixture(3, component=kind, random_state=0, max_iter=20)
    a, b = make().fit(X), make().fit(sp.csr_matrix(X))
    np.testing.assert_allclose(a.lower_bounds_, b.lower_bounds_, rtol=1e-12)
    np.testing.assert_allclose(a.components_, b.components_, rtol=1e-12)


def test_bad_input_is_refused_with_named_errors():
    D = DirichletProcessMixture
    Xp, _ = _data("poisson", 20)
    Xb, _ = _data("bernoulli", 20)
    with pytest.raises(ValueError, match="X must contain non-negative"):
        D(2, component="poisson").fit(-Xp)
    with pytest.raises(ValueError, match=r"X must contain non-negative integer counts.*1.5"):
        D(2, component="poisson").fit(Xp + 0.5 * (Xp == 1))
    with pytest.raises(ValueError, match=r"X must be binary .*found 2 at \(row 0, col"):
        D(2, component="bernoulli").fit(np.vstack([np.full(6, 2.0), Xb]))
    with pytest.raises(ValueError, match="X must be binary"):
        D(2, component="bernoulli").fit(-Xb)
    with pytest.raises(ValueError, match="NaN"):
        D(2, component="bernoulli").fit(np.where(Xb == 1, np.nan, Xb))
    with pytest.raises(ValueError, match="rate_prior"):
        D(2, component=PoissonComponent(rate_prior=(1.0, -1.0))).fit(Xp)
    with pytest.raises(ValueError, match="rate_prior"):
        D(2, component=PoissonComponent(rate_prior=2.0)).fit(Xp)
    with pytest.raises(ValueError, match="probability_prior"):
        D(2, component=BernoulliComponent(probability_prior=(0.0, 1.0))).fit(Xb)
    with pytest.raises(ValueError, match="init='spectral' needs"):
        D(2, component="bernoulli", init="spectral").fit(Xb)
    m = D(2, component="poisson", random_state=0, max_iter=5).fit(Xp)
    with pytest.raises(TypeError, match="impute needs Gaussian"):
        m.impute(Xp)
    with pytest.raises(ValueError, match="integer"):
        m.predict(Xp + 0.25)


class _ExponentialComponent(ConjugateComponent):
    """A component written in the test from the protocol only: x_id ~ Exp(lambda_kd),
    lambda_kd ~ Gamma(2, 1), q(lambda_kd) = Gamma(a_kd, b_kd)."""

    param_names = ("gamma_shape", "gamma_rate")

    def check_X(self, X):
        X = check_array(X, "X")
        if (X < 0).any():
            raise ValueError("X must be non-negative for Exponential components.")
        return X

    def start_rows(self, X, w):
        return X

    def resolve_prior(self, summary, n_features, n_components):
        return {}

    def prior(self, resolved, n_features):
        return {"gamma_shape": np.full(n_features, 2.0), "gamma_rate": np.ones(n_features)}

    def expected_log_lik(self, params, X):
        a, b = np.atleast_2d(params["gamma_shape"]), np.atleast_2d(params["gamma_rate"])
        return (psi(a) - np.log(b)).sum(1)[None, :] - X @ (a / b).T

    def posterior(self, prior, stats, n_components, scale=1.0):
        nk = stats.nk[:n_components] * scale
        return {"gamma_shape": prior["gamma_shape"][None, :] + nk[:, None],
                "gamma_rate": prior["gamma_rate"][None, :] + stats.counts * scale}

    def public(self, params):
        return {**params, "components": params["gamma_shape"] / params["gamma_rate"]}

    def kl(self, params, prior):
        return float(np.sum(gamma_kl(params["gamma_shape"], params["gamma_rate"],
                                     prior["gamma_shape"], prior["gamma_rate"])))

    def log_predictive(self, params, X):  # Lomax: a b^a / (b + x)^(a + 1) per feature
        a, b = np.atleast_2d(params["gamma_shape"]), np.atleast_2d(params["gamma_rate"])
        return np.stack([np.sum(np.log(a[k]) + a[k] * np.log(b[k])
                                - (a[k] + 1) * np.log(b[k] + X), axis=1)
                         for k in range(a.shape[0])], axis=1)

    def sample_rows(self, params, labels, rng, **kwargs):
        return rng.exponential(1.0 / self.public(params)["components"][labels])


@pytest.mark.filterwarnings("ignore::latentkit.ConvergenceWarning")
def test_a_new_component_is_one_class():
    """A component built in the test from the protocol alone runs in DirichletProcessMixture:
    with one component its bound is the exact log evidence of the Exponential-Gamma model, and
    it passes the common contract (state, chunks, partial_fit, pickling)."""
    rng = np.random.default_rng(5)
    X = rng.exponential([[1.0, 0.2]], size=(50, 2))
    m = DirichletProcessMixture(1, component=_ExponentialComponent(), random_state=0).fit(X)
    n, s = X.shape[0], X.sum(0)
    evidence = np.sum(2.0 * np.log(1.0) - gammaln(2.0) + gammaln(2.0 + n)
                      - (2.0 + n) * np.log(1.0 + s))
    np.testing.assert_allclose(m.elbo(X) * n, evidence, rtol=1e-12)
    X3 = np.vstack([X, rng.exponential([[0.05, 3.0]], size=(50, 2))])
    check_latent_model(DirichletProcessMixture(3, component=_ExponentialComponent(),
                                               random_state=0, max_iter=15), X3)
