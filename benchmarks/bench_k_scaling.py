"""Cost in K and N (issue 46, item 3): LDA (batch VB and SVI) and the HDP against scikit-learn
(batch and online), gensim ``LdaMulticore`` and tomotopy (2 workers each), at several numbers of
topics K and training-set sizes N, time to each peer's final held-out perplexity.

Protocol
--------
* Corpus: NIPS (``latentkit.datasets.load_nips``; ``--corpus kos|gutenberg`` also work), empty
  documents dropped, a fixed random 10% held out (``bench_lda_curve.split_documents``, seed 0),
  optionally a random ``--max-docs`` subset first.
* K scan: K in ``--ks`` (default 20, 100, 500) on the training documents; N scan: K =
  ``--n-k`` (default 20) on the first 25%, 50% and 100% of the training documents (``--n-shares``).
* Priors alpha = eta = 1/K for every method; the HDP: truncation T = K, 10 document atoms,
  gamma = alpha = 1, eta = 1/K, its subsample CVB0 start.
* Ours: ``latentkit batch`` (CVB0 from length-weighted seed documents, then batch VB: the
  default fit's phases with snapshots during the CVB0 sweeps), ``latentkit SVI``, ``latentkit
  HDP`` and, up to K = ``--default-max-k`` (50), ``latentkit default``
  (``LatentDirichletAllocation(K).fit``, whose start picks its seed documents from
  ``SpectralLDA``'s topics; that spectral step grows steeply with K and runs to its end
  whatever the budget: minutes at K = 100 on 450 NIPS documents under load).
* Each method runs for ``--budget`` seconds of its own (wall clock, snapshots excluded), a
  snapshot of its topics after every iteration (tomotopy: after 1, 2, 5, 10, ... Gibbs
  iterations; SVI: ten per epoch; gensim: after every M-step), runners of
  ``bench_lda_curve.py`` (same starts, same settings: latentkit with its defaults).
* **One evaluator**: every snapshot's topics scored by ``bench_lda_curve.heldout_perplexity``
  (the per-document held-out bound of LDA at ``q(beta) = Dir(lambda)``, alpha = 1/K; the HDP's
  lambda read the same way, all T topics: the "Dirichlet view" of ``bench_hdp.py``).
* For each peer: its final held-out perplexity q (its last snapshot within the budget) and the
  first time it is within 1% of q; for each of our methods, the first time it is within 1% of
  q (inf: not within the budget). Ratio = peer's time / ours (> 1: ours is faster).
* The plot: the time to **tomotopy's final perplexity** at each (N, K), tomotopy's own
  (dashed) and each of ours (no point where it was not reached within the budget), against K
  and against N, log-log (``--replot CSV`` redraws it from a saved CSV).

Output: a table on stdout, ``k_scaling.csv`` (one row per (N, K, method): its final
perplexity and time, our three methods' times to it) and ``k_scaling.png`` in ``--out``.

Run (the full size takes about 7 methods x (3 + 2) points x the budget, plus evaluation):

    python benchmarks/bench_k_scaling.py --budget 60 --out docs/_static
    python benchmarks/bench_k_scaling.py --quick --out /tmp   # about 5 minutes under load
"""

import argparse
import csv
import os
import sys
import time
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))

import _bounds  # noqa: E402
import bench_lda_curve as curve  # noqa: E402
from latentkit.topic._lda_sparse import resolve_e_step_topk  # noqa: E402

OURS = ("latentkit batch", "latentkit SVI", "latentkit HDP", "latentkit default",
        "latentkit sparse batch", "latentkit sparse SVI")
#: the methods with LDA's top-k truncated E-step (``e_step_topk``, ``--topk``); run only where
#: it resolves to a truncation (``'auto'``: from K = 200 on)
SPARSE = ("latentkit sparse batch", "latentkit sparse SVI")
PEERS = ("scikit-learn batch", "scikit-learn online", "gensim LdaMulticore", "tomotopy")


def run_sklearn(train, K, budget, seed, online, batch_size=256):
    """scikit-learn's LDA, batch (``_em_step`` patched to snapshot) or online (``partial_fit``
    over minibatches in corpus order, as its ``fit`` reads them), until the budget."""
    from sklearn.decomposition import LatentDirichletAllocation as SkLDA

    rec = curve.Recorder(budget)
    sk = SkLDA(K, learning_method="online" if online else "batch", doc_topic_prior=1.0 / K,
               topic_word_prior=1.0 / K, batch_size=batch_size,
               total_samples=train.shape[0], random_state=seed)
    rec.start()
    if online:
        N = train.shape[0]
        while True:
            for b in range(0, N, batch_size):
                sk.partial_fit(train[b:b + batch_size])
            if rec.record(sk.components_):
                return rec
    orig = SkLDA._em_step

    class Stop(Exception):
        pass

    def em_step(self, *a, **kw):
        out = orig(self, *a, **kw)
        if rec.record(self.components_):
            raise Stop
        return out

    SkLDA._em_step = em_step
    try:
        sk.set_params(max_iter=10000)
        sk.fit(train)
    except Stop:
        pass
    finally:
        SkLDA._em_step = orig
    return rec


def run_hdp(train, T, budget, seed, n_atoms=10):
    """latentkit's HDP (T corpus topics, eta = 1/T) from its subsample CVB0 start, a snapshot
    after every batch iteration (and every start sweep)."""
    from latentkit import HierarchicalDirichletProcess
    from latentkit.topic import hdp_subsample_start

    eta = 1.0 / T
    rec = curve.Recorder(budget)
    rec.start()
    init = hdp_subsample_start(train, T, n_doc_components=n_atoms, concentration=1.0,
                               doc_concentration=1.0, topic_word_prior=eta, subsample=1.0,
                               n_sweeps=20, random_state=seed,
                               callback=lambda s, lam: rec.record(lam))
    if rec.elapsed() >= budget:
        return rec
    model = HierarchicalDirichletProcess(
        T, n_doc_components=n_atoms, concentration=1.0, doc_concentration=1.0,
        topic_word_prior=eta, max_iter=100000, tol=0, init=init, random_state=seed,
        callback=lambda m, it, e: rec.record(m.components_))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(train)
    return rec


class CPURecorder(curve.Recorder):
    """``bench_lda_curve.Recorder`` that also stamps each snapshot with the process's CPU
    seconds since the start (all threads; robust to other processes' load, unlike the wall
    clock)."""

    def start(self):
        self.cpu_times = []
        self.c0 = time.process_time()
        super().start()

    def record(self, lam):
        self.cpu_times.append(time.process_time() - self.c0)
        return super().record(lam)


def run_sparse(name, train, K, budget, seed, topk):
    """``latentkit batch`` / ``latentkit SVI`` with ``e_step_topk=topk`` (the runners of
    ``bench_lda_curve`` with that one parameter added)."""
    from latentkit.base import ConvergenceWarning
    from latentkit.topic import LatentDirichletAllocation, cvb0_topics

    rec = curve.Recorder(budget)
    if name == "latentkit sparse SVI":
        N = train.shape[0]
        bs = min(256, N)
        n_batches = int(np.ceil(N / bs))
        every = max(1, n_batches // 10)
        m = LatentDirichletAllocation(K, total_samples=N, random_state=seed, e_step_topk=topk)
        rng = np.random.default_rng(seed)
        rec.start()
        t = 0
        while True:
            perm = rng.permutation(N)
            for b in range(n_batches):
                m.partial_fit(train[np.sort(perm[b * bs:(b + 1) * bs])])
                t += 1
                if t % every == 0 and rec.record(m.components_):
                    return rec
    rec.start()
    lam = cvb0_topics(train, K, 1.0 / K, 1.0 / K, n_sweeps=100, random_state=seed,
                      init="sequential", callback=lambda s, c: (
                          s in curve.CVB0_SNAPSHOTS or s == 100) and rec.record(c))
    if rec.elapsed() >= budget:
        return rec
    m = LatentDirichletAllocation(K, init={"components": lam}, max_iter=100000, tol=0,
                                  e_step_topk=topk,
                                  callback=lambda model, it, elbo: rec.record(model.components_))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        m.fit(train)
    return rec


def run_method(name, train, K, budget, seed, topk="auto"):
    if name in SPARSE:
        return run_sparse(name, train, K, budget, seed, topk)
    if name == "latentkit batch":
        # CVB0 (100 sweeps, length-weighted seed documents, a snapshot after sweeps 1, 2, 3,
        # 4, 5, 6, 8, 10, 15, ...) then batch VB: the default fit's two phases without its
        # spectral choice of the seed documents
        return curve.run_latentkit_cvb0(train, K, budget, 100000, seed)
    if name == "latentkit default":
        # LatentDirichletAllocation(K).fit as users call it (init='auto': the seed documents
        # from SpectralLDA's topics, CVB0, then VB), tol=0, a snapshot per VB iteration
        return curve.run_latentkit_batch(train, K, "auto", budget, 100000, seed, tol=0)
    if name == "latentkit SVI":
        return curve.run_latentkit_svi(train, K, budget, 100000, seed)
    if name == "latentkit HDP":
        return run_hdp(train, K, budget, seed)
    if name == "scikit-learn batch":
        return run_sklearn(train, K, budget, seed, online=False)
    if name == "scikit-learn online":
        return run_sklearn(train, K, budget, seed, online=True)
    if name == "gensim LdaMulticore":
        return curve.run_gensim(train, K, budget, seed, workers=2)
    if name == "tomotopy":
        return curve.run_tomotopy(train, K, budget, seed, workers=2)
    raise ValueError(name)


def available(name):
    module = {"scikit-learn batch": "sklearn", "scikit-learn online": "sklearn",
              "gensim LdaMulticore": "gensim", "tomotopy": "tomotopy"}.get(name)
    if module is None:
        return True
    try:
        __import__(module)
    except ImportError:
        return False
    return True


def point(train, test, K, methods, budget, seed, topk="auto", cpu=None):
    """All methods at one (N, K): {method: (times, perplexities)}; ``cpu`` (a dict), when
    given, receives {method: CPU seconds at each snapshot}."""
    out = {}
    for name in methods:
        curve.Recorder, plain = CPURecorder, curve.Recorder  # every runner stamps CPU time
        try:
            rec = run_method(name, train, K, budget, seed, topk)
        finally:
            curve.Recorder = plain
        if cpu is not None:
            cpu[name] = np.array(rec.cpu_times)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            perp = np.array([curve.heldout_perplexity(lam, test, 1.0 / K) for lam in rec.snaps])
        out[name] = (np.array(rec.times), perp)
        best = perp.min() if perp.size else np.nan
        print(f"    {name:20s} {len(perp):4d} snapshots, {rec.times[-1] if rec.times else 0:6.1f}"
              f" s, final {perp[-1] if perp.size else np.nan:8.1f}, best {best:8.1f}",
              flush=True)
    return out


def sparse_summary(N, K, curves, cpu, reference="tomotopy"):
    """Dense against truncated E-step: each LDA method's final and best held-out perplexity
    and its wall-clock and CPU seconds to ``reference``'s final perplexity (within 1%)."""
    if reference not in curves or not curves[reference][1].size:
        return []
    t_ref, p_ref = curves[reference]
    q = p_ref[-1]
    out = []
    for m in ("latentkit batch", "latentkit sparse batch", "latentkit SVI",
              "latentkit sparse SVI", reference):
        if m not in curves or not curves[m][1].size:
            continue
        t, p = curves[m]
        wall = curve.first_time_within(t, p, q)
        c = cpu.get(m)
        cpu_t = (curve.first_time_within(c, p, q) if c is not None and c.size == p.size
                 else np.nan)
        out.append({"N": N, "K": K, "method": m, "final": float(p[-1]), "best": float(p.min()),
                    "wall": wall, "cpu": cpu_t})
    ref = out[-1]
    for r in out:
        r["wall_ratio"] = ref["wall"] / r["wall"] if np.isfinite(r["wall"]) else np.nan
        r["cpu_ratio"] = ref["cpu"] / r["cpu"] if np.isfinite(r["cpu"]) else np.nan
    return out


def print_sparse(rows, topk):
    """The table of :func:`sparse_summary`."""
    if not rows:
        return
    print(f"\nDense against truncated E-step (e_step_topk={topk!r}); time to tomotopy's final "
          "held-out perplexity (within 1%), wall clock and process CPU seconds; ratio = "
          "tomotopy's / ours (> 1: ours faster)")
    print("| N | K | method | final perplexity | best | wall s (ratio) | CPU s (ratio) |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        def cell(t, ratio):
            return f"{t:.2f} ({ratio:.2f}x)" if np.isfinite(t) else "not reached"
        print(f"| {r['N']} | {r['K']} | {r['method']} | {r['final']:.1f} | {r['best']:.1f} | "
              f"{cell(r['wall'], r['wall_ratio'])} | {cell(r['cpu'], r['cpu_ratio'])} |")


def rows_of(N, K, curves):
    """CSV rows: each method's final perplexity, its time to it, ours' times to it."""
    rows = []
    finals = [c[1][-1] for m, c in curves.items() if m in PEERS and c[1].size]
    # the best peer's final perplexity (the level that beats every peer); without peers, the
    # worst of our methods' best values
    common = min(finals) if finals else max(c[1].min() for c in curves.values() if c[1].size)
    for m, (t, p) in curves.items():
        if not p.size:
            continue
        final = p[-1]
        row = {"N": N, "K": K, "method": m, "final_perplexity": round(float(final), 2),
               "time_to_final": curve.first_time_within(t, p, final),
               "time_to_best_peer_final": curve.first_time_within(t, p, common),
               "best_peer_final": round(float(common), 2)}
        for o in OURS:
            if o in curves and curves[o][1].size:
                row[f"{o} to it"] = curve.first_time_within(*curves[o], final)
        rows.append(row)
    return rows


def print_table(rows):
    ours = [o for o in OURS if any(f"{o} to it" in r for r in rows)]
    print("\n| N | K | peer | its final perplexity | peer's time (s) | "
          + " | ".join(f"{o}: time (s), ratio" for o in ours) + " |")
    print("|" + "---|" * (5 + len(ours)))
    for r in rows:
        if r["method"] not in PEERS:
            continue
        cells = []
        for o in ours:
            t = r.get(f"{o} to it", np.inf)
            cells.append(f"{t:.2f}, {r['time_to_final'] / t:.1f}x" if np.isfinite(t)
                         else "not reached")
        print(f"| {r['N']} | {r['K']} | {r['method']} | {r['final_perplexity']:.1f} | "
              f"{r['time_to_final']:.2f} | " + " | ".join(cells) + " |")


def plot(rows, path, n_k, reference="tomotopy"):
    """Log-log: the time to ``reference``'s final held-out perplexity, of the reference itself
    (dashed) and of each of our methods (solid; no point where it was not reached), against K
    (at the largest N) and against N (at K = ``n_k``), from the CSV rows."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ref = [r for r in rows if r["method"] == reference]
    if not ref:
        return False
    fig, axes = plt.subplots(1, 2, figsize=(8.5, 3.4), dpi=80)
    n_full = max(int(r["N"]) for r in ref)
    for ax, key, fixed, label in ((axes[0], "K", ("N", n_full), "topics K"),
                                  (axes[1], "N", ("K", n_k), "training documents N")):
        sel = [r for r in ref if int(r[fixed[0]]) == fixed[1]]
        for m in (reference,) + OURS:
            col = "time_to_final" if m == reference else f"{m} to it"
            pts = sorted((int(r[key]), float(r[col])) for r in sel
                         if r.get(col) not in (None, "") and np.isfinite(float(r[col])))
            if pts:
                x, y = zip(*pts)
                ax.loglog(x, y, "s--" if m == reference else "o-", label=m, lw=1.2, ms=4)
        ticks = sorted({int(r[key]) for r in sel})
        ax.set_xticks(ticks)
        ax.set_xticklabels([str(v) for v in ticks])
        ax.minorticks_off()
        ax.set_xlabel(label)
        ax.set_ylabel(f"seconds to {reference}'s final")
        ax.set_title(f"{fixed[0]} = {fixed[1]}", fontsize=9)
        ax.grid(True, which="both", lw=0.3)
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return True


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", default="nips", choices=curve.CORPORA)
    ap.add_argument("--max-docs", type=int, default=None)
    ap.add_argument("--ks", default="20,100,500")
    ap.add_argument("--n-k", type=int, default=20, help="K of the N scan")
    ap.add_argument("--n-shares", default="0.25,0.5,1")
    ap.add_argument("--budget", type=float, default=60.0, help="seconds per method and point")
    ap.add_argument("--methods", default=",".join(OURS + PEERS))
    ap.add_argument("--default-max-k", type=int, default=50,
                    help="run 'latentkit default' only up to this K: its start's spectral "
                         "seeding (SpectralLDA's tensor power method) grows steeply with K "
                         "and cannot be stopped at the budget (minutes at K = 100)")
    ap.add_argument("--topk", default="auto",
                    help="e_step_topk of the 'latentkit sparse' methods (an int or 'auto'); "
                         "they run only at the K where it truncates")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--quick", action="store_true",
                    help="small sizes: 500 documents, 5 s per method and point")
    ap.add_argument("--out", default=".")
    ap.add_argument("--replot", metavar="CSV",
                    help="draw k_scaling.png in --out from a saved k_scaling.csv and stop")
    args = ap.parse_args(argv)
    if args.replot:
        with open(args.replot, newline="") as fh:
            rows = list(csv.DictReader(fh))
        os.makedirs(args.out, exist_ok=True)
        plot(rows, os.path.join(args.out, "k_scaling.png"), args.n_k)
        return
    if args.quick:
        args.max_docs = args.max_docs or 500
        args.budget = min(args.budget, 5.0)
    ks = [int(k) for k in args.ks.split(",")]
    shares = [float(s) for s in args.n_shares.split(",")]
    methods = [m for m in args.methods.split(",") if available(m)]
    default_max_k = args.default_max_k
    train, test = curve.load_corpus(args.corpus, max_docs=args.max_docs, seed=args.seed)
    print(_bounds.machine_info())
    print(f"{args.corpus}: {train.shape[0]} training / {test.shape[0]} held-out documents, "
          f"V={train.shape[1]}; budget {args.budget:g} s per method; methods {methods}",
          flush=True)
    curve.warm_up(4)
    for k in sorted(set(ks + [args.n_k])):   # compile (and first-touch) outside the timings
        run_hdp(train[:50], min(k, 8), 0.0, 0)
    curve.warm_up_corpus(train, args.n_k)
    topk = args.topk if args.topk == "auto" else int(args.topk)
    if any(m in SPARSE for m in methods):  # compile the truncated kernels untimed
        from latentkit.topic import LatentDirichletAllocation

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            LatentDirichletAllocation(4, e_step_topk=2, init="random", max_iter=2,
                                      random_state=0).fit(train[:20])
    rows, sparse_rows = [], []
    points = [(train.shape[0], k) for k in ks]
    points += [(int(round(s * train.shape[0])), args.n_k) for s in shares if s < 1]
    if (train.shape[0], args.n_k) not in points:
        points.append((train.shape[0], args.n_k))
    t0 = time.perf_counter()
    for N, K in points:
        print(f"  N={N} K={K}:", flush=True)
        here = [m for m in methods if (m != "latentkit default" or K <= default_max_k)
                and (m not in SPARSE or resolve_e_step_topk(topk, K) is not None)]
        cpu = {}
        curves = point(train[:N], test, K, here, args.budget, args.seed, topk, cpu)
        rows += rows_of(N, K, curves)
        sparse_rows += sparse_summary(N, K, curves, cpu)
    print(f"total {time.perf_counter() - t0:.0f} s; {_bounds.machine_info()}")
    print_table(rows)
    print_sparse(sparse_rows, topk)
    os.makedirs(args.out, exist_ok=True)
    keys = sorted({k for r in rows for k in r}, key=lambda k: (k not in rows[0], k))
    with open(os.path.join(args.out, "k_scaling.csv"), "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=keys)
        w.writeheader()
        w.writerows(rows)
    plot(rows, os.path.join(args.out, "k_scaling.png"), args.n_k)
    print(f"wrote {os.path.join(args.out, 'k_scaling.csv')} and k_scaling.png")


if __name__ == "__main__":
    main()
