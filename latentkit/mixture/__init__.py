"""Mixture models: Gaussian mixture by EM (``_gaussian.py``), variational Gaussian mixture
(``_variational.py``) and truncated Dirichlet-process mixture (``_dirichlet_process.py``); the
two variational ones share the template of ``_conjugate.py`` and the component protocol of
``_components.py`` (categorical, Poisson, Bernoulli; Gaussian in ``_gaussian_component.py``).
``init='spectral'``: ``_start_check.py`` (the spectral start against k-means++),
``_split_merge.py`` (the search from it) and ``_spectral_start.py`` (the public functions)."""

from ._components import (BernoulliComponent, CategoricalComponent, ConjugateComponent,
                          PoissonComponent)
from ._dirichlet_process import DirichletProcessMixture
from ._gaussian_component import GaussianComponent
from ._gaussian import GaussianMixture
from ._variational import VariationalGaussianMixture
from ._spectral_start import spectral_init_gmm, spectral_responsibilities

__all__ = [
    "BernoulliComponent",
    "CategoricalComponent",
    "ConjugateComponent",
    "DirichletProcessMixture",
    "GaussianComponent",
    "GaussianMixture",
    "PoissonComponent",
    "VariationalGaussianMixture",
    "spectral_init_gmm",
    "spectral_responsibilities",
]
