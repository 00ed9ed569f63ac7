"""Distributed fitting on Dask: map the E-step over blocks, tree-sum the statistics.

``model.fit(X)`` with a ``dask.array.Array`` (rows are samples) or a ``dask.bag.Bag`` of
documents runs, in every iteration, the model's pure ``_e_step`` on each block where the block
lives (a ``dask.distributed`` cluster, or Dask's local scheduler), sums the statistics in a
binary tree, and runs ``_m_step`` on the client; the updated model travels to the workers with
the next iteration's tasks as its class, hyper-parameters and fitted state
(``model._get_state()``, the interface :mod:`latentkit.io` uses too), and each block's task
rebuilds it with ``_set_state`` (its parameters are small next to the data). Because
statistics are the one currency of every model (DESIGN.md section 2), nothing model-specific
lives here: a model only needs ``_e_step``, ``+`` on its statistics and its state interface.

Blocks are validated once, on the workers, and kept there (``persist``). For HMMs, pass
``lengths=`` to ``fit``: the array is re-chunked on sequence boundaries so that no sequence is
split between blocks. Initialisation (``_init_params``) sees the start sample of
:mod:`latentkit._engine.start_sample` (all the data up to its cap), gathered from the blocks as a local
fit draws it, and the data-derived defaults (priors, tolerances, alphabet) come from the merged
summaries of all blocks, so a Dask fit equals the local fit.
"""

import operator

import numpy as np
import scipy.sparse as sp

from .._utils.chunking import split_sequences
from .._utils.row_params import check_row_count, slice_row_params
from .._utils.validation import check_lengths
from .._engine.hook_state import deferred_data_defaults
from ..exceptions import InputError

__all__ = ["DaskData"]


def _import_dask():
    try:
        import dask
        import dask.array  # noqa: F401
    except ImportError as exc:  # pragma: no cover - exercised only without the extra
        raise ImportError("Dask input needs the dask extra: pip install 'latentkit[dask]'.") from exc
    return dask


def _model_from_state(spec):
    """A model rebuilt from ``(class, hyper-parameters, fitted state)``."""
    cls, params, state = spec
    model = cls(**params)
    model._set_state(state)
    return model


def _validate_block(spec, block, fit_params):
    return _model_from_state(spec)._validate_data(block, reset=False, **fit_params)


def _bag_partition_to_matrix(part):
    rows = list(part)
    if not rows:
        return None
    if sp.issparse(rows[0]):
        return sp.vstack([sp.csr_matrix(r) for r in rows], format="csr")
    return np.vstack([np.asarray(r, dtype=float).reshape(1, -1) for r in rows])


def _block_summary(model, block, fit_params):
    """``_data_summary`` of one block, validated as in the statistics pass of ``fit`` (the
    model is not initialised yet: nothing is checked against the defaults being resolved)."""
    if block is None:
        return None
    with deferred_data_defaults(model):
        return model._data_summary(model._validate_data(block, reset=False, **fit_params))


def _add_summaries(a, b):
    return b if a is None else a if b is None else a + b


def _tree_sum(dask, parts, op=_add_summaries):
    while len(parts) > 1:
        parts = [dask.delayed(op)(parts[i], parts[i + 1]) if i + 1 < len(parts)
                 else parts[i] for i in range(0, len(parts), 2)]
    return parts[0]


def _e_step_block(spec, data):
    model = _model_from_state(spec)
    if data is None:
        return model._empty_stats()
    return model._e_step(data)


def _with_rows(fit_params, row_params, sizes, where):
    """Each block's fit arguments: ``fit_params`` and the row-aligned ``row_params``
    (``_row_fit_params``) cut to the block's rows (``sizes``: rows per block)."""
    if not row_params:
        return [fit_params] * len(sizes)
    check_row_count(row_params, tuple(row_params), int(sum(sizes)), where)
    ends = np.cumsum([int(s) for s in sizes])
    return [{**fit_params, **slice_row_params(row_params, tuple(row_params), int(e - s), int(e))}
            for s, e in zip(sizes, ends)]


def _sequence_chunks(lengths, row_chunks):
    """Row chunk sizes near ``row_chunks`` whose boundaries fall between sequences (the one
    rule of :func:`latentkit._utils.chunking.split_sequences`: each chunk boundary of the Dask array
    moves to the nearest sequence boundary), and the ``lengths`` of each block."""
    lengths = np.asarray(lengths)
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    bounds = split_sequences(offsets, np.cumsum(row_chunks)[:-1])
    sizes = tuple(int(s) for s in np.diff(offsets[bounds]))
    return sizes, [lengths[a:b] for a, b in zip(bounds[:-1], bounds[1:])]


class DaskData:
    """A Dask array or bag seen through a model's ``_validate_data`` (used by ``fit``/``elbo``).

    Parameters
    ----------
    model : LatentModel
    X : dask.array.Array of shape (n_samples, n_features) or dask.bag.Bag
        A bag holds one document per element: a 1-D count vector or a 1 x V sparse row.
    reset : bool
        Validate the first block with ``reset=True`` (sets ``n_features_in_``).
    fit_params : dict
        ``lengths`` (HMMs) re-chunks the array on sequence boundaries; the model's row-aligned
        arguments (``_row_fit_params``: the DTM's ``times``, Labeled LDA's ``labels``, DMR's
        ``covariates``) are cut to each block's rows (a bag's partitions are counted for it);
        other entries are passed to ``_validate_data`` of every block.

    Attributes
    ----------
    init_data : validated first block (the start of a model that needs only the data's width;
        the others start from the start sample of :mod:`latentkit._engine.start_sample`).
    n_blocks : int

    Examples
    --------
    >>> import dask.array as da
    >>> import numpy as np
    >>> from latentkit import GaussianMixture
    >>> from latentkit.parallel.dask import DaskData
    >>> X = da.from_array(np.random.default_rng(0).normal(size=(30, 2)), chunks=10)
    >>> data = DaskData(GaussianMixture(2), X, reset=True, fit_params={})
    >>> data.n_blocks, data.init_data.shape  # fit(X) of a Dask array goes through it
    (3, (10, 2))
    """

    def __init__(self, model, X, reset, fit_params):
        dask = _import_dask()
        import dask.bag as db

        fit_params = dict(fit_params)
        lengths = fit_params.pop("lengths", None)
        names = tuple(model._row_fit_params)
        row_params = {k: fit_params.pop(k) for k in names if fit_params.get(k) is not None}
        if isinstance(X, db.Bag):
            parts = X.to_delayed()
            blocks = [dask.delayed(_bag_partition_to_matrix)(p) for p in parts]
            sizes = dask.compute(*[dask.delayed(len)(p) for p in parts]) if row_params \
                else [0] * len(blocks)
            block_params = _with_rows(fit_params, row_params, sizes, "the Dask bag")
        else:
            if X.ndim == 1:
                X = X[:, None]
            if X.ndim != 2:
                raise InputError(f"A Dask array X must be 2-D, got {X.ndim} dimensions.")
            X = X.rechunk({1: -1})
            if lengths is not None:
                lengths = np.diff(check_lengths(lengths, X.shape[0]))
                sizes, per_block = _sequence_chunks(lengths, X.chunks[0])
                X = X.rechunk({0: sizes})
                block_params = [{**p, "lengths": lb} for p, lb in zip(
                    _with_rows(fit_params, row_params, sizes, "the Dask array"), per_block)]
            else:
                block_params = _with_rows(fit_params, row_params, X.chunks[0],
                                          "the Dask array")
            blocks = list(X.to_delayed().ravel())
        first = blocks[0].compute()
        if first is None:
            raise InputError("The first partition of the Dask collection is empty.")
        if not reset:
            self.init_data = model._validate_data(first, reset=False, **block_params[0])
        else:
            # data-derived defaults from all blocks: their summaries are tree-merged
            with deferred_data_defaults(model):
                self.init_data = model._validate_data(first, reset=True, **block_params[0])
                summary = model._data_summary(self.init_data)
                if summary is not None and len(blocks) > 1:
                    m = dask.delayed(model, traverse=False)
                    parts = [dask.delayed(_block_summary)(m, b, p)
                             for b, p in zip(blocks[1:], block_params[1:])]
                    rest = _tree_sum(dask, parts).compute()
                    if rest is not None:
                        summary = summary + rest
            if summary is not None:
                model._set_data_defaults(summary)
        self._raw = self._raw_all = list(zip(blocks, block_params))
        self._blocks = None
        self.n_blocks = len(blocks)
        self._dask = dask

    def raw_blocks(self):
        """Iterator of the raw blocks, computed, as ``(block, fit_params)`` (empty bag
        partitions left out): the start sample's pass (:mod:`latentkit._engine.start_sample`)."""
        raw = self._raw_all
        for i in range(0, len(raw), 8):  # a few blocks in memory at a time
            batch = raw[i:i + 8]
            for block, (_, params) in zip(self._dask.compute(*[b for b, _ in batch]), batch):
                if block is not None:
                    yield block, params

    def _spec(self, model):
        """The model as it travels to the workers, and the validated blocks (validated on
        the workers by the initialised model at the first call, and kept there)."""
        dask = self._dask
        state = model._get_state()
        state.pop("monitor_", None)  # not needed by an E-step
        for name in getattr(model, "_derived_attributes", ()):  # rebuilt by _set_state
            state.pop(name, None)
        m = dask.delayed((type(model), model.get_params(deep=False), state), traverse=False)
        if self._blocks is None:
            self._blocks = dask.persist(*[dask.delayed(_validate_block)(m, b, p)
                                          for b, p in self._raw])
            self._raw = None
        return m

    def reduce_stats(self, model):
        """E-step on every block with the current ``model``, tree-summed; returns Stats.

        On the first call the blocks are validated on the workers by the (now initialised)
        model and kept there for the following iterations."""
        dask = self._dask
        m = self._spec(model)
        parts = [dask.delayed(_e_step_block)(m, b) for b in self._blocks]
        return _tree_sum(dask, parts, operator.add).compute()

    def map_blocks(self, model, func, *args, per_block=()):
        """``func(model, block, *args, *extra)`` on every block where it lives, with the
        current ``model`` rebuilt there and ``extra`` the block's entries of the lists in
        ``per_block``; returns the results kept on the workers (persisted), one per block:
        ``(Stats, local state)`` pairs for :meth:`sum_first` and a later call's
        ``per_block``."""
        dask = self._dask
        m = self._spec(model)
        tasks = [dask.delayed(_map_block)(func, m, b, args, tuple(p[i] for p in per_block))
                 for i, b in enumerate(self._blocks)]
        return list(dask.persist(*tasks))

    def sum_first(self, parts):
        """The tree sum of the first entries (the statistics) of :meth:`map_blocks` results."""
        dask = self._dask
        firsts = [dask.delayed(operator.getitem)(p, 0) for p in parts]
        return _tree_sum(dask, firsts, operator.add).compute()

    def seconds(self, parts):
        """The second entries (local state) of :meth:`map_blocks` results, left on the
        workers."""
        return [self._dask.delayed(operator.getitem)(p, 1) for p in parts]


def _map_block(func, spec, data, args, extra):
    model = _model_from_state(spec)
    if data is None:  # an empty bag partition
        return model._empty_stats(), None
    return func(model, data, *args, *extra)
