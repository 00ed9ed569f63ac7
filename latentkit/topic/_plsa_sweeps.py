"""Inner document sweeps of pLSA: several updates of P(z | d) per M-step (``PLSA(doc_iter=...,
doc_start=...)``).

Plain EM (Hofmann 1999) updates every document's P(z | d) once per update of P(w | z). BigARTM
(Vorontsov & Potapenko 2015, section 3; Frei & Apishev 2016) runs ``num_document_passes``
updates of each document's P(z | d) with P(w | z) fixed, from P(z | d) = 1 / K, before
accumulating the topic-word counts of an M-step. Both are offered here:

* ``doc_start='previous'``: the sweeps continue from the current P(z | d). Every sweep is an
  EM step in P(z | d) alone and the E-step then an EM step in both, so the log-likelihood (the
  tempered free energy when ``beta < 1``) never decreases; the fixed points are EM's.
* ``doc_start='uniform'``: every M-step's sweeps start from P(z | d) = 1 / K (BigARTM's
  offline algorithm). P(z | d) is then a fixed function of P(w | z), ``doc_iter`` EM steps of
  folding-in from uniform: an early-stopped, smoother P(z | d) than the maximum-likelihood one,
  which acts as a regulariser of P(w | z) (lower held-out perplexity on short documents,
  ``docs/guide/benchmarks.md``). Not a maximum-likelihood fit; the log-likelihood it records
  is not guaranteed to increase (the fit's monitor then uses the windowed rule).
"""

import numpy as np
import scipy.sparse as sp

from .._kernels.plsa_sweeps import (plsa_doc_sweeps, plsa_gather_topic_word,
                                     plsa_sweeps_doc_pass, plsa_sweeps_e_step)
from ._cvb0 import seed_counts

__all__ = ["doc_sweeps", "seed_topics", "sweeps_e_step_stats", "word_major_index"]


def seed_topics(X, n_components, rng):
    """Starting P(w | z) of ``PLSA(init='documents')``: 1 + the counts of K seed documents.

    Parameters
    ----------
    X : scipy.sparse.csr_matrix of shape (n_docs, n_words)
        Validated counts.
    n_components : int
        K.
    rng : numpy.random.Generator

    Returns
    -------
    ndarray of shape (n_components, n_words)
        Rows on the simplex: topic k is proportional to one pseudo-count on every word plus
        the counts of seed document k (drawn with probability proportional to its length,
        :func:`latentkit.topic._cvb0.seed_counts`), so every word keeps a positive probability
        and the topics differ from the first E-step.

    Notes
    -----
    Source: the document seeding of LDA's CVB0 start (Asuncion et al. 2009 for CVB0;
    k-means++-style seeding, Arthur & Vassilvitskii 2007, without the distance weighting).
    """
    topics = 1.0 + seed_counts(X, n_components, rng).T
    return topics / topics.sum(axis=1, keepdims=True)


def doc_sweeps(X, doc_factor, components, beta, n_sweeps, start):
    """Document factors after ``n_sweeps`` updates of each P(z | d) with P(w | z) fixed.

    Parameters
    ----------
    X : scipy.sparse.csr_matrix of shape (n_docs, n_words)
        Validated counts n(d, w).
    doc_factor : ndarray of shape (n_docs, n_components)
        a(d, z) = m_d P(z | d) (m_d = 1 in the asymmetric form, P(d) in the symmetric one);
        not modified.
    components : ndarray of shape (n_components, n_words)
        P(w | z).
    beta : float in (0, 1]
        Tempering exponent of the updates (1: EM).
    n_sweeps : int >= 0
        Updates per document.
    start : {'previous', 'uniform'}
        Start from ``doc_factor`` or from m_d / K.

    Returns
    -------
    ndarray of shape (n_docs, n_components)
        The new a(d, z); every row keeps its mass m_d.

    Notes
    -----
    Source: Hofmann (1999), section 3.3 (one update is a folding-in EM step); Vorontsov &
    Potapenko (2015), section 3 (BigARTM's inner passes from a uniform start). Each document
    is independent, so the result does not depend on the number of threads.
    """
    a = np.array(doc_factor, dtype=np.float64, order="C", copy=True)
    if start == "uniform":
        a[:] = a.sum(1, keepdims=True) / a.shape[1]
    if n_sweeps > 0:
        plsa_doc_sweeps(X.indptr.astype(np.int64), X.indices.astype(np.int64),
                        np.asarray(X.data, dtype=np.float64),
                        np.ascontiguousarray(components.T), float(beta), np.int64(n_sweeps), a)
    return a


def sweeps_e_step_stats(X, doc_factor, components, beta, n_sweeps, start, block_starts=None,
                        word_major=None):
    """The E-step statistics at the document factors after ``n_sweeps`` sweeps, in one pass.

    Equal (to rounding) to ``plsa_e_step_stats(X, doc_sweeps(X, doc_factor, components, beta,
    n_sweeps, start), components, beta)``, but each document is swept and then accumulated
    while its rows of P(w | z) are in cache (:func:`latentkit._kernels.plsa_sweeps.
    plsa_sweeps_e_step`): one parallel pass and no (n_docs, K) copy. At beta = 1 the
    topic-word counts are gathered word by word instead (:func:`latentkit._kernels.plsa_sweeps.
    plsa_gather_topic_word`): no per-block (n_words, K) slabs to clear, scatter into and sum.

    Parameters
    ----------
    X : scipy.sparse.csr_matrix of shape (n_docs, n_words)
        Validated counts n(d, w).
    doc_factor : ndarray of shape (n_docs, n_components)
        a(d, z) = m_d P(z | d) before the sweeps; not modified.
    components : ndarray of shape (n_components, n_words)
        P(w | z).
    beta : float in (0, 1]
        Tempering exponent (1: EM).
    n_sweeps : int >= 0
        Updates of each a(d, z) before the E-step.
    start : {'previous', 'uniform'}
        Sweep from ``doc_factor`` or from m_d / K.
    block_starts : int64 ndarray of shape (n_blocks + 1,), optional
        Document boundaries of the word-statistics blocks (default: 16 equal blocks, fewer
        for fewer documents); fixed, so the result does not depend on the number of threads.
        Used at beta < 1.
    word_major : tuple, optional
        :func:`word_major_index` of ``X`` (computed when not given; a fit passes the same one
        every iteration). Used at beta = 1.

    Returns
    -------
    doc_topic : ndarray of shape (n_docs, n_components)
        sum_w n(d, w) P_beta(z | d, w) at the swept factors.
    topic_word : ndarray of shape (n_components, n_words)
        sum_d n(d, w) P_beta(z | d, w).
    loglik, free_energy : ndarray of shape (n_docs,)
        Per-document log-likelihood and tempered free energy at the swept factors, nats.

    Notes
    -----
    Source: Hofmann (1999), eqs. 3-5 and section 3.3; Vorontsov & Potapenko (2015), section 3
    (the topic-word counts as P(w | z) sum_d a(d, z) n(d, w) / P(w | d) at beta = 1).
    """
    D, K = doc_factor.shape
    V = components.shape[1]
    word_factor = np.ascontiguousarray(components.T, dtype=np.float64)
    if beta == 1.0:
        col_ptr, rows, perm = word_major_index(X) if word_major is None else word_major
        swept = np.empty((D, K))
        q = np.empty(X.nnz)
        out_doc = np.empty((D, K))
        out_ll = np.empty(D)
        plsa_sweeps_doc_pass(X.indptr.astype(np.int64), X.indices.astype(np.int64),
                             np.asarray(X.data, dtype=np.float64), word_factor,
                             np.int64(n_sweeps), start == "uniform",
                             np.ascontiguousarray(doc_factor, dtype=np.float64), swept, q,
                             out_doc, out_ll)
        word = np.empty((V, K))
        plsa_gather_topic_word(col_ptr, rows, perm, q, swept, word_factor, word)
        return out_doc, np.ascontiguousarray(word.T), out_ll, out_ll.copy()
    if block_starts is None:
        block_starts = np.linspace(0, D, max(1, min(16, D)) + 1).astype(np.int64)
    out_doc = np.empty((D, K))
    out_word = np.empty((block_starts.size - 1, V, K))
    out_ll = np.empty(D)
    out_free = np.empty(D)
    plsa_sweeps_e_step(X.indptr.astype(np.int64), X.indices.astype(np.int64),
                       np.asarray(X.data, dtype=np.float64), word_factor, float(beta),
                       np.int64(n_sweeps), start == "uniform", block_starts,
                       np.ascontiguousarray(doc_factor, dtype=np.float64), out_doc, out_word,
                       out_ll, out_free)
    topic_word = out_word.sum(axis=0)
    return out_doc, np.ascontiguousarray(topic_word.T), out_ll, out_free


def word_major_index(X):
    """The count matrix by word, as positions into its CSR arrays.

    Parameters
    ----------
    X : scipy.sparse.csr_matrix of shape (n_docs, n_words)

    Returns
    -------
    col_ptr : int64 ndarray of shape (n_words + 1,)
    rows : int64 ndarray of shape (nnz,)
        The documents of word w: ``rows[col_ptr[w]:col_ptr[w + 1]]``, in increasing order.
    perm : int64 ndarray of shape (nnz,)
        The position of each of those non-zeros in ``X.indices`` / ``X.data``.
    """
    pos = sp.csr_matrix((np.arange(X.nnz, dtype=np.float64), X.indices, X.indptr),
                        shape=X.shape).tocsc()
    pos.sort_indices()
    return (pos.indptr.astype(np.int64), pos.indices.astype(np.int64),
            pos.data.astype(np.int64))
