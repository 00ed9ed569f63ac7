"""Checks of a restored HMM state (the HMMs' ``_check_state`` hooks): functions of a
:class:`~latentkit._engine.state_checks.FittedState` (the fitted values by name), the
emission's parameter names and hyper-parameters, raising
:class:`~latentkit.exceptions.StateCheckError` naming the bad attribute."""

import numbers

import numpy as np

from .._engine.state_checks import (FittedState, _array, _covariances, _get, _int, _real,
                                    _simplex, _sizes)
from ..exceptions import InputError

__all__ = ["FittedState", "check_hmm_state"]

#: the emissions whose parameters are checked here, by their parameter names (others -- the
#: autoregressive emission, a user's -- check their own, or only the chain is checked)
_CATEGORICAL, _POISSON = ("emissionprob",), ("lambdas",)
_GAUSSIAN, _GMM = ("means", "covars"), ("weights", "means", "covars")


def check_hmm_state(state, make_emission, variational=False):
    """The chain (start and transition probabilities), the variational factors when
    ``variational``, and the emission's parameters, told by its ``param_names``.

    Parameters
    ----------
    state : FittedState
    make_emission : callable
        Builds the model's emission component from its hyper-parameters (its
        ``param_names`` and, for the Gaussian ones, ``covariance_type`` tell the checks);
        where it cannot (an emission object given as hyper-parameter is not stored in a
        file), the state's ``emission_`` is used, and failing that only the chain is checked.
    variational : bool
        The model is variational (Dirichlet and Normal-Wishart factors).
    """
    K, D = _sizes(state)
    _simplex(state, "startprob_", (K,))
    _simplex(state, "transmat_", (K, K))
    emission = _emission(state, make_emission)
    param_names = tuple(getattr(emission, "param_names", ()))
    covariance_type = getattr(emission, "covariance_type", None)
    if variational:
        _variational_hmm(state, K, D, param_names == _CATEGORICAL, covariance_type)
    if param_names == _CATEGORICAL:
        V = state.get("n_features")
        _simplex(state, "emissionprob_", (K, V if isinstance(V, numbers.Integral) else None))
    elif param_names == _POISSON:
        _array(state, "lambdas_", (K, D), positive=True)
    elif param_names == _GMM:
        M = getattr(emission, "n_mix", None)  # a composed model's emission holds it
        M = _int(state, "n_mix") if M is None else int(M)
        _simplex(state, "weights_", (K, M))
        _array(state, "means_", (K, M, D))
        _covariances(state, "covariances_", covariance_type, (K, M), D)
    elif param_names == _GAUSSIAN:
        _array(state, "means_", (K, D))
        _covariances(state, "covariances_", covariance_type, (K,), D)


def _emission(state, make_emission):
    try:
        return make_emission()
    except InputError:
        return state.get("emission_")


def _variational_hmm(state, K, D, categorical, covariance_type):
    """The Dirichlet priors and posteriors of a variational HMM (and its emission's)."""
    _array(state, "startprob_prior_", (K,), positive=True)
    _array(state, "transmat_prior_", (K, K), positive=True)
    _array(state, "startprob_posterior_", (K,), positive=True)
    _array(state, "transmat_posterior_", (K, K), positive=True)
    _array(state, "state_occupancy_", (K,), nonnegative=True)
    if "emissionprob_prior_" in state or categorical:
        V = np.shape(_get(state, "emissionprob_"))[-1]
        _array(state, "emissionprob_prior_", (K, V), positive=True)
        _array(state, "emissionprob_posterior_", (K, V), positive=True)
        return
    _array(state, "means_prior_", (D,))
    _real(state, "beta_prior_", low=0.0)
    _real(state, "dof_prior_", low=0.0)
    _array(state, "means_posterior_", (K, D))
    _array(state, "beta_posterior_", (K,), positive=True)
    if covariance_type != "tied":  # tied: one Wishart, one number
        _array(state, "dof_posterior_", (K,), positive=True)
    if covariance_type in ("full", "diag"):
        _covariances(state, "scale_prior_", covariance_type, (), D)
        _covariances(state, "scale_posterior_", covariance_type, (K,), D)
