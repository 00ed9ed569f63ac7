"""Document ranges on Python threads (latentkit._utils.doc_threads) give exactly the one-range
result: LDA's E-step, every output, bit for bit; an empty document inside a range; outputs
pre-filled with NaN, so a document no range covers would show. (The CVB0 sweep runs fixed
blocks with a table of counts each: tests/topic/test_cvb0_blocks.py.)"""

import numpy as np
import pytest

from latentkit._kernels import topic as kt
from latentkit._utils import doc_threads
from latentkit.datasets import make_lda_corpus


def _corpus():
    X, _ = make_lda_corpus(n_docs=70, n_components=4, vocab_size=60, doc_length=25,
                           random_state=3)
    X = X.tocsr()
    X.data[X.indptr[9]:X.indptr[10]] = 0   # an empty document
    X.eliminate_zeros()
    return (X.indptr.astype(np.int64), X.indices.astype(np.int64), X.data.astype(np.float64),
            X.shape[1])


def _lda_outputs(run, indptr, indices, data, V, K=4):
    rng = np.random.default_rng(0)
    lam = rng.gamma(1.0, 1.0, size=(V, K)) + 0.1
    shift = np.log(lam).max(axis=1)
    D = indptr.shape[0] - 1
    out = [np.full((D, K), np.nan), np.full((D, K), np.nan), np.full(data.shape[0], np.nan),
           np.full(D, np.nan), np.full(D, -1, dtype=np.int64)]
    gamma, exp_theta, ratio, doc_elbo, n_iter = out
    run(kt.lda_e_step, indptr, indices, data, np.exp(np.log(lam) - shift[:, None]), shift, 0.25,
        gamma, False, 100, 1e-6, exp_theta, ratio, doc_elbo, n_iter)
    return out


def _one_range(kernel, indptr, *args):
    kernel(np.int64(0), np.int64(indptr.shape[0] - 1), indptr, *args)


@pytest.mark.parametrize("outputs", [_lda_outputs])
@pytest.mark.parametrize("threads", [1, 3])
def test_ranges_on_threads_match_one_range(monkeypatch, outputs, threads):
    arrays = _corpus()
    ref = outputs(_one_range, *arrays)
    assert not any(np.isnan(a).any() for a in ref if a.dtype.kind == "f")
    monkeypatch.setattr(doc_threads.numba, "get_num_threads", lambda: threads)
    got = outputs(doc_threads.over_documents, *arrays)
    for a, b in zip(ref, got):
        np.testing.assert_array_equal(a, b)


def test_the_pool_is_kept_between_calls_and_remade_after_fork_or_another_count(monkeypatch):
    # issue 46: a pool made per call cost 13-16 ms a call on a loaded machine; the kept pool
    # runs the same ranges (same numbers: test above), and a fork child (another pid, whose
    # copy has no threads) or another thread count gets a new one
    import os
    monkeypatch.setattr(doc_threads, "_POOL", None)
    first = doc_threads._pool(2)
    assert doc_threads._pool(2) is first
    assert doc_threads._pool(3) is not first
    third = doc_threads._pool(3)
    pid = os.getpid()
    monkeypatch.setattr(doc_threads.os, "getpid", lambda: pid + 1)
    assert doc_threads._pool(3) is not third
    out = np.zeros(9)

    def fill(a, b, o):
        o[a:b] = b

    monkeypatch.setattr(doc_threads.numba, "get_num_threads", lambda: 2)
    doc_threads.over_ranges(fill, np.array([0, 2, 5, 9], dtype=np.int64), out)
    np.testing.assert_array_equal(out, [2, 2, 5, 5, 5, 9, 9, 9, 9])
    doc_threads._pool(2).shutdown(wait=True)
    third.shutdown(wait=True)
    first.shutdown(wait=True)


def test_a_fork_child_runs_ranges_on_a_pool_of_its_own():
    # the parent's kept pool has no threads in a child made by fork: the child makes its own
    # (and a fresh lock), so its ranges run and return
    import multiprocessing
    import os
    if not hasattr(os, "fork"):
        pytest.skip("no fork on this platform")
    doc_threads.over_ranges(_fill, np.array([0, 2, 4], dtype=np.int64), np.zeros(4))
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(1) as pool:
        out = pool.apply_async(_child_ranges).get(timeout=60)
    np.testing.assert_array_equal(out, [2, 2, 4, 4])


def _fill(a, b, o):
    o[a:b] = b


def _child_ranges():
    import numba
    numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
    out = np.zeros(4)
    doc_threads.over_ranges(_fill, np.array([0, 2, 4], dtype=np.int64), out)
    return out
