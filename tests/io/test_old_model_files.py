"""Model files written by latentkit before the mixture components became objects (main at
b3245d2: ``DirichletProcessMixture(component_type=..., rate_prior=...)``, and the HMMs before
their emissions computed with the shared distribution blocks) still load, silently, and give
the predictions, scores and samples the code that wrote them gave (``tests/data/v01_models``,
written by that code; ``README.json`` there)."""

import os
import warnings

import numpy as np
import pytest

import latentkit as lk
from latentkit.distributions import Bernoulli, Gaussian, Poisson
from latentkit.mixture import CategoricalComponent

from _stored import assert_stored

pytestmark = pytest.mark.kernel_sensitive  # stored results: .ci/run's second BLAS kernel

HERE = os.path.join(os.path.dirname(os.path.dirname(__file__)), "data", "v01_models")
DATA = {"dpmm_gaussian": "gauss", "dpmm_categorical": "counts", "dpmm_poisson": "counts",
        "dpmm_bernoulli": "binary", "categorical_hmm": "symbols", "gaussian_hmm": "gauss",
        "poisson_hmm": "counts", "gmm_hmm": "gauss", "hmm_poisson_emission": "counts",
        "hmm_gaussian_emission": "gauss", "variational_categorical_hmm": "symbols",
        "variational_gaussian_hmm": "gauss"}
#: the component each old DPMM file's flattened keywords describe
COMPONENT = {"dpmm_gaussian": (Gaussian, {"covariance_type": "diag",
                                          "mean_precision_prior": 0.5}),
             "dpmm_categorical": (CategoricalComponent, {"category_prior": 0.3}),
             "dpmm_poisson": (Poisson, {"rate_prior": (2.0, 0.5)}),
             "dpmm_bernoulli": (Bernoulli, {"probability_prior": (0.7, 1.3)})}


@pytest.fixture(scope="module")
def expected():
    with np.load(os.path.join(HERE, "expected.npz")) as f:
        return {k: f[k] for k in f.files}


@pytest.mark.parametrize("name", sorted(DATA))
def test_an_old_file_loads_silently_and_predicts_the_same(name, expected):
    X = expected[DATA[name]]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no DeprecationWarning for a file the user did not write
        m = lk.load(os.path.join(HERE, name + ".npz"))
    # stored floats to 1e-12 relative, not bit for bit: the BLAS kernel that wrote them is
    # not every machine's (tests/_stored.py)
    assert_stored(m.predict_proba(X), expected[name + "/predict_proba"], "predict_proba")
    assert_stored(m.score(X), expected[name + "/score"], "score")
    assert_stored(np.asarray(m.sample(5, random_state=3)[0], dtype=float),
                  expected[name + "/sample"], "sample")
    if name in COMPONENT:  # the flattened keywords became the component object
        cls, params = COMPONENT[name]
        assert type(m.component) is cls
        for key, value in params.items():
            assert m.get_params()["component__" + key] == value
        assert "component_type" not in m.get_params()
