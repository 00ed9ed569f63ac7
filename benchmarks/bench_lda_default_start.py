"""LDA's default start on planted corpora with a dominant topic (issue 41, item 3): the default
start (``init='auto'``: CVB0 from one seed document per spectral topic, checked against a
random start, :mod:`latentkit.topic._start_check`), the same start unchecked
(``init='cvb0'``), the previous default (CVB0 from length-weighted seed documents), the random
start and gensim's ``LdaModel``.

Protocol
--------
* Planted corpora (:func:`latentkit.datasets.make_lda_corpus`, drawn with the seed of the row):

  - ``dom5``: K = 5, alpha = (1, .5, .25, .12, .06), 1,000 documents of 100 tokens, V = 500,
    eta = 0.1 (``make_lda_corpus``'s defaults but alpha);
  - ``dom8``: K = 8, alpha = (1.2, .5, .3, .2, .12, .08, .06, .04), 2,000 documents of 80
    tokens, V = 400, eta = 0.1.

* Every fit knows K; ``prior='auto'`` learns alpha (``doc_topic_prior='auto'``, gensim
  ``alpha='auto'``), ``prior='fixed'`` keeps the symmetric 1/K (gensim ``alpha='symmetric'``).
  Everything else at its defaults (the default stop included), ``random_state`` = the seed.
* ``default``: ``LatentDirichletAllocation(K, ...)`` (``init='auto'``: the checked start; the
  ``warn`` column counts the seeds whose fit gave a ``StartCheckWarning``, i.e. kept the random
  start); ``cvb0``: ``init='cvb0'``, the same start without the check; ``old start``: the previous default,
  i.e. ``cvb0_topics`` from its length-weighted seed documents with the model's generator,
  then batch VB from those topics (the same fit as before this change, bit for bit);
  ``random``: ``init='random'``; ``gensim``: ``gensim.models.LdaModel(corpus, K,
  alpha=..., random_state=seed)`` at its defaults (one pass, chunks of 2,000: one M-step
  here); ``gensim x20``: the same with ``passes=20``.
* L1: topics matched to the planted ones (Hungarian, on the L1 distance of the word
  distributions), the mean L1 over topics (0 .. 2); alpha err: the largest relative error of a
  learned alpha_k against the planted one, matched topics; ELBO: ours in nats per document
  (``lower_bound_``; gensim's bound is not on the same scale and is left out).
* ``--real``: KOS and NIPS (the 90/10 split of ``benchmarks/bench_lda_curve.py``), K = 20, the
  default fit (fixed 1/K priors) against the old start, alternated in one process: held-out
  perplexity (``perplexity(X_test, include_prior_kl=False)``), VB iterations, seconds;
  ``--real --check``: the default fit (checked start) against ``init='cvb0'`` (the price of
  the check), alternated in one process.

Run::

    python benchmarks/bench_lda_default_start.py                  # planted, seeds 0-2
    python benchmarks/bench_lda_default_start.py --seeds 0 1 2 3 --corpora dom5
    python benchmarks/bench_lda_default_start.py --real
    python benchmarks/bench_lda_default_start.py --real --check --repeats 2 --only kos
"""

import argparse
import os
import subprocess
import sys
import time
import warnings

import numpy as np
from scipy.optimize import linear_sum_assignment

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))
sys.path.insert(0, ROOT)  # run from a checkout
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

CORPORA = {
    "dom5": dict(n_docs=1000, vocab_size=500, doc_length=100, topic_word_prior=0.1,
                 doc_topic_prior=np.array([1.0, 0.5, 0.25, 0.12, 0.06])),
    "dom8": dict(n_docs=2000, vocab_size=400, doc_length=80, topic_word_prior=0.1,
                 doc_topic_prior=np.array([1.2, 0.5, 0.3, 0.2, 0.12, 0.08, 0.06, 0.04])),
}
METHODS = ("default", "cvb0", "old start", "random", "gensim", "gensim x20")
DEFAULT_METHODS = ("default", "cvb0", "random", "gensim")  # gensim x20: ~100 s a fit


def _uptime():
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    except OSError:
        return "uptime unavailable"


def matched_errors(topics, alpha, truth):
    """(mean matched L1 of the topics, largest relative alpha error or nan)."""
    P = topics / topics.sum(axis=1, keepdims=True)
    cost = np.abs(P[:, None, :] - truth["topics"][None]).sum(-1)
    r, c = linear_sum_assignment(cost)
    alpha = np.atleast_1d(alpha)
    if alpha.size == 1:
        return float(cost[r, c].mean()), float("nan")
    t = truth["doc_topic_prior"]
    return float(cost[r, c].mean()), float(np.max(np.abs(alpha[r] - t[c]) / t[c]))


def old_start_fit(X, K, seed, **params):
    """The previous default: CVB0 from length-weighted seeds with the model's generator, then
    batch VB from its topics."""
    from latentkit.topic import LatentDirichletAllocation, cvb0_topics

    rng = np.random.default_rng(seed)  # check_random_state(seed), the fit's generator
    lam = cvb0_topics(X, K, 1.0 / K, 1.0 / K, random_state=rng)
    return LatentDirichletAllocation(K, init={"components": lam}, random_state=seed,
                                     **params).fit(X)


def fit(method, X, K, seed, prior):
    """(topics, alpha, ELBO or nan, iterations or nan, start-check warnings)."""
    from latentkit.exceptions import StartCheckWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = _fit(method, X, K, seed, prior)
    return (*out, sum(w.category is StartCheckWarning for w in caught))


def _fit(method, X, K, seed, prior):
    from latentkit.topic import LatentDirichletAllocation

    params = {"doc_topic_prior": "auto"} if prior == "auto" else {}
    if method.startswith("gensim"):
        import gensim

        corpus = [list(zip(row.indices.tolist(), row.data.astype(int).tolist())) for row in X]
        id2word = {j: str(j) for j in range(X.shape[1])}
        m = gensim.models.LdaModel(corpus, num_topics=K, id2word=id2word,
                                   alpha="auto" if prior == "auto" else "symmetric",
                                   random_state=seed,
                                   passes=20 if method == "gensim x20" else 1)
        return m.get_topics(), (m.alpha if prior == "auto" else 1.0 / K), np.nan, np.nan
    if method == "old start":
        m = old_start_fit(X, K, seed, **params)
    else:
        init = method if method in ("random", "cvb0") else "auto"
        m = LatentDirichletAllocation(K, init=init, random_state=seed, **params).fit(X)
    return m.components_, m.doc_topic_prior_, m.lower_bound_, m.n_iter_


def planted(args):
    from latentkit.datasets import make_lda_corpus

    print(f"{'corpus':<7}{'prior':<7}{'method':<11}{'L1 (per seed)':<30}{'alpha err':<24}"
          f"{'ELBO':<24}{'iters':<14}{'s':>6}{'warn':>6}")
    for name in args.corpora:
        spec = CORPORA[name]
        K = spec["doc_topic_prior"].size
        data = {s: make_lda_corpus(n_components=K, random_state=s, **spec) for s in args.seeds}
        for prior in args.priors:
            for method in args.methods:
                rows = []
                t0 = time.perf_counter()
                for s in args.seeds:
                    X, truth = data[s]
                    topics, alpha, elbo, it, warned = fit(method, X, K, s, prior)
                    rows.append((*matched_errors(topics, alpha, truth), elbo, it, warned))
                secs = (time.perf_counter() - t0) / len(args.seeds)
                r = np.array(rows, dtype=float)
                fmt = lambda col, f: " ".join(f.format(v) if np.isfinite(v) else "-"
                                              for v in r[:, col])
                print(f"{name:<7}{prior:<7}{method:<11}{fmt(0, '{:.3f}'):<30}"
                      f"{fmt(1, '{:.2f}'):<24}{fmt(2, '{:.1f}'):<24}{fmt(3, '{:.0f}'):<14}"
                      f"{secs:>6.1f}{int(r[:, 4].sum()):>6d}", flush=True)


def real(args):
    from bench_lda_curve import load_corpus
    from latentkit.topic import LatentDirichletAllocation

    K = 20
    for name in args.only:
        train, test = load_corpus(name)
        print(f"\n{name}: {train.shape[0]} training / {test.shape[0]} held-out documents, K={K}")
        other = "cvb0" if args.check else "old start"
        for label in ("default", other, "default", other)[:2 * args.repeats]:
            t0 = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                if label == "old start":
                    m = old_start_fit(train, K, 0)
                else:
                    init = "cvb0" if label == "cvb0" else "auto"
                    m = LatentDirichletAllocation(K, init=init, random_state=0).fit(train)
            secs = time.perf_counter() - t0
            print(f"{label:<10} held-out perplexity {m.perplexity(test, include_prior_kl=False):8.1f}"
                  f"  iterations {m.n_iter_:3d}  {secs:6.1f} s", flush=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpora", nargs="+", default=list(CORPORA), choices=list(CORPORA))
    ap.add_argument("--priors", nargs="+", default=["auto", "fixed"], choices=["auto", "fixed"])
    ap.add_argument("--methods", nargs="+", default=list(DEFAULT_METHODS), choices=list(METHODS))
    ap.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    ap.add_argument("--real", action="store_true", help="KOS and NIPS at K=20 instead")
    ap.add_argument("--repeats", type=int, default=1, choices=[1, 2])
    ap.add_argument("--check", action="store_true",
                    help="with --real: the default (checked) start against init='cvb0'")
    ap.add_argument("--only", nargs="+", choices=["kos", "nips"], default=["kos", "nips"],
                    help="with --real: the corpora")
    args = ap.parse_args(argv)
    print("start:", _uptime())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        (real if args.real else planted)(args)
    print("end:", _uptime())


if __name__ == "__main__":
    main()
