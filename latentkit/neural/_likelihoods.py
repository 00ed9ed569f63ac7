"""Observation models ``p(x | z)`` of the :class:`~latentkit.neural.VAE`, as objects.

Like the HMM emissions (:mod:`latentkit.sequence._emissions`), a likelihood holds only its
fixed structure (the one-hot groups of a categorical likelihood); the decoder output ``P``
(natural parameters: logits or means) and, for the Gaussian, the log variances are passed in.
A new likelihood is one class with:

``log_prob_and_grad(X, P, log_var, need_grad)``
    ``log p(x | z)`` per (row, draw), shape (n, S), its gradient with respect to ``P``
    (n, S, D) and with respect to ``log_var`` (n, S, D) (None where not needed or not used).
``mean(P)``
    Mean of ``p(x | z)`` (probabilities or means), shape of ``P``.
``sample(P, rng, log_var)``
    One draw of ``x`` per row of ``P``.

Source: Kingma & Welling (2014), appendix C (Bernoulli and Gaussian decoders); the categorical
likelihood is the softmax within each one-hot group.
"""

import numpy as np
from scipy.special import expit

__all__ = ["BernoulliLikelihood", "CategoricalLikelihood", "GaussianLikelihood"]

_LOG_2PI = float(np.log(2.0 * np.pi))


class BernoulliLikelihood:
    """Independent Bernoulli pixels with logits ``P``: ``log p = sum x P - log(1 + e^P)``."""

    def log_prob_and_grad(self, X, P, log_var=None, need_grad=True):
        Xb = X[:, None, :]
        rec = (Xb * P - np.logaddexp(0.0, P)).sum(-1)
        return rec, (Xb - expit(P)) if need_grad else None, None

    def mean(self, P):
        return expit(P)

    def sample(self, P, rng, log_var=None):
        return (rng.random(P.shape) < expit(P)).astype(np.float64)


class GaussianLikelihood:
    """Independent Gaussians with means ``P`` and log variances ``log_var`` (D,):
    ``log p = -0.5 sum ((x - P)^2 / var + log var + log 2 pi)``."""

    def log_prob_and_grad(self, X, P, log_var, need_grad=True):
        Xb = X[:, None, :]
        prec = np.exp(-log_var)
        r = Xb - P
        r2p = r * r * prec
        rec = -0.5 * (r2p + log_var + _LOG_2PI).sum(-1)
        if not need_grad:
            return rec, None, None
        return rec, r * prec, 0.5 * (r2p - 1.0)

    def mean(self, P):
        return P

    def sample(self, P, rng, log_var):
        return P + np.exp(0.5 * log_var) * rng.standard_normal(P.shape)


class CategoricalLikelihood:
    """One categorical variable per one-hot group of columns, with logits ``P``: a softmax
    within each group.

    Parameters
    ----------
    starts, sizes : ndarray of int
        First column and number of columns of each group.
    """

    def __init__(self, starts, sizes):
        self.starts = starts
        self.sizes = sizes

    def log_prob_and_grad(self, X, P, log_var=None, need_grad=True):
        Xb = X[:, None, :]
        starts, sizes = self.starts, self.sizes
        mx = np.maximum.reduceat(P, starts, axis=-1)
        mxr = np.repeat(mx, sizes, axis=-1)
        ex = np.exp(P - mxr)
        se = np.add.reduceat(ex, starts, axis=-1)
        lse = mx + np.log(se)
        rec = (Xb * P).sum(-1) - lse.sum(-1)
        if not need_grad:
            return rec, None, None
        soft = ex / np.repeat(se, sizes, axis=-1)
        return rec, Xb - soft, None

    def mean(self, P):
        starts, sizes = self.starts, self.sizes
        mx = np.repeat(np.maximum.reduceat(P, starts, axis=-1), sizes, axis=-1)
        ex = np.exp(P - mx)
        return ex / np.repeat(np.add.reduceat(ex, starts, axis=-1), sizes, axis=-1)

    def sample(self, P, rng, log_var=None):
        n = P.shape[0]
        X = np.zeros_like(P)
        g = P - np.log(-np.log(rng.random(P.shape)))  # Gumbel-max per group
        for a, s in zip(self.starts, self.sizes):
            X[np.arange(n), a + np.argmax(g[:, a:a + s], axis=1)] = 1.0
        return X
