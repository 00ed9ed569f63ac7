"""Tests of PLSA: the numba E-step and folding-in against NumPy oracles, EM against a direct
NumPy EM (1e-10; the oracles live in latentkit.testing), the symmetric/asymmetric
equivalence, tempered EM, folding-in, the common contract and bad input."""

import numpy as np
import pytest
import scipy.sparse as sp

from latentkit.testing import (
    check_latent_model,
    plsa_e_step_oracle,
    plsa_em_oracle,
    plsa_fold_in_oracle,
)
from latentkit.topic._plsa import PLSA, plsa_e_step_stats, plsa_fold_in_docs


def _corpus(n_docs=30, n_words=25, n_topics=3, seed=0):
    rng = np.random.default_rng(seed)
    phi = rng.dirichlet(np.full(n_words, 0.3), size=n_topics)
    theta = rng.dirichlet(np.full(n_topics, 0.5), size=n_docs)
    lengths = rng.integers(5, 40, size=n_docs)
    X = np.vstack([rng.multinomial(n, t @ phi) for n, t in zip(lengths, theta)]).astype(float)
    X[3] = 0.0  # an empty document
    return sp.csr_matrix(X), phi, theta


def test_e_step_kernel_matches_dense_oracle():
    X, phi, theta = _corpus()
    for beta in (1.0, 0.7):
        doc, tw, ll, fe = plsa_e_step_stats(X, theta, phi, beta)
        doc_ref, tw_ref, ll_ref, fe_ref = plsa_e_step_oracle(X, theta, phi, beta)
        np.testing.assert_allclose(doc, doc_ref, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(tw, tw_ref, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(ll, ll_ref, rtol=1e-10)
        np.testing.assert_allclose(fe, fe_ref, rtol=1e-10)


@pytest.mark.parametrize("beta", [1.0, 0.8])
def test_asymmetric_em_matches_direct_numpy_em(beta):
    X, phi0, theta0 = _corpus(seed=1)
    rng = np.random.default_rng(5)
    phi = rng.dirichlet(np.ones(X.shape[1]), size=4)
    theta = rng.dirichlet(np.ones(4), size=X.shape[0])
    m = PLSA(4, init={"components": phi, "doc_topic": theta}, max_iter=25, tol=0.0, beta=beta)
    m.fit(X)
    phi_ref, theta_ref, ll_ref = plsa_em_oracle(X, phi, theta, 25, beta)
    np.testing.assert_allclose(m.components_, phi_ref, rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(m.doc_topic_, theta_ref, rtol=1e-10, atol=1e-13)
    if beta == 1.0:
        # nats per document: the oracle's per-token log-likelihood times tokens / documents
        np.testing.assert_allclose(m.lower_bounds_, ll_ref * X.sum() / X.shape[0], rtol=1e-10)
        assert m.lower_bounds_[-1] / m.mean_doc_length_ == pytest.approx(ll_ref[-1], rel=1e-10)


def test_symmetric_equals_asymmetric_up_to_the_document_constant():
    X, _, _ = _corpus(seed=2)
    rng = np.random.default_rng(3)
    phi = rng.dirichlet(np.ones(X.shape[1]), size=3)
    theta = rng.dirichlet(np.ones(3), size=X.shape[0])
    a = PLSA(3, init={"components": phi, "doc_topic": theta}, max_iter=15, tol=0.0).fit(X)
    s = PLSA(3, parametrization="symmetric", init={"components": phi, "doc_topic": theta},
             max_iter=15, tol=0.0).fit(X)
    nd = np.asarray(X.sum(1)).ravel()
    N = nd.sum()
    const = np.sum(nd[nd > 0] * np.log(nd[nd > 0] / N)) / X.shape[0]  # per document
    np.testing.assert_allclose(s.lower_bounds_, a.lower_bounds_ + const, rtol=1e-10)
    np.testing.assert_allclose(s.components_, a.components_, rtol=1e-9, atol=1e-13)
    np.testing.assert_allclose(s.doc_topic_[nd > 0], a.doc_topic_[nd > 0], rtol=1e-9, atol=1e-13)
    # symmetric parameters are consistent: P(z) P(d|z) = P(d) P(z|d)
    lhs = s.topic_prior_[None, :] * s.doc_components_.T
    np.testing.assert_allclose(lhs, (nd / N)[:, None] * s.doc_topic_, atol=1e-13)
    # and the symmetric form can be started from (P(z), P(d|z)) with the same result
    s2 = PLSA(3, parametrization="symmetric", max_iter=15, tol=0.0,
              init={"components": phi, "topic_prior": s.topic_prior_,
                    "doc_components": s.doc_components_}).fit(X)
    assert np.all(np.diff(s2.lower_bounds_) > -1e-12)


@pytest.mark.parametrize("beta", [1.0, 0.7])
def test_fold_in_kernel_matches_numpy_oracle(beta):
    X, phi, _ = _corpus(seed=8)
    start = np.random.default_rng(2).dirichlet(np.ones(3), size=X.shape[0])
    for max_iter, tol in ((7, 0.0), (200, 1e-6)):
        theta, ll = plsa_fold_in_docs(X, phi, beta, max_iter, tol, doc_topic_init=start)
        theta_ref, ll_ref, n_iter = plsa_fold_in_oracle(X, phi, beta, max_iter, tol, start)
        np.testing.assert_allclose(theta, theta_ref, rtol=1e-10, atol=1e-13)
        np.testing.assert_allclose(ll, ll_ref, rtol=1e-10)
    assert np.any((n_iter > 1) & (n_iter < 200))  # documents stopped by tol, not max_iter


def test_fold_in_fixed_point_and_transform():
    X, phi, theta = _corpus(seed=4)
    m = PLSA(3, max_iter=50, tol=0.0, random_state=0).fit(X)
    # one fold-in sweep is the document half of an EM step with P(w|z) fixed
    nd = np.asarray(X.sum(1)).ravel() > 0
    theta_f, _ = plsa_fold_in_docs(X, m.components_, max_iter=1, tol=0.0,
                                   doc_topic_init=m.doc_topic_)
    doc, _, _, _ = plsa_e_step_stats(X, m.doc_topic_, m.components_)
    np.testing.assert_allclose(theta_f[nd], doc[nd] / doc[nd].sum(1, keepdims=True), rtol=1e-10)
    # transform from uniform maximises sum log P(w|d) over P(z|d): no worse than a random start
    t = m.transform(X[:5])
    np.testing.assert_allclose(t.sum(1), 1.0)
    _, ll_t = plsa_fold_in_docs(X[:5], m.components_)
    rng = np.random.default_rng(0)
    other = rng.dirichlet(np.ones(3), size=5)
    ll_o = (X[:5].toarray() * np.log(other @ m.components_)).sum(1)
    assert np.all(ll_t >= ll_o - 1e-9)
    p = m.perplexity(X)
    assert np.isclose(p, np.exp(-m.score_per_token(X)))
    # score is per document, score_per_token per token, elbo(X) == score(X) at beta = 1
    ll = plsa_fold_in_docs(X, m.components_)[1].sum()
    assert m.score(X) == pytest.approx(ll / X.shape[0], rel=1e-12)
    assert m.score_per_token(X) == pytest.approx(ll / X.sum(), rel=1e-12)
    assert m.elbo(X) == pytest.approx(m.score(X), rel=1e-12)


def test_tempered_em_bound_is_monotone_and_converges():
    X, _, _ = _corpus(seed=6)
    m = PLSA(4, beta=0.75, max_iter=60, tol=0.0, random_state=0).fit(X)
    assert np.all(np.diff(m.lower_bounds_) >= -1e-12 * np.abs(m.lower_bounds_[:-1]))


@pytest.mark.parametrize("parametrization", ["asymmetric", "symmetric"])
def test_common_contract(parametrization):
    X, _, _ = _corpus(seed=7)
    check_latent_model(PLSA(3, parametrization=parametrization, max_iter=20, tol=0.0,
                            random_state=0), X)


def test_bad_input():
    X, _, _ = _corpus()
    with pytest.raises(ValueError, match="non-negative"):
        PLSA(2).fit(-X.toarray())
    with pytest.raises(ValueError, match="parametrization"):
        PLSA(2, parametrization="joint").fit(X)
    with pytest.raises(ValueError, match="beta"):
        PLSA(2, beta=1.5).fit(X)
    with pytest.raises(TypeError, match="n_components"):
        PLSA(2.5).fit(X)
    with pytest.raises(ValueError, match="components"):
        PLSA(2, init={"components": np.ones((2, 3))}).fit(X)
    with pytest.raises(ValueError, match="summing to 1"):
        PLSA(2, init={"doc_topic": np.ones((X.shape[0], 2))}).fit(X)
    with pytest.raises(ValueError, match="no tokens"):
        PLSA(2).fit(sp.csr_matrix((3, 4)))
    with pytest.raises(ValueError, match="NaN"):
        Xn = X.toarray()
        Xn[0, 0] = np.nan
        PLSA(2).fit(Xn)
    m = PLSA(2, max_iter=5, tol=0.0, random_state=0).fit(X)
    with pytest.raises(ValueError, match="features"):
        m.transform(X[:, :-1])
