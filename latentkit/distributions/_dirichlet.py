"""Dirichlet helpers shared by the conjugate (mean-field) models.

LatentDirichletAllocation uses them for its topic and document-topic factors; the variational and
Dirichlet-process mixtures use them for their weights. All functions work along the **last
axis**, so a (K, V) array holds K Dirichlet distributions over V categories, and they are plain
NumPy/SciPy (vectorised; no numba needed at these sizes).
"""

import numpy as np
from scipy.special import gammaln, psi, xlogy
from ..exceptions import InputError

__all__ = [
    "dirichlet_expectation",
    "dirichlet_log_normalizer",
    "dirichlet_kl",
    "dirichlet_logpdf",
]


def _check_concentration(alpha, name):
    a = np.asarray(alpha, dtype=np.float64)
    if a.ndim == 0:
        raise InputError(f"{name} must have at least one dimension (the categories), got a scalar.")
    if a.size == 0 or not np.all(np.isfinite(a)) or np.any(a <= 0):
        raise InputError(f"{name} must be finite and strictly positive, got min "
                         f"{np.min(a) if a.size else 'n/a'} over shape {a.shape}.")
    return a


def dirichlet_expectation(alpha):
    """Expected log of a Dirichlet variable, ``E[log theta_i] = psi(alpha_i) - psi(sum_j alpha_j)``.

    Parameters
    ----------
    alpha : array-like of shape (..., n_categories)
        Concentration parameters (> 0); each row along the last axis is one distribution.

    Returns
    -------
    ndarray of shape (..., n_categories), float64
        ``E[log theta]`` in nats (each entry <= 0).

    Raises
    ------
    ValueError
        Non-positive, non-finite or scalar ``alpha``.

    Notes
    -----
    Source: Blei, Ng & Jordan (2003), JMLR 3, appendix A.1 (eq. 14-15).

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.special import digamma
    >>> from latentkit.distributions import dirichlet_expectation
    >>> alpha = np.array([1.0, 2.0, 3.0])
    >>> np.round(dirichlet_expectation(alpha), 6)  # E[log theta_k] = psi(alpha_k) - psi(sum alpha)
    array([-2.283333, -1.283333, -0.783333])
    >>> np.round(digamma(alpha) - digamma(6.0), 6)
    array([-2.283333, -1.283333, -0.783333])
    """
    a = _check_concentration(alpha, "alpha")
    return psi(a) - psi(a.sum(axis=-1, keepdims=True))


def dirichlet_log_normalizer(alpha):
    """Log of the multivariate Beta function, ``log B(alpha) = sum_i lnGamma(alpha_i) - lnGamma(sum_i alpha_i)``.

    The Dirichlet density is ``exp(sum_i (alpha_i - 1) log theta_i - log B(alpha))``.

    Parameters
    ----------
    alpha : array-like of shape (..., n_categories)
        Concentration parameters (> 0).

    Returns
    -------
    ndarray of shape (...) (a float for one distribution)
        ``log B(alpha)`` in nats.

    Raises
    ------
    ValueError
        Non-positive, non-finite or scalar ``alpha``.

    Notes
    -----
    Source: Bishop (2006), Pattern Recognition and Machine Learning, eq. (B.16)-(B.17).

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.distributions import dirichlet_log_normalizer
    >>> round(float(dirichlet_log_normalizer(np.ones(3))), 6)  # 3 log Gamma(1) - log Gamma(3)
    -0.693147
    """
    a = _check_concentration(alpha, "alpha")
    out = gammaln(a).sum(axis=-1) - gammaln(a.sum(axis=-1))
    return float(out) if out.ndim == 0 else out


def dirichlet_kl(q, p):
    """Kullback-Leibler divergence ``KL(Dir(q) || Dir(p))`` along the last axis.

    ``KL = lnGamma(q0) - sum_i lnGamma(q_i) - lnGamma(p0) + sum_i lnGamma(p_i)
    + sum_i (q_i - p_i) (psi(q_i) - psi(q0))`` with ``q0 = sum_i q_i``, ``p0 = sum_i p_i``.

    Parameters
    ----------
    q : array-like of shape (..., n_categories)
        Concentration of the first (variational) distribution(s), > 0.
    p : float or array-like broadcastable to ``q``'s shape
        Concentration of the second (prior) distribution(s), > 0. A scalar means a symmetric
        Dirichlet with that concentration in every category.

    Returns
    -------
    ndarray of shape (...) (a float for one distribution)
        The divergence in nats (>= 0).

    Raises
    ------
    ValueError
        Non-positive or non-finite concentrations, or shapes that do not broadcast.

    Notes
    -----
    Source: Blei, Ng & Jordan (2003), appendix A.3 (the Dirichlet terms of eq. 15); Penny (2001),
    "KL-divergences of Normal, Gamma, Dirichlet and Wishart densities", eq. (15).

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.distributions import dirichlet_kl
    >>> p = np.array([1.0, 1.0])
    >>> float(dirichlet_kl(p, p)), bool(dirichlet_kl(np.array([5.0, 1.0]), p) > 0)
    (0.0, True)
    """
    q = _check_concentration(q, "q")
    p_arr = np.asarray(p, dtype=np.float64)
    if p_arr.size == 0 or not np.all(np.isfinite(p_arr)) or np.any(p_arr <= 0):
        raise InputError("p must be finite and strictly positive.")
    try:
        p_arr = np.broadcast_to(p_arr, q.shape)
    except ValueError:
        raise InputError(f"p of shape {np.shape(p)} does not broadcast to q's shape {q.shape}.") \
            from None
    q0 = q.sum(axis=-1)
    e_log = psi(q) - psi(q0)[..., None]
    if np.ndim(p) == 0:  # a scalar prior: its terms from one row (the same sums, bit for bit)
        row = np.full(q.shape[-1], float(p_arr.flat[0]))
        p_sum, p_norm, q_minus_p = row.sum(), gammaln(row).sum(), q - float(p_arr.flat[0])
    else:
        p_sum, p_norm, q_minus_p = p_arr.sum(axis=-1), gammaln(p_arr).sum(axis=-1), q - p_arr
    out = (gammaln(q0) - gammaln(q).sum(axis=-1) - gammaln(p_sum)
           + p_norm + (q_minus_p * e_log).sum(axis=-1))
    return float(out) if out.ndim == 0 else out


def dirichlet_logpdf(p, alpha):
    """Log density of Dirichlet(``alpha``) at ``p`` (``0 * log 0 = 0``), nats.

    Parameters
    ----------
    p : ndarray of shape (K,)
        A point on the simplex.
    alpha : ndarray of shape (K,)
        Concentrations (> 0).

    Returns
    -------
    float
    """
    alpha = np.asarray(alpha, dtype=float)
    return float(gammaln(alpha.sum()) - gammaln(alpha).sum() + np.sum(xlogy(alpha - 1.0, p)))
