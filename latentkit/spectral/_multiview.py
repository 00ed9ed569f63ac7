"""Three-view moments of an HMM with any emission law, by a feature map (the algebra of the
spectral starts of the Gaussian and Poisson HMMs, :mod:`latentkit.sequence._spectral_start`).

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
per feature. The transition matrix follows from both adjacent pairs, ``P_12 = M diag(pi) A
M^T`` and ``P_23 = M diag(w) A M^T``: the joint laws of consecutive states ``M^+ P_12 M^+T``
and ``M^+ P_23 M^+T``, clipped at 0, pooled and normalised by rows
(:func:`~latentkit.spectral._moments.transitions_from_pairs`, the estimator of
:class:`~latentkit.spectral.SpectralHMM`; SPECTRAL_NOTES.md section 1.5 uses ``P_23`` alone).
"""

import math

import numpy as np

from ._moments import three_view_moments, transitions_from_pairs
from ._power import robust_tensor_power
from ._tensors import SymmetricTensor
from ._whitening import whiten

__all__ = ["Degenerate", "cross_products", "multiview_estimate", "n_powers", "views_estimate"]

#: Windows per feature-state pair below which the moments are called degenerate.
_MIN_WINDOWS_PER_CELL = 10
#: sigma_K / sigma_1 of the pair moment below which it is called rank deficient.
_RCOND = 1e-8


class Degenerate(ValueError):
    """Moments too degenerate for a spectral estimate (the caller falls back)."""


def _pinv_k(P, k):
    """Rank-k pseudo-inverse; raises Degenerate when sigma_k / sigma_1 < _RCOND."""
    U, s, Vt = np.linalg.svd(P)
    if s[0] <= 0 or s[k - 1] < _RCOND * s[0]:
        raise Degenerate(f"a pair moment has rank below n_components={k} "
                         f"(sigma_k / sigma_1 = {s[k - 1] / max(s[0], 1e-300):.2e})")
    return (Vt[:k].T / s[:k]) @ U[:, :k].T


def _weighted(X, weights):
    """``X`` and the divisor of its window means: ``(X, n)`` for equally weighted windows,
    ``(weights[:, None] X, 1)`` for windows with probabilities ``weights`` (population
    moments as a weighted set of windows)."""
    if weights is None:
        return X, X.shape[0]
    return X * weights[:, None], 1.0


def _decompose_views(Xa, Xb, Xc, k, rng, weights=None):
    """``sum_j w_j m_j^(x)3`` of the symmetrised views: ``Xa``, ``Xb`` are brought to the
    conditional means of ``Xc`` (the target view) through the pair moments,
    ``x~a = P_cb P_ab^+ x_a`` and ``x~b = P_ca P_ba^+ x_b``; returns the conditional means
    ``m_j`` of ``phi(x_c)`` as columns (F, k), normalised by the constant feature, and the
    weights ``w`` (the law of the state the three views share). ``weights``: probabilities
    of the windows (None: equal)."""
    Xw, n = _weighted(Xa, weights)
    Xcw = Xc if weights is None else Xc * weights[:, None]
    Pab, Pcb, Pca = Xw.T @ Xb / n, Xcw.T @ Xb / n, Xcw.T @ Xa / n
    Sa = Pcb @ _pinv_k(Pab, k)
    Sb = Pca @ _pinv_k(Pab.T, k)
    M2 = Sa @ Pab @ Sb.T
    wh = whiten(0.5 * (M2 + M2.T), k, method="eigh")
    Ya, Yb, Yc = Xw @ Sa.T @ wh.W, Xb @ Sb.T @ wh.W, Xc @ wh.W
    T = np.einsum("ti,tj,tk->ijk", Ya, Yb, Yc, optimize=True) / n
    T = sum(T.transpose(q) for q in [(0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1),
                                     (2, 1, 0)]) / 6.0
    res = robust_tensor_power(SymmetricTensor(T, check_symmetric=False), k,
                              random_state=rng, tol=1e-8, check_symmetric=False)
    lam = res.eigenvalues
    if not np.all(np.isfinite(lam)) or np.any(lam <= 0):
        raise Degenerate("non-positive tensor eigenvalue")
    Mu = wh.B @ (res.eigenvectors * lam[None, :])  # (F, k): columns lambda_j B v_j
    c = Mu[0]  # E[1 | h = j] = 1 up to sampling noise
    if not np.all(np.isfinite(Mu)) or np.any(c < 0.1) or np.any(c > 10.0):
        raise Degenerate("the constant feature is not recovered (ill-conditioned moments)")
    w = c ** 2 / lam ** 2
    return Mu / c, w / w.sum()


def multiview_estimate(X, offsets, K, rng, target_view=2, cross=False):
    """Conditional means of phi, state weights and transition matrix (see the module
    docstring). Returns (mean_z, sq_z, w, A, loc, scale) with mean_z, sq_z of shape (K, D);
    ``cross=True`` appends the products ``z_i z_j`` (i < j) to the feature map
    (:func:`cross_products`) and returns the second moments ``E[z z^T | h]`` as sq_z of
    shape (K, D, D) (the full and tied covariances of the start).

    ``target_view`` 2 symmetrises towards the middle view (inverts ``P_13``, whose k-th
    singular value carries the square of the chain's second eigenvalue); 3 towards the last
    view (inverts only the adjacent pair ``P_12``; the emission means then follow from
    ``P_23 = O diag(w) M_3^T``, the transitions from both adjacent pairs: the adjacent-pair
    idea of :class:`~latentkit.spectral.SpectralHMM`'s ``target_view``). Measured on planted
    3-state Gaussian chains (D = 2, T = 20000, self-transition 0.9 / 0.6 / 0.45), the middle
    view's emission means were as accurate or better (max L1 error 0.03 / 0.06 / 1.0 against
    0.03 / 0.11 / 1.9), so 2 is the default; for these continuous views the outer views'
    conditional means blur with fast mixing as much as ``P_13`` does."""
    n, D = X.shape
    loc = X.mean(axis=0)
    scale = X.std(axis=0)
    if np.any(scale <= 1e-12 * np.maximum(1.0, np.abs(loc))):
        raise Degenerate("a feature is constant")
    p = n_powers(K, D)
    Z = (X - loc) / scale
    Phi = np.concatenate([np.ones((n, 1))] + [Z ** q for q in range(1, p + 1)]
                         + ([cross_products(Z)] if cross else []), axis=1)
    views = three_view_moments(Phi, offsets)
    return views_estimate(*views, K, D, rng, target_view, cross=cross) + (loc, scale)


def cross_products(Z):
    """The products ``z_i z_j`` (i < j, in ``np.triu_indices(D, 1)`` order) of the rows of
    ``Z`` (n, D): shape (n, D (D - 1) / 2), the features appended to the map for full
    second moments."""
    i, j = np.triu_indices(Z.shape[1], 1)
    return Z[:, i] * Z[:, j]


def n_powers(K, D):
    """Powers of the standardised observation in the feature map: ``max(2, ceil((K - 1) /
    D))``, so that ``K <= 1 + p D`` and the first two give each state's mean and variance."""
    return max(2, math.ceil((K - 1) / D))


def views_estimate(A1, A2, A3, K, D, rng, target_view=2, weights=None, cross=False):
    """The estimate of :func:`multiview_estimate` from the feature rows of the windows.

    Parameters
    ----------
    A1, A2, A3 : ndarray of shape (n_windows, F)
        ``phi(x_t)``, ``phi(x_{t+1})``, ``phi(x_{t+2})`` with ``phi = (1, z, z^2, ...,
        z^p)`` (``F = 1 + p D``), followed with ``cross=True`` by the ``D (D - 1) / 2``
        products ``z_i z_j``, i < j (:func:`cross_products`).
    K, D : int
        States and observed features.
    rng : numpy.random.Generator
        Restarts of the tensor power method.
    target_view : {2, 3}
    weights : ndarray of shape (n_windows,), optional
        Probabilities of the windows (population moments as the weighted set of every state
        path, rows the conditional means of the features); None: equal weights.
    cross : bool, default False
        Whether the rows end with the cross products (full second moments).

    Returns
    -------
    mean_z : ndarray of shape (K, D)
        ``E[z | h]``.
    sq_z : ndarray of shape (K, D), or (K, D, D) with ``cross=True``
        ``E[z^2 | h]`` per feature, or the matrices ``E[z z^T | h]``.
    w : ndarray of shape (K,)
        The law of the middle state.
    A : ndarray of shape (K, K)
        The transition matrix (rows sum to 1).
    """
    F = A1.shape[1]
    nw = A1.shape[0]
    if weights is None and nw < _MIN_WINDOWS_PER_CELL * K * F:
        raise Degenerate(f"too few triples: {nw} windows of 3 consecutive observations, "
                         f"fewer than {_MIN_WINDOWS_PER_CELL} n_components n_moments = "
                         f"{_MIN_WINDOWS_PER_CELL * K * F}")
    A1w, m = _weighted(A1, weights)
    A2w, _ = _weighted(A2, weights)
    P12, P23 = A1w.T @ A2 / m, A2w.T @ A3 / m
    if target_view == 2:
        Mu, w = _decompose_views(A1, A3, A2, K, rng, weights)  # the middle view's means
    else:
        M3, w = _decompose_views(A1, A2, A3, K, rng, weights)  # E[phi(x_3) | h_2 = j]
        Mu = P23 @ np.linalg.pinv(M3.T) / w[None, :]  # P_23 = O diag(w) M_3^T
        c = Mu[0]
        if not np.all(np.isfinite(Mu)) or np.any(c < 0.1) or np.any(c > 10.0):
            raise Degenerate("the constant feature is not recovered (ill-conditioned "
                             "moments)")
        Mu = Mu / c
    # P_12 = O diag(pi) A O^T, P_23 = O diag(w) A O^T: both adjacent pairs, as SpectralHMM
    A = transitions_from_pairs(np.linalg.pinv(Mu), P12, P23)[2]
    if not np.all(np.isfinite(A)):
        raise Degenerate("non-finite transition estimate")
    mean_z = Mu[1:1 + D].T
    sq_z = Mu[1 + D:1 + 2 * D].T
    if cross:
        i, j = np.triu_indices(D, 1)
        full = np.zeros((K, D, D))
        full[:, np.arange(D), np.arange(D)] = sq_z
        full[:, i, j] = full[:, j, i] = Mu[F - i.size:].T
        sq_z = full
    return mean_z, sq_z, w, A
