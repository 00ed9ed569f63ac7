"""``latentkit fit dmm --text X.tsv.gz --text-column description`` (issue 43, "the CLI's
short-text path works on debian_short"): a gzip-compressed TAB-separated table with a header,
shaped like ``shared/data/debian_short`` (package, section, description), fits and finds the
planted word groups; fails on main with "unknown kind of file '.gz'"."""

import gzip
import io
import json

import numpy as np

from latentkit import cli

WORDS = [["apple", "banana", "cherry", "grape", "melon", "peach"],
         ["engine", "wheel", "brake", "gear", "clutch", "piston"],
         ["violin", "piano", "guitar", "drum", "flute", "cello"]]


def run(argv):  # as in tests/cli/test_cli_short.py
    out = io.StringIO()
    status = cli.main(argv, out=out)
    return status, out.getvalue()


def _table(tmp_path):
    rng = np.random.default_rng(0)
    z = rng.integers(0, 3, 120)
    rows = ["package\tsection\tdescription"]
    rows += [f"pkg{i}\tsec{k}\t" + " ".join(rng.choice(WORDS[k], size=rng.integers(3, 7)))
             for i, k in enumerate(z)]
    path = tmp_path / "short.tsv.gz"
    path.write_bytes(gzip.compress(("\n".join(rows) + "\n").encode("utf-8")))
    return path


def test_fit_dmm_on_a_gzipped_tsv_table(tmp_path):
    path = _table(tmp_path)
    status, text = run(["fit", "dmm", "--text", str(path), "--text-column", "description",
                        "-k", "3", "--json", "--quiet", "--out", str(tmp_path / "m.npz")])
    assert status == 0, text
    obj = json.loads(text)
    assert obj["n_samples"] == 120
    groups = [set(g) for g in WORDS]
    for words in obj["topics"]:  # every topic's top words are one planted group
        assert any(set(words[:6]) == g for g in groups), words


def test_fit_dmm_without_text_column_names_the_columns(tmp_path, capsys):
    path = _table(tmp_path)
    status, _ = run(["fit", "dmm", "--text", str(path), "-k", "3", "--quiet"])
    err = capsys.readouterr().err
    assert status != 0
    assert "short.tsv.gz: no column 'text' (columns: package, section, description)" in err
