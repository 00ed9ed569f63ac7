"""Truncated Dirichlet-process mixture fitted by mean-field variational inference.

Blei & Jordan (2006), *Variational inference for Dirichlet process mixtures*, Bayesian Analysis
1(1), 121-144 (stick-breaking representation, truncation v_T = 1); Kurihara, Welling & Vlassis
(2007), *Accelerated variational Dirichlet process mixtures*, NIPS 19 (posterior beyond T tied to
the prior, the infinite tail summed in closed form).
"""

import numbers

import numpy as np
from scipy.special import logsumexp

from .._deprecation import renamed_parameter
from .._validation import check_scalar
from ..base import Stats, stats_dataclass
from ..distributions._stick_breaking import (TRUNCATION_METHODS, stick_expected_log_weights,
                                             stick_expected_weights, stick_kl, stick_posterior)
from ._components import COMPONENT_TYPES
from ._gaussian import _check_rows, _Rows
from ._variational import EFFECTIVE_WEIGHT_THRESHOLD, _BayesianGaussianBase

__all__ = ["DirichletProcessMixture"]


@stats_dataclass
class CategoricalMixtureStats(Stats):
    """Sufficient statistics of a mixture of conjugate components
    (:mod:`latentkit.mixture._components`; categorical: bag-of-tokens counts).

    Attributes
    ----------
    n : float
        Total sample weight.
    data_term : float
        sum_i w_i log sum_k rho_ik, nats.
    nk : ndarray of shape (K,) or (K + 1,)
        sum_i w_i r_ik (last entry: the tail, for truncation_method='tail').
    counts : ndarray of shape (K, ...)
        The component's ``accumulate`` of the weighted responsibilities (categorical:
        sum_i w_i r_ik x_i, token counts per component, shape (K, n_categories)).
    """

    n: float
    data_term: float
    nk: np.ndarray
    counts: np.ndarray


class DirichletProcessMixture(_BayesianGaussianBase):
    """Truncated Dirichlet-process mixture (stick-breaking) fitted by mean-field VI.

    The model: v_k ~ Beta(a, b) (a = 1, b = ``concentration`` for a DP), pi_k = v_k
    prod_{j<k}(1 - v_j), theta_k ~ G_0, z_i ~ Cat(pi), x_i ~ F(theta_{z_i}). G_0 is the
    Normal-Wishart prior of :class:`VariationalGaussianMixture` (Gaussian components) or a
    Dirichlet (categorical components, for count data). The mean-field posterior is truncated at
    T components:

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
    component_type : {'gaussian', 'categorical'}, default 'gaussian'
        'categorical': each row of X is a vector of non-negative counts of tokens drawn
        independently from the component's categorical distribution phi_k ~ Dir(category_prior)
        (no multinomial coefficient: the tokens are treated as an ordered sequence).
    category_prior : float or array-like of shape (n_features,), default 0.5
        Dirichlet concentration of the categorical components (> 0).
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
    components_ : ndarray of shape (n_components, n_features)
        E[phi_k] (categorical components).
    lower_bounds_ : ndarray
        Complete ELBO per iteration, nats per sample (never decreasing).

    Notes
    -----
    Sources: Blei & Jordan (2006), eqs. (18)-(23); Kurihara, Welling & Vlassis (2007), section
    3; Bishop (2006), section 10.2 for the Gaussian factors. ``_m_step`` is a natural-gradient
    step on (gamma, the Normal-Wishart or Dirichlet parameters), so ``partial_fit`` is SVI
    (Hoffman et al. 2013).

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

    _k_name = "n_components"

    def __init__(self, n_components=30, *, concentration=1.0, truncation_method="fixed",
                 component_type="gaussian", category_prior=0.5, covariance_type="full",
                 tol=None, reg_covar=1e-6, max_iter=1000, n_init=1, init="kmeans++",
                 mean_precision_prior=None, mean_prior=None, degrees_of_freedom_prior=None,
                 covariance_prior=None, random_state=None, callback=None, verbose=False,
                 learning_offset=10.0, learning_decay=0.7, missing="error", truncation=None):
        self.n_components = n_components
        self.concentration = concentration
        self.truncation_method = truncation_method
        self.component_type = component_type
        self.category_prior = category_prior
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
        """The component object (:mod:`latentkit.mixture._components`), or None for Gaussian
        components (the Normal-Wishart block of the base class)."""
        cls = COMPONENT_TYPES.get(self.component_type)
        return None if cls is None else cls(self.category_prior)

    def _categorical(self):
        return self.component_type != "gaussian"

    def _component_params(self):
        comp = self._component()
        return comp, {name: getattr(self, name + "_") for name in comp.param_names}

    def _prior_params(self, comp):
        return {comp.param_names[0]: getattr(self, comp.prior_name + "_")}

    def _has_tail(self):
        return self.truncation_method == "tail"

    # ---- validation -------------------------------------------------------------------------
    def _validate_params(self):
        if self.truncation is not None:
            check_scalar(self.truncation, "truncation", numbers.Integral, low=1)
            renamed_parameter("DirichletProcessMixture", "truncation", "n_components",
                              self.truncation, self.n_components, 30)
        self._validate_common()
        if self.init == "spectral" and self.component_type != "gaussian":
            raise ValueError("init='spectral' needs component_type='gaussian' (the moments are "
                             "those of a Gaussian mixture), got component_type="
                             f"{self.component_type!r}; use init='kmeans++'.")
        if self.truncation_method not in TRUNCATION_METHODS:
            raise ValueError(f"truncation_method must be one of {list(TRUNCATION_METHODS)}, got "
                             f"{self.truncation_method!r}.")
        if self.component_type != "gaussian" and self.component_type not in COMPONENT_TYPES:
            raise ValueError(f"component_type must be one of "
                             f"{['gaussian', *COMPONENT_TYPES]}, got {self.component_type!r}.")
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
        if self._has_tail() and self.covariance_type == "tied" and not self._categorical():
            raise ValueError("truncation_method='tail' needs a per-component precision, got "
                             "covariance_type='tied': use 'full', 'diag' or 'spherical', or "
                             "truncation_method='fixed'.")
        if self._categorical() and self.missing != "error":
            raise ValueError("missing='marginalize' needs component_type='gaussian'; count "
                             f"data has no missing entries, got missing={self.missing!r}.")

    def _validate_data(self, X, reset, sample_weight=None):
        if not self._categorical():
            return super()._validate_data(X, reset, sample_weight=sample_weight)
        comp = self._component()
        data = _check_rows(self, X, reset, sample_weight, check=lambda X, name: comp.check_X(X))
        if reset:
            self._resolve_data_defaults(data)
        return data

    def _spectral_start_components(self, X, w):
        # local: spectral (and numba) load only for init='spectral'
        from ..spectral import n_components_from_spectrum

        self.spectral_n_components_ = n_components_from_spectrum(
            X, max_components=self._n_components(), sample_weight=w)
        return self.spectral_n_components_

    def _data_summary(self, data):
        if not self._categorical():
            return super()._data_summary(data)
        return self._component().data_summary(data.X, data.w)

    def _set_data_defaults(self, summary):
        if not self._categorical():
            return super()._set_data_defaults(summary)
        comp = self._component()
        prior = comp.resolve_prior(summary, self.n_features_in_, self._n_components())
        setattr(self, comp.prior_name + "_", prior[comp.param_names[0]])
        self._resolve_tol(summary.weight)

    # ---- stick factor -----------------------------------------------------------------------
    def _init_weight_factor(self):
        self.weight_concentration_ = None

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

    # ---- components other than Gaussian (mixture/_components.py) --------------------------
    def _init_params(self, data, rng):
        if not self._categorical():
            return super()._init_params(data, rng)
        comp = self._component()
        X, w = data.X, data.w
        if isinstance(self.init, str) and self.init == "kmeans++":
            P = comp.start_rows(X)  # k-means++ (10 Lloyd iterations) on these rows
        else:
            P = np.zeros((X.shape[0], 1))  # random rows or init dict: the values are unused
        R = self._initial_responsibilities(_Rows(P, w), rng, n_lloyd=10)
        self.weight_concentration_ = None
        for name in comp.param_names:
            setattr(self, name + "_", None)
        rw = R * w[:, None]
        stats = CategoricalMixtureStats(float(w.sum()), 0.0, rw.sum(0), comp.accumulate(X, rw))
        self._m_step(stats)

    def _cat_log_rho(self, X):
        comp, params = self._component_params()
        elog, log_tail = self._expected_log_weights()
        lr = comp.expected_log_lik(params, X) + elog
        if self._has_tail():
            tail = comp.expected_log_lik(self._prior_params(comp), X)
            lr = np.hstack((lr, (tail + log_tail).reshape(-1, 1)))
        return lr

    def _empty_stats(self):
        if not self._categorical():
            return super()._empty_stats()
        K = self._n_components() + (1 if self._has_tail() else 0)
        comp = self._component()
        zero = comp.accumulate(np.zeros((0, self.n_features_in_)),
                               np.zeros((0, self._n_components())))
        return CategoricalMixtureStats(0.0, 0.0, np.zeros(K), np.zeros_like(zero))

    def _e_step(self, data):
        if not self._categorical():
            return super()._e_step(data)
        lr = self._cat_log_rho(data.X)
        lse = logsumexp(lr, axis=1)
        r = np.exp(lr - lse[:, None]) * data.w[:, None]
        counts = self._component().accumulate(data.X, r[:, :self._n_components()])
        return CategoricalMixtureStats(float(data.w.sum()), float(data.w @ lse), r.sum(0), counts)

    def _m_step(self, stats, step_size=1.0, scale=1.0):
        if not self._categorical():
            return super()._m_step(stats, step_size, scale)
        T = self._n_components()
        nk = stats.nk[:T] * scale
        n_tail = float(stats.nk[T] * scale) if stats.nk.shape[0] > T else 0.0
        comp = self._component()
        target = comp.posterior(self._prior_params(comp), stats.counts * scale)
        for name, value in target.items():
            cur = getattr(self, name + "_", None)
            if step_size < 1.0 and cur is not None:
                value = (1.0 - step_size) * cur + step_size * value
            target[name] = value
            setattr(self, name + "_", value)
        self._update_weight_factor(nk, n_tail, step_size)
        for name, value in comp.public(target).items():
            setattr(self, name + "_", value)
        self.weights_ = self._expected_weights()
        self.n_effective_components_ = int(np.sum(self.weights_ > EFFECTIVE_WEIGHT_THRESHOLD))

    def _global_elbo_terms(self):
        if not self._categorical():
            return super()._global_elbo_terms()
        comp, params = self._component_params()
        return -self._weight_kl() - comp.kl(params, self._prior_params(comp))

    def _log_resp(self, X):
        if not self._categorical():
            return super()._log_resp(X)
        self._check_is_fitted()
        X = self._validate_data(X, reset=False).X
        lr = self._cat_log_rho(X)
        return lr - logsumexp(lr, axis=1, keepdims=True)

    def score_samples(self, X):
        """Log posterior predictive density of each sample, nats, shape (n_samples,).

        Gaussian components: a mixture of Student-t's with the expected stick weights (Bishop
        2006, eq. 10.81), the 'tail' mass going to the prior predictive. Categorical components:
        sum_k E[pi_k] E_q[prod_v phi_kv^x_v] (the Dirichlet-multinomial of the token sequence).
        """
        if not self._categorical():
            return super().score_samples(X)
        self._check_is_fitted()
        X = self._validate_data(X, reset=False).X
        comp, params = self._component_params()
        ew = self._expected_weights()
        with np.errstate(divide="ignore"):
            terms = comp.log_predictive(params, X) + np.log(ew)
        rest = max(1.0 - float(ew.sum()), 0.0)
        if self._has_tail() and rest > 0:
            terms = np.hstack((terms, comp.log_predictive(self._prior_params(comp), X)
                               + np.log(rest)))
        return logsumexp(terms, axis=1)

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
        if not self._categorical():
            return super().sample(n_samples, random_state)
        self._check_is_fitted()
        n_samples = check_scalar(n_samples, "n_samples", numbers.Integral, low=1)
        rng = self._sampling_rng(random_state)
        w = self.weights_ / self.weights_.sum()
        labels = rng.choice(self._n_components(), size=n_samples, p=w)
        comp, params = self._component_params()
        X = comp.sample(params, labels, rng, n_tokens)
        return X.astype(np.float64), labels

    def _update_sklearn_tags(self, tags):
        return tags

