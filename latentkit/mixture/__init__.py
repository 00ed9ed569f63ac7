"""Mixture models: Gaussian mixture by EM (``_gaussian.py``), variational Gaussian mixture
(``_variational.py``) and truncated Dirichlet-process mixture (``_dirichlet_process.py``)."""

from ._dirichlet_process import DirichletProcessMixture
from ._gaussian import GaussianMixture
from ._variational import VariationalGaussianMixture

__all__ = [
    "DirichletProcessMixture",
    "GaussianMixture",
    "VariationalGaussianMixture",
]
