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

import numpy as np

from ._jit import jit, prange
from .plsa import doc_posterior_sums

__all__ = ["plsa_doc_sweeps"]


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
