"""Planted sparse CP tensors and the factor error of a decomposition (Sun, Lu, Liu & Cheng
2017, section 5: sparse factors, column-normalised but not orthogonalised)."""

import numpy as np
from scipy.optimize import linear_sum_assignment

__all__ = ["planted_sparse_cp", "cp_factor_error"]


def planted_sparse_cp(dims, weights, sparsity, sigma, random_state=None):
    """A tensor ``sum_j w_j a_j o b_j o c_j + sigma E`` with sparse, non-orthogonal factors.

    Parameters
    ----------
    dims : tuple of 3 int
        ``(d1, d2, d3)``.
    weights : array-like of shape (K,)
        ``w_j``.
    sparsity : tuple of 3 int
        Non-zeros per factor in each mode (at random positions, standard normal values, then
        each column scaled to unit norm).
    sigma : float
        Standard deviation of the i.i.d. Gaussian noise ``E``.
    random_state : None, int or numpy.random.Generator

    Returns
    -------
    T : ndarray of shape dims
    factors : list of 3 ndarrays of shapes (d_m, K)
        Unit columns.

    Examples
    --------
    >>> from latentkit.testing import planted_sparse_cp
    >>> import numpy as np
    >>> T, factors = planted_sparse_cp((6, 5, 4), [2.0, 1.0], sparsity=(2, 2, 2), sigma=0.0,
    ...                                random_state=0)
    >>> T.shape, [f.shape for f in factors]
    ((6, 5, 4), [(6, 2), (5, 2), (4, 2)])
    >>> [int((f != 0).sum(axis=0)[0]) for f in factors]  # 2 non-zeros per column
    [2, 2, 2]
    """
    rng = np.random.default_rng(random_state)
    weights = np.asarray(weights, dtype=np.float64)
    K = weights.size
    factors = []
    for d, s in zip(dims, sparsity):
        M = np.zeros((d, K))
        for j in range(K):
            idx = rng.choice(d, s, replace=False)
            M[idx, j] = rng.standard_normal(s)
        factors.append(M / np.linalg.norm(M, axis=0))
    T = np.einsum("r,ir,jr,kr->ijk", weights, *factors)
    return T + sigma * rng.standard_normal(tuple(dims)), factors


def cp_factor_error(est, true):
    """Factor error and support F1 of a CP decomposition, components matched.

    The error of a component is the mean over the three modes of
    ``min(||a_hat - a||, ||a_hat + a||)``; components are matched by the assignment that
    minimises the total error.

    Parameters
    ----------
    est, true : sequences of 3 ndarrays of shapes (d_m, K)
        Estimated and true factors (unit columns).

    Returns
    -------
    error : float
        Mean over the components of their error.
    f1 : float
        Mean over components and modes of the F1 score of the estimated support (non-zeros).
    perm : ndarray of shape (K,)
        ``est[:, perm[j]]`` is matched to ``true[:, j]``.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.testing import cp_factor_error
    >>> A = np.eye(3)[:, :2]
    >>> error, f1, perm = cp_factor_error([A, A, A], [A, A, A])
    >>> round(error, 6), round(f1, 6), perm
    (0.0, 1.0, array([0, 1]))
    """
    K = true[0].shape[1]
    cost = np.zeros((K, K))
    for A, B in zip(est, true):
        diff = np.linalg.norm(A[:, :, None] - B[:, None, :], axis=0)
        summ = np.linalg.norm(A[:, :, None] + B[:, None, :], axis=0)
        cost += np.minimum(diff, summ) / 3.0
    rows, cols = linear_sum_assignment(cost)  # rows: estimated, cols: true
    perm = np.empty(K, dtype=int)
    perm[cols] = rows
    f1 = []
    for A, B in zip(est, true):
        for j in range(K):
            e, t = A[:, perm[j]] != 0, B[:, j] != 0
            f1.append(2.0 * np.sum(e & t) / (e.sum() + t.sum()))
    return float(cost[perm, np.arange(K)].mean()), float(np.mean(f1)), perm
