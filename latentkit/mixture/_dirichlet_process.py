"""Truncated Dirichlet-process mixture fitted by mean-field variational inference.

Blei & Jordan (2006), *Variational inference for Dirichlet process mixtures*, Bayesian Analysis
1(1), 121-144 (stick-breaking representation, truncation v_T = 1); Kurihara, Welling & Vlassis
(2007), *Accelerated variational Dirichlet process mixtures*, NIPS 19 (posterior beyond T tied to
the prior, the infinite tail summed in closed form).
"""

import importlib
import numbers
import sys

import numpy as np

from .._utils.deprecation import renamed_parameter
from .._utils.validation import check_scalar
from ..spectral import n_components_from_spectrum
from ..distributions._stick_breaking import (TRUNCATION_METHODS, stick_expected_log_weights,
                                             stick_expected_weights, stick_kl, stick_posterior)
from .._utils.deprecation import moved_kwargs, moved_parameters
from ._component_params import (DISTRIBUTIONS, LEGACY_DEFAULTS, PUBLIC, build_component,
                                fold_legacy, shorthand_of, upgrade_params)
from ._components import ConjugateComponent
from ._conjugate import _ConjugateMixture
from ._state_checks import FittedState, check_conjugate_components, check_stick_weights
from ..exceptions import InputError

__all__ = ["DirichletProcessMixture"]


def _component_class(spec):
    """The component class a model file names: from latentkit or from a module the user has
    imported (as :func:`latentkit.load` resolves model classes; nothing is imported from a
    file outside latentkit)."""
    module = spec.get("module", "")
    mod = sys.modules.get(module)
    if mod is None and module.startswith("latentkit."):
        mod = importlib.import_module(module)
    cls = mod
    for part in spec["class"].split("."):
        cls = getattr(cls, part, None)
    if not (isinstance(cls, type) and (issubclass(cls, ConjugateComponent)
                                       or cls in DISTRIBUTIONS)):
        raise InputError(f"unknown mixture component {module}.{spec['class']} (import its "
                         "module before loading).")
    return cls


class DirichletProcessMixture(_ConjugateMixture):
    """Truncated Dirichlet-process mixture (stick-breaking) fitted by mean-field VI.

    The model: v_k ~ Beta(a, b) (a = 1, b = ``concentration`` for a DP), pi_k = v_k
    prod_{j<k}(1 - v_j), theta_k ~ G_0, z_i ~ Cat(pi), x_i ~ F(theta_{z_i}). G_0 is the
    Normal-Wishart prior of :class:`VariationalGaussianMixture` (Gaussian components), a
    Dirichlet (categorical), Gamma (Poisson) or Beta (Bernoulli) prior (``component``).
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
    component : {'gaussian', 'categorical', 'poisson', 'bernoulli'} or component object, \
default 'gaussian'
        The component family F and its conjugate prior G_0, an object that holds the prior's
        hyper-parameters (as :class:`~latentkit.sequence.HiddenMarkovModel` takes
        ``emission=``); a string builds one with default priors. ``get_params()`` lists its
        hyper-parameters as ``component__<name>`` and ``set_params(component__rate_prior=...)``
        sets them.

        * 'gaussian' / :class:`~latentkit.distributions.Gaussian` (``covariance_type``,
          ``reg_covar``, ``mean_precision_prior``, ``mean_prior``,
          ``degrees_of_freedom_prior``, ``covariance_prior``, ``missing``): Normal-Wishart
          (Normal-Gamma for 'diag'/'spherical') components, as in
          :class:`VariationalGaussianMixture` (including the reg_covar jitter offset of the
          E-step, which the tail components get too). The 'tail' truncation supports 'full',
          'diag' and 'spherical' (a tied precision would couple the tail);
        * 'categorical' / :class:`~latentkit.mixture.CategoricalComponent`
          (``category_prior``): each row of X is a vector of non-negative counts of tokens
          drawn independently from the component's categorical distribution phi_k ~
          Dir(category_prior) (no multinomial coefficient: the tokens are an ordered
          sequence);
        * 'poisson' / :class:`~latentkit.distributions.Poisson` (``rate_prior``): each
          entry of X is a non-negative integer count, x_id ~ Poisson(lambda_kd), lambda_kd ~
          Gamma(rate_prior);
        * 'bernoulli' / :class:`~latentkit.distributions.Bernoulli`
          (``probability_prior``): each entry of X is 0 or 1, x_id ~ Bernoulli(p_kd), p_kd ~
          Beta(probability_prior).

        A new component type is one class (:mod:`latentkit.mixture._components`).
    concentration : float or (float, float), default 1.0
        alpha of the Beta(1, alpha) sticks, or (a, b) for Beta(a, b) sticks (> 0).
    truncation_method : {'fixed', 'tail'}, default 'fixed'
    tol : float or None, default None
        Nats per sample; None resolves to ``tol_ = 1e-3 / n_samples`` (scikit-learn's
        total-bound tolerance, see :class:`VariationalGaussianMixture`).
    max_iter : int, default 1000
    n_init, init, random_state, callback, verbose, learning_offset, learning_decay :
        As in :class:`VariationalGaussianMixture` (init responsibilities have T columns).
        (``missing='marginalize'`` is a hyper-parameter of the Gaussian component.)
        ``init='spectral'`` (Gaussian components only) starts from the spectral partition into
        ``k`` clusters, ``k`` = :func:`latentkit.spectral.n_components_from_spectrum` (the
        covariance eigenvalues above the noise level; at most T); the other ``T - k``
        components start empty (their factors equal the prior), so the fit starts near the
        number of components the moments suggest; splits into the empty ones are tried
        (``spectral_report_``). The check against this model's own ``init='kmeans++'`` start
        compares the ELBO after one iteration from each.
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
    The flattened component keywords of latentkit < 0.2 (``component_type``,
    ``category_prior``, ``rate_prior``, ``probability_prior``, ``covariance_type``,
    ``reg_covar``, ``mean_precision_prior``, ``mean_prior``, ``degrees_of_freedom_prior``,
    ``covariance_prior``, ``missing``) are still accepted by the constructor and
    ``set_params``, folded into ``component`` with a ``DeprecationWarning``; they are removed
    in 0.3.

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

    # latentkit < 0.2's flattened component keywords, for one release (module docstring of
    # _component_params)
    @moved_kwargs("component", LEGACY_DEFAULTS, fold_legacy)
    def __init__(self, n_components=30, *, component="gaussian", concentration=1.0,
                 truncation_method="fixed", tol=None, max_iter=1000, n_init=1, init="kmeans++",
                 random_state=None, callback=None, verbose=False, learning_offset=10.0,
                 learning_decay=0.7, truncation=None):
        self.n_components = n_components
        self.component = component
        self.concentration = concentration
        self.truncation_method = truncation_method
        self.tol = tol
        self.max_iter = max_iter
        self.n_init = n_init
        self.init = init
        self.random_state = random_state
        self.callback = callback
        self.verbose = verbose
        self.learning_offset = learning_offset
        self.learning_decay = learning_decay
        self.truncation = truncation

    @property
    def covariance_type(self):
        """The Gaussian component's ``covariance_type`` (read-only; ``component__covariance_type``
        sets it), read by the code shared with the Gaussian mixtures (plots); None for other
        components."""
        return getattr(self._component(), "covariance_type", None)

    def set_params(self, **params):
        """Set hyper-parameters (``component__<name>`` for the component's); returns self.

        The flattened component keywords of latentkit < 0.2 (``rate_prior=``,
        ``component_type=``...) are still accepted for one release, folded into ``component``
        with a ``DeprecationWarning``.

        Raises
        ------
        ValueError
            An unknown parameter name.
        """
        given = {k: params.pop(k) for k in list(params) if k in LEGACY_DEFAULTS}
        if given:
            comp, legacy = self.component, given
            kind = shorthand_of(comp)
            if kind is not None:  # keep the object's other priors, change the named ones
                legacy = {**comp.get_params(deep=False), "component_type": kind, **given}
                comp = "gaussian"
            self.component = fold_legacy(comp, legacy)
            moved_parameters(type(self).__name__, given,
                             f"component={type(self.component).__name__}(...)")
        comp = params.get("component", self.component)
        if isinstance(comp, str) and any(k.startswith("component__") for k in params):
            # a shorthand has no priors to set: build its object (defaults; the distribution
            # where the adapter is private), then set them
            params["component"] = PUBLIC[comp]() if comp in PUBLIC else build_component(comp)
        return super().set_params(**params)

    @classmethod
    def _upgrade_params(cls, params):
        """Hyper-parameters read from a model file (:func:`latentkit.load`) in today's form:
        the flattened component keywords of files written before 0.2 folded into
        ``component``, silently."""
        return upgrade_params(params)

    def _n_components(self):
        """T: ``n_components``, or the deprecated ``truncation`` when given."""
        return int(self.n_components if self.truncation is None else self.truncation)

    def _component(self):
        """The component object: ``component`` itself, or the one its shorthand names
        (:mod:`latentkit.mixture._components`)."""
        return build_component(self.component)

    def _has_tail(self):
        return self.truncation_method == "tail"

    def _get_state(self):
        """The base state, and a component object given as hyper-parameter as its class name
        and hyper-parameters (``io`` stores no objects; :meth:`_set_state` rebuilds it)."""
        state = super()._get_state()
        if not isinstance(self.component, str):
            state["component"] = {"class": type(self.component).__qualname__,
                                  "module": type(self.component).__module__,
                                  "params": self.component.get_params(deep=False)}
        return state

    def _set_state(self, state):
        state = dict(state)
        spec = state.pop("component", None)
        if spec is not None and self.component is None:  # stored as the class and parameters
            self.component = _component_class(spec)(**spec["params"])
        super()._set_state(state)

    # ---- validation -------------------------------------------------------------------------
    def _validate_params(self):
        if self.truncation is not None:
            check_scalar(self.truncation, "truncation", numbers.Integral, low=1)
            renamed_parameter("DirichletProcessMixture", "truncation", "n_components",
                              self.truncation, self.n_components, 30)
        self._validate_common()
        comp = self._component()
        if self.init == "spectral" and not comp.spectral_start:
            raise InputError("init='spectral' needs component='gaussian' (the moments are those "
                             f"of a Gaussian mixture), got component={self.component!r}; use "
                             "init='kmeans++'.")
        if self.truncation_method not in TRUNCATION_METHODS:
            raise InputError(f"truncation_method must be one of {list(TRUNCATION_METHODS)}, got "
                             f"{self.truncation_method!r}.")
        c = self.concentration
        if isinstance(c, (tuple, list, np.ndarray)):
            if len(c) != 2:
                raise InputError("concentration must be a float alpha or a pair (a, b) of the "
                                 f"Beta(a, b) sticks, got {c!r}.")
            a = check_scalar(c[0], "concentration[0]", numbers.Real, low=0.0, low_inclusive=False)
            b = check_scalar(c[1], "concentration[1]", numbers.Real, low=0.0, low_inclusive=False)
        else:
            a = 1.0
            b = check_scalar(c, "concentration", numbers.Real, low=0.0, low_inclusive=False)
        self.stick_prior_ = np.array([a, b])
        comp.validate(self._has_tail())

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

    def _check_state(self):
        """Validate a restored state (:mod:`latentkit.mixture._state_checks`)."""
        state = FittedState(vars(self), type(self).__name__)
        check_stick_weights(state)
        check_conjugate_components(state, self._component().name, self.covariance_type)
