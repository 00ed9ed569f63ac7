"""Mixture models: Gaussian mixture by EM (``_gaussian.py``), variational Gaussian mixture
(``_variational.py``) and truncated Dirichlet-process mixture (``_dirichlet_process.py``)."""

from ._gaussian import GaussianMixture

__all__ = [
    "GaussianMixture",
]
