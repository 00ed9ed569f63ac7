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

__all__ = ["HDPStats", "HDPLocalStep", "hdp_local", "hdp_stats"]


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

def _keep_better(local, evaluated, indptr):
    """Each document keeps its previous (varphi, sticks), zeta re-optimised at the current
    global factors (``evaluated``: the kernel run from them with no sweep), where that local
    ELBO is higher."""
    varphi, sticks, zeta, doc_elbo = local
    v_old, s_old, z_old, e_old, _ = evaluated
    keep = e_old > doc_elbo
    varphi[keep] = v_old[keep]
    sticks[keep] = s_old[keep]
    doc_elbo[keep] = e_old[keep]
    rows = np.repeat(keep, np.diff(indptr))
    zeta[rows] = z_old[rows]
    return varphi, sticks, zeta, doc_elbo


class HDPLocalStep:
    """The HDP's document-level E-step at fixed global factors, from arrays (the local step
    of :class:`latentkit.topic._lda_guard.GuardedEStep`; :meth:`run` is the model's E-step).

    Parameters
    ----------
    elog_phi_t : ndarray of shape (n_features, n_components)
        ``E[log phi_kw]`` transposed.
    elog_beta : ndarray of shape (n_components,)
        ``E[log beta_k]`` of the corpus sticks.
    alpha : float
        The document concentration.
    n_doc_components : int
        K, atoms per document.
    max_doc_update_iter : int
    mean_change_tol : float
    elbo_shift : float or None
        Added to every document's ELBO (``(K - 1)`` times the concentration's log gap when
        it has a posterior); None: nothing.
    """

    def __init__(self, elog_phi_t, elog_beta, alpha, n_doc_components, max_doc_update_iter,
                 mean_change_tol, elbo_shift=None):
        self.elog_phi_t, self.elog_beta, self.alpha = elog_phi_t, elog_beta, alpha
        self.K, self.max_iter, self.tol = n_doc_components, max_doc_update_iter, mean_change_tol
        self.elbo_shift = elbo_shift

    def run(self, X, state=None, max_iter=None):
        """``(varphi, sticks, zeta, doc_elbo, n_iter)`` (:func:`hdp_local`)."""
        out = hdp_local(X, self.elog_phi_t, self.elog_beta, self.alpha, self.K,
                        self.max_iter if max_iter is None else max_iter, self.tol, state)
        if self.elbo_shift is not None:  # E_q[log alpha] in the sticks' terms
            out[3][:] += self.elbo_shift
        return out

    def cold(self, X, cap):
        return self.run(X, max_iter=cap)[:4]

    def keep_better(self, X, local, state_old):
        return _keep_better(local, self.run(X, state=state_old, max_iter=0), X.indptr)

    def stats(self, X, local):
        """(statistics, (varphi, sticks)) of a part from its local state."""
        varphi, sticks, zeta, doc_elbo = local
        V, T = self.elog_phi_t.shape
        return hdp_stats(X, varphi, zeta, doc_elbo, V, T, sticks), (varphi, sticks)

    def part(self, X, cap, old=None):
        local = self.cold(X, cap)
        if old is not None:
            local = self.keep_better(X, local, old)
        return self.stats(X, local)

    @staticmethod
    def flatten(state):
        return np.concatenate([a.reshape(a.shape[0], -1) for a in state], axis=1)

    def split(self, flat):
        """(varphi, sticks) of documents from their rows of a chunk file."""
        K, T = self.K, self.elog_phi_t.shape[1]
        return flat[:, :K * T].reshape(-1, K, T), flat[:, K * T:].reshape(-1, 2, K)
