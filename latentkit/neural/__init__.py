"""Neural latent-variable models: the variational autoencoder (auto-encoding variational Bayes).

Networks, gradients and the optimiser are written in NumPy (:mod:`._mlp`, :mod:`._network`,
:mod:`._gradients`, :mod:`._optim`) and checked against finite differences; no deep-learning
framework is a dependency. :class:`PrivateVAE` trains the same model by DP-SGD (per-example
gradients in :mod:`._per_example`, the private fit in :mod:`._private`). The VAE holds its
networks (:class:`._network.VAENetwork`), its objective (:class:`._gradients.VAEObjective`) and
its held-out bounds (:class:`._bounds.VAEBounds`) as objects; its checks are functions
(:mod:`._checks`).

Model (Kingma & Welling 2014, section 3 and appendix C): ``z ~ N(0, I_L)``,
``x | z ~ p_theta(x | z)`` with the parameters of ``p`` given by a decoder MLP; the
approximate posterior ``q_phi(z | x) = N(mu_phi(x), diag(exp(logvar_phi(x))))`` is given by an
encoder MLP. The per-sample ELBO

    ELBO(x) = E_q[log p_theta(x | z)] - KL(q_phi(z | x) || N(0, I))

is estimated with the reparameterisation ``z = mu + exp(logvar / 2) * eps``, ``eps ~ N(0, I)``
(their eq. 10, "SGVB estimator B"), with the KL term in closed form (their appendix B).

How the VAE maps onto :class:`latentkit.base.LatentModel` (DESIGN.md section 2):

* **statistics** (:class:`VAEStats`): the minibatch sum of the per-sample ELBO estimates
  (``data_term``, nats) and the sum of their gradients with respect to every parameter
  (``grad``); both are additive over rows, so chunked E-steps sum to the batch E-step (with the
  same noise; the noise of a row travels with the row);
* **M-step**: one Adam step (Kingma & Ba 2015) along ``(scale * grad + grad_global) /
  (scale * n)``, the gradient of the per-sample ELBO of the whole data set;
* **global terms**: ``-KL(q(w) || p(w))`` of the decoder weights when ``bayesian_decoder=True``
  (Kingma & Welling 2014, appendix F), else 0;
* **one iteration of the fit loop = one epoch** of shuffled minibatch steps (see
  :meth:`VAE._iterate`); ``lower_bounds_`` is the training ELBO per epoch; convergence uses the
  monitor's ``'noisy'`` rule because the bound is a Monte-Carlo estimate.
"""

from ._private import PrivateVAE
from ._vae import VAE
from ._vae_stats import VAEStats

__all__ = ["PrivateVAE", "VAE", "VAEStats"]
