"""Fit arguments with one entry per row (a document's time, labels or covariates) that travel
with the rows of X: cut per chunk of a source or block of a Dask array, taken and joined with
the rows of the start sample. A model names them in its ``_row_fit_params`` hook
(``docs/design.md`` section 3)."""

import numpy as np
import scipy.sparse as sp

from ..exceptions import InputError

__all__ = ["check_row_count", "concat_rows", "n_rows", "slice_row_params", "take_rows"]


def n_rows(value):
    """Number of rows (entries) of a row-aligned argument."""
    return value.shape[0] if hasattr(value, "shape") and value.ndim >= 1 else len(value)


def _rows(value, index):
    if sp.issparse(value):
        return sp.csr_matrix(value)[index]
    if isinstance(value, np.ndarray):
        return value[index]
    items = list(value)
    if isinstance(index, slice):
        return items[index]
    return [items[i] for i in np.asarray(index)]


def take_rows(value, index):
    """Rows ``index`` (a slice, integer positions or a boolean mask) of an array, a sparse
    matrix or a sequence (a list stays a list)."""
    if not isinstance(index, slice):
        index = np.asarray(index)
        if index.dtype == bool:
            index = np.flatnonzero(index)
    return _rows(value, index)


def concat_rows(values):
    """The rows of several pieces of one argument, joined (of the kind of the first)."""
    first = values[0]
    if sp.issparse(first):
        return sp.vstack([sp.csr_matrix(v) for v in values], format="csr")
    if isinstance(first, np.ndarray):
        return np.concatenate([np.asarray(v) for v in values], axis=0)
    return [item for v in values for item in v]


def slice_row_params(fit_params, names, start, stop):
    """``fit_params`` with the row-aligned entries ``names`` cut to rows ``start:stop`` (the
    others as given)."""
    if not names:
        return fit_params
    return {k: (take_rows(v, slice(start, stop)) if k in names and v is not None else v)
            for k, v in fit_params.items()}


def check_row_count(fit_params, names, total, where):
    """Raise InputError when a row-aligned argument's length is not ``total`` (the rows of
    the chunks or blocks ``where`` describes)."""
    for k in names:
        v = fit_params.get(k)
        if v is not None and n_rows(v) != total:
            raise InputError(f"{k} has {n_rows(v)} entries but {where} holds {total} rows; "
                             f"{k} needs one entry per row.")
