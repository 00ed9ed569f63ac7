"""Kernels cut for compile time (issue 28) keep one numeric route.

Small data call a parallel kernel's serial per-partition function directly (no parallel kernel
compiled): the results must equal the parallel kernel's bit for bit. A kernel that lost its
parallel reduction (``relax_counts``) is checked against NumPy.
"""

import os
import warnings

import numpy as np
import pytest

pytestmark = pytest.mark.skipif(os.environ.get("LATENTKIT_DISABLE_JIT", "0") not in ("", "0"),
                                reason="compares compiled routes")


def test_diag_estep_serial_blocks_equal_the_parallel_kernel():
    from latentkit._kernels import gaussian as kern
    from latentkit.testing import oracle_gaussian_stats, oracle_log_resp

    rng = np.random.default_rng(3)
    n, k, d = 300, 3, 4
    assert n <= kern.DIAG_SERIAL_ROWS
    X = rng.normal(size=(n, d))
    c = X.mean(0)
    w = rng.uniform(0.5, 2.0, size=n)
    means = rng.normal(size=(k, d))
    prec = rng.uniform(0.5, 2.0, size=(k, d))
    const = rng.normal(size=k)
    T = kern.n_blocks_for(n, k, d, full=False)
    assert T > 1
    outs = []
    for route in ("serial", "parallel"):
        out = (np.zeros((T, k)), np.zeros((T, k, d)), np.zeros((T, k, d)), np.empty(n),
               np.empty((n, k)))
        args = (X, c, means - c, prec, const, w, *out)
        if route == "serial":
            kern.mixture_estep_diag(*args)
        else:
            kern._estep_diag_kernel(*args, True)
        outs.append(out)
    for a, b in zip(*outs):
        np.testing.assert_array_equal(a, b)
    o_lr, _, _ = oracle_log_resp(const - 0.5 * (((X[:, None, :] - means) ** 2) * prec).sum(-1),
                                 w)
    np.testing.assert_allclose(outs[0][4], o_lr, rtol=1e-10, atol=1e-12)
    o_nk, _, _ = oracle_gaussian_stats(X, np.exp(o_lr), "diag", sample_weight=w, shift=c)
    np.testing.assert_allclose(outs[0][0].sum(0), o_nk, rtol=1e-10)


def test_missing_full_one_partition_equals_the_parallel_kernel(monkeypatch):
    from latentkit import GaussianMixture
    from latentkit._kernels import missing as kern

    calls = []
    serial = kern._missing_full_partition

    def record(*args):
        calls.append([a.copy() if isinstance(a, np.ndarray) else a for a in args])
        return serial(*args)

    monkeypatch.setattr(kern, "_missing_full_partition", record)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3)) + np.repeat(np.arange(2), 100)[:, None] * 3.0
    X[::5, 1] = np.nan
    X[::7, 0] = np.nan
    with warnings.catch_warnings():   # two iterations: not converged, not the point
        warnings.simplefilter("ignore")
        GaussianMixture(2, max_iter=2, random_state=0, missing="marginalize").fit(X)
    assert calls, "the one-partition route was not taken"
    monkeypatch.setattr(kern, "_missing_full_partition", serial)
    for args in calls[:2]:
        (Xs, ws, pat, miss, n_miss, lo, hi, chunk, pcat, hcat, means_c, P, const, tied, lse,
         log_resp, store, nk, sx, sxx, sxc, sxxc) = args
        got = [a.copy() for a in (lse, log_resp, nk, sx, sxx, sxc, sxxc)]
        serial(Xs, ws, pat, miss, n_miss, lo, hi, chunk, pcat, hcat, means_c, P, const, tied,
               *got[:2], store, *got[2:])
        want = [lse.copy(), log_resp.copy()] + [a.copy()[None] for a in (nk, sx, sxx, sxc,
                                                                           sxxc)]
        kern._missing_full_parallel_kernel(Xs, ws, pat, miss, n_miss,
                                           np.array([lo, hi], dtype=np.int64), chunk, pcat,
                                           hcat, means_c, P, const, tied, *want[:2], store,
                                           *want[2:])
        for g, wnt in zip(got, want[:2] + [a[0] for a in want[2:]]):
            np.testing.assert_array_equal(g, wnt)


def test_relax_counts_against_numpy():
    from latentkit._kernels.cvb0 import relax_counts

    rng = np.random.default_rng(1)
    nwk = rng.uniform(0.0, 3.0, size=(50, 4))
    new = rng.uniform(0.0, 3.0, size=(50, 4))
    new[7, 2] = -40.0   # over-relaxation below 0
    want = nwk + 1.5 * (new - nwk)
    got = nwk.copy()
    low = relax_counts(got, new, 1.5)
    np.testing.assert_allclose(got, want, rtol=1e-14, atol=1e-14)
    assert low == got.min() and low < 0.0
    assert relax_counts(np.empty((0, 4)), np.empty((0, 4)), 1.5) == np.inf
