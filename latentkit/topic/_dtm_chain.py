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
from .._utils.doc_threads import over_ranges

__all__ = ["ChainVariances", "chain_variances", "smooth_means", "pseudo_observations",
           "chain_precision", "apply_precision", "chain_kl_constant", "newton_means",
           "m_step_means"]


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
    lse = np.empty(m.shape[0])
    return _k.dtm_objective(m, counts, n_t, q_diag, float(q_off), lse), lse


def newton_direction(m, counts, n_t, q_diag, q_off, lse=None):
    """Gradient ``g`` and Newton direction ``(D - U U^T)^{-1} g`` of one topic's M-step
    objective at ``m`` (T, V), C-contiguous float64 (:mod:`latentkit._kernels.dtm`)."""
    T, V = m.shape
    if lse is None:
        lse = _objective(m, counts, n_t, q_diag, q_off)[1]
    p, g = np.empty((T, V)), np.empty((T, V))
    _k.dtm_gradient(m, lse, counts, n_t, q_diag, float(q_off), p, g)
    piv, mult, x = np.empty((T, V)), np.empty((T, V)), np.empty((T, V))
    M, r = np.empty((T, T)), np.empty(T)
    _k.dtm_newton_pass(n_t, p, q_diag, float(q_off), g, piv, mult, x, M, r)
    y = np.linalg.solve(np.eye(T) - M, r)
    d = np.empty((T, V))
    _k.dtm_woodbury_finish(piv, mult, p, n_t, y, x, d)
    return g, d


def newton_means(counts, m0, q_diag, q_off, max_iter=50, tol=1e-6):
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
    tol : float
        Stop when half the Newton decrement (the predicted gain, nats) is below ``tol`` per
        token of the topic (``tol * max(1, counts.sum())``); 1e-6 nats per token is far
        below the EM stopping rule's ``1e-3`` nats per token.

    Returns
    -------
    ndarray of shape (T, V)
    """
    counts = np.ascontiguousarray(counts, dtype=np.float64)
    n_t = counts.sum(axis=1)
    m = np.array(m0, dtype=np.float64, order="C")
    stop = 2.0 * float(tol) * max(1.0, float(n_t.sum()))
    f, lse = _objective(m, counts, n_t, q_diag, q_off)
    for _ in range(int(max_iter)):
        g, d = newton_direction(m, counts, n_t, q_diag, q_off, lse)
        dec = float(np.sum(g * d))
        if not dec > stop:
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
        m, f, lse = cand, fc, lc
    return m


def m_step_means(sstats, means, q_diag, q_off):
    """:func:`newton_means` for every topic (topics on numba's thread count of Python
    threads: the kernels release the GIL; each topic is independent, so the result does not
    depend on the threads).

    Parameters
    ----------
    sstats : ndarray of shape (T, K, V)
        Expected topic-word counts per slice.
    means : ndarray of shape (T, K, V)
        The current means (the start).

    Returns
    -------
    ndarray of shape (T, K, V)
    """
    K = means.shape[1]
    out = np.empty_like(means)

    def topics(k0, k1):
        for k in range(k0, k1):
            out[:, k] = newton_means(sstats[:, k], means[:, k], q_diag, q_off)

    over_ranges(topics, np.arange(K + 1))
    return out
