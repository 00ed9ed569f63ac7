"""The everyday path of the command line (issue 27): checks before the work, the table before
the figure, warnings as one line, the start as a phase, a bar that does not estimate from a
compiling iteration, --extra-stop-words and the vocabulary summary, misleading bad input."""

import io
import json
import re
import sys

import numpy as np
import pytest

from latentkit import cli
from latentkit.cli._progress import COMPILING, Progress


def run(argv):
    out = io.StringIO()
    return cli.main(argv, out=out), out.getvalue()


@pytest.fixture
def points(tmp_path):
    rng = np.random.default_rng(0)
    X = np.concatenate([rng.normal(0, 1, (40, 2)), rng.normal(6, 1, (40, 2))])
    path = tmp_path / "points.csv"
    np.savetxt(path, X, delimiter=",", header="a,b", comments="")
    return path


# ----------------------------------------------------------------------------- item 2

@pytest.mark.parametrize("argv", [
    ["fit", "gmm", "--plot", "{tmp}/f.png"],
    ["select", "gmm", "-k", "1,2", "--plot", "{tmp}/k.png"],
])
def test_missing_matplotlib_is_one_line_before_any_fit(argv, points, tmp_path, monkeypatch,
                                                       capsys):
    import latentkit.cli.cmd_select as cmd_select
    from latentkit.base import LatentModel

    monkeypatch.setitem(sys.modules, "matplotlib", None)  # as if not installed

    def no_fit(*a, **k):
        raise AssertionError("a fit ran before the missing extra was reported")

    monkeypatch.setattr(LatentModel, "fit", no_fit)
    monkeypatch.setattr(cmd_select, "select_n_components", no_fit)
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv] + ["--data", str(points)]
    status, out = run(argv)
    err = capsys.readouterr().err
    assert status == 2 and out == ""
    assert err == ('latentkit: error: --plot needs matplotlib, which is not installed: '
                   'pip install "latentkit[plot]".\n')


def test_missing_scikit_learn_for_text_is_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "sklearn", None)
    (tmp_path / "a.txt").write_text("some words here")
    assert run(["fit", "lda", "--text", str(tmp_path)])[0] == 2
    assert 'pip install "latentkit[text]"' in capsys.readouterr().err


def test_select_prints_its_table_and_json_before_drawing(points, tmp_path, monkeypatch,
                                                         capsys):
    from latentkit.selection import Selection

    def broken_plot(self, path):
        raise RuntimeError("the figure failed")

    monkeypatch.setattr(Selection, "plot", broken_plot)
    for extra in ([], ["--json"]):
        out = io.StringIO()
        with pytest.raises(RuntimeError, match="the figure failed"):
            cli.main(["select", "gmm", "--data", str(points), "-k", "1,2", "--quiet",
                      "--plot", str(tmp_path / "k.png")] + extra, out=out)
        text = out.getvalue()
        if extra:
            assert json.loads(text)["best"] == 2
        else:
            assert "chosen K = 2" in text


def test_output_folder_is_checked_before_the_fit(tmp_path, capsys):
    for argv in (["fit", "gmm", "--out", str(tmp_path / "no" / "m.npz")],
                 ["report", str(tmp_path / "m.npz"), "--out", str(tmp_path / "no" / "r.html")]):
        assert run(argv)[0] == 2
        assert "does not exist" in capsys.readouterr().err


# ----------------------------------------------------------------------------- item 4

def test_warnings_are_one_line_after_the_bar_naming_flags(points, capsys):
    status, out = run(["fit", "gmm", "--data", str(points), "-k", "2", "--max-iter", "1"])
    err = capsys.readouterr().err
    assert status == 0
    lines = [ln for ln in re.split(r"[\r\n]", err) if ln.strip()]
    warning_lines = [ln for ln in lines if ln.startswith("warning: ")]
    assert len(warning_lines) == 1, err
    assert re.fullmatch(r"warning: GaussianMixture did not converge in --max-iter 1 iterations "
                        r"\(last ELBO change above --tol \S+\); increase --max-iter or --tol\.",
                        warning_lines[0].strip()), warning_lines
    assert "Warning:" not in err and ".py:" not in err  # no category, no source line


def test_k_errors_name_the_flag_and_k_above_the_documents_warns(tmp_path, capsys):
    assert run(["fit", "lda", "-k", "0"])[0] == 2
    assert capsys.readouterr().err == "latentkit: error: -k must be a positive integer, got 0.\n"
    folder = tmp_path / "t"
    folder.mkdir()
    # six words, each in two of the three documents: -k 5 is above the documents (a warning)
    # but not above the vocabulary (refused since issue 48: tests/datasets/test_reader_files.py)
    for i, t in enumerate(["cats dogs birds owls", "dogs fish mice owls",
                           "mice cats fish birds"]):
        (folder / f"{i}.txt").write_text(t)
    status, _ = run(["fit", "lda", "--text", str(folder), "-k", "5", "--max-iter", "2"])
    err = capsys.readouterr().err
    assert status == 0
    assert "warning: -k 5 is more than the 3 documents of the data" in err


def test_a_file_that_is_not_a_model_and_a_broken_csv_say_so(tmp_path, capsys):
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"garbage, not an archive")
    for cmd in (["show", str(junk)], ["report", str(junk), "--out", str(tmp_path / "r.html")]):
        assert run(cmd)[0] == 2
        err = capsys.readouterr().err
        assert "is not a latentkit model file: not a .npz archive" in err
        assert "allow_pickle" not in err
    bad = tmp_path / "t.csv"
    bad.write_text('name,text\na,fine words here\nb,"an unterminated quote\nc,more words\n')
    assert run(["fit", "lda", "--text", str(bad)])[0] == 2
    err = capsys.readouterr().err
    assert "t.csv, line 3: not valid CSV" in err and "min_df" not in err


# ----------------------------------------------------------------------------- item 3

def test_extra_stop_words_add_to_the_list_and_the_summary_counts_each_rule(tmp_path, capsys):
    texts = ["the package provides a library for cats", "a library of dogs and cats",
             "package cats dogs birds fish", "the cats and the dogs", "zebra stripes"]
    folder = tmp_path / "docs"
    folder.mkdir()
    for i, t in enumerate(texts):
        (folder / f"{i}.txt").write_text(t)
    words_file = tmp_path / "extra.txt"
    words_file.write_text("package\n# a comment\nlibrary\n")
    for extra in ("package,library", str(words_file)):
        status, out = run(["fit", "lda", "--text", str(folder), "-k", "2", "--min-df", "2",
                           "--extra-stop-words", extra, "--json", "--quiet"])
        assert status == 0
        obj = json.loads(out)
        vocab = {w for t in obj["topics"] for w in t}
        assert not vocab & {"package", "library", "the", "and", "for", "of"}
        # brute force: distinct tokens of >= 2 letters, then each rule in scikit-learn's order
        tokens = [set(re.findall(r"\b[a-z]{2,}\b", t)) for t in texts]
        words = set().union(*tokens)
        from latentkit.datasets._corpus import english_stop_words

        english = set(english_stop_words())
        left = words - english - {"package", "library"}
        df = {w: sum(w in t for t in tokens) for w in left}
        assert obj["vocabulary_pruning"] == {
            "words": len(words), "stop_words": len(words & english),
            "extra_stop_words": len({"package", "library"} - english),
            "min_df": sum(d < 2 for d in df.values()), "max_df": 0, "max_features": 0,
            "kept": obj["n_features"]}
    status, out = run(["fit", "lda", "--text", str(folder), "-k", "2", "--quiet",
                       "--extra-stop-words", "package,library"])
    line = next(ln for ln in out.splitlines() if ln.startswith("vocabulary"))
    assert "stop words (english) -" in line and "--extra-stop-words -2" in line


def test_pruning_summary_with_max_df_and_max_features():
    from latentkit._utils.text_pruning import pruning_summary
    from latentkit.text import TextVectorizer

    rng = np.random.default_rng(1)
    pool = [f"w{chr(97 + i)}x" for i in range(12)]
    texts = [" ".join(rng.choice(pool, size=rng.integers(2, 8))) for _ in range(30)]
    vec = TextVectorizer(stop_words=None, extra_stop_words=["wax"], min_df=3, max_df=0.5,
                         max_features=4)
    vec.fit(texts)
    got = pruning_summary(vec, texts)
    docs = [set(t.split()) for t in texts]
    words = set().union(*docs)
    df = {w: sum(w in d for d in docs) for w in words - {"wax"}}
    low = {w for w, d in df.items() if d < 3}
    high = {w for w, d in df.items() if d > 0.5 * 30 and w not in low}
    assert got == {"words": len(words), "stop_words": 0, "extra_stop_words": int("wax" in words),
                   "min_df": len(low), "max_df": len(high),
                   "max_features": len(df) - len(low) - len(high) - len(vec.vocabulary_),
                   "kept": len(vec.vocabulary_)}
    assert len(vec.vocabulary_) == min(4, len(df) - len(low) - len(high))


# ----------------------------------------------------------------------------- item 5

class _Recorder:
    def __init__(self):
        self.events = []
        self.on_start = lambda model, phase, step, total: self.events.append(
            ("start", phase, step, total))

    def __call__(self, model, n_iter, elbo):
        self.events.append(("iter", n_iter))
        return False


def test_lda_start_is_a_phase_and_plain_callbacks_are_unchanged():
    from latentkit.topic import LatentDirichletAllocation

    X = np.random.default_rng(0).poisson(1.0, size=(25, 15))
    rec = _Recorder()
    lda = LatentDirichletAllocation(3, max_iter=4, tol=0, random_state=0, callback=rec).fit(X)
    starts = [e for e in rec.events if e[0] == "start"]
    assert starts == [("start", "cvb0 sweeps", s, 100) for s in range(1, 101)]
    assert rec.events[:100] == starts  # the whole start before the first iteration
    assert [e[1] for e in rec.events[100:]] == list(range(1, lda.n_iter_ + 1))
    plain = []
    LatentDirichletAllocation(3, max_iter=4, tol=0, random_state=0,
                              callback=lambda m, i, e: plain.append(i)).fit(X)
    assert plain == list(range(1, 5))  # a callback without on_start: iterations only


def test_mixture_spectral_search_is_a_phase():
    from latentkit.mixture import GaussianMixture

    rng = np.random.default_rng(3)
    means = np.eye(4)[:3] * 6.0
    X = np.concatenate([rng.normal(m, 1.0, (80, 4)) for m in means])
    rec = _Recorder()
    gm = GaussianMixture(3, init="spectral", random_state=0, callback=rec).fit(X)
    starts = [e for e in rec.events if e[0] == "start"]
    assert starts and [e[2] for e in starts] == list(range(1, len(starts) + 1))
    assert {e[1] for e in starts} == {"spectral search runs"}
    first_iter = next(i for i, e in enumerate(rec.events) if e[0] == "iter")
    assert first_iter == len(starts)
    assert gm.spectral_report_["chosen"] == "spectral"


def test_bar_shows_compiling_and_measures_the_rate_after_it(capsys):
    from numba.core import event

    progress = Progress(total=10, delay=0)
    with progress:
        event.start_event("numba:compile")
        bar = progress._bar
        assert COMPILING in str(bar) and "<" not in str(bar)  # no time estimate
        event.end_event("numba:compile")
        progress.callback(None, 1, -5.0)  # the iteration that compiled
        assert progress._bar is not bar and progress._bar.initial == 1  # a fresh rate
        progress.callback(None, 2, -4.0)
        assert progress._bar.n == 2 and COMPILING not in str(progress._bar)
    progress = Progress(total=10, delay=0)
    with progress:
        progress.callback.on_start(None, "cvb0 sweeps", 3, 100)
        assert progress._bar.desc == "fit: start, cvb0 sweeps" and progress._bar.n == 3
        progress.callback(None, 1, -5.0)
        assert progress._bar.desc == "fit" and progress._bar.n == 1
