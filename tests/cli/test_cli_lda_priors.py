"""``latentkit fit lda --alpha auto --eta auto`` and ``--seed-words FILE`` (issue 31): the CLI
fit equals the library's, seeded topics are marked in the output and the report, unknown seed
words are a one-line error naming them, and learned priors are refused with --private."""

import io
import json

import numpy as np
import pytest

import latentkit as lk
from latentkit import cli
from latentkit.topic import LatentDirichletAllocation

pytestmark = pytest.mark.filterwarnings("ignore::latentkit.base.ConvergenceWarning")

THEMES = ["ship sail wave captain harbour storm anchor deck crew island",
          "cow field harvest barn wheat plough tractor sheep orchard hay",
          "street tram office tower traffic market taxi subway crowd bank"]


def run(argv):
    out = io.StringIO()
    return cli.main(argv, out=out), out.getvalue()


@pytest.fixture
def texts(tmp_path):
    rng = np.random.default_rng(0)
    folder = tmp_path / "texts"
    folder.mkdir()
    for i in range(36):
        words = rng.choice(THEMES[i % 3].split(), 20).tolist()
        (folder / f"d{i:02d}.txt").write_text(" ".join(words) + "\n", encoding="utf-8")
    return folder


@pytest.mark.slow
def test_alpha_eta_auto_equal_the_library(texts, tmp_path):
    out_path = tmp_path / "m.npz"
    status, out = run(["fit", "lda", "--text", str(texts), "-k", "3", "--alpha", "auto",
                       "--eta", "auto", "--max-iter", "20", "--seed", "0", "--quiet", "--json",
                       "--out", str(out_path)])
    assert status == 0
    model = lk.load(out_path)
    X = lk.text.load_texts(str(texts)).data
    ref = LatentDirichletAllocation(3, doc_topic_prior="auto", topic_word_prior="auto",
                                    max_iter=20, random_state=0).fit(X)
    np.testing.assert_array_equal(model.doc_topic_prior_, ref.doc_topic_prior_)
    np.testing.assert_array_equal(model.topic_word_prior_, ref.topic_word_prior_)
    summary = json.loads(out)
    assert summary["doc_topic_prior"] == ref.doc_topic_prior_.tolist()
    assert summary["topic_word_prior"] == ref.topic_word_prior_.tolist()  # (V,), V <= 1000


def test_seed_words_file_marks_topics_and_names_unknown_words(texts, tmp_path, capsys):
    seeds = tmp_path / "seeds.txt"
    seeds.write_text("tram taxi subway\nship sail\n", encoding="utf-8")
    out_path = tmp_path / "s.npz"
    status, out = run(["fit", "lda", "--text", str(texts), "-k", "3", "--seed-words",
                       str(seeds), "--max-iter", "30", "--quiet", "--out", str(out_path)])
    assert status == 0
    lines = out.splitlines()
    t0 = [ln for ln in lines if ln.strip().startswith("topic 0*:")][0].split()[2:]
    t1 = [ln for ln in lines if ln.strip().startswith("topic 1*:")][0].split()[2:]
    assert set(t0) <= set(THEMES[2].split()) and set(t1) <= set(THEMES[0].split())
    assert any(ln.strip().startswith("topic 2:") for ln in lines)
    data = lk.topic.report_data(lk.load(out_path))
    assert [t["seeded"] for t in data["topics"]] == [["subway", "taxi", "tram"],
                                                     ["sail", "ship"], None]
    assert 0 < data["diversity"] <= 1
    seeds.write_text("tram zeppelin\n", encoding="utf-8")
    status, _ = run(["fit", "lda", "--text", str(texts), "-k", "3", "--seed-words", str(seeds),
                     "--quiet"])
    err = capsys.readouterr().err
    assert status == 2 and "['zeppelin'] not in the vocabulary" in err


@pytest.mark.parametrize("flags, msg", [
    (["--alpha", "auto"], "--alpha auto is not available with --private"),
    (["--eta", "auto"], "--eta auto is not available with --private"),
])
def test_learned_priors_refused_with_private(texts, capsys, flags, msg):
    status, _ = run(["fit", "lda", "--text", str(texts), "-k", "3", "--private", "--method",
                     "svi", "--quiet", *flags])
    assert status == 2 and msg in capsys.readouterr().err


def test_bad_alpha_value_is_a_usage_error(texts, capsys):
    with pytest.raises(SystemExit):
        run(["fit", "lda", "--text", str(texts), "--alpha", "often"])
    assert "expected a number > 0 or auto or asymmetric" in capsys.readouterr().err


@pytest.mark.parametrize("content, msg", [
    (b"", "names no word"),
    (b"# a comment only\n\n", "names no word"),
    (b"\xff\xfe tram\n", "is not UTF-8 text"),
    (b"tram\nship\ncow\ntaxi\n", "seeds 4 topics (one per line), more than the 3 topics of -k"),
])
def test_a_bad_seed_words_file_is_a_one_line_error(texts, tmp_path, capsys, content, msg):
    """An empty, comment-only or non-UTF-8 file, or more seed lines than topics: exit status 2
    and one line naming --seed-words (was a traceback: ValueError, UnicodeDecodeError, and
    'seed_topics keys must be topic indices' for the extra line)."""
    seeds = tmp_path / "seeds.txt"
    seeds.write_bytes(content)
    status, _ = run(["fit", "lda", "--text", str(texts), "-k", "3", "--seed-words", str(seeds),
                     "--quiet"])
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1
    assert err.startswith("latentkit: error: --seed-words") and msg in err
