"""Spectral (method of moments) start of the HMMs, ``init='spectral'``.

Categorical symbols by :func:`spectral_init_hmm` (the three-view estimator
:class:`~latentkit.spectral.SpectralHMM`), Gaussian (diagonal, spherical, full, tied) and Poisson
observations by :func:`spectral_init_gaussian_hmm` and :func:`spectral_init_poisson_hmm` (the
three-view moments of a feature map of the observations,
:func:`latentkit.spectral._multiview.multiview_estimate`; Anandkumar, Hsu & Kakade 2012). The
moment and tensor algebra lives in :mod:`latentkit.spectral`; what needs an emission model (its
input checks, its log-likelihood for the first state's law, its fallback start) lives here.
"""

import numbers
import warnings

import numpy as np
from scipy.special import gammaln, logsumexp

from .._utils.validation import check_lengths, check_random_state, check_scalar
from ..distributions import check_covariance_type
from ..distributions._missing import mean_fill
from ..spectral import SpectralHMM, SpectralInitWarning
from ..spectral._multiview import Degenerate, multiview_estimate
from . import _emissions as em
from ._emissions import GaussianEmission, PoissonEmission
from ..exceptions import InputError, InputTypeError

__all__ = ["spectral_init_gaussian_hmm", "spectral_init_hmm", "spectral_init_poisson_hmm"]


def _prepare(emission, X, lengths, n_components, random_state, floor):
    """Validated (X as float64, offsets, K, rng, floor), with the HMM emission's messages."""
    K = int(check_scalar(n_components, "n_components", numbers.Integral, low=1))
    floor = float(check_scalar(floor, "floor", numbers.Real, low=0.0, high=1.0,
                               high_inclusive=False))
    n = np.shape(X)[0] if np.ndim(X) else 0
    offsets = check_lengths(lengths, n)
    Xv = np.asarray(emission.check_X(X, offsets, True), dtype=np.float64)
    return Xv, offsets, K, check_random_state(random_state), floor


def _start_em(loglik_first, w, floor, n_iter=100):
    """Law of the first state: maximum-likelihood mixture weights of the sequences' first
    observations with the emissions fixed (EM from ``w``)."""
    start = w
    for _ in range(n_iter):
        with np.errstate(divide="ignore"):  # a state may lose all start weight
            lp = np.log(start)[None, :] + loglik_first
        start = np.exp(lp - logsumexp(lp, axis=1, keepdims=True)).mean(axis=0)
    return _floor_rows(start, floor)


def _estimate(X, offsets, K, rng, build):
    """``build(*multiview_estimate(...))`` (with the cross products of the features when
    ``build.cross`` is true: the 'full' and 'tied' starts); raises (Degenerate, ValueError,
    LinAlgError) when the moments are degenerate or the estimate is not finite."""
    out = build(*multiview_estimate(X, offsets, K, rng,
                                    cross=getattr(build, "cross", False)))
    if not all(np.all(np.isfinite(v)) for v in out.values()):
        raise Degenerate("non-finite spectral estimate")
    return out


#: what a degenerate moment estimate raises (caught: the caller falls back)
_DEGENERATE = (Degenerate, ValueError, np.linalg.LinAlgError)


def _warn_degenerate(exc, what, stacklevel=3):
    warnings.warn(f"init='spectral': the moments are degenerate ({exc}); falling back to "
                  f"{what}.", SpectralInitWarning, stacklevel=stacklevel)


def spectral_init_gaussian_hmm(X, lengths=None, n_components=2, covariance_type="diag",
                               random_state=None, floor=1e-2):
    """Starting parameters of a Gaussian HMM (diagonal, spherical, full or tied
    covariances) from three-view moments (see the module docstring).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Finite observations, sequences stacked (hmmlearn's layout).
    lengths : array-like of int of shape (n_sequences,), optional
        Sequence lengths (sum ``n_samples``); default one sequence.
    n_components : int, default 2
        Number of states K (>= 1).
    covariance_type : {'diag', 'spherical', 'full', 'tied'}, default 'diag'
        'full' and 'tied' add the products ``z_i z_j`` of the standardised features to the
        feature map, so the moments give each state's ``E[z z^T | h]``; 'tied' is the
        average of the states' covariances under the law of the states.
    random_state : numpy.random.Generator, int or None
        Restarts of the tensor power method.
    floor : float, default 1e-2
        ``transmat`` and ``startprob`` entries at least ``floor / K`` (rows renormalised);
        variances (the eigenvalues of the standardised covariances for 'full' and 'tied')
        at least ``floor`` times the data variance of the feature, a floor that
        shrinks as ``n^-1/2`` beyond 1e4 windows of three observations
        (``_spectral_start.variance_floor``), so that the start's variances converge.

    Returns
    -------
    dict or None
        ``'startprob'`` (K,), ``'transmat'`` (K, K), ``'means'`` (K, D), ``'covars'`` (K, D)
        diag, (K,) spherical, (K, D, D) full or (D, D) tied. None, with a :class:`SpectralInitWarning`, when the moments
        are degenerate (fewer than ``10 K F`` windows of three observations with ``F`` the
        number of moment features, a constant feature, rank-deficient pair moments,
        ill-conditioned or non-finite output); the caller then uses its k-means++ start.

    Raises
    ------
    ValueError
        NaN or infinity in X (naming the row), lengths that do not add up, ``n_components``
        < 1, ``floor`` outside [0, 1), an unknown covariance_type.

    Notes
    -----
    Source: Anandkumar, Hsu & Kakade (2012), COLT; Anandkumar, Ge, Hsu, Kakade & Telgarsky
    (2014), JMLR 15, section 3.3 and Theorem 3.6 (multi-view moments of an HMM).

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.sequence import spectral_init_gaussian_hmm
    >>> rng = np.random.default_rng(0)
    >>> z = np.repeat(rng.integers(0, 2, 100), 10)  # runs of 10 steps in state 0 or 1
    >>> X = np.c_[4.0 * z, -4.0 * z, 2.0 * z] + rng.normal(size=(1000, 3))
    >>> params = spectral_init_gaussian_hmm(X, n_components=2, random_state=0)
    >>> np.round(np.sort(params["means"][:, 0]), 0) + 0.0
    array([0., 4.])
    """
    args = _gaussian_args(X, lengths, n_components, covariance_type, random_state, floor)
    try:
        return _estimate(*args)
    except _DEGENERATE as exc:
        _warn_degenerate(exc, "the k-means++ start")
        return None


def _gaussian_args(X, lengths, n_components, covariance_type, random_state, floor):
    """Validated ``(X, offsets, K, rng, build)`` of :func:`spectral_init_gaussian_hmm`."""
    check_covariance_type(covariance_type)
    X, offsets, K, rng, floor = _prepare(GaussianEmission(), X, lengths, n_components,
                                         random_state, floor)
    if covariance_type in ("full", "tied"):
        return X, offsets, K, rng, _full_build(X, offsets, covariance_type, floor)

    def build(mean_z, sq_z, w, A, loc, scale):
        means = loc + scale * mean_z
        var = scale ** 2 * np.maximum(sq_z - mean_z ** 2, variance_floor(floor, offsets))
        first = X[offsets[:-1]]
        ll = -0.5 * (((first[:, None, :] - means[None]) ** 2 / var[None]).sum(-1)
                     + np.log(2 * np.pi * var).sum(-1)[None])
        covars = var if covariance_type == "diag" else var.mean(axis=1)
        return {"startprob": _start_em(ll, _floor_rows(w, floor), floor),
                "transmat": _floor_rows(A, floor), "means": means, "covars": covars}

    return X, offsets, K, rng, build


def _full_build(X, offsets, covariance_type, floor):
    """The ``build`` of the 'full' and 'tied' starts: per-state covariances
    ``E[z z^T | h] - E[z | h] E[z | h]^T`` of the standardised data (the feature map with
    the cross products ``z_i z_j``), eigenvalues floored at :func:`variance_floor`, scaled
    back; 'tied' their average under the law ``w`` of the states."""

    def build(mean_z, sq_z, w, A, loc, scale):
        means = loc + scale * mean_z
        S = sq_z - mean_z[:, :, None] * mean_z[:, None, :]
        vals, vecs = np.linalg.eigh(0.5 * (S + S.transpose(0, 2, 1)))
        vals = np.maximum(vals, variance_floor(floor, offsets))
        S = (vecs * vals[:, None, :]) @ vecs.transpose(0, 2, 1)
        cov = scale[None, :, None] * S * scale[None, None, :]
        if covariance_type == "tied":
            cov = np.einsum("k,kij->ij", w / w.sum(), cov)
        full = cov if cov.ndim == 3 else np.broadcast_to(cov, (w.size,) + cov.shape)
        chol = np.linalg.cholesky(full)
        diff = X[offsets[:-1]][:, None, :] - means[None]  # (n_sequences, K, D)
        sol = np.linalg.solve(chol[None], diff[..., None])[..., 0]
        ll = -0.5 * ((sol ** 2).sum(-1) + means.shape[1] * np.log(2 * np.pi)) \
            - np.log(np.diagonal(chol, axis1=1, axis2=2)).sum(-1)[None]
        return {"startprob": _start_em(ll, _floor_rows(w, floor), floor),
                "transmat": _floor_rows(A, floor), "means": means, "covars": cov}

    build.cross = True
    return build


#: Windows of three observations up to which the variance floor is ``floor`` itself.
_FLOOR_WINDOWS = 1e4


def variance_floor(floor, offsets):
    """Floor of the standardised per-state variances of the Gaussian start:
    ``floor * min(1, sqrt(1e4 / n_windows))`` with ``n_windows`` the windows of three
    observations inside the sequences (``offsets``).

    A fixed floor biases every state narrower than it, however long the series (issue 42: a
    state with 0.3 % of its feature's variance kept the floor's 1 % at any n, variance 0.031
    for 0.01 at 3e5 windows, its standard deviation 76 % too wide); this one shrinks with the moments' sampling error, so a state
    variance the moments resolve is never floored and the start's variances converge at the
    ``n^-1/2`` rate of the moments (``benchmarks/bench_spectral_hmm.py``)."""
    n_windows = float(np.maximum(np.diff(offsets) - 2, 0).sum())
    return floor * min(1.0, float(np.sqrt(_FLOOR_WINDOWS / max(n_windows, 1.0))))


def spectral_init_poisson_hmm(X, lengths=None, n_components=2, random_state=None,
                              floor=1e-2):
    """Starting parameters of a Poisson HMM from three-view moments of the counts (see the
    module docstring).

    Parameters
    ----------
    X : array-like of int of shape (n_samples, n_features)
        Non-negative counts, sequences stacked.
    lengths : array-like of int of shape (n_sequences,), optional
    n_components : int, default 2
    random_state : numpy.random.Generator, int or None
    floor : float, default 1e-2
        ``transmat`` / ``startprob`` entries at least ``floor / K``; rates at least ``floor``
        times the feature's mean count.

    Returns
    -------
    dict or None
        ``'startprob'``, ``'transmat'``, ``'lambdas'`` (K, D); None with a
        :class:`SpectralInitWarning` when the moments are degenerate (as
        :func:`spectral_init_gaussian_hmm`).

    Raises
    ------
    ValueError
        Negative, fractional or non-finite counts (naming the row), lengths that do not add
        up, ``n_components`` < 1, ``floor`` outside [0, 1).

    Notes
    -----
    Source: Anandkumar, Hsu & Kakade (2012); Anandkumar et al. (2014), section 3.3.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.sequence import spectral_init_poisson_hmm
    >>> rng = np.random.default_rng(0)
    >>> z = np.repeat(rng.integers(0, 2, 100), 10)
    >>> X = np.c_[rng.poisson(np.where(z, 10.0, 1.0)), rng.poisson(np.where(z, 1.0, 10.0))]
    >>> params = spectral_init_poisson_hmm(X, n_components=2, random_state=0)
    >>> np.round(np.sort(params["lambdas"][:, 0]), 0)  # rates near 1 and 10
    array([ 1., 10.])
    """
    args = _poisson_args(X, lengths, n_components, random_state, floor)
    try:
        return _estimate(*args)
    except _DEGENERATE as exc:
        _warn_degenerate(exc, "the k-means++ start")
        return None


def _poisson_args(X, lengths, n_components, random_state, floor):
    """Validated ``(X, offsets, K, rng, build)`` of :func:`spectral_init_poisson_hmm`."""
    X, offsets, K, rng, floor = _prepare(PoissonEmission(), X, lengths, n_components,
                                         random_state, floor)

    def build(mean_z, sq_z, w, A, loc, scale):
        lam = np.maximum(loc + scale * mean_z, floor * np.maximum(loc, 1e-3))
        first = X[offsets[:-1]]
        ll = (first[:, None, :] * np.log(lam)[None] - lam[None]
              - gammaln(first + 1.0)[:, None, :]).sum(-1)
        return {"startprob": _start_em(ll, _floor_rows(w, floor), floor),
                "transmat": _floor_rows(A, floor), "lambdas": lam}

    return X, offsets, K, rng, build


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
        raise InputError(f"X must have shape (n_samples,) or (n_samples, 1) of integer symbols, "
                         f"got shape {np.shape(X)}.")
    if arr.size == 0:
        raise InputError("X has 0 samples; at least one time step is required.")
    if arr.dtype.kind == "f":
        if not np.all(np.isfinite(arr)):
            raise InputError("Input X contains NaN or infinity; symbols must be finite integers.")
        if np.any(arr != np.round(arr)):
            raise InputError("X must contain integer symbols, found non-integer values.")
    elif arr.dtype.kind not in "iub":
        raise InputTypeError(f"X must contain integer symbols, got dtype {arr.dtype}.")
    sym = arr.astype(np.int64)
    if sym.min() < 0:
        raise InputError(f"X contains the negative symbol {sym.min()}; symbols must be integers "
                         "in 0..n_features-1.")
    if n_features is None:
        n_features = int(sym.max()) + 1
    else:
        n_features = int(check_scalar(n_features, "n_features", numbers.Integral, low=1))
        if sym.max() >= n_features:
            raise InputError(f"X contains the symbol {sym.max()}, outside 0..{n_features - 1} "
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

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.testing import mixing_hmm, sample_categorical_hmm
    >>> from latentkit.sequence import spectral_init_hmm
    >>> startprob, transmat, emissionprob = mixing_hmm(1.0, n_features=4, random_state=0)
    >>> X = sample_categorical_hmm(startprob, transmat, emissionprob, 50, 40, random_state=0)
    >>> params = spectral_init_hmm(X.reshape(-1, 1), [40] * 50, n_components=3, random_state=0)
    >>> sorted(params), params["emissionprob"].shape
    (['emissionprob', 'startprob', 'transmat'], (3, 4))
    """
    sym, M = _check_symbols(X, n_features)
    offsets = check_lengths(lengths, sym.shape[0])
    K = int(check_scalar(n_components, "n_components", numbers.Integral, low=1))
    floor = float(check_scalar(floor, "floor", numbers.Real, low=0.0, high=1.0,
                               high_inclusive=False))
    rng = check_random_state(random_state)
    try:
        return _categorical_estimate(sym, offsets, K, M, rng, floor)
    except _DEGENERATE as exc:
        _warn_degenerate(exc, "a random start")
        return _random_hmm_start(sym, K, M, rng)


def _categorical_estimate(sym, offsets, K, M, rng, floor):
    """The estimate of :func:`spectral_init_hmm` from validated symbols; raises ValueError
    (or LinAlgError) when the moments are degenerate."""
    seq_len = np.diff(offsets)
    n_windows = int(np.maximum(seq_len - 2, 0).sum())
    if K > M:
        raise InputError(f"n_components={K} exceeds the number of symbols {M}")
    if M ** 3 > _HMM_MAX_CELLS:
        raise InputError(f"{M} symbols: the dense third moment would have {M}^3 cells "
                         f"(more than 2^24)")
    if n_windows < 10 * K * M:
        raise InputError(f"too few triples: {n_windows} windows of 3 consecutive "
                         f"observations, fewer than 10 n_components n_features = "
                         f"{10 * K * M}")
    # transitions="pinv": the start of issue 42 item 1 (from the refined estimate the lambda
    # phage K=2 fit counted 1294 iterations with its default run of 700, against 718, for the
    # same final bound)
    est = SpectralHMM(K, n_features=M, random_state=rng, transitions="pinv").fit(sym, seq_len)
    if not all(np.all(np.isfinite(a)) for a in (est.startprob_, est.transmat_,
                                                est.emissionprob_)):
        raise InputError("non-finite spectral estimate")
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


def _spectral_ok(emission):
    """Whether ``init='spectral'`` has a moment estimator for this emission component."""
    if type(emission) in (em.CategoricalEmission, em.PoissonEmission):
        return True
    return type(emission) is em.GaussianEmission


def check_spectral_emission(emission):
    """Raise ValueError naming the emission when ``init='spectral'`` has no moment estimator
    for it (see :func:`_spectral_ok`)."""
    if not _spectral_ok(emission):
        raise InputError(
            f"init='spectral' needs categorical, Poisson or Gaussian emissions (three-view "
            f"moments of consecutive observations), got {type(emission).__name__}"
            + (f"(covariance_type={emission.covariance_type!r})"
               if hasattr(emission, "covariance_type") else "")
            + "; use init='random' or 'kmeans++'.")


def perturb_start(point, rng, scale, covariance_type=None):
    """A seeded perturbation of HMM starting values, so that restarts from one spectral
    estimate explore (issue 42): probabilities (``startprob``, ``transmat``, ``emissionprob``
    rows) and positive parameters (``lambdas``, ``covars``) are multiplied by
    ``exp(scale z)``, ``z`` standard normal, rows renormalised; ``means`` move by ``scale z``
    standard deviations of their state (from ``covars``, else 1); 'full' and 'tied'
    covariance matrices become ``S C S`` with ``S = diag(exp(scale z / 2))`` (symmetric
    positive definite, each variance times ``exp(scale z)`` as for 'diag'). A new dict;
    ``scale=0`` returns the values unchanged (and draws nothing).

    Parameters
    ----------
    point : dict of str to ndarray
        Starting values: any of ``'startprob'`` (K,), ``'transmat'`` (K, K),
        ``'emissionprob'`` (K, M), ``'lambdas'`` (K, D), ``'means'`` (K, D), ``'covars'``
        (K, D) or (K,).
    rng : numpy.random.Generator
    scale : float
        Standard deviation of the log-scale perturbation (>= 0).
    covariance_type : {'full', 'tied'} or None
        The layout of ``covars`` when it holds matrices, (K, D, D) or (D, D); None: (K, D)
        diag or (K,) spherical variances.

    Returns
    -------
    dict
        The perturbed values, same keys and shapes.
    """
    if scale <= 0:
        return dict(point)
    out = {}
    var = point.get("covars")
    matrices = covariance_type in ("full", "tied")
    if var is not None and matrices:
        var = np.diagonal(np.asarray(var, dtype=np.float64), axis1=-2, axis2=-1)
    for name in sorted(point):
        value = np.asarray(point[name], dtype=np.float64)
        if name == "covars" and matrices:
            s = np.exp(0.5 * scale * rng.standard_normal(value.shape[:-1]))
            out[name] = s[..., :, None] * value * s[..., None, :]
            continue
        z = rng.standard_normal(value.shape)
        if name in ("startprob", "transmat", "emissionprob"):
            v = value * np.exp(scale * z)
            out[name] = v / v.sum(axis=-1, keepdims=True)
        elif name == "means":
            sd = 1.0 if var is None else np.sqrt(np.asarray(var, dtype=np.float64))
            sd = sd[:, None] if np.ndim(sd) == 1 and not matrices else sd
            out[name] = value + scale * sd * z
        else:  # lambdas, covars: positive
            out[name] = value * np.exp(scale * z)
    return out


def _spectral_start(emission, data, K, rng, perturbation=0.0):
    """Spectral starting parameters of an HMM's emission (a supported one, see
    :func:`_spectral_ok`) from its validated data: the estimates of :func:`spectral_init_hmm`
    (categorical), :func:`spectral_init_poisson_hmm` and :func:`spectral_init_gaussian_hmm`
    (Anandkumar, Hsu & Kakade 2012), with the default floor 1e-2, perturbed by
    :func:`perturb_start` at the scale ``perturbation`` (0: the estimate itself).

    Raises
    ------
    Degenerate
        When the moments are degenerate (the caller warns and falls back)."""
    return perturb_start(_estimate_start(emission, data, K, rng), rng, perturbation,
                         getattr(emission, "covariance_type", None))


def _estimate_start(emission, data, K, rng):
    """The unperturbed estimate of :func:`_spectral_start`."""
    lengths = np.diff(data.offsets)
    try:
        if isinstance(emission, em.CategoricalEmission):
            return _categorical_estimate(data.X, data.offsets, K, emission.n_features_, rng,
                                         1e-2)
        if isinstance(emission, em.PoissonEmission):
            return _estimate(*_poisson_args(data.X, lengths, K, rng, 1e-2))
        X = data.X
        if getattr(emission, "missing", "error") == "marginalize":  # a GaussianEmission
            X = mean_fill(X)  # the moments of the mean-filled data, as the mixtures' start
        return _estimate(*_gaussian_args(X, lengths, K, emission.covariance_type, rng, 1e-2))
    except Degenerate:
        raise
    except _DEGENERATE as exc:
        raise Degenerate(str(exc)) from exc
