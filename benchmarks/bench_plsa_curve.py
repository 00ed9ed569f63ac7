"""PLSA time-to-quality curves: latentkit's :class:`latentkit.topic.PLSA` against BigARTM's
ARTM without regularisers (its PLSA), held-out perplexity against wall time.

Protocol
--------
* Corpora and split as ``bench_lda_curve.py`` (KOS, NIPS, Gutenberg paragraphs; empty
  documents dropped; a fixed random 10% held out, seed 0; ``--max-docs`` for a quick run).
* K = 20 (``-k``). latentkit, two curves: ``PLSA(K, random_state=seed, max_iter=...)`` (EM,
  Hofmann 1999, its defaults: asymmetric parametrisation, random start, ``beta=1``) and
  ``PLSA(..., init='documents', doc_iter=5, doc_start='uniform')`` (topics seeded with K
  documents; five updates of each P(z|d) per M-step, from 1/K every iteration: BigARTM's
  offline scheme, ``latentkit.topic._plsa_sweeps``; ``--doc-iter``, ``--sweeps-init``), one snapshot of ``components_`` per iteration (``callback``), numba's
  thread pool (2 threads).
  BigARTM: ``artm.ARTM`` with no regulariser, ``num_processors=2``, 4 batches, one snapshot of
  ``p(w | t)`` per collection pass, in its own virtual environment
  (``benchmarks/_bigartm_peer.py``; ``--bigartm-python``).
* Clocks as in ``bench_lda_curve.py``: from the start of the fit, snapshots excluded; converting
  the counts to BigARTM's batches is not timed (that favours BigARTM); latentkit's kernels are
  compiled before timing.
* One evaluator for both (:func:`heldout_perplexity_plsa`): each held-out document folded in
  with ``p(w | t)`` fixed (EM over ``p(t | d)``, ``latentkit.topic._plsa.plsa_fold_in_docs``,
  100 sweeps at most, tolerance 1e-8; Hofmann 1999, section 3.3), perplexity
  ``exp(-sum_dw n_dw log p(w | d) / N)`` over the held-out tokens of words that occur in the
  training documents (the same tokens for every method).
* Dominance as in ``bench_lda_curve.py``, for each latentkit curve: for every BigARTM
  snapshot, the ratio of latentkit's time to get within 1% of its perplexity to BigARTM's time (<= 1 everywhere:
  latentkit's curve dominates).

Run:

    python benchmarks/bench_plsa_curve.py --bigartm-python ~/artm-venv/bin/python
    python benchmarks/bench_plsa_curve.py --corpora kos --max-docs 1000 --budget 3 \\
        --bigartm-python ~/artm-venv/bin/python
"""

import argparse
import json
import os
import sys
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # run from anywhere
from _bigartm_peer import bigartm_python, bigartm_version, run_bigartm
from bench_lda_curve import (ROOT, Recorder, _uptime, add_corpus_arguments,  # noqa: F401
                             dominance, load_corpus)  # (ROOT: the checkout on sys.path)


def heldout_perplexity_plsa(components, X_test, seen):
    """Held-out perplexity of a pLSA ``p(w | t)`` (K, V) by folding in.

    Parameters
    ----------
    components : ndarray of shape (n_components, n_features)
        ``p(w | t)``, rows summing to 1.
    X_test : scipy.sparse.csr_matrix of shape (n_documents, n_features)
    seen : ndarray of shape (n_features,) bool
        Words occurring in the training documents: only their tokens are scored.

    Returns
    -------
    float
        Perplexity per token (lower is better; inf when a scored token has probability 0).
    """
    import scipy.sparse as sp

    from latentkit.topic._plsa import plsa_fold_in_docs

    X = sp.csr_matrix(X_test[:, np.flatnonzero(seen)])
    comp = np.ascontiguousarray(components[:, seen])
    comp = comp / comp.sum(axis=1, keepdims=True)   # (rows renormalised over the seen words)
    with warnings.catch_warnings(), np.errstate(divide="ignore"):
        warnings.simplefilter("ignore")
        _, ll = plsa_fold_in_docs(X, comp)
    return float(np.exp(-ll.sum() / X.sum()))


def run_plsa(train, K, budget, max_iter, seed, **params):
    """latentkit's PLSA (``params``: its keywords), one snapshot of ``components_`` per
    iteration."""
    from latentkit.base import ConvergenceWarning
    from latentkit.topic import PLSA

    rec = Recorder(budget)
    rec.start()
    m = PLSA(K, max_iter=max_iter, random_state=seed, **params,
             callback=lambda model, it, elbo: rec.record(model.components_))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        m.fit(train)
    return rec.times, rec.snaps


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_corpus_arguments(ap)
    ap.add_argument("--budget", type=float, default=None,
                    help="seconds per method and corpus (default 15 KOS, 30 NIPS and Gutenberg)")
    ap.add_argument("--max-iter", type=int, default=500, help="EM iterations / passes cap")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--doc-iter", type=int, default=5,
                    help="doc_iter of the second latentkit curve (doc_start='uniform')")
    ap.add_argument("--sweeps-init", default="documents",
                    help="init of the second latentkit curve")
    ap.add_argument("--bigartm-python", default=None, metavar="PYTHON",
                    help="interpreter of BigARTM's own virtual environment (default "
                         "$LATENTKIT_BIGARTM_PYTHON)")
    ap.add_argument("--out", default=".", help="folder for plsa_curve.json")
    args = ap.parse_args(argv)
    import scipy.sparse as sp

    from latentkit.topic import PLSA

    artm_py = bigartm_python(args.bigartm_python)
    version = bigartm_version(artm_py) if artm_py else None
    if version is None:
        sys.exit("BigARTM is needed: --bigartm-python PATH (see benchmarks/_bigartm_peer.py).")
    print(f"uptime at start: {_uptime()}")
    print(f"K={args.k}, BigARTM {version} (num_processors=2, 4 batches), latentkit PLSA "
          "(numba threads: 2 on this machine)")
    rng = np.random.default_rng(0)   # compile latentkit's kernels before timing
    small = sp.csr_matrix(rng.poisson(1.0, size=(40, 30)).astype(float))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        PLSA(3, max_iter=2, random_state=0).fit(small)
        PLSA(3, max_iter=2, random_state=0, doc_iter=2, doc_start="uniform",
             init="documents").fit(small)
    heldout_perplexity_plsa(np.full((3, 30), 1 / 30), small, np.ones(30, bool))
    budgets = {"kos": 15.0, "nips": 30.0, "gutenberg": 30.0}
    results = {"k": args.k, "bigartm": version, "uptime_start": _uptime(), "corpora": {}}
    for name in args.corpora.split(","):
        train, test = load_corpus(name, args.max_docs, args.seed)
        seen = np.asarray(train.sum(axis=0)).ravel() > 0
        budget = args.budget if args.budget is not None else budgets[name]
        print(f"\n== {name}: train {train.shape[0]} docs, held out {test.shape[0]} docs, "
              f"V={train.shape[1]}; budget {budget:g} s")
        curves = {}
        sweeps = f"latentkit PLSA {args.sweeps_init} doc_iter={args.doc_iter} uniform"
        for label, run in (("latentkit PLSA", lambda: run_plsa(train, args.k, budget,
                                                               args.max_iter, args.seed)),
                           ("BigARTM PLSA", lambda: run_bigartm(
                               artm_py, train, args.k, budget, args.seed, model="plsa",
                               max_passes=args.max_iter)),
                           (sweeps, lambda: run_plsa(train, args.k, budget, args.max_iter,
                                                     args.seed, doc_iter=args.doc_iter,
                                                     doc_start="uniform",
                                                     init=args.sweeps_init))):
            times, snaps = run()
            perp = [heldout_perplexity_plsa(c, test, seen) for c in snaps]
            curves[label] = {"times": [float(t) for t in times], "perplexity": perp}
            step = max(1, len(perp) // 12)
            print(f"  {label:15s}\n    best {min(perp):8.1f}  [" + ", ".join(
                f"{t:.2f}s:{p:.0f}" for t, p in list(zip(times, perp))[::step]) + "]",
                flush=True)
        results["corpora"][name] = {"curves": curves, "dominance": {}}
        for ours in ("latentkit PLSA", sweeps):
            rows = dominance(curves[ours], curves["BigARTM PLSA"])
            worst = max(r[3] for r in rows)
            print(f"  {ours} / BigARTM time ratio to each BigARTM snapshot's perplexity "
                  f"(within 1%): worst {worst:.2f} "
                  f"({'dominates' if worst <= 1.0 else 'does not dominate'})")
            print("    " + ", ".join(f"{q:.0f}@{tp:.2f}s:{ratio:.2f}"
                                     for tp, q, _, ratio in rows))
            results["corpora"][name]["dominance"][ours] = [list(map(float, r)) for r in rows]
    results["uptime_end"] = _uptime()
    print(f"\nuptime at end: {results['uptime_end']}")
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "plsa_curve.json"), "w") as f:
        json.dump(results, f, indent=1, default=lambda v: None if not np.isfinite(v) else v)
    return results


if __name__ == "__main__":
    main()
