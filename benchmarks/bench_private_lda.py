"""Utility of document-level private spectral LDA against epsilon, on KOS and NIPS (issue 18).

For each corpus: 90% of the documents train, 10% are held out (fixed split). For epsilon in the
grid, :class:`latentkit.spectral.PrivateSpectralLDA` (neighbouring='document', delta=1e-5,
analytic accounting) is fitted on the training documents; its topics start batch VB
(``lambda = eta + N pi_k mu_k``, as ``init='spectral'`` does) for a few iterations, and the
held-out perplexity (per token, the per-document ELBO bound of Hoffman, Blei & Bach 2010,
section 4: ``perplexity(X, include_prior_kl=False)``) is reported. Beside it: the non-private
spectral start (``init='spectral'``) and random starts, with the same number of VB iterations.
Only the start is private: the VB iterations read the training documents without noise; the
point is how good a start the private release is. Also printed per epsilon: how many of the k
topics the estimator flags as noise-dominated, and whether the second moment is.

"Useful" (the last lines per corpus): the smallest epsilon of the grid from which on (at it and at
every larger epsilon) the private start reaches a held-out perplexity at most that of the median
random start (mean over the seeds); and, for the topics themselves, from which on their matched
l1 distance to the epsilon=inf topics of the same pipeline is at most 1 (they share more than
half their mass).

Coherence (UMass, top 10 words, training documents): filled by the hook ``_coherence`` below when
``latentkit.topic.coherence`` exists (built on another branch in parallel); NaN until then.

Run:  python benchmarks/bench_private_lda.py [--datasets kos nips] [--seeds 2] [--vb-iter 5]
      [--k 10] [--n-words 200]
"""

import argparse
import math
import time
import warnings

import numpy as np
from scipy.optimize import linear_sum_assignment

from latentkit.spectral import PrivacyNoiseWarning, PrivateSpectralLDA
from latentkit.topic import LatentDirichletAllocation

EPSILONS = (0.1, 1.0, 10.0, 100.0, 1e3, 1e4, math.inf)


def _coherence(components, X):
    """HOOK(coherence): mean UMass coherence (Mimno et al. 2011; nats) of each topic's top-10
    words on the training documents, by ``latentkit.topic.coherence`` (built in parallel on
    another branch: ``coherence(topics, corpus, measure, top_n)`` returning an object with
    ``.mean``); NaN while that function is not in this tree or cannot score the topics."""
    try:
        from latentkit.topic import coherence
    except ImportError:
        return float("nan")
    from latentkit._utils.words import top_words

    try:
        return float(coherence(top_words(components, None, 10), X, measure="u_mass",
                               top_n=10).mean)
    except (ValueError, TypeError):
        return float("nan")


def split(X, frac=0.1, seed=0):
    """(train, test) rows of a CSR matrix; a fixed random 10% of documents held out."""
    rng = np.random.default_rng(seed)
    perm = rng.permutation(X.shape[0])
    n_test = max(1, int(round(frac * X.shape[0])))
    return X[np.sort(perm[n_test:])], X[np.sort(perm[:n_test])]


def start_from_topics(topics, alpha, n_tokens, eta):
    """Starting lambda of VB from topics (k, V) and alpha (k,), as spectral_init_lda does."""
    K = topics.shape[0]
    prop = alpha / alpha.sum()
    prop = np.maximum(prop, 1.0 / (10 * K))
    prop = prop / prop.sum()
    return eta + n_tokens * prop[:, None] * topics


def topic_distance(A, B):
    """Mean l1 distance between the rows of A and B (k, V) after the best matching (0 equal
    topics, 2 disjoint supports)."""
    D = np.abs(A[:, None, :] - B[None, :, :]).sum(-1)
    r, c = linear_sum_assignment(D)
    return float(D[r, c].mean())


def vb_perplexity(Xtr, Xte, k, init, n_iter, seed):
    m = LatentDirichletAllocation(k, init=init, max_iter=n_iter, tol=0.0, random_state=seed)
    m.fit(Xtr)
    # per-document held-out bound (Hoffman, Blei & Bach 2010, section 4): the global KL term
    # would dominate a held-out set of a few hundred documents
    return float(m.perplexity(Xte, include_prior_kl=False)), m


def utility_curve(X, k=10, epsilons=EPSILONS, seeds=(0, 1), n_vb_iter=5, n_words=200,
                  delta=1e-5, n_restarts=10, n_iter=20):
    """Rows of dicts: one per (start, epsilon, seed) with 'perplexity', 'coherence' and
    'seconds'; private rows also 'n_noise_topics', 'm2_noise' and 'distance' (matched l1
    distance of the private topics to the epsilon=inf topics of the same pipeline)."""
    Xtr, Xte = split(X)
    eta = 1.0 / k
    n_tok = float(Xtr.sum())
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyNoiseWarning)
        ref = PrivateSpectralLDA(k, math.inf, delta, n_words=n_words, n_init=n_restarts,
                                 max_iter=n_iter, random_state=0).fit(Xtr).components_
    for seed in seeds:
        t = time.perf_counter()
        p, m = vb_perplexity(Xtr, Xte, k, "random", n_vb_iter, seed)
        rows.append(dict(start="random", epsilon=None, seed=seed, perplexity=p,
                         coherence=_coherence(m.components_, Xtr),
                         seconds=time.perf_counter() - t))
        t = time.perf_counter()
        p, m = vb_perplexity(Xtr, Xte, k, "spectral", n_vb_iter, seed)
        rows.append(dict(start="spectral (non-private)", epsilon=None, seed=seed, perplexity=p,
                         coherence=_coherence(m.components_, Xtr),
                         seconds=time.perf_counter() - t))
        for eps in epsilons:
            t = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", PrivacyNoiseWarning)
                est = PrivateSpectralLDA(k, eps, delta, n_words=n_words, n_init=n_restarts,
                                         max_iter=n_iter, random_state=seed).fit(Xtr)
            lam = start_from_topics(est.components_, est.doc_topic_prior_, n_tok, eta)
            p, m = vb_perplexity(Xtr, Xte, k, {"components": lam}, n_vb_iter, seed)
            rows.append(dict(start="private spectral", epsilon=eps, seed=seed, perplexity=p,
                             spent=est.privacy_report_["epsilon"],
                             n_noise_topics=int(est.noise_dominated_.sum()),
                             m2_noise=bool(est.m2_noise_dominated_),
                             distance=topic_distance(est.components_, ref),
                             coherence=_coherence(m.components_, Xtr),
                             seconds=time.perf_counter() - t))
    return rows


def _nanmean(v):
    v = [x for x in v if not math.isnan(x)]
    return float(np.mean(v)) if v else float("nan")


def summarise(rows):
    """(table lines, useful epsilon by perplexity or None, useful epsilon by distance or None)."""
    def mean(sel):
        v = [r["perplexity"] for r in rows if sel(r)]
        return float(np.mean(v)), float(np.min(v)), float(np.max(v))

    rnd = float(np.median([r["perplexity"] for r in rows if r["start"] == "random"]))
    lines = [f"{'start':<24}{'epsilon':>9}{'held-out perplexity (mean [min, max])':>42}"
             f"{'noise topics':>14}{'M2 noise':>10}{'l1 to inf':>11}{'coherence':>11}"]
    for name in ("random", "spectral (non-private)"):
        mu, lo, hi = mean(lambda r: r["start"] == name)
        coh = _nanmean([r["coherence"] for r in rows if r["start"] == name])
        lines.append(f"{name:<24}{'-':>9}{f'{mu:.1f} [{lo:.1f}, {hi:.1f}]':>42}{'':>14}{'':>10}"
                     f"{'':>11}{coh:>11.3f}")
    useful = useful_d = None
    eps_seen = sorted({r["epsilon"] for r in rows if r["start"] == "private spectral"})
    good, good_d = {}, {}
    for eps in eps_seen:
        sel = [r for r in rows if r["start"] == "private spectral" and r["epsilon"] == eps]
        mu, lo, hi = mean(lambda r: r in sel)
        nt = np.mean([r["n_noise_topics"] for r in sel])
        m2 = np.mean([r["m2_noise"] for r in sel])
        dist = np.mean([r["distance"] for r in sel])
        coh = _nanmean([r["coherence"] for r in sel])
        lines.append(f"{'private spectral':<24}{eps:>9g}{f'{mu:.1f} [{lo:.1f}, {hi:.1f}]':>42}"
                     f"{nt:>14.1f}{m2:>10.1f}{dist:>11.3f}{coh:>11.3f}")
        good[eps], good_d[eps] = mu <= rnd, dist <= 1.0
    # the smallest epsilon from which the criterion holds at every larger epsilon of the grid
    for eps in reversed(eps_seen):
        if good[eps]:
            useful = eps
        else:
            break
    for eps in reversed([e for e in eps_seen if math.isfinite(e)]):
        if good_d[eps]:
            useful_d = eps
        else:
            break
    return lines, useful, useful_d


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", nargs="+", default=["kos", "nips"])
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--vb-iter", type=int, default=5)
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--n-words", type=int, default=200)
    args = ap.parse_args(argv)
    from latentkit.datasets import load_kos, load_nips

    for name in args.datasets:
        X = (load_kos if name == "kos" else load_nips)().data.tocsr()
        t = time.perf_counter()
        rows = utility_curve(X, k=args.k, seeds=tuple(range(args.seeds)),
                             n_vb_iter=args.vb_iter, n_words=args.n_words)
        lines, useful, useful_d = summarise(rows)
        print(f"\n{name}: {X.shape[0]} documents x {X.shape[1]} words, k={args.k}, "
              f"{args.vb_iter} VB iterations from each start, {args.seeds} seeds, "
              f"n_words={args.n_words}, delta=1e-5 ({time.perf_counter() - t:.0f} s)")
        print("\n".join(lines))
        print(f"private start useful (mean perplexity <= median random start at this and every "
              f"larger epsilon) from epsilon = "
              f"{useful if useful is not None else 'none of the grid'}")
        print(f"private topics useful (matched l1 distance to the epsilon=inf topics <= 1 at this "
              f"and every larger finite epsilon) from "
              f"epsilon = {useful_d if useful_d is not None else 'none of the finite grid'}")


if __name__ == "__main__":
    main()
