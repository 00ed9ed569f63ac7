"""Spectral starting points for the likelihood models (``init='spectral'``).

One recipe per family: estimate the method-of-moments parameters with the estimators of
:mod:`._estimators`, project them onto valid parameters (simplex, floored covariances) and
return them in the model's ``init`` dict form. When the moments are degenerate (too few
tokens, rank-deficient M2, ``n_components > n_features``, non-finite output) the recipe warns
with :class:`SpectralInitWarning` and falls back to k-means++ (mixtures) or the model's random
start (topic models, HMMs).
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
from .._utils.validation import check_lengths
from ._estimators import SpectralHMM

_COVARIANCE_TYPES = ("full", "diag", "spherical", "tied")

__all__ = ["SpectralInitWarning", "spectral_init_gmm", "spectral_init_lda", "spectral_init_plsa",
           "spectral_init_hmm", "kmeans_plusplus_centers", "spectral_responsibilities"]


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


#: EM iterations for the first-state law (mixture weights of the first symbols; K x n_sequences
#: work each).
_START_EM_ITERS = 100

#: Largest alphabet for the dense three-view moments (n_features^3 cells of float64: 128 MiB).
_HMM_MAX_CELLS = 2 ** 24


def _check_symbols(X, n_features):
    """Validate stacked symbols: (n,) or (n, 1) integers in ``0..n_features-1``; returns
    (int64 array of shape (n,), n_features)."""
    arr = np.asarray(X)
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    if arr.ndim != 1:
        raise ValueError(f"X must have shape (n_samples,) or (n_samples, 1) of integer symbols, "
                         f"got shape {np.shape(X)}.")
    if arr.size == 0:
        raise ValueError("X has 0 samples; at least one time step is required.")
    if arr.dtype.kind == "f":
        if not np.all(np.isfinite(arr)):
            raise ValueError("Input X contains NaN or infinity; symbols must be finite integers.")
        if np.any(arr != np.round(arr)):
            raise ValueError("X must contain integer symbols, found non-integer values.")
    elif arr.dtype.kind not in "iub":
        raise TypeError(f"X must contain integer symbols, got dtype {arr.dtype}.")
    sym = arr.astype(np.int64)
    if sym.min() < 0:
        raise ValueError(f"X contains the negative symbol {sym.min()}; symbols must be integers "
                         "in 0..n_features-1.")
    if n_features is None:
        n_features = int(sym.max()) + 1
    else:
        n_features = int(check_scalar(n_features, "n_features", numbers.Integral, low=1))
        if sym.max() >= n_features:
            raise ValueError(f"X contains the symbol {sym.max()}, outside 0..{n_features - 1} "
                             f"(n_features={n_features}).")
    return sym, n_features


def _floor_rows(P, floor):
    """Entries at least ``floor / n_columns``, rows renormalised to 1."""
    P = np.maximum(np.asarray(P, dtype=np.float64), floor / P.shape[-1])
    return P / P.sum(axis=-1, keepdims=True)


def _random_hmm_start(sym, n_components, n_features, rng):
    """CategoricalHMM's ``init='random'``: flat-Dirichlet ``startprob`` and ``transmat`` rows,
    emission rows = smoothed symbol frequencies times Exponential(1) weights, renormalised."""
    K, M = n_components, n_features
    start = rng.dirichlet(np.ones(K))
    trans = rng.dirichlet(np.ones(K), size=K)
    freq = (np.bincount(sym, minlength=M) + 1.0) / (sym.shape[0] + M)
    B = freq[None, :] * rng.exponential(size=(K, M))
    return {"startprob": start, "transmat": trans,
            "emissionprob": B / B.sum(axis=1, keepdims=True)}


def spectral_init_hmm(X, lengths=None, n_components=2, n_features=None, random_state=None,
                      floor=1e-2):
    """Starting parameters of a categorical HMM from the three-view method of moments.

    :class:`~latentkit.spectral.SpectralHMM` (Anandkumar, Hsu & Kakade 2012; windows
    ``(x_t, x_{t+1}, x_{t+2})`` inside each sequence; its default ``target_view='auto'``
    inverts only the better-conditioned adjacent-pair moments) gives the emission matrix, the transition
    matrix and the law ``pi`` of the first state of a window. They are projected onto valid
    stochastic matrices: every entry is floored at ``floor / row length`` and the rows are
    renormalised (Baum-Welch keeps a zero at zero, so no probability may start at 0). The
    start distribution is the maximum-likelihood mixture weight vector of the sequences' first
    symbols with the emission rows held fixed (100 EM steps from ``pi``: ``s_j <- mean_s
    p(h_1 = j | x_1^(s))``), an estimate of the law of the initial state, which ``pi`` is not
    when the sequences start out of equilibrium.

    Parameters
    ----------
    X : array-like of int of shape (n_samples,) or (n_samples, 1)
        Stacked symbol sequences (hmmlearn's layout).
    lengths : array-like of int of shape (n_sequences,), optional
        Sequence lengths (sum ``n_samples``); default one sequence.
    n_components : int, default 2
        Number of hidden states K (>= 1).
    n_features : int, optional
        Number of symbols M (default ``max(X) + 1``).
    random_state : None, int or numpy.random.Generator
        Restarts of the tensor power method, and the fallback start.
    floor : float, default 1e-2
        Each probability is at least ``floor`` divided by the row length before
        renormalisation (0 <= floor < 1).

    Returns
    -------
    dict
        ``'startprob'`` (K,), ``'transmat'`` (K, K) (row i: ``p(h_{t+1} | h_t = i)``),
        ``'emissionprob'`` (K, M): strictly positive, rows summing to 1. When the moments are
        degenerate -- fewer windows of 3 observations than ``10 K M``, ``K > M``, an alphabet
        with more than 2^24 cells ``M^3`` for the dense third moment, rank-deficient pair
        moments, non-finite output -- a :class:`SpectralInitWarning` is issued and
        CategoricalHMM's random start is returned instead (flat-Dirichlet ``startprob`` and
        ``transmat`` rows, emission rows from the smoothed symbol frequencies times
        Exponential(1) weights).

    Raises
    ------
    ValueError
        Negative, fractional, NaN or out-of-range symbols; lengths that do not add up to
        n_samples; ``n_components`` < 1; ``floor`` outside [0, 1).
    TypeError
        Non-integer ``n_components``/``n_features``, non-numeric X.

    Notes
    -----
    Source: Anandkumar, Hsu & Kakade (2012), "A method of moments for mixture models and hidden
    Markov models", COLT; Anandkumar et al. (2014), section 3.3 and Theorem 3.6;
    SPECTRAL_NOTES.md section 1.5.
    """
    sym, M = _check_symbols(X, n_features)
    offsets = check_lengths(lengths, sym.shape[0])
    K = int(check_scalar(n_components, "n_components", numbers.Integral, low=1))
    floor = float(check_scalar(floor, "floor", numbers.Real, low=0.0, high=1.0,
                               high_inclusive=False))
    rng = check_random_state(random_state)
    seq_len = np.diff(offsets)
    n_windows = int(np.maximum(seq_len - 2, 0).sum())
    try:
        if K > M:
            raise ValueError(f"n_components={K} exceeds the number of symbols {M}")
        if M ** 3 > _HMM_MAX_CELLS:
            raise ValueError(f"{M} symbols: the dense third moment would have {M}^3 cells "
                             f"(more than 2^24)")
        if n_windows < 10 * K * M:
            raise ValueError(f"too few triples: {n_windows} windows of 3 consecutive "
                             f"observations, fewer than 10 n_components n_features = "
                             f"{10 * K * M}")
        est = SpectralHMM(K, n_features=M, random_state=rng).fit(sym, seq_len)
        if not all(np.all(np.isfinite(a)) for a in (est.startprob_, est.transmat_,
                                                    est.emissionprob_)):
            raise ValueError("non-finite spectral estimate")
        B = _floor_rows(est.emissionprob_, floor)
        A = _floor_rows(est.transmat_, floor)
        pi = _floor_rows(est.startprob_, floor)
        # law of the first state: maximum likelihood of the mixture weights of the first
        # symbols with the emission rows fixed (EM fixed point, started from pi)
        lik = B[:, sym[offsets[:-1]]].T  # (n_sequences, K)
        start = pi
        for _ in range(_START_EM_ITERS):
            post = start[None, :] * lik
            start = (post / post.sum(axis=1, keepdims=True)).mean(axis=0)
        start = _floor_rows(start, floor)
        return {"startprob": start, "transmat": A, "emissionprob": B}
    except (ValueError, np.linalg.LinAlgError) as exc:
        warnings.warn(f"init='spectral': the moments are degenerate ({exc}); falling back to "
                      "a random start.", SpectralInitWarning, stacklevel=2)
        return _random_hmm_start(sym, K, M, rng)
