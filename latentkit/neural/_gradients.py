"""The VAE's training objective and its gradient, written out by hand (backpropagation through
the reparameterised draws, the closed-form Gaussian KL, KL warm-up and free bits), and the
global term of the Bayesian decoder.

Sources: Kingma & Welling (2014), eq. 10 and appendices B and F; Kingma et al. (2016), eq. 15
(free bits). Checked against central finite differences in ``tests/neural/test_mlp_gradients.py``.
:class:`VAEObjective` is an object that :class:`latentkit.neural.VAE` holds
(``vae._objective``); it evaluates the objective of the VAE's :class:`._network.VAENetwork`.
"""

import numpy as np

from . import _mlp
from ._per_example import mlp_backward_per_example

__all__ = ["VAEObjective"]


class VAEObjective:
    """The Monte-Carlo ELBO of a minibatch and its gradient (see the module); call it.

    Parameters
    ----------
    network : VAENetwork
        The networks, the parameter layout and the observation model.
    decoder_prior_std : float
        Standard deviation of the Gaussian prior of the Bayesian decoder's weights.
    """

    def __init__(self, network, decoder_prior_std):
        self.network = network
        self.decoder_prior_std = decoder_prior_std

    def __call__(self, theta, data, beta=1.0, free_bits=0.0, need_grad=True, row_weights=None,
                 per_example=False):
        """Monte-Carlo ELBO of the rows of ``data`` and the gradient of the training objective.

        Parameters
        ----------
        theta : ndarray of shape (n_params,)
        data : _VAEData
            Rows ``X`` (n, D), noise ``eps_z`` (n, S, L), ``eps_w`` (Bayesian decoder).
        beta : float
            Weight of the KL term in the training objective (KL warm-up).
        free_bits : float
            Free-bits floor per latent dimension (nats, on the minibatch mean KL).
        need_grad : bool
        row_weights : ndarray of shape (n,), optional
            Weight ``c_i`` of row ``i`` in the gradient: the returned gradient is that of
            ``sum_i c_i f_i`` (DP-SGD's clipping factors, :mod:`._private`); ``rec``, ``kl`` and
            ``objective`` are not weighted. With weights of exactly 1 the gradient is bitwise the
            unweighted one.
        per_example : bool, default False
            Return the gradient of every row apart, shape (n, n_params)
            (:mod:`._per_example`); needs ``free_bits == 0``.

        Returns
        -------
        rec : ndarray of shape (n, S)
            ``log p(x_i | z_is)``, nats.
        kl : ndarray of shape (n, L)
            ``KL(q(z_ij | x_i) || N(0, 1))`` per latent dimension, nats.
        objective : float
            Sum over rows of the training objective ``mean_s rec - beta * KL`` (free bits
            applied), nats; the global term is not included.
        grad : ndarray of shape (n_params,) or (n, n_params) or None
            Its gradient with respect to ``theta`` (per row with ``per_example``).
        """
        if per_example and free_bits > 0.0:
            raise ValueError("per-example gradients need free_bits == 0: free bits couple the "
                             "rows of a minibatch.")
        X, eps_z, eps_w = data.X, data.eps_z, data.eps_w
        n = X.shape[0]
        S, L = eps_z.shape[1], eps_z.shape[2]
        net = self.network
        act = net.activation
        enc_sizes, dec_sizes = net.enc_sizes, net.dec_sizes
        lay = net.layout
        enc = _mlp.unpack(theta[lay["enc"]], enc_sizes)
        wdec = net.decoder_weights(theta, eps_w)
        dec = _mlp.unpack(wdec, dec_sizes)

        out_e, cache_e = _mlp.forward(enc, X, act)
        mu, logvar = out_e[:, :L], out_e[:, L:]
        var = np.exp(logvar)
        std = np.sqrt(var)
        z = (mu[:, None, :] + std[:, None, :] * eps_z).reshape(n * S, L)
        P, cache_d = _mlp.forward(dec, z, act)
        D = P.shape[1]
        P = P.reshape(n, S, D)
        rec, dP, d_obs = net.log_lik(X, P, theta, need_grad)
        kl = 0.5 * (mu * mu + var - logvar - 1.0)

        kl_sum_dim = kl.sum(axis=0)
        if free_bits > 0.0:
            mask = kl_sum_dim > n * free_bits
            kl_obj = np.where(mask, kl_sum_dim, n * free_bits).sum()
        else:
            mask = None
            kl_obj = kl_sum_dim.sum()
        objective = float(rec.sum() / S - beta * kl_obj)
        if not need_grad:
            return rec, kl, objective, None

        w = None if row_weights is None else np.asarray(row_weights, dtype=np.float64)
        dout = dP * (1.0 / S) if w is None else dP * (w[:, None, None] * (1.0 / S))
        dout = dout.reshape(n * S, D)
        if per_example:
            grad = np.zeros((n, theta.shape[0]))
            g_dec, dz = mlp_backward_per_example(dec, cache_d, dout, act, n,
                                                 need_input_grad=True)
        else:
            grad = np.zeros_like(theta)
            g_dec = np.zeros(wdec.shape[0]) if net.bayesian_decoder else grad[lay["dec"]]
            dz = _mlp.backward(dec, _mlp.unpack(g_dec, dec_sizes), cache_d, dout, act,
                               need_input_grad=True)
        dz = dz.reshape(n, S, L)
        g_out = np.empty((n, 2 * L))
        dmu, dlogvar = g_out[:, :L], g_out[:, L:]
        np.sum(dz, axis=1, out=dmu)
        np.sum(dz * eps_z, axis=1, out=dlogvar)
        dlogvar *= 0.5 * std
        kmu, klv = mu, 0.5 * (var - 1.0)
        if mask is not None:
            kmu, klv = kmu * mask, klv * mask
        if w is not None:
            kmu, klv = kmu * w[:, None], klv * w[:, None]
        dmu -= beta * kmu
        dlogvar -= beta * klv
        if per_example:
            grad[:, lay["enc"]] = mlp_backward_per_example(enc, cache_e, g_out, act, n)[0]
            grad[:, lay["dec"]] = g_dec
        else:
            _mlp.backward(enc, _mlp.unpack(grad[lay["enc"]], enc_sizes), cache_e, g_out, act)
        if net.bayesian_decoder:
            grad[..., lay["dec"]] = g_dec
            grad[..., lay["dec_logsigma"]] = g_dec * eps_w * np.exp(theta[lay["dec_logsigma"]])
        sl = lay["obs"]
        if sl.stop > sl.start:
            d_obs = d_obs if w is None else d_obs * w[:, None, None]
            g = d_obs.sum(axis=1 if per_example else (0, 1)) / S
            grad[..., sl] = g if sl.stop - sl.start > 1 else g.sum(axis=-1, keepdims=per_example)
        return rec, kl, objective, grad

    def global_terms(self, theta):
        """``-KL(q(w) || p(w))`` of the Bayesian decoder's weights and its gradient.

        ``KL(N(m, s^2) || N(0, p^2)) = log(p / s) + (s^2 + m^2) / (2 p^2) - 1/2`` per weight.
        """
        if not self.network.bayesian_decoder:
            return 0.0, None
        lay = self.network.layout
        m, ls = theta[lay["dec"]], theta[lay["dec_logsigma"]]
        p2 = float(self.decoder_prior_std) ** 2
        s2 = np.exp(2.0 * ls)
        kl = (np.log(self.decoder_prior_std) - ls + (s2 + m * m) / (2.0 * p2) - 0.5).sum()
        grad = np.zeros_like(theta)
        grad[lay["dec"]] = -m / p2
        grad[lay["dec_logsigma"]] = 1.0 - s2 / p2
        return -float(kl), grad
