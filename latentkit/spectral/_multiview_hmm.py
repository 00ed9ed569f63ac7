"""Spectral starts of Gaussian (spherical, diagonal) and Poisson HMMs from three-view moments.

The observations of three consecutive time steps ``(x_t, x_{t+1}, x_{t+2})`` are independent
given the middle state ``h_{t+1}`` (Anandkumar, Hsu & Kakade 2012), whatever the emission
law. For any feature map ``phi`` the cross moments of *different* views are therefore low rank
with no noise correction,

    P_ab = E[phi(x_a) phi(x_b)^T] = M_a diag(w) M_b^T,     M_a[:, j] = E[phi(x_a) | h_2 = j],

and symmetrising the outer views towards the middle one (``x~1 = P_23 P_13^+ phi(x_1)``,
``x~3 = P_21 P_31^+ phi(x_3)``) gives

    M2 = E[x~1 x~3^T] = sum_j w_j mu_j mu_j^T,
    M3 = E[x~1 (x) x~3 (x) phi(x_2)] = sum_j w_j mu_j^(x)3

with ``mu_j = E[phi(x) | h = j]`` the conditional mean of the emission (Anandkumar et al. 2014,
section 3.3, Theorem 3.6). It is the categorical estimator of
:class:`~latentkit.spectral.SpectralHMM` with the one-hot encoding replaced by ``phi``. Here
``phi(x) = (1, z, z^2, ..., z^p)`` of the standardised observation ``z`` (elementwise powers),
``p = max(2, ceil((K - 1) / D))`` so that ``K <= 1 + p D`` (a univariate series such as the
earthquake counts still identifies several states) and the first two powers give each state's
mean and variance: ``E[x | h = j]`` and ``Var[x | h = j] = E[x^2 | h = j] - E[x | h = j]^2``
per feature. The transition matrix follows from ``P_23 = M diag(w) A M^T``:
``A = diag(w)^-1 M^+ P_23 M^+T`` (SPECTRAL_NOTES.md section 1.5, with ``phi`` for the one-hot
map).
"""

import math
import warnings

import numpy as np
from scipy.special import gammaln, logsumexp
from ._power import robust_tensor_power
from ._tensors import SymmetricTensor
from ._whitening import whiten
from .._utils.validation import check_random_state, check_scalar
from .._utils.validation import check_lengths
from ..sequence import GaussianEmission, PoissonEmission
from ._recipes import SpectralInitWarning
from ..distributions import check_covariance_type

__all__ = ["spectral_init_gaussian_hmm", "spectral_init_poisson_hmm", "three_view_moments"]

#: Windows per feature-state pair below which the moments are called degenerate.
_MIN_WINDOWS_PER_CELL = 10
#: sigma_K / sigma_1 of the pair moment below which it is called rank deficient.
_RCOND = 1e-8


class _Degenerate(ValueError):
    pass


def three_view_moments(Phi, offsets):
    """Windows of three consecutive feature rows inside each sequence.

    Parameters
    ----------
    Phi : ndarray of shape (n_samples, F)
        Features of the stacked observations.
    offsets : ndarray of shape (n_sequences + 1,) of int
        Sequence boundaries (see :func:`latentkit.sequence.check_lengths`).

    Returns
    -------
    A, B, C : ndarray of shape (n_windows, F)
        ``phi(x_t)``, ``phi(x_{t+1})``, ``phi(x_{t+2})`` of every window that stays in one
        sequence.
    """
    idx = np.concatenate([np.arange(a, b - 2) for a, b in zip(offsets[:-1], offsets[1:])
                          if b - a >= 3] or [np.zeros(0, dtype=np.int64)]).astype(np.int64)
    return Phi[idx], Phi[idx + 1], Phi[idx + 2]


def _pinv_k(P, k):
    """Rank-k pseudo-inverse; raises _Degenerate when sigma_k / sigma_1 < _RCOND."""
    U, s, Vt = np.linalg.svd(P)
    if s[0] <= 0 or s[k - 1] < _RCOND * s[0]:
        raise _Degenerate(f"a pair moment has rank below n_components={k} "
                          f"(sigma_k / sigma_1 = {s[k - 1] / max(s[0], 1e-300):.2e})")
    return (Vt[:k].T / s[:k]) @ U[:, :k].T


def _decompose_views(Xa, Xb, Xc, k, rng):
    """``sum_j w_j m_j^(x)3`` of the symmetrised views: ``Xa``, ``Xb`` are brought to the
    conditional means of ``Xc`` (the target view) through the pair moments,
    ``x~a = P_cb P_ab^+ x_a`` and ``x~b = P_ca P_ba^+ x_b``; returns the conditional means
    ``m_j`` of ``phi(x_c)`` as columns (F, k), normalised by the constant feature, and the
    weights ``w`` (the law of the state the three views share)."""
    n = Xa.shape[0]
    Pab, Pcb, Pca = Xa.T @ Xb / n, Xc.T @ Xb / n, Xc.T @ Xa / n
    Sa = Pcb @ _pinv_k(Pab, k)
    Sb = Pca @ _pinv_k(Pab.T, k)
    M2 = Sa @ Pab @ Sb.T
    wh = whiten(0.5 * (M2 + M2.T), k, method="eigh")
    Ya, Yb, Yc = Xa @ Sa.T @ wh.W, Xb @ Sb.T @ wh.W, Xc @ wh.W
    T = np.einsum("ti,tj,tk->ijk", Ya, Yb, Yc, optimize=True) / n
    T = sum(T.transpose(q) for q in [(0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1),
                                     (2, 1, 0)]) / 6.0
    res = robust_tensor_power(SymmetricTensor(T, check_symmetric=False), k,
                              random_state=rng, tol=1e-8, check_symmetric=False)
    lam = res.eigenvalues
    if not np.all(np.isfinite(lam)) or np.any(lam <= 0):
        raise _Degenerate("non-positive tensor eigenvalue")
    Mu = wh.B @ (res.eigenvectors * lam[None, :])  # (F, k): columns lambda_j B v_j
    c = Mu[0]  # E[1 | h = j] = 1 up to sampling noise
    if not np.all(np.isfinite(Mu)) or np.any(c < 0.1) or np.any(c > 10.0):
        raise _Degenerate("the constant feature is not recovered (ill-conditioned moments)")
    w = c ** 2 / lam ** 2
    return Mu / c, w / w.sum()


def _multiview_estimate(X, offsets, K, rng, target_view=2):
    """Conditional means of phi, state weights and transition matrix (see the module
    docstring). Returns (mean_z, sq_z, w, A, loc, scale) with mean_z, sq_z of shape (K, D).

    ``target_view`` 2 symmetrises towards the middle view (inverts ``P_13``, whose k-th
    singular value carries the square of the chain's second eigenvalue); 3 towards the last
    view (inverts only the adjacent pair ``P_12``; the emission means then follow from
    ``P_23 = O diag(w) M_3^T`` and the transitions from ``M_3 = O A^T``: the adjacent-pair
    idea of :class:`~latentkit.spectral.SpectralHMM`'s ``target_view``). Measured on planted
    3-state Gaussian chains (D = 2, T = 20000, self-transition 0.9 / 0.6 / 0.45), the middle
    view's emission means were as accurate or better (max L1 error 0.03 / 0.06 / 1.0 against
    0.03 / 0.11 / 1.9), so 2 is the default; for these continuous views the outer views'
    conditional means blur with fast mixing as much as ``P_13`` does."""
    n, D = X.shape
    loc = X.mean(axis=0)
    scale = X.std(axis=0)
    if np.any(scale <= 1e-12 * np.maximum(1.0, np.abs(loc))):
        raise _Degenerate("a feature is constant")
    p = max(2, math.ceil((K - 1) / D))
    Z = (X - loc) / scale
    Phi = np.concatenate([np.ones((n, 1))] + [Z ** q for q in range(1, p + 1)], axis=1)
    F = Phi.shape[1]
    A1, A2, A3 = three_view_moments(Phi, offsets)
    nw = A1.shape[0]
    if nw < _MIN_WINDOWS_PER_CELL * K * F:
        raise _Degenerate(f"too few triples: {nw} windows of 3 consecutive observations, "
                          f"fewer than {_MIN_WINDOWS_PER_CELL} n_components n_moments = "
                          f"{_MIN_WINDOWS_PER_CELL * K * F}")
    P23 = A2.T @ A3 / nw
    if target_view == 2:
        Mu, w = _decompose_views(A1, A3, A2, K, rng)  # emission means: the middle view's
        Mp = np.linalg.pinv(Mu)
        A = (Mp @ P23 @ Mp.T) / w[:, None]  # P_23 = O diag(w) A O^T
    else:
        M3, w = _decompose_views(A1, A2, A3, K, rng)  # E[phi(x_3) | h_2 = j]
        Mu = P23 @ np.linalg.pinv(M3.T) / w[None, :]  # P_23 = O diag(w) M_3^T
        c = Mu[0]
        if not np.all(np.isfinite(Mu)) or np.any(c < 0.1) or np.any(c > 10.0):
            raise _Degenerate("the constant feature is not recovered (ill-conditioned "
                              "moments)")
        Mu = Mu / c
        A = (np.linalg.pinv(Mu) @ M3).T  # M_3 = O A^T
    if not np.all(np.isfinite(A)):
        raise _Degenerate("non-finite transition estimate")
    mean_z = Mu[1:1 + D].T
    sq_z = Mu[1 + D:1 + 2 * D].T
    return mean_z, sq_z, w, A, loc, scale


def _prepare(emission, X, lengths, n_components, random_state, floor):
    """Validated (X as float64, offsets, K, rng, floor), with the HMM emission's messages."""
    import numbers

    K = int(check_scalar(n_components, "n_components", numbers.Integral, low=1))
    floor = float(check_scalar(floor, "floor", numbers.Real, low=0.0, high=1.0,
                               high_inclusive=False))
    n = np.shape(X)[0] if np.ndim(X) else 0
    offsets = check_lengths(lengths, n)
    Xv = np.asarray(emission.check_X(X, offsets, True), dtype=np.float64)
    return Xv, offsets, K, check_random_state(random_state), floor


def _floor_rows(P, floor):
    P = np.maximum(np.asarray(P, dtype=np.float64), floor / P.shape[-1])
    return P / P.sum(axis=-1, keepdims=True)


def _start_em(loglik_first, w, floor, n_iter=100):
    """Law of the first state: maximum-likelihood mixture weights of the sequences' first
    observations with the emissions fixed (EM from ``w``)."""
    start = w
    for _ in range(n_iter):
        with np.errstate(divide="ignore"):  # a state may lose all start weight
            lp = np.log(start)[None, :] + loglik_first
        start = np.exp(lp - logsumexp(lp, axis=1, keepdims=True)).mean(axis=0)
    return _floor_rows(start, floor)


def _run(X, offsets, K, rng, floor, build, what):
    try:
        out = build(*_multiview_estimate(X, offsets, K, rng))
        if not all(np.all(np.isfinite(v)) for v in out.values()):
            raise _Degenerate("non-finite spectral estimate")
        return out
    except (_Degenerate, ValueError, np.linalg.LinAlgError) as exc:
        warnings.warn(f"init='spectral': the moments are degenerate ({exc}); falling back to "
                      f"the {what} start.", SpectralInitWarning, stacklevel=3)
        return None


def spectral_init_gaussian_hmm(X, lengths=None, n_components=2, covariance_type="diag",
                               random_state=None, floor=1e-2):
    """Starting parameters of a Gaussian HMM (spherical or diagonal covariances) from
    three-view moments (see the module docstring).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Finite observations, sequences stacked (hmmlearn's layout).
    lengths : array-like of int of shape (n_sequences,), optional
        Sequence lengths (sum ``n_samples``); default one sequence.
    n_components : int, default 2
        Number of states K (>= 1).
    covariance_type : {'diag', 'spherical'}, default 'diag'
    random_state : numpy.random.Generator, int or None
        Restarts of the tensor power method.
    floor : float, default 1e-2
        ``transmat`` and ``startprob`` entries at least ``floor / K`` (rows renormalised);
        variances at least ``floor`` times the data variance of the feature.

    Returns
    -------
    dict or None
        ``'startprob'`` (K,), ``'transmat'`` (K, K), ``'means'`` (K, D), ``'covars'`` (K, D)
        diag or (K,) spherical. None, with a :class:`SpectralInitWarning`, when the moments
        are degenerate (fewer than ``10 K F`` windows of three observations with ``F`` the
        number of moment features, a constant feature, rank-deficient pair moments,
        ill-conditioned or non-finite output); the caller then uses its k-means++ start.

    Raises
    ------
    ValueError
        NaN or infinity in X (naming the row), lengths that do not add up, ``n_components``
        < 1, ``floor`` outside [0, 1), a covariance_type other than 'diag' or 'spherical'.

    Notes
    -----
    Source: Anandkumar, Hsu & Kakade (2012), COLT; Anandkumar, Ge, Hsu, Kakade & Telgarsky
    (2014), JMLR 15, section 3.3 and Theorem 3.6 (multi-view moments of an HMM).
    """
    check_covariance_type(covariance_type)
    if covariance_type not in ("diag", "spherical"):
        raise ValueError("spectral_init_gaussian_hmm needs covariance_type 'diag' or "
                         f"'spherical', got {covariance_type!r}.")
    X, offsets, K, rng, floor = _prepare(GaussianEmission(), X, lengths, n_components,
                                         random_state, floor)

    def build(mean_z, sq_z, w, A, loc, scale):
        means = loc + scale * mean_z
        var = scale ** 2 * np.maximum(sq_z - mean_z ** 2, floor)
        first = X[offsets[:-1]]
        ll = -0.5 * (((first[:, None, :] - means[None]) ** 2 / var[None]).sum(-1)
                     + np.log(2 * np.pi * var).sum(-1)[None])
        covars = var if covariance_type == "diag" else var.mean(axis=1)
        return {"startprob": _start_em(ll, _floor_rows(w, floor), floor),
                "transmat": _floor_rows(A, floor), "means": means, "covars": covars}

    return _run(X, offsets, K, rng, floor, build, "k-means++")


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
    """
    X, offsets, K, rng, floor = _prepare(PoissonEmission(), X, lengths, n_components,
                                         random_state, floor)

    def build(mean_z, sq_z, w, A, loc, scale):
        lam = np.maximum(loc + scale * mean_z, floor * np.maximum(loc, 1e-3))
        first = X[offsets[:-1]]
        ll = (first[:, None, :] * np.log(lam)[None] - lam[None]
              - gammaln(first + 1.0)[:, None, :]).sum(-1)
        return {"startprob": _start_em(ll, _floor_rows(w, floor), floor),
                "transmat": _floor_rows(A, floor), "lambdas": lam}

    return _run(X, offsets, K, rng, floor, build, "k-means++")
