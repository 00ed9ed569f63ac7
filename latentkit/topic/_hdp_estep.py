"""The variational E-step of the HDP topic model: per-document coordinate ascent (the numba
kernel :func:`latentkit._kernels.hdp.hdp_e_step`), the expected statistics, and the monotone
guard of a batch fit on every path (in memory, chunked, Dask).

Wang, Paisley & Blei (2011), "Online Variational Inference for the Hierarchical Dirichlet
Process", AISTATS, section 3 (eqs. 9-13 for the document level, 14-16 for the corpus level).
Used by :class:`latentkit.topic.HierarchicalDirichletProcess`.
"""


import numpy as np
from scipy.special import psi

from .._kernels import hdp as _k
from .._utils.doc_threads import document_edges, over_documents, over_ranges
from ..base import Stats, stats_dataclass
from ..distributions._concentration import free_stick_log_rest
from ._lda_estep import _csr_arrays
from ._lda_guard import _ChunkStore, _elbo

__all__ = ["HDPStats", "hdp_local", "hdp_stats", "guarded_hdp_e_step"]


@stats_dataclass
class HDPStats(Stats):
    """Sufficient statistics of the HDP topic model (additive over documents).

    Attributes
    ----------
    sstats : ndarray of shape (n_components, n_features)
        Expected topic-word counts ``sum_d sum_j n_dj [w_dj = w] sum_t zeta_djt varphi_dtk``.
    topic_counts : ndarray of shape (n_components,)
        Expected number of document atoms on each corpus topic, ``sum_d sum_t varphi_dtk``
        (the counts of the corpus sticks).
    n : float
        Number of documents.
    data_term : float
        Sum over documents of the local ELBO (nats).
    n_tokens : float
        Number of tokens.
    doc_stick_log_rest : float
        ``sum_d sum_{t<K} E[log(1 - pi'_dt)]`` (nats), the statistic of the Gamma factor of
        the document concentration (``doc_concentration_prior``); 0 in files written before it.
    """

    sstats: np.ndarray
    topic_counts: np.ndarray
    n: float
    data_term: float
    n_tokens: float
    doc_stick_log_rest: float = 0.0


def elog_tables(components):
    """``E[log phi_kw]`` transposed, (V, T) C-contiguous."""
    elog = psi(components) - psi(components.sum(axis=1, keepdims=True))
    return np.ascontiguousarray(elog.T)


def hdp_local(X, elog_phi_t, elog_beta, alpha, K, max_iter, tol, state=None):
    """The kernel on a validated CSR matrix: ``(varphi, sticks, zeta, doc_elbo, n_iter)``;
    ``state=(varphi, sticks)`` warm-starts (``max_iter=0``: evaluate it)."""
    indptr, indices, data = _csr_arrays(X)
    D = X.shape[0]
    T = elog_phi_t.shape[1]
    if state is None:
        varphi, sticks = np.empty((D, K, T)), np.empty((D, 2, K))
    else:
        varphi = np.array(state[0], dtype=np.float64, order="C", copy=True)
        sticks = np.array(state[1], dtype=np.float64, order="C", copy=True)
    zeta = np.empty((data.shape[0], K))
    doc_elbo = np.empty(D)
    n_iter = np.empty(D, dtype=np.int64)
    over_documents(_k.hdp_e_step, indptr, indices, data, elog_phi_t,
                   np.ascontiguousarray(elog_beta), float(alpha), varphi, sticks,
                   state is not None, int(max_iter), float(tol), zeta, doc_elbo, n_iter)
    return varphi, sticks, zeta, doc_elbo, n_iter


#: Tokens (nonzero counts) per document block of the parallel statistics, at most
#: ``_MAX_BLOCKS`` blocks and ``_MAX_BYTES`` of per-block (V, T) slots: the blocks depend on
#: the data size only, so the statistics do not depend on the thread count.
_BLOCK_NNZ = 1 << 16
_MAX_BLOCKS = 8
_MAX_BYTES = 128 << 20


def hdp_stats(X, varphi, zeta, doc_elbo, V, T, sticks=None):
    """:class:`HDPStats` of documents ``X`` from their local factors (``sticks`` (D, 2, K):
    the document sticks, for ``doc_stick_log_rest``; None: 0)."""
    indptr, indices, data = _csr_arrays(X)
    D = X.shape[0]
    B = int(max(1, min(_MAX_BLOCKS, data.shape[0] // _BLOCK_NNZ, D, _MAX_BYTES // (8 * V * T))))
    scratch = np.empty((B, V, T))
    over_ranges(_k.hdp_suff_stats_block, document_edges(indptr, B), indptr, indices, data,
                zeta, varphi, block_out=scratch)
    out = np.zeros((V, T))
    for b in range(B):  # in block order: the same numbers for any number of threads
        out += scratch[b]
    return HDPStats(sstats=np.ascontiguousarray(out.T), topic_counts=varphi.sum(axis=(0, 1)),
                    n=float(D), data_term=float(np.sum(doc_elbo)),
                    n_tokens=float(data.sum()),
                    doc_stick_log_rest=0.0 if sticks is None else free_stick_log_rest(sticks))


# ---- the monotone guard (class Notes of HierarchicalDirichletProcess) ------------------------

def _cold(model, X, cap):
    return model._local(X, max_iter=cap)[:4]


def _keep_better(model, X, local, state_old):
    """Each document keeps its previous (varphi, sticks), zeta re-optimised at the current
    global factors, where that local ELBO is higher."""
    varphi, sticks, zeta, doc_elbo = local
    v_old, s_old, z_old, e_old, _ = model._local(X, state=state_old, max_iter=0)
    keep = e_old > doc_elbo
    varphi[keep] = v_old[keep]
    sticks[keep] = s_old[keep]
    doc_elbo[keep] = e_old[keep]
    rows = np.repeat(keep, np.diff(X.indptr))
    zeta[rows] = z_old[rows]
    return varphi, sticks, zeta, doc_elbo


def _part_stats(model, X, local):
    varphi, sticks, zeta, doc_elbo = local
    return model._stats_from_local(X, varphi, zeta, doc_elbo, sticks), (varphi, sticks)


def cold_part(model, X, cap):
    """Statistics and local state of the cold-start E-step of one part (chunk, block), at
    most ``cap`` sweeps per document."""
    return _part_stats(model, X, _cold(model, X, cap))


def guarded_part(model, X, cap, state_old):
    """Statistics and local state of one part with the guard applied (the kernel is
    deterministic: the cold start recomputed gives the numbers of the first pass)."""
    return _part_stats(model, X, _keep_better(model, X, _cold(model, X, cap), state_old))


def _cap(model, warm):
    """The sweep cap of this iteration (``warmup_doc_update_iter``), counting it."""
    cap = int(model.max_doc_update_iter)
    if model.warmup_doc_update_iter is not None:
        cap = min(cap, int(model.warmup_doc_update_iter) * 2 ** min(warm["it"], 30))
    warm["it"] += 1
    return cap


def guarded_hdp_e_step(model, data, warm):
    """The E-step statistics of one batch iteration with the guard, for in-memory data, a
    :class:`latentkit.sources.ValidatedChunks` or a :class:`latentkit.parallel.dask.DaskData`
    (the same scheme as LDA's, :mod:`latentkit.topic._lda_guard`); ``warm`` holds the previous
    iteration's ELBO and local states and is updated."""
    cap = _cap(model, warm)
    glob = model._global_elbo_terms()
    previous = warm["elbo"]
    if hasattr(data, "reduce_stats"):  # Dask: the local states stay on the workers
        parts = data.map_blocks(model, cold_part, cap)
        stats = data.sum_first(parts)
        if previous is not None and _elbo(stats, glob) < previous:
            parts = data.map_blocks(model, guarded_part, cap, per_block=(warm["state"],))
            stats = data.sum_first(parts)
        warm["state"] = data.seconds(parts)
    elif hasattr(data, "iter_chunks"):  # chunked: the local states in temporary files
        store = warm.get("store")
        if store is None:
            store = warm["store"] = _ChunkStore()
        stats, n_chunks = model._empty_stats(), 0
        for i, X in enumerate(data.iter_chunks()):
            s, state = cold_part(model, X, cap)
            store.put(i, np.concatenate([a.reshape(a.shape[0], -1) for a in state], axis=1))
            stats, n_chunks = stats + s, n_chunks + 1
        if previous is not None and _elbo(stats, glob) < previous:
            stats = model._empty_stats()
            for i, X in enumerate(data.iter_chunks()):
                s, state = guarded_part(model, X, cap,
                                        model._split_state(store.previous(i)))
                store.put(i, np.concatenate([a.reshape(a.shape[0], -1) for a in state],
                                            axis=1))
                stats = stats + s
        store.advance(n_chunks)
    else:  # in memory: the cold results are kept for the guard (no second cold pass)
        local = _cold(model, data, cap)
        if previous is not None and (float(np.sum(local[3])) + glob) / data.shape[0] < previous:
            local = _keep_better(model, data, local, warm["state"])
        stats, warm["state"] = _part_stats(model, data, local)
    warm["elbo"] = _elbo(stats, glob)
    return stats
