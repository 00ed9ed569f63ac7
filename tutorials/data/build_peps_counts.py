"""Builds ``peps_counts.json.gz``, the bag of words of the Python Enhancement Proposals used by
the notebook ``09_topics_over_time_peps.ipynb``, from the full texts (``peps.jsonl.gz``, 736
PEPs, 2000-2026, public domain / CC0; built from the python/peps repository):

    python tutorials/data/build_peps_counts.py ../shared/data/peps/peps.jsonl.gz

The words: ``latentkit.text.load_texts`` defaults (lower case, runs of letters, English stop
words) with ``min_df=5, max_df=0.5, max_features=3000``. The file holds the vocabulary, each
PEP's number, title, creation date, status, type and topic, and its counts as a CSR matrix
(``indptr``, ``indices``, ``counts``).
"""

import gzip
import json
import os
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))  # this checkout's latentkit


def main(src):
    from latentkit.text import load_texts

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "peps.jsonl")
        with gzip.open(src, "rt", encoding="utf-8") as fh, open(path, "w", encoding="utf-8") as out:
            out.write(fh.read())
        c = load_texts(path, min_df=5, max_df=0.5, max_features=3000)
    X = c.data.tocsr()
    X.sort_indices()
    meta = c.metadata
    doc = {k: list(meta[k]) for k in ("pep", "title", "created", "status", "type", "topic")}
    payload = {"vocabulary": list(c.vocabulary), "documents": doc,
               "indptr": X.indptr.tolist(), "indices": X.indices.tolist(),
               "counts": X.data.astype(np.int64).tolist()}
    dst = os.path.join(HERE, "peps_counts.json.gz")
    with gzip.GzipFile(dst, "wb", compresslevel=9, mtime=0) as fh:
        fh.write(json.dumps(payload, separators=(",", ":")).encode("utf-8"))
    print(f"{dst}: {X.shape[0]} documents x {X.shape[1]} words, {int(X.sum())} tokens, "
          f"{os.path.getsize(dst)} bytes")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        HERE, "..", "..", "..", "shared", "data", "peps", "peps.jsonl.gz"))
