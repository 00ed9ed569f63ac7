"""Out-of-core batch VB: LatentDirichletAllocation fitted on a UCI docword file read in chunks
(``DocwordSource``) gives the ELBO trace of the in-memory fit (1e-10 relative) while its peak
Python/NumPy memory (tracemalloc) stays within a small multiple of one chunk's arrays plus the
model, far below the whole corpus. The full-size run (200,000 documents, chunks of 10,000, RSS
as well) is ``benchmarks/bench_out_of_core.py``.

Sources: the batch VB iteration is Hoffman, Blei & Bach (2010), Algorithm 1; the statistics
are additive over documents, so summing them over chunks is exact (DESIGN.md section 2).
"""

import tracemalloc

import numpy as np
import pytest

from latentkit.datasets import make_lda_corpus
from latentkit.inference import DocwordSource
from latentkit.topic import LatentDirichletAllocation

N_DOCS, VOCAB, K, CHUNK = 20_000, 300, 5, 1_000


def write_docword(path, X):
    """Write the CSR count matrix ``X`` as a UCI docword file (D, W, NNZ; 1-based, by doc)."""
    X = X.tocsr()
    X.sort_indices()
    rows = np.repeat(np.arange(1, X.shape[0] + 1), np.diff(X.indptr))
    with open(path, "w") as fh:
        fh.write(f"{X.shape[0]}\n{X.shape[1]}\n{X.nnz}\n")
        fh.writelines(f"{d} {w} {c}\n" for d, w, c in
                      zip(rows.tolist(), (X.indices + 1).tolist(), X.data.astype(int).tolist()))


@pytest.fixture(scope="module")
def corpus_file(tmp_path_factory):
    X, _ = make_lda_corpus(N_DOCS, K, VOCAB, doc_length=15, random_state=0)
    path = tmp_path_factory.mktemp("ooc") / "docword.synthetic.txt"
    write_docword(path, X)
    return X, path


def _csr_bytes(X):
    return X.data.nbytes + X.indices.nbytes + X.indptr.nbytes


@pytest.mark.slow  # quick tier: over 2 s on 2 quiet cores (tools/quick_tier.py)
def test_chunked_batch_vb_equals_in_memory_with_bounded_memory(corpus_file):
    X, path = corpus_file
    src = DocwordSource(path, chunk_size=CHUNK)
    assert (src.n_samples, src.n_features) == X.shape
    lam0 = np.random.default_rng(1).gamma(100.0, 0.01, size=(K, VOCAB))
    params = dict(n_components=K, max_iter=2, tol=0, init={"components": lam0})
    in_memory = LatentDirichletAllocation(**params).fit(X)  # also compiles the kernels

    tracemalloc.start()
    try:
        chunked = LatentDirichletAllocation(**params).fit(src)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()

    # same iterations, same ELBO trace, same topics
    assert chunked.n_iter_ == in_memory.n_iter_ == 2
    np.testing.assert_allclose(chunked.lower_bounds_, in_memory.lower_bounds_, rtol=1e-10)
    np.testing.assert_allclose(chunked.components_, in_memory.components_, rtol=1e-10)
    assert chunked.elbo(src) == pytest.approx(in_memory.elbo(X), rel=1e-10)

    # memory: one chunk's working arrays (CSR counts, the kernel's int64 copies and per-token
    # ratios, gamma and exp(E[log theta]) per document) plus the model (a handful of K x V
    # tables), a small multiple for the chunk's assembly, plus the parser's block of text
    # (a fixed size, as Python strings and NumPy temporaries)
    chunk = max((X[a:a + CHUNK] for a in range(0, N_DOCS, CHUNK)), key=lambda c: c.nnz)
    chunk_arrays = _csr_bytes(chunk) + 16 * chunk.nnz + 2 * 8 * chunk.shape[0] * K
    model = 8 * K * VOCAB * 8
    parser = 32 * DocwordSource._block_bytes
    assert peak < 4 * chunk_arrays + model + parser, (peak, chunk_arrays, model, parser)
    # ... far below the corpus held in memory (20 chunks)
    assert peak < 0.5 * _csr_bytes(X), (peak, _csr_bytes(X))


def test_chunked_pass_memory_does_not_grow_with_the_file(corpus_file, tmp_path):
    """Reading the whole file, and the first quarter of it, peak at the same memory: it is set
    by the chunk size, not by the number of documents."""
    X, path = corpus_file
    small = tmp_path / "quarter.txt"
    write_docword(small, X[:N_DOCS // 4])
    peaks = []
    for p in (small, path):
        tracemalloc.start()
        try:
            n = sum(c.shape[0] for c in DocwordSource(p, chunk_size=CHUNK).iter_chunks())
            peaks.append(tracemalloc.get_traced_memory()[1])
        finally:
            tracemalloc.stop()
        assert n == DocwordSource(p).n_samples
    assert peaks[1] < 1.25 * peaks[0], peaks
