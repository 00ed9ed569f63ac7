"""What ``init='random'`` shares with scikit-learn's LDA, and what it does not (issue 26,
item 8): the starting topics are drawn from the same distribution, and the recipe of
docs/guide/topic_models.md gives scikit-learn's exact starting topics; the fits are not
identical (scikit-learn also draws every document's gamma at random in every E-step), and the
README no longer says they are."""

import pathlib

import numpy as np
import pytest

from latentkit import LatentDirichletAllocation

SkLDA = pytest.importorskip("sklearn.decomposition").LatentDirichletAllocation

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_recipe_gives_sklearns_starting_topics():
    K, V, seed = 4, 30, 7
    sk = SkLDA(K, random_state=seed)
    sk._init_latent_vars(V, np.float64)
    start = np.random.RandomState(seed).gamma(100.0, 0.01, (K, V))  # the documented recipe
    ours = LatentDirichletAllocation(K, init={"components": start}, max_iter=1, tol=0)
    ours._validate_params()
    ours.n_features_in_ = V
    ours._init_params(np.zeros((1, V)), None)
    np.testing.assert_array_equal(ours.components_, sk.components_)


def test_random_start_draws_gamma_100_over_100():
    # the distribution of scikit-learn's and gensim's start: mean 1, variance 1/100
    lda = LatentDirichletAllocation(5, init="random", random_state=0)
    lda._validate_params()
    lda._init_params(np.zeros((1, 4000)), np.random.default_rng(0))
    lam = lda.components_.ravel()
    assert lam.mean() == pytest.approx(1.0, abs=0.005)
    assert lam.var() == pytest.approx(0.01, rel=0.05)


def test_readme_does_not_claim_identical_results_to_sklearn():
    readme = (ROOT / "README.md").read_text()
    assert "(for identical results)" not in readme
    guide = (ROOT / "docs" / "guide" / "topic_models.md").read_text()
    assert "not identical" in guide and "RandomState(seed).gamma(100.0, 0.01" in guide
