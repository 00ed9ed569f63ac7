"""Does init='spectral' keep its contract on every bundled sequence set? (issue 32, item 1)

``init='spectral'`` of an HMM is checked against the class's default start (``'random'`` for
the categorical and Poisson HMMs, ``'kmeans++'`` for the Gaussian ones) by the model's own
objective after the same short run (``CHECK_ITERATIONS`` iterations each), and the better
start is kept (:mod:`latentkit.sequence._start_check`). For each set and seed this fits the
model with ``init='spectral'`` and with its default ``init`` (same seed, the model's default
``tol`` and ``max_iter``) and prints, over the seeds:

* ``bound sp`` / ``bound def``: mean final bound (nats per time step) of each;
* ``worst gap``: min over seeds of final(spectral) - final(default) (negative: the spectral fit
  ended lower);
* ``silent worse``: seeds where the spectral fit ended more than 1e-6 nats per time step lower
  *without* a SpectralInitWarning (the contract says 0);
* ``fell back``: seeds where the default start won the check (warned);
* ``it sp``: mean iterations of the spectral fit, honestly counted: the fit's own plus the
  check's (``spectral_report_['n_iter']``, both short runs); ``it def``: the default fit's;
  ``it sp kept``/``it def kept``: the same means over the seeds where the spectral start was
  kept.

Run:  python benchmarks/bench_spectral_init_hmm.py [--seeds 5]
"""

import argparse
import time
import warnings

import numpy as np


def cases():
    from latentkit.datasets import (load_earthquakes, load_gutenberg_characters,
                                    load_lambda_phage, load_old_faithful)
    from latentkit.sequence import CategoricalHMM, GaussianHMM, PoissonHMM

    quakes = load_earthquakes().data
    phage = load_lambda_phage().data
    chars = load_gutenberg_characters(max_length=50000)
    geyser = load_old_faithful("geyser").data
    out = []
    for k in (2, 3, 4):
        out.append((f"earthquakes, PoissonHMM K={k}", quakes, None,
                    lambda k=k, **kw: PoissonHMM(k, **kw)))
    for k in (2, 3, 4):
        out.append((f"lambda phage, CategoricalHMM K={k}", phage, None,
                    lambda k=k, **kw: CategoricalHMM(k, n_features=4, **kw)))
    out.append(("Gutenberg chars (5e4), CategoricalHMM K=2", chars.data, chars.lengths,
                lambda **kw: CategoricalHMM(2, n_features=27, **kw)))
    for ct in ("diag", "spherical"):
        out.append((f"Old Faithful geyser, GaussianHMM {ct} K=2", geyser, None,
                    lambda ct=ct, **kw: GaussianHMM(2, ct, **kw)))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=5)
    args = ap.parse_args()
    from latentkit.sequence._start_check import CHECK_ITERATIONS
    from latentkit.spectral import SpectralInitWarning

    print(f"{args.seeds} seeds; the check runs {CHECK_ITERATIONS} iterations from each start")
    print(f"{'set, model':<44} {'bound sp':>9} {'bound def':>9} {'worst gap':>10} "
          f"{'silent worse':>12} {'fell back':>9} {'it sp':>6} {'it def':>6} "
          f"{'it sp kept':>10} {'it def kept':>11}")
    t0 = time.perf_counter()
    for name, X, lengths, make in cases():
        rows = []
        for seed in range(args.seeds):
            with warnings.catch_warnings(record=True) as rec:
                warnings.simplefilter("always")
                s = make(init="spectral", random_state=seed).fit(X, lengths=lengths)
            warned = any(issubclass(r.category, SpectralInitWarning) for r in rec)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                d = make(random_state=seed).fit(X, lengths=lengths)
            kept = s.spectral_report_["chosen"] == "spectral"
            it_s = s.n_iter_ + s.spectral_report_["n_iter"]
            rows.append((s.lower_bound_, d.lower_bound_, warned, kept, it_s, d.n_iter_))
        b_s, b_d, warned, kept, it_s, it_d = (np.array(c) for c in zip(*rows))
        gap = b_s - b_d
        silent = int(np.sum((gap < -1e-6) & ~warned))
        ks = f"{it_s[kept].mean():10.1f}" if kept.any() else f"{'-':>10}"
        kd = f"{it_d[kept].mean():11.1f}" if kept.any() else f"{'-':>11}"
        print(f"{name:<44} {b_s.mean():9.4f} {b_d.mean():9.4f} {gap.min():+10.2e} "
              f"{silent:>12d} {int((~kept).sum()):>4d}/{args.seeds:<4d} {it_s.mean():6.1f} "
              f"{it_d.mean():6.1f} {ks} {kd}")
    print(f"({time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
