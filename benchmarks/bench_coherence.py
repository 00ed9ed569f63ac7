"""Topic coherence on KOS (K=20, top 10 words): latentkit.topic.coherence vs gensim's
CoherenceModel, in one process on identical inputs.

Protocol
--------
* KOS (3,430 documents x 6,906 words); topics from one LatentDirichletAllocation(20) fit
  (spectral start, 30 iterations); the same 20 x 10 top words go to both libraries.
* Reference corpus: KOS itself. gensim gets its natural inputs, built before timing: the
  bag-of-words corpus (``u_mass``), the token lists (each word repeated by its count, in column
  order; the sliding-window measures) and a ``Dictionary``. latentkit gets the CSR matrix and
  expands the token streams itself inside the timed call.
* gensim runs with ``processes=1`` (its default on this 2-core machine is cpu_count - 1 = 1
  too) and, with ``--gensim-processes N``, also N worker processes.
* Each timing is the best of ``--repeat`` runs; the numba kernels are compiled (or loaded from
  the cache) before timing. The values agree to 1e-6 (printed).

Run (the machine is shared; numbers vary with the load):

    python benchmarks/bench_coherence.py [--repeat 3]
"""

import argparse
import os
import sys
import time

import numpy as np

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))
sys.path.insert(0, ROOT)  # run from a checkout


def _best(fn, repeat):
    times, out = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--k", type=int, default=20)
    ap.add_argument("--top-n", type=int, default=10)
    ap.add_argument("--gensim-processes", type=int, default=1)
    args = ap.parse_args()

    from gensim.corpora import Dictionary
    from gensim.models import CoherenceModel

    from latentkit.datasets import load_kos
    from latentkit.testing import gensim_corpus_and_texts
    from latentkit.topic import LatentDirichletAllocation, coherence

    corpus = load_kos()
    X, vocab = corpus.data, [str(w) for w in corpus.vocabulary]
    lda = LatentDirichletAllocation(n_components=args.k, max_iter=30, init="spectral",
                                    random_state=0).fit(X)
    topics = lda.top_words(vocab, n=args.top_n)
    bow, texts = gensim_corpus_and_texts(X, vocab)
    dictionary = Dictionary()
    dictionary.token2id = {w: i for i, w in enumerate(vocab)}
    for m in ("u_mass", "c_npmi", "c_v"):  # compile / load the kernels
        coherence(lda, X, m, top_n=args.top_n, vocabulary=vocab)

    print(f"KOS {X.shape[0]} docs, {int(X.sum())} tokens; K={args.k}, top {args.top_n} words; "
          f"best of {args.repeat}")
    print(f"{'measure':<8} {'latentkit s':>12} {'gensim s':>10} {'ratio':>7} {'max |diff|':>11}")
    for m in ("u_mass", "c_uci", "c_npmi", "c_v"):
        t_ours, ours = _best(lambda: coherence(lda, X, m, top_n=args.top_n, vocabulary=vocab),
                             args.repeat)
        t_gen, gen = _best(lambda: CoherenceModel(
            topics=topics, texts=texts, corpus=bow, dictionary=dictionary, coherence=m,
            topn=args.top_n, processes=args.gensim_processes).get_coherence_per_topic(),
            args.repeat)
        diff = float(np.max(np.abs(ours.per_topic - np.asarray(gen))))
        print(f"{m:<8} {t_ours:>12.4f} {t_gen:>10.3f} {t_gen / t_ours:>6.0f}x {diff:>11.1e}")


if __name__ == "__main__":
    main()
