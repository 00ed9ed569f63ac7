"""Issue 32, item 1: ``init='spectral'`` of every HMM is checked against the class's default
start by the model's own objective after the same short run, keeps the better one, warns
with both numbers when the default wins, and counts the start's iterations."""

import warnings

import numpy as np
import pytest

from latentkit.datasets import load_earthquakes
from latentkit.sequence import (CategoricalHMM, GaussianHMM, PoissonHMM,
                                VariationalCategoricalHMM, VariationalGaussianHMM)
from latentkit.sequence._start_check import CHECK_ITERATIONS
from latentkit.spectral import SpectralInitWarning


def _fit(make, X, lengths=None):
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        m = make().fit(X, lengths=lengths)
    return m, [r for r in record if issubclass(r.category, SpectralInitWarning)]


def test_earthquakes_k3_falls_back_with_both_numbers_where_random_is_better():
    # PoissonHMM, 3 states: the spectral start's run ends in the 329.095 optimum, the
    # random start's (seed 1) in the better one; before issue 32 no warning said so
    X = load_earthquakes().data
    kw = dict(random_state=1, tol=1e-8, max_iter=5000)
    m, warned = _fit(lambda: PoissonHMM(3, init="spectral", **kw), X)
    r = PoissonHMM(3, init="random", **kw).fit(X)
    rep = m.spectral_report_
    assert rep["chosen"] == "random" and rep["default_init"] == "random"
    assert rep["default"] > rep["spectral"]
    assert len(warned) == 1 and warned[0].filename == __file__
    text = str(warned[0].message)
    assert f"{rep['spectral']:.6f}" in text and f"{rep['default']:.6f}" in text
    # the kept run is the random start's: the fit continues it to the same optimum
    np.testing.assert_allclose(m.lower_bound_, r.lower_bound_, atol=1e-9)
    assert rep["n_iter"] == 2 * CHECK_ITERATIONS
    # continuing the random start's 10 iterations ends where the random fit ends
    assert m.n_iter_ + CHECK_ITERATIONS == pytest.approx(r.n_iter_, abs=1)


def _planted(rng, n=3000):
    A = np.array([[0.9, 0.05, 0.05], [0.05, 0.9, 0.05], [0.05, 0.05, 0.9]])
    z = np.zeros(n, dtype=np.int64)
    u = rng.random(n)
    for t in range(1, n):
        z[t] = min(np.searchsorted(np.cumsum(A[z[t - 1]]), u[t]), 2)
    return z


@pytest.mark.parametrize("kind", ["categorical", "poisson", "diag", "spherical",
                                  "vcategorical", "vdiag"])
def test_kept_spectral_start_continues_its_checked_run(kind):
    rng = np.random.default_rng(0)
    z = _planted(rng)
    if kind in ("categorical", "vcategorical"):
        B = np.array([[0.7, 0.1, 0.1, 0.1], [0.1, 0.7, 0.1, 0.1], [0.1, 0.1, 0.1, 0.7]])
        X = (rng.random(z.size)[:, None] > np.cumsum(B[z], 1)).sum(1).reshape(-1, 1)
        make = {"categorical": lambda **k: CategoricalHMM(3, n_features=4, **k),
                "vcategorical": lambda **k: VariationalCategoricalHMM(3, n_features=4, **k)}[kind]
    elif kind == "poisson":
        X = rng.poisson(np.array([3.0, 12.0, 30.0])[z])[:, None]
        make = lambda **k: PoissonHMM(3, **k)  # noqa: E731
    else:
        X = np.array([[0.0, 0.0], [3.0, 0.0], [0.0, 3.0]])[z] + rng.normal(size=(z.size, 2))
        make = {"diag": lambda **k: GaussianHMM(3, "diag", **k),
                "spherical": lambda **k: GaussianHMM(3, "spherical", **k),
                "vdiag": lambda **k: VariationalGaussianHMM(3, "diag", **k)}[kind]
    lengths = [1000, 1500, 500]
    m, warned = _fit(lambda: make(init="spectral", random_state=0, max_iter=200), X, lengths)
    rep = m.spectral_report_
    assert rep["chosen"] == "spectral" and not warned  # well-separated planted chains
    assert rep["spectral"] >= rep["default"]
    assert rep["n_iter"] == 2 * CHECK_ITERATIONS
    # the fit continues the spectral run from its last bound (EM does not decrease it)
    assert m.lower_bounds_[0] >= rep["spectral"] - 1e-9
    assert m.lower_bound_ >= rep["spectral"] - 1e-9
    # never a worse final bound than the default start without a warning
    d = make(random_state=0, max_iter=200).fit(X, lengths=lengths)
    assert m.lower_bound_ >= d.lower_bound_ - 1e-6


def test_check_uses_the_default_start_of_the_class():
    from latentkit.sequence._start_check import default_init

    assert default_init(PoissonHMM()) == "random"
    assert default_init(CategoricalHMM()) == "random"
    assert default_init(GaussianHMM()) == "kmeans++"
    assert default_init(VariationalGaussianHMM()) == "kmeans++"
