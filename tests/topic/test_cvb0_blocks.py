"""The CVB0 sweep on fixed blocks of documents, each adding its entries' topic-word counts to a
table of its own (issue 46): the blocks hold about equal numbers of entries whatever the
documents' lengths and depend on the corpus only; the sweep's counts equal a NumPy recount of
the new responsibilities; the blocks' sum is NumPy's left-to-right sum bit for bit; every
output is the same bits on 1 and 3 threads; the responsibilities are those of the one-block
sweep bit for bit."""

import numpy as np
import pytest
import scipy.sparse as sp

from latentkit._kernels import cvb0 as kc
from latentkit._utils import doc_threads
from latentkit.datasets import make_lda_corpus
from latentkit.topic import _cvb0


def _corpus(long_docs=0):
    X, _ = make_lda_corpus(n_docs=90, n_components=4, vocab_size=50, doc_length=30,
                           random_state=7)
    X = X.tocsr().astype(np.float64)
    if long_docs:   # the first documents 20x longer: blocks by document count would be lopsided
        dense = X.toarray()
        dense[:long_docs] = dense[:long_docs] * 20 + 1
        X = sp.csr_matrix(dense)
    X.data[X.indptr[5]:X.indptr[6]] = 0   # an empty document
    X.eliminate_zeros()
    return (X.indptr.astype(np.int64), X.indices.astype(np.int64), X.data.astype(np.float64),
            X.shape[1])


def _sweep(edges, indptr, indices, data, V, K=5):
    rng = np.random.default_rng(3)
    phi = rng.dirichlet(np.ones(K), size=data.shape[0])
    nwk = np.zeros((V, K))
    np.add.at(nwk, indices, data[:, None] * phi)
    nwk += 0.5   # as an over-relaxed or prior-shifted table: not the recount of phi
    ndk = np.full((indptr.shape[0] - 1, K), np.nan)
    blocks = np.full((edges.shape[0] - 1, V, K), np.nan)
    out = np.full((V, K), np.nan)
    _cvb0.sweep_counts(edges, indptr, indices, data, phi, nwk, 0.3, 0.2, ndk, blocks, out)
    return phi, ndk, blocks, out


def test_blocks_hold_equal_entries_not_equal_documents(monkeypatch):
    monkeypatch.setattr(_cvb0, "BLOCK_ENTRIES_PER_WORD", 0.01)   # as many blocks as allowed
    indptr, _, _, V = _corpus(long_docs=10)
    edges = _cvb0.sweep_blocks(indptr, V)
    B = edges.shape[0] - 1
    assert B == _cvb0.MAX_BLOCKS
    assert edges[0] == 0 and edges[-1] == indptr.shape[0] - 1 and np.all(np.diff(edges) >= 0)
    per_block = np.diff(indptr[edges])
    longest = np.diff(indptr).max()
    # contiguous ranges can miss the even share by at most one document's entries
    assert np.abs(per_block - indptr[-1] / B).max() <= longest
    # (blocks of equal document counts put the 10 long documents in the first one or two)
    even_docs = np.diff(indptr[np.linspace(0, indptr.shape[0] - 1, B + 1).astype(int)])
    assert np.abs(even_docs - indptr[-1] / B).max() > longest


def test_block_count_depends_on_the_corpus_only(monkeypatch):
    indptr, _, _, V = _corpus()
    nnz = int(indptr[-1])
    assert _cvb0.sweep_blocks(indptr, V).shape[0] - 1 == max(1, min(
        _cvb0.MAX_BLOCKS, nnz // (_cvb0.BLOCK_ENTRIES_PER_WORD * V), indptr.shape[0] - 1))
    monkeypatch.setattr(doc_threads.numba, "get_num_threads", lambda: 7)
    assert np.array_equal(_cvb0.sweep_blocks(indptr, V),
                          _cvb0.sweep_blocks(indptr, V))


@pytest.mark.parametrize("threads", [1, 3])
def test_sweep_counts_equal_the_recount_and_are_thread_independent(monkeypatch, threads):
    monkeypatch.setattr(_cvb0, "BLOCK_ENTRIES_PER_WORD", 0.1)
    indptr, indices, data, V = _corpus(long_docs=3)
    edges = _cvb0.sweep_blocks(indptr, V)
    assert edges.shape[0] - 1 >= 5
    one = _sweep(np.array([0, indptr.shape[0] - 1], dtype=np.int64), indptr, indices, data, V)
    ref = _sweep(edges, indptr, indices, data, V)   # numba's threads of this process
    monkeypatch.setattr(doc_threads.numba, "get_num_threads", lambda: threads)
    got = _sweep(edges, indptr, indices, data, V)
    for a, b in zip(ref, got):   # same bits whatever the threads
        np.testing.assert_array_equal(a, b)
    phi, ndk, blocks, out = got
    # the responsibilities do not depend on the blocks (documents are independent)
    np.testing.assert_array_equal(phi, one[0])
    np.testing.assert_array_equal(ndk, one[1])
    # each block's table is the recount of its own documents' new responsibilities
    for b in range(blocks.shape[0]):
        lo, hi = indptr[edges[b]], indptr[edges[b + 1]]
        mine = np.zeros_like(out)
        np.add.at(mine, indices[lo:hi], data[lo:hi, None] * phi[lo:hi])
        np.testing.assert_allclose(blocks[b], mine, rtol=1e-12, atol=1e-12)
    # the sum: blocks added left to right, NumPy's order exactly
    left = blocks[0].copy()
    for b in range(1, blocks.shape[0]):
        left += blocks[b]
    np.testing.assert_array_equal(out, left)
    whole = np.zeros_like(out)
    np.add.at(whole, indices, data[:, None] * phi)
    np.testing.assert_allclose(out, whole, rtol=1e-12, atol=1e-12)
    # (and the sweep itself: NumPy's own (documents of) responsibilities sum to 1)
    np.testing.assert_allclose(phi.sum(axis=1), 1.0, rtol=1e-12)


def test_sum_blocks_kernel_on_word_ranges():
    rng = np.random.default_rng(0)
    blocks = rng.random((4, 9, 3))
    out = np.full((9, 3), np.nan)
    kc.sum_blocks(np.int64(0), np.int64(4), blocks, out)
    kc.sum_blocks(np.int64(4), np.int64(9), blocks, out)
    np.testing.assert_array_equal(out, ((blocks[0] + blocks[1]) + blocks[2]) + blocks[3])
