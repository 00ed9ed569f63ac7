"""Truncated Dirichlet-process mixture fitted by mean-field variational inference.

Blei & Jordan (2006), *Variational inference for Dirichlet process mixtures*, Bayesian Analysis
1(1), 121-144 (stick-breaking representation, truncation v_T = 1); Kurihara, Welling & Vlassis
(2007), *Accelerated variational Dirichlet process mixtures*, NIPS 19 (posterior beyond T tied to
the prior, the infinite tail summed in closed form).
"""

import numbers

import numpy as np

from .._utils.deprecation import renamed_parameter
from .._utils.validation import check_scalar
from ..spectral import n_components_from_spectrum
from ..distributions._stick_breaking import (TRUNCATION_METHODS, stick_expected_log_weights,
                                             stick_expected_weights, stick_kl, stick_posterior)
from ._components import BernoulliComponent, CategoricalComponent, PoissonComponent
from ._conjugate import _ConjugateMixture
from ._gaussian_component import GaussianComponent

__all__ = ["DirichletProcessMixture"]

#: ``component_type`` -> component class (:mod:`latentkit.mixture._components`); a new
#: component is one class added here.
COMPONENT_TYPES = {"gaussian": GaussianComponent, "categorical": CategoricalComponent,
                   "poisson": PoissonComponent, "bernoulli": BernoulliComponent}


class DirichletProcessMixture(_ConjugateMixture):
    """Truncated Dirichlet-process mixture (stick-breaking) fitted by mean-field VI.

    The model: v_k ~ Beta(a, b) (a = 1, b = ``concentration`` for a DP), pi_k = v_k
    prod_{j<k}(1 - v_j), theta_k ~ G_0, z_i ~ Cat(pi), x_i ~ F(theta_{z_i}). G_0 is the
    Normal-Wishart prior of :class:`VariationalGaussianMixture` (Gaussian components), a
    Dirichlet (categorical), Gamma (Poisson) or Beta (Bernoulli) prior (``component_type``).
    The mean-field posterior is truncated at T components:

    * ``truncation_method='fixed'`` (Blei & Jordan 2006): q(v_T = 1) = 1, so the weights of the T
      components sum to one exactly;
    * ``truncation_method='tail'`` (Kurihara, Welling & Vlassis 2007): for k > T, q(v_k) and
      q(theta_k) equal the prior; the infinitely many tail components are kept in the bound,
      their total expected weight summed in closed form (a geometric series), so the bound is
      that of the infinite model under this constraint, and a sample may be explained by "a new
      component" (the prior predictive).

    scikit-learn's ``BayesianGaussianMixture(weight_concentration_prior_type='dirichlet_process')``
    differs from both: it keeps a free Beta factor for the last stick (no v_T = 1 and no tail:
    the stick mass beyond T is simply dropped from the bound) and reports ``weights_``
    renormalised to sum to 1. Here ``weights_`` are the expected stick weights
    E[v_k] prod_{j<k} E[1 - v_j], not renormalised (for 'tail' they sum to less than 1).

    Parameters
    ----------
    n_components : int, default 30
        T, the truncation: the number of represented components.
    concentration : float or (float, float), default 1.0
        alpha of the Beta(1, alpha) sticks, or (a, b) for Beta(a, b) sticks (> 0).
    truncation_method : {'fixed', 'tail'}, default 'fixed'
    component_type : {'gaussian', 'categorical', 'poisson', 'bernoulli'}, default 'gaussian'
        The component family F and its conjugate prior G_0 (one class each, see
        :mod:`latentkit.mixture._components`):

        * 'gaussian': Normal-Wishart (Normal-Gamma for 'diag'/'spherical') components, as in
          :class:`VariationalGaussianMixture`;
        * 'categorical': each row of X is a vector of non-negative counts of tokens drawn
          independently from the component's categorical distribution phi_k ~
          Dir(category_prior) (no multinomial coefficient: the tokens are an ordered sequence);
        * 'poisson': each entry of X is a non-negative integer count, x_id ~
          Poisson(lambda_kd), lambda_kd ~ Gamma(rate_prior);
        * 'bernoulli': each entry of X is 0 or 1, x_id ~ Bernoulli(p_kd), p_kd ~
          Beta(probability_prior).
    category_prior : float or array-like of shape (n_features,), default 0.5
        Dirichlet concentration of the categorical components (> 0).
    rate_prior : (float, float), default (1.0, 1.0)
        Shape and rate of the Gamma prior of every Poisson rate (> 0).
    probability_prior : float or (float, float), default (1.0, 1.0)
        (a, b) of the Beta prior of every Bernoulli probability (> 0); a float c means (c, c).
    covariance_type, reg_covar, mean_precision_prior, mean_prior, degrees_of_freedom_prior,
    covariance_prior :
        Gaussian components, as in :class:`VariationalGaussianMixture` (including the
        reg_covar jitter offset of the E-step, which the tail components get too, and the
        regularisation of a singular default covariance_prior). The 'tail' truncation
        supports 'full', 'diag' and 'spherical' (a tied precision would couple the tail).
    tol : float or None, default None
        Nats per sample; None resolves to ``tol_ = 1e-3 / n_samples`` (scikit-learn's
        total-bound tolerance, see :class:`VariationalGaussianMixture`).
    max_iter : int, default 1000
    n_init, init, random_state, callback, verbose, learning_offset, learning_decay :
        As in :class:`VariationalGaussianMixture` (init responsibilities have T columns).
        ``init='spectral'`` (Gaussian components only) starts from the spectral partition into
        ``k`` clusters, ``k`` = :func:`latentkit.spectral.n_components_from_spectrum` (the
        covariance eigenvalues above the noise level; at most T); the other ``T - k``
        components start empty (their factors equal the prior), so the fit starts near the
        number of components the moments suggest; splits into the empty ones are tried
        (``spectral_report_``). The check against this model's own ``init='kmeans++'`` start
        compares the ELBO after one iteration from each.
    missing : {'error', 'marginalize'}, default 'error'
        Gaussian components, as in :class:`VariationalGaussianMixture` (NaN entries latent,
        marginalised exactly in the E-step).
    truncation : int, optional
        Deprecated old name of ``n_components`` (a ``DeprecationWarning`` at fit); removed in
        the next release.

    Attributes
    ----------
    weights_ : ndarray of shape (n_components,)
        Expected stick weights (not renormalised).
    weight_concentration_ : ndarray of shape (2, n_components)
        Beta parameters (gamma_k1, gamma_k2) of q(v_k); for 'fixed' the last column is (1, 0)
        (the point mass v_T = 1).
    n_effective_components_ : int
        Components with expected weight above ``EFFECTIVE_WEIGHT_THRESHOLD`` = 0.01.
    spectral_n_components_ : int
        Only after a fit with ``init='spectral'``: the number of clusters of the start.
    spectral_report_ : dict
        Only after a fit with ``init='spectral'``: as in :class:`VariationalGaussianMixture`.
    means_, covariances_, precisions_, precisions_cholesky_, mean_precision_,
    degrees_of_freedom_ :
        Gaussian components (see :class:`VariationalGaussianMixture`).
    category_concentration_ : ndarray of shape (n_components, n_features)
        Dirichlet parameters of q(phi_k) (categorical components).
    gamma_shape_, gamma_rate_ : ndarray of shape (n_components, n_features)
        Shape and rate of the Gamma factors q(lambda_kd) (Poisson components).
    probability_concentration_ : ndarray of shape (2, n_components, n_features)
        (a, b) of the Beta factors q(p_kd) (Bernoulli components).
    components_ : ndarray of shape (n_components, n_features)
        The expected component parameters: E[phi_k] (categorical), E[lambda_k] (Poisson, counts
        per row), E[p_k] (Bernoulli).
    category_prior_, rate_prior_, probability_prior_ :
        The resolved prior of the non-Gaussian components.
    lower_bounds_ : ndarray
        Complete ELBO per iteration, nats per sample (never decreasing).

    Notes
    -----
    Sources: Blei & Jordan (2006), eqs. (18)-(23); Kurihara, Welling & Vlassis (2007), section
    3; Bishop (2006), section 10.2 for the Gaussian factors and section 2.4 for the conjugate
    Dirichlet, Gamma and Beta factors. ``_m_step`` is a natural-gradient step on (gamma, the
    component's natural parameters), so ``partial_fit`` is SVI (Hoffman et al. 2013).

    Raises
    ------
    ValueError, TypeError
        From ``fit``: invalid hyper-parameters, priors (named), init or data; Gaussian
        components refuse X whose squared deviations overflow float64 (about
        ``|x - mean| > 1e150``; the message says how to rescale), as the other mixtures do.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit import DirichletProcessMixture
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(0, 1, (50, 2)), rng.normal(6, 1, (50, 2))])
    >>> dp = DirichletProcessMixture(5, random_state=0).fit(X)
    >>> int((dp.weights_ > 0.1).sum())  # two components carry the data
    2
    """

    def __init__(self, n_components=30, *, concentration=1.0, truncation_method="fixed",
                 component_type="gaussian", category_prior=0.5, rate_prior=(1.0, 1.0),
                 probability_prior=(1.0, 1.0), covariance_type="full",
                 tol=None, reg_covar=1e-6, max_iter=1000, n_init=1, init="kmeans++",
                 mean_precision_prior=None, mean_prior=None, degrees_of_freedom_prior=None,
                 covariance_prior=None, random_state=None, callback=None, verbose=False,
                 learning_offset=10.0, learning_decay=0.7, missing="error", truncation=None):
        self.n_components = n_components
        self.concentration = concentration
        self.truncation_method = truncation_method
        self.component_type = component_type
        self.category_prior = category_prior
        self.rate_prior = rate_prior
        self.probability_prior = probability_prior
        self.covariance_type = covariance_type
        self.tol = tol
        self.reg_covar = reg_covar
        self.max_iter = max_iter
        self.n_init = n_init
        self.init = init
        self.mean_precision_prior = mean_precision_prior
        self.mean_prior = mean_prior
        self.degrees_of_freedom_prior = degrees_of_freedom_prior
        self.covariance_prior = covariance_prior
        self.random_state = random_state
        self.callback = callback
        self.verbose = verbose
        self.learning_offset = learning_offset
        self.learning_decay = learning_decay
        self.missing = missing
        self.truncation = truncation

    def _n_components(self):
        """T: ``n_components``, or the deprecated ``truncation`` when given."""
        return int(self.n_components if self.truncation is None else self.truncation)

    def _component(self):
        """The component object of ``component_type`` (:mod:`latentkit.mixture._components`),
        built from the hyper-parameters it takes."""
        cls = COMPONENT_TYPES[self.component_type]
        return cls(**{name: getattr(self, name) for name in cls.hyper_names})

    def _has_tail(self):
        return self.truncation_method == "tail"

    # ---- validation -------------------------------------------------------------------------
    def _validate_params(self):
        if self.truncation is not None:
            check_scalar(self.truncation, "truncation", numbers.Integral, low=1)
            renamed_parameter("DirichletProcessMixture", "truncation", "n_components",
                              self.truncation, self.n_components, 30)
        self._validate_common()
        if not isinstance(self.component_type, str) or \
                self.component_type not in COMPONENT_TYPES:
            raise ValueError(f"component_type must be one of {list(COMPONENT_TYPES)}, got "
                             f"{self.component_type!r}.")
        comp_cls = COMPONENT_TYPES[self.component_type]
        if self.init == "spectral" and not comp_cls.spectral_start:
            raise ValueError("init='spectral' needs component_type='gaussian' (the moments are "
                             "those of a Gaussian mixture), got component_type="
                             f"{self.component_type!r}; use init='kmeans++'.")
        if self.truncation_method not in TRUNCATION_METHODS:
            raise ValueError(f"truncation_method must be one of {list(TRUNCATION_METHODS)}, got "
                             f"{self.truncation_method!r}.")
        c = self.concentration
        if isinstance(c, (tuple, list, np.ndarray)):
            if len(c) != 2:
                raise ValueError("concentration must be a float alpha or a pair (a, b) of the "
                                 f"Beta(a, b) sticks, got {c!r}.")
            a = check_scalar(c[0], "concentration[0]", numbers.Real, low=0.0, low_inclusive=False)
            b = check_scalar(c[1], "concentration[1]", numbers.Real, low=0.0, low_inclusive=False)
        else:
            a = 1.0
            b = check_scalar(c, "concentration", numbers.Real, low=0.0, low_inclusive=False)
        self.stick_prior_ = np.array([a, b])
        if not comp_cls.handles_missing and self.missing != "error":
            raise ValueError(f"missing='marginalize' needs component_type='gaussian'; "
                             f"{self.component_type} data has no missing entries, got "
                             f"missing={self.missing!r}.")
        self._component().validate(self._has_tail())

    def _spectral_start_components(self, X, w):
        self.spectral_n_components_ = n_components_from_spectrum(
            X, max_components=self._n_components(), sample_weight=w)
        return self.spectral_n_components_

    # ---- stick factor -----------------------------------------------------------------------
    def _expected_log_weights(self):
        return stick_expected_log_weights(self.weight_concentration_, self.truncation_method,
                                          tuple(self.stick_prior_))

    def _update_weight_factor(self, nk, n_tail, step_size):
        target = stick_posterior(nk, n_tail, tuple(self.stick_prior_), self.truncation_method)
        cur = self.weight_concentration_
        if step_size < 1.0 and cur is not None:
            target = (1.0 - step_size) * cur + step_size * target
        self.weight_concentration_ = target

    def _weight_kl(self):
        return stick_kl(self.weight_concentration_, tuple(self.stick_prior_),
                        self.truncation_method)

    def _expected_weights(self):
        return stick_expected_weights(self.weight_concentration_, self.truncation_method)

    def sample(self, n_samples=1, random_state=None, n_tokens=50):
        """Draw samples from the plug-in mixture (weights renormalised over the T components).

        Parameters
        ----------
        n_samples : int, default 1
        random_state : int, Generator or None
            Default None: the model's own sampling generator, seeded from the ``random_state``
            hyper-parameter at fit and advanced by every call (repeated calls give fresh draws).
        n_tokens : int, default 50
            Tokens per sample (categorical components only).

        Returns
        -------
        X : ndarray of shape (n_samples, n_features)
        labels : ndarray of shape (n_samples,)
        """
        return self._sample(n_samples, random_state, n_tokens=n_tokens)

    def _update_sklearn_tags(self, tags):
        return tags

