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


# ------------------------------------------------------------------ a path, and offline pages
# (issue 47, item 4: ``to_pyldavis("file.jsonl")`` raised "could not convert string to float",
# and the page saved by pyLDAvis.save_html was blank offline.)

def _write_jsonl(path, texts):
    import json
    path.write_text("".join(json.dumps({"text": t}) + "\n" for t in texts), encoding="utf-8")


def test_a_path_is_read_with_the_model_s_vectorizer(fitted, tmp_path):
    model, corpus = fitted
    f = tmp_path / "docs.jsonl"
    _write_jsonl(f, corpus.texts)
    from_path = model.to_pyldavis(str(f))
    from_texts = model.to_pyldavis(list(corpus.texts))
    for key in ("topic_term_dists", "doc_topic_dists", "doc_lengths", "term_frequency"):
        np.testing.assert_array_equal(from_path[key], from_texts[key])
    assert from_path["vocab"] == from_texts["vocab"] == list(corpus.vocabulary)
    # a pathlib.Path too
    np.testing.assert_array_equal(model.to_pyldavis(f)["doc_lengths"], from_texts["doc_lengths"])


def test_a_path_that_does_not_exist_says_it_was_read_as_a_path(fitted):
    model, _ = fitted
    from latentkit.exceptions import InputError
    with pytest.raises(InputError, match=r"corpus: got the string 'file\.jsonl', which is read "
                                         r"as a path.*no such file"):
        model.to_pyldavis("file.jsonl")


def test_a_path_for_a_model_not_fitted_on_texts_is_refused(tmp_path):
    from latentkit.exceptions import InputError
    X = np.random.default_rng(0).poisson(1.0, size=(20, 8))
    lda = LatentDirichletAllocation(n_components=2, max_iter=3, random_state=0).fit(X)
    f = tmp_path / "docs.txt"
    f.write_text("a b c\nd e f\n", encoding="utf-8")
    with pytest.raises(InputError, match="was not fitted on raw texts"):
        lda.to_pyldavis(f)


def test_saved_page_needs_no_network(fitted, tmp_path):
    from latentkit.topic import save_pyldavis_html
    model, corpus = fitted
    vis = pyLDAvis.prepare(**model.to_pyldavis(corpus), sort_topics=False, n_jobs=1)
    out = save_pyldavis_html(vis, tmp_path / "topics.html")
    html = out.read_text(encoding="utf-8")
    import re
    remote = re.findall(r"""(?:src|href)\s*=\s*["'](https?:)?//""", html)
    assert not remote, "the page links a remote script or stylesheet"
    assert re.findall(r"https?://[^\"' ]+\.(?:js|css)", html) == []
    for name in ("d3.v5.min.js", "ldavis.v3.0.0.js", "ldavis.v1.0.0.css"):
        assert (tmp_path / "topics_files" / name).is_file()
        assert f"topics_files/{name}" in html


@pytest.mark.slow  # quick tier: over 2 s on 2 quiet cores (tools/quick_tier.py)
def test_saved_page_renders_offline_in_a_browser(fitted, tmp_path, browser):
    """The machine's tests have no internet: a page that needs the CDN stays blank here."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait
    from latentkit.topic import save_pyldavis_html
    model, corpus = fitted
    vis = pyLDAvis.prepare(**model.to_pyldavis(corpus), sort_topics=False, n_jobs=1)
    out = save_pyldavis_html(vis, tmp_path / "topics.html")
    browser.get(out.as_uri())
    WebDriverWait(browser, 20).until(
        lambda d: len(d.find_elements(By.CSS_SELECTOR, "svg circle")) >= 3)
    circles = browser.find_elements(By.CSS_SELECTOR, "svg circle")
    assert len(circles) >= 3  # one circle per topic (3 topics)
