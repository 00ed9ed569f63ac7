"""Learned Dirichlet priors of LDA (issue 31): held-out perplexity and cost per iteration with
``doc_topic_prior='auto'`` (and ``topic_word_prior='auto'``) against the fixed 1/K priors.

Protocol
--------
* Corpora: KOS, NIPS and the Gutenberg paragraphs, split 90/10 at random (seed 0; the split of
  ``benchmarks/bench_lda_curve.py``); ``--max-docs`` subsamples first for a quick run.
* K = 20 (``-k``); every configuration is the default batch fit (``init='auto'``: 100 CVB0
  sweeps, then batch VB to the default ``tol``), ``random_state=0``, differing only in the
  priors: ``fixed`` (alpha = eta = 1/K), ``asymmetric`` (gensim's fixed
  ``alpha_k ∝ 1/(k + sqrt(K))``), ``alpha=auto`` (learned by the Newton iteration of Blei, Ng
  & Jordan 2003, A.4.2, in every M-step), ``alpha=eta=auto``.
* ``--tol-per-token 1e-5`` runs every fit closer to convergence (the library's default is
  1e-3 nats per token of the mean document, which stops after 7-11 iterations here).
* Held-out perplexity: ``perplexity(X_test, include_prior_kl=False)``, the per-document bound
  of Hoffman, Blei & Bach (2010, section 4) with each model's own (fitted) alpha.
* Cost per iteration: the VB iterations' wall time (from the first to the last callback,
  divided by the iterations between them; the CVB0 start excluded), and its ratio to the
  fixed-prior fit's in the same process. Configurations run one after the other in one
  process; ``uptime`` is printed at the start and the end (a shared machine's load moves the
  seconds, less the ratios; the iteration counts are deterministic).
* The learned priors' own cost, less exposed to the load: on a model fitted with
  ``alpha=eta=auto`` (3 iterations), the best of 5 timings of one E-step over the training
  documents (with the E[log theta] statistics of alpha) and of one prior update (alpha and eta
  Newton iterations, converged), and their ratio (``--overhead-only`` prints only this).

Run::

    python benchmarks/bench_lda_priors.py                      # all three corpora, K=20
    python benchmarks/bench_lda_priors.py --corpora kos --max-docs 1000
    python benchmarks/bench_lda_priors.py --overhead-only
"""

import argparse
import os
import subprocess
import sys
import time
import warnings

import numpy as np

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))
sys.path.insert(0, ROOT)  # run from a checkout
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_lda_curve import CORPORA, load_corpus  # noqa: E402

CONFIGS = {
    "fixed": {},
    "asymmetric": {"doc_topic_prior": "asymmetric"},
    "alpha=auto": {"doc_topic_prior": "auto"},
    "alpha=eta=auto": {"doc_topic_prior": "auto", "topic_word_prior": "auto"},
}


def _uptime():
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    except OSError:
        return "uptime unavailable"


def fit_one(train, test, K, params, seed=0, tol_per_token=None):
    """Fit one configuration; returns (held-out perplexity, iterations, seconds per VB
    iteration, total seconds, the model)."""
    from latentkit.topic import LatentDirichletAllocation

    stamps = []

    def cb(model, n_iter, elbo):
        stamps.append(time.perf_counter())

    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if tol_per_token is not None:  # tol in nats per token of the mean document
            params = dict(params, tol=tol_per_token * train.sum() / train.shape[0])
        m = LatentDirichletAllocation(K, random_state=seed, callback=cb, **params).fit(train)
    total = time.perf_counter() - t0
    per_iter = (stamps[-1] - stamps[0]) / (len(stamps) - 1) if len(stamps) > 1 else float("nan")
    return m.perplexity(test, include_prior_kl=False), m.n_iter_, per_iter, total, m


def prior_update_cost(train, K, repeats=5):
    """(seconds of one E-step, seconds of one prior update) on ``train``, best of
    ``repeats``, for a model with ``alpha=eta=auto`` after 3 iterations."""

    from latentkit.topic import LatentDirichletAllocation
    from latentkit.topic._lda_priors import LDAPriors

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = LatentDirichletAllocation(K, doc_topic_prior="auto", topic_word_prior="auto",
                                      max_iter=3, random_state=0).fit(train)
    data = m._validate_data(train, reset=False)
    t_e, t_u = [], []
    for _ in range(repeats):
        t0 = time.perf_counter()
        stats = m._e_step(data)
        t_e.append(time.perf_counter() - t0)
        priors = LDAPriors(K, learn_alpha=True, learn_eta=True)
        t0 = time.perf_counter()
        priors.update(stats, m.doc_topic_prior_, m.topic_word_prior_, m.components_)  # batch
        t_u.append(time.perf_counter() - t0)
    return min(t_e), min(t_u)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpora", nargs="+", default=list(CORPORA), choices=CORPORA)
    ap.add_argument("-k", type=int, default=20)
    ap.add_argument("--max-docs", type=int, default=None)
    ap.add_argument("--configs", nargs="+", default=list(CONFIGS), choices=list(CONFIGS))
    ap.add_argument("--tol-per-token", type=float, default=None,
                    help="tol as nats per token of the mean document (default: the library's "
                         "default tol, 1e-3)")
    ap.add_argument("--overhead-only", action="store_true",
                    help="only the E-step and prior-update timings")
    args = ap.parse_args(argv)
    print("start:", _uptime())
    for name in args.corpora:
        train, test = load_corpus(name, max_docs=args.max_docs)
        print(f"\n{name}: {train.shape[0]} training / {test.shape[0]} held-out documents, "
              f"V={train.shape[1]}, K={args.k}")
        t_e, t_u = prior_update_cost(train, args.k)
        print(f"one E-step {t_e:.3f} s, one prior update (alpha and eta) {t_u:.4f} s: "
              f"{100 * t_u / t_e:.2f}% of an E-step", flush=True)
        if args.overhead_only:
            continue
        print(f"{'priors':<16}{'held-out ppl':>13}{'vs fixed':>10}{'iters':>7}"
              f"{'s/iter':>9}{'ratio':>7}{'total s':>9}  alpha (sorted, learned)")
        base = None
        for label in args.configs:
            ppl, n_iter, per_iter, total, m = fit_one(train, test, args.k, CONFIGS[label],
                                                      tol_per_token=args.tol_per_token)
            if base is None:
                base = (ppl, per_iter)
            a = np.sort(np.atleast_1d(m.doc_topic_prior_))[::-1]
            alpha = (f"{a[0]:.3g} .. {a[-1]:.3g} (sum {a.sum():.3g})" if a.size > 1
                     else f"{a[0]:.3g}")
            print(f"{label:<16}{ppl:>13.1f}{100 * (ppl / base[0] - 1):>9.2f}%{n_iter:>7d}"
                  f"{per_iter:>9.3f}{per_iter / base[1]:>7.2f}{total:>9.1f}  {alpha}",
                  flush=True)
    print("\nend:", _uptime())


if __name__ == "__main__":
    main()
