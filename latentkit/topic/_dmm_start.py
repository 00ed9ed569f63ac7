"""The spectral start of the single-topic models (``DirichletMultinomialMixture(init='spectral')``).

For an exchangeable single-topic model (each document draws one topic ``k`` with weight
``w_k``, then every token from ``mu_k``), the moments over distinct word positions of one
document are, with no Dirichlet correction (Anandkumar, Ge, Hsu, Kakade & Telgarsky 2014,
section 3.1, Theorem 3.1)::

    M2 = E[x1 x2^T] = sum_k w_k mu_k mu_k^T,   M3 = E[x1 (x) x2 (x) x3] = sum_k w_k mu_k^(x)3.

Whitening ``W^T M2 W = I`` gives ``M3(W, W, W) = sum_k lambda_k v_k^(x)3`` with ``v_k = sqrt(w_k)
W^T mu_k`` orthonormal and ``lambda_k = 1 / sqrt(w_k)``; so ``w_k = lambda_k^-2`` and ``mu_k =
lambda_k B v_k`` (``B = pinv(W^T)``). The empirical moments are the unbiased per-document
estimators of :class:`latentkit.spectral._moments.LDAMoments` at ``alpha_0 = 0`` (documents of
at least 3 tokens), streamed over the documents: M2 enters only through products ``M2 @ Z``
(whitened on its top-K *algebraic* eigenpairs by Lanczos, :func:`algebraic_whitening`: the
empirical M2 of short texts is indefinite) and the whitened tensor through the CSR-document
contraction kernels (:class:`latentkit.spectral.ImplicitMomentTensor`), materialised as a
(K, K, K) array for K <= 64; no V x V or V x V x V array is formed.
"""

import warnings

import numpy as np
from scipy.sparse.linalg import ArpackError, LinearOperator, eigsh

from ..exceptions import InputError, SpectralInitWarning
from ..spectral import ImplicitMomentTensor, Whitening, robust_tensor_power, whiten
from ..spectral._moments import LDAMoments

_DENSE_TENSOR_MAX = 64

__all__ = ["algebraic_whitening", "single_topic_decomposition", "single_topic_spectral"]


def algebraic_whitening(m2, n_components, random_state, rcond=1e-10):
    """Whitening of a symmetric second moment on its top-k *algebraic* eigenpairs.

    The empirical pair moment of short documents, ``E[x1 x2^T]`` with the diagonal term
    ``E[diag(x)]`` removed, is indefinite: on 20,000 Debian descriptions (2,779 words of the
    documents with 3 or more tokens) its 30 largest eigenvalues run from 6.1e-3 down to
    2.6e-4 and its 30 smallest from -3.1e-3 up to -2.4e-4, so a range finder (which finds the
    eigenvalues of largest *magnitude*) returns a subspace half made of negative directions,
    and fewer than K positive eigenvalues. Lanczos on the algebraically largest end
    (``scipy.sparse.linalg.eigsh(which='LA')``; ARPACK, Lehoucq, Sorensen & Yang 1998) gets
    the K positive ones.

    Parameters
    ----------
    m2 : ndarray of shape (V, V) or scipy.sparse.linalg.LinearOperator
        Symmetric.
    n_components : int
        K (<= V).
    random_state : numpy.random.Generator
        Draws ARPACK's start vector.
    rcond : float, default 1e-10
        The K-th eigenvalue must exceed ``rcond`` times the largest.

    Returns
    -------
    latentkit.spectral.Whitening
        ``W^T M2 W = I`` on the top-K eigenvectors (a dense ``m2``: :func:`whiten`'s exact
        ``eigh``).

    Raises
    ------
    ValueError
        Fewer than K positive eigenvalues, or ARPACK did not converge
        (``latentkit.exceptions.InputError``).
    """
    K = int(n_components)
    if isinstance(m2, np.ndarray):
        return whiten(m2, K, random_state=random_state)
    V = m2.shape[0]
    if K >= V - 1:  # ARPACK needs k < V: the dense matrix, V columns of the operator
        dense = np.asarray(m2 @ np.eye(V))
        return whiten((dense + dense.T) / 2, K, random_state=random_state)
    try:
        s, U = eigsh(m2, k=K, which="LA", v0=random_state.standard_normal(V))
    except ArpackError as exc:  # no convergence: the start falls back like a degenerate one
        raise InputError(f"the Lanczos eigensolver did not converge ({exc}).") from exc
    order = np.argsort(-s)
    s, U = s[order], U[:, order]
    if not np.all(np.isfinite(s)) or s[0] <= 0 or s[-1] <= rcond * s[0]:
        raise InputError(f"n_components={K} exceeds the number of positive eigenvalues of the "
                         f"pair moment: its top-{K} are {np.array2string(s, precision=3)}.")
    return Whitening.from_eigenpairs(s, U, "lanczos")


def single_topic_decomposition(m2, whitened_tensor, n_components, random_state, n_restarts=20,
                               n_iter=100):
    """Weights and topics of a single-topic model from its second moment and whitened third.

    Parameters
    ----------
    m2 : ndarray of shape (V, V) or scipy.sparse.linalg.LinearOperator
        ``sum_k w_k mu_k mu_k^T`` (or an estimate, possibly indefinite: whitened on its
        top-K algebraic eigenpairs).
    whitened_tensor : callable
        ``W -> M3(W, W, W)``: a (k, k, k) array or tensor operator (``contract``/``evaluate``).
    n_components : int
    random_state : numpy.random.Generator
    n_restarts, n_iter : int
        Of the robust tensor power method.

    Returns
    -------
    weights : ndarray of shape (n_components,)
        ``w_k = lambda_k^-2`` (largest eigenvalue first: smallest weight first).
    topics : ndarray of shape (n_components, V)
        ``mu_k = lambda_k B v_k`` (sign fixed so the row sums are positive); not projected.

    Raises
    ------
    ValueError
        The moments are degenerate (rank of M2 below ``n_components``).
    """
    wh = algebraic_whitening(m2, n_components, random_state)
    res = robust_tensor_power(whitened_tensor(wh.W), n_components, n_restarts=n_restarts,
                              n_iter=n_iter, tol=1e-12, random_state=random_state,
                              check_symmetric=False)
    lam = np.asarray(res.eigenvalues, dtype=np.float64)
    mu = (wh.B @ (res.eigenvectors * lam)).T
    sign = np.where(mu.sum(axis=1) < 0, -1.0, 1.0)
    return 1.0 / lam ** 2, mu * sign[:, None]


def single_topic_spectral(X, n_components, random_state):
    """Spectral estimate of a single-topic (Dirichlet-multinomial mixture) model from counts.

    Parameters
    ----------
    X : scipy.sparse.csr_matrix of shape (n_documents, V)
        Validated counts; documents with fewer than 3 tokens are skipped.
    n_components : int
    random_state : numpy.random.Generator

    Returns
    -------
    (weights, topics) or None
        ``weights`` (K,) summing to 1 and ``topics`` (K, V) on the simplex; None (with a
        :class:`~latentkit.exceptions.SpectralInitWarning`) when the moments are degenerate
        (no document of 3 tokens, rank below K, a non-finite estimate).
    """
    K = int(n_components)
    try:
        mom = LDAMoments(X, 1.0)  # its data part (e2_matmat, used documents) is alpha-free
        if K > mom.n_features:
            raise ValueError(f"n_components={K} exceeds the vocabulary size {mom.n_features}")
        V = mom.n_features
        m2 = LinearOperator((V, V), matvec=lambda z: mom.e2_matmat(z.reshape(-1, 1)).ravel(),
                            matmat=mom.e2_matmat, dtype=np.float64)
        def tensor(W):
            implicit = ImplicitMomentTensor.from_documents(mom.X, W)
            # K <= 64: the (K, K, K) tensor once (O(D K^3), 2 MB at most), so that the
            # ~1,500 contractions of the power method cost O(K^3) each, not a pass over the
            # documents (20,000 Debian descriptions, K = 20: 60 s -> about 1 s)
            return implicit.to_dense() if K <= _DENSE_TENSOR_MAX else implicit

        w, mu = single_topic_decomposition(m2, tensor, K, random_state)
        if not (np.all(np.isfinite(w)) and np.all(np.isfinite(mu))):
            raise ValueError("non-finite spectral estimate")
    except ValueError as exc:
        warnings.warn(f"init='spectral': the single-topic moments are degenerate ({exc}); "
                      "falling back to the seeded start.", SpectralInitWarning, stacklevel=3)
        return None
    mu = np.maximum(mu, 0.0)
    sums = mu.sum(axis=1, keepdims=True)
    mu = np.where(sums > 0, mu / np.where(sums > 0, sums, 1.0), 1.0 / mu.shape[1])
    w = np.maximum(w, 1.0 / (10 * K))
    return w / w.sum(), mu
