"""The topic chains of the dynamic topic model: the variational Kalman filter and smoother,
the chains' KL term, and the M-step over the smoothed means (arrays in, values out).

Each word's natural parameter in each topic follows a Gaussian random walk over the T slices,
``beta_1 ~ N(0, v0)``, ``beta_t | beta_{t-1} ~ N(beta_{t-1}, sigma^2)``. Blei & Lafferty (2006,
section 3.1, eq. 4-7) take as variational family the posterior of that chain given
*pseudo-observations* ``beta_hat_t ~ N(beta_t, nu^2)``: a Kalman filter (forward) and a
Rauch-Tung-Striebel smoother (backward) give its means ``m_t`` and variances ``V_t``. The
variances depend on ``(v0, sigma^2, nu^2, T)`` only, so they are the same for every topic and
word; the smoothed means are linear in the pseudo-observations, ``m = Sigma beta_hat / nu^2``
with ``Sigma = (Q + I / nu^2)^{-1}`` and ``Q`` the random walk's tridiagonal precision, so
``beta_hat = m + nu^2 Q m`` inverts the smoother exactly.

The M-step maximises the bound over ``m`` (equivalently over the pseudo-observations, through
that bijection): per topic the concave function ``sum n_tw m_tw - sum_t n_t logsumexp(m_t) -
1/2 sum_w m_w^T Q m_w`` (plus terms that do not depend on ``m``), solved by Newton's method with
the exact Hessian (:mod:`latentkit._kernels.dtm`) and a backtracking line search, so the bound
never decreases.
"""

import numpy as np
from scipy.special import logsumexp

from .._kernels import dtm as _k

__all__ = ["ChainVariances", "chain_variances", "smooth_means", "pseudo_observations",
           "chain_precision", "apply_precision", "chain_kl_constant", "newton_means"]


class ChainVariances:
    """The variance side of the variational Kalman filter and smoother (the same for every
    topic and word).

    Attributes
    ----------
    filtered : ndarray of shape (T,)
        ``P_t = Var(beta_t | beta_hat_1..t)``.
    predicted : ndarray of shape (T,)
        ``Var(beta_t | beta_hat_1..t-1)`` (``v0`` at t = 1).
    gain : ndarray of shape (T - 1,)
        Smoother gains ``J_t = P_t / predicted_{t+1}``.
    smoothed : ndarray of shape (T,)
        ``V_t = Var(beta_t | beta_hat_1..T)``.
    lag_one : ndarray of shape (T - 1,)
        ``Cov(beta_t, beta_{t+1} | beta_hat_1..T) = J_t V_{t+1}``.
    """

    def __init__(self, filtered, predicted, gain, smoothed, lag_one):
        self.filtered, self.predicted, self.gain = filtered, predicted, gain
        self.smoothed, self.lag_one = smoothed, lag_one


def chain_variances(n_slices, chain_variance, obs_variance, initial_variance):
    """Variances of the variational Kalman filter and RTS smoother (Blei & Lafferty 2006,
    eq. 5 and 7, variance parts).

    Parameters
    ----------
    n_slices : int
        T.
    chain_variance, obs_variance, initial_variance : float
        ``sigma^2``, ``nu^2`` and ``v0`` (> 0).

    Returns
    -------
    ChainVariances
    """
    T = int(n_slices)
    filt, pred = np.empty(T), np.empty(T)
    p = float(initial_variance)
    for t in range(T):
        pred[t] = p
        filt[t] = p * obs_variance / (p + obs_variance)
        p = filt[t] + chain_variance
    gain = filt[:-1] / pred[1:]
    smooth = np.empty(T)
    smooth[-1] = filt[-1]
    for t in range(T - 2, -1, -1):
        smooth[t] = filt[t] + gain[t] ** 2 * (smooth[t + 1] - pred[t + 1])
    return ChainVariances(filt, pred, gain, smooth, gain * smooth[1:])


def smooth_means(obs, var, obs_variance):
    """Smoothed means of the chains given their pseudo-observations (Kalman filter forward,
    RTS smoother backward; Blei & Lafferty 2006, eq. 4-7).

    Parameters
    ----------
    obs : ndarray of shape (T, ...)
        Pseudo-observations ``beta_hat``; every trailing index is an independent chain.
    var : ChainVariances
    obs_variance : float
        ``nu^2``.

    Returns
    -------
    ndarray of the shape of ``obs``
        ``E[beta_t | beta_hat_1..T]``.
    """
    obs = np.asarray(obs, dtype=np.float64)
    T = obs.shape[0]
    filt = np.empty_like(obs)
    prev = np.zeros(obs.shape[1:])
    for t in range(T):
        k = var.predicted[t] / (var.predicted[t] + obs_variance)  # Kalman gain
        prev = filt[t] = prev + k * (obs[t] - prev)
    out = np.empty_like(obs)
    out[-1] = filt[-1]
    for t in range(T - 2, -1, -1):
        out[t] = filt[t] + var.gain[t] * (out[t + 1] - filt[t])
    return out


def chain_precision(n_slices, chain_variance, initial_variance):
    """Diagonal and off-diagonal of ``Q``, the precision of ``(beta_1, ..., beta_T)`` under
    the random walk: ``(float64[T], float)``."""
    T = int(n_slices)
    d = np.full(T, 2.0 / chain_variance)
    d[-1] = 1.0 / chain_variance
    d[0] = 1.0 / initial_variance + (1.0 / chain_variance if T > 1 else 0.0)
    return d, -1.0 / chain_variance


def apply_precision(m, q_diag, q_off):
    """``Q m`` along the first axis of ``m`` (T, ...)."""
    out = q_diag.reshape((-1,) + (1,) * (m.ndim - 1)) * m
    out[1:] += q_off * m[:-1]
    out[:-1] += q_off * m[1:]
    return out


def pseudo_observations(means, q_diag, q_off, obs_variance):
    """The pseudo-observations whose smoothed means are ``means``: ``m + nu^2 Q m`` (the
    smoother's inverse, module docstring)."""
    return means + obs_variance * apply_precision(means, q_diag, q_off)


def chain_kl_constant(var, chain_variance, initial_variance):
    """The part of ``-KL(q(beta_1..T) || p(beta_1..T))`` of one chain that does not depend on
    its means (nats): the full term is this minus ``m^T Q m / 2``.

    ``E_q[log p]`` has ``E[(beta_t - beta_{t-1})^2] = (m_t - m_{t-1})^2 + V_t + V_{t-1} - 2
    Cov(beta_t, beta_{t-1})``; the entropy of the Gaussian chain is ``H(beta_T) + sum_{t<T}
    H(beta_t | beta_{t+1})`` with ``Var(beta_t | beta_{t+1}, beta_hat) = P_t sigma^2 /
    predicted_{t+1}``.
    """
    T = var.smoothed.shape[0]
    s2, v0 = float(chain_variance), float(initial_variance)
    V = var.smoothed
    e_logp = -0.5 * np.log(v0) - 0.5 * V[0] / v0
    if T > 1:
        e_logp += -0.5 * (T - 1) * np.log(s2) - 0.5 * np.sum(
            V[1:] + V[:-1] - 2.0 * var.lag_one) / s2
    cond = var.filtered[:-1] * s2 / var.predicted[1:]
    entropy = 0.5 * T + 0.5 * (np.log(V[-1]) + np.sum(np.log(cond)))
    return float(e_logp + entropy)  # the (2 pi) terms cancel


def _objective(m, counts, n_t, q_diag, q_off):
    lse = logsumexp(m, axis=1)
    return float(np.sum(counts * m) - n_t @ lse
                 - 0.5 * np.sum(m * apply_precision(m, q_diag, q_off))), lse


def newton_direction(m, counts, n_t, q_diag, q_off, lse=None):
    """Gradient ``g`` and Newton direction ``(D - U U^T)^{-1} g`` of one topic's M-step
    objective at ``m`` (T, V) (:mod:`latentkit._kernels.dtm`)."""
    if lse is None:
        lse = logsumexp(m, axis=1)
    p = np.exp(m - lse[:, None])
    g = counts - n_t[:, None] * p - apply_precision(m, q_diag, q_off)
    T, V = m.shape
    piv, mult, x = np.empty((T, V)), np.empty((T, V)), np.empty((T, V))
    M, r = np.empty((T, T)), np.empty(T)
    _k.dtm_newton_pass(np.ascontiguousarray(n_t), np.ascontiguousarray(p), q_diag,
                       float(q_off), np.ascontiguousarray(g), piv, mult, x, M, r)
    y = np.linalg.solve(np.eye(T) - M, r)
    extra = np.empty((T, V))
    _k.dtm_tridiag_solve(piv, mult, np.sqrt(n_t)[:, None] * p * y[:, None], extra)
    return g, x + extra


def newton_means(counts, m0, q_diag, q_off, max_iter=50, rtol=1e-12):
    """Maximise one topic's M-step objective (module docstring) by Newton's method with
    backtracking, from ``m0``.

    Parameters
    ----------
    counts : ndarray of shape (T, V)
        Expected topic-word counts per slice.
    m0 : ndarray of shape (T, V)
        Start (the previous means); the result's objective is never below its objective.
    q_diag, q_off : from :func:`chain_precision`
    max_iter : int
        Newton steps at most.
    rtol : float
        Stop when half the Newton decrement is below ``rtol * max(1, |f|)``.

    Returns
    -------
    ndarray of shape (T, V)
    """
    n_t = counts.sum(axis=1)
    m = np.array(m0, dtype=np.float64)
    f, lse = _objective(m, counts, n_t, q_diag, q_off)
    for _ in range(int(max_iter)):
        g, d = newton_direction(m, counts, n_t, q_diag, q_off, lse)
        dec = float(np.sum(g * d))
        if not dec > 2.0 * rtol * max(1.0, abs(f)):
            break
        step = 1.0
        while step > 1e-8:
            cand = m + step * d
            fc, lc = _objective(cand, counts, n_t, q_diag, q_off)
            if fc >= f + 0.25 * step * dec:
                break
            step *= 0.5
        else:
            break  # no ascent along d at this precision: m is optimal to rounding
        if fc < f:
            break
        m, f, lse = cand, fc, lc
    return m
