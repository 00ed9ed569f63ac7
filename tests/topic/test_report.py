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
from latentkit.text import attach, load_texts, load_texts_for
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
    # typical documents: the ten largest proportions (all texts differ here), with the share
    for k, t in enumerate(data["topics"]):
        assert [d["doc"] for d in t["docs"]] == list(np.argsort(-theta[:, k], kind="stable")[:10])
        np.testing.assert_allclose([d["share"] for d in t["docs"]],
                                   np.sort(theta[:, k])[::-1][:10])
    # search: every topic's share of the word's tokens, p(t|w) = p(w|t) p(t) / sum (Bayes)
    j = vocab.index("captain")
    joint = phi[:, j] * prev
    np.testing.assert_allclose(data["search"]["captain"], joint / joint.sum(), atol=5e-4)
    # before a click: the most salient words, p(w) KL(p(t|w) || p(t)) (Chuang et al. 2012)
    post = phi * prev[:, None] / (phi * prev[:, None]).sum(axis=0)
    sal = p_w * np.array([sum(post[k, w] * np.log(post[k, w] / prev[k]) for k in range(K))
                          for w in range(len(vocab))])
    best = [vocab[j] for j in np.argsort(-sal, kind="stable")[:8]]
    assert [data["terms"][i] for i in data["overall"]["words"]] == best
    np.testing.assert_allclose(data["overall"]["saliency"], np.sort(sal)[::-1][:8], rtol=1e-12)


def test_typical_documents_once_each_and_titled_by_a_column(fitted, tmp_path):
    model, _ = fitted
    texts = _texts()
    rows = [{"text": t, "name": f"item-{i}"} for i, t in enumerate(texts + texts[:30])]
    path = tmp_path / "docs.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    corpus = load_texts_for(model, path)
    theta = model.transform(corpus.data)
    data = report_data(model, corpus, n_docs=7, title_column="name", coherence_measure=None)
    for k, t in enumerate(data["topics"]):
        seen, expect = set(), []
        for d in np.argsort(-theta[:, k], kind="stable"):
            if rows[d]["text"] not in seen and len(expect) < 7:
                seen.add(rows[d]["text"])
                expect.append(int(d))
        assert [d["doc"] for d in t["docs"]] == expect
        assert [d["title"] for d in t["docs"]] == [rows[d]["name"] for d in expect]
    # with duplicates in the corpus, plain top-7 would repeat a text in some topic
    assert any(len({rows[d]["text"] for d in np.argsort(-theta[:, k], kind="stable")[:7]}) < 7
               for k in range(theta.shape[1]))
    with pytest.raises(ValueError, match="'title'.*columns: name"):
        report_data(model, corpus, title_column="title")
    with pytest.raises(ValueError, match="n_docs"):
        report_data(model, corpus, n_docs=0)


@pytest.mark.parametrize("kwargs, match", [
    (dict(n_words=0), "n_words must be an integer >= 1, got 0"),
    (dict(n_words=-3), "n_words must be an integer >= 1, got -3"),
    (dict(top_n=0), "top_n must be an integer >= 1, got 0"),
    (dict(coherence_measure="cv"), "coherence_measure must be one of .* got 'cv'"),
])
def test_bad_report_arguments_are_errors(fitted, kwargs, match):
    # a misspelt measure used to leave the coherence column out without a word, and n_words <= 0
    # wrote a report with an empty (or end-sliced) overall bar chart
    model, corpus = fitted
    with pytest.raises(ValueError, match=match):
        report_data(model, corpus, **kwargs)


def test_report_command_title_column_and_n_docs(fitted, tmp_path, capsys):
    import io

    from latentkit import cli

    model, _ = fitted
    texts = _texts()
    path = tmp_path / "docs.jsonl"
    path.write_text("".join(json.dumps({"text": t, "name": f"item-{i}"}) + "\n"
                            for i, t in enumerate(texts + texts[:5])), encoding="utf-8")
    lk.save(model, tmp_path / "m.npz")
    out = io.StringIO()
    argv = ["report", str(tmp_path / "m.npz"), "--text", str(path), "--out",
            str(tmp_path / "r.html"), "--measure", "none"]
    assert cli.main(argv + ["--title-column", "name", "--n-docs", "4"], out=out) == 0
    html = (tmp_path / "r.html").read_text(encoding="utf-8")
    data = json.loads(re.search(r'<script id="report-data" type="application/json">(.*?)'
                                r'</script>', html, re.S).group(1))
    assert all(len(t["docs"]) == 4 and all(d["title"].startswith("item-") for d in t["docs"])
               for t in data["topics"])
    capsys.readouterr()
    assert cli.main(argv + ["--title-column", "nom"], out=out) != 0
    assert "--title-column 'nom': no such column" in capsys.readouterr().err


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

@pytest.mark.slow
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
                for e in browser.find_elements(By.CSS_SELECTOR, "#bars .bar-row[data-word]")]

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
    theta = model.transform(corpus.data)
    lengths = np.asarray(corpus.data.sum(axis=1)).ravel()
    prev = lengths @ theta / lengths.sum()
    share = phi[:, j] * prev / (phi[:, j] * prev).sum()  # p(t | captain)
    shown = np.array(report_data(model, corpus, coherence_measure=None)["search"]["captain"])
    np.testing.assert_allclose(shown, share, atol=5e-4)  # p(t|w) to 3 decimals in the page
    assert lit == sorted(np.argsort(-shown, kind="stable")[:3].tolist())
    assert "captain" in browser.find_element(By.ID, "found").text
    # the circles are resized as LDAvis does: area proportional to p(t|w), 100% = largest radius
    r = np.array([float(browser.find_element(By.ID, f"topic-{k}").get_attribute("r"))
                  for k in range(5)])
    big = share > 0.01  # the smallest circles keep a clickable minimum radius
    np.testing.assert_allclose((r[big] / r.max()) ** 2, share[big] / share.max(), atol=2e-3)
    browser.find_element(By.ID, "reset").click()
    r0 = np.array([float(browser.find_element(By.ID, f"topic-{k}").get_attribute("r"))
                   for k in range(5)])
    np.testing.assert_allclose((r0 / r0.max()) ** 2, prev / prev.max(), rtol=1e-6)


@pytest.fixture(scope="module")
def fitted12(fitted):
    corpus = fitted[1]
    model = LatentDirichletAllocation(n_components=12, max_iter=100, random_state=0,
                                      init="random").fit(corpus.data)
    attach(model, corpus.vectorizer)
    return model, corpus


_GEOMETRY = """
var box = function(e){ var r = e.getBoundingClientRect();
  return [r.left, r.top, r.right, r.bottom]; };
return {w: window.innerWidth, h: window.innerHeight,
        scroll: document.documentElement.scrollWidth,
        map: box(document.getElementById('map')), panel: box(document.getElementById('panel')),
        circles: Array.from(document.querySelectorAll('circle.topic')).map(box)};
"""


@pytest.mark.slow
@pytest.mark.parametrize("width", [800, 1400])
def test_report_layout_in_a_real_browser(fitted12, browser, tmp_path, width):
    from selenium.webdriver.common.by import By

    model, corpus = fitted12
    path = tmp_path / "report.html"
    data = report_data(model, corpus, n_words=12)
    model.report(path, corpus, n_words=12)
    browser.set_window_size(width, 900)
    browser.get(path.as_uri())
    g = browser.execute_script(_GEOMETRY)
    assert g["w"] == width and g["scroll"] <= g["w"]  # nothing to scroll to sideways
    assert len(g["circles"]) == 12
    for left, top, right, bottom in g["circles"] + [g["map"], g["panel"]]:
        assert 0 <= left and right <= g["w"] and 0 <= top and bottom <= g["h"]
    for left, top, right, bottom in g["circles"]:  # not clipped by the map either
        assert (g["map"][0] <= left and right <= g["map"][2]
                and g["map"][1] <= top and bottom <= g["map"][3])

    # before any click: the corpus's most salient words, as report_data ranks them
    rows = browser.find_elements(By.CSS_SELECTOR, "#bars .bar-row[data-word]")
    assert [e.get_attribute("data-word") for e in rows] == [
        data["terms"][i] for i in data["overall"]["words"]]

    # size legend: same scale as the map (area proportional to prevalence)
    prev = np.array([t["prevalence"] for t in data["topics"]])
    legend = [(float(c.get_attribute("data-value")), float(c.get_attribute("r")))
              for c in browser.find_elements(By.CSS_SELECTOR, "#legend circle")]
    assert len(legend) == 3 and legend[0][0] <= prev.max()
    r = np.array([float(browser.find_element(By.ID, f"topic-{k}").get_attribute("r"))
                  for k in range(12)])
    v1, r1 = legend[0]
    big = r > 3.5  # above the minimum radius
    np.testing.assert_allclose((r[big] / r1) ** 2, prev[big] / v1, rtol=1e-6)
    for v, rv in legend:
        assert (rv / r1) ** 2 == pytest.approx(v / v1, rel=1e-6)

    # bar scale: each bar's length over its track = value / the axis's last tick
    browser.find_element(By.ID, f"topic-{int(np.argmax(prev))}").click()
    bars = browser.execute_script("""
      var axisMax = +document.getElementById('bars').getAttribute('data-axis-max');
      var ticks = Array.from(document.querySelectorAll('#axis .tick'));
      var out = {axisMax: axisMax, ticks: ticks.map(function(t){ return +t.getAttribute('data-value'); }),
                 rows: []};
      document.querySelectorAll('#bars .bar-row[data-word] .track > span').forEach(function(b){
        out.rows.push([+b.getAttribute('data-value'), b.getBoundingClientRect().width,
                       b.parentNode.getBoundingClientRect().width]); });
      return out;""")
    assert bars["ticks"][0] == 0 and bars["ticks"][-1] == pytest.approx(bars["axisMax"])
    assert np.allclose(np.diff(bars["ticks"]), np.diff(bars["ticks"])[0])
    vals = np.array(bars["rows"])
    assert vals[:, 0].max() <= bars["axisMax"] and len(vals) >= 24
    np.testing.assert_allclose(vals[:, 1], vals[:, 0] / bars["axisMax"] * vals[:, 2], atol=1.0)

    browser.find_element(By.ID, "reset").click()
    shot = tmp_path / f"report_{width}.png"
    assert browser.save_screenshot(str(shot))
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 10_000
    keep = os.environ.get("LATENTKIT_SCREENSHOT_DIR")
    if keep:
        shutil.copy(shot, os.path.join(keep, f"report_{width}.png"))


def test_equal_topics_do_not_break_the_map():
    """Unused topics left at the prior are equal; scipy's Jensen-Shannon distance between
    them came out NaN (a square root of -1e-17) and the map's eigendecomposition failed
    ('Eigenvalues did not converge', the README's raw-text report on 48 documents, K = 10)."""
    import numpy as np
    from latentkit.topic import LatentDirichletAllocation, report_data
    X = np.random.default_rng(0).poisson(1.0, size=(30, 12)).astype(float)
    lda = LatentDirichletAllocation(n_components=4, max_iter=3, random_state=0).fit(X)
    rng = np.random.default_rng(1)
    for _ in range(5):  # equal up to rounding: half such pairs gave NaN
        lda.components_[3] = lda.components_[2] * (1 + rng.normal(scale=1e-15, size=12))
        data = report_data(lda, X)
        xy = np.array([[t["x"], t["y"]] for t in data["topics"]])
        assert np.all(np.isfinite(xy))
        assert np.allclose(xy[2], xy[3])
