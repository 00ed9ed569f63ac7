"""`latentkit fit hsmm` and `latentkit fit arhmm`: on a bundled series and on a CSV of
numbers, the report and --json carry the fitted model (the same numbers as the Python API
with the CLI's settings), and bad options are one-line errors."""

import io
import json

import numpy as np
import pytest

import latentkit as lk
from latentkit.cli import main


def _run(argv):
    out = io.StringIO()
    rc = main(argv, out=out)
    return rc, out.getvalue()


@pytest.mark.filterwarnings("ignore::latentkit.base.ConvergenceWarning")
def test_fit_hsmm_on_the_geyser_equals_the_python_api():
    rc, text = _run(["fit", "hsmm", "--max-iter", "5", "--max-duration", "8", "--duration",
                     "poisson", "--json", "--quiet"])
    assert rc == 0
    obj = json.loads(text)
    X = lk.datasets.load_old_faithful("geyser").data
    ref = lk.HiddenSemiMarkovModel(2, lk.distributions.Gaussian("diag"), duration="poisson",
                                   max_duration=8, max_iter=5, random_state=0).fit(X)
    np.testing.assert_allclose(obj["durationprob"], ref.durationprob_, rtol=1e-10)
    np.testing.assert_allclose(obj["log_likelihood"], ref.score(X) * len(X), rtol=1e-10)
    assert obj["duration"] == "poisson"


def test_fit_arhmm_on_a_csv(tmp_path):
    rng = np.random.default_rng(0)
    x = np.zeros((300, 2))
    for t in range(1, 300):
        x[t] = (0.8 if t < 150 else -0.5) * x[t - 1] + rng.normal(size=2)
    path = tmp_path / "series.csv"
    np.savetxt(path, x, delimiter=",", header="a,b", comments="")
    rc, text = _run(["fit", "arhmm", "--data", str(path), "--n-lags", "2", "--max-iter", "10",
                     "--json", "--quiet"])
    assert rc == 0
    obj = json.loads(text)
    assert np.shape(obj["coefs"]) == (2, 2, 4)
    rc, text = _run(["fit", "arhmm", "--data", str(path), "--max-iter", "3", "--quiet"])
    assert rc == 0 and "coefs of state 1" in text and "Viterbi segmentation" in text


@pytest.mark.parametrize("argv, message", [
    (["fit", "hsmm", "--max-duration", "0"], "--max-duration must be a positive integer"),
    (["fit", "arhmm", "--n-lags", "0"], "--n-lags must be >= 1"),
])
def test_bad_options_are_one_line_errors(argv, message, capsys):
    rc, _ = _run(argv + ["--quiet"])
    assert rc != 0
    assert message in capsys.readouterr().err
