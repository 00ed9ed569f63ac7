"""Tests of PLSA's inner document sweeps (``doc_iter``, ``doc_start``): the numba sweep kernel
against a dense NumPy oracle, the fits against the direct NumPy EM oracle with the same sweeps
(1e-10), EM monotonicity of ``doc_start='previous'``, the symmetric form, bad input."""

import numpy as np
import pytest
import scipy.sparse as sp

from latentkit.testing import plsa_em_oracle
from latentkit.topic._plsa import PLSA, plsa_e_step_stats
from latentkit.topic._plsa_sweeps import doc_sweeps, seed_topics, sweeps_e_step_stats


def _corpus(n_docs=30, n_words=25, n_topics=3, seed=0):
    rng = np.random.default_rng(seed)
    phi = rng.dirichlet(np.full(n_words, 0.3), size=n_topics)
    theta = rng.dirichlet(np.full(n_topics, 0.5), size=n_docs)
    lengths = rng.integers(5, 40, size=n_docs)
    X = np.vstack([rng.multinomial(n, t @ phi) for n, t in zip(lengths, theta)]).astype(float)
    X[3] = 0.0  # an empty document
    return sp.csr_matrix(X), phi, theta


def _sweeps_oracle(X, a, phi, beta, n_sweeps, start):
    """Dense NumPy: n_sweeps folding-in EM updates of each row of a, its mass kept."""
    Xd = X.toarray()
    a = np.array(a, dtype=float)
    mass = a.sum(1, keepdims=True)
    if start == "uniform":
        a = np.repeat(mass / a.shape[1], a.shape[1], axis=1)
    for _ in range(n_sweeps):
        post = (a[:, None, :] * phi.T[None, :, :]) ** beta              # (D, V, K)
        post = post / post.sum(-1, keepdims=True)
        acc = (Xd[:, :, None] * post).sum(1)
        tot = Xd.sum(1, keepdims=True)
        a = np.where(tot > 0, mass * acc / np.where(tot > 0, tot, 1.0), a)
    return a


@pytest.mark.slow
@pytest.mark.parametrize("beta", [1.0, 0.7])
@pytest.mark.parametrize("start", ["previous", "uniform"])
def test_sweep_kernel_matches_dense_oracle(beta, start):
    X, phi, theta = _corpus()
    # rows of different mass (the symmetric form's P(d) P(z|d)), kept by every update
    a = theta * np.linspace(0.5, 2.0, theta.shape[0])[:, None]
    for n_sweeps in (0, 1, 4):
        got = doc_sweeps(X, a, phi, beta, n_sweeps, start)
        np.testing.assert_allclose(got, _sweeps_oracle(X, a, phi, beta, n_sweeps, start),
                                   rtol=1e-10, atol=1e-13)
        np.testing.assert_allclose(got.sum(1), a.sum(1), rtol=1e-12)
    assert not np.allclose(doc_sweeps(X, a, phi, beta, 1, start), a)  # the updates move a


@pytest.mark.slow
@pytest.mark.parametrize("doc_start", ["previous", "uniform"])
@pytest.mark.parametrize("beta", [1.0, 0.8])
def test_fit_matches_numpy_em_with_sweeps(doc_start, beta):
    X, _, _ = _corpus(seed=1)
    rng = np.random.default_rng(5)
    phi = rng.dirichlet(np.ones(X.shape[1]), size=4)
    theta = rng.dirichlet(np.ones(4), size=X.shape[0])
    m = PLSA(4, init={"components": phi, "doc_topic": theta}, max_iter=12, tol=0.0, beta=beta,
             doc_iter=3, doc_start=doc_start).fit(X)
    phi_ref, theta_ref, ll_ref = plsa_em_oracle(X, phi, theta, 12, beta, doc_iter=3,
                                                doc_start=doc_start)
    np.testing.assert_allclose(m.components_, phi_ref, rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(m.doc_topic_, theta_ref, rtol=1e-10, atol=1e-13)
    if beta == 1.0:
        np.testing.assert_allclose(m.lower_bounds_, ll_ref * X.sum() / X.shape[0], rtol=1e-10)
    # not plain EM: one update of P(z|d) per iteration ends elsewhere
    phi_em, _, _ = plsa_em_oracle(X, phi, theta, 12, beta)
    assert np.max(np.abs(m.components_ - phi_em)) > 1e-6


@pytest.mark.parametrize("beta", [1.0, 0.75])
def test_previous_start_sweeps_never_decrease_the_bound(beta):
    # every sweep is an EM step in P(z|d) alone: log-likelihood (TEM: free energy) monotone,
    # and per iteration at least as high as plain EM's from the same start
    X, _, _ = _corpus(seed=6)
    kw = dict(beta=beta, max_iter=40, tol=0.0, random_state=0)
    m = PLSA(4, doc_iter=4, **kw).fit(X)
    assert np.all(np.diff(m.lower_bounds_) >= -1e-12 * np.abs(m.lower_bounds_[:-1]))
    em = PLSA(4, **kw).fit(X)
    assert m.lower_bounds_[-1] > em.lower_bounds_[-1]


def test_symmetric_form_with_sweeps_equals_asymmetric():
    X, _, _ = _corpus(seed=2)
    rng = np.random.default_rng(3)
    init = {"components": rng.dirichlet(np.ones(X.shape[1]), size=3),
            "doc_topic": rng.dirichlet(np.ones(3), size=X.shape[0])}
    for doc_start in ("previous", "uniform"):
        kw = dict(init=init, max_iter=10, tol=0.0, doc_iter=3, doc_start=doc_start)
        a = PLSA(3, **kw).fit(X)
        s = PLSA(3, parametrization="symmetric", **kw).fit(X)
        nd = np.asarray(X.sum(1)).ravel()
        np.testing.assert_allclose(s.components_, a.components_, rtol=1e-9, atol=1e-13)
        np.testing.assert_allclose(s.doc_topic_[nd > 0], a.doc_topic_[nd > 0], rtol=1e-9,
                                   atol=1e-13)


def test_default_is_plain_em_and_bad_input():
    X, _, _ = _corpus(seed=4)
    a = PLSA(3, max_iter=8, tol=0.0, random_state=0).fit(X)
    b = PLSA(3, max_iter=8, tol=0.0, random_state=0, doc_iter=1,
             doc_start="previous").fit(X)
    np.testing.assert_array_equal(a.components_, b.components_)
    with pytest.raises(ValueError, match="doc_iter"):
        PLSA(2, doc_iter=0).fit(X)
    with pytest.raises(TypeError, match="doc_iter"):
        PLSA(2, doc_iter=2.5).fit(X)
    with pytest.raises(ValueError, match="doc_start"):
        PLSA(2, doc_start="random").fit(X)



def test_documents_start_seeds_each_topic_with_a_document():
    X, _, _ = _corpus(seed=9)
    comp = seed_topics(X, 3, np.random.default_rng(0))
    np.testing.assert_allclose(comp.sum(1), 1.0)
    Xd = X.toarray()
    seeds = []
    for k in range(3):   # topic k = (1 + counts of one non-empty document) / (V + its length)
        seeds += [d for d in range(X.shape[0]) if Xd[d].sum() > 0 and np.allclose(
            comp[k] * (X.shape[1] + Xd[d].sum()), 1.0 + Xd[d], rtol=1e-12)][:1]
    assert len(set(seeds)) == 3
    # the fit starts there (with doc_start='uniform' the starting P(z|d) does not matter)
    m = PLSA(3, init="documents", max_iter=2, tol=0.0, random_state=0, doc_iter=3,
             doc_start="uniform").fit(X)
    phi_ref, _, _ = plsa_em_oracle(X, comp, np.full((X.shape[0], 3), 1 / 3), 2, doc_iter=3,
                                   doc_start="uniform")
    np.testing.assert_allclose(m.components_, phi_ref, rtol=1e-10, atol=1e-13)
    with pytest.raises(ValueError, match="documents"):
        PLSA(2, init="document").fit(X)


@pytest.mark.parametrize("beta", [1.0, 0.7])
@pytest.mark.parametrize("start", ["previous", "uniform"])
def test_one_pass_sweeps_and_e_step_equal_the_two_passes(beta, start):
    # the fused kernel (sweeps, then the E-step while the document is in cache; the topic-word
    # counts as P(w|z) sum_d a(d,z) n(d,w) / P(w|d) at beta = 1) against the sweep kernel
    # followed by the plain E-step, over uneven blocks and rows of different mass
    X, phi, theta = _corpus(seed=7)
    a = theta * np.linspace(0.5, 2.0, theta.shape[0])[:, None]
    a_before = a.copy()
    for n_sweeps in (0, 1, 4):
        for starts in (None, np.array([0, 7, 8, X.shape[0]], dtype=np.int64)):
            got = sweeps_e_step_stats(X, a, phi, beta, n_sweeps, start, starts)
            ref = plsa_e_step_stats(X, doc_sweeps(X, a, phi, beta, n_sweeps, start), phi, beta)
            for g, r in zip(got, ref):
                np.testing.assert_allclose(g, r, rtol=1e-10, atol=1e-13)
    np.testing.assert_array_equal(a, a_before)  # input not modified


@pytest.mark.filterwarnings("ignore:PLSA did not converge")
def test_cli_fit_plsa_takes_the_sweeps_options():
    # `latentkit fit plsa --init documents --doc-iter 3 --doc-start uniform` fits the model
    # PLSA(init='documents', doc_iter=3, doc_start='uniform') fits on the same data
    from latentkit import cli, datasets
    from latentkit.cli._progress import Progress

    argv = ["fit", "plsa", "--dataset", "kos", "-k", "3", "--max-iter", "2", "--init",
            "documents", "--doc-iter", "3", "--doc-start", "uniform"]
    args = cli.build_parser().parse_args(argv)
    res = cli.FIT_COMMANDS["plsa"].run(args, Progress(None, enabled=False))
    m = res.model
    assert (m.init, m.doc_iter, m.doc_start) == ("documents", 3, "uniform")
    assert any("doc_iter=3, doc_start='uniform'" in line for line in res.lines)
    ref = PLSA(3, max_iter=2, init="documents", doc_iter=3, doc_start="uniform",
               random_state=0).fit(datasets.load_kos().data)
    np.testing.assert_array_equal(m.components_, ref.components_)
    with pytest.raises(SystemExit):
        cli.build_parser().parse_args(argv[:-1] + ["random"])
