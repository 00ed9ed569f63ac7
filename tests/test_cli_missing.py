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
