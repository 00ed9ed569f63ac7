"""``latentkit fit hdp`` end to end on a planted docword file: the report, the saved model,
and the ``coherence`` and ``report`` commands on it (issue 34, item 4); ``select lda``'s HDP
line beside its table."""

import io as _io
import json

import numpy as np
import pytest

from latentkit import cli
from latentkit.datasets import make_lda_corpus
from latentkit.io import load
from latentkit.testing import match_components


def run(argv):
    out = _io.StringIO()
    status = cli.main(argv, out=out)
    return status, out.getvalue()


def planted_docword(tmp_path):
    """A 3-topic corpus (150 documents, 30 words) as a UCI docword file and its vocabulary."""
    X, truth = make_lda_corpus(150, 3, 30, doc_length=60, topic_word_prior=0.05,
                               random_state=0)
    coo = X.tocoo()
    order = np.lexsort((coo.col, coo.row))
    lines = [str(X.shape[0]), str(X.shape[1]), str(X.nnz)]
    lines += [f"{r + 1} {c + 1} {int(v)}" for r, c, v in
              zip(coo.row[order], coo.col[order], coo.data[order])]
    (tmp_path / "docword.txt").write_text("\n".join(lines) + "\n")
    (tmp_path / "vocab.txt").write_text("\n".join(f"w{j}" for j in range(30)) + "\n")
    data = ["--data", str(tmp_path / "docword.txt"), "--vocab", str(tmp_path / "vocab.txt")]
    return X, truth, data


@pytest.mark.slow
def test_fit_hdp_json_report_coherence_and_report(tmp_path):
    X, truth, data = planted_docword(tmp_path)
    path = tmp_path / "hdp.npz"
    status, text = run(["fit", "hdp", *data, "-k", "8", "--doc-components", "4", "--json",
                        "--quiet", "--out", str(path)])
    assert status == 0
    obj = json.loads(text)
    assert obj["model"] == "HierarchicalDirichletProcess" and obj["n_samples"] == 150
    assert np.all(np.diff(obj["lower_bounds"]) >= -1e-9 * np.abs(obj["lower_bounds"][1:]))
    fitted = load(path)
    assert obj["n_effective_components"] == fitted.n_effective_components_ == 3
    live = fitted.effective_mask()
    topics = fitted.components_[live] / fitted.components_[live].sum(axis=1, keepdims=True)
    assert match_components(truth["topics"], topics)[1].max() < 0.3
    status, text = run(["fit", "hdp", *data, "-k", "8", "--doc-components", "4", "--quiet"])
    assert status == 0
    for label in ("HierarchicalDirichletProcess(n_components=8", "3 of 8 carry more than 1%",
                  "nats per document", "perplexity"):
        assert label in text, text
    status, text = run(["coherence", str(path), *data, "--measure", "c_npmi", "--json"])
    assert status == 0, text
    assert len(json.loads(text)["topics"]) == 8
    status, text = run(["report", str(path), *data, "--out", str(tmp_path / "r.html")])
    assert status == 0 and (tmp_path / "r.html").stat().st_size > 1000


def test_select_lda_prints_the_hdp_effective_topics_of_its_training_split(tmp_path, capsys):
    from latentkit.selection import hdp_effective_components, select_n_components

    X, _, data = planted_docword(tmp_path)
    argv = ["select", "lda", *data, "-k", "2,3", "--quiet"]
    status, text = run([*argv, "--hdp-truncation", "6", "--json"])
    assert status == 0, text
    obj = json.loads(text)
    # the oracle: the same model fitted by hand on the selection's own training split
    sel = select_n_components("lda", X, [2])
    assert sel.train_index.size == 135 and np.unique(sel.train_index).size == 135
    hand = hdp_effective_components(X[sel.train_index], 6)
    assert hand["model"].n_features_in_ == 30
    assert obj["hdp"]["n_effective_components"] == hand["n_effective_components"] == 3
    assert obj["hdp"]["truncation"] == 6 and obj["hdp"]["threshold"] == 0.01
    status, text = run([*argv, "--hdp"])   # default truncation: the largest K
    n = hdp_effective_components(X[sel.train_index], 3)["n_effective_components"]
    assert status == 0 and f"HDP: {n} effective topics of T=3 (each > 1% of" in text, text
    assert ("all T in use" in text) == (n == 3)
    status, text = run([*argv, "--hdp-truncation", "0"])
    assert status == 2 and "--hdp-truncation must be a positive" in capsys.readouterr().err


def test_select_lda_fits_the_hdp_only_on_request(tmp_path, capsys, monkeypatch):
    # issue 41: the HDP took 4 min of select's 8 on a real corpus without being asked for
    import latentkit.cli.cmd_select as cmd_select

    X, _, data = planted_docword(tmp_path)
    calls = []
    real = cmd_select.hdp_effective_components

    def spy(*a, **kw):
        calls.append(kw)
        return real(*a, **kw)

    monkeypatch.setattr(cmd_select, "hdp_effective_components", spy)
    argv = ["select", "lda", *data, "-k", "2,3"]
    status, text = run([*argv, "--quiet"])
    assert status == 0 and "HDP" not in text and "chosen K" in text and not calls, text
    status, text = run([*argv, "--quiet", "--no-hdp"])   # deprecated, accepted, a no-op
    assert status == 0 and "HDP" not in text and not calls, text
    status, text = run([*argv, "--max-iter", "5", "--hdp"])   # with its own progress bar
    assert status == 0 and "HDP: " in text and len(calls) == 1, text
    assert callable(calls[0]["callback"]) and calls[0]["max_iter"] == 5
