"""The VAE's networks: the layout of the one flat parameter vector, its initialisation, the
views of its layers, the reparameterisation noise, the forward passes of encoder and decoder,
and the observation model at given parameters.

:class:`VAENetwork` is an object that :class:`latentkit.neural.VAE` holds (``vae._network``),
built from the VAE's hyper-parameters and ``n_features_in_``; it holds no parameters itself
(every method takes the flat vector ``theta``). The objective and its gradient are in
:mod:`._gradients`, the held-out bounds in :mod:`._bounds`, Adam in :mod:`._optim`, the MLP
itself in :mod:`._mlp`.
"""

import numpy as np

from . import _mlp
from ._likelihoods import BernoulliLikelihood, CategoricalLikelihood, GaussianLikelihood

__all__ = ["VAENetwork", "LIKELIHOOD_CLASSES", "make_likelihood", "_VAEData"]

#: ``likelihood=`` name -> observation model class (:mod:`._likelihoods`)
LIKELIHOOD_CLASSES = {"bernoulli": BernoulliLikelihood, "gaussian": GaussianLikelihood,
                      "categorical": CategoricalLikelihood}


def make_likelihood(name, groups=None):
    """The observation model object of ``likelihood=name`` (:mod:`._likelihoods`);
    ``groups = (starts, sizes)`` of the one-hot groups for ``'categorical'``."""
    if name == "categorical":
        return CategoricalLikelihood(*groups)
    return LIKELIHOOD_CLASSES[name]()


class _VAEData:
    """Validated rows plus the pre-drawn reparameterisation noise that travels with them.

    ``eps_z`` has shape (n, S, L) and is sliced with the rows; ``eps_w`` (decoder-weight noise of
    the Bayesian decoder, shape (n_decoder_params,)) is shared by every row of one E-step.
    """

    __slots__ = ("X", "eps_z", "eps_w")

    def __init__(self, X, eps_z=None, eps_w=None):
        self.X = X
        self.eps_z = eps_z
        self.eps_w = eps_w

    @property
    def shape(self):
        return self.X.shape

    def __len__(self):
        return self.X.shape[0]

    def __getitem__(self, rows):
        return _VAEData(self.X[rows], None if self.eps_z is None else self.eps_z[rows], self.eps_w)


class VAENetwork:
    """Encoder and decoder MLPs of a VAE, the layout of its flat parameter vector and its
    observation model (Kingma & Welling 2014, section 3 and appendix C).

    Parameters
    ----------
    n_features : int
        ``D``, the width of the data.
    latent_dim : int
        ``L``.
    hidden_layer_sizes : tuple of int
        The encoder's hidden widths; the decoder uses them in reverse order.
    activation : {'relu', 'tanh', 'softplus'}
    likelihood : {'bernoulli', 'gaussian', 'categorical'}
    observation_variance : {'diagonal', 'isotropic'} or float
        Gaussian likelihood: learned per feature, learned and shared, or fixed.
    bayesian_decoder : bool
        The decoder's weights have a Gaussian posterior (their log standard deviations follow
        the means in the parameter vector).
    groups : tuple (starts, sizes), optional
        The one-hot groups of the categorical likelihood.

    Attributes
    ----------
    enc_sizes, dec_sizes : tuple of int
        Layer widths ``(D, *hidden, 2 L)`` and ``(L, *reversed(hidden), D)``.
    layout : dict
        Slices of the flat parameter vector: ``enc``, ``dec``, ``dec_logsigma`` (Bayesian
        decoder), ``obs`` (learned Gaussian log-variances, possibly empty), and ``n``, the
        number of parameters.
    likelihood : object
        The observation model (:mod:`latentkit.neural._likelihoods`).
    """

    def __init__(self, n_features, latent_dim, hidden_layer_sizes, activation, likelihood,
                 observation_variance, bayesian_decoder, groups=None):
        L, D, h = int(latent_dim), n_features, hidden_layer_sizes
        self.latent_dim, self.activation = L, activation
        self.enc_sizes, self.dec_sizes = (D, *h, 2 * L), (L, *h[::-1], D)
        self.likelihood_name, self.observation_variance = likelihood, observation_variance
        self.bayesian_decoder = bayesian_decoder
        self.likelihood = make_likelihood(likelihood, groups)
        self.layout = self._layout(n_features)

    def _layout(self, n_features):
        pe, pd = _mlp.n_parameters(self.enc_sizes), _mlp.n_parameters(self.dec_sizes)
        k = 0
        out = {"enc": slice(k, k + pe)}
        k += pe
        out["dec"] = slice(k, k + pd)
        k += pd
        if self.bayesian_decoder:
            out["dec_logsigma"] = slice(k, k + pd)
            k += pd
        n_obs = 0
        if self.likelihood_name == "gaussian" and isinstance(self.observation_variance, str):
            n_obs = n_features if self.observation_variance == "diagonal" else 1
        out["obs"] = slice(k, k + n_obs)
        out["n"] = k + n_obs
        return out

    def initial_params(self, X, rng):
        """Starting flat parameter vector: Glorot-initialised encoder then decoder (drawn from
        ``rng`` in that order), the Bayesian decoder's log-standard-deviations at log(1e-3),
        and for the Gaussian likelihood the decoder's output bias at the feature means and
        the observation log-variance at the log feature variances of ``X`` (n, D)."""
        lay = self.layout
        theta = np.zeros(lay["n"])
        theta[lay["enc"]] = _mlp.init_weights(self.enc_sizes, rng)
        theta[lay["dec"]] = _mlp.init_weights(self.dec_sizes, rng)
        if self.bayesian_decoder:
            theta[lay["dec_logsigma"]] = np.log(1e-3)
        if self.likelihood_name == "gaussian":
            # output bias = feature means, log-variance = log of the feature variances
            self.output_bias(theta)[...] = X.mean(axis=0)
            if lay["obs"].stop > lay["obs"].start:
                var = np.maximum(X.var(axis=0), 1e-6)
                theta[lay["obs"]] = np.log(var) if self.observation_variance == "diagonal" \
                    else np.log(var.mean())
        return theta

    def output_bias(self, theta):
        """A view of the decoder's output bias (the decoder means' weights) inside ``theta``."""
        return _mlp.unpack(theta[self.layout["dec"]], self.dec_sizes)[-1][1]

    def encoder_layers(self, theta):
        """``[(W, b), ...]`` views of the encoder's layers inside ``theta``."""
        return _mlp.unpack(theta[self.layout["enc"]], self.enc_sizes)

    def decoder_layers(self, theta):
        """``[(W, b), ...]`` views of the decoder's (mean) layers inside ``theta``."""
        return _mlp.unpack(theta[self.layout["dec"]], self.dec_sizes)

    def obs_logvar(self, theta):
        """The Gaussian likelihood's log variances: learned (in ``theta``) or fixed."""
        sl = self.layout["obs"]
        if sl.stop > sl.start:
            return theta[sl]
        return np.array([np.log(float(self.observation_variance))])

    def lik_log_var(self, theta):
        """The Gaussian likelihood's log variances (None for the others)."""
        return self.obs_logvar(theta) if self.likelihood_name == "gaussian" else None

    def with_noise(self, X, rng, n_mc_samples):
        """``X`` with its reparameterisation noise: ``eps_z`` (n, S, L) drawn first, then the
        Bayesian decoder's weight noise ``eps_w``."""
        eps_z = rng.standard_normal((X.shape[0], int(n_mc_samples), self.latent_dim))
        eps_w = None
        if self.bayesian_decoder:
            eps_w = rng.standard_normal(self.layout["dec"].stop - self.layout["dec"].start)
        return _VAEData(X, eps_z, eps_w)

    def decoder_weights(self, theta, eps_w):
        """The decoder's flat weights: the means, or a draw ``m + exp(log s) eps_w`` of the
        Bayesian decoder."""
        lay = self.layout
        mu = theta[lay["dec"]]
        if not self.bayesian_decoder or eps_w is None:
            return mu
        return mu + np.exp(theta[lay["dec_logsigma"]]) * eps_w

    def log_lik(self, X, P, theta, need_grad):
        """``log p(x | z)`` per (row, draw) and its gradient w.r.t. the decoder output ``P``.

        X : (n, D); P : (n, S, D). Returns rec (n, S), dP (n, S, D) or None, d_obs or None.
        """
        return self.likelihood.log_prob_and_grad(X, P, self.lik_log_var(theta), need_grad)

    def encode(self, theta, X):
        """Posterior means and log variances of ``q(z | x)``, each (n, L)."""
        out, _ = _mlp.forward(self.encoder_layers(theta), X, self.activation)
        L = self.latent_dim
        return out[:, :L], out[:, L:]

    def decode(self, theta, Z, eps_w=None):
        """The decoder's output (the likelihood's parameters) at latent points ``Z`` (n, L)."""
        P, _ = _mlp.forward(_mlp.unpack(self.decoder_weights(theta, eps_w), self.dec_sizes), Z,
                            self.activation)
        return P
