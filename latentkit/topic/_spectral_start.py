"""Spectral starts of the topic models (``init='spectral'``): :func:`spectral_init_lda` and
:func:`spectral_init_plsa`, from the topics of :class:`~latentkit.spectral.SpectralLDA`
(Anandkumar et al. 2012). Moved from ``latentkit/spectral/_recipes.py`` (issue 25); the old path
``latentkit.spectral.spectral_init_lda`` still works, with a ``DeprecationWarning``.
"""

import numbers
import warnings

import numpy as np

from .._utils.validation import check_counts, check_random_state, check_scalar
from ..exceptions import SpectralInitWarning, InputError, InputTypeError
from ..spectral import SpectralLDA

__all__ = ["spectral_init_lda", "spectral_init_plsa"]


def _check_positive_prior(value, name, shape):
    """A scalar or an array broadcastable to ``shape``, finite and > 0 (None passes)."""
    if value is None:
        return None
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputTypeError(f"{name} must be a positive number or array, got {value!r}.") from None
    try:
        np.broadcast_to(arr, shape)
    except ValueError:
        raise InputError(f"{name} must be a scalar or broadcast to shape {shape}, got shape "
                         f"{arr.shape}.") from None
    if not np.all(np.isfinite(arr)) or np.any(arr <= 0):
        raise InputError(f"{name} must be finite and > 0 (a Dirichlet parameter), got {value!r}.")
    return arr


def spectral_init_lda(X, n_components, doc_topic_prior=None, topic_word_prior=None,
                      random_state=None):
    """Starting topic-word variational parameters of LDA from the spectral topics.

    ``lambda_kw = eta + N pi_k mu_kw``: the spectral topics ``mu_k`` (simplex rows, from
    :class:`~latentkit.spectral.SpectralLDA` with ``alpha_0 = K * doc_topic_prior``), weighted by
    the estimated topic proportions ``pi_k = alpha_k / sum alpha`` (floored at ``1/(10K)``) and
    the corpus size N (tokens), i.e. the expected topic-word counts of one M-step.

    Parameters
    ----------
    X : array-like or scipy.sparse matrix of shape (n_documents, n_features)
        Word counts (non-negative).
    n_components : int
        >= 1 (above the vocabulary size the moments are degenerate: fallback).
    doc_topic_prior : float or array-like of shape (n_components,), optional
        Per-topic alpha, > 0 (default ``1 / n_components``; an array enters by its mean).
    topic_word_prior : float or array-like broadcastable to (n_components, n_features), optional
        eta, > 0 (default ``1 / n_components``).
    random_state : None, int or numpy.random.Generator

    Returns
    -------
    dict
        ``'components'``: ndarray of shape (n_components, n_features), strictly positive.
        When the moments are degenerate (documents shorter than 3 tokens only, rank-deficient
        M2, non-finite output) a :class:`SpectralInitWarning` is issued and the model's usual
        random start ``Gamma(100, 0.01)`` is returned.

    Raises
    ------
    ValueError
        Negative counts, NaN, ``n_components`` < 1, non-positive or wrongly shaped priors.
    TypeError
        Non-integer ``n_components``, non-numeric X or priors.

    Notes
    -----
    Source: Anandkumar, Foster, Hsu, Kakade & Liu (2012); SPECTRAL_NOTES.md section 1.3.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.topic import spectral_init_lda
    >>> rng = np.random.default_rng(0)
    >>> X = np.zeros((60, 6))  # documents about words 0-2 or about words 3-5
    >>> X[:30, :3] = rng.poisson(4, (30, 3)); X[30:, 3:] = rng.poisson(4, (30, 3))
    >>> init = spectral_init_lda(X, n_components=2, random_state=0)
    >>> init["components"].shape, bool((init["components"] > 0).all())
    ((2, 6), True)
    """
    X = check_counts(X, "X")
    K = int(check_scalar(n_components, "n_components", numbers.Integral, low=1))
    doc_topic_prior = _check_positive_prior(doc_topic_prior, "doc_topic_prior", (K,))
    topic_word_prior = _check_positive_prior(topic_word_prior, "topic_word_prior",
                                             (K, X.shape[1]))
    rng = check_random_state(random_state)
    alpha = 1.0 / K if doc_topic_prior is None else float(np.mean(doc_topic_prior))
    eta = 1.0 / K if topic_word_prior is None else topic_word_prior
    try:
        est = SpectralLDA(K, doc_topic_prior=alpha, random_state=rng).fit(X)
        topics = est.components_
        prop = est.doc_topic_prior_ / est.doc_topic_prior_.sum()
        if not (np.all(np.isfinite(topics)) and np.all(np.isfinite(prop))):
            raise ValueError("non-finite spectral estimate")
        prop = np.maximum(prop, 1.0 / (10 * K))
        prop = prop / prop.sum()
        lam = eta + est.n_tokens_ * prop[:, None] * topics
    except ValueError as exc:
        warnings.warn(f"init='spectral': the moments are degenerate ({exc}); falling back to "
                      "a random start.", SpectralInitWarning, stacklevel=2)
        lam = rng.gamma(100.0, 0.01, size=(K, X.shape[1]))
    return {"components": lam}


def spectral_init_plsa(X, n_components, random_state=None):
    """Starting topic-word distributions P(w|z) of PLSA from the spectral LDA topics.

    The rows of :func:`spectral_init_lda`'s ``eta + N pi_k mu_k`` (``alpha_0 = 1``,
    ``eta = 1 / n_components``), normalised: strictly positive (EM keeps zeros at zero) rows on
    the simplex. Falls back, with :class:`SpectralInitWarning`, as :func:`spectral_init_lda`.

    Parameters
    ----------
    X : array-like or scipy.sparse matrix of shape (n_documents, n_features)
        Word counts (non-negative).
    n_components : int
        >= 1.
    random_state : None, int or numpy.random.Generator

    Returns
    -------
    dict
        ``'components'``: ndarray of shape (n_components, n_features), rows summing to 1.

    Raises
    ------
    ValueError, TypeError
        As :func:`spectral_init_lda`.

    Notes
    -----
    Source: Anandkumar, Foster, Hsu, Kakade & Liu (2012); SPECTRAL_NOTES.md section 1.3.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.topic import spectral_init_plsa
    >>> rng = np.random.default_rng(0)
    >>> X = np.zeros((60, 6))  # documents about words 0-2 or about words 3-5
    >>> X[:30, :3] = rng.poisson(4, (30, 3)); X[30:, 3:] = rng.poisson(4, (30, 3))
    >>> init = spectral_init_plsa(X, n_components=2, random_state=0)
    >>> np.round(init["components"].sum(axis=1), 6)  # P(w | z): rows sum to 1
    array([1., 1.])
    """
    lam = spectral_init_lda(X, n_components, random_state=random_state)["components"]
    return {"components": lam / lam.sum(axis=1, keepdims=True)}
