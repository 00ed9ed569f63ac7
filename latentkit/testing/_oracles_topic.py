"""Naive NumPy oracles of the topic-model kernels (:mod:`latentkit._kernels.topic`).

Written for clarity, not speed: one document at a time, phi materialised in log space (the
textbook update ``gamma = alpha + sum_j n_j phi_j``, not the kernel's phi-free form), and the
ELBO evaluated term by term. The kernels must match them to 1e-10.
"""

import numpy as np
import scipy.sparse as sp
from scipy.special import gammaln, logsumexp, psi

__all__ = ["lda_e_step_oracle", "lda_doc_elbo_terms_oracle"]


def lda_doc_elbo_terms_oracle(counts, word_ids, gamma_d, components, doc_topic_prior):
    """Every term of one document's local ELBO, brute force, with phi optimal given gamma.

    Parameters
    ----------
    counts : ndarray of shape (n_words_d,)
        Counts of the document's distinct words.
    word_ids : ndarray of shape (n_words_d,) of int
    gamma_d : ndarray of shape (K,)
        Variational Dirichlet parameter of theta_d.
    components : ndarray of shape (K, V)
        Variational Dirichlet parameters lambda of the topics.
    doc_topic_prior : float
        alpha.

    Returns
    -------
    dict
        ``'log_p_w'`` = E[log p(w | z, beta)], ``'log_p_z'`` = E[log p(z | theta)],
        ``'log_p_theta'`` = E[log p(theta | alpha)], ``'log_q_theta'`` = E[log q(theta)],
        ``'log_q_z'`` = E[log q(z)], and ``'total'`` = the first three minus the last two,
        all in nats (Blei, Ng & Jordan 2003, appendix A.3, eq. 15).
    """
    K = components.shape[0]
    a = float(doc_topic_prior)
    elog_beta = psi(components) - psi(components.sum(axis=1, keepdims=True))
    elog_theta = psi(gamma_d) - psi(gamma_d.sum())
    logits = elog_theta[None, :] + elog_beta[:, word_ids].T          # (n_words_d, K)
    logits = logits - logits.max(axis=1, keepdims=True)
    phi = np.exp(logits)
    phi /= phi.sum(axis=1, keepdims=True)
    n = np.asarray(counts, dtype=float)[:, None]
    log_p_w = float(np.sum(n * phi * elog_beta[:, word_ids].T))
    log_p_z = float(np.sum(n * phi * elog_theta[None, :]))
    with np.errstate(divide="ignore", invalid="ignore"):
        plogp = np.where(phi > 0, phi * np.log(phi), 0.0)
    log_q_z = float(np.sum(n * plogp))
    log_p_theta = float(gammaln(K * a) - K * gammaln(a) + np.sum((a - 1.0) * elog_theta))
    log_q_theta = float(gammaln(gamma_d.sum()) - np.sum(gammaln(gamma_d))
                        + np.sum((gamma_d - 1.0) * elog_theta))
    total = log_p_w + log_p_z + log_p_theta - log_q_theta - log_q_z
    return dict(log_p_w=log_p_w, log_p_z=log_p_z, log_p_theta=log_p_theta,
                log_q_theta=log_q_theta, log_q_z=log_q_z, total=total)


def lda_e_step_oracle(X, components, doc_topic_prior, max_iter=100, tol=1e-3, gamma0=None):
    """Naive per-document LDA E-step (the same coordinate ascent as the kernel).

    Parameters
    ----------
    X : scipy.sparse matrix or ndarray of shape (D, V)
        Non-negative counts.
    components : ndarray of shape (K, V)
        lambda (> 0).
    doc_topic_prior : float
        alpha (> 0).
    max_iter : int, default 100
        Maximum sweeps per document.
    tol : float, default 1e-3
        Stop when the mean absolute change of gamma is below ``tol``.
    gamma0 : ndarray of shape (D, K), optional
        Starting gamma (warm start); default ``alpha + N_d / K``.

    Returns
    -------
    gamma : ndarray of shape (D, K)
    sstats : ndarray of shape (K, V)
        ``sum_d n_dw phi_dwk``, the expected topic-word counts.
    doc_elbo : ndarray of shape (D,)
        Local ELBO per document (nats), term by term via :func:`lda_doc_elbo_terms_oracle`.
    n_iter : ndarray of shape (D,) of int
        Sweeps per document.

    Notes
    -----
    Blei, Ng & Jordan (2003), Fig. 6; Hoffman, Blei & Bach (2010), Algorithm 1 (E-step).
    """
    X = sp.csr_matrix(X, dtype=np.float64)
    D = X.shape[0]
    K, V = components.shape
    a = float(doc_topic_prior)
    elog_beta = psi(components) - psi(components.sum(axis=1, keepdims=True))
    gamma = np.empty((D, K))
    sstats = np.zeros((K, V))
    doc_elbo = np.zeros(D)
    n_iter = np.zeros(D, dtype=np.int64)
    for d in range(D):
        ids = X.indices[X.indptr[d]:X.indptr[d + 1]]
        cnts = X.data[X.indptr[d]:X.indptr[d + 1]]
        if cnts.sum() <= 0:
            gamma[d] = a
            continue
        g = np.full(K, a + cnts.sum() / K) if gamma0 is None else np.array(gamma0[d], float)
        eb = elog_beta[:, ids]                                  # (K, n_d)

        def phi_of(g):
            # phi_jk = softmax_k(E[log theta_k] + E[log beta_k w_j]), in log space
            logits = (psi(g) - psi(g.sum()))[:, None] + eb
            return np.exp(logits - logsumexp(logits, axis=0, keepdims=True))

        for it in range(1, max_iter + 1):
            new = a + phi_of(g) @ cnts                           # gamma = alpha + sum_j n_j phi_j
            change = np.mean(np.abs(new - g))
            g = new
            n_iter[d] = it
            if change < tol:
                break
        gamma[d] = g
        phi = phi_of(g)                                        # (K, n_d)
        sstats[:, ids] += phi * cnts[None, :]
        doc_elbo[d] = lda_doc_elbo_terms_oracle(cnts, ids, g, components, a)["total"]
    return gamma, sstats, doc_elbo, n_iter
