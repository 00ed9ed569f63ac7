"""The biterms of a corpus: the unordered pairs of token positions of each document, grouped
into distinct word pairs with their counts (Yan, Guo, Lan & Cheng 2013, section 3.2).

A document with counts ``c`` has ``c_u c_v`` biterms ``{u, v}`` (``u < v``) and ``c_u (c_u -
1) / 2`` biterms ``{u, u}``; it has ``l (l - 1) / 2`` in all. Built from the CSR arrays with
NumPy only (``O(sum_d nnz_d^2)`` candidate pairs, one sort), never per token.
"""

import numpy as np
import scipy.sparse as sp

from .._utils.validation import check_counts
from ..exceptions import InputError

__all__ = ["BitermData", "corpus_biterms", "MAX_PAIRS"]

#: Most candidate pairs (``sum_d nnz_d (nnz_d + 1) / 2``) of one call: about 80 bytes each
#: while they are grouped (1.6 GB at the limit).
MAX_PAIRS = 20_000_000


def corpus_biterms(X):
    """The distinct biterms of the documents ``X`` and each document's counts of them.

    Parameters
    ----------
    X : scipy.sparse.csr_matrix of shape (n_documents, V)
        Integer-valued counts (validated).

    Returns
    -------
    first, second : ndarray of shape (n_biterms,) of int64
        The two words of each distinct biterm, ``first <= second``, sorted by
        ``(first, second)``.
    doc_biterm : scipy.sparse.csr_matrix of shape (n_documents, n_biterms)
        How many times each document holds each biterm (rows sum to ``l_d (l_d - 1) / 2``).
    """
    X = sp.csr_matrix(X, copy=True)
    X.sum_duplicates()
    X.sort_indices()
    X.eliminate_zeros()
    D, V = X.shape
    indptr, idx, cnt = X.indptr.astype(np.int64), X.indices.astype(np.int64), X.data
    m = np.diff(indptr)
    n_pairs = float(np.sum(m * (m + 1.0) / 2.0))
    if n_pairs > MAX_PAIRS:
        raise InputError(f"X has {n_pairs:.3g} pairs of distinct words within documents (more "
                         f"than {MAX_PAIRS:.0e}); the biterm topic model is for short texts: "
                         "split long documents into windows of a few dozen words, or fit "
                         "minibatches (partial_fit, StochasticVI).")
    nnz = idx.size
    end = np.repeat(indptr[1:], m)
    n_partner = end - np.arange(nnz)  # an entry pairs with itself and the later entries
    first = np.repeat(np.arange(nnz), n_partner)
    offset = np.arange(first.size) - np.repeat(np.cumsum(n_partner) - n_partner, n_partner)
    second = first + offset
    c1, c2 = cnt[first], cnt[second]
    weight = np.where(offset == 0, c1 * (c1 - 1.0) / 2.0, c1 * c2)
    keep = weight > 0
    doc = np.repeat(np.repeat(np.arange(D), m), n_partner)[keep]
    u, v, weight = idx[first][keep], idx[second][keep], weight[keep]
    keys, inv = np.unique(u * V + v, return_inverse=True)
    doc_biterm = sp.csr_matrix((weight, (doc, inv.ravel())), shape=(D, keys.size))
    doc_biterm.sum_duplicates()
    return keys // V, keys % V, doc_biterm


class BitermData:
    """Documents with their biterms: the validated data of
    :class:`~latentkit.topic.BitermTopicModel` (rows are documents; a row slice recounts).

    Parameters
    ----------
    X : scipy.sparse.csr_matrix of shape (n_documents, V)
        Validated counts.

    Attributes
    ----------
    X : scipy.sparse.csr_matrix
    first, second : ndarray of int64
        Words of the distinct biterms.
    counts : ndarray of shape (n_biterms,)
        Occurrences of each distinct biterm.
    doc_biterm : scipy.sparse.csr_matrix of shape (n_documents, n_biterms)
    shape : (n_documents, V)
    """

    def __init__(self, X):
        self.X = X
        self.shape = X.shape
        self.first, self.second, self.doc_biterm = corpus_biterms(X)
        self.counts = np.asarray(self.doc_biterm.sum(axis=0)).ravel()

    def __getitem__(self, rows):
        return BitermData(self.X[rows])

    @classmethod
    def of(cls, X, name="X"):
        """Validated counts and their biterms (a BitermData passes through)."""
        if isinstance(X, BitermData):
            return X
        return cls(check_counts(X, name))
