"""Categorical HMMs from slow to fast mixing, and a vectorised sampler (for the spectral HMM
tests and benchmark)."""

import numpy as np

__all__ = ["mixing_hmm", "sample_categorical_hmm"]

_STICKY = np.array([[0.8, 0.1, 0.1], [0.15, 0.7, 0.15], [0.1, 0.2, 0.7]])
_FORGET = np.array([0.3, 0.4, 0.3])


def mixing_hmm(mix, n_features=8, random_state=0):
    """A 3-state categorical HMM whose chain mixes faster as ``mix`` decreases.

    ``transmat = mix * A_sticky + (1 - mix) * 1 r^T``: the rank-one part forgets the state, so
    the second eigenvalue is ``mix`` times that of ``A_sticky`` (0.67).

    Parameters
    ----------
    mix : float in (0, 1]
    n_features : int, default 8
        Symbols; emission rows ~ Dirichlet(0.5).
    random_state : None, int or numpy.random.Generator
        For the emission rows.

    Returns
    -------
    startprob : ndarray of shape (3,)
        The stationary law.
    transmat : ndarray of shape (3, 3)
        Rows sum to 1.
    emissionprob : ndarray of shape (3, n_features)

    Examples
    --------
    >>> from latentkit.testing import mixing_hmm
    >>> import numpy as np
    >>> startprob, transmat, emissionprob = mixing_hmm(0.5, n_features=4, random_state=0)
    >>> transmat.shape, emissionprob.shape
    ((3, 3), (3, 4))
    >>> np.round(transmat.sum(axis=1), 6)
    array([1., 1., 1.])
    >>> bool(np.allclose(startprob @ transmat, startprob))  # the stationary law
    True
    """
    A = mix * _STICKY + (1 - mix) * _FORGET[None, :]
    B = np.random.default_rng(random_state).dirichlet(np.full(n_features, 0.5), size=3)
    vals, vecs = np.linalg.eig(A.T)
    pi = np.real(vecs[:, np.argmin(np.abs(vals - 1))])
    return pi / pi.sum(), A, B


def sample_categorical_hmm(startprob, transmat, emissionprob, n_sequences, length,
                           random_state=None):
    """Symbol sequences of a categorical HMM, shape (n_sequences, length) of int.

    Parameters
    ----------
    startprob : ndarray of shape (k,)
    transmat : ndarray of shape (k, k)
        ``transmat[i, j] = P(h_{t+1} = j | h_t = i)``.
    emissionprob : ndarray of shape (k, m)
    n_sequences, length : int
    random_state : None, int or numpy.random.Generator

    Returns
    -------
    ndarray of shape (n_sequences, length)
        Symbols in ``0..m-1``.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.testing import sample_categorical_hmm
    >>> startprob = np.array([1.0, 0.0])
    >>> transmat = np.array([[0.0, 1.0], [1.0, 0.0]])  # alternate deterministically
    >>> emissionprob = np.eye(2)  # state k emits symbol k
    >>> sample_categorical_hmm(startprob, transmat, emissionprob, n_sequences=2, length=5,
    ...                        random_state=0)
    array([[0, 1, 0, 1, 0],
           [0, 1, 0, 1, 0]])
    """
    rng = np.random.default_rng(random_state)
    h = np.empty((n_sequences, length), dtype=np.int64)
    h[:, 0] = rng.choice(transmat.shape[0], n_sequences, p=startprob)
    cA, cB = np.cumsum(transmat, 1), np.cumsum(emissionprob, 1)
    for t in range(1, length):
        h[:, t] = (rng.random(n_sequences)[:, None] > cA[h[:, t - 1]]).sum(1)
    x = (rng.random((n_sequences, length))[..., None] > cB[h]).sum(-1)
    return np.minimum(x, emissionprob.shape[1] - 1)
