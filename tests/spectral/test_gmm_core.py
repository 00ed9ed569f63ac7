"""spectral_gmm, the function core of SpectralGMM (issue 25: spectral_labels calls the function,
not the estimator)."""

import numpy as np
import pytest

from latentkit.spectral import SpectralGMM, SpectralGMMResult, spectral_gmm


def _planted(seed=0, n=3000):
    rng = np.random.default_rng(seed)
    means = np.array([[0.0, 0.0, 6.0, 0.0], [6.0, 0.0, 0.0, 0.0], [0.0, 6.0, 0.0, 3.0]])
    z = rng.choice(3, n, p=[0.5, 0.3, 0.2])
    return means[z] + rng.normal(size=(n, 4)) * np.array([1.0, 0.5, 1.5])[z][:, None], means


@pytest.mark.parametrize("covariance_type", ["tied", "spherical"])
def test_the_estimator_is_the_function(covariance_type):
    X, _ = _planted()
    res = spectral_gmm(X, 3, covariance_type, np.random.default_rng(4))
    est = SpectralGMM(3, covariance_type=covariance_type,
                      random_state=np.random.default_rng(4)).fit(X)
    assert isinstance(res, SpectralGMMResult)
    for a, b in [(res.weights, est.weights_), (res.means, est.means_),
                 (res.covariances, est.covariances_),
                 (res.decomposition.eigenvalues, est.eigenvalues_)]:
        np.testing.assert_array_equal(a, b)
    assert res.sigma2 == est.sigma2_ and res.raw_weight_sum == est.raw_weight_sum_


def test_it_recovers_planted_means_and_variances():
    X, means = _planted(1, n=20000)
    res = spectral_gmm(X, 3, "spherical", 0)
    order = [int(np.argmin(((res.means - m) ** 2).sum(1))) for m in means]
    assert sorted(order) == [0, 1, 2]
    np.testing.assert_allclose(res.means[order], means, atol=0.35)
    np.testing.assert_allclose(res.weights[order], [0.5, 0.3, 0.2], atol=0.05)
    np.testing.assert_allclose(res.covariances[order], [1.0, 0.25, 2.25], rtol=0.3)


def test_bad_arguments_are_named():
    X, _ = _planted()
    with pytest.raises(ValueError, match="covariance_type must be 'tied' or 'spherical'"):
        spectral_gmm(X, 2, "full")
    with pytest.raises(ValueError, match="tensor must be"):
        spectral_gmm(X, 2, tensor="sparse")
    with pytest.raises(TypeError, match="n_components"):
        spectral_gmm(X, 2.5)
