"""Checks of a restored mixture state (the mixtures' ``_check_state`` hooks): functions of a
:class:`~latentkit._engine.state_checks.FittedState` (the fitted values by name) and the
hyper-parameters, raising :class:`~latentkit.exceptions.StateCheckError` naming the bad
attribute."""

import numpy as np

from .._engine.state_checks import (FittedState, StateCheckError, _array, _covariances, _real,
                                    _simplex, _sizes)

__all__ = ["FittedState", "check_gaussian_mixture", "check_dirichlet_weights",
           "check_stick_weights", "check_conjugate_components"]


def check_gaussian_mixture(state, covariance_type):
    """The maximum-likelihood Gaussian mixture: weights, means, covariances and their
    precision Cholesky factors."""
    K, D = _sizes(state)
    _simplex(state, "weights_", (K,))
    _array(state, "means_", (K, D))
    cov = _covariances(state, "covariances_", covariance_type, (K,), D)
    _array(state, "precisions_cholesky_", cov.shape)


def check_dirichlet_weights(state):
    """The Dirichlet weight factor of the variational mixture (weights on the simplex)."""
    K, _ = _sizes(state)
    _simplex(state, "weights_", (K,))
    _real(state, "weight_concentration_prior_", low=0.0)
    _array(state, "weight_concentration_", (K,), positive=True)


def check_stick_weights(state):
    """The stick-breaking weight factor of the Dirichlet process mixture (the 'tail'
    truncation: the weights may sum to less than one; the last stick's Beta is (., 0))."""
    K, _ = _sizes(state)
    _array(state, "weights_", (K,), nonnegative=True)
    _array(state, "stick_prior_", (2,), positive=True)
    _array(state, "weight_concentration_", (2, K), nonnegative=True)  # the last stick: 0


def check_conjugate_components(state, kind, covariance_type=None):
    """The component factor of a conjugate mixture; ``kind`` is the component's short name
    (``'gaussian'``, ``'poisson'``, ``'bernoulli'``, ``'categorical'``)."""
    K, D = _sizes(state)
    if kind != "gaussian":
        (_simplex if kind == "categorical" else _array)(state, "components_", (K, D))
        if kind == "poisson":
            _array(state, "rate_prior_", (2,), positive=True)
            _array(state, "gamma_shape_", (K, D), positive=True)
            _array(state, "gamma_rate_", (K, D), positive=True)
        elif kind == "bernoulli":
            _array(state, "probability_prior_", (2,), positive=True)
            _array(state, "probability_concentration_", (2, K, D), positive=True)
        elif kind == "categorical":
            _array(state, "category_prior_", (D,), positive=True)
            _array(state, "category_concentration_", (K, D), positive=True)
        return
    _array(state, "means_", (K, D))
    cov = _covariances(state, "covariances_", covariance_type, (K,), D)
    _array(state, "precisions_cholesky_", cov.shape)
    _real(state, "mean_precision_prior_", low=0.0)
    _array(state, "mean_prior_", (D,))
    _real(state, "degrees_of_freedom_prior_", low=D - 1.0)
    if covariance_type == "spherical":
        _real(state, "covariance_prior_", low=0.0)
    else:  # full and tied: one (D, D) matrix; diag: (D,) variances
        _covariances(state, "covariance_prior_", "diag" if covariance_type == "diag" else "tied",
                     (1,) if covariance_type != "diag" else (), D)
    _array(state, "mean_precision_", (K,), positive=True)
    if covariance_type == "tied":  # one Wishart: one number of degrees of freedom
        dof = _array(state, "degrees_of_freedom_", ())
    else:
        dof = _array(state, "degrees_of_freedom_", (K,))
    if not np.all(dof > D - 1):
        raise StateCheckError("degrees_of_freedom_", f"expected values > n_features - 1 = {D - 1}")
