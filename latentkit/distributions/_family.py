"""The exponential-family distribution blocks shared by the mixture components and the HMM
emissions: one Poisson, one categorical, one Bernoulli (:mod:`._counts`) and one Gaussian
(:mod:`._gaussian_family`), each with its conjugate prior, under one set of method names.

A block holds no data and no fitted values; its methods take the parameters as arrays.
The two model families use it through thin adapters with their own protocols:
:mod:`latentkit.mixture._components` (variational factors ``q(theta_k)``: the conjugate
methods) and :mod:`latentkit.sequence._emissions` (point estimates: the maximum-likelihood /
MAP methods). Every method of a block:

==========================================  ================================================
``log_likelihood(params, X)``               (n, K) ``log p(x_i | theta_k)`` at point
                                            parameters, nats
``expected_log_likelihood(posterior, X)``   (n, K) ``E_q[log p(x_i | theta_k)]`` under the
                                            conjugate factor ``q(theta_k)``, nats
``sufficient_stats(X, resp)``               the weighted statistics ``sum_i r_ik T(x_i)``
``maximize(stats, previous, prior)``        the maximum-likelihood (MAP with ``prior``)
                                            parameters; a component without weight keeps
                                            ``previous``
``log_prior(params, prior)``                log prior density at point parameters, nats
``posterior(prior, stats)``                 the conjugate factor's parameters
``kl(posterior, prior)``                    ``sum_k KL(q(theta_k) || p(theta))``, nats
``log_predictive(posterior, X)``            (n, K) log posterior predictive of each row
``sample(params, labels, rng)``             one row per label
==========================================  ================================================

``posterior`` and ``prior`` are the conjugate parameters (a Gamma's shape and rate, a
Dirichlet's concentrations, a Beta's two counts, a Normal-Wishart), ``params`` the
distribution's own (rates, probabilities, means and covariances). A block defines the
methods its users need; the others raise ``NotImplementedError`` naming the block.

Sources: Bishop (2006), *Pattern Recognition and Machine Learning*, sections 2.1-2.4
(Beta-Bernoulli, Dirichlet-categorical, Gamma-Poisson and Normal-Wishart conjugacy) and 10.2
(the variational factors); Blei & Jordan (2006), section 4 (exponential-family components of
a DP mixture); Rabiner (1989), eqs. 40 (the Baum-Welch re-estimation of emissions).
"""

import numpy as np
import scipy.sparse as sp

__all__ = ["ExponentialFamily", "linear_stats", "sparse_row_sums"]


def sparse_row_sums(X, values):
    """Per-row sums of ``values`` given at the stored entries of the CSR matrix ``X``.

    Parameters
    ----------
    X : scipy.sparse.csr_matrix of shape (n, D)
    values : ndarray of shape (X.nnz,)

    Returns
    -------
    ndarray of shape (n,)
    """
    return np.asarray(sp.csr_matrix((values, X.indices, X.indptr), shape=X.shape).sum(1)).ravel()


def linear_stats(X, resp):
    """``sum_i resp_ik x_i``, shape (K, D): the weighted statistic of the families whose
    sufficient statistic is ``x`` itself (Poisson, Bernoulli, categorical counts).

    Parameters
    ----------
    X : ndarray or scipy.sparse matrix of shape (n, D)
    resp : ndarray of shape (n, K)
        Weighted responsibilities (or state posteriors).

    Returns
    -------
    ndarray of shape (K, D)
    """
    if sp.issparse(X):
        return np.asarray((X.T @ resp).T)
    return resp.T @ X


class ExponentialFamily:
    """Base of the distribution blocks: the method names of the module docstring.

    Every method not defined by a block raises ``NotImplementedError`` naming it.
    """

    def _missing(self, method):
        raise NotImplementedError(f"{type(self).__name__} does not define {method}.")

    def log_likelihood(self, params, X):
        """(n, K) ``log p(x_i | theta_k)``, nats."""
        self._missing("log_likelihood")

    def expected_log_likelihood(self, posterior, X):
        """(n, K) ``E_q[log p(x_i | theta_k)]``, nats."""
        self._missing("expected_log_likelihood")

    def sufficient_stats(self, X, resp):
        """The weighted statistics; by default :func:`linear_stats` (``T(x) = x``)."""
        return linear_stats(X, resp)

    def maximize(self, stats, previous, prior=None):
        """Maximum-likelihood (MAP) parameters from the statistics."""
        self._missing("maximize")

    def log_prior(self, params, prior):
        """Log prior density at point parameters, nats."""
        self._missing("log_prior")

    def posterior(self, prior, stats):
        """The conjugate factor's parameters given the statistics."""
        self._missing("posterior")

    def kl(self, posterior, prior):
        """``sum_k KL(q(theta_k) || p(theta))``, nats."""
        self._missing("kl")

    def log_predictive(self, posterior, X):
        """(n, K) log posterior predictive of each row, nats."""
        self._missing("log_predictive")

    def sample(self, params, labels, rng):
        """One row per label."""
        self._missing("sample")
