"""The VAE's networks and their parameters: the layout of the one flat parameter vector, its
initialisation, the views of its layers, the reparameterisation noise, the forward passes of
encoder and decoder, and the observation model at given parameters.

:class:`VAENetworkMixin` is a base of :class:`latentkit.neural.VAE` (it reads the VAE's
hyper-parameters and fitted attributes); the objective and its gradient are in
:mod:`._gradients`, Adam in :mod:`._optim`, the MLP itself in :mod:`._mlp`.
"""

import numpy as np

from . import _mlp
from ._likelihoods import BernoulliLikelihood, CategoricalLikelihood, GaussianLikelihood

__all__ = ["VAENetworkMixin", "LIKELIHOOD_CLASSES", "_VAEData"]

#: ``likelihood=`` name -> observation model class (:mod:`._likelihoods`)
LIKELIHOOD_CLASSES = {"bernoulli": BernoulliLikelihood, "gaussian": GaussianLikelihood,
                      "categorical": CategoricalLikelihood}


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


class VAENetworkMixin:
    """Parameter layout, initialisation and forward passes of the VAE (see the module)."""

    def _sizes(self):
        L, D = int(self.latent_dim), self.n_features_in_
        h = self.hidden_layer_sizes_
        return (D, *h, 2 * L), (L, *h[::-1], D)

    def _layout(self):
        """Slices of the flat parameter vector: enc, dec, dec_logsigma, obs_logvar."""
        enc_sizes, dec_sizes = self._sizes()
        pe, pd = _mlp.n_parameters(enc_sizes), _mlp.n_parameters(dec_sizes)
        k = 0
        out = {"enc": slice(k, k + pe)}
        k += pe
        out["dec"] = slice(k, k + pd)
        k += pd
        if self.bayesian_decoder:
            out["dec_logsigma"] = slice(k, k + pd)
            k += pd
        n_obs = 0
        if self.likelihood == "gaussian" and isinstance(self.observation_variance, str):
            n_obs = self.n_features_in_ if self.observation_variance == "diagonal" else 1
        out["obs"] = slice(k, k + n_obs)
        out["n"] = k + n_obs
        return out

    def _initial_params(self, X, rng):
        """Starting flat parameter vector: Glorot-initialised encoder then decoder (drawn from
        ``rng`` in that order), the Bayesian decoder's log-standard-deviations at log(1e-3),
        and for the Gaussian likelihood the decoder's output bias at the feature means and
        the observation log-variance at the log feature variances of ``X``."""
        enc_sizes, dec_sizes = self._sizes()
        lay = self._layout()
        theta = np.zeros(lay["n"])
        theta[lay["enc"]] = _mlp.init_weights(enc_sizes, rng)
        theta[lay["dec"]] = _mlp.init_weights(dec_sizes, rng)
        if self.bayesian_decoder:
            theta[lay["dec_logsigma"]] = np.log(1e-3)
        if self.likelihood == "gaussian":
            # output bias = feature means, log-variance = log of the feature variances
            b_out = _mlp.unpack(theta[lay["dec"]], dec_sizes)[-1][1]
            b_out[...] = X.mean(axis=0)
            if lay["obs"].stop > lay["obs"].start:
                var = np.maximum(X.var(axis=0), 1e-6)
                theta[lay["obs"]] = np.log(var) if self.observation_variance == "diagonal" \
                    else np.log(var.mean())
        return theta

    # views of the fitted parameters
    @property
    def encoder_layers_(self):
        self._check_is_fitted()
        return _mlp.unpack(self.params_[self._layout()["enc"]], self._sizes()[0])

    @property
    def decoder_layers_(self):
        self._check_is_fitted()
        return _mlp.unpack(self.params_[self._layout()["dec"]], self._sizes()[1])

    @property
    def observation_variance_(self):
        if self.likelihood != "gaussian":
            raise AttributeError("observation_variance_ exists for likelihood='gaussian' only.")
        self._check_is_fitted()
        return np.exp(self._obs_logvar(self.params_)) * np.ones(self.n_features_in_)

    def _obs_logvar(self, theta):
        sl = self._layout()["obs"]
        if sl.stop > sl.start:
            return theta[sl]
        return np.array([np.log(float(self.observation_variance))])

    def _with_noise(self, X, rng):
        eps_z = rng.standard_normal((X.shape[0], int(self.n_mc_samples), int(self.latent_dim)))
        eps_w = None
        if self.bayesian_decoder:
            eps_w = rng.standard_normal(self._layout()["dec"].stop - self._layout()["dec"].start)
        return _VAEData(X, eps_z, eps_w)

    def _decoder_weights(self, theta, eps_w):
        lay = self._layout()
        mu = theta[lay["dec"]]
        if not self.bayesian_decoder or eps_w is None:
            return mu
        return mu + np.exp(theta[lay["dec_logsigma"]]) * eps_w

    def _likelihood_model(self):
        """The observation model object (:mod:`latentkit.neural._likelihoods`)."""
        if self.likelihood == "categorical":
            return CategoricalLikelihood(self._group_starts, self._group_sizes)
        return LIKELIHOOD_CLASSES[self.likelihood]()

    def _lik_log_var(self, theta):
        """The Gaussian likelihood's log variances (None for the others)."""
        return self._obs_logvar(theta) if self.likelihood == "gaussian" else None

    def _log_lik(self, X, P, theta, need_grad):
        """``log p(x | z)`` per (row, draw) and its gradient w.r.t. the decoder output ``P``.

        X : (n, D); P : (n, S, D). Returns rec (n, S), dP (n, S, D) or None, d_obs or None.
        """
        return self._likelihood_model().log_prob_and_grad(X, P, self._lik_log_var(theta),
                                                          need_grad)

    def _encode(self, X):
        enc_sizes, _ = self._sizes()
        out, _ = _mlp.forward(_mlp.unpack(self.params_[self._layout()["enc"]], enc_sizes), X,
                              self.activation)
        L = int(self.latent_dim)
        return out[:, :L], out[:, L:]

    def _decode_params(self, Z, theta=None, eps_w=None):
        theta = self.params_ if theta is None else theta
        _, dec_sizes = self._sizes()
        P, _ = _mlp.forward(_mlp.unpack(self._decoder_weights(theta, eps_w), dec_sizes), Z,
                            self.activation)
        return P
