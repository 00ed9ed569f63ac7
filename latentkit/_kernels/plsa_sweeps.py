"""numba kernel of pLSA's inner document sweeps: updates of each document's P(z | d) with
P(w | z) fixed, run before the E-step that feeds an M-step (BigARTM's ``num_document_passes``;
Vorontsov & Potapenko 2015, section 3).

Each document is independent (``prange`` over documents, one serial call per document), so the
result does not depend on the number of threads (DESIGN.md section 4). One update is the
folding-in step of :func:`latentkit._kernels.plsa.doc_posterior_sums`. The validating wrapper is
:func:`latentkit.topic._plsa_sweeps.doc_sweeps`; a dense NumPy oracle is in
``tests/topic/test_plsa_sweeps.py`` and the NumPy EM with the sweeps in
:func:`latentkit.testing.plsa_em_oracle` (both compared to 1e-10).
"""

import math

import numpy as np

from ._jit import jit, prange
from .plsa import doc_posterior_sums

__all__ = ["plsa_doc_sweeps", "plsa_gather_topic_word", "plsa_sweeps_doc_pass",
           "plsa_sweeps_e_step"]


@jit(parallel=True)
def plsa_doc_sweeps(indptr, indices, counts, word_factor, beta, n_sweeps, doc_factor):
    """``n_sweeps`` EM updates of every document's factor a(d, z), in place.

    Parameters
    ----------
    indptr, indices : int64 arrays
        CSR structure of the (n_docs, n_words) count matrix.
    counts : float64 array of shape (nnz,)
        The non-zero counts n(d, w).
    word_factor : float64 array of shape (n_words, K)
        P(w | z), transposed.
    beta : float
        Tempering exponent (Hofmann 2001, eq. 13); 1 is plain EM.
    n_sweeps : int
        Updates per document (0: nothing changes).
    doc_factor : float64 array of shape (n_docs, K)
        In: a(d, z) (P(z | d), or P(z) P(d | z) in the symmetric form); out: after the sweeps.
        One update is a(d, z) <- m_d sum_w n(d, w) P_beta(z | d, w) / sum_w' n(d, w') with
        m_d = sum_z a(d, z) kept (tokens of probability 0 under every aspect left out); a
        document without such tokens is left as it is.
    """
    for d in prange(doc_factor.shape[0]):
        _sweep_doc(indptr, indices, counts, word_factor, beta, n_sweeps, doc_factor,
                   np.int64(d))


@jit
def _sweep_doc(indptr, indices, counts, word_factor, beta, n_sweeps, doc_factor, d):
    """Document ``d`` of :func:`plsa_doc_sweeps`, serial (the whole ``prange`` body; ``d``
    as int64, one signature)."""
    K = doc_factor.shape[1]
    p = np.empty(K)
    acc = np.empty(K)
    mass = 0.0
    for k in range(K):
        mass += doc_factor[d, k]
    for _ in range(n_sweeps):
        tot = doc_posterior_sums(indptr, indices, counts, word_factor, beta, doc_factor, d, p,
                                 acc)
        if not (tot > 0.0):
            return
        for k in range(K):
            doc_factor[d, k] = mass * acc[k] / tot


@jit(parallel=True)
def plsa_sweeps_e_step(indptr, indices, counts, word_factor, beta, n_sweeps, uniform,
                       block_starts, doc_factor, out_doc, out_word, out_ll, out_free):
    """The sweeps and the E-step of one pLSA iteration in one pass over each document.

    Document d's ``n_sweeps`` updates of a(d, z) (:func:`plsa_doc_sweeps`) run in ``out_doc[d]``
    and are followed at once by the E-step at the swept a(d, z), while the document's rows of
    P(w | z) are still in cache: one parallel pass instead of two, no (n_docs, K) copy.

    Parameters
    ----------
    indptr, indices, counts, word_factor, beta
        As :func:`plsa_doc_sweeps`: the CSR arrays of the (n_docs, n_words) counts, P(w | z)
        transposed (n_words, K), the tempering exponent.
    n_sweeps : int
        Updates of a(d, z) before the E-step (0: the E-step alone).
    uniform : bool
        Start the sweeps from m_d / K (m_d = sum_z a(d, z)) instead of a(d, z).
    block_starts : int64 array of shape (n_blocks + 1,)
        Document boundaries of the blocks (one word slab per block).
    doc_factor : float64 array of shape (n_docs, K)
        a(d, z) before the sweeps; not modified.
    out_doc : float64 array of shape (n_docs, K)
        Output (overwritten): sum_w n(d, w) P_beta(z | d, w) at the swept a(d, z).
    out_word : float64 array of shape (n_blocks, n_words, K)
        Output (overwritten): per-block sum_d n(d, w) P_beta(z | d, w).
    out_ll : float64 array of shape (n_docs,)
        Output: sum_w n(d, w) log sum_z a(d, z) P(w | z) at the swept a, nats.
    out_free : float64 array of shape (n_docs,)
        Output: the tempered free energy (equal to ``out_ll`` up to rounding when beta = 1;
        the beta = 1 path of a fit is :func:`plsa_sweeps_doc_pass` and
        :func:`plsa_gather_topic_word`).

    Notes
    -----
    Source: Hofmann (1999), eqs. 3-5 and section 3.3; Vorontsov & Potapenko (2015), section 3.
    Tokens of probability 0 under every aspect are skipped, as in
    :func:`latentkit._kernels.plsa.plsa_e_step`.
    """
    for b in prange(block_starts.shape[0] - 1):
        _sweeps_e_block(indptr, indices, counts, word_factor, beta, n_sweeps, uniform,
                        block_starts[b], block_starts[b + 1], doc_factor, out_doc, out_word[b],
                        out_ll, out_free)


@jit
def _sweeps_e_block(indptr, indices, counts, word_factor, beta, n_sweeps, uniform, d0, d1,
                    doc_factor, out_doc, slab, out_ll, out_free):
    """Documents ``d0:d1`` of :func:`plsa_sweeps_e_step` (one block, its slab), serial."""
    K = doc_factor.shape[1]
    slab[:, :] = 0.0
    a = np.empty(K)
    p = np.empty(K)
    acc = np.empty(K)
    for d in range(d0, d1):
        mass = 0.0
        for k in range(K):
            mass += doc_factor[d, k]
        for k in range(K):
            a[k] = mass / K if uniform else doc_factor[d, k]
        out_doc[d, :] = a
        _sweep_doc(indptr, indices, counts, word_factor, beta, n_sweeps, out_doc, d)
        a[:] = out_doc[d, :]
        for k in range(K):
            acc[k] = 0.0
        ll = 0.0
        fe = 0.0
        for j in range(indptr[d], indptr[d + 1]):
            w = indices[j]
            c = counts[j]
            s = 0.0
            for k in range(K):
                s += a[k] * word_factor[w, k]
            if not (s > 0.0):
                continue
            ll += c * math.log(s)
            sb = 0.0
            for k in range(K):
                v = a[k] * word_factor[w, k]
                p[k] = math.exp(beta * math.log(v)) if v > 0.0 else 0.0
                sb += p[k]
            fe += c * math.log(sb) / beta
            scale = c / sb
            for k in range(K):
                r = p[k] * scale
                acc[k] += r
                slab[w, k] += r
        for k in range(K):
            out_doc[d, k] = acc[k]
        out_ll[d] = ll
        out_free[d] = fe


@jit
def _em_pass(indptr, indices, counts, word_factor, d, a, acc, record, out_q):
    """One beta = 1 pass over document ``d`` at its factor ``a`` (K,): ``acc[z] = sum_w
    [n(d, w) / P(w | d)] P(w | z)`` (so a(d, z) acc[z] = sum_w n(d, w) P(z | d, w): per token
    one dot product and one axpy, the posterior never stored). Returns the tokens counted and,
    with ``record``, sum_w n(d, w) log P(w | d) (nats), storing n(d, w) / P(w | d) per token
    in ``out_q`` (0 for tokens of probability 0 under every aspect, which are left out)."""
    K = a.shape[0]
    for k in range(K):
        acc[k] = 0.0
    tot = 0.0
    ll = 0.0
    for j in range(indptr[d], indptr[d + 1]):
        w = indices[j]
        s = 0.0
        for k in range(K):
            s += a[k] * word_factor[w, k]
        q = counts[j] / s if s > 0.0 else 0.0
        if record:
            out_q[j] = q
            if q > 0.0:
                ll += counts[j] * math.log(s)
        if not (q > 0.0):
            continue
        for k in range(K):
            acc[k] += q * word_factor[w, k]
        tot += counts[j]
    return tot, ll


@jit(parallel=True)
def plsa_sweeps_doc_pass(indptr, indices, counts, word_factor, n_sweeps, uniform, doc_factor,
                         out_factor, out_q, out_doc, out_ll):
    """Document side of the beta = 1 sweeps + E-step (no word slabs): per document the
    sweeps, then one pass that stores n(d, w) / P(w | d) per token for
    :func:`plsa_gather_topic_word`.

    Parameters
    ----------
    indptr, indices, counts : CSR arrays of the (n_docs, n_words) count matrix (int64, int64,
        float64).
    word_factor : float64 array of shape (n_words, K)
        P(w | z), transposed.
    n_sweeps : int
        EM updates of a(d, z) before the E-step.
    uniform : bool
        Start the sweeps from m_d / K instead of a(d, z).
    doc_factor : float64 array of shape (n_docs, K)
        a(d, z) before the sweeps; not modified.
    out_factor : float64 array of shape (n_docs, K)
        Output: the swept a(d, z).
    out_q : float64 array of shape (nnz,)
        Output: n(d, w) / sum_z a(d, z) P(w | z) at the swept a per non-zero (0 for tokens of
        probability 0 under every aspect).
    out_doc : float64 array of shape (n_docs, K)
        Output: sum_w n(d, w) P(z | d, w) at the swept a.
    out_ll : float64 array of shape (n_docs,)
        Output: sum_w n(d, w) log sum_z a(d, z) P(w | z) at the swept a, nats.

    Notes
    -----
    Source: Hofmann (1999), eqs. 3-5 and section 3.3; Vorontsov & Potapenko (2015), section 3.
    Each document is independent: the result does not depend on the number of threads.
    """
    for d in prange(doc_factor.shape[0]):
        _doc_pass(indptr, indices, counts, word_factor, n_sweeps, uniform, doc_factor,
                  out_factor, out_q, out_doc, out_ll, np.int64(d))


@jit
def _doc_pass(indptr, indices, counts, word_factor, n_sweeps, uniform, doc_factor, out_factor,
              out_q, out_doc, out_ll, d):
    """Document ``d`` of :func:`plsa_sweeps_doc_pass`, serial."""
    K = doc_factor.shape[1]
    a = out_factor[d]
    acc = np.empty(K)
    mass = 0.0
    for k in range(K):
        mass += doc_factor[d, k]
    for k in range(K):
        a[k] = mass / K if uniform else doc_factor[d, k]
    for _ in range(n_sweeps):   # a(d, z) <- m_d a(d, z) acc[z] / n_d
        tot, _ll = _em_pass(indptr, indices, counts, word_factor, d, a, acc, False, out_q)
        if not (tot > 0.0):
            break
        for k in range(K):
            a[k] = mass / tot * a[k] * acc[k]
    _tot, ll = _em_pass(indptr, indices, counts, word_factor, d, a, acc, True, out_q)
    for k in range(K):
        out_doc[d, k] = a[k] * acc[k]
    out_ll[d] = ll


@jit(parallel=True)
def plsa_gather_topic_word(col_ptr, rows, perm, q, doc_factor, word_factor, out):
    """Topic-word statistics of the beta = 1 E-step, one word at a time (no per-block slabs).

    Parameters
    ----------
    col_ptr, rows, perm : int64 arrays of shapes (n_words + 1,), (nnz,), (nnz,)
        The count matrix by word: the documents of word w are ``rows[col_ptr[w]:col_ptr[w+1]]``
        and ``perm`` maps each to its position in the CSR arrays.
    q : float64 array of shape (nnz,)
        n(d, w) / P(w | d) per CSR non-zero (:func:`plsa_sweeps_doc_pass`).
    doc_factor : float64 array of shape (n_docs, K)
        The swept a(d, z).
    word_factor : float64 array of shape (n_words, K)
        P(w | z), transposed.
    out : float64 array of shape (n_words, K)
        Output: sum_d n(d, w) P(z | d, w) = P(w | z) sum_d a(d, z) n(d, w) / P(w | d).

    Notes
    -----
    Source: Vorontsov & Potapenko (2015), section 3 (the counts n_wt from n_dw / p_dw). Each
    word's sum runs over its documents in order: the result does not depend on the number of
    threads.
    """
    for w in prange(out.shape[0]):
        _gather_word(col_ptr, rows, perm, q, doc_factor, word_factor, out, np.int64(w))


@jit
def _gather_word(col_ptr, rows, perm, q, doc_factor, word_factor, out, w):
    """Word ``w`` of :func:`plsa_gather_topic_word`, serial."""
    K = out.shape[1]
    for k in range(K):
        out[w, k] = 0.0
    for j in range(col_ptr[w], col_ptr[w + 1]):
        d = rows[j]
        qq = q[perm[j]]
        for k in range(K):
            out[w, k] += qq * doc_factor[d, k]
    for k in range(K):
        out[w, k] *= word_factor[w, k]
