"""Naive NumPy oracles of the Gaussian kernels and block (row by row, component by component;
slow on purpose, obviously correct). Compared to :mod:`latentkit._kernels.gaussian` and
:mod:`latentkit.distributions._gaussian` to 1e-10 in ``tests/distributions``."""

import math

import numpy as np

__all__ = ["oracle_log_gaussian_prob", "oracle_log_resp", "oracle_gaussian_stats"]


def _full_cov(covariances, covariance_type, K, D):
    c = np.asarray(covariances, dtype=float)
    if covariance_type == "full":
        return c
    if covariance_type == "tied":
        return np.broadcast_to(c, (K, D, D))
    if covariance_type == "diag":
        return np.stack([np.diag(c[k]) for k in range(K)])
    return np.stack([c[k] * np.eye(D) for k in range(K)])


def oracle_log_gaussian_prob(X, means, covariances, covariance_type):
    """``log N(x_i | mu_k, Sigma_k)`` by the textbook formula with ``inv`` and ``slogdet``.

    Parameters
    ----------
    X : ndarray of shape (n, D)
    means : ndarray of shape (K, D)
    covariances : ndarray of the covariance_type's shape
    covariance_type : {'full', 'tied', 'diag', 'spherical'}

    Returns
    -------
    ndarray of shape (n, K), nats

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.testing import oracle_log_gaussian_prob
    >>> X = np.zeros((1, 1))
    >>> lp = oracle_log_gaussian_prob(X, np.zeros((1, 1)), np.ones((1, 1, 1)), "full")
    >>> round(float(lp[0, 0]), 6), round(float(-0.5 * np.log(2 * np.pi)), 6)
    (-0.918939, -0.918939)
    """
    X = np.asarray(X, dtype=float)
    K, D = np.shape(means)
    covs = _full_cov(covariances, covariance_type, K, D)
    out = np.empty((X.shape[0], K))
    for k in range(K):
        inv = np.linalg.inv(covs[k])
        _, logdet = np.linalg.slogdet(covs[k])
        for i in range(X.shape[0]):
            d = X[i] - means[k]
            out[i, k] = -0.5 * (D * math.log(2 * math.pi) + logdet + d @ inv @ d)
    return out


def oracle_log_resp(log_rho, w):
    """Row-wise normalisation: ``(log_resp, w_i * resp, lse)`` from unnormalised log rho.

    Parameters
    ----------
    log_rho : ndarray of shape (n, K)
    w : ndarray of shape (n,)

    Returns
    -------
    log_resp : ndarray of shape (n, K)
    resp : ndarray of shape (n, K)
        Weighted responsibilities.
    lse : ndarray of shape (n,)

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.testing import oracle_log_resp
    >>> log_resp, resp, lse = oracle_log_resp(np.log([[1.0, 3.0]]), np.ones(1))
    >>> resp, np.round(lse, 6)  # log(1 + 3)
    (array([[0.25, 0.75]]), array([1.386294]))
    """
    log_rho = np.asarray(log_rho, dtype=float)
    lse = np.array([math.log(sum(math.exp(v - row.max()) for v in row)) + row.max()
                    for row in log_rho])
    log_resp = log_rho - lse[:, None]
    return log_resp, np.exp(log_resp) * np.asarray(w)[:, None], lse


def oracle_gaussian_stats(X, resp, covariance_type, sample_weight=None, shift=None):
    """``(nk, sx, sxx)`` by explicit loops over samples (see ``accumulate_gaussian_stats``).

    Parameters
    ----------
    X : ndarray of shape (n, D)
    resp : ndarray of shape (n, K)
    covariance_type : {'full', 'tied', 'diag', 'spherical'}
    sample_weight : ndarray of shape (n,), optional
    shift : ndarray of shape (D,), optional

    Returns
    -------
    nk : (K,), sx : (K, D), sxx : (K, D, D) | (D, D) | (K, D) | (K,)

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.testing import oracle_gaussian_stats
    >>> X = np.array([[0.0, 0.0], [2.0, 4.0]])
    >>> resp = np.ones((2, 1))
    >>> nk, sx, sxx = oracle_gaussian_stats(X, resp, "diag")
    >>> nk, sx, sxx
    (array([2.]), array([[2., 4.]]), array([[ 4., 16.]]))
    """
    X = np.asarray(X, dtype=float)
    n, D = X.shape
    K = resp.shape[1]
    w = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    c = np.zeros(D) if shift is None else np.asarray(shift, dtype=float)
    nk = np.zeros(K)
    sx = np.zeros((K, D))
    full = np.zeros((K, D, D))
    for i in range(n):
        d = X[i] - c
        for k in range(K):
            r = w[i] * resp[i, k]
            nk[k] += r
            sx[k] += r * d
            full[k] += r * np.outer(d, d)
    if covariance_type == "full":
        sxx = full
    elif covariance_type == "tied":
        sxx = full.sum(axis=0)
    elif covariance_type == "diag":
        sxx = np.stack([np.diag(full[k]) for k in range(K)])
    else:
        sxx = np.array([np.trace(full[k]) for k in range(K)])
    return nk, sx, sxx
