"""The collapsed start of the Dirichlet-multinomial mixture (``init='collapsed'``).

Yin & Wang's (2014) GSDMM samples each document's topic from the *collapsed* conditional: the
topic weights and topics integrated out, the counts of every other document kept. Its
deterministic zero-order version (CVB0; Asuncion, Welling, Smyth & Teh 2009, eq. (14), here for
one topic per document) replaces the sampled topics by responsibilities ``r_d`` and the counts
by their expectations::

    r_dk  propto  (m_k^-d + alpha) * prod_w (n_kw^-d + eta)^(x_dw rising)
                                   / (n_k^-d + V eta)^(N_d rising),

with ``m_k = sum_d r_dk`` (documents), ``n_kw = sum_d r_dk x_dw`` (tokens of word w),
``n_k = sum_w n_kw`` and ``a^(n rising) = Gamma(a + n) / Gamma(a)``: the Dirichlet-multinomial
predictive of the document's whole count vector, its own repeated words included. The
collapsed counts weigh a rare word by ``log(n + eta)`` where mean-field VB weighs it by
``digamma(n + eta)``, which with a small ``eta`` all but forbids a word the topic has not
seen (``digamma(0.1) = -10.4``); the collapsed sweep therefore gathers documents on shared
words as GSDMM's sampler does. The documents are updated in blocks (all documents of a block
against the counts of the others, then the counts), vectorised over the block's nonzeros.

The sweep is only a start: the model then runs its exact mean-field coordinate ascent from
these responsibilities, so the reported bound stays the ELBO of
:class:`~latentkit.topic.DirichletMultinomialMixture`.
"""

import numpy as np
import scipy.sparse as sp
from scipy.special import gammaln

__all__ = ["collapsed_log_predictive", "collapsed_responsibilities"]


def collapsed_log_predictive(X, topic_word, topic_tokens, topic_docs, doc_prior, word_prior):
    """Log collapsed predictive of each document's counts under each topic (unnormalised).

    Parameters
    ----------
    X : scipy.sparse.csr_matrix of shape (n_documents, V)
        Counts of the documents scored.
    topic_word : ndarray of shape (K, V)
        ``n_kw``, the (expected) counts of the *other* documents, >= 0.
    topic_tokens : ndarray of shape (K,)
        ``n_k = sum_w n_kw``.
    topic_docs : ndarray of shape (K,)
        ``m_k``, the (expected) number of other documents on each topic.
    doc_prior, word_prior : float
        alpha and eta (> 0), symmetric.

    Returns
    -------
    ndarray of shape (n_documents, K)
        ``log(m_k + alpha) + sum_w [log Gamma(n_kw + eta + x_dw) - log Gamma(n_kw + eta)]
        - [log Gamma(n_k + V eta + N_d) - log Gamma(n_k + V eta)]`` (nats).
    """
    X = sp.csr_matrix(X)
    D, V = X.shape
    base = topic_word[:, X.indices] + word_prior  # (K, nnz)
    per_entry = gammaln(base + X.data[None, :]) - gammaln(base)
    nnz = X.indices.size  # each document's sum over its nonzeros: a 0/1 (D, nnz) product
    rows = sp.csr_matrix((np.ones(nnz), np.arange(nnz), X.indptr), shape=(D, nnz))
    words = np.asarray(rows @ per_entry.T)
    n_d = np.asarray(X.sum(axis=1)).ravel()
    tot = topic_tokens[None, :] + V * word_prior
    return (np.log(topic_docs + doc_prior)[None, :] + words
            - (gammaln(tot + n_d[:, None]) - gammaln(tot)))


def collapsed_responsibilities(X, n_components, doc_prior, word_prior, rng, n_sweeps=20,
                               block_size=None):
    """Responsibilities of the DMM's collapsed (CVB0) sweeps, from a random hard start.

    Parameters
    ----------
    X : scipy.sparse.csr_matrix of shape (n_documents, V)
        Validated counts.
    n_components : int
        K.
    doc_prior, word_prior : float
        alpha (per topic, symmetric) and eta (> 0).
    rng : numpy.random.Generator
        Draws the first topics (uniform, as GSDMM) and the block order of each sweep.
    n_sweeps : int, default 20
        Passes over the documents.
    block_size : int, optional
        Documents updated together against the counts of all the others; default
        ``min(256, max(8, n_documents // 50))`` (2% of the corpus, at least 8 documents
        against the per-block overhead: a block that held the whole corpus would see no
        counts at all, every document uniform).

    Returns
    -------
    ndarray of shape (n_documents, K)
        ``r_dk`` (rows sum to 1).
    """
    X = sp.csr_matrix(X, dtype=np.float64)
    D, K = X.shape[0], int(n_components)
    block = int(block_size) if block_size is not None else min(256, max(8, D // 50))
    resp = np.zeros((D, K))
    resp[np.arange(D), rng.integers(0, K, size=D)] = 1.0
    n_d = np.asarray(X.sum(axis=1)).ravel()
    nkw = np.asarray(X.T @ resp).T
    nk, mk = resp.T @ n_d, resp.sum(axis=0)
    for _ in range(int(n_sweeps)):
        order = rng.permutation(D)
        for start in range(0, D, block):
            idx = np.sort(order[start:start + block])
            sub, old = X[idx], resp[idx]
            nkw -= np.asarray(sub.T @ old).T
            nk -= old.T @ n_d[idx]
            mk -= old.sum(axis=0)
            # round-off of the subtraction: expected counts never below zero
            np.maximum(nkw, 0.0, out=nkw)
            np.maximum(nk, 0.0, out=nk)
            np.maximum(mk, 0.0, out=mk)
            L = collapsed_log_predictive(sub, nkw, nk, mk, doc_prior, word_prior)
            new = np.exp(L - L.max(axis=1, keepdims=True))
            new /= new.sum(axis=1, keepdims=True)
            resp[idx] = new
            nkw += np.asarray(sub.T @ new).T
            nk += new.T @ n_d[idx]
            mk += new.sum(axis=0)
    return resp
