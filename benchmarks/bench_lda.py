"""LDA on KOS (K=20): latentkit vs scikit-learn (batch VB) vs gensim, time to the same held-out
perplexity, in one process on identical inputs.

Protocol
--------
* KOS (3,430 documents x 6,906 words), a fixed random 10% of the documents held out.
* Same priors for all three: doc_topic_prior = topic_word_prior = 1/K.
* latentkit and scikit-learn start from the same components_ (scikit-learn's own
  Gamma(100, 1/100) draw); gensim draws its own start the same way.
* Each library runs its default per-document settings (latentkit and scikit-learn:
  max_doc_update_iter=100, mean_change_tol=1e-3; gensim: iterations=50, gamma_threshold=1e-3).
* After every M-step the topics are snapshot (the copy is excluded from the timings); afterwards
  every snapshot is scored with the **same** held-out evaluator (latentkit's ``perplexity``,
  which equals scikit-learn's ``perplexity`` at the same topics to 1e-9), so the curves are
  comparable. Two measures: the per-document bound (Hoffman et al. 2010, no global term; the
  meaningful one) and scikit-learn's convention (global KL(q(beta)||p(beta)) included, which
  dominates on 343 held-out documents).
* Target: the highest (worst) of the three best held-out perplexities, i.e. a level every method
  reaches; reported is each method's time to first reach it and the ratios.
* A separate, fresh-process measurement of ``LatentDirichletAllocation(20).fit`` with the default
  ``max_iter``/``tol`` on all of KOS (numba compile included when the cache is cold).

Run (the machine is shared; numbers vary with the load):

    python benchmarks/bench_lda.py [--iters 40] [--gensim-passes 40]
"""

import argparse
import os
import subprocess
import sys
import time

import numpy as np

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))
sys.path.insert(0, ROOT)  # run from a checkout
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import _bounds  # noqa: E402  (benchmarks/_bounds.py: the shared bound of every benchmark)


def print_bounds(train, components, K, n_docs=None):
    """The main kernels' throughput on one thread against their bound (benchmarks/_bounds.py):
    the VB E-step at ``components`` (the fitted topics) and a CVB0 sweep (the default fit's
    start), on the first ``n_docs`` training documents."""
    X = train if n_docs is None else train[:n_docs]
    rate, sweeps = _bounds.lda_vb_rate(X, components, 1.0 / K)
    print(_bounds.kernel_fraction("lda_vb", f"LDA VB E-step (fraction of the bound; "
                                  f"{sweeps:.1f} sweeps per document)", rate,
                                  "token-topic updates"))
    rate = _bounds.cvb0_rate(X, K, 1.0 / K, 1.0 / K)
    print(_bounds.kernel_fraction("cvb0", "CVB0 sweep (fraction of the bound)", rate,
                                  "entry-topic updates"))


def _load():
    from latentkit.datasets import load_kos

    corpus = load_kos()
    X = corpus.data.tocsr()
    order = np.random.default_rng(0).permutation(X.shape[0])
    n_test = X.shape[0] // 10
    return X[np.sort(order[n_test:])], X[np.sort(order[:n_test])], list(corpus.vocabulary)


class Recorder:
    """Timestamps (excluding its own copying) and topic snapshots after every M-step."""

    def __init__(self):
        self.t0 = None
        self.paused = 0.0
        self.times, self.snaps = [], []

    def start(self):
        self.t0 = time.perf_counter()
        self.paused = 0.0

    def record(self, lam):
        t = time.perf_counter()
        self.times.append(t - self.t0 - self.paused)
        self.snaps.append(np.array(lam, dtype=np.float64, copy=True))
        self.paused += time.perf_counter() - t


def run_latentkit(train, start, K, iters):
    from latentkit.topic import LatentDirichletAllocation

    rec = Recorder()

    def cb(model, n_iter, elbo):
        rec.record(model.components_)

    m = LatentDirichletAllocation(K, init={"components": start}, max_iter=iters, tol=0,
                                  callback=cb)
    rec.start()
    m.fit(train)
    return rec


def run_sklearn(train, K, iters):
    from sklearn.decomposition import LatentDirichletAllocation as SkLDA

    rec = Recorder()
    sk = SkLDA(K, learning_method="batch", max_iter=iters, random_state=0)
    orig = SkLDA._em_step

    def em_step(self, *a, **kw):
        out = orig(self, *a, **kw)
        rec.record(self.components_)
        return out

    SkLDA._em_step = em_step
    try:
        rec.start()
        sk.fit(train)   # (its final training-perplexity E-step happens after the last record)
    finally:
        SkLDA._em_step = orig
    return rec


def run_gensim(train, K, passes, batch):
    from gensim.matutils import Sparse2Corpus
    from gensim.models import LdaModel

    corpus = list(Sparse2Corpus(train, documents_columns=False))
    id2word = {i: str(i) for i in range(train.shape[1])}
    rec = Recorder()
    orig = LdaModel.do_mstep

    def do_mstep(self, rho, other, extra_pass=False):
        out = orig(self, rho, other, extra_pass)
        rec.record(self.state.get_lambda())
        return out

    LdaModel.do_mstep = do_mstep
    try:
        rec.start()
        LdaModel(corpus=corpus, id2word=id2word, num_topics=K, alpha=np.full(K, 1.0 / K),
                 eta=1.0 / K, passes=passes, update_every=0 if batch else 1, chunksize=2000,
                 iterations=50, gamma_threshold=1e-3, eval_every=None, random_state=0,
                 dtype=np.float64)
    finally:
        LdaModel.do_mstep = orig
    return rec


def held_out_curve(rec, train, test, K, include_prior_kl):
    from latentkit.topic import LatentDirichletAllocation

    ev = LatentDirichletAllocation(K, max_iter=1, tol=0, random_state=0).fit(train[:50])
    out = []
    for lam in rec.snaps:
        ev._set_components(np.maximum(lam, 1e-300))
        out.append(ev.perplexity(test, include_prior_kl=include_prior_kl))
    return np.array(out)


def time_to(times, perp, target):
    hit = np.flatnonzero(perp <= target)
    return times[hit[0]] if hit.size else np.inf


def fresh_default_fit():
    """Default fit on all of KOS, K=20, in a fresh process; cold numba cache in a temp dir."""
    import tempfile

    code = (
        "import time; t0 = time.perf_counter()\n"
        "from latentkit.datasets import load_kos\n"
        "from latentkit.topic import LatentDirichletAllocation\n"
        "X = load_kos().data\n"
        "m = LatentDirichletAllocation(20, random_state=0).fit(X)\n"
        "print(f'{time.perf_counter() - t0:.1f} {m.n_iter_} {m.lower_bound_:.3f} '"
        "f'{m.perplexity(X):.1f}')\n"
    )
    res = {}
    with tempfile.TemporaryDirectory() as cache:
        for label in ("cold numba cache", "warm numba cache"):
            env = dict(os.environ, NUMBA_CACHE_DIR=cache,
                       PYTHONPATH=os.pathsep.join([ROOT, os.environ.get("PYTHONPATH", "")]))
            out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                                 text=True, check=True).stdout.split()
            res[label] = out
    return res


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iters", type=int, default=40, help="batch iterations (latentkit, sklearn)")
    ap.add_argument("--gensim-passes", type=int, default=40)
    ap.add_argument("-k", type=int, default=20)
    ap.add_argument("--skip-fresh", action="store_true")
    ap.add_argument("--max-docs", type=int, default=None,
                    help="train on this many documents only (a quick check)")
    args = ap.parse_args(argv)
    K = args.k
    import numba

    train, test, vocab = _load()
    if args.max_docs:
        train = train[:args.max_docs]
    print(_bounds.machine_info())
    print(f"KOS: train {train.shape[0]} docs, held out {test.shape[0]} docs, V={train.shape[1]}, "
          f"K={K}; numba threads {numba.get_num_threads()}")
    start = np.random.RandomState(0).gamma(100.0, 0.01, (K, train.shape[1]))
    # compile outside the timings
    from latentkit.topic import LatentDirichletAllocation
    LatentDirichletAllocation(K, max_iter=2, tol=0, random_state=0).fit(train[:20])

    runs = {}
    n_ours = 2 * args.iters   # cheap; lets latentkit reach scikit-learn's best value
    runs["latentkit"] = run_latentkit(train, start, K, n_ours)
    print(f"latentkit: {n_ours} iterations in {runs['latentkit'].times[-1]:.1f} s", flush=True)
    runs["sklearn batch"] = run_sklearn(train, K, args.iters)
    print(f"sklearn:   {args.iters} iterations in {runs['sklearn batch'].times[-1]:.1f} s",
          flush=True)
    runs["gensim online"] = run_gensim(train, K, args.gensim_passes, batch=False)
    print(f"gensim online: {args.gensim_passes} passes in {runs['gensim online'].times[-1]:.1f} s",
          flush=True)
    runs["gensim batch"] = run_gensim(train, K, args.gensim_passes, batch=True)
    print(f"gensim batch:  {args.gensim_passes} passes in {runs['gensim batch'].times[-1]:.1f} s",
          flush=True)

    batch_names = ("latentkit", "sklearn batch", "gensim batch", "gensim online")
    for include, label in ((False, "per-document bound (Hoffman et al. 2010)"),
                           (True, "scikit-learn's convention, global KL included")):
        curves = {name: (np.array(r.times), held_out_curve(r, train, test, K, include))
                  for name, r in runs.items()}
        print(f"\nheld-out perplexity, {label}, same evaluator, after M-steps (every 5th):")
        for name, (t, p) in curves.items():
            pts = ", ".join(f"{t[i]:.1f}s:{p[i]:.0f}" for i in range(0, len(p), 5))
            print(f"  {name:14s} best {p.min():9.1f}   {pts}")
        target = max(curves[n][1].min() for n in batch_names)
        print(f"target (the worst of the four best values, reached by all): {target:.1f}")
        t_ours = time_to(*curves["latentkit"], target)
        for name in batch_names:
            t = time_to(*curves[name], target)
            print(f"  {name:14s} reaches it after {t:7.2f} s   ratio to latentkit "
                  f"{t / t_ours:6.2f}x")
        target2 = curves["sklearn batch"][1].min()
        t2 = time_to(*curves["latentkit"], target2)
        ts2 = time_to(*curves["sklearn batch"], target2)
        print(f"scikit-learn's best {target2:.1f}: latentkit {t2:.2f} s, sklearn {ts2:.2f} s, "
              f"ratio {ts2 / t2:.2f}x")
    per_it_ours = np.diff(curves["latentkit"][0][:args.iters]).mean()
    per_it_sk = np.diff(curves["sklearn batch"][0]).mean()
    print(f"\nper batch iteration: latentkit {per_it_ours:.3f} s, sklearn {per_it_sk:.3f} s, "
          f"ratio {per_it_sk / per_it_ours:.2f}x")

    print_bounds(train, runs["latentkit"].snaps[args.iters - 1], K)

    if not args.skip_fresh:
        print("\nLatentDirichletAllocation(20).fit on all of KOS, defaults, fresh process "
              "(seconds incl. import, n_iter, ELBO nats/doc, training perplexity):")
        for label, out in fresh_default_fit().items():
            print(f"  {label:17s} {' '.join(out)}")


if __name__ == "__main__":
    main()
