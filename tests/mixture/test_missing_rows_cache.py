"""The rows in missing-pattern order (issue 15): the copy made by
:func:`latentkit._kernels.missing.pattern_sorted_rows`, the cache a fit keeps on its data object
(reused only for the same ``X``, weights and shift), and the argument checks of the kernels."""

import numpy as np
import pytest

from latentkit._kernels.missing import missing_full_parallel, pattern_sorted_rows
from latentkit.distributions import compute_precision_cholesky
from latentkit.distributions._missing import cached_pattern_index, missing_gaussian_e_step
from latentkit.mixture import GaussianMixture


def _problem(ct, seed=3, n=80, D=4, K=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, D)) * 2.0 + 1.0
    X[rng.random(X.shape) < 0.3] = np.nan
    A = rng.normal(size=(K, D, D))
    cov = A @ A.transpose(0, 2, 1) + np.eye(D)
    if ct == "tied":
        cov = cov[0]
    pc, _ = compute_precision_cholesky(cov, ct)
    lw = np.log(rng.dirichlet(np.ones(K)))
    return X, rng.uniform(0.5, 2.0, n), lw, rng.normal(size=(K, D)), pc


def _same(a, b):
    """Bit-identical statistics."""
    assert a.data_term == b.data_term
    for x, y in ((a.nk, b.nk), (a.sx, b.sx), (a.sxx, b.sxx)):
        np.testing.assert_array_equal(x, y)


def test_pattern_sorted_rows_is_the_shifted_zero_filled_permutation():
    X, w, *_ = _problem("full")
    shift = np.nanmean(X, axis=0)
    order = cached_pattern_index(X)[0]
    Xs, ws = pattern_sorted_rows(X, order, shift, w)
    np.testing.assert_array_equal(Xs, np.where(np.isnan(X), 0.0, X - shift)[order])
    np.testing.assert_array_equal(ws, w[order])
    assert np.array_equal(np.sort(order), np.arange(X.shape[0]))


@pytest.mark.parametrize("ct", ["full", "tied"])
def test_cache_is_reused_and_rebuilt_when_its_inputs_change(ct):
    """The cache gives the uncached statistics bit for bit; another X (same mask, other
    values), other weights or another shift rebuild it, so it can never serve stale rows."""
    X, w, lw, means, pc = _problem(ct)
    shift = np.nanmean(X, axis=0)
    kw = dict(sample_weight=w, shift=shift)
    cache = {}
    ref = missing_gaussian_e_step(X, lw, means, pc, ct, **kw)
    _same(missing_gaussian_e_step(X, lw, means, pc, ct, cache=cache, **kw), ref)
    rows = cache["rows"][1]
    _same(missing_gaussian_e_step(X, lw, means, pc, ct, cache=cache, **kw), ref)
    assert cache["rows"][1] is rows  # reused
    X2 = np.where(np.isnan(X), np.nan, X + 1.0)  # same mask, other values, other object
    for args, kwargs in (((X2,), kw), ((X,), dict(kw, sample_weight=w[::-1].copy())),
                         ((X,), dict(kw, shift=shift + 0.5))):
        got = missing_gaussian_e_step(*args, lw, means, pc, ct, cache=cache, **kwargs)
        _same(got, missing_gaussian_e_step(*args, lw, means, pc, ct, **kwargs))
        assert cache["rows"][1] is not rows
        rows = cache["rows"][1]


def test_fit_after_modifying_x_in_place_sees_the_new_values():
    """The cache lives on one fit's data object: refitting the same array after changing it in
    place gives the fit of a fresh copy."""
    X, *_ = _problem("full", n=150)
    kw = dict(covariance_type="full", max_iter=3, tol=0.0, random_state=0,
              missing="marginalize")
    m = GaussianMixture(3, **kw).fit(X)
    X[~np.isnan(X)] *= 1.5
    a = GaussianMixture(3, **kw).fit(X)
    b = GaussianMixture(3, **kw).fit(X.copy())
    np.testing.assert_array_equal(a.means_, b.means_)
    np.testing.assert_array_equal(a.lower_bounds_, b.lower_bounds_)
    assert not np.allclose(a.means_, m.means_)


def test_kernel_argument_checks_name_the_argument():
    X, w, *_ = _problem("full", n=10)
    order = np.arange(10, dtype=np.int64)
    with pytest.raises(ValueError, match="order must be a C-contiguous int64"):
        pattern_sorted_rows(X, order.astype(np.int32), np.zeros(4), w)
    with pytest.raises(ValueError, match="order must hold row indices"):
        pattern_sorted_rows(X, order + 1, np.zeros(4), w)
    K, D, n = 2, 4, 10
    args = dict(Xs=np.zeros((n, D)), ws=np.ones(n), pat=np.zeros(n, np.int64),
                miss=np.zeros((1, D), np.int64), n_miss=np.zeros(1, np.int64),
                edges=np.array([0, n], np.int64), chunk=4, pcat=np.zeros((D, K * D)),
                hcat=np.zeros(K * D), means_c=np.zeros((K, D)), P=np.zeros((K, D, D)),
                const=np.zeros(K), tied=False, lse=np.empty(n), log_resp=None,
                nk_p=np.zeros((1, K)), sx_p=np.zeros((1, K, D)), sxx_p=np.zeros((1, D, K * D)),
                sxc_p=np.zeros((1, K, D)), sxxc_p=np.zeros((1, K, D, D)))
    with pytest.raises(ValueError, match=r"sxx_p must be .* shape \(1, 4, 8\)"):
        missing_full_parallel(**dict(args, sxx_p=np.zeros((1, D, D))))
    with pytest.raises(ValueError, match="log_resp must be"):
        missing_full_parallel(**dict(args, log_resp=np.zeros((n, K + 1))))
    with pytest.raises(ValueError, match="edges must be non-decreasing"):
        missing_full_parallel(**dict(args, edges=np.array([0, n - 1], np.int64)))
    with pytest.raises(ValueError, match="chunk must be a positive integer"):
        missing_full_parallel(**dict(args, chunk=0))
