"""Naive NumPy oracles of the topic-model kernels (:mod:`latentkit._kernels.topic`,
:mod:`latentkit._kernels.plsa`).

Written for clarity, not speed. LDA: one document at a time, phi materialised in log space (the
textbook update ``gamma = alpha + sum_j n_j phi_j``, not the kernel's phi-free form), and the
ELBO evaluated term by term. pLSA: dense (n_docs, n_words, n_components) joint and posterior
arrays, the aspect-model updates written as in Hofmann (1999). The kernels must match them to
1e-10.
"""

import numpy as np
import scipy.sparse as sp
from scipy.special import gammaln, logsumexp, psi

__all__ = [
    "lda_e_step_oracle",
    "lda_doc_elbo_terms_oracle",
    "plsa_e_step_oracle",
    "plsa_em_oracle",
    "plsa_fold_in_oracle",
]


def _alpha(doc_topic_prior):
    """alpha as a float (symmetric) or a float64 vector (asymmetric)."""
    a = np.asarray(doc_topic_prior, dtype=np.float64)
    return float(a) if a.ndim == 0 else a.copy()


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
    doc_topic_prior : float or ndarray of shape (K,)
        alpha (symmetric, or asymmetric as a vector).

    Returns
    -------
    dict
        ``'log_p_w'`` = E[log p(w | z, beta)], ``'log_p_z'`` = E[log p(z | theta)],
        ``'log_p_theta'`` = E[log p(theta | alpha)], ``'log_q_theta'`` = E[log q(theta)],
        ``'log_q_z'`` = E[log q(z)], and ``'total'`` = the first three minus the last two,
        all in nats (Blei, Ng & Jordan 2003, appendix A.3, eq. 15).

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.testing import lda_doc_elbo_terms_oracle
    >>> terms = lda_doc_elbo_terms_oracle(np.array([2.0, 1.0]), np.array([0, 1]),
    ...                                   np.array([1.5, 2.5]), np.ones((2, 2)), 0.5)
    >>> sorted(terms)
    ['log_p_theta', 'log_p_w', 'log_p_z', 'log_q_theta', 'log_q_z', 'total']
    >>> bool(np.isclose(terms["total"], terms["log_p_w"] + terms["log_p_z"] + terms["log_p_theta"]
    ...                 - terms["log_q_theta"] - terms["log_q_z"]))
    True
    """
    K = components.shape[0]
    a = _alpha(doc_topic_prior)
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
    if np.ndim(a):  # asymmetric: lnGamma(sum_k alpha_k) - sum_k lnGamma(alpha_k)
        log_norm = gammaln(np.sum(a)) - np.sum(gammaln(a))
    else:
        log_norm = gammaln(K * a) - K * gammaln(a)
    log_p_theta = float(log_norm + np.sum((a - 1.0) * elog_theta))
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
    doc_topic_prior : float or ndarray of shape (K,)
        alpha (> 0; symmetric, or asymmetric as a vector).
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

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.testing import lda_e_step_oracle
    >>> X = np.array([[5.0, 0.0], [0.0, 5.0]])
    >>> components = np.array([[10.0, 0.1], [0.1, 10.0]])
    >>> out = lda_e_step_oracle(X, components, doc_topic_prior=0.5)
    >>> gamma = out[0] if isinstance(out, tuple) else out
    >>> gamma.shape, bool(gamma[0, 0] > gamma[0, 1]), bool(gamma[1, 1] > gamma[1, 0])
    ((2, 2), True, True)
    """
    X = sp.csr_matrix(X, dtype=np.float64)
    D = X.shape[0]
    K, V = components.shape
    a = _alpha(doc_topic_prior)
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


# --------------------------------------------------------------------------------------------
# pLSA (Hofmann 1999, 2001)
# --------------------------------------------------------------------------------------------

def _dense_counts(X):
    return X.toarray() if sp.issparse(X) else np.asarray(X, dtype=np.float64)


def plsa_e_step_oracle(X, doc_factor, components, beta=1.0):
    """Dense (tempered) pLSA E-step, the oracle of :func:`latentkit._kernels.plsa.plsa_e_step`.

    Parameters
    ----------
    X : scipy.sparse matrix or ndarray of shape (D, V)
        Counts n(d, w); every word with a positive count must have a positive probability.
    doc_factor : ndarray of shape (D, K)
        a(d, z): P(z | d) (asymmetric) or P(z) P(d | z) (symmetric).
    components : ndarray of shape (K, V)
        P(w | z).
    beta : float, default 1
        Tempering exponent (Hofmann 2001, eq. 13).

    Returns
    -------
    doc_topic : ndarray of shape (D, K)
        sum_w n(d, w) P_beta(z | d, w).
    topic_word : ndarray of shape (K, V)
        sum_d n(d, w) P_beta(z | d, w).
    loglik : ndarray of shape (D,)
        sum_w n(d, w) log sum_z a(d, z) P(w | z), nats.
    free_energy : ndarray of shape (D,)
        sum_w n(d, w) (1 / beta) log sum_z (a(d, z) P(w | z))^beta, nats.

    Notes
    -----
    Hofmann (1999), eqs. 3-5; Hofmann (2001), eqs. 9-13.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.testing import plsa_e_step_oracle
    >>> X = np.array([[2.0, 1.0]])
    >>> doc_factor = np.array([[0.5, 0.5]])
    >>> components = np.array([[1.0, 0.0], [0.0, 1.0]])  # topic k emits only word k
    >>> doc_topic, topic_word, loglik, free_energy = plsa_e_step_oracle(X, doc_factor, components)
    >>> doc_topic  # each word's count goes to its topic
    array([[2., 1.]])
    >>> np.round(loglik, 6)  # 3 log(0.5)
    array([-2.079442])
    """
    Xd = _dense_counts(X)
    joint = doc_factor[:, None, :] * components.T[None, :, :]        # (D, V, K)
    post = joint ** beta
    post = post / post.sum(-1, keepdims=True)
    nz = Xd[:, :, None] * post
    loglik = (Xd * np.log(joint.sum(-1))).sum(1)
    free_energy = (Xd * np.log((joint ** beta).sum(-1)) / beta).sum(1)
    return nz.sum(1), nz.sum(0).T, loglik, free_energy


def plsa_em_oracle(X, components, doc_topic, n_iter, beta=1.0, doc_iter=1,
                   doc_start="previous"):
    """Direct dense EM of the asymmetric aspect model P(w | d) = sum_z P(z | d) P(w | z).

    Parameters
    ----------
    X : scipy.sparse matrix or ndarray of shape (D, V)
        Counts n(d, w).
    components : ndarray of shape (K, V)
        Starting P(w | z).
    doc_topic : ndarray of shape (D, K)
        Starting P(z | d).
    n_iter : int
        EM iterations.
    beta : float, default 1
        Tempering exponent of the E-step.
    doc_iter : int, default 1
        Updates of P(z | d) per iteration: ``doc_iter - 1`` with P(w | z) fixed, then the
        E-step of the joint update (``PLSA(doc_iter=...)``).
    doc_start : {'previous', 'uniform'}, default 'previous'
        Start of each iteration's updates of P(z | d): the current one, or 1 / K.

    Returns
    -------
    components : ndarray of shape (K, V)
    doc_topic : ndarray of shape (D, K)
        After ``n_iter`` iterations; an empty document gets the uniform row
        (``doc_start='previous'``: its starting row while ``doc_iter > 1``).
    lower_bounds : ndarray of shape (n_iter,)
        sum n(d, w) log P(w | d) / sum n(d, w) at the parameters entering each iteration's
        E-step (after the updates of P(z | d)), nats per token.

    Notes
    -----
    Hofmann (1999), eqs. 3-5 (tempered: Hofmann 2001, eq. 13); the extra updates of P(z | d)
    are folding-in steps (Hofmann 1999, section 3.3), BigARTM's inner passes (Vorontsov &
    Potapenko 2015, section 3).

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.testing import plsa_em_oracle
    >>> X = np.array([[4.0, 0.0], [0.0, 4.0]])
    >>> components = np.array([[0.6, 0.4], [0.4, 0.6]])
    >>> doc_topic = np.full((2, 2), 0.5)
    >>> components, doc_topic, lower_bounds = plsa_em_oracle(X, components, doc_topic, n_iter=50)
    >>> np.round(components, 3)  # the two topics separate the two words
    array([[1., 0.],
           [0., 1.]])
    >>> bool(np.all(np.diff(lower_bounds) >= -1e-12))  # EM never decreases the likelihood
    True
    """
    Xd = _dense_counts(X)
    phi, theta = components, doc_topic
    lls = []
    for _ in range(n_iter):
        if doc_start == "uniform":
            theta = np.full_like(theta, 1.0 / theta.shape[1])
        for _ in range(doc_iter - 1):
            post = (theta[:, None, :] * phi.T[None, :, :]) ** beta
            s = post.sum(-1, keepdims=True)
            td = (Xd[:, :, None] * np.divide(post, s, out=np.zeros_like(post), where=s > 0)).sum(1)
            rows = td.sum(1, keepdims=True)
            theta = np.divide(td, rows, out=theta.copy(), where=rows > 0)
        joint = theta[:, None, :] * phi.T[None, :, :]          # D x V x K
        pdw = joint.sum(-1)
        lls.append(np.sum(Xd[pdw > 0] * np.log(pdw[pdw > 0])) / Xd.sum())
        post = joint ** beta
        s = post.sum(-1, keepdims=True)
        post = np.divide(post, s, out=np.zeros_like(post), where=s > 0)
        nz = Xd[:, :, None] * post
        phi = nz.sum(0).T
        phi = phi / phi.sum(1, keepdims=True)
        td = nz.sum(1)
        rows = td.sum(1, keepdims=True)
        theta = np.divide(td, rows, out=np.full_like(td, 1.0 / td.shape[1]), where=rows > 0)
    return phi, theta, np.array(lls)


def plsa_fold_in_oracle(X, components, beta=1.0, max_iter=100, tol=1e-8, doc_topic_init=None):
    """Folding-in with NumPy, one document at a time: EM over P(z | d) with P(w | z) fixed; the
    oracle of :func:`latentkit._kernels.plsa.plsa_fold_in`.

    Parameters
    ----------
    X : scipy.sparse matrix or ndarray of shape (D, V)
        Counts n(d, w).
    components : ndarray of shape (K, V)
        P(w | z), fixed.
    beta : float, default 1
        Tempering exponent of the E-step.
    max_iter : int, default 100
        Maximum sweeps per document.
    tol : float, default 1e-8
        A document stops when ``max_z |P_new(z | d) - P(z | d)| < tol``.
    doc_topic_init : ndarray of shape (D, K), optional
        Starting P(z | d); default uniform.

    Returns
    -------
    doc_topic : ndarray of shape (D, K)
        Folded-in P(z | d); an empty document keeps its starting row.
    loglik : ndarray of shape (D,)
        sum_w n(d, w) log P(w | d) at the returned P(z | d), nats (words of probability 0
        left out).
    n_iter : ndarray of shape (D,) of int
        Sweeps run per document.

    Notes
    -----
    Hofmann (1999), section 3.3.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.testing import plsa_fold_in_oracle
    >>> components = np.array([[1.0, 0.0], [0.0, 1.0]])  # each topic one word
    >>> doc_topic, loglik, n_iter = plsa_fold_in_oracle(np.array([[3.0, 1.0]]), components)
    >>> np.round(doc_topic, 6)  # the word proportions
    array([[0.75, 0.25]])
    """
    Xd = _dense_counts(X)
    D = Xd.shape[0]
    K = components.shape[0]
    theta = np.full((D, K), 1.0 / K) if doc_topic_init is None else \
        np.array(doc_topic_init, dtype=np.float64, copy=True)
    loglik = np.zeros(D)
    n_iter = np.zeros(D, dtype=np.int64)
    for d in range(D):
        n = Xd[d]
        for it in range(1, max_iter + 1):
            n_iter[d] = it
            joint = theta[d][None, :] * components.T            # (V, K)
            s = joint.sum(1)
            ok = (n > 0) & (s > 0)
            if not ok.any():
                break
            post = joint[ok] ** beta
            post = post / post.sum(1, keepdims=True)
            new = (n[ok][:, None] * post).sum(0) / n[ok].sum()
            delta = np.max(np.abs(new - theta[d]))
            theta[d] = new
            if delta < tol:
                break
        p = theta[d] @ components
        ok = (n > 0) & (p > 0)
        loglik[d] = np.sum(n[ok] * np.log(p[ok]))
    return theta, loglik, n_iter
