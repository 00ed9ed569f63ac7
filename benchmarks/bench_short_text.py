"""Short texts (issue 43): our DMM, BTM and LDA against tomotopy's LDA and PTModel, bitermplus's
BTM and scikit-learn's LDA on the Debian one-line package descriptions, with ONE evaluator per
measure.

Protocol
--------
* Data: ``../shared/data/debian_short/debian_short.tsv.gz`` (59,961 one-line descriptions,
  58 section labels). ``--n-docs`` (default 20,000) training and ``--n-heldout`` (2,000)
  held-out descriptions drawn without replacement (seed 0); one vocabulary for every library:
  latentkit's ``TextVectorizer`` (English stop words, ``min_df=5``) fitted on the training
  descriptions; descriptions left without a word are dropped from both splits. Every model
  gets the same documents: the CSR counts, or each document's tokens (words repeated by count,
  in column order; a one-line description is shorter than the coherence window, so the order
  does not matter).
  ``--corpus gutenberg``: the paragraphs of at most 30 words of the nine Gutenberg novels
  (``../shared/data/gutenberg_novels/paragraphs.tsv.gz``; 7,133 of 17,080: dialogue and short
  narration, the short texts of that corpus; the whole paragraphs, 62 words on average, are
  LDA's ground), labelled by book; 1,000 held-out (``--n-heldout 1000``), the rest training.
  ``--corpus peps``: the prose paragraphs of 5 to 30 words of the 197 PEPs with one topic
  label (Packaging, Typing, Release, Governance; ``../shared/data/peps``), labelled by it
  (directives, lists, tables and code left out).
* K = 20 topics for all (``--k``), seed 0, each library's documented defaults otherwise,
  except the iteration counts stated in the table (Gibbs samplers: 1,000 sweeps for
  tomotopy's LDA, 50 for its PTModel, whose sweeps cost about 15 times more here (200 took
  over 7 minutes on 20,000 descriptions at load 14); 500 for
  bitermplus; scikit-learn batch VB at its default 10 iterations).
* Coherence: gensim's ``CoherenceModel`` (c_npmi and c_v, top 10 words, window 10, the training
  token lists as reference) on every model's top 10 words.
* Labels: NMI and ARI (scikit-learn) of each training document's most probable topic
  against its Debian section.
* Held-out: nats per token on the held-out descriptions where the model defines a document
  score: our DMM and LDA, the per-document ELBO (a lower bound of the log-likelihood; no
  global KL term); tomotopy's ``infer`` log-likelihood; scikit-learn's ``perplexity`` bound.
  BTM's bound is over biterms, not tokens (no entry).
* Wall time: the fit (and for the Gibbs samplers the sampling), one process, one thread each
  (tomotopy ``workers=1``), in the order of the table.

Run (the machine is shared; say ``uptime`` with the times):

    python benchmarks/bench_short_text.py [--n-docs 20000] [--k 20]
    python benchmarks/bench_short_text.py --corpus gutenberg --n-heldout 1000
    python benchmarks/bench_short_text.py --corpus peps --n-heldout 1000
"""

import argparse
import gzip
import os
import sys
import time

import numpy as np

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))
sys.path.insert(0, ROOT)  # run from a checkout
DATA = os.path.join(ROOT, os.pardir, "shared", "data", "debian_short", "debian_short.tsv.gz")
GUTENBERG = os.path.join(ROOT, os.pardir, "shared", "data", "gutenberg_novels",
                         "paragraphs.tsv.gz")


def load_gutenberg(path, n_docs, n_heldout, seed, max_words=30):
    """The paragraphs of at most ``max_words`` words (7,133 of 17,080: dialogue and short
    narration), labelled by book, as ``(texts, labels, held-out texts)``."""
    with gzip.open(path, "rt", encoding="utf-8") as f:
        rows = [line.rstrip("\n").split("\t") for line in f][1:]
    rows = [(r[0], r[0], r[3]) for r in rows if len(r[3].split()) <= max_words]
    return _split(rows, n_docs, n_heldout, seed)


PEPS = os.path.join(ROOT, os.pardir, "shared", "data", "peps", "peps.jsonl.gz")
_PEP_TOPICS = ("Packaging", "Typing", "Release", "Governance")
_NOT_PROSE = ("..", ":", "=", "-", "*", ">>>", "|", "#", "`")


def load_peps(path, n_docs, n_heldout, seed, min_words=5, max_words=30):
    """The prose paragraphs of 5 to 30 words of the PEPs with one topic label (Packaging,
    Typing, Release, Governance), labelled by it; reStructuredText directives, lists,
    tables, code and indented blocks left out."""
    import json
    rows = []
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for line in f:
            pep = json.loads(line)
            if pep["topic"] not in _PEP_TOPICS:
                continue
            for par in pep["text"].split("\n\n"):
                if par[:1].isspace() or par.lstrip().startswith(_NOT_PROSE):
                    continue
                text = " ".join(par.split())
                if min_words <= len(text.split()) <= max_words and not text.endswith("::"):
                    rows.append((pep["topic"], pep["topic"], text))
    return _split(rows, n_docs, n_heldout, seed)


def load(path, n_docs, n_heldout, seed):
    with gzip.open(path, "rt", encoding="utf-8") as f:
        rows = [line.rstrip("\n").split("\t") for line in f][1:]
    return _split(rows, n_docs, n_heldout, seed)


def _split(rows, n_docs, n_heldout, seed):
    n_docs = min(n_docs, len(rows) - n_heldout)
    rng = np.random.default_rng(seed)
    pick = rng.permutation(len(rows))[:n_docs + n_heldout]
    train = [rows[i] for i in pick[:n_docs]]
    test = [rows[i] for i in pick[n_docs:]]
    return [r[2] for r in train], [r[1] for r in train], [r[2] for r in test]


def token_lists(X, vocab):
    out = []
    for d in range(X.shape[0]):
        a, b = X.indptr[d], X.indptr[d + 1]
        out.append([vocab[j] for j, c in zip(X.indices[a:b], X.data[a:b]) for _ in range(int(c))])
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", choices=("debian", "gutenberg", "peps"), default="debian")
    ap.add_argument("--data", default=None, help="the corpus file (default: ../shared/data)")
    ap.add_argument("--n-docs", type=int, default=20000)
    ap.add_argument("--n-heldout", type=int, default=2000)
    ap.add_argument("--k", type=int, default=20)
    ap.add_argument("--skip", nargs="*", default=[], help="rows to leave out")
    args = ap.parse_args()

    from gensim.corpora import Dictionary
    from gensim.models import CoherenceModel
    from sklearn.metrics import adjusted_rand_score, normalized_mutual_info_score

    from latentkit.text import TextVectorizer
    from latentkit.topic import (BitermTopicModel, DirichletMultinomialMixture,
                                 LatentDirichletAllocation)

    if args.corpus == "gutenberg":
        texts, labels, held = load_gutenberg(args.data or GUTENBERG, args.n_docs,
                                             args.n_heldout, 0)
    elif args.corpus == "peps":
        texts, labels, held = load_peps(args.data or PEPS, args.n_docs, args.n_heldout, 0)
    else:
        texts, labels, held = load(args.data or DATA, args.n_docs, args.n_heldout, 0)
    vec = TextVectorizer(min_df=5)
    X = vec.fit_transform(texts).tocsr()
    Xt = vec.transform(held).tocsr()
    vocab = [str(w) for w in vec.vocabulary_]
    keep = np.asarray(X.sum(axis=1)).ravel() > 0
    X, labels = X[keep], np.asarray(labels)[keep]
    Xt = Xt[np.asarray(Xt.sum(axis=1)).ravel() > 0]
    toks, toks_t = token_lists(X, vocab), token_lists(Xt, vocab)
    K = args.k
    print(f"{args.corpus}: {X.shape[0]} training / {Xt.shape[0]} held-out descriptions, "
          f"{X.shape[1]} words, {X.sum() / X.shape[0]:.2f} tokens per description, "
          f"{len(set(labels))} labels; K = {K}", flush=True)
    dictionary = Dictionary(toks)

    def cohere(topics, measure):
        cm = CoherenceModel(topics=topics, texts=toks, dictionary=dictionary,
                            coherence=measure, topn=10, processes=1)
        return float(np.mean(cm.get_coherence_per_topic()))

    def top(phi):
        return [[vocab[j] for j in np.argsort(-row, kind="stable")[:10]] for row in phi]

    results = []

    def record(name, note, seconds, phi, doc_topic, heldout):
        z = np.asarray(doc_topic).argmax(axis=1)
        topics = top(np.asarray(phi))
        row = {"model": name, "note": note, "seconds": seconds,
               "c_npmi": cohere(topics, "c_npmi"), "c_v": cohere(topics, "c_v"),
               "nmi": normalized_mutual_info_score(labels, z),
               "ari": adjusted_rand_score(labels, z), "heldout": heldout,
               "used": int(np.unique(z).size)}
        results.append(row)
        print(" | ".join(f"{k}={v:.4f}" if isinstance(v, float) else f"{k}={v}"
                         for k, v in row.items()), flush=True)

    def ours(name, note, model, per_token=True):
        t = time.perf_counter()
        model.fit(X)
        sec = time.perf_counter() - t
        ho = -np.log(model.perplexity(Xt, include_prior_kl=False)) if per_token else None
        record(name, note + f", {model.n_iter_} iterations", sec, model.components_,
               model.transform(X), ho)

    if "dmm" not in args.skip:
        ours("latentkit DMM", "VB, init='spectral' (default)",
             DirichletMultinomialMixture(K, random_state=0))
    if "dmm-collapsed" not in args.skip:
        ours("latentkit DMM", "VB, init='collapsed' (20 CVB0 sweeps)",
             DirichletMultinomialMixture(K, init="collapsed", random_state=0))
    if "btm" not in args.skip:
        ours("latentkit BTM", "VB over distinct biterms", BitermTopicModel(K, random_state=0),
             per_token=False)
    if "btm-spectral" not in args.skip:
        ours("latentkit BTM", "VB over distinct biterms, init='spectral'",
             BitermTopicModel(K, init="spectral", random_state=0), per_token=False)
    if "lda" not in args.skip:
        ours("latentkit LDA", "VB, defaults", LatentDirichletAllocation(K, random_state=0))

    if "tomotopy" not in args.skip:
        import tomotopy as tp
        for name, make, sweeps in (("tomotopy LDA", lambda: tp.LDAModel(k=K, seed=0), 1000),
                                   ("tomotopy PTModel", lambda: tp.PTModel(k=K, seed=0), 50)):
            mdl = make()
            for words in toks:
                mdl.add_doc(words)
            t = time.perf_counter()
            mdl.train(sweeps, workers=1)
            sec = time.perf_counter() - t
            phi = np.zeros((K, X.shape[1]))
            index = {w: j for j, w in enumerate(vocab)}
            for k in range(K):
                for w, p in mdl.get_topic_words(k, top_n=X.shape[1]):
                    phi[k, index[w]] = p
            theta = np.array([d.get_topic_dist() for d in mdl.docs])
            docs = [mdl.make_doc(w) for w in toks_t]
            _, ll = mdl.infer(docs, workers=1)
            ho = float(np.sum(ll) / Xt.sum()) if name == "tomotopy LDA" else None
            record(name, f"Gibbs, {sweeps} sweeps", sec, phi, theta, ho)

    if "bitermplus" not in args.skip:
        import bitermplus as bp
        docs = [np.repeat(X.indices[X.indptr[d]:X.indptr[d + 1]],
                          X.data[X.indptr[d]:X.indptr[d + 1]].astype(int)).astype(np.int32)
                for d in range(X.shape[0])]
        biterms = bp.get_biterms(docs, win=15)
        m = bp.BTM(X, np.array(vocab), T=K, M=10, alpha=50.0 / K, beta=0.01, seed=0)
        t = time.perf_counter()
        m.fit(biterms, iterations=500, verbose=False)
        sec = time.perf_counter() - t
        theta = m.transform(docs, verbose=False)
        record("bitermplus BTM", "Gibbs, 500 sweeps", sec, m.matrix_topics_words_,
               np.nan_to_num(theta), None)

    if "sklearn" not in args.skip:
        from sklearn.decomposition import LatentDirichletAllocation as SkLDA
        m = SkLDA(K, learning_method="batch", random_state=0)
        t = time.perf_counter()
        m.fit(X)
        sec = time.perf_counter() - t
        record("scikit-learn LDA", f"batch VB, {m.n_iter_} iterations (default)", sec, m.components_,
               m.transform(X), -float(np.log(m.perplexity(Xt))))

    print("\n| model | fit | c_npmi | c_v | NMI | ARI | held-out nats/token | topics used "
          "| seconds |\n|---|---|---|---|---|---|---|---|---|")
    for r in results:
        ho = "—" if r["heldout"] is None else f"{r['heldout']:.3f}"
        print(f"| {r['model']} | {r['note']} | {r['c_npmi']:.3f} | {r['c_v']:.3f} | "
              f"{r['nmi']:.3f} | {r['ari']:.3f} | {ho} | {r['used']} | {r['seconds']:.1f} |")


if __name__ == "__main__":
    main()
