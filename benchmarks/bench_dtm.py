"""The dynamic topic model on the Python Enhancement Proposals (yearly slices) against tomotopy's
``DTModel`` (a sampler) and gensim's ``LdaSeqModel`` (variational, very slow: a subset).

One evaluator for every method: each fit gives its topics at every slice as point
distributions ``phi_{t,k}`` (T, K, V); a held-out document of slice t is scored by the
per-document LDA bound at the topics ``phi_t`` (gamma and phi optimised by LDA's E-step kernel
with ``E[log beta] = log phi_t``, alpha = 1/K for all), and the per-slice held-out perplexity is
``exp(-sum_d ELBO_d / n_tokens)`` over the slice's held-out documents (a bound: lower is
better). The split: 10% of the documents of every year held out at random (seed 0); years with
fewer than 5 documents are kept whole in training. Coherence: ``c_npmi`` of the top 10 words
of every topic at every slice on the training texts (latentkit.topic.coherence, gensim's
windows), averaged.

    python benchmarks/bench_dtm.py                       # latentkit and tomotopy
    python benchmarks/bench_dtm.py --gensim --gensim-words 500 --gensim-years 2015
    python benchmarks/bench_dtm.py --labels --tomotopy-iters 200,1000 --out labels.json
    python benchmarks/bench_dtm.py --gensim-quality --gensim-em 1 --out gensim.json
    python benchmarks/bench_dtm.py --paragraphs --tomotopy-iters 100 --out paragraphs.json
"""

import argparse
import gzip
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

ROOT = Path(__file__).resolve().parents[1]
PEPS = ROOT.parent / "shared" / "data" / "peps" / "peps.jsonl.gz"
sys.path.insert(0, str(ROOT))  # this checkout's latentkit, not an installed one
sys.path.insert(0, str(ROOT / "benchmarks"))  # _labels_peer


def load_peps(max_features=None, min_year=None, return_meta=False):
    """Counts, vocabulary, years and token streams of the PEPs with a date (and their table's
    columns with ``return_meta``)."""
    from latentkit.text import load_texts

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "peps.jsonl")
        with gzip.open(PEPS, "rt", encoding="utf-8") as src, open(path, "w") as dst:
            dst.write(src.read())
        c = load_texts(path, min_df=5, max_df=0.5, max_features=max_features)
    years = np.array([int(d[:4]) if d else -1 for d in c.metadata["created"]])
    keep = years >= (min_year or 0)
    out = (c.data[keep], list(c.vocabulary), years[keep],
           [t for t, k in zip(c.tokens, keep) if k])
    if return_meta:
        out += ({name: [v for v, k in zip(col, keep) if k] for name, col in c.metadata.items()},)
    return out


def load_pep_paragraphs(max_features=5000, min_tokens=40):
    """The larger timestamped corpus: every paragraph of every PEP (split at blank lines) with
    at least ``min_tokens`` whitespace-separated tokens, dated by its PEP's creation date."""
    from latentkit.text import load_texts

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "paragraphs.jsonl")
        with gzip.open(PEPS, "rt", encoding="utf-8") as src, open(path, "w") as dst:
            for line in src:
                pep = json.loads(line)
                if not pep["created"]:
                    continue
                for para in pep["text"].split("\n\n"):
                    if len(para.split()) >= min_tokens:
                        dst.write(json.dumps({"text": para, "created": pep["created"]}) + "\n")
        c = load_texts(path, min_df=5, max_df=0.5, max_features=max_features)
    years = np.array([int(d[:4]) for d in c.metadata["created"]])
    keep = np.asarray(c.data.sum(axis=1)).ravel() > 0
    return c.data[keep], list(c.vocabulary), years[keep], [t for t, k in zip(c.tokens, keep) if k]


def split(years, seed=0, fraction=0.1):
    """Boolean test mask: ``fraction`` of every year with at least 5 documents."""
    rng = np.random.default_rng(seed)
    test = np.zeros(years.size, dtype=bool)
    for y in np.unique(years):
        idx = np.flatnonzero(years == y)
        if idx.size >= 5:
            test[rng.choice(idx, max(1, int(round(fraction * idx.size))), replace=False)] = True
    return test


def slice_perplexity(phi, X_test, t_test, labels, alpha):
    """The one evaluator (module docstring): per-slice held-out perplexity, and the overall."""
    from latentkit.topic._lda_estep import _run_local

    out, num, den = [], 0.0, 0.0
    for t, lab in enumerate(labels):
        rows = np.flatnonzero(t_test == lab)
        if rows.size == 0:
            out.append(np.nan)
            continue
        Xt = X_test[rows]
        elog = np.log(np.maximum(phi[t], 1e-300))
        shift = elog.max(axis=0)
        _, _, _, de, _ = _run_local(Xt, np.ascontiguousarray(np.exp(elog - shift).T),
                                    np.ascontiguousarray(shift), alpha, 100, 1e-3)
        out.append(float(np.exp(-de.sum() / Xt.sum())))
        num, den = num + de.sum(), den + Xt.sum()
    return np.array(out), float(np.exp(-num / den))


def mean_npmi(phi, tokens, vocab):
    from latentkit.topic import coherence

    scores = []
    for t in range(phi.shape[0]):
        top = [list(np.argsort(-phi[t, k])[:10]) for k in range(phi.shape[1])]
        scores.append(coherence(top, tokens, "c_npmi", vocabulary=vocab).mean)
    return float(np.mean(scores))


def run_latentkit(X, years, K, seed, init):
    from latentkit.topic import DynamicTopicModel

    t0 = time.perf_counter()
    m = DynamicTopicModel(K, init=init, random_state=seed).fit(X, times=years)
    return m.topic_word_distributions(), time.perf_counter() - t0, {
        "n_iter": int(m.n_iter_), "elbo": float(m.lower_bound_)}


def run_lda(X, T, K, seed):
    """The static baseline: latentkit's LDA on all the slices, its topics at every slice."""
    from latentkit import LatentDirichletAllocation

    t0 = time.perf_counter()
    m = LatentDirichletAllocation(K, random_state=seed).fit(X)
    lam = m.components_ / m.components_.sum(axis=1, keepdims=True)
    return np.broadcast_to(lam, (T, K, lam.shape[1])), time.perf_counter() - t0, {}


def _words(X, vocab):
    out = []
    for r in range(X.shape[0]):
        a, b = X.indptr[r], X.indptr[r + 1]
        out.append([vocab[j] for j, c in zip(X.indices[a:b], X.data[a:b]) for _ in range(int(c))])
    return out


def run_tomotopy(X, vocab, years, labels, K, seed, iters):
    import tomotopy as tp

    t0 = time.perf_counter()
    index = {y: i for i, y in enumerate(labels)}
    mdl = tp.DTModel(k=K, t=len(labels), seed=seed)
    for words, y in zip(_words(X, vocab), years):
        if words:
            mdl.add_doc(words, timepoint=index[y])
    mdl.train(0)
    word_col = {w: j for j, w in enumerate(vocab)}
    for _ in range(iters // 10):
        mdl.train(10, workers=2)
    secs = time.perf_counter() - t0
    phi = np.full((len(labels), K, len(vocab)), 1e-12)
    cols = np.array([word_col[w] for w in mdl.used_vocabs])
    for t in range(len(labels)):
        for k in range(K):
            phi[t, k, cols] = mdl.get_topic_word_dist(k, timepoint=t)
    phi /= phi.sum(axis=2, keepdims=True)
    return phi, secs, {"iterations": iters}


def run_gensim(X, years, labels, K, seed, em_iter):
    from gensim.models import LdaSeqModel

    order = np.argsort(years, kind="stable")
    corpus = [list(zip(X[r].indices.tolist(), X[r].data.astype(int).tolist())) for r in order]
    counts = [int((years == y).sum()) for y in labels]
    id2word = {j: str(j) for j in range(X.shape[1])}
    t0 = time.perf_counter()
    m = LdaSeqModel(corpus=corpus, id2word=id2word, time_slice=counts, num_topics=K,
                    random_state=seed, em_min_iter=1, em_max_iter=em_iter, passes=1,
                    lda_inference_max_iter=10)
    secs = time.perf_counter() - t0
    phi = np.empty((len(labels), K, X.shape[1]))
    for k, chain in enumerate(m.topic_chains):
        e = np.exp(chain.e_log_prob.T)  # (T, V)
        phi[:, k] = e / e.sum(axis=1, keepdims=True)
    return phi, secs, {"em_iterations": em_iter, "passes": 1}


def run_gensim_to_quality(a):
    """``--gensim-quality``: gensim's LdaSeqModel (``--gensim-em`` EM iterations) on the subset,
    then latentkit's DTM with max_iter = 1, 2, ... (each a fresh fit, timed whole: the LDA start
    included) until its held-out perplexity is at least as good as gensim's."""
    rows = []
    Xs, vs, ys, ts = load_peps(max_features=a.gensim_words, min_year=a.gensim_years)
    test = split(ys, a.seed)
    lab = np.unique(ys[~test])
    alpha = 1.0 / a.k
    print(f"subset: {Xs.shape[0]} documents x {Xs.shape[1]} words, {len(lab)} slices; load "
          f"{os.getloadavg()[0]:.1f}", flush=True)
    phi, g_secs, extra = run_gensim(Xs[~test], ys[~test], lab, a.k, a.seed, a.gensim_em)
    g_ppl = slice_perplexity(phi, Xs[test], ys[test], lab, alpha)[1]
    rows.append({"method": f"gensim LdaSeqModel ({a.gensim_em} EM it)", "seconds": round(g_secs, 2),
                 "heldout_perplexity": round(g_ppl, 1)})
    print(json.dumps(rows[-1]), flush=True)
    from latentkit.topic import DynamicTopicModel

    for m in range(1, 51):
        t0 = time.perf_counter()
        dtm = DynamicTopicModel(a.k, max_iter=m, random_state=a.seed).fit(Xs[~test],
                                                                           times=ys[~test])
        secs = time.perf_counter() - t0
        ppl = slice_perplexity(dtm.topic_word_distributions(), Xs[test], ys[test], lab, alpha)[1]
        rows.append({"method": f"latentkit DTM max_iter={m}", "seconds": round(secs, 3),
                     "heldout_perplexity": round(ppl, 1), "n_iter": int(dtm.n_iter_),
                     "speedup_vs_gensim": round(g_secs / secs, 1)})
        print(json.dumps(rows[-1]), flush=True)
        if ppl <= g_ppl or dtm.n_iter_ < m:
            break
    return rows


def run_paragraphs(a):
    """``--paragraphs``: the larger timestamped corpus (PEP paragraphs by year): latentkit's DTM,
    static LDA and tomotopy's DTModel, the one evaluator."""
    rows = []
    X, vocab, years, tokens = load_pep_paragraphs()
    test = split(years, a.seed)
    labels = np.unique(years[~test])
    print(f"PEP paragraphs: {X.shape[0]} documents x {X.shape[1]} words, {int(X.sum())} tokens, "
          f"{len(labels)} yearly slices; load {os.getloadavg()[0]:.1f}", flush=True)
    tok_tr = [t for t, s in zip(tokens, test) if not s]
    runs = [("latentkit DTM", lambda: run_latentkit(X[~test], years[~test], a.k, a.seed, "lda")),
            ("latentkit LDA (static)", lambda: run_lda(X[~test], len(labels), a.k, a.seed))]
    runs += [(f"tomotopy DTModel {n} it",
              lambda n=n: run_tomotopy(X[~test], vocab, years[~test], labels, a.k, a.seed, n))
             for n in [int(v) for v in a.tomotopy_iters.split(",") if v]]
    for name, fit in runs:
        phi, secs, extra = fit()
        per, overall = slice_perplexity(phi, X[test], years[test], labels, 1.0 / a.k)
        rows.append({"method": name, "seconds": round(secs, 2),
                     "heldout_perplexity": round(overall, 1),
                     "c_npmi": round(mean_npmi(phi[::7], tok_tr, vocab), 4), **extra})
        print(json.dumps(rows[-1]), flush=True)
    return rows


def run_labels(a):
    """``--labels``: LabeledLDA / DMR against tomotopy's LLDAModel, PLDAModel and DMRModel
    (benchmarks/_labels_peer.py: the evaluator)."""
    import _labels_peer as lp

    rows = []
    X, vocab, years, tokens, meta = load_peps(return_meta=True)
    kinds = np.array(meta["type"])
    test = split(kinds, a.seed)
    tr, te = np.flatnonzero(~test), np.flatnonzero(test)
    lab_tr, lab_te = lp.label_sets(meta, tr), lp.label_sets(meta, te)
    tok_tr = [tokens[i] for i in tr]
    print(f"PEPs: {X.shape[0]} documents ({te.size} held out, 10% of every type) x "
          f"{X.shape[1]} words; labels: type + topic; load {os.getloadavg()[0]:.1f}", flush=True)
    iters = [int(v) for v in a.tomotopy_iters.split(",") if v]

    def report(name, phi, secs, extra, allowed, alphas, counted):
        per, overall = lp.per_label_perplexity(phi, X[te], allowed, alphas, counted)
        row = {"method": name, "seconds": round(secs, 2), "heldout_perplexity": round(overall, 1),
               "by_label": {k: round(v, 1) for k, v in per.items()},
               "c_npmi": round(mean_npmi(phi[None], tok_tr, vocab), 4), **extra}
        rows.append(row)
        print(json.dumps(row), flush=True)

    for free in (0, a.free_topics):
        runs = [("latentkit LabeledLDA" + (f" + {free} free" if free else ""),
                 lambda free=free: lp.run_labeled(X[tr], lab_tr, free, a.seed))]
        runs += [(f"tomotopy {'LLDAModel' if free == 0 else 'PLDAModel'} {n} it",
                  lambda n=n, free=free: lp.run_tomotopy_labeled(X[tr], vocab, lab_tr, free,
                                                                 a.seed, n))
                 for n in iters]
        for name, fit in runs:
            phi, topic_of, secs, extra = fit()
            K = phi.shape[0]
            free_ids = list(range(K - free, K))
            allowed = [[topic_of[v] for v in labs if v in topic_of] + free_ids
                       for labs in lab_te]
            report(name, phi, secs, extra, allowed, [np.full(len(c), 1.0 / K) for c in allowed],
                   lab_te)
    levels = ["Standards Track", "Informational", "Process"]
    runs = [("latentkit DMR (type)", lambda: lp.run_dmr(X[tr], kinds[tr], levels, a.k, a.seed))]
    runs += [(f"tomotopy DMRModel (type) {n} it",
              lambda n=n: lp.run_tomotopy_dmr(X[tr], vocab, kinds[tr], levels, a.k, a.seed, n))
             for n in iters]
    for name, fit in runs:
        phi, prior, secs, extra = fit()
        report(name, phi, secs, extra, [list(range(a.k))] * te.size,
               [prior[k] for k in kinds[te]], [[k] for k in kinds[te]])
    return rows


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("-k", type=int, default=10)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--tomotopy-iters", default="100,1000")
    p.add_argument("--gensim", action="store_true")
    p.add_argument("--gensim-words", type=int, default=500)
    p.add_argument("--gensim-years", type=int, default=2015)
    p.add_argument("--gensim-em", type=int, default=2)
    p.add_argument("--no-full", action="store_true", help="skip the full-corpus runs")
    p.add_argument("--out", default="dtm_bench.json")
    p.add_argument("--labels", action="store_true",
                   help="only the labelled / covariate models against tomotopy's samplers")
    p.add_argument("--free-topics", type=int, default=6,
                   help="--labels: free topics of Partially Labeled LDA (default 6)")
    p.add_argument("--gensim-quality", action="store_true",
                   help="only gensim on the subset, then our DTM until it is as good")
    p.add_argument("--paragraphs", action="store_true",
                   help="only the larger corpus: PEP paragraphs by year")
    a = p.parse_args(argv)
    for flag, run in ((a.labels, run_labels), (a.gensim_quality, run_gensim_to_quality),
                      (a.paragraphs, run_paragraphs)):
        if flag:
            Path(a.out).write_text(json.dumps(run(a), indent=1))
            return
    rows = []

    def report(name, phi, secs, extra, X, yrs, vocab, tokens, test):
        labels = np.unique(yrs[~test])
        per, overall = slice_perplexity(phi, X[test], yrs[test], labels, 1.0 / a.k)
        row = {"method": name, "seconds": round(secs, 2), "heldout_perplexity": round(overall, 1),
               "by_slice": [None if np.isnan(v) else round(v, 1) for v in per],
               "c_npmi": round(mean_npmi(phi, [tk for tk, s in zip(tokens, test) if not s],
                                         vocab), 4), **extra}
        rows.append(row)
        print(json.dumps({k: v for k, v in row.items() if k != "by_slice"}), flush=True)

    X, vocab, years, tokens = load_peps()
    test = split(years, a.seed)
    labels = np.unique(years[~test])
    print(f"PEPs: {X.shape[0]} documents x {X.shape[1]} words, {len(labels)} yearly slices; "
          f"load {os.getloadavg()[0]:.1f}", flush=True)
    for init in () if a.no_full else ("lda", "random"):
        phi, secs, extra = run_latentkit(X[~test], years[~test], a.k, a.seed, init)
        report(f"latentkit DTM init={init}", phi, secs, extra, X, years, vocab, tokens, test)
    if not a.no_full:
        phi, secs, extra = run_lda(X[~test], len(labels), a.k, a.seed)
        report("latentkit LDA (static)", phi, secs, extra, X, years, vocab, tokens, test)
    for iters in [] if a.no_full else [int(v) for v in a.tomotopy_iters.split(",") if v]:
        phi, secs, extra = run_tomotopy(X[~test], vocab, years[~test], labels, a.k, a.seed,
                                        iters)
        report(f"tomotopy DTModel {iters} it", phi, secs, extra, X, years, vocab, tokens, test)
    if a.gensim:  # a subset: gensim's LdaSeqModel takes hours on the whole corpus
        Xs, vs, ys, ts = load_peps(max_features=a.gensim_words, min_year=a.gensim_years)
        ts_test = split(ys, a.seed)
        lab = np.unique(ys[~ts_test])
        print(f"subset for gensim: {Xs.shape[0]} documents x {Xs.shape[1]} words, "
              f"{len(lab)} slices", flush=True)
        phi, secs, extra = run_latentkit(Xs[~ts_test], ys[~ts_test], a.k, a.seed, "lda")
        report("latentkit DTM (subset)", phi, secs, extra, Xs, ys, vs, ts, ts_test)
        phi, secs, extra = run_gensim(Xs[~ts_test], ys[~ts_test], lab, a.k, a.seed, a.gensim_em)
        report("gensim LdaSeqModel (subset)", phi, secs, extra, Xs, ys, vs, ts, ts_test)
    Path(a.out).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
