"""The HTML topic report: its numbers in Python, and the page driven in a real headless
Chromium (Debian's chromium + chromium-driver, through selenium).

Without a browser the browser test is skipped, unless LATENTKIT_REQUIRE_BROWSER=1 (set by
.ci/run), which turns the skip into a failure.
"""

import json
import os
import re
import shutil

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.spatial.distance import jensenshannon, pdist, squareform

import latentkit as lk
from latentkit.text import attach, load_texts
from latentkit.topic import LatentDirichletAllocation, PLSA, report_data
from latentkit.topic._report import classical_mds, relevance

pytestmark = pytest.mark.filterwarnings("ignore::latentkit.base.ConvergenceWarning")

WORDS = {
    "sea": "ship sail wave captain harbour storm anchor deck crew island",
    "farm": "cow field harvest barn wheat plough tractor sheep orchard hay",
    "city": "street tram office tower traffic market taxi subway crowd bank",
    "war": "army battle soldier general cannon siege fort rifle march victory",
    "court": "judge lawyer trial jury verdict witness court appeal prison law",
}


def _texts(n_per=12, seed=0):
    rng = np.random.default_rng(seed)
    texts = []
    names = list(WORDS)
    for i in range(n_per * len(names)):
        k = names[i % len(names)]
        own = rng.choice(WORDS[k].split(), 12).tolist()
        other = rng.choice(WORDS[names[(i + 1) % len(names)]].split(), 3).tolist()
        texts.append(f"{k.title()} story {i}. " + " ".join(own + other))
    return texts


@pytest.fixture(scope="module")
def fitted():
    corpus = load_texts(_texts(), min_df=2)
    model = LatentDirichletAllocation(n_components=5, max_iter=100, random_state=0, init="random")
    model.fit(corpus.data)
    attach(model, corpus.vectorizer)
    return model, corpus


def test_classical_mds_recovers_a_euclidean_configuration():
    rng = np.random.default_rng(0)
    P = rng.normal(size=(7, 2))
    Y = classical_mds(squareform(pdist(P)), 2)
    np.testing.assert_allclose(squareform(pdist(Y)), squareform(pdist(P)), atol=1e-10)


def test_report_numbers(fitted):
    model, corpus = fitted
    data = report_data(model, corpus, n_words=8)
    phi = model.components_ / model.components_.sum(axis=1, keepdims=True)
    K = phi.shape[0]
    # map: MDS of the Jensen-Shannon distances, so map distances approximate them
    D = np.array([[jensenshannon(phi[i], phi[j]) for j in range(K)] for i in range(K)])
    xy = np.array([[t["x"], t["y"]] for t in data["topics"]])
    np.testing.assert_allclose(xy, classical_mds(D), atol=1e-12)
    # prevalence: token-weighted mean topic proportion
    theta = model.transform(corpus.data)
    lengths = np.asarray(corpus.data.sum(axis=1)).ravel()
    prev = lengths @ theta / lengths.sum()
    np.testing.assert_allclose([t["prevalence"] for t in data["topics"]], prev, atol=1e-12)
    # the pool of every topic holds the global relevance top-8 at every lambda on the grid
    p_w = np.asarray(corpus.data.sum(axis=0)).ravel()
    p_w = p_w / p_w.sum()
    vocab = list(corpus.vocabulary)
    for lam in (0.0, 0.37, 1.0):
        rel = relevance(phi, p_w, lam)
        for k, t in enumerate(data["topics"]):
            pool_words = [data["terms"][i] for i in t["words"]]
            best = [vocab[j] for j in np.lexsort((np.arange(len(vocab)), -rel[k]))[:8]]
            assert set(best) <= set(pool_words)
    # coherence per topic equals latentkit.topic.coherence on the same corpus
    c = lk.topic.coherence(model, corpus, "c_v")
    np.testing.assert_allclose([t["coherence"] for t in data["topics"]], c.per_topic)
    # typical documents: the three largest proportions
    for k, t in enumerate(data["topics"]):
        assert [d["doc"] for d in t["docs"]] == list(np.argsort(-theta[:, k], kind="stable")[:3])
    # search: the topics where the word is most probable
    j = vocab.index("captain")
    assert data["search"]["captain"] == list(np.argsort(-phi[:, j], kind="stable")[:3])


def test_report_file_is_standalone(fitted, tmp_path):
    model, corpus = fitted
    html = model.report(tmp_path / "r.html", corpus)
    assert (tmp_path / "r.html").read_text(encoding="utf-8") == html
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", html)
    assert "<script src" not in html and "<link" not in html
    payload = re.search(r'<script id="report-data" type="application/json">(.*?)</script>',
                        html, re.S).group(1)
    assert len(json.loads(payload)["topics"]) == 5
    # PLSA and a bare count matrix (no titles, no vocabulary) work too
    X = corpus.data
    plsa = PLSA(n_components=3, max_iter=30, random_state=0).fit(X)
    assert "topic" in plsa.report(corpus=X, coherence_measure=None)
    with pytest.raises(ValueError, match="words"):
        model.report(corpus=sp.csr_matrix(np.ones((2, 3))))


# ----------------------------------------------------------------------------- real browser
# (the ``browser`` fixture: tests/conftest.py)

def test_report_in_a_real_browser(fitted, browser, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    model, corpus = fitted
    path = tmp_path / "report.html"
    model.report(path, corpus, n_words=10)
    browser.get(path.as_uri())
    assert browser.execute_script("return document.querySelectorAll('circle.topic').length") == 5

    def bars():
        return [e.get_attribute("data-word")
                for e in browser.find_elements(By.CSS_SELECTOR, "#bars .bar-row")]

    browser.find_element(By.ID, "topic-3").click()
    assert browser.find_element(By.ID, "selected").text == "topic 3"
    vocab = list(corpus.vocabulary)
    assert bars() == model.top_words(vocab, n=10)[3]  # lambda = 1: the model's order

    slider = browser.find_element(By.ID, "lambda")
    slider.send_keys(Keys.HOME)  # the keyboard moves the range input to its minimum, 0
    assert browser.find_element(By.ID, "lambda-value").text == "0.00"
    phi = model.components_ / model.components_.sum(axis=1, keepdims=True)
    p_w = np.asarray(corpus.data.sum(axis=0)).ravel() / corpus.data.sum()
    rel = relevance(phi, p_w, 0.0)[3]
    expected = [vocab[j] for j in np.lexsort((np.arange(len(vocab)), -rel))[:10]]
    assert bars() == expected
    assert expected != model.top_words(vocab, n=10)[3]  # the slider changed the order

    box = browser.find_element(By.ID, "search")
    box.send_keys("captain", Keys.ENTER)
    lit = sorted(int(e.get_attribute("data-topic"))
                 for e in browser.find_elements(By.CSS_SELECTOR, "circle.topic.highlight"))
    j = vocab.index("captain")
    assert lit == sorted(np.argsort(-phi[:, j], kind="stable")[:3].tolist())
    assert "captain" in browser.find_element(By.ID, "found").text

    shot = tmp_path / "report.png"
    assert browser.save_screenshot(str(shot))
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 10_000
    keep = os.environ.get("LATENTKIT_SCREENSHOT_DIR")
    if keep:
        shutil.copy(shot, os.path.join(keep, "report.png"))
