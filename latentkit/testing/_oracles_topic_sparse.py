"""Naive NumPy oracle of LDA's top-k truncated E-step (:mod:`latentkit._kernels.topic_sparse`).

Written for clarity, not speed: one document at a time, the truncated phi materialised in log
space as a dense (K, n_words_d) array with zeros outside each word's support, the supports
chosen by a full sort, and the local ELBO evaluated term by term from that phi (its entropy
over the kept topics included), not from the kernel's closed form. The kernel must match it
to 1e-10.
"""

import numpy as np
import scipy.sparse as sp
from scipy.special import gammaln, psi

__all__ = ["lda_sparse_doc_elbo_oracle", "lda_sparse_e_step_oracle", "truncated_phi_oracle"]


def truncated_phi_oracle(gamma_d, elog_beta_d, topk):
    """The truncated responsibilities of one document at ``gamma_d``.

    Parameters
    ----------
    gamma_d : ndarray of shape (K,)
        Variational Dirichlet parameter of theta_d.
    elog_beta_d : ndarray of shape (K, n_words_d)
        ``E[log beta_kw]`` of the document's words.
    topk : int
        Topics kept per word (the largest ``E[log theta_k] + E[log beta_kw]``; ties: lower id).

    Returns
    -------
    ndarray of shape (K, n_words_d)
        phi, each column summing to 1 over its ``min(topk, K)`` kept topics, 0 elsewhere.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.testing._oracles_topic_sparse import truncated_phi_oracle
    >>> phi = truncated_phi_oracle(np.ones(3), np.log([[0.5], [0.3], [0.2]]), 2)
    >>> np.round(phi[:, 0], 3)
    array([0.625, 0.375, 0.   ])
    """
    K = gamma_d.shape[0]
    logits = (psi(gamma_d) - psi(gamma_d.sum()))[:, None] + elog_beta_d
    phi = np.zeros_like(logits)
    for j in range(logits.shape[1]):
        keep = np.argsort(-logits[:, j], kind="stable")[:min(topk, K)]
        z = logits[keep, j] - logits[keep, j].max()
        phi[keep, j] = np.exp(z) / np.exp(z).sum()
    return phi


def lda_sparse_doc_elbo_oracle(counts, phi, gamma_d, elog_beta_d, alpha):
    """One document's local ELBO (nats) at ``gamma_d`` and the given phi, term by term
    (Blei, Ng & Jordan 2003, appendix A.3, eq. 15; ``0 log 0 = 0`` in the entropy).

    Parameters
    ----------
    counts : ndarray of shape (n_words_d,)
    phi : ndarray of shape (K, n_words_d)
        Any responsibilities (columns sum to 1).
    gamma_d : ndarray of shape (K,)
    elog_beta_d : ndarray of shape (K, n_words_d)
    alpha : ndarray of shape (K,)

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.testing._oracles_topic_sparse import lda_sparse_doc_elbo_oracle
    >>> phi = np.array([[1.0], [0.0]])
    >>> v = lda_sparse_doc_elbo_oracle(np.array([1.0]), phi, np.array([2.0, 1.0]),
    ...                                np.log([[0.5], [0.5]]), np.ones(2))
    >>> bool(v < 0)
    True
    """
    n = np.asarray(counts, dtype=float)[None, :]
    elog_theta = psi(gamma_d) - psi(gamma_d.sum())
    log_p_w = np.sum(n * phi * elog_beta_d)
    log_p_z = np.sum(n * phi * elog_theta[:, None])
    with np.errstate(divide="ignore", invalid="ignore"):
        log_q_z = np.sum(n * np.where(phi > 0, phi * np.log(phi), 0.0))
    log_p_theta = gammaln(alpha.sum()) - gammaln(alpha).sum() + np.sum((alpha - 1) * elog_theta)
    log_q_theta = (gammaln(gamma_d.sum()) - gammaln(gamma_d).sum()
                   + np.sum((gamma_d - 1) * elog_theta))
    return float(log_p_w + log_p_z + log_p_theta - log_q_theta - log_q_z)


def _top(score, ids, k):
    """The ``k`` ids of ``ids`` with the largest ``score[id]`` (equal: lower id), sorted."""
    ids = np.asarray(sorted(set(int(i) for i in ids)))
    order = np.lexsort((ids, -score[ids]))
    return np.sort(ids[order[:k]])


def lda_sparse_e_step_oracle(X, components, doc_topic_prior, topk, max_iter=100, tol=1e-3,
                             gamma0=None, candidates_per_k=2):
    """Naive top-k truncated LDA E-step: the kernel's coordinate ascent, written plainly.

    Per document: gamma starts at ``alpha + N_d / K`` (or ``gamma0``); before sweeps 1, 3, 9,
    27, 81 each word's support is re-chosen as the
    top ``k`` of ``t_k b_kw`` (``t = exp(E[log theta])``, ``b = exp(E[log beta])``) among its
    candidates: its current support (at first the ``k`` best of the next set), its
    ``candidates_per_k * k`` topics of highest ``b_kw`` and the document's ``k`` topics of
    highest ``t``; a sweep sets ``gamma = alpha + sum_j n_j phi_j`` with phi the truncated
    responsibilities on the supports; stop when ``mean |change| < tol``. The returned phi is
    that of supports chosen once more (the same way) at the final gamma.

    Parameters
    ----------
    X : scipy.sparse matrix or ndarray of shape (D, V)
    components : ndarray of shape (K, V)
        lambda (> 0).
    doc_topic_prior : float or ndarray of shape (K,)
    topk : int
        k (< K).
    max_iter : int, default 100
    tol : float, default 1e-3
    gamma0 : ndarray of shape (D, K), optional
    candidates_per_k : int, default 2

    Returns
    -------
    gamma : ndarray of shape (D, K)
    sstats : ndarray of shape (K, V)
        ``sum_d n_dw phi_dwk`` of the returned (truncated) phi.
    doc_elbo : ndarray of shape (D,)
        :func:`lda_sparse_doc_elbo_oracle` at the returned gamma and phi.
    n_iter : ndarray of shape (D,) of int

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.testing._oracles_topic_sparse import lda_sparse_e_step_oracle
    >>> X = np.array([[5.0, 0.0], [0.0, 5.0]])
    >>> gamma = lda_sparse_e_step_oracle(X, np.array([[10.0, 0.1], [0.1, 10.0]]), 0.5, 1)[0]
    >>> np.round(gamma, 1)  # one topic per word: all 5 tokens go to it
    array([[5.5, 0.5],
           [0.5, 5.5]])
    """
    X = sp.csr_matrix(X, dtype=np.float64)
    D = X.shape[0]
    K, V = components.shape
    k = min(int(topk), K)
    m = min(K, candidates_per_k * k)
    alpha = np.broadcast_to(np.asarray(doc_topic_prior, dtype=np.float64), (K,)).copy()
    elog_beta = psi(components) - psi(components.sum(axis=1, keepdims=True))
    b = np.exp(elog_beta - elog_beta.max(axis=0, keepdims=True))   # (K, V), as the kernel's
    gamma = np.empty((D, K))
    sstats = np.zeros((K, V))
    doc_elbo = np.zeros(D)
    n_iter = np.zeros(D, dtype=np.int64)
    all_ids = np.arange(K)

    def t_of(g):
        p = psi(g)
        return np.exp(p - p.max())

    for d in range(D):
        ids = X.indices[X.indptr[d]:X.indptr[d + 1]]
        cnts = X.data[X.indptr[d]:X.indptr[d + 1]]
        if cnts.sum() <= 0:
            gamma[d] = alpha
            continue
        g = alpha + cnts.sum() / K if gamma0 is None else np.array(gamma0[d], dtype=float)
        eb = elog_beta[:, ids]
        table = [_top(b[:, w], all_ids, m) for w in ids]
        sup = [_top(b[:, w], all_ids, k) for w in ids]

        def choose(g, sup):
            t = t_of(g)
            doc_top = _top(t, all_ids, k)
            return [_top(t * b[:, w], np.concatenate([sup[j], table[j], doc_top]), k)
                    for j, w in enumerate(ids)]

        it, next_choice = 0, 1
        while it < max_iter:
            it += 1
            if it == next_choice:
                sup = choose(g, sup)
                next_choice = 3 * it
            mask = np.zeros((K, ids.size), dtype=bool)
            for j in range(ids.size):
                mask[sup[j], j] = True
            logits = np.where(mask, (psi(g) - psi(g.sum()))[:, None] + eb, -np.inf)
            phi = np.exp(logits - logits.max(axis=0, keepdims=True))
            phi /= phi.sum(axis=0, keepdims=True)
            new = alpha + phi @ cnts
            change = np.mean(np.abs(new - g))
            g = new
            if change < tol:
                break
        n_iter[d] = it
        gamma[d] = g
        sup = choose(g, sup)   # at the final gamma
        phi = np.zeros((K, ids.size))
        logits = (psi(g) - psi(g.sum()))[:, None] + eb
        for j, w in enumerate(ids):
            keep = sup[j]
            z = logits[keep, j] - logits[keep, j].max()
            phi[keep, j] = np.exp(z) / np.exp(z).sum()
        sstats[:, ids] += phi * cnts[None, :]
        doc_elbo[d] = lda_sparse_doc_elbo_oracle(cnts, phi, g, eb, alpha)
    return gamma, sstats, doc_elbo, n_iter
