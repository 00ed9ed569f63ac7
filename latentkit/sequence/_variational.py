"""Variational Bayesian hidden Markov models (MacKay 1997; Beal 2003, ch. 3).

Mean-field ``q(Z) q(pi) q(A) q(theta)`` over the state path ``Z``, the initial distribution
``pi`` (Dirichlet), the rows of the transition matrix ``A`` (Dirichlet) and the emission
parameters ``theta`` (Dirichlet rows for categorical emissions, Normal-Wishart factors for
Gaussian emissions, the block shared with the variational mixtures in
:mod:`latentkit.distributions._normal_wishart`).

Coordinate ascent (VB-EM):

* **E-step**: the scaled forward-backward of :mod:`latentkit._kernels.hmm`, run on the
  *sub-normalised* parameters ``exp E[log pi]``, ``exp E[log A]`` and
  ``exp E[log p(x | theta_k)]`` (Beal 2003, eqs. 3.68-3.70). Its log normaliser
  ``log Z = log sum_Z prod ...`` is the data term of the bound.
* **M-step**: conjugate updates posterior = prior + expected counts (Beal 2003, eqs.
  3.54-3.57); with ``step_size < 1`` (``partial_fit``) the natural-gradient step of Hoffman,
  Blei, Wang & Paisley (2013) on the natural parameters.
* **Bound**: ``log Z - KL(q(pi)||p(pi)) - sum_i KL(q(A_i)||p(A_i)) - KL(q(theta)||p(theta))``
  (Beal 2003, eq. 3.64), every term kept, in **nats per time step**. hmmlearn's
  ``monitor_.history`` is the total over all time steps and omits the constant
  ``-D/2 log(2 pi)`` of each Gaussian time step: ``history = n_samples * lower_bound +
  n_samples * D/2 log(2 pi)`` for full and tied covariances (see the class notes for 'diag' and
  'spherical').

The variational emission components (their protocol, and the categorical and Gaussian ones)
are in :mod:`latentkit.sequence._variational_emissions`.

After each M-step the point estimates ``startprob_``, ``transmat_``, ``emissionprob_`` /
``means_``, ``covariances_`` are the posterior means (as hmmlearn sets them); ``score``,
``predict_proba``, ``decode`` and ``sample`` use them, ``elbo`` and ``fit`` use the posteriors.
"""

import numpy as np

from ..distributions._dirichlet import dirichlet_expectation, dirichlet_kl
from ._emission_base import _scaled_frame
from ._hmm import HiddenMarkovModel, _attr
from ._spectral_start import _spectral_start
from ._start_check import checked_spectral_start
from ._state_checks import FittedState, check_hmm_state
from ._variational_emissions import (
    VariationalCategoricalEmission,
    VariationalGaussianEmission,
    _blend,
    _check_positive,
)
from ..exceptions import InputError

__all__ = [
    "VariationalCategoricalEmission",
    "VariationalCategoricalHMM",
    "VariationalGaussianEmission",
    "VariationalGaussianHMM",
    "VariationalHMM",
]

#: A state counts as effective when its share of the expected occupancy exceeds this (the
#: threshold of the variational mixtures' ``n_effective_components_``).
EFFECTIVE_OCCUPANCY_THRESHOLD = 0.01


# --------------------------------------------------------------------------------------------
# the model
# --------------------------------------------------------------------------------------------

class VariationalHMM(HiddenMarkovModel):
    """Hidden Markov model fitted by variational Bayes (VB-EM; MacKay 1997; Beal 2003, ch. 3).

    Dirichlet posteriors over ``startprob`` and the rows of ``transmat``, a conjugate
    posterior over the emission parameters (a variational emission component:
    :class:`VariationalCategoricalEmission`, :class:`VariationalGaussianEmission`).

    Parameters
    ----------
    n_components : int, default 2
        Number of hidden states; unused states are emptied by the prior (see
        ``n_effective_components_``).
    emission : VariationalCategoricalEmission or VariationalGaussianEmission
        The emission component (a string 'categorical' or 'gaussian' builds one with default
        priors).
    startprob_prior : float or array-like of shape (K,), optional
        Dirichlet concentration (> 0) of ``startprob``; default ``1 / K`` (hmmlearn's).
    transmat_prior : float or array-like of shape (K, K), optional
        Dirichlet concentration (> 0) of each row of ``transmat``; default ``1 / K``.
    init : {'random', 'kmeans++', 'spectral'} or dict, default 'random'
        Starting posteriors: the chain's from flat Dirichlet draws scaled to the number of
        sequences (start) and time steps (rows), as hmmlearn; the emission's from its point
        start (see the components). 'spectral' (categorical, or Gaussian with 'diag' /
        'spherical' covariances): the prior plus ``n_samples / K`` pseudo-counts per state
        spread by the method-of-moments start of :class:`HiddenMarkovModel`'s
        ``init='spectral'``, held to the class's default start at the end of the fit (both
        fitted to the end, the higher final ELBO kept; a ``SpectralInitWarning`` when the
        default's ends higher or the moments are degenerate). A dict gives any of ``'startprob_posterior'``,
        ``'transmat_posterior'`` and the emission's posterior names; the rest are drawn.
    frozen : set of str, optional
        Posteriors kept at their start: ``'startprob'``, ``'transmat'`` or the emission's
        parameter names (``'emissionprob'``; ``'means'`` / ``'covariances'`` freeze the whole
        Normal-Wishart factor).
    n_init, max_iter, tol, random_state, callback, verbose
        See :class:`HiddenMarkovModel`; ``tol`` in nats per time step.

    Attributes
    ----------
    startprob_posterior_, transmat_posterior_ : ndarray
        Dirichlet concentrations, shapes (K,) and (K, K).
    startprob_prior_, transmat_prior_ : ndarray
        The resolved priors, same shapes.
    startprob_, transmat_ : ndarray
        Posterior means (point estimates used by ``score``, ``predict_proba``, ``decode``,
        ``sample``, as in hmmlearn).
    n_effective_components_ : int
        States whose share of the expected occupancy (at the last M-step) exceeds 1%.
    state_occupancy_ : ndarray of shape (K,)
        Expected number of time steps spent in each state at the last M-step.
    lower_bound_, lower_bounds_ : float, ndarray
        The complete variational bound (Beal 2003, eq. 3.64), nats per time step, at the
        posteriors entering each iteration.
    spectral_report_ : dict
        After ``init='spectral'``: as :class:`HiddenMarkovModel`'s (the objectives compared
        are the final ELBOs of the two runs).

    References
    ----------
    MacKay, D. J. C. (1997). Ensemble learning for hidden Markov models. Technical report,
    Cavendish Laboratory. Beal, M. J. (2003). Variational algorithms for approximate Bayesian
    inference. PhD thesis, UCL, chapter 3. Hoffman, Blei, Wang & Paisley (2013), Stochastic
    variational inference, JMLR 14 (the ``partial_fit`` step).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> states = np.repeat([0, 1, 0, 1], 25)
    >>> from latentkit.sequence import VariationalHMM
    >>> X = np.where(states == 0, rng.choice(3, 100, p=[.8, .1, .1]),
    ...              rng.choice(3, 100, p=[.1, .1, .8]))
    >>> hmm = VariationalHMM(2, "categorical", random_state=0).fit(X[:, None])
    >>> hmm.transmat_.shape
    (2, 2)
    """

    _hand_settable = False  # posteriors, not point parameters (sequence/_hand_set.py)
    _emission_frozen_together = True  # one conjugate factor (frozen, in the class docs)

    _EMISSIONS = {"categorical": VariationalCategoricalEmission,
                  "gaussian": VariationalGaussianEmission}
    _INITS = ("random", "kmeans++", "spectral")

    def __init__(self, n_components=2, emission="categorical", *, startprob_prior=None,
                 transmat_prior=None, init="random", frozen=None, n_init=1, max_iter=1000,
                 tol=None, random_state=None, callback=None, verbose=False):
        super().__init__(n_components, emission, startprob_prior=startprob_prior,
                         transmat_prior=transmat_prior, init=init, frozen=frozen,
                         n_init=n_init, max_iter=max_iter, tol=tol, random_state=random_state,
                         callback=callback, verbose=verbose)

    # ---- validation --------------------------------------------------------------------------
    def _make_emission(self):
        e = self.emission
        if isinstance(e, str) and e in self._EMISSIONS:
            return self._EMISSIONS[e]()
        if isinstance(e, str) or not hasattr(e, "posterior_names"):
            raise InputError(f"emission must be a variational emission component "
                             f"({', '.join(c.__name__ for c in self._EMISSIONS.values())}) or "
                             f"one of {sorted(self._EMISSIONS)}, got {e!r}.")
        return super()._make_emission()

    def _check_chain_prior(self, name, arr, value):
        if not np.all(np.isfinite(arr)) or np.any(arr <= 0):
            raise InputError(f"{name} must be finite and > 0 (a Dirichlet concentration), "
                             f"got {value!r}.")

    def _posterior_names(self):
        return ("startprob_posterior", "transmat_posterior") + tuple(
            self.emission_.posterior_names)

    def _validate_params(self):
        init = self.init
        if isinstance(init, str) and init not in self._INITS:
            raise InputError(f"init must be one of {self._INITS} or a dict of starting "
                             f"posteriors, got {init!r}.")
        if isinstance(init, dict) or init == "spectral":
            # the base checks dict keys against point-parameter names and 'spectral' against
            # point emissions; the posteriors and the variational emissions are checked here
            self.init = {}
            try:
                super()._validate_params()
            finally:
                self.init = init
        else:
            super()._validate_params()
        if isinstance(init, dict):
            unknown = set(init) - set(self._posterior_names())
            if unknown:
                raise InputError(f"init has unknown posterior(s) {sorted(unknown)}; valid "
                                 f"names are {sorted(self._posterior_names())}.")
        elif init == "spectral" and getattr(self.emission_, "covariance_type",
                                            "diag") not in ("diag", "spherical"):
            raise InputError("init='spectral' needs categorical emissions or Gaussian emissions "
                             "with 'diag' or 'spherical' covariances, got covariance_type="
                             f"{self.emission_.covariance_type!r}; use init='kmeans++'.")

    # ---- initialisation ------------------------------------------------------------------------
    def _init_params(self, data, rng):
        K = self.n_components
        user = self.init if isinstance(self.init, dict) else {}
        method = self.init if isinstance(self.init, str) else "random"
        if method == "spectral":  # against the default start
            return checked_spectral_start(self, data, rng, self._start_values)
        prior = self._priors(data)
        post = self._start_values(data, rng, method, prior)
        for name, value in user.items():
            if name == "startprob_posterior":
                post[name] = _check_positive(value, f"init[{name!r}]", (K,))
            elif name == "transmat_posterior":
                post[name] = _check_positive(value, f"init[{name!r}]", (K, K))
            else:
                post[name] = self.emission_.check_posterior(name, value, K)
        for name, value in {**prior, **post}.items():
            setattr(self, name + "_", value if np.ndim(value) else float(value))
        self.state_occupancy_ = np.zeros(K)
        self._set_point_estimates()

    def _priors(self, data):
        K = self.n_components
        sp = 1.0 / K if self.startprob_prior is None else self.startprob_prior
        tp = 1.0 / K if self.transmat_prior is None else self.transmat_prior
        prior = {"startprob_prior": _check_positive(sp, "startprob_prior", (K,)),
                 "transmat_prior": _check_positive(tp, "transmat_prior", (K, K))}
        prior.update(self.emission_.resolve_prior(data.X, K))
        return prior

    def _start_values(self, data, rng, method, prior=None, perturbation=0.0):
        """Starting posteriors of ``init=method`` (a dict ``init=`` accepts); 'spectral': from
        the moment estimate, unchecked (raises ``Degenerate`` for degenerate moments)."""
        K, X = self.n_components, data.X
        prior = self._priors(data) if prior is None else prior
        post = {"startprob_posterior": rng.dirichlet(np.full(K, 1.0 / K)) * data.n_sequences,
                "transmat_posterior": rng.dirichlet(np.full(K, 1.0 / K), size=K)
                * data.n_samples / K}
        post.update(self.emission_.init_posterior(
            X, K, rng, "kmeans++" if method == "spectral" else method, prior))
        if method == "spectral":
            point = _spectral_start(self.emission_, data, K, rng, perturbation)
            n_k = data.n_samples / K  # pseudo-counts per state, as the random start
            post["startprob_posterior"] = (prior["startprob_prior"]
                                           + point["startprob"] * data.n_sequences)
            post["transmat_posterior"] = prior["transmat_prior"] + point["transmat"] * n_k
            post.update(self.emission_.posterior_from_point(point, n_k, prior))
        return post

    def _set_point_estimates(self):
        s, t = self.startprob_posterior_, self.transmat_posterior_
        self.startprob_ = s / s.sum()
        self.transmat_ = t / t.sum(axis=1, keepdims=True)
        for name, value in self.emission_.point_estimate(self._emission_posterior()).items():
            setattr(self, _attr(name), value)
        occ = self.state_occupancy_
        share = occ / occ.sum() if occ.sum() > 0 else np.full(occ.shape, 1.0 / occ.size)
        self.n_effective_components_ = int(np.sum(share > EFFECTIVE_OCCUPANCY_THRESHOLD))

    def _emission_posterior(self):
        return {n: getattr(self, n + "_") for n in self.emission_.posterior_names}

    # ---- VB-EM ---------------------------------------------------------------------------------
    def _vb_forward_backward(self, data):
        """Forward-backward on the sub-normalised expected parameters (Beal 2003, eqs.
        3.68-3.70): ``(gamma, log_pred, xi, log_z)`` as :meth:`_forward_backward`."""
        frame, off = _scaled_frame(
            self.emission_.expected_log_likelihood(self._emission_posterior(), data.X))
        start = np.exp(dirichlet_expectation(self.startprob_posterior_))
        trans = np.exp(dirichlet_expectation(self.transmat_posterior_))
        return self._forward_backward(data, (frame, off, start, trans))

    def _e_step(self, data):
        gamma, _, xi, loglik = self._vb_forward_backward(data)
        emis = self.emission_.accumulate(None, data.X, gamma)
        return self.emission_.stats_class(
            n=float(data.n_samples), data_term=float(loglik.sum()),
            start=gamma[data.offsets[:-1]].sum(axis=0), trans=xi.sum(axis=0), **emis)

    def _m_step(self, stats, step_size=1.0, scale=1.0):
        frozen = self.frozen_
        if "startprob" not in frozen:
            self.startprob_posterior_ = _blend(self.startprob_posterior_,
                                               self.startprob_prior_ + scale * stats.start,
                                               step_size)
        if "transmat" not in frozen:
            self.transmat_posterior_ = _blend(self.transmat_posterior_,
                                              self.transmat_prior_ + scale * stats.trans,
                                              step_size)
        if not set(self.emission_.param_names) & frozen:
            new = self.emission_.vb_update(self._emission_posterior(), self._prior_dict(),
                                           stats, step_size, scale)
            for name, value in new.items():
                setattr(self, name + "_", value if np.ndim(value) else float(value))
        self.state_occupancy_ = _blend(self.state_occupancy_,
                                       scale * self.emission_.occupancy(stats), step_size)
        self._set_point_estimates()

    def _prior_dict(self):
        names = [n for n in vars(self) if n.endswith("_prior_")]
        return {n[:-1]: getattr(self, n) for n in names}

    def _global_elbo_terms(self):
        kl = float(dirichlet_kl(self.startprob_posterior_, self.startprob_prior_))
        kl += float(np.sum(dirichlet_kl(self.transmat_posterior_, self.transmat_prior_)))
        kl += self.emission_.kl(self._emission_posterior(), self._prior_dict())
        return -kl


# --------------------------------------------------------------------------------------------
# familiar names
# --------------------------------------------------------------------------------------------

    def _check_state(self):
        """Validate a restored state (:func:`._state_checks.check_hmm_state`)."""
        check_hmm_state(FittedState(vars(self), type(self).__name__), self._make_emission,
                        variational=True)


class VariationalCategoricalHMM(VariationalHMM):
    """Categorical HMM fitted by variational Bayes (hmmlearn's ``VariationalCategoricalHMM``;
    MacKay 1997; Beal 2003, ch. 3).

    Parameters
    ----------
    n_components : int, default 2
        Number of hidden states.
    n_features : int, optional
        Number of symbols; default ``max(X) + 1``.
    startprob_prior, transmat_prior : float or array-like, optional
        Dirichlet concentrations (> 0); default ``1 / n_components``.
    emissionprob_prior : float or array-like of shape (K, n_features), optional
        Dirichlet concentration (> 0) of each emission row; default ``1 / n_features``.
    init, frozen, n_init, max_iter, tol, random_state, callback, verbose
        See :class:`VariationalHMM`.

    Attributes
    ----------
    startprob_posterior_, transmat_posterior_, emissionprob_posterior_ : ndarray
        Dirichlet concentrations, shapes (K,), (K, K), (K, n_features).
    startprob_prior_, transmat_prior_, emissionprob_prior_ : ndarray
        Resolved priors.
    startprob_, transmat_, emissionprob_ : ndarray
        Posterior means.
    n_effective_components_ : int
    lower_bound_, lower_bounds_ : float, ndarray
        Variational bound, nats per time step (hmmlearn's ``monitor_.history`` divided by
        ``n_samples``).

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.sequence import VariationalCategoricalHMM
    >>> X = np.array([[0], [0], [1], [1], [0], [2], [2], [1]])
    >>> m = VariationalCategoricalHMM(2, random_state=0).fit(X)
    >>> m.emissionprob_.shape
    (2, 3)

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> states = np.repeat([0, 1, 0, 1], 25)
    >>> from latentkit import VariationalCategoricalHMM
    >>> X = np.where(states == 0, rng.choice(3, 100, p=[.8, .1, .1]),
    ...              rng.choice(3, 100, p=[.1, .1, .8]))
    >>> hmm = VariationalCategoricalHMM(2, random_state=0).fit(X[:, None])
    >>> hmm.emissionprob_.shape
    (2, 3)
    """

    def __init__(self, n_components=2, n_features=None, *, startprob_prior=None,
                 transmat_prior=None, emissionprob_prior=None, init="random", frozen=None,
                 n_init=1, max_iter=1000, tol=None, random_state=None, callback=None,
                 verbose=False):
        self.n_components = n_components
        self.n_features = n_features
        self.startprob_prior = startprob_prior
        self.transmat_prior = transmat_prior
        self.emissionprob_prior = emissionprob_prior
        self.init = init
        self.frozen = frozen
        self.n_init = n_init
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        self.callback = callback
        self.verbose = verbose

    def _make_emission(self):
        return VariationalCategoricalEmission(n_features=self.n_features,
                                              emissionprob_prior=self.emissionprob_prior)


class VariationalGaussianHMM(VariationalHMM):
    """Gaussian HMM fitted by variational Bayes (hmmlearn's ``VariationalGaussianHMM``;
    Beal 2003, ch. 3; McGrory & Titterington 2009, Variational Bayesian analysis for hidden
    Markov models, Aust. N. Z. J. Stat. 51).

    Parameters
    ----------
    n_components : int, default 2
        Number of hidden states.
    covariance_type : {'full', 'tied', 'diag', 'spherical'}, default 'full'
    startprob_prior, transmat_prior : float or array-like, optional
        Dirichlet concentrations (> 0); default ``1 / n_components``.
    means_prior, beta_prior, dof_prior, scale_prior, reg_covar
        Normal-Wishart prior; see :class:`VariationalGaussianEmission` (defaults: data mean,
        1, n_features, 1e-3 identity, 0).
    init : {'kmeans++', 'random', 'spectral'} or dict, default 'kmeans++'
        See :class:`VariationalHMM` ('spectral': 'diag' and 'spherical' only).
    frozen, n_init, max_iter, tol, random_state, callback, verbose
        See :class:`VariationalHMM`.

    Attributes
    ----------
    means_posterior_, beta_posterior_, dof_posterior_, scale_posterior_ : ndarray
        Normal-Wishart posteriors (hmmlearn's names and shapes).
    means_prior_, beta_prior_, dof_prior_, scale_prior_
        The resolved prior (one shared by all states).
    startprob_, transmat_, means_, covariances_ : ndarray
        Posterior means; ``covariances_`` = ``scale_posterior_ / dof_posterior_`` in
        covariance_type's compact shape.
    n_effective_components_ : int
    lower_bound_, lower_bounds_ : float, ndarray
        Variational bound, nats per time step. hmmlearn's ``monitor_.history`` is
        ``n_samples * (lower_bound + D/2 log(2 pi))`` (it drops the Gaussian constant) for
        full and tied covariances.

    Notes
    -----
    'diag' and 'spherical' use exact Normal-Gamma factors (see
    :class:`VariationalGaussianEmission`); hmmlearn's bound for these treats the diagonal
    precision as a Wishart matrix and so differs.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> states = np.repeat([0, 1, 0, 1], 25)
    >>> from latentkit import VariationalGaussianHMM
    >>> X = rng.normal(np.where(states == 0, 0.0, 5.0), 1.0)[:, None]
    >>> hmm = VariationalGaussianHMM(2, random_state=0).fit(X)
    >>> [int(v) for v in np.sort(hmm.means_[:, 0]).round()]
    [0, 5]
    """

    def __init__(self, n_components=2, covariance_type="full", *, startprob_prior=None,
                 transmat_prior=None, means_prior=None, beta_prior=1.0, dof_prior=None,
                 scale_prior=None, reg_covar=0.0, init="kmeans++", frozen=None, n_init=1,
                 max_iter=1000, tol=None, random_state=None, callback=None, verbose=False):
        self.n_components = n_components
        self.covariance_type = covariance_type
        self.startprob_prior = startprob_prior
        self.transmat_prior = transmat_prior
        self.means_prior = means_prior
        self.beta_prior = beta_prior
        self.dof_prior = dof_prior
        self.scale_prior = scale_prior
        self.reg_covar = reg_covar
        self.init = init
        self.frozen = frozen
        self.n_init = n_init
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        self.callback = callback
        self.verbose = verbose

    def _make_emission(self):
        return VariationalGaussianEmission(
            covariance_type=self.covariance_type, means_prior=self.means_prior,
            beta_prior=self.beta_prior, dof_prior=self.dof_prior, scale_prior=self.scale_prior,
            reg_covar=self.reg_covar)
