"""SpectralHMM: do the emission and transition errors fall as n^-1/2? (issue 32, item 2)

Chains of 3 states and 8 symbols (emission rows ~ Dirichlet(0.5)): sticky
(:func:`latentkit.testing.mixing_hmm` with ``mix=0.9``: self-transitions 0.66-0.75), fast
mixing (``mix=0.3``) and periodic (0 -> 1 -> 2 -> 0 with probability 0.8). For each chain and
each number of independent triples n in {1e4, 3e4, 1e5, 3e5, 1e6} (first state from the
stationary law), :class:`~latentkit.spectral.SpectralHMM` (default ``target_view='auto'``:
the view symmetrisation whose inverted pair moments are best conditioned) is fitted to
``--replicates`` samples with each transition estimator on the same decomposition (issue 42,
item 3): ``transitions='triple_fit'`` (the default: the spectral estimate refined by the
minimum-KL fit of the window law), ``'simplex_ls'`` (simplex-constrained least squares of the
joint laws of consecutive states, Kontorovich, Nadler & Weiss 2013; Mattila et al. 2017) and
``'pinv'`` (``O^+ (P_12 + P_23) O^+T`` clipped, the estimator before), and the older recovery
from ``P_23`` alone (``T = O^+ P_32 (O^T)^+ diag(w)^-1``, clipped). Printed per n: the view
chosen, the mean over replicates of the largest emission row error (L1 over the symbols,
after matching the states) of the default and of the decomposition alone, of the largest
transition error (max abs) of each estimator, and the refinement's SQUAREM cycles. Then per
chain the log-log slopes of the errors against n (least squares over the five sizes and over
the three largest; -0.5 for an n^-1/2 rate), the ratio transition / emission error at 1e6 and
the slope of each decade.

Then, beyond what can be sampled: the counts of the m^3 = 512 cells of independent triples are
multinomial(n, P_123), so drawing those counts (``HMMMoments.from_windows`` with the cells as
windows and the counts as weights) gives moments with exactly the law of n sampled triples, up
to n = 1e9. Printed per chain: the population conditioning (``sigma_k / sigma_1`` of P_12 and
P_13, ``sigma_k`` of the transition matrix), the emission error of the state-blind guess (every
state emits the marginal law: where the errors saturate), and per n the errors times sqrt(n)
(constant at an n^-1/2 rate), the transition error from the *true* emissions (the part of the
transition error that is not inherited from the emissions) and the per-decade slopes; and at
1e6 and 1e8 the errors of every ``target_view`` on the same counts.

Run:  python benchmarks/bench_spectral_hmm.py [--replicates 10]

The Gaussian start's rates for every covariance type, with least-squares slopes and a check
beyond sampling: benchmarks/bench_spectral_hmm_gaussian.py.
"""

import argparse
import time

import numpy as np

from latentkit.spectral import HMMMoments, SpectralHMM
from latentkit.testing import match_components, mixing_hmm, sample_categorical_hmm

TRANSITIONS = ("triple_fit", "simplex_ls", "pinv")  # SpectralHMM(transitions=...)
SIZES = (10 ** 4, 3 * 10 ** 4, 10 ** 5, 3 * 10 ** 5, 10 ** 6)
CELL_SIZES = tuple(10 ** e for e in range(4, 10))


def chains():
    out = []
    for name, mix in (("sticky", 0.9), ("fast-mixing", 0.3)):
        pi, A, B = mixing_hmm(mix, n_features=8, random_state=0)
        out.append((name, pi, A, B))
    _, _, B = mixing_hmm(0.9, n_features=8, random_state=0)
    A = np.array([[0.1, 0.8, 0.1], [0.1, 0.1, 0.8], [0.8, 0.1, 0.1]])
    out.append(("periodic", np.full(3, 1 / 3), A, B))
    return out


def p23_only(mom, O, w):
    """The previous transition recovery: ``O^+ P_32 (O^T)^+ diag(w)^-1``, clipped, columns
    normalised (transposed to rows)."""
    T = np.linalg.pinv(O) @ (mom.P23.T @ np.linalg.pinv(O.T) / w)
    T = np.maximum(T, 0.0)
    return (T / np.maximum(T.sum(axis=0, keepdims=True), 1e-300)).T


def slope(ns, errs):
    return float(np.polyfit(np.log(ns), np.log(errs), 1)[0])


def decade_slopes(ns, errs):
    """Slope of log error over each decade of n (the sizes 10^a, 10^(a+1), ...)."""
    pick = [i for i, n in enumerate(ns) if abs(np.log10(n) - round(np.log10(n))) < 1e-9]
    return [slope([ns[i], ns[j]], [errs[i], errs[j]]) for i, j in zip(pick[:-1], pick[1:])]


def cell_moments(P123, n, rng):
    """Moments of n independent triples drawn as multinomial counts of the m^3 cells."""
    m = P123.shape[0]
    p = np.maximum(P123.ravel(), 0.0)
    counts = rng.multinomial(int(n), p / p.sum()).astype(np.float64)
    cells = np.arange(m ** 3, dtype=np.int64)
    return HMMMoments.from_windows(cells // (m * m), cells // m % m, cells % m, m, 3,
                                   weights=counts)


def errors(est, pi, A, B):
    perm, _ = match_components(B, est.emissionprob_, "l1")
    return (np.abs(est.emissionprob_[perm] - B).sum(axis=1).max(),
            np.abs(est.transmat_[np.ix_(perm, perm)] - A).max())


def beyond_sampling(name, pi, A, B, R):
    pop = HMMMoments.population(pi, A, B)
    cond = pop.pair_conditioning()
    marg = pi @ A @ B  # law of x_2: every state emitting it knows nothing of the states
    blind = np.abs(B - marg).sum(axis=1).max()
    print(f"\n{name}, moments of n triples drawn as cell counts: population sigma_k/sigma_1 "
          f"P_12 {cond[0]:.4f}, P_13 {cond[2]:.4f}; sigma_k(A) "
          f"{np.linalg.svd(A, compute_uv=False)[-1]:.3f}; state-blind emission error {blind:.3f}")
    print(f"{'n':>8} {'emission L1':>11} {'transition':>10} {'em*sqrt(n)':>10} "
          f"{'tr*sqrt(n)':>10} {'tr|true O *sqrt(n)':>18}")
    e, t = [], []
    for n in CELL_SIZES:
        ee, tt, tO = [], [], []
        for r in range(R):
            mom = cell_moments(pop.P123, n, np.random.default_rng(r))
            est = SpectralHMM(3, n_features=8, random_state=r)._fit_moments(mom)
            a, b = errors(est, pi, A, B)
            ee.append(a)
            tt.append(b)
            tO.append(np.abs(mom.params_from_emission(B.T, pi)[1] - A).max())
        e.append(np.mean(ee))
        t.append(np.mean(tt))
        rn = np.sqrt(n)
        print(f"{n:8.0e} {e[-1]:11.4f} {t[-1]:10.4f} {e[-1] * rn:10.1f} {t[-1] * rn:10.1f} "
              f"{np.mean(tO) * rn:18.1f}")
    print("per-decade slopes: emission " + " ".join(f"{v:+.2f}" for v in
                                                   decade_slopes(CELL_SIZES, e))
          + "; transition " + " ".join(f"{v:+.2f}" for v in decade_slopes(CELL_SIZES, t))
          + f"; 1e6-1e9: emission {slope(CELL_SIZES[2:], e[2:]):+.2f}, transition "
          f"{slope(CELL_SIZES[2:], t[2:]):+.2f}")
    for n in (10 ** 6, 10 ** 8):  # every view symmetrisation on the same cell counts
        row = []
        for view in ("adjacent", 1, 3, 2):
            errs = [errors(SpectralHMM(3, n_features=8, random_state=r, target_view=view)
                           ._fit_moments(cell_moments(pop.P123, n, np.random.default_rng(r))),
                           pi, A, B) for r in range(R)]
            row.append(f"{view}: {np.mean(errs, axis=0)[0] * np.sqrt(n):.1f} / "
                       f"{np.mean(errs, axis=0)[1] * np.sqrt(n):.1f}")
        print(f"target_view at {n:.0e}, emission / transition error * sqrt(n): "
              + ", ".join(row))


#: The Gaussian chain of the variance rates: sticky, 3 states, 2 features, one narrow state
#: in each feature (standardised variances 0.003-0.07, below and above the old 1e-2 floor).
GAUSS_MEANS = np.array([[0.0, 0.0], [2.0, 0.5], [4.0, 2.5]])
GAUSS_SDS = np.array([[1.0, 0.6], [0.1, 0.5], [0.5, 0.15]])
GAUSS_SIZES = (10 ** 4, 10 ** 5, 10 ** 6)


def gaussian_rates(R):
    """The Gaussian HMM start's means and per-state variances (diag, spherical) against n
    independent triples of a sticky 3-state chain (first state stationary); mean over R
    replicates of the largest error over states and features, per-decade slopes."""
    from latentkit.sequence import spectral_init_gaussian_hmm

    _, A, _ = mixing_hmm(0.9, n_features=3, random_state=0)
    evals, evecs = np.linalg.eig(A.T)
    pi = np.real(evecs[:, np.argmax(np.real(evals))])
    pi = pi / pi.sum()
    var = GAUSS_SDS ** 2
    print(f"\nGaussian HMM start (spectral_init_gaussian_hmm), 3 states, 2 features, sticky "
          f"chain, independent triples; true variances {np.round(var.ravel(), 4)}")
    print(f"{'n':>8} {'means':>8} {'var diag':>9} {'sd diag':>8} {'var sph':>8} "
          f"{'transition':>10}")
    rows = []
    for n in GAUSS_SIZES:
        errs = []
        for r in range(R):
            rng = np.random.default_rng(1000 * r + 11)
            z = sample_categorical_hmm(pi, A, np.eye(3), n, 3, rng).ravel()
            X = GAUSS_MEANS[z] + GAUSS_SDS[z] * rng.standard_normal((z.size, 2))
            d = spectral_init_gaussian_hmm(X, [3] * n, 3, "diag", random_state=r)
            sph = spectral_init_gaussian_hmm(X, [3] * n, 3, "spherical", random_state=r)
            perm = [int(np.argmin(np.abs(d["means"] - m).sum(1))) for m in GAUSS_MEANS]
            perm_s = [int(np.argmin(np.abs(sph["means"] - m).sum(1))) for m in GAUSS_MEANS]
            errs.append((np.abs(d["means"][perm] - GAUSS_MEANS).max(),
                         np.abs(d["covars"][perm] - var).max(),
                         np.abs(np.sqrt(d["covars"][perm]) - GAUSS_SDS).max(),
                         np.abs(sph["covars"][perm_s] - var.mean(1)).max(),
                         np.abs(d["transmat"][np.ix_(perm, perm)] - A).max()))
        rows.append(np.mean(errs, axis=0))
        print(f"{n:8.0e} " + " ".join(f"{v:{w}.5f}" for v, w in zip(rows[-1],
                                                                    (8, 9, 8, 8, 10))))
    rows = np.array(rows)
    names = ("means", "var diag", "sd diag", "var spherical", "transition")
    print("per-decade slopes (1e4-1e5, 1e5-1e6): " + "; ".join(
        f"{nm} " + " ".join(f"{v:+.2f}" for v in decade_slopes(GAUSS_SIZES, rows[:, i]))
        for i, nm in enumerate(names)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=10)
    parser.add_argument("--gaussian-only", action="store_true",
                        help="only the Gaussian start's rates")
    args = parser.parse_args()
    R = args.replicates
    if args.gaussian_only:
        gaussian_rates(R)
        return
    print(f"3 states, 8 symbols, independent triples; mean over {R} replicates")
    t0 = time.perf_counter()
    for name, pi, A, B in chains():
        lam2 = np.sort(np.abs(np.linalg.eigvals(A)))[-2]
        print(f"\n{name}: |lambda_2| = {lam2:.3f}, diag(A) = {np.round(np.diag(A), 3)}")
        print(f"{'n':>8} {'view':>9} {'emission L1':>11} {'triple_fit':>10} {'simplex_ls':>10} "
              f"{'pinv':>8} {'P23 only':>8} {'em L1 pinv':>10} {'refine it':>9}")
        rows = []
        for n in SIZES:
            res, views = [], set()
            for r in range(R):
                x = sample_categorical_hmm(pi, A, B, n, 3, np.random.default_rng(1000 * r + 7)).ravel()
                mom = HMMMoments(x, [3] * n, 3, 8)
                row = []
                for tr in TRANSITIONS:  # the same decomposition (same restarts), then each one
                    est = SpectralHMM(3, n_features=8, random_state=r, transitions=tr)
                    e, t = errors(est._fit_moments(mom), pi, A, B)
                    row += [e, t]
                    if tr == "triple_fit":
                        its = est.n_refine_iter_
                        views.add(str(est.target_view_))
                perm, _ = match_components(B, est.emissionprob_, "l1")  # the pinv fit's
                T0 = p23_only(mom, est.emissionprob_.T, est.state_weights_)
                res.append(row + [np.abs(T0[np.ix_(perm, perm)] - A).max(), its])
            m = np.mean(res, axis=0)
            rows.append(m)
            print(f"{n:8.0e} {'/'.join(sorted(views)):>9} {m[0]:11.4f} {m[1]:10.4f} {m[3]:10.4f} "
                  f"{m[5]:8.4f} {m[6]:8.4f} {m[4]:10.4f} {m[7]:9.0f}")
        rows = np.array(rows)
        e = rows[:, 0]
        print("slopes (log error / log n) over 1e4-1e6 (over 1e5-1e6): emission "
              f"{slope(SIZES, e):+.2f} ({slope(SIZES[2:], e[2:]):+.2f}); transitions " + ", ".join(
                  f"{tr} {slope(SIZES, rows[:, c]):+.2f} ({slope(SIZES[2:], rows[2:, c]):+.2f})"
                  for tr, c in (("triple_fit", 1), ("simplex_ls", 3), ("pinv", 5),
                                ("P23 only", 6))))
        print(f"at 1e6 transition / emission (L1) error: triple_fit {rows[-1, 1] / e[-1]:.2f}; "
              f"pinv {rows[-1, 5] / rows[-1, 4]:.2f} (its own emissions); transition error "
              f"triple_fit / pinv {rows[-1, 1] / rows[-1, 5]:.2f}")
        print("per-decade slopes (1e4-1e5, 1e5-1e6): emission "
              + " ".join(f"{v:+.2f}" for v in decade_slopes(SIZES, e)) + ", transition "
              + " ".join(f"{v:+.2f}" for v in decade_slopes(SIZES, rows[:, 1])))
    for name, pi, A, B in chains():
        beyond_sampling(name, pi, A, B, R)
    gaussian_rates(R)
    print(f"\n({time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
