"""Row-by-row oracle for the NumPy path of the expected complete-data statistics of rows with
missing entries, ``accumulate_missing_gaussian_stats`` (issue 33, item 6), every covariance
type: for each row and component the missing block is completed by its conditional Gaussian
(Bishop 2006, eqs. 2.81-2.82), mean ``mu_m + S_mo S_oo^-1 (x_o - mu_o)`` and covariance
``S_mm - S_mo S_oo^-1 S_om``, and the second moment is ``z z^T + C`` (C the conditional
covariance in the missing block): dropping C must fail here."""

import numpy as np
import pytest

from latentkit.distributions._missing_conditional import accumulate_missing_gaussian_stats

K, D, N = 2, 4, 40


def _covariances(covariance_type, rng):
    """(K, D, D) covariances of the given type and their precisions_cholesky."""
    if covariance_type in ("full", "tied"):
        A = rng.standard_normal((K, D, D))
        S = A @ A.transpose(0, 2, 1) + 0.5 * np.eye(D)
        if covariance_type == "tied":
            S[:] = S[0]
        pc = np.linalg.inv(np.linalg.cholesky(S)).transpose(0, 2, 1)  # upper, Lambda = U U^T
        return S, (pc[0] if covariance_type == "tied" else pc)
    if covariance_type == "diag":
        var = rng.uniform(0.3, 2.0, size=(K, D))
        return np.stack([np.diag(v) for v in var]), 1.0 / np.sqrt(var)
    var = rng.uniform(0.3, 2.0, size=K)
    return np.stack([v * np.eye(D) for v in var]), 1.0 / np.sqrt(var)


def _oracle(X, resp, means, S, covariance_type, shift):
    nk = resp.sum(0)
    sx = np.zeros((K, D))
    sxx = np.zeros((K, D, D))
    for i in range(X.shape[0]):
        m = np.isnan(X[i])
        o = ~m
        for k in range(K):
            z = np.where(m, 0.0, X[i])
            C = np.zeros((D, D))
            gain = S[k][np.ix_(m, o)] @ np.linalg.inv(S[k][np.ix_(o, o)])
            z[m] = means[k, m] + gain @ (X[i, o] - means[k, o])
            C[np.ix_(m, m)] = S[k][np.ix_(m, m)] - gain @ S[k][np.ix_(o, m)]
            z = z - shift
            sx[k] += resp[i, k] * z
            sxx[k] += resp[i, k] * (np.outer(z, z) + C)
    if covariance_type == "tied":
        return nk, sx, sxx.sum(0)
    if covariance_type == "diag":
        return nk, sx, np.diagonal(sxx, axis1=1, axis2=2)
    if covariance_type == "spherical":
        return nk, sx, np.trace(sxx, axis1=1, axis2=2)
    return nk, sx, sxx


@pytest.mark.parametrize("covariance_type", ["full", "tied", "diag", "spherical"])
def test_missing_stats_equal_the_row_by_row_oracle(covariance_type):
    rng = np.random.default_rng({"full": 0, "tied": 1, "diag": 2, "spherical": 3}[covariance_type])
    S, pc = _covariances(covariance_type, rng)
    means = rng.normal(size=(K, D)) * 2.0
    X = rng.normal(size=(N, D)) * 1.5
    mask = rng.random((N, D)) < 0.35
    mask[0] = False   # a complete row
    mask[1] = True    # a fully missing row
    mask[2] = [True, False, True, False]
    mask[3] = [True, False, True, False]  # a pattern shared by two rows
    X[mask] = np.nan
    resp = rng.dirichlet(np.ones(K), size=N) * rng.uniform(0.5, 2.0, size=(N, 1))
    shift = rng.normal(size=D)
    got = accumulate_missing_gaussian_stats(X, resp, means, pc, covariance_type, shift=shift)
    want = _oracle(X, resp, means, S, covariance_type, shift)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-10)
    # complete data: the plain statistics (the oracle's layout is the library's)
    Xc = rng.normal(size=(N, D))
    got = accumulate_missing_gaussian_stats(Xc, resp, means, pc, covariance_type, shift=shift)
    want = _oracle(Xc, resp, means, S, covariance_type, shift)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-10)
