"""``report()`` on the topic models whose ``transform`` needs side information
(DynamicTopicModel: ``times``, LabeledLDA: ``labels``, DirichletMultinomialRegression:
``covariates``): the same page as :func:`latentkit.topic.topic_report`, and no
``to_pyldavis`` (``pyldavis_data`` calls ``transform(X)`` alone, which these models refuse)."""

import json
import re

import numpy as np
import pytest

from latentkit.exceptions import InputError, NotFittedError
from latentkit.topic import (DirichletMultinomialRegression, DynamicTopicModel, LabeledLDA,
                             LatentDirichletAllocation, topic_report)

pytestmark = pytest.mark.filterwarnings("ignore::latentkit.base.ConvergenceWarning")

V = 12
VOCAB = [f"w{j}" for j in range(V)]


def _counts(n=24, seed=0):
    """Documents from two blocks of words whose mix drifts over three years."""
    rng = np.random.default_rng(seed)
    years = np.repeat([2001, 2002, 2003], n // 3)
    X = np.zeros((n, V))
    kind = []
    for d in range(n):
        first = rng.random() > 0.25 + 0.25 * (years[d] - 2001)
        kind.append("early" if first else "late")
        X[d] = np.bincount(rng.choice(np.arange(0, 6) if first else np.arange(6, 12), 15),
                           minlength=V)
    return X, years, kind


def _views(html):
    data = json.loads(re.search(r'<script id="report-data" type="application/json">(.*?)'
                                r'</script>', html, re.S).group(1))
    return {"over_time", "by_label"} & set(data)


def test_dtm_report_is_topic_report_with_times(tmp_path):
    X, years, kind = _counts()
    dtm = DynamicTopicModel(2, init="random", random_state=0, max_iter=3).fit(X, times=years)
    html = dtm.report(corpus=X, times=years, vocabulary=VOCAB, coherence_measure=None)
    assert html == topic_report(dtm, X, None, times=years, vocabulary=VOCAB,
                                coherence_measure=None)
    assert _views(html) == {"over_time"}
    # path= writes the same page; labels= adds the per-label view
    out = tmp_path / "dtm.html"
    page = dtm.report(out, X, times=years, labels=kind, coherence_measure=None)
    assert out.read_text(encoding="utf-8") == page
    assert _views(page) == {"over_time", "by_label"}
    # without a corpus: the topics and the over-time words, no times needed
    assert dtm.report(coherence_measure=None) == topic_report(dtm, coherence_measure=None)
    with pytest.raises(InputError, match="needs times="):
        dtm.report(corpus=X, coherence_measure=None)
    assert not hasattr(dtm, "to_pyldavis")


def test_labeled_lda_report_is_topic_report_with_labels():
    X, _, kind = _counts()
    labels = [[k] if d % 5 else [k, "odd"] for d, k in enumerate(kind)]
    m = LabeledLDA(n_free_components=1, random_state=0, max_iter=4).fit(X, labels=labels)
    html = m.report(corpus=X, labels=labels, coherence_measure=None)
    assert html == topic_report(m, X, None, labels=labels, coherence_measure=None)
    assert _views(html) == {"by_label"}
    # the model keeps none of its training labels: with a corpus they must be passed
    with pytest.raises(InputError, match="needs labels="):
        m.report(corpus=X, coherence_measure=None)
    assert m.report(coherence_measure=None) == topic_report(m, coherence_measure=None)
    assert not hasattr(m, "to_pyldavis")


def test_dmr_report_is_topic_report_with_covariates():
    X, years, kind = _counts()
    C = np.array([[1.0, 0.0] if k == "early" else [0.0, 1.0] for k in kind])
    m = DirichletMultinomialRegression(2, random_state=0, max_iter=3).fit(X, covariates=C)
    html = m.report(corpus=X, covariates=C, coherence_measure=None)
    assert html == topic_report(m, X, None, covariates=C, coherence_measure=None)
    assert _views(html) == {"by_label"}
    with pytest.raises(InputError, match="needs covariates="):
        m.report(corpus=X, coherence_measure=None)
    with pytest.raises(InputError, match="times= is for a model"):
        m.report(corpus=X, covariates=C, times=years, coherence_measure=None)
    assert not hasattr(m, "to_pyldavis")


def test_report_needs_a_fitted_model_and_lda_keeps_to_pyldavis():
    for m in (DynamicTopicModel(2), LabeledLDA(), DirichletMultinomialRegression(2)):
        with pytest.raises(NotFittedError):
            m.report()
    assert hasattr(LatentDirichletAllocation, "report")
    assert hasattr(LatentDirichletAllocation, "to_pyldavis")
