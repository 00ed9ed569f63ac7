"""`latentkit fit lda --init spectral --private`: document-level privacy from the command line
(issue 18): the first privacy line, the noise line, epsilon=inf, the paper's relation."""

import io as _io
import json

import numpy as np

from latentkit import cli
from latentkit.datasets import make_lda_corpus


def run(argv):
    out = _io.StringIO()
    status = cli.main(argv, out=out)
    return status, out.getvalue()


def _write(tmp_path):
    X, _ = make_lda_corpus(3000, 3, 25, doc_length=40, doc_topic_prior=0.3,
                           topic_word_prior=0.1, random_state=2)
    coo = X.tocoo()
    lines = [str(X.shape[0]), str(X.shape[1]), str(X.nnz)]
    lines += [f"{r + 1} {c + 1} {int(v)}" for r, c, v in zip(coo.row, coo.col, coo.data)]
    (tmp_path / "d.txt").write_text("\n".join(lines) + "\n")
    (tmp_path / "v.txt").write_text("\n".join(f"w{j}" for j in range(25)) + "\n")
    return ["fit", "lda", "--data", str(tmp_path / "d.txt"), "--vocab", str(tmp_path / "v.txt"),
            "-k", "3", "--init", "spectral", "--private", "--quiet", "--n-words", "10"]


def test_private_cli_states_relation_total_epsilon_and_noise(tmp_path, monkeypatch):
    # The noise is pinned (a fresh seeded generator per fit, as tests/spectral/conftest.py
    # does): at epsilon 0.5 the answer is noise, and the check says so when a topic's ratio
    # |eigenvalue| / sqrt(k) / noise or the second moment's k-th eigenvalue / noise norm is
    # <= 1. Under OS entropy the smaller of the two was 0.34 +- 0.14 over 500 fits, max 0.90,
    # with a heavy upper tail (P(> 0.7) = 0.02, P(> 0.8) = 0.002): extrapolated, "MOSTLY
    # NOISE" goes missing in the order of 1e-5 of the runs, a property of the check in the
    # noise-only regime (it does not shrink with epsilon), not of this command line.
    seeds = np.random.SeedSequence(18)
    monkeypatch.setattr("latentkit.spectral._private_lda._noise_rng",
                        lambda: np.random.default_rng(seeds.spawn(1)[0]))
    base = _write(tmp_path)
    status, out = run(base + ["--epsilon", "0.5"])
    assert status == 0
    lines = out.splitlines()
    first = next(line for line in lines if line.startswith("privacy"))
    assert "neighbouring relation: one document" in first
    assert "whole pipeline spends epsilon = 0.5 at delta = 1e-05" in first
    noise = next(line for line in lines if line.startswith("noise"))
    assert "MOSTLY NOISE" in noise
    # words outside the 10 privately selected ones have probability zero: never listed
    topics = [line.split(": ", 1)[1].split() for line in lines if line.startswith("  topic")]
    assert all(len(t) <= 10 for t in topics)
    # epsilon = inf: the same pipeline without noise
    status, out = run(base + ["--epsilon", "inf", "--json"])
    obj = json.loads(out)
    assert obj["privacy"]["epsilon"] is None  # infinite: JSON null
    assert obj["noise_dominated"] == [False, False, False]
    # the paper's relation, stated as protecting no document
    status, out = run(base + ["--neighbouring", "tensor_entry", "--accountant", "advanced"])
    first = next(line for line in out.splitlines() if line.startswith("privacy"))
    assert "protects NO document" in first and "epsilon = 1 at delta" in first


def test_private_cli_refuses_other_inits(tmp_path, capsys):
    base = _write(tmp_path)
    base[base.index("spectral")] = "random"
    status, _ = run(base)
    assert status != 0
    assert "--private needs --init spectral" in capsys.readouterr().err
