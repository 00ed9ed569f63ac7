"""The seed documents of LDA's default start (``init='auto'`` / ``'cvb0'``): one per spectral topic.

The CVB0 start (:func:`latentkit.topic.cvb0_topics`, ``init='sequential'``) grows its K topics
from K seed documents. Drawn with probability proportional to their length, the seeds follow
the topics' shares of the corpus: when one topic dominates, several seeds come from it and the
rarest topic often has none. The sweeps then split the dominant topic in two and merge two rare
ones, a local optimum that neither the 100 sweeps nor batch VB leave (issue 41: planted
alpha = (1, .5, .25, .12, .06), matched topic L1 0.5-0.6 on most seeds; from every seed on the
planted corpora of ``benchmarks/bench_lda_default_start.py`` with the seeds below).

The method of moments does not follow the shares: the spectral topics of
:class:`~latentkit.spectral.SpectralLDA` (Anandkumar et al. 2012) estimate each topic, rare or
not, from the corpus' second and third moments. Here every spectral topic k picks, as its seed,
the document with the most tokens expected from it, ``argmax_d sum_w n_dw r_kw`` with
``r_kw = mu_kw / sum_j mu_jw`` (the share of word w that topic k explains under equal topic
weights), distinct documents in the order k = 1..K. The topics themselves are not the start
(as pseudo-counts they start the sweeps in a worse place on real text: KOS held-out perplexity
2038 against 2009 at K=20); real documents are, and the sweeps refine them as before.

When the moments are degenerate (rank-deficient M2, e.g. the Gutenberg paragraphs at K = 20,
documents shorter than 3 tokens, fewer non-empty documents than K, non-finite output) the
function returns None and the start keeps the length-weighted draw (silently: the start then is
the one of before, not a worse one).
"""

import warnings

import numpy as np

from ..spectral import SpectralLDA

__all__ = ["spectral_seed_documents"]


def spectral_seed_documents(X, n_components, doc_topic_prior, rng):
    """K distinct seed documents, one per spectral topic (module docstring), or None.

    Parameters
    ----------
    X : scipy.sparse.csr_matrix of shape (n_documents, n_features)
        Validated counts.
    n_components : int
        K.
    doc_topic_prior : float
        alpha (> 0), the mean prior of the fit: ``alpha_0 = K alpha`` of the moments.
    rng : numpy.random.Generator
        The random projections of the moments' whitening.

    Returns
    -------
    ndarray of int64, shape (n_components,), or None
        Row indices of non-empty documents; None when the moments are degenerate or there are
        fewer non-empty documents than K.

    Notes
    -----
    Anandkumar, Foster, Hsu, Kakade & Liu (2012), "A Spectral Algorithm for Latent Dirichlet
    Allocation" (the topics); the seeding is that of :func:`latentkit.topic.cvb0_topics`'s
    sequential pass (Canini, Shi & Griffiths 2009) from these documents.
    """
    K = int(n_components)
    lengths = np.diff(X.indptr)
    if K < 2 or np.count_nonzero(lengths) < K:
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a degenerate estimate is answered by None
            mu = SpectralLDA(K, doc_topic_prior=float(doc_topic_prior),
                             random_state=rng).fit(X).components_
    except (ValueError, np.linalg.LinAlgError, FloatingPointError):
        return None
    mu = np.asarray(mu, dtype=np.float64)
    if mu.shape != (K, X.shape[1]) or not np.all(np.isfinite(mu)):
        return None
    col = mu.sum(axis=0)
    share = np.divide(mu, col, out=np.zeros_like(mu), where=col > 0)
    expected = np.asarray(X @ share.T)  # (D, K): tokens of document d expected from topic k
    expected[lengths == 0] = -np.inf
    seeds = np.empty(K, dtype=np.int64)
    for k in range(K):
        d = int(np.argmax(expected[:, k]))  # the first of ties
        expected[d] = -np.inf  # distinct documents
        seeds[k] = d
    if np.any(lengths[seeds] == 0):
        return None
    return seeds
