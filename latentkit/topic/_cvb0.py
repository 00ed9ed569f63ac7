"""Topics of LDA by zero-order collapsed variational Bayes (CVB0), e.g. as a start for batch VB."""

import numbers

import numba
import numpy as np

from .._kernels import cvb0 as _k
from .._utils.doc_threads import document_edges, over_ranges
from .._utils.threads import blas_scoped
from .._engine.start_phase import sweep_callback  # noqa: F401 - for _lda (the start hook)
from .._utils.validation import check_counts, check_random_state, check_scalar
from ..exceptions import InputError, InputTypeError

__all__ = ["cvb0_topics"]

#: Below this many entry-topic pairs (nnz * K) a sweep runs on one numba thread: a sweep is
#: then cheaper than waking the thread pool, which on a loaded machine costs ~40 ms a sweep.
SERIAL_BELOW = 200_000

#: Most blocks of documents in a sweep. Each block adds its entries' topic-word counts into a
#: (V, K) table of its own as each document ends, and the blocks' tables are summed in block
#: order: the recount runs on the threads, with the document's rows still in cache, and
#: the blocks depend on the corpus only (:func:`sweep_blocks`), never on the thread count, so
#: the fit gives the same bits on any number of threads. 8: every block zeroes and the sum
#: reads a (V, K) table per sweep; on 2 threads 8 blocks ran a NIPS sweep (K = 20) in 16.6-20.5
#: ms against 19.9-20.5 with 16 (and 18.0-18.6 with 4, where one slower core is felt); more
#: than 8 threads share one sweep's blocks no further.
MAX_BLOCKS = 8

#: At least this many entries per word in a block (so the blocks' tables, B x V x K, hold at
#: most half as many numbers as the responsibilities, nnz x K).
BLOCK_ENTRIES_PER_WORD = 2


@blas_scoped  # numba's threads do the work; idle OpenBLAS threads would spin on their cores
def cvb0_topics(X, n_components, doc_topic_prior=None, topic_word_prior=None, n_sweeps=100,
                random_state=None, callback=None, init="sequential", relaxation=1.5,
                seed_documents=None):
    """Topic-word Dirichlet parameters of LDA from CVB0 sweeps.

    Zero-order collapsed variational Bayes (Asuncion et al. 2009) iterates, for every
    (document, word) entry, the expected-count form of the collapsed Gibbs conditional; it
    reaches the held-out quality of collapsed Gibbs sampling in about as many passes, and its
    topics make a start for :class:`LatentDirichletAllocation` that lands in a better optimum
    than the random or spectral starts (K=20, ``benchmarks/bench_lda_curve.py``: held-out
    perplexity after 100 sweeps and batch VB, KOS 2020, NIPS 1574, Gutenberg paragraphs 3326,
    against 2116, 1609 and 3768 from the random or spectral starts); it is that class's
    default start for batch fits (``init='auto'``)::

        lam = cvb0_topics(X, 20)
        LatentDirichletAllocation(20, init={"components": lam}).fit(X)

    Parameters
    ----------
    X : array-like or scipy.sparse matrix of shape (n_documents, n_features)
        Non-negative counts.
    n_components : int
        K, >= 1.
    doc_topic_prior : float, optional
        alpha (> 0); default ``1 / n_components``.
    topic_word_prior : float or array-like broadcastable to (n_components, n_features), optional
        eta (> 0); default ``1 / n_components``. An array (e.g. the seeded prior of
        ``LatentDirichletAllocation(seed_topics=...)``) enters every sweep and the sequential
        pass as pseudo-counts added to the topic-word counts.
    n_sweeps : int, default 100
        Passes over the corpus.
    random_state : None, int or numpy.random.Generator
        Seeds the start: the seed documents and the sequential pass's document order, or
        the starting responsibilities (``'random'``).
    callback : callable, optional
        ``callback(sweep, components)`` after every sweep (1-based; components as returned);
        returning True stops.
    init : {'sequential', 'documents', 'random'}, default 'sequential'
        How the first pass starts. Held-out perplexity after 1 / 10 / 100 sweeps, K=20, seed 0
        (``benchmarks/bench_lda_curve.py``'s split), ``'sequential'`` against ``'documents'``:
        KOS 2600 / 2158 / 2058 against 3119 / 2170 / 2078; NIPS 1922 / 1655 / 1580 against
        2135 / 1667 / 1587; Gutenberg paragraphs 5565 / 3840 / 3433 against 6699 / 3829 / 3419.

        ``'random'``: ``Dirichlet(1)`` responsibilities per entry; every topic then starts
        alike, and the first ~10 sweeps only break that symmetry (KOS: 3673 after one sweep,
        2597 after ten). ``'documents'``: K seed documents drawn with probability proportional
        to their length, topic k = one pseudo-count on every word plus the counts of seed
        document k, each entry starting at its word's probability under the K topics
        (:func:`seed_responsibilities`; the seeding of k-means by data points, Arthur &
        Vassilvitskii 2007, without the distance weighting, which picks outlying documents).
        On short documents that start spreads slowly: a word that no seed contains starts
        alike in every topic and only its documents' other words tell the topics apart, one
        hop per sweep. ``'sequential'``: the same K seed documents, as pseudo-counts (topic k
        = the counts of seed document k), then a first pass over the documents in a random
        order in which every entry takes the CVB0 responsibilities under the counts of the
        entries before it, and adds to them (:func:`latentkit._kernels.cvb0.cvb0_sequential_pass`;
        the sequential initialisation of collapsed Gibbs samplers, Canini, Shi & Griffiths
        2009, in expected counts): the topics grow with the pass, as a Gibbs sampler's first
        iteration, and on Gutenberg's 24-token paragraphs the first pass reaches 5565 where
        the seeded sweep reaches 6699 (tomotopy's first Gibbs iteration: 5152). The pass is
        serial (the counts follow every entry; about as long as 1.5 parallel sweeps on 2
        threads); the seeds' pseudo-counts are dropped after it. It is sweep 1 of
        ``n_sweeps``.

    relaxation : float in [1, 2), default 1.5
        Over-relaxation of the topic-word counts between sweeps: from the second sweep on,
        the counts the next sweep uses are ``N + relaxation * (N_new - N)``, ``N_new`` those
        of the sweep's responsibilities (where a count would go below 0 it is floored at 0
        and the word's counts rescaled to its total); 1 is plain CVB0. The sweeps are a
        Jacobi iteration of the counts, which creeps along a plateau (linear convergence);
        stepping past each update, as successive over-relaxation does (Young 1950; for EM,
        Salakhutdinov & Roweis 2003), moves along it faster. Measured (seed 0, K=20, held-out
        perplexity after 50 / 100 sweeps, then after 8 VB iterations from the topics; 1 against
        1.5): Gutenberg paragraphs 3557 / 3472 / 3328 against 3500 / 3433 / 3326; KOS 2091 /
        2065 / 2025 against 2078 / 2058 / 2023; NIPS 1601 / 1582 / 1576 against 1595 / 1580 /
        1574. 2 and more diverge on a plain linear iteration, hence the bound.
    seed_documents : array-like of int, shape (n_components,), optional
        The K seed documents of ``'sequential'`` and ``'documents'`` (row indices of X, each a
        non-empty document), instead of the length-weighted draw: e.g. those of
        :func:`latentkit.topic._start_seeds.spectral_seed_documents`, which
        :class:`LatentDirichletAllocation`'s default start passes so that a rare topic has a
        seed of its own. Ignored by ``'random'``.

    Returns
    -------
    components : ndarray of shape (n_components, n_features)
        ``eta + N_kw``, the expected topic-word counts plus the prior (> 0): lambda of
        ``q(beta_k) = Dir(lambda_k)``, as :attr:`LatentDirichletAllocation.components_`.

    Raises
    ------
    ValueError, TypeError
        Bad counts, ``n_components`` or ``n_sweeps`` < 1, non-positive priors, unknown
        ``init``, ``relaxation`` outside [1, 2), a ``callback`` that is not callable,
        ``seed_documents`` that are not K indices of non-empty documents.

    Notes
    -----
    Asuncion, Welling, Smyth & Teh (2009), "On Smoothing and Inference for Topic Models", UAI,
    eq. (5) (CVB0); Teh, Newman & Welling (2007) for collapsed variational Bayes; Canini, Shi
    & Griffiths (2009), "Online Inference of Topics with Latent Dirichlet Allocation",
    AISTATS, section 3 (sequential initialisation). Schedule: :mod:`latentkit._kernels.cvb0`
    (documents in parallel, deterministic for any thread count; the sequential pass serial).

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.topic import cvb0_topics
    >>> rng = np.random.default_rng(0)
    >>> X = np.zeros((40, 6))  # documents about words 0-2 or about words 3-5
    >>> X[:20, :3] = rng.poisson(4, (20, 3)); X[20:, 3:] = rng.poisson(4, (20, 3))
    >>> components = cvb0_topics(X, n_components=2, random_state=0)
    >>> top = components.argmax(axis=0)  # the topic of each word
    >>> components.shape, len(set(top[:3])) == 1 == len(set(top[3:])), bool(top[0] != top[3])
    ((2, 6), True, True)
    """
    X = check_counts(X, "X")
    K = int(check_scalar(n_components, "n_components", numbers.Integral, low=1))
    alpha = 1.0 / K if doc_topic_prior is None else check_scalar(
        doc_topic_prior, "doc_topic_prior", numbers.Real, low=0.0, low_inclusive=False)
    eta, extra = _topic_word_prior(topic_word_prior, K, X.shape[1])
    n_sweeps = check_scalar(n_sweeps, "n_sweeps", numbers.Integral, low=1)
    relaxation = float(check_scalar(relaxation, "relaxation", numbers.Real, low=1.0, high=2.0,
                                    high_inclusive=False))
    rng = check_random_state(random_state)
    indptr = np.ascontiguousarray(X.indptr, dtype=np.int64)
    indices = np.ascontiguousarray(X.indices, dtype=np.int64)
    data = np.ascontiguousarray(X.data, dtype=np.float64)
    V = X.shape[1]
    if not (isinstance(init, str) and init in ("sequential", "documents", "random")):
        raise InputError(f"init must be 'sequential', 'documents' or 'random', got {init!r}.")
    if callback is not None and not callable(callback):
        raise InputTypeError(f"callback must be callable or None, got {type(callback).__name__}.")
    seeds = _check_seed_documents(seed_documents, X, K)
    threads = numba.get_num_threads()
    if data.shape[0] * K < SERIAL_BELOW:
        numba.set_num_threads(1)   # same result (the kernels are thread-count independent)
    try:
        if init == "sequential":
            seeds = seed_counts(X, K, rng, seeds)
            if extra is not None:  # a prior matrix: its extra mass is in every count
                seeds = _prior_seeds(X, seeds, extra)
            nwk = seeds.copy()
            phi = np.empty((data.shape[0], K))
            _k.cvb0_sequential_pass(rng.permutation(X.shape[0]).astype(np.int64), indptr,
                                    indices, data, phi, nwk, nwk.sum(axis=0), float(alpha),
                                    float(eta), V)
            nwk -= seeds   # the pass's own counts (no second pass over phi to recount them)
            np.maximum(nwk, 0.0, out=nwk)   # (rounding)
            first = 2   # the sequential pass is the first sweep
            if callback is not None and callback(1, _lambda(eta, extra, nwk)):
                return _lambda(eta, extra, nwk)
        else:
            phi = (seed_responsibilities(X, K, rng, seeds=seeds) if init == "documents"
                   else rng.dirichlet(np.ones(K), size=data.shape[0]))
            nwk = np.empty((V, K))
            _k.cvb0_topic_word(indices, data, phi, nwk)
            first = 1
        ndk = np.empty((X.shape[0], K))
        new = np.empty_like(nwk)
        word_counts = np.bincount(indices, weights=data, minlength=V)
        edges = sweep_blocks(indptr, V)
        blocks = np.empty((edges.shape[0] - 1, V, K))
        for sweep in range(first, n_sweeps + 1):
            counts = nwk if extra is None else nwk + extra
            sweep_counts(edges, indptr, indices, data, phi, counts, float(alpha), float(eta),
                         ndk, blocks, new)
            if sweep >= 2 and relaxation != 1.0:   # over-relaxed counts (see relaxation)
                if _k.relax_counts(nwk, new, relaxation) < 0.0:   # floored, word totals kept
                    np.maximum(nwk, 0.0, out=nwk)
                    total = nwk.sum(axis=1)
                    used = total > 0
                    nwk[used] *= (word_counts[used] / total[used])[:, None]
            else:
                nwk, new = new, nwk
            if callback is not None and callback(sweep, _lambda(eta, extra, nwk)):
                break
    finally:
        numba.set_num_threads(threads)
    return _lambda(eta, extra, nwk)


def sweep_blocks(indptr, n_features):
    """Edges (int64, ``B + 1``) of the sweep's blocks of documents: ``B = min(MAX_BLOCKS,
    nnz // (BLOCK_ENTRIES_PER_WORD * V), D)`` (at least 1) contiguous ranges of about equal
    numbers of entries (a sweep's work is K per entry, whatever the documents' lengths:
    :func:`latentkit._utils.doc_threads.document_edges`). From the corpus alone, so the
    topic-word counts' summation order, hence every bit of the result, is the same on any
    number of threads."""
    D = indptr.shape[0] - 1
    B = int(int(indptr[-1]) // (BLOCK_ENTRIES_PER_WORD * max(int(n_features), 1)))
    return document_edges(indptr, max(1, min(MAX_BLOCKS, B, D)))


def sweep_counts(edges, indptr, indices, data, phi, nwk, alpha, eta, ndk, blocks, out):
    """One CVB0 sweep on the blocks of ``edges`` (:func:`sweep_blocks`), on numba's thread
    count of Python threads, and its topic-word counts.

    Parameters
    ----------
    edges : ndarray of int64, shape (B + 1,)
    indptr, indices, data : CSR arrays (int64, int64, float64)
    phi : ndarray of shape (nnz, K) (in/out)
        Responsibilities.
    nwk : ndarray of shape (V, K)
        The counts the sweep uses (the previous sweep's, over-relaxed, plus any prior matrix).
    alpha, eta : float
    ndk : ndarray of shape (D, K) (out)
    blocks : ndarray of shape (B, V, K) (work)
        Each block's counts (:func:`latentkit._kernels.cvb0.cvb0_sweep`).
    out : ndarray of shape (V, K) (out)
        ``sum_j [w_j = w] n_j phi_jk`` of the new responsibilities: the blocks' counts added in
        block order (:func:`latentkit._kernels.cvb0.sum_blocks`, ranges of words on threads).
    """
    V = nwk.shape[0]
    over_ranges(_k.cvb0_sweep, edges, indptr, indices, data, phi, nwk, nwk.sum(axis=0), alpha,
                eta, V, ndk, block_out=blocks)
    n = min(V, max(1, numba.get_num_threads()))
    over_ranges(_k.sum_blocks, np.linspace(0, V, n + 1).astype(np.int64), blocks, out)


def _check_seed_documents(seed_documents, X, K):
    """``seed_documents`` as K int64 row indices of non-empty documents of X, or None."""
    if seed_documents is None:
        return None
    seeds = np.asarray(seed_documents)
    lengths = np.diff(X.indptr)
    if (seeds.shape != (K,) or not np.issubdtype(seeds.dtype, np.integer)
            or np.any(seeds < 0) or np.any(seeds >= X.shape[0])
            or np.any(lengths[np.clip(seeds, 0, X.shape[0] - 1)] == 0)):
        raise InputError(f"seed_documents must be {K} (n_components) row indices of non-empty "
                         f"documents of X (0 <= index < {X.shape[0]}), got {seed_documents!r}.")
    return seeds.astype(np.int64)


def _prior_seeds(X, seeds, extra):
    """The sequential pass's starting counts under a prior matrix: a topic whose prior has
    extra mass (a seeded topic) starts from the document with the most of that mass (the
    largest ``sum_w n_dw extra_wk``) instead of a random one, and every topic's counts carry
    its extra mass."""
    seeds = seeds.copy()
    for k in np.flatnonzero(extra.any(axis=0)):
        d = int(np.argmax(X @ extra[:, k]))
        seeds[:, k] = 0.0
        lo, hi = X.indptr[d], X.indptr[d + 1]
        np.add.at(seeds[:, k], X.indices[lo:hi], X.data[lo:hi])
    return seeds + extra


def _lambda(eta, extra, nwk):
    """``eta + N_kw`` (K, V): the prior (scalar part ``eta`` plus its ``extra`` (V, K)) and
    the counts."""
    if extra is None:
        return np.ascontiguousarray(eta + nwk.T)
    return np.ascontiguousarray(eta + (nwk + extra).T)


def _topic_word_prior(topic_word_prior, K, V):
    """(eta, extra): a float prior as (eta, None); an array prior broadcast to (K, V) as its
    smallest entry ``eta`` and the rest ``extra`` (V, K) >= 0, which the sweeps add to the
    topic-word counts: ``(N_wk + extra_wk + eta) / (N_k + sum_w extra_wk + V eta)`` is CVB0 with
    the prior ``eta + extra``."""
    if topic_word_prior is None:
        return 1.0 / K, None
    if np.ndim(topic_word_prior) == 0:
        return check_scalar(topic_word_prior, "topic_word_prior", numbers.Real, low=0.0,
                            low_inclusive=False), None
    prior = np.asarray(topic_word_prior, dtype=np.float64)
    try:
        prior = np.broadcast_to(prior, (K, V))
    except ValueError:
        raise InputError(f"topic_word_prior as an array must broadcast to (n_components, "
                         f"n_features) = ({K}, {V}), got shape {prior.shape}.") from None
    if not np.all(np.isfinite(prior)) or np.any(prior <= 0):
        raise InputError("topic_word_prior must be finite and > 0 everywhere.")
    eta = float(prior.min())
    return eta, np.ascontiguousarray((prior - eta).T)


def _draw_seeds(X, K, rng):
    """K distinct non-empty documents drawn with probability proportional to their length
    (with replacement when there are fewer than K): ``(seeds, few)``; ``(None, False)`` when
    ``X`` has no tokens."""
    lengths = np.asarray(X.sum(axis=1), dtype=np.float64).ravel()
    nonempty = np.flatnonzero(lengths > 0)
    if nonempty.size == 0:
        return None, False
    few = nonempty.size < K  # seeds must repeat: the callers' noise tells the copies apart
    return rng.choice(nonempty, K, replace=few, p=lengths[nonempty] / lengths.sum()), few


def seed_counts(X, n_components, rng, seeds=None):
    """Starting pseudo-counts of the sequential pass (``init='sequential'``): the word counts
    of K seed documents, one topic each (:func:`_draw_seeds`).

    Parameters
    ----------
    X : scipy.sparse.csr_matrix of shape (n_documents, n_features)
        Validated counts.
    n_components : int
        K.
    rng : numpy.random.Generator
    seeds : ndarray of int64, shape (n_components,), optional
        The seed documents (checked by the caller); default the length-weighted draw.

    Returns
    -------
    ndarray of shape (n_features, n_components)
        Column k holds the counts of seed document k. With fewer non-empty documents than K,
        seeds repeat and every count is multiplied by ``Uniform(0.5, 1.5)`` noise, so repeated
        seeds still differ; with no tokens, zeros (the pass then gives uniform rows, and there
        is no token for them to weigh).
    """
    K = int(n_components)
    out = np.zeros((X.shape[1], K))
    seeds, few = _draw_seeds(X, K, rng) if seeds is None else (seeds, False)
    if seeds is None:
        return out
    for k, d in enumerate(seeds):
        lo, hi = X.indptr[d], X.indptr[d + 1]
        counts = X.data[lo:hi] * (rng.uniform(0.5, 1.5, size=hi - lo) if few else 1.0)
        np.add.at(out[:, k], X.indices[lo:hi], counts)
    return out


#: Pseudo-count added to every word of a seed document's topic (``init='documents'``).
SEED_SMOOTHING = 1.0


def seed_responsibilities(X, n_components, rng, smoothing=None, seeds=None):
    """Starting responsibilities of CVB0 from K seed documents (``init='documents'``).

    Collapsed Gibbs sampling breaks the symmetry of its random start within one pass (the
    counts follow every token); CVB0 from ``Dirichlet(1)`` responsibilities starts with K
    nearly equal topics and needs ~10 sweeps to separate them. Seeding every topic with a
    different document separates them before the first sweep.

    K distinct non-empty documents are drawn without replacement with probability proportional
    to their length; topic k is ``smoothing`` on every word plus the counts of seed document k,
    normalised, and every entry starts at ``phi_jk ∝ topic_k(w_j)``.

    Parameters
    ----------
    X : scipy.sparse.csr_matrix of shape (n_documents, n_features)
        Validated counts.
    n_components : int
        K.
    rng : numpy.random.Generator
    smoothing : float, optional
        Default :data:`SEED_SMOOTHING`.
    seeds : ndarray of int64, shape (n_components,), optional
        The seed documents (:func:`seed_counts`).

    Returns
    -------
    phi : ndarray of shape (nnz, n_components)
        Rows sum to 1, in the entry order of ``X``. With fewer non-empty documents than K,
        seeds repeat and their counts carry :func:`seed_counts`' noise, so repeated seeds
        still differ; with no tokens, ``Dirichlet(1)`` rows.
    """
    smoothing = SEED_SMOOTHING if smoothing is None else float(smoothing)
    K = int(n_components)
    if not np.any(X.data > 0):  # no tokens: nothing to seed from (phi has no tokens to weigh)
        return rng.dirichlet(np.ones(K), size=X.data.shape[0])
    topics = smoothing + seed_counts(X, K, rng, seeds).T
    topics /= topics.sum(axis=1, keepdims=True)
    by_word = np.ascontiguousarray(topics.T)   # phi_j depends on the word of entry j only
    by_word /= by_word.sum(axis=1, keepdims=True)
    phi = np.empty((X.indices.shape[0], K))
    _k.rows_by_word(np.ascontiguousarray(X.indices, dtype=np.int64), by_word, phi)
    return np.ascontiguousarray(phi)

