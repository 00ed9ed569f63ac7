"""latentkit: probabilistic latent-variable models and variational inference.

Every model shares one ELBO interface (:class:`latentkit.base.LatentModel`) and can start from a
method-of-moments (spectral) estimate. Public names are imported lazily, so ``import latentkit``
is cheap and compiles no numba kernel.
"""

import importlib

__version__ = "0.1.0"

# public name -> submodule that defines it
_EXPORTS = {
    "LatentModel": "latentkit.base",
    "ConvergenceMonitor": "latentkit.base",
    "NotFittedError": "latentkit.base",
    "ConvergenceWarning": "latentkit.base",
    "clone": "latentkit.base",
    "GaussianMixture": "latentkit.mixture",
    "VariationalGaussianMixture": "latentkit.mixture",
    "DirichletProcessMixture": "latentkit.mixture",
    "LatentDirichletAllocation": "latentkit.topic",
    "HierarchicalDirichletProcess": "latentkit.topic",
    "PLSA": "latentkit.topic",
    "DirichletMultinomialMixture": "latentkit.topic",
    "BitermTopicModel": "latentkit.topic",
    "HiddenMarkovModel": "latentkit.sequence",
    "CategoricalHMM": "latentkit.sequence",
    "GaussianHMM": "latentkit.sequence",
    "PoissonHMM": "latentkit.sequence",
    "GMMHMM": "latentkit.sequence",
    "VariationalCategoricalHMM": "latentkit.sequence",
    "VariationalGaussianHMM": "latentkit.sequence",
    "VAE": "latentkit.neural",
    "StochasticVI": "latentkit.inference",
    "PrivateStochasticVI": "latentkit.inference",
    "SpectralGMM": "latentkit.spectral",
    "SpectralLDA": "latentkit.spectral",
    "SpectralHMM": "latentkit.spectral",
    "save": "latentkit.io",
    "HiddenSemiMarkovModel": "latentkit.sequence",
    "AutoregressiveHMM": "latentkit.sequence",
    "InputOutputHMM": "latentkit.sequence",
    "VariationalAutoregressiveHMM": "latentkit.sequence",
    "load": "latentkit.io",
    "DynamicTopicModel": "latentkit.topic",
    "LabeledLDA": "latentkit.topic",
    "DirichletMultinomialRegression": "latentkit.topic",
}

_SUBMODULES = ("base", "datasets", "distributions", "inference", "io", "mixture", "neural",
               "sequence", "spectral", "testing", "topic", "parallel", "text", "selection",
               "plotting", "utils")

__all__ = sorted(_EXPORTS) + ["__version__"]


def __getattr__(name):
    if name in _EXPORTS:
        value = getattr(importlib.import_module(_EXPORTS[name]), name)
        globals()[name] = value
        return value
    if name in _SUBMODULES:
        return importlib.import_module(f"latentkit.{name}")
    raise AttributeError(f"module 'latentkit' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__) | set(_SUBMODULES))
