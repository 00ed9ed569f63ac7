"""The LDA VB E-step kernel's document blocks (issue 46): each document's rows of the topic table
are copied into a topics-by-words block padded to whole vectors (``_kernels.topic._PAD`` words)
and swept four topics per pass. The NumPy oracle (``lda_e_step_oracle``) is compared at 1e-10
for the shapes where the blocks' remainders matter: K not a multiple of 4 (the one-topic tail),
K below 4 (no four-topic pass), documents of every length modulo the padding (1 to 2 * _PAD + 1
distinct words), a document longer than every other in its range (the scratch width), warm and
cold starts, float counts. The kernel is also called on ranges of documents directly: the
outputs of each range are the same as of one call over all documents."""

import numpy as np
import pytest
import scipy.sparse as sp

from latentkit._kernels import topic as kt
from latentkit.testing import lda_e_step_oracle
from latentkit.topic import lda_e_step


def _corpus(rng, V, lengths):
    rows = []
    for n in lengths:
        row = np.zeros(V)
        if n:
            row[rng.choice(V, size=n, replace=False)] = rng.integers(1, 4, size=n) * 0.75 + 0.1
        rows.append(row)
    return sp.csr_matrix(np.array(rows))


@pytest.mark.parametrize("K", [1, 3, 5, 8, 11])
@pytest.mark.parametrize("warm", [False, True])
def test_block_kernel_matches_oracle(K, warm):
    rng = np.random.default_rng(K)
    V = 60
    lengths = list(range(0, 2 * kt._PAD + 2)) + [45, 3]   # every remainder, a long one, empty
    X = _corpus(rng, V, lengths)
    lam = rng.gamma(1.5, 1.0, size=(K, V)) + 0.02
    gamma0 = rng.gamma(2.0, 1.0, size=(X.shape[0], K)) + 0.05 if warm else None
    g, ss, de, it = lda_e_step(X, lam, 0.2, max_doc_update_iter=60, mean_change_tol=1e-5,
                               gamma0=gamma0)
    g2, ss2, de2, it2 = lda_e_step_oracle(X, lam, 0.2, max_iter=60, tol=1e-5, gamma0=gamma0)
    np.testing.assert_array_equal(it, it2)
    # 1e-10: the kernel and the oracle differ by the order of their sums (round-off, ~1e-15)
    np.testing.assert_allclose(g, g2, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(ss, ss2, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(de, de2, rtol=1e-10, atol=1e-10)
    assert de[0] == 0.0 and it[0] == 0          # the empty document
    assert ss.sum() == pytest.approx(X.sum(), rel=1e-12)


def test_ranges_of_documents_give_the_same_outputs():
    """Each call sizes its block scratch from its own documents; a range's outputs do not
    depend on the other documents (the split the thread pool makes)."""
    rng = np.random.default_rng(7)
    K, V = 6, 50
    X = _corpus(rng, V, [4, 30, 9, 1, 17, 40, 2, 8])
    lam = rng.gamma(1.5, 1.0, size=(K, V)) + 0.02
    from scipy.special import psi

    elog = (psi(lam) - psi(lam.sum(axis=1, keepdims=True))).T
    shift = elog.max(axis=1)
    bt = np.ascontiguousarray(np.exp(elog - shift[:, None]))
    indptr = X.indptr.astype(np.int64)
    indices = X.indices.astype(np.int64)
    D = X.shape[0]

    def run(edges):
        out = [np.empty((D, K)), np.empty((D, K)), np.empty(X.nnz), np.empty(D),
               np.empty(D, dtype=np.int64)]
        for a, b in zip(edges[:-1], edges[1:]):
            kt.lda_e_step(a, b, indptr, indices, X.data, bt, shift, 0.3, out[0], False, 100,
                          1e-4, out[1], out[2], out[3], out[4])
        return out

    for a, b in zip(run([0, D]), run([0, 1, 3, 6, D])):
        np.testing.assert_array_equal(a, b)


def test_tiny_prior_exp_theta_matches_oracle():
    """alpha = 1e-3: psi(gamma) of a topic absent from a document is near -1000, so its
    exp(E[log theta]) underflows in both the kernel (``y exp(c - psi_max)``, one logarithm per
    sweep) and the oracle (``exp(psi - max psi)``); the fitted numbers agree."""
    rng = np.random.default_rng(11)
    K, V = 7, 40
    X = _corpus(rng, V, [1, 2, 5, 9, 13, 30])
    lam = rng.gamma(0.5, 1.0, size=(K, V)) + 1e-3
    g, ss, de, it = lda_e_step(X, lam, 1e-3, max_doc_update_iter=80, mean_change_tol=1e-6)
    g2, ss2, de2, it2 = lda_e_step_oracle(X, lam, 1e-3, max_iter=80, tol=1e-6)
    assert np.all(np.isfinite(de)) and np.all(np.isfinite(ss))
    np.testing.assert_array_equal(it, it2)
    np.testing.assert_allclose(g, g2, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(ss, ss2, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(de, de2, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("eta", [1e-3, 0.05, 2.0])
def test_compact_tables_match_numpy_over_blocks(eta):
    """``_kernels.svi.lda_compact_tables`` (one logarithm per word; the parallel loop over
    blocks of ``_BLOCK`` words) against scipy's psi on the whole table, for more words than
    two blocks, K = 13 and a prior small enough that exp(E[log beta]) underflows for some
    entries; rtol 1e-12: the two differ by the order of the same float64 operations."""
    from scipy.special import psi

    from latentkit._kernels import svi as ks
    from latentkit.topic._lda_estep import _beta_tables

    rng = np.random.default_rng(5)
    V, K = 300, 13
    u_t = rng.gamma(0.3, 50.0, size=(V, K))
    u_t[rng.random((V, K)) < 0.3] = 0.0        # entries at the prior
    S = 0.37
    lam = (eta + S * u_t).T
    bt, shift = _beta_tables(lam)
    cols = np.sort(rng.choice(V, size=2 * ks._BLOCK + 19, replace=False)).astype(np.int64)
    out, sh = np.empty((cols.size, K)), np.empty(cols.size)
    ks.lda_compact_tables(u_t, cols, S, eta, psi(lam.sum(axis=1)), out, sh)
    np.testing.assert_allclose(out, bt[cols], rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(sh, shift[cols], rtol=1e-12)
    np.testing.assert_allclose(out.max(axis=1), 1.0, rtol=1e-15)   # shifted by the maximum
