"""The spectral starts of the mixtures, as functions: :func:`spectral_init_gmm` (starting
parameters) and :func:`spectral_responsibilities` (starting responsibilities), each the robust
spectral start of :func:`latentkit.spectral.spectral_labels` checked against k-means++
(:mod:`._start_check`) and improved by split and merge (:mod:`._split_merge`); without a
look-ahead they fit a :class:`GaussianMixture`. The models call :mod:`._start_check` with their
own look-ahead. Moved from ``latentkit/spectral/_recipes.py`` (issue 25); the old paths
``latentkit.spectral.spectral_init_gmm`` and ``spectral_responsibilities`` still work, with a
``DeprecationWarning``.
"""

from .._utils.kmeans import kmeans_plusplus
from .._utils.validation import check_array, check_random_state, check_sample_weight
from ..distributions._gaussian import params_from_resp
from ._gaussian import GaussianMixture
from ._start_check import _check_n_components, _checked_start

__all__ = ["spectral_init_gmm", "spectral_responsibilities", "kmeans_plusplus_centers"]


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

    The robust spectral start of :func:`latentkit.spectral.spectral_labels`: standardised features,
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
        (:class:`latentkit.mixture._split_merge.ModelLookahead` of the user's model). Default: a GaussianMixture of ``covariance_type`` and ``reg_covar``
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

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.mixture import spectral_init_gmm
    >>> rng = np.random.default_rng(0)
    >>> X = np.r_[rng.normal(0, 1, (50, 2)), rng.normal(6, 1, (50, 2))]
    >>> params = spectral_init_gmm(X, n_components=2, random_state=0)
    >>> np.round(np.sort(params["means"][:, 0]), 0) + 0.0, params["covariances"].shape
    (array([0., 6.]), (2, 2, 2))
    """
    X = check_array(X, "X")
    resp, report = _checked_start(X, n_components, covariance_type, reg_covar, sample_weight,
                                  random_state, n_lloyd_kmeans=10, lookahead=lookahead,
                                  default_model=GaussianMixture)
    params = params_from_resp(X, resp, covariance_type, reg_covar,
                              check_sample_weight(sample_weight, X.shape[0]))
    return (params, report) if return_report else params


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

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.mixture import spectral_responsibilities
    >>> rng = np.random.default_rng(0)
    >>> X = np.r_[rng.normal(0, 1, (50, 2)), rng.normal(6, 1, (50, 2))]
    >>> resp = spectral_responsibilities(X, n_components=2, random_state=0)
    >>> resp.shape, np.round(resp.sum(axis=1)[:3], 6)
    ((100, 2), array([1., 1., 1.]))
    """
    resp, report = _checked_start(X, n_components, covariance_type, reg_covar, sample_weight,
                                  random_state, n_lloyd_kmeans=300, n_columns=n_columns,
                                  lookahead=lookahead,
                                  check="likelihood" if lookahead is None or n_columns in (
                                      None, n_components) else "objective",
                                  default_model=GaussianMixture)
    return (resp, report) if return_report else resp
