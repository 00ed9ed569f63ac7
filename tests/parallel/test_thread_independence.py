"""Results do not depend on the thread count, bit for bit.

Every E-step that runs on numba's threads (GMM full covariance: BLAS GEMMs over row
partitions fixed by the data size; GMM diag and the variational mixture: fused ``prange``
kernels; LDA batch VB: document ranges on Python threads, :mod:`latentkit._utils.doc_threads`;
categorical HMM: ranges of sequences on the same Python threads, and ``prange`` over the time
blocks of one long sequence; the missing-data E-steps of every covariance
type: ``prange`` over row partitions fixed by the data size)
is fitted in subprocesses with ``NUMBA_NUM_THREADS`` = 1 and 16 (16 oversubscribes a 2-core
machine, as a 16-core one would run it), and the SHA-256 digests of the exact bytes of
the fitted parameters and bound traces must be identical.

A first subprocess only warms numba's on-disk cache: a kernel compiled in the same process as
its callees may be optimised across the call (inlined) while one loaded from the cache is not,
which can change the last bits -- a compile-path effect, not a thread-count one.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).with_name("_thread_workloads.py")
ROOT = Path(__file__).resolve().parents[2]


def _run(threads):
    env = dict(os.environ, NUMBA_NUM_THREADS=str(threads),
               PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    env.pop("LATENTKIT_DISABLE_JIT", None)
    res = subprocess.run([sys.executable, str(SCRIPT)], env=env, capture_output=True, text=True,
                         timeout=300, check=False)
    assert res.returncode == 0, res.stderr[-3000:]
    out = json.loads(res.stdout)
    assert out.pop("threads") == threads
    return out


@pytest.mark.slow
@pytest.mark.skipif(os.environ.get("LATENTKIT_DISABLE_JIT", "0") not in ("", "0"),
                    reason="needs the compiled kernels")
def test_fits_are_bit_identical_for_1_and_16_threads():
    _run(2)  # warm the kernel cache (see the module docstring)
    runs = {t: _run(t) for t in (1, 16)}
    assert set(runs[1]) == {"gmm_full", "gmm_diag", "vgmm_full", "lda_batch",
                            "lda_batch_blocked_stats", "hmm_categorical", "hmm_long",
                            "gmm_missing_full", "gmm_missing_tied", "gmm_missing_diag",
                            "gmm_missing_spherical", "vgmm_missing_full"}
    for t in (16,):
        differ = sorted(k for k in runs[1] if runs[t][k] != runs[1][k])
        assert not differ, f"{differ} differ between 1 and {t} threads"


def test_gemm_partitions_depend_on_the_data_size_only():
    import numpy as np

    from latentkit.distributions import _gaussian_estep as g

    for n in (1, 255, 4096, 4097, 9000, 1_000_000):
        edges = g._gemm_partitions(n)
        assert edges[0] == 0 and edges[-1] == n and np.all(np.diff(edges) > 0)
        assert np.diff(edges).max() <= g._GEMM_PART_ROWS
    assert len(g._gemm_partitions(1_000_000)) - 1 >= 16  # every one of 16 threads has work


@pytest.mark.slow
def test_gemm_kernel_any_partition_matches_oracle_and_checks_edges():
    import numpy as np

    from latentkit._kernels import gaussian as kern
    from latentkit.distributions import compute_precision_cholesky
    from latentkit.testing import oracle_gaussian_stats, oracle_log_resp

    rng = np.random.default_rng(2)
    n, k, d = 700, 3, 4
    X = rng.normal(size=(n, d)) + 1.0
    c = X.mean(0)
    w = rng.uniform(0, 2, size=n)
    means = rng.normal(size=(k, d))
    A = rng.normal(size=(k, d, d))
    U, _ = compute_precision_cholesky(A @ A.transpose(0, 2, 1) + d * np.eye(d), "full")
    const = rng.normal(size=k)
    ucat = np.ascontiguousarray(U.transpose(1, 0, 2).reshape(d, k * d))
    bcat = np.einsum("kd,kde->ke", means - c, U).reshape(k * d)
    maha = np.stack([(((X - means[j]) @ U[j]) ** 2).sum(1) for j in range(k)], axis=1)
    o_lr, _, o_lse = oracle_log_resp(const - 0.5 * maha, w)
    o_nk, o_sx, o_sxx = oracle_gaussian_stats(X, np.exp(o_lr), "full", sample_weight=w, shift=c)
    # uneven partitions, an empty one, chunks that do not divide them
    edges = np.array([0, 5, 5, 300, 700], dtype=np.int64)
    P = len(edges) - 1
    nk, sx, sxx = np.zeros((P, k)), np.zeros((P, k, d)), np.zeros((P, d, k * d))
    lse, lr = np.empty(n), np.empty((n, k))
    kern.mixture_estep_full_gemm(X, c, ucat, bcat, const, w, edges, 64, nk, sx, sxx, lse, lr)
    np.testing.assert_allclose(lr, o_lr, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(lse, o_lse, rtol=1e-10)
    np.testing.assert_allclose(nk.sum(0), o_nk, rtol=1e-10)
    np.testing.assert_allclose(sx.sum(0), o_sx, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(sxx.sum(0).reshape(d, k, d).transpose(1, 0, 2), o_sxx,
                               rtol=1e-10, atol=1e-10)
    assert np.all(nk[1] == 0)  # the empty partition adds nothing
    # one partition: the serial shortcut (no parallel kernel) equals the parallel kernel bitwise
    one = []
    for shortcut in (True, False):
        out = (np.zeros((1, k)), np.zeros((1, k, d)), np.zeros((1, d, k * d)), np.empty(n),
               np.empty((n, k)))
        call = (kern.mixture_estep_full_gemm if shortcut
                else lambda *a: kern._estep_full_gemm_kernel(*a, True))
        call(X, c, ucat, bcat, const, w, np.array([0, n], dtype=np.int64), 64, *out)
        one.append(out)
    for a, b in zip(*one):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_allclose(one[0][4], o_lr, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(one[0][2][0].reshape(d, k, d).transpose(1, 0, 2), o_sxx,
                               rtol=1e-10, atol=1e-10)
    for bad in ([0, 300, 699], [0, 400, 300, 700], [1, 700]):
        with pytest.raises(ValueError, match="edges must be"):
            kern.mixture_estep_full_gemm(X, c, ucat, bcat, const, w,
                                         np.array(bad, dtype=np.int64), 64, nk, sx, sxx, lse)
    with pytest.raises(ValueError, match="chunk must be"):
        kern.mixture_estep_full_gemm(X, c, ucat, bcat, const, w, edges, 0, nk, sx, sxx, lse)


def test_lda_blocked_statistics_match_serial(monkeypatch):
    import numpy as np

    from latentkit._kernels import topic as kern
    from latentkit.datasets import make_lda_corpus
    from latentkit.topic import _lda_estep as _lda

    X, _ = make_lda_corpus(n_docs=120, n_components=3, vocab_size=80, doc_length=30,
                           random_state=1)
    X = X.tocsr()
    X.data[X.indptr[5]:X.indptr[6]] = 0  # an empty document inside a block
    X.eliminate_zeros()
    rng = np.random.default_rng(0)
    K = 3
    ratio, et, eb = rng.random(X.nnz), rng.random((X.shape[0], K)), rng.random((X.shape[1], K))
    indptr, indices = X.indptr.astype(np.int64), X.indices.astype(np.int64)
    ref = np.empty((X.shape[1], K))
    kern.lda_suff_stats(indptr, indices, ratio, et, eb, ref)
    monkeypatch.setattr(_lda, "_SUFF_BLOCK_NNZ", 300)
    assert _lda._suff_blocks(X.shape[0], X.nnz, X.shape[1], K) > 1
    got = _lda._suff_stats(X, ratio, et, eb)
    np.testing.assert_allclose(got, ref.T, rtol=1e-12)
