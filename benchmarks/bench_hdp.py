"""HDP topic models against their peers: latentkit's ``HierarchicalDirichletProcess`` (batch
VB), gensim's ``HdpModel`` (online VB, Wang, Paisley & Blei 2011) and tomotopy's ``HDPModel``
(collapsed Gibbs sampling, Teh et al. 2006): held-out perplexity against wall time, the
number of live topics and ``c_npmi`` coherence at the end (issue 34).

Protocol
--------
* Corpora and split: those of ``benchmarks/bench_lda_curve.py`` (KOS, NIPS, the Gutenberg
  paragraphs; empty documents dropped; a fixed random 10% held out, seed 0; ``--max-docs``
  subsamples first).
* The same priors for everyone: corpus concentration gamma = 1, document concentration
  alpha = 1, topic-word prior eta = 0.01 (gensim's defaults); truncation T = ``-T`` (50) for
  latentkit and gensim (tomotopy grows its topics as its sampler creates them), document
  truncation K = 10 for latentkit and gensim. tomotopy's hyper-parameter optimisation is off.
  Two threads for latentkit (numba) and tomotopy; gensim's HdpModel is single-threaded.
* Timing as in ``bench_lda_curve.py``: from the start of each fit (gensim: the passes;
  tomotopy: its first ``train``), converting the counts to a peer's corpus format not timed,
  snapshots (copying the topics) excluded; latentkit's kernels compiled before timing.
  Snapshots: latentkit after every batch iteration; gensim after every pass over the
  training documents (``update``, chunks of 256); tomotopy after 1, 2, 5, 10, 20, 50, 100,
  ... Gibbs iterations.
* **Live topics**: topics that carry more than 1% of the training tokens by the method's own
  expected topic-word counts (latentkit ``components_ - eta``, gensim ``m_lambda``,
  tomotopy's topic-word counts), the rule of ``n_effective_components_``.
* Corpus ``debian``: a ``--max-docs`` subsample (default 5000) of the Debian short
  descriptions (``../shared/data/debian_short``, beside the repository), counted by
  ``latentkit.text.load_texts`` with its default vocabulary rule (min_df, max_df 'auto').
* **The protocol, stated before the runs** (issue 41): two views of the same snapshots, both
  reported, the first deciding:
  1. *point view* (the library's rule): the live topics as point topics, document prior
     ``alpha = 1 / (number of live topics)``, as below;
  2. *Dirichlet view*: every one of the method's T topics (tomotopy: its topics, dead ones at
     eta) read as Dirichlet parameters ``q(beta_k) = Dir(lambda_k)`` in the same bound, with
     ``alpha = 1 / T`` (what the models' own ``perplexity`` computes for LDA at those topics).
* **One evaluator** (``bench_lda_curve.heldout_perplexity``): the per-document held-out bound
  of LDA (Hoffman, Blei & Bach 2010, section 4) at each method's expected live topics
  ``E[phi_k] = lambda_k / sum_w lambda_kw`` (latentkit's and gensim's lambda, tomotopy's
  counts plus eta) taken as point topics (passed as ``1e8 E[phi_k]``, so that the bound's
  ``E[log phi]`` is ``log E[phi]``: with eta = 0.01 the Dirichlet bound itself charges a
  topic's unseen word ``psi(0.01) ~ -100`` nats, which ranks methods by how many words their
  topics have seen rather than by their topics), with the LDA default
  ``doc_topic_prior = 1 / (number of live topics)``.
* ``c_npmi``: mean NPMI of the top 10 words of the live topics, document co-occurrence on the
  training documents (``bench_lda_curve.npmi``).
* ``latentkit``: the start :func:`latentkit.topic.hdp_subsample_start` (CVB0 of LDA with T
  topics and alpha / T on ``--start-share`` of the documents, default all, ``START_SWEEPS``
  = 20 sweeps, each sweep a snapshot: the start is a model of its own, timed from the start
  of the run), then batch VB from its topics and sticks; ``latentkit-random``: batch VB from
  the default random start (its first snapshot after its first full iteration).
* Methods run in turn in one process; ``uptime`` is printed at the start and the end (the
  machine is shared: compare ratios and counts, not seconds across runs).

Output: one table per corpus (perplexity at the end and at the peers' snapshot times, live
topics, c_npmi) and ``hdp_bench.json`` in ``--out``.

Run (full corpora, about 5 minutes per corpus on 2 cores at a 90 s budget; reduced in a
minute or two):

    python benchmarks/bench_hdp.py --budget 90 --methods latentkit,tomotopy,gensim
    python benchmarks/bench_hdp.py --corpora kos --max-docs 1000 --budget 20
"""

import argparse
import json
import os
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_lda_curve import (Recorder, _uptime, heldout_perplexity, load_corpus,  # noqa: E402
                             npmi, tomotopy_components)

import _bounds  # noqa: E402  (benchmarks/_bounds.py: the shared bound of every benchmark)

CORPORA = ("kos", "nips", "gutenberg", "debian")
DEBIAN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "data",
                      "debian_short", "debian_short.tsv.gz")
DEBIAN_DOCS = 5000
ALPHA, GAMMA, ETA = 1.0, 1.0, 0.01
TOMOTOPY_ITERS = (1, 2, 5, 10, 20, 50, 100, 150, 200, 300, 400, 600, 800, 1000)
LIVE_SHARE = 0.01
START_SHARE, START_SWEEPS = 1.0, 20   # latentkit's subsample start (hdp_subsample_start)
POINT_SCALE = 1e8


def live_topics(lam, eta):
    """Rows of ``lam`` (topic-word Dirichlet parameters) that carry more than 1% of the
    expected counts ``lam - eta``."""
    mass = np.maximum(np.asarray(lam).sum(axis=1) - lam.shape[1] * eta, 0.0)
    return lam[mass > LIVE_SHARE * mass.sum()]


def run_latentkit(train, T, K, budget, seed, init="random", warmup=None, subsample=None):
    """Batch VB, a snapshot per iteration. ``subsample`` (a share of the documents): start
    from :func:`latentkit.topic.hdp_subsample_start`, its CVB0 sweeps timed and snapshotted
    (the start is a model of its own), then batch VB from its topics and sticks."""
    from latentkit import HierarchicalDirichletProcess
    from latentkit.topic import hdp_subsample_start

    rec = Recorder(budget)
    rec.start()
    if subsample is not None:
        init = hdp_subsample_start(train, T, n_doc_components=K, concentration=GAMMA,
                                   doc_concentration=ALPHA, topic_word_prior=ETA,
                                   subsample=subsample, n_sweeps=START_SWEEPS,
                                   random_state=seed, callback=lambda s, lam: rec.record(lam))
    model = HierarchicalDirichletProcess(
        T, n_doc_components=K, concentration=GAMMA, doc_concentration=ALPHA,
        topic_word_prior=ETA, max_iter=100000, tol=0, init=init, random_state=seed,
        warmup_doc_update_iter=warmup,
        callback=lambda m, it, e: rec.record(m.components_))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(train)
    rec.model = model
    return rec


def expected_log_stick_weights(sticks):
    """E[log beta_k] of the corpus sticks ``sticks`` (2, T), the last stick fixed at 1
    (the truncation of ``HierarchicalDirichletProcess``)."""
    from scipy.special import psi

    a, b = np.asarray(sticks, dtype=np.float64)[:, :-1]
    ab = psi(a + b)
    rest = np.concatenate([[0.0], np.cumsum(psi(b) - ab)])
    return np.concatenate([psi(a) - ab, [0.0]]) + rest


def print_bound(model, train, K, n_docs=300):
    """The document E-step kernel's throughput on one thread at the fitted topics against its
    bound (benchmarks/_bounds.py), on the first ``n_docs`` training documents."""
    rate, sweeps = _bounds.hdp_rate(train[:n_docs], model.components_,
                                    expected_log_stick_weights(model.weight_concentration_),
                                    model.doc_concentration_, K)
    print(_bounds.kernel_fraction("hdp", f"HDP document E-step (fraction of the bound; "
                                  f"{sweeps:.1f} sweeps per document)", rate,
                                  "entry-atom-topic updates"))


def run_gensim(train, T, K, budget, seed, chunksize=256):
    import logging

    from gensim.corpora import Dictionary
    from gensim.models import HdpModel

    logging.getLogger("gensim").setLevel(logging.WARNING)
    bow = [list(zip(train.indices[train.indptr[d]:train.indptr[d + 1]].tolist(),
                    train.data[train.indptr[d]:train.indptr[d + 1]].astype(int).tolist()))
           for d in range(train.shape[0])]
    vocab = Dictionary.from_corpus([[(w, 1)] for w in range(train.shape[1])])
    rec = Recorder(budget)
    rec.start()
    # the constructor runs the first pass (its start scales with the corpus size)
    hdp = HdpModel(bow, vocab, chunksize=chunksize, K=K, T=T, alpha=ALPHA, gamma=GAMMA,
                   eta=ETA, random_state=seed)
    while True:
        t = time.perf_counter()
        hdp.update_expectations()   # gensim's lazy lambda made current for the snapshot
        lam = hdp.m_lambda + ETA
        rec.paused += time.perf_counter() - t
        if rec.record(lam):
            return rec
        hdp.update(bow)


def run_tomotopy(train, budget, seed, workers=2):
    import tomotopy as tp

    m = tp.HDPModel(tw=tp.TermWeight.ONE, initial_k=2, alpha=ALPHA, eta=ETA, gamma=GAMMA,
                    seed=seed)
    m.optim_interval = 0
    warnings.filterwarnings("ignore", "The training result may differ", RuntimeWarning)
    for d in range(train.shape[0]):
        s, e = train.indptr[d], train.indptr[d + 1]
        m.add_doc([str(w) for w, c in zip(train.indices[s:e], train.data[s:e])
                   for _ in range(int(c))])
    rec = Recorder(budget)
    done = 0
    rec.start()
    for target in TOMOTOPY_ITERS:
        m.train(target - done, workers=workers)
        done = target
        t = time.perf_counter()
        lam = tomotopy_components(m, train.shape[1], ETA)
        lam[[not m.is_live_topic(k) for k in range(m.k)]] = ETA
        rec.paused += time.perf_counter() - t
        if rec.record(lam):
            break
    return rec


def load_hdp_corpus(name, max_docs=None, seed=0):
    """``bench_lda_curve.load_corpus``, plus ``'debian'``: a subsample of the Debian short
    descriptions through ``latentkit.text`` with its default vocabulary rule."""
    if name != "debian":
        return load_corpus(name, max_docs=max_docs, seed=seed)
    import csv
    import gzip

    from bench_lda_curve import split_documents
    from latentkit.text import load_texts

    with gzip.open(DEBIAN, "rt", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))
    rng = np.random.default_rng(seed)
    n = min(max_docs or DEBIAN_DOCS, len(rows))
    texts = [rows[i]["description"] for i in np.sort(rng.choice(len(rows), n, replace=False))]
    return split_documents(load_texts(texts).data, seed=seed)


def dirichlet_view(lam, test):
    """The second view: all of a snapshot's topics as Dirichlet parameters, alpha = 1 / T."""
    return round(heldout_perplexity(lam, test, 1.0 / lam.shape[0]), 1)


def evaluate(rec, test, train, coherence, every=1):
    """(time, held-out perplexity, live topics) of the snapshots (the point view), and c_npmi
    at the end."""
    rows = []
    for i, (t, lam) in enumerate(zip(rec.times, rec.snaps)):
        if i % every and i != len(rec.snaps) - 1:
            continue
        live = live_topics(lam, ETA)
        # the expected topics as point topics: E[log phi] = log E[phi] to ~1e-8 at this scale
        point = POINT_SCALE * live / live.sum(axis=1, keepdims=True)
        rows.append((round(t, 2), round(heldout_perplexity(point, test, 1.0 / len(live)), 1),
                     int(live.shape[0])))
    end = live_topics(rec.snaps[-1], ETA)
    return rows, (npmi(coherence, end, train) if coherence is not None else None)


def at_time(rows, t):
    """Perplexity of the last snapshot at or before ``t`` (None before the first)."""
    before = [r for r in rows if r[0] <= t]
    return before[-1][1] if before else None


SUMMARY_TIMES = (2.0, 10.0, 30.0)


def summary_table(results):
    """Markdown rows per corpus and method: time of the first topics, held-out perplexity at
    ``SUMMARY_TIMES`` (the last snapshot by then; '-' before the first) and at the end, live
    topics and c_npmi at the end."""
    head = " | ".join(f"at {t:g} s" for t in SUMMARY_TIMES)
    lines = [f"| corpus | method | first topics (s) | {head} | at the end (s) | live topics "
             f"| c_npmi | Dirichlet view (T) |", "|---" * (7 + len(SUMMARY_TIMES)) + "|"]
    for name, out in results.items():
        for method, o in out.items():
            rows = o["curve"]
            at = " | ".join(str(at_time(rows, t) or "-") for t in SUMMARY_TIMES)
            c = "n/a" if o["c_npmi"] is None else f"{o['c_npmi']:.3f}"
            d = (f"{o['dirichlet_view']:.0f} ({o['n_topics']})" if "dirichlet_view" in o
                 else "-")
            lines.append(f"| {name} | {method} | {rows[0][0]:.2f} | {at} | {rows[-1][1]:.0f} "
                         f"({rows[-1][0]:.0f}) | {rows[-1][2]} | {c} | {d} |")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpora", default=",".join(CORPORA))
    ap.add_argument("--max-docs", type=int, default=None)
    ap.add_argument("--budget", type=float, default=120.0, help="seconds per method")
    ap.add_argument("-T", type=int, default=50, help="corpus truncation (default 50)")
    ap.add_argument("-K", type=int, default=10, help="document truncation (default 10)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--methods", default="latentkit,latentkit-random,gensim,tomotopy",
                    help="comma-separated, from latentkit, latentkit-random, gensim, tomotopy")
    ap.add_argument("--start-share", type=float, default=START_SHARE,
                    help="latentkit's subsample start: share of the documents (default 1)")
    ap.add_argument("--out", default=".")
    ap.add_argument("--summarise", metavar="JSON",
                    help="print the summary table of a saved hdp_bench.json and stop")
    args = ap.parse_args(argv)
    if args.summarise:
        with open(args.summarise) as fh:
            print(summary_table(json.load(fh)))
        return
    from latentkit.topic import coherence

    print("uptime at start:", _uptime())
    print(_bounds.machine_info())
    # compile latentkit's kernels before timing
    run_latentkit(load_corpus("kos", max_docs=60)[0], 4, 2, 0.0, 0)
    run_latentkit(load_corpus("kos", max_docs=300)[0], 4, 2, 0.0, 0, subsample=0.5)
    results = {}
    for name in args.corpora.split(","):
        train, test = load_hdp_corpus(name, max_docs=args.max_docs, seed=args.seed)
        print(f"\n{name}: {train.shape[0]} training / {test.shape[0]} held-out documents, "
              f"{train.shape[1]} words; T={args.T}, K={args.K}, budget {args.budget:g} s")
        methods = {
            "latentkit": lambda: run_latentkit(train, args.T, args.K, args.budget, args.seed,
                                               subsample=args.start_share),
            "latentkit-random": lambda: run_latentkit(train, args.T, args.K, args.budget,
                                                      args.seed),
            "gensim": lambda: run_gensim(train, args.T, args.K, args.budget, args.seed),
            "tomotopy": lambda: run_tomotopy(train, args.budget, args.seed)}
        runs = {m: methods[m]() for m in args.methods.split(",")}
        for m in ("latentkit", "latentkit-random"):
            if m in runs:
                print_bound(runs[m].model, train, args.K)
                break
        out = {}
        for method, rec in runs.items():
            rows, c = evaluate(rec, test, train, coherence)
            out[method] = {"curve": rows, "c_npmi": c,
                           "dirichlet_view": dirichlet_view(rec.snaps[-1], test),
                           "n_topics": int(rec.snaps[-1].shape[0])}
        results[name] = out
        peers = [m for m in ("gensim", "tomotopy") if m in out]
        peer_times = sorted({r[0] for m in peers for r in out[m]["curve"]})
        for variant in [m for m in ("latentkit", "latentkit-random") if m in out]:
            ours = out[variant]["curve"]
            worse = [(t, at_time(ours, t), m, at_time(out[m]["curve"], t))
                     for m in peers for t in peer_times
                     if at_time(ours, t) is not None and at_time(out[m]["curve"], t) is not None
                     and at_time(ours, t) > at_time(out[m]["curve"], t)]
            early = [t for t in peer_times if at_time(ours, t) is None]
            print(f"{variant}: worse than a peer at {len(worse)} of the peers' snapshot times "
                  f"(time, ours, peer, theirs) {worse[:6]}; no topics yet at {len(early)} "
                  f"(before its first iteration, {ours[0][0]} s)")
        print(f"| method | snapshots | end time (s) | point view (live topics) | Dirichlet "
              f"view (all T) | live topics | c_npmi |\n|---|---|---|---|---|---|---|")
        for method, o in out.items():
            t, p, k = o["curve"][-1]
            c = "n/a" if o["c_npmi"] is None else f"{o['c_npmi']:.3f}"
            print(f"| {method} | {len(o['curve'])} | {t:.1f} | {p:.1f} | "
                  f"{o['dirichlet_view']:.1f} (T={o['n_topics']}) | {k} | {c} |")
        for method, o in out.items():
            print(f"  {method} curve (t, perplexity, live):", o["curve"][:: max(1, len(o["curve"]) // 8)])
    print("\n" + summary_table(results))
    print("\nuptime at end:", _uptime())
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "hdp_bench.json"), "w") as fh:
        json.dump(results, fh)


if __name__ == "__main__":
    main()
