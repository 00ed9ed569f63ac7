"""The vocabulary rule against the alternatives on real texts (issue 41, item 2): for one corpus
and one ``(min_df, max_df)``, the vocabulary size, the tokens kept, ``select lda``'s held-out
perplexity at K = 5, 10, 20, 40 and how many of the K = 20 topics have a boilerplate word (one
in the top 10 of at least a quarter of the topics). One JSON line on stdout.

Corpora: ``debian`` (a 15,000 subsample of ``../shared/data/debian_short``, seed 0),
``gutenberg_par`` / ``gutenberg_ch`` (the bundled novels' paragraphs / chapters, raw text),
``peps`` (``../shared/data/peps``). ``MIN_DF`` / ``MAX_DF``: ``auto`` (the library's rule), an
int (documents) or a number with a dot (a share). The table in ``docs/guide/topic_models.md``,
"Vocabulary defaults", is these rows; each takes 0.5-4 minutes on 2 busy cores.

    python benchmarks/bench_vocabulary.py debian auto auto
    python benchmarks/bench_vocabulary.py peps 2 1.0
"""

import collections
import csv
import gzip
import json
import os
import sys
import time
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # run from a checkout
SHARED = os.path.join(HERE, "..", "..", "shared", "data")
KS = [5, 10, 20, 40]


def _tsv(path):
    csv.field_size_limit(10 ** 9)
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        return list(csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))


def texts_of(name):
    if name == "debian":
        rows = _tsv(os.path.join(SHARED, "debian_short", "debian_short.tsv.gz"))
        keep = np.sort(np.random.default_rng(0).choice(len(rows), 15000, replace=False))
        return [rows[i]["description"] for i in keep]
    if name == "peps":
        with gzip.open(os.path.join(SHARED, "peps", "peps.jsonl.gz"), "rt",
                       encoding="utf-8") as fh:
            return [json.loads(line)["text"] for line in fh]
    rows = _tsv(os.path.join(HERE, "..", "datasets", "gutenberg_novels", "paragraphs.tsv.gz"))
    if name == "gutenberg_par":
        return [r["text"] for r in rows]
    if name == "gutenberg_ch":
        chapters = {}
        for r in rows:
            chapters.setdefault((r["book"], r["chapter"]), []).append(r["text"])
        return [" ".join(v) for v in chapters.values()]
    raise SystemExit(f"unknown corpus {name!r}")


def _setting(text):
    return text if text == "auto" else float(text) if "." in text else int(text)


def main(argv):
    from latentkit._utils.words import top_word_ids
    from latentkit.selection import select_n_components
    from latentkit.text import TextVectorizer

    name, min_df, max_df = argv[0], _setting(argv[1]), _setting(argv[2])
    texts = texts_of(name)
    vec = TextVectorizer(min_df=min_df, max_df=max_df)
    X = vec.fit_transform(texts)
    all_tokens = TextVectorizer(min_df=1, max_df=1.0).fit_transform(texts).sum()
    t = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sel = select_n_components("lda", X, KS, random_state=0)
    vocab = vec.vocabulary_[sel.feature_index]
    tops = [[vocab[j] for j in row] for row in top_word_ids(sel.models[20].components_, 10)]
    counts = collections.Counter(w for top in tops for w in top)
    boiler = {w: c for w, c in counts.items() if c >= 5}
    print(json.dumps({
        "corpus": name, "documents": len(texts), "min_df": vec.min_df_, "max_df": vec.max_df_,
        "words": int(X.shape[1]), "tokens_kept": round(float(X.sum() / all_tokens), 3),
        "heldout_perplexity": [round(r["heldout_perplexity"], 1) for r in sel.table],
        "chosen": sel.best, "edge": sel.edge(), "heldout_unseen": sel.heldout_unseen,
        "boilerplate": boiler, "topics_with_boilerplate": sum(any(w in boiler for w in top)
                                                             for top in tops),
        "seconds": round(time.perf_counter() - t, 1)}))


if __name__ == "__main__":
    main(sys.argv[1:])
