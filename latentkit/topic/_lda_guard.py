"""LDA's monotone guard (class Notes of :class:`LatentDirichletAllocation`) on every path.

In every iteration of a batch fit, the cold-start E-step runs first; when its ELBO is below
the previous iteration's, each document whose previous gamma has the higher local ELBO at the
current topics keeps it. The previous gammas are per-document state: an in-memory fit keeps
them in memory, a fit of a chunked source in temporary ``.npy`` files, one per chunk (out of
core: memory stays bounded by one chunk), and a Dask fit on the workers, beside their blocks.
The three paths compute the same numbers, so their fits agree (to the rounding of the sums
over chunks).
"""

import os
import tempfile

import numpy as np

from ._lda_estep import _run_local, _suff_stats

__all__ = ["guarded_e_step"]


def _cap(model, warm):
    """The sweep cap of this iteration (``warmup_doc_update_iter``), counting it."""
    cap = int(model.max_doc_update_iter)
    if model.warmup_doc_update_iter is not None:  # cheap first iterations (class docs)
        cap = min(cap, int(model.warmup_doc_update_iter) * 2 ** min(warm["it"], 30))
    warm["it"] += 1
    return cap


def _cold(model, X, cap):
    return _run_local(X, model._exp_beta_t, model._beta_shift, model.doc_topic_prior_, cap,
                      model.mean_change_tol)[:4]


def _keep_better(model, X, local, gamma_old):
    """Each document keeps the previous ``gamma_old`` where its local ELBO is higher."""
    gamma, exp_theta, ratio, doc_elbo = local
    g_old, et_old, r_old, de_old, _ = _run_local(X, model._exp_beta_t, model._beta_shift,
                                                 model.doc_topic_prior_, 0, 0.0,
                                                 gamma0=gamma_old)
    keep = de_old > doc_elbo
    gamma[keep] = g_old[keep]
    exp_theta[keep] = et_old[keep]
    doc_elbo[keep] = de_old[keep]
    ratio = np.where(np.repeat(keep, np.diff(X.indptr)), r_old, ratio)
    return gamma, exp_theta, ratio, doc_elbo


def _stats(model, X, local):
    gamma, exp_theta, ratio, doc_elbo = local
    return model._stats_from(X, _suff_stats(X, ratio, exp_theta, model._exp_beta_t), doc_elbo,
                             gamma)


def cold_part(model, X, cap):
    """Statistics and gamma of the cold-start E-step of one part (chunk, block)."""
    local = _cold(model, X, cap)
    return _stats(model, X, local), local[0]


def guarded_part(model, X, cap, gamma_old):
    """Statistics and gamma of one part with the guard applied (the cold start recomputed:
    the same numbers as in the first pass, the kernel is deterministic)."""
    local = _keep_better(model, X, _cold(model, X, cap), gamma_old)
    return _stats(model, X, local), local[0]


class _ChunkStore:
    """Per-chunk arrays of the previous and current iteration in a temporary directory
    (removed when the fit's warm state is dropped)."""

    def __init__(self):
        self._dir = tempfile.TemporaryDirectory(prefix="latentkit-lda-")
        self.generation = 0

    def _path(self, generation, i):
        return os.path.join(self._dir.name, f"{generation}_{i}.npy")

    def put(self, i, array):
        np.save(self._path(self.generation, i), array)

    def previous(self, i):
        return np.load(self._path(self.generation - 1, i))

    def advance(self, n_chunks):
        for i in range(n_chunks):  # the previous iteration's files are no longer needed
            path = self._path(self.generation - 1, i)
            if os.path.exists(path):
                os.remove(path)
        self.generation += 1


def _elbo(stats, glob):
    return (float(stats.data_term) + glob) / float(stats.n)


def guarded_e_step(model, data, warm):
    """The E-step statistics of one batch iteration of ``model`` with the guard, for
    in-memory data, a :class:`latentkit.sources.ValidatedChunks` or a
    :class:`latentkit.parallel.dask.DaskData`; ``warm`` (the fit's ``_warm_state``) holds the
    previous iteration's ELBO and gammas and is updated."""
    cap = _cap(model, warm)
    glob = model._global_elbo_terms()
    previous = warm["elbo"]
    if hasattr(data, "reduce_stats"):  # Dask: the gammas stay on the workers
        parts = data.map_blocks(model, cold_part, cap)
        stats = data.sum_first(parts)
        if previous is not None and _elbo(stats, glob) < previous:
            parts = data.map_blocks(model, guarded_part, cap, per_block=(warm["gamma"],))
            stats = data.sum_first(parts)
        warm["gamma"] = data.seconds(parts)
    elif hasattr(data, "iter_chunks"):  # a chunked source: the gammas in temporary files
        store = warm.get("store")
        if store is None:
            store = warm["store"] = _ChunkStore()
        stats = model._empty_stats()
        n_chunks = 0
        for i, X in enumerate(data.iter_chunks()):
            s, gamma = cold_part(model, X, cap)
            store.put(i, gamma)
            stats = stats + s
            n_chunks += 1
            del s, gamma, X  # not held while the next chunk is read
        if previous is not None and _elbo(stats, glob) < previous:
            stats = model._empty_stats()
            for i, X in enumerate(data.iter_chunks()):
                s, gamma = guarded_part(model, X, cap, store.previous(i))
                store.put(i, gamma)
                stats = stats + s
                del s, gamma, X
        store.advance(n_chunks)
    else:  # in memory: the cold results are kept for the guard (no second cold pass)
        local = _cold(model, data, cap)
        n = float(data.shape[0])
        if previous is not None and (float(np.sum(local[3])) + glob) / n < previous:
            local = _keep_better(model, data, local, warm["gamma"])
        warm["gamma"] = local[0]
        stats = _stats(model, data, local)
    warm["elbo"] = _elbo(stats, glob)
    return stats
