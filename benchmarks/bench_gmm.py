"""GaussianMixture (full covariance) vs scikit-learn, one process, identical inputs and start.

N=200,000, D=16, K=8, 50 EM iterations (tol=0) from the same weights, means and precisions.
Prints per-iteration times, the ratio, both final log-likelihoods, and the fraction of the
bound our E-step reaches: numpy's float64 GEMM rate at the E-step's shapes times the threads,
measured by ``benchmarks/_bounds.py``.

Run (from the repository root):

    python benchmarks/bench_gmm.py
    # optional: unset OPENBLAS_CORETYPE OPENBLAS_L2_SIZE; python benchmarks/bench_gmm.py

Options: --n, --d, --k, --iters, --seed, --rounds (ours and scikit-learn alternated R times
in this process; the ratios printed are the medians over the rounds: on a shared machine the
load moves between the two runs of one round less than between two commands).

The "CPU time" line compares one-thread CPU seconds (numba and BLAS on one thread against
scikit-learn with one BLAS thread): on a loaded machine that is the ratio of the work done,
where the wall-time ratios also count the other processes' turns.
"""

import argparse
import os
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
    """Floating-point operations of the full-covariance E-step per iteration, counted at its
    useful minimum (the same count before and after the kernel changes, so the fractions
    compare): the triangular projections ``(x - c) U_k`` (2 n k d(d+1)/2), the squared norms
    (3 n k d), the upper triangles of the second moments (2 n k d(d+1)/2), the first moments
    (2 n k d) and ``r x`` (n k d). Our kernel executes its projections as two GEMMs that
    skip the factors' zero block, 2 n k (h^2 + d (d - h)) with h = d / 2 (192 instead of
    136 per row and component for d = 16). A dense-GEMM formulation (scikit-learn's) does
    twice the projection/second-moment work: see :func:`dense_flops`."""
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
    ap.add_argument("--rounds", type=int, default=1,
                    help="rounds of ours then scikit-learn, alternated; median ratios")
    ap.add_argument("--sklearn-blas", choices=("both", "1"), default="both",
                    help="'1': scikit-learn with one BLAS thread only (its default threads "
                         "were 4-25x slower on the loaded 2-core machine)")
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

    # ours (warm-up compiles the numba kernels, the parallel one included: 2 partitions of
    # the full-covariance E-step need more than 4096 rows; not timed)
    GaussianMixture(k, init=start, max_iter=2, tol=0).fit(X[:min(n, 10_000)])
    from threadpoolctl import threadpool_limits

    def run_ours():
        stamps = []

        def cb(model, it, elbo):
            stamps.append(time.perf_counter())

        model = GaussianMixture(k, init=start, max_iter=iters, tol=0, callback=cb)
        t0 = time.perf_counter()
        model.fit(X)
        total = time.perf_counter() - t0
        per_iter = np.diff(np.array(stamps))  # iteration 1 also pays validation and init
        return model, total, per_iter

    def cpu_ours():
        # one-thread CPU time (numba and BLAS on one thread, as scikit-learn with 1 BLAS
        # thread): on a loaded machine a single-threaded process's CPU time is the work it
        # did, where its wall time also counts the other processes' turns
        old_threads = numba.get_num_threads()
        numba.set_num_threads(1)
        try:
            with threadpool_limits(limits=1, user_api="blas"):
                c0 = time.process_time()
                GaussianMixture(k, init=start, max_iter=iters, tol=0).fit(X)
                return time.process_time() - c0
        finally:
            numba.set_num_threads(old_threads)

    # scikit-learn: all three starting parameters are given, so its own init is overridden;
    # 'random_from_data' keeps its (discarded) initial clustering cheap. In the first round it
    # runs twice, with OpenBLAS's default threads and with BLAS limited to one thread (on small
    # per-component GEMMs OpenBLAS's thread synchronisation can cost more than the work on a
    # 2-core VM); the ratio is taken against its faster configuration, which alone runs in
    # the later rounds.
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
            return sk, time.perf_counter() - t0, time.process_time() - c0

    labels = {None: "default BLAS threads", 1: "1 BLAS thread"}
    rounds = []  # per round: ours (total, median per iteration, CPU), sklearn (total, CPU)
    best_limit = None
    for r in range(args.rounds):
        ours, t_ours, per_iter = run_ours()
        if r == 0:
            first = {lim: run_sklearn(lim)
                     for lim in ((None, 1) if args.sklearn_blas == "both" else (1,))}
            for lim, (_, t, _) in first.items():
                print(f"sklearn ({labels[lim]}): {t / iters * 1e3:8.1f} ms per iteration")
            best_limit = min(first, key=lambda lim: first[lim][1])
            sk, t_sk, _ = first[best_limit]
            cpu_sk = first[1][2]
        else:
            sk, t_sk, c_sk = run_sklearn(best_limit)
            cpu_sk = c_sk if best_limit == 1 else run_sklearn(1)[2]
        c_ours = cpu_ours()
        rounds.append((t_ours, float(np.median(per_iter)), c_ours, t_sk, cpu_sk, per_iter))
        print(f"round {r + 1}: ours {t_ours / iters * 1e3:.1f} ms per iteration in total "
              f"({rounds[-1][1] * 1e3:.1f} median), sklearn ({labels[best_limit]}) "
              f"{t_sk / iters * 1e3:.1f} ms: {t_sk / t_ours:.2f}x total, "
              f"{t_sk / iters / rounds[-1][1]:.2f}x per iteration; one-thread CPU time "
              f"{c_ours / iters * 1e3:.1f} against {cpu_sk / iters * 1e3:.1f} ms: "
              f"{cpu_sk / c_ours:.2f}x; load {os.getloadavg()[0]:.2f}")
    def med(xs):
        return float(np.median(xs))

    ratio_total = med([t[3] / t[0] for t in rounds])
    ratio_iter = med([t[3] / iters / t[1] for t in rounds])
    ratio_cpu = med([t[4] / t[2] for t in rounds])
    t_ours = med([t[0] for t in rounds])
    ours_iter = med([t[1] for t in rounds])
    t_sk = med([t[3] for t in rounds])
    per_iter = rounds[-1][5]
    cpu_ours_t = med([t[2] for t in rounds])
    cpu_sk_t = med([t[4] for t in rounds])
    print(f"CPU time, one thread each (total / iterations): ours {cpu_ours_t / iters * 1e3:.1f} "
          f"ms, sklearn (1 BLAS thread) {cpu_sk_t / iters * 1e3:.1f} ms: ratio "
          f"{ratio_cpu:.2f}x (median of {len(rounds)} rounds)")
    sk_iter = t_sk / iters
    ours_mean = t_ours / iters  # like sklearn's: includes validation and the first iteration
    print(f"ours, total / iterations (as for sklearn): {ours_mean * 1e3:.1f} ms; "
          f"speed-up against sklearn's faster configuration ({labels[best_limit]}): "
          f"{ratio_total:.2f}x (median of {len(rounds)} rounds)")

    ll_ours = ours.lower_bounds_[-1] * n
    ll_sk = np.asarray(sk.lower_bounds_)[-1] * n
    max_rel = np.max(np.abs(ours.lower_bounds_ - np.asarray(sk.lower_bounds_))
                     / np.abs(np.asarray(sk.lower_bounds_)))
    flops = e_step_flops(n, d, k)
    dflops = dense_flops(n, d, k)
    print(f"ours   : total {t_ours:7.2f} s, per iteration median {ours_iter * 1e3:7.1f} ms "
          f"(last round: min {per_iter.min() * 1e3:.1f}, max {per_iter.max() * 1e3:.1f})")
    print(f"sklearn: total {t_sk:7.2f} s, per iteration mean   {sk_iter * 1e3:7.1f} ms")
    print(f"per-iteration times (ms), ours, last round: "
          + " ".join(f"{t * 1e3:.0f}" for t in per_iter))
    print(f"speed-up per iteration (sklearn / ours): {ratio_iter:.2f}x (median of "
          f"{len(rounds)} rounds)")
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
