"""Spectral module benchmarks (one process, identical inputs).

1. robust_tensor_power vs TensorLy's symmetric_parafac_power_iteration on dense noisy
   orthogonal tensors (d = 50, 100, 200; k = 10): time and recovery error of each.
2. The implicit CSR-document contraction on KOS (k = 20, L = 20) against this machine's
   memory-bandwidth and GEMM bounds, both measured in the same run (roofline).
3. SpectralLDA on KOS, K = 20, whitening included: wall time.
4. SpectralLDA topic error vs number of documents (1k, 10k, 100k; K=10, V=500, alpha_0=1).
5. online_tensor_power peak memory (tracemalloc) for 10^4 vs 10^6 streamed points.

Run:  python benchmarks/bench_spectral.py [section numbers, e.g. 1 2 3; default all]
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


#: TensorLy settings per d (n_repeat, n_iteration); ours gets the same number of starts and
#: power updates (TensorLy's "iteration" is `order` = 3 updates): n_restarts = n_repeat,
#: n_iter = 3 * n_iteration. Capped at d = 100, 200 so that TensorLy finishes in minutes.
TL_SETTINGS = {50: (10, 10), 100: (10, 5), 200: (5, 3)}


def bench_tensorly(dims=(50, 100, 200)):
    import tensorly as tl
    from tensorly.decomposition import symmetric_parafac_power_iteration
    from threadpoolctl import threadpool_limits
    from latentkit.spectral import robust_tensor_power
    print("\n1. dense RTPM vs TensorLy symmetric_parafac_power_iteration, k = 10, "
          "T = sum lam_i v_i^3 + sym. Gaussian noise (entries sd 0.05/d), identical starts/updates:")
    print("   TensorLy (n_repeat, n_iteration) -> ours n_restarts = n_repeat, n_iter = 3 n_iteration "
          "(max updates per start and for polishing); both run with one BLAS thread "
          "(ours always does; the peer is faster so under load)")
    print(f"{'d':>4} {'settings':>9} {'t ours tol=1e-6':>15} {'t ours tol=0':>12} {'t tensorly':>11} "
          f"{'speed-up':>9} {'(tol=0)':>8} {'err ours':>9} {'err ours0':>9} {'err tensorly':>12}")
    for d in dims:
        rng = np.random.default_rng(d)
        k = 10
        V = np.linalg.qr(rng.standard_normal((d, k)))[0]
        lam = rng.uniform(1.0, 2.0, k)
        T = np.einsum("i,ai,bi,ci->abc", lam, V, V, V)
        E = rng.standard_normal((d, d, d)) * (0.05 / d)
        E = sum(E.transpose(p) for p in [(0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)]) / 6
        T = T + E
        nrep, nit = TL_SETTINGS[d]
        robust_tensor_power(T[:5, :5, :5], 2, random_state=0)  # warm-up (compile)
        t0 = time.perf_counter()
        res = robust_tensor_power(T, k, n_restarts=nrep, n_iter=3 * nit, tol=1e-6, random_state=0)
        t1 = time.perf_counter()
        res0 = robust_tensor_power(T, k, n_restarts=nrep, n_iter=3 * nit, tol=0.0, random_state=0)
        t2 = time.perf_counter()
        np.random.seed(0)  # TensorLy draws from the global state
        with threadpool_limits(1):
            w, F = symmetric_parafac_power_iteration(tl.tensor(T), rank=k, n_repeat=nrep,
                                                     n_iteration=nit)
        t3 = time.perf_counter()
        e_ours, e_ours0, e_tl = (vec_err(V, res.eigenvectors), vec_err(V, res0.eigenvectors),
                                 vec_err(V, np.asarray(F)))
        print(f"{d:>4} {str((nrep, nit)):>9} {t1 - t0:>15.3f} {t2 - t1:>12.3f} {t3 - t2:>11.2f} "
              f"{(t3 - t2) / (t1 - t0):>8.1f}x {(t3 - t2) / (t2 - t1):>7.1f}x {e_ours:>9.2e} "
              f"{e_ours0:>9.2e} {e_tl:>12.2e}")
    print("   err = max_i ||v_i - v^_i|| after Hungarian matching and sign alignment")


def _bandwidth_and_gemm():
    """This machine's read bandwidth (bytes/s) and dgemm rate (flop/s), best of 1 and 2 threads."""
    import numba
    from threadpoolctl import threadpool_limits

    @numba.njit(parallel=True, fastmath=True)
    def read_sum(a):
        s = 0.0
        for i in numba.prange(a.shape[0]):
            s += a[i]
        return s

    a = np.ones(2 ** 25)  # 256 MiB
    bws = []
    for nt in (1, 2):
        numba.set_num_threads(nt)
        read_sum(a)
        best = np.inf
        for _ in range(5):
            t0 = time.perf_counter()
            read_sum(a)
            best = min(best, time.perf_counter() - t0)
        bws.append(a.nbytes / best)
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    n = 2000
    A = np.random.default_rng(1).standard_normal((n, n))
    gemms = []
    for nt in (1, 2):
        with threadpool_limits(nt):
            A @ A
            best = np.inf
            for _ in range(3):
                t0 = time.perf_counter()
                A @ A
                best = min(best, time.perf_counter() - t0)
        gemms.append(2 * n ** 3 / best)
    return max(bws), max(gemms), bws, gemms


def bench_csr_kernel():
    from latentkit._kernels import spectral as K
    from latentkit.datasets import load_kos
    from latentkit.spectral import LDAMoments, whiten
    from latentkit._utils.threads import blas_single_thread
    X = load_kos()["data"]
    k, L = 20, 20
    mom = LDAMoments(X, 1.0)
    wh = whiten(mom.m2_operator(), k, random_state=0)
    T = mom.tensor(wh)
    U = np.random.default_rng(0).standard_normal((k, L))
    T.contract(U)  # compile / warm-up
    P = T._payload
    nnz, D, V = mom.X.nnz, mom.X.shape[0], mom.X.shape[1]

    def best_of(f, reps):
        f()
        best = np.inf
        for _ in range(reps):
            t0 = time.perf_counter()
            f()
            best = min(best, time.perf_counter() - t0)
        return best

    with blas_single_thread():
        t = best_of(lambda: T._data_contract(U), 20)
    nb = K.n_blocks_for(D)
    out = np.empty((nb, k, L))
    Ut = np.ascontiguousarray(U.T)
    ind64 = P["indices"].astype(np.int64)
    t_ref = best_of(lambda: K.csr_docs_contract(P["indptr"], ind64, P["data"], P["scale"], P["W"],
                                                 Ut, nb, out), 3)
    bw, gemm, bws, gemms = _bandwidth_and_gemm()
    # the regrouped kernel (csr_docs_contract_fast) + the W U product, per call
    flops = (2 * V * k * L                      # WU = W U (BLAS)
             + D * (2 * k * L + 2 * k * L)      # pu = P U row, acc += q p^T
             + nnz * 3 * L + nnz * 2 * L        # q -= c WU_v^2 ; b_v += c SPU_d
             + V * (3 * L + 2 * k * L))         # cw_v, acc += cw w_v^T
    idx_b = P["indices"].itemsize
    bytes_ = (2 * nnz * (idx_b + 8)             # CSR + transposed CSR: indices and counts
              + 8 * (D + 1 + V + 1)             # both indptr
              + 8 * D * (1 + k + 2 * L)         # scale, P, SPU written then read
              + 8 * V * (1 + 2 * k + L))        # a, W (read twice), WU
    flops_ref = nnz * (2 * k + 4 * k * L + 4 * k * L) + D * (2 * k * L + 2 * k * L)
    t_bw, t_fl = bytes_ / bw, flops / gemm
    print(f"\n2. implicit CSR contraction on KOS (nnz={nnz}, D={D}, V={V}, k={k}, L={L})")
    print(f"   machine: read bandwidth {bw / 1e9:.2f} GB/s (numba prange sum of 256 MiB, best of "
          f"1/2 threads: {bws[0] / 1e9:.2f}/{bws[1] / 1e9:.2f}); dgemm {gemm / 1e9:.2f} GFLOP/s "
          f"(2000^3, best of 1/2 BLAS threads: {gemms[0] / 1e9:.2f}/{gemms[1] / 1e9:.2f})")
    print(f"   reference O(nnz k L) kernel csr_docs_contract: {t_ref * 1e3:.1f} ms/call, "
          f"{flops_ref / t_ref / 1e9:.2f} GFLOP/s = {flops_ref / t_ref / gemm:.0%} of dgemm")
    print(f"   regrouped kernel csr_docs_contract_fast (what contract() runs): {t * 1e3:.2f} ms/call "
          f"({t_ref / t:.1f}x faster); {flops / 1e6:.1f} MFLOP, {bytes_ / 1e6:.1f} MB moved at least")
    print(f"   roofline bound max(bytes/bandwidth = {t_bw * 1e3:.2f} ms, flops/dgemm = "
          f"{t_fl * 1e3:.2f} ms) = {max(t_bw, t_fl) * 1e3:.2f} ms -> kernel at "
          f"{max(t_bw, t_fl) / t:.0%} of the roofline bound")
    print(f"   same answer as the O(nnz k L) formulation at dgemm speed would need "
          f"{flops_ref / gemm * 1e3:.1f} ms -> {flops_ref / gemm / t:.1f}x the GEMM bound of that formulation")


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
    import sys
    sections = {"1": bench_tensorly, "2": bench_csr_kernel, "3": bench_lda_kos,
                "4": bench_lda_rate, "5": bench_online_memory}
    for key in (sys.argv[1:] or sorted(sections)):
        sections[key]()
