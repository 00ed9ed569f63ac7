"""Symmetric third-order tensors exposing batched contractions.

Every tensor here (and any user object passed to :func:`~latentkit.spectral.robust_tensor_power`)
exposes

``contract(U) -> ndarray (d, L)``
    ``[T(I, u_1, u_1), ..., T(I, u_L, u_L)]`` for the L columns of ``U`` (d x L), where
    ``T(I, u, u)_i = sum_{jk} T_ijk u_j u_k`` (SPECTRAL_NOTES.md section 0);
``evaluate(U) -> ndarray (L,)``
    ``[T(u_l, u_l, u_l)]_l``;
``shape``
    ``(d, d, d)``.

:class:`SymmetricTensor` wraps a dense array. :class:`ImplicitMomentTensor` is a moment tensor
defined by data and never materialised:

    T = data part - sum_r Sym(m_r (x) G_r) + sum_s c_s q_s^{(x)3},

where ``Sym(m (x) G)_abc = m_a G_bc + m_b G_ac + m_c G_ab`` (G symmetric), so that
``Sym(m (x) G)(I, u, u) = m (u^T G u) + 2 (m.u) G u``. The data part is either the weighted
sum of cubes of dense rows, ``sum_t w_t y_t^{(x)3}`` (Gaussian mixtures, whitened data; kernel
``rows_contract``), or the average over documents of the whitened unbiased third-moment
estimator ``e3(c)(W, W, W)`` of word counts (Anandkumar, Foster, Hsu, Kakade & Liu 2012;
SPECTRAL_NOTES.md section 1.3; kernel ``csr_docs_contract_fast``, O(nnz L + (D + V) k L) per
call). These are exactly the
correction forms of the spherical-GMM (Hsu & Kakade 2013) and LDA moments.
"""

import numbers

import numpy as np
import scipy.sparse as sp
from .._kernels import spectral as K
from .._kernels.spectral import dense_contract
from .._utils.validation import check_array, check_counts
from ..exceptions import InputError, InputTypeError

__all__ = ["SymmetricTensor", "ImplicitMomentTensor", "as_tensor_operator", "khatri_rao_self"]


def khatri_rao_self(A):
    """Row-wise self Khatri-Rao product: ``out[t, i*k + j] = A[t, i] A[t, j]``.

    Parameters
    ----------
    A : ndarray of shape (n, k)

    Returns
    -------
    ndarray of shape (n, k * k)
    """
    return (A[:, :, None] * A[:, None, :]).reshape(A.shape[0], -1)


def _check_U(U, d, name="U"):
    """Validate a batch of vectors: returns (U as C-contiguous float64 (d, L), was_1d)."""
    arr = np.asarray(U)
    if arr.dtype.kind not in "fiu":
        raise InputTypeError(f"{name} must be a real numeric array, got dtype {arr.dtype}.")
    was_1d = arr.ndim == 1
    if was_1d:
        arr = arr[:, None]
    if arr.ndim != 2 or arr.shape[0] != d:
        raise InputError(
            f"{name} must have shape ({d}, L) (one vector per column), got shape {np.shape(U)}.")
    arr = np.ascontiguousarray(arr, dtype=np.float64)
    if not np.all(np.isfinite(arr)):
        raise InputError(f"{name} contains NaN or infinity.")
    return arr, was_1d


class _TensorBase:
    """Shared ``evaluate`` (``T(u, u, u) = u . T(I, u, u)``) and ``dim``."""

    @property
    def dim(self):
        return self.shape[0]

    def evaluate(self, U):
        """``T(u_l, u_l, u_l)`` for every column of ``U``.

        Parameters
        ----------
        U : ndarray of shape (d, L) or (d,)

        Returns
        -------
        ndarray of shape (L,) (a float for 1-D ``U``)
        """
        arr, was_1d = _check_U(U, self.shape[0])
        val = np.einsum("il,il->l", arr, self._contract(arr))
        return float(val[0]) if was_1d else val

    def contract(self, U):
        """Batched contraction ``T(I, u_l, u_l)`` for the columns of ``U``.

        Parameters
        ----------
        U : ndarray of shape (d, L) or (d,)

        Returns
        -------
        ndarray of shape (d, L) (shape (d,) for 1-D ``U``)

        Raises
        ------
        ValueError
            Wrong shape, NaN or infinity in ``U``.
        """
        arr, was_1d = _check_U(U, self.shape[0])
        out = self._contract(arr)
        return out[:, 0] if was_1d else out


class SymmetricTensor(_TensorBase):
    """A dense symmetric ``d x d x d`` tensor with batched contractions.

    Parameters
    ----------
    T : array-like of shape (d, d, d)
        Symmetric under every permutation of its indices.
    check_symmetric : bool, default True
        Verify symmetry (relative tolerance ``symmetry_tol`` of ``max |T|``).
    symmetry_tol : float, default 1e-8
    copy : bool, default False
        Copy the array (it is never modified either way).

    Attributes
    ----------
    array : ndarray of shape (d, d, d), float64, C-contiguous
    shape : tuple (d, d, d)

    Raises
    ------
    ValueError
        Not three-way cubical, not symmetric, NaN or infinity.
    TypeError
        Non-numeric input.

    Notes
    -----
    ``contract(U)`` costs ``2 d^3 L`` flops, computed as the GEMM ``T_(1) (U kr U)`` with the
    mode-1 unfolding ``T_(1)`` (d x d^2) and the column-wise Khatri-Rao product (d^2 x L)
    (SPECTRAL_NOTES.md section 0); the numba kernel ``dense_contract`` computes the same
    quantity without the d^2 x L intermediate and is used when ``d^2 L`` would exceed
    ``2**24`` doubles.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.spectral import SymmetricTensor
    >>> T = np.zeros((2, 2, 2)); T[0, 0, 0] = 2.0; T[1, 1, 1] = 1.0
    >>> op = SymmetricTensor(T)
    >>> op.shape, op.contract(np.eye(2))  # column l: T(I, e_l, e_l)
    ((2, 2, 2), array([[2., 0.],
           [0., 1.]]))
    """

    def __init__(self, T, check_symmetric=True, symmetry_tol=1e-8, copy=False):
        arr = np.asarray(T)
        if arr.dtype.kind not in "fiub":
            raise InputTypeError(f"T must be a real numeric array, got dtype {arr.dtype}.")
        if arr.ndim != 3 or not (arr.shape[0] == arr.shape[1] == arr.shape[2]):
            raise InputError(
                f"T must be a cubical third-order tensor of shape (d, d, d), got shape {arr.shape}.")
        arr = np.array(arr, dtype=np.float64, order="C", copy=True) if copy else \
            np.ascontiguousarray(arr, dtype=np.float64)
        if not np.all(np.isfinite(arr)):
            raise InputError("T contains NaN or infinity.")
        if check_symmetric:
            scale = max(float(np.abs(arr).max()), np.finfo(float).tiny)
            for perm in ((1, 0, 2), (0, 2, 1), (2, 1, 0)):
                dev = float(np.abs(arr - arr.transpose(perm)).max())
                if dev > symmetry_tol * scale:
                    raise InputError(
                        "T must be a symmetric tensor (invariant under index permutations); "
                        f"max |T - T.transpose{perm}| = {dev:.3g} exceeds {symmetry_tol:g} * max|T|. "
                        "Symmetrise it (average over the 6 permutations) or use a non-symmetric method.")
        self.array = arr
        self.shape = arr.shape

    def _contract(self, U):
        d, L = U.shape
        if d * d * L <= 2 ** 24:
            return self.array.reshape(d, d * d) @ khatri_rao_self(U.T).T
        out = np.empty((d, L))
        dense_contract(self.array, U, out)
        return out

    def to_dense(self):
        """The array itself, shape (d, d, d)."""
        return self.array


def _check_terms(sym_terms, cube_terms, k):
    syms = []
    for r, term in enumerate(sym_terms):
        m, G = term
        m = np.asarray(m, dtype=np.float64).reshape(-1)
        G = np.asarray(G, dtype=np.float64)
        if m.shape != (k,) or G.shape != (k, k):
            raise InputError(f"sym_terms[{r}] must be (m of shape ({k},), G of shape ({k}, {k})), "
                             f"got shapes {m.shape} and {G.shape}.")
        if not (np.all(np.isfinite(m)) and np.all(np.isfinite(G))):
            raise InputError(f"sym_terms[{r}] contains NaN or infinity.")
        syms.append((m.copy(), ((G + G.T) / 2).copy()))
    cubes = []
    for s, term in enumerate(cube_terms):
        c, q = term
        q = np.asarray(q, dtype=np.float64).reshape(-1)
        if q.shape != (k,) or not isinstance(c, numbers.Real):
            raise InputError(f"cube_terms[{s}] must be (coefficient, q of shape ({k},)).")
        if not (np.all(np.isfinite(q)) and np.isfinite(c)):
            raise InputError(f"cube_terms[{s}] contains NaN or infinity.")
        cubes.append((float(c), q.copy()))
    return syms, cubes


class ImplicitMomentTensor(_TensorBase):
    """A moment tensor defined by data, never materialised (SPECTRAL_NOTES.md sections 0, 1.3, 1.4).

    ``T = data part - sum_r Sym(m_r (x) G_r) + sum_s c_s q_s^{(x)3}``. Build it with
    :meth:`from_rows` or :meth:`from_documents`.

    Attributes
    ----------
    shape : tuple (k, k, k)
    kind : {'rows', 'documents'}
    n_used : int
        Rows, or documents with at least 3 tokens, that enter the data part.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.spectral import ImplicitMomentTensor
    >>> from latentkit.testing import oracle_rows_tensor
    >>> Y = np.random.default_rng(0).normal(size=(50, 3))
    >>> T = ImplicitMomentTensor.from_rows(Y)  # mean of y (x) y (x) y, never built
    >>> dense = np.einsum("ijk,jl,kl->il", oracle_rows_tensor(Y), np.eye(3), np.eye(3))
    >>> T.shape, bool(np.allclose(T.contract(np.eye(3)), dense))
    ((3, 3, 3), True)
    """

    def __init__(self, kind, k, payload, sym_terms=(), cube_terms=()):
        self.kind = kind
        self.shape = (k, k, k)
        self._payload = payload
        self.sym_terms, self.cube_terms = _check_terms(sym_terms, cube_terms, k)
        self.n_used = payload["n_used"]

    # ------------------------------------------------------------------ constructors
    @classmethod
    def from_rows(cls, Y, weights=None, sym_terms=(), cube_terms=()):
        """``T = sum_t w_t y_t^{(x)3} - sum_r Sym(m_r (x) G_r) + sum_s c_s q_s^{(x)3}``.

        With ``Y = X W`` (whitened samples), ``w_t = 1/n``, ``m = W^T M1`` and ``G = W^T W`` this is
        the whitened spherical-GMM third moment of Hsu & Kakade (2013):
        ``M3(W, W, W)(I, u, u) = E[y (y.u)^2] - (m (u^T G u) + 2 (m.u) G u)``.

        Parameters
        ----------
        Y : array-like of shape (n, k)
            Rows ``y_t``.
        weights : array-like of shape (n,), optional
            Row weights ``w_t``; default ``1/n`` (the sample mean).
        sym_terms : sequence of (m, G), m of shape (k,), G of shape (k, k)
        cube_terms : sequence of (c, q), c float, q of shape (k,)

        Returns
        -------
        ImplicitMomentTensor

        Raises
        ------
        ValueError
            Bad shapes, NaN or infinity.
        """
        Y = check_array(Y, "Y")
        n, k = Y.shape
        if weights is None:
            w = np.full(n, 1.0 / n)
        else:
            w = np.array(weights, dtype=np.float64).reshape(-1)
            if w.shape != (n,) or not np.all(np.isfinite(w)):
                raise InputError(f"weights must be a finite array of shape ({n},), got {w.shape}.")
        return cls("rows", k, {"Y": Y, "w": w, "n_used": n}, sym_terms, cube_terms)

    @classmethod
    def from_documents(cls, X, W, sym_terms=(), cube_terms=()):
        """Average over documents of the whitened unbiased estimator ``e3(c)(W, W, W)``.

        For a document with counts ``c`` and length ``l = sum c >= 3`` (Anandkumar et al. 2012;
        SPECTRAL_NOTES.md section 1.3, inclusion-exclusion over ordered triples of distinct
        tokens)::

            e3(c) = (c(x)c(x)c - sum_w c_w (e_w(x)e_w(x)c + e_w(x)c(x)e_w + c(x)e_w(x)e_w)
                     + 2 sum_w c_w e_w^{(x)3}) / (l (l-1) (l-2)),

        an unbiased estimate of ``E[x1 (x) x2 (x) x3]``. Documents shorter than 3 tokens are
        skipped (they carry no triple); the average is over the remaining ones.

        Parameters
        ----------
        X : scipy.sparse matrix or array-like of shape (n_documents, V)
            Non-negative word counts.
        W : array-like of shape (V, k)
            Whitening matrix.
        sym_terms, cube_terms : see the class docstring.

        Returns
        -------
        ImplicitMomentTensor

        Raises
        ------
        ValueError
            No document with at least 3 tokens, shape mismatch, negative counts, NaN.
        """
        X = check_counts(X, "X")
        W = np.ascontiguousarray(W, dtype=np.float64)
        if W.ndim != 2 or W.shape[0] != X.shape[1]:
            raise InputError(f"W must have shape ({X.shape[1]}, k) to match X's vocabulary, "
                             f"got {W.shape}.")
        if not np.all(np.isfinite(W)):
            raise InputError("W contains NaN or infinity.")
        ell = np.asarray(X.sum(axis=1)).ravel()
        valid = ell >= 3
        n_valid = int(valid.sum())
        if n_valid == 0:
            raise InputError(
                "X has no document with at least 3 tokens; the third-moment estimator needs "
                f"documents of length >= 3 (longest document has {ell.max():g} tokens).")
        scale = np.zeros(X.shape[0])
        lv = ell[valid]
        scale[valid] = 1.0 / (lv * (lv - 1) * (lv - 2)) / n_valid
        idx_dtype = np.int32 if max(X.shape) < 2 ** 31 - 1 else np.int64
        Xt = X.T.tocsr()  # words x documents, for the second pass of the kernel
        payload = {"X": X, "W": W, "scale": scale, "n_used": n_valid,
                   "indptr": X.indptr.astype(np.int64), "indices": X.indices.astype(idx_dtype),
                   "data": np.ascontiguousarray(X.data, dtype=np.float64),
                   "t_indptr": Xt.indptr.astype(np.int64),
                   "t_indices": Xt.indices.astype(idx_dtype),
                   "t_data": np.ascontiguousarray(Xt.data, dtype=np.float64),
                   # p_d = W^T c_d (D x k) and a_v = sum_d s_d c_dv (V,), computed once
                   "P": np.ascontiguousarray(X @ W),
                   "a": np.ascontiguousarray(np.asarray(X.T @ scale).ravel())}
        return cls("documents", W.shape[1], payload, sym_terms, cube_terms)

    # ------------------------------------------------------------------ contractions
    def _data_contract(self, U):
        P = self._payload
        k, L = U.shape
        if self.kind == "rows":
            Y = P["Y"]
            nb = K.n_blocks_for(Y.shape[0])
            out = np.empty((nb, k, L))
            K.rows_contract(Y, P["w"], U, nb, out)
        else:
            D = P["indptr"].shape[0] - 1
            nb = K.n_blocks_for(max(D, P["W"].shape[0]))
            out = np.empty((2 * nb, k, L))
            U = np.ascontiguousarray(U)
            K.csr_docs_contract_fast(P["indptr"], P["indices"], P["data"], P["scale"], P["P"], U,
                                     np.ascontiguousarray(P["W"] @ U), P["t_indptr"],
                                     P["t_indices"], P["t_data"], P["a"], P["W"], nb,
                                     np.empty((D, L)), out[:nb], out[nb:])
        res = out[0].copy()
        for b in range(1, out.shape[0]):  # fixed order: deterministic
            res += out[b]
        return res

    def _contract(self, U):
        out = self._data_contract(U)
        for m, G in self.sym_terms:
            GU = G @ U
            out -= np.outer(m, np.einsum("il,il->l", U, GU)) + 2.0 * GU * (m @ U)
        for c, q in self.cube_terms:
            out += c * np.outer(q, (q @ U) ** 2)
        return out

    # ------------------------------------------------------------------ dense form
    def to_dense(self, chunk_size=4096):
        """Materialise the ``k x k x k`` tensor (cost O(n k^3) rows, O(nnz k + (D + V) k^3) documents).

        Parameters
        ----------
        chunk_size : int, default 4096
            Rows or documents per block (bounds the memory to ``chunk_size * k^2`` doubles).

        Returns
        -------
        ndarray of shape (k, k, k)
        """
        k = self.shape[0]
        P = self._payload
        T = np.zeros((k, k * k))
        if self.kind == "rows":
            Y, w = P["Y"], P["w"]
            for s in range(0, Y.shape[0], chunk_size):
                Yc = Y[s:s + chunk_size]
                T += (Yc * w[s:s + chunk_size, None]).T @ khatri_rao_self(Yc)
            T = T.reshape(k, k, k)
        else:
            # sum_d s_d [p_d^(x)3 - Sym(sum_v c_dv w_v (x) w_v (x) p_d)] + 2 sum_v a_v w_v^(x)3
            # with r_v = sum_d s_d c_dv p_d: the middle term is sum_v w_v (x) w_v (x) r_v, so
            # the cost is O(nnz k + (D + V) k^3) (no nnz k^2 term).
            W, scale, Pm, z = P["W"], P["scale"], P["P"], P["a"]
            R = np.asarray(P["X"].T @ (Pm * scale[:, None]))  # V x k
            S2 = np.zeros((k * k, k))
            for s in range(0, Pm.shape[0], chunk_size):
                Pc = Pm[s:s + chunk_size]
                T += (Pc * scale[s:s + chunk_size, None]).T @ khatri_rao_self(Pc)
            for s in range(0, W.shape[0], chunk_size):
                Wc = W[s:s + chunk_size]
                KWc = khatri_rao_self(Wc)  # chunk x k^2
                T += 2.0 * (Wc * z[s:s + chunk_size, None]).T @ KWc
                S2 += KWc.T @ R[s:s + chunk_size]
            T = T.reshape(k, k, k)
            A = S2.reshape(k, k, k)  # A[a, b, c] = sum_v w_va w_vb r_vc
            T -= A + A.transpose(0, 2, 1) + A.transpose(2, 0, 1)
        for m, G in self.sym_terms:
            T -= (m[:, None, None] * G[None, :, :] + m[None, :, None] * G[:, None, :]
                  + m[None, None, :] * G[:, :, None])
        for c, q in self.cube_terms:
            T += c * q[:, None, None] * q[None, :, None] * q[None, None, :]
        return T


def as_tensor_operator(T, check_symmetric=True):
    """Return an object with ``contract(U)``, ``evaluate(U)`` and ``shape``.

    Parameters
    ----------
    T : array-like of shape (d, d, d), or an object with ``contract`` and ``evaluate``
        A dense array is wrapped in :class:`SymmetricTensor` (symmetry checked); an object with
        ``contract`` and ``evaluate`` methods is returned as is (it must have ``shape``
        ``(d, d, d)`` or an int ``dim``).
    check_symmetric : bool, default True

    Returns
    -------
    object

    Raises
    ------
    TypeError
        Neither an array nor an operator.
    ValueError
        A non-symmetric or malformed array.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.spectral import as_tensor_operator
    >>> T = np.zeros((2, 2, 2)); T[0, 0, 0] = 2.0; T[1, 1, 1] = 1.0
    >>> op = as_tensor_operator(T)
    >>> type(op).__name__, op.evaluate(np.eye(2))  # T(e_l, e_l, e_l)
    ('SymmetricTensor', array([2., 1.]))
    """
    if hasattr(T, "contract") and hasattr(T, "evaluate"):
        return T
    if sp.issparse(T) or isinstance(T, (str, bytes)) or T is None:
        raise InputTypeError("T must be a dense (d, d, d) array or an object with contract(U) and "
                        f"evaluate(U) methods, got {type(T).__name__}.")
    return SymmetricTensor(T, check_symmetric=check_symmetric)


def operator_dim(op):
    """Dimension d of an operator (``op.dim`` or ``op.shape[0]``)."""
    dim = getattr(op, "dim", None)
    if dim is None:
        shape = getattr(op, "shape", None)
        if shape is None:
            raise InputTypeError("a tensor operator must have a 'shape' (d, d, d) or an int 'dim'.")
        dim = shape[0]
    return int(dim)
