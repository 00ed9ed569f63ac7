"""LDA's top-k truncated E-step (``e_step_topk``; latentkit.topic._lda_sparse and the kernel
latentkit._kernels.topic_sparse), issue 46 item 3.

* the kernel against its NumPy oracle (latentkit.testing._oracles_topic_sparse) at 1e-10,
  symmetric and asymmetric alpha, warm start and evaluation only (max_iter=0);
* with k = K the truncated step is the dense one (1e-10);
* the returned bound equals a brute-force ELBO of the truncated phi (its entropy over the kept
  topics included), and is at most the dense bound's optimum over phi at the same gamma;
* the batch fit's bound never decreases; SVI through StochasticVI equals partial_fit's steps;
* bad values of e_step_topk give InputError naming it.

These fail on main (no e_step_topk, no kernel).
"""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.special import psi

from latentkit.datasets import make_lda_corpus
from latentkit.exceptions import InputError
from latentkit.inference import StochasticVI
from latentkit.testing._oracles_topic_sparse import (lda_sparse_doc_elbo_oracle,
                                                    lda_sparse_e_step_oracle)
from latentkit.topic import LatentDirichletAllocation
from latentkit.topic._lda_estep import _beta_tables, _run_e_step
from latentkit.topic._lda_sparse import resolve_e_step_topk, run_sparse_e_step, \
    sparse_local_kernel

#: Tolerance of kernel against oracle: both compute the same arithmetic in another order
#: (the oracle in log space with SciPy's digamma), so agreement is to rounding, ~1e-13.
TOL = 1e-10


@pytest.fixture(scope="module")
def problem():
    rng = np.random.default_rng(0)
    K, V, D = 12, 40, 25
    counts = rng.poisson(0.6, size=(D, V)).astype(float)
    counts[3] = 0  # an empty document
    X = sp.csr_matrix(counts)
    lam = rng.gamma(0.5, 2.0, size=(K, V)) + 0.01
    return X, lam


@pytest.mark.parametrize("k", [1, 3, 5])
@pytest.mark.parametrize("asym", [False, True], ids=["symmetric", "asymmetric"])
def test_kernel_matches_the_numpy_oracle(problem, k, asym):
    X, lam = problem
    K = lam.shape[0]
    alpha = np.linspace(0.05, 0.3, K) if asym else 0.1
    bt, sh = _beta_tables(lam)
    g, ss, de, it = run_sparse_e_step(X, bt, sh, alpha, 100, 1e-6, k)
    go, sso, deo, ito = lda_sparse_e_step_oracle(X, lam, alpha, k, 100, 1e-6)
    np.testing.assert_array_equal(it, ito)
    np.testing.assert_allclose(g, go, rtol=TOL, atol=TOL)
    np.testing.assert_allclose(ss, sso, rtol=TOL, atol=TOL)
    np.testing.assert_allclose(de, deo, rtol=TOL, atol=TOL)
    assert de[3] == 0.0 and np.all(g[3] == alpha)


def test_warm_start_and_evaluation_match_the_oracle(problem):
    X, lam = problem
    bt, sh = _beta_tables(lam)
    g0 = np.random.default_rng(1).gamma(2.0, 1.0, size=(X.shape[0], lam.shape[0])) + 0.1
    for max_iter in (0, 4):
        g, ss, de, it = run_sparse_e_step(X, bt, sh, 0.1, max_iter, 1e-6, 4, gamma0=g0)
        go, sso, deo, ito = lda_sparse_e_step_oracle(X, lam, 0.1, 4, max_iter, 1e-6, gamma0=g0)
        np.testing.assert_allclose(g, go, rtol=TOL, atol=TOL)
        np.testing.assert_allclose(ss, sso, rtol=TOL, atol=TOL)
        np.testing.assert_allclose(de, deo, rtol=TOL, atol=TOL)
    np.testing.assert_array_equal(g0, g0)  # (the input is not modified: copied by the kernel)


def test_k_equal_to_K_is_the_dense_step(problem):
    X, lam = problem
    K = lam.shape[0]
    bt, sh = _beta_tables(lam)
    X = X.tocsr()
    from latentkit.topic._lda_estep import _csr_arrays
    g, et, (ratio, support), de, it = sparse_local_kernel(*_csr_arrays(X), bt, sh, 0.1, 100,
                                                           1e-6, K)
    gd, ssd, ded, itd = _run_e_step(X, bt, sh, 0.1, 100, 1e-6)
    from latentkit.topic._lda_sparse import _suff_stats
    np.testing.assert_array_equal(it, itd)
    np.testing.assert_allclose(g, gd, rtol=TOL, atol=TOL)
    np.testing.assert_allclose(de, ded, rtol=TOL, atol=TOL)
    np.testing.assert_allclose(_suff_stats(X, (ratio, support), et, bt), ssd, rtol=TOL,
                               atol=TOL)
    assert np.all(support == np.arange(K))


def test_bound_is_the_brute_force_elbo_of_the_truncated_phi(problem):
    """The kernel's closed form against phi built from the returned supports and gamma, its
    five terms evaluated one by one; and below the dense phi's bound at the same gamma (the
    dense phi is optimal over all phi)."""
    X, lam = problem
    K = lam.shape[0]
    k = 3
    bt, sh = _beta_tables(lam)
    from latentkit.topic._lda_estep import _csr_arrays
    indptr, indices, data = _csr_arrays(X)
    g, et, (ratio, support), de, it = sparse_local_kernel(indptr, indices, data, bt, sh, 0.1,
                                                           100, 1e-6, k)
    elog_beta = psi(lam) - psi(lam.sum(axis=1, keepdims=True))
    alpha = np.full(K, 0.1)
    _, _, de_dense, _ = _run_e_step(X, bt, sh, 0.1, 0, 0.0, gamma0=g)  # optimal phi at g
    for d in range(X.shape[0]):
        s, e = indptr[d], indptr[d + 1]
        if e == s:
            continue
        ids = indices[s:e]
        eb = elog_beta[:, ids]
        logits = (psi(g[d]) - psi(g[d].sum()))[:, None] + eb
        phi = np.zeros((K, e - s))
        for j in range(e - s):
            keep = support[s + j]
            assert np.unique(keep).size == k
            z = np.exp(logits[keep, j] - logits[keep, j].max())
            phi[keep, j] = z / z.sum()
        brute = lda_sparse_doc_elbo_oracle(data[s:e], phi, g[d], eb, alpha)
        assert de[d] == pytest.approx(brute, rel=1e-12, abs=1e-9)
        assert de[d] <= de_dense[d] + 1e-9


def test_batch_bound_never_decreases_and_sparse_fit_is_close_to_dense():
    X, _ = make_lda_corpus(200, 10, 150, doc_length=60, random_state=2)
    lam0 = np.random.default_rng(0).gamma(100.0, 0.01, size=(10, X.shape[1]))
    kw = dict(init={"components": lam0}, max_iter=30, tol=0, random_state=0)
    sparse = LatentDirichletAllocation(10, e_step_topk=3, **kw).fit(X)
    dense = LatentDirichletAllocation(10, **kw).fit(X)
    b = np.asarray(sparse.lower_bounds_)
    assert np.all(np.diff(b) >= -1e-9 * np.abs(b[1:]))  # the guard: monotone
    # the truncated family is smaller: per token at most a little worse than the dense fit
    # (planted 10 topics of ~60-token documents, 3 kept per token: measured 0.2%)
    n_tokens = X.sum()
    per_token = (sparse.elbo(X) - dense.elbo(X)) * X.shape[0] / n_tokens
    assert per_token > -0.02
    # transform / score_samples use the truncated step as well
    assert np.allclose(sparse.transform(X[:5]).sum(axis=1), 1.0)
    assert sparse.score_samples(X[:5]).shape == (5,)


def test_svi_equals_partial_fit_with_the_truncated_step():
    X, _ = make_lda_corpus(120, 6, 100, doc_length=30, random_state=4)
    X = sp.csr_matrix(X)
    lam0 = np.random.default_rng(0).gamma(100.0, 0.01, size=(6, X.shape[1]))
    svi = StochasticVI(LatentDirichletAllocation(6, init={"components": lam0}, e_step_topk=2),
                       batch_size=40, learning_offset=1.0, learning_decay=0.6, n_epochs=2,
                       shuffle=False, random_state=0).fit(X)
    m = LatentDirichletAllocation(6, init={"components": lam0}, e_step_topk=2)
    t = 0
    for _ in range(2):
        for a in range(0, X.shape[0], 40):
            t += 1
            m.partial_fit(X[a:a + 40], step_size=min(1.0, (t + 1.0) ** -0.6),
                          total_samples=X.shape[0])
    np.testing.assert_allclose(svi.components_, m.components_, rtol=1e-10)
    dense = LatentDirichletAllocation(6, init={"components": lam0}).partial_fit(X[:40])
    assert not np.allclose(dense.components_, m.components_)  # the hook is really taken


def test_chunked_fit_equals_the_in_memory_fit():
    """The guard's per-part path (chunks) with the truncated step: the same fit as in memory
    (to the rounding of the sums over chunks)."""
    from latentkit.sources import ChunkSource

    X, _ = make_lda_corpus(90, 5, 80, doc_length=30, random_state=3)
    X = sp.csr_matrix(X)

    class Chunks(ChunkSource):
        n_samples = X.shape[0]

        def iter_chunks(self):
            for a in range(0, X.shape[0], 30):
                yield X[a:a + 30]

    lam0 = np.random.default_rng(0).gamma(100.0, 0.01, size=(5, X.shape[1]))
    kw = dict(init={"components": lam0}, max_iter=8, tol=0, e_step_topk=2)
    mem = LatentDirichletAllocation(5, **kw).fit(X)
    chunked = LatentDirichletAllocation(5, **kw).fit(Chunks())
    np.testing.assert_allclose(chunked.components_, mem.components_, rtol=1e-9)
    np.testing.assert_allclose(chunked.lower_bounds_, mem.lower_bounds_, rtol=1e-9)


@pytest.mark.parametrize("bad", [0, -1, 2.5, "sparse", True])
def test_bad_e_step_topk_is_refused_naming_it(bad):
    X, _ = make_lda_corpus(20, 3, 30, doc_length=10, random_state=0)
    with pytest.raises(InputError, match="e_step_topk"):
        LatentDirichletAllocation(3, e_step_topk=bad, max_iter=2).fit(X)


def test_resolve():
    assert resolve_e_step_topk(None, 500) is None
    assert resolve_e_step_topk(10, 10) is None and resolve_e_step_topk(9, 10) == 9
    assert resolve_e_step_topk("auto", 20) is None and resolve_e_step_topk("auto", 100) is None
    assert resolve_e_step_topk("auto", 500) == 16


@pytest.mark.slow
def test_nips_k500_heldout_perplexity_within_2_percent_of_the_dense_fit():
    """K = 500 on 300 NIPS documents, 5 batch iterations from a shared CVB0 start: the held-out
    perplexity of the truncated fit's topics (k = 16), evaluated with the dense E-step, within
    2% of the dense fit's (measured: +0.17%; k = 8: +0.11%)."""
    from latentkit.datasets import load_nips
    from latentkit.topic import cvb0_topics

    X = load_nips().data.tocsr()
    X = X[np.flatnonzero(np.asarray(X.sum(axis=1)).ravel() > 0)]
    perm = np.random.default_rng(0).permutation(X.shape[0])
    train, test = X[np.sort(perm[:300])], X[np.sort(perm[300:360])]
    K = 500
    lam0 = cvb0_topics(train, K, 1.0 / K, 1.0 / K, n_sweeps=20, random_state=0) + 1.0 / K
    perp = {}
    for topk in (None, 16):
        m = LatentDirichletAllocation(K, doc_topic_prior=1 / K, topic_word_prior=1 / K,
                                      init={"components": lam0}, max_iter=5, tol=0,
                                      e_step_topk=topk).fit(train)
        m.set_params(e_step_topk=None)
        perp[topk] = m.perplexity(test, include_prior_kl=False)
    assert perp[16] <= 1.02 * perp[None]
