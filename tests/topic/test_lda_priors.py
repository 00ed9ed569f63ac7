"""Learned and asymmetric Dirichlet priors of LDA (issue 31, item 1): the asymmetric E-step
kernel against the NumPy oracle, the prior updates against gensim's LdaModel.update_alpha /
update_eta from the same variational parameters, the batch bound non-decreasing with learned
priors, and a planted asymmetric alpha recovered."""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.special import gammaln, psi

from latentkit import io
from latentkit.datasets import make_lda_corpus
from latentkit.testing import lda_e_step_oracle
from latentkit.inference import StochasticVI
from latentkit.topic import LatentDirichletAllocation
from latentkit.topic._lda_estep import _beta_tables, _run_e_step
from latentkit.topic._lda_priors import (LDAPriors, asymmetric_prior, dirichlet_newton_step,
                                         fit_dirichlet_prior, prior_stats)


@pytest.fixture(scope="module")
def planted():
    alpha = np.array([0.8, 0.4, 0.15, 0.06])
    X, truth = make_lda_corpus(n_docs=400, n_components=4, vocab_size=120, doc_length=60,
                               doc_topic_prior=alpha, topic_word_prior=0.05, random_state=1)
    return X, alpha


def test_asymmetric_kernel_matches_oracle(planted):
    X, _ = planted
    X = sp.lil_matrix(X[:40])
    X[3] = 0  # an empty document: gamma = alpha, contributes 0
    X = sp.csr_matrix(X)
    rng = np.random.default_rng(0)
    lam = rng.gamma(2.0, 1.0, size=(4, X.shape[1])) + 0.01
    alpha = np.array([0.9, 0.2, 0.05, 0.4])
    g, ss, de, it = _run_e_step(X, *_beta_tables(lam), alpha, 50, 1e-4)
    g2, ss2, de2, it2 = lda_e_step_oracle(X, lam, alpha, max_iter=50, tol=1e-4)
    np.testing.assert_array_equal(it, it2)
    np.testing.assert_allclose(g, g2, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(ss, ss2, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(de, de2, rtol=1e-10, atol=1e-10)
    assert de[3] == 0.0 and np.array_equal(g[3], alpha)
    # a constant vector is the symmetric prior
    g3, _, de3, _ = _run_e_step(X, *_beta_tables(lam), np.full(4, 0.3), 50, 1e-4)
    g4, _, de4, _ = _run_e_step(X, *_beta_tables(lam), 0.3, 50, 1e-4)
    np.testing.assert_allclose(g3, g4, rtol=1e-12)
    np.testing.assert_allclose(de3, de4, rtol=1e-12)


def _gensim_lda(K, V, alpha, eta):
    gensim = pytest.importorskip("gensim")
    from gensim.corpora import Dictionary
    vocab = Dictionary([[f"w{j}" for j in range(V)]])
    return gensim.models.LdaModel(num_topics=K, id2word=vocab, alpha=alpha.copy(),
                                  eta=eta.copy(), dtype=np.float64)


@pytest.mark.kernel_sensitive
@pytest.mark.parametrize("rho", [1.0, 0.35])
def test_prior_updates_equal_gensim(rho):
    rng = np.random.default_rng(4)
    D, K, V = 50, 5, 30
    gamma = rng.gamma(1.5, 2.0, size=(D, K)) + 0.05
    lam = rng.gamma(0.8, 3.0, size=(K, V)) + 0.01
    alpha0 = rng.uniform(0.05, 0.6, size=K)
    eta0 = rng.uniform(0.02, 0.3, size=V)
    gm = _gensim_lda(K, V, alpha0, eta0)
    want_alpha = gm.update_alpha(gamma, rho)
    want_eta = gm.update_eta(lam, rho)
    # through the model's own path: statistics of the E-step's gamma, then the M-step's update
    # of the priors (LDAPriors, the object LDA's _m_step calls)
    X = sp.csr_matrix((D, V))
    stats = prior_stats(True, X, np.zeros((K, V)), np.zeros(D), gamma)
    # a stochastic step of any size, 1 included, is ONE scaled Newton step (issue 41, item 4:
    # step 1 was solved to convergence as a batch iteration, 16 % off gensim's update_alpha)
    got_alpha, got_eta = LDAPriors(K, learn_alpha=True, learn_eta=True).update(
        stats, alpha0.copy(), eta0.copy(), lam, rho)
    np.testing.assert_allclose(got_alpha, want_alpha, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(got_eta, want_eta, rtol=1e-10, atol=1e-12)
    assert not np.allclose(want_alpha, alpha0)  # the update moved


def _dirichlet_objective(a, n, logphat):
    return n * (gammaln(a.sum()) - gammaln(a).sum() + np.dot(a - 1.0, logphat))


def test_fitted_prior_is_the_maximum_likelihood_estimate():
    rng = np.random.default_rng(7)
    true = np.array([2.0, 0.5, 0.1, 1.2])
    p = rng.dirichlet(true, size=5000)
    logphat = np.log(p).mean(axis=0)
    a = fit_dirichlet_prior(np.full(4, 0.25), 5000.0, logphat)
    grad = psi(a.sum()) - psi(a) + logphat  # the stationarity condition of the MLE
    np.testing.assert_allclose(grad, 0.0, atol=1e-9)
    np.testing.assert_allclose(a, true, rtol=0.06)
    # every perturbation lowers the objective (a maximum, not a saddle)
    f = _dirichlet_objective(a, 5000.0, logphat)
    for d in np.eye(4) * 1e-3:
        assert _dirichlet_objective(a + d, 5000.0, logphat) < f
        assert _dirichlet_objective(a - d, 5000.0, logphat) < f


def test_learned_priors_batch_bound_never_decreases_and_alpha_recovered(planted):
    X, alpha = planted
    m = LatentDirichletAllocation(4, doc_topic_prior="auto", topic_word_prior="auto",
                                  max_iter=80, tol=0, init="random", random_state=0).fit(X)
    lb = np.asarray(m.lower_bounds_)
    assert np.all(np.diff(lb) >= 0.0)
    assert m.doc_topic_prior_.shape == (4,) and m.topic_word_prior_.shape == (X.shape[1],)
    # the planted asymmetric alpha, up to the order of the topics
    np.testing.assert_allclose(np.sort(m.doc_topic_prior_), np.sort(alpha), rtol=0.3)
    # the ELBO includes the learned priors: the global term is KL to Dir(eta)
    stats = m._e_step(m._validate_data(X, reset=False))
    assert m.elbo(X) == pytest.approx(m._elbo_from_stats(stats), rel=1e-12)
    # fixed 1/K cannot express it: the learned prior gives the higher bound
    fixed = LatentDirichletAllocation(4, max_iter=80, tol=0, init="random",
                                      random_state=0).fit(X)
    assert m.lower_bound_ > fixed.lower_bound_


def test_asymmetric_and_array_priors_are_fixed(planted):
    X, _ = planted
    m = LatentDirichletAllocation(4, doc_topic_prior="asymmetric", max_iter=5,
                                  random_state=0).fit(X)
    np.testing.assert_array_equal(m.doc_topic_prior_, asymmetric_prior(4))
    assert m.doc_topic_prior_.sum() == pytest.approx(1.0)
    a = np.array([0.1, 0.2, 0.3, 0.4])
    eta = np.full(X.shape[1], 0.05)
    m = LatentDirichletAllocation(4, doc_topic_prior=a, topic_word_prior=eta, max_iter=5,
                                  random_state=0).fit(X)
    np.testing.assert_array_equal(m.doc_topic_prior_, a)
    np.testing.assert_array_equal(m.topic_word_prior_, eta)
    assert np.array_equal(a, [0.1, 0.2, 0.3, 0.4])  # the user's array is not mutated


def test_online_fit_learns_alpha_with_the_svi_step(planted):
    X, _ = planted
    m = StochasticVI(LatentDirichletAllocation(4, doc_topic_prior="auto"), batch_size=100,
                     n_epochs=3, random_state=0).fit(X).model_
    assert m.n_steps_ == 12 and m.doc_topic_prior_.shape == (4,)
    assert not np.allclose(m.doc_topic_prior_, 0.25)
    # partial_fit with step rho: one gensim step, scaled by rho, from the minibatch's gamma
    p = LatentDirichletAllocation(4, doc_topic_prior="auto", random_state=0)
    p.partial_fit(X[:100], total_samples=400, step_size=0.5)
    a0 = p.doc_topic_prior_.copy()
    data = p._validate_data(X[100:200], reset=False)
    gamma = p._local_step(data, sstats=False)[0]
    want = dirichlet_newton_step(a0, 100, (psi(gamma) - psi(gamma.sum(1, keepdims=True)))
                                 .mean(0), 0.4)
    p.partial_fit(X[100:200], total_samples=400, step_size=0.4)
    np.testing.assert_allclose(p.doc_topic_prior_, want, rtol=1e-12)


def test_learned_prior_model_saves_and_loads(planted, tmp_path):
    X, _ = planted
    m = LatentDirichletAllocation(4, doc_topic_prior="auto", topic_word_prior="auto",
                                  max_iter=5, tol=0, random_state=0, n_init=2).fit(X)
    path = tmp_path / "lda.npz"
    io.save(m, path)
    back = io.load(path)
    np.testing.assert_array_equal(back.doc_topic_prior_, m.doc_topic_prior_)
    np.testing.assert_array_equal(back.topic_word_prior_, m.topic_word_prior_)
    np.testing.assert_array_equal(back.transform(X[:5]), m.transform(X[:5]))


@pytest.mark.parametrize("kw, err, msg", [
    (dict(doc_topic_prior="symmetric"), ValueError, "doc_topic_prior must be"),
    (dict(topic_word_prior="asymmetric"), ValueError, "topic_word_prior must be"),
    (dict(doc_topic_prior=[0.1, 0.2]), ValueError, r"shape \(4,\)"),
    (dict(doc_topic_prior=[0.1, 0.2, -1.0, 0.3]), ValueError, "> 0"),
    # the offending entry as a plain float and where it is (was "got min np.float64(nan)")
    (dict(doc_topic_prior=[0.1, np.nan, -1.0, 0.3]), ValueError, r"found nan at index 1\."),
    (dict(topic_word_prior=np.r_[np.ones(5), -2.0, np.ones(114)]), ValueError,
     r"found -2\.0 at index 5\."),
    (dict(topic_word_prior=np.ones(7)), ValueError, "n_features=120"),
    (dict(topic_word_prior=np.ones((3, 120))), ValueError, "n_components=4 rows"),
    (dict(doc_topic_prior=True), TypeError, "bool"),
    # refused without seed_topics too (was accepted silently)
    (dict(seed_confidence=-1.0), ValueError, "seed_confidence must be > 0"),
    (dict(seed_confidence="high"), TypeError, "seed_confidence must be a real number"),
    (dict(topic_word_prior={"a": 1}), TypeError, "topic_word_prior"),
])
def test_bad_priors_are_named(planted, kw, err, msg):
    X, _ = planted
    with pytest.raises(err, match=msg):
        LatentDirichletAllocation(4, max_iter=2, **kw).fit(X)


def test_learned_priors_chunked_equal_in_memory(planted):
    from latentkit.sources import ArraySource

    X, _ = planted
    params = dict(n_components=4, doc_topic_prior="auto", topic_word_prior="auto", max_iter=4,
                  tol=0, init="random", random_state=0)
    mem = LatentDirichletAllocation(**params).fit(X)
    chunked = LatentDirichletAllocation(**params).fit(ArraySource(X, chunk_size=150))
    np.testing.assert_allclose(chunked.lower_bounds_, mem.lower_bounds_, rtol=1e-10)
    np.testing.assert_allclose(chunked.doc_topic_prior_, mem.doc_topic_prior_, rtol=1e-9)
    np.testing.assert_allclose(chunked.topic_word_prior_, mem.topic_word_prior_, rtol=1e-9)


@pytest.mark.parametrize("kw", [dict(doc_topic_prior="auto"), dict(topic_word_prior="auto"),
                                dict(seed_topics={0: [1]})])
def test_private_svi_refuses_learned_or_seeded_priors(planted, kw):
    from latentkit.inference import PrivateStochasticVI

    X, _ = planted
    with pytest.raises(ValueError, match="private SVI needs fixed priors"):
        PrivateStochasticVI(LatentDirichletAllocation(4, **kw), epsilon=1.0, delta=1e-5,
                            clip=10.0, batch_size=50, n_epochs=1, random_state=0).fit(X)


def test_partial_fit_step_of_size_one_is_gensims_single_newton_step(planted):
    """partial_fit with step_size=1 (the first step of learning_offset=0) takes gensim's one
    scaled Newton step ``update_alpha(gamma, 1.0)`` from the E-step's gamma at the starting
    topics (1e-10); a batch fit's update is the converged maximiser of the same objective."""
    X, _ = planted
    X = X[:100]
    K = 4
    lam0 = np.random.default_rng(3).gamma(100.0, 0.01, size=(K, X.shape[1]))
    m = LatentDirichletAllocation(K, doc_topic_prior="auto", init={"components": lam0})
    m.partial_fit(X, step_size=1.0)
    alpha0 = np.full(K, 1.0 / K)
    gamma, _, _, _ = _run_e_step(X, *_beta_tables(lam0), alpha0, m.max_doc_update_iter,
                                 m.mean_change_tol)
    gm = _gensim_lda(K, X.shape[1], alpha0, np.full(X.shape[1], 1.0 / K))
    want = gm.update_alpha(gamma, 1.0)
    np.testing.assert_allclose(m.doc_topic_prior_, want, rtol=1e-10, atol=1e-12)
    # the batch update of the same statistics is the maximiser (the gradient vanishes there),
    # which one step is not
    logphat = (psi(gamma) - psi(gamma.sum(1, keepdims=True))).mean(axis=0)
    full = fit_dirichlet_prior(alpha0, float(X.shape[0]), logphat)
    np.testing.assert_allclose(psi(full.sum()) - psi(full) + logphat, 0.0, atol=1e-9)
    assert np.max(np.abs(full - want) / full) > 1e-3
