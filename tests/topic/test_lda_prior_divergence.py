"""Learned alpha where no maximum exists (issue 48, item 3): the batch fixed-point iteration of
``doc_topic_prior='auto'`` diverges on one-word documents and near-duplicate documents (alpha
grows without bound) and on one topic per document (alpha shrinks to 0). The fit detects it
(:func:`latentkit.topic._lda_priors.prior_divergence`), holds alpha there and warns once with
the cause; on a planted corpus nothing is flagged and alpha is the maximiser (1e-4)."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.special import psi

from latentkit.datasets import make_lda_corpus
from latentkit.exceptions import ConvergenceWarning, PriorDivergenceWarning
from latentkit.topic import LatentDirichletAllocation
from latentkit.topic._lda_priors import (DIVERGENCE_WINDOW, fit_dirichlet_prior,
                                         prior_divergence)

D, V, K = 300, 30, 3


def _one_word():
    rng = np.random.default_rng(0)
    return sp.csr_matrix((np.ones(D), (np.arange(D), rng.integers(0, V, D))), shape=(D, V))


def _near_duplicates():
    rng = np.random.default_rng(1)
    X = np.tile(rng.poisson(2.0, V).astype(float), (D, 1))
    X[np.arange(D), rng.integers(0, V, D)] += 1.0  # one extra token each
    return sp.csr_matrix(X)


def _one_topic_per_document():
    rng = np.random.default_rng(2)
    X = np.zeros((D, V))
    for d in range(D):  # K disjoint vocabularies; document d uses that of topic d mod K
        k = d % K
        X[d, 10 * k:10 * (k + 1)] = rng.poisson(3.0, 10)
    return sp.csr_matrix(X)


CORPORA = {"one_word": (_one_word, 1, "look alike"),
           "near_duplicates": (_near_duplicates, 1, "look alike"),
           "one_topic_per_document": (_one_topic_per_document, -1, "single topic")}


def _fit(X, max_iter, **kw):
    # init='cvb0': the default start without its check against a random start (which keeps
    # the random start on these corpora, whose alpha then diverges elsewhere): the subject
    # here is the prior, from the start these cases were written for
    kw.setdefault("init", "cvb0")
    return LatentDirichletAllocation(K, doc_topic_prior="auto", tol=0, max_iter=max_iter,
                                     random_state=0, **kw).fit(X)


@pytest.mark.parametrize("name", list(CORPORA))
def test_diverging_alpha_is_held_and_warned_once_with_the_cause(name):
    make, direction, cause = CORPORA[name]
    X = make()
    trace = [1.0]  # sum of alpha at the start (1/K each) and after every M-step
    with pytest.warns(PriorDivergenceWarning, match=cause) as rec:
        m = _fit(X, 60, callback=lambda m, i, e: trace.append(float(m.doc_topic_prior_.sum())))
    named = [w for w in rec if issubclass(w.category, PriorDivergenceWarning)]
    assert len(named) == 1 and named[0].filename == __file__  # once, at the user's call
    assert issubclass(PriorDivergenceWarning, ConvergenceWarning)
    # detected within a few steps of the window, then held: the bound does not move
    trace = np.array(trace)
    held = int(np.argmax(np.diff(trace) == 0))
    assert DIVERGENCE_WINDOW <= held <= DIVERGENCE_WINDOW + 5
    assert np.all(trace[held:] == trace[-1]) and m.doc_topic_prior_.sum() == trace[-1]
    # it was diverging: monotone, the way the cause says (main: 67 -> unbounded, or -> 0)
    assert np.sign(trace[held] - trace[0]) == direction
    assert np.all(np.isfinite(m.components_)) and np.all(np.diff(m.lower_bounds_) >= -1e-9)
    # without the rule it keeps going: one more batch step from the held alpha moves it on
    stats = m._e_step(m._validate_data(X, reset=False))
    free = fit_dirichlet_prior(m.doc_topic_prior_, stats.n, stats.elog_theta / stats.n)
    assert np.sign(free.sum() - m.doc_topic_prior_.sum()) == direction


class _Recorded(LatentDirichletAllocation):
    """Keeps the statistics of its last M-step (those the learned alpha is fitted to)."""

    def _m_step(self, stats, step_size=None, scale=1.0):
        self.last_stats_ = stats
        super()._m_step(stats, step_size, scale)


def test_planted_alpha_is_not_flagged_and_is_the_maximiser():
    alpha = np.array([0.8, 0.4, 0.15, 0.06])
    X, _ = make_lda_corpus(n_docs=400, n_components=4, vocab_size=120, doc_length=60,
                           doc_topic_prior=alpha, topic_word_prior=0.05, random_state=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PriorDivergenceWarning)
        m = _Recorded(4, doc_topic_prior="auto", tol=0, max_iter=150, init="random",
                      random_state=0).fit(X)
    # every batch M-step is the maximiser of the Dirichlet objective at its statistics: the
    # last one, found again from another start, where the gradient vanishes (closed form:
    # psi(sum a) - psi(a_k) + mean_d E[log theta_dk] = 0); 1e-4 relative
    stats = m.last_stats_
    logphat = stats.elog_theta / stats.n
    best = fit_dirichlet_prior(np.ones(4), stats.n, logphat)
    np.testing.assert_allclose(psi(best.sum()) - psi(best) + logphat, 0.0, atol=1e-9)
    np.testing.assert_allclose(m.doc_topic_prior_, best, rtol=1e-4)
    np.testing.assert_allclose(np.sort(m.doc_topic_prior_), np.sort(alpha), rtol=0.3)


def test_prior_divergence_on_closed_form_traces():
    t = np.arange(1.0, 40.0)
    assert prior_divergence(2.0 + 0.5 * t) == 1  # linear growth (one word, near-duplicates)
    assert prior_divergence(1.0 / (3.0 * t)) == -1  # 1/t shrinkage (one topic per document)
    assert prior_divergence(5.0 - 4.0 * 0.9 ** t) == 0  # geometric convergence, r = 0.9
    assert prior_divergence(5.0 + 4.0 * 0.8 ** t) == 0  # from above
    assert prior_divergence((2.0 + 0.5 * t)[:DIVERGENCE_WINDOW]) == 0  # too few steps
    s = 2.0 + 0.5 * t
    s[-5] = s[-6]  # a step that does not move (the gradient's sign is not kept)
    assert prior_divergence(s) == 0
    assert prior_divergence(100.0 + 0.01 * t) == 0  # steady but moving by < 20 %
    # accelerating out of a turn (an overshoot returning): not steady
    assert prior_divergence(30.0 - 6.0 * (1 - 0.9 ** (t - 1)) ** 2) == 0
