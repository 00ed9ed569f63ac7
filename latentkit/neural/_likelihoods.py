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

import numbers

import numpy as np
from scipy.special import expit
from ..exceptions import InputError

__all__ = ["BernoulliLikelihood", "CategoricalLikelihood", "GaussianLikelihood", "one_hot_groups"]

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

    def check_one_hot(self, X, name):
        """Raise ``ValueError`` (naming ``name``) unless every group of every row of ``X`` is
        one-hot."""
        if not np.all((X == 0.0) | (X == 1.0)):
            raise InputError(f"{name} must be one-hot (0/1) for likelihood='categorical'.")
        sums = np.add.reduceat(X, self.starts, axis=1)
        if not np.all(sums == 1.0):
            i, g = np.argwhere(sums != 1.0)[0]
            raise InputError(
                f"{name} must have exactly one 1 in every one-hot group for "
                f"likelihood='categorical'; row {i}, group {g} sums to {sums[i, g]}.")

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


def one_hot_groups(n_categories, n_features):
    """First column and size of each one-hot group from the VAE's ``n_categories``.

    Parameters
    ----------
    n_categories : None, int or sequence of int
        ``None``: one group of all ``n_features`` columns; an int ``k``: groups of ``k``
        columns; a sequence: the group sizes.
    n_features : int

    Returns
    -------
    starts, sizes : ndarray of shape (n_groups,), intp

    Raises
    ------
    ValueError
        A group smaller than 2, an int that does not divide ``n_features``, or sizes that do
        not sum to ``n_features``.
    """
    nc = n_categories
    if nc is None:
        sizes = [n_features]
    elif isinstance(nc, numbers.Integral) and not isinstance(nc, bool):
        if nc < 2 or n_features % nc:
            raise InputError(f"n_categories={nc} must be >= 2 and divide n_features="
                             f"{n_features}.")
        sizes = [int(nc)] * (n_features // nc)
    else:
        sizes = [int(s) for s in nc]
        if any(s < 2 for s in sizes) or sum(sizes) != n_features:
            raise InputError(f"n_categories={list(nc)} must be group sizes >= 2 summing to "
                             f"n_features={n_features}.")
    return np.cumsum([0] + sizes[:-1]).astype(np.intp), np.asarray(sizes, dtype=np.intp)
