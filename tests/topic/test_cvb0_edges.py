"""Edge cases of the CVB0 start (``cvb0_topics``) found by a break-it pass: counts whose
products overflow float64."""

import numpy as np
import pytest
import scipy.sparse as sp

from latentkit.datasets import make_lda_corpus
from latentkit.topic import LatentDirichletAllocation, cvb0_topics


@pytest.fixture(scope="module")
def corpus():
    X, _ = make_lda_corpus(30, n_components=3, vocab_size=20, doc_length=30, random_state=0)
    return sp.csr_matrix(X, dtype=np.float64)


@pytest.mark.parametrize("init", ["sequential", "documents", "random"])
@pytest.mark.parametrize("scale", [1e160, 1e250])
def test_huge_counts_give_finite_topics_that_conserve_the_counts(corpus, init, scale):
    """A document count times a word count above 1.8e308 must not overflow to inf/inf = NaN:
    the topic-word counts stay finite and sum to the corpus total."""
    X = corpus * scale
    lam = cvb0_topics(X, 3, n_sweeps=4, random_state=0, init=init)
    assert np.all(np.isfinite(lam))
    eta = 1.0 / 3
    np.testing.assert_allclose((lam - eta).sum(), X.sum(), rtol=1e-9)
    np.testing.assert_allclose((lam - eta).sum(axis=0), np.asarray(X.sum(axis=0)).ravel(),
                               rtol=1e-9)


@pytest.mark.filterwarnings("ignore::latentkit.base.ConvergenceWarning")
def test_lda_default_start_on_huge_counts_is_finite(corpus):
    """LatentDirichletAllocation's default start (CVB0) on huge counts: a finite fit, not an
    internal 'q must be finite' error."""
    model = LatentDirichletAllocation(3, max_iter=3, random_state=0).fit(corpus * 1e200)
    assert np.all(np.isfinite(model.components_))
