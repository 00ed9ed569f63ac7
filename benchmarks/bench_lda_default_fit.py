"""The default LDA fit on KOS (K=20) against scikit-learn batch VB: time to scikit-learn's
held-out perplexity after its default 10 iterations, in one process, rounds alternated.

Protocol
--------
* KOS with the held-out split of ``bench_lda.py`` (a fixed random 10 % of the documents).
* scikit-learn: ``LatentDirichletAllocation(20, learning_method='batch', max_iter=10)`` (its
  defaults otherwise; priors 1/K as ours). Its target is the held-out perplexity of its topics
  after the 10th M-step (the per-document bound of Hoffman et al. 2010, the same evaluator for
  every method: ``bench_lda.held_out_curve``); its time is that of its 10 iterations.
* latentkit: ``LatentDirichletAllocation(20, random_state=r)`` with every default (the checked
  CVB0 start, the default ``tol``); the topics are snapshot after every iteration (the copies
  excluded from the times), so the time to the target includes the start. Also timed: the
  same fit with the start check's E-steps recomputed instead of replayed (the fit before
  issue 46's replay, bit for bit the same numbers) and ``init='cvb0'`` (no check).
* Ratio: scikit-learn's time over latentkit's time to the target; medians over ``--rounds``.

Run (the machine is shared; say the load with the numbers):

    python benchmarks/bench_lda_default_fit.py [--rounds 3] [-k 20]
"""

import argparse
import os
import sys
import time

import numpy as np

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))
sys.path.insert(0, ROOT)  # run from a checkout
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import _bounds  # noqa: E402
from bench_lda import Recorder, _load, held_out_curve, run_sklearn, time_to  # noqa: E402


def run_default(train, K, seed, replay=True, init="auto"):
    """A default fit with snapshots; ``replay=False`` recomputes the check's E-steps."""
    import warnings

    from latentkit.topic import LatentDirichletAllocation
    from latentkit.topic import _lda_guard

    rec = Recorder()
    orig = _lda_guard.ReplayedStart.step
    if not replay:
        _lda_guard.ReplayedStart.step = lambda self, step, *a: step
    try:
        m = LatentDirichletAllocation(K, init=init, random_state=seed,
                                      callback=lambda model, i, e: rec.record(model.components_))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            rec.start()
            m.fit(train)
            total = time.perf_counter() - rec.t0 - rec.paused
    finally:
        _lda_guard.ReplayedStart.step = orig
    return rec, m, total


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("-k", type=int, default=20)
    args = ap.parse_args(argv)
    K = args.k
    train, test, _ = _load()
    print(_bounds.machine_info())
    print(f"KOS: train {train.shape[0]} docs, held out {test.shape[0]}, K={K}", flush=True)
    run_default(train[:40], K, 0)  # compile outside the timings
    variants = {"default": dict(), "default, check recomputed": dict(replay=False),
                "init='cvb0'": dict(init="cvb0")}
    ratios = {name: [] for name in variants}
    for r in range(args.rounds):
        sk = run_sklearn(train, K, 10)
        t_sk = sk.times[-1]
        target = held_out_curve(sk, train, test, K, False)[-1]
        print(f"round {r}: scikit-learn 10 iterations {t_sk:.2f} s, held-out perplexity "
              f"{target:.1f}", flush=True)
        for name, kw in variants.items():
            rec, m, total = run_default(train, K, r, **kw)
            perp = held_out_curve(rec, train, test, K, False)
            t = time_to(np.array(rec.times), perp, target)
            ratios[name].append(t_sk / t)
            report = getattr(m, "start_report_", {})
            print(f"  {name:26s} reaches it after {t:6.2f} s (ratio {t_sk / t:5.2f}x); fit "
                  f"{total:.2f} s, {m.n_iter_} iterations, final held-out {perp[-1]:.1f}, "
                  f"ELBO {m.lower_bound_:.3f}; check {report.get('chosen', '-')} "
                  f"{report.get('n_iter_default', '-')}+{report.get('n_iter_random', '-')}",
                  flush=True)
    print("median ratio to scikit-learn (its 10-iteration held-out perplexity):")
    for name, v in ratios.items():
        print(f"  {name:26s} {np.median(v):5.2f}x  ({', '.join(f'{x:.2f}' for x in v)})")


if __name__ == "__main__":
    main()
