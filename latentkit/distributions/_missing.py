"""Missing data in the Gaussian block, marginalised exactly.

``NaN`` entries of ``X`` mean "not observed" (missing at random). For a row ``x`` with observed
coordinates ``o`` and missing ones ``m`` and a component ``k`` with mean ``mu`` and precision
``Lambda = U U^T``:

- **E-step.** The marginal of a Gaussian is a Gaussian, so the row's likelihood under ``k`` is
  ``N(x_o | mu_o, Sigma_oo)``. It is computed without factorising ``Sigma_oo``: with
  ``x0`` the row with its missing entries set to 0 (after the shift), ``d = x0 - mu``,
  ``v = Lambda d`` and ``g = v[m] = Lambda_{m,:} d``, the conditional mean of the missing
  entries is ``xhat_m = -Lambda_mm^{-1} g`` (Bishop 2006, eq. 2.75 written with ``x0``), their
  conditional covariance ``C = Lambda_mm^{-1}`` (eq. 2.73), the Mahalanobis distance of the
  marginal ``d . v + xhat_m . g`` (the Schur complement ``Sigma_oo^{-1} = Lambda_oo -
  Lambda_om Lambda_mm^{-1} Lambda_mo``), and ``log det Sigma_oo = log det Sigma + log det
  Lambda_mm``. Only the small ``|m| x |m|`` block is factorised, once per missing pattern and
  component: rows with the same pattern are processed together.
- **M-step.** The expected complete-data sufficient statistics (Ghahramani & Jordan 1994):
  ``sum r xhat`` and ``sum r (xhat xhat^T + C)`` with ``xhat`` the row completed by the
  conditional mean under ``k``. They are ordinary :class:`GaussianStats` (same shapes, same
  shift), so the closed-form M-step, chunked and streaming fits, ``partial_fit`` and Dask use
  them unchanged. The expected scatter ``x0 x0^T + x0 e^T + e x0^T + e e^T + C`` (``e`` the
  conditional mean placed on ``m``) costs one BLAS GEMM per chunk of rows, as in the
  complete-data E-step: ``x0^T [r_1 (x0 + 2 e_1), ..., r_K (x0 + 2 e_K)]``, whose symmetric
  part is the first three terms (``x0`` is 0 on ``m``); only ``e e^T`` and ``C`` are added
  per pattern on the ``|m| x |m|`` block
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
for any number of threads (``tests/parallel/test_thread_independence.py``).

Memory traffic (full / tied): the rows are grouped by missing pattern (a sort, 20-35 ms at 200k
rows, cached across calls keyed on the missing mask itself, :func:`cached_pattern_index`) and
copied once in that order, shifted, with zeros at the missing entries
(:func:`latentkit._kernels.missing.pattern_sorted_rows`), so the kernel streams contiguous
memory. A fit keeps the copy on its data object (``cache=`` of
:func:`missing_gaussian_e_step`: one more array the size of ``X`` while the fit runs).

The per-pattern formulas in NumPy (marginal densities, imputation, statistics under given
posteriors, the variational predictive) live in
:mod:`latentkit.distributions._missing_conditional` and are re-exported here.

Speed: see ``benchmarks/bench_missing.py`` and the numbers in its docstring.

Source: Ghahramani & Jordan (1994), *Supervised learning from incomplete data via an EM
approach*, NIPS 6, section 3 (E-step eqs. for the missing block); Little & Rubin (2002),
*Statistical Analysis with Missing Data*, ch. 11; Bishop (2006) section 2.3.1-2.3.2 (partitioned
Gaussians).
"""

import numpy as np

from .._kernels.missing import (missing_diag_parallel, missing_full_parallel, nan_column_stats,
                                nan_row_keys, pattern_sorted_rows)
from .._utils import threads as _threads
from .._utils.summaries import MissingMomentSummary, MomentSummary
from .._utils.validation import check_array, check_n_features
from ._gaussian import _LOG_2PI, GaussianStats, log_det_cholesky
from ._gaussian_estep import (_gemm_partitions, _sum_partitions, e_step_inputs,
                              gaussian_mixture_e_step)
from ._missing_conditional import (_diag_prec, _full_factors, _pattern_index,  # noqa: F401
                                   accumulate_missing_gaussian_stats, conditional_impute,
                                   group_missing_patterns, marginal_log_gaussian_prob,
                                   marginal_log_predictive)
from ..exceptions import InputError

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
    "policy_e_step",
]

MISSING_OPTIONS = ("error", "marginalize")


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
        raise InputError(
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
        As :func:`latentkit._utils.validation.check_array`, and for infinite entries (infinity is
        not "missing").
    """
    X = check_array(X, name, ensure_finite=False)
    if np.isinf(X).any():
        raise InputError(
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
    latentkit._utils.summaries.MomentSummary
        With ``missing='marginalize'`` a :class:`latentkit._utils.summaries.MissingMomentSummary`:
        means of the observed entries, the scatter over the pairs observed together, merged
        exactly across chunks, so a chunked fit takes the same defaults as the in-memory one.
    """
    if missing == "marginalize":
        return MissingMomentSummary.of(X, w, diagonal=diagonal)
    return MomentSummary.of(X, w, diagonal=diagonal)


def missing_gaussian_e_step(X, log_weights, means, precisions_cholesky, covariance_type, *,
                            sample_weight=None, shift=None, return_log_resp=False, cache=None):
    """E-step of a Gaussian mixture with missing entries (NaN), marginalised exactly.

    Same contract as :func:`latentkit.distributions.gaussian_mixture_e_step` (which it calls
    when ``X`` has no NaN; otherwise every row, complete or not, goes through the missing-data
    pass): ``log rho_ik = log_weights_k + log N(x_i,o | mu_k,o, Sigma_k,oo)``, ``r_ik = rho_ik /
    sum_j rho_ij``, ``data_term = sum_i w_i log sum_k rho_ik``; the statistics are the expected complete-data ones, ``sx_k = sum_i w_i r_ik
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
    X, means, shift, w = e_step_inputs(X, means, covariance_type, shift, sample_weight)
    K = means.shape[0]
    lw = np.broadcast_to(np.asarray(log_weights, dtype=np.float64), (K,))
    if not np.isnan(np.add.reduce(X, axis=None)):  # one pass, no (n, D) mask: no NaN
        return gaussian_mixture_e_step(X, lw, means, precisions_cholesky, covariance_type,
                                       sample_weight=w, shift=shift,
                                       return_log_resp=return_log_resp)
    if covariance_type in ("diag", "spherical"):  # one fused pass over all rows
        stats, log_resp = _diag_partial_stats(X, w, lw, means, precisions_cholesky,
                                              covariance_type, shift)
    else:
        stats, log_resp = _full_stats(X, w, lw, means, precisions_cholesky, covariance_type,
                                      shift, return_log_resp, cache)
    return (stats, log_resp) if return_log_resp else stats


def policy_e_step(missing, X, log_weights, means, precisions_cholesky, covariance_type, *,
                  sample_weight=None, shift=None, return_log_resp=False, cache=None):
    """The E-step for a model's ``missing`` policy: :func:`missing_gaussian_e_step` (with the
    fit's ``cache``) for 'marginalize', else :func:`gaussian_mixture_e_step` (which ignores
    ``cache``). The one place GaussianMixture and GaussianComponent make that choice."""
    if missing == "marginalize":
        return missing_gaussian_e_step(X, log_weights, means, precisions_cholesky,
                                       covariance_type, sample_weight=sample_weight, shift=shift,
                                       return_log_resp=return_log_resp, cache=cache)
    return gaussian_mixture_e_step(X, log_weights, means, precisions_cholesky, covariance_type,
                                   sample_weight=sample_weight, shift=shift,
                                   return_log_resp=return_log_resp)


def _diag_partial_stats(X, w, lw, means, precisions_cholesky, covariance_type, shift):
    """Statistics and log-responsibilities of rows with or without NaN, diag/spherical: the
    fused :func:`latentkit._kernels.missing.missing_diag_parallel` over row partitions fixed
    by ``n`` (numba's threads), summed in index order."""
    import numba

    n, D = X.shape
    K = means.shape[0]
    prec, log_pc = _diag_prec(precisions_cholesky, covariance_type, K, D)
    edges = _partitions(n)
    P = edges.shape[0] - 1
    log_resp = np.empty((n, K))
    lse = np.empty(n)
    nk_p, sx_p, sxx_p = np.zeros((P, K)), np.zeros((P, K, D)), np.zeros((P, K, D))
    with numba.parallel_chunksize(1):
        missing_diag_parallel(X, shift, np.ascontiguousarray(means - shift),
                              np.ascontiguousarray(prec), np.ascontiguousarray(log_pc),
                              np.ascontiguousarray(lw), w, edges, log_resp, lse, nk_p, sx_p,
                              sxx_p)
    nk, sx, sxx = _sum_partitions(nk_p), _sum_partitions(sx_p), _sum_partitions(sxx_p)
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
    return _gemm_partitions(n, _PART_ROWS)


#: The last missing-pattern index: ``(key, shape, index)``. The key is the rows' missing
#: patterns themselves (bit-packed), compared exactly, so a hit is the same mask, whatever array
#: holds it: the index can never be stale (another array, or the same array modified in place).
_PATTERN_CACHE = [None]


def _mask_key(X):
    """Bit-packed missing mask of ``X``: one uint64 per row for ``D <= 64`` (numba, parallel),
    the packed bytes otherwise."""
    if X.shape[1] <= 64:
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

    n, D = X.shape
    K = means.shape[0]
    tied = covariance_type == "tied"
    (order, _, miss, n_miss, pat), Xs, ws = _pattern_rows(X, w, shift, cache)
    edges = _partitions(n)
    n_parts = edges.shape[0] - 1
    _, P = _full_factors(precisions_cholesky, covariance_type, K, D)
    pcat = np.ascontiguousarray(P.transpose(1, 0, 2).reshape(D, K * D))
    means_c = np.ascontiguousarray(means - shift)
    hcat = np.ascontiguousarray(np.einsum("kd,kde->ke", means_c, P).reshape(K * D))
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
        missing_full_parallel(Xs, ws, pat, miss, n_miss, edges, _GEMM_ROWS, pcat, hcat,
                              means_c, P, const, tied, lse, lr_sorted, nk_p, sx_p, sxx_p, sxc_p,
                              sxxc_p)
    nk, sxx, sxx_c = _sum_partitions(nk_p), _sum_partitions(sxx_p), _sum_partitions(sxxc_p)
    sx = sx_p[0] + sxc_p[0]
    for p in range(1, n_parts):  # index order, whatever the thread count
        sx += sx_p[p] + sxc_p[p]
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
