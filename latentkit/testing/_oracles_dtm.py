"""Dense NumPy oracles of the dynamic topic model's chain computations
(:mod:`latentkit.topic._dtm_chain`, :mod:`latentkit._kernels.dtm`): the full joint Gaussian
of a chain and its pseudo-observations, conditioned by dense linear algebra, and the Newton
system formed as a (T V) x (T V) matrix."""

import numpy as np
from scipy.special import logsumexp

__all__ = ["dense_chain_posterior", "dense_chain_kl", "dense_newton_direction"]


def _prior_cov(T, chain_variance, initial_variance):
    """Cov(beta_s, beta_t) = v0 + sigma^2 (min(s, t) - 1) of the random walk (1-based)."""
    idx = np.arange(T)
    return initial_variance + chain_variance * np.minimum.outer(idx, idx)


def dense_chain_posterior(obs, chain_variance, obs_variance, initial_variance):
    """Posterior mean (T, n) and covariance (T, T) of the random-walk chains given the
    pseudo-observations ``obs`` (T, n), by conditioning the joint Gaussian of ``(beta,
    beta_hat)``: ``mean = S (S + nu^2 I)^{-1} obs``, ``cov = S - S (S + nu^2 I)^{-1} S``."""
    obs = np.asarray(obs, dtype=np.float64)
    T = obs.shape[0]
    S = _prior_cov(T, chain_variance, initial_variance)
    G = S @ np.linalg.inv(S + obs_variance * np.eye(T))
    return G @ obs, S - G @ S


def dense_chain_kl(mean, cov, chain_variance, initial_variance):
    """``KL(N(mean, cov) || N(0, S))`` of one chain (``mean`` (T,)), S the random walk's
    covariance, in nats."""
    T = mean.shape[0]
    S = _prior_cov(T, chain_variance, initial_variance)
    Si = np.linalg.inv(S)
    _, ld_s = np.linalg.slogdet(S)
    _, ld_c = np.linalg.slogdet(cov)
    return 0.5 * (np.trace(Si @ cov) + mean @ Si @ mean - T + ld_s - ld_c)


def dense_newton_direction(m, counts, chain_variance, initial_variance):
    """Gradient (T, V) and Newton direction ``-H^{-1} g`` (T, V) of ``f(m) = sum n m - sum_t
    n_t logsumexp(m_t) - 1/2 sum_w m_w^T Q m_w`` with the Hessian formed densely."""
    T, V = m.shape
    Q = np.linalg.inv(_prior_cov(T, chain_variance, initial_variance))
    n_t = counts.sum(axis=1)
    p = np.exp(m - logsumexp(m, axis=1, keepdims=True))
    g = counts - n_t[:, None] * p - Q @ m
    H = np.zeros((T * V, T * V))  # index t * V + w
    for t in range(T):
        blk = slice(t * V, (t + 1) * V)
        H[blk, blk] -= n_t[t] * (np.diag(p[t]) - np.outer(p[t], p[t]))
    H -= np.kron(Q, np.eye(V))
    d = -np.linalg.solve(H, g.ravel())
    return g, d.reshape(T, V)
