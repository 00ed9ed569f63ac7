"""Whitening: W (d x k) with M2(W, W) = W^T M2 W = I_k, and un-whitening.

SPECTRAL_NOTES.md section 1.1 (Anandkumar, Ge, Hsu, Kakade & Telgarsky 2014, section 4):
with the top-k eigenpairs ``M2 ~= U S U^T``, ``W = U S^{-1/2}`` and ``B = U S^{1/2}`` (so
``B = (W^T)^+``). For large d the eigenpairs come from a randomized range finder (Halko,
Martinsson & Tropp 2011, Algorithms 4.3/4.4 with subspace iteration, and 5.3 for the symmetric
eigendecomposition) that touches M2 only through products ``M2 @ X``: a sparse count matrix is
never densified at d x d.
"""

import numbers
from dataclasses import dataclass

import numpy as np

from .._utils.validation import check_random_state, check_scalar
from ..exceptions import InputError, InputTypeError

__all__ = ["Whitening", "whiten"]


@dataclass(frozen=True)
class Whitening:
    """The result of :func:`whiten`.

    Attributes
    ----------
    W : ndarray of shape (d, k)
        Whitening matrix, ``W^T M2 W = I_k``.
    B : ndarray of shape (d, k)
        Un-whitening matrix ``U S^{1/2}`` (``B^T W = I_k``).
    eigenvalues : ndarray of shape (k,)
        Top-k eigenvalues of M2, decreasing (all > 0).
    eigenvectors : ndarray of shape (d, k)
    method : str
        'eigh' or 'randomized'.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.spectral import whiten
    >>> w = whiten(np.diag([4.0, 1.0, 0.0]), n_components=2)
    >>> type(w).__name__, w.W.shape, np.round(w.eigenvalues, 6), w.method
    ('Whitening', (3, 2), array([4., 1.]), 'eigh')
    """

    W: np.ndarray
    B: np.ndarray
    eigenvalues: np.ndarray
    eigenvectors: np.ndarray
    method: str

    @classmethod
    def from_eigenpairs(cls, eigenvalues, eigenvectors, method):
        """Build ``W = U S^{-1/2}``, ``B = U S^{1/2}`` from the top-k eigenpairs ``(S, U)`` of M2.

        Parameters
        ----------
        eigenvalues : ndarray of shape (k,)
            Positive, decreasing.
        eigenvectors : ndarray of shape (d, k)
        method : str

        Returns
        -------
        Whitening
            Bit-identical to the one :func:`whiten` returned for the same eigenpairs (used to
            rebuild a saved estimator's ``whitening_``).
        """
        s = np.asarray(eigenvalues, dtype=np.float64)
        U = np.asarray(eigenvectors, dtype=np.float64)
        root = np.sqrt(s)
        return cls(W=U / root, B=U * root, eigenvalues=s, eigenvectors=U, method=str(method))

    def transform(self, X):
        """Whitened coordinates ``X @ W``, shape (n, k), for X of shape (n, d) (dense or sparse)."""
        return np.asarray(X @ self.W)

    def unwhiten(self, V):
        """Map whitened vectors back: ``B @ V``, shape (d, L), for V of shape (k, L)."""
        return self.B @ V


def _as_matmat(M2):
    """Return (d, matmat, dense_or_None)."""
    if callable(M2) and not hasattr(M2, "shape"):
        raise InputTypeError("a callable M2 needs a 'shape'; pass a scipy.sparse.linalg.LinearOperator.")
    if hasattr(M2, "matmat") and not isinstance(M2, np.ndarray):
        d = M2.shape[0]
        if M2.shape != (d, d):
            raise InputError(f"M2 must be square, got shape {M2.shape}.")
        return d, lambda X: np.asarray(M2.matmat(X)), None
    arr = np.asarray(M2)
    if arr.dtype.kind not in "fiu":
        raise InputTypeError(f"M2 must be a real array or a LinearOperator, got dtype {arr.dtype}.")
    arr = np.asarray(arr, dtype=np.float64)
    if arr.ndim != 2 or arr.shape[0] != arr.shape[1]:
        raise InputError(f"M2 must be a square (d, d) matrix, got shape {arr.shape}.")
    if not np.all(np.isfinite(arr)):
        raise InputError("M2 contains NaN or infinity.")
    scale = max(float(np.abs(arr).max()), np.finfo(float).tiny)
    if np.abs(arr - arr.T).max() > 1e-8 * scale:
        raise InputError("M2 must be symmetric; symmetrise it with (M2 + M2.T) / 2.")
    arr = (arr + arr.T) / 2
    return arr.shape[0], lambda X: arr @ X, arr


def whiten(M2, n_components, method="auto", oversampling=10, n_power_iter=3, rcond=1e-10,
           random_state=None):
    """Whitening matrix of a symmetric second moment from its top-k eigenpairs.

    Parameters
    ----------
    M2 : array-like of shape (d, d), or a ``scipy.sparse.linalg.LinearOperator``
        Symmetric matrix whose top ``n_components`` eigenvalues are positive (e.g.
        ``sum_i w_i mu_i mu_i^T``). An operator is only multiplied with (d, p) blocks.
    n_components : int
        k, ``1 <= k <= d``.
    method : {'auto', 'eigh', 'randomized'}, default 'auto'
        'eigh': exact dense eigendecomposition (dense M2 only); 'randomized': range finder
        with ``k + oversampling`` columns and ``n_power_iter`` subspace iterations; 'auto':
        'eigh' for a dense M2 with d <= 1000, else 'randomized'.
    oversampling : int, default 10
    n_power_iter : int, default 3
    rcond : float, default 1e-10
        The k-th eigenvalue must exceed ``rcond`` times the largest (else M2 has rank < k).
    random_state : None, int or numpy.random.Generator
        For the random test matrix of the range finder.

    Returns
    -------
    Whitening

    Raises
    ------
    ValueError
        ``n_components > d``; a non-positive or relatively negligible k-th eigenvalue
        (``n_components`` exceeds the rank of M2, or alpha_0 / the model is wrong);
        NaN; non-symmetric dense M2.

    Notes
    -----
    Source: Anandkumar et al. (2014), section 4.3 (whitening reduction); Halko, Martinsson &
    Tropp (2011), "Finding structure with randomness", Algorithms 4.4 and 5.3.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.spectral import whiten
    >>> M2 = np.diag([4.0, 1.0, 0.0])
    >>> w = whiten(M2, n_components=2)
    >>> np.round(w.W.T @ M2 @ w.W, 6)  # W^T M2 W = I
    array([[1., 0.],
           [0., 1.]])
    """
    d, matmat, dense = _as_matmat(M2)
    k = check_scalar(n_components, "n_components", numbers.Integral, low=1)
    if k > d:
        raise InputError(f"n_components={k} exceeds the dimension of M2 (d={d}).")
    if method not in ("auto", "eigh", "randomized"):
        raise InputError(f"method must be 'auto', 'eigh' or 'randomized', got {method!r}.")
    if method == "auto":
        method = "eigh" if dense is not None and d <= 1000 else "randomized"
    if method == "eigh":
        if dense is None:
            raise InputError("method='eigh' needs a dense M2; use method='randomized' for operators.")
        s, U = np.linalg.eigh(dense)
        s, U = s[::-1][:k], U[:, ::-1][:, :k]
    else:
        p = check_scalar(oversampling, "oversampling", numbers.Integral, low=0)
        q = check_scalar(n_power_iter, "n_power_iter", numbers.Integral, low=0)
        rng = check_random_state(random_state)
        m = min(d, k + p)
        Q = np.linalg.qr(matmat(rng.standard_normal((d, m))))[0]
        for _ in range(q):
            Q = np.linalg.qr(matmat(Q))[0]
        AQ = matmat(Q)
        small = Q.T @ AQ
        s, Vs = np.linalg.eigh((small + small.T) / 2)
        order = np.argsort(-s)[:k]
        s, U = s[order], Q @ Vs[:, order]
    if not np.all(np.isfinite(s)):
        raise InputError("M2 has non-finite eigenvalues (NaN in the data?).")
    if s[0] <= 0 or s[-1] <= rcond * s[0]:
        raise InputError(
            f"n_components={k} exceeds the rank of M2: its top-{k} eigenvalues are "
            f"{np.array2string(s, precision=3)} (the k-th must be > {rcond:g} x the largest). "
            "Use fewer components, or check the model assumptions (e.g. alpha_0).")
    return Whitening.from_eigenpairs(s, U, method)
