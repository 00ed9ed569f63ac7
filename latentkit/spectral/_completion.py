"""Symmetric tensor completion by alternating minimisation (Jain & Oh 2014, Algorithm 1).

Model: ``T = sum_{l=1}^r sigma_l u_l^{(x)3}`` (n x n x n, ``u_l`` unit, incoherent); a set
``Omega`` of entries is observed. Steps (SPECTRAL_NOTES.md section 2.5 and section 4, item 4):

1. robust tensor power method (Anandkumar et al. 2014, Alg. 1) on ``(1/p) P_Omega(T)``,
   ``p = |Omega| / n^3``, through a COO contraction kernel (never a dense array);
2. optional clipping: entries of ``u_l`` above ``2 mu / sqrt(n)`` in magnitude are zeroed and the
   vector renormalised (off by default, as in the paper's experiments);
3. alternating minimisation, one component at a time:
   ``u_hat = argmin_u || P_Omega(T - sum_{l != q} sigma_l u_l^{(x)3} - u (x) u_q (x) u_q) ||_F^2``
   (closed form per coordinate over the observed entries of that row), ``sigma_q = ||u_hat||``,
   ``u_q = u_hat / sigma_q``; optionally on fresh samples per sweep (sample splitting).

Observed entries: by default (``symmetric=True``) an observation of ``(i, j, k)`` is an
observation of the symmetric entry and of all its permutations (the paper's sampling model:
each ``i <= j <= k`` is observed and then all permutations are). Duplicates (the same entry, up
to permutation when ``symmetric=True``, given twice) raise by default, or are averaged with
``duplicates='average'``.
"""

import numbers
import warnings
from dataclasses import dataclass, field

import numpy as np

from .._kernels.completion import (coo_als_update, coo_contract, coo_residual,
                                   coo_residual_update, cp_predict)
from .._utils.validation import check_random_state, check_scalar
from ..base import ConvergenceWarning, ParamsMixin
from ._power import robust_tensor_power
from ..base import NotFittedError
from ..exceptions import InputError, InputTypeError

__all__ = ["complete_tensor", "TensorCompletion", "TensorCompletionResult", "ObservedTensor"]


class _COO:
    """Observed entries sorted by first index, with a row pointer (kernel layout)."""

    def __init__(self, ii, jj, kk, vals, n):
        order = np.lexsort((kk, jj, ii))
        self.ii = np.ascontiguousarray(ii[order], dtype=np.int64)
        self.jj = np.ascontiguousarray(jj[order], dtype=np.int64)
        self.kk = np.ascontiguousarray(kk[order], dtype=np.int64)
        self.vals = np.ascontiguousarray(vals[order], dtype=np.float64)
        self.n = n
        counts = np.bincount(self.ii, minlength=n)
        self.rowptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(counts, out=self.rowptr[1:])

    @property
    def size(self):
        return self.vals.shape[0]


class ObservedTensor:
    """``(1/p) P_Omega(T)`` as a tensor operator (``contract``, ``evaluate``, ``shape``).

    Parameters
    ----------
    coo : _COO
        Observed entries (already expanded to all permutations for a symmetric Omega).
    scale : float
        ``1/p``.
    """

    def __init__(self, coo, scale):
        self._coo = coo
        self.scale = float(scale)
        self.shape = (coo.n, coo.n, coo.n)

    def contract(self, U):
        """``(1/p) P_Omega(T)(I, u_l, u_l)`` for the columns of U (shape (n, L)), O(|Omega| L)."""
        U = np.ascontiguousarray(U, dtype=np.float64)
        one = U.ndim == 1
        if one:
            U = U[:, None]
        out = np.empty_like(U)
        c = self._coo
        coo_contract(c.rowptr, c.jj, c.kk, c.vals, self.scale, U, out)
        return out[:, 0] if one else out

    def evaluate(self, U):
        """``(1/p) P_Omega(T)(u_l, u_l, u_l)`` for the columns of U."""
        U = np.ascontiguousarray(U, dtype=np.float64)
        return np.einsum("il,il->l", U, self.contract(U)) if U.ndim == 2 else \
            float(U @ self.contract(U))


@dataclass
class TensorCompletionResult:
    """Output of :func:`complete_tensor`.

    Attributes
    ----------
    weights : ndarray of shape (rank,)
        ``sigma_l`` (positive).
    factors : ndarray of shape (n, rank)
        Unit columns ``u_l``.
    fit_errors : ndarray of shape (n_sweeps + 1,)
        Relative observed-entry error ``||P_Omega(T - T_hat)||_F / ||P_Omega(T)||_F`` after the
        initialisation (entry 0) and after every alternating-minimisation sweep.
    n_iter : int
        Sweeps run.
    converged : bool
        Whether ``fit_errors[-1] < tol``.
    p : float
        Observed fraction ``|Omega| / n^3`` (after symmetric expansion).
    init_weights, init_factors : ndarray
        The RTPM initialisation (after optional clipping).
    """

    weights: np.ndarray
    factors: np.ndarray
    fit_errors: np.ndarray
    n_iter: int
    converged: bool
    p: float
    init_weights: np.ndarray = field(repr=False, default=None)
    init_factors: np.ndarray = field(repr=False, default=None)

    def predict(self, indices):
        """Predicted entries ``sum_l sigma_l u_l[i] u_l[j] u_l[k]``.

        Parameters
        ----------
        indices : array-like of int, shape (m, 3)

        Returns
        -------
        ndarray of shape (m,)

        Raises
        ------
        ValueError
            Wrong shape or an index outside ``[0, n)``.
        """
        return _predict_entries(self.weights, self.factors, indices)

    def to_dense(self):
        """The completed tensor as a dense (n, n, n) array (small n only)."""
        F = self.factors
        return np.einsum("r,ir,jr,kr->ijk", self.weights, F, F, F)


def _predict_entries(weights, factors, indices):
    """``sum_l w_l u_l[i] u_l[j] u_l[k]`` at validated ``indices`` (m, 3) -> (m,)."""
    n = factors.shape[0]
    idx = _check_indices(indices, (n, n, n))
    out = np.empty(idx.shape[0])
    F = np.ascontiguousarray(factors, dtype=np.float64)
    cp_predict(idx[:, 0].copy(), idx[:, 1].copy(), idx[:, 2].copy(),
               np.ascontiguousarray(weights, dtype=np.float64), F, F, F, out)
    return out


def _check_indices(indices, shape, name="indices"):
    idx = np.asarray(indices)
    if idx.dtype.kind not in "iu":
        if idx.dtype.kind == "f" and idx.size and np.all(np.isfinite(idx)) and \
                np.all(idx == np.round(idx)):
            idx = idx.astype(np.int64)
        else:
            raise InputTypeError(f"{name} must be an integer array of shape (m, 3), got dtype "
                            f"{idx.dtype}.")
    if idx.ndim != 2 or idx.shape[1] != 3:
        raise InputError(f"{name} must have shape (m, 3), got shape {idx.shape}.")
    idx = idx.astype(np.int64)
    for m in range(3):
        col = idx[:, m]
        if col.size and (col.min() < 0 or col.max() >= shape[m]):
            bad = int(np.flatnonzero((col < 0) | (col >= shape[m]))[0])
            raise InputError(f"{name} row {bad} = {tuple(idx[bad])} is out of bounds for a "
                             f"tensor of shape {tuple(shape)}.")
    return idx


def _prepare_entries(indices, values, n, symmetric, duplicates):
    """Validate, canonicalise, handle duplicates; returns canonical (idx, vals)."""
    idx = _check_indices(indices, (n, n, n))
    vals = np.asarray(values)
    if vals.dtype.kind not in "fiu":
        raise InputTypeError(f"values must be real numbers, got dtype {vals.dtype}.")
    vals = np.asarray(vals, dtype=np.float64).ravel()
    if vals.shape[0] != idx.shape[0]:
        raise InputError(f"values must have one entry per row of indices ({idx.shape[0]}), got "
                         f"{vals.shape[0]}.")
    if not np.all(np.isfinite(vals)):
        raise InputError("values contains NaN or infinity.")
    if idx.shape[0] == 0:
        raise InputError("indices is empty: at least one observed entry is needed.")
    if symmetric:
        idx = np.sort(idx, axis=1)
    key = (idx[:, 0] * n + idx[:, 1]) * n + idx[:, 2]
    uniq, inv, counts = np.unique(key, return_inverse=True, return_counts=True)
    if uniq.size < key.size:
        if duplicates == "raise":
            first = int(np.flatnonzero(counts[inv] > 1)[0])
            what = "up to permutation (symmetric=True)" if symmetric else "exactly"
            raise InputError(
                f"indices contains duplicated entries ({key.size - uniq.size} extra), e.g. "
                f"{tuple(np.asarray(indices)[first])}, repeated {what}; pass "
                f"duplicates='average' to average their values.")
        sums = np.bincount(inv, weights=vals)
        vals = sums / counts
        idx = np.stack([uniq // (n * n), (uniq // n) % n, uniq % n], axis=1)
    return idx, vals


def _expand_permutations(idx, vals):
    """All distinct permutations of canonical (sorted) triples."""
    perms = [(0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)]
    P = np.concatenate([idx[:, p] for p in perms], axis=0)
    V = np.tile(vals, 6)
    n = int(idx.max()) + 1
    key = (P[:, 0] * n + P[:, 1]) * n + P[:, 2]
    _, first = np.unique(key, return_index=True)
    return P[first], V[first]


def _build_coo(idx, vals, n, symmetric):
    if symmetric:
        idx, vals = _expand_permutations(idx, vals)
    return _COO(idx[:, 0], idx[:, 1], idx[:, 2], vals, n)


def _observed_error(coo, weights, F, resid):
    coo_residual(coo.rowptr, coo.jj, coo.kk, coo.vals,
                 np.ascontiguousarray(weights, dtype=np.float64), np.ascontiguousarray(F), resid)
    return resid


def complete_tensor(indices, values, shape, rank, *, symmetric=True, duplicates="raise",
                    n_restarts=20, n_iter_init=20, max_iter=100, tol=1e-12, mu=None,
                    sample_splitting=None, random_state=None):
    """Complete a low-rank symmetric third-order tensor from observed entries.

    Jain & Oh (2014), *Provable tensor factorization with missing data*, NIPS, Algorithm 1:
    robust tensor power initialisation on ``(1/p) P_Omega(T)``, optional clipping at incoherence
    ``mu``, then alternating minimisation over the observed entries only (numba kernels over the
    COO entries; cost ``O(|Omega| r)`` per sweep, no dense n^3 array).

    Parameters
    ----------
    indices : array-like of int, shape (m, 3)
        Observed entries ``(i, j, k)``, ``0 <= i, j, k < n``.
    values : array-like of float, shape (m,)
        ``T[i, j, k]`` at those entries.
    shape : int or tuple of 3 equal ints
        ``n`` or ``(n, n, n)``.
    rank : int
        Number ``r`` of components, ``1 <= r <= n``.
    symmetric : bool, default True
        An observation of ``(i, j, k)`` stands for all its permutations (the paper's symmetric
        sampling); give each entry once, in any order. ``False`` uses the entries as given.
    duplicates : {'raise', 'average'}, default 'raise'
        The same entry (up to permutation when ``symmetric``) given more than once: a
        ``ValueError``, or its values averaged.
    n_restarts, n_iter_init : int, default 20, 20
        Restarts ``L`` and iterations ``N`` of the robust tensor power initialisation.
    max_iter : int, default 100
        Maximum alternating-minimisation sweeps (each updates all r components once).
    tol : float, default 1e-12
        Stop when the relative observed-entry error falls below ``tol``.
    mu : float, optional
        Incoherence for the clipping step (entries above ``2 mu / sqrt(n)`` zeroed, then
        renormalised). ``None`` (default) skips it.
    sample_splitting : int, optional
        Split the observed (canonical) entries at random into this many disjoint parts: part 0
        for the initialisation, the sweeps cycle through the others (the paper's analysis uses
        fresh samples each iteration). ``None``: every step uses all entries.
    random_state : None, int or numpy.random.Generator

    Returns
    -------
    TensorCompletionResult
        ``weights`` (r,), ``factors`` (n, r), ``fit_errors`` (n_iter + 1,), ``n_iter``,
        ``converged``, ``p``, and ``predict(indices)`` for any entries.

    Raises
    ------
    ValueError
        Indices out of bounds, of the wrong shape or duplicated (with ``duplicates='raise'``),
        values of the wrong length or not finite, a non-cubical shape, bad hyper-parameters.
    TypeError
        Non-integer indices.

    Examples
    --------
    >>> import itertools
    >>> import numpy as np
    >>> from latentkit.spectral import complete_tensor
    >>> u = np.array([1.0, 2.0, 2.0, 1.0]) / np.sqrt(10)
    >>> idx = np.array([t for t in itertools.combinations_with_replacement(range(4), 3)])
    >>> vals = 3.0 * u[idx[:, 0]] * u[idx[:, 1]] * u[idx[:, 2]]  # T = 3 u^3, every entry seen
    >>> res = complete_tensor(idx, vals, 4, rank=1, random_state=0)
    >>> np.round(res.weights, 6), np.round(np.abs(res.factors[:, 0]) * np.sqrt(10), 6)
    (array([3.]), array([1., 2., 2., 1.]))
    """
    if isinstance(shape, numbers.Integral):
        shape = (int(shape),) * 3
    shape = tuple(int(s) for s in shape)
    if len(shape) != 3 or not (shape[0] == shape[1] == shape[2]) or shape[0] < 1:
        raise InputError(f"shape must be n or (n, n, n) with n >= 1 (a symmetric tensor), got "
                         f"{shape}.")
    n = shape[0]
    rank = check_scalar(rank, "rank", numbers.Integral, low=1, high=n)
    n_restarts = check_scalar(n_restarts, "n_restarts", numbers.Integral, low=1)
    n_iter_init = check_scalar(n_iter_init, "n_iter_init", numbers.Integral, low=1)
    max_iter = check_scalar(max_iter, "max_iter", numbers.Integral, low=0)
    tol = check_scalar(tol, "tol", numbers.Real, low=0.0)
    if mu is not None:
        mu = check_scalar(mu, "mu", numbers.Real, low=0.0, low_inclusive=False)
    if duplicates not in ("raise", "average"):
        raise InputError(f"duplicates must be 'raise' or 'average', got {duplicates!r}.")
    if sample_splitting is not None:
        sample_splitting = check_scalar(sample_splitting, "sample_splitting", numbers.Integral,
                                        low=2)
    rng = check_random_state(random_state)

    idx, vals = _prepare_entries(indices, values, n, bool(symmetric), duplicates)
    full = _build_coo(idx, vals, n, symmetric)
    if sample_splitting is None:
        parts = [full]
    else:
        lab = rng.permutation(idx.shape[0]) % sample_splitting
        parts = []
        for s in range(sample_splitting):
            sel = lab == s
            if not sel.any():
                raise InputError(f"sample_splitting={sample_splitting} leaves a part empty; "
                                 f"use fewer parts ({idx.shape[0]} entries).")
            parts.append(_build_coo(idx[sel], vals[sel], n, symmetric))
    init_coo = parts[0]
    p = full.size / float(n) ** 3

    # 1. RTPM on (1/p_0) P_Omega0(T)
    op = ObservedTensor(init_coo, n ** 3 / init_coo.size)
    res = robust_tensor_power(op, rank, n_restarts=n_restarts, n_iter=n_iter_init, tol=1e-6,
                              random_state=rng)
    w = np.array(res.eigenvalues, dtype=np.float64)
    F = np.array(res.eigenvectors, dtype=np.float64, order="F")
    # 2. optional clipping at incoherence mu
    if mu is not None:
        thr = 2.0 * mu / np.sqrt(n)
        F[np.abs(F) > thr] = 0.0
        nrm = np.linalg.norm(F, axis=0)
        nrm[nrm == 0] = 1.0
        F /= nrm
    init_w, init_F = w.copy(), F.copy()
    F = np.ascontiguousarray(F)

    norm_obs = float(np.linalg.norm(full.vals))
    if norm_obs == 0:
        norm_obs = 1.0
    resid_full = np.empty(full.size)
    errors = [float(np.linalg.norm(_observed_error(full, w, F, resid_full))) / norm_obs]
    # 3. alternating minimisation
    sweep_parts = parts[1:] if len(parts) > 1 else parts
    resids = [np.empty(c.size) for c in sweep_parts]
    n_iter = 0
    converged = errors[-1] < tol
    unew = np.empty(n)
    diverged = False
    while not converged and n_iter < max_iter:
        c = sweep_parts[n_iter % len(sweep_parts)]
        resid = resids[n_iter % len(sweep_parts)]
        w_prev, F_prev = w.copy(), F.copy()
        with np.errstate(over="ignore", invalid="ignore"):
            _observed_error(c, w, F, resid)
            for q in range(rank):
                uq = np.ascontiguousarray(F[:, q])
                coo_als_update(c.rowptr, c.jj, c.kk, resid, uq, w[q], unew)
                s = float(np.linalg.norm(unew))
                if s == 0.0:  # no information: keep the component, drop its weight
                    new_u, s = uq.copy(), 0.0
                else:
                    new_u = unew / s
                coo_residual_update(c.rowptr, c.jj, c.kk, resid, uq, w[q], new_u, s)
                F[:, q] = new_u
                w[q] = s
            err = float(np.linalg.norm(_observed_error(full, w, F, resid_full))) / norm_obs
        n_iter += 1
        if not np.isfinite(err) or err > 1e6:
            # under-determined rows (too few observations) can make the least squares blow up:
            # keep the last finite estimate and stop
            w, F, diverged = w_prev, F_prev, True
            warnings.warn(f"alternating minimisation diverged at sweep {n_iter} (observed-entry "
                          f"error {err:.3g}); returning the previous estimate. Too few observed "
                          f"entries (p = {p:.3g}) for rank {rank}?", ConvergenceWarning,
                          stacklevel=2)
            break
        errors.append(err)
        converged = err < tol
    return TensorCompletionResult(weights=w, factors=F, fit_errors=np.array(errors),
                                  n_iter=n_iter, converged=bool(converged and not diverged), p=p,
                                  init_weights=init_w, init_factors=init_F)


class TensorCompletion(ParamsMixin):
    """Estimator wrapper of :func:`complete_tensor` (forwards every argument).

    Parameters
    ----------
    rank, symmetric, duplicates, n_restarts, n_iter_init, max_iter, tol, mu, sample_splitting,
    random_state
        As in :func:`complete_tensor`.

    Attributes
    ----------
    weights_ : ndarray of shape (rank,)
    factors_ : ndarray of shape (n, rank)
    fit_errors_ : ndarray of shape (``n_iter_`` + 1,)
    n_iter_ : int
    converged_ : bool
    result_ : TensorCompletionResult

    Examples
    --------
    >>> import itertools
    >>> import numpy as np
    >>> from latentkit.spectral import TensorCompletion
    >>> u = np.array([1.0, 2.0, 2.0, 1.0]) / np.sqrt(10)
    >>> idx = np.array([t for t in itertools.combinations_with_replacement(range(4), 3)])
    >>> vals = 3.0 * u[idx[:, 0]] * u[idx[:, 1]] * u[idx[:, 2]]
    >>> est = TensorCompletion(rank=1, random_state=0).fit(idx, vals, shape=4)
    >>> np.round(est.weights_, 6), est.factors_.shape
    (array([3.]), (4, 1))
    """

    def __init__(self, rank, symmetric=True, duplicates="raise", n_restarts=20, n_iter_init=20,
                 max_iter=100, tol=1e-12, mu=None, sample_splitting=None, random_state=None):
        self.rank = rank
        self.symmetric = symmetric
        self.duplicates = duplicates
        self.n_restarts = n_restarts
        self.n_iter_init = n_iter_init
        self.max_iter = max_iter
        self.tol = tol
        self.mu = mu
        self.sample_splitting = sample_splitting
        self.random_state = random_state

    def fit(self, indices, values, shape):
        """Fit from observed entries; returns self. See :func:`complete_tensor`."""
        res = complete_tensor(indices, values, shape, self.rank, symmetric=self.symmetric,
                              duplicates=self.duplicates, n_restarts=self.n_restarts,
                              n_iter_init=self.n_iter_init, max_iter=self.max_iter,
                              tol=self.tol, mu=self.mu, sample_splitting=self.sample_splitting,
                              random_state=self.random_state)
        self.result_ = res
        self.weights_ = res.weights
        self.factors_ = res.factors
        self.fit_errors_ = res.fit_errors
        self.n_iter_ = res.n_iter
        self.converged_ = res.converged
        return self

    def predict(self, indices):
        """Predicted entries at ``indices`` (m, 3) -> (m,); see TensorCompletionResult.predict."""
        if not hasattr(self, "factors_"):
            raise NotFittedError("This TensorCompletion instance is not fitted yet; call fit.")
        # from weights_ and factors_ (not result_), so a model restored by latentkit.load predicts
        return _predict_entries(self.weights_, self.factors_, indices)
