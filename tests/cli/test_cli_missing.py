"""`latentkit fit gmm --missing marginalize` on a CSV with nan entries (issue 15 item 1)."""

import io as _io
import json

import numpy as np

from latentkit import cli
from latentkit.datasets import make_gmm
from latentkit.mixture import GaussianMixture


def run(argv):
    out = _io.StringIO()
    status = cli.main(argv, out=out)
    return status, out.getvalue()


def test_fit_gmm_missing_marginalize(tmp_path):
    X, _, _ = make_gmm(200, 2, 3, separation=6.0, random_state=1)
    M = np.random.default_rng(0).random(X.shape) < 0.15
    Xm = np.where(M, np.nan, X)
    path = tmp_path / "points.csv"
    np.savetxt(path, Xm, delimiter=",", header="a,b,c", comments="")
    argv = ["fit", "gmm", "--data", str(path), "-k", "2", "--seed", "0", "--max-iter", "50"]
    status, text = run(argv + ["--missing", "marginalize", "--json"])
    assert status == 0
    obj = json.loads(text)
    ref = GaussianMixture(2, missing="marginalize", random_state=0, max_iter=50).fit(
        np.loadtxt(path, delimiter=",", skiprows=1))
    np.testing.assert_allclose(obj["means"], ref.means_, rtol=1e-12)
    assert abs(obj["log_likelihood_per_sample"] - ref.score(Xm)) < 1e-9
    status, text = run(argv + ["--missing", "marginalize"])
    assert status == 0 and f"{int(M.sum())} missing entries marginalised" in text
    status, text = run(argv)  # the default refuses NaN with the library's message
    assert status != 0


def test_fit_dpmm_missing_marginalize_reaches_the_model(tmp_path):
    from latentkit.mixture import DirichletProcessMixture
    from latentkit.mixture._gaussian_component import GaussianComponent

    X, _, _ = make_gmm(150, 2, 2, separation=6.0, random_state=3)
    Xm = np.where(np.random.default_rng(1).random(X.shape) < 0.1, np.nan, X)
    path = tmp_path / "points.csv"
    np.savetxt(path, Xm, delimiter=",", header="a,b", comments="")
    argv = ["--data", str(path), "-k", "4", "--seed", "0", "--max-iter", "30",
            "--missing", "marginalize"]
    status, text = run(["fit", "dpmm", *argv, "--json"])
    assert status == 0
    ref = DirichletProcessMixture(4, component=GaussianComponent(missing="marginalize"),
                                  random_state=0, max_iter=30).fit(Xm)
    np.testing.assert_allclose(json.loads(text)["means"], ref.means_, rtol=1e-10)
