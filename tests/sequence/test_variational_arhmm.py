"""The variational autoregressive HMM (issue 45, item 2's variational version): with one
state its ELBO is the exact log evidence of the Bayesian multivariate regression under the
matrix-normal-Wishart prior (closed form, 1e-10); the bound never decreases; planted AR
coefficients are recovered and agree with the maximum-likelihood AutoregressiveHMM."""

import numpy as np
import pytest
from scipy.special import multigammaln

from latentkit import AutoregressiveHMM, VariationalAutoregressiveHMM


def _series(n, rng, D=2):
    A = [np.array([[0.8, 0.1], [0.0, 0.5]])[:D, :D], np.array([[-0.5, 0.0], [0.2, -0.3]])[:D, :D]]
    x = np.zeros((n, D))
    for t in range(1, n):
        x[t] = A[(t // 100) % 2] @ x[t - 1] + np.array([0.5, -0.5])[:D] + rng.normal(size=D)
    return x


@pytest.mark.parametrize("n_lags", [1, 2])
def test_one_state_elbo_is_the_exact_log_evidence(n_lags):
    rng = np.random.default_rng(n_lags)
    X = _series(150, rng)
    lengths = [90, 60]
    m = VariationalAutoregressiveHMM(1, n_lags, coefs_prior=0.7, intercept_prior=0.01,
                                     dof_prior=4.5, max_iter=2, tol=0).fit(X, lengths=lengths)
    N, D = X.shape
    # the regression by hand: z_t = [x_{t-1}, ..., x_{t-p}, 1], zeros before each start
    Z = []
    for a, b in ((0, 90), (90, 150)):
        for t in range(a, b):
            lags = [X[t - q] if t - q >= a else np.zeros(D) for q in range(1, n_lags + 1)]
            Z.append(np.concatenate(lags + [[1.0]]))
    Z = np.array(Z)
    P = Z.shape[1]
    L0 = np.diag([0.7] * (P - 1) + [0.01])
    nu0 = 4.5
    Q0 = (np.cov(X.T, bias=True) + 1e-6 * np.eye(D)) * nu0  # E[Lambda]: the data's
    Ln = L0 + Z.T @ Z
    Mn = X.T @ Z @ np.linalg.inv(Ln)
    Qn = Q0 + X.T @ X - Mn @ Ln @ Mn.T
    nun = nu0 + N
    logdet = lambda A: np.linalg.slogdet(A)[1]  # noqa: E731
    evidence = (-0.5 * N * D * np.log(np.pi) + multigammaln(nun / 2, D)
                - multigammaln(nu0 / 2, D) + 0.5 * nu0 * logdet(Q0) - 0.5 * nun * logdet(Qn)
                + 0.5 * D * (logdet(L0) - logdet(Ln)))
    # 1e-10 relative: the same closed form, computed in another order
    np.testing.assert_allclose(m.elbo(X, lengths=lengths) * N, evidence, rtol=1e-10)
    np.testing.assert_allclose(m.regression_posterior_[0], Mn, rtol=1e-9, atol=1e-12)


def test_bound_never_decreases_and_agrees_with_maximum_likelihood():
    X = _series(2000, np.random.default_rng(0))
    vb = VariationalAutoregressiveHMM(2, random_state=0).fit(X)
    lb = np.asarray(vb.lower_bounds_)
    assert np.all(np.diff(lb) >= -1e-12 * np.abs(lb[:-1]))
    ml = AutoregressiveHMM(2, random_state=0).fit(X)
    order_vb = np.argsort(vb.coefs_[:, 0, 0])
    order_ml = np.argsort(ml.coefs_[:, 0, 0])
    # 2,000 steps: the posterior means are within a few prior pseudo-counts of the MLE
    np.testing.assert_allclose(vb.coefs_[order_vb], ml.coefs_[order_ml], atol=0.02)
    np.testing.assert_allclose(np.sort(vb.coefs_[:, 0, 0]), [-0.5, 0.8], atol=0.08)


@pytest.mark.filterwarnings("ignore::latentkit.ConvergenceWarning")
def test_save_load_and_bad_state(tmp_path):
    import latentkit as lk

    X = _series(300, np.random.default_rng(2))
    m = VariationalAutoregressiveHMM(2, 2, random_state=0, max_iter=5).fit(X)
    lk.save(m, tmp_path / "v.npz")
    m2 = lk.load(tmp_path / "v.npz")
    assert m2.score(X) == m.score(X)
    np.testing.assert_array_equal(m2.regression_posterior_, m.regression_posterior_)
    m2.dof_posterior_ = np.zeros(2)
    with pytest.raises(ValueError, match="dof_posterior_"):
        m2._check_state()
