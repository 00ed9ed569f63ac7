"""``to_pyldavis``: its dict drives the real ``pyLDAvis.prepare``, whose topic order and relevance
rankings are checked against the report's numbers (Sievert & Shirley 2014, eq. 1)."""

import inspect

import numpy as np
import pytest

from latentkit.text import attach, load_texts
from latentkit.topic import LatentDirichletAllocation, PLSA, report_data
from latentkit.topic._report import relevance

pyLDAvis = pytest.importorskip("pyLDAvis")

pytestmark = pytest.mark.filterwarnings("ignore::latentkit.base.ConvergenceWarning")

WORDS = {"sea": "ship sail wave captain harbour storm anchor deck crew island",
         "farm": "cow field harvest barn wheat plough tractor sheep orchard hay",
         "court": "judge lawyer trial jury verdict witness court appeal prison law"}
R = 10


def _corpus():
    rng = np.random.default_rng(0)
    names = list(WORDS)
    texts = []
    for k, n_docs in zip(names, (24, 14, 6)):  # unequal prevalence: the sorted order is known
        for i in range(n_docs):
            own = rng.choice(WORDS[k].split(), 12, p=np.linspace(2, 1, 10) / 15).tolist()
            other = rng.choice(WORDS[names[(names.index(k) + 1) % 3]].split(), 2).tolist()
            texts.append(" ".join(own + other))
    return load_texts(texts)


@pytest.fixture(scope="module", params=["lda", "plsa"])
def fitted(request):
    corpus = _corpus()
    if request.param == "lda":
        model = LatentDirichletAllocation(n_components=3, max_iter=100, random_state=0)
    else:
        model = PLSA(n_components=3, max_iter=300, random_state=0)
    model.fit(corpus.data)
    attach(model, corpus.vectorizer)  # as a fit on texts: the model carries its vocabulary
    return model, corpus


def _is_top_ranking(order, scores, n, tol):
    """``order`` (n column ids) is the top-n of ``scores`` by decreasing score, up to ``tol``
    (pyLDAvis rounds log p and log lift to 4 decimals, so exact near-ties may swap)."""
    s = scores[order]
    rest = np.delete(scores, order)
    return len(order) == n and np.all(np.diff(s) <= tol) and s.min() >= rest.max() - tol


def test_keyword_arguments_are_prepare_s(fitted):
    model, corpus = fitted
    data = model.to_pyldavis(corpus.data)
    required = {name for name, p in inspect.signature(pyLDAvis.prepare).parameters.items()
                if p.default is inspect.Parameter.empty}
    assert set(data) == required
    X = corpus.data
    np.testing.assert_allclose(data["topic_term_dists"].sum(axis=1), 1.0, atol=1e-12)
    np.testing.assert_allclose(data["doc_topic_dists"], model.transform(X), atol=0)
    np.testing.assert_array_equal(data["doc_lengths"], np.asarray(X.sum(axis=1)).ravel())
    np.testing.assert_array_equal(data["term_frequency"], np.asarray(X.sum(axis=0)).ravel())
    assert data["vocab"] == list(corpus.vocabulary)  # the model's saved vocabulary
    # raw texts go through the saved vectorizer: the same dict
    from_texts = model.to_pyldavis(corpus.texts)
    np.testing.assert_allclose(from_texts["doc_topic_dists"], data["doc_topic_dists"], atol=1e-12)
    # the input is not mutated
    before = X.copy()
    model.to_pyldavis(X)
    assert (X != before).nnz == 0


def test_prepare_topic_order_and_relevance_match_the_report(fitted):
    model, corpus = fitted
    data = model.to_pyldavis(corpus.data)
    report = report_data(model, corpus, n_words=R, coherence_measure=None)
    prevalence = np.array([t["prevalence"] for t in report["topics"]])
    K = len(prevalence)

    sorted_vis = pyLDAvis.prepare(**data, sort_topics=True, mds="pcoa", n_jobs=1, R=R)
    assert sorted_vis.topic_order == [int(k) + 1 for k in np.argsort(-prevalence)]
    vis = pyLDAvis.prepare(**data, sort_topics=False, mds="pcoa", n_jobs=1, R=R)
    assert vis.topic_order == list(range(1, K + 1))
    np.testing.assert_allclose(vis.topic_coordinates["Freq"].to_numpy(), 100 * prevalence,
                               rtol=1e-10)

    phi = data["topic_term_dists"]
    # pyLDAvis's p(w): the model's marginal under the token-weighted topic proportions
    p_w_model = prevalence @ phi
    vocab_index = {w: j for j, w in enumerate(data["vocab"])}
    info = vis.topic_info
    for k in range(K):
        rows = info[info["Category"] == f"Topic{k + 1}"]
        ids = np.array([vocab_index[w] for w in rows["Term"]])
        for lam in (0.6, 1.0):
            # the ranking pyLDAvis's page shows: lam * logprob + (1 - lam) * loglift, top R
            shown = lam * rows["logprob"].to_numpy() + (1 - lam) * rows["loglift"].to_numpy()
            order = ids[np.lexsort((ids, -shown))][:R]
            ours = relevance(phi[k:k + 1], p_w_model, lam)[0]
            assert _is_top_ranking(order, ours, R, tol=1e-4), (k, lam)
        # lambda = 1 needs no p(w): the report's own ranking (its logp) is pyLDAvis's
        t = report["topics"][k]
        terms = [report["terms"][i] for i in t["words"]]
        ours = np.full(len(vocab_index), -np.inf)
        ours[[vocab_index[w] for w in terms]] = t["logp"]
        shown = rows["logprob"].to_numpy()
        assert _is_top_ranking(ids[np.lexsort((ids, -shown))][:R], ours, R, tol=1e-4), k


def test_vocabulary_argument_and_errors(fitted):
    model, corpus = fitted
    words = [w.upper() for w in corpus.vocabulary]
    assert model.to_pyldavis(corpus.data, vocabulary=words)["vocab"] == words
    with pytest.raises(ValueError, match="vocabulary must have"):
        model.to_pyldavis(corpus.data, vocabulary=words[:-1])
    with pytest.raises(ValueError, match="corpus has"):
        model.to_pyldavis(corpus.data[:, :-1])
    with pytest.raises(ValueError, match="corpus must be given"):
        model.to_pyldavis(None)


def test_count_fit_without_vocabulary_uses_column_ids():
    X = np.random.default_rng(1).poisson(1.0, size=(20, 12))
    model = PLSA(n_components=2, max_iter=50, random_state=0).fit(X)
    data = model.to_pyldavis(X)
    assert data["vocab"] == [str(j) for j in range(12)]
    vis = pyLDAvis.prepare(**data, sort_topics=False, mds="pcoa", n_jobs=1)
    assert vis.topic_order == [1, 2]
