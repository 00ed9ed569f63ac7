"""``spectral_report_`` describes the fit that made the model: a refit with another ``init``
leaves none (it kept the previous spectral fit's report, so a reader -- the CLI's init line
too -- was told of a start that did not happen), and a spectral refit makes it again."""

import numpy as np
import pytest

from latentkit.mixture import GaussianMixture
from latentkit.sequence import PoissonHMM

pytestmark = pytest.mark.filterwarnings("ignore::latentkit.ConvergenceWarning",
                                        "ignore::latentkit.exceptions.SpectralInitWarning")

RNG = np.random.default_rng(0)
CASES = [(GaussianMixture, "kmeans++", np.r_[RNG.normal(0, 1, (40, 2)), RNG.normal(5, 1, (40, 2))]),
         (PoissonHMM, "random", RNG.poisson(np.repeat([2.0, 9.0], 100))[:, None])]


@pytest.mark.parametrize("cls, other, X", CASES, ids=["gmm", "poisson-hmm"])
def test_a_refit_without_the_spectral_start_has_no_spectral_report(cls, other, X):
    m = cls(2, init="spectral", max_iter=10, random_state=0).fit(X)
    report = dict(m.spectral_report_)
    m.set_params(init=other).fit(X)
    assert not hasattr(m, "spectral_report_")
    m.set_params(init="spectral").fit(X)
    assert m.spectral_report_ == report
