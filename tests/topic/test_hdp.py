"""HierarchicalDirichletProcess (issue 34): kernels against the naive oracle, the closed-form
bound against its terms, the exact evidence of the one-topic model, the monotone bound,
planted topics recovered across seeds, the online fit, and bad input."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.special import psi

import latentkit as lk
from latentkit.inference import StochasticVI
from latentkit.testing import match_components
from latentkit.testing._oracles_hdp import (hdp_e_step_oracle, hdp_log_evidence_single_topic,
                                            hdp_suff_stats_oracle)
from latentkit.topic._hdp_estep import hdp_local, hdp_stats


def _counts(n=40, V=12, seed=0):
    rng = np.random.default_rng(seed)
    topics = rng.dirichlet(np.full(V, 0.3), size=3)
    theta = rng.dirichlet(np.full(3, 0.5), size=n)
    X = np.vstack([rng.multinomial(30, t @ topics) for t in theta]).astype(np.float64)
    X[3] = 0.0  # an empty document
    return sp.csr_matrix(X)


def planted(seed, D=200, V=40, k=4, L=50):
    """Documents of an HDP-like corpus with k topics on disjoint blocks of words."""
    rng = np.random.default_rng(seed)
    topics = np.full((k, V), 0.002)
    for i in range(k):
        topics[i, i * V // k:(i + 1) * V // k] += rng.dirichlet(np.ones(V // k))
    topics /= topics.sum(axis=1, keepdims=True)
    weights = rng.dirichlet(np.full(k, 3.0))
    theta = rng.dirichlet(0.5 * k * weights, size=D)
    X = np.vstack([rng.multinomial(L, t @ topics) for t in theta]).astype(np.float64)
    return sp.csr_matrix(X), topics


def _fit(model, X):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", lk.ConvergenceWarning)
        return model.fit(X)


def _tables(T, V, seed=1):
    rng = np.random.default_rng(seed)
    lam = rng.gamma(2.0, 1.0, size=(T, V))
    elog_phi = psi(lam) - psi(lam.sum(axis=1, keepdims=True))
    return elog_phi, np.log(rng.dirichlet(np.ones(T)))


@pytest.mark.parametrize("T,K", [(6, 3), (4, 1), (1, 3), (3, 5)])
def test_kernel_matches_the_naive_oracle_and_its_term_by_term_bound(T, K):
    """The numba E-step equals the NumPy oracle (same start, updates, stopping rule) to
    1e-10, and its closed-form local bound (zeta summed out by logsumexp) equals the oracle's
    bound written term by term; the statistics equal a loop over entries."""
    X = _counts(n=16)
    elog_phi, elog_beta = _tables(T, X.shape[1])
    varphi, sticks, zeta, elbo, _ = hdp_local(X, np.ascontiguousarray(elog_phi.T), elog_beta,
                                              0.7, K, 20, 1e-6)
    o_varphi, o_sticks, o_zeta, o_elbo = hdp_e_step_oracle(X, elog_phi, elog_beta, 0.7, K, 20,
                                                           1e-6)
    for got, want in ((varphi, o_varphi), (sticks, o_sticks), (zeta, o_zeta), (elbo, o_elbo)):
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)
    stats = hdp_stats(X, varphi, zeta, elbo, X.shape[1], T)
    np.testing.assert_allclose(stats.sstats, hdp_suff_stats_oracle(X, zeta, varphi), rtol=1e-10)
    np.testing.assert_allclose(stats.topic_counts, varphi.sum(axis=(0, 1)), rtol=1e-12)
    # a warm start from the result, evaluated only (max_iter=0), gives the same bound
    again = hdp_local(X, np.ascontiguousarray(elog_phi.T), elog_beta, 0.7, K, 0, 0.0,
                      state=(varphi, sticks))
    np.testing.assert_allclose(again[3], elbo, rtol=1e-10, atol=1e-10)
    o_again = hdp_e_step_oracle(X, elog_phi, elog_beta, 0.7, K, 3, 0.0, varphi, sticks)
    w_again = hdp_local(X, np.ascontiguousarray(elog_phi.T), elog_beta, 0.7, K, 3, 0.0,
                        state=(varphi, sticks))
    np.testing.assert_allclose(w_again[3], o_again[3], rtol=1e-10, atol=1e-10)
    assert np.all(w_again[3] >= elbo - 1e-9 * np.abs(elbo) - 1e-12)  # coordinate ascent from there


def test_one_topic_one_atom_bound_is_the_exact_evidence():
    """T = K = 1: one multinomial with a Dirichlet prior; q(phi) = Dir(eta + counts) is the
    exact posterior and the ELBO the exact log evidence (Dirichlet-multinomial)."""
    X = _counts()
    m = _fit(lk.HierarchicalDirichletProcess(1, n_doc_components=1, topic_word_prior=0.3,
                                             max_iter=3, tol=0), X)
    exact = hdp_log_evidence_single_topic(X, 0.3) / X.shape[0]
    # (the first entry is at the random start; every later one at the exact posterior)
    np.testing.assert_allclose(m.lower_bounds_[1:], exact, rtol=1e-12)
    assert m.lower_bounds_[0] < exact
    # more document atoms on one topic: a bound, below the evidence
    m3 = _fit(lk.HierarchicalDirichletProcess(1, n_doc_components=3, topic_word_prior=0.3,
                                              max_iter=3, tol=0), X)
    assert m3.lower_bound_ < exact


def test_elbo_never_decreases_and_the_guard_keeps_it_so(monkeypatch):
    """The cold-start E-step alone lowers the bound in some iterations (the guard acts);
    with the guard the bound never decreases."""
    import latentkit._utils.doc_threads as doc_threads
    import latentkit.topic._hdp_estep as estep

    acted = []
    keep_better = estep._keep_better
    monkeypatch.setattr(estep, "_keep_better", lambda *a: acted.append(1) or keep_better(*a))
    X, _ = planted(0, D=120)
    m = _fit(lk.HierarchicalDirichletProcess(10, n_doc_components=5, max_iter=40, tol=0,
                                             warmup_doc_update_iter=None, random_state=0), X)
    d = np.diff(m.lower_bounds_)
    assert np.all(d >= -1e-9 * np.abs(m.lower_bounds_[:-1])), d.min()
    assert m.lower_bounds_[-1] > m.lower_bounds_[0]
    assert len(acted) >= 3


def test_guarded_fit_is_the_same_in_memory_chunked_and_on_dask(monkeypatch):
    """The guard's per-document state lives in memory, in chunk files, or on the workers;
    the three fits agree while the guard acts (with the warm-up caps 2, 4, 8, ... sweeps)."""
    dask = pytest.importorskip("dask")
    db = pytest.importorskip("dask.bag")
    import latentkit._utils.doc_threads as doc_threads
    import latentkit.topic._hdp_estep as estep

    acted = []
    keep_better = estep._keep_better
    monkeypatch.setattr(estep, "_keep_better", lambda *a: acted.append(1) or keep_better(*a))
    X = _counts(90)
    make = lambda: lk.HierarchicalDirichletProcess(6, n_doc_components=3, max_iter=25,  # noqa
                                                   tol=0, random_state=0,
                                                   warmup_doc_update_iter=2)
    memory = _fit(make(), X)
    assert len(acted) >= 3
    assert np.all(np.diff(memory.lower_bounds_) >= -1e-9 * np.abs(memory.lower_bounds_[1:]))
    chunked = _fit(make(), lk.inference.ArraySource(X, 25))
    bag = db.from_sequence([X[i] for i in range(X.shape[0])], npartitions=4)
    with dask.config.set(scheduler="synchronous"):
        on_bag = _fit(make(), bag)
    for other in (chunked, on_bag):
        np.testing.assert_allclose(other.lower_bounds_, memory.lower_bounds_, rtol=1e-10)
        np.testing.assert_allclose(other.components_, memory.components_, rtol=1e-10)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_planted_topics_are_recovered(seed):
    """Four planted topics: four topics above the 1% token threshold, each within 0.4 in L1
    of a planted one (the documents carry ~2,500 tokens per topic)."""
    X, topics = planted(seed)
    m = _fit(lk.HierarchicalDirichletProcess(12, n_doc_components=5, random_state=seed), X)
    assert m.n_effective_components_ == 4, m.topic_weights_
    live = m.effective_mask()
    est = m.components_[live] / m.components_[live].sum(axis=1, keepdims=True)
    _, err = match_components(topics, est)
    assert err.max() < 0.4, err
    np.testing.assert_allclose(m.topic_weights_.sum(), 1.0, rtol=1e-12)
    theta = m.transform(X[:5])
    np.testing.assert_allclose(theta.sum(axis=1), 1.0, rtol=1e-12)


def test_online_fit_recovers_the_planted_topics():
    X, topics = planted(1)
    model = lk.HierarchicalDirichletProcess(12, n_doc_components=5, random_state=0)
    svi = StochasticVI(model, batch_size=50, n_epochs=20, random_state=0).fit(X)
    fitted = svi.model_
    live = fitted.effective_mask()
    est = fitted.components_[live] / fitted.components_[live].sum(axis=1, keepdims=True)
    assert est.shape[0] == 4, fitted.topic_weights_
    assert match_components(topics, est)[1].max() < 0.5


def test_score_samples_plus_global_terms_is_the_elbo():
    X = _counts()
    m = _fit(lk.HierarchicalDirichletProcess(6, n_doc_components=3, random_state=0,
                                             max_iter=5), X)
    total = m.score_samples(X).sum() + m._global_elbo_terms()
    np.testing.assert_allclose(total / X.shape[0], m.elbo(X), rtol=1e-12)
    n_tok = X.sum()
    np.testing.assert_allclose(m.perplexity(X), np.exp(-m.elbo(X) * X.shape[0] / n_tok),
                               rtol=1e-12)
    assert m.perplexity(X, include_prior_kl=False) < m.perplexity(X)


@pytest.mark.parametrize("kw,match", [
    ({"n_doc_components": 0}, "n_doc_components"),
    ({"concentration": -1.0}, "concentration"),
    ({"doc_concentration": 0.0}, "doc_concentration"),
    ({"topic_word_prior": "a"}, "topic_word_prior"),
    ({"init": "spectral"}, "init"),
    ({"init": {"lambda": 1}}, "init"),
    ({"init": {"components": np.ones((2, 12))}}, "components"),
])
def test_bad_hyper_parameters_are_named(kw, match):
    with pytest.raises((ValueError, TypeError), match=match):
        lk.HierarchicalDirichletProcess(4, **kw).fit(_counts())


def test_bad_counts_are_named():
    with pytest.raises(ValueError, match="X"):
        lk.HierarchicalDirichletProcess(4).fit(-np.ones((3, 4)))


@pytest.mark.kernel_sensitive
@pytest.mark.parametrize("threads", [2, 5])
def test_kernels_on_threads_equal_one_range_bit_for_bit(monkeypatch, threads):
    """The E-step over document ranges on threads and the statistics over blocks on threads
    give the numbers of one range in the calling thread, bit for bit (fails when a range or a
    block is dropped, run twice or summed out of order)."""
    import types

    import latentkit._utils.doc_threads as doc_threads
    import latentkit.topic._hdp_estep as estep

    X = _counts(60)
    elog_phi, elog_beta = _tables(5, X.shape[1])
    elog_phi_t = np.ascontiguousarray(elog_phi.T)
    monkeypatch.setattr(estep, "_BLOCK_NNZ", 40)  # several statistics blocks on 60 documents
    runs = []
    for n in (1, threads):
        monkeypatch.setattr(doc_threads, "numba",
                            types.SimpleNamespace(get_num_threads=lambda n=n: n))
        local = hdp_local(X, elog_phi_t, elog_beta, 0.7, 3, 20, 1e-4)
        stats = hdp_stats(X, local[0], local[2], local[3], X.shape[1], 5)
        runs.append((*local, stats.sstats, stats.topic_counts))
    for one, many in zip(*runs):
        assert one.tobytes() == many.tobytes()
