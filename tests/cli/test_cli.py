"""The `latentkit` command: datasets, fit gmm|lda, show, errors; once through a subprocess."""

import io as _io
import json
import re
import subprocess
import sys

import numpy as np
import pytest

from latentkit import cli
from latentkit.datasets import list_datasets, make_gmm, make_lda_corpus


def run(argv, capsys=None):
    out = _io.StringIO()
    status = cli.main(argv, out=out)
    return status, out.getvalue()


def test_datasets_lists_every_bundled_set():
    status, text = run(["datasets"])
    assert status == 0
    lines = text.splitlines()
    assert lines[0].split() == ["NAME", "KIND", "SHAPE", "LICENSE"]
    for entry in list_datasets():
        row = next(ln for ln in lines if ln.startswith(entry["name"] + " "))
        assert entry["shape"] in row and entry["license"] in row
    status, text = run(["datasets", "--json"])
    rows = json.loads(text)
    assert {r["name"] for r in rows} >= {"kos", "nips", "gutenberg_novels", "old_faithful",
                                         "iris", "earthquakes", "lambda_phage"}


def test_fit_gmm_old_faithful_reaches_published_optimum(tmp_path, capsys):
    # README: maximum-likelihood fit, full covariance, K=2, raw units: log L = -1130.264,
    # weights .3559/.6441, means (2.0364, 54.4785), (4.2897, 79.9681)
    status, text = run(["fit", "gmm", "--dataset", "old_faithful", "-k", "2",
                        "--out", str(tmp_path / "g.npz")])
    assert status == 0
    m = re.search(r"log-likelihood\s+(-?\d+\.\d+) total, (-?\d+\.\d+) per sample", text)
    assert m and abs(float(m[1]) - (-1130.264)) < 0.005
    assert abs(float(m[2]) - (-1130.264 / 272)) < 1e-4
    assert "BIC" in text and "weights" in text and "covariances (full)" in text

    capsys.readouterr()
    status, text = run(["fit", "gmm", "--dataset", "old_faithful", "-k", "2", "--json", "--quiet"])
    obj = json.loads(text)
    assert obj["model"] == "GaussianMixture" and obj["n_samples"] == 272
    order = np.argsort(obj["weights"])
    np.testing.assert_allclose(np.array(obj["weights"])[order], [0.3559, 0.6441], atol=1e-4)
    np.testing.assert_allclose(np.array(obj["means"])[order],
                               [[2.0364, 54.4785], [4.2897, 79.9681]], atol=2e-3)
    assert abs(obj["log_likelihood"] + 1130.264) < 0.005
    assert obj["lower_bound"] == obj["lower_bounds"][-1] and obj["n_iter"] == len(obj["lower_bounds"])
    assert np.all(np.diff(obj["lower_bounds"]) >= -1e-9)
    assert capsys.readouterr().err == ""  # --quiet: nothing on stderr

    status, text = run(["show", str(tmp_path / "g.npz")])
    assert status == 0 and "GaussianMixture" in text and "means_" in text and "eruptions" in text


def test_fit_gmm_on_user_csv(tmp_path):
    X, _, truth = make_gmm(300, 2, 3, separation=6.0, random_state=1)
    path = tmp_path / "points.csv"
    np.savetxt(path, X, delimiter=",", header="a,b,c", comments="")
    status, text = run(["fit", "gmm", "--data", str(path), "-k", "2", "--covariance-type",
                        "diag", "--seed", "3", "--max-iter", "200", "--json"])
    assert status == 0
    obj = json.loads(text)
    means = np.array(obj["means"])
    # planted means recovered up to permutation
    d = np.linalg.norm(means[:, None] - truth["means"][None], axis=2)
    assert d.min(axis=1).max() < 0.5
    assert obj["covariance_type"] == "diag" and obj["n_features"] == 3


@pytest.fixture
def docword(tmp_path):
    X, truth = make_lda_corpus(150, 3, 30, doc_length=60, topic_word_prior=0.05, random_state=0)
    coo = X.tocoo()
    order = np.lexsort((coo.col, coo.row))
    lines = [str(X.shape[0]), str(X.shape[1]), str(X.nnz)]
    lines += [f"{r + 1} {c + 1} {int(v)}" for r, c, v in
              zip(coo.row[order], coo.col[order], coo.data[order])]
    (tmp_path / "docword.txt").write_text("\n".join(lines) + "\n")
    vocab = [f"w{j}" for j in range(30)]
    (tmp_path / "vocab.txt").write_text("\n".join(vocab) + "\n")
    return tmp_path, X, truth


def test_fit_lda_on_user_docword_json_out_and_show(docword):
    tmp_path, X, truth = docword
    model_path = tmp_path / "lda.npz"
    status, text = run(["fit", "lda", "--data", str(tmp_path / "docword.txt"), "--vocab",
                        str(tmp_path / "vocab.txt"), "-k", "3", "--max-iter", "50",
                        "--seed", "1", "--json", "--out", str(model_path)])
    assert status == 0
    obj = json.loads(text)
    for key in ("model", "n_samples", "n_iter", "converged", "lower_bounds", "lower_bound",
                "perplexity", "topics", "seconds"):
        assert key in obj
    assert obj["model"] == "LatentDirichletAllocation" and obj["n_samples"] == 150
    assert len(obj["topics"]) == 3 and all(len(t) == 10 for t in obj["topics"])
    assert np.all(np.diff(obj["lower_bounds"]) >= -1e-9 * np.abs(obj["lower_bounds"][1:]))
    # perplexity = exp(-ELBO_total / n_tokens) with ELBO_total = lower-bound scale check:
    assert 1.0 < obj["perplexity"] < 30  # at most the vocabulary size (uniform model)
    # the saved model recovers the planted topics (Hungarian-matched L1 distance)
    from scipy.optimize import linear_sum_assignment

    from latentkit.io import load

    fitted = load(model_path)
    topics = fitted.components_ / fitted.components_.sum(1, keepdims=True)
    cost = np.abs(topics[:, None] - truth["topics"][None]).sum(-1)
    rows, cols = linear_sum_assignment(cost)
    assert cost[rows, cols].max() < 0.3, cost[rows, cols]
    # the printed topics are the fitted model's top words
    assert obj["topics"] == fitted.top_words([f"w{j}" for j in range(30)], 10)

    status, text = run(["fit", "lda", "--data", str(tmp_path / "docword.txt"), "--vocab",
                        str(tmp_path / "vocab.txt"), "-k", "3", "--max-iter", "50",
                        "--seed", "1", "--quiet"])
    assert status == 0
    for label in ("150 documents x 30 words", "iterations", "ELBO", "nats per document",
                  "perplexity", "topic 2:", "seconds"):
        assert label in text

    status, text = run(["show", str(model_path)])
    assert status == 0 and "LatentDirichletAllocation" in text and "top words per topic" in text
    status, text = run(["show", str(model_path), "--json"])
    shown = json.loads(text)
    assert shown["class"] == "LatentDirichletAllocation"
    assert np.array(shown["attributes"]["components_"]).shape == (3, 30)


def test_errors_exit_2_with_one_line(docword, capsys):
    tmp_path, _, _ = docword
    bad = tmp_path / "bad.txt"
    bad.write_text("2\n3\n2\n1 1 1\n2 x 1\n")
    cases = [
        (["fit", "lda", "--data", str(bad)], r"line 5"),
        (["fit", "gmm", "--dataset", "mnist"], r"unknown dataset 'mnist'"),
        (["fit", "lda", "--dataset", "iris"], r"not a text corpus"),
        (["fit", "gmm", "--dataset", "kos"], r"not a table of numbers"),
        (["fit", "gmm", "--dataset", "old_faithful", "-k", "0"], r"-k must be a positive"),
        (["fit", "gmm", "--data", str(tmp_path / "missing.csv")], r"not found"),
        (["show", str(bad)], r"not a latentkit model file"),
    ]
    for argv, pattern in cases:
        status, _ = run(argv)
        err = capsys.readouterr().err
        assert status == 2, argv
        assert err.startswith("latentkit: error: ") and re.search(pattern, err), (argv, err)
    with pytest.raises(SystemExit):
        cli.main(["fit", "kmeans"])  # argparse: unknown model


def test_progress_bar_goes_to_stderr(capsys):
    progress = cli.Progress(total=5, desc="fit test", delay=0)
    with progress:
        for i in range(1, 4):
            assert progress.callback(None, i, -1.5 * i) is False
    err = capsys.readouterr()
    assert "fit test" in err.err and err.out == ""
    quiet = cli.Progress(total=5, enabled=False)
    with quiet:
        quiet.callback(None, 1, 0.0)
    assert capsys.readouterr().err == ""


def test_registry_pattern_is_extensible():
    # one parser function + one run function + one registry entry add a `fit` model
    def add_args(p):
        p.add_argument("--flag", action="store_true")

    def run_fn(args, progress):
        raise AssertionError("not called")

    cli.FIT_COMMANDS["dummy"] = cli.FitCommand("dummy model", add_args, run_fn, "iris")
    try:
        args = cli.build_parser().parse_args(["fit", "dummy", "--flag", "-k", "3"])
        assert args.model == "dummy" and args.flag and args.n_components == 3
        assert args.dataset == "iris"
    finally:
        del cli.FIT_COMMANDS["dummy"]


def test_python_dash_m_subprocess():
    proc = subprocess.run([sys.executable, "-m", "latentkit", "datasets"], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "kos" in proc.stdout and "CC BY 4.0" in proc.stdout


@pytest.mark.parametrize("argv,pattern", [
    (["fit", "lda", "--dataset", "kos", "-k", "3", "--method", "svi", "--batch-size", "0"],
     r"--batch-size must be a positive integer, got 0"),
    (["fit", "hmm", "--dataset", "kos", "-k", "3"], r"'kos' is a text corpus .*not sequence data"),
    (["fit", "gmm", "--dataset", "iris", "--data", "x.csv", "-k", "2"],
     r"--data and --dataset are alternatives"),
    (["fit", "gmm", "--dataset", "iris", "-k", "2", "--out", "/nonexistent/dir/m.npz"],
     r"the folder '/nonexistent/dir' does not exist"),
])
def test_argument_errors_before_any_work(argv, pattern, capsys):
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("latentkit: error: ") and re.search(pattern, err), err
    assert err.count("\n") == 1


@pytest.mark.slow
def test_fit_lda_starts_as_the_library_by_default(capsys):
    # issue 27: the CLI's default start was its own (spectral); it is the library's 'auto'
    assert cli.main(["fit", "lda", "--dataset", "kos", "-k", "5", "--max-iter", "2", "--json",
                     "--quiet"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["init"] == "auto" and obj["init_used"] == "cvb0"


def test_fit_dpmm_vgmm_plsa_end_to_end(capsys):
    # DPMM on standardised Old Faithful finds the 2 clusters (expected weight > 0.01)
    assert cli.main(["fit", "dpmm", "--dataset", "old_faithful", "--standardize", "--json",
                     "--quiet"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["model"] == "DirichletProcessMixture" and res["n_effective_components"] == 2
    assert np.all(np.diff(res["lower_bounds"]) >= -1e-9 * np.abs(res["lower_bounds"][:-1]))
    assert cli.main(["fit", "vgmm", "--dataset", "iris", "-k", "6", "--json", "--quiet"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["model"] == "VariationalGaussianMixture" and np.isfinite(res["lower_bound"])
    assert cli.main(["fit", "plsa", "--dataset", "kos", "-k", "3", "--max-iter", "3",
                     "--json", "--quiet"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["model"] == "PLSA" and len(res["topics"]) == 3 and res["n_iter"] == 3
