"""Utility of the differentially private tensor power method vs epsilon (Wang & Anandkumar 2016).

Orthogonal incoherent tensor, d = 100, k = 5 (cosine components, ||v||_inf^2 = 2/d,
lambda = 1000 * linspace(1, 2, 5)), delta = 1e-5, L = 5 restarts, R = 10 power steps
(K = 275 releases). Prints the median (over trials) error of the first extracted eigenvector
(distance to the nearest planted component) for: the private power method with the paper's
'advanced' calibration, with the Renyi-DP calibration, and input perturbation (Gaussian noise
added once to T, then a noiseless robust tensor power method) at the same (epsilon, delta).

Run:  python benchmarks/bench_private.py [n_trials]
"""

import sys
import time

import numpy as np

from latentkit.spectral import (PrivacyAccountant, input_perturbation_power,
                                private_tensor_power)

D, K, L, R, DELTA = 100, 5, 5, 10, 1e-5


class FactorTensor:
    def __init__(self, lam, V):
        self.lam, self.V, self.shape = lam, V, (V.shape[0],) * 3

    def contract(self, U):
        return self.V @ (self.lam[:, None] * (self.V.T @ U) ** 2)

    def evaluate(self, U):
        return (self.lam[:, None] * (self.V.T @ U) ** 3).sum(0)


def main(n_trials=15):
    t = np.arange(D)
    V = np.stack([np.sqrt(2 / D) * np.cos(2 * np.pi * (f + 1) * t / D) for f in range(K)], 1)
    lam = 1000.0 * np.linspace(1, 2, K)
    T = np.einsum("r,ir,jr,kr->ijk", lam, V, V, V)
    op = FactorTensor(lam, V)
    Kr = K * L * (R + 1)

    def err(F):
        v = F[:, 0]
        return min(min(np.linalg.norm(v - V[:, j]), np.linalg.norm(v + V[:, j])) for j in range(K))

    print(f"d={D} k={K} L={L} R={R} K={Kr} releases, delta={DELTA}, {n_trials} trials")
    print(f"{'eps':>6} {'nu_adv':>9} {'nu_rdp':>9} {'sigma_in':>9} | {'err_adv':>8} "
          f"{'err_rdp':>8} {'err_input':>9} | {'rdp/adv':>7} {'rdp/input':>9} {'sec':>5}")
    for eps in (0.5, 1.0, 2.0, 4.0, 8.0, 16.0):
        t0 = time.perf_counter()
        e = {m: [] for m in ("advanced", "rdp", "input")}
        for s in range(n_trials):
            for m in ("advanced", "rdp"):
                e[m].append(err(private_tensor_power(op, K, eps, DELTA, n_restarts=L, n_iter=R,
                                                     accountant=m, random_state=s).factors))
            e["input"].append(err(input_perturbation_power(T, 1, eps, DELTA, n_restarts=L,
                                                           n_iter=R, random_state=s).factors))
        med = {m: float(np.median(v)) for m, v in e.items()}
        print(f"{eps:6.1f} {PrivacyAccountant.calibrate(eps, DELTA, Kr, 6.0, 'advanced'):9.1f} "
              f"{PrivacyAccountant.calibrate(eps, DELTA, Kr, 6.0, 'rdp'):9.1f} "
              f"{PrivacyAccountant.calibrate(eps, DELTA, 1, 6.0, 'rdp'):9.2f} | "
              f"{med['advanced']:8.4f} {med['rdp']:8.4f} {med['input']:9.4f} | "
              f"{med['rdp'] / med['advanced']:7.3f} {med['rdp'] / med['input']:9.3f} "
              f"{time.perf_counter() - t0:5.1f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 15)
