"""Spectral module benchmarks (one process, identical inputs).

1. robust_tensor_power vs TensorLy's symmetric_parafac_power_iteration on dense noisy
   orthogonal tensors (d = 50, 100, 200; k = 10): time and recovery error of each.
2. The implicit CSR-document contraction on KOS (k = 20, L = 20) against this machine's GEMM
   bound (flop rate of a 2000 x 2000 float64 matmul measured here).
3. SpectralLDA on KOS, K = 20, whitening included: wall time.
4. SpectralLDA topic error vs number of documents (1k, 10k, 100k; K=10, V=500, alpha_0=1).
5. online_tensor_power peak memory (tracemalloc) for 10^4 vs 10^6 streamed points.

Run:  python benchmarks/bench_spectral.py
"""

import time
import tracemalloc

import numpy as np


def vec_err(V, E):
    from latentkit.testing import match_components
    perm, _ = match_components(V.T, E.T, "abs_cos")
    E = E[:, perm]
    E = E * np.sign(np.sum(E * V, axis=0))
    return float(np.linalg.norm(E - V, axis=0).max())


def bench_tensorly():
    import tensorly as tl
    from tensorly.decomposition import symmetric_parafac_power_iteration
    from latentkit.spectral import robust_tensor_power
    print("\n1. dense RTPM vs TensorLy symmetric_parafac_power_iteration (n_repeat=10, n_iteration=10)")
    print(f"{'d':>4} {'t ours (s)':>10} {'t tensorly (s)':>14} {'speed-up':>9} {'err ours':>10} {'err tensorly':>12}")
    for d in (50, 100, 200):
        rng = np.random.default_rng(d)
        k = 10
        V = np.linalg.qr(rng.standard_normal((d, k)))[0]
        lam = rng.uniform(1.0, 2.0, k)
        T = np.einsum("i,ai,bi,ci->abc", lam, V, V, V)
        E = rng.standard_normal((d, d, d)) * (0.05 / d)
        E = sum(E.transpose(p) for p in [(0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)]) / 6
        T = T + E
        robust_tensor_power(T[:5, :5, :5], 2, random_state=0)  # warm-up
        t0 = time.perf_counter()
        res = robust_tensor_power(T, k, tol=1e-6, random_state=0)
        t1 = time.perf_counter()
        np.random.seed(0)  # TensorLy draws from the global state
        w, F = symmetric_parafac_power_iteration(tl.tensor(T), rank=k, n_repeat=10, n_iteration=10)
        t2 = time.perf_counter()
        e_ours, e_tl = vec_err(V, res.eigenvectors), vec_err(V, np.asarray(F))
        print(f"{d:>4} {t1 - t0:>10.3f} {t2 - t1:>14.3f} {(t2 - t1) / (t1 - t0):>8.1f}x "
              f"{e_ours:>10.2e} {e_tl:>12.2e}")


def bench_csr_kernel():
    from latentkit.datasets import load_kos
    from latentkit.spectral import LDAMoments, whiten
    X = load_kos()["data"]
    k, L = 20, 20
    mom = LDAMoments(X, 1.0)
    wh = whiten(mom.m2_operator(), k, random_state=0)
    T = mom.tensor(wh)
    U = np.random.default_rng(0).standard_normal((k, L))
    T.contract(U)  # compile / warm-up
    reps = 10
    t0 = time.perf_counter()
    for _ in range(reps):
        T._data_contract(U)
    t = (time.perf_counter() - t0) / reps
    nnz, D = mom.X.nnz, mom.X.shape[0]
    flops = nnz * (2 * k + 4 * k * L + 4 * k * L) + D * (2 * k * L + 2 * k * L)
    n = 2000
    A = np.random.default_rng(1).standard_normal((n, n))
    A @ A
    t0 = time.perf_counter()
    for _ in range(3):
        A @ A
    gemm = 2 * n ** 3 / ((time.perf_counter() - t0) / 3)
    print(f"\n2. implicit CSR contraction on KOS (nnz={nnz}, D={D}, k={k}, L={L}): {t * 1e3:.1f} ms "
          f"per call, {flops / t / 1e9:.2f} GFLOP/s; GEMM bound (2000^3 dgemm, all threads) "
          f"{gemm / 1e9:.2f} GFLOP/s -> {flops / t / gemm:.0%} of the GEMM bound")
    print("   flop count per call: nnz (2k [p] + 4kL [w_v.u, coef] + 4kL [acc update]) + "
          "D (2kL [p.u] + 2kL [p update])")


def bench_lda_kos():
    from latentkit.datasets import load_kos
    from latentkit.spectral import SpectralLDA
    X = load_kos()["data"]
    SpectralLDA(3, random_state=0).fit(X[:200])  # warm-up
    t0 = time.perf_counter()
    est = SpectralLDA(20, random_state=0).fit(X)
    t = time.perf_counter() - t0
    print(f"\n3. SpectralLDA on KOS (3430 x 6906), K=20, randomized whitening included: {t:.2f} s; "
          f"sum alpha = {est.doc_topic_prior_.sum():.3f}")
    vocab = load_kos()["vocabulary"]
    for i in range(3):
        print("   topic", i, " ".join(vocab[j] for j in np.argsort(-est.components_[i])[:8]))


def bench_lda_rate():
    from latentkit.datasets import make_lda_corpus
    from latentkit.spectral import SpectralLDA
    from latentkit.testing import match_components
    print("\n4. SpectralLDA, make_lda_corpus(K=10, V=500, alpha_0=1, 100 tokens/doc), mean matched L1 error")
    prev = None
    for D in (1000, 10000, 100000):
        X, truth = make_lda_corpus(D, n_components=10, vocab_size=500, doc_topic_prior=0.1,
                                   random_state=0)
        t0 = time.perf_counter()
        est = SpectralLDA(10, doc_topic_prior=0.1, random_state=0).fit(X)
        t = time.perf_counter() - t0
        _, err = match_components(truth["topics"], est.components_, "l1")
        ratio = "" if prev is None else f"  (previous / this = {prev / err.mean():.2f}; sqrt(10) = 3.16)"
        print(f"   D={D:>6}: L1 error {err.mean():.4f}, {t:.2f} s{ratio}")
        prev = err.mean()


def bench_online_memory():
    from latentkit.spectral import online_tensor_power
    d, k, R = 20, 3, 15
    rng0 = np.random.default_rng(0)
    V = np.linalg.qr(rng0.standard_normal((d, k)))[0]

    def stream(n, chunk=1000):
        rng = np.random.default_rng(1)
        for s in range(0, n, chunk):
            m = min(chunk, n - s)
            z = rng.standard_normal((m, d)) * 0.2
            yield V[:, rng.choice(k, m, p=[0.5, 0.3, 0.2])].T + z - (z @ V) @ V.T

    out = {}
    for n in (10_000, 10_000, 1_000_000):
        tracemalloc.start()
        t0 = time.perf_counter()
        res = online_tensor_power(stream(n), k, n_iter=R, batch_size=n // (k * (R + 1)),
                                  random_state=0)
        t = time.perf_counter() - t0
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        out[n] = (peak, t, vec_err(V, res.eigenvectors))
    print("\n5. online_tensor_power, d=20, k=3, L=10, R=15, chunks of 1000 rows")
    for n, (peak, t, e) in out.items():
        print(f"   n={n:>8}: peak {peak / 1024:.1f} KiB, {t:.2f} s, max vector error {e:.3f}")
    print(f"   peak ratio 10^6 / 10^4 = {out[1_000_000][0] / out[10_000][0]:.3f}")


if __name__ == "__main__":
    bench_tensorly()
    bench_csr_kernel()
    bench_lda_kos()
    bench_lda_rate()
    bench_online_memory()
