"""Spectral starting points for the likelihood models (``init='spectral'``).

One recipe per family: estimate the method-of-moments parameters with the estimators of
:mod:`._estimators`, project them onto valid parameters (simplex, floored covariances) and
return them in the model's ``init`` dict form. When the moments are degenerate (too few
tokens, rank-deficient M2, ``n_components > n_features``, non-finite output) the recipe warns
with :class:`SpectralInitWarning` and falls back to k-means++ (mixtures) or the model's random
start (topic models).
"""

import warnings

import numpy as np

from .._validation import check_random_state
from ._estimators import SpectralGMM, SpectralLDA

__all__ = ["SpectralInitWarning", "spectral_init_gmm", "spectral_init_lda", "spectral_init_plsa",
           "kmeans_plusplus_centers"]


class SpectralInitWarning(UserWarning):
    """The spectral start was not usable and a fallback start was used instead."""


def kmeans_plusplus_centers(X, n_components, rng, sample_weight=None):
    """k-means++ seeding (Arthur & Vassilvitskii 2007): centers of shape (n_components, d)."""
    n = X.shape[0]
    w = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=float)
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

    Notes
    -----
    Source: Hsu & Kakade (2013), Theorem 1; Anandkumar et al. (2014), section 4.3.
    """
    rng = check_random_state(random_state)
    X = np.asarray(X, dtype=np.float64)
    w = np.ones(X.shape[0]) if sample_weight is None else np.asarray(sample_weight, dtype=float)
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
    X : scipy.sparse matrix of shape (n_documents, n_features)
        Word counts.
    n_components : int
    doc_topic_prior : float, optional
        Per-topic alpha (default ``1 / n_components``).
    topic_word_prior : float, optional
        eta (default ``1 / n_components``).
    random_state : None, int or numpy.random.Generator

    Returns
    -------
    dict
        ``'components'``: ndarray of shape (n_components, n_features), strictly positive.
        When the moments are degenerate (documents shorter than 3 tokens only, rank-deficient
        M2, non-finite output) a :class:`SpectralInitWarning` is issued and the model's usual
        random start ``Gamma(100, 0.01)`` is returned.

    Notes
    -----
    Source: Anandkumar, Foster, Hsu, Kakade & Liu (2012); SPECTRAL_NOTES.md section 1.3.
    """
    rng = check_random_state(random_state)
    K = int(n_components)
    alpha = 1.0 / K if doc_topic_prior is None else float(np.mean(doc_topic_prior))
    eta = 1.0 / K if topic_word_prior is None else np.asarray(topic_word_prior, dtype=float)
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
    X : scipy.sparse matrix of shape (n_documents, n_features)
        Word counts.
    n_components : int
    random_state : None, int or numpy.random.Generator

    Returns
    -------
    dict
        ``'components'``: ndarray of shape (n_components, n_features), rows summing to 1.

    Notes
    -----
    Source: Anandkumar, Foster, Hsu, Kakade & Liu (2012); SPECTRAL_NOTES.md section 1.3.
    """
    lam = spectral_init_lda(X, n_components, random_state=random_state)["components"]
    return {"components": lam / lam.sum(axis=1, keepdims=True)}
