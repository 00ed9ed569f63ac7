"""Conjugate components of the variational mixtures, composed like HMM emissions.

:class:`~latentkit.mixture.VariationalGaussianMixture` and
:class:`~latentkit.mixture.DirichletProcessMixture` explain each row by one component
``x ~ F(theta_k)`` with a conjugate prior ``theta_k ~ G_0`` and a mean-field factor
``q(theta_k)`` in the prior's family. The weight factor (Dirichlet or stick-breaking), the
responsibilities' normalisation, the natural-gradient step size and the bound are the
model's (:mod:`latentkit.mixture._conjugate`); the **component** says how one component
scores, summarises and updates. Like :mod:`latentkit.sequence._emissions`, a component holds
only hyper-parameters, and every method receives the current factor ``params`` and the prior
``prior`` as dicts built by the component itself (categorical: ``{'category_concentration':
(K, V)}``; Gaussian: ``{'nw': NormalWishart, 'shift': (D,)}``). The prior's dict has the
shape of one component's and serves the 'tail' components of a truncated Dirichlet process
(their factors equal the prior). A new component type (Poisson-Gamma, Bernoulli-Beta...) is
one class, passed to the model as ``component=`` (no registration); its arithmetic is the
distribution block's, so the adapter methods are one-line calls. Users may pass the
distribution itself (``component=latentkit.distributions.Poisson(rate_prior=...)``, the class
an HMM takes as ``emission=`` too): the model builds its component from it
(:data:`latentkit.mixture._component_params.DISTRIBUTIONS`). :class:`ConjugateComponent`
gives the defaults marked (d); the ten members a component defines are ``param_names``,
``prior_names``, ``check_X``, ``resolve_prior``, ``prior``, ``expected_log_lik``,
``posterior``, ``kl``, ``public``, ``log_predictive`` with ``sample_rows`` (docs/design.md,
"The component protocol"):

``__init__`` parameters                its hyper-parameters (``get_params``/``set_params``:
                                        the model shows them as ``component__<name>``)
``name``, ``prior_names``              short name ('poisson'); the resolved priors the model
                                        stores as ``name_``
``dist``                               the distribution block the methods compute with
                                        (:mod:`latentkit.distributions._family`), shared
                                        with the HMM emission of the same distribution
``n_lloyd``, ``spectral_start``,        (d) Lloyd iterations of the k-means++ start; whether
``handles_missing``, ``state_names``    init='spectral' and missing='marginalize' apply; the
                                        keys of ``get_state``
``validate(has_tail)``                  (d) check hyper-parameters (named errors)
``check_X(X)``                          validated rows (named errors)
``data_summary(X, w)``                  mergeable summary of the rows (:mod:`latentkit._utils.summaries`)
``summary_weight(summary)``             (d) total sample weight of the summary
``resolve_prior(summary, D, K)``        resolved prior hyper-parameters (dict, ``prior_names``)
``prior(resolved, D)``                  the prior's parameter dict
``start_rows(X, w)``                    dense rows on which k-means++ picks the start
``start(X, w, resp)``                   (d) (params or None, statistics of the start ``resp``)
``empty_stats(K, D, has_tail)``         (d) zero statistics
``expected_log_lik(params, X)``         (n, K) ``E_q[log p(x_i | theta_k)]``
``accumulate(X, resp)``                 (d) statistics (K, ...) of weighted responsibilities
``e_step(params, prior, X, w, log_weights, log_tail)``  (d) statistics (:class:`Stats`)
``log_resp(params, prior, X, log_weights, log_tail)``   (d) (n, K [+1]) log q(z)
``posterior(prior, stats, K, scale)``   q's parameters given the statistics (closed form)
``update(params, prior, stats, K, scale, step_size)``   (d) natural-gradient step to it
``public(params)``                      public attributes (``components_``, ``means_``...)
``kl(params, prior)``                   ``sum_k KL(q(theta_k) || G_0)``, nats
``get_state(params)``, ``set_state(attrs, state)``  (d) what ``io`` stores beyond ``public``
``log_predictive(params, X)``           (n, K) log posterior predictive of each row
``sample(params, weights, n, rng)``     (d) rows and labels of the plug-in mixture
``sample_rows(params, labels, rng)``    rows drawn for the given component labels

The default :meth:`ConjugateComponent.update` blends each parameter linearly, which is the
natural-gradient step when the parameters are affine in the natural parameters (Dirichlet,
Gamma shape and rate, Beta); the Gaussian component blends its natural parameters instead.

Sources: Blei & Jordan (2006), *Variational inference for Dirichlet process mixtures*,
Bayesian Analysis 1(1), section 4 (exponential-family components of a DP mixture); Bishop
(2006), *Pattern Recognition and Machine Learning*, section 10.2 (the finite mixture) and
section 2.4 (conjugate priors); Hoffman et al. (2013), *Stochastic variational inference*,
JMLR 14 (the natural-gradient step).
"""

import numpy as np
import scipy.sparse as sp
from scipy.special import logsumexp

from .._utils.summaries import CountSummary
from .._utils.validation import check_array, check_counts, check_dense_width
from ..base import ParamsMixin, Stats, stats_dataclass
from ..distributions._counts import Bernoulli, Categorical, Poisson
from ..distributions._family import linear_stats
from ..exceptions import InputError, InputTypeError

__all__ = ["BernoulliComponent", "CategoricalComponent", "ConjugateComponent",
           "ConjugateMixtureStats", "PoissonComponent"]


@stats_dataclass
class ConjugateMixtureStats(Stats):
    """Sufficient statistics of a mixture of count-like conjugate components.

    Attributes
    ----------
    n : float
        Total sample weight.
    data_term : float
        sum_i w_i log sum_k rho_ik, nats.
    nk : ndarray of shape (K,) or (K + 1,)
        sum_i w_i r_ik (last entry: the tail, for truncation_method='tail').
    counts : ndarray of shape (K, n_features)
        The component's ``accumulate`` of the weighted responsibilities, sum_i w_i r_ik x_i.
    """

    n: float
    data_term: float
    nk: np.ndarray
    counts: np.ndarray


def _refuse_entries(X, bad, expected):
    """ValueError naming X, what it must be and the first stored entry flagged in ``bad``."""
    if bad.any():
        i = int(np.argmax(bad))
        row = int(np.searchsorted(X.indptr, i, side="right") - 1)
        raise InputError(f"X must {expected}, found {float(X.data[i]):g} at (row {row}, "
                         f"column {X.indices[i]}).")


def _positive_pair(value, name, what, symmetric):
    """A pair (a, b) of positive floats, or one float c as (c, c) when ``symmetric``."""
    arr = np.array(value, dtype=np.float64, copy=True) if not isinstance(value, str) else None
    if arr is not None and arr.ndim == 0 and symmetric:
        arr = np.array([arr, arr])
    if arr is None or arr.shape != (2,) or not np.all(np.isfinite(arr)) or (arr <= 0).any():
        raise InputError(f"{name} must be a pair ({what}) of positive floats"
                         + (" or one positive float" if symmetric else "")
                         + f", got {value!r}.")
    return arr


class ConjugateComponent(ParamsMixin):
    """Defaults of the component protocol (module docstring) for count-like components whose
    statistics are ``sum_i w_i r_ik x_i`` (:class:`ConjugateMixtureStats`).

    A component holds hyper-parameters only (its ``__init__`` arguments, stored unchanged:
    ``get_params``, ``set_params`` and ``clone`` work as for a model) and is never modified
    by a fit. Subclasses set ``name``, ``param_names``, ``prior_names`` and implement
    ``check_X``, ``resolve_prior``, ``prior``, ``expected_log_lik``, ``posterior``,
    ``public``, ``kl``, ``log_predictive`` and ``sample_rows``.

    Examples
    --------
    >>> from latentkit.mixture import CategoricalComponent, ConjugateComponent
    >>> c = CategoricalComponent(category_prior=0.3)
    >>> isinstance(c, ConjugateComponent), c.get_params()
    (True, {'category_prior': 0.3})
    """

    name = "conjugate"
    param_names = ()
    prior_names = ()
    state_names = ()  # get_state's keys
    n_lloyd = 10  # Lloyd iterations after the k-means++ seeding of the start
    spectral_start = False  # whether init='spectral' (Gaussian moments) applies
    handles_missing = False  # whether missing='marginalize' (NaN entries) applies

    def validate(self, has_tail):
        """Check the hyper-parameters that need no data (named errors)."""

    # --- the protocol's methods without a default: each component defines them ---------------

    def check_X(self, X):
        """Validate the rows for this component.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)

        Returns
        -------
        X : ndarray or CSR matrix
            The validated rows (a copy where conversion was needed; the input is never
            modified).

        Raises
        ------
        InputError
            Rows of the wrong kind for the component (negative counts, non-binary values,
            non-finite entries), naming ``X``.
        """
        raise NotImplementedError(f"{type(self).__name__} does not define check_X(X).")

    def resolve_prior(self, summary, n_features, n_components):
        """The prior's hyper-parameters resolved against the data.

        Parameters
        ----------
        summary : mergeable summary
            :meth:`data_summary` of all the training rows.
        n_features, n_components : int

        Returns
        -------
        dict
            ``{name: value}`` over ``prior_names`` (the model stores them as ``name_``).
        """
        raise NotImplementedError(f"{type(self).__name__} does not define resolve_prior.")

    def prior(self, resolved, n_features):
        """The prior as a parameter dict of one component's shape.

        Parameters
        ----------
        resolved : dict
            :meth:`resolve_prior`'s values.
        n_features : int

        Returns
        -------
        dict
            The prior's parameters, in the form :meth:`posterior` returns for q.
        """
        raise NotImplementedError(f"{type(self).__name__} does not define prior.")

    def expected_log_lik(self, params, X):
        """``E_q[log p(x_i | theta_k)]`` of every row under every component's factor.

        Parameters
        ----------
        params : dict
            The factors q(theta_k) (or the prior's dict, for the tail of a truncated DP).
        X : validated rows (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_components)
            Nats.
        """
        raise NotImplementedError(f"{type(self).__name__} does not define expected_log_lik.")

    def posterior(self, prior, stats, n_components, scale=1.0):
        """The factors q(theta_k) in closed form given the statistics (conjugate update).

        Parameters
        ----------
        prior : dict
            :meth:`prior`'s dict.
        stats : ConjugateMixtureStats
            Expected sufficient statistics, summed over rows.
        n_components : int
        scale : float, default 1.0
            Multiplier of the statistics (SVI: total / batch size).

        Returns
        -------
        dict
            q's parameters.
        """
        raise NotImplementedError(f"{type(self).__name__} does not define posterior.")

    def public(self, params):
        """The model's public fitted attributes from q's parameters.

        Parameters
        ----------
        params : dict

        Returns
        -------
        dict
            ``{attribute: array}`` (``components_``, ``means_``, ``rates_``...).
        """
        raise NotImplementedError(f"{type(self).__name__} does not define public.")

    def kl(self, params, prior):
        """``sum_k KL(q(theta_k) || G_0)``, the components' part of the bound.

        Parameters
        ----------
        params, prior : dict

        Returns
        -------
        float
            Nats (summed over components, not averaged).
        """
        raise NotImplementedError(f"{type(self).__name__} does not define kl.")

    # --- defaults ---------------------------------------------------------------------------

    def data_summary(self, X, w):
        """Mergeable summary of weighted rows (:mod:`latentkit._utils.summaries`).

        Parameters
        ----------
        X : validated rows (n_samples, n_features)
        w : ndarray of shape (n_samples,)
            Sample weights.

        Returns
        -------
        summary
            Supports ``+`` (chunks and Dask blocks merge); default: counts' column sums and the
            total weight.
        """
        return CountSummary.of(X, w)

    def summary_weight(self, summary):
        """Total sample weight of a :meth:`data_summary` (float)."""
        return summary.weight

    def start_rows(self, X, w):
        """Dense rows for k-means++ (the counts themselves)."""
        return X.toarray()

    def start(self, X, w, resp):
        """No parameters yet, and the statistics of the starting responsibilities."""
        rw = resp * w[:, None]
        return None, ConjugateMixtureStats(float(w.sum()), 0.0, rw.sum(0),
                                           self.accumulate(X, rw))

    def empty_stats(self, n_components, n_features, has_tail):
        """Zero statistics (the additive identity) for ``n_components`` components (plus the
        tail's weight when ``has_tail``) of ``n_features`` columns."""
        zero = self.accumulate(np.zeros((0, n_features)), np.zeros((0, n_components)))
        return ConjugateMixtureStats(0.0, 0.0, np.zeros(n_components + int(has_tail)),
                                     np.zeros_like(zero))

    def accumulate(self, X, resp):
        """``sum_i resp_ik x_i``, shape (K, n_features)."""
        return linear_stats(X, resp)

    def _log_rho(self, params, prior, X, log_weights, log_tail):
        lr = self.expected_log_lik(params, X) + log_weights
        if log_tail is not None:
            tail = self.expected_log_lik(prior, X)
            lr = np.hstack((lr, (tail + log_tail).reshape(-1, 1)))
        return lr

    def e_step(self, params, prior, X, w, log_weights, log_tail, cache=None):
        """Responsibilities ``r_ik ~ exp(log_weights_k + E_q[log p(x_i | theta_k)])`` (and the
        tail's, at the prior) and their statistics (Blei & Jordan 2006, eq. 22). ``cache`` is
        a dict kept with the fit's data (for arrays derived from ``X`` once per fit; unused
        here)."""
        lr = self._log_rho(params, prior, X, log_weights, log_tail)
        lse = logsumexp(lr, axis=1)
        r = np.exp(lr - lse[:, None]) * w[:, None]
        counts = self.accumulate(X, r[:, :log_weights.shape[0]])
        return ConjugateMixtureStats(float(w.sum()), float(w @ lse), r.sum(0), counts)

    def log_resp(self, params, prior, X, log_weights, log_tail):
        """Log responsibilities ``log q(z_i = k)``.

        Parameters
        ----------
        params, prior : dict
        X : validated rows (n_samples, n_features)
        log_weights : ndarray of shape (n_components,)
            ``E_q[log pi_k]``.
        log_tail : float or None
            The truncated DP's tail weight, or None.

        Returns
        -------
        ndarray of shape (n_samples, n_components [+ 1])
            Rows that log-sum-exp to 0 (nats).
        """
        lr = self._log_rho(params, prior, X, log_weights, log_tail)
        return lr - logsumexp(lr, axis=1, keepdims=True)

    def update(self, params, prior, stats, n_components, scale=1.0, step_size=1.0):
        """:meth:`posterior`, or a step of ``step_size`` from ``params`` towards it."""
        target = self.posterior(prior, stats, n_components, scale)
        if step_size < 1.0 and params is not None:
            target = {name: (1.0 - step_size) * params[name] + step_size * value
                      for name, value in target.items()}
        return target

    def get_state(self, params):
        """What :mod:`latentkit.io` stores beyond :meth:`public` (dict; default none)."""
        return {}

    def set_state(self, attrs, state):
        """The parameter dict from the public attributes (``name`` -> value), or None when
        they are missing (an unfitted model)."""
        if not set(self.param_names) <= set(attrs):
            return None
        return {name: attrs[name] for name in self.param_names}

    def impute(self, params, prior, X, log_weights, log_tail, return_std=False):
        """Missing entries' posterior means (and standard deviations): Gaussian components
        only (the Gaussian component's ``impute``).

        Raises
        ------
        InputTypeError
            Always, for a component that is not Gaussian.
        """
        raise InputTypeError(f"impute needs Gaussian components (missing entries of real-valued "
                        f"data), not {type(self).__name__}.")

    def sample(self, params, weights, n_samples, rng, **kwargs):
        """Labels drawn from ``weights``, then one row per label (:meth:`sample_rows`)."""
        labels = rng.choice(weights.shape[0], size=n_samples, p=weights)
        X = self.sample_rows(params, labels, rng, **kwargs)
        return X.astype(np.float64), labels


class CategoricalComponent(ConjugateComponent):
    """Categorical (bag-of-tokens) component with a Dirichlet prior.

    Each row is a vector of non-negative token counts drawn independently from the component's
    categorical distribution ``phi_k ~ Dir(category_prior)`` (no multinomial coefficient: the
    tokens are an ordered sequence). ``q(phi_k) = Dir(category_concentration_k)``.

    Parameters
    ----------
    category_prior : float or array-like of shape (n_features,)
        Dirichlet concentration of the prior (> 0).

    Notes
    -----
    ``E_q[log phi_kv] = psi(lambda_kv) - psi(sum_v lambda_kv)``; the posterior predictive of a
    row is the Dirichlet-multinomial of its token sequence (Blei & Jordan 2006, section 4 for
    the exponential-family component of a DP mixture).

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.mixture import CategoricalComponent, DirichletProcessMixture
    >>> X = np.r_[np.tile([0, 1, 3], (20, 1)), np.tile([2, 0, 0], (20, 1))]  # token counts per row
    >>> dpm = DirichletProcessMixture(4, component=CategoricalComponent(), random_state=0).fit(X)
    >>> labels = dpm.predict(X)
    >>> len(set(labels[:20])), len(set(labels[20:])), bool(labels[0] != labels[-1])
    (1, 1, True)
    """

    param_names = ("category_concentration",)
    name = "categorical"
    prior_names = ("category_prior",)
    dist = Categorical()  # the shared block (latentkit.distributions._counts)

    def __init__(self, category_prior=0.5):
        self.category_prior = category_prior

    def check_X(self, X):
        return check_counts(X, "X")

    def resolve_prior(self, summary, n_features, n_components):
        """``{'category_prior': (V,) prior}``; refuses a declared width far beyond the
        categories used before (K, V) arrays exist."""
        V = n_features
        check_dense_width(V, summary.columns.size, n_components,
                          unit="columns (categories)", owner="DirichletProcessMixture",
                          what="category matrix")
        lam = np.array(self.category_prior, dtype=np.float64, copy=True)
        if lam.ndim == 0:
            lam = np.full(V, float(lam))
        if lam.shape != (V,) or not np.all(np.isfinite(lam)) or (lam <= 0).any():
            raise InputError(f"category_prior must be a positive float or a positive array "
                             f"of shape ({V},), got {self.category_prior!r}.")
        return {"category_prior": lam}

    def prior(self, resolved, n_features):
        return {"category_concentration": resolved["category_prior"]}

    def start_rows(self, X, w):
        """Token proportions of each row (k-means++ is run on them)."""
        rows = np.asarray(X.sum(1)).ravel()
        return X.multiply(1.0 / np.maximum(rows, 1e-300)[:, None]).tocsr().toarray()

    def expected_log_lik(self, params, X):
        # (V,) concentrations: the prior (tail components)
        return self.dist.expected_log_likelihood(params["category_concentration"], X)

    def posterior(self, prior, stats, n_components, scale=1.0):
        return {"category_concentration": self.dist.posterior(
            prior["category_concentration"], stats.counts * scale)}

    def public(self, params):
        lam = params["category_concentration"]
        return {"category_concentration": lam, "components": lam / lam.sum(1, keepdims=True)}

    def kl(self, params, prior):
        return self.dist.kl(params["category_concentration"], prior["category_concentration"])

    def log_predictive(self, params, X):
        """``ln E_q[prod_v phi_kv^x_v] = lnG(sum lam) - lnG(sum lam + n) + sum_v [lnG(lam_v +
        x_v) - lnG(lam_v)]``, shape (n, K) (K = 1 for the prior)."""
        return self.dist.log_predictive(params["category_concentration"], X)

    def sample_rows(self, params, labels, rng, n_tokens=50):
        """``n_tokens`` tokens per row from ``E_q[phi_k]`` of each label."""
        return self.dist.sample(self.public(params)["components"], labels, rng,
                                n_tokens=n_tokens)


class PoissonComponent(ConjugateComponent):
    """Poisson component (independent counts per feature) with a Gamma prior on the rates.

    ``x_id | z_i = k ~ Poisson(lambda_kd)``, ``lambda_kd ~ Gamma(a_0, b_0)`` (shape, rate);
    ``q(lambda_kd) = Gamma(gamma_shape_kd, gamma_rate_kd)`` with the conjugate update
    ``gamma_shape_k = a_0 + sum_i r_ik x_i``, ``gamma_rate_k = b_0 + N_k``.

    Parameters
    ----------
    rate_prior : (float, float), default (1.0, 1.0)
        Shape a_0 and rate b_0 of the Gamma prior of every rate (> 0).

    Notes
    -----
    ``E_q[log p(x | lambda_k)] = sum_d [x_d (psi(a_kd) - ln b_kd) - a_kd / b_kd - ln x_d!]``;
    the posterior predictive of a count is negative binomial, ``lnG(a + x) - lnG(a) - ln x!
    + a ln(b / (b + 1)) - x ln(b + 1)``. Sources: Bishop (2006), section 2.4 and exercise 2.41
    (Poisson-Gamma conjugacy); Blei & Jordan (2006), section 4 (exponential-family components
    of a DP mixture).

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.mixture import DirichletProcessMixture
    >>> from latentkit.mixture._components import PoissonComponent  # users pass Poisson()
    >>> rng = np.random.default_rng(0)
    >>> X = np.r_[rng.poisson(1.0, (40, 1)), rng.poisson(20.0, (40, 1))]
    >>> dpm = DirichletProcessMixture(5, component=PoissonComponent(), random_state=0).fit(X)
    >>> np.round(np.sort(dpm.components_[dpm.weights_ > 0.1, 0]), 0)  # rates near 1 and 20
    array([ 1., 20.])
    """

    param_names = ("gamma_shape", "gamma_rate")
    name = "poisson"
    prior_names = ("rate_prior",)
    dist = Poisson()  # the shared block (latentkit.distributions._counts)

    def __init__(self, rate_prior=(1.0, 1.0)):
        self.rate_prior = rate_prior

    def validate(self, has_tail):
        _positive_pair(self.rate_prior, "rate_prior", "shape, rate", symmetric=False)

    def check_X(self, X):
        X = check_counts(X, "X")
        _refuse_entries(X, X.data != np.round(X.data),
                        "contain non-negative integer counts for Poisson components")
        return X

    def resolve_prior(self, summary, n_features, n_components):
        return {"rate_prior": _positive_pair(self.rate_prior, "rate_prior", "shape, rate",
                                             symmetric=False)}

    def prior(self, resolved, n_features):
        a0, b0 = resolved["rate_prior"]
        return {"gamma_shape": np.full(n_features, a0), "gamma_rate": np.full(n_features, b0)}

    def start_rows(self, X, w):
        """The square roots of the counts (Anscombe's variance-stabilising transform: Poisson
        noise of about equal variance at every rate, as k-means++ assumes)."""
        return np.sqrt(X.toarray())

    def expected_log_lik(self, params, X):
        return self.dist.expected_log_likelihood((params["gamma_shape"], params["gamma_rate"]),
                                                 X)

    def posterior(self, prior, stats, n_components, scale=1.0):
        nk = stats.nk[:n_components] * scale
        a, b = self.dist.posterior((prior["gamma_shape"], prior["gamma_rate"]),
                                   (nk, stats.counts * scale))
        return {"gamma_shape": a, "gamma_rate": b}

    def public(self, params):
        a, b = params["gamma_shape"], params["gamma_rate"]
        return {"gamma_shape": a, "gamma_rate": b, "components": a / b}

    def kl(self, params, prior):
        return self.dist.kl((params["gamma_shape"], params["gamma_rate"]),
                            (prior["gamma_shape"], prior["gamma_rate"]))

    def log_predictive(self, params, X):
        """Product over features of the negative-binomial predictive, shape (n, K)."""
        return self.dist.log_predictive((params["gamma_shape"], params["gamma_rate"]), X)

    def sample_rows(self, params, labels, rng, **kwargs):
        """Counts drawn from the expected rates ``E_q[lambda_k]`` of each label."""
        return self.dist.sample(self.public(params)["components"], labels, rng)


class BernoulliComponent(ConjugateComponent):
    """Bernoulli component (independent binary features) with a Beta prior.

    ``x_id | z_i = k ~ Bernoulli(p_kd)``, ``p_kd ~ Beta(a_0, b_0)``; ``q(p_kd) =
    Beta(probability_concentration[0, k, d], probability_concentration[1, k, d])`` with the
    conjugate update ``a_k = a_0 + sum_i r_ik x_i``, ``b_k = b_0 + N_k - sum_i r_ik x_i``.

    Parameters
    ----------
    probability_prior : float or (float, float), default (1.0, 1.0)
        a_0 and b_0 of the Beta prior of every probability (> 0); one float c means (c, c).

    Notes
    -----
    ``E_q[log p(x | p_k)] = sum_d [x_d (psi(a) - psi(a + b)) + (1 - x_d) (psi(b) -
    psi(a + b))]``; the posterior predictive of a row is ``prod_d m_d^x_d (1 - m_d)^(1 - x_d)``
    with ``m = a / (a + b)``. Sources: Bishop (2006), section 2.1.1 (Beta-Bernoulli
    conjugacy); Blei & Jordan (2006), section 4.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.mixture import DirichletProcessMixture
    >>> from latentkit.mixture._components import BernoulliComponent  # users pass Bernoulli()
    >>> X = np.r_[np.tile([1, 1, 0, 0], (20, 1)), np.tile([0, 0, 1, 1], (20, 1))]
    >>> dpm = DirichletProcessMixture(4, component=BernoulliComponent(), random_state=0).fit(X)
    >>> labels = dpm.predict(X)
    >>> len(set(labels[:20])), len(set(labels[20:])), bool(labels[0] != labels[-1])  # the two patterns
    (1, 1, True)
    """

    param_names = ("probability_concentration",)
    name = "bernoulli"
    prior_names = ("probability_prior",)
    dist = Bernoulli()  # the shared block (latentkit.distributions._counts)

    def __init__(self, probability_prior=(1.0, 1.0)):
        self.probability_prior = probability_prior

    def validate(self, has_tail):
        _positive_pair(self.probability_prior, "probability_prior", "a, b", symmetric=True)

    def check_X(self, X):
        X = check_array(X, "X", accept_sparse=True)
        X = sp.csr_matrix(X) if not sp.issparse(X) else X
        _refuse_entries(X, (X.data != 0) & (X.data != 1),
                        "be binary (0 or 1) for Bernoulli components")
        if (X.data == 0).any():
            X = X.copy()  # the caller's matrix keeps its explicit zeros
            X.eliminate_zeros()
        return X

    def resolve_prior(self, summary, n_features, n_components):
        return {"probability_prior": _positive_pair(self.probability_prior,
                                                    "probability_prior", "a, b",
                                                    symmetric=True)}

    def prior(self, resolved, n_features):
        a0, b0 = resolved["probability_prior"]
        return {"probability_concentration": np.stack([np.full(n_features, a0),
                                                       np.full(n_features, b0)])}

    def expected_log_lik(self, params, X):
        return self.dist.expected_log_likelihood(params["probability_concentration"], X)

    def posterior(self, prior, stats, n_components, scale=1.0):
        nk = stats.nk[:n_components] * scale
        return {"probability_concentration": self.dist.posterior(
            prior["probability_concentration"], (nk, stats.counts * scale))}

    def public(self, params):
        c = params["probability_concentration"]
        return {"probability_concentration": c, "components": self.dist.mean(c)}

    def kl(self, params, prior):
        return self.dist.kl(params["probability_concentration"],
                            prior["probability_concentration"])

    def log_predictive(self, params, X):
        """``sum_d [x_d ln m_kd + (1 - x_d) ln(1 - m_kd)]``, m = E_q[p], shape (n, K)."""
        return self.dist.log_predictive(params["probability_concentration"], X)

    def sample_rows(self, params, labels, rng, **kwargs):
        """Binary rows with probabilities ``E_q[p_k]`` of each label."""
        return self.dist.sample(self.public(params)["components"], labels, rng)
