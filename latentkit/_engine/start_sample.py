"""The data a fit's start is drawn from, the same wherever the data lives.

A model's start (k-means++ seeding, CVB0 sweeps, a prior resolved from the data...) needs
data. So that a fit gives the same model whether its data is in memory, in a chunked source
(:mod:`latentkit.sources`) or in a Dask collection (:mod:`latentkit.parallel.dask`), the start
sees the same rows on every path: **all the training data** when it has at most
:data:`START_SAMPLE_SIZE` units (rows, documents; whole sequences of an HMM, counted in time
steps), else a sample of whole units drawn with the fit's generator from the units in data
order (the same draws on every path), together at most :data:`START_SAMPLE_SIZE`. A chunked or
Dask fit gathers those rows into memory for the start only (one more pass over the data), so
the start's memory is bounded by the sample, not by the data.
"""

import inspect

import numpy as np
import scipy.sparse as sp
from .hook_state import deferred_data_defaults
from .._utils.row_params import concat_rows, take_rows

__all__ = ["START_SAMPLE_SIZE", "start_data"]

#: Largest start sample (rows, documents or time steps) gathered for a model's start.
START_SAMPLE_SIZE = 100_000


def _units(X, kw, seq):
    """Sizes of the raw chunk's units: its sequences (``lengths``; one sequence without
    them) for a sequence model (``seq``), else its rows."""
    n = X.shape[0] if hasattr(X, "shape") else len(X)
    if not seq:
        return np.ones(n, dtype=np.int64)
    lengths = kw.get("lengths")
    return np.array([n]) if lengths is None else np.asarray(lengths, dtype=np.int64).ravel()


def _take(X, kw, keep, seq, names=()):
    """The units ``keep`` (a boolean mask over the chunk's units) of a raw chunk (with the
    rows of its row-aligned arguments ``names``)."""
    sizes = _units(X, kw, seq)
    rows = np.repeat(keep, sizes)
    out = {k: (take_rows(v, rows) if k in names and v is not None else v)
           for k, v in kw.items() if k not in ("lengths", "sample_weight")}
    if seq:
        out["lengths"] = sizes[keep]
    if kw.get("sample_weight") is not None:
        out["sample_weight"] = np.asarray(kw["sample_weight"])[rows]
    Xs = X[rows] if (sp.issparse(X) or isinstance(X, np.ndarray)) else np.asarray(X)[rows]
    return Xs, out


def _concat(parts, seq, names=()):
    """One raw chunk from several: rows stacked, ``lengths``, ``sample_weight`` and the
    row-aligned arguments ``names`` joined."""
    Xs = [X for X, _ in parts]
    X = sp.vstack(Xs, format="csr") if any(sp.issparse(x) for x in Xs) else \
        np.concatenate([np.asarray(x) for x in Xs], axis=0)
    kw = dict(parts[0][1])
    for k in names:
        if kw.get(k) is not None:
            kw[k] = concat_rows([p[k] for _, p in parts])
    if seq:
        kw["lengths"] = np.concatenate([_units(x, k, seq) for x, k in parts])
    if parts[0][1].get("sample_weight") is not None:
        kw["sample_weight"] = np.concatenate([np.asarray(k["sample_weight"]).ravel()
                                              for _, k in parts])
    return X, kw


def _choose(sizes, rng, cap):
    """Boolean mask of the units of the start sample: all of them when they total at most
    ``cap``; else units in the order of a random permutation while they fit (at least one)."""
    if sizes.sum() <= cap:
        return np.ones(sizes.size, dtype=bool)
    order = rng.permutation(sizes.size)
    fits = np.cumsum(sizes[order]) <= cap
    fits[0] = True
    keep = np.zeros(sizes.size, dtype=bool)
    keep[order[fits]] = True
    return keep


def start_data(model, data, X, fit_params, rng, cap=None):
    """Validated data for ``model._init_params``: the start sample (module docstring).

    Parameters
    ----------
    model : LatentModel
        Validated and with its data-derived defaults resolved (``fit`` after
        ``_prepare_data``).
    data : validated data, :class:`latentkit.sources.ValidatedChunks` or
        :class:`latentkit.parallel.dask.DaskData`
        What ``_prepare_data`` returned for ``X``.
    X : array-like, ChunkSource or Dask collection
        The raw training data given to ``fit``.
    fit_params : dict
        The ``fit`` keyword arguments (``lengths``, ``sample_weight``).
    rng : numpy.random.Generator
        The fit's generator; drawn from only when the data exceeds the cap.
    cap : int, optional
        Default :data:`START_SAMPLE_SIZE`.

    Returns
    -------
    validated data
        ``data`` itself for in-memory data within the cap.
    """
    cap = START_SAMPLE_SIZE if cap is None else int(cap)
    if not model._start_needs_data():
        return getattr(data, "init_data", data)
    seq = "lengths" in inspect.signature(model._validate_data).parameters
    names = tuple(model._row_fit_params)
    raw = _raw_chunks(data)
    if raw is None:  # in memory
        if model._n_samples(data) <= cap:  # rows, documents or time steps
            return data
        Xr = X if sp.issparse(X) else np.asarray(X)
        kw = {k: (v if v is None or k in names else np.asarray(v))
              for k, v in fit_params.items()}
        raw = lambda: iter([(Xr, kw)])  # noqa: E731
    # one pass keeps the chunks while they fit under the cap (all of them, usually)
    parts, sizes, total = [], [], 0
    for c, kw in raw():
        s = _units(c, kw, seq)
        sizes.append(s)
        total += int(s.sum())
        if total <= cap:
            parts.append((c, kw))
    if total > cap:  # a second pass takes the sampled units
        keep = _choose(np.concatenate(sizes), rng, cap)
        parts, a = [], 0
        for (c, kw), s in zip(raw(), sizes):
            k = keep[a:a + s.size]
            a += s.size
            if k.all():
                parts.append((c, kw))
            elif k.any():
                parts.append(_take(c, kw, k, seq, names))
    Xs, kw = _concat(parts, seq, names)
    with deferred_data_defaults(model):  # validated like the chunks of the statistics pass
        return model._validate_data(Xs, reset=False, **kw)


def _raw_chunks(data):
    """A function returning a fresh iterator of the raw ``(X, kw)`` chunks of a chunked source
    or of the blocks of a Dask collection; None for in-memory data."""
    if hasattr(data, "raw_chunks"):  # a chunked source (row-aligned arguments cut per chunk)
        return data.raw_chunks
    if hasattr(data, "raw_blocks"):
        return data.raw_blocks
    return None
