"""SpectralHMM: the adjacent-pair estimator against the middle-view one, error against n.

Issue 17, item 2. Chains of 3 states and 8 symbols, from slow to fast mixing: the transition
matrix is ``mix * A_sticky + (1 - mix) * 1 r^T`` (a rank-one part that forgets the state), so
the second eigenvalue shrinks with ``mix``. For each chain and each number of triples n in
{1e4, 1e5, 1e6} (sequences of length 1,002, stationary start), two estimators are fitted to
the same data: the one symmetrised towards the middle view (``target_view=2``: inverts
``P_13``, states two steps apart; the old default) and the default ``target_view='auto'``
(here 'adjacent': the two variants that invert only an adjacent pair, towards views 1 and 3,
averaged). Printed: ``sigma_3 / sigma_1`` of the population ``P_12``, ``P_23`` and ``P_13``,
the variant 'auto' chose, and the mean over replicates of the max-abs errors of the emission
and transition matrices (after matching the states). Last table: CategoricalHMM's
``init='spectral'`` (which uses the default) against the same start built from the old
estimator: held-out log-likelihood per symbol after 1 and 10 Baum-Welch steps.

Run:  python benchmarks/bench_spectral_hmm.py [--replicates 10]
"""

import argparse
import time
import warnings

import numpy as np

from latentkit.spectral import HMMMoments, SpectralHMM
from latentkit.testing import match_components, mixing_hmm, sample_categorical_hmm

MIXES = (0.9, 0.6, 0.3, 0.2)
LENGTH = 1002


def errors(est, A, B):
    perm, _ = match_components(B, est.emissionprob_, "l1")
    return (np.abs(est.emissionprob_[perm] - B).max(),
            np.abs(est.transmat_[np.ix_(perm, perm)] - A).max())


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=10)
    args = parser.parse_args()
    warnings.simplefilter("ignore")  # ConvergenceWarning of the short Baum-Welch runs
    R = args.replicates
    print(f"3 states, 8 symbols; mean over {R} replicates of max|B_hat - B| and max|A_hat - A|")
    print(f"{'mix':>4} {'lambda2':>7} | {'s3/s1 P12':>9} {'P23':>6} {'P13':>6} | {'n':>7} | "
          f"{'view':>8} | {'emis old':>8} {'emis new':>8} {'ratio':>5} | "
          f"{'trans old':>9} {'trans new':>9} {'ratio':>5}")
    t0 = time.perf_counter()
    for mix in MIXES:
        pi, A, B = mixing_hmm(mix, n_features=8, random_state=0)
        lam2 = np.sort(np.abs(np.linalg.eigvals(A)))[-2]
        cond = HMMMoments.population(pi, A, B).pair_conditioning()
        for n in (10 ** 4, 10 ** 5, 10 ** 6):
            old, new, views = [], [], []
            for r in range(R):
                x = sample_categorical_hmm(pi, A, B, max(1, n // (LENGTH - 2)), LENGTH,
                           np.random.default_rng(1000 * r + 1))
                lengths = [LENGTH] * x.shape[0]
                try:
                    old.append(errors(SpectralHMM(3, n_features=8, random_state=r,
                                                  target_view=2).fit(x.ravel(), lengths), A, B))
                except ValueError:  # P_13 numerically rank-deficient
                    old.append((np.nan, np.nan))
                est = SpectralHMM(3, n_features=8, random_state=r).fit(x.ravel(), lengths)
                new.append(errors(est, A, B))
                views.append(est.target_view_)
            o, w = np.nanmean(old, 0), np.mean(new, 0)
            print(f"{mix:4.1f} {lam2:7.3f} | {cond[0]:9.4f} {cond[1]:6.4f} {cond[2]:6.4f} | "
                  f"{n:7.0e} | {'/'.join(sorted(set(map(str, views)))):>8} | {o[0]:8.4f} "
                  f"{w[0]:8.4f} {w[0] / o[0]:5.2f} | {o[1]:9.4f} {w[1]:9.4f} {w[1] / o[1]:5.2f}")
    print(f"({time.perf_counter() - t0:.0f} s)")

    from latentkit.sequence import CategoricalHMM
    from latentkit.sequence._spectral_start import _floor_rows
    print("\nCategoricalHMM init='spectral' (new) vs the same start from target_view=2 (old), "
          "n = 1e5 triples;\nheld-out log-likelihood per symbol (1e5 symbols) "
          "after 1 and 10 Baum-Welch steps")
    for mix in MIXES:
        pi, A, B = mixing_hmm(mix, n_features=8, random_state=0)
        rng = np.random.default_rng(7)
        x = sample_categorical_hmm(pi, A, B, 100, LENGTH, rng)
        xt = sample_categorical_hmm(pi, A, B, 100, LENGTH, rng)
        lengths = [LENGTH] * 100
        truth = CategoricalHMM(3, n_features=8, init=dict(startprob=pi, transmat=A,
                                                          emissionprob=B), max_iter=1)
        truth.fit(x.reshape(-1, 1), lengths)  # then set to the true parameters
        truth.startprob_, truth.transmat_, truth.emissionprob_ = pi, A, B
        ll_true = truth.score(xt.reshape(-1, 1), lengths)
        row = [f"{mix:4.1f} | true {ll_true:8.5f}"]
        old = SpectralHMM(3, n_features=8, random_state=0, target_view=2).fit(x.ravel(), lengths)
        old_init = dict(startprob=_floor_rows(old.startprob_, 1e-2),
                        transmat=_floor_rows(old.transmat_, 1e-2),
                        emissionprob=_floor_rows(old.emissionprob_, 1e-2))
        for name, init in (("old", old_init), ("new", "spectral")):
            for it in (1, 10):
                m = CategoricalHMM(3, n_features=8, init=init, max_iter=it, tol=0,
                                   random_state=0).fit(x.reshape(-1, 1), lengths)
                row.append(f"{name} {it} it {m.score(xt.reshape(-1, 1), lengths):8.5f}")
        print(" | ".join(row))


if __name__ == "__main__":
    main()
