"""A second model written from the recipe of ``docs/design.md`` (section 3) alone, with public
imports only: a mixture of multivariate Bernoulli distributions fitted by MAP EM.

Model: ``z ~ Cat(weights)``, ``x_d | z = k ~ Bernoulli(probs_kd)`` independently over the D
binary features, with a ``Beta(a, a)`` prior on every ``probs_kd`` (``a = probability_prior``)
and a flat Dirichlet on the weights. The objective is the log posterior (up to its constant)
per sample: ``(sum_i log p(x_i) + sum_kd log Beta(probs_kd; a, a)) / n``, raised by EM (McLachlan
& Peel 2000, section 2.8; Bishop 2006, section 9.3.3, eq. 9.59 with the prior's pseudo-counts).
"""

import numbers

import numpy as np
from scipy.special import betaln, logsumexp

from latentkit.base import LatentModel, Stats, stats_dataclass
from latentkit.exceptions import StateCheckError
from latentkit.utils import check_array, check_scalar


@stats_dataclass
class BernoulliMixtureStats(Stats):
    """``n`` rows, ``data_term`` the summed log-likelihood (nats), ``nk`` (K,) the expected
    counts and ``sx`` (K, D) the expected ones per component and feature."""

    n: float
    data_term: float
    nk: np.ndarray
    sx: np.ndarray


class BernoulliMixture(LatentModel):
    """Mixture of multivariate Bernoulli distributions by MAP EM (a recipe model of the tests).

    Parameters
    ----------
    n_components : int, default 2
    probability_prior : float, default 2.0
        ``a >= 1`` of the ``Beta(a, a)`` prior of every probability (``a = 1``: maximum
        likelihood).
    max_iter : int, default 100
    tol : float, default 1e-8
        Stop when the objective changes by less than ``tol`` nats per sample.
    n_init : int, default 1
    random_state : None, int or numpy.random.Generator
    callback : callable, optional

    Attributes
    ----------
    weights_ : ndarray of shape (n_components,)
    probs_ : ndarray of shape (n_components, n_features)
        ``P(x_d = 1 | z = k)``.
    lower_bound_, lower_bounds_, n_iter_, converged_
        The log posterior per sample (nats), as in :class:`latentkit.base.LatentModel`.

    Examples
    --------
    >>> import numpy as np
    >>> X = (np.random.default_rng(0).random((40, 5)) < 0.5).astype(float)
    >>> BernoulliMixture(2, random_state=0).fit(X).probs_.shape
    (2, 5)
    """

    def __init__(self, n_components=2, *, probability_prior=2.0, max_iter=100, tol=1e-8,
                 n_init=1, random_state=None, callback=None):
        self.n_components = n_components
        self.probability_prior = probability_prior
        self.max_iter = max_iter
        self.tol = tol
        self.n_init = n_init
        self.random_state = random_state
        self.callback = callback

    # ---- the five methods -------------------------------------------------------------------
    def _validate_params(self):
        check_scalar(self.n_components, "n_components", numbers.Integral, low=1)
        check_scalar(self.probability_prior, "probability_prior", numbers.Real, low=1.0)

    def _validate_data(self, X, reset, **kw):
        X = check_array(X, "X")
        if not np.all((X == 0.0) | (X == 1.0)):
            raise ValueError("X must hold only 0 and 1 (binary features), got other values.")
        if reset:
            self.n_features_in_ = X.shape[1]
        elif X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features, but BernoulliMixture was fitted "
                             f"with {self.n_features_in_}.")
        return X

    def _init_params(self, data, rng):
        K = int(self.n_components)
        self.weights_ = np.full(K, 1.0 / K)
        self.probs_ = rng.uniform(0.25, 0.75, size=(K, data.shape[1]))

    def _empty_stats(self):
        K, D = int(self.n_components), self.n_features_in_
        return BernoulliMixtureStats(0.0, 0.0, np.zeros(K), np.zeros((K, D)))

    def _e_step(self, data):
        lj = self._log_joint(data)
        ll = logsumexp(lj, axis=1)
        r = np.exp(lj - ll[:, None])
        return BernoulliMixtureStats(float(data.shape[0]), float(ll.sum()), r.sum(axis=0),
                                     r.T @ data)

    def _m_step(self, stats, step_size=1.0, scale=1.0):
        s = self._blend_stats(stats, step_size, scale)
        a = float(self.probability_prior)
        self.weights_ = s.nk / s.nk.sum()
        self.probs_ = (s.sx + a - 1.0) / (s.nk[:, None] + 2.0 * a - 2.0)

    def _global_elbo_terms(self):
        """The log prior density of the probabilities (MAP)."""
        a = float(self.probability_prior)
        p = self.probs_
        return float(np.sum((a - 1.0) * (np.log(p) + np.log1p(-p))) - p.size * betaln(a, a))

    def _check_state(self):
        """The state ``latentkit.load`` restored: ``weights_`` (K,) on the simplex, ``probs_``
        (K, D) in (0, 1), finite."""
        K, D = int(self.n_components), int(self.n_features_in_)
        for name, shape in (("weights_", (K,)), ("probs_", (K, D))):
            a = getattr(self, name, None)
            if not isinstance(a, np.ndarray) or a.shape != shape or not np.all(np.isfinite(a)):
                raise StateCheckError(name, f"expected a finite array of shape {shape}")
        if not np.all((self.probs_ > 0.0) & (self.probs_ < 1.0)):
            raise StateCheckError("probs_", "expected probabilities in (0, 1)")
        if np.any(self.weights_ < 0.0) or abs(self.weights_.sum() - 1.0) > 1e-6:
            raise StateCheckError("weights_", "expected non-negative weights summing to 1")

    # ---- inference ----------------------------------------------------------------------------
    def _log_joint(self, X):
        with np.errstate(divide="ignore"):
            log_p, log_q = np.log(self.probs_), np.log1p(-self.probs_)
        return np.log(self.weights_) + X @ log_p.T + (1.0 - X) @ log_q.T

    def predict_proba(self, X):
        """Posterior ``P(z = k | x)``, shape (n_samples, n_components)."""
        self._check_is_fitted()
        lj = self._log_joint(self._validate_data(X, reset=False))
        return np.exp(lj - logsumexp(lj, axis=1, keepdims=True))

    def predict(self, X):
        """The most probable component of each row, shape (n_samples,)."""
        return self.predict_proba(X).argmax(axis=1)

    def score_samples(self, X):
        """``log p(x_i)`` of each row (nats), shape (n_samples,)."""
        self._check_is_fitted()
        return logsumexp(self._log_joint(self._validate_data(X, reset=False)), axis=1)

    def score(self, X, y=None):
        """Mean log-likelihood per row (nats)."""
        return float(self.score_samples(X).mean())

    def sample(self, n_samples=1, random_state=None):
        """``n_samples`` rows (n_samples, n_features) of 0.0/1.0 and their components."""
        self._check_is_fitted()
        rng = self._sampling_rng(random_state)
        z = rng.choice(int(self.n_components), n_samples, p=self.weights_)
        return (rng.random((n_samples, self.n_features_in_)) < self.probs_[z]).astype(float), z
