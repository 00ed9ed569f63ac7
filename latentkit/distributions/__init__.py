"""Distribution blocks shared by the models (DESIGN.md section 2, "Components, not mixins").

:mod:`._gaussian` holds the Gaussian block used by GaussianMixture, VariationalGaussianMixture,
DirichletProcessMixture and GaussianHMM: precision Cholesky factors, log densities, sufficient
statistics and the closed-form M-step, for covariance types full, tied, diag and spherical.

The exponential-family blocks (:mod:`._family`: one set of method names; :mod:`._counts`:
Poisson, Categorical, Bernoulli; :mod:`._gaussian_family`: Gaussian) are the one copy of each
distribution that both the mixture components (:mod:`latentkit.mixture._components`) and the
HMM emissions (:mod:`latentkit.sequence._emissions`) compute with. :class:`Poisson`,
:class:`Categorical`, :class:`Bernoulli` and :class:`Gaussian` are public: the one class of their distribution, with its prior's
hyper-parameters, that a model takes as ``component=`` (mixtures) or ``emission=`` (HMMs).
"""

from .._utils.lazy import lazy_exports

# public name -> submodule (imported on first access, PEP 562: the HMMs' count emissions do
# not load the Gaussian E-step's numba kernels, nor a Gaussian fit the Dirichlet pieces)
_EXPORTS = {
    "COVARIANCE_TYPES": "_gaussian",
    "CollapsedComponentWarning": "_gaussian",
    "GaussianStats": "_gaussian",
    "accumulate_gaussian_stats": "_gaussian",
    "check_covariance_type": "_gaussian",
    "check_gaussian_parameters": "_gaussian",
    "compute_precision_cholesky": "_gaussian",
    "covariance_shape": "_gaussian",
    "covariances_from_precisions": "_gaussian",
    "estimate_gaussian_parameters": "_gaussian",
    "log_det_cholesky": "_gaussian",
    "log_gaussian_prob": "_gaussian",
    "n_gaussian_parameters": "_gaussian",
    "precision_cholesky_from_precisions": "_gaussian",
    "precisions_from_cholesky": "_gaussian",
    "sample_gaussian": "_gaussian",
    "gaussian_mixture_e_step": "_gaussian_estep",
    "dirichlet_expectation": "_dirichlet",
    "dirichlet_kl": "_dirichlet",
    "dirichlet_log_normalizer": "_dirichlet",
    "Bernoulli": "_counts",
    "Categorical": "_counts",
    "Gaussian": "_gaussian_family",
    "NormalWishart": "_normal_wishart",
    "Poisson": "_counts",
    "gamma_kl": "_normal_wishart",
    "student_t_logpdf": "_normal_wishart",
    "wishart_kl": "_normal_wishart",
    "beta_kl": "_stick_breaking",
    "stick_expected_log_weights": "_stick_breaking",
    "stick_expected_weights": "_stick_breaking",
    "stick_kl": "_stick_breaking",
    "stick_posterior": "_stick_breaking",
}

__all__ = [
    "Bernoulli",
    "COVARIANCE_TYPES",
    "Categorical",
    "NormalWishart",
    "Poisson",
    "beta_kl",
    "gamma_kl",
    "stick_expected_log_weights",
    "stick_expected_weights",
    "stick_kl",
    "stick_posterior",
    "student_t_logpdf",
    "wishart_kl",
    "CollapsedComponentWarning",
    "Gaussian",
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

__getattr__, __dir__ = lazy_exports(globals(), _EXPORTS)
