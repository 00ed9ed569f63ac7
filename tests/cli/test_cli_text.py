"""The raw-text path end to end: README's second example (folder of texts -> topics, coherence,
report) run verbatim on texts this test writes, the Gutenberg export run through it, the select
command, and one-line errors for bad text input."""

import io
import json
import os
import re
import shlex
from pathlib import Path

import numpy as np
import pytest

import latentkit as lk
from latentkit import cli
from latentkit.datasets import load_gutenberg_novels
from latentkit.text import TextVectorizer
from latentkit.topic import coherence, topic_diversity

pytestmark = pytest.mark.filterwarnings("ignore::latentkit.base.ConvergenceWarning")
README = Path(__file__).resolve().parents[2] / "README.md"

THEMES = {
    "sea": "ship sail wave captain harbour storm anchor deck crew island",
    "farm": "cow field harvest barn wheat plough tractor sheep orchard hay",
    "city": "street tram office tower traffic market taxi subway crowd bank",
    "court": "judge lawyer trial jury verdict witness appeal prison law sentence",
}


def run(argv):
    out = io.StringIO()
    status = cli.main(argv, out=out)
    return status, out.getvalue()


def _write_texts(folder, n=48, seed=0):
    rng = np.random.default_rng(seed)
    folder.mkdir()
    names = list(THEMES)
    for i in range(n):
        words = rng.choice(THEMES[names[i % 4]].split(), 25).tolist()
        (folder / f"doc{i:03d}.txt").write_text(
            f"{names[i % 4].title()} notes, day {i}.\n" + " ".join(words) + ".\n",
            encoding="utf-8")


def _readme_commands():
    text = README.read_text(encoding="utf-8")
    block = re.search(r"<!-- raw-text-example -->\s*```bash\n(.*?)```", text, re.S).group(1)
    return [ln.split("#")[0].strip() for ln in block.splitlines() if ln.strip()]


def test_readme_raw_text_example_end_to_end(tmp_path, monkeypatch, capsys):
    commands = _readme_commands()
    assert len(commands) == 3 and all(c.startswith("latentkit ") for c in commands)
    monkeypatch.chdir(tmp_path)
    _write_texts(tmp_path / "my_texts")
    outputs = []
    for c in commands:
        argv = shlex.split(c)[1:] + ["--quiet"] * c.startswith("latentkit fit")
        status, out = run(argv)
        assert status == 0, (c, capsys.readouterr().err)
        outputs.append(out)
    model = lk.load("topics.npz")
    vocab = list(model.feature_names_in_)
    # the fit found the four planted themes among its topics
    top = model.top_words(vocab, n=5)
    for words in THEMES.values():
        assert any(set(t) <= set(words.split()) for t in top)
    # coherence printed = latentkit.topic.coherence on the same texts through the saved settings
    vec = TextVectorizer.from_model(model)
    texts = [p.read_text(encoding="utf-8") for p in sorted((tmp_path / "my_texts").iterdir())]
    tokens = vec.tokens(texts)
    c_v = coherence(model, tokens, "c_v", vocabulary=vocab)
    mean_line = [ln for ln in outputs[1].splitlines() if ln.strip().startswith("mean")][0]
    assert float(mean_line.split()[1]) == pytest.approx(c_v.mean, abs=5e-5)
    div_line = [ln for ln in outputs[1].splitlines() if ln.startswith("topic diversity")][0]
    assert float(div_line.split()[-1]) == pytest.approx(topic_diversity(model, 25), abs=5e-5)
    # the report is a standalone page with the topics and the typical documents' first lines
    html = Path("report.html").read_text(encoding="utf-8")
    assert "notes, day" in html and "<script src" not in html
    assert "wrote report.html (10 topics, 48 documents)" in outputs[2]


def test_gutenberg_export_and_fit_on_real_raw_text(tmp_path, capsys):
    path = tmp_path / "novels.jsonl"
    status, out = run(["datasets", "export", "gutenberg_novels", "--books",
                       "war_of_the_worlds", "--out", str(path)])
    assert status == 0 and "jsonl" in out
    rows = [json.loads(ln) for ln in path.read_text(encoding="utf-8").splitlines()]
    ref = load_gutenberg_novels(level="paragraph", books=["war_of_the_worlds"])
    assert [r["title"] for r in rows] == list(ref.titles)
    folder = tmp_path / "novel"
    status, _ = run(["datasets", "export", "gutenberg_novels", "--books", "war_of_the_worlds",
                     "--level", "chapter", "--out", str(folder)])
    assert status == 0 and len(os.listdir(folder)) == len(
        load_gutenberg_novels(level="chapter", books=["war_of_the_worlds"]).titles)
    status, out = run(["fit", "lda", "--text", str(path), "-k", "4", "--max-iter", "20",
                       "--quiet", "--json", "--out", str(tmp_path / "w.npz")])
    assert status == 0, capsys.readouterr().err
    obj = json.loads(out)
    assert obj["n_samples"] == len(rows) and len(obj["topics"]) == 4
    status, out = run(["coherence", str(tmp_path / "w.npz"), "--text", str(path), "--json",
                       "--measure", "u_mass"])
    assert status == 0
    assert len(json.loads(out)["measures"]["u_mass"]["per_topic"]) == 4
    assert json.loads(out)["diversity"] == {
        "top_n": 25, "value": topic_diversity(lk.load(str(tmp_path / "w.npz")), 25)}


def test_select_command(tmp_path):
    png = tmp_path / "k.png"
    status, out = run(["select", "gmm", "-k", "1:3", "--json", "--plot", str(png), "--quiet"])
    assert status == 0
    obj = json.loads(out)
    assert [r["n_components"] for r in obj["table"]] == [1, 2, 3] and obj["best"] == 2
    assert png.read_bytes()[:4] == b"\x89PNG"
    status, out = run(["select", "hmm", "-k", "1,2", "--quiet"])
    assert status == 0 and "chosen K = 2: the lowest BIC" in out


def test_bad_text_input_is_one_line(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    (tmp_path / "bin.txt").write_bytes(b"\x00\x01\x02")
    (tmp_path / "latin.txt").write_bytes("caf\xe9".encode("latin-1"))
    (tmp_path / "t.csv").write_text("id,body\n1,hello world\n", encoding="utf-8")
    (tmp_path / "stop.txt").write_text("the\nand\n", encoding="utf-8")
    cases = [
        (["fit", "lda", "--text", str(tmp_path / "empty")], "the folder holds no .txt files"),
        (["fit", "plsa", "--text", str(tmp_path / "bin.txt")], "bin.txt: looks like a binary"),
        (["fit", "lda", "--text", str(tmp_path / "latin.txt")], "latin.txt: not UTF-8"),
        (["fit", "lda", "--text", str(tmp_path / "t.csv")], "t.csv: no column 'text'"),
        (["fit", "lda", "--text", str(tmp_path / "t.csv"), "--text-column", "body",
          "--min-df", "3"], "--min-df 3"),
        (["fit", "lda", "--text", str(tmp_path / "t.csv"), "--dataset", "kos"],
         "alternatives"),
    ]
    for argv, message in cases:
        status, _ = run(argv + ["--quiet"])
        err = capsys.readouterr().err
        assert status == 2 and message in err and err.count("\n") == 1, (argv, err)
