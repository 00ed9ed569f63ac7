"""init='spectral' recipes: valid parameters, better starts, fallbacks with a warning."""

import numpy as np
import pytest
import scipy.sparse as sp

from latentkit.datasets import make_lda_corpus
from latentkit.exceptions import SpectralInitWarning
from latentkit.mixture import spectral_init_gmm
from latentkit.topic import spectral_init_lda
from latentkit.testing import match_components


def test_spectral_init_gmm_valid_for_every_covariance_type():
    rng = np.random.default_rng(0)
    means = rng.standard_normal((3, 5)) * 4
    z = rng.choice(3, 3000)
    X = means[z] + rng.standard_normal((3000, 5))
    shapes = {"full": (3, 5, 5), "diag": (3, 5), "spherical": (3,), "tied": (5, 5)}
    for ct, shape in shapes.items():
        p = spectral_init_gmm(X, 3, ct, random_state=0)
        assert p["covariances"].shape == shape
        np.testing.assert_allclose(p["weights"].sum(), 1.0)
        _, err = match_components(means, p["means"], "l2")
        assert err.max() < 0.5
    with pytest.warns(SpectralInitWarning, match="k-means"):
        p = spectral_init_gmm(X[:, :2], 3, "diag", random_state=0)  # k > n_features
    assert p["means"].shape == (3, 2) and np.all(p["covariances"] > 0)


def test_spectral_init_lda_valid_and_fallback():
    X, truth = make_lda_corpus(3000, n_components=4, vocab_size=60, random_state=0)
    lam = spectral_init_lda(X, 4, 0.25, 0.1, random_state=0)["components"]
    assert lam.shape == (4, 60) and np.all(lam > 0)
    _, err = match_components(truth["topics"], lam / lam.sum(1, keepdims=True), "l1")
    assert err.mean() < 0.3
    short = sp.csr_matrix(np.eye(5) * 2)  # every document has 2 tokens
    with pytest.warns(SpectralInitWarning, match="at least 3 tokens"):
        lam = spectral_init_lda(short, 2, random_state=0)["components"]
    assert lam.shape == (2, 5) and np.all(lam > 0)


def test_lda_init_spectral_starts_higher():
    from latentkit.topic import LatentDirichletAllocation
    X, _ = make_lda_corpus(1000, n_components=5, vocab_size=100, random_state=1)
    r = LatentDirichletAllocation(5, init="random", max_iter=3, tol=0, random_state=0).fit(X)
    s = LatentDirichletAllocation(5, init="spectral", max_iter=3, tol=0, random_state=0).fit(X)
    assert s.lower_bounds_[0] > r.lower_bounds_[0]
    assert s.lower_bound_ > r.lower_bound_


def test_gmm_init_spectral_converges_faster():
    from latentkit.mixture import GaussianMixture
    rng = np.random.default_rng(0)
    means = rng.standard_normal((4, 6)) * 2.5
    X = means[rng.choice(4, 2000)] + rng.standard_normal((2000, 6))
    r = GaussianMixture(4, covariance_type="spherical", init="random", max_iter=300, tol=1e-6,
                        random_state=0).fit(X)
    s = GaussianMixture(4, covariance_type="spherical", init="spectral", max_iter=300, tol=1e-6,
                        random_state=0).fit(X)
    assert s.n_iter_ <= r.n_iter_ / 2
    assert s.lower_bound_ >= r.lower_bound_ - 1e-6


def test_recipes_validate_their_arguments():
    from latentkit.mixture._spectral_start import kmeans_plusplus_centers
    from latentkit.topic import spectral_init_plsa
    rng = np.random.default_rng(0)
    X = rng.standard_normal((20, 3))
    for k in (0, -1):
        with pytest.raises(ValueError, match="n_components must be >= 1"):
            spectral_init_gmm(X, k)
    with pytest.raises(TypeError, match="n_components"):
        spectral_init_gmm(X, 2.5)
    with pytest.raises(ValueError, match="n_components=21 exceeds the number of samples"):
        spectral_init_gmm(X, 21)
    with pytest.raises(ValueError, match="covariance_type"):
        spectral_init_gmm(X, 2, "ful")
    with pytest.raises(ValueError, match="reg_covar"):
        spectral_init_gmm(X, 2, reg_covar=-1.0)
    with pytest.raises(ValueError, match="sample_weight"):
        spectral_init_gmm(X, 2, sample_weight=np.ones(5))
    Xn = X.copy()
    Xn[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        spectral_init_gmm(Xn, 2)
    with pytest.raises(ValueError, match="n_components must be >= 1"):
        kmeans_plusplus_centers(X, 0, 0)
    counts, _ = make_lda_corpus(50, n_components=2, vocab_size=10, random_state=0)
    for fn in (spectral_init_lda, spectral_init_plsa):
        with pytest.raises(ValueError, match="n_components must be >= 1"):
            fn(counts, 0)
    with pytest.raises(ValueError, match="doc_topic_prior must be finite and > 0"):
        spectral_init_lda(counts, 2, doc_topic_prior=0.0)
    with pytest.raises(ValueError, match="topic_word_prior must be a scalar or broadcast"):
        spectral_init_lda(counts, 2, topic_word_prior=np.ones(3))
    with pytest.raises(ValueError, match="non-negative counts"):
        spectral_init_lda(-counts.toarray(), 2)


def test_spectral_init_hmm_validates_its_arguments():
    from latentkit.sequence import spectral_init_hmm
    X = np.array([0, 1, 2, 1, 0, 2])
    with pytest.raises(ValueError, match="n_components must be >= 1"):
        spectral_init_hmm(X, None, 0)
    with pytest.raises(ValueError, match="negative symbol"):
        spectral_init_hmm(X - 1, None, 2)
    with pytest.raises(ValueError, match="integer symbols"):
        spectral_init_hmm(X + 0.5, None, 2)
    with pytest.raises(ValueError, match="NaN"):
        spectral_init_hmm(np.array([0.0, np.nan, 1.0]), None, 2)
    with pytest.raises(ValueError, match="outside 0..1"):
        spectral_init_hmm(X, None, 2, n_features=2)
    with pytest.raises(ValueError, match="lengths"):
        spectral_init_hmm(X, [2, 2], 2)
    with pytest.raises(ValueError, match="floor"):
        spectral_init_hmm(X, None, 2, floor=1.0)
    with pytest.raises(ValueError, match="shape"):
        spectral_init_hmm(np.zeros((3, 2), dtype=int), None, 2)
    with pytest.raises(TypeError, match="integer symbols"):
        spectral_init_hmm(np.array(["a", "b", "c"]), None, 2)
