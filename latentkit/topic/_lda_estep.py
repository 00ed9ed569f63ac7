"""The variational E-step of LDA: per-document coordinate ascent on gamma and phi (the numba
kernel :func:`latentkit._kernels.topic.lda_e_step`) and the expected topic-word counts.

Blei, Ng & Jordan (2003), section 5.2 and Fig. 6; Hoffman, Blei & Bach (2010), Algorithm 1.
Used by :class:`latentkit.topic.LatentDirichletAllocation` (batch, online and chunked fits).
"""

import numbers

import numpy as np
from scipy.special import psi

from .._kernels import topic as _k
from .._kernels import topic_prior as _kp
from .._utils.doc_threads import over_documents
from .._utils.validation import check_counts, check_scalar
from ..base import Stats, stats_dataclass
from ..exceptions import InputError

__all__ = ["LDAStats", "lda_e_step"]

@stats_dataclass
class LDAStats(Stats):
    """Sufficient statistics of LDA (additive over documents).

    Attributes
    ----------
    sstats : ndarray of shape (n_components, n_features)
        Expected topic-word counts ``sum_d n_dw phi_dwk``.
    n : float
        Number of documents.
    data_term : float
        Sum over documents of the local ELBO terms (nats):
        ``E[log p(w|z,beta)] + E[log p(z|theta)] + E[log p(theta|alpha)] - E[log q(theta)]
        - E[log q(z)]``.
    n_tokens : float
        Number of tokens (sum of the counts), for perplexity.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.topic import LDAStats
    >>> s = LDAStats(sstats=np.array([[4.0, 1.0], [0.0, 5.0]]), n=2.0, data_term=-7.5,
    ...              n_tokens=10.0)
    >>> bool(s.sstats.sum() == s.n_tokens), s.data_term / s.n_tokens  # nats per token
    (True, -0.75)
    """

    sstats: np.ndarray
    n: float
    data_term: float
    n_tokens: float


def _beta_tables(components):
    """The kernel's shifted transposed table ``exp(E[log beta] - shift)`` (V, K) and the
    shift ``max_k E[log beta_kw]`` (V,)."""
    elog_beta = psi(components) - psi(components.sum(axis=1, keepdims=True))
    shift = elog_beta.max(axis=0)
    exp_beta_t = np.ascontiguousarray(np.exp(elog_beta - shift[None, :]).T)
    return exp_beta_t, np.ascontiguousarray(shift)


def _csr_arrays(X):
    return (np.ascontiguousarray(X.indptr, dtype=np.int64),
            np.ascontiguousarray(X.indices, dtype=np.int64),
            np.ascontiguousarray(X.data, dtype=np.float64))


def _run_local(X, exp_beta_t, shift, alpha, max_iter, tol, gamma0=None):
    """Per-document kernel on a validated CSR matrix. ``max_iter=0`` with ``gamma0`` only
    evaluates the given gamma. Returns gamma, exp_theta, ratio, doc_elbo, n_iter."""
    return _local_kernel(*_csr_arrays(X), exp_beta_t, shift, alpha, max_iter, tol, gamma0)


#: Below this many nonzero counts the E-step runs in the calling thread (a minibatch or a
#: single document to transform: starting a thread pool would cost more than it saves; the
#: numbers are the same either way).
_THREADS_FROM_NNZ = 1024


def _local_kernel(indptr, indices, data, exp_beta_t, shift, alpha, max_iter, tol, gamma0=None):
    """:func:`_run_local` on CSR arrays (int64 ``indptr``, ``indices`` into the rows of
    ``exp_beta_t``; float64 ``data``)."""
    D = indptr.shape[0] - 1
    K = exp_beta_t.shape[1]
    if gamma0 is None:
        gamma = np.empty((D, K))
    else:
        gamma = np.array(gamma0, dtype=np.float64, order="C", copy=True)
    exp_theta = np.empty((D, K))
    ratio = np.empty(data.shape[0])
    doc_elbo = np.empty(D)
    n_iter = np.empty(D, dtype=np.int64)
    if np.ndim(alpha):  # an asymmetric prior (K,): latentkit.topic._lda_priors
        _kp.lda_e_step_asym(indptr, indices, data, exp_beta_t, shift,
                            np.ascontiguousarray(alpha, dtype=np.float64), gamma,
                            gamma0 is not None, int(max_iter), float(tol), exp_theta, ratio,
                            doc_elbo, n_iter)
        return gamma, exp_theta, ratio, doc_elbo, n_iter
    over_documents(_k.lda_e_step, indptr, indices, data, exp_beta_t, shift, float(alpha), gamma,
                   gamma0 is not None, int(max_iter), float(tol), exp_theta, ratio, doc_elbo,
                   n_iter, serial_below=_THREADS_FROM_NNZ)
    return gamma, exp_theta, ratio, doc_elbo, n_iter


#: Tokens (nonzero counts) per document block of the parallel topic-word statistics, at most
#: ``_SUFF_MAX_BLOCKS`` blocks and ``_SUFF_MAX_BYTES`` of per-block (V, K) slots: the blocks
#: depend on the data size only, so the statistics do not depend on the thread count.
_SUFF_BLOCK_NNZ = 1 << 18
_SUFF_MAX_BLOCKS = 16
_SUFF_MAX_BYTES = 128 << 20


def _suff_blocks(n_docs, nnz, V, K):
    return int(max(1, min(_SUFF_MAX_BLOCKS, nnz // _SUFF_BLOCK_NNZ, n_docs,
                          _SUFF_MAX_BYTES // (8 * V * K))))


def _suff_stats(X, ratio, exp_theta, exp_beta_t):
    """Expected topic-word counts (K, V) from the kernel's per-document outputs: serial for
    small corpora, else by document blocks in parallel (the O(nnz K) accumulation would
    otherwise run on one core after the parallel E-step)."""
    indptr, indices, _ = _csr_arrays(X)
    V, K = exp_beta_t.shape
    D = indptr.shape[0] - 1
    ss_t = np.empty(exp_beta_t.shape)
    B = _suff_blocks(D, indices.shape[0], V, K)
    if B == 1:
        _k.lda_suff_stats(indptr, indices, ratio, exp_theta, exp_beta_t, ss_t)
    else:  # blocks of about equal token counts
        edges = np.searchsorted(indptr, np.arange(B + 1) * (indptr[-1] / B)).astype(np.int64)
        edges[0], edges[-1] = 0, D
        edges = np.maximum.accumulate(edges)
        _k.lda_suff_stats_blocked(indptr, indices, ratio, exp_theta, exp_beta_t, edges,
                                  np.empty((B, V, K)), ss_t)
    return np.ascontiguousarray(ss_t.T)


def _run_e_step(X, exp_beta_t, shift, alpha, max_iter, tol, gamma0=None, sstats=True):
    """Kernel + statistics. Returns gamma, sstats (or None), doc_elbo, n_iter."""
    gamma, exp_theta, ratio, doc_elbo, n_iter = _run_local(X, exp_beta_t, shift, alpha,
                                                           max_iter, tol, gamma0)
    ss = _suff_stats(X, ratio, exp_theta, exp_beta_t) if sstats else None
    return gamma, ss, doc_elbo, n_iter


def lda_e_step(X, components, doc_topic_prior, max_doc_update_iter=100, mean_change_tol=1e-3,
               gamma0=None):
    """Variational E-step of LDA for a batch of documents (validating wrapper of the kernel).

    For each document, coordinate ascent on ``gamma_d`` and ``phi_d`` with the topics
    ``q(beta) = Dir(components)`` fixed, then the expected topic-word counts and the local ELBO.

    Parameters
    ----------
    X : array-like or scipy.sparse matrix of shape (n_documents, n_features)
        Non-negative counts (integer or float).
    components : array-like of shape (n_components, n_features)
        Variational Dirichlet parameters lambda of the topics (> 0).
    doc_topic_prior : float
        Symmetric Dirichlet prior alpha of the document-topic proportions (> 0).
    max_doc_update_iter : int, default 100
        Maximum sweeps per document.
    mean_change_tol : float, default 1e-3
        Stop a document when the mean absolute change of gamma is below this.
    gamma0 : array-like of shape (n_documents, n_components), optional
        Starting gamma (warm start, > 0). Default ``alpha + N_d / K`` (Blei et al. 2003, Fig. 6).

    Returns
    -------
    gamma : ndarray of shape (n_documents, n_components)
        Variational Dirichlet parameters of theta (unnormalised doc-topic weights).
    sstats : ndarray of shape (n_components, n_features)
        Expected topic-word counts ``sum_d n_dw phi_dwk``.
    doc_elbo : ndarray of shape (n_documents,)
        Local ELBO of each document in nats (0 for an empty document).
    n_iter : ndarray of shape (n_documents,) of int
        Sweeps run per document.

    Raises
    ------
    ValueError
        Invalid counts (NaN, inf, negative, wrong dimensions), mismatched shapes, non-positive
        parameters.

    Notes
    -----
    Blei, Ng & Jordan (2003), section 5.2 and Fig. 6; Hoffman, Blei & Bach (2010), Algorithm 1.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.topic import lda_e_step
    >>> X = np.array([[5.0, 0.0], [0.0, 5.0]])
    >>> components = np.array([[10.0, 0.1], [0.1, 10.0]])  # topic k is mostly word k
    >>> gamma, sstats, doc_elbo = lda_e_step(X, components, doc_topic_prior=0.5)[:3]
    >>> np.round(gamma, 1)  # alpha + the document's tokens of each topic
    array([[5.5, 0.5],
           [0.5, 5.5]])
    >>> round(float(sstats.sum()), 6)  # the 10 tokens
    10.0
    """
    X = check_counts(X, "X")
    lam = np.asarray(components, dtype=np.float64)
    if lam.ndim != 2 or lam.shape[1] != X.shape[1]:
        raise InputError(f"components must have shape (n_components, {X.shape[1]}), got "
                         f"{lam.shape}.")
    if not np.all(np.isfinite(lam)) or np.any(lam <= 0):
        raise InputError("components must be finite and strictly positive.")
    alpha = check_scalar(doc_topic_prior, "doc_topic_prior", numbers.Real, low=0.0,
                         low_inclusive=False)
    max_it = check_scalar(max_doc_update_iter, "max_doc_update_iter", numbers.Integral, low=1)
    tol = check_scalar(mean_change_tol, "mean_change_tol", numbers.Real, low=0.0)
    if gamma0 is not None:
        g0 = np.asarray(gamma0, dtype=np.float64)
        if g0.shape != (X.shape[0], lam.shape[0]):
            raise InputError(f"gamma0 must have shape {(X.shape[0], lam.shape[0])}, got {g0.shape}.")
        if not np.all(np.isfinite(g0)) or np.any(g0 <= 0):
            raise InputError("gamma0 must be finite and strictly positive.")
        gamma0 = g0
    bt, shift = _beta_tables(lam)
    return _run_e_step(X, bt, shift, alpha, max_it, tol, gamma0=gamma0)
