"""Naive NumPy oracles of the HMM kernels (:mod:`latentkit._kernels.hmm`).

Everything here is computed in log space with :func:`scipy.special.logsumexp`, one sequence
at a time, with no scaling tricks, so it is an independent check of the scaled kernels
(compared to 1e-10 in ``tests/sequence/test_hmm_kernels.py``).
"""

import numpy as np
from scipy.special import logsumexp

__all__ = [
    "blocked_forward_backward_oracle",
    "brute_force_hmm_loglik",
    "categorical_counts_oracle",
    "forward_backward_oracle",
    "viterbi_oracle",
]


def _segments(n_samples, lengths):
    lengths = [n_samples] if lengths is None else list(lengths)
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(int)
    return list(zip(offsets[:-1], offsets[1:]))


def _log_inputs(log_frame, startprob, transmat, lengths):
    """The oracles' common start: float frame, log start and transition probabilities
    (log 0 = -inf, without a warning) and the (start, stop) of each sequence."""
    log_frame = np.asarray(log_frame, dtype=float)
    with np.errstate(divide="ignore"):
        log_pi = np.log(startprob)
        log_A = np.log(transmat)
    return log_frame, log_pi, log_A, _segments(log_frame.shape[0], lengths)


def forward_backward_oracle(log_frame, startprob, transmat, lengths=None):
    """Log-space forward-backward (Rabiner 1989, eqs. 19-27, 37), one sequence at a time.

    Parameters
    ----------
    log_frame : ndarray of shape (n_samples, n_components)
        Emission log-probabilities ``log p(x_t | z_t = k)``.
    startprob : ndarray of shape (n_components,)
    transmat : ndarray of shape (n_components, n_components)
    lengths : array-like of int, optional
        Sequence lengths (default: one sequence).

    Returns
    -------
    gamma : ndarray of shape (n_samples, n_components)
        Posterior state probabilities.
    log_pred : ndarray of shape (n_samples,)
        ``log p(x_t | x_<t)``, nats.
    xi : ndarray of shape (n_sequences, n_components, n_components)
        Expected transition counts of each sequence.
    loglik : ndarray of shape (n_sequences,)
        Log-likelihood of each sequence, nats.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.testing import forward_backward_oracle
    >>> log_frame = np.log([[0.9, 0.1], [0.9, 0.1], [0.1, 0.9]])
    >>> startprob = np.array([0.5, 0.5])
    >>> transmat = np.array([[0.8, 0.2], [0.2, 0.8]])
    >>> out = forward_backward_oracle(log_frame, startprob, transmat)
    >>> gamma = out[0]
    >>> gamma.shape
    (3, 2)
    >>> np.round(gamma.sum(axis=1), 6)
    array([1., 1., 1.])
    """
    log_frame, log_pi, log_A, segs = _log_inputs(log_frame, startprob, transmat, lengths)
    T, K = log_frame.shape
    gamma = np.empty((T, K))
    log_pred = np.empty(T)
    xi = np.zeros((len(segs), K, K))
    loglik = np.empty(len(segs))
    for s, (a, b) in enumerate(segs):
        L = log_frame[a:b]
        n = b - a
        la = np.empty((n, K))
        lb = np.zeros((n, K))
        la[0] = log_pi + L[0]
        for t in range(1, n):
            la[t] = logsumexp(la[t - 1][:, None] + log_A, axis=0) + L[t]
        for t in range(n - 2, -1, -1):
            lb[t] = logsumexp(log_A + (L[t + 1] + lb[t + 1])[None, :], axis=1)
        ll = logsumexp(la[-1])
        loglik[s] = ll
        gamma[a:b] = np.exp(la + lb - ll)
        cum = np.array([logsumexp(la[t]) for t in range(n)])
        log_pred[a:b] = np.diff(np.concatenate([[0.0], cum]))
        for t in range(n - 1):
            xi[s] += np.exp(la[t][:, None] + log_A + (L[t + 1] + lb[t + 1])[None, :] - ll)
    return gamma, log_pred, xi, loglik


def viterbi_oracle(log_frame, startprob, transmat, lengths=None):
    """Log-space Viterbi with NumPy (Rabiner 1989, eqs. 32-35), one sequence at a time.

    Parameters
    ----------
    log_frame : ndarray of shape (n_samples, n_components)
    startprob : ndarray of shape (n_components,)
    transmat : ndarray of shape (n_components, n_components)
    lengths : array-like of int, optional

    Returns
    -------
    path : ndarray of shape (n_samples,) of int
        Most probable state sequence (ties between predecessors to the highest index, a tie
        of the final state to the lowest, as hmmlearn 0.3).
    logprob : ndarray of shape (n_sequences,)
        ``max_z log p(x, z)`` per sequence, nats.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.testing import viterbi_oracle
    >>> log_frame = np.log([[0.9, 0.1], [0.9, 0.1], [0.1, 0.9], [0.1, 0.9]])
    >>> startprob = np.array([0.5, 0.5])
    >>> transmat = np.array([[0.8, 0.2], [0.2, 0.8]])
    >>> out = viterbi_oracle(log_frame, startprob, transmat)
    >>> out[0]
    array([0, 0, 1, 1])
    """
    log_frame, log_pi, log_A, segs = _log_inputs(log_frame, startprob, transmat, lengths)
    T, K = log_frame.shape
    path = np.empty(T, dtype=int)
    logprob = np.empty(len(segs))
    for s, (a, b) in enumerate(segs):
        n = b - a
        delta = log_pi + log_frame[a]
        back = np.zeros((n, K), dtype=int)
        for t in range(1, n):
            cand = delta[:, None] + log_A
            back[t] = K - 1 - np.argmax(cand[::-1], axis=0)  # ties: highest predecessor
            delta = cand[back[t], np.arange(K)] + log_frame[a + t]
        z = int(np.argmax(delta))
        logprob[s] = delta[z]
        path[b - 1] = z
        for t in range(n - 1, 0, -1):
            z = back[t, z]
            path[a + t - 1] = z
    return path, logprob


def categorical_counts_oracle(gamma, symbols, n_features):
    """Expected emission counts ``gamma.T @ onehot(symbols)``.

    Parameters
    ----------
    gamma : ndarray of shape (n_samples, n_components)
    symbols : ndarray of shape (n_samples,) of int
    n_features : int

    Returns
    -------
    ndarray of shape (n_components, n_features)

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.testing import categorical_counts_oracle
    >>> gamma = np.array([[1.0, 0.0], [0.5, 0.5], [0.0, 1.0]])
    >>> symbols = np.array([0, 1, 1])
    >>> categorical_counts_oracle(gamma, symbols, n_features=2)
    array([[1. , 0.5],
           [0. , 1.5]])
    """
    onehot = np.zeros((len(symbols), n_features))
    onehot[np.arange(len(symbols)), symbols] = 1.0
    return np.asarray(gamma).T @ onehot


def brute_force_hmm_loglik(log_frame, startprob, transmat):
    """Log-likelihood of one short sequence by enumerating all ``K**T`` state paths.

    Parameters
    ----------
    log_frame : ndarray of shape (T, K)
    startprob : ndarray of shape (K,)
    transmat : ndarray of shape (K, K)

    Returns
    -------
    float
        ``log sum_z p(x, z)``, nats.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.testing import brute_force_hmm_loglik
    >>> log_frame = np.log([[0.5, 0.5], [0.5, 0.5]])
    >>> startprob = np.array([0.5, 0.5])
    >>> transmat = np.array([[0.9, 0.1], [0.1, 0.9]])
    >>> round(brute_force_hmm_loglik(log_frame, startprob, transmat), 6)  # log(0.25)
    -1.386294
    >>> round(float(np.log(0.25)), 6)
    -1.386294
    """
    import itertools

    T, K = log_frame.shape
    terms = []
    for z in itertools.product(range(K), repeat=T):
        lp = np.log(startprob[z[0]]) + log_frame[0, z[0]]
        for t in range(1, T):
            lp += np.log(transmat[z[t - 1], z[t]]) + log_frame[t, z[t]]
        terms.append(lp)
    return float(logsumexp(terms))


def blocked_forward_backward_oracle(log_frame, startprob, transmat, block):
    """Forward-backward of ONE sequence by time blocks and transfer matrices: the exact
    boundary messages are propagated across blocks by each block's K x K transfer matrix, then
    every block runs from its exact boundary. An independent (K^3 per step, slow on purpose)
    check of :func:`latentkit._kernels.hmm.forward_backward_blocked`, which instead runs all
    blocks speculatively and catches up.

    With ``F_t = diag(p(x_t | .))``: ``alpha_t ∝ alpha_{t-1} A F_t``, so block ``b`` (rows
    ``s:e``) maps its incoming message by ``M_b = prod_{t=s}^{e-1} A F_t``; ``b_t ∝ A F_{t+1}
    b_{t+1}``, so it maps the outgoing backward message by ``N_b = prod_{t=s}^{e-1} A F_{t+1}``
    (``F_T = I``). Products are renormalised at every step (only directions matter).

    Parameters
    ----------
    log_frame : ndarray of shape (T, K)
        Emission log-probabilities (finite rows).
    startprob : ndarray of shape (K,)
    transmat : ndarray of shape (K, K)
    block : int
        Time steps per block.

    Returns
    -------
    gamma : ndarray of shape (T, K)
    log_pred : ndarray of shape (T,)
        ``log p(x_t | x_<t)``, nats.
    xi : ndarray of shape (K, K)
        Expected transition counts.
    loglik : float
        Nats.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.testing import blocked_forward_backward_oracle, forward_backward_oracle
    >>> rng = np.random.default_rng(0)
    >>> log_frame = np.log(rng.uniform(0.1, 1.0, size=(6, 2)))
    >>> startprob = np.array([0.6, 0.4])
    >>> transmat = np.array([[0.7, 0.3], [0.2, 0.8]])
    >>> gamma, log_pred, xi, loglik = blocked_forward_backward_oracle(
    ...     log_frame, startprob, transmat, block=2)
    >>> gamma.shape, xi.shape
    ((6, 2), (2, 2))
    >>> bool(np.allclose(gamma, forward_backward_oracle(log_frame, startprob, transmat)[0]))
    True
    """
    log_frame = np.asarray(log_frame, dtype=float)
    A = np.asarray(transmat, dtype=float)
    T, K = log_frame.shape
    off = log_frame.max(axis=1)
    F = np.exp(log_frame - off[:, None])
    edges = list(range(0, T, block)) + [T]
    blocks = list(zip(edges[:-1], edges[1:]))

    def fwd_step(m, t):
        v = (m @ A) * F[t]
        return v / v.sum(), v.sum()

    # exact forward boundary messages alpha_{e_b - 1}
    ends = []
    for bi, (s, e) in enumerate(blocks):
        if bi == 0:
            v = np.asarray(startprob, dtype=float) * F[0]
            m = v / v.sum()
            for t in range(1, e):
                m, _ = fwd_step(m, t)
        else:
            M = np.eye(K)
            for t in range(s, e):
                M = M @ A * F[t][None, :]
                M /= M.sum()
            m = ends[-1] @ M
            m /= m.sum()
        ends.append(m)
    alpha = np.empty((T, K))
    c = np.empty(T)
    for bi, (s, e) in enumerate(blocks):
        if bi == 0:
            v = np.asarray(startprob, dtype=float) * F[0]
            c[0] = v.sum()
            alpha[0] = v / v.sum()
            s = 1
        for t in range(s, e):
            alpha[t], c[t] = fwd_step(ends[bi - 1] if bi > 0 and t == s else alpha[t - 1], t)
    # exact backward boundary messages b_{s_b}, from the last block down
    starts = [None] * len(blocks)
    for bi in range(len(blocks) - 1, -1, -1):
        s, e = blocks[bi]
        N = np.eye(K)
        for t in range(e - 1, s - 1, -1):
            Ft1 = F[t + 1] if t + 1 < T else np.ones(K)
            N = A * Ft1[None, :] @ N
            N /= N.sum()
        v = N @ (np.ones(K) if bi == len(blocks) - 1 else starts[bi + 1])
        starts[bi] = v / v.sum()
    beta = np.empty((T, K))
    beta[T - 1] = 1.0 / K
    for bi in range(len(blocks) - 1, -1, -1):
        s, e = blocks[bi]
        if bi < len(blocks) - 1:
            v = A @ (F[e] * starts[bi + 1])
            beta[e - 1] = v / v.sum()
        for t in range(e - 2, s - 1, -1):
            v = A @ (F[t + 1] * beta[t + 1])
            beta[t] = v / v.sum()
    gamma = alpha * beta
    gamma /= gamma.sum(axis=1, keepdims=True)
    xi = np.zeros((K, K))
    for t in range(T - 1):
        x = alpha[t][:, None] * A * (F[t + 1] * beta[t + 1])[None, :]
        xi += x / x.sum()
    log_pred = np.log(c) + off
    return gamma, log_pred, xi, float(log_pred.sum())
