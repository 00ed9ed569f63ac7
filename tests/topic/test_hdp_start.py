"""The HDP's CVB0 start (``latentkit.topic.hdp_subsample_start``): the CVB0 topics of the
subsample, scaled to the corpus and ordered, and corpus sticks from their mass (issue 34)."""

import numpy as np
import pytest
import scipy.sparse as sp

from latentkit import HierarchicalDirichletProcess
from latentkit.datasets import make_lda_corpus
from latentkit.exceptions import InputError, InputTypeError
from latentkit.topic import cvb0_topics, hdp_subsample_start


@pytest.fixture(scope="module")
def corpus():
    return make_lda_corpus(120, 3, 25, doc_length=40, topic_word_prior=0.05, random_state=0)[0]


def test_whole_corpus_start_is_cvb0_ordered_by_mass_with_sticks_from_it(corpus):
    T, K, eta, alpha, gamma = 6, 4, 0.01, 1.0, 2.0
    start = hdp_subsample_start(corpus, T, n_doc_components=K, concentration=gamma,
                                doc_concentration=alpha, topic_word_prior=eta, n_sweeps=5,
                                random_state=3)
    lam = cvb0_topics(corpus, T, alpha / T, eta, n_sweeps=5, random_state=3)
    mass = lam.sum(axis=1) - corpus.shape[1] * eta
    order = np.argsort(-mass, kind="stable")
    np.testing.assert_array_equal(start["components"], lam[order])
    # Beta(1 + n_k, gamma + sum_{l>k} n_l), n the D * K document atoms spread by mass
    atoms = corpus.shape[0] * K * (mass[order] + 1e-3) / (mass[order] + 1e-3).sum()
    sticks = start["weight_concentration"]
    np.testing.assert_allclose(sticks[0, :-1], 1.0 + atoms[:-1], rtol=1e-12)
    np.testing.assert_allclose(sticks[1, :-1], gamma + np.cumsum(atoms[::-1])[::-1][1:],
                               rtol=1e-12)
    np.testing.assert_array_equal(sticks[:, -1], (1.0, 0.0))


@pytest.mark.filterwarnings("ignore::latentkit.exceptions.ConvergenceWarning")   # 3 iterations
def test_a_subsample_is_scaled_to_the_corpus_and_starts_a_fit(corpus):
    corpus = sp.csr_matrix(sp.diags(1.0 + np.arange(120) % 3) @ corpus)   # unequal lengths
    seen = []
    start = hdp_subsample_start(corpus, 5, subsample=0.25, min_docs=1, n_sweeps=3,
                                random_state=0, callback=lambda s, lam: seen.append(s))
    assert seen == [1, 2, 3]
    rows = np.sort(np.random.default_rng(0).choice(120, 30, replace=False))
    tokens = (start["components"] - 0.01).sum()
    np.testing.assert_allclose(tokens, corpus[rows].sum() * 120 / 30, rtol=1e-9)
    assert not np.isclose(tokens, corpus.sum(), rtol=1e-3)   # the subsample's own counts
    model = HierarchicalDirichletProcess(5, n_doc_components=4, max_iter=3, init=start,
                                         random_state=0).fit(corpus)
    assert model.n_iter_ >= 1 and np.all(np.isfinite(model.components_))


@pytest.mark.parametrize("kw, word", [({"subsample": 0.0}, "subsample"),
                                      ({"subsample": 1.5}, "subsample"),
                                      ({"n_sweeps": 0}, "n_sweeps"),
                                      ({"min_docs": 0}, "min_docs"),
                                      ({"concentration": -1.0}, "concentration")])
def test_bad_arguments_are_named(corpus, kw, word):
    with pytest.raises(InputError, match=word):
        hdp_subsample_start(corpus, 4, **kw)


def test_a_callback_that_is_not_callable_is_named_before_any_sweep(corpus):
    # the start wrapped the callback in a lambda, so CVB0's own check never saw it and the
    # first sweep ended in "'int' object is not callable" (iqa3)
    with pytest.raises(InputTypeError, match="callback must be callable or None, got int"):
        hdp_subsample_start(corpus, 4, callback=3)


@pytest.mark.parametrize("key, change, found", [
    ("weight_concentration", lambda w: w[:, :-1], r"got shape \(2, 3\)"),
    ("weight_concentration", lambda w: -w, "got minimum -"),
    ("components", lambda c: np.where(c == c.max(), np.inf, c), "got a non-finite entry"),
    ("components", lambda c: c - c.max(), "got minimum -"),
])
def test_a_bad_init_array_is_named_with_what_was_found(corpus, key, change, found):
    # the messages said only what was expected (iqa3)
    start = hdp_subsample_start(corpus, 4, n_sweeps=1, random_state=0)
    start[key] = change(start[key])
    with pytest.raises(InputError, match=rf"init\['{key}'\] must .*{found}"):
        HierarchicalDirichletProcess(4, init=start, max_iter=1).fit(corpus)
