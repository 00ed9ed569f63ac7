"""Estimates of the fitted VAE's bounds on held-out data: the Monte-Carlo ELBO with its standard
error, and the importance-weighted log-likelihood (Burda, Grosse & Salakhutdinov 2016, eq. 8).

:class:`VAEBoundsMixin` is a base of :class:`latentkit.neural.VAE` (its ``elbo`` replaces
:meth:`latentkit.base.LatentModel.elbo`); it uses :class:`._network.VAENetworkMixin` and
:class:`._gradients.VAEGradientMixin`.
"""

import numbers

import numpy as np
from scipy.special import logsumexp

from .._utils.threads import blas_single_thread
from .._utils.validation import check_random_state, check_scalar
from ._network import _VAEData

__all__ = ["VAEBoundsMixin"]

_LOG_2PI = float(np.log(2.0 * np.pi))


class VAEBoundsMixin:
    """``elbo``, ``log_likelihood``, ``score_samples`` and ``score`` of the VAE (see the
    module)."""

    def _elbo_draws(self, X, n_samples, rng):
        """Per-draw data-set mean ELBO (nats per sample), shape (n_samples,); X validated."""
        n, D = X.shape
        L = int(self.latent_dim)
        glob = self._global_elbo_terms() / n
        out = np.empty(n_samples)
        chunk = 1 if self.bayesian_decoder else max(1, min(n_samples, (1 << 21) // (n * D)))
        s = 0
        while s < n_samples:
            c = min(chunk, n_samples - s)
            eps_z = rng.standard_normal((n, c, L))
            eps_w = None
            if self.bayesian_decoder:
                dec = self._layout()["dec"]
                eps_w = rng.standard_normal(dec.stop - dec.start)
            rec, kl, _, _ = self._objective(self.params_, _VAEData(X, eps_z, eps_w),
                                            need_grad=False)
            out[s:s + c] = rec.mean(axis=0) - kl.sum() / n + glob
            s += c
        return out

    def elbo(self, X, n_samples=10, return_std=False, random_state=None):
        """Monte-Carlo ELBO of ``X``, mean per sample, with its standard error.

        ``ELBO = (sum_i E_q[log p(x_i | z)] - KL(q(z | x_i) || p(z)) - KL(q(w) || p(w))) / n``
        (the last term only with the Bayesian decoder), with ``n_samples`` reparameterised
        draws per row (and one decoder-weight draw per Monte-Carlo draw).

        Parameters
        ----------
        X : array-like of shape (n, n_features)
        n_samples : int, default 10
            Monte-Carlo draws.
        return_std : bool, default False
            Also return the Monte-Carlo standard error of the estimate (the standard deviation
            of the per-draw data-set means divided by ``sqrt(n_samples)``; needs
            ``n_samples >= 2``).
        random_state : None, int or Generator, default None
            Noise; ``None`` uses a seed fixed at fit time, so repeated calls agree.

        Returns
        -------
        elbo : float
            Nats per sample.
        std : float
            Standard error (nats per sample), when ``return_std``.

        Raises
        ------
        NotFittedError, ValueError
            Unfitted model; bad ``X`` (NaN, wrong number of features, non-binary data);
            ``return_std`` with ``n_samples < 2``.

        References
        ----------
        Kingma & Welling (2014), eq. 10 (SGVB estimator B).
        """
        self._check_is_fitted()
        n_samples = check_scalar(n_samples, "n_samples", numbers.Integral, low=1)
        if return_std and n_samples < 2:
            raise ValueError("return_std=True needs n_samples >= 2 to estimate a spread.")
        X = self._check_X(X, reset=False)
        rng = np.random.default_rng(self._eval_seed) if random_state is None \
            else check_random_state(random_state)
        draws = self._elbo_draws(X, n_samples, rng)
        value = float(draws.mean())
        if return_std:
            return value, float(draws.std(ddof=1) / np.sqrt(n_samples))
        return value

    def _iwae_rows(self, X, n_importance, rng):
        n, _ = X.shape
        L = int(self.latent_dim)
        mu, logvar = self._encode(X)
        std = np.exp(0.5 * logvar)
        out = np.empty((n, n_importance))
        chunk = max(1, min(n_importance, (1 << 21) // max(1, n * X.shape[1])))
        k = 0
        while k < n_importance:
            c = min(chunk, n_importance - k)
            eps = rng.standard_normal((n, c, L))
            z = mu[:, None, :] + std[:, None, :] * eps
            P = self._decode_params(z.reshape(n * c, L)).reshape(n, c, -1)
            rec, _, _ = self._log_lik(X, P, self.params_, False)
            log_pz = -0.5 * (z * z + _LOG_2PI).sum(-1)
            log_qz = -0.5 * (eps * eps + _LOG_2PI + logvar[:, None, :]).sum(-1)
            out[:, k:k + c] = rec + log_pz - log_qz
            k += c
        return logsumexp(out, axis=1) - np.log(n_importance)

    def log_likelihood(self, X, n_importance=100, random_state=None, per_sample=False):
        """Importance-weighted estimate of ``log p(x)`` (Burda et al. 2016, eq. 8).

        ``log p(x) ~ log (1/K) sum_k p(x, z_k) / q(z_k | x)``, ``z_k ~ q(z | x)``: a lower bound
        in expectation that is never below the ELBO in expectation and tightens as ``K``
        grows. With the Bayesian decoder, the decoder is evaluated at the posterior means of
        its weights (a plug-in estimate).

        Parameters
        ----------
        X : array-like of shape (n, n_features)
        n_importance : int, default 100
            ``K``.
        random_state : None, int or Generator
            ``None`` uses a seed fixed at fit time.
        per_sample : bool, default False
            Return the estimate of every row instead of the mean.

        Returns
        -------
        float or ndarray of shape (n,)
            Nats per sample.

        Raises
        ------
        NotFittedError, ValueError
        """
        self._check_is_fitted()
        n_importance = check_scalar(n_importance, "n_importance", numbers.Integral, low=1)
        X = self._check_X(X, reset=False)
        rng = np.random.default_rng(self._eval_seed + 1) if random_state is None \
            else check_random_state(random_state)
        with blas_single_thread():
            rows = self._iwae_rows(X, n_importance, rng)
        return rows if per_sample else float(rows.mean())

    def score_samples(self, X):
        """Per-sample importance-weighted log-likelihood estimate (``n_importance=100``).

        Parameters
        ----------
        X : array-like of shape (n, n_features)

        Returns
        -------
        ndarray of shape (n,)
            Nats.
        """
        return self.log_likelihood(X, per_sample=True)

    def score(self, X, y=None):
        """Mean importance-weighted log-likelihood estimate (nats per sample); see
        :meth:`log_likelihood`."""
        return self.log_likelihood(X)
