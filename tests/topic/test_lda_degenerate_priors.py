"""Learned LDA priors on degenerate data, and the range of ``seed_confidence`` (QA of issue 31).

* One component (K = 1 for ``doc_topic_prior``): ``E[log theta] = 0`` and the Dirichlet
  objective does not depend on alpha (closed form: the prior stays where it is), where the
  Newton step divided 0 by 0.
* One draw (one document for alpha, one topic for eta): the empirical-Bayes estimate does not
  exist; the fit says so with a ConvergenceWarning naming the prior.
* ``seed_confidence`` so large that the seeded prior overflows is named with its range.
"""

import warnings

from latentkit.inference import StochasticVI

import numpy as np
import pytest
from scipy.special import gammaln, psi

from latentkit.exceptions import ConvergenceWarning, PriorDivergenceWarning
from latentkit.topic import LatentDirichletAllocation
from latentkit.topic._lda_priors import _objective, dirichlet_newton_step, fit_dirichlet_prior

ONE_DOC = np.array([[3, 1, 0, 2]])
DOCS = np.array([[3, 1, 0, 2], [0, 2, 4, 1], [1, 0, 2, 3]])


def test_one_component_prior_is_its_own_closed_form():
    # K = 1: logphat = psi(g) - psi(g) = 0 and f(a) = n (lnG(a) - lnG(a)) = 0 for every a
    assert _objective(np.array([0.3]), 5.0, np.zeros(1)) == 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # was: RuntimeWarning 'invalid value' (0 / 0)
        assert fit_dirichlet_prior(np.array([0.3]), 5.0, np.zeros(1)).tolist() == [0.3]
        assert dirichlet_newton_step(np.array([0.3]), 5.0, np.zeros(1), 0.5).tolist() == [0.3]
        model = LatentDirichletAllocation(1, doc_topic_prior="auto", random_state=0).fit(DOCS)
    assert model.doc_topic_prior_.tolist() == [1.0]


def test_one_document_alpha_warns_and_the_m_step_matches_the_single_draw_optimum():
    with pytest.warns(ConvergenceWarning, match=r"doc_topic_prior='auto'.*single draw "
                                                r"\(one document\)") as rec:
        LatentDirichletAllocation(2, doc_topic_prior="auto", max_iter=3, tol=1e6,
                                  random_state=0).fit(ONE_DOC)
    named = [w for w in rec if "doc_topic_prior" in str(w.message)]
    assert len(named) == 1 and named[0].filename == __file__
    # why it cannot converge: from one draw with mean logs psi(g) - psi(sum g), the maximiser
    # is g itself, so each M-step sets alpha to that document's posterior alpha + n_dk
    g = np.array([2.5, 4.5])
    a = fit_dirichlet_prior(np.array([0.5, 0.5]), 1.0, psi(g) - psi(g.sum()))
    np.testing.assert_allclose(a, g, rtol=1e-8)
    f = lambda x: gammaln(x.sum()) - gammaln(x).sum() + np.dot(x - 1, psi(g) - psi(g.sum()))
    assert f(a) >= f(0.9 * g) and f(a) >= f(1.1 * g)


@pytest.mark.parametrize("method", ["batch", "online"])
def test_one_topic_eta_warns(method):
    with pytest.warns(ConvergenceWarning, match=r"topic_word_prior='auto'.*single draw "
                                                r"\(one topic\).*n_components > 1"):
        model = LatentDirichletAllocation(1, topic_word_prior="auto", max_iter=2, tol=1e6,
                                          random_state=0)
        if method == "batch":
            model.fit(DOCS)
        else:  # online VB: the StochasticVI driver over LDA's step
            StochasticVI(model, n_epochs=2, random_state=0).fit(DOCS)


def test_enough_documents_and_topics_do_not_warn():
    # no single-draw warning: 3 documents and 2 topics are more than one draw. On these 3
    # documents alpha's maximum does not exist all the same (sum 7.3 -> 3167 in 500 iterations
    # with tol=0 on main, a linear walk): that is the PriorDivergenceWarning of issue 48
    # (tests/topic/test_lda_prior_divergence.py), the one warning left
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        LatentDirichletAllocation(2, doc_topic_prior="auto", topic_word_prior="auto",
                                  max_iter=500, random_state=0).fit(DOCS)
    conv = [w for w in rec if issubclass(w.category, ConvergenceWarning)]
    assert [w.category for w in conv] == [PriorDivergenceWarning]
    assert "single draw" not in str(conv[0].message)


def test_seed_confidence_too_large_is_named_with_its_range():
    # the seed word (column 2) occurs 6 times: 6 c <= 1e300
    model = LatentDirichletAllocation(2, seed_topics={0: [2]}, seed_confidence=1e308)
    with pytest.raises(ValueError, match=r"seed_confidence=1e\+308 is too large.*up to 6.*"
                                         r"0 < seed_confidence <= 1\.67e\+299"):
        model.fit(DOCS)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        fitted = LatentDirichletAllocation(2, seed_topics={0: [2]}, seed_confidence=1.6e299,
                                           max_iter=3, random_state=0).fit(DOCS)
    assert np.all(np.isfinite(fitted.components_)) and np.isfinite(fitted.lower_bound_)
