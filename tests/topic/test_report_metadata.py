"""The topic report's metadata views: over time (DynamicTopicModel) and by label (LabeledLDA,
DirichletMultinomialRegression, or any grouping). Every number of a view is recomputed here
from the fitted model's own methods (``transform``, ``topic_word_distributions``,
``top_words``); the pages are driven in a real headless Chromium (tests/conftest.py's
``browser``; slow)."""

import io
import json
import re

import numpy as np
import pytest

from latentkit.exceptions import InputError
from latentkit.topic import (DirichletMultinomialRegression, DynamicTopicModel, LabeledLDA,
                             LatentDirichletAllocation, report_data, topic_report)

pytestmark = pytest.mark.filterwarnings("ignore::latentkit.base.ConvergenceWarning")

V = 16
VOCAB = [f"w{j}" for j in range(V)]


def _counts(n=48, seed=0):
    """Documents from two blocks of words whose mix drifts over four years; labels by block."""
    rng = np.random.default_rng(seed)
    years = np.repeat([2001, 2002, 2003, 2004], n // 4)
    X = np.zeros((n, V))
    kind = []
    for d in range(n):
        share = 0.2 + 0.2 * (years[d] - 2001)
        first = rng.random() > share
        kind.append("early" if first else "late")
        cols = np.arange(0, 8) if first else np.arange(8, 16)
        X[d] = np.bincount(rng.choice(cols, 20), minlength=V)
    return X, years, kind


def _page_data(html):
    return json.loads(re.search(r'<script id="report-data" type="application/json">(.*?)'
                                r'</script>', html, re.S).group(1))


@pytest.fixture(scope="module")
def dtm():
    X, years, _ = _counts()
    return DynamicTopicModel(3, init="random", random_state=0, max_iter=4).fit(X, times=years)


def test_over_time_view_equals_the_model(dtm):
    X, years, _ = _counts()
    data = report_data(dtm, X, vocabulary=VOCAB, times=years, coherence_measure=None, top_n=5)
    view = data["over_time"]
    assert view["slices"] == ["2001", "2002", "2003", "2004"]
    theta = dtm.transform(X, times=years)
    for t, year in enumerate([2001, 2002, 2003, 2004]):
        # a slice's topic shares = the mean of transform over that slice's documents
        np.testing.assert_allclose(view["prevalence"][t], theta[years == year].mean(axis=0),
                                   rtol=1e-12)
        assert view["n_docs"][t] == int((years == year).sum())
    np.testing.assert_allclose(view["prevalence"], dtm.topic_prevalence(X, years), rtol=1e-12)
    probs = dtm.topic_word_distributions()
    for k in range(3):
        for t in range(4):
            assert view["top_words"][k][t] == dtm.top_words(VOCAB, n=5, time_slice=t)[k]
        tracked = view["tracked"][k]
        # every word listed at some slice is tracked, with its probability at every slice
        assert set(tracked["words"]) == {w for t in range(4) for w in view["top_words"][k][t]}
        for w, p in zip(tracked["words"], tracked["p"]):
            np.testing.assert_allclose(p, probs[:, k, VOCAB.index(w)], rtol=1e-12)
        peaks = [max(p) for p in tracked["p"]]
        assert peaks == sorted(peaks, reverse=True)
    # the map and the bars: each topic's word distribution averaged over the slices
    phi = probs.mean(axis=0)
    for k, topic in enumerate(data["topics"]):
        np.testing.assert_allclose(topic["pt"], [phi[k, VOCAB.index(data["terms"][i])]
                                                 for i in topic["words"]], rtol=1e-12)
    # token-weighted prevalence from the documents at their own slices
    lengths = X.sum(axis=1)
    np.testing.assert_allclose([t["prevalence"] for t in data["topics"]],
                               lengths @ theta / lengths.sum(), rtol=1e-12)


def test_over_time_view_without_a_corpus_has_words_but_no_shares(dtm):
    data = report_data(dtm, vocabulary=VOCAB, coherence_measure=None)
    assert data["over_time"]["prevalence"] is None
    assert data["over_time"]["top_words"][0][0] == dtm.top_words(VOCAB, n=10, time_slice=0)[0]


@pytest.mark.parametrize("kwargs, match", [
    ({}, "needs times="),
    ({"times": [2001] * 3}, "one entry per document"),
    ({"times": np.full(48, 1999)}, "not a fitted time slice"),
])
def test_over_time_arguments_are_checked(dtm, kwargs, match):
    X, _, _ = _counts()
    with pytest.raises(InputError, match=match):
        report_data(dtm, X, vocabulary=VOCAB, coherence_measure=None, **kwargs)


def test_times_for_a_model_without_slices_is_an_error():
    X, years, _ = _counts()
    lda = LatentDirichletAllocation(2, random_state=0, max_iter=3).fit(X)
    with pytest.raises(InputError, match="times= is for a model fitted with times"):
        report_data(lda, X, times=years, coherence_measure=None)
    with pytest.raises(InputError, match="pass the corpus too"):
        report_data(DynamicTopicModel(2, init="random", random_state=0, max_iter=2)
                    .fit(X, times=years), times=years, coherence_measure=None)


def test_label_view_of_labeled_lda_equals_the_model():
    X, _, kind = _counts()
    labels = [[k] if d % 5 else [k, "odd"] for d, k in enumerate(kind)]
    m = LabeledLDA(n_free_components=1, random_state=0, max_iter=5).fit(X, labels=labels)
    data = report_data(m, X, vocabulary=VOCAB, labels=labels, coherence_measure=None, top_n=4)
    view = data["by_label"]
    assert view["labels"] == ["early", "late", "odd"]
    assert view["topic_names"] == [str(c) for c in m.classes_] + ["free 0"]
    theta = m.transform(X, labels=labels)
    for lab, shares, n, top in zip(view["labels"], view["shares"], view["n_docs"],
                                   view["top_topics"]):
        rows = [d for d, s in enumerate(labels) if lab in s]
        assert n == len(rows)
        np.testing.assert_allclose(shares, theta[rows].mean(axis=0), rtol=1e-12)
        assert top == list(np.argsort(-np.asarray(shares), kind="stable")[:3])
    phi = m.components_ / m.components_.sum(axis=1, keepdims=True)
    for k, words in enumerate(view["topic_words"]):
        assert words == [VOCAB[j] for j in np.argsort(-phi[k], kind="stable")[:4]]
    # no document carries both 'early' and 'late': the 'early' documents never use 'late'
    assert view["shares"][0][list(m.classes_).index("late")] == 0.0


def test_label_view_of_dmr_groups_by_covariates_or_labels():
    X, years, kind = _counts()
    C = np.array([[1.0, 0.0] if k == "early" else [0.0, 1.0] for k in kind])
    m = DirichletMultinomialRegression(2, random_state=0, max_iter=4).fit(X, covariates=C)
    theta = m.transform(X, covariates=C)
    view = report_data(m, X, covariates=C, coherence_measure=None)["by_label"]
    assert view["labels"] == ["x = (0, 1)", "x = (1, 0)"]
    np.testing.assert_allclose(view["shares"][1], theta[C[:, 0] == 1].mean(axis=0), rtol=1e-12)
    view = report_data(m, X, covariates=C, labels=years, coherence_measure=None)["by_label"]
    assert view["labels"] == ["2001", "2002", "2003", "2004"]
    np.testing.assert_allclose(view["shares"][3], theta[years == 2004].mean(axis=0), rtol=1e-12)
    with pytest.raises(InputError, match="needs covariates="):
        report_data(m, X, coherence_measure=None)


def test_pages_carry_the_views_and_a_plain_lda_page_has_none(dtm, tmp_path):
    X, years, kind = _counts()
    html = topic_report(dtm, X, tmp_path / "dtm.html", vocabulary=VOCAB, times=years,
                        labels=kind, coherence_measure=None)
    data = _page_data(html)
    assert {"over_time", "by_label"} <= set(data)
    assert '<section id="over-time" hidden>' in html and "__VIEWS__" not in html
    lda = LatentDirichletAllocation(2, random_state=0, max_iter=3).fit(X)
    plain = _page_data(topic_report(lda, X, coherence_measure=None))
    assert "over_time" not in plain and "by_label" not in plain


def _jsonl(path, n=48):
    X, years, kind = _counts(n)
    with open(path, "w", encoding="utf-8") as fh:
        for d in range(n):
            words = " ".join("word" + chr(97 + j) for j in range(V)
                             for _ in range(int(X[d, j])))
            created = f"{years[d]}-0{1 + d % 9}-1{d % 9}" if d != 5 else None
            fh.write(json.dumps({"text": words, "created": created, "kind": kind[d]}) + "\n")


@pytest.mark.slow  # fit dtm and report through the CLI: about 4 s
def test_report_command_with_time_and_label_columns(tmp_path, capsys):
    from latentkit import cli

    path = tmp_path / "docs.jsonl"
    _jsonl(path)
    model = tmp_path / "dtm.npz"
    out = io.StringIO()
    assert cli.main(["fit", "dtm", "--text", str(path), "--time-column", "created", "-k", "2",
                     "--max-iter", "3", "--stop-words", "none", "--init", "random",
                     "--out", str(model)], out=out) == 0
    page = tmp_path / "r.html"
    argv = ["report", str(model), "--text", str(path), "--out", str(page), "--measure", "none"]
    assert cli.main(argv + ["--time-column", "created", "--label-column", "kind"], out=out) == 0
    assert "47 documents; over time; by label" in out.getvalue()
    data = _page_data(page.read_text(encoding="utf-8"))
    assert data["over_time"]["slices"] == ["2001", "2002", "2003", "2004"]
    assert sum(data["over_time"]["n_docs"]) == 47  # the document without a date left out
    assert data["by_label"]["labels"] == ["early", "late"]
    capsys.readouterr()
    assert cli.main(argv, out=out) != 0
    assert "give --time-column" in capsys.readouterr().err
    assert cli.main(argv + ["--time-column", "when"], out=out) != 0
    assert "--time-column 'when' is not a column" in capsys.readouterr().err


@pytest.mark.slow  # fit llda, fit dmr and two reports through the CLI: about 4 s
def test_report_command_for_labeled_lda_and_dmr(tmp_path, capsys):
    from latentkit import cli

    path = tmp_path / "docs.jsonl"
    _jsonl(path)
    out = io.StringIO()
    common = ["--text", str(path), "--stop-words", "none", "--max-iter", "5"]
    assert cli.main(["fit", "llda", "--label-column", "kind", "--free-topics", "1", "--out",
                     str(tmp_path / "l.npz")] + common, out=out) == 0
    assert cli.main(["fit", "dmr", "--covariates", "kind", "-k", "2", "--out",
                     str(tmp_path / "m.npz")] + common, out=out) == 0
    report = ["--text", str(path), "--measure", "none", "--out", str(tmp_path / "r.html")]
    assert cli.main(["report", str(tmp_path / "l.npz"), "--label-column", "kind"] + report,
                    out=out) == 0
    view = _page_data((tmp_path / "r.html").read_text(encoding="utf-8"))["by_label"]
    assert view["labels"] == ["early", "late"] and view["topic_names"] == ["early", "late",
                                                                          "free 0"]
    assert view["shares"][0][1] == 0.0  # an 'early' document never uses the 'late' topic
    assert cli.main(["report", str(tmp_path / "m.npz"), "--covariates", "kind"] + report,
                    out=out) == 0
    view = _page_data((tmp_path / "r.html").read_text(encoding="utf-8"))["by_label"]
    assert view["labels"] == ["kind=early", "kind=late"]
    capsys.readouterr()
    assert cli.main(["report", str(tmp_path / "l.npz")] + report, out=out) != 0
    assert "give --label-column" in capsys.readouterr().err


# ----------------------------------------------------------------------------- real browser

@pytest.mark.slow
def test_views_in_a_real_browser(dtm, browser, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    X, years, kind = _counts()
    path = tmp_path / "dtm.html"
    html = topic_report(dtm, X, path, vocabulary=VOCAB, times=years, labels=kind,
                        coherence_measure=None, top_n=5)
    data = _page_data(html)
    O = data["over_time"]
    browser.get(path.as_uri())
    assert browser.find_element(By.ID, "over-time").is_displayed()
    lines = browser.find_elements(By.CSS_SELECTOR, "polyline.share")
    assert len(lines) == 3
    assert all(len(e.get_attribute("points").split()) == 4 for e in lines)
    # the line heights follow the shares: y is affine in the share (top of chart = larger)
    ys = np.array([[float(p.split(",")[1]) for p in e.get_attribute("points").split()]
                   for e in sorted(lines, key=lambda e: int(e.get_attribute("data-topic")))])
    prev = np.array(O["prevalence"]).T
    slope = np.polyfit(prev.ravel(), ys.ravel(), 1)[0]
    assert slope < 0
    np.testing.assert_allclose(ys, np.polyval(np.polyfit(prev.ravel(), ys.ravel(), 1), prev),
                               atol=1e-6)
    assert browser.find_element(By.ID, "slice-words").text == "No topic selected."
    browser.find_element(By.ID, "topic-2").click()
    assert browser.find_element(By.ID, "share-2").get_attribute("class") == "share selected"
    slider = browser.find_element(By.ID, "slice")
    browser.execute_script("arguments[0].value = 0; arguments[0].dispatchEvent(new "
                           "Event('input'));", slider)
    words = [e.text for e in browser.find_elements(By.CSS_SELECTOR, "#slice-words .word")]
    assert words == O["top_words"][2][0]
    assert browser.find_element(By.ID, "slice-label").text == "2001"
    target = O["tracked"][2]["words"][-1]
    Select(browser.find_element(By.ID, "trajectory-word")).select_by_value(target)
    line = browser.find_element(By.ID, "trajectory-line")
    assert line.get_attribute("data-word") == target
    ty = np.array([float(p.split(",")[1]) for p in line.get_attribute("points").split()])
    p = np.array(O["tracked"][2]["p"][-1])
    np.testing.assert_allclose(ty, np.polyval(np.polyfit(p, ty, 1), p), atol=1e-6)
    # the per-label table: one row per label, cells equal to the shares
    B = data["by_label"]
    cells = browser.find_elements(By.CSS_SELECTOR, "td.share-cell")
    assert len(cells) == len(B["labels"]) * 3
    got = np.array([float(c.get_attribute("data-value")) for c in cells]).reshape(-1, 3)
    np.testing.assert_allclose(got, B["shares"], rtol=1e-12)
    cells[1].click()  # the first label's topic 1: selects topic 1 on the map
    assert browser.find_element(By.ID, "selected").text == "topic 1"
    assert browser.find_element(By.ID, "share-1").get_attribute("class") == "share selected"
    assert browser.save_screenshot(str(tmp_path / "views.png"))
