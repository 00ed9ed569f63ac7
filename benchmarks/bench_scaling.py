"""Thread scaling of latentkit's threaded E-steps: seconds per iteration and speedup for 1, 2,
4, ... threads up to the machine's cores, one process, identical data and start per workload.

Workloads (defaults sized for a 2-core machine; the issue's 16-core sizes in brackets, via
the flags):

* ``gmm_full``   GaussianMixture, full covariance, N x 16, K=8   [--gmm-n 1000000]
* ``vgmm_full``  VariationalGaussianMixture, same data           [--gmm-n 1000000]
* ``dpmm_full``  DirichletProcessMixture (truncation 8), same data
* ``lda_batch``  LDA batch VB on generated documents, K topics   [--lda-docs 100000
                 --lda-vocab 20000 --lda-length 150 --lda-k 50]
* ``hmm_categorical`` CategoricalHMM, S sequences x T steps, 10 states, 50 symbols
                 [--hmm-seqs 2000 --hmm-steps 1000]
* ``hmm_long``   CategoricalHMM on ONE sequence of S x T steps (the parallel-in-time
                 forward-backward, when this checkout has it)

For each workload and thread count (``numba.set_num_threads``; BLAS is limited to one thread
inside the threaded kernels), the fit runs ``--iters`` iterations with tol=0 and the median of
the per-iteration wall times (callback stamps; the first iteration, which includes validation
and initialisation, is excluded) is reported, together with whether the bound trace is
bit-identical to the 1-thread run. A ``control`` row (a pure numba ``prange`` compute loop)
shows the speedup this machine grants right now: on a shared or loaded machine no workload can
scale better than it. For ``gmm_full`` the E-step alone is also timed and compared with the
measured float64 GEMM peak of ``np.dot`` at the same thread count (counted as dense GEMM flops,
``4 N K D^2``, and as the triangular flops actually needed, ``2 N K D (D + 1)``), and per CPU
second against one core's GEMM peak (a figure the load of other processes barely moves: on a
shared machine wall-clock fractions measure the scheduler as much as the code).

Run from the repository root::

    python benchmarks/bench_scaling.py                  # all workloads, small sizes
    python benchmarks/bench_scaling.py --json out.json  # also write the results as JSON
    python benchmarks/bench_scaling.py --only gmm_full,lda_batch --threads 1,2,4,8,16
    NUMBA_NUM_THREADS=16 python benchmarks/bench_scaling.py --threads 1,16   # oversubscribe
"""

import argparse
import json
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout

WORKLOADS = ("gmm_full", "vgmm_full", "dpmm_full", "lda_batch", "hmm_categorical", "hmm_long")


def default_threads():
    import numba

    top = int(numba.config.NUMBA_NUM_THREADS)
    out, t = [], 1
    while t < top:
        out.append(t)
        t *= 2
    return out + [top]


def timed_fit(make, X, iters, **fit_params):
    """Fit ``make(callback)`` on X; returns (median seconds per iteration, lower_bounds_)."""
    stamps = []

    def cb(model, it, elbo):
        stamps.append(time.perf_counter())

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = make(cb).fit(X, **fit_params)
    per = np.diff(stamps)
    return float(np.median(per)), np.asarray(model.lower_bounds_, dtype=np.float64)


# ---- workloads ------------------------------------------------------------------------------

def gmm_data(args):
    from latentkit.datasets import make_gmm
    from latentkit.mixture._gaussian import kmeans_plusplus

    X, _, _ = make_gmm(args.gmm_n, 8, 16, covariance_type="full", separation=1.0,
                       random_state=0)
    centers, _ = kmeans_plusplus(X[:5000], 8, np.random.default_rng(0), n_lloyd=0)
    prec = np.linalg.inv(np.cov(X.T))
    start = {"weights": np.full(8, 1 / 8), "means": centers,
             "precisions": np.repeat(prec[None], 8, axis=0)}
    return X, start


def make_workload(name, args, cache):
    """Returns (fit function of the callback, data, fit params, description)."""
    if name in ("gmm_full", "vgmm_full", "dpmm_full"):
        if "gmm" not in cache:
            cache["gmm"] = gmm_data(args)
        X, start = cache["gmm"]
        from latentkit.mixture import (DirichletProcessMixture, GaussianMixture,
                                       VariationalGaussianMixture)
        if name == "gmm_full":
            def make(cb):
                return GaussianMixture(8, init=start, max_iter=args.iters, tol=0, callback=cb)
        elif name == "vgmm_full":
            def make(cb):
                return VariationalGaussianMixture(8, max_iter=args.iters, tol=0, callback=cb,
                                                  random_state=0)
        else:
            def make(cb):
                return DirichletProcessMixture(8, max_iter=args.iters, tol=0, callback=cb,
                                               random_state=0)
        return make, X, {}, f"N={X.shape[0]} x D=16, K=8, full covariance"
    if name == "lda_batch":
        from latentkit.datasets import make_lda_corpus
        from latentkit.topic import LatentDirichletAllocation

        counts, _ = make_lda_corpus(n_docs=args.lda_docs, n_components=args.lda_k,
                                    vocab_size=args.lda_vocab, doc_length=args.lda_length,
                                    random_state=0)

        def make(cb):
            return LatentDirichletAllocation(args.lda_k, max_iter=args.iters, random_state=0,
                                             callback=cb)
        return make, counts, {}, (f"{args.lda_docs} docs x {args.lda_vocab} words, "
                                  f"{int(counts.sum())} tokens, K={args.lda_k}")
    if name in ("hmm_categorical", "hmm_long"):
        from latentkit.sequence import CategoricalHMM

        S, T = args.hmm_seqs, args.hmm_steps
        rng = np.random.default_rng(0)
        # a 10-state sticky chain with 50-symbol emissions, so the data carry structure
        A = np.full((10, 10), 0.02) + np.eye(10) * 0.8
        A /= A.sum(1, keepdims=True)
        B = rng.dirichlet(np.full(50, 0.3), size=10)
        z = np.empty(S * T, dtype=np.int64)
        z[0] = 0
        u = rng.random(S * T)
        cum = A.cumsum(1)
        for t in range(1, S * T):  # numpy-only sampler, fine for the sizes here
            z[t] = min(int(np.searchsorted(cum[z[t - 1]], u[t])), 9)
        sym = (rng.random(S * T)[:, None] > B[z].cumsum(1)).sum(1)[:, None]
        lengths = [T] * S if name == "hmm_categorical" else [S * T]

        def make(cb):
            return CategoricalHMM(10, n_features=50, max_iter=args.iters, tol=0,
                                  random_state=0, callback=cb)
        desc = (f"{S} sequences x {T} steps" if name == "hmm_categorical" else
                f"one sequence of {S * T} steps") + ", 10 states, 50 symbols"
        return make, sym, {"lengths": lengths}, desc
    raise ValueError(f"unknown workload {name!r}; choose from {WORKLOADS}.")


# ---- the control and the GEMM peak -------------------------------------------------------------

def control_speedups(threads):
    import numba

    from latentkit._kernels._jit import jit, prange

    @jit(parallel=True)
    def work(x, out):
        for p in prange(out.shape[0]):
            s = 0.0
            for i in range(x.shape[0]):
                s += np.sin(x[i] + p)
            out[p] = s

    x = np.random.default_rng(0).random(200_000)
    out = np.zeros(64)
    work(x, out)
    res = {}
    for t in threads:
        numba.set_num_threads(t)
        best = np.inf
        for _ in range(3):
            t0 = time.perf_counter()
            work(x, out)
            best = min(best, time.perf_counter() - t0)
        res[t] = best
    return res


def gemm_peak(threads, n=2000, per_cpu_second=False):
    """Best float64 GEMM rate of ``np.dot`` (n x n) with ``threads`` BLAS threads, flop per
    wall-clock second, or with ``per_cpu_second`` per second of process CPU time."""
    from threadpoolctl import threadpool_limits

    rng = np.random.default_rng(0)
    a = rng.standard_normal((n, n))
    clock = time.process_time if per_cpu_second else time.perf_counter
    with threadpool_limits(limits=threads, user_api="blas"):
        np.dot(a, a)
        best = np.inf
        for _ in range(3):
            t0 = clock()
            np.dot(a, a)
            best = min(best, clock() - t0)
    return 2.0 * n ** 3 / best


def gmm_estep_seconds(X, reps=5):
    from latentkit.distributions import compute_precision_cholesky, gaussian_mixture_e_step

    rng = np.random.default_rng(1)
    K = 8
    means = X[rng.choice(X.shape[0], K, replace=False)]
    pc, _ = compute_precision_cholesky(np.repeat(np.cov(X.T)[None], K, axis=0), "full")
    logw = np.full(K, -np.log(K))
    gaussian_mixture_e_step(X, logw, means, pc, "full")
    best, best_cpu = np.inf, np.inf
    for _ in range(reps):
        t0, c0 = time.perf_counter(), time.process_time()
        gaussian_mixture_e_step(X, logw, means, pc, "full")
        best = min(best, time.perf_counter() - t0)
        best_cpu = min(best_cpu, time.process_time() - c0)
    return best, best_cpu


# ---- main -------------------------------------------------------------------------------------

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default=",".join(WORKLOADS),
                    help="comma-separated workloads (default: all): " + ", ".join(WORKLOADS))
    ap.add_argument("--threads", default=None,
                    help="comma-separated thread counts (default 1, 2, 4, ... up to "
                         "NUMBA_NUM_THREADS, the core count unless set)")
    ap.add_argument("--iters", type=int, default=6, help="EM iterations per fit (default 6)")
    ap.add_argument("--gmm-n", type=int, default=200_000)
    ap.add_argument("--lda-docs", type=int, default=4000)
    ap.add_argument("--lda-vocab", type=int, default=4000)
    ap.add_argument("--lda-length", type=int, default=150)
    ap.add_argument("--lda-k", type=int, default=20)
    ap.add_argument("--hmm-seqs", type=int, default=200)
    ap.add_argument("--hmm-steps", type=int, default=1000)
    ap.add_argument("--json", default=None, metavar="PATH",
                    help="write the results as JSON to PATH ('-' for stdout)")
    args = ap.parse_args(argv)
    import numba

    threads = ([int(t) for t in args.threads.split(",")] if args.threads
               else default_threads())
    names = [n.strip() for n in args.only.split(",") if n.strip()]
    for n in names:
        if n not in WORKLOADS:
            ap.error(f"unknown workload {n!r}; choose from {', '.join(WORKLOADS)}")
    load = os.getloadavg()
    print(f"cores: {os.cpu_count()}, NUMBA_NUM_THREADS: {numba.config.NUMBA_NUM_THREADS}, "
          f"load average: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; "
          f"{args.iters} iterations per fit")
    results = {"cores": os.cpu_count(), "load_average": load, "threads": threads,
               "workloads": {}}
    ctrl = control_speedups(threads)
    results["control"] = {str(t): ctrl[threads[0]] / ctrl[t] for t in threads}
    print(f"{'control (pure compute)':28s} " + "  ".join(
        f"{t:>2d}t {ctrl[threads[0]] / ctrl[t]:5.2f}x" for t in threads))
    cache = {}
    for name in names:
        make, X, fp, desc = make_workload(name, args, cache)
        numba.set_num_threads(threads[0])
        # warm-up (compiles or loads the kernels; not timed): a slice, or the sequences whole
        timed_fit(make, X, 2, **fp) if fp else timed_fit(make, X[:max(2000, X.shape[0] // 50)], 2)
        rows, ref = {}, None
        for t in threads:
            numba.set_num_threads(t)
            sec, lb = timed_fit(make, X, args.iters, **fp)
            same = ref is None or (lb.shape == ref.shape and np.array_equal(lb, ref))
            ref = lb if ref is None else ref
            rows[t] = {"seconds_per_iteration": sec, "identical_to_first": bool(same)}
        base = rows[threads[0]]["seconds_per_iteration"]
        for t in threads:
            rows[t]["speedup"] = base / rows[t]["seconds_per_iteration"]
        print(f"{name:16s} ({desc})")
        for t in threads:
            r = rows[t]
            print(f"    {t:3d} threads: {r['seconds_per_iteration']:9.4f} s/iteration  "
                  f"speedup {r['speedup']:5.2f}x  "
                  f"{'bit-identical' if r['identical_to_first'] else 'DIFFERENT'}")
        entry = {"description": desc, "by_threads": {str(t): rows[t] for t in threads}}
        if name == "gmm_full":
            N, K, D = X.shape[0], 8, X.shape[1]
            dense, tri = 4.0 * N * K * D * D, 2.0 * N * K * D * (D + 1)
            entry["e_step"] = {}
            peak1 = gemm_peak(1)
            peak1_cpu = gemm_peak(1, per_cpu_second=True)
            for t in threads:
                numba.set_num_threads(t)
                sec, cpu = gmm_estep_seconds(X)
                # the best of 1..t BLAS threads (on a loaded machine more can be slower)
                peak = max(peak1, gemm_peak(min(t, os.cpu_count())))
                entry["e_step"][str(t)] = {"seconds": sec, "cpu_seconds": cpu,
                                           "gemm_peak_flops": peak,
                                           "gemm_peak_flops_per_cpu_second": peak1_cpu,
                                           "dense_fraction": dense / sec / peak,
                                           "triangular_fraction": tri / sec / peak,
                                           "dense_fraction_per_cpu_second": dense / cpu / peak1_cpu}
                print(f"    E-step alone, {t:3d} threads: {sec * 1e3:8.1f} ms = "
                      f"{dense / sec / 1e9:6.1f} GFLOP/s dense ({100 * dense / sec / peak:4.1f}% "
                      f"of the {peak / 1e9:.1f} GFLOP/s np.dot peak at "
                      f"<= {min(t, os.cpu_count())} BLAS threads; "
                      f"{100 * tri / sec / peak:4.1f}% counting triangular flops); "
                      f"per CPU second {dense / cpu / 1e9:.1f} GFLOP = "
                      f"{100 * dense / cpu / peak1_cpu:4.1f}% of one-thread np.dot's "
                      f"{peak1_cpu / 1e9:.1f} GFLOP per CPU second")
        results["workloads"][name] = entry
    if args.json:
        text = json.dumps(results, indent=2)
        if args.json == "-":
            print(text)
        else:
            Path(args.json).write_text(text)
    return results


if __name__ == "__main__":
    main()
