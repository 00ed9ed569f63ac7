"""GaussianMixture (full covariance) vs scikit-learn, one process, identical inputs and start.

N=200,000, D=16, K=8, 50 EM iterations (tol=0) from the same weights, means and precisions.
Prints per-iteration times, the ratio, both final log-likelihoods, and the fraction of the
bound our E-step reaches: numpy's float64 GEMM rate at the E-step's shapes times the threads,
measured by ``benchmarks/_bounds.py``.

Run (from the repository root):

    python benchmarks/bench_gmm.py
    # optional: unset OPENBLAS_CORETYPE OPENBLAS_L2_SIZE; python benchmarks/bench_gmm.py

Options: --n, --d, --k, --iters, --seed.

The "CPU time" line compares one-thread CPU seconds (numba and BLAS on one thread against
scikit-learn with one BLAS thread): on a loaded machine that is the ratio of the work done,
where the wall-time ratios also count the other processes' turns.
"""

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout
sys.path.insert(0, str(Path(__file__).resolve().parent))

import _bounds  # noqa: E402  (benchmarks/_bounds.py: the shared bound of every benchmark)

#: rows per block of the GEMM that bounds the E-step (its fused kernel works on row blocks)
GEMM_BLOCK = 2048


def e_step_flops(n, d, k):
    """Floating-point operations our fused E-step executes per iteration (full covariance):
    the triangular projections ``(x - c) U_k`` (2 n k d(d+1)/2), the squared norms (3 n k d),
    the upper triangles of the second moments (2 n k d(d+1)/2), the first moments (2 n k d)
    and ``r x`` (n k d). A dense-GEMM formulation (scikit-learn's) does twice the
    projection/second-moment work: see :func:`dense_flops`."""
    tri = d * (d + 1) // 2
    return 2 * n * k * tri * 2 + 3 * n * k * d + 2 * n * k * d + n * k * d


def dense_flops(n, d, k):
    """The same E-step written as dense GEMMs (2 n d kd twice) plus the element-wise work."""
    return 2 * n * d * k * d * 2 + 3 * n * k * d + 2 * n * k * d + n * k * d


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=200_000)
    ap.add_argument("--d", type=int, default=16)
    ap.add_argument("--k", type=int, default=8)
    ap.add_argument("--iters", type=int, default=50)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    from sklearn.mixture import GaussianMixture as SKGaussianMixture

    from latentkit.datasets import make_gmm
    from latentkit.mixture import GaussianMixture
    from latentkit.mixture._gaussian import kmeans_plusplus

    n, d, k, iters = args.n, args.d, args.k, args.iters
    X, _, _ = make_gmm(n, k, d, covariance_type="full", separation=1.0,
                       random_state=args.seed)
    rng = np.random.default_rng(args.seed)
    # identical start for both: k-means++ centers on a subsample, equal weights, pooled precision
    centers, _ = kmeans_plusplus(X[:5000], k, rng, n_lloyd=0)
    prec = np.linalg.inv(np.cov(X.T))
    start = {"weights": np.full(k, 1.0 / k), "means": centers,
             "precisions": np.repeat(prec[None], k, axis=0)}

    print(f"GaussianMixture full covariance: N={n}, D={d}, K={k}, {iters} iterations, tol=0")
    print(_bounds.machine_info())
    # the bound: numpy's GEMM rate at the benchmark's shapes (a block of rows of X against the
    # K triangular factors side by side, (GEMM_BLOCK, D) x (D, K D)) on one thread, times the
    # fit's threads (each thread of the E-step works on its own rows; OpenBLAS's own 2-thread
    # GEMM at these thin shapes is slower than one thread on a loaded machine), and the compute
    # roof (the 1-core peak of a square product times the threads) for reference
    import numba

    cores = numba.get_num_threads()
    peak = cores * _bounds.gemm_rate(min(n, GEMM_BLOCK), d, k * d, threads=1)
    roof = cores * _bounds.core_peak()
    print(f"float64 GEMM rate of numpy at the E-step's shapes ({min(n, GEMM_BLOCK)} x {d} by "
          f"{d} x {k * d}, 1 thread) x {cores} threads: {peak / 1e9:.1f} GFLOP/s; "
          f"{cores} x the 1-core square peak: {roof / 1e9:.1f} GFLOP/s")

    # ours (warm-up compiles the numba kernels on a small slice; not timed)
    GaussianMixture(k, init=start, max_iter=2, tol=0).fit(X[:2000])
    stamps = []

    def cb(model, it, elbo):
        stamps.append(time.perf_counter())

    ours = GaussianMixture(k, init=start, max_iter=iters, tol=0, callback=cb)
    t0 = time.perf_counter()
    ours.fit(X)
    t_ours = time.perf_counter() - t0
    per_iter = np.diff(np.array(stamps))  # iteration 1 also pays the validation and the init
    ours_iter = float(np.median(per_iter))

    # scikit-learn: all three starting parameters are given, so its own init is overridden;
    # 'random_from_data' keeps its (discarded) initial clustering cheap. It runs twice, with
    # OpenBLAS's default threads and with BLAS limited to one thread (on small per-component
    # GEMMs OpenBLAS's thread synchronisation can cost more than the work on a 2-core VM), and
    # the ratio is taken against its faster configuration.
    from threadpoolctl import threadpool_limits

    def run_sklearn(limit):
        sk = SKGaussianMixture(k, covariance_type="full", tol=0.0, max_iter=iters,
                               weights_init=start["weights"], means_init=start["means"],
                               precisions_init=start["precisions"],
                               init_params="random_from_data", random_state=0)
        with warnings.catch_warnings(), threadpool_limits(limits=limit, user_api="blas"):
            warnings.simplefilter("ignore")
            c0 = time.process_time()
            t0 = time.perf_counter()
            sk.fit(X)
            cpu[limit] = time.process_time() - c0
            return sk, time.perf_counter() - t0

    cpu = {}
    runs = {"default BLAS threads": run_sklearn(None), "1 BLAS thread": run_sklearn(1)}
    # one-thread CPU time (numba and BLAS on one thread, as scikit-learn with 1 BLAS thread):
    # on a loaded machine a single-threaded process's CPU time is the work it did, where its
    # wall time also counts the other processes' turns
    old_threads = numba.get_num_threads()
    numba.set_num_threads(1)
    with threadpool_limits(limits=1, user_api="blas"):
        c0 = time.process_time()
        GaussianMixture(k, init=start, max_iter=iters, tol=0).fit(X)
        cpu_ours = time.process_time() - c0
    numba.set_num_threads(old_threads)
    print(f"CPU time, one thread each (total / iterations): ours {cpu_ours / iters * 1e3:.1f} ms,"
          f" sklearn (1 BLAS thread) {cpu[1] / iters * 1e3:.1f} ms: ratio "
          f"{cpu[1] / cpu_ours:.2f}x")
    for label, (_, t) in runs.items():
        print(f"sklearn ({label}): {t / iters * 1e3:8.1f} ms per iteration")
    best = min(runs, key=lambda lab: runs[lab][1])
    sk, t_sk = runs[best]
    sk_iter = t_sk / iters
    ours_mean = t_ours / iters  # like sklearn's: includes validation and the first iteration
    print(f"ours, total / iterations (as for sklearn): {ours_mean * 1e3:.1f} ms; "
          f"speed-up against sklearn's faster configuration ({best}): {sk_iter / ours_mean:.2f}x")

    ll_ours = ours.lower_bounds_[-1] * n
    ll_sk = np.asarray(sk.lower_bounds_)[-1] * n
    max_rel = np.max(np.abs(ours.lower_bounds_ - np.asarray(sk.lower_bounds_))
                     / np.abs(np.asarray(sk.lower_bounds_)))
    flops = e_step_flops(n, d, k)
    dflops = dense_flops(n, d, k)
    print(f"ours   : total {t_ours:7.2f} s, per iteration median {ours_iter * 1e3:7.1f} ms "
          f"(min {per_iter.min() * 1e3:.1f}, max {per_iter.max() * 1e3:.1f})")
    print(f"sklearn: total {t_sk:7.2f} s, per iteration mean   {sk_iter * 1e3:7.1f} ms")
    print(f"per-iteration times (ms), ours: "
          + " ".join(f"{t * 1e3:.0f}" for t in per_iter))
    print(f"speed-up per iteration (sklearn / ours): {sk_iter / ours_iter:.2f}x")
    print(f"final total log-likelihood: ours {ll_ours:.6f}, sklearn {ll_sk:.6f}; "
          f"max relative difference of the per-iteration trace {max_rel:.2e}")
    print(_bounds.fraction_line(
        "GMM E-step (fraction of the bound)", flops / ours_iter, peak, "flop",
        f"bound: numpy's GEMM at the E-step's shapes x {cores} threads; "
        f"{100 * flops / ours_iter / roof:.1f}% of {cores} x the 1-core square peak"))
    print(f"our E-step: {flops / 1e9:.2f} GFLOP per iteration, {flops / ours_iter / 1e9:.1f} "
          f"GFLOP/s = {100 * flops / ours_iter / peak:.1f}% of the GEMM bound "
          f"(sklearn on the same count: {100 * flops / sk_iter / peak:.1f}%); "
          f"dense-GEMM equivalent {dflops / 1e9:.2f} GFLOP -> ours "
          f"{100 * dflops / ours_iter / peak:.1f}%, sklearn {100 * dflops / sk_iter / peak:.1f}%")

    # score_samples outside fit: LatentModel runs it with BLAS on one thread, as the fit loop
    # (latentkit._utils.threads.blas_scoped); __wrapped__ is the same method without that scope
    def best_of(f, reps=5):
        best = np.inf
        for _ in range(reps):
            s = time.perf_counter()
            f()
            best = min(best, time.perf_counter() - s)
        return best

    scoped = best_of(lambda: ours.score_samples(X))
    unscoped = best_of(lambda: type(ours).score_samples.__wrapped__(ours, X))
    print(f"score_samples outside fit (E-step alone): {scoped * 1e3:.1f} ms with the scoped "
          f"BLAS limit, {unscoped * 1e3:.1f} ms without it ({unscoped / scoped:.2f}x)")


if __name__ == "__main__":
    main()
