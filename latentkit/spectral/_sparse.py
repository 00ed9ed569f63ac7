"""Sparse tensor decomposition by the truncated tensor power method (TTP).

Sun, Lu, Liu & Cheng (2017), *Provable sparse tensor decomposition*, JRSS-B (SPECTRAL_NOTES.md
sections 2.6 and 4, item 5). Model ``T = sum_{j=1}^K w_j a_j o b_j o c_j + E`` for a general
``d1 x d2 x d3`` tensor, unit factors with at most ``s1, s2, s3`` non-zeros.

Rank-one TTP from one starting point (their Algorithm 1), iterated ``n_iter`` times::

    a <- Truncate(T(I, b, c), s1) / ||.||
    b <- Truncate(T(a, I, c), s2) / ||.||
    c <- Truncate(T(a, b, I), s3) / ||.||
    w <- T(a, b, c)          (a's sign flipped when w < 0)

``Truncate(x, s)`` keeps the ``s`` largest-magnitude entries. ``L = max(10, K^3)`` starting
points (sparse-SVD or random) per round, iterated together; the candidate with the largest ``w``
is kept and deflated before the next round (one component at a time). The components need not
be orthogonal, so each was found in the presence of the later ones: the factors are then refined
by alternating updates of each component with the others removed, and the weights refitted by
least squares.
A BIC-type criterion selects ``K`` and the sparsity from grids:
``BIC = log(||T - T_hat||_F^2 / (d1 d2 d3)) + log(d1 d2 d3) / (d1 d2 d3) * df``,
``df = sum_j (||a_j||_0 + ||b_j||_0 + ||c_j||_0)``.

Application (:func:`sparse_spectral_gmm`): for a Gaussian mixture the third cumulant of the data
is ``sum_i w_i (mu_i - m)^{(x)3}`` whatever the (common or not) Gaussian covariances, because
Gaussian noise has zero third cumulant; when the mean differences are sparse, TTP on the implicit
third-cumulant tensor (never formed) selects the few features that carry the cluster structure.
"""

import numbers
from dataclasses import dataclass, field

import numpy as np

from .._kernels.sparse_tensor import mode_contract as _mode_contract_kernel
from .._utils.kmeans import kmeans_plusplus
from .._utils.validation import check_array, check_random_state, check_scalar
from .._utils.deprecation import renamed_attribute, renamed_kwargs
from ..base import ParamsMixin
from ..exceptions import InputError, InputTypeError

__all__ = [
    "truncated_tensor_power",
    "TruncatedTensorPower",
    "TTPResult",
    "select_rank_sparsity",
    "sparse_spectral_gmm",
    "SparseSpectralGMM",
    "ThirdCumulantTensor",
]


# ----------------------------------------------------------------------------- tensor access
class ThirdCumulantTensor:
    """Implicit third cumulant ``(1/n) sum_t x_t^{(x)3}`` of centred rows (never formed).

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Data; centred internally (not modified).

    Notes
    -----
    ``T(I, b, c) = Xc^T ((Xc b) * (Xc c)) / n`` for any ``b, c``, cost O(n d) per vector.
    """

    def __init__(self, X):
        X = check_array(X, "X", ensure_min_samples=3)
        self.Xc = X - X.mean(axis=0)
        self.shape = (X.shape[1],) * 3

    def mode_contract(self, mode, Y, Z):
        """Contract the two modes other than ``mode`` with the columns of Y and Z -> (d, L)."""
        P = (self.Xc @ Y) * (self.Xc @ Z)
        return self.Xc.T @ P / self.Xc.shape[0]


class _Dense:
    """Dense tensor; contractions by the numba kernel ``_kernels.sparse_tensor.mode_contract``."""

    def __init__(self, T):
        self.T = T
        self.shape = T.shape

    def mode_contract(self, mode, Y, Z):
        """Contract the two other modes (in increasing order) with the columns of Y, Z."""
        Y = np.ascontiguousarray(Y, dtype=np.float64)
        Z = np.ascontiguousarray(Z, dtype=np.float64)
        out = np.empty((self.shape[mode], Y.shape[1]))
        _mode_contract_kernel(self.T, mode, Y, Z, out)
        return out


def _as_ttp_tensor(T):
    if hasattr(T, "mode_contract"):
        return T
    arr = np.asarray(T)
    if arr.dtype.kind not in "fiu":
        raise InputTypeError(f"T must be a real (d1, d2, d3) array, got dtype {arr.dtype}.")
    if arr.ndim != 3:
        raise InputError(f"T must be a third-order (d1, d2, d3) array, got shape {arr.shape}.")
    arr = np.ascontiguousarray(arr, dtype=np.float64)
    if not np.all(np.isfinite(arr)):
        raise InputError("T contains NaN or infinity.")
    return _Dense(arr)


class _Deflated:
    """``T - sum_j w_j a_j o b_j o c_j`` (implicit)."""

    def __init__(self, base, w, A, B, C):
        self.base, self.w, self.F = base, w, (A, B, C)
        self.shape = base.shape

    def mode_contract(self, mode, Y, Z):
        out = self.base.mode_contract(mode, Y, Z)
        if self.w.size:
            others = [m for m in range(3) if m != mode]
            coef = (self.F[others[0]].T @ Y) * (self.F[others[1]].T @ Z)  # K x L
            out = out - self.F[mode] @ (self.w[:, None] * coef)
        return out


def _truncate(X, s):
    """Keep the s largest-magnitude entries of every column (in a copy)."""
    d = X.shape[0]
    if s >= d:
        return X.copy()
    out = np.zeros_like(X)
    keep = np.argpartition(-np.abs(X), s - 1, axis=0)[:s]
    cols = np.arange(X.shape[1])[None, :]
    out[keep, cols] = X[keep, cols]
    return out


def _normalise(X, rng):
    n = np.linalg.norm(X, axis=0)
    bad = ~(n > 1e-300)
    if bad.any():  # degenerate step: restart that column at random
        X = X.copy()
        X[:, bad] = rng.standard_normal((X.shape[0], int(bad.sum())))
        n[bad] = np.linalg.norm(X[:, bad], axis=0)
    return X / n


def _evaluate(T, A, B, C):
    return np.einsum("il,il->l", A, T.mode_contract(0, B, C))


def _ttp_iterate(T, A, B, C, s, n_iter, tol, rng):
    it = 0
    for it in range(1, n_iter + 1):
        A_old = A
        A = _normalise(_truncate(T.mode_contract(0, B, C), s[0]), rng)
        B = _normalise(_truncate(T.mode_contract(1, A, C), s[1]), rng)
        C = _normalise(_truncate(T.mode_contract(2, A, B), s[2]), rng)
        change = np.minimum(np.linalg.norm(A - A_old, axis=0), np.linalg.norm(A + A_old, axis=0))
        if np.all(change < tol):
            break
    w = _evaluate(T, A, B, C)
    neg = w < 0
    A[:, neg] *= -1
    return np.abs(w), A, B, C, it


_SVD_ITERS = 10


def _init(T, L, s, init, rng):
    d1, d2, d3 = T.shape
    if init == "random":
        A = _normalise(_truncate(rng.standard_normal((d1, L)), s[0]), rng)
        B = _normalise(_truncate(rng.standard_normal((d2, L)), s[1]), rng)
        C = _normalise(_truncate(rng.standard_normal((d3, L)), s[2]), rng)
        return A, B, C
    # sparse SVD: truncated Gaussian c0, leading singular pair of T(I, I, c0), truncated
    C = _normalise(_truncate(rng.standard_normal((d3, L)), s[2]), rng)
    # leading singular pair of every slice M_l = T(I, I, c_l) by batched alternating power
    # iterations (M_l y = T(I, y, c_l), M_l^T x = T(x, I, c_l)); never forms the slices
    B = _normalise(rng.standard_normal((d2, L)), rng)
    for _ in range(_SVD_ITERS):
        A = _normalise(T.mode_contract(0, B, C), rng)
        B = _normalise(T.mode_contract(1, A, C), rng)
    A = _normalise(_truncate(A, s[0]), rng)
    B = _normalise(_truncate(B, s[1]), rng)
    C = _normalise(_truncate(T.mode_contract(2, A, B), s[2]), rng)
    return A, B, C


def _sign_change(x, y):
    """Sign-aware distance ``min(||x - y||, ||x + y||)`` of two vectors."""
    return min(np.linalg.norm(x - y), np.linalg.norm(x + y))


def _refine(T, W, FA, FB, FC, s, n_refine, tol, rng):
    """Alternating updates of every component with the others removed (Gauss-Seidel sweeps).

    Component j is updated by one TTP step on ``R_j = T - sum_{l != j} w_l a_l o b_l o c_l``
    from its current factors, then ``w_j = R_j(a_j, b_j, c_j)`` (its least-squares weight).
    Stops when no factor moves by more than ``tol`` (sign-aware) in a sweep; returns the number
    of sweeps.
    """
    K = W.size
    F = [FA, FB, FC]
    sweep = 0
    for sweep in range(1, n_refine + 1):
        change = 0.0
        for j in range(K):
            others = np.arange(K) != j
            R = _Deflated(T, W[others], *(M[:, others] for M in F))
            old = [M[:, j:j + 1].copy() for M in F]
            a = _normalise(_truncate(R.mode_contract(0, old[1], old[2]), s[0]), rng)
            b = _normalise(_truncate(R.mode_contract(1, a, old[2]), s[1]), rng)
            c = _normalise(_truncate(R.mode_contract(2, a, b), s[2]), rng)
            w = float(_evaluate(R, a, b, c)[0])
            if w < 0:
                a, w = -a, -w
            change = max(change, *(_sign_change(x, y) for x, y in zip((a, b, c), old)))
            F[0][:, j], F[1][:, j], F[2][:, j], W[j] = a[:, 0], b[:, 0], c[:, 0], w
        if change < tol:
            break
    return sweep


def _refit_weights(T, A, B, C):
    """Least-squares weights for fixed unit factors: G w = y."""
    G = (A.T @ A) * (B.T @ B) * (C.T @ C)
    y = _evaluate(T, A, B, C)
    try:
        w = np.linalg.solve(G, y)
    except np.linalg.LinAlgError:
        w = np.linalg.lstsq(G, y, rcond=None)[0]
    neg = w < 0
    A = A.copy()
    A[:, neg] *= -1
    return np.abs(w), A


@dataclass
class TTPResult:
    """Output of :func:`truncated_tensor_power`.

    Attributes
    ----------
    weights : ndarray of shape (K,)
        ``w_j`` (>= 0), sorted in decreasing order.
    factors : tuple of three ndarrays, shapes (d1, K), (d2, K), (d3, K)
        Unit columns ``a_j, b_j, c_j``; at most ``s_m`` non-zeros each.
    sparsity : tuple of 3 int
        The truncation levels used.
    n_iter : ndarray of shape (K,)
        Power iterations of the start each component was taken from.
    n_sweeps : int
        Sweeps of the final refinement (alternating updates with the others removed).
    """

    weights: np.ndarray
    factors: tuple
    sparsity: tuple
    n_iter: np.ndarray = field(default=None)
    n_sweeps: int = 0

    def supports(self):
        """List over modes of (K,) lists of the index sets of the non-zeros of each factor."""
        return [[np.flatnonzero(F[:, j]) for j in range(F.shape[1])] for F in self.factors]

    def to_dense(self):
        """The (d1, d2, d3) reconstruction ``sum_j w_j a_j o b_j o c_j``."""
        A, B, C = self.factors
        return np.einsum("r,ir,jr,kr->ijk", self.weights, A, B, C)


def _check_sparsity(sparsity, shape):
    if sparsity is None:
        return tuple(shape)
    if isinstance(sparsity, numbers.Integral) and not isinstance(sparsity, bool):
        s = (int(sparsity),) * 3
    else:
        s = tuple(sparsity)
        if len(s) != 3 or not all(isinstance(v, numbers.Integral) and not isinstance(v, bool)
                                  for v in s):
            raise InputTypeError(f"sparsity must be an int or a tuple of 3 ints, got {sparsity!r}.")
        s = tuple(int(v) for v in s)
    for m in range(3):
        if s[m] < 1 or s[m] > shape[m]:
            raise InputError(f"sparsity for mode {m + 1} must be in [1, {shape[m]}] (the "
                             f"dimension), got {s[m]}.")
    return s


def truncated_tensor_power(T, rank, sparsity, n_init=None, init="sparse_svd", n_iter=50,
                           tol=1e-8, n_refine=100, random_state=None):
    """Sparse CP decomposition of a third-order tensor by the truncated tensor power method.

    Sun, Lu, Liu & Cheng (2017), JRSS-B, Algorithm 1 (rank-one TTP) with their initialisation
    and multiple starts, and deflation (section 3.3): component j is the candidate with the
    largest weight among ``n_init`` starts on ``T - sum_{l<j} w_l a_l o b_l o c_l``, so one
    component at a time is taken and removed before the next round. The components need not be
    orthogonal; as each is first found in the presence of the later ones, the factors are then
    refined by alternating updates with the others removed (block coordinate descent on the
    least-squares fit: one TTP step of component j on ``T - sum_{l != j} w_l a_l o b_l o c_l``,
    then its weight, for every j, until no factor moves), and the weights are finally refitted
    jointly by least squares.

    Parameters
    ----------
    T : ndarray of shape (d1, d2, d3), or an object with ``shape`` and
        ``mode_contract(mode, Y, Z)`` (e.g. :class:`ThirdCumulantTensor`)
        The tensor (not modified). Need not be symmetric.
    rank : int
        Number ``K`` of components.
    sparsity : int, tuple of 3 ints, or None
        Non-zeros kept per factor (per mode); ``None`` disables truncation (the plain,
        non-sparse alternating power method).
    n_init : int, optional
        Starting points per round, default ``max(10, K^3)`` (the paper's L).
    init : {'sparse_svd', 'random'}, default 'sparse_svd'
        ``'sparse_svd'``: truncated Gaussian ``c``, leading singular pair of ``T(I, I, c)``,
        truncated (the initialisation that carries the paper's guarantee); ``'random'``:
        truncated Gaussian vectors (faster).
    n_iter : int, default 50
        Maximum TTP iterations per start.
    tol : float, default 1e-8
        Stop a batch when every ``a`` changes by less than ``tol`` (sign-aware).
    n_refine : int, default 100
        Maximum sweeps of the final refinement (0: none; stops earlier when no factor moves
        by more than ``tol``).
    random_state : None, int or numpy.random.Generator

    Returns
    -------
    TTPResult
        ``weights`` (K,), ``factors`` ((d1, K), (d2, K), (d3, K)), ``sparsity``; fewer
        than K components only when a residual has no positive candidate left.

    Raises
    ------
    ValueError
        ``sparsity`` larger than a dimension or < 1, ``rank`` < 1, unknown ``init``, a
        non-3-way or non-finite T.
    TypeError
        Wrong types.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.testing import planted_sparse_cp
    >>> from latentkit.spectral import truncated_tensor_power
    >>> T, factors = planted_sparse_cp((8, 8, 8), [5.0], sparsity=(2, 2, 2), sigma=0.0,
    ...                                random_state=0)
    >>> res = truncated_tensor_power(T, rank=1, sparsity=2, random_state=0)
    >>> np.round(res.weights, 6), [int((f != 0).sum()) for f in res.factors]
    (array([5.]), [2, 2, 2])
    """
    Top = _as_ttp_tensor(T)
    shape = tuple(int(v) for v in Top.shape)
    rank = check_scalar(rank, "rank", numbers.Integral, low=1, high=min(shape) if sparsity
                        is None else None)
    s = _check_sparsity(sparsity, shape)
    if n_init is None:
        n_init = max(10, rank ** 3)
    n_init = check_scalar(n_init, "n_init", numbers.Integral, low=1)
    if init not in ("sparse_svd", "random"):
        raise InputError(f"init must be 'sparse_svd' or 'random', got {init!r}.")
    n_iter = check_scalar(n_iter, "n_iter", numbers.Integral, low=1)
    tol = check_scalar(tol, "tol", numbers.Real, low=0.0)
    n_refine = check_scalar(n_refine, "n_refine", numbers.Integral, low=0)
    rng = check_random_state(random_state)

    W = np.zeros(0)
    FA, FB, FC = (np.zeros((d, 0)) for d in shape)
    iters = []
    for _ in range(rank):  # one component per round, deflated before the next round
        Tres = _Deflated(Top, W, FA, FB, FC)
        A, B, C = _init(Tres, n_init, s, init, rng)
        w, A, B, C, it = _ttp_iterate(Tres, A, B, C, s, n_iter, tol, rng)
        best = int(np.argmax(w))
        if not w[best] > 0:
            break
        W = np.append(W, w[best])
        FA, FB, FC = (np.column_stack([F, X[:, best]]) for F, X in ((FA, A), (FB, B), (FC, C)))
        iters.append(it)
    sweeps = _refine(Top, W, FA, FB, FC, s, n_refine, tol, rng) if W.size else 0
    if W.size:
        W, FA = _refit_weights(Top, FA, FB, FC)
    order = np.argsort(-W, kind="stable")
    return TTPResult(weights=W[order], factors=(FA[:, order], FB[:, order], FC[:, order]),
                     sparsity=s, n_iter=np.asarray(iters)[order] if iters else np.zeros(0, int),
                     n_sweeps=sweeps)


class TruncatedTensorPower:
    """Estimator wrapper of :func:`truncated_tensor_power` (forwards every argument).

    Parameters
    ----------
    rank, sparsity, n_init, init, n_iter, tol, n_refine, random_state
        As in :func:`truncated_tensor_power`.

    Attributes
    ----------
    weights_ : ndarray of shape (K,)
    factors_ : tuple of (d1, K), (d2, K), (d3, K) ndarrays
    result_ : TTPResult

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.testing import planted_sparse_cp
    >>> from latentkit.spectral import TruncatedTensorPower
    >>> T, factors = planted_sparse_cp((8, 8, 8), [5.0], sparsity=(2, 2, 2), sigma=0.0,
    ...                                random_state=0)
    >>> est = TruncatedTensorPower(rank=1, sparsity=2, random_state=0).fit(T)
    >>> np.round(est.weights_, 6), [f.shape for f in est.factors_]
    (array([5.]), [(8, 1), (8, 1), (8, 1)])
    """

    def __init__(self, rank, sparsity, n_init=None, init="sparse_svd", n_iter=50, tol=1e-8,
                 n_refine=100, random_state=None):
        self.rank = rank
        self.sparsity = sparsity
        self.n_init = n_init
        self.init = init
        self.n_iter = n_iter
        self.tol = tol
        self.n_refine = n_refine
        self.random_state = random_state

    def get_params(self, deep=True):
        """Hyper-parameters as a dict."""
        return {k: getattr(self, k) for k in ("rank", "sparsity", "n_init", "init", "n_iter",
                                               "tol", "n_refine",
                                               "random_state")}

    def fit(self, T):
        """Decompose ``T``; returns self. See :func:`truncated_tensor_power`."""
        res = truncated_tensor_power(T, **self.get_params())
        self.result_ = res
        self.weights_ = res.weights
        self.factors_ = res.factors
        return self


def _bic(Tarr, res):
    N = float(Tarr.size)
    rss = float(np.sum((Tarr - res.to_dense()) ** 2)) if res.weights.size else \
        float(np.sum(Tarr ** 2))
    df = sum(int(np.count_nonzero(F)) for F in res.factors)
    return np.log(max(rss, 1e-300) / N) + np.log(N) / N * df


def select_rank_sparsity(T, ranks, sparsities, random_state=None, **kwargs):
    """Choose the rank and the sparsity by the BIC-type criterion of Sun et al. (2017).

    ``BIC(K, s) = log(||T - T_hat||_F^2 / (d1 d2 d3)) + log(d1 d2 d3) / (d1 d2 d3) * df`` with
    ``df`` the total number of non-zero factor entries; minimised over the grid.

    Parameters
    ----------
    T : ndarray of shape (d1, d2, d3)
        Dense tensor.
    ranks : iterable of int
        Candidate ranks.
    sparsities : iterable of int, tuple of 3 ints or float in (0, 1]
        Candidate sparsities; a float is a fraction of each dimension (rounded up).
    random_state : None, int or numpy.random.Generator
        Seeds every fit identically (an int is recommended).
    **kwargs
        Passed to :func:`truncated_tensor_power`.

    Returns
    -------
    best : dict
        ``{'rank', 'sparsity', 'bic', 'result'}`` of the minimiser.
    table : list of dict
        ``{'rank', 'sparsity', 'bic'}`` for every grid point.

    Raises
    ------
    ValueError
        Empty grids or invalid grid values (as :func:`truncated_tensor_power`).

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.testing import planted_sparse_cp
    >>> from latentkit.spectral import select_rank_sparsity
    >>> T, _ = planted_sparse_cp((8, 8, 8), [5.0], sparsity=(2, 2, 2), sigma=0.01,
    ...                          random_state=0)
    >>> best, table = select_rank_sparsity(T, ranks=[1, 2], sparsities=[2, 4], random_state=0)
    >>> best["rank"], best["sparsity"], len(table)
    (1, 2, 4)
    """
    Tarr = np.asarray(T, dtype=np.float64)
    if Tarr.ndim != 3:
        raise InputError(f"T must be a dense (d1, d2, d3) array, got shape {Tarr.shape}.")
    ranks = list(ranks)
    sparsities = list(sparsities)
    if not ranks or not sparsities:
        raise InputError("ranks and sparsities must be non-empty grids.")
    table = []
    best = None
    for s in sparsities:
        if isinstance(s, float):
            if not 0 < s <= 1:
                raise InputError(f"a fractional sparsity must be in (0, 1], got {s}.")
            s_ = tuple(int(np.ceil(s * d)) for d in Tarr.shape)
        else:
            s_ = s
        for K in ranks:
            seed = random_state if not isinstance(random_state, np.random.Generator) else \
                int(random_state.integers(2 ** 31))
            res = truncated_tensor_power(Tarr, K, s_, random_state=seed, **kwargs)
            b = _bic(Tarr, res)
            table.append({"rank": K, "sparsity": s, "bic": b})
            if best is None or b < best["bic"]:
                best = {"rank": K, "sparsity": s, "bic": b, "result": res}
    return best, table


# ----------------------------------------------------------------------- sparse spectral GMM
def _kmeans(Z, k, rng, n_init=10, max_iter=100):
    """Labels of the best of ``n_init`` k-means runs (by inertia), each k-means++ seeding plus
    up to ``max_iter`` Lloyd iterations (:func:`latentkit._utils.kmeans.kmeans_plusplus`)."""
    w = np.ones(Z.shape[0])
    best = (np.inf, None)
    for _ in range(n_init):
        centres, labels = kmeans_plusplus(Z, k, rng, sample_weight=w, n_lloyd=max_iter)
        inertia = float(((Z - centres[labels]) ** 2).sum())
        if inertia < best[0]:
            best = (inertia, labels)
    return best[1]


@dataclass
class SparseSpectralGMMResult:
    """Output of :func:`sparse_spectral_gmm`.

    Attributes
    ----------
    labels : ndarray of shape (n_samples,)
        Cluster of each sample (0..n_components-1).
    weights : ndarray of shape (n_components,)
        Cluster fractions.
    means : ndarray of shape (n_components, n_features)
        Cluster means (all features).
    selected_features : ndarray of int
        Union of the supports of the sparse cumulant components (sorted).
    components : ndarray of shape (n_features, tensor_rank)
        The sparse unit directions found by TTP.
    component_weights : ndarray of shape (tensor_rank,)
        Their cumulant weights.
    """

    labels: np.ndarray
    weights: np.ndarray
    means: np.ndarray
    selected_features: np.ndarray
    components: np.ndarray
    component_weights: np.ndarray


def sparse_spectral_gmm(X, n_components, sparsity, *, tensor_rank=None, standardize=False,
                        n_init=None, init="sparse_svd", n_iter=50, tol=1e-8, random_state=None):
    """Cluster high-dimensional data whose cluster means differ in few features.

    The third cumulant of a Gaussian mixture is ``sum_i w_i (mu_i - m)^{(x)3}`` (Gaussian noise
    has zero third cumulant, whatever its covariance). With sparse mean differences its
    components are sparse, and the truncated tensor power method (Sun et al. 2017) on the
    implicit cumulant tensor (:class:`ThirdCumulantTensor`, O(n d) per contraction, never
    d^3) finds them; samples are then clustered (k-means) on their projections onto the found
    directions, and the mixture weights and means are the clusters' fractions and averages.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    n_components : int
        Number of clusters (>= 2).
    sparsity : int
        Features kept per cumulant component (``1 <= sparsity <= n_features``).
    tensor_rank : int, optional
        CP rank of the cumulant searched; default ``n_components - 1`` for two clusters (the two
        terms are collinear: ``w1 w2 (w2 - w1) Delta^{(x)3}``) and ``n_components`` otherwise.
    standardize : bool, default False
        Scale each feature to unit variance first (features with zero variance are dropped
        from the tensor).
    n_init, init, n_iter, tol
        As in :func:`truncated_tensor_power`.
    random_state : None, int or numpy.random.Generator

    Returns
    -------
    SparseSpectralGMMResult

    Raises
    ------
    ValueError
        ``sparsity`` larger than the number of features, fewer than 3 samples, NaN, bad
        ``n_components``.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.spectral import sparse_spectral_gmm
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 20)); X[:100, :2] += 4.0  # the clusters differ in 2 features
    >>> res = sparse_spectral_gmm(X, n_components=2, sparsity=2, random_state=0)
    >>> np.round(np.sort(res.weights), 2)
    array([0.5, 0.5])
    """
    X = check_array(X, "X", ensure_min_samples=3)
    n, d = X.shape
    n_components = check_scalar(n_components, "n_components", numbers.Integral, low=2, high=n)
    if not (isinstance(sparsity, numbers.Integral) and not isinstance(sparsity, bool)):
        raise InputTypeError(f"sparsity must be an int, got {sparsity!r}.")
    if sparsity < 1 or sparsity > d:
        raise InputError(f"sparsity must be in [1, {d}] (the number of features), got "
                         f"{sparsity}.")
    rng = check_random_state(random_state)
    if tensor_rank is None:
        tensor_rank = 1 if n_components == 2 else n_components
    sd = X.std(axis=0)
    keep = np.flatnonzero(sd > 0)
    Z = X[:, keep]
    if standardize:
        Z = (Z - Z.mean(0)) / sd[keep]
    s = min(int(sparsity), Z.shape[1])
    Tc = ThirdCumulantTensor(Z)
    res = truncated_tensor_power(Tc, tensor_rank, s, n_init=n_init, init=init, n_iter=n_iter,
                                 tol=tol, random_state=rng)
    A = res.factors[0]
    comps = np.zeros((d, A.shape[1]))
    comps[keep] = A
    sel = np.flatnonzero(np.any(comps != 0, axis=1))
    proj = Tc.Xc @ A
    labels = _kmeans(proj, n_components, rng)
    weights = np.bincount(labels, minlength=n_components) / n
    means = np.array([X[labels == j].mean(0) if np.any(labels == j) else X.mean(0)
                      for j in range(n_components)])
    return SparseSpectralGMMResult(labels=labels, weights=weights, means=means,
                                   selected_features=sel, components=comps,
                                   component_weights=res.weights)


class SparseSpectralGMM(ParamsMixin):
    """Estimator wrapper of :func:`sparse_spectral_gmm` (forwards every argument; the
    function's ``n_iter`` is ``max_iter`` here, the names table of docs/design.md).

    Attributes
    ----------
    labels_, weights_, means_, selected_features_, components_ : see SparseSpectralGMMResult

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.spectral import SparseSpectralGMM
    >>> rng = np.random.default_rng(0)
    >>> means = np.zeros((2, 8)); means[0, 0] = means[1, 1] = 6.0
    >>> X = means[rng.integers(0, 2, 1000)] + rng.normal(size=(1000, 8))
    >>> ss = SparseSpectralGMM(2, sparsity=2, random_state=0).fit(X)
    >>> ss.means_.shape
    (2, 8)
    """

    # ``n_iter`` before the names table (docs/design.md); removed in 0.3
    n_iter = renamed_attribute("n_iter", "max_iter")

    @renamed_kwargs(n_iter="max_iter")
    def __init__(self, n_components, sparsity, tensor_rank=None, standardize=False, n_init=None,
                 init="sparse_svd", max_iter=50, tol=1e-8, random_state=None):
        self.n_components = n_components
        self.sparsity = sparsity
        self.tensor_rank = tensor_rank
        self.standardize = standardize
        self.n_init = n_init
        self.init = init
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state

    def fit(self, X, y=None):
        """Fit; returns self."""
        res = sparse_spectral_gmm(X, self.n_components, self.sparsity,
                                  tensor_rank=self.tensor_rank, standardize=self.standardize,
                                  n_init=self.n_init, init=self.init, n_iter=self.max_iter,
                                  tol=self.tol, random_state=self.random_state)
        self.result_ = res
        self.labels_ = res.labels
        self.weights_ = res.weights
        self.means_ = res.means
        self.selected_features_ = res.selected_features
        self.components_ = res.components
        return self

    def fit_predict(self, X, y=None):
        """Fit and return ``labels_`` (n_samples,)."""
        return self.fit(X).labels_
