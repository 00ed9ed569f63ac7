"""Peak memory and time of the HSMM forward-backward on one long sequence, unblocked (six
``(T, K)`` work arrays) against the checkpointed kernels of
:mod:`latentkit._kernels.hsmm_blocked`, each in a fresh process (the peak resident set size
grown during the call; numba's allocations are not seen by ``tracemalloc``, so the resident
size is the measure). The inputs and outputs (``logb``, ``gamma``: ``(T, K)`` each) are
allocated before the measurement.

Run: ``python benchmarks/bench_hsmm_memory.py [--T 1000000 --K 3 --D 50]``.
"""

import argparse
import json
import resource
import subprocess
import sys
import time

import numpy as np


def run(mode, T, K, D):
    from latentkit._kernels import hsmm_blocked as hsmm

    if mode == "unblocked":
        hsmm.HSMM_BLOCKED_MIN_LENGTH = 2 * T
    rng = np.random.default_rng(0)
    logb = rng.normal(size=(T, K))
    log_pi = np.log(np.full(K, 1.0 / K))
    A = np.full((K, K), 1.0 / (K - 1))
    np.fill_diagonal(A, 0.0)
    with np.errstate(divide="ignore"):
        log_A = np.log(A)
    p = np.full((K, D), 1.0 / D)
    log_S = np.log(np.cumsum(p[:, ::-1], axis=1)[:, ::-1])
    out = [np.full((T, K), 0.5), np.full(T, 0.5), np.zeros((1, K)), np.zeros((1, K, K)),
           np.zeros((1, K, D)), np.zeros(1)]  # (written, so their pages are resident)
    offsets = np.array([0, T], dtype=np.int64)
    small = np.array([0, 8], dtype=np.int64)  # compile first, outside the measurement
    hsmm.hsmm_forward_backward_any(logb[:8], log_pi, log_A, np.log(p), log_S, small, True,
                               *[o[:8] if o.shape[0] == T else o for o in out])
    hsmm.hsmm_forward_backward_blocked(logb[:8], log_pi, log_A, np.log(p), log_S, small,
                                               4, *[o[:8] if o.shape[0] == T else o
                                                    for o in out])
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t0 = time.perf_counter()
    hsmm.hsmm_forward_backward_any(logb, log_pi, log_A, np.log(p), log_S, offsets, True, *out)
    seconds = time.perf_counter() - t0
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    return {"mode": mode, "peak_growth_MB": grown / 1024, "seconds": seconds,
            "loglik": float(out[5][0]), "gamma_sum": float(out[0].sum())}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--T", type=int, default=1_000_000)
    ap.add_argument("--K", type=int, default=3)
    ap.add_argument("--D", type=int, default=50)
    ap.add_argument("--mode", default=None)
    a = ap.parse_args()
    if a.mode:
        print(json.dumps(run(a.mode, a.T, a.K, a.D)))
        return
    print(f"T={a.T} K={a.K} D={a.D}; six (T, K) float64 arrays = "
          f"{6 * a.T * a.K * 8 / 2 ** 20:.0f} MB")
    for mode in ("unblocked", "blocked"):
        res = subprocess.run([sys.executable, __file__, "--mode", mode, "--T", str(a.T), "--K",
                              str(a.K), "--D", str(a.D)], capture_output=True, text=True,
                             check=True)
        print(res.stdout.strip())


if __name__ == "__main__":
    main()
