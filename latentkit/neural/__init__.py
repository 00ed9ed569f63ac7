"""Neural latent-variable models: the variational autoencoder (auto-encoding variational Bayes).

Networks, gradients and the optimiser are written in NumPy (:mod:`._mlp`, :mod:`._network`,
:mod:`._gradients`, :mod:`._optim`) and checked against finite differences; no deep-learning
framework is a dependency.
"""

from ._vae import VAE, VAEStats

__all__ = ["VAE", "VAEStats"]
