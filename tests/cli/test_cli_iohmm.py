"""`latentkit fit iohmm`: on the geyser series (inputs: the waiting time) the --json summary
is the Python API's fit with the CLI's settings; on a CSV the --inputs columns are found by
name or index; bad --inputs and --plot are one-line errors."""

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
def test_fit_iohmm_on_the_geyser_equals_the_python_api():
    rc, text = _run(["fit", "iohmm", "--max-iter", "5", "--json", "--quiet"])
    assert rc == 0
    obj = json.loads(text)
    X = lk.datasets.load_old_faithful("geyser").data  # columns: waiting, duration
    ref = lk.InputOutputHMM(2, max_iter=5, random_state=0).fit(X[:, 1:], inputs=X[:, :1])
    assert obj["inputs"] == ["waiting"]
    # 1e-10: the same fit; only the JSON round trip of the floats differs
    np.testing.assert_allclose(obj["transition_coefs"], ref.transition_coefs_, rtol=1e-10)
    np.testing.assert_allclose(obj["means"], ref.means_, rtol=1e-10)
    np.testing.assert_allclose(obj["log_likelihood"],
                               ref.score(X[:, 1:], inputs=X[:, :1]) * len(X), rtol=1e-10)


@pytest.mark.filterwarnings("ignore::latentkit.base.ConvergenceWarning")
def test_fit_iohmm_on_a_csv_with_named_inputs(tmp_path):
    rng = np.random.default_rng(0)
    table = np.column_stack([rng.normal(size=200), rng.normal(size=200),
                             rng.normal(size=200)])
    path = tmp_path / "series.csv"
    np.savetxt(path, table, delimiter=",", header="y,u1,u2", comments="")
    rc, text = _run(["fit", "iohmm", "--data", str(path), "--inputs", "u1,2", "--max-iter",
                     "3", "--json", "--quiet"])
    assert rc == 0
    obj = json.loads(text)
    assert obj["inputs"] == ["u1", "u2"] and np.shape(obj["transition_coefs"]) == (2, 2, 2)
    assert np.shape(obj["means"]) == (2, 1)


@pytest.mark.parametrize("argv, message", [
    (["--inputs", "rain"], "--inputs: 'rain' is not a column of the data"),
    (["--inputs", "waiting,duration"], "--inputs takes every column"),
    (["--coefs-prior", "-1"], "--coefs-prior must be >= 0"),
    (["--plot", "x.png"], "fit iohmm has no --plot figure"),
])
def test_bad_options_are_one_line_errors(argv, message, capsys):
    rc, _ = _run(["fit", "iohmm", "--quiet", *argv])
    assert rc != 0
    assert message in capsys.readouterr().err
