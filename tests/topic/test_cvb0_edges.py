"""Edge cases of the CVB0 start (``cvb0_topics``) found by a break-it pass: counts whose
products overflow float64, a non-callable callback, a non-string init, complex sparse input."""

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


def test_callback_not_callable_is_named_before_any_sweep(corpus):
    """A non-callable callback is refused up front with a TypeError naming it, not after the
    first sweep by Python's "'int' object is not callable"."""
    with pytest.raises(TypeError, match="callback must be callable or None, got int"):
        cvb0_topics(corpus, 2, callback=5)


@pytest.mark.parametrize("bad", [np.array(["sequential", "random"]), ["sequential"], 1])
def test_init_that_is_not_a_string_is_named(corpus, bad):
    """init given as an array, a list or a number: a ValueError naming init (an array of two
    strings used to raise numpy's 'truth value of an array is ambiguous')."""
    with pytest.raises(ValueError, match="init must be 'sequential', 'documents' or 'random'"):
        cvb0_topics(corpus, 2, init=bad)


@pytest.mark.parametrize("fit", [lambda X: cvb0_topics(X, 2, random_state=0),
                                 lambda X: LatentDirichletAllocation(2, max_iter=2).fit(X)])
def test_complex_sparse_counts_are_refused_as_dense_ones_are(corpus, fit):
    """A complex sparse matrix gets the dense input's ValueError, not a silent cast that drops
    the imaginary parts (numpy's ComplexWarning only)."""
    X = corpus.astype(np.complex128)
    X.data[0] += 5j
    with pytest.raises(ValueError, match="X must be real, got complex data"):
        fit(X)
