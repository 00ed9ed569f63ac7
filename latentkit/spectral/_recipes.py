"""Spectral starting point of the categorical HMM (``init='spectral'``): the estimate of
:class:`~latentkit.spectral.SpectralHMM` projected onto valid stochastic matrices; when the
moments are degenerate the recipe warns with :class:`SpectralInitWarning` and falls back to the
model's random start. (The mixtures' and topic models' starts moved to
``latentkit/mixture/_spectral_start.py`` and ``latentkit/topic/_spectral_start.py``.)
"""

import numbers
import warnings

import numpy as np

from .._utils.validation import check_lengths, check_random_state, check_scalar
from ..exceptions import SpectralInitWarning
from ._estimators import SpectralHMM

__all__ = ["SpectralInitWarning", "spectral_init_hmm"]


#: EM iterations for the first-state law (mixture weights of the first symbols; K x n_sequences
#: work each).
_START_EM_ITERS = 100

#: Largest alphabet for the dense three-view moments (n_features^3 cells of float64: 128 MiB).
_HMM_MAX_CELLS = 2 ** 24


def _check_symbols(X, n_features):
    """Validate stacked symbols: (n,) or (n, 1) integers in ``0..n_features-1``; returns
    (int64 array of shape (n,), n_features)."""
    arr = np.asarray(X)
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    if arr.ndim != 1:
        raise ValueError(f"X must have shape (n_samples,) or (n_samples, 1) of integer symbols, "
                         f"got shape {np.shape(X)}.")
    if arr.size == 0:
        raise ValueError("X has 0 samples; at least one time step is required.")
    if arr.dtype.kind == "f":
        if not np.all(np.isfinite(arr)):
            raise ValueError("Input X contains NaN or infinity; symbols must be finite integers.")
        if np.any(arr != np.round(arr)):
            raise ValueError("X must contain integer symbols, found non-integer values.")
    elif arr.dtype.kind not in "iub":
        raise TypeError(f"X must contain integer symbols, got dtype {arr.dtype}.")
    sym = arr.astype(np.int64)
    if sym.min() < 0:
        raise ValueError(f"X contains the negative symbol {sym.min()}; symbols must be integers "
                         "in 0..n_features-1.")
    if n_features is None:
        n_features = int(sym.max()) + 1
    else:
        n_features = int(check_scalar(n_features, "n_features", numbers.Integral, low=1))
        if sym.max() >= n_features:
            raise ValueError(f"X contains the symbol {sym.max()}, outside 0..{n_features - 1} "
                             f"(n_features={n_features}).")
    return sym, n_features


def _floor_rows(P, floor):
    """Entries at least ``floor / n_columns``, rows renormalised to 1."""
    P = np.maximum(np.asarray(P, dtype=np.float64), floor / P.shape[-1])
    return P / P.sum(axis=-1, keepdims=True)


def _random_hmm_start(sym, n_components, n_features, rng):
    """CategoricalHMM's ``init='random'``: flat-Dirichlet ``startprob`` and ``transmat`` rows,
    emission rows = smoothed symbol frequencies times Exponential(1) weights, renormalised."""
    K, M = n_components, n_features
    start = rng.dirichlet(np.ones(K))
    trans = rng.dirichlet(np.ones(K), size=K)
    freq = (np.bincount(sym, minlength=M) + 1.0) / (sym.shape[0] + M)
    B = freq[None, :] * rng.exponential(size=(K, M))
    return {"startprob": start, "transmat": trans,
            "emissionprob": B / B.sum(axis=1, keepdims=True)}


def spectral_init_hmm(X, lengths=None, n_components=2, n_features=None, random_state=None,
                      floor=1e-2):
    """Starting parameters of a categorical HMM from the three-view method of moments.

    :class:`~latentkit.spectral.SpectralHMM` (Anandkumar, Hsu & Kakade 2012; windows
    ``(x_t, x_{t+1}, x_{t+2})`` inside each sequence; its default ``target_view='auto'``
    inverts only the better-conditioned adjacent-pair moments) gives the emission matrix, the transition
    matrix and the law ``pi`` of the first state of a window. They are projected onto valid
    stochastic matrices: every entry is floored at ``floor / row length`` and the rows are
    renormalised (Baum-Welch keeps a zero at zero, so no probability may start at 0). The
    start distribution is the maximum-likelihood mixture weight vector of the sequences' first
    symbols with the emission rows held fixed (100 EM steps from ``pi``: ``s_j <- mean_s
    p(h_1 = j | x_1^(s))``), an estimate of the law of the initial state, which ``pi`` is not
    when the sequences start out of equilibrium.

    Parameters
    ----------
    X : array-like of int of shape (n_samples,) or (n_samples, 1)
        Stacked symbol sequences (hmmlearn's layout).
    lengths : array-like of int of shape (n_sequences,), optional
        Sequence lengths (sum ``n_samples``); default one sequence.
    n_components : int, default 2
        Number of hidden states K (>= 1).
    n_features : int, optional
        Number of symbols M (default ``max(X) + 1``).
    random_state : None, int or numpy.random.Generator
        Restarts of the tensor power method, and the fallback start.
    floor : float, default 1e-2
        Each probability is at least ``floor`` divided by the row length before
        renormalisation (0 <= floor < 1).

    Returns
    -------
    dict
        ``'startprob'`` (K,), ``'transmat'`` (K, K) (row i: ``p(h_{t+1} | h_t = i)``),
        ``'emissionprob'`` (K, M): strictly positive, rows summing to 1. When the moments are
        degenerate -- fewer windows of 3 observations than ``10 K M``, ``K > M``, an alphabet
        with more than 2^24 cells ``M^3`` for the dense third moment, rank-deficient pair
        moments, non-finite output -- a :class:`SpectralInitWarning` is issued and
        CategoricalHMM's random start is returned instead (flat-Dirichlet ``startprob`` and
        ``transmat`` rows, emission rows from the smoothed symbol frequencies times
        Exponential(1) weights).

    Raises
    ------
    ValueError
        Negative, fractional, NaN or out-of-range symbols; lengths that do not add up to
        n_samples; ``n_components`` < 1; ``floor`` outside [0, 1).
    TypeError
        Non-integer ``n_components``/``n_features``, non-numeric X.

    Notes
    -----
    Source: Anandkumar, Hsu & Kakade (2012), "A method of moments for mixture models and hidden
    Markov models", COLT; Anandkumar et al. (2014), section 3.3 and Theorem 3.6;
    SPECTRAL_NOTES.md section 1.5.
    """
    sym, M = _check_symbols(X, n_features)
    offsets = check_lengths(lengths, sym.shape[0])
    K = int(check_scalar(n_components, "n_components", numbers.Integral, low=1))
    floor = float(check_scalar(floor, "floor", numbers.Real, low=0.0, high=1.0,
                               high_inclusive=False))
    rng = check_random_state(random_state)
    seq_len = np.diff(offsets)
    n_windows = int(np.maximum(seq_len - 2, 0).sum())
    try:
        if K > M:
            raise ValueError(f"n_components={K} exceeds the number of symbols {M}")
        if M ** 3 > _HMM_MAX_CELLS:
            raise ValueError(f"{M} symbols: the dense third moment would have {M}^3 cells "
                             f"(more than 2^24)")
        if n_windows < 10 * K * M:
            raise ValueError(f"too few triples: {n_windows} windows of 3 consecutive "
                             f"observations, fewer than 10 n_components n_features = "
                             f"{10 * K * M}")
        est = SpectralHMM(K, n_features=M, random_state=rng).fit(sym, seq_len)
        if not all(np.all(np.isfinite(a)) for a in (est.startprob_, est.transmat_,
                                                    est.emissionprob_)):
            raise ValueError("non-finite spectral estimate")
        B = _floor_rows(est.emissionprob_, floor)
        A = _floor_rows(est.transmat_, floor)
        pi = _floor_rows(est.startprob_, floor)
        # law of the first state: maximum likelihood of the mixture weights of the first
        # symbols with the emission rows fixed (EM fixed point, started from pi)
        lik = B[:, sym[offsets[:-1]]].T  # (n_sequences, K)
        start = pi
        for _ in range(_START_EM_ITERS):
            post = start[None, :] * lik
            start = (post / post.sum(axis=1, keepdims=True)).mean(axis=0)
        start = _floor_rows(start, floor)
        return {"startprob": start, "transmat": A, "emissionprob": B}
    except (ValueError, np.linalg.LinAlgError) as exc:
        warnings.warn(f"init='spectral': the moments are degenerate ({exc}); falling back to "
                      "a random start.", SpectralInitWarning, stacklevel=2)
        return _random_hmm_start(sym, K, M, rng)
