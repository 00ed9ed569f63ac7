"""InputOutputHMM against the ``IOHMM`` package (Mogensen, PyPI ``IOHMM`` 0.0.7, pandas +
statsmodels + scikit-learn, log-space NumPy forward-backward) on the same simulated data.

1. **E-step at identical parameters**: our fitted transition matrices, start distribution and
   Gaussian log-densities fed to ``IOHMM.forward_backward.forward_backward`` (the same
   convention: the transition into row ``t`` reads the inputs of row ``t``): the
   log-likelihood and the state posteriors must agree to rounding.
2. **Fits**: ``UnSupervisedIOHMM`` with ``CrossEntropyMNL`` transitions and start (lbfgs, no
   penalty), ``OLS`` intercept-only emissions (a Gaussian per state) against
   ``InputOutputHMM(coefs_prior=0)`` (maximum likelihood, the same model), both stopped at a
   total log-likelihood change of 1e-6 nats; the final log-likelihood, the iterations and the
   time per iteration (one process, the two alternated).

The peer is a benchmark-only dependency: ``pip install --no-deps --target DIR IOHMM future
statsmodels patsy`` and ``PYTHONPATH=DIR``. Run: ``python benchmarks/bench_iohmm.py [--T 2000
--seeds 3]``.
"""

import argparse
import time
import warnings

import numpy as np
from scipy.special import logsumexp

import latentkit as lk


def simulate(T, rng):
    W = np.array([[0.0, 1.5], [-2.0, 0.0]])
    b = np.array([[0.0, -1.5], [-1.0, 0.0]])
    u = rng.normal(size=T)
    z = np.zeros(T, dtype=int)
    for t in range(1, T):
        logits = W[z[t - 1]] * u[t] + b[z[t - 1]]
        z[t] = rng.choice(2, p=np.exp(logits - logsumexp(logits)))
    x = rng.normal(np.where(z == 1, 2.0, 0.0), 1.0)
    return x, u


def peer_fit(x, u, seed):
    import pandas as pd
    from IOHMM import OLS, CrossEntropyMNL, UnSupervisedIOHMM

    np.random.seed(seed)
    df = pd.DataFrame({"x": x, "u": u})
    m = UnSupervisedIOHMM(num_states=2, max_EM_iter=1000, EM_tol=1e-6)
    m.set_models(model_emissions=[OLS()], model_transition=CrossEntropyMNL(solver="lbfgs"),
                 model_initial=CrossEntropyMNL(solver="lbfgs"))
    m.set_inputs(covariates_initial=[], covariates_transition=["u"],
                 covariates_emissions=[[]])
    m.set_outputs([["x"]])
    m.set_data([df])
    n_iter = 0
    prev = -np.inf
    t0 = time.perf_counter()
    for n_iter in range(1, 1001):  # train() without its logging, counting the iterations
        m.M_step()
        m.E_step()
        if abs(m.log_likelihood - prev) < 1e-6:
            break
        prev = m.log_likelihood
    return float(m.log_likelihood), n_iter, time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    np.Infinity = np.inf  # IOHMM 0.0.7 predates NumPy 2 (np.Infinity was removed)
    ap.add_argument("--T", type=int, default=2000)
    ap.add_argument("--seeds", type=int, default=3)
    args = ap.parse_args()
    from IOHMM.forward_backward import forward_backward

    warnings.simplefilter("ignore")
    for seed in range(args.seeds):
        x, u = simulate(args.T, np.random.default_rng(seed))
        t0 = time.perf_counter()
        ours = lk.InputOutputHMM(2, coefs_prior=0.0, tol=1e-6 / args.T, random_state=seed)
        ours.fit(x[:, None], inputs=u[:, None])
        t_ours = time.perf_counter() - t0
        ll_ours = float(ours.score_sequences(x[:, None], inputs=u[:, None])[0])
        # 1. the peer's forward-backward at our parameters
        log_A = np.log(ours.transition_matrices(u[:, None]))[1:]
        var = ours.covariances_[:, 0]
        log_b = -0.5 * ((x[:, None] - ours.means_[:, 0]) ** 2 / var + np.log(2 * np.pi * var))
        log_gamma, _, ll_peer_e = forward_backward(np.log(ours.startprob_), log_A, log_b)
        gamma_gap = np.abs(np.exp(log_gamma) - ours.predict_proba(x[:, None],
                                                                  inputs=u[:, None])).max()
        # 2. the peer's own fit
        ll_peer, it_peer, t_peer = peer_fit(x, u, seed)
        print(f"seed {seed}: E-step at our parameters: log-lik ours {ll_ours:.10f} peer "
              f"{ll_peer_e:.10f} (gap {abs(ll_ours - ll_peer_e):.2e}), posteriors max gap "
              f"{gamma_gap:.2e}")
        print(f"  fits: final log-lik ours {ll_ours:.6f} ({ours.n_iter_} it, "
              f"{1e3 * t_ours / ours.n_iter_:.2f} ms/it) | IOHMM {ll_peer:.6f} ({it_peer} it, "
              f"{1e3 * t_peer / it_peer:.2f} ms/it) | per-iteration ratio "
              f"{(t_peer / it_peer) / (t_ours / ours.n_iter_):.1f}x")


if __name__ == "__main__":
    main()
