"""LDA's E-step on KOS (K = 20) run by the thread pool of ``_utils/doc_threads`` (today's code)
against a ``prange`` kernel calling the same serial range kernel (the structure before issue 28's
third pass), alternated in one process, 7 repeats: does the thread pool cost warm speed?

Run from the repository root: ``python benchmarks/bench_lda_threads.py``."""
import sys
import time
from pathlib import Path
import numpy as np, numba
from numba import prange
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import latentkit.topic._lda_estep as E
from latentkit._kernels import topic as K
from latentkit.datasets import load_kos

@numba.njit(parallel=True)
def _prange_run(edges, indptr, *args):
    for b in prange(edges.shape[0] - 1):
        K.lda_e_step(edges[b], edges[b + 1], indptr, *args)

orig = E.over_documents
def prange_over(kernel, indptr, *args, serial_below=0):
    threads = numba.get_num_threads()
    D = indptr.shape[0] - 1
    n = int(min(D, threads * 8))
    edges = np.searchsorted(indptr, np.arange(n + 1) * (indptr[-1] / n)).astype(np.int64)
    edges[0], edges[-1] = 0, D
    edges = np.maximum.accumulate(edges)
    _prange_run(edges, indptr, *args)

X = load_kos().data
rng = np.random.default_rng(0)
comp = rng.gamma(100.0, 0.01, (20, X.shape[1]))
res = {}
for name, fn in [("threads", orig), ("prange", prange_over)] * 1:
    E.over_documents = fn
    E.lda_e_step(X, comp, 0.05)  # warm/compile
res = {"threads": [], "prange": []}
out = {}
for rep in range(7):
    for name, fn in [("threads", orig), ("prange", prange_over)]:
        E.over_documents = fn
        t = time.perf_counter(); r = E.lda_e_step(X, comp, 0.05); res[name].append(time.perf_counter() - t)
        out[name] = r[0]
print("same gamma:", np.array_equal(out["threads"], out["prange"]))
for k, v in res.items():
    print(f"{k:8s} best {min(v)*1e3:.1f} ms  median {np.median(v)*1e3:.1f} ms")
print("threads / prange (median):", np.median(res["threads"]) / np.median(res["prange"]))
