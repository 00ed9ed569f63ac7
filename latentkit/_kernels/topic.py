"""numba kernels of Latent Dirichlet Allocation (mean-field variational Bayes).

The per-document E-step of Blei, Ng & Jordan (2003, section 5.2, Fig. 6) as written by Hoffman,
Blei & Bach (2010, Algorithm 1/2) with phi eliminated: for one document with word ids ``w_j`` and
counts ``n_j``, iterate

    gamma_k <- alpha + exp(E[log theta_k]) * sum_j n_j exp(E[log beta_{k w_j}]) / phinorm_j,
    phinorm_j = sum_k exp(E[log theta_k]) exp(E[log beta_{k w_j}]),

until the mean absolute change of gamma is below ``tol`` (or ``max_iter`` sweeps).

Numerics. ``exp(E[log beta])`` enters transposed, ``(V, K)`` C-contiguous, so the K values of
one word are contiguous, and **shifted per word** by ``shift_w = max_k E[log beta_kw]`` (so every
row has maximum 1 and ``phinorm`` cannot underflow to 0); ``exp(E[log theta])`` is likewise
shifted by its maximum over topics. Both shifts cancel in phi; they are added back exactly in
the ELBO. There is no ``+ eps`` in ``phinorm`` (scikit-learn adds one), so the bound is exact.

Layout of a sweep (issue 46). Each document's rows of the table are copied once into a
topics-by-words block (its words contiguous, padded to whole vectors), so that its sweeps are
vector loops over the words (:func:`_sweep_block`); between sweeps ``exp(E[log theta])`` takes
one logarithm per document, not K (:func:`_exp_elog_ratio`). These reorder float64 sums, so
results equal the per-word formulation to round-off (1e-14 relative), not bit for bit.

Determinism. Documents are independent: each document's call writes only that document's
outputs (ranges of documents run on threads, :mod:`latentkit._utils.doc_threads`); the topic-word statistics are then summed by :func:`lda_suff_stats` in document order,
so results do not depend on the number of threads.

Imports only numpy, math and numba (DESIGN.md section 4).
"""

import math

import numpy as np

from ._jit import jit, prange

__all__ = ["digamma", "lda_e_step", "lda_suff_stats", "lda_suff_stats_blocked"]


@jit
def digamma(x):
    """Digamma function psi(x) for x > 0 (recurrence to x >= 10, its terms summed as one
    fraction p/q so that it costs one division; then the asymptotic series; error below
    3e-15 max(1, |psi(x)|)). Abramowitz & Stegun 6.3.5 and 6.3.18."""
    r = 0.0
    if x < 10.0:  # psi(x) = psi(x + n) - sum_{i<n} 1/(x + i), the sum accumulated as p/q
        p = 0.0
        q = 1.0
        while x < 10.0:
            p = p * x + q
            q *= x
            x += 1.0
        r = -p / q
    f = 1.0 / (x * x)
    t = f * (-1.0 / 12.0 + f * (1.0 / 120.0 + f * (-1.0 / 252.0 + f * (
        1.0 / 240.0 + f * (-1.0 / 132.0 + f * (691.0 / 32760.0 + f * (-1.0 / 12.0)))))))
    return r + math.log(x) - 0.5 / x + t


@jit
def _exp_elog_shifted(gamma_d, psi_d, t_d):
    """psi_d <- psi(gamma_d); t_d <- exp(psi_d - max psi_d). Returns max psi_d."""
    K = gamma_d.shape[0]
    mx = -np.inf
    for k in range(K):
        p = digamma(gamma_d[k])
        psi_d[k] = p
        if p > mx:
            mx = p
    for k in range(K):
        t_d[k] = math.exp(psi_d[k] - mx)
    return mx


@jit
def _psi_parts(x):
    """``(y, c)`` with ``psi(x) = log(y) + c`` for x > 0: :func:`digamma` without its
    logarithm (``y`` is ``x`` moved up to at least 10 by the same recurrence, ``c`` the
    recurrence's sum and the asymptotic series)."""
    r = 0.0
    if x < 10.0:
        p = 0.0
        q = 1.0
        while x < 10.0:
            p = p * x + q
            q *= x
            x += 1.0
        r = -p / q
    f = 1.0 / (x * x)
    t = f * (-1.0 / 12.0 + f * (1.0 / 120.0 + f * (-1.0 / 252.0 + f * (
        1.0 / 240.0 + f * (-1.0 / 132.0 + f * (691.0 / 32760.0 + f * (-1.0 / 12.0)))))))
    return x, r - 0.5 / x + t


@jit(error_model="numpy")
def _exp_elog_ratio(gamma_d, c_d, t_d):
    """t_d <- exp(psi(gamma_d) - psi(max gamma_d)) as ``y_k exp(c_k - psi_max)``
    (:func:`_psi_parts`): one logarithm per document sweep instead of one per topic. psi is
    increasing, so ``psi(max gamma)`` is the maximum of the psi values; the result equals
    :func:`_exp_elog_shifted`'s ``t_d`` to round-off (``exp(log y + c) = y exp(c)``).

    The recurrence runs its 10 steps on every topic with a 0/1 factor ``a`` instead of a
    branch (``x <- x + a``, ``q <- q (a x + 1 - a)``, ...: a step with ``a = 0`` multiplies by
    1 and adds 0, exactly), so the loop over topics vectorises. ``c_d`` is scratch (K,)."""
    K = gamma_d.shape[0]
    gm = gamma_d[0]
    for k in range(1, K):
        if gamma_d[k] > gm:
            gm = gamma_d[k]
    ym, cm = _psi_parts(gm)
    pm = math.log(ym) + cm
    for k in range(K):
        x = gamma_d[k]
        p = 0.0
        q = 1.0
        for _ in range(10):  # psi(x) = psi(x + n) - sum_{i<n} 1/(x + i) = ... - p/q, x + n >= 10
            a = 1.0 if x < 10.0 else 0.0
            mx = a * x + (1.0 - a)
            p = p * mx + a * q
            q = q * mx
            x = x + a
        f = 1.0 / (x * x)
        t = f * (-1.0 / 12.0 + f * (1.0 / 120.0 + f * (-1.0 / 252.0 + f * (
            1.0 / 240.0 + f * (-1.0 / 132.0 + f * (691.0 / 32760.0 + f * (-1.0 / 12.0)))))))
        c_d[k] = -p / q - 0.5 / x + t - pm
        t_d[k] = x
    for k in range(K):
        t_d[k] = t_d[k] * math.exp(c_d[k])


@jit
def _sweep(indices, data, s, e, exp_beta_t, t, acc):
    """acc[k] = sum_j n_j exp_beta_t[w_j, k] / (t . exp_beta_t[w_j]) over one document, read
    from the table (vectorised over k; the asymmetric-prior kernel's sweep,
    :mod:`latentkit._kernels.topic_prior`; :func:`lda_e_step` sweeps a gathered block,
    :func:`_sweep_block`)."""
    K = exp_beta_t.shape[1]
    for k in range(K):
        acc[k] = 0.0
    for j in range(s, e):
        row = exp_beta_t[indices[j]]
        norm = 0.0
        for k in range(K):
            norm += t[k] * row[k]
        r = data[j] / norm
        for k in range(K):
            acc[k] += r * row[k]


@jit
def _final_pass(indices, data, s, e, nd, exp_beta_t, beta_shift, alpha, const, g, t, psi_d,
                ratio):
    """At fixed gamma (``t``, ``psi_d`` already computed from it): the ratios n_j / phinorm_j for
    the statistics, and the document's local ELBO (nats), returned."""
    K = exp_beta_t.shape[1]
    mx = -np.inf
    gsum = 0.0
    for k in range(K):
        if psi_d[k] > mx:
            mx = psi_d[k]
        gsum += g[k]
    psi_sum = digamma(gsum)
    lse = 0.0
    for j in range(s, e):
        w = indices[j]
        row = exp_beta_t[w]
        norm = 0.0
        for k in range(K):
            norm += t[k] * row[k]
        ratio[j] = data[j] / norm
        lse += data[j] * (math.log(norm) + beta_shift[w])
    # sum_j n_j log sum_k exp(E log theta_k + E log beta_kw), then the theta terms
    val = lse + nd * (mx - psi_sum)
    val += const - math.lgamma(gsum)
    for k in range(K):
        val += math.lgamma(g[k]) + (alpha - g[k]) * (psi_d[k] - psi_sum)
    return val


#: The document block's columns are padded to a multiple of this (8 float64: one 512-bit
#: vector), so the loops over a document's words run without a scalar remainder.
_PAD = 8


@jit
def _gather_block(indices, data, s, e, exp_beta_t, bd, dp):
    """Copy the document's rows of ``exp_beta_t`` into the block ``bd[k, j]`` (topics by words,
    each topic's words contiguous) and its counts into ``dp``; columns ``e - s`` up to the
    next multiple of :data:`_PAD` hold ones (a positive normaliser) and a count of 0, so they
    add exactly 0 to every sum. Returns the padded width."""
    K = exp_beta_t.shape[1]
    n = e - s
    npad = (n + _PAD - 1) // _PAD * _PAD
    for j in range(n):
        row = exp_beta_t[indices[s + j]]
        for k in range(K):
            bd[k, j] = row[k]
        dp[j] = data[s + j]
    for j in range(n, npad):
        for k in range(K):
            bd[k, j] = 1.0
        dp[j] = 0.0
    return npad


@jit(error_model="numpy")
def _block_norms(bd, npad, t, norm):
    """``norm[j] = sum_k t[k] bd[k, j]`` (phinorm of each word of the block), four topics per
    pass over the words (each pass a vector loop over the contiguous words)."""
    K = bd.shape[0]
    for j in range(npad):
        norm[j] = 0.0
    k = 0
    while k + 3 < K:
        ta = t[k]
        tb = t[k + 1]
        tc = t[k + 2]
        te = t[k + 3]
        ba = bd[k]
        bb = bd[k + 1]
        bc = bd[k + 2]
        be = bd[k + 3]
        for j in range(npad):
            norm[j] += (ta * ba[j] + tb * bb[j]) + (tc * bc[j] + te * be[j])
        k += 4
    while k < K:
        tk = t[k]
        b = bd[k]
        for j in range(npad):
            norm[j] += tk * b[j]
        k += 1


@jit(error_model="numpy")
def _sweep_block(bd, npad, dp, t, norm, r, acc):
    """One sweep on a document block: ``acc[k] = sum_j n_j bd[k, j] / (t . bd[:, j])``.

    The same sums as :func:`_sweep` with the words, not the topics, as the vector lanes:
    phinorm for all words at once (:func:`_block_norms`), the ratios ``n_j / phinorm_j`` as
    one vector division (the ``numpy`` error model: no zero check, the normalisers are
    positive), then ``acc`` as K dot products over the contiguous words, four topics per pass
    over the ratios. No horizontal reduction per word and no scalar remainder (K = 20 is 2.5
    vectors of topics; the padded words are whole vectors)."""
    K = bd.shape[0]
    _block_norms(bd, npad, t, norm)
    for j in range(npad):
        r[j] = dp[j] / norm[j]
    k = 0
    while k + 3 < K:
        ba = bd[k]
        bb = bd[k + 1]
        bc = bd[k + 2]
        be = bd[k + 3]
        a0 = 0.0
        a1 = 0.0
        a2 = 0.0
        a3 = 0.0
        for j in range(npad):
            rj = r[j]
            a0 += ba[j] * rj
            a1 += bb[j] * rj
            a2 += bc[j] * rj
            a3 += be[j] * rj
        acc[k] = a0
        acc[k + 1] = a1
        acc[k + 2] = a2
        acc[k + 3] = a3
        k += 4
    while k < K:
        b = bd[k]
        a0 = 0.0
        for j in range(npad):
            a0 += b[j] * r[j]
        acc[k] = a0
        k += 1


@jit(error_model="numpy")
def _final_block(indices, s, e, nd, bd, npad, dp, beta_shift, alpha, const, g, t, psi_d, ratio,
                 norm):
    """:func:`_final_pass` on the document block: the ratios ``n_j / phinorm_j`` and the
    document's local ELBO (nats) at fixed gamma (``t``, ``psi_d`` computed from it)."""
    K = bd.shape[0]
    mx = -np.inf
    gsum = 0.0
    for k in range(K):
        if psi_d[k] > mx:
            mx = psi_d[k]
        gsum += g[k]
    psi_sum = digamma(gsum)
    _block_norms(bd, npad, t, norm)
    lse = 0.0
    for j in range(e - s):
        ratio[s + j] = dp[j] / norm[j]
        lse += dp[j] * (math.log(norm[j]) + beta_shift[indices[s + j]])
    # sum_j n_j log sum_k exp(E log theta_k + E log beta_kw), then the theta terms
    val = lse + nd * (mx - psi_sum)
    val += const - math.lgamma(gsum)
    for k in range(K):
        val += math.lgamma(g[k]) + (alpha - g[k]) * (psi_d[k] - psi_sum)
    return val


@jit
def _doc_e_step(indices, data, s, e, exp_beta_t, beta_shift, alpha, const, g, t, psi_d, acc,
                warm_start, max_iter, tol, ratio, bd, dp, norm, r):
    """One document of :func:`lda_e_step` (serial; called from its loop over documents), on
    its block of ``exp_beta_t`` (:func:`_gather_block`; scratch ``bd``, ``dp``, ``norm``,
    ``r`` of at least the padded width). Returns (local ELBO in nats, sweeps run)."""
    K = exp_beta_t.shape[1]
    nd = 0.0
    for j in range(s, e):
        nd += data[j]
    if nd <= 0.0:
        # empty document: q(theta) = p(theta), no words -> contributes exactly 0
        for k in range(K):
            g[k] = alpha
            t[k] = 1.0
        for j in range(s, e):
            ratio[j] = 0.0
        return 0.0, 0
    if not warm_start:
        g0 = alpha + nd / K
        for k in range(K):
            g[k] = g0
    npad = _gather_block(indices, data, s, e, exp_beta_t, bd, dp)
    _exp_elog_ratio(g, psi_d, t)
    it = 0
    while it < max_iter:
        it += 1
        _sweep_block(bd, npad, dp, t, norm, r, acc)
        # the change and the update in two loops: a loop that both stores and sums is
        # vectorised behind a run-time aliasing check, whose scalar fallback sums in another
        # order (the stopping test would then depend on the thread's scratch addresses)
        change = 0.0
        for k in range(K):
            change += abs(alpha + t[k] * acc[k] - g[k])
        for k in range(K):
            g[k] = alpha + t[k] * acc[k]
        if change / K < tol:
            break
        _exp_elog_ratio(g, psi_d, t)
    # the final gamma's psi values (the ELBO) and exp(E[log theta]) (the statistics)
    _exp_elog_shifted(g, psi_d, t)
    val = _final_block(indices, s, e, nd, bd, npad, dp, beta_shift, alpha, const, g, t, psi_d,
                       ratio, norm)
    return val, it


@jit
def lda_e_step(d0, d1, indptr, indices, data, exp_beta_t, beta_shift, alpha, gamma, warm_start,
               max_iter, tol, exp_theta, ratio, doc_elbo, n_iter):
    """Per-document variational E-step of LDA over the CSR rows ``d0 <= d < d1`` (serial; the
    documents are independent: :func:`latentkit._utils.doc_threads.over_documents` runs ranges
    on threads, which compiles far less than a ``prange`` kernel).

    Each document's rows of ``exp_beta_t`` are first copied into a topics-by-words block
    (:func:`_gather_block`), so that its sweeps run as vector loops over its words
    (:func:`_sweep_block`); the block is reused by every sweep of the document.

    Parameters
    ----------
    d0, d1 : int64
        The documents of this call.
    indptr : int64[D + 1]; indices : int64[nnz]; data : float64[nnz]
        CSR count matrix (sorted or not; no duplicates needed).
    exp_beta_t : float64[V, K]
        ``exp(E[log beta_kw] - shift_w)`` transposed, C-contiguous.
    beta_shift : float64[V]
        ``shift_w = max_k E[log beta_kw]``.
    alpha : float
        Symmetric document-topic prior (> 0).
    gamma : float64[D, K] (in/out)
        Variational Dirichlet parameters. Read as the starting point when ``warm_start``;
        otherwise initialised to ``alpha + N_d / K`` (Blei et al. 2003, Fig. 6).
    warm_start : bool
    max_iter : int
        Maximum coordinate-ascent sweeps per document.
    tol : float
        Stop when ``mean_k |gamma_new - gamma_old| < tol``.
    exp_theta : float64[D, K] (out)
        ``exp(E[log theta_dk] - max_k psi(gamma_dk))`` at the final gamma.
    ratio : float64[nnz] (out)
        ``n_dw / phinorm_dw`` at the final gamma (shifted quantities), for the statistics.
    doc_elbo : float64[D] (out)
        Local ELBO of each document in nats: ``E[log p(w|z,beta)] + E[log p(z|theta)]
        + E[log p(theta|alpha)] - E[log q(theta)] - E[log q(z)]`` with phi optimal given gamma.
    n_iter : int64[D] (out)
        Sweeps run per document (0 for empty documents).
    """
    K = exp_beta_t.shape[1]
    const = math.lgamma(K * alpha) - K * math.lgamma(alpha)
    psi_d = np.empty(K)   # scratch, written before it is read in every document
    acc = np.empty(K)
    width = 1
    for d in range(d0, d1):
        width = max(width, indptr[d + 1] - indptr[d])
    width = (width + _PAD - 1) // _PAD * _PAD
    bd = np.empty((K, width))  # the document block, its padded words and ratios
    dp = np.empty(width)
    norm = np.empty(width)
    r = np.empty(width)
    for d in range(d0, d1):
        val, it = _doc_e_step(indices, data, indptr[d], indptr[d + 1], exp_beta_t, beta_shift,
                              alpha, const, gamma[d], exp_theta[d], psi_d, acc, warm_start,
                              max_iter, tol, ratio, bd, dp, norm, r)
        doc_elbo[d] = val
        n_iter[d] = it


@jit
def lda_suff_stats(indptr, indices, ratio, exp_theta, exp_beta_t, out_t):
    """Topic-word expected counts, transposed: ``out_t[w, k] = sum_d n_dw phi_dwk``.

    ``phi_dwk = exp_theta[d, k] exp_beta_t[w, k] / phinorm_dw``, so
    ``out_t[w, k] = exp_beta_t[w, k] * sum_d ratio_dw exp_theta[d, k]``. Serial, documents in
    index order (deterministic; O(nnz K), a small fraction of the E-step's cost).

    Parameters
    ----------
    indptr, indices : int64 CSR structure; ratio : float64[nnz] from :func:`lda_e_step`
    exp_theta : float64[D, K]; exp_beta_t : float64[V, K]
    out_t : float64[V, K] (out)
    """
    V = out_t.shape[0]
    K = out_t.shape[1]
    _accumulate_docs(indptr, indices, ratio, exp_theta, 0, indptr.shape[0] - 1, out_t)
    for w in range(V):
        for k in range(K):
            out_t[w, k] *= exp_beta_t[w, k]


@jit
def _accumulate_docs(indptr, indices, ratio, exp_theta, d0, d1, out):
    """``out[w] = sum_{d0 <= d < d1} ratio_dw exp_theta[d]`` (zeroed first), documents in
    index order."""
    K = out.shape[1]
    for w in range(out.shape[0]):
        for k in range(K):
            out[w, k] = 0.0
    for d in range(d0, d1):
        td = exp_theta[d]
        for j in range(indptr[d], indptr[d + 1]):
            o = out[indices[j]]
            r = ratio[j]
            for k in range(K):
                o[k] += r * td[k]


@jit(parallel=True)
def lda_suff_stats_blocked(indptr, indices, ratio, exp_theta, exp_beta_t, doc_edges, out_b,
                           out_t):
    """:func:`lda_suff_stats` parallel over document blocks: block ``b`` (documents
    ``doc_edges[b]:doc_edges[b + 1]``) accumulates into its own slot ``out_b[b]`` (V, K) in
    document order; the slots are then summed in block order (``prange`` over words) into
    ``out_t``. With blocks fixed by the data size (not the thread count), the result does
    not depend on the number of threads.

    Parameters
    ----------
    indptr, indices, ratio, exp_theta, exp_beta_t, out_t
        As :func:`lda_suff_stats`.
    doc_edges : int64[B + 1]
        Block boundaries, ``0 = doc_edges[0] <= ... <= doc_edges[B] = D``.
    out_b : float64[B, V, K] (scratch)
    """
    B = doc_edges.shape[0] - 1
    V = out_t.shape[0]
    K = out_t.shape[1]
    for b in prange(B):
        _accumulate_docs(indptr, indices, ratio, exp_theta, doc_edges[b], doc_edges[b + 1],
                         out_b[b])
    for w in prange(V):
        for k in range(K):
            acc = 0.0
            for b in range(B):
                acc += out_b[b, w, k]
            out_t[w, k] = acc * exp_beta_t[w, k]
