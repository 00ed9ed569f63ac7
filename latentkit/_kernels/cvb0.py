"""numba kernels of zero-order collapsed variational Bayes (CVB0) for LDA.

Asuncion, Welling, Smyth & Teh (2009), "On Smoothing and Inference for Topic Models", UAI,
eq. (5): for every (document, word) entry j with count n_j, responsibilities
``phi_jk`` are updated to

    phi_jk ∝ (N_dk - n_j phi_jk + alpha) (N_wk - n_j phi_jk + eta) / (N_k + V eta),

the expected-count analogue of the collapsed Gibbs sampler's conditional, with the entry's own
contribution removed from the document and word counts (all ``n_j`` tokens of a word in a
document share one ``phi_j``). Asuncion et al. remove it from the topic total ``N_k`` as well;
``N_k`` counts about a K-th of the corpus, so that changes the denominator by a relative
``n_j / N_k`` (below 1e-3 on the bundled corpora), and leaving it out makes the denominator
one reciprocal per topic and sweep instead of a division per entry and topic (a sweep 15%
faster on the Gutenberg paragraphs).

Schedule (deterministic, thread-count independent): within a document the entries are updated
in order and ``N_dk`` follows every update (Gauss-Seidel); the topic-word counts ``N_wk`` and
``N_k`` are those of the previous sweep (Jacobi across documents, so documents run in
parallel: fixed blocks of documents on threads, :mod:`latentkit._utils.doc_threads`). Each
block adds its entries' new counts to a ``(V, K)`` table of its own as it finishes a document
(whose rows are then in cache), and :func:`sum_blocks` adds the tables in block order, on
ranges of words (issue 46: the serial recount after each sweep, a third of the sweep's time,
kept two threads from halving the phase). The blocks come from the corpus alone
(``latentkit.topic._cvb0.sweep_blocks``), so the order of every sum is the same on any number
of threads. The optional first pass (:func:`cvb0_sequential_pass`) is serial: every count
follows every entry.

Strict IEEE arithmetic (``jit(fastmath=False)``) in the two kernels that sum over topics
(:func:`_sweep_doc`, :func:`cvb0_sequential_pass`): with reassociation allowed, the compiled
loop takes a vectorised or a scalar path depending on where its arrays lie in memory (LLVM's
run-time checks), the two paths sum ``p[k]`` in different orders, and the topics differed by
~1e-13 from one run of the same fit to the next (issue 48; it looked like a thread-count or a
concurrency effect). Now the same inputs give the same bits in every run, at every thread count
(``tests/parallel/test_model_list_determinism.py``). The sweep's normaliser is summed in four
partial sums written out in the source (a fixed order, so still the same bits everywhere):
a single chain of K dependent additions per entry took a quarter of the sweep (issue 46; one
thread, K = 20: KOS 14.4 -> 11.2 ms, NIPS 32.3 -> 25.2 ms a sweep; K = 100 1.4x). The
sequential pass keeps its single sum (one pass of the 100).

Imports only numpy, math and numba (DESIGN.md section 4).
"""

import numpy as np

from ._jit import jit, prange

__all__ = ["cvb0_sequential_pass", "cvb0_sweep", "cvb0_topic_word", "relax_counts",
           "rows_by_word", "sum_blocks"]


@jit
def cvb0_sweep(d0, d1, indptr, indices, data, phi, nwk, nk, alpha, eta, n_features, ndk,
               counts):
    """One CVB0 sweep over the documents ``d0 <= d < d1`` (serial; the documents are
    independent given ``nwk``: :func:`latentkit._utils.doc_threads.over_ranges` runs blocks of
    documents on threads, which compiles far less than a ``prange`` kernel), and the block's
    topic-word counts of the new responsibilities.

    Parameters
    ----------
    d0, d1 : int64
        The documents of this call (one block).
    indptr : int64[D + 1]; indices : int64[nnz]; data : float64[nnz]
        CSR count matrix.
    phi : float64[nnz, K] (in/out)
        Responsibilities of every entry (rows sum to 1).
    nwk : float64[V, K]
        Expected topic-word counts ``sum_j [w_j = w] n_j phi_jk`` of the previous sweep (or
        their over-relaxed update, ``latentkit.topic.cvb0_topics(relaxation=)``).
    nk : float64[K]
        Their column sums.
    alpha, eta : float
        Symmetric document-topic and topic-word priors (> 0).
    n_features : int
        V.
    ndk : float64[D, K] (out)
        Expected document-topic counts after the sweep.
    counts : float64[V, K] (out)
        ``sum_j [w_j = w] n_j phi_jk`` over the entries of this block's documents, in entry
        order, with the new responsibilities (added as each document ends, while its rows
        are in cache: no second pass over ``phi`` from memory); :func:`sum_blocks` adds the
        blocks.
    """
    K = phi.shape[1]
    for w in range(counts.shape[0]):
        for k in range(K):
            counts[w, k] = 0.0
    inv_den = np.empty(K)
    for k in range(K):
        inv_den[k] = 1.0 / (nk[k] + n_features * eta)
    for d in range(d0, d1):
        _sweep_doc(indptr, indices, data, phi, nwk, inv_den, alpha, eta, ndk, d, counts)


@jit(fastmath=False)  # strict: the same bits wherever the arrays lie (module docstring)
def _sweep_doc(indptr, indices, data, phi, nwk, inv_den, alpha, eta, ndk, d, counts):
    """Document ``d`` (int64) of :func:`cvb0_sweep`, serial."""
    K = phi.shape[1]
    K4 = K - K % 4
    s, e = indptr[d], indptr[d + 1]
    nd = np.empty(K)   # local copies: no aliasing, so the loops over k vectorise
    p = np.empty(K)
    for k in range(K):   # not np.zeros: two more numba dispatchers to compile on a cold start
        nd[k] = 0.0
    for j in range(s, e):
        for k in range(K):
            nd[k] += data[j] * phi[j, k]
    for j in range(s, e):
        ph = phi[j]
        nw = nwk[indices[j]]
        n = data[j]
        for k in range(K):
            own = n * ph[k]
            # floored at 1e-300: rounding can push a removed count a hair below 0 (written
            # out, not max(): the same select, without numba's generic max overload)
            v = (nd[k] - own + alpha) * ((nw[k] - own + eta) * inv_den[k])
            p[k] = 1e-300 if 1e-300 > v else v
        # the normaliser in four partial sums (topics k = 0, 1, 2, 3 mod 4, the last K % 4
        # in the first), written out so strict IEEE keeps this order: one chain of K
        # dependent additions per entry was a third of the sweep (issue 46: a sweep on KOS,
        # K = 20, one thread, 14.7 -> 11.4 ms)
        t0 = 0.0
        t1 = 0.0
        t2 = 0.0
        t3 = 0.0
        for k in range(0, K4, 4):
            t0 += p[k]
            t1 += p[k + 1]
            t2 += p[k + 2]
            t3 += p[k + 3]
        for k in range(K4, K):
            t0 += p[k]
        inv = 1.0 / ((t0 + t1) + (t2 + t3))
        for k in range(K):
            new = p[k] * inv
            nd[k] += n * (new - ph[k])
            ph[k] = new
    for j in range(s, e):   # the document's rows are still in cache
        cw = counts[indices[j]]
        ph = phi[j]
        n = data[j]
        for k in range(K):
            cw[k] += n * ph[k]
    for k in range(K):  # not `ndk[d] = nd`: numba compiles its shape-mismatch error
        ndk[d, k] = nd[k]  # message (string formatting, 3 s of a cold LDA start)


@jit(fastmath=False)  # strict: the same bits wherever the arrays lie (module docstring)
def cvb0_sequential_pass(order, indptr, indices, data, phi, nwk, nk, alpha, eta, n_features):
    """The first CVB0 pass, sequential: every entry's responsibilities from the entries before it.

    Documents are visited in ``order``; within a document, entries in order. Entry j (word w,
    count n) gets ``phi_jk ∝ (N_dk + alpha) (N_wk + eta) / (N_k + V eta)`` with ``N_dk`` the
    counts of the document's earlier entries and ``N_wk`` the counts of every earlier entry of
    the pass plus the starting pseudo-counts in ``nwk``; then ``n phi_j`` is added to ``N_dk``,
    ``N_wk`` and ``N_k``. The topic totals ``N_k`` in the denominator are those as the
    document starts (as in :func:`cvb0_sweep`, one reciprocal per topic and document instead
    of a division per entry and topic; a document moves ``N_k`` by its own length). Entries
    not yet visited count nothing (no "own" term to remove), so the topics grow from the
    pseudo-counts as the pass goes, the expected-count form of the
    sequential initialisation of collapsed Gibbs samplers (Canini, Shi & Griffiths 2009).
    Serial (the counts follow every entry), hence deterministic.

    Parameters
    ----------
    order : int64[D]
        Document order (a permutation of ``range(D)``).
    indptr : int64[D + 1]; indices : int64[nnz]; data : float64[nnz]
        CSR count matrix.
    phi : float64[nnz, K] (out)
        Responsibilities of every entry (rows sum to 1).
    nwk : float64[V, K] (in/out); nk : float64[K] (in/out)
        Starting pseudo-counts and their column sums; on return they also hold the pass's
        expected counts.
    alpha, eta : float
        Symmetric document-topic and topic-word priors (> 0).
    n_features : int
        V.
    """
    K = phi.shape[1]
    v_eta = n_features * eta
    nd = np.empty(K)   # zeroed as each document starts
    p = np.empty(K)
    inv_den = np.empty(K)
    for t in range(order.shape[0]):
        d = order[t]
        for k in range(K):
            nd[k] = 0.0
            inv_den[k] = 1.0 / (nk[k] + v_eta)   # N_k as the document starts
        for j in range(indptr[d], indptr[d + 1]):
            nw = nwk[indices[j]]
            n = data[j]
            tot = 0.0
            for k in range(K):
                # word factor first: (N_wk + eta) / (N_k + V eta) <= 1, so huge counts
                # cannot overflow the product (inf / inf = NaN)
                p[k] = (nd[k] + alpha) * ((nw[k] + eta) * inv_den[k])
                tot += p[k]
            inv = 1.0 / tot
            for k in range(K):
                new = p[k] * inv
                phi[j, k] = new
                nd[k] += n * new
                nw[k] += n * new
                nk[k] += n * new


@jit
def cvb0_topic_word(indices, data, phi, nwk):
    """``nwk[w, k] = sum_j [w_j = w] n_j phi_jk`` (serial, entry order: deterministic)."""
    K = phi.shape[1]
    for w in range(nwk.shape[0]):
        for k in range(K):
            nwk[w, k] = 0.0
    for j in range(indices.shape[0]):
        row = nwk[indices[j]]
        n = data[j]
        for k in range(K):
            row[k] += n * phi[j, k]


@jit
def sum_blocks(w0, w1, blocks, out):
    """``out[w] = blocks[0, w] + blocks[1, w] + ...`` (in block order, left to right) for the
    words ``w0 <= w < w1``: the sweep's topic-word counts from its blocks'
    (:func:`cvb0_sweep`). Serial; ranges of words run on threads, and every word's sum has the
    same order whatever the ranges (deterministic).

    Parameters
    ----------
    w0, w1 : int64
        The words of this call.
    blocks : float64[B, V, K]
        Per-block counts.
    out : float64[V, K] (out)
    """
    for w in range(w0, w1):
        row = out[w]
        first = blocks[0, w]
        for k in range(row.shape[0]):
            row[k] = first[k]
        for b in range(1, blocks.shape[0]):
            add = blocks[b, w]
            for k in range(row.shape[0]):
                row[k] += add[k]


@jit
def relax_counts(nwk, new, omega):
    """``nwk <- nwk + omega * (new - nwk)`` in one pass over the words; returns the smallest
    entry (``inf`` when ``nwk`` is empty), so the caller floors only when one went below 0.

    Serial: one pass over V x K values costs a fraction of a CVB0 sweep's O(nnz K) even on
    NIPS, while the parallel version (a ``prange`` loop and ``ndarray.min``) cost 2.5 s of
    compilation on every cold start. The minimum is exact, so its order does not matter."""
    low = np.inf
    for w in range(nwk.shape[0]):
        row, fresh = nwk[w], new[w]
        for k in range(nwk.shape[1]):
            row[k] += omega * (fresh[k] - row[k])
        for k in range(nwk.shape[1]):   # not min(): numba compiles its generic overload
            if row[k] < low:
                low = row[k]
    return low


@jit(parallel=True)
def rows_by_word(indices, table, out):
    """``out[j] = table[indices[j]]`` for every entry j (parallel gather of per-word rows)."""
    for j in prange(indices.shape[0]):
        row = table[indices[j]]
        for k in range(table.shape[1]):
            out[j, k] = row[k]
