"""The dynamic topic model's starts on the Python Enhancement Proposals (yearly slices):
``init='lda'`` (the default and the paper's: a static LDA fit on all the slices, its topics at
every slice), ``init='spectral'`` (SpectralLDA's topics on all the slices, no iterations) and
``init='random'``.

For each start and seed: the fit's wall time, iterations, final bound (nats per document) and
the held-out perplexity (the model's own bound, :meth:`DynamicTopicModel.perplexity`) over
all the held-out documents and per slice. The split: 10% of the documents of every year with
at least 5 documents held out at random (seed 0), as ``benchmarks/bench_dtm.py``. Starts run
alternately in one process (timings comparable within a run only).

    python benchmarks/bench_dtm_start.py                  # K=10, seeds 0 1
    python benchmarks/bench_dtm_start.py --seeds 0 1 2 --n-components 20
"""

import argparse
import gzip
import os
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
PEPS = ROOT.parent / "shared" / "data" / "peps" / "peps.jsonl.gz"
sys.path.insert(0, str(ROOT))  # this checkout's latentkit, not an installed one


def load_peps():
    """Counts and years of the PEPs with a date (the vocabulary rules of bench_dtm.py)."""
    from latentkit.text import load_texts

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "peps.jsonl")
        with gzip.open(PEPS, "rt", encoding="utf-8") as src, open(path, "w") as dst:
            dst.write(src.read())
        c = load_texts(path, min_df=5, max_df=0.5)
    years = np.array([int(d[:4]) if d else -1 for d in c.metadata["created"]])
    keep = years >= 0
    return c.data[keep], years[keep]


def split(years, seed=0, fraction=0.1):
    """Boolean test mask: ``fraction`` of every year with at least 5 documents."""
    rng = np.random.default_rng(seed)
    test = np.zeros(years.size, dtype=bool)
    for y in np.unique(years):
        idx = np.flatnonzero(years == y)
        if idx.size >= 5:
            test[rng.choice(idx, max(1, int(round(fraction * idx.size))), replace=False)] = True
    return test


def main(argv=None):
    from latentkit.topic import DynamicTopicModel

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n-components", type=int, default=10)
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1])
    ap.add_argument("--inits", nargs="+", default=["lda", "spectral", "random"])
    ap.add_argument("--max-iter", type=int, default=50)
    args = ap.parse_args(argv)

    X, years = load_peps()
    test = split(years)
    Xtr, ttr, Xte, tte = X[~test], years[~test], X[test], years[test]
    print(f"PEPs: {Xtr.shape[0]} training and {Xte.shape[0]} held-out documents, "
          f"{X.shape[1]} words, {np.unique(ttr).size} yearly slices; K={args.n_components}; "
          f"load {os.getloadavg()[0]:.1f}")
    rows = []
    for seed in args.seeds:
        for init in args.inits:
            t0 = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                m = DynamicTopicModel(args.n_components, init=init, random_state=seed,
                                      max_iter=args.max_iter).fit(Xtr, times=ttr)
            wall = time.perf_counter() - t0
            per = m.perplexity(Xte, tte, per_slice=True)
            overall = m.perplexity(Xte, tte)
            rows.append((seed, init, wall, m.n_iter_, m.lower_bound_, overall, per))
            print(f"seed {seed} {init:8s} {wall:6.1f} s  {m.n_iter_:3d} iterations  "
                  f"bound {m.lower_bound_:9.2f}  held-out perplexity {overall:7.1f}  "
                  f"(median over slices {np.nanmedian(per):7.1f})", flush=True)
    base = {seed: per for seed, init, *_, per in rows if init == args.inits[0]}
    for seed, init, *_, per in rows:
        if init != args.inits[0]:
            ok = ~np.isnan(per) & ~np.isnan(base[seed])
            print(f"seed {seed} {init}: lower held-out perplexity than {args.inits[0]} on "
                  f"{int(np.sum(per[ok] < base[seed][ok]))} of {int(ok.sum())} slices")


if __name__ == "__main__":
    main()
