"""numba kernels of LDA's top-k truncated variational E-step.

The mean-field family of LDA (Blei, Ng & Jordan 2003) with each token's ``q(z_dn)`` restricted
to a set ``S_dw`` of ``k`` topics is still a mean-field family; its optimal ``phi`` on ``S_dw``
given ``gamma_d`` is the dense one renormalised over ``S_dw``::

    phi_dwk = exp(E[log theta_dk] + E[log beta_kw]) / sum_{l in S_dw} exp(...),  k in S_dw,

and the local ELBO at that ``phi`` is, exactly,
``sum_w n_dw log sum_{k in S_dw} exp(E[log theta_dk] + E[log beta_kw])`` plus the theta terms
(phi's entropy over the kept topics included). For fixed ``gamma_d``, a support made of the
``k`` largest ``exp(E[log theta_dk]) exp(E[log beta_kw])`` among candidates that include the
current support cannot lower that term, so the per-document loop below alternates
(supports and phi given gamma) and (gamma given phi) and never lowers the bound.

The candidates of word ``w`` in document ``d`` (the top k over all K topics would cost O(K) per
token and choice, as much as a dense sweep, whose streaming of ``exp(E[log beta_w])`` is what
the truncation saves): its current support, its ``m`` topics of highest ``E[log beta_kw]``
(:func:`lda_word_topk`, once per call) and the document's ``k`` topics of highest
``E[log theta_dk]``. A topic outside all three has a small weight in the document and in the
word; the measured price is in ``docs/guide/benchmarks.md`` (section "Sparse E-step").

Schedule per document: the supports start as each word's ``k`` topics of highest
``E[log beta]`` (the top k at the uniform starting gamma), are re-chosen before sweeps 1, 3,
9, 27, 81 and once more at the final gamma (those define the returned phi and its bound).
Cost: a sweep over fixed supports is O(nnz_d k) (gather/scatter of the kept topics) plus the
digammas of the topics in some support; a choice O(nnz_d (k + m)); a dense sweep O(nnz_d K).

Sources: Neal & Hinton (1998), "A view of the EM algorithm that justifies incremental,
sparse, and other variants" (section 4: the E-step updates only the plausible values of each
hidden variable); Lucke & Eggert (2010), "Expectation truncation and the benefits of
preselection", JMLR 11, and Lucke (2019), "Truncated variational expectation maximization",
Pattern Recognition Letters 128 (a posterior truncated to a set of states is itself a
variational distribution, whose free energy is computed exactly).

Numerics as :mod:`latentkit._kernels.topic`: ``exp(E[log beta])`` transposed (V, K) and shifted
per word by its maximum, ``exp(E[log theta])`` shifted by the maximum of the digammas it is
computed from (any shift cancels in phi; the ELBO adds it back exactly). Supports are stored
sorted by topic id, so with ``k = m = K`` every sum runs in the dense kernel's order (the
same numbers to rounding).

Determinism: each document writes only its own outputs (document ranges run on threads); the
statistics are summed in document order.

Imports only numpy, math and numba (DESIGN.md section 4).
"""

import math

import numpy as np

from ._jit import jit
from .topic import digamma

__all__ = ["lda_sparse_e_step", "lda_sparse_suff_stats", "lda_word_topk"]


@jit
def _better(score, a, b):
    """Topic ``a`` ranks above ``b``: a higher score, or an equal one and a lower id."""
    return score[a] > score[b] or (score[a] == score[b] and a < b)


@jit
def _sift(score, out, i, k):
    """Sift ``out[i]`` down the heap ``out[:k]`` whose root is the worst by :func:`_better`."""
    while True:
        c = 2 * i + 1
        if c >= k:
            return
        if c + 1 < k and _better(score, out[c], out[c + 1]):
            c += 1
        if _better(score, out[i], out[c]):
            x = out[i]
            out[i] = out[c]
            out[c] = x
            i = c
        else:
            return


@jit
def _top_of(cand, c, score, k, out):
    """``out[:k]`` <- the ``k`` best of the distinct ids ``cand[:c]`` (``c >= k``) by
    :func:`_better` on ``score[id]``, sorted by id (independent of the order of ``cand``):
    a heap of the ``k`` best so far, its worst at the root."""
    for i in range(k):
        out[i] = cand[i]
    for i in range(k // 2 - 1, -1, -1):
        _sift(score, out, i, k)
    for q in range(k, c):
        l = cand[q]
        if _better(score, l, out[0]):
            out[0] = l
            _sift(score, out, 0, k)
    for i in range(1, k):  # insertion sort by id
        x = out[i]
        j = i - 1
        while j >= 0 and out[j] > x:
            out[j + 1] = out[j]
            j -= 1
        out[j + 1] = x


@jit
def lda_word_topk(indices, exp_beta_t, used, table, table_val):
    """``table[w]`` <- the ``m`` topics with the largest ``exp_beta_t[w]``, best first
    (equal values: lower id first), for every word ``w`` in ``indices``.

    Parameters
    ----------
    indices : int64[nnz]
    exp_beta_t : float64[V, K]
    used : int8[V] (scratch)
    table : int64[V, m] (out; rows of unused words left as they are), ``m <= K``
    table_val : float64[V, m] (out)
        ``exp_beta_t[w, table[w, i]]`` (contiguous: the candidates' scores without gathers
        from the long rows of ``exp_beta_t``).
    """
    V, K = exp_beta_t.shape
    m = table.shape[1]
    for w in range(V):
        used[w] = 0
    for j in range(indices.shape[0]):
        used[indices[j]] = 1
    cand = np.arange(K)
    for w in range(V):
        if used[w]:
            row = exp_beta_t[w]
            tw = table[w]
            _top_of(cand, K, row, m, tw)
            for i in range(1, m):  # best first (the first k: the supports at a uniform t)
                x = tw[i]
                q = i - 1
                while q >= 0 and _better(row, x, tw[q]):
                    tw[q + 1] = tw[q]
                    q -= 1
                tw[q + 1] = x
            for i in range(m):
                table_val[w, i] = row[tw[i]]


@jit
def _choose(indices, s, e, exp_beta_t, t, table, table_val, sup, bv, doc_top, touched, mark,
            cand, score, acc, stamp):
    """Re-choose the supports of the tokens ``s <= j < e`` at ``t``: each the top ``k`` of
    ``t * exp_beta_t[w]`` among its candidates (its current support, read from ``bv``; the
    word's ``table`` row, read from ``table_val``; the document's ``doc_top``), so the bound
    at the current gamma cannot decrease. ``bv[j - s]`` <- the support's beta values; the union
    of the supports in ``touched`` (returned: its size); ``acc`` zeroed."""
    K = exp_beta_t.shape[1]
    kk = sup.shape[1]
    for l in range(K):
        mark[l] = 0
        acc[l] = 0.0
        stamp[l] = -1
    for j in range(s, e):
        w = indices[j]
        sj = sup[j]
        b = bv[j - s]
        # the current support, then the candidates that beat its worst member
        worst = sj[0]
        for i in range(kk):
            l = sj[i]
            stamp[l] = j
            cand[i] = l
            score[l] = t[l] * b[i]
            if _better(score, worst, l):
                worst = l
        c = kk
        tw = table[w]
        tv = table_val[w]
        for i in range(tw.shape[0]):
            l = tw[i]
            if stamp[l] != j:
                stamp[l] = j
                score[l] = t[l] * tv[i]
                if _better(score, l, worst):
                    cand[c] = l
                    c += 1
        row = exp_beta_t[w]
        for i in range(doc_top.shape[0]):
            l = doc_top[i]
            if stamp[l] != j:
                stamp[l] = j
                score[l] = t[l] * row[l]
                if _better(score, l, worst):
                    cand[c] = l
                    c += 1
        if c > kk:
            _top_of(cand, c, score, kk, sj)
            for i in range(kk):
                b[i] = row[sj[i]]
        for i in range(kk):
            mark[sj[i]] = 1
    n = 0
    for l in range(K):
        if mark[l]:
            touched[n] = l
            n += 1
    return n


@jit
def _psi_all(g, psi_d, t):
    """psi_d <- psi(g); t <- exp(psi_d - max psi_d) over all topics. Returns the max."""
    K = g.shape[0]
    mx = -np.inf
    for l in range(K):
        p = digamma(g[l])
        psi_d[l] = p
        if p > mx:
            mx = p
    for l in range(K):
        t[l] = math.exp(psi_d[l] - mx)
    return mx


@jit
def _doc_sparse(indices, data, s, e, exp_beta_t, beta_shift, alpha, const, table, table_val, g,
                t, psi_d, acc, bv, doc_top, touched, mark, cand, score, stamp, all_ids, sup,
                warm_start, max_iter, tol, ratio):
    """One document: (local ELBO in nats, sweeps run)."""
    K = exp_beta_t.shape[1]
    kk = sup.shape[1]
    nd = 0.0
    for j in range(s, e):
        nd += data[j]
        sj = sup[j]
        b = bv[j - s]
        tw = table[indices[j]]
        tv = table_val[indices[j]]
        for i in range(kk):  # the start: the word's k topics of highest E[log beta],
            x = tw[i]          # sorted by id
            v = tv[i]
            q = i - 1
            while q >= 0 and sj[q] > x:
                sj[q + 1] = sj[q]
                b[q + 1] = b[q]
                q -= 1
            sj[q + 1] = x
            b[q + 1] = v
    if nd <= 0.0:
        for l in range(K):
            g[l] = alpha[l]
            t[l] = 1.0
        for j in range(s, e):
            ratio[j] = 0.0
        return 0.0, 0
    if not warm_start:
        for l in range(K):
            g[l] = alpha[l] + nd / K
    n = 0
    it = 0
    next_choice = 1
    done = False
    mx = 0.0
    while True:
        done = done or it >= max_iter
        if done or it + 1 == next_choice:  # before sweeps 1, 3, 9, 27, 81; at the end
            mx = _psi_all(g, psi_d, t)
            _top_of(all_ids, K, t, doc_top.shape[0], doc_top)
            n = _choose(indices, s, e, exp_beta_t, t, table, table_val, sup, bv, doc_top,
                        touched, mark, cand, score, acc, stamp)
        if done:
            break
        it += 1
        if it == next_choice:
            next_choice = 3 * it
        # acc[l] = sum_j n_j b_jl / (sum_{i in S_j} t_i b_ji), 0 outside the touched topics
        for i in range(n):
            acc[touched[i]] = 0.0
        for j in range(s, e):
            sj = sup[j]
            b = bv[j - s]
            norm = 0.0
            for i in range(kk):
                norm += t[sj[i]] * b[i]
            r = data[j] / norm
            for i in range(kk):
                acc[sj[i]] += r * b[i]
        # the untouched topics' gamma is alpha; as the dense kernel
        change = 0.0
        for l in range(K):
            change += abs(alpha[l] + t[l] * acc[l] - g[l])
        for l in range(K):
            g[l] = alpha[l] + t[l] * acc[l]
        # t <- exp(psi(g) - max) on the touched topics only (the others enter the sweeps only
        # through acc = 0; any common shift cancels in phi)
        mx = -np.inf
        for i in range(n):
            l = touched[i]
            p = digamma(g[l])
            t[l] = p
            if p > mx:
                mx = p
        for i in range(n):
            l = touched[i]
            t[l] = math.exp(t[l] - mx)
        done = change / K < tol
    # the returned phi: supports re-chosen at the final gamma (above); its bound, exactly
    gsum = 0.0
    for l in range(K):
        gsum += g[l]
    psi_sum = digamma(gsum)
    lse = 0.0
    for j in range(s, e):
        sj = sup[j]
        b = bv[j - s]
        norm = 0.0
        for i in range(kk):
            norm += t[sj[i]] * b[i]
        ratio[j] = data[j] / norm
        lse += data[j] * (math.log(norm) + beta_shift[indices[j]])
    val = lse + nd * (mx - psi_sum) + const - math.lgamma(gsum)
    for l in range(K):
        val += math.lgamma(g[l]) + (alpha[l] - g[l]) * (psi_d[l] - psi_sum)
    return val, it


@jit
def lda_sparse_e_step(d0, d1, indptr, indices, data, exp_beta_t, beta_shift, alpha, table,
                      table_val, gamma, warm_start, max_iter, tol, exp_theta, ratio, support, doc_elbo, n_iter):
    """Top-k truncated variational E-step of LDA over the CSR rows ``d0 <= d < d1`` (serial;
    :func:`latentkit._utils.doc_threads.over_documents` runs ranges on threads).

    Parameters
    ----------
    d0, d1 : int64
        The documents of this call.
    indptr : int64[D + 1]; indices : int64[nnz]; data : float64[nnz]
        CSR count matrix.
    exp_beta_t : float64[V, K]
        ``exp(E[log beta_kw] - shift_w)`` transposed, C-contiguous.
    beta_shift : float64[V]
        ``shift_w = max_k E[log beta_kw]``.
    alpha : float64[K]
        Document-topic prior (> 0; symmetric priors as a constant vector).
    table : int64[V, m]
        :func:`lda_word_topk` of the words in ``indices`` (each word's candidates), ``k <= m
        <= K``.
    table_val : float64[V, m]
        Their values (:func:`lda_word_topk`).
    gamma : float64[D, K] (in/out)
        Read as the start when ``warm_start``, else set to ``alpha + N_d / K``.
    warm_start : bool
    max_iter : int
        Maximum sweeps (0 with ``warm_start``: evaluate the given gamma only).
    tol : float
        Stop when ``mean_k |gamma_new - gamma_old| < tol``.
    exp_theta : float64[D, K] (out)
        ``exp(psi(gamma_dk) - max_k psi(gamma_dk))`` at the final gamma.
    ratio : float64[nnz] (out)
        ``n_dw / sum_{k in S_dw} exp_theta_dk exp_beta_t[w, k]`` at the final gamma.
    support : int64[nnz, k] (out)
        ``S_dw``, sorted by topic id.
    doc_elbo : float64[D] (out)
        Local ELBO (nats) at the returned gamma and truncated phi (exact).
    n_iter : int64[D] (out)
        Sweeps run.
    """
    K = exp_beta_t.shape[1]
    kk = support.shape[1]
    asum = 0.0
    const = 0.0
    for l in range(K):
        asum += alpha[l]
        const -= math.lgamma(alpha[l])
    const += math.lgamma(asum)
    longest = 0
    for d in range(d0, d1):
        longest = max(longest, indptr[d + 1] - indptr[d])
    psi_d = np.empty(K)
    acc = np.zeros(K)
    touched = np.empty(K, dtype=np.int64)
    mark = np.zeros(K, dtype=np.int64)
    cand = np.empty(K, dtype=np.int64)
    score = np.empty(K)
    stamp = np.empty(K, dtype=np.int64)
    all_ids = np.arange(K)
    doc_top = np.empty(kk, dtype=np.int64)
    bv = np.empty((max(longest, 1), kk))
    for d in range(d0, d1):
        val, it = _doc_sparse(indices, data, indptr[d], indptr[d + 1], exp_beta_t, beta_shift,
                              alpha, const, table, table_val, gamma[d], exp_theta[d], psi_d, acc, bv,
                              doc_top, touched, mark, cand, score, stamp, all_ids, support,
                              warm_start, max_iter, tol, ratio)
        doc_elbo[d] = val
        n_iter[d] = it


@jit
def lda_sparse_suff_stats(indptr, indices, ratio, support, exp_theta, exp_beta_t, out_t):
    """Topic-word expected counts, transposed, of the truncated phi:
    ``out_t[w, k] = sum_d n_dw phi_dwk`` with
    ``phi_dwk = ratio_dw exp_theta_dk exp_beta_t[w, k] / n_dw`` on ``k in S_dw`` (0 elsewhere).
    Serial, documents in index order (deterministic); O(nnz k).

    Parameters
    ----------
    indptr, indices : int64 CSR structure; ratio : float64[nnz]; support : int64[nnz, k]
        From :func:`lda_sparse_e_step`.
    exp_theta : float64[D, K]; exp_beta_t : float64[V, K]
    out_t : float64[V, K] (out)
    """
    kk = support.shape[1]
    for w in range(out_t.shape[0]):
        for l in range(out_t.shape[1]):
            out_t[w, l] = 0.0
    for d in range(indptr.shape[0] - 1):
        td = exp_theta[d]
        for j in range(indptr[d], indptr[d + 1]):
            w = indices[j]
            o = out_t[w]
            row = exp_beta_t[w]
            r = ratio[j]
            sj = support[j]
            for i in range(kk):
                l = sj[i]
                o[l] += r * td[l] * row[l]
