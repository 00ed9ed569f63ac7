"""Spectral starting points for the likelihood models (``init='spectral'``).

One recipe per family: estimate the method-of-moments parameters with the estimators of
:mod:`._estimators`, project them onto valid parameters (simplex, floored covariances) and
return them in the model's ``init`` dict form. When the moments are degenerate (too few
tokens, rank-deficient M2, ``n_components > n_features``, non-finite output) the recipe warns
with :class:`SpectralInitWarning` and falls back to k-means++ (mixtures) or the model's random
start (topic models).
"""

import numbers
import warnings

import numpy as np

from .._validation import (check_array, check_counts, check_random_state, check_sample_weight,
                           check_scalar)
from ._estimators import SpectralGMM, SpectralLDA

_COVARIANCE_TYPES = ("full", "diag", "spherical", "tied")

__all__ = ["SpectralInitWarning", "spectral_init_gmm", "spectral_init_lda", "spectral_init_plsa",
           "kmeans_plusplus_centers"]


class SpectralInitWarning(UserWarning):
    """The spectral start was not usable and a fallback start was used instead."""


def _check_n_components(n_components, n_samples, what="samples"):
    k = check_scalar(n_components, "n_components", numbers.Integral, low=1)
    if k > n_samples:
        raise ValueError(f"n_components={k} exceeds the number of {what} ({n_samples}); a "
                         f"start needs at least one of them per component.")
    return int(k)


def _check_positive_prior(value, name, shape):
    """A scalar or an array broadcastable to ``shape``, finite and > 0 (None passes)."""
    if value is None:
        return None
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a positive number or array, got {value!r}.") from None
    try:
        np.broadcast_to(arr, shape)
    except ValueError:
        raise ValueError(f"{name} must be a scalar or broadcast to shape {shape}, got shape "
                         f"{arr.shape}.") from None
    if not np.all(np.isfinite(arr)) or np.any(arr <= 0):
        raise ValueError(f"{name} must be finite and > 0 (a Dirichlet parameter), got {value!r}.")
    return arr


def kmeans_plusplus_centers(X, n_components, rng, sample_weight=None):
    """k-means++ seeding: ``n_components`` rows of X drawn with probability proportional to the
    (weighted) squared distance to the centres already drawn.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    n_components : int
        ``1 <= n_components <= n_samples``.
    rng : None, int or numpy.random.Generator
    sample_weight : array-like of shape (n_samples,), optional
        Non-negative, not all zero.

    Returns
    -------
    centers : ndarray of shape (n_components, n_features)

    Raises
    ------
    ValueError
        NaN, ``n_components`` < 1 or above n_samples, bad ``sample_weight``.

    Notes
    -----
    Source: Arthur & Vassilvitskii (2007), "k-means++: the advantages of careful seeding",
    section 2.2.
    """
    X = check_array(X, "X")
    n = X.shape[0]
    n_components = _check_n_components(n_components, n)
    rng = check_random_state(rng)
    w = check_sample_weight(sample_weight, n)
    centers = np.empty((n_components, X.shape[1]))
    i = rng.choice(n, p=w / w.sum())
    centers[0] = X[i]
    d2 = ((X - centers[0]) ** 2).sum(1)
    for c in range(1, n_components):
        p = w * d2
        i = rng.choice(n, p=p / p.sum()) if p.sum() > 0 else rng.integers(n)
        centers[c] = X[i]
        d2 = np.minimum(d2, ((X - centers[c]) ** 2).sum(1))
    return centers


def _covariances_from_means(X, means, covariance_type, reg_covar, w):
    """Weights and covariances of the nearest-mean (hard) assignment, in the model's form."""
    K, D = means.shape
    d2 = (X ** 2).sum(1)[:, None] - 2 * X @ means.T + (means ** 2).sum(1)[None]
    lab = np.argmin(d2, axis=1)
    nk = np.bincount(lab, weights=w, minlength=K) + 10 * np.finfo(float).eps
    total = w.sum()
    cov_full = np.empty((K, D, D))
    for j in range(K):
        sel = lab == j
        if nk[j] < 2 or sel.sum() < 2:
            diff = X - means[j]
            cov_full[j] = (diff * w[:, None]).T @ diff / total
        else:
            diff = X[sel] - means[j]
            cov_full[j] = (diff * w[sel, None]).T @ diff / w[sel].sum()
    if covariance_type == "full":
        cov = cov_full + reg_covar * np.eye(D)
    elif covariance_type == "diag":
        cov = np.einsum("kii->ki", cov_full) + reg_covar
    elif covariance_type == "spherical":
        cov = np.einsum("kii->k", cov_full) / D + reg_covar
    elif covariance_type == "tied":
        cov = np.einsum("k,kij->ij", nk / nk.sum(), cov_full) + reg_covar * np.eye(D)
    else:
        raise ValueError(f"covariance_type must be 'full', 'diag', 'spherical' or 'tied', "
                         f"got {covariance_type!r}.")
    return nk / nk.sum(), cov


def spectral_init_gmm(X, n_components, covariance_type="full", reg_covar=1e-6, sample_weight=None,
                      random_state=None):
    """Starting parameters of a Gaussian mixture from the spherical-GMM moments.

    The means come from :class:`~latentkit.spectral.SpectralGMM` (Hsu & Kakade 2013; common
    variance); the weights and covariances (of the requested type, ``reg_covar`` added to the
    diagonal) from the nearest-mean assignment of the samples, so any covariance type is valid.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    n_components : int
    covariance_type : {'full', 'diag', 'spherical', 'tied'}, default 'full'
    reg_covar : float, default 1e-6
    sample_weight : ndarray of shape (n_samples,), optional
        Used for the weights/covariances (the moments are unweighted).
    random_state : None, int or numpy.random.Generator

    Returns
    -------
    dict
        ``'weights'`` (K,), ``'means'`` (K, D), ``'covariances'`` (shape of the type). On
        degenerate moments (``n_components > n_features``, rank-deficient M2, non-finite
        output) a :class:`SpectralInitWarning` is issued and k-means++ centres are used as means.

    Raises
    ------
    ValueError
        NaN or infinity in X, ``n_components`` < 1 or above n_samples, an unknown
        ``covariance_type``, negative ``reg_covar``, bad ``sample_weight``.
    TypeError
        Non-integer ``n_components``, non-numeric X.

    Notes
    -----
    Source: Hsu & Kakade (2013), Theorem 1; Anandkumar et al. (2014), section 4.3.
    """
    X = check_array(X, "X")
    n_components = _check_n_components(n_components, X.shape[0])
    if covariance_type not in _COVARIANCE_TYPES:
        raise ValueError(f"covariance_type must be one of {_COVARIANCE_TYPES}, got "
                         f"{covariance_type!r}.")
    reg_covar = float(check_scalar(reg_covar, "reg_covar", numbers.Real, low=0.0))
    w = check_sample_weight(sample_weight, X.shape[0])
    rng = check_random_state(random_state)
    try:
        est = SpectralGMM(n_components, random_state=rng).fit(X)
        means = est.means_
        if not np.all(np.isfinite(means)):
            raise ValueError("non-finite spectral means")
    except ValueError as exc:
        warnings.warn(f"init='spectral': the moments are degenerate ({exc}); falling back to "
                      "k-means++.", SpectralInitWarning, stacklevel=2)
        means = kmeans_plusplus_centers(X, n_components, rng, w)
    weights, cov = _covariances_from_means(X, means, covariance_type, reg_covar, w)
    return {"weights": weights, "means": means, "covariances": cov}


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
    """
    lam = spectral_init_lda(X, n_components, random_state=random_state)["components"]
    return {"components": lam / lam.sum(axis=1, keepdims=True)}
