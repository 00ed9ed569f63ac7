"""Out-of-core batch VB LDA on a generated UCI docword file: peak memory and ELBO trace against
the in-memory fit.

Protocol
--------
* A corpus drawn from the LDA generative model (``latentkit.datasets.make_lda_corpus``; default
  200,000 documents, K=10 planted topics, V=1,000 words, 30 tokens per document) is written as
  a plain-text UCI docword file (``D``, ``W``, ``NNZ``, then ``doc word count`` lines).
* Two fresh processes fit ``LatentDirichletAllocation(K, max_iter=ITERS, tol=0)`` from the same
  starting topics:
  - **chunked**: ``fit(DocwordSource(path, chunk_size=10_000))``: every iteration re-reads the
    file chunk by chunk and sums the E-step statistics (the whole matrix is never in memory);
  - **in memory**: ``read_docword(path)`` then ``fit(X)``.
  Each reports its peak traced allocation (``tracemalloc``, which counts NumPy buffers) and its
  peak resident set size (``ru_maxrss``; includes the interpreter, NumPy/SciPy/numba and the
  compiled kernels, so the baseline of an empty process that imported latentkit and compiled
  the kernels is measured too and subtracted).
* Printed: the size of one chunk's arrays (CSR + the kernel's per-token and per-document arrays)
  and of the model (K x V tables), the whole corpus as CSR, each process's peaks, and the
  largest relative difference of the two ELBO traces (target 1e-10).

Run (the machine is shared; times vary with the load, memory does not):

    python benchmarks/bench_out_of_core.py [--n-docs 200000] [--chunk-size 10000] [--iters 3]
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))
sys.path.insert(0, ROOT)


def write_docword(path, X, block=20_000):
    """Write CSR counts ``X`` as a UCI docword file, ``block`` documents at a time."""
    X = X.tocsr()
    X.sort_indices()
    with open(path, "w") as fh:
        fh.write(f"{X.shape[0]}\n{X.shape[1]}\n{X.nnz}\n")
        for a in range(0, X.shape[0], block):
            B = X[a:a + block]
            rows = np.repeat(np.arange(a + 1, a + B.shape[0] + 1), np.diff(B.indptr))
            fh.writelines(f"{d} {w} {c}\n" for d, w, c in
                          zip(rows.tolist(), (B.indices + 1).tolist(),
                              B.data.astype(np.int64).tolist()))


CHILD = r"""
import json, resource, sys, time, tracemalloc
import numpy as np
sys.path.insert(0, {root!r})
from latentkit.datasets import read_docword
from latentkit.inference import DocwordSource
from latentkit.topic import LatentDirichletAllocation
mode, path, chunk, k, iters, seed = sys.argv[1:7]
chunk, k, iters, seed = int(chunk), int(k), int(iters), int(seed)
src = DocwordSource(path, chunk_size=chunk)
V = src.n_features
lam0 = np.random.default_rng(seed).gamma(100.0, 0.01, size=(k, V))
# compile the kernels on a tiny slice first (not part of the measurement)
first = next(iter(src.iter_chunks()))[:50]
LatentDirichletAllocation(k, max_iter=1, tol=0, init={{"components": lam0}}).fit(first)
rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
out = {{"rss_baseline": rss0}}
if mode != "baseline":
    tracemalloc.start()
    t0 = time.perf_counter()
    data = src if mode == "chunked" else read_docword(path).data
    m = LatentDirichletAllocation(k, max_iter=iters, tol=0, init={{"components": lam0}}).fit(data)
    out["seconds"] = time.perf_counter() - t0
    out["traced_peak"] = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    out["lower_bounds"] = m.lower_bounds_.tolist()
out["rss_peak"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps(out))
"""


def run_child(mode, path, args):
    code = CHILD.format(root=ROOT)
    res = subprocess.run([sys.executable, "-c", code, mode, str(path), str(args.chunk_size),
                          str(args.k), str(args.iters), str(args.seed)],
                         capture_output=True, text=True, check=False)
    if res.returncode != 0:
        sys.stderr.write(res.stderr)
        raise SystemExit(f"{mode} run failed")
    return json.loads(res.stdout.strip().splitlines()[-1])


def mb(x):
    return f"{x / 2**20:8.1f} MB"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n-docs", type=int, default=200_000)
    ap.add_argument("--chunk-size", type=int, default=10_000)
    ap.add_argument("--vocab", type=int, default=1000)
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--doc-length", type=int, default=30)
    ap.add_argument("--iters", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--keep", metavar="PATH", help="write the docword file here and keep it")
    args = ap.parse_args()

    from latentkit.datasets import make_lda_corpus

    t0 = time.perf_counter()
    X, _ = make_lda_corpus(args.n_docs, args.k, args.vocab, doc_length=args.doc_length,
                           random_state=args.seed)
    tmp = None
    if args.keep:
        path = args.keep
    else:
        tmp = tempfile.TemporaryDirectory()
        path = os.path.join(tmp.name, "docword.synthetic.txt")
    write_docword(path, X)
    print(f"corpus      {args.n_docs} documents x {args.vocab} words, {X.nnz} entries, "
          f"{int(X.sum())} tokens; file {os.path.getsize(path) / 2**20:.1f} MB "
          f"(generated and written in {time.perf_counter() - t0:.1f} s)")
    csr = X.data.nbytes + X.indices.nbytes + X.indptr.nbytes
    chunk_nnz = max(X[a:a + args.chunk_size].nnz for a in range(0, args.n_docs, args.chunk_size))
    n_chunk = min(args.chunk_size, args.n_docs)
    chunk_arrays = chunk_nnz * (8 + 4) + 4 * (n_chunk + 1) + 16 * chunk_nnz \
        + 2 * 8 * n_chunk * args.k
    model = 8 * args.k * args.vocab * 8
    del X

    base = run_child("baseline", path, args)
    chunked = run_child("chunked", path, args)
    memory = run_child("memory", path, args)
    if tmp is not None:
        tmp.cleanup()

    lb_c, lb_m = np.array(chunked["lower_bounds"]), np.array(memory["lower_bounds"])
    rel = float(np.max(np.abs(lb_c - lb_m) / np.abs(lb_m)))
    print(f"one chunk   {n_chunk} documents: arrays {mb(chunk_arrays)} "
          "(CSR, kernel per-token and per-document arrays)")
    print(f"model       K x V tables (8 of them) {mb(model)}")
    print(f"whole corpus as CSR {mb(csr)}")
    print(f"baseline RSS (interpreter, libraries, compiled kernels) {mb(base['rss_baseline'])}")
    print(f"{'':12}{'traced peak':>14}{'peak RSS - baseline':>22}{'seconds':>10}")
    for name, r in (("chunked", chunked), ("in memory", memory)):
        print(f"{name:12}{mb(r['traced_peak']):>14}{mb(r['rss_peak'] - r['rss_baseline']):>22}"
              f"{r['seconds']:>10.1f}")
    print(f"chunked traced peak / (one chunk + model)   "
          f"{chunked['traced_peak'] / (chunk_arrays + model):.2f}")
    print(f"chunked traced peak / in-memory traced peak {chunked['traced_peak'] / memory['traced_peak']:.3f}")
    print(f"ELBO traces (nats per document): chunked {np.round(lb_c, 6).tolist()}")
    print(f"                                 in memory {np.round(lb_m, 6).tolist()}")
    print(f"max relative difference {rel:.2e} (target 1e-10)")


if __name__ == "__main__":
    main()
