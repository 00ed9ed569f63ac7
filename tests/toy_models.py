"""A toy model small enough to check by hand, used to test the drivers: a 1-D mixture of
unit-variance Gaussians fitted by EM."""

import numpy as np
from scipy.special import logsumexp
from scipy.stats import norm

from latentkit.base import LatentModel, Stats, stats_dataclass
from latentkit.utils import check_array


@stats_dataclass
class _ToyStats(Stats):
    n: float
    data_term: float
    nk: np.ndarray
    sx: np.ndarray


class ToyMixture(LatentModel):
    """Unit-variance 1-D Gaussian mixture fitted by EM (a test double of a real model)."""

    def __init__(self, n_components=2, max_iter=100, tol=1e-8, n_init=1, random_state=None,
                 callback=None):
        self.n_components = n_components
        self.max_iter = max_iter
        self.tol = tol
        self.n_init = n_init
        self.random_state = random_state
        self.callback = callback

    def _validate_data(self, X, reset, **kw):
        X = check_array(X)
        if X.shape[1] != 1:
            raise ValueError("ToyMixture takes one feature.")
        return X

    def _init_params(self, data, rng):
        self.weights_ = np.full(self.n_components, 1.0 / self.n_components)
        self.means_ = rng.choice(data[:, 0], self.n_components, replace=False)

    def _log_joint(self, x):
        return np.log(self.weights_) + norm.logpdf(x[:, None], self.means_[None, :], 1.0)

    def _empty_stats(self):
        k = self.n_components
        return _ToyStats(0.0, 0.0, np.zeros(k), np.zeros(k))

    def _e_step(self, data):
        lj = self._log_joint(data[:, 0])
        ll = logsumexp(lj, axis=1)
        r = np.exp(lj - ll[:, None])
        return _ToyStats(float(data.shape[0]), float(ll.sum()), r.sum(0), r.T @ data[:, 0])

    def _m_step(self, stats, step_size=1.0, scale=1.0):
        s = self._blend_stats(stats, step_size, scale)
        self.weights_ = s.nk / s.nk.sum()
        self.means_ = s.sx / s.nk

    def predict_proba(self, X):
        self._check_is_fitted()
        lj = self._log_joint(self._validate_data(X, False)[:, 0])
        return np.exp(lj - logsumexp(lj, axis=1, keepdims=True))

    def score_samples(self, X):
        self._check_is_fitted()
        return logsumexp(self._log_joint(self._validate_data(X, False)[:, 0]), axis=1)

    def score(self, X):
        return float(self.score_samples(X).mean())

    def sample(self, n_samples, random_state=None):
        self._check_is_fitted()
        rng = self._sampling_rng(random_state)
        z = rng.choice(self.n_components, n_samples, p=self.weights_)
        return (self.means_[z] + rng.standard_normal(n_samples))[:, None], z
