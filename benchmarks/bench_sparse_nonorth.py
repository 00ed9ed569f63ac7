"""Truncated tensor power on sparse components that are not orthogonal (issue 17, item 1).

Setting of Sun, Lu, Liu & Cheng (2017), section 5: a 50 x 40 x 30 tensor of rank 4, each factor
with 15% non-zeros (8, 6 and 5 per mode; Gaussian entries, columns normalised, not
orthogonalised), weights (25, 20, 15, 10), i.i.d. Gaussian noise of standard deviation sigma in
{0, 0.1, 0.25, 0.5}; oracle sparsity; 20 replicates. Error of a component: the mean over the
three modes of min(||a_hat - a||, ||a_hat + a||) after matching the components (the
assignment of least total error); the error of a replicate is the mean over its 4 components.
Methods, on the same tensors: TTP with the sparse-SVD start, TTP with random starts, and the
same routine without truncation (``sparsity=None``). Printed per sigma: mean, median and 90th percentile over the
replicates, the ratio of the sparse mean to the non-sparse mean, the ratio random / SVD, and
the support F1 (mean over components and modes). Then the BIC choice of (rank, sparsity) on
the grid ranks {3, 4, 5} x sparsity fractions {0.1, 0.15, 0.3} at sigma = 0.1.

Targets (issue 17): sparse mean <= 0.6 x non-sparse mean for every sigma > 0; <= 0.01 with
F1 >= 0.99 at sigma = 0; random start within 1.3 x the SVD start.

Run:  python benchmarks/bench_sparse_nonorth.py [--replicates 20]
"""

import argparse
import time

import numpy as np

from latentkit.spectral import select_rank_sparsity, truncated_tensor_power
from latentkit.testing import cp_factor_error, planted_sparse_cp

DIMS = (50, 40, 30)
WEIGHTS = np.array([25.0, 20.0, 15.0, 10.0])
FRACTION = 0.15
SPARSITY = tuple(int(np.ceil(FRACTION * d)) for d in DIMS)  # (8, 6, 5)


def planted(seed, sigma):
    return planted_sparse_cp(DIMS, WEIGHTS, SPARSITY, sigma, random_state=seed)


def match(factors, F):
    """(error of the replicate, support F1) under the best matching of the components."""
    return cp_factor_error(factors, F)[:2]


def stats(x):
    x = np.asarray(x)
    return x.mean(), np.median(x), np.quantile(x, 0.9)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=20)
    args = parser.parse_args()
    R = args.replicates
    methods = {"TTP svd": dict(sparsity=SPARSITY), "TTP random": dict(sparsity=SPARSITY,
                                                                      init="random"),
               "non-sparse": dict(sparsity=None)}
    print(f"{DIMS[0]}x{DIMS[1]}x{DIMS[2]}, rank 4, sparsity {SPARSITY}, weights "
          f"{tuple(WEIGHTS.tolist())}; {R} replicates; error: mean, median, 90th percentile")
    print(f"{'sigma':>5} | " + " | ".join(f"{k:^22}" for k in methods) +
          " | sparse/dense  random/svd |  F1 svd  F1 random")
    t0 = time.perf_counter()
    for sigma in (0.0, 0.1, 0.25, 0.5):
        errs = {k: [] for k in methods}
        f1 = {k: [] for k in methods}
        for seed in range(R):
            T, F = planted(seed, sigma)
            for name, kw in methods.items():
                res = truncated_tensor_power(T, 4, random_state=seed, **kw)
                e, f = match(res.factors, F)
                errs[name].append(e)
                f1[name].append(f)
        cells = " | ".join("{:6.4f} {:6.4f} {:6.4f}".format(*stats(errs[k])) for k in methods)
        m = {k: np.mean(v) for k, v in errs.items()}
        print(f"{sigma:5.2f} | {cells} | {m['TTP svd'] / m['non-sparse']:12.2f} "
              f"{m['TTP random'] / m['TTP svd']:11.2f} | {np.mean(f1['TTP svd']):7.4f} "
              f"{np.mean(f1['TTP random']):10.4f}")
    print(f"({time.perf_counter() - t0:.0f} s)")

    print("\nBIC over ranks {3, 4, 5} x sparsity fractions {0.1, 0.15, 0.3}, sigma = 0.1:")
    hits = 0
    n_bic = min(R, 5)
    for seed in range(n_bic):
        T, F = planted(seed, 0.1)
        best, _ = select_rank_sparsity(T, [3, 4, 5], [0.1, 0.15, 0.3], random_state=seed)
        hits += best["rank"] == 4 and best["sparsity"] == 0.15
        print(f"  replicate {seed}: rank {best['rank']}, sparsity fraction {best['sparsity']}")
    print(f"  truth (4, 0.15) chosen in {hits}/{n_bic}")


if __name__ == "__main__":
    main()
