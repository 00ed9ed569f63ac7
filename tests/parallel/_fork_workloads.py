"""Run by ``test_fork.py`` in a subprocess: fits a GMM and an LDA in the parent (numba's
threads start), then runs the same fits in worker processes started one way (``argv[1]``):
``fork`` or ``spawn`` (``multiprocessing.Pool``), ``loky`` or ``multiprocessing``
(``joblib.Parallel``), or ``threads`` (Python threads at once), each of the comma-separated
starts in ``argv[1]`` in turn. Prints JSON: the threading layer numba chose and, per start,
per worker result, whether it equals the parent's fit to the bit, or "timed out" when a
worker died or hung (each wait has a timeout, so nothing hangs)."""

import json
import multiprocessing
import sys
import threading

import numpy as np

WAIT = 60  # seconds for one pool's results (a worker that died never answers)


def fit(seed):
    """The fitted arrays of a GMM and an LDA on data drawn with ``seed`` (parallel kernels)."""
    from latentkit.mixture import GaussianMixture
    from latentkit.topic import LatentDirichletAllocation

    rng = np.random.default_rng(seed)
    X = np.vstack([rng.normal(size=(300, 3)), rng.normal(size=(300, 3)) + 3.0])
    counts = rng.poisson(0.7, size=(120, 40)).astype(np.float64)
    g = GaussianMixture(2, max_iter=10, tol=0.0, random_state=0).fit(X)
    lda = LatentDirichletAllocation(3, max_iter=8, tol=0.0, random_state=0,
                                    init="random").fit(counts)
    return [g.means_, g.covariances_, lda.components_]


def same(a, b):
    return all(np.array_equal(x, y) for x, y in zip(a, b))


def run(how, seeds):
    """Fit ``seeds`` in workers started by ``how``; a worker that did not finish is None."""
    if how in ("fork", "spawn"):
        with multiprocessing.get_context(how).Pool(2) as pool:
            got = pool.map_async(fit, seeds).get(WAIT)
    elif how in ("loky", "multiprocessing"):
        import joblib

        with joblib.Parallel(n_jobs=2, backend=how, timeout=WAIT) as par:
            got = par(joblib.delayed(fit)(s) for s in seeds)
    elif how == "threads":
        got = [None] * len(seeds)
        start = threading.Barrier(len(seeds))

        def run(i):
            start.wait(WAIT)
            got[i] = fit(seeds[i])

        threads = [threading.Thread(target=run, args=(i,), daemon=True)
                   for i in range(len(seeds))]
        for t in threads:
            t.start()
        for t in threads:
            t.join(WAIT)
    else:
        raise SystemExit(f"unknown start {how!r}")
    return got


def main(starts):
    import numba

    from latentkit._kernels._jit import THREADING_LAYER_SETUP

    seeds = [0, 1]
    parent = [fit(s) for s in seeds]   # the parent runs parallel kernels before any worker
    out = {"layer": numba.threading_layer(), "setup": THREADING_LAYER_SETUP}
    for how in starts:
        try:
            got = run(how, seeds)
        except (multiprocessing.TimeoutError, TimeoutError) as exc:  # died or hung
            out[how] = f"timed out: {type(exc).__name__}"
            continue
        out[how] = [r is not None and same(r, p) for r, p in zip(got, parent)]
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1].split(","))
