"""Online (streaming) tensor power method (Wang & Anandkumar 2016, Algorithm 2).

The tensor ``T = E[x (x) x (x) x]`` of an i.i.d. stream is never formed: each power step reads
the next ``batch_size`` samples once and accumulates ``(1/B) sum_b (x_b . u)^2 x_b`` for all L
candidate vectors together (they share the batch, as in the paper: "update
u~(tau) += (1/n)(x . u(tau))^2 x ... for each data point and each tau"), deflates against the
components found so far and normalises; a last batch scores the candidates by
``(1/B) sum_b (x_b . u)^3`` (SPECTRAL_NOTES.md sections 2.3 and 4.1). Memory is O(d (k + L))
plus one chunk of the stream, whatever its length; ``k (R + 1) B`` samples are consumed.
"""

import numbers
import os

import numpy as np

from .._utils.validation import check_random_state, check_scalar
from ._power import TensorPowerResult
from ..exceptions import InputError, InputTypeError

__all__ = ["online_tensor_power"]


def _chunks_from(source, chunk_size):
    """(iterator of 2-D float arrays, known total rows or None)."""
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        if path.endswith(".npy"):
            arr = np.load(path, mmap_mode="r")
            if arr.ndim != 2:
                raise InputError(f"source file {path!r} must hold a 2-D array, got shape {arr.shape}.")
            return (np.asarray(arr[s:s + chunk_size], dtype=np.float64)
                    for s in range(0, arr.shape[0], chunk_size)), arr.shape[0]

        def text_chunks():
            with open(path) as fh:
                rows = []
                for lineno, line in enumerate(fh, 1):
                    line = line.strip()
                    if not line or line.startswith("#"):
                        continue
                    try:
                        rows.append([float(v) for v in line.replace(",", " ").split()])
                    except ValueError:
                        raise InputError(f"{path}, line {lineno}: not a row of numbers: {line[:60]!r}") from None
                    if len(rows) == chunk_size:
                        yield np.array(rows, dtype=np.float64)
                        rows = []
                if rows:
                    yield np.array(rows, dtype=np.float64)
        return text_chunks(), None
    if isinstance(source, np.ndarray) or hasattr(source, "__array__") and not hasattr(source, "__next__"):
        arr = np.asarray(source)
        if arr.ndim != 2:
            raise InputError(f"source must be a 2-D array (n_samples, d), got shape {arr.shape}.")
        return (np.asarray(arr[s:s + chunk_size], dtype=np.float64)
                for s in range(0, arr.shape[0], chunk_size)), arr.shape[0]
    if hasattr(source, "__iter__"):
        return (np.asarray(c, dtype=np.float64) for c in source), None
    raise InputTypeError("source must be a 2-D array, a path (.npy or text), or an iterable of 2-D "
                    f"chunks, got {type(source).__name__}.")


class _Reader:
    """Hands out exactly B rows at a time from an iterator of chunks (keeps one leftover chunk)."""

    def __init__(self, it, d):
        self.it, self.d, self.left, self.consumed = it, d, None, 0

    def pieces(self, B):
        need = B
        while need > 0:
            if self.left is None or self.left.shape[0] == 0:
                try:
                    chunk = next(self.it)
                except StopIteration:
                    raise InputError(
                        f"the stream ended after {self.consumed} samples; online_tensor_power "
                        "needs n_components * (n_iter + 1) * batch_size samples.") from None
                if chunk.ndim != 2 or chunk.shape[1] != self.d:
                    raise InputError(f"every chunk must have shape (m, {self.d}), got {chunk.shape}.")
                if not np.all(np.isfinite(chunk)):
                    raise InputError("the stream contains NaN or infinity.")
                self.left = chunk
            take = min(need, self.left.shape[0])
            piece, self.left = self.left[:take], self.left[take:]
            need -= take
            self.consumed += take
            yield piece


def online_tensor_power(source, n_components, n_restarts=10, n_iter=20, batch_size=None,
                        chunk_size=1000, n_features=None, random_state=None):
    """Streaming robust tensor power method for ``T = E[x^{(x)3}]`` (single pass).

    Parameters
    ----------
    source : ndarray of shape (n, d), path, or iterable of ndarrays of shape (m, d)
        The stream: an array (read in chunks of ``chunk_size`` rows), a ``.npy`` file
        (memory-mapped, read in chunks) or a whitespace/comma-separated text file (parsed
        ``chunk_size`` lines at a time), or any iterable/generator of 2-D chunks.
    n_components : int
        k.
    n_restarts : int, default 10
        L candidates per component, sharing every batch.
    n_iter : int, default 20
        R power steps per component (each reads a fresh batch).
    batch_size : int, optional
        B samples per step. Default ``n // (k (R + 1))`` when the length n is known (array or
        .npy); required otherwise.
    chunk_size : int, default 1000
        Rows read at a time from arrays and files.
    n_features : int, optional
        d; default from the first chunk.
    random_state : None, int or numpy.random.Generator

    Returns
    -------
    TensorPowerResult
        eigenvalues (k,) decreasing, eigenvectors (d, k), history (per component: ``scores``
        (L,), ``best_restart``, ``samples_used``).

    Raises
    ------
    ValueError
        Stream too short (the message gives the number of samples needed), chunks of the wrong
        width, NaN, ``n_components > d``, missing ``batch_size`` for a stream of unknown length.
    TypeError
        Unsupported source.

    Notes
    -----
    Source: Wang & Anandkumar (2016), "Online and differentially-private tensor decomposition",
    NIPS, Algorithm 2 and Proposition 3.1 (O(n k d L R) time, O(d (k + L)) memory). No
    refinement phase (each sample is used once). Memory here: U (d x L), the accepted pairs
    (d x k), the accumulator (d x L) and one chunk with its (m x L) projections.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.spectral import online_tensor_power
    >>> rng = np.random.default_rng(0)
    >>> X = np.sqrt(3) * np.eye(3)[rng.integers(0, 2, 4000)]  # E[x^3] = 3^1.5 (e1^3 + e2^3) / 2
    >>> res = online_tensor_power(X, n_components=2, random_state=0)
    >>> np.round(np.abs(res.eigenvectors[:2]), 1)
    array([[0., 1.],
           [1., 0.]])
    """
    k = check_scalar(n_components, "n_components", numbers.Integral, low=1)
    L = check_scalar(n_restarts, "n_restarts", numbers.Integral, low=1)
    R = check_scalar(n_iter, "n_iter", numbers.Integral, low=1)
    chunk_size = check_scalar(chunk_size, "chunk_size", numbers.Integral, low=1)
    rng = check_random_state(random_state)
    it, n_total = _chunks_from(source, chunk_size)
    if batch_size is None:
        if n_total is None:
            raise InputError("batch_size is required when the stream length is unknown.")
        batch_size = n_total // (k * (R + 1))
        if batch_size < 1:
            raise InputError(f"the source has {n_total} samples, fewer than "
                             f"n_components * (n_iter + 1) = {k * (R + 1)}.")
    B = check_scalar(batch_size, "batch_size", numbers.Integral, low=1)
    it = iter(it)
    try:
        first = next(it)
    except StopIteration:
        raise InputError("the stream is empty.") from None
    first = np.asarray(first, dtype=np.float64)
    if first.ndim != 2:
        raise InputError(f"chunks must be 2-D (m, d), got shape {first.shape}.")
    d = first.shape[1] if n_features is None else int(n_features)
    if k > d:
        raise InputError(f"n_components={k} exceeds the dimension d={d}.")

    def chained():
        yield first
        yield from it

    reader = _Reader(chained(), d)
    lam = np.zeros(k)
    V = np.zeros((d, k))
    history = []
    acc = np.empty((d, L))
    for i in range(k):
        U = rng.standard_normal((d, L))
        U /= np.linalg.norm(U, axis=0)
        for _ in range(R):
            acc[:] = 0.0
            for piece in reader.pieces(B):
                Z = piece @ U
                Z *= Z
                acc += piece.T @ Z
            acc /= B
            if i:
                P = V[:, :i].T @ U
                acc -= V[:, :i] @ (lam[:i, None] * P * P)
            norms = np.linalg.norm(acc, axis=0)
            bad = ~(norms > 1e-300)
            if bad.any():  # degenerate step: redraw (never divide by 0)
                acc[:, bad] = rng.standard_normal((d, int(bad.sum())))
                norms[bad] = np.linalg.norm(acc[:, bad], axis=0)
            U = acc / norms
        scores = np.zeros(L)
        for piece in reader.pieces(B):
            scores += ((piece @ U) ** 3).sum(axis=0)
        scores /= B
        if i:
            scores -= (lam[:i, None] * (V[:, :i].T @ U) ** 3).sum(axis=0)
        best = int(np.argmax(scores))
        lam[i], V[:, i] = scores[best], U[:, best]
        if lam[i] < 0:
            lam[i], V[:, i] = -lam[i], -V[:, i]
        history.append({"scores": scores, "best_restart": best, "samples_used": reader.consumed,
                        "extraction_order": i})
    order = np.argsort(-lam, kind="stable")
    return TensorPowerResult(lam[order].copy(), V[:, order].copy(), [history[j] for j in order])
