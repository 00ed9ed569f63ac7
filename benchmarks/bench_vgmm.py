"""Benchmark: VariationalGaussianMixture and DirichletProcessMixture against scikit-learn's
BayesianGaussianMixture, in one process on identical inputs.

1. Speed per iteration (N=50,000, D=8, K=20, full covariances): both libraries start from the
   same responsibilities (scikit-learn's first M-step is done by its own ``_initialize`` from
   them) and run the same number of iterations with tol=0. For the Dirichlet-distribution model
   the two fits are the same algorithm, so the ELBO reached is equal (the script prints the
   largest difference of the weights and means); for the Dirichlet process the truncations differ
   (scikit-learn keeps a free last stick and renormalises), so the script prints the agreement
   (ARI) of the two partitions and both bounds.
2. Olive oil (572 x 8, standardised, truncation 30, weight concentration 1/30, seeds 0-4): the
   adjusted Rand index of the clusters with the 9 areas for our 'fixed' and 'tail' truncations and
   scikit-learn's dirichlet_process mixture with the same priors.

Run: ``python benchmarks/bench_vgmm.py`` (``--quick`` for a smaller speed problem).
"""

import argparse
import time
import warnings

import numpy as np
from sklearn.metrics import adjusted_rand_score
from sklearn.mixture import BayesianGaussianMixture

from latentkit.datasets import load_olive_oil
from latentkit.mixture._dirichlet_process import DirichletProcessMixture
from latentkit.mixture._variational import VariationalGaussianMixture


def _sklearn_from(R, **kw):
    class _FromResponsibilities(BayesianGaussianMixture):
        def _initialize_parameters(self, X, random_state, xp=None):
            self._initialize(X, R)

    return _FromResponsibilities(**kw)


def _time(fn, repeats):
    best = np.inf
    out = None
    for _ in range(repeats):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def speed(n, d, k, n_iter, repeats):
    rng = np.random.default_rng(0)
    centers = rng.normal(scale=4.0, size=(k, d))
    z = rng.integers(0, k, n)
    X = centers[z] + rng.normal(size=(n, d)) * rng.uniform(0.5, 1.5, size=(k, 1))[z]
    R = rng.dirichlet(np.ones(k), size=n)
    print(f"\n== speed: N={n}, D={d}, K={k}, full covariances, {n_iter} iterations from the same "
          f"responsibilities (best of {repeats}) ==")
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # warm-up (numba compilation, caches)
        VariationalGaussianMixture(k, init={"responsibilities": R}, max_iter=2, tol=0.0).fit(X)
        for name, ours_fn, sk_kw in [
            ("VariationalGaussianMixture vs BGM(dirichlet_distribution)",
             lambda: VariationalGaussianMixture(k, init={"responsibilities": R},
                                                max_iter=n_iter, tol=0.0).fit(X),
             dict(weight_concentration_prior_type="dirichlet_distribution")),
            ("DirichletProcessMixture('fixed') vs BGM(dirichlet_process)",
             lambda: DirichletProcessMixture(k, concentration=1.0 / k,
                                             init={"responsibilities": R},
                                             max_iter=n_iter, tol=0.0).fit(X),
             dict(weight_concentration_prior_type="dirichlet_process")),
            ("DirichletProcessMixture('tail') vs BGM(dirichlet_process)",
             lambda: DirichletProcessMixture(k, concentration=1.0 / k, truncation_method="tail",
                                             init={"responsibilities": R},
                                             max_iter=n_iter, tol=0.0).fit(X),
             dict(weight_concentration_prior_type="dirichlet_process")),
        ]:
            t_ours, ours = _time(ours_fn, repeats)
            t_sk, sk = _time(lambda: _sklearn_from(R, n_components=k, max_iter=n_iter, tol=0.0,
                                                   **sk_kw).fit(X), repeats)
            ratio = t_sk / t_ours
            line = (f"{name}: ours {1e3 * t_ours / n_iter:.1f} ms/iter, scikit-learn "
                    f"{1e3 * t_sk / n_iter:.1f} ms/iter, speed-up x{ratio:.2f}")
            if "dirichlet_distribution" in sk_kw["weight_concentration_prior_type"]:
                line += (f"; same fit: max|dw| {np.abs(ours.weights_ - sk.weights_).max():.1e}, "
                         f"max|dmu| {np.abs(ours.means_ - sk.means_).max():.1e}, our ELBO "
                         f"{ours.lower_bound_:.6f} nats/sample")
            else:
                line += (f"; ARI(ours, sklearn) {adjusted_rand_score(sk.predict(X), ours.predict(X)):.4f}"
                         f", our ELBO {ours.lower_bound_:.6f} nats/sample, sklearn bound "
                         f"(constants omitted) {float(np.ravel(sk.lower_bound_)[0]) / n:.6f}")
            print(line)
            rows.append((name, ratio))
    return rows


def olive(seeds=range(5)):
    b = load_olive_oil()
    X = (b.data - b.data.mean(0)) / b.data.std(0)
    print("\n== olive oil: ARI with the 9 areas (572 x 8 standardised, truncation 30, "
          "weight concentration 1/30, tol 1e-6 nats/sample ours, 1e-3 total sklearn) ==")
    print("seed   ours fixed   ours tail   sklearn dirichlet_process")
    res = {"fixed": [], "tail": [], "sklearn": []}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for seed in seeds:
            for method in ("fixed", "tail"):
                m = DirichletProcessMixture(30, concentration=1 / 30, truncation_method=method,
                                            max_iter=1000, tol=1e-6, random_state=seed).fit(X)
                res[method].append(adjusted_rand_score(b.area, m.predict(X)))
            sk = BayesianGaussianMixture(
                n_components=30, weight_concentration_prior_type="dirichlet_process",
                weight_concentration_prior=1 / 30, max_iter=1000, random_state=seed).fit(X)
            res["sklearn"].append(adjusted_rand_score(b.area, sk.predict(X)))
            print(f"{seed:4d}   {res['fixed'][-1]:10.3f}   {res['tail'][-1]:9.3f}   "
                  f"{res['sklearn'][-1]:10.3f}")
    print(f"mean   {np.mean(res['fixed']):10.3f}   {np.mean(res['tail']):9.3f}   "
          f"{np.mean(res['sklearn']):10.3f}")
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="N=10,000 instead of 50,000")
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--threads", type=int, default=None,
                    help="limit BLAS and numba threads (both libraries) to this many")
    ap.add_argument("--skip-olive", action="store_true")
    args = ap.parse_args()
    n = 10_000 if args.quick else 50_000
    if args.threads is not None:
        import numba
        from threadpoolctl import threadpool_limits

        threadpool_limits(args.threads)
        numba.set_num_threads(min(args.threads, numba.config.NUMBA_NUM_THREADS))
        print(f"BLAS and numba limited to {args.threads} thread(s)")
    rows = speed(n, 8, 20, args.iters, args.repeats)
    if not args.skip_olive:
        olive()
    print("\nspeed-up ratios (scikit-learn time / ours, per iteration):")
    for name, r in rows:
        print(f"  {r:5.2f}  {name}")


if __name__ == "__main__":
    main()
