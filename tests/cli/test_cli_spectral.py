"""`latentkit fit lda|gmm --init spectral`: method-of-moments starts from the command line."""

import io as _io
import json

import numpy as np
import pytest
from scipy.optimize import linear_sum_assignment

from latentkit import cli
from latentkit.datasets import make_lda_corpus


def run(argv):
    out = _io.StringIO()
    status = cli.main(argv, out=out)
    return status, out.getvalue()


def write_docword(path, X):
    coo = X.tocoo()
    order = np.lexsort((coo.col, coo.row))
    lines = [str(X.shape[0]), str(X.shape[1]), str(X.nnz)]
    lines += [f"{r + 1} {c + 1} {int(v)}" for r, c, v in
              zip(coo.row[order], coo.col[order], coo.data[order])]
    path.write_text("\n".join(lines) + "\n")


@pytest.fixture
def corpus(tmp_path):
    X, truth = make_lda_corpus(800, 4, 40, doc_length=50, doc_topic_prior=0.25,
                               topic_word_prior=0.05, random_state=3)
    write_docword(tmp_path / "docword.txt", X)
    (tmp_path / "vocab.txt").write_text("\n".join(f"w{j}" for j in range(40)) + "\n")
    return tmp_path, X, truth


def test_fit_lda_init_spectral_starts_near_the_planted_topics(corpus):
    tmp_path, X, truth = corpus
    common = ["fit", "lda", "--data", str(tmp_path / "docword.txt"), "--vocab",
              str(tmp_path / "vocab.txt"), "-k", "4", "--doc-topic-prior", "0.25",
              "--seed", "2", "--json", "--quiet"]
    status, text = run(common + ["--init", "spectral", "--max-iter", "1",
                                 "--out", str(tmp_path / "s.npz")])
    assert status == 0
    spec = json.loads(text)
    assert spec["init"] == "spectral"
    status, text = run(common + ["--init", "random", "--max-iter", "1"])
    assert status == 0
    rand = json.loads(text)
    assert rand["init"] == "random"
    # one VB iteration from the moment estimate is already far above one from a random start
    assert spec["lower_bounds"][0] > rand["lower_bounds"][0] + 1.0
    # and the topics after that single iteration are the planted ones
    from latentkit.io import load

    fitted = load(tmp_path / "s.npz")
    topics = fitted.components_ / fitted.components_.sum(1, keepdims=True)
    cost = np.abs(topics[:, None] - truth["topics"][None]).sum(-1)
    r, c = linear_sum_assignment(cost)
    assert cost[r, c].max() < 0.35, cost[r, c]

    status, text = run(common[:-2] + ["--init", "spectral", "--max-iter", "3", "--quiet"])
    assert status == 0 and "init        spectral" in text


def test_fit_gmm_init_spectral_recovers_planted_means(tmp_path):
    rng = np.random.default_rng(0)
    # the moment method needs linearly independent (uncentred) means (Hsu & Kakade 2013)
    means = np.array([[3.0, 0.0, 0.0], [6.0, 5.0, 1.0], [0.0, 6.0, 4.0]])
    X = means[rng.choice(3, 900, p=[0.3, 0.3, 0.4])] + rng.standard_normal((900, 3))
    path = tmp_path / "points.csv"
    np.savetxt(path, X, delimiter=",", header="a,b,c", comments="")
    status, text = run(["fit", "gmm", "--data", str(path), "-k", "3", "--init", "spectral",
                        "--covariance-type", "spherical", "--max-iter", "1", "--json",
                        "--quiet"])
    assert status == 0
    obj = json.loads(text)
    assert obj["init"] == "spectral" and obj["n_iter"] == 1
    # after one EM step from the spectral start the means are the planted ones
    dist = np.linalg.norm(np.array(obj["means"])[:, None] - means[None], axis=2)
    r, c = linear_sum_assignment(dist)
    assert dist[r, c].max() < 0.3, dist[r, c]
    status, text = run(["fit", "gmm", "--data", str(path), "-k", "3", "--init", "spectral",
                        "--quiet"])
    assert status == 0 and "init        spectral" in text


def test_fit_init_spectral_errors_and_fallback(corpus, capsys):
    tmp_path, _, _ = corpus
    # an unknown init is a one-line user error (exit status 2)
    status, _ = run(["fit", "lda", "--data", str(tmp_path / "docword.txt"), "-k", "2",
                     "--init", "spectrall", "--quiet"])
    assert status == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "init" in err[0] and "spectral" in err[0]
    # documents shorter than 3 tokens carry no third moment: warn and fall back to random
    short = tmp_path / "short.txt"
    short.write_text("3\n4\n4\n1 1 1\n1 2 1\n2 3 2\n3 4 1\n")
    status, text = run(["fit", "lda", "--data", str(short), "-k", "2", "--init", "spectral",
                        "--max-iter", "2"])
    # issue 27: the summary states the start that ran (it said 'init spectral' while a Python
    # warning with a library path reported the fallback)
    assert status == 0
    line = next(ln for ln in text.splitlines() if ln.startswith("init"))
    assert line.startswith("init        spectral -> random (fallback: ") and "3 tokens" in line
    err = capsys.readouterr().err
    assert "SpectralInitWarning" not in err and ".py:" not in err
