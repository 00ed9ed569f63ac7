"""``latentkit fit dtm`` (and ``fit llda``, ``fit dmr``) end to end on a corpus drawn from a DTM, written
as .jsonl and .csv texts with a date column: the slices, the over-time view, the saved model, the errors."""

import csv
import io as _io
import json
import sys
from pathlib import Path

import numpy as np
import pytest

from latentkit import cli
from latentkit.io import load
from latentkit.testing import match_components

sys.path.insert(0, str(Path(__file__).parents[1] / "topic"))
from test_dtm import _planted  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::latentkit.ConvergenceWarning")


def run(argv):
    out = _io.StringIO()
    status = cli.main(argv, out=out)
    return status, out.getvalue()


def _word(j):
    """Letters only (tokens are runs of letters), sorting in column order."""
    return f"w{chr(97 + j // 26)}{chr(97 + j % 26)}"


def _texts(X):
    words = []
    for row in X.toarray().astype(int):
        words.append(" ".join(_word(j) for j, c in enumerate(row) for _ in range(c)))
    return words


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    X, times, topics = _planted(T=4, docs=60, seed=11)
    texts = _texts(X)
    rng = np.random.default_rng(0)
    dates = [f"{y}-{rng.integers(1, 13):02d}-{rng.integers(1, 29):02d}" for y in times]
    dates[3] = None  # a document without a time is left out
    folder = tmp_path_factory.mktemp("dtm")
    jl = folder / "docs.jsonl"
    kinds = ["alpha", "beta", "alpha, beta", ""]
    jl.write_text("".join(json.dumps({"text": t, "created": d, "kind": kinds[i % 4]}) + "\n"
                          for i, (t, d) in enumerate(zip(texts, dates))))
    cs = folder / "docs.csv"
    with open(cs, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["created", "text"])
        for t, d in zip(texts, dates):
            w.writerow([d or "", t])
    return {"jsonl": jl, "csv": cs, "topics": topics, "folder": folder}


def test_fit_dtm_by_year_json_and_saved_model(corpus):
    path = corpus["folder"] / "dtm.npz"
    status, text = run(["fit", "dtm", "--text", str(corpus["jsonl"]), "--time-column",
                        "created", "-k", "3", "--chain-variance", "0.05", "--stop-words",
                        "none", "--json", "--quiet", "--out", str(path),
                        # every planted word is in most documents: the vocabulary rule's
                        # max_df=0.5 (for boilerplate in real text) would drop 16 of 37
                        "--max-df", "1.0"])
    assert status == 0, text
    obj = json.loads(text)
    s = obj["dtm"] if "dtm" in obj else obj
    assert s["time_slices"] == ["2000", "2001", "2002", "2003"]
    assert s["n_documents_without_time"] == 1
    prev = np.array(s["topic_prevalence"])
    assert prev.shape == (4, 3)
    np.testing.assert_allclose(prev.sum(axis=1), 1.0)
    assert len(s["topics_by_slice"]) == 4 and len(s["topics_by_slice"][0]) == 3
    model = load(path)
    # the planted topics at every slice (the words sort in the corpus's column order)
    cols = [[_word(j) for j in range(40)].index(w) for w in model.feature_names_in_]
    est = np.zeros((4, 3, 40))
    est[:, :, cols] = model.topic_word_distributions()  # words never drawn stay at 0
    for t in range(4):
        assert match_components(corpus["topics"][t], est[t])[1].max() < 0.2


def test_fit_dtm_equal_count_slices_from_csv_and_the_text_report(corpus):
    status, text = run(["fit", "dtm", "--text", str(corpus["csv"]), "--time-column", "created",
                        "--slices", "3", "-k", "3", "--max-iter", "3", "--stop-words", "none",
                        "--quiet"])
    assert status == 0, text
    assert "slices      3 by 3 of 'created': 0 .. 2" in text
    assert "topics over time" in text and text.count("  topic ") == 3


def test_fit_dtm_errors(corpus, capsys):
    status, _ = run(["fit", "dtm", "--text", str(corpus["jsonl"]), "--quiet"])
    assert status == 2
    assert "--time-column" in capsys.readouterr().err
    status, _ = run(["fit", "dtm", "--text", str(corpus["jsonl"]), "--time-column", "date",
                     "--quiet"])
    assert status == 2
    assert "'date' is not a column" in capsys.readouterr().err
    status, _ = run(["fit", "dtm", "--text", str(corpus["jsonl"]), "--time-column", "created",
                     "--slices", "week", "--quiet"])
    assert status == 2
    assert "slices must be" in capsys.readouterr().err


def test_fit_dtm_plot(corpus):
    pytest.importorskip("matplotlib")
    png = corpus["folder"] / "dtm.png"
    status, text = run(["fit", "dtm", "--text", str(corpus["jsonl"]), "--time-column",
                        "created", "-k", "2", "--max-iter", "2", "--stop-words", "none",
                        "--plot", str(png), "--quiet"])
    assert status == 0, text
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_fit_llda_label_column(corpus, capsys):
    status, text = run(["fit", "llda", "--text", str(corpus["jsonl"]), "--label-column", "kind",
                        "--free-topics", "1", "--max-iter", "5", "--stop-words", "none",
                        "--json", "--quiet"])
    assert status == 0, text
    obj = json.loads(text)
    s = obj.get("llda", obj)
    assert s["labels"] == ["alpha", "beta", "(free 0)"]
    assert s["documents_per_label"] == [120, 120, 240] and s["n_unlabelled"] == 60
    status, _ = run(["fit", "llda", "--text", str(corpus["jsonl"]), "--label-column", "kind",
                     "-k", "3", "--quiet"])
    assert status == 2 and "--free-topics" in capsys.readouterr().err
    status, _ = run(["fit", "llda", "--text", str(corpus["jsonl"]), "--label-column", "x",
                     "--quiet"])
    assert status == 2 and "'x' is not a column" in capsys.readouterr().err


def test_fit_dmr_covariates(corpus, capsys):
    status, text = run(["fit", "dmr", "--text", str(corpus["jsonl"]), "--covariates", "kind",
                        "-k", "3", "--max-iter", "5", "--stop-words", "none", "--json",
                        "--quiet"])
    assert status == 0, text
    obj = json.loads(text)
    s = obj.get("dmr", obj)
    assert s["covariates"] == ["kind=alpha", "kind=alpha, beta", "kind=beta"]
    assert np.array(s["coef"]).shape == (4, 3)
    status, _ = run(["fit", "dmr", "--text", str(corpus["jsonl"]), "--covariates", "nope",
                     "--quiet"])
    assert status == 2 and "'nope' is not a column" in capsys.readouterr().err
