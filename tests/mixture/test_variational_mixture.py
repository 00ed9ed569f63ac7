"""Tests of VariationalGaussianMixture and the Normal-Wishart block: closed forms (the ELBO of a
one-component model is the exact log marginal likelihood), Monte-Carlo checks of the
expectations and KL, the Student-t predictive against scipy, per-iteration parity with
scikit-learn's BayesianGaussianMixture from the same responsibilities, the common contract and
bad input."""

import warnings

import numpy as np
import pytest
from scipy import stats
from scipy.special import gammaln, multigammaln

from latentkit.distributions._normal_wishart import NormalWishart, gamma_kl, wishart_kl
from latentkit.mixture._variational import VariationalGaussianMixture
from latentkit.testing import check_latent_model

COV_TYPES = ["full", "tied", "diag", "spherical"]


def _blobs(n=240, seed=0):
    rng = np.random.default_rng(seed)
    centers = np.array([[0.0, 0.0, 0.0], [6.0, 1.0, -2.0], [-4.0, 5.0, 3.0]])
    X = np.vstack([c + rng.normal(size=(n // 3, 3)) * s
                   for c, s in zip(centers, (1.0, 0.6, 1.4))])
    return X


# --------------------------------------------------------------------------------------------
# The Normal-Wishart block
# --------------------------------------------------------------------------------------------

def _random_nw(ct, K=2, D=3, seed=0):
    rng = np.random.default_rng(seed)
    beta = rng.uniform(0.5, 3.0, K)
    means = rng.normal(size=(K, D))
    dof = rng.uniform(D + 1.0, D + 6.0, K)
    if ct == "full":
        A = rng.normal(size=(K, D, D))
        Q = A @ A.transpose(0, 2, 1) + D * np.eye(D)
    elif ct == "tied":
        A = rng.normal(size=(D, D))
        Q = A @ A.T + D * np.eye(D)
        dof = float(dof[0])
    elif ct == "diag":
        Q = rng.uniform(0.5, 3.0, (K, D))
    else:
        Q = rng.uniform(1.0, 6.0, K)
    return NormalWishart(ct, beta, means, Q, dof)


def _draw(nw, k, rng, n):
    """Monte-Carlo draws of (mu_k, Lambda_k) from a factor."""
    ct, D = nw.covariance_type, nw.n_features
    if ct in ("full", "tied"):
        Q = nw.scatter[k] if ct == "full" else nw.scatter
        nu = nw.dof[k] if ct == "full" else nw.dof
        lams = stats.wishart(df=nu, scale=np.linalg.inv(Q)).rvs(n, random_state=rng)
    elif ct == "diag":
        g = rng.gamma(0.5 * nw.dof[k], 2.0 / nw.scatter[k], size=(n, D))
        lams = np.einsum("ni,ij->nij", g, np.eye(D))
    else:
        g = rng.gamma(0.5 * D * nw.dof[k], 2.0 / nw.scatter[k], size=n)
        lams = g[:, None, None] * np.eye(D)
    # mu | Lambda ~ N(m, (beta Lambda)^-1): mu = m + L^-T z / sqrt(beta) with Lambda = L L^T
    L = np.linalg.cholesky(lams)
    z = rng.standard_normal((n, D, 1))
    mus = nw.means[k] + np.linalg.solve(L.transpose(0, 2, 1), z)[:, :, 0] / np.sqrt(nw.beta[k])
    return mus, lams


@pytest.mark.parametrize("ct", COV_TYPES)
def test_expectations_match_monte_carlo(ct):
    nw = _random_nw(ct)
    rng = np.random.default_rng(1)
    x = rng.normal(size=(4, 3))
    eq = nw.expected_quadratic(x)
    eld = np.atleast_1d(nw.expected_log_det())
    for k in range(2):
        mus, lams = _draw(nw, k, rng, 4000)
        ld = np.linalg.slogdet(lams)[1]
        se = ld.std() / np.sqrt(ld.size)
        assert abs(ld.mean() - eld[0 if ct == "tied" else k]) < 5 * se
        d = x[None, :, :] - mus[:, None, :]
        quad = np.einsum("nid,nde,nie->ni", d, lams, d)
        se = quad.std(0) / np.sqrt(quad.shape[0])
        assert np.all(np.abs(quad.mean(0) - eq[:, k]) < 5 * se)
        tr = np.trace(lams, axis1=1, axis2=2)
        etr = np.atleast_1d(nw.expected_trace())[0 if ct == "tied" else k]
        assert abs(tr.mean() - etr) < 5 * tr.std() / np.sqrt(tr.size)


def test_wishart_and_gamma_kl_closed_forms():
    # Wishart KL of a distribution with itself is 0, and KL of D = 1 Wishart is a Gamma KL
    Q = np.array([[2.0, 0.3], [0.3, 1.0]])
    assert abs(wishart_kl(5.0, Q, 5.0, Q)) < 1e-12
    # 1-D Wishart(W, nu) = Gamma(shape nu/2, rate 1/(2W)) = Gamma(nu/2, Q/2)
    kl_w = wishart_kl(4.0, np.array([[3.0]]), 2.5, np.array([[1.5]]))
    np.testing.assert_allclose(kl_w, gamma_kl(2.0, 1.5, 1.25, 0.75), rtol=1e-12)
    # Gamma KL vs numerical integration
    from scipy.integrate import quad
    p = stats.gamma(a=2.0, scale=1 / 1.5)
    q0 = stats.gamma(a=1.25, scale=1 / 0.75)
    num = quad(lambda t: p.pdf(t) * (p.logpdf(t) - q0.logpdf(t)), 0, np.inf)[0]
    np.testing.assert_allclose(gamma_kl(2.0, 1.5, 1.25, 0.75), num, rtol=1e-8)


@pytest.mark.slow
@pytest.mark.parametrize("ct", COV_TYPES)
def test_normal_wishart_kl_matches_monte_carlo(ct):
    nw = _random_nw(ct, K=1 if ct != "tied" else 1)
    D = 3
    prior = NormalWishart.prior(ct, 0.7, np.zeros(D), D + 0.5,
                                {"full": np.eye(D) * 2.0, "tied": np.eye(D) * 2.0,
                                 "diag": np.full(D, 2.0), "spherical": 2.0}[ct])
    rng = np.random.default_rng(3)
    mus, lams = _draw(nw, 0, rng, 4000)

    def logpdf(f, mus, lams, k=0):
        ct = f.covariance_type
        beta, m = f.beta[k], f.means[k]
        d = mus - m
        out = (0.5 * D * np.log(beta / (2 * np.pi)) + 0.5 * np.linalg.slogdet(lams)[1]
               - 0.5 * beta * np.einsum("ni,nij,nj->n", d, lams, d))
        if ct in ("full", "tied"):
            Q = f.scatter[k] if ct == "full" else f.scatter
            nu = f.dof[k] if ct == "full" else f.dof
            out += stats.wishart(df=nu, scale=np.linalg.inv(Q)).logpdf(lams.transpose(1, 2, 0))
        elif ct == "diag":
            d = np.diagonal(lams, axis1=1, axis2=2)
            out += stats.gamma(a=0.5 * f.dof[k], scale=2.0 / f.scatter[k]).logpdf(d).sum(1)
        else:
            out += stats.gamma(a=0.5 * D * f.dof[k], scale=2.0 / f.scatter[k]).logpdf(
                lams[:, 0, 0])
        return out

    diff = logpdf(nw, mus, lams) - logpdf(prior, mus, lams)
    se = diff.std() / np.sqrt(diff.size)
    assert abs(diff.mean() - nw.kl(prior)) < 5 * se


@pytest.mark.parametrize("ct", ["full", "spherical", "diag"])
def test_predictive_is_student_t(ct):
    nw = _random_nw(ct, K=2)
    rng = np.random.default_rng(2)
    x = rng.normal(size=(5, 3))
    lp = nw.log_predictive(x)
    for k in range(2):
        beta, m = nw.beta[k], nw.means[k]
        if ct == "full":
            dof = nw.dof[k] - 2.0
            shape = np.linalg.inv((dof * beta / (1 + beta)) * np.linalg.inv(nw.scatter[k]))
            ref = stats.multivariate_t(loc=m, shape=shape, df=dof).logpdf(x)
        elif ct == "spherical":
            dof = 3 * nw.dof[k]
            shape = np.eye(3) * (nw.scatter[k] / dof) * (1 + beta) / beta
            ref = stats.multivariate_t(loc=m, shape=shape, df=dof).logpdf(x)
        else:
            dof = nw.dof[k]
            scale = np.sqrt(nw.scatter[k] / dof * (1 + beta) / beta)
            ref = stats.t(df=dof, loc=m, scale=scale).logpdf(x).sum(1)
        np.testing.assert_allclose(lp[:, k], ref, rtol=1e-10)


# --------------------------------------------------------------------------------------------
# The ELBO of one component is the exact log marginal likelihood
# --------------------------------------------------------------------------------------------

def _log_marginal(X, ct, b0, m0, nu0, c0):
    n, D = X.shape
    xbar = X.mean(0)
    bn = b0 + n
    d = xbar - m0
    if ct in ("full", "tied"):
        S = (X - xbar).T @ (X - xbar)
        Qn = c0 + S + b0 * n / bn * np.outer(d, d)
        nun = nu0 + n
        return (-0.5 * n * D * np.log(np.pi) + multigammaln(nun / 2, D) - multigammaln(nu0 / 2, D)
                + 0.5 * nu0 * np.linalg.slogdet(c0)[1] - 0.5 * nun * np.linalg.slogdet(Qn)[1]
                + 0.5 * D * np.log(b0 / bn))
    if ct == "diag":
        a0, bb0 = nu0 / 2, c0 / 2
        an = a0 + n / 2
        bn_ = bb0 + 0.5 * (((X - xbar) ** 2).sum(0) + b0 * n / bn * d ** 2)
        return np.sum(gammaln(an) - gammaln(a0) + a0 * np.log(bb0) - an * np.log(bn_)
                      + 0.5 * np.log(b0 / bn) - 0.5 * n * np.log(2 * np.pi))
    a0, bb0 = D * nu0 / 2, D * c0 / 2
    an = a0 + n * D / 2
    bn_ = bb0 + 0.5 * (((X - xbar) ** 2).sum() + b0 * n / bn * (d ** 2).sum())
    return (gammaln(an) - gammaln(a0) + a0 * np.log(bb0) - an * np.log(bn_)
            + 0.5 * D * np.log(b0 / bn) - 0.5 * n * D * np.log(2 * np.pi))


@pytest.mark.slow
@pytest.mark.parametrize("ct", COV_TYPES)
def test_one_component_elbo_is_log_marginal_likelihood(ct):
    X = _blobs(60)[:50]
    D = 3
    c0 = {"full": np.diag([2.0, 1.0, 0.5]) + 0.2, "tied": np.eye(D) * 1.5,
          "diag": np.array([2.0, 1.0, 0.5]), "spherical": 1.7}[ct]
    m0 = np.array([0.5, -1.0, 0.0])
    m = VariationalGaussianMixture(1, covariance_type=ct, reg_covar=0.0, max_iter=3, tol=0.0,
                                   mean_prior=m0, mean_precision_prior=0.3,
                                   degrees_of_freedom_prior=D + 1.5, covariance_prior=c0,
                                   weight_concentration_prior=2.0).fit(X)
    ref = _log_marginal(X, ct, 0.3, m0, D + 1.5, c0) / X.shape[0]
    np.testing.assert_allclose(m.lower_bounds_[1:], ref, rtol=1e-11)


# --------------------------------------------------------------------------------------------
# Parity with scikit-learn
# --------------------------------------------------------------------------------------------

def _sklearn_from(R, jitter=True, **kw):
    """scikit-learn's BayesianGaussianMixture started from the responsibilities ``R``, with
    the reg_covar jitter term in its E-step.

    scikit-learn adds N_k reg_covar I to each scatter in the M-step but not the matching
    ``-reg_covar / 2 E[tr Lambda_k]`` to log rho_ik, so its iteration is not coordinate
    ascent on one bound (the bound can decrease when reg_covar dominates a direction of a
    scatter). Ours has the term; it is added here from scikit-learn's own ``precisions_``
    (= E[Lambda_k]), so the reference is scikit-learn's code plus that one per-component
    offset (``jitter=False``: scikit-learn's E-step unchanged)."""
    from sklearn.mixture import BayesianGaussianMixture

    class _FromResponsibilities(BayesianGaussianMixture):
        # scikit-learn's own first M-step (_initialize) from the given responsibilities
        def _initialize_parameters(self, X, random_state, xp=None):
            self._initialize(X, R)

        def _estimate_log_weights(self, **kw):
            # tr E[Lambda_k] = ||U_k||_F^2 for scikit-learn's precisions_cholesky_ U_k
            u2 = self.precisions_cholesky_ ** 2
            trace = {"full": lambda: u2.sum((1, 2)), "tied": lambda: u2.sum(),
                     "diag": lambda: u2.sum(1),
                     "spherical": lambda: self.means_.shape[1] * u2}[self.covariance_type]()
            return super()._estimate_log_weights(**kw) - 0.5 * self.reg_covar * trace * jitter

    return _FromResponsibilities(**kw)


@pytest.mark.slow
@pytest.mark.kernel_sensitive
def test_parity_with_sklearn_from_its_kmeans_start():
    from sklearn.cluster import KMeans

    X = _blobs(300, seed=4)
    K = 5
    # scikit-learn's init_params='kmeans' start, replicated: KMeans(n_init=1) hard labels
    labels = KMeans(n_clusters=K, n_init=1, random_state=0).fit(X).labels_
    R = np.zeros((X.shape[0], K))
    R[np.arange(X.shape[0]), labels] = 1.0
    from sklearn.mixture import BayesianGaussianMixture
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sk_own = BayesianGaussianMixture(
            n_components=K, weight_concentration_prior_type="dirichlet_distribution",
            init_params="kmeans", random_state=0, max_iter=40, tol=0.0).fit(X)
        sk2 = _sklearn_from(R, jitter=False, n_components=K, max_iter=40, tol=0.0,
                            weight_concentration_prior_type="dirichlet_distribution").fit(X)
        # scikit-learn plus the reg_covar jitter term of our E-step (see _sklearn_from)
        sk = _sklearn_from(R, n_components=K, max_iter=40, tol=0.0,
                           weight_concentration_prior_type="dirichlet_distribution").fit(X)
    # the replicated start is scikit-learn's start
    np.testing.assert_allclose(sk2.weights_, sk_own.weights_, rtol=1e-12)
    ours = VariationalGaussianMixture(K, init={"responsibilities": R}, max_iter=40,
                                      tol=0.0).fit(X)
    np.testing.assert_allclose(ours.weights_, sk.weights_, rtol=1e-6, atol=1e-10)
    np.testing.assert_allclose(ours.means_, sk.means_, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(ours.covariances_, sk.covariances_, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(ours.predict_proba(X), sk.predict_proba(X), atol=1e-6)


@pytest.mark.kernel_sensitive
@pytest.mark.parametrize("n_iter", [1, 25])
def test_parity_with_sklearn_soft_responsibilities(n_iter):
    X = _blobs(240, seed=1)
    K = 6
    R = np.random.default_rng(0).dirichlet(np.ones(K), size=X.shape[0])
    kw = dict(mean_precision_prior=0.5, degrees_of_freedom_prior=4.0,
              weight_concentration_prior=0.1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sk = _sklearn_from(R, n_components=K, max_iter=n_iter, tol=0.0,
                           weight_concentration_prior_type="dirichlet_distribution",
                           **kw).fit(X)
    ours = VariationalGaussianMixture(K, init={"responsibilities": R}, max_iter=n_iter,
                                      tol=0.0, **kw).fit(X)
    np.testing.assert_allclose(ours.weights_, sk.weights_, rtol=1e-6, atol=1e-10)
    np.testing.assert_allclose(ours.means_, sk.means_, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(ours.degrees_of_freedom_, sk.degrees_of_freedom_, rtol=1e-10)
    np.testing.assert_allclose(ours.mean_precision_, sk.mean_precision_, rtol=1e-10)


@pytest.mark.parametrize("ct", ["diag", "spherical"])
def test_m_step_equals_sklearn_for_diagonal_structures(ct):
    """From the same responsibilities the M-step (weights, means, covariances) is
    scikit-learn's; only E[ln|Lambda|] differs afterwards (documented)."""
    X = _blobs(240, seed=2)
    K = 4
    R = np.random.default_rng(1).dirichlet(np.ones(K), size=X.shape[0])
    sk = _sklearn_from(R, n_components=K, covariance_type=ct, max_iter=1,
                       weight_concentration_prior_type="dirichlet_distribution")
    sk._check_parameters(X)
    sk._initialize(X, R)
    ours = VariationalGaussianMixture(K, covariance_type=ct, init={"responsibilities": R},
                                      max_iter=1, tol=0.0)
    ours._check_common_params()
    ours._validate_params()
    data = ours._validate_data(X, reset=True)
    ours._init_params(data, np.random.default_rng(0))
    np.testing.assert_allclose(ours.weight_concentration_, sk.weight_concentration_, rtol=1e-10)
    np.testing.assert_allclose(ours.means_, sk.means_, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(ours.covariances_, sk.covariances_, rtol=1e-10)


# --------------------------------------------------------------------------------------------
# Model behaviour
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("ct", COV_TYPES)
def test_common_contract(ct):
    X = _blobs(90, seed=3)
    check_latent_model(VariationalGaussianMixture(4, covariance_type=ct, max_iter=15, tol=0.0,
                                                  random_state=0), X)


def test_prunes_extra_components_and_monotone():
    X = _blobs(300, seed=5)
    m = VariationalGaussianMixture(8, weight_concentration_prior=1e-3, max_iter=300, tol=1e-8,
                                   random_state=0).fit(X)
    assert m.n_effective_components_ == 3
    assert np.all(np.diff(m.lower_bounds_) >= -1e-9 * np.abs(m.lower_bounds_[:-1]))
    # the predictive density integrates to about 1 on a fine 1-D slice is hard; instead check
    # that it is a proper mixture: with one dominant component it is close to that t density
    assert np.isfinite(m.score(X))


def test_sample_weight_equals_repetition():
    X = _blobs(90, seed=6)
    w = np.random.default_rng(0).integers(1, 4, size=X.shape[0])
    Xr = np.repeat(X, w, axis=0)
    R = np.random.default_rng(1).dirichlet(np.ones(3), size=X.shape[0])
    a = VariationalGaussianMixture(3, init={"responsibilities": R}, max_iter=10,
                                   tol=0.0).fit(X, sample_weight=w)
    b = VariationalGaussianMixture(3, init={"responsibilities": np.repeat(R, w, axis=0)},
                                   max_iter=10, tol=0.0).fit(Xr)
    np.testing.assert_allclose(a.means_, b.means_, rtol=1e-9)
    np.testing.assert_allclose(a.lower_bounds_, b.lower_bounds_, rtol=1e-9)


def _sklearn_weight_check_data():
    """The data of scikit-learn's check_sample_weight_equivalence_on_dense_data: 15 rows in 30
    dimensions, integer weights 0..4 (zeros included), and the check's row shuffle."""
    from sklearn.utils import shuffle

    rng = np.random.RandomState(42)
    X = rng.rand(15, 30)
    rng.randint(0, 3, size=15)  # the check's y, drawn to keep its stream
    w = rng.randint(0, 5, size=15)
    return X, w, shuffle(np.arange(15), random_state=0)


def test_kmeans_start_weighted_equals_repeated_rows():
    """k-means++ draws rows by position in the cumulative weights, so a row of integer weight
    w (0 included) equals w copies of it in the same position: the whole fit agrees. With the
    rows shuffled the random numbers pick other seeds; from the same start it agrees again."""
    X, w, perm = _sklearn_weight_check_data()
    Xr = np.repeat(X, w, axis=0)
    for K in (2, 3):
        a = VariationalGaussianMixture(K, random_state=0).fit(X, sample_weight=w)
        b = VariationalGaussianMixture(K, random_state=0).fit(Xr)
        np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X), rtol=1e-7, atol=1e-9)
        np.testing.assert_allclose(a.lower_bounds_, b.lower_bounds_, rtol=1e-9)
    R = np.random.default_rng(1).dirichlet(np.ones(3), size=X.shape[0])
    c = VariationalGaussianMixture(3, init={"responsibilities": R[perm]}).fit(
        X[perm], sample_weight=w[perm])
    d = VariationalGaussianMixture(3, init={"responsibilities": np.repeat(R, w, axis=0)}).fit(Xr)
    np.testing.assert_allclose(c.predict_proba(X), d.predict_proba(X), rtol=1e-7, atol=1e-9)


def _tiny_repeated():
    """Three distinct points repeated four times; features 2 and 3 differ by exactly 1, so the
    covariance of X is singular and float64 rounds its smallest eigenvalue to ~1e-16."""
    return np.array([[1.0, 2.0, 3.0], [2.0, 3.0, 4.0], [5.0, 1.0, 2.0]] * 4)


@pytest.mark.parametrize("ct", COV_TYPES)
def test_tiny_repeated_rank_deficient_data_has_a_finite_elbo(ct):
    X = _tiny_repeated()
    for seed in range(3):
        m = VariationalGaussianMixture(2, covariance_type=ct, random_state=seed, tol=0.0,
                                       max_iter=10).fit(X)
        assert np.all(np.isfinite(m.lower_bounds_))
        assert np.all(np.diff(m.lower_bounds_) >= -1e-9 * np.abs(m.lower_bounds_[:-1]))
    if ct in ("full", "tied"):
        # the singular default prior got reg_covar on its diagonal (a proper Wishart prior)
        lam = np.linalg.eigvalsh(m.covariance_prior_)
        assert lam[0] >= 0.99e-6


def test_tiny_repeated_data_matches_sklearn():
    """Same start, same (regularised) prior: scikit-learn's iterates; and with scikit-learn's
    own defaults (a singular prior, which its bound ignores) the same clustering."""
    from sklearn.mixture import BayesianGaussianMixture

    X = _tiny_repeated()
    R = np.zeros((12, 2))
    R[np.arange(12), np.array([0, 0, 1] * 4)] = 1.0
    ours = VariationalGaussianMixture(2, init={"responsibilities": R}, max_iter=30,
                                      tol=0.0).fit(X)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sk = _sklearn_from(R, n_components=2, max_iter=30, tol=0.0,
                           weight_concentration_prior_type="dirichlet_distribution",
                           covariance_prior=ours.covariance_prior_).fit(X)
        sk_default = BayesianGaussianMixture(
            n_components=2, weight_concentration_prior_type="dirichlet_distribution",
            random_state=0, max_iter=200).fit(X)
    np.testing.assert_allclose(ours.weights_, sk.weights_, rtol=1e-8)
    np.testing.assert_allclose(ours.means_, sk.means_, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(ours.covariances_, sk.covariances_, rtol=1e-6, atol=1e-12)
    assert np.isfinite(ours.lower_bound_)
    labels, sk_labels = ours.predict(X), sk_default.predict(X)
    assert (labels == sk_labels).all() or (labels == 1 - sk_labels).all()
    order = [0, 1] if labels[0] == sk_labels[0] else [1, 0]
    np.testing.assert_allclose(ours.weights_[order], sk_default.weights_, atol=1e-3)
    np.testing.assert_allclose(ours.means_[order], sk_default.means_, atol=1e-3)


@pytest.mark.parametrize("ct", COV_TYPES)
def test_elbo_does_not_depend_on_the_value_of_a_constant_feature(ct):
    """A constant feature's variance is rounding noise (0 or ~1e-34 depending on the
    constant); the prior treats it as zero either way, so shifting the constant (an exact
    symmetry of the model with the default priors) leaves the ELBO unchanged."""
    X = _blobs(60)
    bounds = []
    for c in (0.5, 0.1, 3.3):
        Xc = X.copy()
        Xc[:, 1] = c
        m = VariationalGaussianMixture(2, covariance_type=ct, random_state=0, max_iter=5,
                                       tol=0.0).fit(Xc)
        bounds.append(m.lower_bounds_)
    np.testing.assert_allclose(bounds[1], bounds[0], rtol=1e-9)
    np.testing.assert_allclose(bounds[2], bounds[0], rtol=1e-9)


def test_numerically_singular_covariance_prior_is_refused():
    X = _tiny_repeated()
    c0 = np.cov(X.T)  # singular: features 2 and 3 differ by a constant
    with pytest.raises(ValueError, match="covariance_prior .*singular"):
        VariationalGaussianMixture(2, covariance_prior=c0).fit(X)


def test_bad_input_and_priors():
    X = _blobs(60)
    M = VariationalGaussianMixture
    with pytest.raises(ValueError, match="NaN"):
        Xn = X.copy()
        Xn[0, 0] = np.nan
        M(2).fit(Xn)
    with pytest.raises(ValueError, match="2D"):
        M(2).fit(X[:, 0])
    with pytest.raises(ValueError, match="n_samples >= n_components"):
        M(6).fit(X[:4])
    with pytest.raises(ValueError, match="covariance_type"):
        M(2, covariance_type="banana").fit(X)
    with pytest.raises(ValueError, match="mean_precision_prior"):
        M(2, mean_precision_prior=-1.0).fit(X)
    with pytest.raises(ValueError, match="weight_concentration_prior"):
        M(2, weight_concentration_prior=0.0).fit(X)
    with pytest.raises(ValueError, match="degrees_of_freedom_prior"):
        M(2, degrees_of_freedom_prior=1.0).fit(X)
    with pytest.raises(ValueError, match="mean_prior"):
        M(2, mean_prior=np.zeros(2)).fit(X)
    with pytest.raises(ValueError, match="covariance_prior"):
        M(2, covariance_prior=np.eye(2)).fit(X)
    with pytest.raises(ValueError, match="covariance_prior"):
        M(2, covariance_prior=-np.eye(3)).fit(X)
    with pytest.raises(ValueError, match="covariance_prior"):
        M(2, covariance_type="diag", covariance_prior=np.array([1.0, -1.0, 1.0])).fit(X)
    with pytest.raises(ValueError, match="covariance_prior"):
        M(2, covariance_type="spherical", covariance_prior=-2.0).fit(X)
    with pytest.raises(ValueError, match="responsibilities"):
        M(2, init={"responsibilities": np.ones((60, 3)) / 3}).fit(X)
    with pytest.raises(ValueError, match="init"):
        M(2, init="spectral-ish").fit(X)
    with pytest.raises(TypeError, match="n_components"):
        M(2.5).fit(X)
    m = M(2, max_iter=5, tol=0.0, random_state=0).fit(X)
    with pytest.raises(ValueError, match="features"):
        m.predict(X[:, :2])
    with pytest.raises(ValueError, match="sample_weight"):
        M(2).fit(X, sample_weight=np.ones(3))
    # a constant feature makes the default covariance_prior singular: reg_covar keeps it proper,
    # and without reg_covar the error names the prior
    Xc = X.copy()
    Xc[:, 1] = 3.0
    assert np.isfinite(M(2, max_iter=5, tol=0.0, random_state=0).fit(Xc).lower_bound_)
    with pytest.raises(ValueError, match="covariance_prior"):
        M(2, reg_covar=0.0).fit(Xc)
    with pytest.raises(ValueError, match="n_samples = 1"):
        M(1).fit(X[:1])


def test_parity_with_unmodified_sklearn_when_reg_covar_is_zero():
    # with reg_covar = 0 there is no jitter term, and the comparison is with scikit-learn's
    # own code, untouched: same weights and means after the same 40 iterations
    from sklearn.cluster import KMeans

    X = _blobs(300, seed=4)
    K = 5
    labels = KMeans(n_clusters=K, n_init=1, random_state=0).fit(X).labels_
    R = np.zeros((X.shape[0], K))
    R[np.arange(X.shape[0]), labels] = 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sk = _sklearn_from(R, jitter=False, n_components=K, max_iter=40, tol=0.0, reg_covar=0.0,
                           weight_concentration_prior_type="dirichlet_distribution").fit(X)
    ours = VariationalGaussianMixture(K, init={"responsibilities": R}, max_iter=40, tol=0.0,
                                      reg_covar=0.0).fit(X)
    np.testing.assert_allclose(ours.weights_, sk.weights_, rtol=1e-6, atol=1e-10)
    np.testing.assert_allclose(ours.means_, sk.means_, rtol=1e-6, atol=1e-8)
