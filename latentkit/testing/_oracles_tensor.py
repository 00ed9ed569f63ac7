"""Naive NumPy oracles of the tensor-completion and sparse-tensor kernels
(:mod:`latentkit._kernels.completion`, :mod:`latentkit._kernels.sparse_tensor`).

Written for clarity, not speed: the COO kernels' oracles loop over the observed entries one at
a time (or gather them with ``einsum``) without the kernels' row pointer, and the dense mode
contractions are single ``einsum`` calls. The kernels must match them to 1e-10.
"""

import numpy as np

__all__ = [
    "coo_als_update_oracle",
    "coo_contract_oracle",
    "coo_residual_oracle",
    "coo_residual_update_oracle",
    "cp_predict_oracle",
    "mode_contract_oracle",
]


def coo_contract_oracle(ii, jj, kk, vals, scale, U):
    """``scale * T_Omega(I, u_l, u_l)`` for each column of ``U``, one observed entry at a time.

    Parameters
    ----------
    ii, jj, kk : ndarray of shape (m,) of int
        Indices of the observed entries.
    vals : ndarray of shape (m,)
        Their values.
    scale : float
        Multiplier (1 / p for the rescaled sampling operator of Jain & Oh 2014).
    U : ndarray of shape (n, L)

    Returns
    -------
    ndarray of shape (n, L)
        ``out[i, l] = scale * sum_{e: ii[e] = i} vals[e] U[jj[e], l] U[kk[e], l]``.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.testing import coo_contract_oracle
    >>> ii = jj = kk = np.array([0, 1])  # the diagonal entries T[0,0,0] and T[1,1,1]
    >>> vals = np.array([2.0, 3.0])
    >>> U = np.array([[1.0], [1.0]])
    >>> coo_contract_oracle(ii, jj, kk, vals, 1.0, U)
    array([[2.],
           [3.]])
    """
    out = np.zeros_like(U, dtype=np.float64)
    for i, j, k, v in zip(ii, jj, kk, vals):
        out[i] += scale * v * U[j] * U[k]
    return out


def coo_als_update_oracle(ii, jj, kk, resid, u, sigma, n):
    """Least-squares row update of one rank-one component (Jain & Oh 2014, Algorithm 1, step 3).

    Parameters
    ----------
    ii, jj, kk : ndarray of shape (m,) of int
        Indices of the observed entries.
    resid : ndarray of shape (m,)
        Residual of all components at the observed entries.
    u : ndarray of shape (n,)
        The component's current factor.
    sigma : float
        Its weight.
    n : int
        Size of each mode.

    Returns
    -------
    ndarray of shape (n,)
        ``sum_e (resid_e + sigma u_i u_j u_k) u_j u_k / sum_e (u_j u_k)^2`` over the entries
        with first index ``i`` (0 for a row without information).

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.testing import coo_als_update_oracle
    >>> ii = jj = kk = np.array([0, 1])
    >>> u = np.array([1.0, 1.0])
    >>> resid = np.array([0.0, 0.0])  # the component explains the observed entries exactly
    >>> new_u = coo_als_update_oracle(ii, jj, kk, resid, u, 1.0, 2)
    >>> np.round(np.asarray(new_u, dtype=float), 6)
    array([1., 1.])
    """
    num, den = np.zeros(n), np.zeros(n)
    for e, (i, j, k) in enumerate(zip(ii, jj, kk)):
        b = u[j] * u[k]
        num[i] += (resid[e] + sigma * u[i] * b) * b
        den[i] += b * b
    return np.where(den > 0, num / np.where(den > 0, den, 1), 0.0)


def coo_residual_update_oracle(ii, jj, kk, resid, u_old, sigma_old, u_new, sigma_new):
    """The residual after replacing one rank-one component (a new array; ``resid`` is kept).

    Parameters
    ----------
    ii, jj, kk : ndarray of shape (m,) of int
    resid : ndarray of shape (m,)
    u_old, u_new : ndarray of shape (n,)
        The component's factor before and after its update.
    sigma_old, sigma_new : float
        Its weight before and after.

    Returns
    -------
    ndarray of shape (m,)
        ``resid + sigma_old u_old^{(x)3} - sigma_new u_new^{(x)3}`` at the entries.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.testing import coo_residual_update_oracle
    >>> ii = jj = kk = np.array([0, 1])
    >>> resid = np.array([1.0, 1.0])
    >>> u_old = np.array([1.0, 0.0]); u_new = np.array([0.0, 1.0])
    >>> coo_residual_update_oracle(ii, jj, kk, resid, u_old, 1.0, u_new, 0.5)
    array([2. , 0.5])
    """
    return (resid + sigma_old * u_old[ii] * u_old[jj] * u_old[kk]
            - sigma_new * u_new[ii] * u_new[jj] * u_new[kk])


def coo_residual_oracle(ii, jj, kk, vals, weights, F):
    """Residual of a symmetric CP model at the observed entries.

    Parameters
    ----------
    ii, jj, kk : ndarray of shape (m,) of int
    vals : ndarray of shape (m,)
    weights : ndarray of shape (R,)
    F : ndarray of shape (n, R)
        Shared factor of the three modes.

    Returns
    -------
    ndarray of shape (m,)
        ``vals[e] - sum_r weights[r] F[i, r] F[j, r] F[k, r]``.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.testing import coo_residual_oracle
    >>> F = np.array([[1.0], [0.0]])  # one component e_1 in R^2
    >>> ii = jj = kk = np.array([0, 1])
    >>> vals = np.array([3.0, 1.0])
    >>> coo_residual_oracle(ii, jj, kk, vals, np.array([2.0]), F)  # T[0,0,0] = 3 - 2, T[1,1,1] = 1 - 0
    array([1., 1.])
    """
    return vals - np.einsum("r,er,er,er->e", weights, F[ii], F[jj], F[kk])


def cp_predict_oracle(ii, jj, kk, weights, A, B, C):
    """Entries of a (possibly asymmetric) CP tensor.

    Parameters
    ----------
    ii, jj, kk : ndarray of shape (m,) of int
    weights : ndarray of shape (R,)
    A, B, C : ndarray of shape (n_i, R), (n_j, R), (n_k, R)

    Returns
    -------
    ndarray of shape (m,)
        ``sum_r weights[r] A[i, r] B[j, r] C[k, r]``.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.testing import cp_predict_oracle
    >>> A = np.array([[1.0], [2.0]])
    >>> ii = np.array([0, 1]); jj = np.array([1, 1]); kk = np.array([1, 0])
    >>> cp_predict_oracle(ii, jj, kk, np.array([0.5]), A, A, A)  # 0.5 * A[i] A[j] A[k]
    array([2., 2.])
    """
    return np.einsum("r,er,er,er->e", weights, A[ii], B[jj], C[kk])


_MODE_SUBSCRIPTS = {0: "ijk,jl,kl->il", 1: "ijk,il,kl->jl", 2: "ijk,il,jl->kl"}


def mode_contract_oracle(T, mode, Y, Z):
    """Batched mode contraction of a dense third-order tensor with ``einsum``.

    Parameters
    ----------
    T : ndarray of shape (d1, d2, d3)
    mode : {0, 1, 2}
        The free mode.
    Y, Z : ndarray of shape (d_a, L), (d_b, L)
        Vectors for the two other modes, in increasing mode order.

    Returns
    -------
    ndarray of shape (d_mode, L)
        Column ``l``: ``T(I, y_l, z_l)``, ``T(y_l, I, z_l)`` or ``T(y_l, z_l, I)``
        (Sun, Lu, Liu & Cheng 2017, Algorithm 1).

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.testing import mode_contract_oracle
    >>> T = np.zeros((2, 2, 2)); T[0, 0, 0] = 1.0; T[1, 1, 1] = 2.0
    >>> Y = Z = np.ones((2, 1))
    >>> mode_contract_oracle(T, 0, Y, Z)  # T(I, 1, 1)
    array([[1.],
           [2.]])
    """
    return np.einsum(_MODE_SUBSCRIPTS[mode], T, Y, Z)
