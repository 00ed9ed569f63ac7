"""Do the Gaussian HMM spectral start's means and covariances converge at n^-1/2? (issue 42,
item 2)

A sticky 3-state Gaussian HMM with 2 features (self-transitions 0.66-0.75,
:func:`latentkit.testing.mixing_hmm` with ``mix=0.9``; means (0, 0), (2, 0.5), (4, 2.5);
standard deviations 1 / 0.6, 0.1 / 0.5, 0.5 / 0.15, a narrow state in each feature;
correlations 0.5, -0.3, 0 for 'full'; for 'tied' one covariance shared by the three states;
for 'spherical' the mean of each state's variances). For each covariance type and each number
n of independent triples (first state stationary) in {1e4, 3e4, 1e5, 3e5, 1e6},
:func:`~latentkit.sequence.spectral_init_gaussian_hmm` runs on ``--replicates`` samples.
Printed per n: the mean over replicates, states and entries of the absolute error of the
means and of the covariances (every entry of a 'full' / 'tied' matrix), and that error times
sqrt(n) (constant at an n^-1/2 rate); then the least-squares log-log slopes over the five
sizes and over the three largest (-0.5 for n^-1/2).

Then, beyond what can be sampled: the estimator is applied to population moments (every
state path of a window weighted by its probability; exact to 1e-12) moved by ``delta`` in a
fixed random direction, delta = 1e-2 ... 1e-6. The error divided by delta is constant when
the estimator is differentiable at the population moments (no clip, floor or fixed-iteration
step that stays as n grows): sampled moments have errors of order n^-1/2 (central limit
theorem), so the estimates' errors then fall as n^-1/2 for every n beyond those sampled.

Run:  python benchmarks/bench_spectral_hmm_gaussian.py [--replicates 10] [--max-n 1e6]
      [--types diag spherical full tied]
"""

import argparse
import itertools
import time

import numpy as np

from latentkit.sequence import spectral_init_gaussian_hmm
from latentkit.spectral._multiview import views_estimate
from latentkit.testing import mixing_hmm, sample_categorical_hmm

SIZES = (10 ** 4, 3 * 10 ** 4, 10 ** 5, 3 * 10 ** 5, 10 ** 6)
MEANS = np.array([[0.0, 0.0], [2.0, 0.5], [4.0, 2.5]])
SDS = np.array([[1.0, 0.6], [0.1, 0.5], [0.5, 0.15]])
CORR = np.array([0.5, -0.3, 0.0])
TYPES = ("diag", "spherical", "full", "tied")


def chain():
    """(pi stationary, A) of the sticky 3-state chain."""
    _, A, _ = mixing_hmm(0.9, n_features=3, random_state=0)
    evals, evecs = np.linalg.eig(A.T)
    pi = np.real(evecs[:, np.argmax(np.real(evals))])
    return pi / pi.sum(), A


def planted(ct, pi):
    """The states' covariance matrices (K, D, D) and the true ``covars`` of type ``ct``."""
    if ct in ("diag", "spherical"):
        var = SDS ** 2 if ct == "diag" else np.repeat((SDS ** 2).mean(1, keepdims=True), 2, 1)
        C = np.stack([np.diag(v) for v in var])
        return C, (var if ct == "diag" else var[:, 0])
    C = np.stack([np.diag(s) @ np.array([[1.0, r], [r, 1.0]]) @ np.diag(s)
                  for s, r in zip(SDS, CORR)])
    if ct == "tied":
        tied = np.einsum("k,kij->ij", pi, C)
        return np.broadcast_to(tied, C.shape), tied
    return C, C


def sample(pi, A, C, n, rng):
    z = sample_categorical_hmm(pi, A, np.eye(3), n, 3, rng).ravel()
    L = np.linalg.cholesky(C)
    return MEANS[z] + np.einsum("nij,nj->ni", L[z], rng.standard_normal((z.size, 2)))


def errors(est, truth_cov, ct):
    perm = [int(np.argmin(np.abs(est["means"] - m).sum(1))) for m in MEANS]
    cov = est["covars"] if ct == "tied" else est["covars"][perm]
    return np.abs(est["means"][perm] - MEANS).mean(), np.abs(cov - truth_cov).mean()


def slope(ns, errs):
    return float(np.polyfit(np.log(ns), np.log(errs), 1)[0])


def sampled_rates(R, sizes, types=TYPES):
    pi, A = chain()
    slopes = {}
    for ct in types:
        C, truth = planted(ct, pi)
        print(f"\n{ct}: mean |error| over {R} replicates, states and entries "
              f"(x sqrt(n) in brackets)")
        print(f"{'n':>8} {'means':>18} {'covars':>18}")
        rows = []
        for n in sizes:
            errs = []
            for r in range(R):
                X = sample(pi, A, C, n, np.random.default_rng(1000 * r + 11))
                est = spectral_init_gaussian_hmm(X, [3] * n, 3, ct, random_state=r)
                errs.append(errors(est, truth, ct))
            rows.append(np.mean(errs, axis=0))
            print(f"{n:8.0e} {rows[-1][0]:9.5f} [{rows[-1][0] * np.sqrt(n):6.2f}] "
                  f"{rows[-1][1]:9.5f} [{rows[-1][1] * np.sqrt(n):6.2f}]", flush=True)
        rows = np.array(rows)
        top = slice(max(0, len(sizes) - 3), None)
        slopes[ct] = [slope(sizes, rows[:, 0]), slope(sizes[top], rows[top, 0]),
                      slope(sizes, rows[:, 1]), slope(sizes[top], rows[top, 1])]
        print(f"slopes (all sizes / three largest): means {slopes[ct][0]:+.2f} / "
              f"{slopes[ct][1]:+.2f}, covars {slopes[ct][2]:+.2f} / {slopes[ct][3]:+.2f}")
    print("\nsummary, least-squares log-log slopes over "
          f"{sizes[0]:.0e}-{sizes[-1]:.0e} (target -0.5):")
    for ct in types:
        print(f"  {ct:>9}: means {slopes[ct][0]:+.2f}, covars {slopes[ct][2]:+.2f}")


def population_rows(mu, C, pi, A):
    """Feature rows (1, z, z^2, z_1 z_2) of every state path of a window and their
    probabilities (the population moments as a weighted set of windows)."""
    K, D = mu.shape
    i, j = np.triu_indices(D, 1)
    m = np.array([np.r_[1.0, mu[k], mu[k] ** 2 + np.diag(C[k]), mu[k, i] * mu[k, j]
                        + C[k][i, j]] for k in range(K)])
    paths = np.array(list(itertools.product(range(K), repeat=3)))
    weights = pi[paths[:, 0]] * A[paths[:, 0], paths[:, 1]] * A[paths[:, 1], paths[:, 2]]
    return [m[paths[:, v]] for v in range(3)], weights


def perturbation_rates():
    """Error / delta of the estimator on population moments moved by delta."""
    pi, A = chain()
    loc = pi @ MEANS
    print("\nbeyond sampling: population moments moved by delta in a fixed direction; "
          "error / delta (constant: the estimator is differentiable there)")
    print(f"{'delta':>8} " + " ".join(f"{ct + ' mu':>10} {ct + ' cov':>10}" for ct in
                                      ("diag", "full")))
    for delta in (0.0, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6):
        out = []
        for ct in ("diag", "full"):
            C, _ = planted(ct, pi)
            scale = np.sqrt(pi @ (np.diagonal(C, axis1=1, axis2=2) + MEANS ** 2) - loc ** 2)
            mu = (MEANS - loc) / scale
            Cz = C / scale[None, :, None] / scale[None, None, :]
            rows, weights = population_rows(mu, Cz, pi, A)
            g = np.random.default_rng(0)
            rows = [r + delta * g.standard_normal(r.shape) * (np.arange(r.shape[1]) > 0)
                    for r in rows]
            cross = ct == "full"
            rows = rows if cross else [r[:, :5] for r in rows]
            mz, sq, _, _ = views_estimate(*rows, 3, 2, np.random.default_rng(0),
                                          weights=weights, cross=cross)
            perm = [int(np.argmin(np.abs(mz - m).sum(1))) for m in mu]
            cov = (sq - mz[:, :, None] * mz[:, None, :]) if cross else sq - mz ** 2
            tcov = Cz if cross else np.diagonal(Cz, axis1=1, axis2=2)
            e = (np.abs(mz[perm] - mu).max(), np.abs(cov[perm] - tcov).max())
            out += [v / delta if delta else v for v in e]
        print(f"{delta:8.0e} " + " ".join(f"{v:10.3g}" for v in out))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=10)
    parser.add_argument("--max-n", type=float, default=1e6)
    parser.add_argument("--types", nargs="+", choices=TYPES, default=list(TYPES),
                        help="covariance types (default all four)")
    args = parser.parse_args()
    t0 = time.perf_counter()
    perturbation_rates()
    sampled_rates(args.replicates, tuple(n for n in SIZES if n <= args.max_n), args.types)
    print(f"\n({time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
