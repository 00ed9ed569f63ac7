"""Transition matrices of a categorical HMM from its window moments (issue 42, item 3).

Three estimators, all taking arrays and returning arrays (compared in
``benchmarks/bench_spectral_hmm.py``; the table is in docs/guide/spectral.md):

- ``'pinv'`` (:func:`transitions_pinv`): the joint laws of consecutive states through the
  pseudo-inverse of the emission matrix, ``O^+ P_12 O^+T + O^+ P_23 O^+T``, clipped at 0 and
  normalised by rows (Anandkumar, Hsu & Kakade 2012, ``T = O^+ (O T)``; pooled over both pairs
  in issue 32).
- ``'simplex_ls'`` (:func:`transitions_simplex_ls`): the same joint laws by least squares
  under the simplex constraint, ``min ||P_ab - O S O^T||_F`` over non-negative ``S`` summing to
  1, for each adjacent pair (Kontorovich, Nadler & Weiss 2013, section 4; Mattila et al. 2017),
  solved by accelerated projected gradient with the exact simplex projection.
- ``'triple_fit'`` (:func:`fit_triple_law`): the spectral estimate refined by the
  minimum-Kullback-Leibler fit of the law of the windows ``P_123`` (m^3 cells) by ``(pi, T,
  O)``, i.e. the maximum likelihood of the windows as independent triples (a composite
  likelihood for the windows of long sequences), by EM accelerated with SQUAREM (Varadhan &
  Roland 2008). Emissions and transitions are fitted *jointly*: the two estimators above
  inherit the emission error through ``O^+`` (with the true emissions their transition error
  is 2-3 times smaller than with the estimated ones), this one does not.
"""

import numbers

import numpy as np

from ..exceptions import InputError
from ._moments import project_simplex, transitions_from_pairs

__all__ = ["transitions_pinv", "transitions_simplex_ls", "fit_triple_law", "TRANSITIONS",
           "REFINE_MAX_CELLS", "check_hmm_options", "hmm_params"]

#: The estimators ``SpectralHMM(transitions=...)`` accepts.
TRANSITIONS = ("triple_fit", "simplex_ls", "pinv")

#: Largest ``m^3 k`` (cells times states) 'triple_fit' refines: each EM step passes over the
#: cells a few times (2^24: about a second a step), above it the 'simplex_ls' estimate is kept.
REFINE_MAX_CELLS = 2 ** 24


def _laws(S12, S23, w):
    """``(startprob, middle)`` from the joint laws of (h1, h2) and (h2, h3) (``w`` where S23
    has no mass)."""
    s = S12.sum(axis=1)
    k = s.size
    pi = s / s.sum() if s.sum() > 0 else np.full(k, 1.0 / k)
    mid = S23.sum(axis=1)
    mid = mid / mid.sum() if mid.sum() > 0 else np.asarray(w, dtype=np.float64)
    return pi, mid


def transitions_pinv(O, w, P12, P23):
    """``(startprob (k,), transmat (k, k), middle (k,))`` through ``O^+`` (clipped, pooled).

    ``O`` (m, k) emission columns, ``w`` (k,) fallback law of the middle state, ``P12``,
    ``P23`` (m, m) adjacent pair moments. Exact on population moments.
    """
    S12, S23, T = transitions_from_pairs(np.linalg.pinv(O), P12, P23)
    pi, mid = _laws(S12, S23, w)
    return pi, T, mid


def _simplex_ls(O, P, max_iter, tol):
    """``argmin ||P - O S O^T||_F`` over ``S >= 0`` with ``sum(S) = 1`` (FISTA, exact
    projection; started at the projected unconstrained solution ``O^+ P O^+T``)."""
    k = O.shape[1]
    Op = np.linalg.pinv(O)
    S = project_simplex((Op @ P @ Op.T).ravel()).reshape(k, k)
    G = O.T @ O
    OPO = O.T @ P @ O
    L = 2.0 * np.linalg.eigvalsh(G)[-1] ** 2  # Lipschitz constant of the gradient
    if L <= 0:
        return S
    Y, t = S, 1.0
    for _ in range(max_iter):
        S_new = project_simplex((Y - 2.0 * (G @ Y @ G - OPO) / L).ravel()).reshape(k, k)
        t_new = (1.0 + np.sqrt(1.0 + 4.0 * t * t)) / 2.0
        Y = S_new + (t - 1.0) / t_new * (S_new - S)
        done = np.abs(S_new - S).max() <= tol
        S, t = S_new, t_new
        if done:
            break
    return S


def transitions_simplex_ls(O, w, P12, P23, max_iter=500, tol=1e-13):
    """``(startprob (k,), transmat (k, k), middle (k,))`` by simplex-constrained least squares.

    Parameters
    ----------
    O : ndarray of shape (m, k)
        Emission columns (``O[:, j] = P(x | h = j)``).
    w : ndarray of shape (k,)
        Law of the middle state (used only where the fitted joint law has no mass).
    P12, P23 : ndarray of shape (m, m)
        ``E[x_1 x_2^T]`` and ``E[x_2 x_3^T]``.
    max_iter : int
        Projected-gradient iterations per pair.
    tol : float
        Stop when no entry of the joint law moves by more than ``tol``.

    Notes
    -----
    ``P_12 = O diag(pi) T O^T`` and ``P_23 = O diag(w) T O^T``: each joint law ``S`` is on
    the simplex of k x k matrices; ``T`` is the row-normalised ``S_12 + S_23``. Source:
    Kontorovich, Nadler & Weiss (2013), "On learning parametric-output HMMs", ICML, section 4;
    Mattila, Rojas, Krishnamurthy & Wahlberg (2017), "Fast and consistent learning of hidden
    Markov models by incorporating non-consecutive correlations". Exact on population moments.
    """
    O = np.asarray(O, dtype=np.float64)
    S12 = _simplex_ls(O, np.asarray(P12, dtype=np.float64), max_iter, tol)
    S23 = _simplex_ls(O, np.asarray(P23, dtype=np.float64), max_iter, tol)
    S = S12 + S23
    s = S.sum(axis=1, keepdims=True)
    T = np.where(s > 0, S / np.where(s > 0, s, 1.0), 1.0 / S.shape[0])
    pi, mid = _laws(S12, S23, w)
    return pi, T, mid


def _em_step(P, pi, A, E):
    """One EM step of the law of triples ``P[a, b, c] = sum pi_i E_ia A_ij E_jb A_jl E_lc``.

    Returns ``(fit, pi, A, E)``: ``fit = sum P log(law)`` (nats per window) of the *input*
    parameters and the updated ones (expected counts of the states and transitions of the
    three positions given each cell, normalised).
    """
    k, m = E.shape
    G = A @ E                                   # (k, m): law of x_{t+1} given h_t
    V = (E[:, :, None] * G[:, None, :]).reshape(k, m * m)  # law of (x_t, x_{t+1}) given h_t
    H = A @ V                                   # law of (x_2, x_3) given h_1
    piE = pi[:, None] * E                       # (k, m): P(h_1 = i, x_1 = a)
    law = piE.T @ H                             # (m, m^2): the law of the windows
    seen = P > 0
    R = np.zeros_like(P)
    R[seen] = P[seen] / np.maximum(law[seen], 1e-300)
    fit = float(np.sum(P[seen] * np.log(np.maximum(law[seen], 1e-300))))
    N1 = piE * (H @ R.T)                        # expected counts of (h_1, x_1)
    F = piE.T @ A                               # (m, k): P(x_1 = a, h_2 = j)
    Q = (F.T @ R).reshape(k, m, m)              # [j, b, c] = sum_a F[a, j] R[a, b, c]
    N2 = E * (Q @ G[:, :, None])[:, :, 0]       # (h_2, x_2)
    NA = A * ((piE @ R) @ V.T)                  # (h_1, h_2)
    RK = (E[:, None, :] @ Q)[:, 0, :]           # [j, c] = sum_b E[j, b] Q[j, b, c]
    NA = NA + A * (RK @ E.T)                    # + (h_2, h_3)
    NE = N1 + N2 + E * (A.T @ RK)               # + (h_3, x_3)
    return fit, _rows(N1.sum(axis=1), pi), _rows(NA, A), _rows(NE, E)


def _rows(N, old):
    """Expected counts normalised along the last axis; a row without mass (a state whose
    posterior weight underflowed) keeps its previous law instead of becoming NaN."""
    s = N.sum(axis=-1, keepdims=True)
    return np.where(s > 0, N / np.where(s > 0, s, 1.0), old)


def _floor_rows(M, eps):
    """Rows with a zero entry mixed with the uniform law at ``eps`` (EM never leaves 0)."""
    M = np.asarray(M, dtype=np.float64)
    zero = (M <= 0).any(axis=-1, keepdims=True)
    return np.where(zero, (1.0 - eps) * np.maximum(M, 0.0) + eps / M.shape[-1], M)


def fit_triple_law(P123, startprob, transmat, emissionprob, max_iter=100, tol=1e-10,
                   floor=1e-6):
    """Refine ``(pi, T, O)`` by the minimum-KL fit of the law of windows ``P123``.

    Parameters
    ----------
    P123 : ndarray of shape (m, m, m)
        Frequencies of the windows ``(x_t, x_{t+1}, x_{t+2})`` (non-negative; normalised here).
    startprob : ndarray of shape (k,)
        Start: law of the first state of a window.
    transmat : ndarray of shape (k, k)
        Start: rows ``P(h_{t+1} | h_t)``.
    emissionprob : ndarray of shape (k, m)
        Start: rows ``P(x | h)``.
    max_iter : int, default 100
        SQUAREM cycles (three EM steps each).
    tol : float, default 1e-10
        Stop when a cycle raises ``sum P123 log law`` (nats per window) by less than ``tol``.
    floor : float, default 1e-6
        Rows of the start with a zero entry are mixed with the uniform law at this weight
        (EM keeps zeros at zero).

    Returns
    -------
    startprob : (k,), transmat : (k, k), emissionprob : (k, m), n_iter : int
        The fitted parameters (rows on the simplex) and the cycles run. The fit never ends
        below the start's (each accepted step is an EM step or an extrapolation that raised
        it).

    Notes
    -----
    EM of the windows as independent triples (the likelihood of all windows of long
    sequences counted as independent: a composite likelihood, consistent for a stationary
    chain), accelerated by SQUAREM, scheme S3 with the monotone fallback (Varadhan & Roland
    2008, "Simple and globally convergent methods for accelerating the convergence of any EM
    algorithm", Scand. J. Statist. 35). Exact parameters of population moments are a fixed
    point. Cost per EM step O(m^3 k).
    """
    k, m = np.shape(emissionprob)
    P = np.asarray(P123, dtype=np.float64).reshape(m, m * m)
    P = P / P.sum()
    shapes = ((k,), (k, k), (k, m))
    cuts = np.cumsum([k, k * k])

    def pack(p, a, e):
        return np.concatenate([p.ravel(), a.ravel(), e.ravel()])

    def unpack(x):
        parts = np.split(x, cuts)
        return tuple(v.reshape(s) for v, s in zip(parts, shapes))

    def normalise(x):
        p, a, e = unpack(np.maximum(x, 0.0))
        return (p / p.sum(), a / a.sum(axis=1, keepdims=True),
                e / e.sum(axis=1, keepdims=True))

    x = pack(_floor_rows(startprob, floor), _floor_rows(transmat, floor),
             _floor_rows(emissionprob, floor))
    last = -np.inf
    it = 0
    for it in range(1, max_iter + 1):
        _, *t1 = _em_step(P, *unpack(x))
        f1, *t2 = _em_step(P, *t1)
        x1, x2 = pack(*t1), pack(*t2)
        r, v = x1 - x, x2 - 2.0 * x1 + x
        vv = float(v @ v)
        best, new = f1, x2  # plain EM: two steps, the fit of x1 (monotone)
        if vv > 0:
            alpha = min(-np.sqrt(float(r @ r) / vv), -1.0)
            xe = x - 2.0 * alpha * r + alpha * alpha * v
            if np.all(np.isfinite(xe)):  # clipped at 0 and renormalised
                fe, *te = _em_step(P, *normalise(xe))
                if fe >= f1:
                    best, new = fe, pack(*te)
        x = new
        if best - last < tol:
            break
        last = best
    return (*unpack(x), it)


def check_hmm_options(target_view, transitions):
    """SpectralHMM's ``target_view`` and ``transitions`` validated (InputError naming them)."""
    tv = target_view   # 2.0 == 2 passed the membership test and failed in range()
    if (isinstance(tv, bool) or not isinstance(tv, (str, numbers.Integral))
            or tv not in ("auto", "adjacent", "all", 1, 2, 3)):
        raise InputError(f"target_view must be 'auto', 'adjacent', 'all', 1, 2 or 3, got "
                         f"{target_view!r}.")
    if not isinstance(transitions, str) or transitions not in TRANSITIONS:
        raise InputError(f"transitions must be one of {', '.join(map(repr, TRANSITIONS))}, "
                         f"got {transitions!r}.")


def hmm_params(transitions, O, w, P12, P23, P123):
    """The estimator ``transitions`` from the spectral emission columns ``O`` (m, k) and
    middle-state law ``w`` (k,): ``(startprob (k,), transmat (k, k), emissionprob (k, m),
    middle (k,), n_iter)`` (``n_iter`` the refinement's SQUAREM cycles, 0 without; no
    refinement when ``m^3 k > REFINE_MAX_CELLS``)."""
    O = np.asarray(O, dtype=np.float64)
    if transitions == "pinv":
        return (*_unpack3(transitions_pinv(O, w, P12, P23), O), 0)
    pi, T, mid = transitions_simplex_ls(O, w, P12, P23)
    if transitions == "simplex_ls" or O.shape[0] ** 3 * O.shape[1] > REFINE_MAX_CELLS:
        return pi, T, O.T.copy(), mid, 0
    # 50 cycles: the errors of 100 cycles within 3 % on the benchmark's chains at 1e5-1e6
    pi, T, E, n_iter = fit_triple_law(P123, pi, T, O.T, max_iter=50)
    return pi, T, E, pi @ T, n_iter


def _unpack3(res, O):
    pi, T, mid = res
    return pi, T, O.T.copy(), mid
