"""Missing data in the variational mixtures (issue 15 item 1, VB part):
VariationalGaussianMixture and DirichletProcessMixture with missing='marginalize'."""

import numpy as np
import pytest
from scipy.special import logsumexp
from scipy.stats import multivariate_t, t as student_t

from latentkit.datasets import make_gmm
from latentkit.distributions import COVARIANCE_TYPES
from latentkit.mixture import DirichletProcessMixture, VariationalGaussianMixture
from latentkit.mixture._gaussian_component import GaussianComponent
from latentkit.testing import check_latent_model
from latentkit.testing._oracles_missing import oracle_marginal_log_prob
from latentkit.testing._mixtures import gaussian_mixture

MODELS = [(VariationalGaussianMixture, {"n_components": 3}),
          (DirichletProcessMixture, {"n_components": 4})]


def _data(ct, seed=0, frac=0.2):
    X, _, _ = make_gmm(100, 3, 3, covariance_type=ct, random_state=seed)
    M = np.random.default_rng(seed).random(X.shape) < frac
    M[0] = True
    return X, np.where(M, np.nan, X)


@pytest.mark.parametrize("cls,kw", MODELS)
@pytest.mark.parametrize("ct", COVARIANCE_TYPES)
def test_contract_and_complete_data_equality(cls, kw, ct):
    X, Xm = _data(ct)
    make = lambda **extra: gaussian_mixture(cls, **kw, covariance_type=ct, max_iter=5,
                                            tol=0.0, random_state=0, **extra)
    a = make().fit(X)
    b = make(missing="marginalize").fit(X)
    np.testing.assert_array_equal(a.lower_bounds_, b.lower_bounds_)
    np.testing.assert_array_equal(a.means_, b.means_)
    np.testing.assert_array_equal(a.score_samples(X), b.score_samples(X))
    # monotone ELBO, chunked statistics merge, partial_fit(step 1) = batch step, pickling...
    check_latent_model(make(missing="marginalize"), Xm)


@pytest.mark.parametrize("ct", COVARIANCE_TYPES)
def test_vb_data_term_is_the_marginal_of_the_expected_log_likelihood(ct):
    """The E-step's data term is sum_i log sum_k exp(E[ln pi_k] + c_k + ln N(x_i,o | m_k,o,
    (E[Lambda_k]^-1)_oo)): q(x_m | z) integrated out in closed form, checked row by row."""
    _, Xm = _data(ct, 1)
    m = VariationalGaussianMixture(3, covariance_type=ct, max_iter=5, tol=0.0, random_state=0,
                                   missing="marginalize").fit(Xm)
    offs, means, _ = m._component()._log_rho_offsets(m._params, m._prior, *m._log_weights())
    lp = oracle_marginal_log_prob(Xm, means, m.covariances_, ct)
    st = m._e_step(m._validate_data(Xm, reset=False))
    assert st.data_term == pytest.approx(float(logsumexp(lp + offs, axis=1).sum()), rel=1e-10)


@pytest.mark.parametrize("ct", COVARIANCE_TYPES)
def test_predictive_on_observed_coordinates(ct):
    """score_samples: the posterior predictive mixture of Student-t's marginalised on each row's
    observed coordinates, against scipy's multivariate_t / t on those coordinates."""
    _, Xm = _data(ct, 2, frac=0.3)
    m = VariationalGaussianMixture(2, covariance_type=ct, max_iter=10, tol=0.0,
                                   random_state=0, missing="marginalize").fit(Xm)
    nw = m._params["nw"]
    D = Xm.shape[1]
    fac = nw.beta / (1.0 + nw.beta)
    ref = np.zeros((Xm.shape[0], 2))
    for i, x in enumerate(Xm):
        o = ~np.isnan(x)
        if not o.any():
            continue
        for k in range(2):
            if ct == "diag":
                L = fac[k] * nw.dof[k] / nw.scatter[k]
                ref[i, k] = student_t.logpdf(x[o], df=nw.dof[k], loc=nw.means[k][o],
                                             scale=1.0 / np.sqrt(L[o])).sum()
                continue
            prec = {"full": lambda: nw.dof[k] * np.linalg.inv(nw.scatter[k]),
                    "tied": lambda: nw.dof * np.linalg.inv(nw.scatter),
                    "spherical": lambda: D * nw.dof[k] / nw.scatter[k] * np.eye(D)}[ct]()
            dof = D * nw.dof[k] if ct == "spherical" else np.atleast_1d(nw.dof)[
                0 if ct == "tied" else k] + 1.0 - D
            scale = fac[k] if ct == "spherical" else fac[k] * dof / (dof + D - 1.0)
            shape = np.linalg.inv(scale * prec)
            ref[i, k] = multivariate_t(nw.means[k][o], shape[np.ix_(o, o)], df=dof).logpdf(x[o])
    ew = m._expected_weights()
    np.testing.assert_allclose(m.score_samples(Xm), logsumexp(ref + np.log(ew), axis=1),
                               rtol=1e-10, atol=1e-10)


def test_bad_input():
    X, Xm = _data("full")
    with pytest.raises(ValueError, match="Input X contains NaN"):
        VariationalGaussianMixture(2).fit(Xm)
    with pytest.raises(ValueError, match="missing must be"):
        DirichletProcessMixture(3, component=GaussianComponent(missing="yes")).fit(X)


@pytest.mark.parametrize("cls,kw", MODELS)
@pytest.mark.parametrize("ct", ["full", "diag"])
def test_impute_is_the_mean_of_q_x_missing(cls, kw, ct):
    """impute = mean of the E-step's q(x_m): the responsibilities of predict_proba times the
    Gaussian conditional means under m_k and E[Lambda_k] (row by row with the oracle)."""
    from latentkit.testing._oracles_gaussian import _full_cov
    from latentkit.testing._oracles_missing import oracle_conditional

    X, Xm = _data(ct, 3, frac=0.3)
    m = gaussian_mixture(cls, **kw, covariance_type=ct, max_iter=10, tol=0.0, random_state=0,
            missing="marginalize").fit(Xm)
    out, std = m.impute(Xm, return_std=True)
    r = m.predict_proba(Xm)
    covs = _full_cov(m.covariances_, ct, r.shape[1], X.shape[1])
    for i in range(0, X.shape[0], 7):
        mean = sum(r[i, k] * oracle_conditional(Xm[i], m.means_[k], covs[k])[0]
                   for k in range(r.shape[1]))
        np.testing.assert_allclose(out[i], mean, rtol=1e-10, atol=1e-10)
    miss = np.isnan(Xm)
    assert np.all(std[~miss] == 0.0) and np.all(std[miss] > 0.0)
    col = np.nanmean(Xm, axis=0)
    assert np.sqrt(np.mean((out[miss] - X[miss]) ** 2)) < \
        np.sqrt(np.mean((np.broadcast_to(col, X.shape)[miss] - X[miss]) ** 2))
