"""Neural latent-variable models: the variational autoencoder (auto-encoding variational Bayes).

Networks, gradients and the optimiser are written in NumPy (:mod:`._mlp`, :mod:`._network`,
:mod:`._gradients`, :mod:`._optim`) and checked against finite differences; no deep-learning
framework is a dependency. :class:`PrivateVAE` trains the same model by DP-SGD (per-example
gradients in :mod:`._per_example`, the private fit in :mod:`._private`).
"""

from ._private import PrivateVAE
from ._vae import VAE, VAEStats

__all__ = ["PrivateVAE", "VAE", "VAEStats"]
