"""Big data: GaussianMixture (full covariance, K=8) on N x 16 rows read in chunks from a file on
disk (memory bounded by the chunk) and on a Dask LocalCluster, against the in-memory threaded
fit on the same machine.

Protocol
--------
* N rows of a planted 8-component mixture in 16 dimensions are written chunk by chunk to a
  ``.npy`` file (never all in memory in this process).
* Fresh processes fit ``GaussianMixture(8, covariance_type='full', max_iter=ITERS, tol=0)``
  from the same start (weights, means, precisions given):
  - **baseline**: imports latentkit and compiles the kernels on 2,000 rows (its peak RSS is
    subtracted from the others: the interpreter, NumPy/SciPy/numba and the compiled code);
  - **chunked**: ``fit(IterableSource(...))`` reading ``--chunk-rows`` rows per chunk from the
    file with plain reads (each iteration re-reads the file; no memory map, whose pages would
    count in the RSS);
  - **in memory**: ``np.load`` the whole file, ``fit(X)`` (threaded, all cores).
  Each reports seconds per iteration (median of the iterations after the first) and peak RSS
  (``VmHWM``).
* **Dask**: a ``LocalCluster(n_workers=--workers, threads_per_worker=1)`` in this process; the
  array is ``da.from_delayed`` blocks that the workers load from the file themselves (no data
  goes through the client). The fit persists the validated blocks on the workers after the
  first iteration. The model is sent to the workers as ONE graph key per iteration (a Dask
  ``delayed`` literal), so it is deserialised once per worker and iteration, not once per
  block: measured by counting the model's deserialisations on the workers (a subclass whose
  ``__setstate__`` counts) times its pickled size. Reported: seconds per iteration, the
  overhead against the in-memory threaded fit (target <= 1.3x on 2 workers), and the model
  bytes received by the workers per iteration against the per-block alternative.
* Printed: rows per second per core of each way, peak RSS above the baseline, the chunk size,
  and the largest relative difference of the bound traces (all three equal to 1e-10).

The issue's sizes: ``--rows 20000000 --chunk-rows 1000000`` (a 2.6 GB file). Defaults are sized
for a 2-core, 24 GiB machine.

Run (the machine may be shared; times vary with the load, memory does not):

    python benchmarks/bench_bigdata.py [--rows 2000000] [--chunk-rows 200000] [--iters 4]
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


def counting_class():
    """A GaussianMixture subclass that counts its deserialisations on Dask workers."""
    from latentkit.mixture import GaussianMixture

    class CountedGaussianMixture(GaussianMixture):
        def __setstate__(self, state):
            _count_on_worker(state.pop("_pickled_nbytes", 0))
            self.__dict__.update(state)

        def __getstate__(self):
            state = self.__dict__.copy()
            state.pop("callback", None)  # the driver's timing callback stays on the client
            state["_pickled_nbytes"] = 0
            nbytes = len(pickle.dumps({k: v for k, v in state.items()},
                                      protocol=pickle.HIGHEST_PROTOCOL))
            state["_pickled_nbytes"] = nbytes
            return state

    return CountedGaussianMixture


def run_dask(path, n, iters, chunk_rows, workers):
    import cloudpickle
    import dask
    import dask.array as da
    import distributed

    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    start = start_params(path)
    blocks = [da.from_delayed(dask.delayed(_load_rows)(str(path), a, min(n, a + chunk_rows)),
                              shape=(min(n, a + chunk_rows) - a, D), dtype=np.float64)
              for a in range(0, n, chunk_rows)]
    X = da.concatenate(blocks, axis=0)
    Counted = counting_class()
    cluster = distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                       dashboard_address=None, silence_logs=40)
    try:
        with distributed.Client(cluster) as client:
            def factory(cb):
                return Counted(K, init=start, max_iter=iters, tol=0, callback=cb)

            timed(factory, X[:4 * chunk_rows] if n > 4 * chunk_rows else X)  # warm workers
            client.run(lambda dask_worker: setattr(dask_worker, "_latentkit_model_loads", 0))
            client.run(lambda dask_worker: setattr(dask_worker, "_latentkit_model_bytes", 0))
            out = timed(factory, X)
            loads = client.run(lambda dask_worker: getattr(dask_worker,
                                                           "_latentkit_model_loads", 0))
            nbytes = client.run(lambda dask_worker: getattr(dask_worker,
                                                            "_latentkit_model_bytes", 0))
    finally:
        cluster.close()
    out["model_loads"] = int(sum(loads.values()))
    out["model_bytes"] = int(sum(nbytes.values()))
    out["n_blocks"] = len(blocks)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=2_000_000)
    ap.add_argument("--chunk-rows", type=int, default=200_000)
    ap.add_argument("--iters", type=int, default=4)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--skip-dask", action="store_true")
    ap.add_argument("--json", default=None, metavar="PATH")
    ap.add_argument("--dir", default=None, help="where to write the data file (default: tmp)")
    ap.add_argument("--_child", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--_path", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args._child:
        child(args._child, args._path, args.iters, args.chunk_rows)
        return
    cores = os.cpu_count()
    load = os.getloadavg()
    print(f"GaussianMixture full covariance, K={K}, D={D}: {args.rows} rows in chunks of "
          f"{args.chunk_rows} ({args.chunk_rows * D * 8 / 2**20:.1f} MiB), {args.iters} "
          f"iterations; {cores} cores, load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    results = {"rows": args.rows, "chunk_rows": args.chunk_rows, "cores": cores,
               "load_average": load}
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
    ref = np.asarray(runs["in memory"]["lower_bounds"])
    t_mem = runs["in memory"]["seconds_per_iteration"]
    for name, r in runs.items():
        lb = np.asarray(r["lower_bounds"])
        rel = float(np.max(np.abs(lb - ref) / np.abs(ref)))
        sec = r["seconds_per_iteration"]
        line = (f"{name:22s}: {sec:7.3f} s/iteration, {args.rows / sec / cores / 1e6:6.2f} M rows"
                f"/s/core, {sec / t_mem:5.2f}x the in-memory time, bound trace max rel diff "
                f"{rel:.1e}")
        if "peak_rss_bytes" in r:
            line += (f", peak RSS {r['peak_rss_bytes'] / 2**20:7.1f} MiB "
                     f"({(r['peak_rss_bytes'] - base['peak_rss_bytes']) / 2**20:+.1f} MiB "
                     f"above the baseline)")
        print(line)
        if "model_loads" in r:
            per_it = r["model_loads"] / args.iters
            print(f"{'':24s}model deserialised on the workers {per_it:.1f} times per iteration "
                  f"({r['model_bytes'] / args.iters / 1e3:.1f} kB), {r['n_blocks']} blocks: "
                  f"once per block would be {r['n_blocks']} times "
                  f"({r['n_blocks'] * r['model_bytes'] / max(r['model_loads'], 1) / 1e3:.1f} kB)")
        r["rel_diff_to_memory"] = rel
    results["baseline_peak_rss_bytes"] = base["peak_rss_bytes"]
    results["runs"] = runs
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
