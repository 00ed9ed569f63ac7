"""Robust tensor power method (Anandkumar, Ge, Hsu, Kakade & Telgarsky 2014, Algorithm 1).

SPECTRAL_NOTES.md section 2.1. For each of ``n_components`` components:

1. draw L = ``n_restarts`` starting vectors uniformly on the unit sphere (normalised Gaussians)
   and iterate ``u <- T_i(I, u, u) / ||T_i(I, u, u)||`` on all of them together (one batched
   contraction per iteration; converged candidates leave the batch);
2. keep the candidate with the largest ``T_i(u, u, u)`` ("boosting");
3. polish it with up to ``n_iter`` further power updates; ``lambda = T_i(u, u, u)``;
4. deflate implicitly: ``T_{i+1}(I, u, u) = T(I, u, u) - sum_{j<=i} lambda_j (v_j . u)^2 v_j``
   (O(d k) per vector, the tensor is never copied).

A candidate stops when ``min(||u_t - u_{t-1}||, ||u_t + u_{t-1}||) < tol``.
"""

from collections import namedtuple

import numpy as np

from .._kernels.spectral import dense_power_iterate, dense_rows_contract
from .._utils.validation import check_random_state, check_scalar
from ..base import ParamsMixin
from ._tensors import SymmetricTensor, as_tensor_operator, operator_dim
from .._utils.threads import blas_single_thread

__all__ = ["robust_tensor_power", "RobustTensorPower", "TensorPowerResult"]

import numbers
from ..exceptions import InputError

TensorPowerResult = namedtuple("TensorPowerResult", ["eigenvalues", "eigenvectors", "history"])
TensorPowerResult.__doc__ = """Result of a tensor power method.

eigenvalues : ndarray of shape (n_components,)
    ``lambda_i``, sorted in decreasing order.
eigenvectors : ndarray of shape (d, n_components)
    Unit columns ``v_i`` (same order).
history : list of dict, one per component (same order)
    ``restart_iters`` (ndarray (L,), power iterations run by each start), ``scores`` (ndarray
    (L,), the boosting scores ``T_i(u, u, u)``), ``best_restart``, ``polish_iters``,
    ``converged`` (bool: the polished vector met ``tol``), ``extraction_order``.

Examples
--------
>>> import numpy as np
>>> from latentkit.spectral import robust_tensor_power
>>> T = np.zeros((3, 3, 3)); T[0, 0, 0] = 2.0; T[1, 1, 1] = 1.0
>>> res = robust_tensor_power(T, n_components=2, random_state=0)
>>> type(res).__name__, res.eigenvectors.shape, len(res.history)
('TensorPowerResult', (3, 2), 2)
"""


_HISTORY_FIELDS = ("restart_iters", "scores", "best_restart", "polish_iters", "converged",
                   "extraction_order")


def pack_history(history):
    """A power-method history (list of k dicts) as arrays, for ``latentkit.save``.

    Returns
    -------
    dict
        ``restart_iters`` (k, L) int64, ``scores`` (k, L) float64, ``best_restart``,
        ``polish_iters``, ``extraction_order`` (k,) int64, ``converged`` (k,) bool.
    """
    out = {}
    for name in _HISTORY_FIELDS:
        vals = [h[name] for h in history]
        if name == "scores":
            out[name] = np.array(vals, dtype=np.float64).reshape(len(history), -1)
        elif name == "restart_iters":
            out[name] = np.array(vals, dtype=np.int64).reshape(len(history), -1)
        elif name == "converged":
            out[name] = np.array(vals, dtype=bool)
        else:
            out[name] = np.array(vals, dtype=np.int64)
    return out


def unpack_history(arrays):
    """Inverse of :func:`pack_history`: list of k dicts (the form of ``TensorPowerResult.history``)."""
    k = len(arrays["best_restart"])
    return [{"restart_iters": np.array(arrays["restart_iters"][i], dtype=int),
             "scores": np.array(arrays["scores"][i], dtype=np.float64),
             "best_restart": int(arrays["best_restart"][i]),
             "polish_iters": int(arrays["polish_iters"][i]),
             "converged": bool(arrays["converged"][i]),
             "extraction_order": int(arrays["extraction_order"][i])} for i in range(k)]


class HistoryStateMixin:
    """Fitted state of an estimator with a ``history_`` (a list of dicts): stored as the
    arrays of :func:`pack_history` under the state entry ``history`` (a history not in the
    standard form is not stored)."""

    def _get_state(self):
        state = super()._get_state()
        history = state.pop("history_", None)
        if history is not None:
            try:
                state["history"] = pack_history(history)
            except (KeyError, TypeError, ValueError):  # not the standard form: not stored
                pass
        return state

    def _set_state(self, state):
        state = dict(state)
        history = state.pop("history", None)
        super()._set_state(state)
        # None when the fit kept none (or one not in the standard form, which is not stored)
        self.history_ = None if history is None else unpack_history(history)


def _deflate(out, U, lam, V, ncomp):
    """out -= sum_{j<ncomp} lam_j (v_j.u)^2 v_j for every column u of U (in place)."""
    if ncomp:
        P = V[:, :ncomp].T @ U  # ncomp x L
        out -= V[:, :ncomp] @ (lam[:ncomp, None] * P * P)
    return out


def _deflated_eval(op, U, lam, V, ncomp):
    val = np.asarray(op.evaluate(U), dtype=np.float64).reshape(-1)
    if ncomp:
        P = V[:, :ncomp].T @ U
        val = val - (lam[:ncomp, None] * P ** 3).sum(axis=0)
    return val


def _contract(op, U, d):
    out = np.asarray(op.contract(U), dtype=np.float64)
    if out.shape != U.shape:
        raise InputError(f"T.contract(U) must return shape {U.shape}, got {out.shape}.")
    if not np.all(np.isfinite(out)):
        raise InputError("T.contract(U) returned NaN or infinity; check the tensor for NaN.")
    return np.array(out, copy=True)


def _normalise(Y, rng, d):
    """Column-normalise; columns of (near) zero norm are redrawn at random. Returns (U, n_redrawn)."""
    norms = np.linalg.norm(Y, axis=0)
    bad = ~(norms > 1e-300)
    if bad.any():
        R = rng.standard_normal((d, int(bad.sum())))
        Y[:, bad] = R
        norms[bad] = np.linalg.norm(R, axis=0)
    return Y / norms, int(bad.sum())


def _step_change(U_new, U_old):
    a = np.linalg.norm(U_new - U_old, axis=0)
    b = np.linalg.norm(U_new + U_old, axis=0)
    return np.minimum(a, b)


#: Smallest contraction (d^3 x active starts multiply-adds) run on numba's thread pool.
_PAR_MIN_WORK = 2 ** 23


def _rtpm_dense(T, k, L, N, tol, rng):
    """The method of :func:`robust_tensor_power` for a dense symmetric array, every phase in the
    numba kernel ``dense_power_iterate`` (one call per phase; same steps and outputs)."""
    d = T.shape[0]
    lam = np.zeros(k)
    Vt = np.zeros((k, d))
    history = []
    info = np.zeros(2)

    def deflated_scores(Ut, i):
        Y = np.empty_like(Ut)
        dense_rows_contract(T, Ut, Ut.shape[0], Y)
        val = np.einsum("li,li->l", Ut, Y)
        if i:
            P = Ut @ Vt[:i].T  # L x i
            val = val - (P ** 3) @ lam[:i]
        return val

    for i in range(k):
        Ut = np.ascontiguousarray(rng.standard_normal((d, L)).T)
        Ut /= np.linalg.norm(Ut, axis=1)[:, None]
        spare = np.ascontiguousarray(rng.standard_normal((d, L)).T)
        iters = np.zeros(L, dtype=np.int64)
        conv = np.zeros(L, dtype=np.int8)
        dense_power_iterate(T, Ut, Vt, lam, i, N, tol, spare, iters, conv, info, _PAR_MIN_WORK)
        if not info[0] > max(1e-300, 1e-12 * (lam[0] if i else 0.0)):
            raise InputError(
                f"The tensor is zero after deflating {i} component(s): n_components={k} "
                f"exceeds its rank ({i}).")
        if not np.all(np.isfinite(Ut)):
            raise InputError("the power iterations overflowed (NaN or infinity); rescale the tensor.")
        scores = deflated_scores(Ut, i)
        best = int(np.argmax(scores))
        u = Ut[best:best + 1].copy()
        pit = np.zeros(1, dtype=np.int64)
        pconv = np.zeros(1, dtype=np.int8)
        dense_power_iterate(T, u, Vt, lam, i, N, tol, spare, pit, pconv, info, _PAR_MIN_WORK)
        value = float(deflated_scores(u, i)[0])
        if value < 0:
            u, value = -u, -value
        lam[i] = value
        Vt[i] = u[0]
        history.append({"restart_iters": iters.astype(int), "scores": scores,
                        "best_restart": best, "polish_iters": int(pit[0]),
                        "converged": bool(pconv[0]), "extraction_order": i})
    order = np.argsort(-lam, kind="stable")
    return TensorPowerResult(lam[order].copy(), Vt[order].T.copy(), [history[j] for j in order])


def robust_tensor_power(T, n_components, n_restarts=20, n_iter=100, tol=1e-10,
                        random_state=None, check_symmetric=True):
    """Decompose a symmetric third-order tensor by the robust tensor power method.

    Finds ``T ~= sum_i lambda_i v_i^{(x)3}`` for an (approximately) orthogonally decomposable
    tensor, one component at a time with implicit deflation.

    Parameters
    ----------
    T : array-like of shape (d, d, d), or an object with ``contract(U)`` and ``evaluate(U)``
        The tensor: a dense symmetric array, an
        :class:`~latentkit.spectral.ImplicitMomentTensor`, or any object with
        ``contract(U) -> (d, L)`` (``T(I, u_l, u_l)`` per column of ``U``, shape (d, L)),
        ``evaluate(U) -> (L,)`` (``T(u_l, u_l, u_l)``) and ``shape = (d, d, d)`` (or an int
        ``dim``), e.g. a noisy operator.
    n_components : int
        Number of components k, ``1 <= k <= d``.
    n_restarts : int, default 20
        L, random starts per component, iterated together in one batched contraction.
    n_iter : int, default 100
        Maximum power iterations N per start, and for the polishing phase.
    tol : float, default 1e-10
        Stop a vector when ``min(||u_t - u_{t-1}||, ||u_t + u_{t-1}||) < tol`` (use about
        1e-6 for sampled or noisy tensors; ``tol=0`` always runs ``n_iter`` iterations).
    random_state : None, int or numpy.random.Generator
        Source of the starting vectors.
    check_symmetric : bool, default True
        Check that a dense array is symmetric.

    Returns
    -------
    TensorPowerResult
        Named tuple ``(eigenvalues, eigenvectors, history)``: eigenvalues of shape (k,), sorted
        in decreasing order; eigenvectors of shape (d, k), unit columns; history, a list of k
        dicts (``restart_iters``, ``scores``, ``best_restart``, ``polish_iters``, ``converged``,
        ``extraction_order``).

    Raises
    ------
    ValueError
        ``n_components`` larger than d, bad hyper-parameters, a non-symmetric dense tensor,
        NaN or infinity in the tensor, or a tensor that is zero (relative to
        ``1e-12 lambda_1``) after deflation, i.e. ``n_components`` exceeds its rank.
    TypeError
        ``T`` is neither an array nor an operator.

    Notes
    -----
    Source: Anandkumar, Ge, Hsu, Kakade & Telgarsky, "Tensor decompositions for learning
    latent variable models", JMLR 15 (2014), Algorithm 1 and Theorem 5.1; implementation
    choices in SPECTRAL_NOTES.md section 2.1. For an odeco tensor ``sum_i lambda_i v_i^{(x)3}``
    with ``lambda_i > 0`` the method recovers every ``(lambda_i, v_i)`` to machine precision.
    The sign is fixed so that ``lambda_i >= 0`` (odd order: ``(-v, -lambda)`` is the same term).

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.spectral import robust_tensor_power
    >>> T = np.zeros((3, 3, 3)); T[0, 0, 0] = 2.0; T[1, 1, 1] = 1.0  # 2 e1^3 + e2^3
    >>> res = robust_tensor_power(T, n_components=2, random_state=0)
    >>> np.round(res.eigenvalues, 6)
    array([2., 1.])
    >>> np.round(np.abs(res.eigenvectors), 6)
    array([[1., 0.],
           [0., 1.],
           [0., 0.]])
    """
    op = as_tensor_operator(T, check_symmetric=check_symmetric)
    d = operator_dim(op)
    k = check_scalar(n_components, "n_components", numbers.Integral, low=1)
    if k > d:
        raise InputError(f"n_components={k} exceeds the tensor dimension d={d}; "
                         f"a symmetric d x d x d tensor has at most d orthogonal components.")
    L = check_scalar(n_restarts, "n_restarts", numbers.Integral, low=1)
    N = check_scalar(n_iter, "n_iter", numbers.Integral, low=1)
    tol = check_scalar(tol, "tol", numbers.Real, low=0.0)
    rng = check_random_state(random_state)

    if type(op) is SymmetricTensor:
        with blas_single_thread():
            return _rtpm_dense(op.array, k, L, N, tol, rng)
    lam = np.zeros(k)
    V = np.zeros((d, k))
    history = []
    for i in range(k):
        U = rng.standard_normal((d, L))
        U /= np.linalg.norm(U, axis=0)
        iters = np.zeros(L, dtype=int)
        active = np.arange(L)
        for t in range(N):
            Ua = U[:, active]
            Y = _deflate(_contract(op, Ua, d), Ua, lam, V, i)
            if t == 0 and not np.any(np.linalg.norm(Y, axis=0)
                                     > max(1e-300, 1e-12 * (lam[0] if i else 0.0))):
                raise InputError(
                    f"The tensor is zero after deflating {i} component(s): n_components={k} "
                    f"exceeds its rank ({i}).")
            Unew, _ = _normalise(Y, rng, d)
            change = _step_change(Unew, Ua)
            U[:, active] = Unew
            iters[active] += 1
            active = active[change >= tol]
            if active.size == 0:
                break
        scores = _deflated_eval(op, U, lam, V, i)
        best = int(np.argmax(scores))
        u = U[:, best:best + 1].copy()
        converged = False
        n_pol = 0
        for t in range(N):
            y = _deflate(_contract(op, u, d), u, lam, V, i)
            u_new, _ = _normalise(y, rng, d)
            n_pol += 1
            ch = _step_change(u_new, u)[0]
            u = u_new
            if ch < tol:
                converged = True
                break
        value = float(_deflated_eval(op, u, lam, V, i)[0])
        if value < 0:
            u, value = -u, -value
        lam[i] = value
        V[:, i] = u[:, 0]
        history.append({"restart_iters": iters, "scores": scores, "best_restart": best,
                        "polish_iters": n_pol, "converged": converged, "extraction_order": i})
    order = np.argsort(-lam, kind="stable")
    return TensorPowerResult(lam[order].copy(), V[:, order].copy(), [history[j] for j in order])


class RobustTensorPower(HistoryStateMixin, ParamsMixin):
    """Estimator form of :func:`robust_tensor_power` (every argument is forwarded).

    Parameters
    ----------
    n_components : int
    n_restarts : int, default 20
    n_iter : int, default 100
    tol : float, default 1e-10
    random_state : None, int or numpy.random.Generator
    check_symmetric : bool, default True
        See :func:`robust_tensor_power`.

    Attributes
    ----------
    eigenvalues_ : ndarray of shape (n_components,)
    eigenvectors_ : ndarray of shape (d, n_components)
    history_ : list of dict
        As ``TensorPowerResult.history``; :func:`latentkit.save` / :func:`latentkit.load`
        round-trip it (stored as arrays).
    n_features_in_ : int
        d.

    Notes
    -----
    Source: Anandkumar, Ge, Hsu, Kakade & Telgarsky (2014), Algorithm 1.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.spectral import RobustTensorPower
    >>> T = np.zeros((3, 3, 3)); T[0, 0, 0] = 2.0; T[1, 1, 1] = 1.0
    >>> est = RobustTensorPower(n_components=2, random_state=0).fit(T)
    >>> np.round(est.eigenvalues_, 6), est.eigenvectors_.shape
    (array([2., 1.]), (3, 2))
    """

    def __init__(self, n_components, n_restarts=20, n_iter=100, tol=1e-10, random_state=None,
                 check_symmetric=True):
        self.n_components = n_components
        self.n_restarts = n_restarts
        self.n_iter = n_iter
        self.tol = tol
        self.random_state = random_state
        self.check_symmetric = check_symmetric

    def fit(self, T, y=None):
        """Decompose ``T`` (a (d, d, d) array or an operator); returns self.

        Raises
        ------
        ValueError, TypeError
            As :func:`robust_tensor_power`.
        """
        res = robust_tensor_power(T, **self.get_params(deep=False))
        self.eigenvalues_, self.eigenvectors_ = res.eigenvalues, res.eigenvectors
        self.history_ = res.history
        self.n_features_in_ = self.eigenvectors_.shape[0]
        return self

    def reconstruct(self):
        """Dense ``sum_i lambda_i v_i^{(x)3}``, shape (d, d, d)."""
        V, lam = self.eigenvectors_, self.eigenvalues_
        return np.einsum("i,ai,bi,ci->abc", lam, V, V, V)
