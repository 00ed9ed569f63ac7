"""``latentkit fit hmm`` end to end on the bundled data."""

import io
import json
import re

import pytest

from latentkit.cli import main


def _run(argv):
    out = io.StringIO()
    assert main(argv, out=out) == 0
    return out.getvalue()


def test_fit_hmm_earthquakes_poisson_prints_the_published_fit():
    text = _run(["fit", "hmm", "--dataset", "earthquakes", "-k", "2", "--emission", "poisson",
                 "--tol", "1e-10", "--max-iter", "2000", "--n-init", "3", "--quiet"])
    m = re.search(r"-log L = ([0-9.]+)", text)
    assert m and float(m.group(1)) == pytest.approx(341.8787, abs=1e-4)
    lam = text.split("lambdas (one row per state)\n")[1].splitlines()[:2]
    assert sorted(round(float(v), 2) for v in lam) == [15.42, 26.02]
    assert "transmat" in text and "startprob" in text
    assert re.search(r"state 0: \d+ steps .* runs, mean run length", text)
    assert "first steps: " in text


def test_fit_hmm_json_categorical_and_gaussian():
    obj = json.loads(_run(["fit", "hmm", "--dataset", "lambda_phage", "-k", "2", "--max-iter",
                           "3", "--json"]))
    assert obj["model"] == "CategoricalHMM" and obj["emission"] == "categorical"
    assert obj["symbols"] == ["A", "C", "G", "T"] and obj["n_samples"] == 48502
    assert sum(obj["occupancy"]) == 48502
    # the printed log-likelihood is after the last M-step: EM does not decrease it
    assert obj["log_likelihood"] >= obj["lower_bounds"][-1] * 48502
    obj = json.loads(_run(["fit", "hmm", "--dataset", "geyser", "-k", "2", "--covariance-type",
                           "full", "--max-iter", "5", "--json"]))
    assert obj["model"] == "GaussianHMM" and len(obj["covars"]) == 2
