"""LDA warm-up E-step caps (``warmup_doc_update_iter``) against manual E/M steps; CVB0 topics
(``cvb0_topics``) against a NumPy oracle; a reduced-size smoke test of
``benchmarks/bench_lda_curve.py`` (its evaluator, the tomotopy conversion and the dominance
table)."""

import importlib.util
import json
import os

import numpy as np
import pytest
import scipy.sparse as sp

from latentkit.datasets import make_lda_corpus
from latentkit.inference import StochasticVI
from latentkit.topic import LatentDirichletAllocation, lda_e_step

BENCH = os.path.join(os.path.dirname(__file__), os.pardir, os.pardir, "benchmarks",
                     "bench_lda_curve.py")


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_lda_curve", BENCH)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def corpus():
    X, _ = make_lda_corpus(80, n_components=3, vocab_size=50, doc_length=40, random_state=2)
    return sp.csr_matrix(X)


# ---------------------------------------------------------------------------------------------
# warmup_doc_update_iter
# ---------------------------------------------------------------------------------------------

def test_warmup_caps_equal_manual_steps(corpus):
    """Iteration i runs at most warmup * 2**(i-1) sweeps per document: the fit equals manual
    E-steps with those caps followed by lambda = eta + sstats."""
    K, a = 3, 0.2
    lam0 = np.random.default_rng(0).gamma(100.0, 0.01, size=(K, corpus.shape[1]))
    m = LatentDirichletAllocation(K, doc_topic_prior=a, topic_word_prior=a, max_iter=3, tol=0,
                                  init={"components": lam0}, warmup_doc_update_iter=1).fit(corpus)
    lam = lam0
    for cap in (1, 2, 4):
        _, ss, _, n_iter = lda_e_step(corpus, lam, a, max_doc_update_iter=cap)
        assert n_iter.max() == cap   # the cap binds, so the test can tell caps apart
        lam = a + ss
    np.testing.assert_allclose(m.components_, lam, rtol=1e-12)
    full = LatentDirichletAllocation(K, doc_topic_prior=a, topic_word_prior=a, max_iter=3,
                                     tol=0, init={"components": lam0}).fit(corpus)
    assert not np.allclose(full.components_, m.components_, rtol=1e-6)


def test_warmup_at_or_above_max_is_the_default_fit(corpus):
    kw = dict(max_iter=5, tol=0, random_state=3, max_doc_update_iter=20)
    a = LatentDirichletAllocation(3, **kw).fit(corpus)
    b = LatentDirichletAllocation(3, warmup_doc_update_iter=20, **kw).fit(corpus)
    np.testing.assert_array_equal(a.components_, b.components_)
    np.testing.assert_array_equal(a.lower_bounds_, b.lower_bounds_)


def test_warmup_bound_never_decreases_and_ends_at_a_stationary_point(corpus):
    """The caps only shorten early iterations: the bound stays monotone and the fit ends
    where a full-cap iteration no longer moves it (possibly another local optimum than the
    uncapped fit's, as any change of the early trajectory may give)."""
    w = LatentDirichletAllocation(3, warmup_doc_update_iter=2, max_iter=300, tol=1e-6,
                                  random_state=4, init="random").fit(corpus)
    assert w.converged_
    assert np.all(np.diff(w.lower_bounds_) >= -1e-9 * abs(w.lower_bounds_[-1]))
    again = LatentDirichletAllocation(3, max_iter=1, tol=0,
                                      init={"components": w.components_}).fit(corpus)
    assert abs(again.lower_bound_ - w.lower_bound_) < 1e-4
    np.testing.assert_allclose(again.components_, w.components_, rtol=1e-3, atol=1e-2)


@pytest.mark.parametrize("bad", [0, -2, 1.5, "4"])
def test_warmup_bad_value_is_named(corpus, bad):
    with pytest.raises((ValueError, TypeError), match="warmup_doc_update_iter"):
        LatentDirichletAllocation(3, warmup_doc_update_iter=bad, max_iter=2,
                                  init="random").fit(corpus)


# ---------------------------------------------------------------------------------------------
# the benchmark's evaluator and bookkeeping
# ---------------------------------------------------------------------------------------------

def test_evaluator_equals_model_perplexity_without_prior_kl(bench, corpus):
    train, test = bench.split_documents(corpus, seed=1)
    assert train.shape[0] + test.shape[0] == corpus.shape[0] and test.shape[0] == 8
    m = LatentDirichletAllocation(3, max_iter=5, tol=0, random_state=0, init="random").fit(train)
    got = bench.heldout_perplexity(m.components_, test, m.doc_topic_prior_)
    assert got == pytest.approx(m.perplexity(test, include_prior_kl=False), rel=1e-12)
    assert got < m.perplexity(test)   # the global KL term only adds


def test_tomotopy_counts_map_to_columns(bench, corpus):
    tp = pytest.importorskip("tomotopy")
    X = corpus.tolil()
    X[:, 7] = 0                       # a word the sampler never sees
    X = X.tocsr()
    X.eliminate_zeros()
    eta = 0.25
    m = tp.LDAModel(k=3, alpha=0.2, eta=eta, seed=0)
    for d in range(X.shape[0]):
        row = X[d]
        m.add_doc([str(w) for w, c in zip(row.indices, row.data.astype(int)) for _ in range(c)])
    m.train(5, workers=1)
    lam = bench.tomotopy_components(m, X.shape[1], eta)
    assert lam.shape == (3, X.shape[1])
    # every token sits in exactly one topic: column sums of the counts are the word counts
    np.testing.assert_allclose((lam - eta).sum(axis=0), np.asarray(X.sum(axis=0)).ravel(),
                               rtol=1e-6, atol=1e-4)
    np.testing.assert_array_equal(lam[:, 7], eta)


def test_dominance_table(bench):
    ours = {"times": [0.5, 1.0, 2.0], "perplexity": [3000.0, 2500.0, 2000.0]}
    peer = {"times": [0.25, 1.0, 4.0], "perplexity": [3020.0, 2600.0, 2010.0]}
    rows = bench.dominance(ours, peer)
    # 3020: ours within 1% at 0.5 s (ratio 2); 2600: at 1.0 s; 2010: at 2.0 s
    assert [r[3] for r in rows] == [2.0, 1.0, 0.5]
    assert bench.dominance(ours, {"times": [1.0], "perplexity": [1500.0]})[0][3] == np.inf


@pytest.mark.slow
def test_reduced_run_writes_json_and_png(bench, tmp_path):
    res = bench.main(["--corpora", "kos", "--max-docs", "300", "--budget", "0.2",
                      "--max-iter", "3", "--methods", "cvb0,spectral,random0,tomotopy",
                      "--no-coherence", "--out", str(tmp_path)])
    with open(tmp_path / "lda_curve.json") as f:
        saved = json.load(f)
    assert os.path.getsize(tmp_path / "lda_curve.png") > 0
    kos = saved["corpora"]["kos"]
    assert kos["n_train"] == 270 and kos["n_test"] == 30
    curves = kos["curves"]
    assert {"latentkit CVB0 + VB", "latentkit VB spectral",
            "latentkit VB random, default tol"} <= set(curves)
    for cur in curves.values():
        assert np.all(np.diff(cur["times"]) > 0) and len(cur["perplexity"]) == len(cur["times"])
        assert all(np.isfinite(cur["perplexity"]))
    if "tomotopy" in curves:
        table = res["corpora"]["kos"]["dominance"]["latentkit VB spectral / tomotopy"]
        assert len(table) == len(curves["tomotopy"]["times"])


# ---------------------------------------------------------------------------------------------
# cvb0_topics (zero-order collapsed VB) against a NumPy oracle
# ---------------------------------------------------------------------------------------------

def _cvb0_oracle(X, K, alpha, eta, n_sweeps, seed=None, phi=None, relaxation=1.5,
                 first_sweep=1):
    """Plain NumPy CVB0 with the kernel's schedule (Asuncion et al. 2009, eq. 5, the entry's
    own count removed from N_dk and N_wk): entries of a document in order with N_dk updated
    after each, N_wk and N_k from the previous sweep;
    from ``phi`` or else Dirichlet(1) responsibilities drawn with ``seed``. Sweeps are
    numbered from ``first_sweep``; from sweep 2 on, the counts the next sweep uses are
    over-relaxed, ``N + relaxation (N_new - N)``, floored at 0 with each word's total kept."""
    X = sp.csr_matrix(X)
    V = X.shape[1]
    if phi is None:
        phi = np.random.default_rng(seed).dirichlet(np.ones(K), size=X.nnz)
    rows = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))

    def counts(phi):
        nwk = np.zeros((V, K))
        np.add.at(nwk, X.indices, X.data[:, None] * phi)
        return nwk

    nwk = counts(phi)
    for sweep in range(first_sweep, first_sweep + n_sweeps):
        nk = nwk.sum(axis=0)
        new_phi = phi.copy()
        for d in range(X.shape[0]):
            js = np.flatnonzero(rows == d)
            nd = (X.data[js, None] * new_phi[js]).sum(axis=0)
            for j in js:
                own = X.data[j] * new_phi[j]
                p = np.maximum((nd - own + alpha) * (nwk[X.indices[j]] - own + eta)
                               / (nk + V * eta), 1e-300)
                p /= p.sum()
                nd += X.data[j] * (p - new_phi[j])
                new_phi[j] = p
        phi = new_phi
        new = counts(phi)
        if sweep >= 2:
            nwk = nwk + relaxation * (new - nwk)
            if nwk.min() < 0:   # floored, each word's total kept
                nwk = np.maximum(nwk, 0.0)
                total = nwk.sum(axis=1, keepdims=True)
                nwk = np.where(total > 0, nwk * X.sum(axis=0).A.T / np.where(total > 0, total, 1),
                               nwk)
        else:
            nwk = new
    return eta + nwk.T


# K = 7 and 9: the sweep's normaliser in four partial sums and a remainder (issue 46); K = 3
# is the remainder alone
@pytest.mark.parametrize("K", [3, 7, 9])
@pytest.mark.parametrize("many_blocks", [False, True])
def test_cvb0_matches_numpy_oracle_and_conserves_counts(corpus, K, many_blocks, monkeypatch):
    from latentkit.topic import _cvb0, cvb0_topics

    X = corpus[:30]
    if many_blocks:   # the sweep's counts from 16 blocks of documents (issue 46)
        monkeypatch.setattr(_cvb0, "BLOCK_ENTRIES_PER_WORD", 0.01)
        assert _cvb0.sweep_blocks(X.indptr, X.shape[1]).shape[0] - 1 == _cvb0.MAX_BLOCKS
    got = cvb0_topics(X, K, 0.3, 0.2, n_sweeps=3, random_state=5, init="random")
    np.testing.assert_allclose(got, _cvb0_oracle(X, K, 0.3, 0.2, 3, 5), rtol=1e-10)
    # every token is shared out over the topics: column sums are the word counts
    np.testing.assert_allclose((got - 0.2).sum(axis=0), np.asarray(X.sum(axis=0)).ravel(),
                               rtol=1e-12, atol=1e-9)


def _seed_oracle(X, K, seed, smoothing=1.0):
    """Brute-force document seeding: the draws of ``seed_responsibilities`` (length-weighted
    choice of K distinct non-empty documents), then phi_jk = p_k(w_j) / sum_l p_l(w_j) entry
    by entry with p_k = (smoothing + counts of seed k) / total."""
    X = sp.csr_matrix(X)
    lengths = np.asarray(X.sum(axis=1)).ravel()
    ne = np.flatnonzero(lengths > 0)
    seeds = np.random.default_rng(seed).choice(ne, K, replace=False,
                                               p=lengths[ne] / lengths.sum())
    dense = X.toarray()
    p = [(smoothing + dense[d]) / (smoothing * X.shape[1] + dense[d].sum()) for d in seeds]
    phi = np.empty((X.nnz, K))
    for j, w in enumerate(X.indices):
        row = np.array([p[k][w] for k in range(K)])
        phi[j] = row / row.sum()
    return seeds, phi


def test_document_seeding_matches_brute_force_and_the_sweeps_the_oracle(corpus):
    from latentkit.topic import cvb0_topics
    from latentkit.topic._cvb0 import seed_responsibilities

    X = corpus[:30]
    seeds, phi = _seed_oracle(X, 3, 5)
    assert len(set(seeds.tolist())) == 3
    got = seed_responsibilities(X, 3, np.random.default_rng(5))
    np.testing.assert_allclose(got, phi, rtol=1e-12)
    lam = cvb0_topics(X, 3, 0.3, 0.2, n_sweeps=3, random_state=5, init="documents")
    np.testing.assert_allclose(lam, _cvb0_oracle(X, 3, 0.3, 0.2, 3, phi=phi), rtol=1e-10)


def _sequential_oracle(X, K, alpha, eta, seed):
    """Brute-force sequential first pass: the draws of ``init='sequential'`` (K length-weighted
    seed documents, then a document order), every entry's responsibilities from the counts of
    the entries visited before it plus the seed documents' counts (the topic totals as its
    document starts), then added to them."""
    X = sp.csr_matrix(X)
    V = X.shape[1]
    rng = np.random.default_rng(seed)
    lengths = np.asarray(X.sum(axis=1)).ravel()
    ne = np.flatnonzero(lengths > 0)
    seeds = rng.choice(ne, K, replace=False, p=lengths[ne] / lengths.sum())
    dense = X.toarray()
    nwk = np.stack([dense[d] for d in seeds], axis=1)   # (V, K) pseudo-counts
    phi = np.empty((X.nnz, K))
    for d in rng.permutation(X.shape[0]):
        nd = np.zeros(K)
        nk = nwk.sum(axis=0)   # the topic totals as the document starts
        for j in range(X.indptr[d], X.indptr[d + 1]):
            w, n = X.indices[j], X.data[j]
            p = (nd + alpha) * (nwk[w] + eta) / (nk + V * eta)
            phi[j] = p / p.sum()
            nd += n * phi[j]
            nwk[w] += n * phi[j]
    return phi


def test_sequential_pass_matches_brute_force_and_the_sweeps_the_oracle(corpus):
    from latentkit.topic import cvb0_topics

    X = corpus[:30]
    phi = _sequential_oracle(X, 3, 0.3, 0.2, 5)
    np.testing.assert_allclose(phi.sum(axis=1), 1.0)
    one = cvb0_topics(X, 3, 0.3, 0.2, n_sweeps=1, random_state=5)   # the default init
    np.testing.assert_allclose(one, _cvb0_oracle(X, 3, 0.3, 0.2, 0, phi=phi), rtol=1e-10)
    three = cvb0_topics(X, 3, 0.3, 0.2, n_sweeps=3, random_state=5, init="sequential")
    np.testing.assert_allclose(three, _cvb0_oracle(X, 3, 0.3, 0.2, 2, phi=phi, first_sweep=2),
                               rtol=1e-10)
    plain = cvb0_topics(X, 3, 0.3, 0.2, n_sweeps=3, random_state=5, relaxation=1.0)
    np.testing.assert_allclose(plain, _cvb0_oracle(X, 3, 0.3, 0.2, 2, phi=phi, first_sweep=2,
                                                   relaxation=1.0), rtol=1e-10)
    assert not np.allclose(plain, three, rtol=1e-6)   # the relaxation does something
    # the seeds' pseudo-counts are dropped: column sums are the word counts
    np.testing.assert_allclose((three - 0.2).sum(axis=0), np.asarray(X.sum(axis=0)).ravel(),
                               rtol=1e-12, atol=1e-9)


def test_sequential_pass_beats_the_seeded_sweep_after_one_pass():
    """The point of the sequential pass: counts that follow every entry separate the topics
    within the first pass, so after one pass the held-out bound is better than after the
    first sweep from the seeded responsibilities, and after a few sweeps too."""
    from latentkit.topic import cvb0_topics

    X, _ = make_lda_corpus(400, n_components=5, vocab_size=150, doc_length=15, random_state=3)
    X = sp.csr_matrix(X)
    train, test = X[:340], X[340:]
    perp = {}
    for init in ("documents", "sequential"):
        for n_sweeps in (1, 3):
            lam = cvb0_topics(train, 5, n_sweeps=n_sweeps, random_state=0, init=init)
            m = LatentDirichletAllocation(5, init={"components": lam}, max_iter=1, tol=0)
            perp[init, n_sweeps] = m.fit(train).perplexity(test, include_prior_kl=False)
    assert perp["sequential", 1] < perp["documents", 1]
    assert perp["sequential", 3] < perp["documents", 3]


def test_document_seeding_separates_topics_before_the_first_sweep():
    """The point of the seeding: after one sweep the random start's topics are still nearly
    alike (symmetric start), the seeded ones already differ, and the held-out bound is better."""
    from latentkit.topic import cvb0_topics

    X, _ = make_lda_corpus(300, n_components=5, vocab_size=100, doc_length=40, random_state=3)
    X = sp.csr_matrix(X)
    train, test = X[:250], X[250:]
    spread = {}
    for init in ("random", "documents"):
        lam = cvb0_topics(train, 5, n_sweeps=1, random_state=0, init=init)
        p = lam / lam.sum(axis=1, keepdims=True)
        spread[init] = np.abs(p - p.mean(axis=0)).sum(axis=1).mean()  # mean L1 to the centre
        m = LatentDirichletAllocation(5, init={"components": lam}, max_iter=1, tol=0).fit(train)
        spread[init, "perplexity"] = m.perplexity(test, include_prior_kl=False)
    assert spread["documents"] > 3 * spread["random"]
    assert spread["documents", "perplexity"] < spread["random", "perplexity"]


def test_document_seeding_with_fewer_documents_than_topics():
    from latentkit.topic import cvb0_topics
    from latentkit.topic._cvb0 import seed_counts, seed_responsibilities

    X = sp.csr_matrix(np.array([[2.0, 0, 1, 0], [0, 0, 0, 0], [0, 3, 0, 1]]))
    phi = seed_responsibilities(X, 4, np.random.default_rng(0))
    np.testing.assert_allclose(phi.sum(axis=1), 1.0)
    assert len({tuple(np.round(c, 12)) for c in phi.T}) == 4   # repeated seeds still differ
    lam = cvb0_topics(X, 4, n_sweeps=5, random_state=0, init="documents")
    assert np.all(np.isfinite(lam)) and np.all(lam > 0)
    counts = seed_counts(X, 4, np.random.default_rng(0))   # the sequential pass's seeds
    assert len({tuple(np.round(c, 12)) for c in counts.T}) == 4   # repeated seeds still differ
    lam = cvb0_topics(X, 4, n_sweeps=5, random_state=0)
    assert np.all(np.isfinite(lam)) and np.all(lam > 0)
    assert len({tuple(np.round(c, 12)) for c in lam}) == 4
    np.testing.assert_array_equal(seed_counts(sp.csr_matrix((2, 4)), 3, np.random.default_rng(0)),
                                  0.0)
    np.testing.assert_allclose(cvb0_topics(sp.csr_matrix((2, 4)), 3, n_sweeps=2), 1.0 / 3)
    empty = seed_responsibilities(sp.csr_matrix((2, 4)), 3, np.random.default_rng(0))
    assert empty.shape == (0, 3)


@pytest.mark.kernel_sensitive
def test_cvb0_deterministic_for_any_thread_count(corpus, monkeypatch):
    import numba

    from latentkit.topic import _cvb0, cvb0_topics

    monkeypatch.setattr(_cvb0, "SERIAL_BELOW", 0)   # the small corpus would run serially
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = cvb0_topics(corpus, 3, n_sweeps=5, random_state=1)
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        two = cvb0_topics(corpus, 3, n_sweeps=5, random_state=1)
    finally:
        numba.set_num_threads(before)
    np.testing.assert_array_equal(one, two)


def test_cvb0_start_beats_random_start_on_planted_topics():
    """The point of the start: VB from CVB0 topics ends at a higher ELBO (a better local
    optimum of the same objective) than VB from the random start on a planted corpus."""
    from latentkit.topic import cvb0_topics

    X, _ = make_lda_corpus(200, n_components=5, vocab_size=80, doc_length=20, random_state=7)
    lam = cvb0_topics(X, 5, n_sweeps=50, random_state=0)
    a = LatentDirichletAllocation(5, init={"components": lam}, max_iter=100, tol=1e-4).fit(X)
    b = LatentDirichletAllocation(5, init="random", max_iter=100, tol=1e-4,
                                  random_state=0).fit(X)
    assert a.lower_bound_ > b.lower_bound_


@pytest.mark.parametrize("kw, name", [({"n_components": 0}, "n_components"),
                                      ({"n_sweeps": 0}, "n_sweeps"),
                                      ({"doc_topic_prior": -1.0}, "doc_topic_prior"),
                                      ({"topic_word_prior": 0.0}, "topic_word_prior"),
                                      ({"relaxation": 2.0}, "relaxation"),
                                      ({"relaxation": 0.9}, "relaxation")])
def test_cvb0_bad_arguments_are_named(corpus, kw, name):
    from latentkit.topic import cvb0_topics

    args = {"n_components": 3, **kw}
    with pytest.raises(ValueError, match=name):
        cvb0_topics(corpus, **args)
    with pytest.raises(ValueError, match="X"):
        cvb0_topics(-corpus.toarray(), 3)
    with pytest.raises(ValueError, match="init"):
        cvb0_topics(corpus, 3, init="kmeans")


def test_init_cvb0_is_cvb0_topics(corpus):
    from latentkit._utils.validation import check_random_state
    from latentkit.topic import cvb0_topics

    import copy

    from latentkit.topic._start_seeds import spectral_seed_documents

    m = LatentDirichletAllocation(3, init="cvb0", max_iter=2, tol=0, random_state=4).fit(corpus)
    rng = check_random_state(4)  # the seed documents from a copy of the fit's generator
    seeds = spectral_seed_documents(sp.csr_matrix(corpus, dtype=float), 3, 1 / 3,
                                    copy.deepcopy(rng))
    assert seeds is not None
    lam = cvb0_topics(corpus, 3, random_state=rng, seed_documents=seeds)
    ref = LatentDirichletAllocation(3, init={"components": lam}, max_iter=2, tol=0).fit(corpus)
    np.testing.assert_array_equal(m.components_, ref.components_)
    with pytest.raises(ValueError, match="'cvb0'"):
        LatentDirichletAllocation(3, init="gibbs").fit(corpus)


def test_default_start_is_cvb0_for_batch_fits_and_random_for_stochastic_steps(corpus):
    kw = dict(max_iter=2, tol=0, random_state=4)
    auto = LatentDirichletAllocation(3, **kw).fit(corpus)
    assert auto.init == "auto"
    np.testing.assert_array_equal(
        auto.components_, LatentDirichletAllocation(3, init="cvb0", **kw).fit(corpus).components_)
    step = LatentDirichletAllocation(3, random_state=4, total_samples=200).partial_fit(corpus)
    ref = LatentDirichletAllocation(3, init="random", random_state=4,
                                    total_samples=200).partial_fit(corpus)
    np.testing.assert_array_equal(step.components_, ref.components_)
    assert not hasattr(step, "_stochastic_step")
    online = dict(batch_size=50, n_epochs=2, random_state=4)
    np.testing.assert_array_equal(
        StochasticVI(LatentDirichletAllocation(3), **online).fit(corpus).components_,
        StochasticVI(LatentDirichletAllocation(3, init="random"), **online).fit(corpus)
        .components_)
    with pytest.raises(TypeError, match="init"):
        LatentDirichletAllocation(3, init=3).fit(corpus)
