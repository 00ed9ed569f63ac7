"""numba kernels of the hierarchical Dirichlet process topic model (mean-field VB).

The per-document coordinate ascent of Wang, Paisley & Blei (2011, section 3, eqs. 9-13; the
document-level half of their Algorithm 1) on the two-level stick-breaking representation: a
document has K atoms, atom t points to corpus topic k with probability ``varphi_tk`` and has
the stick ``q(pi'_t) = Beta(a_t, b_t)`` (``pi'_K = 1``); entry j (word ``w_j``, count ``n_j``)
is on atom t with probability ``zeta_jt``. One sweep updates, each exactly given the others,

    zeta_jt  ∝ exp(sum_k varphi_tk E[log phi_{k w_j}] + E[log pi_t])
    a_t      = 1 + sum_j n_j zeta_jt,   b_t = alpha + sum_j n_j sum_{s>t} zeta_js   (t < K)
    varphi_tk ∝ exp(sum_j n_j zeta_jt E[log phi_{k w_j}] + E[log beta_k])

so a document's local bound never decreases from its starting point. After the last sweep
zeta is recomputed from the final (varphi, sticks), and the local ELBO is evaluated in closed
form at that state (zeta optimal):

    sum_j n_j log sum_t exp(sum_k varphi_tk E[log phi_{k w_j}] + E[log pi_t])
    - sum_{t<K} KL(Beta(a_t, b_t) || Beta(1, alpha))
    + sum_{t,k} varphi_tk (E[log beta_k] - log varphi_tk).

Cold start (deterministic, a function of the global factors only): the corpus topics are
ranked by the document's expected word counts under ``exp(E[log phi_kw] + E[log beta_k])``
(each word on its own), atom t starts on the t-th ranked topic (``varphi_t`` one-hot), the
sticks at their prior. Every atom then starts on a different topic, so the symmetric start of
Wang et al.'s code (uniform zeta, all atoms alike), where the document-level atoms separate
only through the sticks, is avoided.

Determinism: each document writes only its own outputs, so :func:`hdp_e_step` gives the same
numbers on any document ranges; the topic-word statistics are summed by
:func:`hdp_suff_stats_block` over blocks fixed by the data size, combined in block order, so
results do not depend on the number of threads. Cold start: the kernels are serial over a
range (the caller, :mod:`latentkit.topic._hdp_estep`, runs ranges on Python threads): a
``prange`` kernel costs numba's parfor passes and a gufunc compilation on every first run.

Imports only numpy, math and numba (DESIGN.md section 4).
"""

import math

import numpy as np

from ._jit import jit
from .topic import digamma

__all__ = ["hdp_e_step", "hdp_suff_stats_block"]


@jit
def _elog_pi(sticks, elog_pi):
    """E[log pi_t] of the document sticks ``sticks`` (2, K), the last stick fixed at 1."""
    K = elog_pi.shape[0]
    cum = 0.0
    for t in range(K - 1):
        s = digamma(sticks[0, t] + sticks[1, t])
        elog_pi[t] = digamma(sticks[0, t]) - s + cum
        cum += digamma(sticks[1, t]) - s
    elog_pi[K - 1] = cum


@jit
def _update_zeta(E, varphi, elog_pi, data, s, zeta):
    """zeta of every entry of one document given (varphi, E[log pi]) (``E``: the document's
    rows of ``E[log phi]``, (N, T)); returns sum_j n_j log sum_t exp(...), the words' part of
    the local bound at the optimal zeta. The (N, T) x (T, K) product goes to BLAS."""
    K = varphi.shape[0]
    logits = np.dot(E, np.ascontiguousarray(varphi.T))
    total = 0.0
    for i in range(E.shape[0]):
        z = zeta[s + i]
        mx = -np.inf
        for t in range(K):
            v = logits[i, t] + elog_pi[t]
            z[t] = v
            if v > mx:
                mx = v
        norm = 0.0
        for t in range(K):
            z[t] = math.exp(z[t] - mx)
            norm += z[t]
        for t in range(K):
            z[t] /= norm
        total += data[s + i] * (mx + math.log(norm))
    return total


@jit
def _update_sticks(s, e, zeta, data, alpha, sticks, counts):
    """Document sticks from zeta; returns the summed absolute change of a_t."""
    K = counts.shape[0]
    for t in range(K):
        counts[t] = 0.0
    for j in range(s, e):
        for t in range(K):
            counts[t] += data[j] * zeta[j, t]
    change = 0.0
    tail = 0.0
    for t in range(K - 1, -1, -1):
        if t < K - 1:
            a = 1.0 + counts[t]
            change += abs(a - sticks[0, t])
            sticks[0, t] = a
            sticks[1, t] = alpha + tail
        tail += counts[t]
    sticks[0, K - 1] = 1.0
    sticks[1, K - 1] = 0.0
    return change


@jit
def _update_varphi(E, elog_beta, zeta, data, s, varphi):
    """varphi of the document's atoms from zeta (softmax over corpus topics); the
    (K, N) x (N, T) product goes to BLAS."""
    K, T = varphi.shape
    N = E.shape[0]
    w = np.empty((K, N))
    for i in range(N):
        for t in range(K):
            w[t, i] = data[s + i] * zeta[s + i, t]
    acc = np.dot(w, E)
    for t in range(K):
        mx = -np.inf
        for k in range(T):
            acc[t, k] += elog_beta[k]
            if acc[t, k] > mx:
                mx = acc[t, k]
        norm = 0.0
        for k in range(T):
            v = math.exp(acc[t, k] - mx)
            varphi[t, k] = v
            norm += v
        for k in range(T):
            varphi[t, k] /= norm


@jit
def _cold_start(indices, s, e, data, elog_phi_t, elog_beta, varphi, sticks, alpha, score):
    """The cold start of the module docstring: atom t on the t-th ranked corpus topic."""
    K, T = varphi.shape
    for k in range(T):
        score[k] = 0.0
    p = np.empty(T)
    for j in range(s, e):
        row = elog_phi_t[indices[j]]
        mx = -np.inf
        for k in range(T):
            p[k] = row[k] + elog_beta[k]
            if p[k] > mx:
                mx = p[k]
        norm = 0.0
        for k in range(T):
            p[k] = math.exp(p[k] - mx)
            norm += p[k]
        for k in range(T):
            score[k] += data[j] * p[k] / norm
    # the stable descending order of score (ties: the lower index first), written out: numba's
    # argsort compiled its mergesort as extra dispatchers on every cold start
    order = np.empty(T, dtype=np.int64)
    for r in range(T):
        order[r] = r
    for r in range(min(K, T)):
        best = r
        for q in range(r + 1, T):
            if score[order[q]] > score[order[best]]:
                best = q
        chosen = order[best]
        for q in range(best, r, -1):
            order[q] = order[q - 1]
        order[r] = chosen
    for t in range(K):
        for k in range(T):
            varphi[t, k] = 0.0
        varphi[t, order[t % T]] = 1.0
        sticks[0, t] = 1.0
        sticks[1, t] = alpha
    sticks[1, K - 1] = 0.0


@jit
def _beta_kl(a, b, a0, b0):
    """KL(Beta(a, b) || Beta(a0, b0)) in nats."""
    ab = digamma(a + b)
    return (math.lgamma(a0) + math.lgamma(b0) - math.lgamma(a0 + b0)
            - math.lgamma(a) - math.lgamma(b) + math.lgamma(a + b)
            + (a - a0) * (digamma(a) - ab) + (b - b0) * (digamma(b) - ab))


@jit
def _local_terms(sticks, varphi, elog_beta, alpha):
    """The document's non-word terms of the local bound (module docstring)."""
    K, T = varphi.shape
    val = 0.0
    for t in range(K - 1):
        val -= _beta_kl(sticks[0, t], sticks[1, t], 1.0, alpha)
    for t in range(K):
        for k in range(T):
            v = varphi[t, k]
            if v > 0.0:
                val += v * (elog_beta[k] - math.log(v))
    return val


@jit
def hdp_e_step(d0, d1, indptr, indices, data, elog_phi_t, elog_beta, alpha, varphi, sticks,
               warm_start, max_iter, tol, zeta, doc_elbo, n_iter):
    """Document-level coordinate ascent of the HDP over the CSR rows ``d0 <= d < d1`` (serial;
    the caller runs ranges on threads: each document writes only its own outputs).

    Parameters
    ----------
    d0, d1 : int64
        The document range.
    indptr : int64[D + 1]; indices : int64[nnz]; data : float64[nnz]
        CSR counts.
    elog_phi_t : float64[V, T]
        ``E[log phi_kw]`` transposed, C-contiguous.
    elog_beta : float64[T]
        ``E[log beta_k]`` of the corpus sticks.
    alpha : float
        Document-level concentration (> 0).
    varphi : float64[D, K, T] (in/out)
        Atom-to-topic probabilities; read as the start when ``warm_start``.
    sticks : float64[D, 2, K] (in/out)
        Beta parameters (a_t, b_t) of the document sticks (last column (1, 0): pi'_K = 1);
        read as the start when ``warm_start``.
    warm_start : bool
    max_iter : int
        Maximum sweeps per document (0 with ``warm_start``: evaluate the given state).
    tol : float
        Stop a document when the mean absolute change of its a_t is below this.
    zeta : float64[nnz, K] (out)
        Entry-to-atom probabilities at the final state (optimal given varphi and sticks).
    doc_elbo : float64[D] (out)
        Local ELBO of each document in nats (module docstring); 0 for an empty document,
        whose factors are then at their prior-optimal values.
    n_iter : int64[D] (out)
        Sweeps run per document.
    """
    K, T = varphi.shape[1], varphi.shape[2]
    elog_pi = np.empty(K)
    counts = np.empty(K)
    score = np.empty(T)
    # the per-document loop body is here, not in a function of its own: numba compiles a
    # jitted callee once as its own dispatcher and again inside its caller
    for d in range(d0, d1):
        s, e = indptr[d], indptr[d + 1]
        vd, sd = varphi[d], sticks[d]
        E = np.empty((e - s, T))
        for i in range(e - s):  # element by element: a row assignment compiles a formatted raise
            row = elog_phi_t[indices[s + i]]
            for k in range(T):
                E[i, k] = row[k]
        if not warm_start:
            _cold_start(indices, s, e, data, elog_phi_t, elog_beta, vd, sd, alpha, score)
        _elog_pi(sd, elog_pi)
        it = 0
        while it < max_iter:
            it += 1
            _update_zeta(E, vd, elog_pi, data, s, zeta)
            change = _update_sticks(s, e, zeta, data, alpha, sd, counts)
            _elog_pi(sd, elog_pi)
            _update_varphi(E, elog_beta, zeta, data, s, vd)
            if K == 1 or change / (K - 1) < tol:
                break
        words = _update_zeta(E, vd, elog_pi, data, s, zeta)
        doc_elbo[d] = words + _local_terms(sd, vd, elog_beta, alpha)
        n_iter[d] = it


@jit
def hdp_suff_stats_block(d0, d1, indptr, indices, data, zeta, varphi, sb):
    """Expected topic-word counts of the documents ``d0 <= d < d1``: ``sb[w, k] = sum_d
    sum_{j: w_j = w} n_j sum_t zeta_jt varphi_dtk`` (sb: float64[V, T], overwritten). The
    caller sums blocks fixed by the data size in block order (deterministic for any number of
    threads)."""
    V, T = sb.shape
    K = zeta.shape[1]
    for w in range(V):
        for k in range(T):
            sb[w, k] = 0.0
    r = np.empty(T)
    for d in range(d0, d1):
        vd = varphi[d]
        for j in range(indptr[d], indptr[d + 1]):
            for k in range(T):
                r[k] = 0.0
            for t in range(K):
                z = data[j] * zeta[j, t]
                vt = vd[t]
                for k in range(T):
                    r[k] += z * vt[k]
            row = sb[indices[j]]
            for k in range(T):
                row[k] += r[k]
