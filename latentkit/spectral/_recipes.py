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

from .._utils.validation import (check_array, check_counts, check_random_state, check_sample_weight,
                           check_scalar)
from .._utils.kmeans import kmeans_plusplus
from ._estimators import SpectralLDA
from ._moments import check_moment_scale
from ._gmm_start import SpectralInitWarning, choose_start, params_from_resp

_COVARIANCE_TYPES = ("full", "diag", "spherical", "tied")

__all__ = ["SpectralInitWarning", "spectral_init_gmm", "spectral_init_lda", "spectral_init_plsa",
           "kmeans_plusplus_centers", "spectral_responsibilities"]


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
    """k-means++ seeding: ``n_components`` rows of X, each the best (lowest weighted potential)
    of ``2 + log K`` candidates drawn with probability proportional to the (weighted) squared
    distance to the centres already drawn (:func:`latentkit._utils.kmeans.kmeans_plusplus` without
    Lloyd iterations).

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
    return kmeans_plusplus(X, n_components, rng, sample_weight=w, n_lloyd=0)[0]


def spectral_init_gmm(X, n_components, covariance_type="full", reg_covar=1e-6, sample_weight=None,
                      random_state=None, lookahead=None, return_report=False):
    """Starting parameters of a Gaussian mixture from the spherical-GMM moments, checked
    against k-means++.

    The robust spectral start of :mod:`latentkit.spectral._gmm_start`: standardised features,
    moments with a variance per component about a shifted centre (Hsu & Kakade 2013), Lloyd
    refinement of the spectral means, a second pass in within-class whitened coordinates; the
    partition whose one-M-step parameters (of the requested ``covariance_type``, ``reg_covar``
    on the diagonal) have the highest log-likelihood is kept -- unless the k-means++ start of
    :class:`~latentkit.mixture.GaussianMixture` (drawn from a copy of ``random_state``, 10 Lloyd
    iterations) has a higher one: then that start is returned, identical to
    ``init='kmeans++'`` with the same random state, with a :class:`SpectralInitWarning`.
    When the spectral start is kept, the model is fitted from it and a split-and-merge search
    (Ueda et al. 2000) from that optimum may move to a better one (a merge-two/split-one
    partition whose short run already exceeds the optimum's objective); the start returned is
    one M-step from the responsibilities of the optimum reached. These fits are part of the
    start's cost: ``report['n_iter']`` counts their iterations.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    n_components : int
    covariance_type : {'full', 'diag', 'spherical', 'tied'}, default 'full'
    reg_covar : float, default 1e-6
    sample_weight : ndarray of shape (n_samples,), optional
        Used for the standardisation, Lloyd, the M-step and the check (the moments are
        unweighted).
    random_state : None, int or numpy.random.Generator
    lookahead : callable, optional
        ``lookahead(start, max_iter=None, tol=None) -> (objective, n_iter, fitted)``: the
        model fitted from responsibilities ``start`` (n_samples, n_components) or continued
        from a fitted model, objective in nats per sample
        (:class:`latentkit.spectral._gmm_start.ModelLookahead` of the user's model). Default: a GaussianMixture of ``covariance_type`` and ``reg_covar``
        with its default ``max_iter`` and ``tol``.
    return_report : bool, default False
        Also return the report of the start.

    Returns
    -------
    params : dict
        ``'weights'`` (K,), ``'means'`` (K, D), ``'covariances'`` (shape of the type).
    report : dict
        Only with ``return_report``: ``'chosen'`` ('spectral' or 'kmeans++'), ``'spectral'``
        and ``'kmeans'`` (the compared numbers, nats per sample: the candidates' start
        log-likelihoods, or for a start with fewer clusters than columns the ELBOs after one
        iteration; None where not computed, e.g. degenerate moments), ``'n_iter'``
        (iterations of the model's updates run inside the start: the check's and the fits
        of the split-and-merge search), ``'moves'``
        (accepted moves), ``'objective'`` (the optimum the search reached, nats per sample,
        or None).

    Warns
    -----
    SpectralInitWarning
        Degenerate moments (``n_components > n_features``, rank-deficient M2, non-finite
        output), or a spectral start less likely than the k-means++ start (both
        log-likelihoods in the message): the k-means++ start is returned.

    Raises
    ------
    ValueError
        NaN or infinity in X, ``n_components`` < 1 or above n_samples, an unknown
        ``covariance_type``, negative ``reg_covar``, bad ``sample_weight``.
    TypeError
        Non-integer ``n_components``, non-numeric X.

    Notes
    -----
    Sources: Hsu & Kakade (2013), Theorem 1; Anandkumar et al. (2014), section 4.3; Lloyd
    (1982); Ding & Li (2007); Arthur & Vassilvitskii (2007) for the k-means++ candidate; Ueda,
    Nakano, Ghahramani & Hinton (2000), "SMEM algorithm for mixture models", for the search.
    """
    X = check_array(X, "X")
    resp, report = _checked_start(X, n_components, covariance_type, reg_covar, sample_weight,
                                  random_state, n_lloyd_kmeans=10, lookahead=lookahead)
    params = params_from_resp(X, resp, covariance_type, reg_covar,
                              check_sample_weight(sample_weight, X.shape[0]))
    return (params, report) if return_report else params


def _checked_start(X, n_components, covariance_type, reg_covar, sample_weight, random_state,
                   n_lloyd_kmeans, n_columns=None, lookahead=None, check="likelihood"):
    """Validate the arguments of the two mixture recipes, then
    :func:`~._gmm_start.choose_start`: (responsibilities, report)."""
    X = check_array(X, "X")
    k = _check_n_components(n_components, X.shape[0])
    cols = k if n_columns is None else int(check_scalar(n_columns, "n_columns",
                                                        numbers.Integral, low=k))
    if covariance_type not in _COVARIANCE_TYPES:
        raise ValueError(f"covariance_type must be one of {_COVARIANCE_TYPES}, got "
                         f"{covariance_type!r}.")
    reg_covar = float(check_scalar(reg_covar, "reg_covar", numbers.Real, low=0.0))
    w = check_sample_weight(sample_weight, X.shape[0])
    rng = check_random_state(random_state)
    check_moment_scale(X, order=3)  # refused by name, not a fallback on inf moments
    what = "k-means++" if cols == k else f"k-means++ ({cols} clusters)"
    if lookahead is not None and not callable(lookahead):
        raise TypeError(f"lookahead must be callable or None, got {type(lookahead).__name__}.")
    return choose_start(X, k, covariance_type, reg_covar, w, rng, n_lloyd_kmeans, what=what,
                        lookahead=lookahead, n_columns=cols, check=check)


def spectral_responsibilities(X, n_components, covariance_type="full", reg_covar=1e-6,
                              sample_weight=None, random_state=None, n_columns=None,
                              lookahead=None, return_report=False):
    """One-hot starting responsibilities of the variational mixtures from the spectral start.

    As :func:`spectral_init_gmm` (same candidates and search), with the k-means++ start of
    :class:`~latentkit.mixture.VariationalGaussianMixture` (Lloyd to convergence, at most 300
    iterations); with ``n_columns`` above ``n_components`` the k-means++ start has
    ``n_columns`` clusters, the Dirichlet-process mixture's own ``init='kmeans++'`` start.
    With a ``lookahead`` (the model's own fit), the check compares the model's objective
    (the ELBO) after one iteration from the spectral start and from that k-means++ start,
    so a start with fewer clusters than columns is judged by the model that will use it
    (a likelihood always prefers more clusters); the two iterations are counted in
    ``report['n_iter']``. Without one, the one-M-step likelihoods of ``n_components``-cluster
    starts are compared, as in :func:`spectral_init_gmm`.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    n_components : int
        Number of clusters of the start (``<= n_columns``).
    covariance_type : {'full', 'diag', 'spherical', 'tied'}, default 'full'
        For the likelihood of the check.
    reg_covar : float, default 1e-6
    sample_weight : ndarray of shape (n_samples,), optional
    random_state : None, int or numpy.random.Generator
    n_columns : int, optional
        Columns of the result (the truncation of a Dirichlet-process mixture; the spectral
        start fills ``n_components`` of them, and the split-and-merge search may split
        clusters into the empty ones). Default ``n_components``.
    lookahead : callable, optional
        As in :func:`spectral_init_gmm`, with ``resp`` of shape (n_samples, n_columns).
    return_report : bool, default False
        Also return the report of the start (as :func:`spectral_init_gmm`).

    Returns
    -------
    resp : ndarray of shape (n_samples, n_columns)
        Rows sum to 1: one-hot, or the responsibilities of the optimum the search reached.
    report : dict
        Only with ``return_report``.

    Warns
    -----
    SpectralInitWarning
        As :func:`spectral_init_gmm`; the k-means++ labels are used.

    Raises
    ------
    ValueError, TypeError
        As :func:`spectral_init_gmm`; ``n_columns < n_components``.
    """
    resp, report = _checked_start(X, n_components, covariance_type, reg_covar, sample_weight,
                                  random_state, n_lloyd_kmeans=300, n_columns=n_columns,
                                  lookahead=lookahead,
                                  check="likelihood" if lookahead is None or n_columns in (
                                      None, n_components) else "objective")
    return (resp, report) if return_report else resp


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
