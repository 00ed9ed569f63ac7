"""Reduced utility curve of the DP VAE on optdigits (issue 30 item 5): benchmarks/
bench_private_vae.py at a small size (1,000 training digits, 500 test digits, hidden 16, 4
epochs, expected batch 100, clip norm 1). The privacy noise is seeded here (the fit draws it
from OS entropy) so that the test is repeatable."""

import importlib.util
import math
import warnings
from pathlib import Path

import numpy as np
import pytest

import latentkit.neural._private as priv
from latentkit.datasets import load_optdigits
from test_private_vae import needs_accountant

_BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_private_vae.py"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_private_vae", _BENCH)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@needs_accountant
def test_reduced_utility_curve_on_optdigits(bench, monkeypatch):
    monkeypatch.setattr(priv, "_noise_generator", lambda: np.random.default_rng(2026))
    tr, te = load_optdigits("train", scale="binary"), load_optdigits("test", scale="binary")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rows = bench.utility_curve(tr.data[:1000], tr.target[:1000], te.data[:500],
                                   te.target[:500], epsilons=(1.0, 8.0, math.inf), epochs=4,
                                   hidden=(16,), batch_size=100, clip_norm=1.0)
    by = {(r["fit"], r["epsilon"]): r for r in rows}
    ref, floor = by[("non-private", math.inf)], next(r for r in rows if r["fit"] == "untrained")
    # the epsilon = inf point is today's fit, bit for bit
    assert ref["identical"]
    # every private fit spent its budget (both conversions), in the planned steps
    for eps in (1.0, 8.0):
        r = by[("private", eps)]
        assert r["steps"] == 40 and r["epsilon_rdp_improved"] == pytest.approx(eps, rel=1e-5)
        assert eps >= r["epsilon_rdp_improved"] and r["epsilon_rdp"] > eps
    assert by[("private", 1.0)]["noise_multiplier"] > by[("private", 8.0)]["noise_multiplier"]
    # held-out ELBO: training helps at every epsilon, more budget helps, clipping alone costs
    # little, the non-private fit is best
    elbo = {k: r["elbo"] for k, r in by.items()}
    assert floor["elbo"] + 5 < elbo[("private", 1.0)] < elbo[("private", 8.0)] - 0.5
    assert elbo[("private", 8.0)] < elbo[("clip only", math.inf)] + 0.1
    assert abs(elbo[("clip only", math.inf)] - ref["elbo"]) < 1.0
    table, useful_elbo, _ = bench.summarise(rows)
    assert len(table) == 5 and useful_elbo in (1.0, 8.0)
