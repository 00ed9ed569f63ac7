"""Does init='spectral' pay? LDA (KOS K=20, planted corpus) and GaussianMixture (planted spherical).

For each seed: fit with init='random' and init='spectral' (same max_iter/tol); report the
iterations the random start needed, the first iteration at which the spectral start reached the
random start's final ELBO, and the final ELBOs (nats per document / per sample), mean over seeds.

Run:  python benchmarks/bench_spectral_init.py [--seeds 5] [--lda-iter 60]
"""

import argparse
import time

import numpy as np


def first_reach(bounds, target, tol):
    """First iteration (1-based) whose ELBO is within the fit tolerance of ``target``."""
    idx = np.nonzero(np.asarray(bounds) >= target - tol)[0]
    return int(idx[0]) + 1 if idx.size else None


def study(name, make_model, X, seeds, base="random", tol=1e-6):
    rows = []
    for seed in seeds:
        t0 = time.perf_counter()
        r = make_model(base, seed).fit(X)
        t1 = time.perf_counter()
        s = make_model("spectral", seed).fit(X)
        t2 = time.perf_counter()
        rows.append((r.n_iter_, first_reach(np.append(s.lower_bounds_, s.lower_bound_), r.lower_bound_, tol),
                     s.n_iter_, r.lower_bound_, s.lower_bound_, t1 - t0, t2 - t1))
    print(f"\n{name}")
    print(f"{'seed':>4} {'it('+base+')':>12} {'spectral reaches it at':>23} {'it(spectral)':>12} "
          f"{'ELBO '+base:>14} {'ELBO spectral':>14} {'t '+base:>9} {'t spectral':>10}")
    for seed, row in zip(seeds, rows):
        reach = "never" if row[1] is None else str(row[1])
        print(f"{seed:>4} {row[0]:>12} {reach:>23} {row[2]:>12} {row[3]:>14.4f} {row[4]:>14.4f} "
              f"{row[5]:>9.2f} {row[6]:>10.2f}")
    ok_half = all(r[1] is not None and r[1] <= r[0] / 2 for r in rows)
    mr, ms = np.mean([r[3] for r in rows]), np.mean([r[4] for r in rows])
    print(f"mean final ELBO: {base} {mr:.4f}, spectral {ms:.4f} (diff {ms - mr:+.4f}); "
          f"spectral reaches the {base} final ELBO within half its iterations on every seed: {ok_half}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--lda-iter", type=int, default=60)
    ap.add_argument("--skip-kos", action="store_true")
    args = ap.parse_args()
    seeds = list(range(args.seeds))
    from latentkit.datasets import load_kos, make_lda_corpus
    from latentkit.mixture import GaussianMixture
    from latentkit.topic import LatentDirichletAllocation

    # GaussianMixture on a planted spherical mixture
    rng = np.random.default_rng(0)
    k, d, n = 8, 10, 20000
    means = rng.standard_normal((k, d)) * 2.5
    X = means[rng.choice(k, n)] + rng.standard_normal((n, d))
    study("GaussianMixture, planted spherical (k=8, d=10, n=20000), covariance_type='spherical', "
          "tol=1e-6", lambda init, s: GaussianMixture(k, covariance_type="spherical", init=init,
                                                      max_iter=1000, tol=1e-6, random_state=s),
          X, seeds, base="random")
    study("GaussianMixture, same data, vs init='kmeans++'",
          lambda init, s: GaussianMixture(k, covariance_type="spherical", init=init,
                                          max_iter=1000, tol=1e-6, random_state=s),
          X, seeds, base="kmeans++")

    # LDA on a planted corpus
    Xc, _ = make_lda_corpus(5000, n_components=10, vocab_size=500, doc_topic_prior=0.1,
                            random_state=0)
    study(f"LatentDirichletAllocation, planted corpus (D=5000, V=500, K=10, alpha0=1), "
          f"max_iter={args.lda_iter}, tol=1e-4",
          lambda init, s: LatentDirichletAllocation(10, init=init, max_iter=args.lda_iter,
                                                    tol=1e-4, random_state=s), Xc, seeds, tol=1e-4)
    if not args.skip_kos:
        kos = load_kos()["data"]
        study(f"LatentDirichletAllocation, KOS (3430 x 6906), K=20, max_iter={args.lda_iter}, tol=1e-4",
              lambda init, s: LatentDirichletAllocation(20, init=init, max_iter=args.lda_iter,
                                                        tol=1e-4, random_state=s), kos, seeds, tol=1e-4)


if __name__ == "__main__":
    main()
