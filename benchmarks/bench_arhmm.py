"""AutoregressiveHMM against dynamax's LinearAutoregressiveHMM on identical inputs and
starting values: the EM log-probability trace (log-likelihood plus the Dirichlet(1.1) log
priors that dynamax puts on the initial and transition probabilities) and the time per
iteration, in one process, alternating the two.

dynamax (JAX) is a benchmark-only dependency (``pip install ".[bench]"`` or ``pip install
dynamax``), run in float64 (``jax_enable_x64``). Settings matched: ``startprob_prior =
transmat_prior = 1.1`` (dynamax's default concentrations, MAP), no emission prior and
``reg_covar=0`` (dynamax's emission M-step is plain weighted least squares), zero lags before
the start (dynamax's ``compute_inputs``). Timing: dynamax's ``fit_em`` compiles its EM step at
every call (about a third of a second here), so the time per iteration is the difference of a
fit of ``2 * iters`` and one of ``iters`` iterations, divided by ``iters``, for both libraries
(fixed costs cancel: compilation, validation, start); ``--repeats`` alternating rounds, medians.

Run: ``python benchmarks/bench_arhmm.py [--T 5000 --K 3 --D 2 --lags 2 --iters 50]``.
"""

import argparse
import time

import numpy as np

import latentkit as lk


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--T", type=int, default=5000)
    ap.add_argument("--K", type=int, default=3)
    ap.add_argument("--D", type=int, default=2)
    ap.add_argument("--lags", type=int, default=2)
    ap.add_argument("--iters", type=int, default=50)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()

    import jax
    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
    from dynamax.hidden_markov_model import LinearAutoregressiveHMM

    K, D, L, T = args.K, args.D, args.lags, args.T
    rng = np.random.default_rng(0)
    # data from a random AR-HMM (ours, set by hand)
    truth = lk.AutoregressiveHMM(K, n_lags=L)
    truth.startprob_ = np.full(K, 1.0 / K)
    truth.transmat_ = 0.9 * np.eye(K) + 0.1 / K
    truth.intercepts_ = rng.normal(size=(K, D))
    truth.coefs_ = rng.normal(scale=0.3 / L, size=(K, D, L * D))
    truth.covariances_ = np.array([np.eye(D) * s for s in rng.uniform(0.3, 1.0, K)])
    X, _ = truth.sample(T, random_state=1)
    # identical starting values
    start = {"startprob": rng.dirichlet(np.ones(K)), "transmat": rng.dirichlet(np.ones(K), K),
             "intercepts": rng.normal(size=(K, D)),
             "coefs": rng.normal(scale=0.1, size=(K, D, L * D)),
             "covariances": np.array([np.eye(D)] * K)}

    def ours(n_iter):
        m = lk.AutoregressiveHMM(K, n_lags=L, startprob_prior=1.1, transmat_prior=1.1,
                                 reg_covar=0.0, init=start, max_iter=n_iter, tol=0)
        t0 = time.perf_counter()
        m.fit(X)
        return time.perf_counter() - t0, m.lower_bounds_ * T

    hmm = LinearAutoregressiveHMM(K, D, num_lags=L)
    params, props = hmm.initialize(
        initial_probs=jnp.array(start["startprob"]),
        transition_matrix=jnp.array(start["transmat"]),
        emission_weights=jnp.array(start["coefs"]), emission_biases=jnp.array(start["intercepts"]),
        emission_covariances=jnp.array(start["covariances"]))
    inputs = hmm.compute_inputs(jnp.array(X))

    def theirs(n_iter):
        t0 = time.perf_counter()
        _, lps = hmm.fit_em(params, props, jnp.array(X), inputs=inputs, num_iters=n_iter,
                            verbose=False)
        lps = np.asarray(jax.block_until_ready(lps))
        return time.perf_counter() - t0, lps

    n = args.iters
    theirs(n)  # first-call overheads
    ours(n)
    t_ours, t_theirs = [], []
    for _ in range(args.repeats):
        a1, trace_ours = ours(n)
        b1, trace_theirs = theirs(n)
        a2, _ = ours(2 * n)
        b2, _ = theirs(2 * n)
        t_ours.append((a2 - a1) / n)
        t_theirs.append((b2 - b1) / n)
    diff = np.abs(trace_ours - trace_theirs) / np.maximum(1.0, np.abs(trace_theirs))
    print(f"T={T} K={K} D={D} lags={L}, {args.iters} EM iterations")
    print(f"log-probability trace: first {trace_ours[0]:.6f} (ours) {trace_theirs[0]:.6f} "
          f"(dynamax); last {trace_ours[-1]:.6f} / {trace_theirs[-1]:.6f}")
    print(f"max relative difference over the trace: {diff.max():.2e}")
    per_ours = np.median(t_ours)
    per_theirs = np.median(t_theirs)
    print(f"per iteration (median of {args.repeats}): ours {1e3 * per_ours:.2f} ms, dynamax "
          f"{1e3 * per_theirs:.2f} ms, dynamax / ours = {per_theirs / per_ours:.2f}")


if __name__ == "__main__":
    main()
