"""The multinomial-logistic transitions of the input-output HMM, as functions of arrays.

Source state ``i`` moves to ``j`` at step ``t`` with probability ``softmax_j(theta[i, j] @
z_t)``, ``z_t = [u_t; 1]`` (the inputs and a constant), ``theta[i, i] = 0`` (staying is the
reference category, so the parameters are identified). The M-step raises the expected
complete-data log posterior ``Q(theta) = sum_t sum_ij xi_t[i, j] log p_t(j | i) - lambda / 2
||coefs||^2`` by one step of Bohning's (1992) quadratic lower bound: the softmax's Hessian is
bounded below by ``-1/2 (I - 11^T / K) (x) z z^T`` everywhere, so the quadratic with that
curvature, the gradient at ``theta`` and the value at ``theta`` minorises ``Q``; its maximiser
raises ``Q`` (a minorise-maximise step, Bohning & Lindsay 1988), and EM with it is a
generalised EM whose bound never decreases. The gradient and the bound's moment matrix are
sums over time steps, so chunks of sequences add (the statistics of the recipe). The initial
state's regression (``input_start``) is the same with state 0 as the reference.
"""

import numpy as np
from scipy.linalg import LinAlgError, cho_factor, cho_solve

__all__ = ["add_constant", "softmax_rows", "transition_probabilities", "start_probabilities",
           "regression_stats", "start_regression_stats", "bound_step", "coefs_log_prior"]


def add_constant(inputs):
    """``[u_t, 1]`` of each row: (n_samples, n_inputs + 1)."""
    return np.hstack([inputs, np.ones((inputs.shape[0], 1))])


def softmax_rows(logits):
    """Softmax over the last axis (stable), and its log."""
    m = logits.max(axis=-1, keepdims=True)
    e = logits - m
    log_norm = np.log(np.exp(e).sum(axis=-1, keepdims=True))
    log_p = e - log_norm
    return np.exp(log_p), log_p


def transition_probabilities(Z, theta):
    """Per-step transition matrices.

    Parameters
    ----------
    Z : ndarray of shape (n_samples, P)
        Regressors ``[u_t, 1]``.
    theta : ndarray of shape (K, K, P)
        ``[coefs, intercept]`` of each (source, target) pair; ``theta[i, i] = 0``.

    Returns
    -------
    probs, log_probs : ndarray of shape (n_samples, K, K)
        ``p(z_t = j | z_{t-1} = i, u_t)`` and its log.
    """
    return softmax_rows(np.einsum("tp,ijp->tij", Z, theta))


def start_probabilities(Z0, theta0):
    """Initial distributions ``softmax(theta0 @ z)`` of rows ``Z0`` (n_sequences, P), with
    ``theta0`` (K, P), row 0 zero: (n_sequences, K) probabilities and their logs."""
    return softmax_rows(Z0 @ theta0.T)


def regression_stats(Z, gamma, xi_z, probs, offsets):
    """Gradient of ``Q`` and the moments of the bound, summed over the transitions.

    Parameters
    ----------
    Z : ndarray of shape (n_samples, P)
    gamma : ndarray of shape (n_samples, K)
        State posteriors.
    xi_z : ndarray of shape (K, K, P)
        ``sum_t xi_t[i, j] z_t`` (the forward-backward's, summed over sequences).
    probs : ndarray of shape (n_samples, K, K)
        The transition matrices the posteriors were computed with.
    offsets : ndarray of shape (n_sequences + 1,)

    Returns
    -------
    grad : ndarray of shape (K, K, P)
        ``dQ / dtheta[i, j] = sum_t (xi_t[i, j] - gamma_{t-1, i} p_t[i, j]) z_t``.
    moment : ndarray of shape (K, P, P)
        ``sum_t gamma_{t-1, i} z_t z_t^T``.
    """
    into = np.ones(Z.shape[0], dtype=bool)
    into[offsets[:-1]] = False
    rows = np.flatnonzero(into)
    w = gamma[rows - 1]
    z = Z[rows]
    grad = xi_z - np.einsum("ti,tij,tp->ijp", w, probs[rows], z)
    moment = np.einsum("ti,tp,tq->ipq", w, z, z)
    return grad, moment


def start_regression_stats(Z0, gamma0, probs0):
    """``(grad, moment)`` of the initial state's regression: ``sum_s (gamma_s - pi_s) z_s``
    (K, P) and ``sum_s z_s z_s^T`` (P, P) over the sequences' first rows."""
    return (gamma0 - probs0).T @ Z0, Z0.T @ Z0


def _solve(B, g):
    try:
        return cho_solve(cho_factor(B), g)
    except (LinAlgError, ValueError):  # a state without weight: the minimum-norm step
        return np.linalg.pinv(B) @ g


def _penalty(P, coefs_prior):
    lam = np.full(P, float(coefs_prior))
    lam[-1] = 0.0  # the intercept is not penalised
    return lam


def bound_step(theta, grad, moment, coefs_prior, reference):
    """One minorise-maximise step of a multinomial-logistic regression (Bohning 1992).

    Parameters
    ----------
    theta : ndarray of shape (K, P) or (R, K, P)
        Current parameters of one regression (or ``R`` regressions, one per source state).
    grad : ndarray of the shape of ``theta``
        Gradient of the expected log-likelihood at ``theta`` (without the prior).
    moment : ndarray of shape (P, P) or (R, P, P)
        ``sum_t w_t z_t z_t^T`` with the regression's weights ``w_t``.
    coefs_prior : float
        ``lambda``: the Gaussian prior ``N(0, 1 / lambda)`` of every coefficient but the
        intercept (the last column).
    reference : int or sequence of int
        The reference category (zero row) of each regression.

    Returns
    -------
    ndarray of the shape of ``theta``
        ``theta + B^-1 (grad - lambda theta)``, ``B = 1/2 (I - 11^T / K) (x) moment + lambda
        I`` over the free rows: the maximiser of the quadratic that minorises ``Q``.
    """
    single = theta.ndim == 2
    if single:
        theta, grad, moment, reference = theta[None], grad[None], moment[None], [reference]
    R, K, P = theta.shape
    lam = _penalty(P, coefs_prior)
    A = 0.5 * (np.eye(K - 1) - np.full((K - 1, K - 1), 1.0 / K))
    out = theta.copy()
    for r in range(R):
        free = np.array([j for j in range(K) if j != reference[r]], dtype=np.int64)
        if free.size == 0:
            continue
        g = (grad[r, free] - lam * theta[r, free]).ravel()
        B = np.kron(A, moment[r]) + np.diag(np.tile(lam, K - 1))
        out[r, free] = theta[r, free] + _solve(B, g).reshape(K - 1, P)
    return out[0] if single else out


def coefs_log_prior(theta, coefs_prior):
    """``sum log N(w | 0, 1 / lambda)`` over the coefficients (not the intercepts) of the
    free rows; 0 when ``lambda`` is 0."""
    lam = float(coefs_prior)
    if lam <= 0:
        return 0.0
    w = theta[..., :-1]
    n_reference = 1 if theta.ndim == 2 else theta.shape[0]  # rows fixed at 0
    n_free = w.size - n_reference * w.shape[-1]
    return float(-0.5 * lam * np.sum(w * w) + 0.5 * n_free * np.log(lam / (2.0 * np.pi)))
