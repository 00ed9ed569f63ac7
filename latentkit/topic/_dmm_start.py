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
and the whitened tensor through the CSR-document contraction kernels
(:class:`latentkit.spectral.ImplicitMomentTensor`); no V x V or V x V x V array is formed.
"""

import warnings

import numpy as np
from scipy.sparse.linalg import LinearOperator

from ..exceptions import SpectralInitWarning
from ..spectral import ImplicitMomentTensor, robust_tensor_power, whiten
from ..spectral._moments import LDAMoments

__all__ = ["single_topic_decomposition", "single_topic_spectral"]


def single_topic_decomposition(m2, whitened_tensor, n_components, random_state, n_restarts=20,
                               n_iter=100):
    """Weights and topics of a single-topic model from its second moment and whitened third.

    Parameters
    ----------
    m2 : ndarray of shape (V, V) or scipy.sparse.linalg.LinearOperator
        ``sum_k w_k mu_k mu_k^T`` (or an estimate).
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
    wh = whiten(m2, n_components, random_state=random_state)
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
        w, mu = single_topic_decomposition(
            m2, lambda W: ImplicitMomentTensor.from_documents(mom.X, W), K, random_state)
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
