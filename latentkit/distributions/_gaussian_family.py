"""The Gaussian block of :mod:`latentkit.distributions._family`: ``x ~ N(mu, Lambda^-1)``
with the conjugate Normal-Wishart prior (Normal-Gamma for 'diag' and 'spherical'), for the
four covariance structures, shared by the Gaussian mixture component
(:mod:`latentkit.mixture._gaussian_component`) and the Gaussian HMM emission
(:mod:`latentkit.sequence._gaussian_emission`).

It names, under the methods of every block, the Gaussian computations of
:mod:`latentkit.distributions._gaussian` (densities from precision Cholesky factors, moments
about a fixed shift, the closed-form M-step, sampling), :mod:`._normal_wishart` (the
conjugate factor) and :mod:`._missing` (NaN entries marginalised, ``missing='marginalize'``).
``params``: ``(means (K, D), covariances)`` with the covariances in the shape of
``covariance_type``; ``prior`` / ``posterior``: :class:`NormalWishart`; ``stats``: ``(nk, sx,
sxx)``, moments about ``shift``.

Sources: Bishop (2006), *Pattern Recognition and Machine Learning*, sections 2.3 and 10.2
(eqs. 10.60-10.63 and 10.79-10.82); Rabiner (1989), section IV (eqs. 52-54);
Ghahramani & Jordan (1994) for missing entries.
"""

import numpy as np

from ..base import ParamsMixin
from . import _missing
from ._family import ExponentialFamily
from ._gaussian import (accumulate_gaussian_stats, compute_precision_cholesky,
                        estimate_gaussian_parameters, log_gaussian_prob, sample_gaussian)
from ._normal_wishart import NormalWishart

__all__ = ["Gaussian"]


class Gaussian(ExponentialFamily, ParamsMixin):
    """Gaussian rows with the Normal-Wishart conjugate prior: the one Gaussian of latentkit,
    passed as ``DirichletProcessMixture(component=Gaussian(...))`` and as
    ``HiddenMarkovModel(emission=Gaussian(...))`` alike.

    Parameters
    ----------
    covariance_type : {'full', 'tied', 'diag', 'spherical'}, default 'full'
    reg_covar : float, default 1e-6
        Added to the diagonal of every covariance (by the densities and the M-step) or, for
        the conjugate factor, ``N_k reg_covar`` to each posterior scatter.
    missing : {'error', 'marginalize'}, default 'error'
        'marginalize': NaN entries are unobserved; densities are the marginals on the observed
        coordinates and the statistics use the conditional moments of the missing ones.
    mean_precision_prior, mean_prior, degrees_of_freedom_prior, covariance_prior : optional
        The Normal-Wishart prior of the variational mixtures (None: scikit-learn's
        data-derived defaults, the mixtures' private Gaussian component). The HMMs'
        point estimates take no prior: an HMM refuses them.

    Notes
    -----
    The methods take the parameters as arrays and hold no data (the block of
    :mod:`latentkit.distributions._family`). The families use it through their adapters
    (``mixture._gaussian_component.GaussianComponent``,
    ``sequence._gaussian_emission.GaussianEmission``: private since 0.2, their public names
    deprecated), built from it by the model.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.distributions import Gaussian
    >>> from latentkit.sequence import HiddenMarkovModel
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(np.repeat([0.0, 5.0, 0.0, 5.0], 25), 1.0)[:, None]
    >>> hmm = HiddenMarkovModel(2, emission=Gaussian("diag"), init="kmeans++",
    ...                         random_state=0).fit(X)
    >>> np.sort(hmm.means_[:, 0]).round()
    array([0., 5.])
    """

    def __init__(self, covariance_type="full", reg_covar=1e-6, missing="error", *,
                 mean_precision_prior=None, mean_prior=None, degrees_of_freedom_prior=None,
                 covariance_prior=None):
        self.covariance_type = covariance_type
        self.reg_covar = reg_covar
        self.missing = missing
        self.mean_precision_prior = mean_precision_prior
        self.mean_prior = mean_prior
        self.degrees_of_freedom_prior = degrees_of_freedom_prior
        self.covariance_prior = covariance_prior

    #: the Normal-Wishart prior's hyper-parameters (the mixtures' only)
    prior_names = ("mean_precision_prior", "mean_prior", "degrees_of_freedom_prior",
                   "covariance_prior")

    def _marginalize(self):
        return self.missing == "marginalize"

    def _precisions_cholesky(self, covariances):
        return compute_precision_cholesky(covariances, self.covariance_type,
                                          reg_covar=self.reg_covar)[0]

    def log_likelihood(self, params, X, shift=None):
        """``log N(x_i | mu_k, Sigma_k + reg_covar I)``, shape (n, K), evaluated about
        ``shift`` (D,) for accuracy (the marginal on the observed coordinates for
        'marginalize')."""
        means, covariances = params
        log_prob = (_missing.marginal_log_gaussian_prob if self._marginalize()
                    else log_gaussian_prob)
        return log_prob(X, means, self._precisions_cholesky(covariances),
                        self.covariance_type, shift=shift)

    def sufficient_stats(self, X, resp, shift=None, sample_weight=None, params=None):
        """``(nk, sx, sxx)``: weights, first and second moments about ``shift`` of the rows
        weighted by ``resp`` (and ``sample_weight``). With ``missing='marginalize'`` and the
        current ``params``, the expected moments of the missing entries under them."""
        ct = self.covariance_type
        if self._marginalize() and params is not None:
            means, covariances = params
            return _missing.accumulate_missing_gaussian_stats(
                X, resp, means, self._precisions_cholesky(covariances), ct, shift=shift)
        return accumulate_gaussian_stats(X, resp, ct, sample_weight=sample_weight, shift=shift)

    def maximize(self, stats, previous=None, prior=None, shift=None):
        """Maximum-likelihood ``(means, covariances, collapsed)`` from ``(nk, sx, sxx)``
        (``collapsed``: the components whose covariance was singular before ``reg_covar``;
        the caller decides what a component without weight keeps)."""
        nk, sx, sxx = stats
        return estimate_gaussian_parameters(nk, sx, sxx, self.covariance_type,
                                            reg_covar=self.reg_covar, shift=shift, warn=False)

    def posterior(self, prior, stats, shift=None):
        """The Normal-Wishart factors given ``(nk, sx, sxx)`` about ``shift`` (Bishop
        10.60-10.63, centred form)."""
        nk, sx, sxx = stats
        return NormalWishart.posterior(prior, nk, sx, sxx, self.reg_covar, shift)

    def kl(self, posterior, prior):
        return posterior.kl(prior)

    def log_predictive(self, posterior, X):
        """Student-t posterior predictive of each component on each row's observed
        coordinates (Bishop 10.81-10.82), shape (n, K)."""
        return _missing.marginal_log_predictive(posterior, X)

    def sample(self, params, labels, rng):
        """One row per label, shape (n, D): each component's rows drawn in component order
        (:func:`latentkit.distributions.sample_gaussian`) and put at its labels' places."""
        means, covariances = params
        K = means.shape[0]
        labels = np.asarray(labels)
        counts = np.bincount(labels, minlength=K)
        draws, drawn = sample_gaussian(means, covariances, self.covariance_type, counts, rng)
        out = np.empty((labels.shape[0], means.shape[1]))
        for k in range(K):
            out[labels == k] = draws[drawn == k]
        return out
