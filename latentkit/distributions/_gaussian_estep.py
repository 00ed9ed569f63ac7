"""The fused E-step of a Gaussian mixture: log densities, normalisation, responsibilities and
sufficient statistics in one pass (:func:`gaussian_mixture_e_step`), shared by
GaussianMixture, VariationalGaussianMixture and DirichletProcessMixture. Split from
:mod:`latentkit.distributions._gaussian` (the distribution's shapes, factors, densities and
M-step) because it holds the threading policy of the full-covariance path.

**Speed.** For ``covariance_type='full'``, :func:`gaussian_mixture_e_step` runs each chunk of
256 rows as BLAS GEMMs -- ``(X - c) [U_1 ... U_K]`` (all K triangular projections at
once, in two products that skip the factors' zero block) -- then, in the same numba kernel,
the element-wise part (norms, log-sum-exp, responsibilities, a vectorised exp) and the
counts, first and second moments of all K components, eight per pass over the rows.
The rows are split into partitions of about 4096 rows -- their number fixed by the data size,
never by the thread count -- run on numba's threads with BLAS limited to one thread
(:func:`latentkit._utils.threads.blas_single_thread`; on a busy 2-core machine OpenBLAS's own
threads fighting numba's made an earlier BLAS-chunked version 5-10x slower); partitions are
combined in index order, so the result is bit-identical for any thread count. Measured
2.4x faster than the fused kernel below (N=200,000, D=16, K=8).
The other covariance types use one fused numba pass
(:mod:`latentkit._kernels.gaussian`): log densities through the triangular factors (half the
multiply-adds of a dense product), log-sum-exp, responsibilities and the statistics, over tiles
of 16 rows held transposed so the inner loops vectorise over rows, with ``prange`` over a fixed
number of row blocks and no BLAS call.

Source: Bishop (2006), *Pattern Recognition and Machine Learning*, eqs. (9.23), (9.28).
"""

import numpy as np

from .._utils import threads as _threads
from .._kernels import gaussian as _kern
from ._gaussian import _LOG_2PI, GaussianStats, check_covariance_type, log_det_cholesky

__all__ = ["gaussian_mixture_e_step"]


#: Rows per chunk of the BLAS E-step (full covariance): Y and Z of a chunk (2 x 256 KiB for
#: K D = 128) stay in a 1 MiB L2 next to the packed GEMM operands; 256 measured fastest of
#: 128/256/512/1024 for D=16, K=8.
_GEMM_CHUNK = 256
#: Rows per partition of the BLAS E-step. The number of partitions, ``ceil(n / _GEMM_PART_ROWS)``
#: with balanced edges ``n p // P``, depends on the data size only -- never on the thread
#: count -- and partitions are combined in index order, so the statistics are bit-identical
#: for any number of threads while every thread has work (a million rows make 245 partitions;
#: each holds only K + K D + K D^2 partial sums).
_GEMM_PART_ROWS = 4096


def _gemm_estep_available():
    """The BLAS E-step needs BLAS limited to one thread (threadpoolctl, a runtime dependency):
    several Python threads each calling a multithreaded OpenBLAS would oversubscribe the cores.
    Only the controller is built here; no thread count changes outside the E-step's ``with``."""
    return _threads.blas_controller() is not None


def _gemm_partitions(n, part_rows=_GEMM_PART_ROWS):
    """Row edges (int64, P + 1) of the partitions of the BLAS E-step (``part_rows`` rows
    each, about): a function of ``n`` only, never of the thread count."""
    P = max(1, -(-n // part_rows))
    return np.array([n * p // P for p in range(P + 1)], dtype=np.int64)


def _sum_partitions(parts):
    """``parts[0] + parts[1] + ...`` over the first axis, added in index order (not
    ``parts.sum(axis=0)``, whose pairwise order differs): the same result for any thread
    count that filled the partitions."""
    total = parts[0].copy()
    for p in range(1, parts.shape[0]):
        total += parts[p]
    return total


def _gemm_estep_full(X, shift, means, U, const, w, lse, log_resp):
    """Full-covariance E-step as two BLAS GEMMs per chunk of rows: ``Y = (X - c) [U_1 ...
    U_K]`` (n x D times D x K D) for all K log densities, then the element-wise part and
    the moments of all K components in numba
    (:func:`latentkit._kernels.gaussian.mixture_estep_full_gemm`). numba's threads run over
    row partitions fixed by ``n`` alone (:func:`_gemm_partitions`), BLAS limited to one thread,
    and the partitions are summed in index order: bit-identical results for any thread count."""
    import numba  # only for parallel_chunksize; importing numba costs start-up time

    n, D = X.shape
    K = const.shape[0]
    U = np.triu(np.broadcast_to(U, (K, D, D)))
    ucat = np.ascontiguousarray(U.transpose(1, 0, 2).reshape(D, K * D))
    bcat = np.ascontiguousarray(np.einsum("kd,kde->ke", means - shift, U).reshape(K * D))
    edges = _gemm_partitions(n)
    P = edges.shape[0] - 1
    nk_p = np.zeros((P, K))
    sx_p = np.zeros((P, K, D))
    sxx_p = np.zeros((P, D, K * D))
    # one partition at a time per thread (dynamic scheduling: a loaded core does not hold
    # the others back); which thread runs a partition does not change its result
    with _threads.blas_single_thread(), numba.parallel_chunksize(1):
        _kern.mixture_estep_full_gemm(X, shift, ucat, bcat, const, w, edges, _GEMM_CHUNK, nk_p,
                                      sx_p, sxx_p, lse, log_resp)
    nk, sx, sxx = _sum_partitions(nk_p), _sum_partitions(sx_p), _sum_partitions(sxx_p)
    sxx = np.ascontiguousarray(sxx.reshape(D, K, D).transpose(1, 0, 2))
    iu = np.triu_indices(D, 1)
    sxx[:, iu[1], iu[0]] = sxx[:, iu[0], iu[1]]  # exactly symmetric, like the fused kernel
    return nk, sx, sxx


def e_step_inputs(X, means, covariance_type, shift, sample_weight):
    """The checked inputs of an E-step (this one and the missing-data one): ``X`` C-contiguous
    float64, ``means`` float64, ``shift`` (default the origin) and the weights (default 1)
    C-contiguous float64."""
    check_covariance_type(covariance_type)
    X = np.ascontiguousarray(X, dtype=np.float64)
    means = np.asarray(means, dtype=np.float64)
    n, D = X.shape
    shift = np.zeros(D) if shift is None else np.ascontiguousarray(shift, dtype=np.float64)
    w = np.ones(n) if sample_weight is None else \
        np.ascontiguousarray(sample_weight, dtype=np.float64)
    return X, means, shift, w


def gaussian_mixture_e_step(X, log_weights, means, precisions_cholesky, covariance_type, *,
                            sample_weight=None, shift=None, return_log_resp=False):
    """One fused E-step of a Gaussian mixture: log densities, normalisation, responsibilities
    and sufficient statistics, chunk by chunk (nothing of size (n, K D) is materialised).

    The per-component offsets ``log_weights`` make the same routine serve the variational
    mixtures: ``log rho_ik = log_weights_k + log det U_k - D/2 log(2 pi)
    - 0.5 ||(x_i - mu_k) U_k||^2``, ``r_ik = rho_ik / sum_j rho_ij``, and
    ``data_term = sum_i w_i log sum_k rho_ik``.

    Parameters
    ----------
    X : ndarray of shape (n, D), float64, C-contiguous
    log_weights : ndarray of shape (K,)
        ``log pi_k`` (or any per-component additive offset), nats.
    means : ndarray of shape (K, D)
    precisions_cholesky : ndarray
        (K, D, D), (D, D), (K, D) or (K,).
    covariance_type : {'full', 'tied', 'diag', 'spherical'}
    sample_weight : ndarray of shape (n,), optional
    shift : ndarray of shape (D,), optional
        Moments are taken about it (see module docstring); default the origin.
    return_log_resp : bool, default False
        Also return the (n, K) log-responsibilities.

    Returns
    -------
    stats : GaussianStats
        ``n = sum_i w_i``; ``data_term`` in nats (summed).
    log_resp : ndarray of shape (n, K)
        Only when ``return_log_resp``.

    Source: Bishop (2006) eqs. (9.23), (9.28).

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.distributions import gaussian_mixture_e_step
    >>> X = np.array([[0.0], [10.0]])
    >>> means = np.array([[0.0], [10.0]])
    >>> stats = gaussian_mixture_e_step(X, np.log([0.5, 0.5]), means, np.ones((2, 1)), "diag")
    >>> stats.nk  # each point belongs to its own component
    array([1., 1.])
    """
    X, means, shift, w = e_step_inputs(X, means, covariance_type, shift, sample_weight)
    n, D = X.shape
    K = means.shape[0]
    const = np.asarray(log_weights, dtype=np.float64) + \
        log_det_cholesky(precisions_cholesky, covariance_type, D) - 0.5 * D * _LOG_2PI
    const = np.ascontiguousarray(np.broadcast_to(const, (K,)), dtype=np.float64)
    log_resp = np.empty((n, K)) if return_log_resp else None
    lse = np.empty(n)
    if covariance_type == "full" and _gemm_estep_available():
        U = np.asarray(precisions_cholesky, dtype=np.float64)
        nk, sx, sxx = _gemm_estep_full(X, shift, means, U, const, w, lse, log_resp)
        stats = GaussianStats(n=float(w.sum()), data_term=float(w @ lse), nk=nk, sx=sx,
                              sxx=sxx)
        return (stats, log_resp) if return_log_resp else stats
    full = covariance_type in ("full", "tied")
    T = _kern.n_blocks_for(n, K, D, full=full)
    nk_b = np.zeros((T, K))
    sx_b = np.zeros((T, K, D))
    if full:
        U = np.asarray(precisions_cholesky, dtype=np.float64)
        U = np.ascontiguousarray(np.broadcast_to(U, (K, D, D)))
        bvec = np.ascontiguousarray(np.einsum("kd,kde->ke", means - shift, U))
        sxx_b = np.zeros((T, K, D, D))
        _kern.mixture_estep_full(X, shift, U, bvec, const, w, nk_b, sx_b, sxx_b, lse, log_resp)
        sxx = sxx_b.sum(axis=0)
        iu = np.triu_indices(D, 1)
        sxx[:, iu[1], iu[0]] = sxx[:, iu[0], iu[1]]  # kernel fills the upper triangle
        if covariance_type == "tied":
            sxx = sxx.sum(axis=0)
    else:
        pc = np.asarray(precisions_cholesky, dtype=np.float64)
        prec = pc ** 2
        if covariance_type == "spherical":
            prec = np.repeat(prec[:, None], D, axis=1)
        prec = np.ascontiguousarray(prec)
        means_c = np.ascontiguousarray(means - shift)
        sxx_b = np.zeros((T, K, D))
        _kern.mixture_estep_diag(X, shift, means_c, prec, const, w, nk_b, sx_b, sxx_b, lse,
                                 log_resp)
        sxx = sxx_b.sum(axis=0)
        if covariance_type == "spherical":
            sxx = sxx.sum(axis=1)
    stats = GaussianStats(n=float(w.sum()), data_term=float(w @ lse), nk=nk_b.sum(axis=0),
                          sx=sx_b.sum(axis=0), sxx=sxx)
    if return_log_resp:
        return stats, log_resp
    return stats
