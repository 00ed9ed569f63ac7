"""DirichletMultinomialMixture (issue 43): the one-topic bound is the exact Dirichlet-multinomial
evidence, the spectral start is exact on population moments and its streamed moments are the
distinct-position sums, planted topics are recovered, the bound never decreases, the online
fit, save/load, and bad input."""

import itertools
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.special import gammaln

import latentkit as lk
from latentkit.exceptions import InputError, SpectralInitWarning
from latentkit.inference import StochasticVI
from latentkit.spectral import ImplicitMomentTensor
from latentkit.spectral._moments import LDAMoments
from latentkit.testing import match_components
from latentkit.topic import DirichletMultinomialMixture
from latentkit.topic._dmm_start import single_topic_decomposition


def planted(seed, D=400, V=40, k=4, L=8):
    """A DMM corpus: k topics concentrated on disjoint word blocks, one topic per document."""
    rng = np.random.default_rng(seed)
    topics = np.full((k, V), 0.002)
    for i in range(k):
        topics[i, i * V // k:(i + 1) * V // k] += rng.dirichlet(np.ones(V // k))
    topics /= topics.sum(axis=1, keepdims=True)
    weights = rng.dirichlet(np.full(k, 5.0))
    z = rng.choice(k, size=D, p=weights)
    X = np.vstack([rng.multinomial(L, topics[j]) for j in z]).astype(np.float64)
    return sp.csr_matrix(X), topics, weights, z


def _log_beta(a):
    return float(np.sum(gammaln(a)) - gammaln(np.sum(a)))


@pytest.mark.parametrize("prior_type", ["dirichlet_distribution", "dirichlet_process"])
def test_one_topic_bound_is_the_dirichlet_multinomial_evidence(prior_type):
    X, _, _, _ = planted(0, D=60)
    X = X.toarray()
    X[5] = 0.0  # an empty document
    eta = 0.3
    m = DirichletMultinomialMixture(1, topic_word_prior=eta, weight_concentration_prior_type=
                                    prior_type, max_iter=3, random_state=0).fit(X)
    V = X.shape[1]
    # log p(X) = log B(eta + sum_d x_d) - log B(eta) (token sequences, no multinomial
    # coefficients); 1e-10 relative: a sum of ~100 log-gamma terms in float64
    exact = _log_beta(eta + X.sum(axis=0)) - _log_beta(np.full(V, eta))
    np.testing.assert_allclose(m.elbo(X) * X.shape[0], exact, rtol=1e-10)
    np.testing.assert_allclose(m.lower_bound_ * X.shape[0], exact, rtol=1e-10)


def test_bound_is_log_evidence_by_enumeration_on_a_tiny_corpus():
    """With the topics known exactly (eta -> its posterior), the local term is the log of the
    mixture likelihood: compare score_samples with the enumerated sum over topics."""
    X, _, _, _ = planted(1, D=30, V=12, k=2, L=5)
    m = DirichletMultinomialMixture(2, random_state=0, max_iter=20).fit(X)
    from scipy.special import digamma, logsumexp
    lam, a = m.components_, m.weight_concentration_
    elog_phi = digamma(lam) - digamma(lam.sum(axis=1, keepdims=True))
    elog_pi = digamma(a) - digamma(a.sum())
    Xd = X.toarray()
    brute = [logsumexp([elog_pi[k] + sum(Xd[d, w] * elog_phi[k, w] for w in range(12))
                        for k in range(2)]) for d in range(Xd.shape[0])]
    np.testing.assert_allclose(m.score_samples(X), brute, rtol=1e-12)


def _population(seed, V=9, K=3):
    rng = np.random.default_rng(seed)
    mu = rng.dirichlet(np.full(V, 0.5), size=K)
    w = rng.dirichlet(np.full(K, 2.0))
    return w, mu


def test_spectral_start_exact_on_population_moments():
    w, mu = _population(3)
    M2 = (mu.T * w) @ mu
    M3 = np.einsum("k,ka,kb,kc->abc", w, mu, mu, mu)
    tensor = lambda W: np.einsum("abc,ai,bj,ck->ijk", M3, W, W, W)  # noqa: E731
    w_hat, mu_hat = single_topic_decomposition(M2, tensor, 3, np.random.default_rng(0))
    perm, err = match_components(mu, mu_hat)
    # 1e-12: eigh of a 9 x 9 matrix and a converged power method in float64
    np.testing.assert_allclose(mu_hat[perm], mu, atol=1e-12)
    np.testing.assert_allclose(w_hat[perm], w, atol=1e-12)


def test_streamed_moments_are_the_distinct_position_sums():
    """The moments the start streams (alpha_0 = 0: no Dirichlet correction) against the brute
    force average over ordered distinct positions of each document's tokens."""
    rng = np.random.default_rng(4)
    X = sp.csr_matrix(rng.poisson(0.7, size=(12, 5)).astype(float))
    V = X.shape[1]
    E2, E3, n = np.zeros((V, V)), np.zeros((V, V, V)), 0
    for row in X.toarray():
        tokens = np.repeat(np.arange(V), row.astype(int))
        if tokens.size < 3:
            continue
        n += 1
        pairs = list(itertools.permutations(range(tokens.size), 2))
        for i, j in pairs:
            E2[tokens[i], tokens[j]] += 1.0 / len(pairs)
        triples = list(itertools.permutations(range(tokens.size), 3))
        for i, j, k in triples:
            E3[tokens[i], tokens[j], tokens[k]] += 1.0 / len(triples)
    E2, E3 = E2 / n, E3 / n
    mom = LDAMoments(X, 1.0)
    np.testing.assert_allclose(mom.e2_matmat(np.eye(V)), E2, atol=1e-12)
    W = rng.normal(size=(V, 3))
    dense = ImplicitMomentTensor.from_documents(mom.X, W).to_dense()
    np.testing.assert_allclose(dense, np.einsum("abc,ai,bj,ck->ijk", E3, W, W, W), atol=1e-12)


@pytest.mark.parametrize("init", ["random", "seeded", "spectral", "collapsed"])
@pytest.mark.parametrize("seed", [0, 1])
def test_planted_topics_recovered(init, seed):
    X, topics, weights, z = planted(seed, D=600)
    m = DirichletMultinomialMixture(4, init=init, random_state=seed, max_iter=200).fit(X)
    est = m.components_ / m.components_.sum(axis=1, keepdims=True)
    perm, err = match_components(topics, est)
    # 600 documents x 8 tokens: ~1200 tokens per topic over 10 words; the L1 error of the
    # empirical word distribution is about 0.1 (measured 0.03-0.09)
    assert err.max() < 0.2, err
    assert np.abs(m.topic_weights_[perm] - weights).max() < 0.05
    labels = m.predict(X)
    assert np.mean(perm[z] == labels) > 0.97


def test_spectral_start_close_to_the_planted_topics():
    X, topics, weights, _ = planted(2, D=3000)
    m = DirichletMultinomialMixture(4, init="spectral", random_state=0, max_iter=1)
    m._validate_params()
    data = m._validate_data(X, reset=True)
    m._init_params(data, np.random.default_rng(0))
    est = m.components_ / m.components_.sum(axis=1, keepdims=True)
    perm, err = match_components(topics, est)
    assert err.max() < 0.25, err  # a start, before any VB step


def test_dirichlet_process_prior_bound_is_monotone_and_weights_are_sticks():
    X, topics, _, _ = planted(5, D=600)
    m = DirichletMultinomialMixture(12, weight_concentration_prior_type="dirichlet_process",
                                    random_state=0, max_iter=300).fit(X)
    assert np.all(np.diff(m.lower_bounds_) >= -1e-9 * np.abs(m.lower_bounds_[:-1]))
    g = m.weight_concentration_
    ev = g[0, :-1] / g.sum(axis=0)[:-1]
    expected = np.append(ev, 1.0) * np.concatenate(([1.0], np.cumprod(1 - ev)))
    np.testing.assert_allclose(m.topic_weights_, expected, rtol=1e-12)
    np.testing.assert_allclose(m.topic_weights_.sum(), 1.0, rtol=1e-12)
    # the weights' counts are the expected documents per topic: a + N_k, b + N_{>k}
    Nk = m.transform(X).sum(axis=0)
    m.partial_fit(X, step_size=1.0)
    np.testing.assert_allclose(m.weight_concentration_[0, :-1], 1.0 + Nk[:-1], rtol=1e-10)


def test_spectral_start_falls_back_on_short_documents():
    X = sp.csr_matrix(np.eye(6) * 2)  # no document has 3 tokens
    with pytest.warns(SpectralInitWarning):
        m = DirichletMultinomialMixture(2, init="spectral", random_state=0).fit(X)
    assert np.isfinite(m.lower_bound_)


def test_online_fit_and_perplexity():
    X, topics, _, _ = planted(6, D=800)
    m = StochasticVI(DirichletMultinomialMixture(4, random_state=0), batch_size=100,
                     n_epochs=5, random_state=0).fit(X).model_
    est = m.components_ / m.components_.sum(axis=1, keepdims=True)
    _, err = match_components(topics, est)
    assert err.max() < 0.3, err
    ppl = m.perplexity(X[:100], include_prior_kl=False)
    # per-document bound: exp(-sum score_samples / tokens)
    np.testing.assert_allclose(ppl, np.exp(-m.score_samples(X[:100]).sum() / X[:100].sum()),
                               rtol=1e-12)


def test_save_load_round_trip(tmp_path):
    X, _, _, _ = planted(7, D=100)
    for prior_type in ("dirichlet_distribution", "dirichlet_process"):
        m = DirichletMultinomialMixture(3, weight_concentration_prior_type=prior_type,
                                        random_state=0, max_iter=5).fit(X)
        lk.save(m, tmp_path / "m.npz")
        m2 = lk.load(tmp_path / "m.npz")
        assert m2.elbo(X) == m.elbo(X)
        np.testing.assert_array_equal(m2.transform(X), m.transform(X))


@pytest.mark.parametrize("kw, match", [
    ({"weight_concentration_prior_type": "dirichlet"}, "weight_concentration_prior_type"),
    ({"weight_concentration_prior": 0.0}, "weight_concentration_prior"),
    ({"topic_word_prior": -1.0}, "topic_word_prior"),
    ({"init": "kmeans"}, "init"),
    ({"init": {"components": np.ones((2, 3))}}, "init"),
    ({"n_components": 0}, "n_components"),
])
def test_bad_parameters(kw, match):
    X = np.ones((4, 5))
    with pytest.raises(InputError, match=match):
        DirichletMultinomialMixture(**{"n_components": 2, **kw}).fit(X)


def test_bad_data():
    with pytest.raises(InputError, match="X"):
        DirichletMultinomialMixture(2).fit(-np.ones((4, 5)))
    with pytest.raises(InputError, match="X"):
        DirichletMultinomialMixture(2).fit(np.full((4, 5), np.nan))
    m = DirichletMultinomialMixture(2, random_state=0).fit(np.ones((4, 5)))
    with pytest.raises(InputError, match="X"):
        m.transform(np.ones((2, 6)))
    X = np.ones((4, 5))
    before = X.copy()
    m.fit(X)
    m.transform(X)
    np.testing.assert_array_equal(X, before)


def test_seeded_partition_spreads_documents_unlike_every_seed():
    """Documents sharing no word with any seed go to uniformly drawn topics (not all to the
    first seed, which made one catch-all topic on short texts)."""
    from latentkit.topic._dmm import seeded_partition
    X = sp.csr_matrix(np.eye(400))  # every document its own word: cosine 0 to every seed
    labels = seeded_partition(X, 4, np.random.default_rng(0))
    counts = np.bincount(labels, minlength=4)
    assert counts.min() > 60, counts  # 4 seeds + 396 random: about 100 each
