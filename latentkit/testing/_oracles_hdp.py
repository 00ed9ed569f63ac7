"""Naive NumPy oracles of the HDP kernels (:mod:`latentkit._kernels.hdp`), one document at a
time, with the local bound written term by term (each expectation of Wang, Paisley & Blei
2011, eq. 8, separately), so the closed form of the kernel is checked against its definition."""

import numpy as np
from scipy.special import betaln, gammaln, logsumexp, psi

__all__ = ["hdp_doc_elbo_oracle", "hdp_e_step_oracle", "hdp_suff_stats_oracle",
           "hdp_log_evidence_single_topic"]


def _elog_pi(sticks):
    a, b = sticks[0, :-1], sticks[1, :-1]
    e_lv = np.append(psi(a) - psi(a + b), 0.0)
    e_l1v = psi(b) - psi(a + b)
    return e_lv + np.concatenate(([0.0], np.cumsum(e_l1v)))


def _beta_kl(a, b, a0, b0):
    return (betaln(a0, b0) - betaln(a, b) + (a - a0) * (psi(a) - psi(a + b))
            + (b - b0) * (psi(b) - psi(a + b)))


def hdp_doc_elbo_oracle(counts, word_ids, zeta, varphi, sticks, elog_phi, elog_beta, alpha):
    """Local ELBO of one document (nats), every term of the bound written out:
    ``E[log p(w|z,c,phi)] + E[log p(z|pi')] - E[log q(z)] + E[log p(pi'|alpha)]
    - E[log q(pi')] + E[log p(c|beta')] - E[log q(c)]``.

    Parameters
    ----------
    counts : ndarray (N,); word_ids : ndarray (N,) of int
    zeta : ndarray (N, K); varphi : ndarray (K, T); sticks : ndarray (2, K)
    elog_phi : ndarray (T, V); elog_beta : ndarray (T,); alpha : float

    Returns
    -------
    float
    """
    elog_pi = _elog_pi(sticks)
    ew = elog_phi[:, word_ids].T                        # (N, T)
    lik = np.sum(counts[:, None] * zeta * (ew @ varphi.T))
    pz = np.sum(counts[:, None] * zeta * elog_pi[None, :])
    with np.errstate(divide="ignore", invalid="ignore"):
        qz = np.sum(counts[:, None] * np.where(zeta > 0, zeta * np.log(zeta), 0.0))
        qc = np.sum(np.where(varphi > 0, varphi * np.log(varphi), 0.0))
    a, b = sticks[0, :-1], sticks[1, :-1]
    # E[log Beta(pi'|1, alpha)] - E[log q(pi')] = -KL
    sticks_term = -np.sum(_beta_kl(a, b, 1.0, alpha))
    pc = np.sum(varphi * elog_beta[None, :])
    return float(lik + pz - qz + sticks_term + pc - qc)


def hdp_e_step_oracle(X, elog_phi, elog_beta, alpha, n_doc_components, max_iter=100, tol=1e-3,
                      varphi0=None, sticks0=None):
    """The document-level coordinate ascent of :func:`latentkit._kernels.hdp.hdp_e_step`,
    naively (same start, same update order, same stopping rule).

    Parameters
    ----------
    X : scipy.sparse.csr_matrix of shape (D, V)
    elog_phi : ndarray (T, V); elog_beta : ndarray (T,); alpha : float
    n_doc_components : int
        K.
    max_iter, tol : as the kernel.
    varphi0 : ndarray (D, K, T), optional; sticks0 : ndarray (D, 2, K), optional
        Warm start (both or neither).

    Returns
    -------
    varphi (D, K, T), sticks (D, 2, K), zeta (nnz, K), doc_elbo (D,)
    """
    D = X.shape[0]
    T = elog_phi.shape[0]
    K = int(n_doc_components)
    warm = varphi0 is not None
    varphi = np.zeros((D, K, T)) if not warm else np.array(varphi0, dtype=float)
    sticks = np.zeros((D, 2, K)) if not warm else np.array(sticks0, dtype=float)
    zeta = np.zeros((X.indices.shape[0], K))
    doc_elbo = np.zeros(D)
    for d in range(D):
        s, e = X.indptr[d], X.indptr[d + 1]
        w, n = X.indices[s:e], X.data[s:e]
        ew = elog_phi[:, w].T                          # (N, T)
        if not warm:
            p = ew + elog_beta[None, :]
            p = np.exp(p - logsumexp(p, axis=1, keepdims=True))
            order = np.argsort(-(n @ p), kind="mergesort")
            varphi[d] = 0.0
            varphi[d, np.arange(K), order[np.arange(K) % T]] = 1.0
            sticks[d] = np.vstack((np.ones(K), np.append(np.full(K - 1, alpha), 0.0)))

        def zeta_of(vp, st):
            lj = ew @ vp.T + _elog_pi(st)[None, :]
            return np.exp(lj - logsumexp(lj, axis=1, keepdims=True))

        for _ in range(max_iter):
            z = zeta_of(varphi[d], sticks[d])
            c = n @ z
            a_new = 1.0 + c[:-1]
            change = np.abs(a_new - sticks[d, 0, :-1]).sum()
            sticks[d, 0, :-1] = a_new
            sticks[d, 1, :-1] = alpha + np.cumsum(c[::-1])[::-1][1:]
            sticks[d, :, -1] = (1.0, 0.0)
            m = (n[:, None] * z).T @ ew + elog_beta[None, :]
            varphi[d] = np.exp(m - logsumexp(m, axis=1, keepdims=True))
            if K == 1 or change / (K - 1) < tol:
                break
        zeta[s:e] = zeta_of(varphi[d], sticks[d])
        doc_elbo[d] = hdp_doc_elbo_oracle(n, w, zeta[s:e], varphi[d], sticks[d], elog_phi,
                                          elog_beta, alpha)
    return varphi, sticks, zeta, doc_elbo


def hdp_suff_stats_oracle(X, zeta, varphi):
    """Expected topic-word counts (T, V): ``sum_d sum_j n_j [w_j = w] sum_t zeta_jt
    varphi_dtk``, by a loop over entries."""
    T = varphi.shape[2]
    out = np.zeros((T, X.shape[1]))
    for d in range(X.shape[0]):
        for j in range(X.indptr[d], X.indptr[d + 1]):
            out[:, X.indices[j]] += X.data[j] * (zeta[j] @ varphi[d])
    return out


def hdp_log_evidence_single_topic(X, topic_word_prior):
    """log p(X) of the T = 1, K = 1 model: every token from one topic phi ~ Dir(eta), the
    tokens of the corpus an ordered sequence (Dirichlet-multinomial without the
    multinomial coefficient), nats in total."""
    n_w = np.asarray(X.sum(axis=0)).ravel()
    V = n_w.size
    eta = float(topic_word_prior)
    return float(gammaln(V * eta) - gammaln(V * eta + n_w.sum())
                 + np.sum(gammaln(eta + n_w) - gammaln(eta)))
