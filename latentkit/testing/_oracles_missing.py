"""Naive oracles of the missing-data Gaussian block (:mod:`latentkit.distributions._missing`):
row by row, component by component, with the textbook partitioned-Gaussian formulas
(``Sigma_mo Sigma_oo^{-1}``, ``inv``, scipy's ``multivariate_normal``)."""

import numpy as np
from scipy.special import logsumexp
from scipy.stats import multivariate_normal

from ._oracles_gaussian import _full_cov

__all__ = ["oracle_marginal_log_prob", "oracle_missing_stats", "oracle_conditional"]


def oracle_marginal_log_prob(X, means, covariances, covariance_type):
    """``log N(x_i,o | mu_k,o, Sigma_k,oo)`` (n, K) by scipy on each row's observed
    coordinates; 0 for a fully missing row."""
    X = np.asarray(X, dtype=float)
    K, D = np.shape(means)
    covs = _full_cov(covariances, covariance_type, K, D)
    out = np.zeros((X.shape[0], K))
    for i, x in enumerate(X):
        o = ~np.isnan(x)
        if o.any():
            for k in range(K):
                out[i, k] = multivariate_normal(means[k][o], covs[k][np.ix_(o, o)]).logpdf(x[o])
    return out


def oracle_conditional(x, mean, cov):
    """Conditional mean (D,) (observed entries kept) and covariance (D, D) (zero outside the
    missing block) of one row under one Gaussian: ``mu_m + Sigma_mo Sigma_oo^{-1} (x_o -
    mu_o)``, ``Sigma_mm - Sigma_mo Sigma_oo^{-1} Sigma_om``."""
    m = np.isnan(x)
    o = ~m
    xh = np.array(x, dtype=float)
    C = np.zeros((x.shape[0], x.shape[0]))
    if m.any():
        if o.any():
            A = cov[np.ix_(m, o)] @ np.linalg.inv(cov[np.ix_(o, o)])
            xh[m] = mean[m] + A @ (x[o] - mean[o])
            C[np.ix_(m, m)] = cov[np.ix_(m, m)] - A @ cov[np.ix_(o, m)]
        else:
            xh[m] = mean[m]
            C[np.ix_(m, m)] = cov
    return xh, C


def oracle_missing_stats(X, weights, means, covariances, covariance_type, sample_weight=None,
                         shift=None):
    """Expected complete-data statistics ``(n, data_term, nk, sx, sxx)`` of a mixture with
    NaN entries (Ghahramani & Jordan 1994), in :class:`GaussianStats`' shapes."""
    X = np.asarray(X, dtype=float)
    n = X.shape[0]
    K, D = np.shape(means)
    covs = _full_cov(covariances, covariance_type, K, D)
    w = np.ones(n) if sample_weight is None else np.asarray(sample_weight, float)
    c = np.zeros(D) if shift is None else np.asarray(shift, float)
    lp = oracle_marginal_log_prob(X, means, covariances, covariance_type) + np.log(weights)
    lse = logsumexp(lp, axis=1)
    r = np.exp(lp - lse[:, None]) * w[:, None]
    nk, sx, sxx = r.sum(axis=0), np.zeros((K, D)), np.zeros((K, D, D))
    for i in range(n):
        for k in range(K):
            xh, C = oracle_conditional(X[i], means[k], covs[k])
            z = xh - c
            sx[k] += r[i, k] * z
            sxx[k] += r[i, k] * (np.outer(z, z) + C)
    sxx = {"full": sxx, "tied": sxx.sum(axis=0), "diag": np.diagonal(sxx, axis1=1, axis2=2),
           "spherical": np.trace(sxx, axis1=1, axis2=2)}[covariance_type]
    return float(w.sum()), float(w @ lse), nk, sx, sxx
