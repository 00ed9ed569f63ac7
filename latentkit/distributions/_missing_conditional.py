"""The conditional Gaussians of each missing pattern, in NumPy: the rows grouped by pattern
(:func:`group_missing_patterns`), marginal log densities of the observed entries
(:func:`marginal_log_gaussian_prob`), imputation (:func:`conditional_impute`), expected
complete-data statistics under posteriors computed elsewhere
(:func:`accumulate_missing_gaussian_stats`, for the HMMs) and the variational predictive
(:func:`marginal_log_predictive`). Split from :mod:`latentkit.distributions._missing` (which
holds the options, validation and the fused E-steps of the fits): these are the per-pattern
formulas of its docstring, vectorised over the rows of one pattern (full / tied) or over all
rows (diag / spherical), run once per prediction rather than once per EM iteration.

Source: Bishop (2006) section 2.3.1-2.3.2 (partitioned Gaussians), eqs. (2.73)-(2.75),
(2.92)-(2.93); Ghahramani & Jordan (1994) section 3; Little & Rubin (2002) section 11.2.
"""

import numpy as np

from ._gaussian import (_LOG_2PI, accumulate_gaussian_stats, check_covariance_type,
                        log_det_cholesky, log_gaussian_prob)
from ._normal_wishart import student_t_logpdf

__all__ = [
    "accumulate_missing_gaussian_stats",
    "conditional_impute",
    "group_missing_patterns",
    "marginal_log_gaussian_prob",
    "marginal_log_predictive",
]


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
