"""``latentkit fit dmm`` and ``latentkit fit btm`` (issue 43, item 3) end to end on raw texts of
a planted one-topic-per-document corpus: the report, the saved model, ``coherence`` and
``report`` on it, the defaults the help states, and bad flags."""

import inspect
import io as _io
import json

import numpy as np
import pytest
from sklearn.metrics import adjusted_rand_score

from latentkit import cli
from latentkit.cli import _common, _defaults
from latentkit.io import load
from latentkit.topic import BitermTopicModel, DirichletMultinomialMixture

WORDS = [["apple", "banana", "cherry", "grape", "melon", "peach"],
         ["engine", "wheel", "brake", "gear", "clutch", "piston"],
         ["violin", "piano", "guitar", "drum", "flute", "cello"]]


def run(argv):
    out = _io.StringIO()
    status = cli.main(argv, out=out)
    return status, out.getvalue()


def short_texts(tmp_path, n=150):
    """One line per document: 3 to 6 words of one of three disjoint word groups."""
    rng = np.random.default_rng(0)
    z = rng.integers(0, 3, n)
    lines = [" ".join(rng.choice(WORDS[k], size=rng.integers(3, 7))) for k in z]
    path = tmp_path / "texts.txt"
    path.write_text("\n".join(lines) + "\n")
    return path, z


@pytest.mark.parametrize("kind, cls", [("dmm", "DirichletMultinomialMixture"),
                                       ("btm", "BitermTopicModel")])
def test_fit_short_json_coherence_and_report(tmp_path, kind, cls):
    path, z = short_texts(tmp_path)
    model_path = tmp_path / f"{kind}.npz"
    status, text = run(["fit", kind, "--text", str(path), "-k", "3", "--json", "--quiet",
                        "--out", str(model_path)])
    assert status == 0
    obj = json.loads(text)
    assert obj["model"] == cls and obj["n_samples"] == 150
    assert np.all(np.diff(obj["lower_bounds"]) >= -1e-9 * np.abs(obj["lower_bounds"][1:]))
    # every topic's top words are one planted group
    groups = [set(g) for g in WORDS]
    for words in obj["topics"]:
        assert any(set(words[:6]) == g for g in groups), words
    model = load(model_path)
    labels = model.transform(path.read_text().splitlines()).argmax(axis=1)  # raw texts
    assert adjusted_rand_score(z, labels) > 0.95
    status, text = run(["coherence", str(model_path), "--text", str(path), "--measure",
                        "c_npmi", "--json"])
    assert status == 0 and "c_npmi" in json.loads(text)["measures"]
    status, text = run(["report", str(model_path), "--text", str(path), "--out",
                        str(tmp_path / "r.html")])
    assert status == 0 and (tmp_path / "r.html").exists()


def test_fit_short_text_lines(tmp_path):
    path, _ = short_texts(tmp_path)
    status, text = run(["fit", "dmm", "--text", str(path), "-k", "4", "--dirichlet-process",
                        "--quiet"])
    assert status == 0
    assert "weight_concentration_prior_type='dirichlet_process'" in text
    assert "hold more than 1% of the tokens" in text


def test_help_states_the_library_defaults(capsys):
    for name, cls in (("dmm", DirichletMultinomialMixture), ("btm", BitermTopicModel)):
        params = inspect.signature(cls).parameters
        assert _defaults.INIT_DEFAULTS[name] == params["init"].default
        assert _common._K_DEFAULTS[name] == params["n_components"].default
        with pytest.raises(SystemExit):
            cli.main(["fit", name, "--help"])
        text = " ".join(capsys.readouterr().out.split())
        assert f"(default {params['init'].default}, the library's)" in text


def test_bad_flags(tmp_path, capsys):
    path, _ = short_texts(tmp_path)
    assert run(["fit", "btm", "--text", str(path), "--init", "kmeans++", "--quiet"])[0] == 2
    assert run(["fit", "btm", "--text", str(path), "--init", "spectral", "--quiet"])[0] == 0
    assert run(["fit", "dmm", "--text", str(path), "--init", "collapsed", "--quiet"])[0] == 0
    assert run(["fit", "dmm", "--text", str(path), "--topic-word-prior", "-1",
                "--quiet"])[0] != 0
    err = capsys.readouterr().err
    assert "topic_word_prior" in err or "--topic-word-prior" in err


@pytest.mark.parametrize("kind", ["dmm", "btm"])
def test_select_short_text_models(tmp_path, kind):
    path, _ = short_texts(tmp_path, n=300)
    status, text = run(["select", kind, "--text", str(path), "-k", "2,3,6", "--json",
                        "--quiet"])
    assert status == 0
    obj = json.loads(text)
    assert [r["n_components"] for r in obj["table"]] == [2, 3, 6]
    assert obj["criterion"] == "heldout_perplexity"
    # three planted groups: two topics fit the held-out documents worse than three
    ppl = {r["n_components"]: r["heldout_perplexity"] for r in obj["table"]}
    assert ppl[3] < ppl[2]
