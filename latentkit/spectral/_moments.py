"""Moment estimators whose tensor decomposition yields model parameters.

SPECTRAL_NOTES.md section 1. Each estimator exposes the second moment as a product
(``m2_matmat(Z) = M2 @ Z``, shape (d, p)), builds the whitened third moment
``M3(W, W, W)`` as an :class:`~latentkit.spectral.ImplicitMomentTensor` (never d^3), and maps
the tensor eigenpairs back to parameters.
"""

import numbers

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import LinearOperator

from .._utils.validation import (check_array, check_counts, check_dense_width, check_lengths,
                                 check_scalar)
from ._tensors import ImplicitMomentTensor
from .._utils.summaries import MomentSummary
from .._utils.summaries import check_second_moments as _check_second_moments
from ..exceptions import InputError, InputTypeError

__all__ = ["GMMMoments", "LDAMoments", "HMMMoments", "project_simplex", "three_view_moments"]


def project_simplex(V):
    """Euclidean projection of each row onto the probability simplex.

    Parameters
    ----------
    V : array-like of shape (n, d) or (d,)
        Finite real values, ``d >= 1`` (a 1-D input is one row). Not modified.

    Returns
    -------
    ndarray of shape (n, d), rows non-negative summing to 1.

    Raises
    ------
    ValueError
        NaN or infinity, an empty array or rows of length 0, more than 2 dimensions.
    TypeError
        Non-numeric or complex input.

    Notes
    -----
    Source: Duchi, Shalev-Shwartz, Singer & Chandra (2008), "Efficient projections onto the
    l1-ball", Figure 1.

    Examples
    --------
    >>> from latentkit.spectral import project_simplex
    >>> project_simplex([[0.5, 0.5], [2.0, 0.0], [0.7, 0.5]])
    array([[0.5, 0.5],
           [1. , 0. ],
           [0.6, 0.4]])
    """
    arr = np.asarray(V)
    if arr.dtype.kind not in "fiub":
        raise InputTypeError(f"V must be a real numeric array, got dtype {arr.dtype}.")
    if arr.ndim > 2:
        raise InputError(f"V must be a vector or an (n, d) matrix of rows, got shape {arr.shape}.")
    V = np.atleast_2d(arr.astype(np.float64))
    n, d = V.shape
    if V.size == 0:
        raise InputError(f"V must be non-empty: got shape {arr.shape} (each row needs at least "
                         "one entry to project onto the simplex).")
    if not np.all(np.isfinite(V)):
        what = "NaN" if np.isnan(V).any() else "infinity"
        raise InputError(f"V contains {what}; the simplex projection needs finite values.")
    U = -np.sort(-V, axis=1)
    css = np.cumsum(U, axis=1) - 1.0
    idx = np.arange(1, d + 1)
    cond = U - css / idx > 0
    rho = d - 1 - np.argmax(cond[:, ::-1], axis=1)
    theta = css[np.arange(n), rho] / (rho + 1)
    return np.maximum(V - theta[:, None], 0.0)


def check_moment_scale(X, order=3):
    """The scale check of every Gaussian model (``latentkit.mixture``'s), for moments up to
    ``order``: a ValueError naming X and the rescaling instead of inf/NaN moments."""
    _check_second_moments(MomentSummary.of(X, np.ones(X.shape[0]), diagonal=True),
                          order=order)


class GMMMoments:
    """Moments of a spherical Gaussian mixture (Hsu & Kakade 2013).

    With ``x = mu_h + z``, ``z ~ N(0, sigma_h^2 I)``, ``h ~ w`` and ``sigma2 = sum_i w_i
    sigma_i^2``::

        sigma2 = smallest eigenvalue(s) of Cov(x),  v = a unit eigenvector of it,
        M1 = E[x (v.(x - E x))^2]                          = sum_i w_i sigma_i^2 mu_i,
        M2 = E[x x^T] - sigma2 I                           = sum_i w_i mu_i mu_i^T,
        M3 = E[x x x] - sum_j (M1 e_j e_j + e_j M1 e_j + e_j e_j M1) = sum_i w_i mu_i^{(x)3}.

    With a common variance (``covariance_type='tied'``) ``M1 = sigma2 E[x]`` (AGHKT14 Thm 3.2).
    With one variance per component (``'spherical'``, HK13 Theorem 1) M1 is the empirical
    ``E[x (v.(x - E x))^2]``, averaged over the eigenvectors ``v`` of the ``d - k + 1`` smallest
    covariance eigenvalues (each orthogonal to the span of ``mu_i - E x``, so each gives the same
    population value; averaging lowers the variance) or taken at the smallest one
    (``variance='min'``).

    Whitened: ``M3(W, W, W)(I, u, u) = E[y (y.u)^2] - (m (u^T G u) + 2 (m.u) G u)`` with
    ``y = W^T x``, ``m = W^T M1``, ``G = W^T W`` (SPECTRAL_NOTES.md section 1.4).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    n_components : int
        k, ``k <= n_features``.
    variance : {'bottom_mean', 'min'}, default 'bottom_mean'
        sigma^2 as the mean of the ``d - k + 1`` smallest covariance eigenvalues (all equal to
        sigma^2 in the population; less biased than the minimum, which the finite-sample
        Marchenko-Pastur edge pulls down) or the smallest one (Hsu & Kakade 2013, Theorem 1).
    covariance_type : {'tied', 'spherical'}, default 'tied'
        One variance shared by all components, or one per component (see above).
    center : bool, default True
        Take the moments of ``x' = x - E x + c v`` (``v`` the eigenvector of the smallest
        covariance eigenvalue, ``c^2`` the mean of the ``k - 1`` largest eigenvalues of
        ``Cov(x) - sigma2 I``) and shift the means back in :meth:`to_params`. The method needs
        linearly independent means; the means of centred data (any standardised X) are only
        affinely independent (``sum_i w_i (mu_i - E x) = 0``: M2 has rank k - 1 and the
        estimate is noise), and far from the origin they are nearly collinear (M2 dominated by
        ``E x E x^T``). ``v`` is orthogonal to every ``mu_i - E x`` (they span the top k - 1
        directions of ``Cov(x) - sigma2 I``), so the shifted means ``mu_i - E x + c v`` are
        linearly independent whenever the means are affinely independent, the noise is
        unchanged (a translation), and the estimate no longer depends on where the origin of
        X lies (derived, SPECTRAL_NOTES.md 1.4; exact on population moments). False: the raw
        moments of X, as in the papers.

    Attributes
    ----------
    sigma2 : float
        ``sum_i w_i sigma_i^2`` (the common variance for 'tied').
    mean, M1 : ndarray of shape (n_features,)
        ``E x`` and M1 (of the shifted data when ``center``).
    M2 : ndarray of shape (n_features, n_features)
        Of the shifted data when ``center``.
    offset : ndarray of shape (n_features,)
        What was added to X (``c v - E x``; zeros without ``center``).

    Raises
    ------
    ValueError
        ``n_components > n_features``, fewer than 2 samples, NaN, an unknown ``variance`` or
        ``covariance_type``.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.spectral import GMMMoments
    >>> rng = np.random.default_rng(0)
    >>> X = np.r_[rng.normal(0, 1, (200, 3)), rng.normal(5, 1, (200, 3))]
    >>> mom = GMMMoments(X, n_components=2)
    >>> round(float(mom.sigma2), 1), mom.n_windows, mom.P12.shape  # 2 x 98 triples (x_t, x_t+1, x_t+2); E[x_1 x_2^T]  # the noise variance is about 1
    Traceback (most recent call last):
        ...
    AttributeError: 'GMMMoments' object has no attribute 'n_windows'
    """

    def __init__(self, X, n_components, variance="bottom_mean", covariance_type="tied",
                 center=True):
        X = check_array(X, "X", ensure_min_samples=2)
        check_moment_scale(X, order=3)
        n, d = X.shape
        k = check_scalar(n_components, "n_components", numbers.Integral, low=1)
        if k > d:
            raise InputError(f"n_components={k} exceeds n_features={d}: the spherical-GMM moments "
                             "need linearly independent means (k <= n_features).")
        if variance not in ("bottom_mean", "min"):
            raise InputError(f"variance must be 'bottom_mean' or 'min', got {variance!r}.")
        if covariance_type not in ("tied", "spherical"):
            raise InputError(f"covariance_type must be 'tied' (one variance shared by the "
                             f"components) or 'spherical' (one per component), got "
                             f"{covariance_type!r}.")
        self.n_components, self.covariance_type = k, covariance_type
        self.mean = X.mean(axis=0)
        Xc = X - self.mean
        cov = Xc.T @ Xc / n
        cov_eig, cov_vec = np.linalg.eigh(cov)
        n_bottom = d - k + 1 if variance == "bottom_mean" else 1
        self.sigma2 = float(max(cov_eig[:n_bottom].mean(), 0.0))
        if center:
            between = cov_eig[d - k + 1:] - self.sigma2  # the k - 1 between-means eigenvalues
            c2 = float(between.mean()) if k > 1 else self.sigma2
            c = np.sqrt(max(c2, self.sigma2, 1e-300))
            self.offset = c * cov_vec[:, 0] - self.mean
            X = Xc + c * cov_vec[:, 0]
            S = cov + c * c * np.outer(cov_vec[:, 0], cov_vec[:, 0])
            mean = c * cov_vec[:, 0]
        else:
            self.offset = np.zeros(d)
            S = X.T @ X / n
            mean = self.mean
        self.X = X
        if covariance_type == "tied":
            self.M1 = self.sigma2 * mean
        else:
            # E[x (v.(x - E x))^2] averaged over the bottom eigenvectors v (HK13 Theorem 1)
            proj = Xc @ cov_vec[:, :n_bottom]
            r = np.einsum("ij,ij->i", proj, proj) / n_bottom
            self.M1 = X.T @ r / n
        self.M2 = S - self.sigma2 * np.eye(d)

    def tensor(self, whitening):
        """Whitened third moment ``M3(W, W, W)`` as an implicit tensor (k x k x k)."""
        W = whitening.W
        Y = self.X @ W
        return ImplicitMomentTensor.from_rows(Y, sym_terms=[(W.T @ self.M1, W.T @ W)])

    def to_params(self, whitening, eigenvalues, eigenvectors):
        """``w_i = lambda_i^{-2}`` (renormalised), ``mu_i = lambda_i B v_i``.

        Returns
        -------
        weights : ndarray (k,), means : ndarray (k, d), raw_weight_sum : float
        """
        lam = np.asarray(eigenvalues, dtype=float)
        means = (whitening.B @ eigenvectors * lam).T - self.offset
        w = lam ** -2.0
        return w / w.sum(), means, float(w.sum())

    def component_variances(self, whitening, eigenvalues, eigenvectors):
        """Per-component variances ``sigma_i^2 = lambda_i v_i.(W^T M1)``, shape (k,).

        From ``W^T M1 = sum_i w_i sigma_i^2 W^T mu_i = sum_i sigma_i^2 sqrt(w_i) v_i`` with
        orthonormal ``v_i`` and ``sqrt(w_i) = 1 / lambda_i`` (SPECTRAL_NOTES.md 1.4, derived;
        exact on population moments). For 'tied' every entry is ``sigma2`` up to rounding.
        Not floored: a value <= 0 flags a component the spherical model does not fit.
        """
        lam = np.asarray(eigenvalues, dtype=float)
        m = whitening.W.T @ self.M1
        return lam * (np.asarray(eigenvectors).T @ m)


class LDAMoments:
    """Moments of latent Dirichlet allocation with concentration alpha_0 (single topic: alpha_0 -> 0).

    Anandkumar, Foster, Hsu, Kakade & Liu (2012), Theorem 3.5 of Anandkumar et al. (2014);
    SPECTRAL_NOTES.md section 1.3. Over documents with ``l >= 3`` tokens (shorter ones are
    skipped: they carry no word triple), with the unbiased per-document estimators
    ``m1 = c / l``, ``e2 = (c c^T - diag(c)) / (l (l-1))`` and ``e3`` (see
    :meth:`ImplicitMomentTensor.from_documents`)::

        M1 = mean m1,   M2 = mean e2 - a0/(a0+1) M1 M1^T = sum_i alpha_i / ((a0+1) a0) mu_i mu_i^T
        M3 = mean e3 - a0/(a0+2) (E2 (x) M1 + perm + M1 (x) E2) + 2 a0^2/((a0+1)(a0+2)) M1^{(x)3}
           = sum_i 2 alpha_i / ((a0+2)(a0+1) a0) mu_i^{(x)3}.

    ``M2 @ Z = mean_d [c (c^T Z) - diag(c) Z] / (l(l-1)) - a0/(a0+1) M1 (M1^T Z)`` uses only
    sparse products.

    Parameters
    ----------
    X : array-like or sparse matrix of shape (n_documents, V)
        Word counts.
    alpha0 : float
        ``sum_i alpha_i`` (> 0; use a small value such as 1e-6 for the single-topic model).

    Attributes
    ----------
    M1 : ndarray (V,)
    n_docs_used : int
    n_tokens : float
        Tokens in the documents used.

    Raises
    ------
    ValueError
        No document with at least 3 tokens; negative counts; NaN; alpha0 <= 0.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.spectral import LDAMoments
    >>> X = np.array([[3, 1, 0, 0], [0, 0, 2, 2], [2, 2, 0, 0], [0, 1, 3, 1]])
    >>> mom = LDAMoments(X, alpha0=1.0)
    >>> mom.M1  # the mean over documents of the word frequencies
    array([0.3125, 0.2375, 0.275 , 0.175 ])
    >>> mom.m2_dense().shape, mom.n_docs_used
    ((4, 4), 4)
    """

    def __init__(self, X, alpha0):
        X = check_counts(X, "X")
        # dense V-vectors and a V x (k + oversampling) whitening follow: refuse hashed ids first
        check_dense_width(X.shape[1], np.unique(X.indices).size, 1, unit="columns (words)",
                          owner="the spectral LDA moments", what="moment vector")
        self.alpha0 = check_scalar(alpha0, "alpha0", numbers.Real, low=0.0, low_inclusive=False)
        ell = np.asarray(X.sum(axis=1)).ravel()
        valid = ell >= 3
        if not valid.any():
            raise InputError(
                "X has no document with at least 3 tokens: the LDA/single-topic third moment "
                f"needs documents of length >= 3 (longest has {ell.max() if ell.size else 0:g}).")
        self.X = X[valid] if not valid.all() else X
        self.ell = ell[valid]
        self.n_docs_used = int(valid.sum())
        self.n_tokens = float(self.ell.sum())
        D = self.n_docs_used
        self.M1 = np.asarray(self.X.T @ (1.0 / self.ell)).ravel() / D
        self._s2 = 1.0 / (self.ell * (self.ell - 1)) / D
        self._diag = np.asarray(self.X.T @ self._s2).ravel()

    @property
    def n_features(self):
        return self.X.shape[1]

    def e2_matmat(self, Z):
        """``mean e2 @ Z`` (E[x1 x2^T] estimate times Z), shape (V, p)."""
        CZ = np.asarray(self.X @ Z)
        return np.asarray(self.X.T @ (self._s2[:, None] * CZ)) - self._diag[:, None] * Z

    def m2_matmat(self, Z):
        """``M2 @ Z``, shape (V, p)."""
        Z = np.asarray(Z, dtype=float)
        a0 = self.alpha0
        return self.e2_matmat(Z) - (a0 / (a0 + 1.0)) * np.outer(self.M1, self.M1 @ Z)

    def m2_dense(self):
        """M2 as a dense (V, V) array from the sparse product ``X^T diag(s) X`` (O(sum_d l_d^2)
        distinct pairs, not O(nnz V)); for moderate V only."""
        a0 = self.alpha0
        E2 = (self.X.T @ sp.diags(self._s2) @ self.X).toarray()
        E2[np.diag_indices_from(E2)] -= self._diag
        M2 = E2 - (a0 / (a0 + 1.0)) * np.outer(self.M1, self.M1)
        return (M2 + M2.T) / 2

    def m2_operator(self):
        """M2 as a ``scipy.sparse.linalg.LinearOperator`` (V x V)."""
        V = self.n_features
        return LinearOperator((V, V), matvec=lambda z: self.m2_matmat(z.reshape(-1, 1)).ravel(),
                              matmat=self.m2_matmat, dtype=np.float64)

    def tensor(self, whitening):
        """Whitened ``M3(W, W, W)`` as an implicit CSR-document tensor (k x k x k)."""
        W = whitening.W
        a0 = self.alpha0
        q = W.T @ self.M1
        E2w = W.T @ self.e2_matmat(W)
        return ImplicitMomentTensor.from_documents(
            self.X, W, sym_terms=[(a0 / (a0 + 2.0) * q, E2w)],
            cube_terms=[(2.0 * a0 ** 2 / ((a0 + 1.0) * (a0 + 2.0)), q)])

    def to_params(self, whitening, eigenvalues, eigenvectors):
        """``alpha_i = 4 a0 (a0+1) / ((a0+2)^2 lambda_i^2)``, ``mu_i = (a0+2)/2 lambda_i B v_i``.

        Returns
        -------
        alpha : ndarray (k,)
        topics : ndarray (k, V), rows projected onto the simplex
        raw_topic_sums : ndarray (k,), ``sum_w mu_iw`` before projection (diagnostic, ~1)
        """
        a0 = self.alpha0
        lam = np.asarray(eigenvalues, dtype=float)
        alpha = 4.0 * a0 * (a0 + 1.0) / ((a0 + 2.0) ** 2 * lam ** 2)
        mu = (whitening.B @ eigenvectors * (lam * (a0 + 2.0) / 2.0)).T
        sums = mu.sum(axis=1)
        # a topic is a distribution: flip a component whose mass came out negative
        mu = np.where(sums[:, None] < 0, -mu, mu)
        return alpha, project_simplex(mu), sums


def _normalise_columns(V):
    """Columns clipped at 0 and divided by their sums (uniform where a column has no mass)."""
    V = np.maximum(np.asarray(V, dtype=np.float64), 0.0)
    s = V.sum(axis=0, keepdims=True)
    return np.where(s > 0, V / np.where(s > 0, s, 1.0), 1.0 / V.shape[0])


def transitions_from_pairs(Op, P12, P23):
    """Joint laws of consecutive states and the transition matrix from both adjacent pairs.

    With ``O`` the conditional means of the observations' features given the state
    (``O[:, j] = E[phi(x) | h = j]``, one-hot symbols for a categorical HMM; the features
    include a constant for a feature map) and ``Op`` its pseudo-inverse, ``P_12 = O diag(pi)
    T O^T`` and ``P_23 = O diag(w) T O^T`` (``pi``, ``w`` the laws of h1, h2), so
    ``S_12 = Op P_12 Op^T`` and ``S_23 = Op P_23 Op^T`` are the joint laws of (h1, h2) and
    (h2, h3), each with rows proportional to those of ``T``. Both are clipped at 0 (laws are
    non-negative) and ``T`` is the row-normalised ``S_12 + S_23`` (rows on the simplex;
    uniform where a row has no mass). Exact on population moments.

    Parameters
    ----------
    Op : ndarray of shape (k, F)
        Pseudo-inverse of the conditional means (F features, k states).
    P12, P23 : ndarray of shape (F, F)
        ``E[phi(x_1) phi(x_2)^T]`` and ``E[phi(x_2) phi(x_3)^T]``.

    Returns
    -------
    S12, S23 : ndarray of shape (k, k)
        The clipped joint laws.
    transmat : ndarray of shape (k, k)
        Rows sum to 1 (``transmat[i, j] = P(h_{t+1} = j | h_t = i)``).

    Notes
    -----
    Source: SPECTRAL_NOTES.md section 1.5 (``P_23`` alone, through ``w``); both pairs pooled
    for issue 32.
    """
    S12 = np.maximum(Op @ P12 @ Op.T, 0.0)  # joint law of (h1, h2)
    S23 = np.maximum(Op @ P23 @ Op.T, 0.0)  # joint law of (h2, h3)
    return S12, S23, _normalise_columns((S12 + S23).T).T


def window_starts(lengths):
    """First positions of the windows of three consecutive observations inside each sequence,
    in order: int64 array of shape (sum(max(lengths - 2, 0)),) (``lengths`` non-negative)."""
    lengths = np.asarray(lengths, dtype=np.int64)
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
    counts = np.maximum(lengths - 2, 0)  # windows of each sequence, from its start on
    return np.arange(counts.sum(), dtype=np.int64) + np.repeat(
        starts - (np.cumsum(counts) - counts), counts)


def _pinv_rank(P, k):
    """Rank-k pseudo-inverse of P (m x m), shape (m, m)."""
    U, s, Vt = np.linalg.svd(P)
    if s[k - 1] <= 1e-12 * s[0]:
        raise InputError(f"the pair moments have rank < n_components={k}; use fewer components.")
    return (Vt[:k].T / s[:k]) @ U[:, :k].T


class HMMMoments:
    """Three-view moments of a discrete HMM from consecutive observation triples.

    Anandkumar, Hsu & Kakade (2012); Anandkumar et al. (2014), section 3.3 and Theorem 3.6;
    SPECTRAL_NOTES.md section 1.5. With ``P_ab = E[x_a x_b^T]`` over all windows
    ``(x_t, x_{t+1}, x_{t+2})`` inside each sequence, the views can be symmetrised towards the
    middle one: ``x~1 = P_23 P_13^+ x1``, ``x~3 = P_21 P_31^+ x3`` (rank-k pseudo-inverses), and

        M2 = E[x~1 x~3^T] = sum_j w_j O_j O_j^T,   M3 = E[x~1 (x) x~3 (x) x2] = sum_j w_j O_j^{(x)3}

    with ``w = T pi`` (law of the middle state) and ``O_j`` the emission column of state j, or
    towards view 1 or 3, which inverts only an adjacent pair (:meth:`symmetric_moments`). Both
    are symmetrised (M3 over the 6 index permutations) before the decomposition.
    :meth:`population` gives the exact moments of known parameters.

    Parameters
    ----------
    X : array-like of int of shape (n_samples,) or (n_samples, 1)
        Concatenated symbol sequences (hmmlearn's layout).
    lengths : array-like of int, optional
        Sequence lengths (sum = n_samples); default one sequence.
    n_components : int
    n_features : int, optional
        Number of symbols m (default ``max(X) + 1``); ``n_components <= m``.

    Raises
    ------
    ValueError
        Negative or non-integer symbols, lengths that do not add up, no window of 3, NaN.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.spectral import HMMMoments
    >>> X = np.random.default_rng(0).integers(0, 3, size=200)
    >>> mom = HMMMoments(X, lengths=[100, 100], n_components=2)
    >>> mom.n_windows, mom.P12.shape  # 2 x 98 triples (x_t, x_t+1, x_t+2); E[x_1 x_2^T]
    (196, (3, 3))
    """

    def __init__(self, X, lengths, n_components, n_features=None):
        arr = np.asarray(X)
        if arr.ndim == 2 and arr.shape[1] == 1:
            arr = arr[:, 0]
        if arr.ndim != 1:
            raise InputError(f"X must be a 1-D array of symbols or shape (n, 1), got {np.shape(X)}.")
        if arr.dtype.kind == "f":
            if not np.all(np.isfinite(arr)):
                raise InputError("X contains NaN or infinity.")
            if np.any(arr != np.round(arr)):
                raise InputError("X must contain integer symbols.")
        elif arr.dtype.kind not in "iu":
            raise InputTypeError(f"X must contain integer symbols, got dtype {arr.dtype}.")
        arr = arr.astype(np.int64)
        if arr.size and arr.min() < 0:
            raise InputError("X must contain non-negative symbols.")
        m = int(arr.max()) + 1 if n_features is None else int(n_features)
        if arr.size and arr.max() >= m:
            raise InputError(f"X contains symbol {arr.max()} >= n_features={m}.")
        k = check_scalar(n_components, "n_components", numbers.Integral, low=1)
        if k > m:
            raise InputError(f"n_components={k} exceeds the number of symbols {m}.")
        lengths = np.diff(check_lengths(lengths, arr.size, min_length=0))
        idx = window_starts(lengths)
        if idx.size == 0:
            raise InputError("no sequence has 3 consecutive observations; the three-view "
                             "moments need windows of length 3.")
        self._count(arr[idx], arr[idx + 1], arr[idx + 2], m, k)

    @classmethod
    def from_windows(cls, x1, x2, x3, n_features, n_components, weights=None):
        """Moments of given windows ``(x1[i], x2[i], x3[i])`` (validated int64 symbols, shape
        (n_windows,) each), each counted ``weights[i]`` times (non-negative; default once):
        the moments of a resample of windows (:meth:`SpectralHMM.standard_errors`)."""
        self = cls.__new__(cls)
        self._count(x1, x2, x3, int(n_features), int(n_components), weights)
        return self

    def _count(self, x1, x2, x3, m, k, weights=None):
        n = x1.size if weights is None else float(np.sum(weights))
        self.n_windows, self.n_features, self.n_components = n, m, k

        def freq(codes, size):
            return np.bincount(codes, weights=weights, minlength=size) / n

        self.P12 = freq(x1 * m + x2, m * m).reshape(m, m)
        self.P13 = freq(x1 * m + x3, m * m).reshape(m, m)
        self.P23 = freq(x2 * m + x3, m * m).reshape(m, m)
        self.P123 = freq((x1 * m + x2) * m + x3, m ** 3).reshape(m, m, m)

    @classmethod
    def population(cls, startprob, transmat, emissionprob):
        """Exact moments of windows ``(x_1, x_2, x_3)`` whose first state has law ``startprob``.

        Parameters
        ----------
        startprob : array-like of shape (k,)
            Law of ``h_1`` (non-negative, sums to 1).
        transmat : array-like of shape (k, k)
            ``transmat[i, j] = P(h_{t+1} = j | h_t = i)`` (rows sum to 1).
        emissionprob : array-like of shape (k, m)
            ``P(x = s | h = i)`` (rows sum to 1), ``k <= m``.

        Returns
        -------
        HMMMoments
            With ``P12``, ``P13``, ``P23`` (m, m) and ``P123`` (m, m, m) the population moments
            and ``n_windows = inf`` (for tests and for the recovery of known parameters).

        Raises
        ------
        ValueError
            Shapes that do not agree, negative entries, rows that do not sum to 1.
        """
        pi = np.asarray(startprob, dtype=np.float64)
        A = np.asarray(transmat, dtype=np.float64)
        E = np.asarray(emissionprob, dtype=np.float64)
        k = pi.shape[0] if pi.ndim == 1 else -1
        if pi.ndim != 1 or A.shape != (k, k) or E.ndim != 2 or E.shape[0] != k or E.shape[1] < k:
            raise InputError(f"startprob (k,), transmat (k, k) and emissionprob (k, m >= k) "
                             f"expected, got shapes {pi.shape}, {A.shape} and {E.shape}.")
        for name, P in (("startprob", pi), ("transmat", A), ("emissionprob", E)):
            if np.any(P < 0) or not np.allclose(P.sum(axis=-1), 1.0, atol=1e-10):
                raise InputError(f"{name} must be non-negative with rows summing to 1.")
        w = pi @ A  # law of h2
        O = E.T
        mus = (O @ (pi[:, None] * A / np.where(w > 0, w, 1.0)), O, O @ A.T)  # E[x_v | h2 = j]
        self = cls.__new__(cls)
        self.n_windows, self.n_features, self.n_components = np.inf, E.shape[1], k
        self.P12 = (mus[0] * w) @ mus[1].T
        self.P13 = (mus[0] * w) @ mus[2].T
        self.P23 = (mus[1] * w) @ mus[2].T
        self.P123 = np.einsum("j,aj,bj,cj->abc", w, *mus)
        return self

    def pair(self, a, b):
        """``P_ab = E[x_a x_b^T]``, shape (m, m), for views ``a != b`` in {1, 2, 3}."""
        P = {(1, 2): self.P12, (1, 3): self.P13, (2, 3): self.P23}
        return P[(a, b)] if a < b else P[(b, a)].T

    def pair_conditioning(self):
        """``sigma_k / sigma_1`` of ``P_12``, ``P_23`` and ``P_13``, shape (3,).

        The inverse condition numbers at rank k of the pair moments inverted by the variants
        symmetrised towards view 3, 1 and 2 respectively (0 when a moment is zero).
        """
        k = self.n_components
        out = np.zeros(3)
        for i, P in enumerate((self.P12, self.P23, self.P13)):
            s = np.linalg.svd(P, compute_uv=False)
            out[i] = s[k - 1] / s[0] if s[0] > 0 else 0.0
        return out

    def symmetric_moments(self, target=2):
        """(M2 (m, m), M3 (m, m, m)), symmetrised towards view ``target`` in {1, 2, 3}.

        With ``c = target`` and ``(a, b)`` the two other views, ``x~a = P_cb P_ab^+ x_a``,
        ``x~b = P_ca P_ba^+ x_b``, ``M2 = E[x~a x~b^T]`` and ``M3 = E[x~a (x) x~b (x) x_c]``; both
        equal ``sum_j w_j mu_cj^{(x)p}`` with ``mu_cj = E[x_c | h_2 = j]`` and ``w = T pi``.
        Only ``P_ab`` is inverted: ``P_13`` (states two steps apart) for the middle view, the
        adjacent pair ``P_23`` for view 1 and ``P_12`` for view 3 (Anandkumar, Hsu & Kakade
        2012; Anandkumar et al. 2014, section 3.3; SPECTRAL_NOTES.md section 1.5). M2 is
        symmetrised, M3 averaged over the 6 index permutations.

        Raises
        ------
        ValueError
            ``target`` not in {1, 2, 3}; the inverted pair moment of rank < n_components.
        """
        if target not in (1, 2, 3):
            raise InputError(f"target must be 1, 2 or 3, got {target!r}.")
        k = self.n_components
        a, b = [v for v in (1, 2, 3) if v != target]
        Aa = self.pair(target, b) @ _pinv_rank(self.pair(a, b), k)
        Ab = self.pair(target, a) @ _pinv_rank(self.pair(b, a), k)
        M2 = Aa @ self.pair(a, b) @ Ab.T
        M2 = (M2 + M2.T) / 2
        P = self.P123.transpose([a - 1, b - 1, target - 1])  # axes (x_a, x_b, x_c)
        M3 = np.einsum("ai,bj,ijc->abc", Aa, Ab, P, optimize=True)
        M3 = sum(M3.transpose(p) for p in [(0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0),
                                            (2, 0, 1), (2, 1, 0)]) / 6.0
        return M2, M3

    def emission(self, whitening, eigenvalues, eigenvectors, target=2):
        """Emission columns and middle-state law from the decomposition towards ``target``.

        ``mu_cj = lambda_j B v_j`` (projected to the simplex) and ``w = lambda^-2``
        (renormalised). ``O = mu_c`` for the middle view (``target=2``); otherwise
        ``O = P_2c (mu_c^T)^+ diag(w)^{-1}`` (the views are independent given h2, so
        ``P_2c = O diag(w) mu_c^T``), projected to the simplex.

        Returns
        -------
        O : ndarray of shape (m, k)
            Columns ``P(x | h = j)``.
        w : ndarray of shape (k,)
            Law of the middle state.
        """
        lam = np.asarray(eigenvalues, dtype=float)
        mu = (whitening.B @ eigenvectors * lam).T  # k x m rows: E[x_c | h2 = j]
        sums = mu.sum(axis=1)
        mu = project_simplex(np.where(sums[:, None] < 0, -mu, mu)).T  # m x k
        w = lam ** -2.0
        w = w / w.sum()
        if target != 2:
            mu = project_simplex((self.pair(2, target) @ np.linalg.pinv(mu.T) / w).T).T
        return mu, w

    def params_from_emission(self, O, w):
        """Transition matrix and state laws from the emission matrix and both adjacent pairs.

        With ``O^+`` the pseudo-inverse of the emission columns, ``S_12 = O^+ P_12 O^+T`` and
        ``S_23 = O^+ P_23 O^+T`` are the joint laws of consecutive states, ``diag(pi) T`` and
        ``diag(w) T`` (``pi`` the law of h1, ``w = T^T pi`` of h2): both have rows
        proportional to the rows of the transition matrix. Negative entries are clipped (the
        laws are non-negative), the two are pooled and the rows of ``S_12 + S_23`` normalised
        give ``T`` (rows on the simplex); the row sums of ``S_12`` and ``S_23`` give ``pi`` and
        ``w``. Exact on population moments; every adjacent window enters the transitions
        (SPECTRAL_NOTES.md section 1.5 recovers them from ``P_23`` alone, through ``w``).

        Parameters
        ----------
        O : ndarray of shape (m, k)
            Emission columns.
        w : ndarray of shape (k,)
            Law of the middle state from the decomposition (used only where ``S_23`` has no
            mass).

        Returns
        -------
        startprob : (k,), transmat : (k, k) row-stochastic (``transmat[i, j] = P(j | i)``),
        emissionprob : (k, m) rows on the simplex, middle_weights : (k,)
        """
        S12, S23, Tm = transitions_from_pairs(np.linalg.pinv(O), self.P12, self.P23)
        pi = _normalise_columns(S12.sum(axis=1)[:, None])[:, 0]
        mid = S23.sum(axis=1)
        mid = mid / mid.sum() if mid.sum() > 0 else np.asarray(w, dtype=float)
        return pi, Tm, O.T.copy(), mid

    def to_params(self, whitening, eigenvalues, eigenvectors, target=2):
        """:meth:`emission` then :meth:`params_from_emission`; returns (startprob (k,),
        transmat (k, k), emissionprob (k, m), middle_weights (k,))."""
        return self.params_from_emission(*self.emission(whitening, eigenvalues, eigenvectors,
                                                        target))


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
