"""Jain & Oh (2014) recovery experiment: recovery rate of tensor completion vs sample rate.

n = 50, r = 3, orthonormal factors, unit weights; each of the n^3 entries is observed
independently with probability p = alpha sqrt(r) ln(n) / n^(3/2). Exact recovery: normalised
error ||T - T_hat||_F / ||T||_F < 1e-7. Ours: latentkit.spectral.complete_tensor (RTPM
initialisation on (1/p) P_Omega(T) + alternating minimisation over observed entries).
Peer, on identical inputs: TensorLy parafac with a mask (EM-style imputation, SVD init),
rank 3, 100 iterations, tol 1e-12, on the first ``n_peer`` instances per alpha (it is much
slower). Prints the rate per alpha for both and the per-instance time ratio.

Run:  python benchmarks/bench_completion.py [n_instances] [n_peer]
"""

import sys
import time
import warnings

import numpy as np

from latentkit.spectral import complete_tensor

N, RANK = 50, 3


def instance(p, seed):
    rng = np.random.default_rng(seed)
    U, _ = np.linalg.qr(rng.standard_normal((N, RANK)))
    T = np.einsum("ir,jr,kr->ijk", U, U, U)
    mask = rng.random(N ** 3) < p
    idx = np.stack(np.unravel_index(np.flatnonzero(mask), (N, N, N)), 1)
    return T, idx, T[idx[:, 0], idx[:, 1], idx[:, 2]], mask.reshape(N, N, N)


def main(n_instances=20, n_peer=3):
    try:
        import tensorly as tl
        from tensorly.decomposition import parafac
    except ImportError:  # pragma: no cover
        parafac = None
    print(f"n={N} r={RANK}, {n_instances} instances per alpha; exact = rel. error < 1e-7")
    print(f"{'alpha':>6} {'p':>7} | {'ours':>5} {'s/inst':>6} | {'tensorly':>8} {'s/inst':>6} | "
          f"{'time ratio':>10}")
    for alpha in (0.5, 0.75, 1.0, 1.5, 2.0, 3.0):
        p = alpha * np.sqrt(RANK) * np.log(N) / N ** 1.5
        ok = ok_tl = 0
        t_ours = t_tl = 0.0
        for s in range(n_instances):
            T, idx, v, mask = instance(p, 1000 + s)
            t0 = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                res = complete_tensor(idx, v, N, RANK, symmetric=False, random_state=s)
            t_ours += time.perf_counter() - t0
            ok += np.linalg.norm(res.to_dense() - T) / np.linalg.norm(T) < 1e-7
            if parafac is not None and s < n_peer:
                t0 = time.perf_counter()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    cp = parafac(tl.tensor(T * mask), RANK, mask=tl.tensor(mask.astype(float)),
                                 n_iter_max=100, tol=1e-12, init="svd", random_state=s)
                t_tl += time.perf_counter() - t0
                That = tl.cp_to_tensor(cp)
                ok_tl += np.linalg.norm(That - T) / np.linalg.norm(T) < 1e-7
        m = min(n_peer, n_instances)
        print(f"{alpha:6.2f} {p:7.4f} | {ok / n_instances:5.2f} {t_ours / n_instances:6.2f} | "
              f"{ok_tl / m:8.2f} {t_tl / m:6.2f} | {(t_tl / m) / (t_ours / n_instances):10.1f}")


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]))
