"""The full-covariance E-step kernel of :mod:`latentkit._kernels.gaussian` (issue 46): its
vectorised ``exp`` against ``numpy.exp``, and the kernel (one GEMM for the projections, one for
all K components' moments) against the NumPy oracles at 1e-10, on the cases that its element-wise
middle must get right (a component of weight zero, rows far from every component, a chunk
that does not fill)."""

import numpy as np
import pytest

from latentkit._kernels import gaussian as kern
from latentkit.distributions import compute_precision_cholesky
from latentkit.testing import oracle_gaussian_stats, oracle_log_resp


def test_exp_nonpositive_within_one_ulp_of_numpy():
    rng = np.random.default_rng(1)
    x = np.concatenate([-rng.uniform(0, 1, 20000), -rng.uniform(0, 745, 20000),
                        -np.logspace(-300, 2.8, 500),
                        [0.0, -0.0, -np.inf, np.nan, -745.13, -745.14, -746.0, -1e300,
                         -708.39, -708.4]])
    out, bits = np.empty_like(x), np.empty(x.size, dtype=np.int64)
    kern.exp_nonpositive(x, out, bits)
    ref = np.exp(x)
    normal = ref >= np.finfo(np.float64).tiny
    # 1 ulp: numpy's and our exp are both within 0.5-1 ulp of the true value (a wrong
    # polynomial coefficient or power of two is off by far more)
    ulps = np.abs(out[normal].view(np.int64) - ref[normal].view(np.int64))
    assert ulps.max() <= 1
    sub = ~normal & (ref > 0)
    assert sub.sum() > 10
    np.testing.assert_allclose(out[sub], ref[sub], rtol=0, atol=5e-324)  # one subnormal step
    assert np.all(out[(ref == 0) & ~np.isnan(x)] == 0.0)  # -inf and below exp(-745.14)
    assert np.isnan(out[np.isnan(x)]).all()


def _oracle(X, c, w, means, U, const):
    maha = np.stack([(((X - means[j]) @ U[j]) ** 2).sum(1) for j in range(len(U))], axis=1)
    with np.errstate(invalid="ignore"):
        o_lr, _, o_lse = oracle_log_resp(const - 0.5 * maha, w)
    o_nk, o_sx, o_sxx = oracle_gaussian_stats(X, np.exp(o_lr), "full", sample_weight=w,
                                              shift=c)
    return o_lr, o_lse, o_nk, o_sx, o_sxx


# one partial chunk and 4 components (the moments' block of four); several chunks, the last
# partial, and 9 components (a block of eight, then one of four padded with three zero rows)
@pytest.mark.parametrize("n, k", [(37, 4), (300, 9)])
def test_gemm_kernel_matches_oracle_with_empty_and_far_cases(n, k):
    rng = np.random.default_rng(4)
    d = 5
    X = rng.normal(size=(n, d)) + 1.0
    X[3] = 200.0  # far from every component: its log-responsibilities differ by > 745 (exp -> 0)
    c = X.mean(0)
    w = rng.uniform(0, 2, size=n)
    w[5] = 0.0
    means = rng.normal(size=(k, d))
    A = rng.normal(size=(k, d, d))
    U, _ = compute_precision_cholesky(A @ A.transpose(0, 2, 1) + d * np.eye(d), "full")
    const = rng.normal(size=k)
    const[2] = -np.inf  # a component of weight zero: responsibility exactly 0
    ucat = np.ascontiguousarray(U.transpose(1, 0, 2).reshape(d, k * d))
    bcat = np.einsum("kd,kde->ke", means - c, U).reshape(k * d)
    edges = np.array([0, n // 3, n], dtype=np.int64)
    nk, sx, sxx = np.zeros((2, k)), np.zeros((2, k, d)), np.zeros((2, d, k * d))
    lse, lr = np.empty(n), np.empty((n, k))
    kern.mixture_estep_full_gemm(X, c, ucat, bcat, const, w, edges, 16, nk, sx, sxx, lse, lr)
    o_lr, o_lse, o_nk, o_sx, o_sxx = _oracle(X, c, w, means, U, const)
    assert np.all(np.isneginf(lr[:, 2])) and np.all(nk[:, 2] == 0.0)
    assert np.all(sx[:, 2] == 0.0) and np.all(sxx[:, :, 2 * d:3 * d] == 0.0)
    far = lr[3][np.isfinite(lr[3])]
    assert far.size == k - 1 and far.min() < -745 and np.exp(far).sum() == pytest.approx(1.0)
    fin = np.isfinite(o_lr)
    np.testing.assert_allclose(lr[fin], o_lr[fin], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(lse, o_lse, rtol=1e-10)
    np.testing.assert_allclose(nk.sum(0), o_nk, rtol=1e-10)
    np.testing.assert_allclose(sx.sum(0), o_sx, rtol=1e-10, atol=1e-10)
    full = sxx.sum(0).reshape(d, k, d).transpose(1, 0, 2)
    np.testing.assert_allclose(full, o_sxx, rtol=1e-10, atol=1e-10)
    np.testing.assert_array_equal(full, full.transpose(0, 2, 1))  # both triangles, exactly


def test_gemm_kernel_refuses_factors_that_are_not_upper_triangular():
    # the kernel's first projection GEMM reads only the first half of the coordinates for the
    # first half of each factor's columns: a lower-triangle entry would be dropped silently
    rng = np.random.default_rng(0)
    n, k, d = 20, 2, 3
    X = rng.normal(size=(n, d))
    ucat = np.tile(np.eye(d), (1, k))
    ucat[2, 0] = 0.5  # U_1[2, 0], below the diagonal
    args = (X, np.zeros(d), ucat, np.zeros(k * d), np.zeros(k), np.ones(n),
            np.array([0, n], dtype=np.int64), 8, np.zeros((1, k)), np.zeros((1, k, d)),
            np.zeros((1, d, k * d)), np.empty(n))
    with pytest.raises(ValueError, match="upper-triangular"):
        kern.mixture_estep_full_gemm(*args)
