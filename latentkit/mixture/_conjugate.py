"""The mean-field mixture of conjugate components shared by the variational mixtures.

:class:`_ConjugateMixture` is the model template of
:class:`~latentkit.mixture.VariationalGaussianMixture` (a Dirichlet weight factor) and
:class:`~latentkit.mixture.DirichletProcessMixture` (stick-breaking weights): mean-field
``q(Z) q(weights) prod_k q(theta_k)`` fitted by coordinate ascent on the complete ELBO, in
nats per sample (Bishop 2006, section 10.2; Blei & Jordan 2006). It owns the weight factor
(through the subclass hooks), the start, the loop's E/M template and the public API; every
statement about one component (its expected log-likelihood, statistics, conjugate update,
KL, predictive, sampling, prior, data checks) is the **component**'s
(:mod:`latentkit.mixture._components`, :mod:`latentkit.mixture._gaussian_component`), so
this module has no branch on the component type.
"""

import numbers

import numpy as np
from scipy.special import logsumexp

from .._utils.validation import check_scalar
from ..base import LatentModel
from ..distributions import _missing
from ._gaussian import (_Rows, _check_mixture_params, _check_n_samples, _check_rows,
                        _kmeans_responsibilities, _random_responsibilities, _total_bound_tol)
from ._spectral_start import spectral_responsibilities
from ._split_merge import adopt_parameters, model_lookahead
from ..exceptions import InputError

#: A component counts as effective when its expected weight exceeds this.
EFFECTIVE_WEIGHT_THRESHOLD = 0.01


class _ConjugateMixture(LatentModel):
    """Shared machinery of the variational mixtures: a component object (``_component()``)
    and a weight factor (the subclass hooks below). The fitted component factor is
    ``self._params`` and its prior ``self._prior`` (the component's dicts); the public
    attributes are the component's :meth:`public` plus ``weights_``."""

    _INIT_KEYS = ("responsibilities",)
    _tol_may_be_none = True  # tol=None: 1e-3 / n_samples, resolved from the data (tol_)
    _k_name = "n_components"

    # ---- subclass hooks: the component and the weight factor ---------------------------------
    def _component(self):  # pragma: no cover - abstract
        """The component object built from the hyper-parameters."""
        raise NotImplementedError

    def _expected_log_weights(self):  # pragma: no cover - abstract
        """(E[ln pi_k] (K,), ln tail mass or None)."""
        raise NotImplementedError

    def _update_weight_factor(self, nk, n_tail, step_size):  # pragma: no cover - abstract
        raise NotImplementedError

    def _weight_kl(self):  # pragma: no cover - abstract
        raise NotImplementedError

    def _expected_weights(self):  # pragma: no cover - abstract
        raise NotImplementedError

    def _has_tail(self):
        return False

    def _log_weights(self):
        """(E[ln pi_k] (K,), ln of the tail's mass for the 'tail' truncation, else None)."""
        elog, log_tail = self._expected_log_weights()
        return elog, (log_tail if self._has_tail() else None)

    # ---- validation -------------------------------------------------------------------------
    def _validate_common(self):
        _check_mixture_params(self, self._k_name, covariance=False)  # the component's checks
        init = self.init
        if isinstance(init, dict):
            unknown = set(init) - set(self._INIT_KEYS)
            if unknown or "responsibilities" not in init:
                raise InputError(f"init dict must have exactly the key 'responsibilities' (an "
                                 f"(n_samples, {self._k_name}) matrix), got keys {sorted(init)}.")
        elif not (isinstance(init, str) and init in ("kmeans++", "random", "spectral")):
            raise InputError("init must be 'kmeans++', 'random', 'spectral' or "
                             f"{{'responsibilities': R}}, got {init!r}.")

    def _validate_data(self, X, reset, sample_weight=None):
        comp = self._component()
        data = _check_rows(self, X, reset, sample_weight,
                           check=lambda X, name: comp.check_X(X))
        if reset:
            self._resolve_data_defaults(data)
        return data

    def _data_summary(self, data):
        return self._component().data_summary(data.X, data.w)

    def _set_data_defaults(self, summary):
        """The component's resolved priors (stored as ``name_``) from the summary of all the
        data, and ``tol_``."""
        comp = self._component()
        resolved = comp.resolve_prior(summary, self.n_features_in_, self._n_components())
        for name, value in resolved.items():
            setattr(self, name + "_", value)
        self._prior = comp.prior(resolved, self.n_features_in_)
        self.tol_ = _total_bound_tol(self.tol, comp.summary_weight(summary))

    # ---- initialisation ---------------------------------------------------------------------
    def _initial_responsibilities(self, data, rng, n_lloyd=300):
        """Starting responsibilities, shape (n_samples, K): the validated ``init`` dict,
        random rows, or one-hot k-means++ labels refined by up to ``n_lloyd`` Lloyd
        iterations."""
        X, w = data.X, data.w
        n = X.shape[0]
        K = self._n_components()
        init = self.init
        if isinstance(init, dict):
            R = np.array(init["responsibilities"], dtype=np.float64, copy=True)
            if R.shape != (n, K):
                raise InputError(f"init['responsibilities'] must have shape ({n}, {K}), got "
                                 f"{R.shape}.")
            if not np.all(np.isfinite(R)) or (R < 0).any() or \
                    not np.allclose(R.sum(1), 1.0, atol=1e-8):
                raise InputError("init['responsibilities'] must be non-negative with rows "
                                 "summing to 1.")
            return R
        if init == "random":
            return _random_responsibilities(n, K, rng)
        if init == "spectral":
            return self._spectral_responsibilities(X, w, rng)
        _check_n_samples(w, K, self._k_name, " for init='kmeans++'", "use init='random'")
        # k-means++ seeding, then Lloyd iterations (to convergence, at most 300, for the
        # Gaussian components, like the KMeans start of scikit-learn's mixtures)
        return _kmeans_responsibilities(X, K, rng, w, n_lloyd=n_lloyd)

    def _spectral_start_components(self, X, w):
        """Number of clusters of the spectral start (all of them here; the DP mixture picks
        it from the moments' spectrum)."""
        return self._n_components()

    def _spectral_responsibilities(self, X, w, rng):
        """``init='spectral'``: the responsibilities of
        :func:`latentkit.mixture.spectral_responsibilities` (the robust spectral start, checked
        against the k-means++ start, then this model's split-and-merge search from it)."""
        K, comp = self._n_components(), self._component()
        k = self._spectral_start_components(X, w)
        _check_n_samples(w, k, self._k_name, " for init='spectral'", "use init='random'")
        lookahead = model_lookahead(self, X, w)
        R, self.spectral_report_ = spectral_responsibilities(
            X, k, comp.covariance_type, reg_covar=comp.reg_covar, sample_weight=w,
            random_state=rng, n_columns=K, lookahead=lookahead, return_report=True)
        self._spectral_optimum = getattr(lookahead, "optimum", None)  # taken by _init_params
        return R

    def _init_params(self, data, rng):
        """The first M-step from the starting responsibilities (as scikit-learn): k-means++
        on the component's ``start_rows`` (unused by the random and given starts)."""
        comp = self._component()
        X, w = data.X, data.w
        if isinstance(self.init, str) and self.init in ("kmeans++", "spectral"):
            rows = comp.start_rows(X, w)
        else:
            rows = np.zeros((X.shape[0], 1))  # random rows or init dict: the values are unused
        R = self._initial_responsibilities(_Rows(rows, w), rng, n_lloyd=comp.n_lloyd)
        fitted = vars(self).pop("_spectral_optimum", None)
        if fitted is not None:  # init='spectral' ended at the search's optimum: continue it
            adopt_parameters(self, fitted)
            if np.isnan(X).any():  # the search ran on mean-filled rows: its bounds are not ours
                del self._start_bound
            return
        self._init_weight_factor()
        self._params, stats = comp.start(X, w, R)
        self._m_step(stats)

    def _init_weight_factor(self):
        self.weight_concentration_ = None

    # ---- template ---------------------------------------------------------------------------
    def _empty_stats(self):
        return self._component().empty_stats(self._n_components(), self.n_features_in_,
                                             self._has_tail())

    def _e_step(self, data):
        elog, log_tail = self._log_weights()
        return self._component().e_step(self._params, self._prior, data.X, data.w, elog,
                                        log_tail, cache=getattr(data, "cache", None))

    def _m_step(self, stats, step_size=1.0, scale=1.0):
        K = self._n_components()
        nk = stats.nk[:K] * scale
        n_tail = float(stats.nk[K] * scale) if stats.nk.shape[0] > K else 0.0
        comp = self._component()
        self._params = comp.update(self._params, self._prior, stats, K, scale, step_size)
        self._update_weight_factor(nk, n_tail, step_size)
        for name, value in comp.public(self._params).items():
            setattr(self, name + "_", value)
        self.weights_ = self._expected_weights()
        self.n_effective_components_ = int(np.sum(self.weights_ > EFFECTIVE_WEIGHT_THRESHOLD))

    def _global_elbo_terms(self):
        return -self._weight_kl() - self._component().kl(self._params, self._prior)

    def _get_state(self):
        """Public fitted attributes, the base state and what the component needs beyond its
        public attributes (the Gaussian's moment shift and Normal-Wishart scatter, so the
        factors are rebuilt bit for bit)."""
        state = super()._get_state()
        if getattr(self, "_params", None) is not None:
            state.update(self._component().get_state(self._params))
        return state

    def _set_state(self, state):
        state = dict(state)
        comp = self._component()
        extra = {name: state.pop(name) for name in comp.state_names if name in state}
        super()._set_state(state)
        attrs = {k[:-1]: v for k, v in vars(self).items()
                 if k.endswith("_") and not k.startswith("_")}
        params = comp.set_state(attrs, extra)
        if params is None:  # not fitted
            return
        self._params = params
        self._prior = comp.prior({name: attrs[name] for name in comp.prior_names},
                                 self.n_features_in_)

    # ---- public API -------------------------------------------------------------------------
    def fit(self, X, y=None, sample_weight=None):
        """Fit by coordinate ascent on the ELBO until its change is below ``tol``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data in the component's form (float32 and non-contiguous input are
            copied; never modified).
        y : ignored
        sample_weight : array-like of shape (n_samples,), optional
            Non-negative weights (a row of weight w counts as w rows).

        Returns
        -------
        self

        Raises
        ------
        ValueError, TypeError
            Invalid hyper-parameters, priors (wrong shape or sign, singular covariance_prior,
            named) or input (NaN/inf, wrong dimensions, fewer samples than components for
            k-means++, malformed init, a scale whose squared deviations overflow float64 --
            the message names X and the rescaling).
        """
        return super().fit(X, sample_weight=sample_weight)

    def _log_resp(self, X):
        self._check_is_fitted()
        return self._log_resp_at(self._validate_data(X, reset=False).X)

    def _log_resp_at(self, X):
        """log q(z) of validated rows at the current factors (no checks)."""
        elog, log_tail = self._log_weights()
        return self._component().log_resp(self._params, self._prior, X, elog, log_tail)

    def impute(self, X, return_std=False):
        """Fill the missing (NaN) entries of ``X`` with their means under the variational
        posterior of the E-step, ``q(x_m) = sum_k q(z = k) N(x_m | conditional mean and
        covariance under m_k and E[Lambda_k])`` (the factor the fit uses for missing entries).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            NaN marks a missing entry (accepted whatever ``missing`` is).
        return_std : bool, default False
            Also return the standard deviations of ``q(x_m)``.

        Returns
        -------
        X_imputed : ndarray of shape (n_samples, n_features)
            A new array: observed entries unchanged (units of X).
        std : ndarray of shape (n_samples, n_features)
            Only with ``return_std``: 0 at observed entries.

        Raises
        ------
        NotFittedError, ValueError
            Unfitted model, infinite entries, a wrong number of features.
        TypeError
            Components other than Gaussian.

        Notes
        -----
        Source: Ghahramani & Beal (2000), *Variational inference for Bayesian mixtures of
        factor analysers* (missing entries as latent variables of the mean field);
        Ghahramani & Jordan (1994) section 3.
        """
        X = _missing.check_impute_input(self, X)
        elog, log_tail = self._log_weights()
        return self._component().impute(self._params, self._prior, X, elog, log_tail,
                                        return_std=return_std)

    def predict_proba(self, X):
        """Posterior responsibilities q(z_i = k) of the mean-field E-step (Bishop 10.49).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_components)
            Rows sum to 1 (for the 'tail' truncation: over the T represented components).
        """
        lr = self._log_resp(X)[:, :self._n_components()]
        lr -= logsumexp(lr, axis=1, keepdims=True)
        return np.exp(lr)

    def predict(self, X):
        """Most probable component of each sample, shape (n_samples,), int."""
        return np.argmax(self.predict_proba(X), axis=1)

    def fit_predict(self, X, y=None, sample_weight=None):
        """``fit(X).predict(X)``."""
        return self.fit(X, sample_weight=sample_weight).predict(X)

    def score_samples(self, X):
        """Log of the exact posterior predictive density under q of each sample.

        p(x | data) = sum_k E_q[pi_k] p(x | q(theta_k)): for Gaussian components a mixture of
        Student-t distributions (Bishop 2006, eqs. 10.80-10.82; diag: products of univariate
        t's; spherical: a D nu_k-dof t), not the plug-in Gaussian mixture; for the others the
        component's conjugate predictive (Dirichlet-multinomial, negative binomial,
        Beta-Bernoulli). For the 'tail' truncation of the Dirichlet-process mixture the
        tail's mass is given to the prior predictive.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
            Nats.
        """
        self._check_is_fitted()
        X = self._validate_data(X, reset=False).X
        comp = self._component()
        ew = self._expected_weights()
        with np.errstate(divide="ignore"):
            terms = comp.log_predictive(self._params, X) + np.log(ew)
        if self._has_tail():
            rest = max(1.0 - float(ew.sum()), 0.0)
            if rest > 0:
                terms = np.hstack((terms, comp.log_predictive(self._prior, X)
                                   + np.log(rest)))
        return logsumexp(terms, axis=1)

    def score(self, X, y=None):
        """Mean of :meth:`score_samples`, nats per sample."""
        return float(np.mean(self.score_samples(X)))

    def _sample(self, n_samples, random_state, **kwargs):
        self._check_is_fitted()
        n_samples = check_scalar(n_samples, "n_samples", numbers.Integral, low=1)
        rng = self._sampling_rng(random_state)
        w = self.weights_ / self.weights_.sum()
        return self._component().sample(self._params, w, n_samples, rng, **kwargs)

    def sample(self, n_samples=1, random_state=None):
        """Draw samples from the plug-in mixture (``weights_``, ``means_``, ``covariances_``), as
        scikit-learn's BayesianGaussianMixture does.

        Parameters
        ----------
        n_samples : int, default 1
        random_state : int, Generator or None
            Default None: the model's own sampling generator, seeded from the ``random_state``
            hyper-parameter at fit and advanced by every call (repeated calls give fresh draws).

        Returns
        -------
        X : ndarray of shape (n_samples, n_features)
        labels : ndarray of shape (n_samples,)
        """
        return self._sample(n_samples, random_state)
