"""Does init='spectral' keep its contract on every bundled sequence set? (issues 32 and 42)

``init='spectral'`` of an HMM is held to "never ends below the default start without a
SpectralInitWarning" at the final bound: the spectral start and the class's default start
(``'random'`` for the categorical and Poisson HMMs, ``'kmeans++'`` for the Gaussian ones) are
each fitted to the end and the better is kept (:mod:`latentkit.sequence._start_check`; until
issue 42 they were compared after 10 iterations each). For each set and seed this fits the
model with ``init='spectral'`` and with its default ``init`` (same seed, the model's default
``tol`` and ``max_iter``) and prints, over the seeds:

* ``bound sp`` / ``bound def``: mean final bound (nats per time step) of each;
* ``worst gap``: min over seeds of final(spectral) - final(default) (negative: the spectral fit
  ended lower);
* ``silent worse``: seeds where the spectral fit ended more than 1e-6 nats per time step lower
  *without* a SpectralInitWarning (the contract says 0);
* ``warned``: seeds with a SpectralInitWarning (the default start's fit ended higher, or
  degenerate moments); ``sp kept``: seeds whose spectral run was kept;
* ``it sp``: mean iterations of the spectral fit, honestly counted: the fit's own plus the
  start's (``spectral_report_['n_iter']``, both runs); ``it def``: the default fit's.

Run with ``PYTHONPATH=<another checkout>`` to measure another version of the start.

Run:  python benchmarks/bench_spectral_init_hmm.py [--seeds 5] [--only SUBSTRING]
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
    chars3 = load_gutenberg_characters(max_length=20000)
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
    out.append(("Gutenberg chars (2e4), CategoricalHMM K=3", chars3.data, chars3.lengths,
                lambda **kw: CategoricalHMM(3, n_features=27, **kw)))
    for ct in ("diag", "spherical"):
        out.append((f"Old Faithful geyser, GaussianHMM {ct} K=2", geyser, None,
                    lambda ct=ct, **kw: GaussianHMM(2, ct, **kw)))
    out.extend(generated())
    return out


def generated():
    """Simulated 3-state chains (5 sequences of 1000 steps, fixed seed): sticky categorical
    (8 symbols), fast-mixing categorical, Poisson counts and 2-d Gaussians of a sticky chain."""
    from latentkit.sequence import CategoricalHMM, GaussianHMM, PoissonHMM
    from latentkit.testing import sample_categorical_hmm

    rng = np.random.default_rng(42)
    sticky = np.full((3, 3), 0.05) + np.eye(3) * 0.85
    fast = np.array([[0.2, 0.5, 0.3], [0.4, 0.2, 0.4], [0.3, 0.3, 0.4]])
    B = rng.dirichlet(np.full(8, 0.5), size=3)
    lengths = [1000] * 5
    out = []
    for name, A in (("sticky", sticky), ("fast-mixing", fast)):
        x = sample_categorical_hmm(np.full(3, 1 / 3), A, B, 5, 1000, random_state=rng)
        out.append((f"generated {name}, CategoricalHMM K=3", x.reshape(-1, 1), lengths,
                    lambda **kw: CategoricalHMM(3, n_features=8, **kw)))
    z = sample_categorical_hmm(np.full(3, 1 / 3), sticky, np.eye(3), 5, 1000,
                               random_state=rng).reshape(-1)
    out.append(("generated sticky, PoissonHMM K=3", rng.poisson([2.0, 5.0, 9.0])[z][:, None],
                lengths, lambda **kw: PoissonHMM(3, **kw)))
    Xg = np.array([[0.0, 0.0], [1.5, 0.0], [0.0, 1.5]])[z] + rng.standard_normal((z.size, 2))
    out.append(("generated sticky, GaussianHMM diag K=3", Xg, lengths,
                lambda **kw: GaussianHMM(3, "diag", **kw)))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--only", default="", help="run the sets whose name contains this")
    args = ap.parse_args()
    import latentkit
    from latentkit.spectral import SpectralInitWarning

    print(f"{args.seeds} seeds; latentkit from {latentkit.__file__}")
    print(f"{'set, model':<44} {'bound sp':>9} {'bound def':>9} {'worst gap':>10} "
          f"{'silent worse':>12} {'warned':>6} {'sp kept':>7} {'it sp':>6} {'it def':>6}")
    t0 = time.perf_counter()
    for name, X, lengths, make in cases():
        if args.only not in name:
            continue
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
        print(f"{name:<44} {b_s.mean():9.4f} {b_d.mean():9.4f} {gap.min():+10.2e} "
              f"{silent:>12d} {int(warned.sum()):>6d} {int(kept.sum()):>7d} {it_s.mean():6.1f} "
              f"{it_d.mean():6.1f}", flush=True)
    print(f"({time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
