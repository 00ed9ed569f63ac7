"""Estimates of the fitted VAE's bounds on held-out data: the Monte-Carlo ELBO with its standard
error, and the importance-weighted log-likelihood (Burda, Grosse & Salakhutdinov 2016, eq. 8).

:class:`VAEBounds` is an object that :class:`latentkit.neural.VAE` holds (``vae._bounds``);
the VAE's public ``elbo``, ``log_likelihood``, ``score_samples`` and ``score`` check their
arguments and call it.
"""

import numpy as np
from scipy.special import logsumexp

from ._network import _VAEData

__all__ = ["VAEBounds"]

_LOG_2PI = float(np.log(2.0 * np.pi))


class VAEBounds:
    """Monte-Carlo ELBO draws and importance-weighted log-likelihoods at given parameters.

    Parameters
    ----------
    network : VAENetwork
    objective : VAEObjective
        The objective of the same network (its ELBO terms and the decoder's global term).
    """

    def __init__(self, network, objective):
        self.network = network
        self.objective = objective

    def elbo_draws(self, theta, X, n_samples, rng):
        """Per-draw data-set mean ELBO (nats per sample), shape (n_samples,), of validated rows
        ``X`` (n, D) at the flat parameters ``theta`` (Kingma & Welling 2014, eq. 10)."""
        net = self.network
        n, D = X.shape
        L = net.latent_dim
        glob = self.objective.global_terms(theta)[0] / n
        out = np.empty(n_samples)
        chunk = 1 if net.bayesian_decoder else max(1, min(n_samples, (1 << 21) // (n * D)))
        s = 0
        while s < n_samples:
            c = min(chunk, n_samples - s)
            eps_z = rng.standard_normal((n, c, L))
            eps_w = None
            if net.bayesian_decoder:
                dec = net.layout["dec"]
                eps_w = rng.standard_normal(dec.stop - dec.start)
            rec, kl, _, _ = self.objective(theta, _VAEData(X, eps_z, eps_w), need_grad=False)
            out[s:s + c] = rec.mean(axis=0) - kl.sum() / n + glob
            s += c
        return out

    def iwae_rows(self, theta, X, n_importance, rng):
        """``log (1/K) sum_k p(x_i, z_k) / q(z_k | x_i)`` per row of ``X`` (n, D), shape (n,),
        with ``K = n_importance`` draws (Burda et al. 2016, eq. 8)."""
        net = self.network
        n, _ = X.shape
        L = net.latent_dim
        mu, logvar = net.encode(theta, X)
        std = np.exp(0.5 * logvar)
        out = np.empty((n, n_importance))
        chunk = max(1, min(n_importance, (1 << 21) // max(1, n * X.shape[1])))
        k = 0
        while k < n_importance:
            c = min(chunk, n_importance - k)
            eps = rng.standard_normal((n, c, L))
            z = mu[:, None, :] + std[:, None, :] * eps
            P = net.decode(theta, z.reshape(n * c, L)).reshape(n, c, -1)
            rec, _, _ = net.log_lik(X, P, theta, False)
            log_pz = -0.5 * (z * z + _LOG_2PI).sum(-1)
            log_qz = -0.5 * (eps * eps + _LOG_2PI + logvar[:, None, :]).sum(-1)
            out[:, k:k + c] = rec + log_pz - log_qz
            k += c
        return logsumexp(out, axis=1) - np.log(n_importance)
