"""The one evaluator of ``benchmarks/bench_dtm.py --labels`` (``benchmarks/_labels_peer.py``):
per-label held-out perplexity from LDA's per-document bound at each method's topics and
prior. Checked against closed forms; no timing is asserted."""

import importlib.util
import os

import numpy as np
import pytest
import scipy.sparse as sp

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), os.pardir, os.pardir))


@pytest.fixture(scope="module")
def lp():
    spec = importlib.util.spec_from_file_location(
        "_labels_peer", os.path.join(ROOT, "benchmarks", "_labels_peer.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_one_allowed_topic_is_the_multinomial_likelihood(lp):
    # one allowed topic: theta = 1 surely, the bound is sum_w n_w log phi_kw (closed form)
    rng = np.random.default_rng(0)
    phi = rng.dirichlet(np.ones(6), size=3)
    X = sp.csr_matrix(rng.poisson(2.0, size=(4, 6)).astype(float))
    labels = [["a"], ["b"], ["a", "c"], ["c"]]
    allowed = [[0], [1], [2], [2]]
    per, overall = lp.per_label_perplexity(phi, X, allowed, [np.ones(1)] * 4, labels)
    ll = np.array([X[d].toarray()[0] @ np.log(phi[allowed[d][0]]) for d in range(4)])
    n = np.asarray(X.sum(axis=1)).ravel()
    assert per["a"] == pytest.approx(np.exp(-(ll[0] + ll[2]) / (n[0] + n[2])), rel=1e-10)
    assert per["c"] == pytest.approx(np.exp(-(ll[2] + ll[3]) / (n[2] + n[3])), rel=1e-10)
    assert overall == pytest.approx(np.exp(-ll.sum() / n.sum()), rel=1e-10)

