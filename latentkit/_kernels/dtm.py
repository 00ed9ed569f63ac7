"""numba kernels of the dynamic topic model (Blei & Lafferty 2006): the Newton direction of
the M-step over one topic's chain of natural parameters.

For one topic, the variational means ``m`` (T, V) of the natural parameters maximise

    f(m) = sum_tw n_tw m_tw - sum_t n_t logsumexp_w(m_tw) - 1/2 sum_w m_w^T Q m_w,

``Q`` the (T, T) tridiagonal precision of the Gaussian random walk (the same for every word).
Its negative Hessian is ``D - U U^T``: ``D`` is block diagonal over the words, the
tridiagonal ``D_w = Q + diag(n_t p_tw)``, and ``U`` has one column per slice, ``u_s = e_s
(x) sqrt(n_s) p_s`` (``p_t = softmax(m_t)``). The Newton direction
``(D - U U^T)^{-1} g`` follows from the Woodbury identity with T x T algebra:
:func:`dtm_newton_pass` factors every ``D_w = L Lambda L^T`` (unit lower bidiagonal ``L``),
returns ``x = D^{-1} g``, ``r = U^T x`` and ``M = U^T D^{-1} U`` (``D_w^{-1}`` from the
factors by the backward recurrence of the inverse, O(T^2) per word); the caller solves
``(I - M) y = r``, and :func:`dtm_woodbury_finish` gives ``x + D^{-1} U y``.
:func:`dtm_objective` and
:func:`dtm_gradient` evaluate ``f``, ``softmax(m_t)`` and the gradient in one pass each.

Numerics: the pivots of ``D_w`` are at least those of ``Q`` (positive definite) and the
multipliers ``l_t = e / pivot_{t-1}`` have magnitude below 1, so neither recurrence grows.
Words are visited in order and every sum is over words in that order: deterministic.

Imports only numpy, math and numba (DESIGN.md section 4).
"""

import math

import numpy as np

from ._jit import jit

__all__ = ["dtm_newton_pass", "dtm_woodbury_finish", "dtm_objective", "dtm_gradient"]


@jit
def dtm_newton_pass(n_t, p, q_diag, q_off, g, piv, mult, x, M, r):
    """First pass of the Newton direction of one topic (module docstring).

    Parameters
    ----------
    n_t : float64[T]
        Expected tokens of the topic per slice.
    p : float64[T, V]
        ``softmax(m_t)`` per slice.
    q_diag : float64[T]; q_off : float
        Diagonal and (constant) off-diagonal of the random walk's precision ``Q``.
    g : float64[T, V]
        The gradient of ``f``.
    piv, mult : float64[T, V] (out)
        Pivots of ``D_w`` and multipliers ``l_t`` (``mult[0]`` unused), per word.
    x : float64[T, V] (out)
        ``D^{-1} g``.
    M : float64[T, T] (out)
        ``U^T D^{-1} U``.
    r : float64[T] (out)
        ``U^T x``.
    """
    T, V = p.shape
    inv = np.empty((T, T))
    a = np.empty(T)
    for s in range(T):
        r[s] = 0.0
        for u in range(T):
            M[s, u] = 0.0
    for w in range(V):
        # D_w = L diag(piv) L^T
        piv[0, w] = q_diag[0] + n_t[0] * p[0, w]
        mult[0, w] = 0.0
        for t in range(1, T):
            lt = q_off / piv[t - 1, w]
            mult[t, w] = lt
            piv[t, w] = q_diag[t] + n_t[t] * p[t, w] - lt * q_off
        # x_w = D_w^{-1} g_w
        z = g[0, w]
        x[0, w] = z
        for t in range(1, T):
            z = g[t, w] - mult[t, w] * z
            x[t, w] = z
        x[T - 1, w] = x[T - 1, w] / piv[T - 1, w]
        for t in range(T - 2, -1, -1):
            x[t, w] = x[t, w] / piv[t, w] - mult[t + 1, w] * x[t + 1, w]
        # D_w^{-1}, upper triangle, row by row from the last: X_TT = 1/piv_T, X_tt = 1/piv_t
        # + l_{t+1}^2 X_{t+1,t+1}, X_tj = -l_{t+1} X_{t+1,j} (j > t); each row accumulated
        # into M while it is in cache
        for s in range(T):
            a[s] = math.sqrt(n_t[s]) * p[s, w]
            r[s] += a[s] * x[s, w]
        for t in range(T - 1, -1, -1):
            if t == T - 1:
                inv[t, t] = 1.0 / piv[t, w]
            else:
                lt = mult[t + 1, w]
                inv[t, t] = 1.0 / piv[t, w] + lt * lt * inv[t + 1, t + 1]
                for j in range(t + 1, T):
                    inv[t, j] = -lt * inv[t + 1, j]
            at = a[t]
            if at != 0.0:
                for j in range(t, T):
                    M[t, j] += at * a[j] * inv[t, j]
    for s in range(T):
        for j in range(s + 1, T):
            M[j, s] = M[s, j]


@jit
def dtm_woodbury_finish(piv, mult, p, n_t, y, x, out):
    """``out_w = x_w + D_w^{-1} (U y)_w``, ``(U y)_tw = sqrt(n_t) p_tw y_t``, for every word
    from the factors of :func:`dtm_newton_pass`: the Newton direction.

    Parameters
    ----------
    piv, mult : float64[T, V]
        The factors.
    p : float64[T, V]; n_t : float64[T]; y : float64[T]
    x : float64[T, V]
        ``D^{-1} g``.
    out : float64[T, V] (out)
    """
    T, V = p.shape
    sq = np.empty(T)
    for t in range(T):
        sq[t] = math.sqrt(n_t[t]) * y[t]
    for w in range(V):
        z = sq[0] * p[0, w]
        out[0, w] = z
        for t in range(1, T):
            z = sq[t] * p[t, w] - mult[t, w] * z
            out[t, w] = z
        out[T - 1, w] = out[T - 1, w] / piv[T - 1, w]
        for t in range(T - 2, -1, -1):
            out[t, w] = out[t, w] / piv[t, w] - mult[t + 1, w] * out[t + 1, w]
        for t in range(T):
            out[t, w] += x[t, w]


@jit
def dtm_objective(m, counts, n_t, q_diag, q_off, lse):
    """``f(m) = sum n_tw m_tw - sum_t n_t lse_t - 1/2 sum_w m_w^T Q m_w`` of one topic, with
    ``lse_t = logsumexp_w m_tw`` written to ``lse`` (float64[T]). Returns f (nats)."""
    T, V = m.shape
    f = 0.0
    for t in range(T):
        mx = -np.inf
        for w in range(V):
            if m[t, w] > mx:
                mx = m[t, w]
        acc = 0.0
        lin = 0.0
        quad = 0.0
        for w in range(V):
            v = m[t, w]
            acc += math.exp(v - mx)
            lin += counts[t, w] * v
            qm = q_diag[t] * v
            if t > 0:
                qm += q_off * m[t - 1, w]
            if t < T - 1:
                qm += q_off * m[t + 1, w]
            quad += v * qm
        lse[t] = mx + math.log(acc)
        f += lin - n_t[t] * lse[t] - 0.5 * quad
    return f


@jit
def dtm_gradient(m, lse, counts, n_t, q_diag, q_off, p, g):
    """``p_t = softmax(m_t)`` (from ``lse``) and the gradient ``g = n - n_t p - Q m`` of
    :func:`dtm_objective` (float64[T, V] outputs)."""
    T, V = m.shape
    for t in range(T):
        for w in range(V):
            pv = math.exp(m[t, w] - lse[t])
            p[t, w] = pv
            qm = q_diag[t] * m[t, w]
            if t > 0:
                qm += q_off * m[t - 1, w]
            if t < T - 1:
                qm += q_off * m[t + 1, w]
            g[t, w] = counts[t, w] - n_t[t] * pv - qm
