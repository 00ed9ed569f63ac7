"""Synthetic data with planted parameters, for recovery tests and tutorials.

Every generator returns the data *and* the truth that produced it, so a test can compare a
fitted model to the planted parameters (up to a permutation of the components, see
:func:`latentkit.testing.match_components`).
"""

import numbers

import numpy as np
import scipy.sparse as sp

from .._utils.validation import check_random_state, check_scalar
from ..exceptions import InputError

__all__ = ["make_gmm", "make_lda_corpus"]

_COVARIANCE_TYPES = ("full", "diag", "spherical", "tied")


def _random_spd(rng, n_features, low=0.5, high=1.5):
    """A random SPD matrix with eigenvalues uniform in [low, high] and a random orientation."""
    q, r = np.linalg.qr(rng.standard_normal((n_features, n_features)))
    q = q * np.sign(np.diag(r))  # Haar-distributed orthogonal matrix (Mezzadri 2007)
    eig = rng.uniform(low, high, size=n_features)
    cov = (q * eig) @ q.T
    return 0.5 * (cov + cov.T)


def make_gmm(n_samples=500, n_components=3, n_features=2, covariance_type="full",
             separation=3.0, weights=None, random_state=None):
    """Draw samples from a random Gaussian mixture with known parameters.

    The planted model is
    ``z_n ~ Categorical(weights)``, ``x_n | z_n = k ~ N(means[k], Sigma_k)``.
    Means are drawn i.i.d. from ``N(0, separation**2 * I)``; covariances have eigenvalues drawn
    uniformly in [0.5, 1.5] (unit scale on average), so ``separation`` is the spread of the
    means in units of a component's standard deviation: two means are about
    ``separation * sqrt(2 * n_features)`` apart. Larger values give easier problems.

    Parameters
    ----------
    n_samples : int, default 500
        Number of points N (>= 1).
    n_components : int, default 3
        Number of components K (>= 1).
    n_features : int, default 2
        Dimension D (>= 1).
    covariance_type : {'full', 'diag', 'spherical', 'tied'}, default 'full'
        Structure of the planted covariances, with scikit-learn's shapes:
        'full' (K, D, D), 'diag' (K, D), 'spherical' (K,), 'tied' (D, D).
    separation : float, default 3.0
        Standard deviation of the prior on the means (> 0), see above.
    weights : array-like of shape (K,), optional
        Mixing weights (non-negative, normalised internally). Default: Dirichlet(5, ..., 5),
        i.e. roughly balanced.
    random_state : None, int or numpy.random.Generator
        Seed; a fixed value gives identical output.

    Returns
    -------
    X : ndarray of shape (N, D), float64
        The samples.
    labels : ndarray of shape (N,), int64
        The component that generated each sample.
    truth : dict
        ``'weights'`` (K,), ``'means'`` (K, D), ``'covariances'`` (shape as above),
        ``'covariance_type'`` (str).

    Raises
    ------
    ValueError, TypeError
        For sizes < 1, an unknown ``covariance_type``, a non-positive ``separation`` or
        ``weights`` of the wrong length / negative / summing to zero.

    Notes
    -----
    Source: the standard finite Gaussian mixture generative model (Bishop 2006, *Pattern
    Recognition and Machine Learning*, section 9.2, eq. 9.7).

    Examples
    --------
    >>> from latentkit.datasets import make_gmm
    >>> X, labels, truth = make_gmm(300, n_components=2, n_features=2, random_state=0)
    >>> X.shape, truth["means"].shape
    ((300, 2), (2, 2))
    """
    n_samples = check_scalar(n_samples, "n_samples", numbers.Integral, low=1)
    n_components = check_scalar(n_components, "n_components", numbers.Integral, low=1)
    n_features = check_scalar(n_features, "n_features", numbers.Integral, low=1)
    separation = check_scalar(separation, "separation", numbers.Real, low=0.0, low_inclusive=False)
    if covariance_type not in _COVARIANCE_TYPES:
        raise InputError(f"covariance_type must be one of {_COVARIANCE_TYPES}, got {covariance_type!r}.")
    rng = check_random_state(random_state)
    K, D = n_components, n_features

    if weights is None:
        weights = rng.dirichlet(np.full(K, 5.0))
    else:
        weights = np.array(weights, dtype=np.float64)  # copy: never touch the caller's array
        if weights.shape != (K,):
            raise InputError(f"weights must have shape ({K},) (n_components,), got {weights.shape}.")
        if not np.all(np.isfinite(weights)) or np.any(weights < 0) or weights.sum() <= 0:
            raise InputError("weights must be finite, non-negative and not all zero, "
                             f"got {weights}.")
        weights = weights / weights.sum()

    means = separation * rng.standard_normal((K, D))
    if covariance_type == "full":
        covariances = np.stack([_random_spd(rng, D) for _ in range(K)])
        chols = np.linalg.cholesky(covariances)
    elif covariance_type == "tied":
        covariances = _random_spd(rng, D)
        chols = np.broadcast_to(np.linalg.cholesky(covariances), (K, D, D))
    elif covariance_type == "diag":
        covariances = rng.uniform(0.5, 1.5, size=(K, D))
        chols = np.stack([np.diag(np.sqrt(c)) for c in covariances])
    else:  # spherical
        covariances = rng.uniform(0.5, 1.5, size=K)
        chols = np.sqrt(covariances)[:, None, None] * np.eye(D)[None]

    labels = rng.choice(K, size=n_samples, p=weights).astype(np.int64)
    noise = rng.standard_normal((n_samples, D))
    X = means[labels] + np.einsum("nij,nj->ni", chols[labels], noise)
    truth = {"weights": weights, "means": means, "covariances": covariances,
             "covariance_type": covariance_type}
    return X, labels, truth


def make_lda_corpus(n_docs=1000, n_components=5, vocab_size=500, doc_length=100,
                    doc_topic_prior=None, topic_word_prior=0.1, random_state=None):
    """Draw a bag-of-words corpus from the LDA generative model with known topics.

    ``beta_k ~ Dirichlet(topic_word_prior)`` for each topic, ``theta_d ~ Dirichlet(doc_topic_prior)``
    for each document, and each of the ``doc_length`` tokens of document d draws a topic
    ``z ~ Categorical(theta_d)`` and a word ``w ~ Categorical(beta_z)``. Summing the tokens out,
    the counts of document d are ``Multinomial(doc_length, theta_d @ beta)``, which is how they are
    drawn (exactly the same distribution, faster).

    Parameters
    ----------
    n_docs : int, default 1000
        Number of documents D (>= 1).
    n_components : int, default 5
        Number of topics K (>= 1).
    vocab_size : int, default 500
        Vocabulary size V (>= 2).
    doc_length : int or array-like of shape (D,), default 100
        Tokens per document (>= 0); an array gives each document its own length.
    doc_topic_prior : float or array-like of shape (K,), optional
        Dirichlet parameter alpha of the document-topic proportions (> 0). Default ``1 / K``,
        the default of :class:`latentkit.topic.LatentDirichletAllocation`.
    topic_word_prior : float or array-like of shape (V,), default 0.1
        Dirichlet parameter eta of the topics (> 0).
    random_state : None, int or numpy.random.Generator
        Seed; a fixed value gives identical output.

    Returns
    -------
    X : scipy.sparse.csr_matrix of shape (D, V), float64
        Word counts (integers stored as float64; rows sum to the document lengths).
    truth : dict
        ``'topics'`` (K, V) word distributions, rows sum to 1; ``'doc_topic'`` (D, K)
        topic proportions, rows sum to 1; ``'doc_topic_prior'`` (K,) and ``'topic_word_prior'``
        (V,) the Dirichlet parameters used; ``'doc_lengths'`` (D,) int64.

    Raises
    ------
    ValueError, TypeError
        For sizes out of range, non-positive priors, or arrays of the wrong length.

    Notes
    -----
    Source: Blei, Ng & Jordan (2003), "Latent Dirichlet Allocation", JMLR 3, section 3 (the
    generative process) with the smoothed topics of section 5.4.

    Examples
    --------
    >>> from latentkit.datasets import make_lda_corpus
    >>> X, truth = make_lda_corpus(50, n_components=3, vocab_size=40, random_state=0)
    >>> X.shape, truth["topics"].shape
    ((50, 40), (3, 40))
    """
    n_docs = check_scalar(n_docs, "n_docs", numbers.Integral, low=1)
    n_components = check_scalar(n_components, "n_components", numbers.Integral, low=1)
    vocab_size = check_scalar(vocab_size, "vocab_size", numbers.Integral, low=2)
    D, K, V = n_docs, n_components, vocab_size
    rng = check_random_state(random_state)

    def _prior(value, name, size, default):
        if value is None:
            value = default
        arr = np.array(value, dtype=np.float64)
        if arr.ndim == 0:
            arr = np.full(size, float(arr))
        if arr.shape != (size,):
            raise InputError(f"{name} must be a positive float or an array of shape ({size},), "
                             f"got shape {arr.shape}.")
        if not np.all(np.isfinite(arr)) or np.any(arr <= 0):
            raise InputError(f"{name} must be finite and > 0, got {value!r}.")
        return arr

    alpha = _prior(doc_topic_prior, "doc_topic_prior", K, 1.0 / K)
    eta = _prior(topic_word_prior, "topic_word_prior", V, 0.1)

    lengths = np.array(doc_length)
    if lengths.ndim == 0:
        lengths = np.full(D, lengths)
    if lengths.shape != (D,) or not np.issubdtype(lengths.dtype, np.number):
        raise InputError(f"doc_length must be an int or an array of shape ({D},), got {doc_length!r}.")
    if np.any(lengths < 0) or np.any(lengths != np.round(lengths)):
        raise InputError("doc_length must contain non-negative integers.")
    lengths = lengths.astype(np.int64)

    topics = rng.dirichlet(eta, size=K)
    doc_topic = rng.dirichlet(alpha, size=D)

    # Multinomial draws in blocks of documents so memory stays O(block * V).
    block = max(1, 2_000_000 // V)
    parts = []
    for start in range(0, D, block):
        stop = min(D, start + block)
        p = doc_topic[start:stop] @ topics
        p /= p.sum(axis=1, keepdims=True)
        counts = rng.multinomial(lengths[start:stop], p)
        parts.append(sp.csr_matrix(counts.astype(np.float64)))
    X = sp.vstack(parts, format="csr")
    X.sort_indices()
    truth = {"topics": topics, "doc_topic": doc_topic, "doc_topic_prior": alpha,
             "topic_word_prior": eta, "doc_lengths": lengths}
    return X, truth
