"""Checks of a restored spectral estimator (their ``_check_state`` hooks): functions of a
:class:`~latentkit._engine.state_checks.FittedState` (the fitted values by name), raising
:class:`~latentkit.exceptions.StateCheckError` naming the bad attribute."""

import numbers

from .._engine.state_checks import FittedState, _array, _simplex, _sizes

__all__ = ["FittedState", "check_spectral_gmm", "check_spectral_lda", "check_spectral_hmm"]


def check_spectral_gmm(state):
    """The spectral (and private spectral) Gaussian mixture."""
    K, D = _sizes(state)
    _array(state, "eigenvalues_", (None,))  # (a sparse start may find fewer)
    _array(state, "weights_", (K,))
    _array(state, "means_", (K, D))
    _array(state, "covariances_", (K,), nonnegative=True)


def check_spectral_lda(state):
    """The spectral (and private spectral) LDA."""
    K, V = _sizes(state)
    _array(state, "eigenvalues_", (K,))
    _simplex(state, "components_", (K, V))
    _array(state, "doc_topic_prior_", (K,), positive=True)


def check_spectral_hmm(state):
    """The spectral HMM: the chain and the categorical emission probabilities."""
    K, _ = _sizes(state)
    _simplex(state, "startprob_", (K,))
    _simplex(state, "transmat_", (K, K))
    V = state.get("n_features")
    _simplex(state, "emissionprob_", (K, V if isinstance(V, numbers.Integral) else None))
