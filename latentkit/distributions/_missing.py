"""Missing data in the Gaussian block, marginalised exactly.

``NaN`` entries of ``X`` mean "not observed" (missing at random). For a row ``x`` with observed
coordinates ``o`` and missing ones ``m`` and a component ``k`` with mean ``mu`` and precision
``Lambda = U U^T``:

- **E-step.** The marginal of a Gaussian is a Gaussian, so the row's likelihood under ``k`` is
  ``N(x_o | mu_o, Sigma_oo)``. It is computed without factorising ``Sigma_oo``: with
  ``x0`` the row with its missing entries set to 0 (after the shift), ``d = x0 - mu``,
  ``y0 = d^T U`` and ``g = Lambda_{m,:} d = U_{m,:} y0``, the conditional mean of the missing
  entries is ``xhat_m = -Lambda_mm^{-1} g`` (Bishop 2006, eq. 2.75 written with ``x0``), their
  conditional covariance ``C = Lambda_mm^{-1}`` (eq. 2.73), the Mahalanobis distance of the
  marginal ``||y0||^2 + xhat_m . g`` (the Schur complement ``Sigma_oo^{-1} = Lambda_oo -
  Lambda_om Lambda_mm^{-1} Lambda_mo``), and ``log det Sigma_oo = log det Sigma + log det
  Lambda_mm``. Only the small ``|m| x |m|`` block is factorised, once per missing pattern and
  component: rows with the same pattern are processed together.
- **M-step.** The expected complete-data sufficient statistics (Ghahramani & Jordan 1994):
  ``sum r xhat`` and ``sum r (xhat xhat^T + C)`` with ``xhat`` the row completed by the
  conditional mean under ``k``. They are ordinary :class:`GaussianStats` (same shapes, same
  shift), so the closed-form M-step, chunked and streaming fits, ``partial_fit`` and Dask use
  them unchanged. The expected scatter splits as ``x0 x0^T`` (a BLAS GEMM per chunk of rows,
  as in the complete-data E-step) plus low-rank corrections on the missing coordinates
  (``x0 xhat_m^T``, ``xhat_m xhat_m^T + C``), so the cost per row is that of the
  complete-data E-step plus ``O(K D |m|)``
  (:func:`latentkit._kernels.missing.missing_full_parallel`).
- **diag / spherical.** Coordinates are independent given ``k``: the marginal is a product
  over the observed ones, ``xhat_m = mu_m``, ``C = diag(sigma_m^2)``; one fused numba pass
  over all rows, no pattern grouping (:func:`latentkit._kernels.missing.missing_diag_parallel`).

A fully missing row contributes likelihood 1 (its responsibilities are the weights). Data
without NaN goes through the complete-data :func:`gaussian_mixture_e_step` (exactly today's
results); with NaN, every row goes through the missing-data pass.

Threads: both passes run ``prange`` over row partitions whose edges depend on the number of
rows only (:data:`_PART_ROWS`), BLAS limited to one thread inside; each partition accumulates
into its own slot and the slots are summed in index order, so the results are bit-identical
for any number of threads (``tests/parallel/test_missing_threads.py``). The grouping of the
rows by missing pattern (a sort, 20-35 ms at 200k rows) is cached across EM iterations,
keyed on the missing mask itself (:func:`cached_pattern_index`).

Speed: see ``benchmarks/bench_missing.py`` and the numbers in its docstring.

Source: Ghahramani & Jordan (1994), *Supervised learning from incomplete data via an EM
approach*, NIPS 6, section 3 (E-step eqs. for the missing block); Little & Rubin (2002),
*Statistical Analysis with Missing Data*, ch. 11; Bishop (2006) section 2.3.1-2.3.2 (partitioned
Gaussians).
"""

import math

import numpy as np

from .._validation import check_array
from ._gaussian import (GaussianStats, accumulate_gaussian_stats, check_covariance_type,
                        log_det_cholesky, log_gaussian_prob)
from ._gaussian_estep import gaussian_mixture_e_step
from .._validation import check_n_features
from ._normal_wishart import student_t_logpdf

__all__ = [
    "MISSING_OPTIONS",
    "check_array_missing",
    "check_impute_input",
    "accumulate_missing_gaussian_stats",
    "check_missing",
    "conditional_impute",
    "group_missing_patterns",
    "marginal_log_gaussian_prob",
    "marginal_log_predictive",
    "data_summary",
    "mean_fill",
    "missing_gaussian_e_step",
]

MISSING_OPTIONS = ("error", "marginalize")
_LOG_2PI = math.log(2.0 * math.pi)


def check_missing(missing):
    """Validate the ``missing`` hyper-parameter.

    Parameters
    ----------
    missing : {'error', 'marginalize'}

    Returns
    -------
    bool
        True for ``'marginalize'``.

    Raises
    ------
    ValueError
        Any other value.
    """
    if not (isinstance(missing, str) and missing in MISSING_OPTIONS):
        raise ValueError(
            f"missing must be 'error' (NaN is refused) or 'marginalize' (NaN entries are "
            f"unobserved and integrated out), got {missing!r}.")
    return missing == "marginalize"


def check_array_missing(X, name="X"):
    """Validate a float array in which NaN marks a missing entry.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    name : str

    Returns
    -------
    ndarray of shape (n_samples, n_features), float64, C-contiguous
        A copy when conversion was needed; the caller's array is never modified.

    Raises
    ------
    ValueError, TypeError
        As :func:`latentkit._validation.check_array`, and for infinite entries (infinity is
        not "missing").
    """
    X = check_array(X, name, ensure_finite=False)
    if np.isinf(X).any():
        raise ValueError(
            f"Input {name} contains infinity; with missing='marginalize' only NaN marks a "
            f"missing entry.")
    return X


def check_impute_input(model, X):
    """Validate the ``X`` of a fitted model's ``impute``: NaN allowed, the model's number of
    features.

    Returns
    -------
    ndarray of shape (n_samples, n_features), float64

    Raises
    ------
    NotFittedError, ValueError
        Unfitted model, infinite entries, a wrong number of features.
    """
    model._check_is_fitted()
    X = check_array_missing(X, "X")
    check_n_features(X.shape[1], model.n_features_in_, "X", type(model).__name__)
    return X


def mean_fill(X, sample_weight=None):
    """Copy of ``X`` with NaN replaced by the weighted mean of the observed entries of the
    column (0 for a column without any).

    Parameters
    ----------
    X : ndarray of shape (n, D)
    sample_weight : ndarray of shape (n,), optional

    Returns
    -------
    ndarray of shape (n, D)
        Only used to start EM (k-means++, spectral start); the data-derived defaults use
        :func:`data_summary`.
    """
    from .._kernels.missing import nan_column_stats

    mask = np.isnan(X)
    if not mask.any():
        return X
    w = np.ones(X.shape[0]) if sample_weight is None else np.asarray(sample_weight, float)
    col = nan_column_stats(np.ascontiguousarray(X, dtype=np.float64), w)[1]
    out = np.array(X, dtype=np.float64)
    np.copyto(out, np.broadcast_to(col, X.shape), where=mask)
    return out


def data_summary(X, w, missing, diagonal=False):
    """Mergeable summary of validated rows for the data-derived defaults (scale check, default
    priors, ``shift_``).

    Parameters
    ----------
    X : ndarray of shape (n, D)
        NaN marks a missing entry (only with ``missing='marginalize'``).
    w : ndarray of shape (n,)
    missing : {'error', 'marginalize'}
    diagonal : bool, default False
        Keep only the variances' sums.

    Returns
    -------
    latentkit._summaries.MomentSummary
        With ``missing='marginalize'`` a :class:`latentkit._summaries.MissingMomentSummary`:
        means of the observed entries, the scatter over the pairs observed together, merged
        exactly across chunks, so a chunked fit takes the same defaults as the in-memory one.
    """
    from .._summaries import MissingMomentSummary, MomentSummary

    if missing == "marginalize":
        return MissingMomentSummary.of(X, w, diagonal=diagonal)
    return MomentSummary.of(X, w, diagonal=diagonal)


def group_missing_patterns(mask):
    """Group the rows of a missing-entry mask by pattern.

    Parameters
    ----------
    mask : ndarray of shape (n, D), bool
        True where an entry is missing.

    Returns
    -------
    list of (rows, missing) pairs
        ``rows`` : int ndarray, the rows (ascending) sharing the pattern; ``missing`` : int
        ndarray, the missing coordinates (ascending). Rows without missing entries form a
        pattern with an empty ``missing``. Patterns come in order of first appearance.
    """
    if mask.shape[0] == 0:
        return []
    order, starts, miss, n_miss = _pattern_index(mask)
    return [(np.sort(order[a:b]), miss[p, :n_miss[p]])
            for p, (a, b) in enumerate(zip(starts[:-1], starts[1:]))]


def _pattern_index(mask):
    """Rows sorted by missing pattern, vectorised.

    Returns
    -------
    order : int64 ndarray (n,)
        Rows, grouped by pattern (ascending within a pattern); patterns in order of first
        appearance.
    starts : int64 ndarray (n_patterns + 1,)
        ``order[starts[p]:starts[p+1]]`` share pattern ``p``.
    miss : int64 ndarray (n_patterns, D)
        Missing coordinates of each pattern, ascending, padded.
    n_miss : int64 ndarray (n_patterns,)
    """
    n, D = mask.shape
    if D <= 64:  # one uint64 key per row: a 1-D sort instead of a row-wise one
        packed = np.zeros((n, 8), dtype=np.uint8)
        packed[:, :(D + 7) // 8] = np.packbits(mask, axis=1)
        key = packed.view(np.uint64).reshape(-1)
    else:
        key = np.unique(np.packbits(mask, axis=1), axis=0, return_inverse=True)[1].reshape(-1)
    order = np.argsort(key, kind="stable")
    ks = key[order]
    starts = np.concatenate(([0], np.flatnonzero(ks[1:] != ks[:-1]) + 1, [n]))
    first = order[starts[:-1]]  # smallest row of each pattern (stable sort)
    by_first = np.argsort(first, kind="stable")
    rank = np.empty(by_first.shape[0], dtype=np.int64)
    rank[by_first] = np.arange(by_first.shape[0])
    pid = np.repeat(rank, np.diff(starts))  # new pattern number of each row of ``order``
    order = order[np.argsort(pid, kind="stable")]
    starts = np.concatenate(([0], np.cumsum(np.bincount(pid)))).astype(np.int64)
    pm = mask[first[by_first]]
    n_miss = pm.sum(axis=1).astype(np.int64)
    miss = np.argsort(~pm, axis=1, kind="stable").astype(np.int64)  # missing columns first
    return order.astype(np.int64), starts, miss, n_miss


def _full_factors(precisions_cholesky, covariance_type, K, D):
    """``U`` (K, D, D) and ``Lambda = U U^T`` (K, D, D) for full or tied covariances."""
    U = np.asarray(precisions_cholesky, dtype=np.float64)
    U = np.ascontiguousarray(np.triu(np.broadcast_to(U, (K, D, D))))  # exactly triangular
    return U, U @ U.transpose(0, 2, 1)


def _pattern_passes(X, mask, means, precisions_cholesky, covariance_type, shift,
                    skip_complete=True):
    """Yield, for each missing pattern of the (full/tied) rows, the per-row quantities.

    Yields
    ------
    rows : int ndarray (n_p,)
    m : int ndarray (q,)
        Missing coordinates.
    x0 : ndarray (n_p, D)
        Shifted rows with zeros at ``m``.
    log_prob : ndarray (n_p, K)
        ``log N(x_o | mu_k,o, Sigma_k,oo)``, nats.
    e : ndarray (n_p, K, q)
        Conditional means of the missing entries under each component, shifted.
    cond_cov : ndarray (K, q, q)
        Conditional covariances of the missing entries (``Lambda_k,mm^{-1}``).
    """
    K, D = means.shape
    U, P = _full_factors(precisions_cholesky, covariance_type, K, D)
    ucat = np.ascontiguousarray(U.transpose(1, 0, 2).reshape(D, K * D))
    bcat = np.einsum("kd,kde->ke", means - shift, U).reshape(K * D)
    log_det_u = np.broadcast_to(log_det_cholesky(precisions_cholesky, covariance_type, D), (K,))
    for rows, m in group_missing_patterns(mask):
        q = m.shape[0]
        if q == 0 and skip_complete:
            continue
        x0 = X[rows] - shift
        x0[:, m] = 0.0
        y0 = (x0 @ ucat - bcat).reshape(rows.shape[0], K, D)
        maha = np.einsum("nkd,nkd->nk", y0, y0)
        const = log_det_u - 0.5 * (D - q) * _LOG_2PI
        if q:
            g = np.einsum("nkd,kqd->nkq", y0, U[:, m, :])
            L = np.linalg.cholesky(P[:, m[:, None], m])
            Linv = np.linalg.inv(L)
            cond_cov = Linv.transpose(0, 2, 1) @ Linv
            e = -np.einsum("kqr,nkr->nkq", cond_cov, g)
            maha += np.einsum("nkq,nkq->nk", e, g)
            const = const - np.log(np.diagonal(L, axis1=1, axis2=2)).sum(axis=1)
        else:
            e = np.zeros((rows.shape[0], K, 0))
            cond_cov = np.zeros((K, 0, 0))
        yield rows, m, x0, const - 0.5 * maha, e, cond_cov, const


def _diag_prec(precisions_cholesky, covariance_type, K, D):
    pc = np.asarray(precisions_cholesky, dtype=np.float64)
    if covariance_type == "spherical":
        pc = np.repeat(pc[:, None], D, axis=1)
    return pc ** 2, np.log(pc)


def _diag_log_prob(x0, obs, means_c, prec, log_pc):
    """Marginal log densities (n, K) of shifted rows ``x0`` (0 where missing) for diagonal
    precisions ``prec`` (K, D); ``obs`` (n, D) is 1.0 where observed."""
    maha = (x0 * x0) @ prec.T - 2.0 * (x0 @ (means_c * prec).T) + obs @ (means_c ** 2 * prec).T
    return obs @ log_pc.T - 0.5 * obs.sum(axis=1, keepdims=True) * _LOG_2PI - 0.5 * maha


def marginal_log_gaussian_prob(X, means, precisions_cholesky, covariance_type, *, shift=None):
    """Per-sample, per-component log densities of the observed entries,
    ``log N(x_i,o | mu_k,o, Sigma_k,oo)`` (NaN = missing).

    Parameters
    ----------
    X : ndarray of shape (n, D)
        NaN marks a missing entry; a fully missing row gets 0 (likelihood 1).
    means : ndarray of shape (K, D)
    precisions_cholesky : ndarray
        (K, D, D), (D, D), (K, D) or (K,) (see :mod:`latentkit.distributions._gaussian`).
    covariance_type : {'full', 'tied', 'diag', 'spherical'}
    shift : ndarray of shape (D,), optional
        Subtracted from ``X`` and ``means`` first (does not change the result).

    Returns
    -------
    ndarray of shape (n, K)
        Nats. Equal to :func:`log_gaussian_prob` on rows without NaN.

    Source: Bishop (2006) eqs. (2.92)-(2.93) (marginal of a Gaussian) and (2.73)-(2.75)
    (partitioned precision).
    """
    check_covariance_type(covariance_type)
    X = np.asarray(X, dtype=np.float64)
    means = np.asarray(means, dtype=np.float64)
    K, D = means.shape
    shift = np.zeros(D) if shift is None else np.asarray(shift, dtype=np.float64)
    mask = np.isnan(X)
    if not mask.any():
        return log_gaussian_prob(X, means, precisions_cholesky, covariance_type, shift=shift)
    if covariance_type in ("diag", "spherical"):
        prec, log_pc = _diag_prec(precisions_cholesky, covariance_type, K, D)
        x0 = np.where(mask, 0.0, X - shift)
        return _diag_log_prob(x0, (~mask).astype(np.float64), means - shift, prec, log_pc)
    out = np.empty((X.shape[0], K))
    for rows, _, _, lp, _, _, _ in _pattern_passes(X, mask, means, precisions_cholesky,
                                               covariance_type, shift, skip_complete=False):
        out[rows] = lp
    return out


def _softmax(lp):
    top = lp.max(axis=1, keepdims=True)
    top[~np.isfinite(top)] = 0.0
    p = np.exp(lp - top)
    s = p.sum(axis=1)
    p /= s[:, None]
    return p, np.log(s) + top[:, 0]


def missing_gaussian_e_step(X, log_weights, means, precisions_cholesky, covariance_type, *,
                            sample_weight=None, shift=None, return_log_resp=False, cache=None):
    """E-step of a Gaussian mixture with missing entries (NaN), marginalised exactly.

    Same contract as :func:`latentkit.distributions.gaussian_mixture_e_step` (which it calls
    when ``X`` has no NaN, and for the complete rows of full/tied): ``log rho_ik = log_weights_k + log N(x_i,o | mu_k,o,
    Sigma_k,oo)``, ``r_ik = rho_ik / sum_j rho_ij``, ``data_term = sum_i w_i log sum_k
    rho_ik``; the statistics are the expected complete-data ones, ``sx_k = sum_i w_i r_ik
    (E[x_i | x_i,o, k] - shift)`` and ``sxx_k = sum_i w_i r_ik E[(x_i - shift)(x_i -
    shift)^T | x_i,o, k]`` (diagonal / trace for diag / spherical, summed over k for tied).

    Parameters
    ----------
    X : ndarray of shape (n, D)
        NaN marks a missing entry.
    log_weights : ndarray of shape (K,)
        ``log pi_k`` or any per-component offset, nats.
    means : ndarray of shape (K, D)
    precisions_cholesky : ndarray
        (K, D, D), (D, D), (K, D) or (K,).
    covariance_type : {'full', 'tied', 'diag', 'spherical'}
    sample_weight : ndarray of shape (n,), optional
    shift : ndarray of shape (D,), optional
    return_log_resp : bool, default False
    cache : dict, optional
        Owned by the caller for this ``X`` and ``sample_weight`` (a fit's data object keeps
        one): holds the rows grouped by missing pattern between EM iterations (full/tied;
        one more copy of ``X``). Cleared when called with another ``X`` object or other
        weights; never pass one after modifying ``X`` in place.

    Returns
    -------
    stats : GaussianStats
        ``n = sum_i w_i``, ``data_term`` in nats (summed): the exact log-likelihood of the
        observed entries.
    log_resp : ndarray of shape (n, K)
        Only when ``return_log_resp``.

    Source: Ghahramani & Jordan (1994), section 3; Little & Rubin (2002) section 11.2.
    """
    check_covariance_type(covariance_type)
    X = np.ascontiguousarray(X, dtype=np.float64)
    means = np.asarray(means, dtype=np.float64)
    n, D = X.shape
    K = means.shape[0]
    shift = np.zeros(D) if shift is None else np.asarray(shift, dtype=np.float64)
    w = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    lw = np.broadcast_to(np.asarray(log_weights, dtype=np.float64), (K,))
    if not np.isnan(np.add.reduce(X, axis=None)):  # one pass, no (n, D) mask: no NaN
        return gaussian_mixture_e_step(X, lw, means, precisions_cholesky, covariance_type,
                                       sample_weight=w, shift=shift,
                                       return_log_resp=return_log_resp)
    if covariance_type in ("diag", "spherical"):  # one fused pass over all rows
        st, lr = _diag_partial_stats(X, w, lw, means, precisions_cholesky, covariance_type,
                                     np.ascontiguousarray(shift))
        return (st, lr) if return_log_resp else st
    stats, log_resp = _full_stats(X, w, lw, means, precisions_cholesky, covariance_type, shift,
                                  return_log_resp, cache)
    return (stats, log_resp) if return_log_resp else stats


def _diag_partial_stats(X, w, lw, means, precisions_cholesky, covariance_type, shift):
    """Statistics and log-responsibilities of rows with or without NaN, diag/spherical: the
    fused :func:`latentkit._kernels.missing.missing_diag_parallel` over row partitions fixed
    by ``n`` (numba's threads), summed in index order."""
    import numba

    from .._kernels.missing import missing_diag_parallel

    n, D = X.shape
    K = means.shape[0]
    prec, log_pc = _diag_prec(precisions_cholesky, covariance_type, K, D)
    edges = _partitions(n)
    P = edges.shape[0] - 1
    log_resp = np.empty((n, K))
    lse = np.empty(n)
    nk_p, sx_p, sxx_p = np.zeros((P, K)), np.zeros((P, K, D)), np.zeros((P, K, D))
    w = np.ascontiguousarray(w)
    with numba.parallel_chunksize(1):
        missing_diag_parallel(X, shift, np.ascontiguousarray(means - shift),
                              np.ascontiguousarray(prec), np.ascontiguousarray(log_pc),
                              np.ascontiguousarray(lw), w, edges, log_resp, lse, nk_p, sx_p,
                              sxx_p)
    nk, sx, sxx = nk_p[0].copy(), sx_p[0].copy(), sxx_p[0].copy()
    for p in range(1, P):  # index order, whatever the thread count
        nk += nk_p[p]
        sx += sx_p[p]
        sxx += sxx_p[p]
    if covariance_type == "spherical":
        sxx = sxx.sum(axis=1)
    return GaussianStats(n=float(w.sum()), data_term=float(w @ lse), nk=nk, sx=sx,
                         sxx=sxx), log_resp


#: Rows per partition of the parallel full/tied pass: ``ceil(n / _PART_ROWS)`` partitions with
#: edges ``n p // P``, a function of the number of rows only (never of the thread count), summed
#: in index order, so the statistics are bit-identical for any number of threads.
_PART_ROWS = 4096
#: Rows per GEMM inside a partition (``Y`` and ``Z`` of a chunk, 2 x 256 KiB at K D = 128, stay
#: in L2).
_GEMM_ROWS = 256


def _partitions(n):
    """Partition edges (int64, P + 1) of ``n`` rows: a function of ``n`` only."""
    P = max(1, -(-n // _PART_ROWS))
    return np.array([n * p // P for p in range(P + 1)], dtype=np.int64)


#: The last missing-pattern index: ``(key, shape, index)``. The key is the rows' missing
#: patterns themselves (bit-packed), compared exactly, so a hit is the same mask, whatever array
#: holds it: the index can never be stale (another array, or the same array modified in place).
_PATTERN_CACHE = [None]


def _mask_key(X):
    """Bit-packed missing mask of ``X``: one uint64 per row for ``D <= 64`` (numba, parallel),
    the packed bytes otherwise."""
    if X.shape[1] <= 64:
        from .._kernels.missing import nan_row_keys

        return nan_row_keys(X)
    return np.packbits(np.isnan(X), axis=1)


def cached_pattern_index(X):
    """The rows of ``X`` grouped by missing pattern, reused across EM iterations.

    Parameters
    ----------
    X : ndarray of shape (n, D), float64
        NaN marks a missing entry.

    Returns
    -------
    order, starts, miss, n_miss, pat : int64 ndarrays
        As :func:`_pattern_index`, plus ``pat`` (n,): the pattern of ``order[j]``. Recomputed
        whenever the missing mask differs from the last one seen (checked exactly, O(n)).
    """
    key = _mask_key(X)
    hit = _PATTERN_CACHE[0]
    if hit is not None and hit[1] == X.shape and np.array_equal(hit[0], key):
        return hit[2]
    order, starts, miss, n_miss = _pattern_index(np.isnan(X))
    pat = np.repeat(np.arange(n_miss.shape[0], dtype=np.int64), np.diff(starts))
    index = (order, starts, np.ascontiguousarray(miss), n_miss, pat)
    _PATTERN_CACHE[0] = (key, X.shape, index)  # one assignment: safe under threads
    return index


def _pattern_rows(X, w, shift, cache):
    """The pattern index of ``X`` (:func:`cached_pattern_index`) and its rows in pattern order,
    minus ``shift``, 0 at NaN, with their weights
    (:func:`latentkit._kernels.missing.pattern_sorted_rows`).

    ``cache`` (a dict, or None) keeps them between EM iterations: it is tied to the array
    ``X`` (the same object) and the weights (compared exactly) and cleared when either differs;
    the rows are rebuilt when ``shift`` changes.
    """
    from .._kernels.missing import pattern_sorted_rows

    if cache is None:
        cache = {}
    held = cache.get("of")
    if held is None or held[0] is not X or not (held[1] is w or np.array_equal(held[1], w)):
        cache.clear()
        cache["of"] = (X, w)
        cache["index"] = cached_pattern_index(X)
    rows = cache.get("rows")
    if rows is None or not np.array_equal(rows[0], shift):
        rows = cache["rows"] = (shift.copy(),) + pattern_sorted_rows(X, cache["index"][0],
                                                                     shift, w)
    return cache["index"], rows[1], rows[2]


def _full_stats(X, w, lw, means, precisions_cholesky, covariance_type, shift, return_log_resp,
                cache):
    """Statistics and log-responsibilities of all rows of ``X`` (NaN = missing), full/tied:
    one parallel pass (:func:`latentkit._kernels.missing.missing_full_parallel`) over the rows
    in pattern order (:func:`_pattern_rows`), partitions fixed by ``n``, summed in index
    order."""
    import numba

    from .. import _threads
    from .._kernels.missing import missing_full_parallel

    n, D = X.shape
    K = means.shape[0]
    tied = covariance_type == "tied"
    shift = np.ascontiguousarray(shift)
    (order, _, miss, n_miss, pat), Xs, ws = _pattern_rows(X, np.ascontiguousarray(w), shift,
                                                          cache)
    edges = _partitions(n)
    n_parts = edges.shape[0] - 1
    U, P = _full_factors(precisions_cholesky, covariance_type, K, D)
    ucat = np.ascontiguousarray(U.transpose(1, 0, 2).reshape(D, K * D))
    bcat = np.ascontiguousarray(np.einsum("kd,kde->ke", means - shift, U).reshape(K * D))
    const = np.ascontiguousarray(lw + np.broadcast_to(
        log_det_cholesky(precisions_cholesky, covariance_type, D), (K,)) - 0.5 * D * _LOG_2PI)
    lse = np.empty(n)
    lr_sorted = np.empty((n, K)) if return_log_resp else None
    nk_p = np.zeros((n_parts, K))
    sx_p = np.zeros((n_parts, K, D))
    sxx_p = np.zeros((n_parts, D, D if tied else K * D))
    sxc_p = np.zeros((n_parts, K, D))
    sxxc_p = np.zeros((n_parts, K, D, D))
    with _threads.blas_single_thread(), numba.parallel_chunksize(1):
        missing_full_parallel(Xs, ws, pat, miss, n_miss, edges, _GEMM_ROWS, ucat, bcat, U, P,
                              const, tied, lse, lr_sorted, nk_p, sx_p, sxx_p, sxc_p, sxxc_p)
    nk, sx, sxx, sxx_c = nk_p[0].copy(), sx_p[0] + sxc_p[0], sxx_p[0].copy(), sxxc_p[0].copy()
    for p in range(1, n_parts):  # index order, whatever the thread count
        nk += nk_p[p]
        sx += sx_p[p] + sxc_p[p]
        sxx += sxx_p[p]
        sxx_c += sxxc_p[p]
    if tied:
        sxx = sxx + sxx_c.sum(axis=0)
        sxx = 0.5 * (sxx + sxx.T)
    else:
        sxx = sxx.reshape(D, K, D).transpose(1, 0, 2) + sxx_c
        sxx = 0.5 * (sxx + sxx.transpose(0, 2, 1))
    log_resp = None
    if return_log_resp:
        log_resp = np.empty((n, K))
        log_resp[order] = lr_sorted
    return GaussianStats(n=float(w.sum()), data_term=float(ws @ lse), nk=nk, sx=sx,
                         sxx=np.ascontiguousarray(sxx)), log_resp


def conditional_impute(X, log_weights, means, precisions_cholesky, covariance_type, *,
                       shift=None, return_std=False, resp=None):
    """Conditional means (and standard deviations) of the missing entries under a mixture.

    ``E[x_m | x_o] = sum_k p(k | x_o) E[x_m | x_o, k]`` and ``Var[x_m | x_o] = sum_k p(k |
    x_o) (Var[x_m | x_o, k] + E[x_m | x_o, k]^2) - E[x_m | x_o]^2`` (law of total variance).

    Parameters
    ----------
    X : ndarray of shape (n, D)
        NaN marks a missing entry.
    log_weights : ndarray of shape (K,)
        ``log pi_k``, nats.
    means : ndarray of shape (K, D)
    precisions_cholesky : ndarray
        (K, D, D), (D, D), (K, D) or (K,).
    covariance_type : {'full', 'tied', 'diag', 'spherical'}
    shift : ndarray of shape (D,), optional
    return_std : bool, default False
    resp : ndarray of shape (n, K), optional
        Component posteriors to use instead of ``p(k | x_o)`` (e.g. the smoothed state
        posteriors of an HMM, which also condition on the other time steps); rows sum to 1.

    Returns
    -------
    X_imputed : ndarray of shape (n, D)
        A copy of ``X``, missing entries replaced by their conditional means (units of X).
    std : ndarray of shape (n, D)
        Only when ``return_std``: conditional standard deviations (0 at observed entries).

    Source: Ghahramani & Jordan (1994) section 3 (the conditional expectations of the E-step);
    Little & Rubin (2002) section 11.2.
    """
    check_covariance_type(covariance_type)
    X = np.asarray(X, dtype=np.float64)
    means = np.asarray(means, dtype=np.float64)
    K, D = means.shape
    shift = np.zeros(D) if shift is None else np.asarray(shift, dtype=np.float64)
    lw = np.broadcast_to(np.asarray(log_weights, dtype=np.float64), (K,))
    mask = np.isnan(X)
    out = X.copy()
    var = np.zeros(X.shape)
    if covariance_type in ("diag", "spherical"):
        prec, log_pc = _diag_prec(precisions_cholesky, covariance_type, K, D)
        x0 = np.where(mask, 0.0, X - shift)
        r = resp if resp is not None else _softmax(
            _diag_log_prob(x0, (~mask).astype(np.float64), means - shift, prec, log_pc) + lw)[0]
        mean = r @ means
        second = r @ (means ** 2 + 1.0 / prec)
        out[mask] = mean[mask]
        var[mask] = (second - mean ** 2)[mask]
    else:
        for rows, m, _, lp, e, cond_cov, _ in _pattern_passes(X, mask, means, precisions_cholesky,
                                                           covariance_type, shift):
            r = resp[rows] if resp is not None else _softmax(lp + lw)[0]
            mean = np.einsum("nk,nkq->nq", r, e)
            second = np.einsum("nk,nkq->nq", r, e * e) + r @ np.diagonal(cond_cov, axis1=1,
                                                                          axis2=2)
            out[rows[:, None], m] = mean + shift[m]
            var[rows[:, None], m] = second - mean ** 2
    if return_std:
        return out, np.sqrt(np.maximum(var, 0.0))
    return out


def marginal_log_predictive(nw, X):
    """Posterior predictive log densities of the observed entries under Normal-Wishart (or
    Normal-Gamma) factors, NaN = missing.

    The predictive of each component is a Student-t (Bishop 2006, eqs. 10.81-10.82; diag: a
    product of univariate t's; spherical: a D nu-dof t); the marginal of a multivariate t on
    a subset of coordinates is the t with the same degrees of freedom and the sub-block of
    its scale matrix (Kotz & Nadarajah 2004, section 1.10), so each row uses its observed
    coordinates only.

    Parameters
    ----------
    nw : latentkit.distributions.NormalWishart
    X : ndarray of shape (n, D)
        NaN marks a missing entry; a fully missing row gets 0.

    Returns
    -------
    ndarray of shape (n, K)
        Nats; equal to ``nw.log_predictive(X)`` on rows without NaN.
    """
    X = np.asarray(X, dtype=np.float64)
    mask = np.isnan(X)
    if not mask.any():
        return nw.log_predictive(X)
    ct, D, K = nw.covariance_type, nw.n_features, nw.n_components
    fac = nw.beta / (1.0 + nw.beta)
    if ct == "diag":
        out = np.empty((X.shape[0], K))
        for k in range(K):
            L = fac[k] * nw.dof[k] / nw.scatter[k]
            t = student_t_logpdf((X - nw.means[k]) ** 2 * L, np.log(L), nw.dof[k], 1)
            out[:, k] = np.where(mask, 0.0, t).sum(axis=1)
        return out
    U = nw.precisions_cholesky()
    p = (~mask).sum(axis=1)[:, None].astype(np.float64)
    if ct == "spherical":
        half_logdet = p * np.log(U)[None, :]
        lp = marginal_log_gaussian_prob(X, nw.means, U, ct)
        dof_t, scale = D * nw.dof, fac
    else:
        lp = np.empty((X.shape[0], K))
        half_logdet = np.empty((X.shape[0], K))
        for rows, m, _, lpp, _, _, const in _pattern_passes(X, mask, nw.means, U, ct,
                                                            np.zeros(D), skip_complete=False):
            lp[rows] = lpp
            half_logdet[rows] = const + 0.5 * (D - m.shape[0]) * _LOG_2PI
        dof_t = nw.dof + 1.0 - D
        scale = fac * dof_t / nw.dof
    maha = -2.0 * (lp - half_logdet + 0.5 * p * _LOG_2PI)
    return student_t_logpdf(maha * scale, p * np.log(scale) + 2.0 * half_logdet, dof_t, p)


def accumulate_missing_gaussian_stats(X, resp, means, precisions_cholesky, covariance_type, *,
                                      shift=None):
    """Expected complete-data statistics of rows with NaN for given posteriors.

    Like :func:`latentkit.distributions.accumulate_gaussian_stats`, with each row completed by
    the conditional distribution of its missing entries under each component (for models whose
    posteriors come from elsewhere, e.g. the forward-backward pass of an HMM):
    ``sx_k = sum_i r_ik (E[x_i | x_i,o, k] - shift)``, ``sxx_k = sum_i r_ik E[(x_i -
    shift)(x_i - shift)^T | x_i,o, k]``.

    Parameters
    ----------
    X : ndarray of shape (n, D)
        NaN marks a missing entry.
    resp : ndarray of shape (n, K)
        Posterior weights (rows need not sum to 1).
    means : ndarray of shape (K, D)
        The parameters the posteriors were computed with.
    precisions_cholesky : ndarray
        (K, D, D), (D, D), (K, D) or (K,).
    covariance_type : {'full', 'tied', 'diag', 'spherical'}
    shift : ndarray of shape (D,), optional

    Returns
    -------
    nk, sx, sxx : ndarrays
        Shapes as :class:`GaussianStats`.

    Source: Ghahramani & Jordan (1994) section 3.
    """
    check_covariance_type(covariance_type)
    X = np.asarray(X, dtype=np.float64)
    resp = np.asarray(resp, dtype=np.float64)
    means = np.asarray(means, dtype=np.float64)
    K, D = means.shape
    shift = np.zeros(D) if shift is None else np.asarray(shift, dtype=np.float64)
    mask = np.isnan(X)
    x0 = np.where(mask, 0.0, X - shift)
    nk, sx, sxx = accumulate_gaussian_stats(x0, resp, covariance_type)
    if not mask.any():
        return nk, sx, sxx
    if covariance_type in ("diag", "spherical"):
        prec, _ = _diag_prec(precisions_cholesky, covariance_type, K, D)
        mass = resp.T @ mask.astype(np.float64)
        means_c = means - shift
        extra = mass * (means_c ** 2 + 1.0 / prec)
        return nk, sx + mass * means_c, sxx + (extra.sum(axis=1) if covariance_type ==
                                               "spherical" else extra)
    sxx_c = np.zeros((K, D, D))
    for rows, m, xr, _, e, cond_cov, _ in _pattern_passes(X, mask, means, precisions_cholesky,
                                                          covariance_type, shift):
        rw = resp[rows]
        sx[:, m] += np.einsum("nk,nkq->kq", rw, e)
        cross = np.einsum("nd,nkq->kdq", xr, e * rw[:, :, None])
        sxx_c[:, :, m] += cross
        sxx_c[:, m, :] += cross.transpose(0, 2, 1)
        sxx_c[:, m[:, None], m] += (np.einsum("nkq,nkr->kqr", e * rw[:, :, None], e)
                                    + rw.sum(axis=0)[:, None, None] * cond_cov)
    return nk, sx, sxx + (sxx_c.sum(axis=0) if covariance_type == "tied" else sxx_c)
