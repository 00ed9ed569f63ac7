"""Does init='spectral' pay for HMMs? PoissonHMM on the earthquake counts and planted chains
(Poisson, Gaussian diag and spherical).

For each seed: fit with init='random' to convergence (tol 1e-8 nats per time step); its final
ELBO is the target. Fit with init='spectral' (same seed, same tol) and record the first
iteration whose ELBO is within 1e-6 nats per time step of the target (or "not reached" when
the spectral start converges to a lower optimum). Prints, per case, the mean iterations of the
random starts, the mean iterations the spectral start needs to reach their ELBO, and the ratio
random / spectral (> 1: the spectral start saves iterations), plus the wall time of each. A
random start that stops in a worse optimum is reached early by a better start, which inflates
the ratio; "same opt." is the ratio over the seeds whose two fits end within 1e-6 nats per time
step of each other.

Run:  python benchmarks/bench_spectral_init_hmm.py [--seeds 5]
"""

import argparse
import time
import warnings

import numpy as np


def first_reach(bounds, target, tol):
    """First iteration (1-based) whose ELBO is within ``tol`` of ``target``; None if never."""
    idx = np.nonzero(np.asarray(bounds) >= target - tol)[0]
    return int(idx[0]) + 1 if idx.size else None


def chain(A, n, rng):
    z = np.zeros(n, dtype=np.int64)
    cdf = np.cumsum(A, axis=1)
    u = rng.random(n)
    for t in range(1, n):
        z[t] = min(np.searchsorted(cdf[z[t - 1]], u[t]), A.shape[0] - 1)
    return z


def cases():
    from latentkit.datasets import load_earthquakes
    from latentkit.sequence import GaussianHMM, PoissonHMM

    quakes = load_earthquakes().data
    rng = np.random.default_rng(0)
    A = np.array([[0.9, 0.05, 0.05], [0.05, 0.9, 0.05], [0.05, 0.05, 0.9]])
    z = chain(A, 3000, rng)
    lengths = [1000, 1500, 500]
    mu = np.array([[0.0, 0.0], [3.0, 0.0], [0.0, 3.0]])
    Xg = mu[z] + rng.normal(size=(3000, 2)) * 0.8
    Xp = rng.poisson(np.array([3.0, 12.0, 30.0])[z])[:, None]
    return [
        ("earthquakes, PoissonHMM K=2", quakes, None,
         lambda init, s: PoissonHMM(2, init=init, random_state=s, tol=1e-8, max_iter=5000)),
        ("earthquakes, PoissonHMM K=3", quakes, None,
         lambda init, s: PoissonHMM(3, init=init, random_state=s, tol=1e-8, max_iter=5000)),
        ("planted Poisson chain, D=1, K=3, T=3000", Xp, lengths,
         lambda init, s: PoissonHMM(3, init=init, random_state=s, tol=1e-8, max_iter=5000)),
        ("planted Gaussian chain, diag, D=2, K=3, T=3000", Xg, lengths,
         lambda init, s: GaussianHMM(3, "diag", init=init, random_state=s, tol=1e-8,
                                     max_iter=5000)),
        ("planted Gaussian chain, spherical, D=2, K=3, T=3000", Xg, lengths,
         lambda init, s: GaussianHMM(3, "spherical", init=init, random_state=s, tol=1e-8,
                                     max_iter=5000)),
    ]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=5)
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    # warm the numba kernels so that the first timing is not a compilation
    name, X, lengths, make = cases()[0]
    make("spectral", 0).set_params(max_iter=2).fit(X, lengths=lengths)
    print(f"{'case':<52} {'random it':>9} {'spectral it':>11} {'ratio':>6} {'same opt.':>9} "
          f"{'reached':>7} {'t random':>9} {'t spectral':>10}")
    for name, X, lengths, make in cases():
        r_it, s_it, reached, tr, ts, gap, same = [], [], 0, 0.0, 0.0, [], []
        for seed in range(args.seeds):
            t0 = time.perf_counter()
            r = make("random", seed).fit(X, lengths=lengths)
            t1 = time.perf_counter()
            s = make("spectral", seed).fit(X, lengths=lengths)
            t2 = time.perf_counter()
            tr += t1 - t0
            ts += t2 - t1
            r_it.append(r.n_iter_)
            hit = first_reach(s.lower_bounds_, r.lower_bound_, 1e-6)
            gap.append(s.lower_bound_ - r.lower_bound_)
            if hit is not None:
                reached += 1
                s_it.append(hit)
                if abs(gap[-1]) < 1e-6:
                    same.append((r.n_iter_, hit))
        mr = float(np.mean(r_it))
        ms = float(np.mean(s_it)) if s_it else float("nan")
        so = (np.mean([a for a, _ in same]) / np.mean([b for _, b in same])) if same \
            else float("nan")
        print(f"{name:<52} {mr:>9.1f} {ms:>11.1f} {mr / ms:>6.1f} {so:>9.1f} "
              f"{reached:>3}/{args.seeds:<3} {tr / args.seeds:>8.3f}s {ts / args.seeds:>9.3f}s")
        print(f"{'':<52} final ELBO spectral - random (nats per time step): "
              f"min {min(gap):+.2e}, max {max(gap):+.2e}")


if __name__ == "__main__":
    main()
