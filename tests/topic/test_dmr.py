"""Dirichlet-multinomial regression priors: the lambda M-step against LDA's maximiser of the
same Dirichlet objective, gradient, covariates that carry the topic mix, the bound."""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import check_grad

import latentkit as lk
from latentkit.exceptions import InputError
from latentkit.topic import DirichletMultinomialRegression
from latentkit.topic._dmr import dmr_prior_objective
from latentkit.topic._lda_priors import fit_dirichlet_prior

pytestmark = pytest.mark.filterwarnings("ignore::latentkit.ConvergenceWarning")


def _corpus(n=200, K=3, V=30, seed=0):
    """Two groups of documents (a binary covariate) with different topic mixes."""
    rng = np.random.default_rng(seed)
    topics = rng.dirichlet(np.full(V, 0.2), size=K)
    group = rng.integers(0, 2, n)
    alpha = np.array([[2.0, 0.2, 0.2], [0.2, 0.2, 2.0]])
    theta = np.vstack([rng.dirichlet(alpha[g]) for g in group])
    X = np.vstack([rng.multinomial(60, t @ topics) for t in theta])
    return sp.csr_matrix(X.astype(float)), group[:, None].astype(float), topics


def test_gradient_of_the_prior_objective():
    rng = np.random.default_rng(0)
    Z = np.hstack([np.ones((4, 1)), rng.normal(size=(4, 2))])
    docs, elog = rng.integers(1, 9, 4).astype(float), -rng.random((4, 3)) * 3
    f = lambda v: dmr_prior_objective(v.reshape(3, 3), Z, docs, elog, 2.0)[0]  # noqa: E731
    g = lambda v: dmr_prior_objective(v.reshape(3, 3), Z, docs, elog, 2.0)[1].ravel()  # noqa
    assert check_grad(f, g, rng.normal(size=9) * 0.3) < 1e-5


def test_intercept_only_m_step_is_ldas_learned_asymmetric_alpha():
    """No covariates: alpha = exp(intercept) maximises the Dirichlet objective that LDA's
    doc_topic_prior='auto' maximises (fit_dirichlet_prior), up to the flat prior."""
    X, _, _ = _corpus(seed=1)
    m = DirichletMultinomialRegression(3, prior_variance=1e12, random_state=0, max_iter=10)
    m.fit(X, covariates=np.zeros((X.shape[0], 0)))
    stats = m._e_step(m._validate_data(X, reset=False, covariates=np.zeros((X.shape[0], 0))))
    m._m_step(stats)
    n = stats.group_docs[0]
    ours = np.exp(m.coef_[0])
    lda = fit_dirichlet_prior(np.full(3, 1.0 / 3), n, stats.group_elog_theta[0] / n)
    np.testing.assert_allclose(ours, lda, rtol=1e-4)  # L-BFGS vs Newton, gtol 1e-9
    assert len(set(np.round(ours, 3))) == 3  # an asymmetric alpha


def test_covariates_carry_the_topic_mix_and_the_bound_rises():
    X, C, topics = _corpus(seed=2)
    m = DirichletMultinomialRegression(3, random_state=0, max_iter=60).fit(X, covariates=C)
    lb = m.lower_bounds_
    assert np.all(np.diff(lb) >= -1e-9 * np.abs(lb[:-1]))
    a0, a1 = m.doc_topic_prior([[0.0], [1.0]])
    est = m.components_ / m.components_.sum(axis=1, keepdims=True)
    perm, err = lk.testing.match_components(topics, est)
    # the topics the covariate favours (0: group 0, 2: group 1) are recovered closely; topic 1
    # (alpha 0.2 in both groups, few tokens) less so (measured 0.04, 0.32, 0.06)
    assert err[[0, 2]].max() < 0.1 and err[1] < 0.5
    # group 0 favours true topic 0, group 1 true topic 2
    assert a0[perm[0]] > 3 * a0[perm[2]] and a1[perm[2]] > 3 * a1[perm[0]]
    # the bound is at least LDA's with a fixed symmetric alpha at the same topics' start
    lda = lk.LatentDirichletAllocation(3, init="random", random_state=0, max_iter=60).fit(X)
    assert m.lower_bound_ > lda.lower_bound_ - 0.01 * abs(lda.lower_bound_)
    with pytest.raises(InputError, match="covariates"):
        DirichletMultinomialRegression(3).fit(X)


def test_save_load(tmp_path):
    X, C, _ = _corpus(n=40, seed=3)
    m = DirichletMultinomialRegression(2, random_state=0, max_iter=4).fit(X, covariates=C)
    lk.save(m, tmp_path / "d.npz")
    back = lk.load(tmp_path / "d.npz")
    assert back.elbo(X, covariates=C) == m.elbo(X, covariates=C)
