"""`latentkit fit vae --private` (issue 30 item 6): the neighbouring relation, the accountant's
epsilon under both conversions and the noise multiplier are printed, and they are the fitted
model's."""

import io
import json
import sys
from pathlib import Path

from latentkit.cli import main
from latentkit.io import load

sys.path.insert(0, str(Path(__file__).parents[1] / "neural"))
from test_private_vae import needs_accountant  # noqa: E402

ARGS = ["fit", "vae", "--private", "--epsilon", "2", "--delta", "1e-5", "--clip-norm", "0.5",
        "--hidden", "8", "--max-iter", "1", "--batch-size", "500", "--n-importance", "2",
        "--quiet"]


@needs_accountant
def test_fit_vae_private_prints_relation_epsilons_and_noise(tmp_path):
    path = str(tmp_path / "pvae.npz")
    out = io.StringIO()
    assert main(ARGS + ["--noise-multiplier", "3", "--out", path], out=out) == 0
    text = out.getvalue()
    assert "neighbouring relation: one example (training row) added or removed" in text
    assert "8 steps, sampling rate q = 0.1308 (Poisson), clip norm 0.5" in text
    model = load(path)
    rep = model.privacy_report_
    assert rep["steps"] == 8 and rep["epsilon_rdp_improved"] <= 2.0
    assert rep["noise_multiplier"] == 3.0 and "noise multiplier 3 (noise std 1.5)" in text
    assert (f"epsilon = {rep['epsilon_rdp_improved']:.4g} ('rdp_improved'), "
            f"{rep['epsilon_rdp']:.4g} ('rdp') at delta = 1e-05; budget 2") in text
    assert "active units withheld" in text


@needs_accountant
def test_fit_vae_private_json():
    out = io.StringIO()
    assert main(ARGS + ["--noise-multiplier", "1.5", "--json"], out=out) == 0
    obj = json.loads(out.getvalue())
    p = obj["privacy"]
    assert p["neighbouring"] == "one example (training row) added or removed"
    assert p["epsilon"] == 2.0 and p["steps"] == 8 and p["noise_multiplier"] == 1.5
    assert p["epsilon_rdp"] >= p["epsilon_rdp_improved"] and p["epsilon_rdp_improved"] < 2.0
    assert obj["model"] == "PrivateVAE" and obj["lower_bound"] is None
    assert obj["active_units"] is None


def test_fit_vae_private_bad_budget():
    out = io.StringIO()
    assert main(ARGS[:3] + ["--epsilon", "0"] + ARGS[5:], out=out) == 2


@needs_accountant
def test_fit_vae_private_prints_only_released_quantities():
    """Issue 40 item 5: no training ELBO (computed on the raw rows without noise) in the text
    or in --json, no 5-NN accuracy (it encodes the training rows); the held-out test ELBO of
    optdigits (public rows, private parameters) stays. Fails on main."""
    out = io.StringIO()
    assert main(ARGS + ["--noise-multiplier", "3"], out=out) == 0
    text = out.getvalue()
    assert "train ELBO" not in text.replace("the train ELBO and", "")
    assert "5-NN accuracy of" not in text and "test ELBO" in text
    out = io.StringIO()
    assert main(ARGS + ["--noise-multiplier", "3", "--json"], out=out) == 0
    obj = json.loads(out.getvalue())
    assert not any(k.startswith("train_elbo") for k in obj) and "knn_accuracy" not in obj
    assert "test_elbo" in obj
