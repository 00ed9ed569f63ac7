"""Utility of private stochastic variational inference for LDA against epsilon, on KOS and NIPS
(issue 30, item 5).

For each corpus: 90% of the documents train, 10% are held out (the split of
``bench_private_lda.py``). For epsilon in the grid, :class:`latentkit.inference.PrivateStochasticVI`
(Park, Foulds, Chaudhuri & Welling 2020, Alg. 1; delta = 1e-5, improved RDP conversion) fits LDA
with k topics on the training documents: Poisson minibatches at rate ``q = batch_size / N``,
each document's expected topic-word counts clipped to Frobenius norm ``clip``, Gaussian noise
calibrated so that the ``ceil(epochs / q)`` steps spend epsilon. The held-out perplexity (per
token, the per-document bound of Hoffman, Blei & Bach 2010, section 4:
``perplexity(X, include_prior_kl=False)``) is reported, with the noise multiplier, the fraction
of sampled documents that were clipped and the epsilon spent under both conversions.

Unlike the private spectral start of ``bench_private_lda.py`` (after which VB reads the
documents without noise), here the **whole fit** is private.

Baselines on the same split: today's non-private SVI (``StochasticVI``, the same batch size,
learning rate and epochs: what ``epsilon=inf`` runs; ``tau = 1`` by default, as the private fits
take few steps) and the random start followed by 5 batch
VB iterations (the baseline of ``bench_private_lda.py``). "Useful" (last lines per corpus): the
smallest epsilon of the grid from which on (at it and every larger epsilon) the mean held-out
perplexity of private SVI is at most the median perplexity of that random-start baseline, the
criterion by which ``bench_private_lda.py`` judges the private spectral start; and, more
strictly, within 10% of the non-private SVI.

The clip norms are fixed before looking at the documents' statistics, from the scale of a
document's expected counts (norm at most its length): KOS (news-blog posts of ~100 tokens)
clip 10, NIPS (papers of ~1,300 tokens) clip 50. Choosing them on the data would leak; the
printed clipped fraction is a diagnostic of this benchmark and is not private.

Run:  python benchmarks/bench_private_svi.py [--datasets kos nips] [--seeds 2] [--k 10]
      [--batch-fraction 0.3] [--epochs 2] [--learning-offset 1]
      [--epsilons 0.5 1 2 4 8 16 64 256 1024 inf]
"""

import argparse
import math
import time

import numpy as np

from bench_private_lda import split  # the same 90/10 split of the documents
from latentkit.inference import PrivateStochasticVI
from latentkit.topic import LatentDirichletAllocation

EPSILONS = (0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 64.0, 256.0, 1024.0, math.inf)
CLIP = {"kos": 10.0, "nips": 50.0}


def heldout_perplexity(model, Xte):
    return float(model.perplexity(Xte, include_prior_kl=False))


def utility_curve(X, clip, k=10, epsilons=EPSILONS, seeds=(0, 1), batch_fraction=0.3,
                  epochs=2, delta=1e-5, learning_offset=1.0):
    """Rows of dicts, one per (fit, epsilon, seed): 'perplexity', 'seconds', and for the private
    fits 'noise_multiplier', 'clipped', 'spent_rdp', 'spent_improved', 'n_steps'."""
    Xtr, Xte = split(X)
    batch = max(1, int(round(batch_fraction * Xtr.shape[0])))
    rows = []
    for seed in seeds:
        t = time.perf_counter()
        m = LatentDirichletAllocation(k, init="random", max_iter=5, tol=0.0,
                                      random_state=seed).fit(Xtr)
        rows.append(dict(fit="random start + 5 VB", epsilon=None, seed=seed,
                         perplexity=heldout_perplexity(m, Xte),
                         seconds=time.perf_counter() - t))
        for eps in epsilons:
            t = time.perf_counter()
            f = PrivateStochasticVI(LatentDirichletAllocation(k), epsilon=eps, delta=delta,
                                    clip=clip, batch_size=batch, n_epochs=epochs,
                                    learning_offset=learning_offset, random_state=seed).fit(Xtr)
            rows.append(dict(fit="private SVI", epsilon=eps, seed=seed,
                             perplexity=heldout_perplexity(f.model_, Xte),
                             noise_multiplier=f.noise_multiplier_, clipped=f.clipped_fraction_,
                             spent_rdp=f.epsilon_["rdp"], spent_improved=f.epsilon_["rdp_improved"],
                             n_steps=f.n_steps_, seconds=time.perf_counter() - t))
    return rows, batch


def summarise(rows):
    """(table lines, useful epsilon vs the random start or None, within 10% of eps=inf or
    None)."""
    rnd = float(np.median([r["perplexity"] for r in rows if r["fit"] != "private SVI"]))
    priv = [r for r in rows if r["fit"] == "private SVI"]
    eps_seen = sorted({r["epsilon"] for r in priv})
    ref = float(np.mean([r["perplexity"] for r in priv if math.isinf(r["epsilon"])])) \
        if any(math.isinf(e) for e in eps_seen) else float("nan")
    lines = [f"{'fit':<22}{'epsilon':>9}{'held-out perplexity (mean [min, max])':>40}"
             f"{'noise mult.':>13}{'clipped':>9}{'spent rdp / improved':>23}{'steps':>7}"
             f"{'s/fit':>7}",
             f"{'random start + 5 VB':<22}{'-':>9}{f'{rnd:.1f} (median)':>40}"]
    good, close = {}, {}
    for eps in eps_seen:
        sel = [r for r in priv if r["epsilon"] == eps]
        p = [r["perplexity"] for r in sel]
        mu = float(np.mean(p))
        nm = np.mean([r["noise_multiplier"] for r in sel])
        cl = np.mean([r["clipped"] for r in sel])
        sr = np.mean([r["spent_rdp"] for r in sel])
        si = np.mean([r["spent_improved"] for r in sel])
        st = np.mean([r["n_steps"] for r in sel])
        sec = np.mean([r["seconds"] for r in sel])
        lines.append(f"{'private SVI':<22}{eps:>9g}"
                     f"{f'{mu:.1f} [{min(p):.1f}, {max(p):.1f}]':>40}{nm:>13.3f}{cl:>9.2f}"
                     f"{f'{sr:.3g} / {si:.3g}':>23}{st:>7.0f}{sec:>7.1f}")
        good[eps], close[eps] = mu <= rnd, mu <= 1.1 * ref
    useful = within = None
    for eps in reversed(eps_seen):
        if not good[eps]:
            break
        useful = eps
    for eps in reversed(eps_seen):
        if not close[eps]:
            break
        within = eps
    return lines, useful, within


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", nargs="+", default=["kos", "nips"])
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--batch-fraction", type=float, default=0.3)
    ap.add_argument("--epochs", type=float, default=2)
    ap.add_argument("--epsilons", type=float, nargs="+", default=list(EPSILONS))
    ap.add_argument("--learning-offset", type=float, default=1.0)
    args = ap.parse_args(argv)
    from latentkit.datasets import load_kos, load_nips

    for name in args.datasets:
        X = (load_kos if name == "kos" else load_nips)().data.tocsr()
        t = time.perf_counter()
        rows, batch = utility_curve(X, CLIP[name], k=args.k, epsilons=tuple(args.epsilons),
                                    seeds=tuple(range(args.seeds)),
                                    batch_fraction=args.batch_fraction, epochs=args.epochs,
                                    learning_offset=args.learning_offset)
        lines, useful, within = summarise(rows)
        print(f"\n{name}: {X.shape[0]} documents x {X.shape[1]} words, k={args.k}, "
              f"batch_size={batch} (q={args.batch_fraction:g}), clip={CLIP[name]:g}, "
              f"{args.epochs:g} epochs, tau={args.learning_offset:g}, kappa=0.7, delta=1e-5, "
              f"{args.seeds} seeds "
              f"({time.perf_counter() - t:.0f} s)")
        print("\n".join(lines))
        print(f"private SVI useful (mean held-out perplexity <= median random start + 5 VB, at "
              f"this and every larger epsilon) from epsilon = "
              f"{useful if useful is not None else 'none of the grid'}")
        print(f"within 10% of non-private SVI (epsilon = inf) from epsilon = "
              f"{within if within is not None else 'none of the grid'}")


if __name__ == "__main__":
    main()
