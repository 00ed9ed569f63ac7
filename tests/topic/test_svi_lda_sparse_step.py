"""StochasticVI's sparse LDA step (latentkit.topic._lda_svi) is the natural-gradient step of
``partial_fit``: lambda <- (1 - rho) lambda + rho (eta + (N/|B|) sstats_B) (Hoffman, Blei &
Bach 2010, Algorithm 2), kept as eta + S U and touching only the minibatch's words. Checked
against a loop of ``partial_fit`` calls with the same minibatches and step sizes, through the
fold of S into U, and its kernels against NumPy/SciPy references."""

import numpy as np
import pytest
import scipy.sparse as sp

from latentkit._kernels import svi as ks
from latentkit.datasets import make_lda_corpus
from latentkit.inference import StochasticVI
from latentkit.topic import LatentDirichletAllocation
from latentkit.topic import _lda_svi
from latentkit.topic._lda import _beta_tables


@pytest.fixture(scope="module")
def corpus():
    X, _ = make_lda_corpus(300, 4, 200, doc_length=30, random_state=4)
    # a vocabulary wider than any minibatch uses: the untouched columns must decay too
    return sp.csr_matrix(X)


def _partial_fit_loop(X, lam0, bs, epochs, tau, kappa):
    m = LatentDirichletAllocation(4, init={"components": lam0})
    t = 0
    for _ in range(epochs):
        for a in range(0, X.shape[0], bs):
            t += 1
            m.partial_fit(X[a:a + bs], step_size=min(1.0, (t + tau) ** -kappa),
                          total_samples=X.shape[0])
    return m


@pytest.mark.parametrize("min_scale", [1e-100, 0.5], ids=["lazy", "fold-every-step"])
def test_sparse_steps_equal_partial_fit_steps(corpus, monkeypatch, min_scale):
    monkeypatch.setattr(_lda_svi, "_MIN_SCALE", min_scale)
    X = corpus
    lam0 = np.random.default_rng(0).gamma(100.0, 0.01, size=(4, X.shape[1]))
    svi = StochasticVI(LatentDirichletAllocation(4, init={"components": lam0}), batch_size=40,
                       learning_offset=1.0, learning_decay=0.6, n_epochs=3, shuffle=False,
                       random_state=0).fit(X)
    assert svi.n_steps_ == 24 and svi.model_.n_steps_ == 24
    ref = _partial_fit_loop(X, lam0, 40, 3, 1.0, 0.6)
    np.testing.assert_allclose(svi.components_, ref.components_, rtol=1e-10)
    np.testing.assert_allclose(svi.model_.exp_dirichlet_component_,
                               ref.exp_dirichlet_component_, rtol=1e-10)
    # the model reads the synced topics: the same held-out bound as the reference
    assert svi.model_.elbo(X[:50]) == pytest.approx(ref.elbo(X[:50]), rel=1e-10)


def test_sparse_steps_record_the_epoch_bounds_and_a_subclass_keeps_partial_fit(corpus):
    X = corpus
    lam0 = np.random.default_rng(1).gamma(100.0, 0.01, size=(4, X.shape[1]))
    kw = dict(batch_size=100, learning_offset=2.0, n_epochs=2, shuffle=False, random_state=0)
    svi = StochasticVI(LatentDirichletAllocation(4, init={"components": lam0}), **kw).fit(X)

    class Counting(LatentDirichletAllocation):
        calls = 0

        def _partial_step(self, X, *args, **kw):  # the step of partial_fit
            type(self).calls += 1
            return super()._partial_step(X, *args, **kw)

    slow = StochasticVI(Counting(4, init={"components": lam0}), **kw).fit(X)
    assert Counting.calls == 6  # every step through _partial_step: no sparse stepper
    np.testing.assert_allclose(svi.components_, slow.components_, rtol=1e-10)
    np.testing.assert_allclose(svi.epoch_bounds_, slow.epoch_bounds_, rtol=1e-12)


def test_compact_kernels_match_numpy(corpus):
    rng = np.random.default_rng(2)
    V, K = 50, 3
    indices = rng.integers(0, V, 80).astype(np.int32)
    cols, local = ks.compact_columns(indices, np.empty(V, dtype=np.int64), V)
    ref_cols, ref_local = np.unique(indices, return_inverse=True)
    np.testing.assert_array_equal(cols, ref_cols)
    np.testing.assert_array_equal(local, ref_local)
    eta, S = 0.1, 1e-3
    u_t = rng.gamma(1.0, 1e3, size=(V, K))
    lam = (eta + S * u_t).T
    bt, shift = _beta_tables(lam)
    from scipy.special import psi
    out, sh = np.empty((cols.size, K)), np.empty(cols.size)
    ks.lda_compact_tables(u_t, cols, S, eta, psi(lam.sum(axis=1)), out, sh)
    np.testing.assert_allclose(out, bt[cols], rtol=1e-12)
    np.testing.assert_allclose(sh, shift[cols], rtol=1e-12)
