"""Standard errors of :class:`~latentkit.spectral.SpectralHMM` by a moving-block bootstrap of
the observation windows.

The estimator uses every window ``(x_t, x_{t+1}, x_{t+2})`` inside each sequence: from one long
sequence these are *sliding* triples, and neighbouring windows share observations and
states, so they are dependent (for a sticky chain over many steps). Resampling single windows
as if they were independent then understates the sampling error. The moving-block bootstrap
(Kuensch 1989) resamples blocks of ``L`` consecutive windows of one sequence instead, which
keeps the dependence inside a block: its variance estimate is consistent for a weakly
dependent stationary series when ``L`` grows with the number of windows n and ``L / n -> 0``;
``L ~ n^(1/3)`` is the rate for variance estimation (Hall, Horowitz & Jing 1995). Windows from
sequences of length 3 (independent triples) are independent, and the blocks are then single
windows: the ordinary bootstrap.

Each resample gives window weights (how often each window was drawn); the moments are the
weighted counts (:meth:`HMMMoments.from_windows`), the estimator is refitted on them, its
states are matched to the fitted ones (l1 distance of the emission rows) and the standard
errors are the standard deviations of the resampled parameters.
"""

import math

import numpy as np
from scipy.optimize import linear_sum_assignment

from ._moments import HMMMoments, window_starts

__all__ = ["block_bootstrap_weights", "hmm_standard_errors"]


def _windows(sym, lengths):
    """(x1, x2, x3, sequence id) of every window inside each sequence."""
    lengths = np.asarray(lengths, dtype=np.int64)
    idx = window_starts(lengths)
    seq = np.repeat(np.arange(lengths.size), np.maximum(lengths - 2, 0))
    return sym[idx], sym[idx + 1], sym[idx + 2], seq


def block_bootstrap_weights(seq, block_length, rng):
    """Window weights of one moving-block resample.

    Parameters
    ----------
    seq : ndarray of int of shape (n_windows,)
        Sequence of each window (windows of one sequence consecutive, in time order).
    block_length : int
        Windows per block (>= 1); a block never crosses a sequence boundary (a sequence with
        fewer windows is one block).
    rng : numpy.random.Generator

    Returns
    -------
    ndarray of float of shape (n_windows,)
        How many times each window was drawn: blocks drawn uniformly among the valid block
        starts until at least n_windows windows are drawn.
    """
    n = seq.size
    L = int(block_length)
    # a start is valid when its block stays in one sequence; a sequence shorter than L
    # contributes its first window as the start of a block holding the whole sequence
    end = np.minimum(np.arange(n) + L - 1, n - 1)
    first = np.r_[True, seq[1:] != seq[:-1]]
    valid = np.flatnonzero((seq[end] == seq) & ((end - np.arange(n)) == L - 1) | first)
    stop = np.searchsorted(seq, seq, side="right")  # one past the last window of the sequence
    diff = np.zeros(n + 1)  # +1 where a block starts, -1 one past its end
    drawn = 0
    while drawn < n:
        a = valid[rng.integers(valid.size, size=max(1, math.ceil((n - drawn) / L)))]
        b = np.minimum(a + L, stop[a])
        np.add.at(diff, a, 1.0)
        np.add.at(diff, b, -1.0)
        drawn += int((b - a).sum())
    return np.cumsum(diff[:n])


def hmm_standard_errors(refit, emissionprob, sym, lengths, n_resamples, block_length, rng):
    """Bootstrap standard errors of a fitted SpectralHMM (see the module docstring).

    Parameters
    ----------
    refit : callable
        ``refit(moments, rng) -> (startprob, transmat, emissionprob)``: the estimator fitted
        on the :class:`HMMMoments` of one resample, its restarts drawn from ``rng`` (the
        SpectralHMM passes its own ``_refit``).
    emissionprob : ndarray of shape (k, m)
        The fitted emission rows (``emissionprob_``) of the fit on ``sym`` and ``lengths``;
        the resampled states are matched to them.
    sym : ndarray of int64 of shape (n_samples,)
    lengths : ndarray of int of shape (n_sequences,)
    n_resamples : int
    block_length : int or None
        None: 1 when every sequence has length 3 (independent triples), else
        ``ceil(n_windows^(1/3))``.
    rng : numpy.random.Generator

    Returns
    -------
    dict
        ``'startprob'`` (k,), ``'transmat'`` (k, k), ``'emissionprob'`` (k, m): standard
        deviations over the resamples (states matched to the fitted ones), and
        ``'block_length'``.
    """
    x1, x2, x3, seq = _windows(sym, lengths)
    n = x1.size
    if block_length is None:
        block_length = 1 if np.all(np.asarray(lengths) <= 3) else math.ceil(n ** (1 / 3))
    k, m = emissionprob.shape
    draws = {"startprob": [], "transmat": [], "emissionprob": []}
    for _ in range(n_resamples):
        w = block_bootstrap_weights(seq, block_length, rng)
        mom = HMMMoments.from_windows(x1, x2, x3, m, k, weights=w)
        startprob, transmat, emis = refit(mom, rng)
        cost = np.abs(emissionprob[:, None, :] - emis[None, :, :]).sum(-1)
        perm = linear_sum_assignment(cost)[1]  # fitted state i <-> resampled state perm[i]
        draws["startprob"].append(startprob[perm])
        draws["transmat"].append(transmat[np.ix_(perm, perm)])
        draws["emissionprob"].append(emis[perm])
    out = {name: np.std(v, axis=0, ddof=1) for name, v in draws.items()}
    out["block_length"] = int(block_length)
    return out
