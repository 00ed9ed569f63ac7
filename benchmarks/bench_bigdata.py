"""Big data: GaussianMixture (full covariance, K=8) on N x 16 rows and LatentDirichletAllocation
(batch VB, K=20) on generated documents, read in chunks from files on disk (memory bounded by
the chunk) and on a Dask LocalCluster, against the in-memory threaded fit on the same machine.

Protocol
--------
* GaussianMixture: N rows of a planted 8-component mixture in 16 dimensions are written chunk
  by chunk to a ``.npy`` file (never all in memory in this process). LDA: documents of the LDA
  generative model (20 planted topics over 5,000 words, Poisson lengths of mean 80) are written
  as UCI ``docword`` files of ``--chunk-docs`` documents each.
* Fresh processes fit from the same start (GMM: weights, means, precisions given; LDA: the
  topics lambda given) with ``max_iter=ITERS, tol=0``:
  - **baseline**: imports latentkit and compiles the kernels on 2,000 rows/documents (its peak
    RSS is subtracted from the others: the interpreter, NumPy/SciPy/numba and the compiled
    code);
  - **chunked**: ``fit(IterableSource(...))`` reading one chunk at a time (GMM: ``--chunk-rows``
    rows with plain reads, no memory map, whose pages would count in the RSS; LDA: one docword
    file through ``DocwordSource``); every iteration re-reads the files;
  - **in memory**: all the data loaded, ``fit(X)`` (threaded, all cores).
  Each reports seconds per iteration (median of the iterations after the first) and peak RSS
  (``VmHWM``).
* **Dask**: a ``LocalCluster(n_workers=--workers, threads_per_worker=1)`` (one numba thread per
  worker process) in this process; the blocks are ``da.from_delayed`` loads that the workers
  run themselves (no data goes through the client; LDA blocks are CSR matrices). The fit
  persists the validated blocks on the workers after the first iteration. The model state is
  sent as ONE graph key per iteration (a Dask ``delayed`` literal), so each worker receives
  and deserialises it once per iteration, not once per block: measured by a probe object in
  the state whose unpickling on a worker counts it, with the state's pickled size. Reported:
  seconds per iteration, the overhead against the in-memory threaded fit (target <= 1.3x on 2
  workers), and the model bytes received by the workers per iteration against the per-block
  alternative.
* Printed: rows or tokens per second per core of each way, peak RSS above the baseline, the
  chunk size, and the largest relative difference of the bound traces (all equal to 1e-10).

The issue's sizes (``--full``): 20,000,000 rows in chunks of 1,000,000 (a 2.6 GB file) and
1,000,000 documents in files of 100,000. Defaults are sized for a 2-core, 24 GiB machine (a few
minutes).

Run (the machine may be shared; times vary with the load, memory does not):

    python benchmarks/bench_bigdata.py [--model gmm|lda|both] [--rows 2000000]
        [--chunk-rows 200000] [--docs 100000] [--chunk-docs 10000] [--full] [--iters 4]
        [--workers 2] [--skip-dask] [--json PATH]
"""

import argparse
import json
import os
import pickle
import resource
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

K, D = 8, 16


def planted(seed=0):
    rng = np.random.default_rng(seed)
    means = rng.normal(scale=3.0, size=(K, D))
    A = rng.normal(size=(K, D, D)) / np.sqrt(D)
    chol = np.linalg.cholesky(A @ A.transpose(0, 2, 1) + 0.5 * np.eye(D))
    return means, chol


def write_rows(path, n, chunk, seed=0):
    """Write n rows of the planted mixture to a .npy file, chunk by chunk."""
    means, chol = planted(seed)
    rng = np.random.default_rng(seed + 1)
    mm = np.lib.format.open_memmap(path, mode="w+", dtype=np.float64, shape=(n, D))
    for a in range(0, n, chunk):
        b = min(n, a + chunk)
        z = rng.integers(0, K, size=b - a)
        mm[a:b] = means[z] + np.einsum("nij,nj->ni", chol[z], rng.standard_normal((b - a, D)))
    mm.flush()
    del mm


def start_params(path):
    from latentkit.mixture._gaussian import kmeans_plusplus

    X0 = np.array(np.load(path, mmap_mode="r")[:5000])
    centers, _ = kmeans_plusplus(X0, K, np.random.default_rng(0), n_lloyd=0)
    prec = np.linalg.inv(np.cov(X0.T))
    return {"weights": np.full(K, 1.0 / K), "means": centers,
            "precisions": np.repeat(prec[None], K, axis=0)}


def timed(model_factory, data):
    stamps = []

    def cb(model, it, elbo):
        stamps.append(time.perf_counter())

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.perf_counter()
        m = model_factory(cb).fit(data)
    per = np.diff(np.array([t0] + stamps))
    return {"seconds_per_iteration": float(np.median(per[1:] if per.size > 1 else per)),
            "first_iteration": float(per[0]), "lower_bounds": m.lower_bounds_.tolist()}


def child(mode, path, iters, chunk_rows):
    """One measurement in a fresh process; prints JSON."""
    from latentkit.inference import IterableSource
    from latentkit.mixture import GaussianMixture

    start = start_params(path)

    def factory(cb):
        return GaussianMixture(K, init=start, max_iter=iters, tol=0, callback=cb)

    mm = np.load(path, mmap_mode="r")
    n = mm.shape[0]
    if mode == "baseline":
        out = timed(factory, np.array(mm[:2000]))
    elif mode == "chunked":
        def chunks():
            # plain reads, not a memory map: mapped file pages would count in the RSS
            with open(path, "rb") as fh:
                np.lib.format.read_magic(fh)
                np.lib.format.read_array_header_1_0(fh)
                for a in range(0, n, chunk_rows):
                    m = min(chunk_rows, n - a)
                    yield np.fromfile(fh, dtype=np.float64, count=m * D).reshape(m, D)

        timed(factory, np.array(mm[:2000]))  # compile outside the timing (as the baseline)
        out = timed(factory, IterableSource(chunks, n_samples=n))
    else:
        timed(factory, np.array(mm[:2000]))
        X = np.load(path)
        out = timed(factory, X)
    out["peak_rss_bytes"] = peak_rss_bytes()
    print(json.dumps(out))


def peak_rss_bytes():
    """This process's peak resident set size: ``VmHWM`` (Linux; unlike ``ru_maxrss``, which
    Linux carries over ``execve`` from the parent, it starts afresh in a new process)."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:  # pragma: no cover - not Linux
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def run_child(mode, path, iters, chunk_rows):
    res = subprocess.run([sys.executable, __file__, "--_child", mode, "--_path", str(path),
                          "--iters", str(iters), "--chunk-rows", str(chunk_rows)],
                         capture_output=True, text=True, check=False,
                         env=dict(os.environ, PYTHONPATH=str(ROOT)))
    if res.returncode != 0:
        raise RuntimeError(res.stderr[-3000:])
    return json.loads(res.stdout.strip().splitlines()[-1])


# ---- Dask ---------------------------------------------------------------------------------------

def _load_rows(path, a, b):
    return np.array(np.load(path, mmap_mode="r")[a:b])


def _count_on_worker(nbytes):
    """Count one model deserialisation on the worker(s) of this process (deserialisation runs
    outside a task, where ``get_worker()`` is not available)."""
    try:
        from distributed.worker import Worker
    except ImportError:  # pragma: no cover
        return
    for w in list(Worker._instances):
        w._latentkit_model_loads = getattr(w, "_latentkit_model_loads", 0) + 1
        w._latentkit_model_bytes = getattr(w, "_latentkit_model_bytes", 0) + nbytes


class _Probe:
    """Travels inside the model state of every E-step task; unpickling it on a worker counts
    one model deserialisation of ``nbytes`` bytes: the pickled size of the state as it is
    sent (measured when the probe is pickled, after the driver has trimmed the state)."""

    def __init__(self, nbytes=None, state=None):
        self.nbytes, self.state = nbytes, state

    def __reduce__(self):
        if self.nbytes is None:
            rest = {k: v for k, v in self.state.items() if v is not self}
            self.nbytes = len(pickle.dumps(rest, protocol=pickle.HIGHEST_PROTOCOL))
        return _probe_loaded, (self.nbytes,)


def _probe_loaded(nbytes):
    _count_on_worker(nbytes)  # a no-op outside a worker (the scheduler unpickles it too)
    return _Probe(nbytes)  # so that it survives being pickled again on its way


def counting_class(base=None):
    """A subclass of ``base`` (default GaussianMixture) whose state, as sent to the Dask
    workers with every iteration's tasks, counts its deserialisations there."""
    if base is None:
        from latentkit.mixture import GaussianMixture as base

    class Counted(base):
        def _get_state(self):
            state = super()._get_state()
            state["probe"] = _Probe(state=state)
            return state

        def _set_state(self, state):
            state = dict(state)
            state.pop("probe", None)
            super()._set_state(state)

        def __getstate__(self):
            state = self.__dict__.copy()
            state.pop("callback", None)  # the driver's timing callback stays on the client
            return state

    Counted.__name__ = Counted.__qualname__ = "Counted" + base.__name__
    return Counted


def fit_on_cluster(factory, X, X_warm, workers, n_blocks):
    """Fit ``factory(cb)`` on the Dask array ``X`` on a fresh LocalCluster (after a warm-up fit
    on ``X_warm`` that compiles the kernels on the workers); returns :func:`timed`'s record
    plus the model deserialisations on the workers and their bytes (see ``counting_class``)."""
    import distributed

    # one numba thread per worker process: the workers are the parallelism (2 workers x 2
    # numba threads on 2 cores would oversubscribe them)
    cluster = distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                       dashboard_address=None, silence_logs=40,
                                       env={"NUMBA_NUM_THREADS": "1"})
    try:
        with distributed.Client(cluster) as client:
            timed(factory, X_warm)
            for name in ("_latentkit_model_loads", "_latentkit_model_bytes"):
                client.run(lambda dask_worker, name=name: setattr(dask_worker, name, 0))
            out = timed(factory, X)
            loads, nbytes = (client.run(lambda dask_worker, name=name: getattr(dask_worker,
                                                                               name, 0))
                             for name in ("_latentkit_model_loads", "_latentkit_model_bytes"))
    finally:
        cluster.close()
    out["model_loads"] = int(sum(loads.values()))
    out["model_bytes"] = int(sum(nbytes.values()))
    out["n_blocks"] = n_blocks
    return out


def run_dask(path, n, iters, chunk_rows, workers):
    import cloudpickle
    import dask
    import dask.array as da

    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    start = start_params(path)
    blocks = [da.from_delayed(dask.delayed(_load_rows)(str(path), a, min(n, a + chunk_rows)),
                              shape=(min(n, a + chunk_rows) - a, D), dtype=np.float64)
              for a in range(0, n, chunk_rows)]
    X = da.concatenate(blocks, axis=0)
    Counted = counting_class()
    # one numba thread per worker process: the workers are the parallelism (2 workers x 2
    # numba threads on 2 cores would oversubscribe them)
    def factory(cb):
        return Counted(K, init=start, max_iter=iters, tol=0, callback=cb)

    return fit_on_cluster(factory, X, X[:4 * chunk_rows] if n > 4 * chunk_rows else X,
                          workers, len(blocks))


# ---- LDA ---------------------------------------------------------------------------------------

LDA_K, LDA_V, LDA_LEN = 20, 5000, 80


def lda_topics(seed=0):
    """Planted topics: beta_k ~ Dirichlet(0.05) over LDA_V words."""
    return np.random.default_rng(seed).dirichlet(np.full(LDA_V, 0.05), size=LDA_K)


def lda_chunk(beta, n_docs, rng):
    """``n_docs`` documents of the LDA generative model (theta ~ Dirichlet(1/K), Poisson
    lengths of mean LDA_LEN), as CSR counts: topics then words drawn token by token, by
    inverse CDF (vectorised over the chunk)."""
    import scipy.sparse as sp

    lengths = rng.poisson(LDA_LEN, size=n_docs)
    theta = rng.dirichlet(np.full(LDA_K, 1.0 / LDA_K), size=n_docs)
    doc = np.repeat(np.arange(n_docs), lengths)
    cum_t = np.cumsum(theta, axis=1)
    z = np.minimum((rng.random(doc.size)[:, None] > cum_t[doc]).sum(axis=1), LDA_K - 1)
    words = np.empty(doc.size, dtype=np.int64)
    cum_b = np.cumsum(beta, axis=1)
    for k in range(LDA_K):
        sel = np.flatnonzero(z == k)
        words[sel] = np.minimum(np.searchsorted(cum_b[k], rng.random(sel.size)), LDA_V - 1)
    X = sp.csr_matrix((np.ones(doc.size), (doc, words)), shape=(n_docs, LDA_V))
    X.sum_duplicates()
    return X


def write_docword(path, X):
    """A UCI ``docword`` file (D, W, NNZ, then ``doc word count`` lines, 1-based)."""
    d = np.repeat(np.arange(1, X.shape[0] + 1), np.diff(X.indptr))
    lines = np.char.add(np.char.add(np.char.add(d.astype(str), " "),
                                    np.char.add((X.indices + 1).astype(str), " ")),
                        X.data.astype(np.int64).astype(str))
    with open(path, "w") as fh:
        fh.write(f"{X.shape[0]}\n{X.shape[1]}\n{X.nnz}\n")
        fh.write("\n".join(lines.tolist()))
        fh.write("\n")


def write_corpus(folder, n_docs, chunk_docs, seed=0):
    """Docword files of ``chunk_docs`` documents each; returns (paths, tokens)."""
    beta = lda_topics(seed)
    rng = np.random.default_rng(seed + 1)
    paths, tokens = [], 0.0
    for i, a in enumerate(range(0, n_docs, chunk_docs)):
        X = lda_chunk(beta, min(chunk_docs, n_docs - a), rng)
        tokens += X.sum()
        paths.append(str(Path(folder) / f"docs_{i:05d}.docword"))
        write_docword(paths[-1], X)
    return paths, tokens


def read_docword(path):
    from latentkit.inference import DocwordSource

    src = DocwordSource(path, chunk_size=1 << 40)
    return next(iter(src.iter_chunks()))


def lda_start(seed=0):
    return {"components": np.random.default_rng(seed).gamma(100.0, 0.01, size=(LDA_K, LDA_V))}


def lda_factory(cls, iters):
    start = lda_start()

    def factory(cb):
        return cls(LDA_K, init=start, max_iter=iters, tol=0.0, callback=cb)

    return factory


def lda_child(mode, paths, iters):
    import scipy.sparse as sp

    from latentkit.inference import IterableSource
    from latentkit.topic import LatentDirichletAllocation

    factory = lda_factory(LatentDirichletAllocation, iters)
    small = read_docword(paths[0])[:2000]
    if mode == "baseline":
        out = timed(factory, small)
    else:
        timed(factory, small)  # compile outside the timing (as the baseline)
        if mode == "chunked":
            n = sum(docword_n_docs(p) for p in paths)
            out = timed(factory, IterableSource(lambda: (read_docword(p) for p in paths),
                                                n_samples=n))
        else:
            X = sp.vstack([read_docword(p) for p in paths], format="csr")
            out = timed(factory, X)
    out["peak_rss_bytes"] = peak_rss_bytes()
    print(json.dumps(out))


def docword_n_docs(path):
    with open(path) as fh:
        return int(fh.readline())


def run_dask_lda(paths, iters, workers):
    import cloudpickle
    import dask
    import dask.array as da
    import scipy.sparse as sp

    from latentkit.topic import LatentDirichletAllocation

    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    sizes = [docword_n_docs(p) for p in paths]
    meta = sp.csr_matrix((0, LDA_V))
    blocks = [da.from_delayed(dask.delayed(read_docword)(p), shape=(m, LDA_V),
                              dtype=np.float64, meta=meta) for p, m in zip(paths, sizes)]
    X = da.concatenate(blocks, axis=0)
    factory = lda_factory(counting_class(LatentDirichletAllocation), iters)
    return fit_on_cluster(factory, X, X[:min(sum(sizes), 4000)], workers, len(blocks))


def run_lda_child(mode, paths, iters):
    res = subprocess.run([sys.executable, __file__, "--_child", "lda-" + mode, "--_path",
                          ",".join(paths), "--iters", str(iters)],
                         capture_output=True, text=True, check=False,
                         env=dict(os.environ, PYTHONPATH=str(ROOT)))
    if res.returncode != 0:
        raise RuntimeError(res.stderr[-3000:])
    return json.loads(res.stdout.strip().splitlines()[-1])


def report(runs, base, n_units, unit, iters, cores):
    """Print each way's time per iteration, throughput per core, overhead against the
    in-memory fit, peak RSS above the baseline and the model traffic of the Dask run."""
    ref = np.asarray(runs["in memory"]["lower_bounds"])
    t_mem = runs["in memory"]["seconds_per_iteration"]
    for name, r in runs.items():
        lb = np.asarray(r["lower_bounds"])
        rel = float(np.max(np.abs(lb - ref) / np.abs(ref)))
        sec = r["seconds_per_iteration"]
        line = (f"{name:22s}: {sec:7.3f} s/iteration, {n_units / sec / cores / 1e6:6.2f} M {unit}"
                f"/s/core, {sec / t_mem:5.2f}x the in-memory time, bound trace max rel diff "
                f"{rel:.1e}")
        if "peak_rss_bytes" in r:
            line += (f", peak RSS {r['peak_rss_bytes'] / 2**20:7.1f} MiB "
                     f"({(r['peak_rss_bytes'] - base['peak_rss_bytes']) / 2**20:+.1f} MiB "
                     f"above the baseline)")
        print(line)
        if "model_loads" in r:
            per_it = r["model_loads"] / iters
            one = r["model_bytes"] / max(r["model_loads"], 1)
            print(f"{'':24s}model state received by the workers {per_it:.1f} times per "
                  f"iteration ({r['model_bytes'] / iters / 1e3:.1f} kB per iteration, "
                  f"{one / 1e3:.1f} kB each); once per block would be {r['n_blocks']} times "
                  f"({r['n_blocks'] * one / 1e3:.1f} kB)")
        r["rel_diff_to_memory"] = rel


def bench_lda(args, cores, results):
    n, chunk = args.docs, args.chunk_docs
    print(f"\nLatentDirichletAllocation batch VB, K={LDA_K}, V={LDA_V}: {n} generated documents "
          f"(mean length {LDA_LEN}) in docword files of {chunk} documents, {args.iters} "
          f"iterations")
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        t0 = time.perf_counter()
        paths, tokens = write_corpus(tmp, n, chunk)
        size = sum(Path(p).stat().st_size for p in paths)
        print(f"wrote {len(paths)} files, {size / 2**20:.0f} MiB, {tokens / 1e6:.1f} M tokens "
              f"in {time.perf_counter() - t0:.1f} s")
        base = run_lda_child("baseline", paths, args.iters)
        runs = {"chunked from disk": run_lda_child("chunked", paths, args.iters),
                "in memory": run_lda_child("memory", paths, args.iters)}
        if not args.skip_dask:
            runs[f"Dask, {args.workers} workers"] = run_dask_lda(paths, args.iters,
                                                                 args.workers)
    report(runs, base, tokens, "tokens", args.iters, cores)
    results["lda"] = {"documents": n, "chunk_documents": chunk, "tokens": tokens,
                      "baseline_peak_rss_bytes": base["peak_rss_bytes"], "runs": runs}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", choices=["gmm", "lda", "both"], default="both")
    ap.add_argument("--rows", type=int, default=2_000_000)
    ap.add_argument("--chunk-rows", type=int, default=200_000)
    ap.add_argument("--docs", type=int, default=100_000, help="LDA documents")
    ap.add_argument("--chunk-docs", type=int, default=10_000,
                    help="LDA documents per file (default 10,000: 10 blocks, 5 per worker)")
    ap.add_argument("--full", action="store_true",
                    help="the issue's sizes: 20,000,000 rows (chunks of 1,000,000) and "
                         "1,000,000 documents (files of 100,000)")
    ap.add_argument("--iters", type=int, default=4)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--skip-dask", action="store_true")
    ap.add_argument("--json", default=None, metavar="PATH")
    ap.add_argument("--dir", default=None, help="where to write the data files (default: tmp)")
    ap.add_argument("--_child", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--_path", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args._child:
        if args._child.startswith("lda-"):
            lda_child(args._child[4:], args._path.split(","), args.iters)
        else:
            child(args._child, args._path, args.iters, args.chunk_rows)
        return
    if args.full:
        args.rows, args.chunk_rows = 20_000_000, 1_000_000
        args.docs, args.chunk_docs = 1_000_000, 100_000
    cores = os.cpu_count()
    load = os.getloadavg()
    print(f"{cores} cores, load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    results = {"cores": cores, "load_average": load}
    if args.model in ("gmm", "both"):
        bench_gmm(args, cores, results)
    if args.model in ("lda", "both"):
        bench_lda(args, cores, results)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))


def bench_gmm(args, cores, results):
    print(f"GaussianMixture full covariance, K={K}, D={D}: {args.rows} rows in chunks of "
          f"{args.chunk_rows} ({args.chunk_rows * D * 8 / 2**20:.1f} MiB), {args.iters} "
          f"iterations")
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        path = Path(tmp) / "rows.npy"
        t0 = time.perf_counter()
        write_rows(path, args.rows, args.chunk_rows)
        print(f"wrote {path.stat().st_size / 2**20:.0f} MiB in {time.perf_counter() - t0:.1f} s")
        base = run_child("baseline", path, args.iters, args.chunk_rows)
        runs = {"chunked from disk": run_child("chunked", path, args.iters, args.chunk_rows),
                "in memory": run_child("memory", path, args.iters, args.chunk_rows)}
        if not args.skip_dask:
            runs[f"Dask, {args.workers} workers"] = run_dask(path, args.rows, args.iters,
                                                             args.chunk_rows, args.workers)
    report(runs, base, args.rows, "rows", args.iters, cores)
    results["gmm"] = {"rows": args.rows, "chunk_rows": args.chunk_rows,
                      "baseline_peak_rss_bytes": base["peak_rss_bytes"], "runs": runs}


if __name__ == "__main__":
    main()
