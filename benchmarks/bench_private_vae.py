"""Utility of the differentially private VAE (DP-SGD) against epsilon, on optdigits (issue 30).

Data: optdigits binarised at count >= 8 (``load_optdigits(scale='binary')``), train 3,823 /
test 1,797. Model: encoder 64 -> hidden -> 2 x latent_dim, decoder the reverse (ReLU), Bernoulli
likelihood, Adam. For every epsilon of the grid (delta = 1e-5, 'rdp_improved' conversion),
:class:`latentkit.neural.PrivateVAE` trains for ``--epochs`` epochs of ``ceil(N / batch)``
Poisson-sampled steps (expected batch size ``--batch-size``, so ``q = batch / N``), per-example
gradients clipped to ``--clip-norm``, the noise multiplier calibrated so that all the steps spend
the budget. Beside it: the non-private :class:`~latentkit.neural.VAE` with the same
hyper-parameters (shuffled minibatches of ``--batch-size``; the epsilon = inf row), checked to
be exactly ``PrivateVAE(epsilon=inf, clip_norm=inf)``'s fit; ``PrivateVAE(epsilon=inf)`` with
clipping but no noise (what clipping alone costs); and the untrained network (its initial
parameters: the floor).

Printed per row: the noise multiplier, the steps, the epsilon spent under both conversions, the
held-out ELBO (nats per sample, 10 Monte-Carlo draws) and the 5-NN accuracy of the test digits'
latent means against the training digits' (Euclidean), and seconds. "Useful": the smallest
epsilon of the grid from which on (at it and at every larger epsilon) the private fit closes at
least half the gap between the untrained network and the non-private fit, for the ELBO and for
the 5-NN accuracy separately (mean over the seeds).

The privacy noise is drawn from OS entropy (not from the seed), so repeated runs differ by it.
The hyper-parameters (clip norm, learning rate, architecture) were chosen by hand on this data
and are not covered by the privacy guarantee.

Run:  python benchmarks/bench_private_vae.py [--epsilons 0.5 1 2 4 8 inf] [--epochs 20]
      [--batch-size 256] [--clip-norm 1] [--learning-rate 0.01] [--hidden 64]
      [--latent-dim 8] [--seeds 1]
"""

import argparse
import math
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout
sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench_vae's helpers

from bench_vae import initial_params, knn_accuracy  # noqa: E402
from latentkit.datasets import load_optdigits  # noqa: E402
from latentkit.neural import VAE, PrivateVAE  # noqa: E402

EPSILONS = (0.5, 1.0, 2.0, 4.0, 8.0, math.inf)


def _evaluate(model, Xtr, ytr, Xte, yte):
    return {"elbo": float(model.elbo(Xte, n_samples=10)),
            "knn": knn_accuracy(model.transform(Xtr), ytr, model.transform(Xte), yte)}


def utility_curve(Xtr, ytr, Xte, yte, epsilons=EPSILONS, delta=1e-5, clip_norm=1.0,
                  batch_size=256, epochs=20, learning_rate=1e-2, hidden=(64,), latent_dim=8,
                  seeds=(0,)):
    """One row (dict) per (fit, seed): ``fit`` ('private', 'non-private', 'clip only',
    'untrained'), ``epsilon``, ``seed``, ``noise_multiplier``, ``steps``, ``epsilon_rdp``,
    ``epsilon_rdp_improved``, ``elbo`` (held out, nats per sample), ``knn`` (5-NN accuracy),
    ``seconds``, and for the non-private fit ``identical`` (PrivateVAE at epsilon = inf,
    clip_norm = inf gives the same parameters bit for bit)."""
    common = dict(latent_dim=latent_dim, hidden_layer_sizes=tuple(hidden), batch_size=batch_size,
                  learning_rate=learning_rate, max_iter=epochs, tol=0.0)
    rows = []
    for seed in seeds:
        t = time.perf_counter()
        base = VAE(random_state=seed, **common).fit(Xtr)
        same = PrivateVAE(epsilon=math.inf, clip_norm=math.inf, random_state=seed,
                          **common).fit(Xtr)
        rows.append({"fit": "non-private", "epsilon": math.inf, "seed": seed,
                     "noise_multiplier": 0.0, "steps": base.n_iter_ * -(-len(Xtr) // batch_size),
                     "epsilon_rdp": math.inf, "epsilon_rdp_improved": math.inf,
                     "identical": bool(np.array_equal(base.params_, same.params_)),
                     "seconds": time.perf_counter() - t, **_evaluate(base, Xtr, ytr, Xte, yte)})
        untrained = initial_params(VAE(random_state=seed, **common), Xtr)
        rows.append({"fit": "untrained", "epsilon": math.nan, "seed": seed,
                     **_evaluate(untrained, Xtr, ytr, Xte, yte)})
        for eps in epsilons:
            t = time.perf_counter()
            m = PrivateVAE(epsilon=eps, delta=delta, clip_norm=clip_norm, random_state=seed,
                           **common).fit(Xtr)
            rep = m.privacy_report_
            rows.append({"fit": "private" if math.isfinite(eps) else "clip only",
                         "epsilon": eps, "seed": seed, "noise_multiplier": m.noise_multiplier_,
                         "steps": rep["steps"] or m.n_iter_ * -(-len(Xtr) // batch_size),
                         "epsilon_rdp": rep["epsilon_rdp"],
                         "epsilon_rdp_improved": rep["epsilon_rdp_improved"],
                         "seconds": time.perf_counter() - t, **_evaluate(m, Xtr, ytr, Xte, yte)})
    return rows


def summarise(rows):
    """Mean per fit and epsilon over the seeds, and the "useful" epsilons (see the module):
    returns ``(table, useful_elbo, useful_knn)``; a useful epsilon is None when no epsilon of
    the grid qualifies."""
    keys = []
    for r in rows:
        k = (r["fit"], r["epsilon"])
        if k not in keys:
            keys.append(k)
    table = []
    for fit, eps in keys:
        sel = [r for r in rows if r["fit"] == fit and (r["epsilon"] == eps or fit == "untrained")]
        table.append({**sel[0], "elbo": float(np.mean([r["elbo"] for r in sel])),
                      "knn": float(np.mean([r["knn"] for r in sel]))})
    ref = next(t for t in table if t["fit"] == "non-private")
    floor = next(t for t in table if t["fit"] == "untrained")
    private = sorted((t for t in table if t["fit"] == "private"), key=lambda t: t["epsilon"])
    useful = []
    for key in ("elbo", "knn"):
        mid = 0.5 * (floor[key] + ref[key])
        found = None
        for i, t in enumerate(private):
            if all(u[key] >= mid for u in private[i:]):
                found = t["epsilon"]
                break
        useful.append(found)
    return table, useful[0], useful[1]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--epsilons", type=float, nargs="+", default=list(EPSILONS))
    ap.add_argument("--delta", type=float, default=1e-5)
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--batch-size", type=int, default=256)
    ap.add_argument("--clip-norm", type=float, default=1.0)
    ap.add_argument("--learning-rate", type=float, default=1e-2)
    ap.add_argument("--hidden", type=int, nargs="*", default=[64])
    ap.add_argument("--latent-dim", type=int, default=8)
    ap.add_argument("--seeds", type=int, default=1)
    args = ap.parse_args(argv)
    tr, te = load_optdigits("train", scale="binary"), load_optdigits("test", scale="binary")
    print(f"optdigits binarised: train {tr.data.shape}, test {te.data.shape}; hidden "
          f"{args.hidden}, latent_dim {args.latent_dim}, Bernoulli, Adam lr "
          f"{args.learning_rate}, {args.epochs} epochs, batch size {args.batch_size} (expected "
          f"size of the Poisson samples, q = {args.batch_size / len(tr.data):.4f}), clip norm "
          f"{args.clip_norm}, delta {args.delta}, seeds {args.seeds}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rows = utility_curve(tr.data, tr.target, te.data, te.target, tuple(args.epsilons),
                             args.delta, args.clip_norm, args.batch_size, args.epochs,
                             args.learning_rate, tuple(args.hidden), args.latent_dim,
                             tuple(range(args.seeds)))
    table, useful_elbo, useful_knn = summarise(rows)
    print(f"{'fit':12s} {'epsilon':>8s} {'noise z':>8s} {'steps':>6s} {'eps rdp_impr':>12s} "
          f"{'eps rdp':>8s} {'test ELBO':>10s} {'5-NN':>6s} {'seconds':>8s}")
    for t in table:
        print(f"{t['fit']:12s} {t['epsilon']:8.3g} {t.get('noise_multiplier', math.nan):8.4g} "
              f"{t.get('steps', 0):6d} {t.get('epsilon_rdp_improved', math.nan):12.4g} "
              f"{t.get('epsilon_rdp', math.nan):8.4g} {t['elbo']:10.3f} {t['knn']:6.3f} "
              f"{t.get('seconds', math.nan):8.1f}")
    ident = all(r["identical"] for r in rows if r["fit"] == "non-private")
    print(f"PrivateVAE(epsilon=inf, clip_norm=inf) equals VAE's fit bit for bit: {ident}")
    print(f"useful (held-out ELBO closes half the gap untrained -> non-private) from epsilon "
          f"{useful_elbo}; 5-NN accuracy from epsilon {useful_knn}")


if __name__ == "__main__":
    main()
