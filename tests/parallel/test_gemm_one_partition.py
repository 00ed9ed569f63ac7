"""The one-partition shortcut of the BLAS E-step (serial, no parallel kernel) against the
parallel kernel on the same single partition: bit for bit, and against a NumPy oracle."""

import numpy as np

from latentkit._kernels import gaussian as kern
from latentkit.distributions import compute_precision_cholesky
from latentkit.testing import oracle_gaussian_stats, oracle_log_resp


def _inputs(n=300, d=3, k=4, seed=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    w = rng.uniform(0.5, 2.0, size=n)
    c = X.mean(0)
    means = rng.normal(size=(k, d))
    A = rng.normal(size=(k, d, d))
    U, _ = compute_precision_cholesky(A @ A.transpose(0, 2, 1) + d * np.eye(d), "full")
    const = rng.normal(size=k)
    ucat = np.ascontiguousarray(U.transpose(1, 0, 2).reshape(d, k * d))
    bcat = np.einsum("kd,kde->ke", means - c, U).reshape(k * d)
    return X, w, c, means, U, const, ucat, bcat


def test_one_partition_matches_parallel_kernel_bitwise_and_oracle():
    X, w, c, means, U, const, ucat, bcat = _inputs()
    n, d = X.shape
    k = const.shape[0]
    edges = np.array([0, n], dtype=np.int64)
    outs = []
    for call in (kern.mixture_estep_full_gemm, None):
        nk, sx, sxx = np.zeros((1, k)), np.zeros((1, k, d)), np.zeros((1, d, k * d))
        lse, lr = np.empty(n), np.empty((n, k))
        if call is None:  # the parallel kernel itself, on the one partition
            kern._estep_full_gemm_kernel(X, c, ucat, bcat, const, w, edges, 64, nk, sx, sxx,
                                         lse, lr, True)
        else:
            call(X, c, ucat, bcat, const, w, edges, 64, nk, sx, sxx, lse, lr)
        outs.append((nk, sx, sxx, lse, lr))
    for a, b in zip(*outs):
        np.testing.assert_array_equal(a, b)
    nk, sx, sxx, lse, lr = outs[0]
    maha = np.stack([(((X - means[j]) @ U[j]) ** 2).sum(1) for j in range(k)], axis=1)
    o_lr, _, o_lse = oracle_log_resp(const - 0.5 * maha, w)
    o_nk, o_sx, o_sxx = oracle_gaussian_stats(X, np.exp(o_lr), "full", sample_weight=w, shift=c)
    np.testing.assert_allclose(lr, o_lr, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(lse, o_lse, rtol=1e-10)
    np.testing.assert_allclose(nk[0], o_nk, rtol=1e-10)
    np.testing.assert_allclose(sx[0], o_sx, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(sxx[0].reshape(d, k, d).transpose(1, 0, 2), o_sxx,
                               rtol=1e-10, atol=1e-10)
