"""Co-occurrence counting for topic coherence (numba).

Two counters, both restricted to the R *relevant* words (the union of the topics' top words,
numbered 0..R-1 by ``relevant``: word id -> relevant index or -1):

* :func:`document_cooccurrence`: boolean documents over a CSR count matrix: ``counts[a, b]`` =
  number of documents containing both relevant words a and b (the diagonal: containing a).
* :func:`window_cooccurrence`: boolean sliding windows over token streams (flat word ids with
  CSR-style ``offsets``): every window of ``window_size`` consecutive tokens is a virtual
  document; a document shorter than the window (or empty) is one virtual document.

The window counter never loops over windows x pairs. It follows the set of relevant words in
the current window as a sequence of *enter* and *leave* events; when word a leaves at window t
it has been present since ``start[a]``, and for each word b still present its overlap with a is
``t - max(start[a], start[b])`` windows, added to ``counts[a, b]``. So the work is one event per
token and O(R) per leave event, instead of O(|window words|^2) per window.

``exact=True`` keeps true set membership (a word leaves when its last occurrence leaves the
window: Roeder, Both & Hinneburg 2015). ``exact=False`` reproduces gensim 4's
``WordOccurrenceAccumulator``: when the window slides, the token leaving at the left edge is
dropped from the window's word set even if it occurs again inside the window, then the token
entering at the right edge is added.

NumPy oracles: ``latentkit.testing.oracle_document_cooccurrence`` and
``oracle_window_cooccurrence`` (one window at a time, by brute force).
"""

import numpy as np

from ._jit import jit


@jit
def document_cooccurrence(indptr, indices, data, relevant, n_relevant):
    """Boolean-document co-occurrence counts over CSR rows.

    Parameters
    ----------
    indptr, indices : int arrays
        CSR structure of a (n_docs, n_words) count matrix.
    data : float array
        Its values; a word is present in a document where its count is > 0.
    relevant : int64 array, shape (n_words,)
        Relevant index of each word, -1 for the others.
    n_relevant : int

    Returns
    -------
    ndarray of int64, shape (n_relevant, n_relevant)
        Symmetric; ``[a, a]`` is the document frequency of a.
    """
    counts = np.zeros((n_relevant, n_relevant), dtype=np.int64)
    present = np.empty(n_relevant, dtype=np.int64)
    seen = np.full(n_relevant, -1, dtype=np.int64)
    for d in range(indptr.shape[0] - 1):
        m = 0
        for p in range(indptr[d], indptr[d + 1]):
            r = relevant[indices[p]]
            if r >= 0 and data[p] > 0 and seen[r] != d:
                seen[r] = d
                present[m] = r
                m += 1
        for i in range(m):
            a = present[i]
            counts[a, a] += 1
            for j in range(i + 1, m):
                b = present[j]
                counts[a, b] += 1
                counts[b, a] += 1
    return counts


@jit
def _leave(a, t, start, active, n_active, pos, counts):
    """Word a leaves the window set at window t (present in windows start[a]..t-1)."""
    sa = start[a]
    counts[a, a] += t - sa
    # remove a from the active list (swap with the last)
    i = pos[a]
    last = active[n_active - 1]
    active[i] = last
    pos[last] = i
    pos[a] = -1
    n_active -= 1
    for j in range(n_active):
        b = active[j]
        sb = start[b]
        overlap = t - (sa if sa > sb else sb)
        counts[a, b] += overlap
        counts[b, a] += overlap
    return n_active


@jit
def _enter(a, t, start, active, n_active, pos):
    start[a] = t
    pos[a] = n_active
    active[n_active] = a
    return n_active + 1


@jit
def window_cooccurrence(offsets, tokens, relevant, n_relevant, window_size, exact):
    """Boolean sliding-window co-occurrence counts over token streams.

    Parameters
    ----------
    offsets : int64 array, shape (n_docs + 1,)
        Document d is ``tokens[offsets[d]:offsets[d + 1]]``.
    tokens : int64 array
        Word ids (any id outside ``relevant``'s range, e.g. -1, counts as an irrelevant token).
    relevant : int64 array, shape (n_words,)
        Relevant index of each word, -1 for the others.
    n_relevant : int
    window_size : int
        At least 1.
    exact : bool
        True set membership (True) or gensim 4's window bookkeeping (False); see the module
        docstring.

    Returns
    -------
    counts : ndarray of int64, shape (n_relevant, n_relevant)
        Symmetric; ``[a, b]`` = windows containing both a and b, ``[a, a]`` windows containing a.
    n_windows : int
        Number of virtual documents (windows, plus one per document shorter than the window).
    """
    n_words = relevant.shape[0]
    counts = np.zeros((n_relevant, n_relevant), dtype=np.int64)
    start = np.zeros(n_relevant, dtype=np.int64)
    pos = np.full(n_relevant, -1, dtype=np.int64)
    active = np.empty(n_relevant, dtype=np.int64)
    mult = np.zeros(n_relevant, dtype=np.int64)  # occurrences inside the window (exact mode)
    n_windows = 0
    for d in range(offsets.shape[0] - 1):
        lo = offsets[d]
        length = offsets[d + 1] - lo
        if length == 0:
            n_windows += 1
            continue
        first = window_size if length > window_size else length
        n_active = 0
        for p in range(lo, lo + first):
            w = tokens[p]
            r = relevant[w] if 0 <= w < n_words else -1
            if r >= 0:
                mult[r] += 1
                if pos[r] < 0:
                    n_active = _enter(r, 0, start, active, n_active, pos)
        n_doc_windows = length - window_size + 1 if length > window_size else 1
        for t in range(1, n_doc_windows):
            w = tokens[lo + t - 1]  # leaves at the left edge
            r = relevant[w] if 0 <= w < n_words else -1
            if r >= 0:
                mult[r] -= 1
                if pos[r] >= 0 and (not exact or mult[r] == 0):
                    n_active = _leave(r, t, start, active, n_active, pos, counts)
            w = tokens[lo + t + window_size - 1]  # enters at the right edge
            r = relevant[w] if 0 <= w < n_words else -1
            if r >= 0:
                mult[r] += 1
                if pos[r] < 0:
                    n_active = _enter(r, t, start, active, n_active, pos)
        while n_active > 0:
            n_active = _leave(active[n_active - 1], n_doc_windows, start, active, n_active, pos,
                              counts)
        mult[:] = 0
        n_windows += n_doc_windows
    return counts, n_windows
