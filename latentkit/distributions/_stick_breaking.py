"""Beta stick-breaking factors of the truncated Dirichlet-process mixture.

pi_k = v_k prod_{j<k} (1 - v_j), v_k ~ Beta(a, b) (Sethuraman 1994; a = 1, b = alpha for a DP).
The variational posterior q(v_k) = Beta(gamma_k1, gamma_k2) for k <= T, and beyond T either

* ``'fixed'`` (Blei & Jordan 2006): v_T = 1, so pi_k = 0 for k > T (the last column of gamma
  is unused and stored as (1, 0));
* ``'tail'`` (Kurihara, Welling & Vlassis 2007): q(v_k) = p(v_k) for k > T (and the components
  beyond T at their prior); the infinitely many tail components then share one expected log
  weight pattern, and their total mass sum_{k>T} exp(E[ln pi_k]) is a geometric series:
  exp(S_T + E_p[ln v]) / (1 - exp(E_p[ln(1 - v)])), S_T = sum_{j<=T} E[ln(1 - v_j)].

Sources: Blei & Jordan (2006), *Variational inference for Dirichlet process mixtures*, Bayesian
Analysis 1(1), eqs. (18)-(23); Kurihara, Welling & Vlassis (2007), *Accelerated variational
Dirichlet process mixtures*, NIPS 19, section 3.
"""

import numpy as np
from scipy.special import betaln, psi

__all__ = [
    "stick_expected_log_weights",
    "stick_expected_weights",
    "stick_posterior",
    "stick_kl",
    "beta_kl",
]

TRUNCATION_METHODS = ("fixed", "tail")


def beta_kl(a, b, a0, b0):
    """KL(Beta(a, b) || Beta(a0, b0)), elementwise.

    Parameters
    ----------
    a, b : array-like
        Parameters of q (> 0).
    a0, b0 : float or array-like
        Parameters of p (> 0).

    Returns
    -------
    ndarray
        Nats (>= 0). Source: Penny (2001); the Dirichlet KL with two categories.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.distributions import beta_kl, dirichlet_kl
    >>> float(beta_kl(2.0, 3.0, 2.0, 3.0))  # KL(q || q) = 0
    0.0
    >>> round(float(beta_kl(2.0, 3.0, 1.0, 1.0)), 6)
    0.234907
    >>> round(float(dirichlet_kl(np.array([2.0, 3.0]), np.array([1.0, 1.0]))), 6)  # the same KL
    0.234907
    """
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    ab = psi(a + b)
    return (betaln(a0, b0) - betaln(a, b) + (a - a0) * (psi(a) - ab)
            + (b - b0) * (psi(b) - ab))


def stick_expected_log_weights(gamma, method, prior=(1.0, 1.0)):
    """Expected log mixture weights E[ln pi_k] of a truncated stick-breaking posterior.

    Parameters
    ----------
    gamma : ndarray of shape (2, T)
        Beta parameters (gamma_k1, gamma_k2) of q(v_k).
    method : {'fixed', 'tail'}
        Truncation (module docstring).
    prior : (float, float)
        (a, b) of the Beta prior of the sticks (used by 'tail').

    Returns
    -------
    elog : ndarray of shape (T,)
        E[ln pi_k] = E[ln v_k] + sum_{j<k} E[ln(1 - v_j)] (Blei & Jordan 2006, eq. 22), with
        E[ln v_T] = 0 for 'fixed'.
    log_tail : float
        ln sum_{k>T} exp(E[ln pi_k]) (the geometric tail of 'tail'); -inf for 'fixed'.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.distributions import stick_expected_log_weights
    >>> gamma = np.array([[1.0, 1.0, 1.0], [1.0, 1.0, 0.0]])
    >>> elog, log_tail = stick_expected_log_weights(gamma, "fixed")
    >>> np.round(np.exp(elog), 6), log_tail  # exp E[log pi_k] <= E[pi_k] = (1/2, 1/4, 1/4)
    (array([0.367879, 0.135335, 0.135335]), -inf)
    """
    g1, g2 = np.asarray(gamma[0], dtype=np.float64), np.asarray(gamma[1], dtype=np.float64)
    T = g1.shape[0]
    if method == "fixed":
        e_lv = np.zeros(T)
        e_l1v = np.zeros(T)
        if T > 1:
            s = psi(g1[:-1] + g2[:-1])
            e_lv[:-1] = psi(g1[:-1]) - s
            e_l1v[:-1] = psi(g2[:-1]) - s
    else:
        s = psi(g1 + g2)
        e_lv = psi(g1) - s
        e_l1v = psi(g2) - s
    cum = np.concatenate(([0.0], np.cumsum(e_l1v)[:-1]))
    elog = e_lv + cum
    if method == "fixed":
        return elog, -np.inf
    a, b = prior
    sp = psi(a + b)
    lv0, l1v0 = psi(a) - sp, psi(b) - sp
    log_tail = float(np.sum(e_l1v) + lv0 - np.log1p(-np.exp(l1v0)))
    return elog, log_tail


def stick_expected_weights(gamma, method):
    """Expected weights E[pi_k] = E[v_k] prod_{j<k} E[1 - v_j] (independent sticks), shape
    (T,); not renormalised: for 'tail' they sum to 1 - (expected tail mass).

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.distributions import stick_expected_weights
    >>> gamma = np.array([[1.0, 1.0, 1.0], [1.0, 1.0, 0.0]])  # E[v_k] = 1/2, then v_3 = 1
    >>> stick_expected_weights(gamma, "fixed")
    array([0.5 , 0.25, 0.25])
    """
    g1, g2 = np.asarray(gamma[0], dtype=np.float64), np.asarray(gamma[1], dtype=np.float64)
    ev = g1 / (g1 + g2)
    if method == "fixed":
        ev = ev.copy()
        ev[-1] = 1.0
    rest = np.concatenate(([1.0], np.cumprod(1.0 - ev)[:-1]))
    return ev * rest


def stick_posterior(nk, n_tail, prior, method):
    """Optimal q(v_k): gamma_k1 = a + N_k, gamma_k2 = b + sum_{j>k} N_j (+ the tail's mass).

    Parameters
    ----------
    nk : ndarray of shape (T,)
        Expected counts of the represented components.
    n_tail : float
        Expected count of the components beyond T ('tail'; 0 for 'fixed').
    prior : (float, float)
        (a, b).
    method : {'fixed', 'tail'}

    Returns
    -------
    ndarray of shape (2, T)
        (Blei & Jordan 2006, eqs. 18-19); for 'fixed' the last column is (1, 0) (v_T = 1).

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.distributions import stick_posterior
    >>> stick_posterior(np.array([5.0, 3.0, 2.0]), 0.0, (1.0, 1.0), "fixed")  # 1 + N_k, 1 + N_{>k}
    array([[6., 4., 1.],
           [6., 3., 0.]])
    """
    a, b = prior
    nk = np.asarray(nk, dtype=np.float64)
    suffix = np.concatenate((np.cumsum(nk[::-1])[::-1][1:], [0.0])) + n_tail
    g = np.vstack((a + nk, b + suffix))
    if method == "fixed":
        g[:, -1] = (1.0, 0.0)
    return g


def stick_kl(gamma, prior, method):
    """sum_k KL(q(v_k) || p(v_k)) over the free sticks (T - 1 for 'fixed', T for 'tail';
    the tail beyond T equals the prior and contributes 0), nats.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.distributions import stick_kl
    >>> gamma = np.array([[1.0, 1.0, 1.0], [1.0, 1.0, 0.0]])  # q(v_k) = the Beta(1, 1) prior
    >>> float(stick_kl(gamma, (1.0, 1.0), "fixed"))
    0.0
    """
    g = np.asarray(gamma, dtype=np.float64)
    if method == "fixed":
        g = g[:, :-1]
    if g.shape[1] == 0:
        return 0.0
    return float(beta_kl(g[0], g[1], prior[0], prior[1]).sum())
