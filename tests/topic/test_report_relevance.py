"""The ends of the report's relevance (Sievert & Shirley 2014, eq. 1; issue 33, item 7), with
no browser: at lambda = 1 relevance is log p(w|t), at lambda = 0 the log lift
log(p(w|t)/p(w)); the report's word pools hold the top words of both ends, and the page's
ranking formula has the same ends."""

import re

import numpy as np
import pytest

from latentkit.topic import report_data, topic_report
from latentkit.topic._report import relevance


class _Topics:
    """A fitted-looking topic model: only ``components_`` (K, W)."""

    def __init__(self, components):
        self.components_ = components


@pytest.fixture
def phi_pw():
    rng = np.random.default_rng(0)
    phi = rng.dirichlet(np.full(12, 0.4), size=3)
    p_w = rng.dirichlet(np.ones(12))
    return phi, p_w


def test_relevance_ends_and_middle(phi_pw):
    phi, p_w = phi_pw
    np.testing.assert_allclose(relevance(phi, p_w, 1.0), np.log(phi), rtol=1e-13)
    np.testing.assert_allclose(relevance(phi, p_w, 0.0), np.log(phi / p_w[None, :]), rtol=1e-12)
    lam = 0.3
    np.testing.assert_allclose(relevance(phi, p_w, lam),
                               lam * np.log(phi) + (1 - lam) * np.log(phi / p_w), rtol=1e-12)


def test_report_pools_and_page_formula_have_the_right_ends(phi_pw):
    phi, _ = phi_pw
    model = _Topics(phi * 50.0)
    vocab = [f"w{j}" for j in range(phi.shape[1])]
    data = report_data(model, None, vocabulary=vocab, n_words=3, coherence_measure=None)
    p_w = np.full(3, 1 / 3) @ phi  # the model's marginal (equal prevalence without a prior)
    for k, t in enumerate(data["topics"]):
        pool = [vocab.index(data["terms"][i]) for i in t["words"]]
        np.testing.assert_allclose(t["logp"], np.log(phi[k, pool]), rtol=1e-12)
        np.testing.assert_allclose(t["loglift"], np.log(phi[k, pool] / p_w[pool]), rtol=1e-12)
        top_prob = np.argsort(-phi[k], kind="stable")[:3]
        top_lift = np.argsort(-phi[k] / p_w, kind="stable")[:3]
        assert set(top_prob) <= set(pool) and set(top_lift) <= set(pool)
    # the page ranks by the same formula: read it from the page, evaluate its ends
    page = topic_report(model, None, vocabulary=vocab, n_words=3, coherence_measure=None)
    found = re.search(r"var rel = t\.words\.map\(function\(_, i\)\{ return (.+?); \}\);", page)
    assert found, "the page's relevance formula was not found"
    expr = found.group(1).replace("t.logp[i]", "logp").replace("t.loglift[i]", "loglift")
    assert re.fullmatch(r"[\w\s.*+()\-]+", expr), expr
    for lam, want in ((1.0, "logp"), (0.0, "loglift")):
        value = eval(expr, {}, {"lam": lam, "logp": 2.0, "loglift": 7.0})  # noqa: S307
        assert value == {"logp": 2.0, "loglift": 7.0}[want]
