"""numba kernels of probabilistic latent semantic analysis (Hofmann 1999, 2004).

Both kernels walk the non-zeros of a CSR documents x words count matrix; the posterior over the
aspects of one (document, word) pair is formed on the fly, so no D x V x K array is ever built.
Documents are processed in a fixed number of contiguous blocks; each block writes its own
word-statistics slab and the slabs are summed in block order by the caller, so the result does
not depend on the number of threads (DESIGN.md section 4).

Imports only numpy, math and numba. Public wrappers with validation live in
:mod:`latentkit.topic._plsa`; the naive dense NumPy oracles (and a direct NumPy EM) are in
:mod:`latentkit.testing._oracles_topic` (compared to 1e-10).
"""

import math

import numpy as np

from ._jit import jit, prange

__all__ = ["doc_posterior_sums", "plsa_e_step", "plsa_fold_in"]


@jit(parallel=True)
def plsa_e_step(indptr, indices, counts, doc_factor, word_factor, beta, block_starts,
                out_doc, out_word, out_ll, out_free):
    """One (tempered) E-step of pLSA accumulated into sufficient statistics.

    Parameters
    ----------
    indptr, indices : int arrays
        CSR structure of the (n_docs, n_words) count matrix.
    counts : float64 array of shape (nnz,)
        The non-zero counts n(d, w).
    doc_factor : float64 array of shape (n_docs, K)
        a(d, z): P(z | d) (asymmetric form) or P(z) P(d | z) (symmetric form).
    word_factor : float64 array of shape (n_words, K)
        P(w | z), transposed.
    beta : float
        Tempering exponent of the E-step (Hofmann's TEM); 1 is plain EM.
    block_starts : int64 array of shape (n_blocks + 1,)
        Document boundaries of the blocks (one word slab per block).
    out_doc : float64 array of shape (n_docs, K)
        Output (overwritten): sum_w n(d, w) P(z | d, w).
    out_word : float64 array of shape (n_blocks, n_words, K)
        Output (overwritten): per-block sum_d n(d, w) P(z | d, w).
    out_ll : float64 array of shape (n_docs,)
        Output: sum_w n(d, w) log sum_z a(d, z) P(w | z), nats.
    out_free : float64 array of shape (n_docs,)
        Output: the tempered free energy sum_w n(d, w) (1 / beta) log sum_z (a P(w|z))^beta,
        equal to ``out_ll`` when beta = 1.

    Tokens whose probability is exactly 0 under every aspect are skipped (they contribute
    nothing; the caller counts them).
    """
    for b in prange(block_starts.shape[0] - 1):
        _plsa_block(indptr, indices, counts, doc_factor, word_factor, beta, block_starts[b],
                    block_starts[b + 1], out_doc, out_word[b], out_ll, out_free)


@jit
def _plsa_block(indptr, indices, counts, doc_factor, word_factor, beta, d0, d1, out_doc, slab,
                out_ll, out_free):
    """Documents ``d0:d1`` of :func:`plsa_e_step` (one block, its word slab ``slab``), serial.
    The whole ``prange`` body is this one call: numba's parfor passes then see a call, not
    the loops (compile time, ``benchmarks/bench_cold_start.py``)."""
    K = doc_factor.shape[1]
    slab[:, :] = 0.0
    p = np.empty(K)
    for d in range(d0, d1):
        ll = 0.0
        fe = 0.0
        for k in range(K):
            out_doc[d, k] = 0.0
        for j in range(indptr[d], indptr[d + 1]):
            w = indices[j]
            c = counts[j]
            s = 0.0
            for k in range(K):
                p[k] = doc_factor[d, k] * word_factor[w, k]
                s += p[k]
            if not (s > 0.0):
                continue
            ll += c * math.log(s)
            if beta != 1.0:
                sb = 0.0
                for k in range(K):
                    if p[k] > 0.0:
                        p[k] = math.exp(beta * math.log(p[k]))
                    sb += p[k]
                fe += c * math.log(sb) / beta
                s = sb
            scale = c / s
            for k in range(K):
                r = p[k] * scale
                out_doc[d, k] += r
                slab[w, k] += r
        out_ll[d] = ll
        out_free[d] = ll if beta == 1.0 else fe


@jit(parallel=True)
def plsa_fold_in(indptr, indices, counts, word_factor, beta, max_iter, tol, doc_topic, out_ll,
                 out_iter):
    """Fold documents in: EM over P(z | d) with P(w | z) fixed (Hofmann 1999, section 3.3).

    Parameters
    ----------
    indptr, indices, counts : CSR arrays of the (n_docs, n_words) count matrix.
    word_factor : float64 array of shape (n_words, K)
        P(w | z), transposed.
    beta : float
        Tempering exponent of the E-step.
    max_iter : int
        Maximum EM sweeps per document.
    tol : float
        A document stops when max_z |P_new(z | d) - P(z | d)| < tol.
    doc_topic : float64 array of shape (n_docs, K)
        In: starting P(z | d) (rows on the simplex); out: the folded-in P(z | d).
    out_ll : float64 array of shape (n_docs,)
        Output: sum_w n(d, w) log P(w | d) at the returned P(z | d), nats.
    out_iter : int64 array of shape (n_docs,)
        Output: sweeps run per document.
    """
    for d in prange(doc_topic.shape[0]):
        _fold_in_doc(indptr, indices, counts, word_factor, beta, max_iter, tol, doc_topic,
                     out_ll, out_iter, np.int64(d))


@jit
def _fold_in_doc(indptr, indices, counts, word_factor, beta, max_iter, tol, doc_topic, out_ll,
                 out_iter, d):
    """Document ``d`` of :func:`plsa_fold_in`, serial (the whole ``prange`` body; ``d`` as
    int64: the parfor index is uint64, and a second signature is a second compilation)."""
    K = doc_topic.shape[1]
    p = np.empty(K)
    acc = np.empty(K)
    it = 0
    while it < max_iter:
        it += 1
        tot = doc_posterior_sums(indptr, indices, counts, word_factor, beta, doc_topic, d, p,
                                 acc)
        if tot <= 0.0:
            break
        delta = 0.0
        for k in range(K):
            v = acc[k] / tot
            dv = abs(v - doc_topic[d, k])
            if dv > delta:
                delta = dv
            doc_topic[d, k] = v
        if delta < tol:
            break
    ll = 0.0
    for j in range(indptr[d], indptr[d + 1]):
        w = indices[j]
        s = 0.0
        for k in range(K):
            s += doc_topic[d, k] * word_factor[w, k]
        if s > 0.0:
            ll += counts[j] * math.log(s)
    out_ll[d] = ll
    out_iter[d] = it


@jit
def doc_posterior_sums(indptr, indices, counts, word_factor, beta, doc_factor, d, p, acc):
    """One folding-in E-step of document ``d``: ``acc[z] = sum_w n(d, w) P_beta(z | d, w)``
    with P_beta(z | d, w) proportional to (a(d, z) P(w | z))^beta; returns the number of
    tokens counted (those of probability 0 under every aspect are left out). ``p`` is a
    (K,) work array. Shared by :func:`plsa_fold_in` and
    :func:`latentkit._kernels.plsa_sweeps.plsa_doc_sweeps`."""
    K = doc_factor.shape[1]
    tot = 0.0
    for k in range(K):
        acc[k] = 0.0
    for j in range(indptr[d], indptr[d + 1]):
        w = indices[j]
        c = counts[j]
        s = 0.0
        for k in range(K):
            p[k] = doc_factor[d, k] * word_factor[w, k]
            s += p[k]
        if not (s > 0.0):
            continue
        if beta != 1.0:
            s = 0.0
            for k in range(K):
                if p[k] > 0.0:
                    p[k] = math.exp(beta * math.log(p[k]))
                s += p[k]
        scale = c / s
        for k in range(K):
            acc[k] += p[k] * scale
        tot += c
    return tot
