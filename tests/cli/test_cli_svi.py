"""``latentkit fit lda --method svi`` and ``--dask-scheduler``: the options reach the model
(the CLI fit equals the same fit through the Python API), the Dask fit on a LocalCluster equals
the local batch fit, and misuse is a one-line error with exit status 2."""

import io
import json

import numpy as np
import pytest

from latentkit import cli
from latentkit.datasets import load_gutenberg_novels
from latentkit.inference import StochasticVI
from latentkit.io import load
from latentkit.topic import LatentDirichletAllocation


def run(argv):
    out = io.StringIO()
    status = cli.main(argv, out=out)
    return status, out.getvalue()


def test_fit_lda_svi_on_gutenberg_paragraphs_equals_the_api(tmp_path):
    path = tmp_path / "svi.npz"
    status, text = run(["fit", "lda", "--dataset", "gutenberg_novels", "--level", "paragraph",
                        "-k", "4", "--method", "svi", "--batch-size", "512", "--max-iter", "1",
                        "--learning-decay", "0.6", "--seed", "3", "--json", "--quiet",
                        "--out", str(path)])
    assert status == 0
    res = json.loads(text)
    X = load_gutenberg_novels(level="paragraph").data
    assert res["n_samples"] == X.shape[0] == 17080
    assert res["method"] == "svi" and res["batch_size"] == 512
    assert res["n_steps"] == -(-17080 // 512) and res["n_iter"] == 1
    api = StochasticVI(LatentDirichletAllocation(4, learning_decay=0.6), batch_size=512,
                       n_epochs=1, learning_decay=0.6, random_state=3).fit(X).model_
    saved = load(path)
    np.testing.assert_allclose(saved.components_, api.components_, rtol=1e-12)
    assert res["lower_bound"] == pytest.approx(api.lower_bound_, rel=1e-12)
    assert res["perplexity"] == pytest.approx(api.perplexity(X), rel=1e-12)


def test_fit_lda_svi_holdout_trace_in_text_output():
    status, text = run(["fit", "lda", "--dataset", "gutenberg_novels", "-k", "3", "--method",
                        "svi", "--batch-size", "40", "--max-iter", "2", "--holdout", "0.2",
                        "--quiet"])
    assert status == 0
    assert "stochastic VI: 18 minibatch steps of 40 documents" in text  # 321 training chapters
    assert "(held-out)" in text and "epochs" in text


@pytest.mark.parametrize("argv,msg", [
    (["--method", "svi", "--dask-scheduler", "tcp://127.0.0.1:1"], "use it with --method batch"),
    (["--batch-size", "64"], "--batch-size apply to --method svi only"),
    (["--method", "svi", "--learning-decay", "0.5"], "kappa"),
    (["--dataset", "kos", "--level", "paragraph"], "--level applies to --dataset "
                                                    "gutenberg_novels only"),
])
def test_fit_lda_svi_misuse_is_a_clear_error(argv, msg, capsys):
    status, _ = run(["fit", "lda", "--dataset", "gutenberg_novels", "-k", "2", "--max-iter",
                     "1", "--quiet", *argv] if "--dataset" not in argv else
                    ["fit", "lda", "-k", "2", "--quiet", *argv])
    assert status == 2
    err = capsys.readouterr().err
    assert err.startswith("latentkit: error:") and msg in err, err


@pytest.mark.slow
def test_fit_lda_on_a_local_dask_cluster_equals_the_local_fit():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None, silence_logs=40) as cluster:
        status, text = run(["fit", "lda", "--dataset", "gutenberg_novels", "-k", "3",
                            "--max-iter", "3", "--tol", "0", "--seed", "1", "--json", "--quiet",
                            "--init", "random", "--dask-scheduler", cluster.scheduler_address])
    assert status == 0, text
    res = json.loads(text)
    assert res["dask_scheduler"].startswith("inproc://") or res["dask_scheduler"].startswith("tcp")
    X = load_gutenberg_novels().data
    local = LatentDirichletAllocation(3, max_iter=3, tol=0, random_state=1, init="random").fit(X)
    np.testing.assert_allclose(res["lower_bounds"], local.lower_bounds_, rtol=1e-10)
    assert res["perplexity"] == pytest.approx(local.perplexity(X), rel=1e-10)
