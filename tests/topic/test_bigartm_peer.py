"""The BigARTM peer of the topic benchmarks (benchmarks/_bigartm_peer.py): the corpus it is
handed, and a real run when BigARTM's own interpreter is named (LATENTKIT_BIGARTM_PYTHON)."""

import importlib.util
import os

import numpy as np
import pytest
import scipy.sparse as sp

PEER = os.path.join(os.path.dirname(__file__), os.pardir, os.pardir, "benchmarks",
                    "_bigartm_peer.py")


@pytest.fixture(scope="module")
def peer():
    spec = importlib.util.spec_from_file_location("_bigartm_peer", PEER)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _corpus():
    rng = np.random.default_rng(0)
    X = sp.csr_matrix(rng.poisson(0.4, size=(30, 25)).astype(float))
    return X[np.flatnonzero(np.asarray(X.sum(axis=1)).ravel() > 0)]


def test_vowpal_wabbit_file_holds_the_counts(peer, tmp_path):
    X = _corpus()
    peer._write_vw(X, tmp_path / "c.vw")
    rows = (tmp_path / "c.vw").read_text().splitlines()
    assert len(rows) == X.shape[0]
    back = np.zeros(X.shape)
    for d, row in enumerate(rows):
        name, *pairs = row.split()
        assert name == f"d{d}"
        for pair in pairs:
            w, c = pair.split(":")
            back[d, int(w)] += float(c)
    np.testing.assert_array_equal(back, X.toarray())


def test_interpreter_comes_from_the_argument_or_the_environment(peer, monkeypatch):
    monkeypatch.delenv(peer.ENV_VAR, raising=False)
    assert peer.bigartm_python(None) is None
    monkeypatch.setenv(peer.ENV_VAR, "/some/python")
    assert peer.bigartm_python(None) == "/some/python"
    assert peer.bigartm_python("/other/python") == "/other/python"


@pytest.mark.skipif(not os.environ.get("LATENTKIT_BIGARTM_PYTHON"),
                    reason="BigARTM's interpreter not named (LATENTKIT_BIGARTM_PYTHON)")
def test_bigartm_snapshots_are_counts_plus_eta_and_distributions(peer):
    X = _corpus()
    py = peer.bigartm_python(None)
    times, snaps = peer.run_bigartm(py, X, 3, budget=10.0, max_passes=2)
    assert len(times) == len(snaps) == 2 and times[0] < times[1]
    lam = snaps[-1]
    assert lam.shape == (3, X.shape[1])
    # every token is counted once: n_wt sums to the corpus size, plus eta on every entry
    np.testing.assert_allclose(lam.sum(), X.sum() + 3 * X.shape[1] / 3, rtol=1e-6)
    _, plsa = peer.run_bigartm(py, X, 3, budget=10.0, model="plsa", max_passes=1)
    np.testing.assert_allclose(plsa[-1].sum(axis=1), 1.0, rtol=1e-5)
