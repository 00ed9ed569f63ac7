"""`fit lda --private --text` counts the private documents over a public vocabulary (issue 40
item 4): adding a document with a word of its own changes neither the vocabulary, nor the
printed word count, nor the saved model's feature names, and the word never appears. Fails on
main, where the vocabulary was built from the private documents."""

import io
import json

import numpy as np
import pytest

from latentkit import cli
from latentkit.io import load

pytest.importorskip("sklearn")

WORDS = ["apple", "banana", "cherry", "grape", "lemon", "mango", "olive", "peach", "plum",
         "berry"]


def _texts(path, extra=None):
    rng = np.random.default_rng(0)
    docs = [" ".join(rng.choice(WORDS, size=12)) for _ in range(300)]
    if extra:
        docs.append(extra)
    path.write_text("\n".join(docs) + "\n")
    return str(path)


def _run(argv):
    out = io.StringIO()
    return cli.main(argv, out=out), out.getvalue()


@pytest.mark.slow
@pytest.mark.parametrize("method", [["--method", "svi", "--clip", "5", "--batch-size", "60",
                                     "--max-iter", "1"],
                                    ["--init", "spectral", "--n-words", "8"]])
def test_a_new_word_in_one_document_is_never_published(tmp_path, method):
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("# a public word list\n" + "\n".join(WORDS + ["kiwi"]) + "\n")
    outs, names = [], []
    for i, extra in enumerate([None, "zyzzyva " * 20 + "apple"]):
        texts = _texts(tmp_path / f"t{i}.txt", extra)
        path = str(tmp_path / f"m{i}.npz")
        status, out = _run(["fit", "lda", "--text", texts, "--vocab", str(vocab), "-k", "2",
                            "--private", "--epsilon", "1e3", "--quiet", "--out", path]
                           + method)
        assert status == 0, out
        assert "zyzzyva" not in out
        outs.append(out)
        names.append(list(load(path).feature_names_in_))
    assert names[0] == names[1] == WORDS + ["kiwi"]
    data = [next(l for l in o.splitlines() if l.startswith("data")) for o in outs]
    assert data[0].split(":")[1].split("x")[1] == data[1].split(":")[1].split("x")[1]
    assert "11 words" in data[0]


def test_private_text_needs_a_public_vocabulary(tmp_path, capsys):
    texts = _texts(tmp_path / "t.txt")
    status, out = _run(["fit", "lda", "--text", texts, "-k", "2", "--private", "--method",
                        "svi", "--clip", "5", "--quiet"])
    assert status == 2 and "--vocab FILE" in capsys.readouterr().err
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("\n".join(WORDS) + "\n")
    status, out = _run(["fit", "lda", "--text", texts, "--vocab", str(vocab), "-k", "2",
                        "--private", "--method", "svi", "--clip", "5", "--min-df", "2",
                        "--quiet"])
    assert status == 2 and "--min-df is not available" in capsys.readouterr().err
