"""The VAE's observation models as objects: log-probabilities against scipy.stats and
gradients against central finite differences."""

import numpy as np
import pytest
from scipy import stats

from latentkit.neural._likelihoods import (BernoulliLikelihood, CategoricalLikelihood,
                                           GaussianLikelihood)

rng = np.random.default_rng(0)
X_BIN = (rng.random((4, 3)) > 0.5).astype(float)
X_REAL = rng.normal(size=(4, 3))
X_CAT = np.zeros((4, 5))
X_CAT[np.arange(4), rng.integers(0, 2, 4)] = 1
X_CAT[np.arange(4), 2 + rng.integers(0, 3, 4)] = 1
P = rng.normal(size=(4, 2, 3))
P_CAT = rng.normal(size=(4, 2, 5))
LOG_VAR = np.array([-0.3, 0.2, 0.5])
CATEGORICAL = CategoricalLikelihood(np.array([0, 2]), np.array([2, 3]))


def test_log_probs_match_scipy():
    rec, _, _ = BernoulliLikelihood().log_prob_and_grad(X_BIN, P)
    ref = stats.bernoulli(1 / (1 + np.exp(-P))).logpmf(X_BIN[:, None, :]).sum(-1)
    np.testing.assert_allclose(rec, ref, rtol=1e-12)
    rec, _, _ = GaussianLikelihood().log_prob_and_grad(X_REAL, P, LOG_VAR)
    ref = stats.norm(P, np.exp(0.5 * LOG_VAR)).logpdf(X_REAL[:, None, :]).sum(-1)
    np.testing.assert_allclose(rec, ref, rtol=1e-12)
    rec, _, _ = CATEGORICAL.log_prob_and_grad(X_CAT, P_CAT)
    p1 = np.exp(P_CAT[..., :2]) / np.exp(P_CAT[..., :2]).sum(-1, keepdims=True)
    p2 = np.exp(P_CAT[..., 2:]) / np.exp(P_CAT[..., 2:]).sum(-1, keepdims=True)
    ref = (X_CAT[:, None, :2] * np.log(p1)).sum(-1) + (X_CAT[:, None, 2:] * np.log(p2)).sum(-1)
    np.testing.assert_allclose(rec, ref, rtol=1e-12)
    np.testing.assert_allclose(CATEGORICAL.mean(P_CAT), np.concatenate([p1, p2], -1),
                               rtol=1e-12)


@pytest.mark.parametrize("lik, X, P0, lv", [
    (BernoulliLikelihood(), X_BIN, P, None),
    (GaussianLikelihood(), X_REAL, P, LOG_VAR),
    (CATEGORICAL, X_CAT, P_CAT, None),
])
def test_gradients_match_finite_differences(lik, X, P0, lv):
    _, dP, d_lv = lik.log_prob_and_grad(X, P0, lv)
    h = 1e-6
    num = np.zeros_like(P0)
    for idx in np.ndindex(P0.shape):
        e = np.zeros_like(P0)
        e[idx] = h
        num[idx] = (lik.log_prob_and_grad(X, P0 + e, lv, False)[0]
                    - lik.log_prob_and_grad(X, P0 - e, lv, False)[0])[idx[:2]] / (2 * h)
    np.testing.assert_allclose(dP, num, rtol=1e-6, atol=1e-8)
    if lv is not None:  # d rec / d log_var, summed over rows and draws
        num_lv = np.array([(lik.log_prob_and_grad(X, P0, lv + h * np.eye(3)[j], False)[0]
                            - lik.log_prob_and_grad(X, P0, lv - h * np.eye(3)[j], False)[0]
                            ).sum() / (2 * h) for j in range(3)])
        np.testing.assert_allclose(d_lv.sum((0, 1)), num_lv, rtol=1e-6)
