"""Distribution blocks shared by the models (DESIGN.md section 2, "Components, not mixins").

:mod:`._gaussian` holds the Gaussian block used by GaussianMixture, VariationalGaussianMixture,
DirichletProcessMixture and GaussianHMM: precision Cholesky factors, log densities, sufficient
statistics and the closed-form M-step, for covariance types full, tied, diag and spherical.

The exponential-family blocks (:mod:`._family`: one set of method names; :mod:`._counts`:
Poisson, Categorical, Bernoulli; :mod:`._gaussian_family`: Gaussian) are the one copy of each
distribution that both the mixture components (:mod:`latentkit.mixture._components`) and the
HMM emissions (:mod:`latentkit.sequence._emissions`) compute with.
"""

from ._gaussian import (COVARIANCE_TYPES, CollapsedComponentWarning, GaussianStats,
                        accumulate_gaussian_stats, check_covariance_type,
                        check_gaussian_parameters, compute_precision_cholesky,
                        covariance_shape, covariances_from_precisions,
                        estimate_gaussian_parameters,
                        log_det_cholesky, log_gaussian_prob, n_gaussian_parameters,
                        precision_cholesky_from_precisions, precisions_from_cholesky,
                        sample_gaussian)
from ._gaussian_estep import gaussian_mixture_e_step
from ._dirichlet import dirichlet_expectation, dirichlet_kl, dirichlet_log_normalizer
from ._normal_wishart import NormalWishart, gamma_kl, student_t_logpdf, wishart_kl
from ._stick_breaking import (beta_kl, stick_expected_log_weights, stick_expected_weights,
                              stick_kl, stick_posterior)

__all__ = [
    "COVARIANCE_TYPES",
    "NormalWishart",
    "beta_kl",
    "gamma_kl",
    "stick_expected_log_weights",
    "stick_expected_weights",
    "stick_kl",
    "stick_posterior",
    "student_t_logpdf",
    "wishart_kl",
    "CollapsedComponentWarning",
    "GaussianStats",
    "accumulate_gaussian_stats",
    "check_covariance_type",
    "check_gaussian_parameters",
    "compute_precision_cholesky",
    "covariance_shape",
    "covariances_from_precisions",
    "dirichlet_expectation",
    "dirichlet_kl",
    "dirichlet_log_normalizer",
    "estimate_gaussian_parameters",
    "gaussian_mixture_e_step",
    "log_det_cholesky",
    "log_gaussian_prob",
    "n_gaussian_parameters",
    "precision_cholesky_from_precisions",
    "precisions_from_cholesky",
    "sample_gaussian",
]
