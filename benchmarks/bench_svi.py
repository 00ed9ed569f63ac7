"""Stochastic variational inference for LDA: latentkit
(``StochasticVI(LatentDirichletAllocation(...))``, once spelled ``learning_method='online'``)
against batch VB, scikit-learn's ``learning_method='online'`` and gensim's ``LdaModel`` and ``LdaMulticore``:
time-to-held-out-perplexity curves, in one process on identical inputs, and the time for ours to
reach each peer's final held-out perplexity against the peer's own time to reach it.

Protocol
--------
* Corpora: Gutenberg novels by paragraph (17,080 documents; ``load_gutenberg_novels(level=
  'paragraph')``) and KOS (3,430 blog posts; ``load_kos()``). A fixed random 10% of the
  documents is held out (the same split for every method); all methods train on the rest.
* Same model and schedule for the three online methods: K topics, doc_topic_prior = topic_word_
  prior = 1/K, minibatches of ``--batch-size`` documents, step size (t + tau)^-kappa with
  tau = 10, kappa = 0.7, N = the number of training documents; per-document updates: at most
  100 sweeps and a mean-change tolerance of 1e-3 (latentkit and scikit-learn defaults; gensim
  ``iterations=100, gamma_threshold=1e-3``, ``dtype=float64`` like the others: its default
  float32 degrades on the Gutenberg paragraphs, held-out perplexity 8727 against 4662 after two
  passes, and rises with more passes). latentkit shuffles the minibatches every epoch,
  scikit-learn and gensim go through the documents in order (their fit loops; on the
  Gutenberg paragraphs, book by book, which slows their convergence per pass: with
  ``--shuffle-peers`` they get the training documents in one random order instead).
* gensim as its users call it: ``LdaModel(corpus, passes=epochs, update_every=1)`` and
  ``LdaMulticore(corpus, passes=epochs, workers=cores - 1)``, one call each. Both use gensim's
  own step size ``(tau + pass + t_1)^-kappa``, where t_1 counts the minibatches of the FIRST pass
  only (its ``num_updates`` does not advance in later passes): after the first pass the step
  size stays near ``(tau + N/|B|)^-kappa`` instead of decaying, so its held-out perplexity
  fluctuates from pass to pass. (An earlier version of this script called
  ``LdaMulticore.update`` once per pass: each call adds N to gensim's document count, so in
  pass e the minibatch statistics were scaled by e N / |B| (the data counted e times
  against the prior) with a decaying step; that is why "LdaMulticore" reached 2096 on KOS there. It
  was not the same model.) LdaMulticore with one worker process differs from LdaModel only
  by its queue: a worker may run an E-step on topics one or two updates old.
* Timing: only the fitting (scikit-learn: its ``partial_fit`` calls; gensim: its constructor
  call, with the snapshot copies subtracted; latentkit: ``StochasticVI.heldout_times_``, which
  excludes evaluations). After every ``--snapshot-every`` minibatch steps (default 1: every
  step) the topics lambda (a K x V copy) are snapshot (gensim: in its ``do_mstep``, after the
  update that completes those minibatches), and the first snapshot at or below a target gives
  the time to it. (Until issue 46 the snapshots were every half epoch: on KOS, 13 steps per
  epoch, every 6 steps, so a method that reached a target between snapshots was seen up to 6
  steps late, and scikit-learn's "final" perplexity was that of step 60, not of its 5 passes'
  65 steps.)
* ``--rounds R`` repeats latentkit SVI and scikit-learn, alternated, in the same process and
  reports the median of each method's time to each target (the machine is shared: one run each
  is one draw of the load).
* One-thread CPU time (robust to load): after the curves, the process CPU seconds
  (``time.process_time``) of latentkit SVI with numba on one thread for exactly the steps it
  needed to reach scikit-learn's final perplexity (``max_steps``, no held-out evaluation)
  against scikit-learn's ``partial_fit`` calls up to the step at which it first reached it
  (BLAS on one thread), alternated, best of ``--cpu-rounds``.
* **One evaluator for all**: every snapshot's lambda is scored with latentkit's
  ``perplexity(X_heldout, include_prior_kl=False)``: held-out documents' per-document ELBO
  (gamma and phi optimised with the topics fixed, E[log beta] under q(beta) = Dir(lambda),
  alpha = 1/K), summed, per held-out token: exp(-sum_d ELBO_d / n_tokens) (Hoffman, Blei & Bach
  2010, section 4). The global KL(q(beta)||p(beta)) is left out: it does not shrink with the
  number of held-out documents and would dominate. Each library's own bound would use its own
  inference settings; one evaluator makes the curves comparable.
* Reference: latentkit batch VB (``LatentDirichletAllocation(K)``, default tol 0.25 nats per
  document unless ``--batch-tol``) from its initialisation to convergence, perplexity P_batch. Target: 1.02 * P_batch. Reported: each
  method's time to first reach the target, and the ratios to latentkit SVI. When a peer never
  reaches it within its epochs, the common target is also given as the worst of the best
  perplexities of the online methods (a level all of them reach).

Run (the machine is shared; numbers vary with the load):

    python benchmarks/bench_svi.py [--dataset kos|gutenberg|both] [-k 20] [--batch-size 256]
                                   [--epochs 10] [--sklearn-jobs 1] [--skip-batch]
                                   [--gensim-workers N] [--snapshot-every 1] [--rounds 1]
                                   [--cpu-rounds 3]
"""

import argparse
import os
import sys
import time

import numpy as np

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import _bounds  # noqa: E402  (benchmarks/_bounds.py: the shared bound of every benchmark)

TAU, KAPPA = 10.0, 0.7


def load(name):
    from latentkit.datasets import load_gutenberg_novels, load_kos

    X = (load_kos() if name == "kos" else load_gutenberg_novels(level="paragraph")).data
    X = X[np.asarray(X.sum(axis=1)).ravel() > 0]  # empty paragraphs carry no tokens
    rng = np.random.default_rng(0)
    perm = rng.permutation(X.shape[0])
    n_test = X.shape[0] // 10
    return X[np.sort(perm[n_test:])].tocsr(), X[np.sort(perm[:n_test])].tocsr()


class Evaluator:
    """latentkit's held-out perplexity at given topics lambda (the same for every library)."""

    def __init__(self, k, X_test):
        from latentkit.topic import LatentDirichletAllocation

        self.model = LatentDirichletAllocation(k)
        self.model._validate_params()
        self.model.n_features_in_ = X_test.shape[1]
        self.X_test = X_test

    def __call__(self, lam):
        self.model._set_components(np.asarray(lam, dtype=np.float64))
        return self.model.perplexity(self.X_test, include_prior_kl=False)


def run_batch(X, k, seed, tol):
    from latentkit.topic import LatentDirichletAllocation

    snaps, excl = [], [0.0]
    t0 = time.perf_counter()

    def cb(model, n_iter, elbo):
        s = time.perf_counter()
        snaps.append((s - t0 - excl[0], model.components_.copy()))
        excl[0] += time.perf_counter() - s

    kw = {} if tol is None else {"tol": tol}
    m = LatentDirichletAllocation(k, random_state=seed, callback=cb, max_iter=300, **kw).fit(X)
    return snaps, m.n_iter_


def _svi(k, bs, epochs, seed, **kw):
    from latentkit.inference import StochasticVI
    from latentkit.topic import LatentDirichletAllocation

    return StochasticVI(LatentDirichletAllocation(k, learning_offset=TAU, learning_decay=KAPPA),
                        batch_size=bs, learning_offset=TAU, learning_decay=KAPPA,
                        n_epochs=epochs, tol=0.0, random_state=seed, **kw)


def run_ours(X, X_test, k, bs, epochs, seed, every=1):
    """Snapshots (seconds, lambda, step) every ``every`` steps."""
    lams = []
    # the held-out set passed to the driver is a small slice: it only triggers the callback
    # (its evaluation time is excluded from heldout_times_ anyway)
    svi = _svi(k, bs, epochs, seed, holdout=X_test[:20], evaluate_every=every,
               callback=lambda s, t, v: lams.append(s.model_.components_.copy()))
    svi.fit(X)
    return list(zip(svi.heldout_times_.tolist(), lams, svi.heldout_steps_.tolist()))


def _sklearn(X, k, bs, seed, n_jobs):
    from sklearn.decomposition import LatentDirichletAllocation as SkLDA

    return SkLDA(k, learning_method="online", batch_size=bs, learning_offset=TAU,
                 learning_decay=KAPPA, doc_topic_prior=1.0 / k, topic_word_prior=1.0 / k,
                 total_samples=X.shape[0], max_doc_update_iter=100, mean_change_tol=1e-3,
                 random_state=seed, n_jobs=n_jobs)


def run_sklearn(X, k, bs, epochs, seed, n_jobs, every=1):
    """Snapshots (seconds, lambda, step) every ``every`` steps and after the last one."""
    sk = _sklearn(X, k, bs, seed, n_jobs)
    n = X.shape[0]
    snaps, elapsed, t = [], 0.0, 0
    total = epochs * -(-n // bs)
    for _ in range(epochs):
        for a in range(0, n, bs):
            s = time.perf_counter()
            sk.partial_fit(X[a:a + bs])
            elapsed += time.perf_counter() - s
            t += 1
            if t % every == 0 or t == total:
                snaps.append((elapsed, sk.components_.copy(), t))
    return snaps


def cpu_times(X, X_peers, k, bs, seed, n_jobs, steps_ours, steps_sk, rounds):
    """Best-of-``rounds`` process CPU seconds, alternated: latentkit SVI on one numba thread
    for ``steps_ours`` steps (no held-out evaluation) and scikit-learn's first ``steps_sk``
    ``partial_fit`` calls with BLAS on one thread."""
    import numba
    from threadpoolctl import threadpool_limits

    n = X.shape[0]
    starts = [a for a in range(0, n, bs)]
    old = numba.get_num_threads()
    best_o = best_s = np.inf
    try:
        numba.set_num_threads(1)
        with threadpool_limits(1):
            for _ in range(rounds):
                svi = _svi(k, bs, -(-steps_ours // len(starts)), seed, max_steps=steps_ours)
                c = time.process_time()
                svi.fit(X)
                best_o = min(best_o, time.process_time() - c)
                sk = _sklearn(X_peers, k, bs, seed, n_jobs)
                c = time.process_time()
                for t in range(steps_sk):
                    a = starts[t % len(starts)]
                    sk.partial_fit(X_peers[a:a + bs])
                best_s = min(best_s, time.process_time() - c)
    finally:
        numba.set_num_threads(old)
    return best_o, best_s


def run_gensim(X, k, bs, epochs, seed, float32=False, workers=None, every=1):
    """gensim's LdaModel, or with ``workers`` its LdaMulticore (that many worker processes
    for the E-step, online updates as in LdaModel), as a user calls them: one constructor call
    with ``passes=epochs``. Snapshots of lambda every ``every`` minibatches of documents are
    taken in ``do_mstep`` (the copy's time excluded), the same granularity as for the others."""
    from gensim.matutils import Sparse2Corpus
    from gensim.models import LdaModel, LdaMulticore

    corpus = Sparse2Corpus(X, documents_columns=False)
    snaps = []
    clock = {"t0": None, "docs": 0, "next": 0.0, "m": 0}
    interval = min(X.shape[0], every * bs)
    last = epochs * X.shape[0]

    def snapshot(model, other):
        clock["docs"] += other.numdocs
        clock["m"] += 1
        if clock["docs"] + 0.5 >= min(clock["next"] + interval, last):  # and after the last
            s = time.perf_counter()
            snaps.append((s - clock["t0"], model.state.get_lambda().copy(), clock["m"]))
            clock["next"] += interval * ((clock["docs"] + 0.5 - clock["next"]) // interval)
            clock["t0"] += time.perf_counter() - s  # exclude the copy

    base = LdaModel if workers is None else LdaMulticore

    class Timed(base):
        def do_mstep(self, rho, other, extra_pass=False):
            super().do_mstep(rho, other, extra_pass)
            snapshot(self, other)

    kw = dict(num_topics=k, id2word={i: str(i) for i in range(X.shape[1])},
              alpha=np.full(k, 1.0 / k), eta=1.0 / k, chunksize=bs, passes=epochs,
              decay=KAPPA, offset=TAU, iterations=100, gamma_threshold=1e-3,
              eval_every=None, random_state=seed,
              dtype=np.float32 if float32 else np.float64)
    if workers is None:
        kw["update_every"] = 1
    else:
        kw["workers"] = workers
    clock["t0"] = time.perf_counter()
    Timed(corpus, **kw)
    return snaps


def time_to(curve, target):
    for t, p in curve:
        if p <= target:
            return t
    return None


def fmt_t(t):
    return "   never" if t is None else f"{t:8.2f}"


def bench(name, args):
    X, X_test = load(name)
    k, bs = args.k, args.batch_size if name == "kos" else args.batch_size_gutenberg
    ev = Evaluator(k, X_test)
    print(f"\n=== {name}: {X.shape[0]} training / {X_test.shape[0]} held-out documents, "
          f"V={X.shape[1]}, K={k}, batch {bs}, tau={TAU}, kappa={KAPPA}, {args.epochs} epochs")
    # warm the numba kernels (compile) outside every timing
    run_ours(X[:2 * bs], X_test, k, bs, 1, 0)

    curves = {}
    if not args.skip_batch:
        batch_snaps, batch_iters = run_batch(X, k, args.seed, args.batch_tol)
        curves["latentkit batch VB"] = [(t, ev(lam)) for t, lam in batch_snaps]
        p_batch = curves["latentkit batch VB"][-1][1]
        t_batch = batch_snaps[-1][0]
        print(f"batch VB (tol={'default' if args.batch_tol is None else args.batch_tol}): "
              f"{batch_iters} iterations, {t_batch:.1f} s, held-out perplexity {p_batch:.2f}")
    every = args.snapshot_every
    ours_epochs = args.ours_epochs or args.epochs
    X_peers = X
    if args.shuffle_peers:  # the peers see one fixed random order (they do not shuffle)
        X_peers = X[np.random.default_rng(args.seed).permutation(X.shape[0])]
    # latentkit SVI and scikit-learn, alternated --rounds times; the snapshots' perplexities
    # are those of the first round (the runs are deterministic), the times the median
    runs = {"latentkit SVI": [], "scikit-learn online": []}
    for _ in range(args.rounds):
        runs["latentkit SVI"].append(run_ours(X, X_test, k, bs, ours_epochs, args.seed, every))
        if not args.skip_sklearn:
            runs["scikit-learn online"].append(run_sklearn(
                X_peers, k, bs, args.epochs, args.seed, args.sklearn_jobs, every))
    steps = {}
    for m, rs in runs.items():
        if not rs:
            continue
        times = np.median(np.array([[snap[0] for snap in r] for r in rs]), axis=0)
        curves[m] = [(t, ev(snap[1])) for t, snap in zip(times, rs[0])]
        steps[m] = [snap[2] for snap in rs[0]]
    ours = runs["latentkit SVI"][0]
    # the step's main kernel (the minibatch E-step) at the final topics, one thread, on the
    # first 4 minibatches' documents, against its bound (benchmarks/_bounds.py)
    rate, sweeps = _bounds.lda_vb_rate(X[:4 * bs], ours[-1][1], 1.0 / k)
    print(_bounds.kernel_fraction("lda_vb", f"SVI minibatch E-step (fraction of the bound; "
                                  f"{sweeps:.1f} sweeps per document)", rate,
                                  "token-topic updates"))
    if not args.skip_gensim:
        curves["gensim LdaModel"] = [(t, ev(lam)) for t, lam, _ in run_gensim(
            X_peers, k, bs, args.epochs, args.seed, args.gensim_float32, every=every)]
        curves["gensim LdaMulticore"] = [(t, ev(lam)) for t, lam, _ in run_gensim(
            X_peers, k, bs, args.epochs, args.seed, args.gensim_float32,
            workers=args.gensim_workers or max(1, (os.cpu_count() or 2) - 1), every=every)]
    print(f"snapshots every {every} step(s); wall times: median of {args.rounds} alternated "
          f"round(s) of latentkit SVI and scikit-learn")

    print("time-to-perplexity curves (seconds, held-out perplexity):")
    for method, curve in curves.items():
        pts = curve if len(curve) <= 12 else [curve[i] for i in
                                              np.linspace(0, len(curve) - 1, 12).astype(int)]
        print(f"  {method:22}" + " ".join(f"({t:.2f}, {p:.1f})" for t, p in pts))

    # the measure: time for ours to reach each peer's FINAL held-out perplexity,
    # against the peer's own time to first reach it
    t_ours_end = curves["latentkit SVI"][-1][0]
    print("time to each peer's final (and best) held-out perplexity (ours vs the peer):")
    for m in curves:
        if m.startswith("latentkit"):
            continue
        for label, target in (("final", curves[m][-1][1]),
                              ("best ", min(p for _, p in curves[m]))):
            tp, to = time_to(curves[m], target), time_to(curves["latentkit SVI"], target)
            tail = (f"{tp / to:6.2f}x faster" if to is not None else
                    f"not reached by ours in {t_ours_end:.1f} s")
            print(f"  {m:22} {label} {target:9.2f}: peer {fmt_t(tp)} s, latentkit SVI "
                  f"{fmt_t(to)} s   {tail}")
    if "scikit-learn online" in curves and args.cpu_rounds > 0:
        target = curves["scikit-learn online"][-1][1]
        i_o = next((i for i, (_, p) in enumerate(curves["latentkit SVI"]) if p <= target), None)
        i_s = next(i for i, (_, p) in enumerate(curves["scikit-learn online"]) if p <= target)
        if i_o is not None:
            s_o, s_s = steps["latentkit SVI"][i_o], steps["scikit-learn online"][i_s]
            c_o, c_s = cpu_times(X, X_peers, k, bs, args.seed, args.sklearn_jobs, s_o, s_s,
                                 args.cpu_rounds)
            print(f"CPU time, one thread each, alternated (best of {args.cpu_rounds}), to "
                  f"scikit-learn online's final {target:.2f}: latentkit SVI {c_o:.2f} s "
                  f"({s_o} steps), scikit-learn {c_s:.2f} s ({s_s} steps)   "
                  f"{c_s / c_o:6.2f}x")
    if args.skip_batch:
        return
    online = [m for m in curves if m != "latentkit batch VB"]
    best = {m: min(p for _, p in curves[m]) for m in curves}
    targets = [("1.02 x batch VB", 1.02 * p_batch)]
    common = max(best[m] for m in online)
    if common > 1.02 * p_batch:
        targets.append(("worst best of the online methods", common))
    for label, target in targets:
        print(f"target {label}: perplexity {target:.2f}")
        t_ours = time_to(curves["latentkit SVI"], target)
        for m in curves:
            t = time_to(curves[m], target)
            ratio = "" if t is None or t_ours is None or m == "latentkit SVI" else \
                f"   ratio to latentkit SVI {t / t_ours:6.2f}x"
            if t is None and t_ours is not None and m != "latentkit SVI":
                ratio = (f"   ratio to latentkit SVI > {curves[m][-1][0] / t_ours:6.2f}x "
                         f"(never reached in {curves[m][-1][0]:.1f} s; best {best[m]:.2f})")
            print(f"  {m:22} {fmt_t(t)} s{ratio}")
    p_svi_final = curves["latentkit SVI"][-1][1]
    print(f"latentkit SVI final held-out perplexity {p_svi_final:.2f} = "
          f"{100 * (p_svi_final / p_batch - 1):+.2f}% of batch VB; time to within 2%: "
          f"{fmt_t(time_to(curves['latentkit SVI'], 1.02 * p_batch)).strip()} s vs batch VB "
          f"{t_batch:.1f} s to convergence")


def main():
    global TAU, KAPPA
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dataset", choices=["kos", "gutenberg", "both"], default="both")
    ap.add_argument("-k", type=int, default=20)
    ap.add_argument("--batch-size", type=int, default=256, help="KOS minibatch (default 256)")
    ap.add_argument("--batch-size-gutenberg", type=int, default=512)
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--tau", type=float, default=TAU, help="learning_offset (default 10)")
    ap.add_argument("--kappa", type=float, default=KAPPA, help="learning_decay (default 0.7)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--sklearn-jobs", type=int, default=None,
                    help="n_jobs of scikit-learn (default None: one process)")
    ap.add_argument("--batch-tol", type=float, default=None,
                    help="tol of the batch VB reference (default: the model's default)")
    ap.add_argument("--gensim-float32", action="store_true",
                    help="gensim's default dtype (float32); default float64 like the others")
    ap.add_argument("--shuffle-peers", action="store_true",
                    help="give scikit-learn and gensim the training documents in one random "
                         "order (default: corpus order, as their fit loops read it; the "
                         "Gutenberg paragraphs then come book by book)")
    ap.add_argument("--skip-sklearn", action="store_true")
    ap.add_argument("--skip-gensim", action="store_true")
    ap.add_argument("--ours-epochs", type=int, default=None,
                    help="epochs of latentkit SVI (default --epochs); more lets it reach a "
                         "peer's final perplexity that its --epochs do not (the step sizes "
                         "do not depend on the number of epochs)")
    ap.add_argument("--skip-batch", action="store_true",
                    help="no batch VB reference (only the time-to-peer's-final measure)")
    ap.add_argument("--snapshot-every", type=int, default=1,
                    help="minibatch steps between snapshots of the topics (default 1)")
    ap.add_argument("--rounds", type=int, default=1,
                    help="alternated runs of latentkit SVI and scikit-learn; median times")
    ap.add_argument("--cpu-rounds", type=int, default=3,
                    help="one-thread CPU-time runs of each to scikit-learn's final "
                         "perplexity (best of; 0: skip)")
    ap.add_argument("--gensim-workers", type=int, default=None,
                    help="LdaMulticore workers (default: cores - 1, at least 1)")
    args = ap.parse_args()
    TAU, KAPPA = args.tau, args.kappa
    import logging

    logging.getLogger("gensim").setLevel(logging.WARNING)
    print(_bounds.machine_info())
    for name in (["kos", "gutenberg"] if args.dataset == "both" else [args.dataset]):
        bench(name, args)


if __name__ == "__main__":
    main()
