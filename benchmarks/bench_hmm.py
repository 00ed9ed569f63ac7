"""Baum-Welch speed: latentkit's CategoricalHMM / GaussianHMM against hmmlearn 0.3.

Same data, same starting parameters, same number of iterations, in one process; prints the
time per iteration of each, their ratio, and the final log-likelihoods (which must agree).

Problem (issue 3): 10 states, 200 sequences of length 1,000;
  * categorical: 50 symbols, 20 iterations, vs hmmlearn ``implementation='scaling'`` and ``'log'``;
  * Gaussian: 4 dimensions, diagonal covariances, 20 iterations, vs hmmlearn ``'scaling'``.

Run:  python benchmarks/bench_hmm.py [--n-iter 20] [--repeats 3]

latentkit runs its forward-backward kernel on numba's thread count of Python threads (ranges
of sequences, or of lockstep groups of four); the 1-thread line gives the single-core
comparison (hmmlearn is single-threaded). The "CPU time" line compares CPU seconds of one-thread runs (BLAS on one
thread too), alternated: on a loaded machine it is the ratio of the work done, where wall
times also count other processes' turns (a 2-thread fit waits at every parallel region for
its slower thread, so it suffers most from load).
"""

import argparse
import os
import sys
import time
import warnings

import numba
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import _bounds  # noqa: E402  (benchmarks/_bounds.py: the shared bound of every benchmark)


def print_bound(model, frame, lengths, label):
    """Forward-backward throughput on one thread at the fitted parameters against its bound
    (``frame``: the emission likelihoods, (n_samples, K), computed here from the public fitted
    attributes and scaled per row as the fit scales them)."""
    frame = frame / frame.max(axis=1, keepdims=True)
    rate = _bounds.hmm_rate(frame, model.startprob_, model.transmat_, lengths)
    print("  " + _bounds.kernel_fraction("hmm", f"{label} forward-backward (fraction of the "
                                         f"bound)", rate, "step-state-pair updates"))


def _sample_categorical(rng, K, M, n_seq, T):
    A = rng.dirichlet(np.full(K, 0.3), size=K) * 0.5 + 0.5 * np.eye(K)
    B = rng.dirichlet(np.full(M, 0.3), size=K)
    pi = rng.dirichlet(np.ones(K))
    z = np.empty((n_seq, T), dtype=np.int64)
    cdfA = np.cumsum(A, axis=1)
    z[:, 0] = rng.choice(K, size=n_seq, p=pi)
    u = rng.random((n_seq, T))
    for t in range(1, T):
        z[:, t] = np.minimum((u[:, t, None] > cdfA[z[:, t - 1]]).sum(axis=1), K - 1)
    cdfB = np.cumsum(B, axis=1)
    v = rng.random((n_seq, T))
    x = np.minimum((v[..., None] > cdfB[z]).sum(axis=-1), M - 1)
    return x.reshape(-1, 1), z.reshape(-1)


def _time(fn, repeats, clock=time.perf_counter):
    best = np.inf
    for _ in range(repeats):
        t = clock()
        out = fn()
        best = min(best, clock() - t)
    return best, out


def _cpu_ratio(ours, theirs, repeats, n_iter):
    """Best-of-``repeats`` CPU seconds (``time.process_time``) of our fit on one numba thread
    and of hmmlearn's, BLAS on one thread for both, alternated: on a loaded machine a
    single-threaded process's CPU time is the work it did, where its wall time also counts
    the time the scheduler gave to other processes. Returns (ours, theirs) ms per iteration."""
    from threadpoolctl import threadpool_limits

    old = numba.get_num_threads()
    numba.set_num_threads(1)
    t_o, t_h = np.inf, np.inf
    try:
        with threadpool_limits(limits=1, user_api="blas"):
            for _ in range(repeats):
                t_o = min(t_o, _time(ours, 1, time.process_time)[0])
                t_h = min(t_h, _time(theirs, 1, time.process_time)[0])
    finally:
        numba.set_num_threads(old)
    return t_o / n_iter * 1e3, t_h / n_iter * 1e3


def bench_categorical(n_iter, repeats, rng):
    from hmmlearn import hmm

    from latentkit.sequence import CategoricalHMM

    K, M, n_seq, T = 10, 50, 200, 1000
    X, _ = _sample_categorical(rng, K, M, n_seq, T)
    lengths = np.full(n_seq, T)
    sp = rng.dirichlet(np.ones(K))
    A = rng.dirichlet(np.ones(K), size=K)
    B = rng.dirichlet(np.ones(M), size=K)
    init = dict(startprob=sp, transmat=A, emissionprob=B)

    def ours():
        return CategoricalHMM(K, n_features=M, init=init, tol=0, max_iter=n_iter).fit(
            X, lengths=lengths)

    def theirs(impl):
        def run():
            h = hmm.CategoricalHMM(K, n_features=M, n_iter=n_iter, tol=-np.inf, init_params="",
                                   implementation=impl)
            h.startprob_, h.transmat_, h.emissionprob_ = sp.copy(), A.copy(), B.copy()
            return h.fit(X, lengths)
        return run

    CategoricalHMM(K, n_features=M, init=init, tol=0, max_iter=1).fit(X[:5000], lengths=[5000])
    CategoricalHMM(K, n_features=M, init=init, tol=0, max_iter=1).fit(X, lengths=lengths)  # warm
    t_ours, m = _time(ours, repeats)
    old = numba.get_num_threads()
    numba.set_num_threads(1)
    t_ours1, m1 = _time(ours, repeats)
    numba.set_num_threads(old)
    ll_ours = m.score(X, lengths) * len(X)
    print(f"CategoricalHMM  K={K} M={M} {n_seq} x {T} steps, {n_iter} iterations")
    print(f"  latentkit ({old} threads)  {t_ours / n_iter * 1e3:8.1f} ms/iter   "
          f"final log L {ll_ours:.6f}")
    print(f"  latentkit (1 thread)    {t_ours1 / n_iter * 1e3:8.1f} ms/iter   "
          f"final log L {m1.score(X, lengths) * len(X):.6f}")
    for impl in ("scaling", "log"):
        t_h, h = _time(theirs(impl), 1 if impl == "log" else repeats)
        ll_h = h.score(X, lengths)
        print(f"  hmmlearn '{impl}'{' ' * (8 - len(impl))}     {t_h / n_iter * 1e3:8.1f} ms/iter   "
              f"final log L {ll_h:.6f}   (rel. diff {abs(ll_h - ll_ours) / abs(ll_h):.1e})")
        print(f"    ratio hmmlearn/latentkit: {t_h / t_ours:5.2f}x ({old} threads), "
              f"{t_h / t_ours1:5.2f}x (1 thread)")
    c_o, c_h = _cpu_ratio(ours, theirs("scaling"), repeats, n_iter)
    print(f"  CPU time, one thread each, alternated: latentkit {c_o:.1f} ms/iter, hmmlearn "
          f"'scaling' {c_h:.1f} ms/iter: ratio {c_h / c_o:5.2f}x")
    print_bound(m, np.asarray(m.emissionprob_).T[X[:, 0]], lengths, "CategoricalHMM")


def bench_gaussian(n_iter, repeats, rng):
    from hmmlearn import hmm

    from latentkit.sequence import GaussianHMM

    K, D, n_seq, T = 10, 4, 200, 1000
    _, z = _sample_categorical(rng, K, 2, n_seq, T)
    centers = rng.normal(scale=3.0, size=(K, D))
    X = centers[z] + rng.normal(size=(len(z), D))
    lengths = np.full(n_seq, T)
    sp = rng.dirichlet(np.ones(K))
    A = rng.dirichlet(np.ones(K), size=K)
    means = X[rng.choice(len(X), K, replace=False)]
    covars = np.tile(X.var(axis=0), (K, 1))
    init = dict(startprob=sp, transmat=A, means=means, covars=covars)

    def ours():
        return GaussianHMM(K, "diag", reg_covar=0.0, init=init, tol=0, max_iter=n_iter).fit(
            X, lengths=lengths)

    def theirs():
        h = hmm.GaussianHMM(K, "diag", n_iter=n_iter, tol=-np.inf, init_params="",
                            covars_prior=0.0, implementation="scaling")
        h.startprob_, h.transmat_, h.means_ = sp.copy(), A.copy(), means.copy()
        h.covars_ = covars.copy()
        return h.fit(X, lengths)

    GaussianHMM(K, "diag", reg_covar=0.0, init=init, tol=0, max_iter=1).fit(X, lengths=lengths)
    t_ours, m = _time(ours, repeats)
    old = numba.get_num_threads()
    numba.set_num_threads(1)
    t_ours1, _ = _time(ours, repeats)
    numba.set_num_threads(old)
    t_h, h = _time(theirs, repeats)
    ll_ours, ll_h = m.score(X, lengths) * len(X), h.score(X, lengths)
    print(f"GaussianHMM diag  K={K} D={D} {n_seq} x {T} steps, {n_iter} iterations")
    print(f"  latentkit ({old} threads)  {t_ours / n_iter * 1e3:8.1f} ms/iter   "
          f"final log L {ll_ours:.6f}")
    print(f"  latentkit (1 thread)    {t_ours1 / n_iter * 1e3:8.1f} ms/iter")
    print(f"  hmmlearn 'scaling'      {t_h / n_iter * 1e3:8.1f} ms/iter   final log L "
          f"{ll_h:.6f}   (rel. diff {abs(ll_h - ll_ours) / abs(ll_h):.1e})")
    print(f"    ratio hmmlearn/latentkit: {t_h / t_ours:5.2f}x ({old} threads), "
          f"{t_h / t_ours1:5.2f}x (1 thread)")
    c_o, c_h = _cpu_ratio(ours, theirs, repeats, n_iter)
    print(f"  CPU time, one thread each, alternated: latentkit {c_o:.1f} ms/iter, hmmlearn "
          f"'scaling' {c_h:.1f} ms/iter: ratio {c_h / c_o:5.2f}x")
    var = np.asarray(m.covars_).reshape(K, -1)[:, :D] if np.ndim(m.covars_) == 2 else \
        np.stack([np.diag(c) for c in m.covars_])
    logf = -0.5 * (((X[:, None, :] - m.means_[None]) ** 2 / var[None]).sum(-1)
                   + np.log(2 * np.pi * var).sum(-1)[None])
    print_bound(m, np.exp(logf - logf.max(axis=1, keepdims=True)), lengths, "GaussianHMM")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n-iter", type=int, default=20)
    p.add_argument("--repeats", type=int, default=3, help="best of this many timed runs")
    p.add_argument("--only", choices=["categorical", "gaussian"], default=None)
    args = p.parse_args()
    warnings.simplefilter("ignore")
    print(_bounds.machine_info())
    rng = np.random.default_rng(0)
    if args.only != "gaussian":
        bench_categorical(args.n_iter, args.repeats, rng)
        print()
    if args.only != "categorical":
        bench_gaussian(args.n_iter, args.repeats, rng)


if __name__ == "__main__":
    main()
