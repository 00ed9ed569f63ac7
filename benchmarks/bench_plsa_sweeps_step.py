"""Per-iteration time of ``PLSA(init='documents', doc_iter=5, doc_start='uniform')``: the
one-pass sweeps + E-step kernel against the two passes it replaced, in one process.

Protocol: KOS and NIPS (``bench_lda_curve.load_corpus``, the 90% training split), K = 20
(``-k``), numba's thread pool. Two fits of ``--iters`` iterations (``tol=0``), alternated
``--repeats`` times in the same process so that both see the same machine load:

* ``one pass``: the fit as shipped (:func:`latentkit.topic._plsa_sweeps.sweeps_e_step_stats`,
  each document swept ``doc_iter - 1`` times and its E-step statistics accumulated at once);
* ``two passes``: the same model with its E-step replaced by the previous path, the sweep
  kernel (:func:`latentkit.topic._plsa_sweeps.doc_sweeps`) then the plain E-step
  (:func:`latentkit.topic._plsa.plsa_e_step_stats`).

Prints the median seconds per iteration of each, their ratio, the largest difference of the
fitted P(w|z) (rounding only) and ``uptime``. Timing on a shared machine is noisy: compare the
ratio, not the seconds.

Run:

    python benchmarks/bench_plsa_sweeps_step.py
    python benchmarks/bench_plsa_sweeps_step.py --corpora nips --iters 10 --repeats 7
"""

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # run from anywhere
from bench_lda_curve import _uptime, load_corpus  # noqa: E402

from latentkit.topic import PLSA  # noqa: E402
from latentkit.topic._plsa import PLSAStats, plsa_e_step_stats  # noqa: E402
from latentkit.topic._plsa_sweeps import doc_sweeps  # noqa: E402


class TwoPassPLSA(PLSA):
    """PLSA whose sweeps path runs the sweep kernel, then the plain E-step (the old path)."""

    def _e_step(self, data):
        D = data.shape[0]
        factor = doc_sweeps(data.X, self._doc_factor(data), self.components_, self.beta,
                            self.doc_iter - 1, self.doc_start)
        doc, tw, ll, fe = plsa_e_step_stats(data.X, factor, self.components_, self.beta)
        full = np.zeros((data.n_total, self.n_components))
        full[data.offset:data.offset + D] = doc
        return PLSAStats(n=float(D), data_term=float(fe.sum()), topic_word=tw, doc_topic=full,
                         n_tokens=self._n_scorable(data.X, warn=False))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpora", nargs="+", default=["kos", "nips"])
    ap.add_argument("-k", type=int, default=20)
    ap.add_argument("--iters", type=int, default=10)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args(argv)
    kw = dict(init="documents", doc_iter=5, doc_start="uniform", random_state=0, tol=0.0)
    print(_uptime())
    for name in args.corpora:
        X, _ = load_corpus(name)
        times = {"one pass": [], "two passes": []}
        fits = {}
        for cls in (PLSA, TwoPassPLSA):  # compile / load the kernels
            cls(args.k, max_iter=2, **kw).fit(X)
        for _ in range(args.repeats):
            for label, cls in (("one pass", PLSA), ("two passes", TwoPassPLSA)):
                t = time.perf_counter()
                fits[label] = cls(args.k, max_iter=args.iters, **kw).fit(X)
                times[label].append((time.perf_counter() - t) / args.iters)
        one, two = (float(np.median(times[k])) for k in ("one pass", "two passes"))
        diff = np.max(np.abs(fits["one pass"].components_ - fits["two passes"].components_))
        print(f"{name} {X.shape}: s/iteration one pass {one:.4f}, two passes {two:.4f}, "
              f"ratio {one / two:.2f}; max |P(w|z) difference| {diff:.1e}")
    print(_uptime())


if __name__ == "__main__":
    main()
