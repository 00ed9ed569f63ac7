"""LatentDirichletAllocation: kernel vs oracle, closed-form ELBO vs brute force, contract,
planted-topic recovery, parity with scikit-learn on KOS, bad input."""

import numba
import numpy as np
import pytest
import scipy.sparse as sp
from scipy.special import gammaln, psi
from scipy.stats import dirichlet as scipy_dirichlet

from latentkit.base import NotFittedError
from latentkit.datasets import load_kos, make_lda_corpus
from latentkit.distributions import dirichlet_expectation, dirichlet_kl, dirichlet_log_normalizer
from latentkit.testing import (check_latent_model, lda_doc_elbo_terms_oracle, lda_e_step_oracle,
                               match_components)
from latentkit.topic import LatentDirichletAllocation, lda_e_step


@pytest.fixture(scope="module")
def small_corpus():
    X, truth = make_lda_corpus(60, n_components=3, vocab_size=40, doc_length=30,
                               random_state=1)
    X = X.tolil()
    X[5, :] = 0          # an empty document
    X[17, :] = 0
    X = X.tocsr()
    X.eliminate_zeros()
    return X, truth


def _with_float_counts(X):
    X = X.copy()
    X.data = X.data * 0.75 + 0.1     # non-integer counts are allowed
    return X


# ---------------------------------------------------------------------------------------------
# Dirichlet helpers
# ---------------------------------------------------------------------------------------------

def test_dirichlet_helpers_against_scipy():
    rng = np.random.default_rng(0)
    q = rng.gamma(2.0, 1.0, size=(4, 6)) + 0.05
    p = rng.gamma(2.0, 1.0, size=6) + 0.05
    # KL(q||p) = -H(q) - E_q[log p(theta)]; scipy gives H and the log density
    for i in range(4):
        e_log = psi(q[i]) - psi(q[i].sum())
        cross = -(gammaln(p).sum() - gammaln(p.sum())) + np.sum((p - 1) * e_log)
        expected = -scipy_dirichlet.entropy(q[i]) - cross
        assert dirichlet_kl(q[i], p) == pytest.approx(expected, rel=1e-12, abs=1e-12)
        # log normaliser: log pdf at a point = sum (a-1) log x - log B(a)
        x = rng.dirichlet(q[i])
        lpdf = scipy_dirichlet.logpdf(x, q[i])
        assert np.sum((q[i] - 1) * np.log(x)) - dirichlet_log_normalizer(q[i]) == \
            pytest.approx(lpdf, rel=1e-10)
    np.testing.assert_allclose(dirichlet_kl(q, p), [dirichlet_kl(r, p) for r in q], rtol=1e-13)
    assert dirichlet_kl(q[0], q[0]) == pytest.approx(0.0, abs=1e-12)
    # scalar prior = symmetric Dirichlet
    assert dirichlet_kl(q[1], 0.3) == pytest.approx(dirichlet_kl(q[1], np.full(6, 0.3)), rel=1e-13)
    # E[log theta] by Monte Carlo
    draws = rng.dirichlet(q[2], size=200_000)
    np.testing.assert_allclose(dirichlet_expectation(q[2]), np.log(draws).mean(axis=0),
                               atol=0.03)
    with pytest.raises(ValueError, match="positive"):
        dirichlet_kl(-q, p)
    with pytest.raises(ValueError, match="broadcast"):
        dirichlet_kl(q, np.ones(5))


# ---------------------------------------------------------------------------------------------
# Kernel vs oracle; ELBO vs brute force
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("warm", [False, True])
def test_kernel_matches_oracle(small_corpus, warm):
    X, _ = small_corpus
    X = _with_float_counts(X)
    rng = np.random.default_rng(3)
    lam = rng.gamma(2.0, 1.0, size=(4, X.shape[1])) + 0.01
    gamma0 = rng.gamma(2.0, 1.0, size=(X.shape[0], 4)) + 0.05 if warm else None
    g, ss, de, it = lda_e_step(X, lam, 0.3, max_doc_update_iter=50, mean_change_tol=1e-4,
                               gamma0=gamma0)
    g2, ss2, de2, it2 = lda_e_step_oracle(X, lam, 0.3, max_iter=50, tol=1e-4, gamma0=gamma0)
    np.testing.assert_array_equal(it, it2)
    np.testing.assert_allclose(g, g2, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(ss, ss2, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(de, de2, rtol=1e-10, atol=1e-10)
    # empty documents: gamma = alpha, contribute nothing
    assert de[5] == 0.0 and de[17] == 0.0 and it[5] == 0
    np.testing.assert_array_equal(g[5], 0.3)
    # statistics count every token once
    assert ss.sum() == pytest.approx(X.sum(), rel=1e-12)


def test_kernel_with_tiny_topic_probabilities():
    """exp(E[log beta]) underflows in float64 for tiny lambda; the shifted tables must not."""
    X = sp.csr_matrix(np.array([[3.0, 0.0, 1.0], [0.0, 2.0, 2.0]]))
    lam = np.array([[1e-3, 1e-3, 5.0], [5.0, 1e-3, 1e-3]])   # E[log beta] ~ -1000 for word 1
    g, ss, de, _ = lda_e_step(X, lam, 0.5)
    g2, ss2, de2, _ = lda_e_step_oracle(X, lam, 0.5)
    assert np.all(np.isfinite(de))
    np.testing.assert_allclose(de, de2, rtol=1e-10)
    np.testing.assert_allclose(ss, ss2, rtol=1e-10, atol=1e-12)


def test_kernel_independent_of_thread_count(small_corpus):
    X, _ = small_corpus
    lam = np.random.default_rng(0).gamma(100.0, 0.01, size=(3, X.shape[1]))
    old = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = lda_e_step(X, lam, 0.2)
        numba.set_num_threads(old)
        many = lda_e_step(X, lam, 0.2)
    finally:
        numba.set_num_threads(old)
    for a, b in zip(one, many):
        np.testing.assert_array_equal(a, b)


def test_elbo_equals_brute_force_every_term(small_corpus):
    X, _ = small_corpus
    m = LatentDirichletAllocation(3, max_iter=8, tol=0, random_state=0, init="random").fit(X)
    gamma, _, _, _ = lda_e_step(X, m.components_, m.doc_topic_prior_)
    local = 0.0
    for d in range(X.shape[0]):
        row = X.getrow(d)
        if row.nnz:
            local += lda_doc_elbo_terms_oracle(row.data, row.indices, gamma[d], m.components_,
                                               m.doc_topic_prior_)["total"]
    # global: E_q[log p(beta | eta)] - E_q[log q(beta)], written out
    lam, eta, V = m.components_, m.topic_word_prior_, X.shape[1]
    elog = psi(lam) - psi(lam.sum(axis=1, keepdims=True))
    e_log_p = np.sum(gammaln(V * eta) - V * gammaln(eta) + ((eta - 1) * elog).sum(axis=1))
    e_log_q = np.sum(gammaln(lam.sum(axis=1)) - gammaln(lam).sum(axis=1)
                     + ((lam - 1) * elog).sum(axis=1))
    expected = (local + e_log_p - e_log_q) / X.shape[0]
    assert m.elbo(X) == pytest.approx(expected, rel=1e-10)
    assert m.score(X) == m.elbo(X)
    per_doc = m.score_samples(X)
    assert per_doc.shape == (X.shape[0],) and per_doc[5] == 0.0
    assert (per_doc.sum() + e_log_p - e_log_q) / X.shape[0] == pytest.approx(expected, rel=1e-10)
    n_tok = X.sum()
    assert m.perplexity(X) == pytest.approx(np.exp(-expected * X.shape[0] / n_tok), rel=1e-10)
    assert m.perplexity(X, include_prior_kl=False) == pytest.approx(
        np.exp(-per_doc.sum() / n_tok), rel=1e-10)


# ---------------------------------------------------------------------------------------------
# Contract, monotone bound, recovery
# ---------------------------------------------------------------------------------------------

def test_common_contract(small_corpus):
    X, _ = small_corpus
    check_latent_model(LatentDirichletAllocation(3, max_iter=6, tol=0, random_state=0,
                                                 init="random"), X)


def test_lower_bounds_never_decrease_and_m_step(small_corpus):
    X, _ = small_corpus
    m = LatentDirichletAllocation(4, max_iter=60, tol=0, random_state=2, init="random").fit(X)
    d = np.diff(m.lower_bounds_)
    assert np.all(d >= -1e-9 * np.abs(m.lower_bounds_[:-1]))
    assert m.n_iter_ == 60 and not m.converged_
    # M-step: lambda = eta + sstats after a batch step
    data = m._validate_data(X, reset=False)
    stats = m._e_step(data)
    m._m_step(stats)
    np.testing.assert_allclose(m.components_, m.topic_word_prior_ + stats.sstats, rtol=1e-14)
    np.testing.assert_allclose(m.exp_dirichlet_component_,
                               np.exp(dirichlet_expectation(m.components_)), rtol=1e-12)
    # natural-gradient step: (1 - rho) lambda + rho (eta + scale * sstats)
    lam0 = m.components_.copy()
    m._m_step(stats, step_size=0.3, scale=2.0)
    np.testing.assert_allclose(m.components_,
                               0.7 * lam0 + 0.3 * (m.topic_word_prior_ + 2.0 * stats.sstats),
                               rtol=1e-14)


def test_recovers_planted_topics():
    X, truth = make_lda_corpus(2000, n_components=5, vocab_size=500, doc_length=100,
                               random_state=0)
    m = LatentDirichletAllocation(5, topic_word_prior=0.1, max_iter=40, tol=1e-3,
                                  random_state=1, init="random").fit(X)
    topics = m.components_ / m.components_.sum(axis=1, keepdims=True)
    perm, err = match_components(truth["topics"], topics)
    assert err.max() < 0.1, err
    theta = m.transform(X)[:, perm]
    assert np.mean(np.abs(theta - truth["doc_topic"]).sum(axis=1)) < 0.3


# ---------------------------------------------------------------------------------------------
# Parity with scikit-learn on KOS
# ---------------------------------------------------------------------------------------------

@pytest.mark.kernel_sensitive
def test_parity_with_sklearn_on_kos():
    from sklearn.decomposition import LatentDirichletAllocation as SkLDA

    X = load_kos().data
    order = np.random.default_rng(0).permutation(X.shape[0])
    train, held_out = X[order[:300]], X[order[-300:]]
    K, n_iter = 8, 10
    sk = SkLDA(K, learning_method="batch", max_iter=n_iter, random_state=0).fit(train)
    start = np.random.RandomState(0).gamma(100.0, 0.01, (K, X.shape[1]))  # sklearn's init
    ours = LatentDirichletAllocation(K, init={"components": start}, max_iter=n_iter, tol=0,
                                     random_state=0).fit(train)
    assert ours.doc_topic_prior_ == sk.doc_topic_prior_
    assert ours.topic_word_prior_ == sk.topic_word_prior_
    p_sk, p_ours = sk.perplexity(held_out), ours.perplexity(held_out)
    assert abs(p_ours / p_sk - 1) < 0.01, (p_ours, p_sk)
    # the same with the per-document (Hoffman et al.) held-out bound, scikit-learn's topics
    # scored by our evaluator (checked to equal scikit-learn's own below)
    ev = LatentDirichletAllocation(K, max_iter=1, tol=0, init="random").fit(train)
    ev._set_components(sk.components_)
    q_sk, q_ours = ev.perplexity(held_out, include_prior_kl=False), ours.perplexity(
        held_out, include_prior_kl=False)
    assert abs(q_ours / q_sk - 1) < 0.01, (q_ours, q_sk)
    # our bound evaluates scikit-learn's fitted topics exactly as scikit-learn does
    assert ev.perplexity(held_out) == pytest.approx(p_sk, rel=1e-6)


# ---------------------------------------------------------------------------------------------
# Public methods
# ---------------------------------------------------------------------------------------------

def test_transform_top_words_sample(small_corpus):
    X, _ = small_corpus
    m = LatentDirichletAllocation(3, max_iter=5, tol=0, random_state=0, init="random").fit(X)
    theta = m.transform(X)
    assert theta.shape == (X.shape[0], 3)
    np.testing.assert_allclose(theta.sum(axis=1), 1.0, rtol=1e-12)
    np.testing.assert_allclose(theta[5], 1 / 3)               # empty document -> prior mean
    vocab = [f"w{i}" for i in range(X.shape[1])]
    top = m.top_words(vocab, n=4)
    assert len(top) == 3 and all(len(t) == 4 for t in top)
    best = np.argmax(m.components_, axis=1)
    assert [t[0] for t in top] == [vocab[i] for i in best]
    assert m.top_words(n=100)[0][0] == best[0]               # indices, capped at V
    with pytest.raises(ValueError, match="vocabulary"):
        m.top_words(vocab[:-1])
    Xs, th = m.sample(50, random_state=0, doc_length=40)
    assert sp.issparse(Xs) and Xs.shape == (50, X.shape[1]) and th.shape == (50, 3)
    np.testing.assert_allclose(th.sum(axis=1), 1.0)
    assert abs(Xs.sum(axis=1).mean() - 40) < 5
    Xs2, _ = m.sample(50, random_state=0, doc_length=40)
    assert (Xs != Xs2).nnz == 0


def test_unfitted_and_bad_params(small_corpus):
    X, _ = small_corpus
    m = LatentDirichletAllocation(3, init="random")
    for call in (lambda: m.transform(X), lambda: m.perplexity(X), lambda: m.top_words(),
                 lambda: m.sample(2)):
        with pytest.raises(NotFittedError):
            call()
    bad = [dict(n_components=0), dict(doc_topic_prior=-1.0), dict(topic_word_prior=0.0),
           dict(max_doc_update_iter=0), dict(mean_change_tol=-1.0), dict(init="kmeans++"),
           dict(init={"components": np.ones((3, X.shape[1])), "weights": 1}),
           dict(init={"components": np.ones((2, X.shape[1]))}),
           dict(init={"components": -np.ones((3, X.shape[1]))})]
    for kw in bad:
        params = dict(n_components=3, max_iter=2)
        params.update(kw)
        with pytest.raises(ValueError) as exc:
            LatentDirichletAllocation(**params).fit(X)
        name = [k for k in kw if k != "n_components"] or ["n_components"]
        assert name[0].split("_")[0] in str(exc.value) or "init" in str(exc.value), exc.value
    with pytest.raises(ValueError, match="learning_method"), \
            pytest.warns(DeprecationWarning, match="learning_method"):  # until 0.3
        LatentDirichletAllocation(3, learning_method="sgd").fit(X)
    with pytest.raises(TypeError, match="init"):
        LatentDirichletAllocation(3, init=3).fit(X)


# ---------------------------------------------------------------------------------------------
# Bad input
# ---------------------------------------------------------------------------------------------

def test_bad_input(small_corpus):
    X, _ = small_corpus
    dense = X.toarray()
    m = LatentDirichletAllocation(3, max_iter=2, tol=0, random_state=0, init="random")
    for value, match in ((np.nan, "NaN"), (np.inf, "infinity"), (-1.0, "non-negative")):
        Xb = dense.copy()
        Xb[2, 3] = value
        with pytest.raises(ValueError, match=match):
            m.fit(Xb)
        with pytest.raises(ValueError, match=match):
            m.fit(sp.csr_matrix(Xb))
    with pytest.raises(ValueError, match="2D"):
        m.fit(dense[0])
    with pytest.raises(ValueError, match="2D"):
        m.fit(dense[None])
    with pytest.raises(ValueError, match="sample"):
        m.fit(dense[:0])
    m.fit(X)
    with pytest.raises(ValueError, match="features"):
        m.transform(dense[:, :-1])
    with pytest.raises(ValueError, match="tokens"):
        m.perplexity(np.zeros((2, X.shape[1])))


def test_dense_float32_noncontiguous_equal_csr_and_inputs_unchanged(small_corpus):
    X, _ = small_corpus
    dense = X.toarray()
    f32 = dense.astype(np.float32)
    fortran = np.asfortranarray(dense)
    strided = np.repeat(dense, 2, axis=1)[:, ::2]
    assert not strided.flags.c_contiguous
    int_counts = dense.astype(np.int64)
    snapshots = [(a, a.copy()) for a in (dense, f32, fortran, strided, int_counts)]
    X_before = X.copy()
    ref = LatentDirichletAllocation(3, max_iter=4, tol=0, random_state=0, init="random").fit(X)
    for arr in (dense, f32, fortran, strided, int_counts, X.tocoo(), X.tocsc()):
        m = LatentDirichletAllocation(3, max_iter=4, tol=0, random_state=0, init="random").fit(arr)
        np.testing.assert_array_equal(m.components_, ref.components_)
        np.testing.assert_array_equal(m.lower_bounds_, ref.lower_bounds_)
        np.testing.assert_array_equal(m.transform(arr), ref.transform(X))
    for a, before in snapshots:
        np.testing.assert_array_equal(a, before)
    for attr in ("data", "indices", "indptr"):
        np.testing.assert_array_equal(getattr(X, attr), getattr(X_before, attr))
    # init dict is copied, not used in place
    start = np.full((3, X.shape[1]), 1.5)
    m = LatentDirichletAllocation(3, init={"components": start}, max_iter=3).fit(X)
    np.testing.assert_array_equal(start, 1.5)


def test_empty_documents_contribute_nothing(small_corpus):
    X, _ = small_corpus
    m = LatentDirichletAllocation(3, max_iter=5, tol=0, random_state=0, init="random").fit(X)
    extra = sp.vstack([X, sp.csr_matrix((4, X.shape[1]))]).tocsr()
    n, n2 = X.shape[0], extra.shape[0]
    assert m.elbo(extra) * n2 == pytest.approx(m.elbo(X) * n, rel=1e-12)
    assert m.perplexity(extra) == pytest.approx(m.perplexity(X), rel=1e-12)
    # a corpus of only empty documents fits: the posterior of the topics is the prior, with a
    # warning naming the cause (it was silent)
    with pytest.warns(UserWarning, match="X has no tokens: all 4 documents are empty"):
        z = LatentDirichletAllocation(2, max_iter=3, tol=0, random_state=0,
                                      init="random").fit(np.zeros((4, 6)))
    np.testing.assert_allclose(z.components_, z.topic_word_prior_)
    assert z.lower_bound_ == pytest.approx(0.0, abs=1e-12)
    # the same from a chunked source (the summary of all its chunks has no token)
    from latentkit.inference import ArraySource

    with pytest.warns(UserWarning, match="X has no tokens: all 4 documents"):
        LatentDirichletAllocation(2, max_iter=2, tol=0, init="random").fit(
            ArraySource(np.zeros((4, 6)), 2))


def test_default_tol_scales_with_document_length():
    # tol=None resolves to 1e-3 nats per token of the mean training document, so short
    # documents are not stopped early (a fixed 0.25 nats/document stopped 60-token documents
    # after 7 iterations, 15% worse in held-out perplexity than the converged fit)
    from latentkit.datasets import make_lda_corpus
    X, _ = make_lda_corpus(1200, 4, 120, doc_length=60, random_state=0)
    train, test = X[:1000], X[1000:]
    m = LatentDirichletAllocation(4, random_state=0, init="random").fit(train)
    assert m.tol_ == pytest.approx(1e-3 * train.sum() / 1000)
    ref = LatentDirichletAllocation(4, random_state=0, tol=1e-4, max_iter=500,
                                    init="random").fit(train)
    p, p_ref = (mm.perplexity(test, include_prior_kl=False) for mm in (m, ref))
    assert p <= 1.02 * p_ref
    assert LatentDirichletAllocation(4, tol=0.5, random_state=0,
                                     init="random").fit(train).tol_ == 0.5


def test_top_words_are_plain_strings():
    from latentkit.datasets import make_lda_corpus
    X, _ = make_lda_corpus(50, 2, 10, doc_length=20, random_state=0)
    m = LatentDirichletAllocation(2, random_state=0, max_iter=3, init="random").fit(X)
    words = m.top_words(np.array([f"w{i}" for i in range(10)]), 3)
    assert all(type(w) is str for row in words for w in row)


@pytest.mark.parametrize("kw,msg", [
    ({"holdout": 0.2}, "holdout is used by learning_method='online' only"),
    ({"holdout": 1.5, "learning_method": "online"}, "holdout must be a fraction in"),
    ({"holdout": "abc", "learning_method": "online"}, "holdout must be a fraction in"),
])
def test_holdout_misuse_is_named(kw, msg):
    # the deprecated keywords (until 0.3) keep their checks
    from latentkit.datasets import make_lda_corpus
    X, _ = make_lda_corpus(60, 2, 10, doc_length=20, random_state=0)
    with pytest.raises(ValueError, match=msg), pytest.warns(DeprecationWarning):
        LatentDirichletAllocation(2, **kw).fit(X)


def test_monotone_guard_lives_in_the_e_step(small_corpus):
    """The fit's warm state reaches the E-step: when the cold start falls below the previous
    ELBO, each document keeps the better of its cold-start and previous gamma (local ELBOs
    compared with the kernel run from each gamma), and the warm state is updated; with no
    warm state the E-step is the plain cold start."""
    from latentkit.topic._lda_estep import _run_local

    X = small_corpus[0]
    m = LatentDirichletAllocation(3, max_iter=2, tol=0.0, random_state=0, init="random").fit(X)
    cold = m._e_step(X)
    tables = (m._exp_beta_t, m._beta_shift, m.doc_topic_prior_)
    # previous gammas: better than the cold start on even documents (converged tighter),
    # worse on odd ones (random)
    gamma_prev = _run_local(X, *tables, 1000, 1e-10)[0]
    gamma_prev[1::2] = np.random.default_rng(1).gamma(2.0, 1.0, size=gamma_prev[1::2].shape)
    doc_cold = _run_local(X, *tables, m.max_doc_update_iter, m.mean_change_tol)[3]
    doc_prev = _run_local(X, *tables, 0, 0.0, gamma0=gamma_prev)[3]  # evaluated, not updated
    assert np.any(doc_prev > doc_cold) and np.any(doc_prev < doc_cold)
    warm = m._warm_state()
    warm.state, warm.elbo = gamma_prev, np.inf  # forces the guard
    guarded = m._warm_e_step(X, warm)
    np.testing.assert_allclose(guarded.data_term, np.maximum(doc_cold, doc_prev).sum(),
                               rtol=1e-12)
    assert guarded.data_term >= cold.data_term
    assert warm.elbo == pytest.approx(m._elbo_from_stats(guarded), rel=1e-14)
    warm = m._warm_state()  # first iteration: the plain cold start
    first = m._warm_e_step(X, warm)
    np.testing.assert_array_equal(first.sstats, cold.sstats)
    assert not hasattr(m, "_fit_prev")
