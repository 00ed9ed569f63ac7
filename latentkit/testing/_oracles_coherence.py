"""NumPy oracles of the coherence co-occurrence kernels (``latentkit._kernels.coherence``):
one document or one window at a time, by brute force."""

import numpy as np

__all__ = ["oracle_document_cooccurrence", "oracle_window_cooccurrence", "gensim_corpus_and_texts"]


def oracle_document_cooccurrence(X, relevant_words):
    """Documents containing both words, by a dense boolean product.

    Parameters
    ----------
    X : sparse or dense (n_docs, n_words) counts
    relevant_words : sequence of int, length R

    Returns
    -------
    ndarray of int64, shape (R, R)

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.testing import oracle_document_cooccurrence
    >>> X = np.array([[1, 1, 0], [1, 0, 2], [0, 1, 1]])
    >>> oracle_document_cooccurrence(X, [0, 1, 2])
    array([[2, 1, 1],
           [1, 2, 1],
           [1, 1, 2]])
    """
    B = np.asarray((X[:, list(relevant_words)] > 0).astype(np.int64).todense()
                   if hasattr(X, "tocsr") else np.asarray(X)[:, list(relevant_words)] > 0,
                   dtype=np.int64)
    return B.T @ B


def oracle_window_cooccurrence(docs, relevant_words, window_size, exact=True):
    """Windows containing both words: every window's word set built from scratch.

    Parameters
    ----------
    docs : list of sequences of int
        Token ids per document.
    relevant_words : sequence of int, length R
    window_size : int
    exact : bool
        True: the set of words in the window. False: gensim 4's bookkeeping (the word leaving at
        the left edge is removed from the previous window's set, then the entering word added).

    Returns
    -------
    counts : ndarray of int64, shape (R, R)
    n_windows : int

    Examples
    --------
    >>> from latentkit.testing import oracle_window_cooccurrence
    >>> docs = [[0, 1, 2, 0]]
    >>> oracle_window_cooccurrence(docs, [0, 1, 2], window_size=2)
    (array([[2, 1, 1],
           [1, 2, 1],
           [1, 1, 2]]), 3)
    """
    index = {w: i for i, w in enumerate(relevant_words)}
    R = len(index)
    counts = np.zeros((R, R), dtype=np.int64)
    n_windows = 0
    for doc in docs:
        doc = [index.get(int(w), -1) for w in doc]
        L = len(doc)
        if L == 0:
            n_windows += 1
            continue
        n_doc = L - window_size + 1 if L > window_size else 1
        current = None
        for t in range(n_doc):
            window = doc[t:t + window_size]
            if exact or current is None:
                current = {r for r in window if r >= 0}
            else:
                current.discard(doc[t - 1])
                if window[-1] >= 0:
                    current.add(window[-1])
            members = sorted(current)
            for a in members:
                for b in members:
                    counts[a, b] += 1
            n_windows += 1
    return counts, n_windows


def gensim_corpus_and_texts(X, vocabulary):
    """gensim's inputs for a count matrix: the bag-of-words corpus and the token lists.

    The token lists read each document in bag-of-words order (each word repeated by its count,
    words in column order), the order :func:`latentkit.topic.coherence` uses for a count matrix.

    Parameters
    ----------
    X : scipy.sparse matrix (n_docs, n_words) of counts
    vocabulary : sequence of str

    Returns
    -------
    bow : list of lists of (int, int)
    texts : list of lists of str

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> from latentkit.testing import gensim_corpus_and_texts
    >>> X = sp.csr_matrix([[2, 0, 1], [0, 1, 0]])
    >>> bow, texts = gensim_corpus_and_texts(X, ["apple", "banana", "cherry"])
    >>> bow
    [[(0, 2), (2, 1)], [(1, 1)]]
    >>> texts
    [['apple', 'apple', 'cherry'], ['banana']]
    """
    Xs = X.tocsr(copy=True)
    Xs.sort_indices()
    bow, texts = [], []
    for r in range(Xs.shape[0]):
        sl = slice(Xs.indptr[r], Xs.indptr[r + 1])
        pairs = [(int(j), int(v)) for j, v in zip(Xs.indices[sl], Xs.data[sl])]
        bow.append(pairs)
        texts.append([vocabulary[j] for j, v in pairs for _ in range(v)])
    return bow, texts
