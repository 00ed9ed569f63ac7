"""The default LDA fit (K=20) against scikit-learn batch VB on KOS or NIPS: time to
scikit-learn's held-out perplexity after its default 10 iterations, in one process, rounds
alternated; with the time of each phase of the default fit, a one-thread CPU-time ratio and,
with ``--cold``, both sides in fresh processes with an empty numba cache.

Protocol
--------
* KOS or NIPS (``--corpus``) with the held-out split of ``bench_lda.py`` (a fixed random
  10 % of the documents, ``numpy.random.default_rng(0)``).
* scikit-learn: ``LatentDirichletAllocation(20, learning_method='batch', max_iter=10)`` (its
  defaults otherwise; priors 1/K as ours). Its target is the held-out perplexity of its topics
  after the 10th M-step (the per-document bound of Hoffman et al. 2010, the same evaluator for
  every method: ``bench_lda.held_out_curve``); its time is that of its 10 iterations.
* latentkit: ``LatentDirichletAllocation(20, random_state=r)`` with every default (the checked
  CVB0 start, the default ``tol``); the topics are snapshot after every iteration (the copies
  excluded from the times), so the time to the target includes the whole start. Also timed
  (``--variants``): the same fit with the start check's E-steps recomputed instead of
  replayed (the fit before issue 46's replay, bit for bit the same numbers) and
  ``init='cvb0'`` (no check).
* Ratio: scikit-learn's time over latentkit's time to the target; medians over ``--rounds``.
* Phases of the default fit (wall seconds, from wrappers around the calls of
  ``latentkit.topic._lda``): the spectral seed documents, the CVB0 sweeps, the start check
  (both of its VB runs; the default run's E-steps are replayed by the fit), and the time of
  the first snapshot (the first VB iteration's end).
* One-thread CPU-time ratio: both sides again with numba and BLAS on one thread, the CPU
  seconds of the process (``time.process_time``) to the target; on a loaded machine this
  reads the work each side does, which wall time on 2 shared cores does not.
* ``--cold``: one default fit and one scikit-learn fit, each in a fresh Python process with
  an empty ``NUMBA_CACHE_DIR``, timed from before the import of the library (a cold user:
  latentkit's import and the compilation of every kernel on the default path count; then a
  second fit in a second fresh process with the cache that the first one wrote, the
  "warm cache" user).

Run (the machine is shared; say the load with the numbers):

    python benchmarks/bench_lda_default_fit.py [--corpus kos|nips] [--rounds 3] [-k 20]
        [--variants default cvb0 recomputed] [--no-one-thread] [--cold]
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))
sys.path.insert(0, ROOT)  # run from a checkout
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import _bounds  # noqa: E402
from bench_lda import Recorder, held_out_curve, run_sklearn, time_to  # noqa: E402

VARIANTS = {"default": dict(), "recomputed": dict(replay=False), "cvb0": dict(init="cvb0")}
LABELS = {"default": "default", "recomputed": "default, check recomputed",
          "cvb0": "init='cvb0'"}
PHASES = ("spectral_seed_documents", "cvb0_topics", "checked_start")


def load_split(corpus):
    """(train, test) of ``bench_lda.py``'s split (a fixed random 10 % held out)."""
    from latentkit import datasets

    X = getattr(datasets, f"load_{corpus}")().data.tocsr()
    order = np.random.default_rng(0).permutation(X.shape[0])
    n_test = X.shape[0] // 10
    return X[np.sort(order[n_test:])], X[np.sort(order[:n_test])]


class CpuRecorder(Recorder):
    """:class:`bench_lda.Recorder` on the process's CPU clock."""

    def start(self):
        self.t0 = time.process_time()
        self.paused = 0.0

    def record(self, lam):
        t = time.process_time()
        self.times.append(t - self.t0 - self.paused)
        self.snaps.append(np.array(lam, dtype=np.float64, copy=True))
        self.paused += time.process_time() - t


class Phases:
    """Seconds (``clock``: wall or the process's CPU) spent in the start's calls of
    ``latentkit.topic._lda`` (:data:`PHASES`), and in the start check's VB steps of its
    default run (``check: default run``, the E-steps the fit replays) and of its random run
    (``check: random run``; the check alternates the two, default first)."""

    def __init__(self, clock=time.perf_counter):
        import latentkit.topic._lda as lda
        import latentkit.topic._start_check as check

        self.clock, self.seconds, self.steps = clock, {}, []
        self.patched = [(lda, n, getattr(lda, n)) for n in PHASES]
        self.patched.append((check, "_bound_and_step", check._bound_and_step))

    def __enter__(self):
        for mod, name, f in self.patched:
            setattr(mod, name, self._timed(name, f))
        return self

    def _timed(self, name, f):
        def g(*a, **kw):
            t = self.clock()
            try:
                return f(*a, **kw)
            finally:
                dt = self.clock() - t
                if name == "_bound_and_step":
                    run = ("check: default run", "check: random run")[len(self.steps) % 2]
                    self.steps.append(dt)
                    name_ = run
                else:
                    name_ = name
                self.seconds[name_] = self.seconds.get(name_, 0.0) + dt
        return g

    def __exit__(self, *exc):
        for mod, name, f in self.patched:
            setattr(mod, name, f)

    def line(self, first_snapshot, total):
        return ", ".join(f"{p} {self.seconds.get(p, 0.0):.2f}" for p in PHASES + (
            "check: default run", "check: random run")) + (
            f"; first snapshot at {first_snapshot:.2f}, whole fit {total:.2f}")


def run_default(train, K, seed, replay=True, init="auto", cpu=False):
    """A default fit with snapshots; ``replay=False`` recomputes the check's E-steps;
    ``cpu``: on the process's CPU clock. Returns (recorder, model, total, :class:`Phases`)."""
    import warnings

    from latentkit.topic import LatentDirichletAllocation
    from latentkit.topic import _lda_guard

    rec = CpuRecorder() if cpu else Recorder()
    orig = _lda_guard.ReplayedStart.step
    if not replay:
        _lda_guard.ReplayedStart.step = lambda self, step, *a: step
    try:
        m = LatentDirichletAllocation(K, init=init, random_state=seed,
                                      callback=lambda model, i, e: rec.record(model.components_))
        clock = time.process_time if cpu else time.perf_counter
        with warnings.catch_warnings(), Phases(clock) as phases:
            warnings.simplefilter("ignore")
            rec.start()
            m.fit(train)
            total = clock() - rec.t0 - rec.paused
    finally:
        _lda_guard.ReplayedStart.step = orig
    return rec, m, total, phases


def run_sklearn_cpu(train, K, iters):
    """:func:`bench_lda.run_sklearn` on the CPU clock."""
    import bench_lda

    orig = bench_lda.Recorder
    bench_lda.Recorder = CpuRecorder
    try:
        return run_sklearn(train, K, iters)
    finally:
        bench_lda.Recorder = orig


def one_thread(train, test, K, seed):
    """(scikit-learn CPU s, ours CPU s to its target, ours' :class:`Phases` in CPU s) with
    numba and BLAS on one thread."""
    import numba
    from threadpoolctl import threadpool_limits

    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        with threadpool_limits(1):
            sk = run_sklearn_cpu(train, K, 10)
            target = held_out_curve(sk, train, test, K, False)[-1]
            rec, _, total, phases = run_default(train, K, seed, cpu=True)
    finally:
        numba.set_num_threads(threads)
    perp = held_out_curve(rec, train, test, K, False)
    return sk.times[-1], time_to(np.array(rec.times), perp, target), phases, rec.times[0], total


_CHILD = r"""
import sys, time, warnings
import numpy as np
import scipy.sparse
side, data, K, seed, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
train = scipy.sparse.load_npz(data).tocsr()
times, snaps = [], []
def keep(lam):
    times.append(time.perf_counter() - t0)
    snaps.append(np.array(lam, dtype=np.float64, copy=True))
t0 = time.perf_counter()   # the library's import counts, the data's loading does not
if side == "ours":
    from latentkit.topic import LatentDirichletAllocation
    m = LatentDirichletAllocation(K, random_state=seed, callback=lambda mm, i, e: keep(mm.components_))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m.fit(train)
else:
    from sklearn.decomposition import LatentDirichletAllocation as SkLDA
    orig = SkLDA._em_step
    def em_step(self, *a, **kw):
        r = orig(self, *a, **kw)
        keep(self.components_)
        return r
    SkLDA._em_step = em_step
    SkLDA(K, learning_method="batch", max_iter=10, random_state=0).fit(train)
np.savez(out, times=np.array(times), snaps=np.array(snaps))
"""


def cold(train, test, K, seed):
    """Time to scikit-learn's target from fresh processes (module docstring, ``--cold``)."""
    import scipy.sparse

    res = {}
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "train.npz")
        scipy.sparse.save_npz(data, train)
        cache = os.path.join(tmp, "numba_cache")
        os.mkdir(cache)
        env = dict(os.environ, NUMBA_CACHE_DIR=cache,
                   PYTHONPATH=os.pathsep.join([ROOT, os.environ.get("PYTHONPATH", "")]))
        for label, side in (("scikit-learn", "sk"), ("ours, empty numba cache", "ours"),
                            ("ours, numba cache of the run before", "ours")):
            out = os.path.join(tmp, "snaps.npz")
            subprocess.run([sys.executable, "-c", _CHILD, side, data, str(K), str(seed), out],
                           env=env, check=True)
            with np.load(out) as f:
                rec = Recorder()
                rec.times, rec.snaps = list(f["times"]), list(f["snaps"])
            res[label] = rec
    target = held_out_curve(res["scikit-learn"], train, test, K, False)[-1]
    t_sk = res["scikit-learn"].times[-1]
    print(f"cold processes (import + fit, from before the import; data loading excluded): "
          f"scikit-learn {t_sk:.2f} s to its 10 iterations, held-out {target:.1f}")
    for label in list(res)[1:]:
        rec = res[label]
        perp = held_out_curve(rec, train, test, K, False)
        t = time_to(np.array(rec.times), perp, target)
        print(f"  {label:38s} reaches it after {t:6.2f} s (ratio {t_sk / t:5.2f}x); "
              f"first snapshot {rec.times[0]:.2f} s, whole fit {rec.times[-1]:.2f} s, final "
              f"held-out {perp[-1]:.1f}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", choices=["kos", "nips"], default="kos")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("-k", type=int, default=20)
    ap.add_argument("--variants", nargs="+", choices=list(VARIANTS),
                    default=["default", "recomputed", "cvb0"])
    ap.add_argument("--no-one-thread", action="store_true",
                    help="skip the one-thread CPU-time ratio")
    ap.add_argument("--cold", action="store_true",
                    help="also time both sides from fresh processes with an empty numba cache")
    args = ap.parse_args(argv)
    K = args.k
    train, test = load_split(args.corpus)
    print(_bounds.machine_info())
    print(f"{args.corpus.upper()}: train {train.shape[0]} docs, held out {test.shape[0]}, "
          f"K={K}", flush=True)
    if args.cold:
        cold(train, test, K, 0)
    run_default(train[:40], K, 0)  # compile outside the timings
    ratios = {name: [] for name in args.variants}
    cpu_ratios = []
    for r in range(args.rounds):
        sk = run_sklearn(train, K, 10)
        t_sk = sk.times[-1]
        target = held_out_curve(sk, train, test, K, False)[-1]
        print(f"round {r}: scikit-learn 10 iterations {t_sk:.2f} s, held-out perplexity "
              f"{target:.1f}", flush=True)
        for name in args.variants:
            rec, m, total, phases = run_default(train, K, r, **VARIANTS[name])
            perp = held_out_curve(rec, train, test, K, False)
            t = time_to(np.array(rec.times), perp, target)
            ratios[name].append(t_sk / t)
            report = getattr(m, "start_report_", {})
            print(f"  {LABELS[name]:26s} reaches it after {t:6.2f} s (ratio {t_sk / t:5.2f}x); "
                  f"fit {total:.2f} s, {m.n_iter_} iterations, final held-out {perp[-1]:.1f}, "
                  f"ELBO {m.lower_bound_:.3f}; check {report.get('chosen', '-')} "
                  f"{report.get('n_iter_default', '-')}+{report.get('n_iter_random', '-')}",
                  flush=True)
            if name == "default":
                print(f"    phases (wall s): {phases.line(rec.times[0], total)}", flush=True)
        if not args.no_one_thread:
            c_sk, c_ours, phases, first, total = one_thread(train, test, K, r)
            cpu_ratios.append(c_sk / c_ours)
            print(f"  one thread, CPU seconds to the target: scikit-learn {c_sk:.2f}, default "
                  f"fit {c_ours:.2f} (ratio {c_sk / c_ours:5.2f}x)", flush=True)
            print(f"    phases (one thread, CPU s): {phases.line(first, total)}", flush=True)
    print("median ratio to scikit-learn (its 10-iteration held-out perplexity):")
    for name, v in ratios.items():
        print(f"  {LABELS[name]:26s} {np.median(v):5.2f}x  ({', '.join(f'{x:.2f}' for x in v)})")
    if cpu_ratios:
        print(f"  {'default, one-thread CPU':26s} {np.median(cpu_ratios):5.2f}x  "
              f"({', '.join(f'{x:.2f}' for x in cpu_ratios)})")


if __name__ == "__main__":
    main()
