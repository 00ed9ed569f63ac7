"""One class per distribution, taken by the mixtures (``component=``) and the HMMs
(``emission=``) alike, with one spelling of its prior (issue 39, item 3; Poisson first).

On main ``latentkit.distributions.Poisson`` is a private block without hyper-parameters, the
HMMs refuse it as an emission and spell the Gamma prior ``lambdas_prior``/``lambdas_weight``:
every test here fails there.
"""

import warnings

import numpy as np
import pytest

import latentkit
from latentkit.distributions import Bernoulli, Gaussian, Poisson
from latentkit.mixture import DirichletProcessMixture
from latentkit.mixture._components import BernoulliComponent
from latentkit.mixture._components import PoissonComponent
from latentkit.mixture._gaussian_component import GaussianComponent
from latentkit.sequence import GaussianHMM, HiddenMarkovModel, PoissonHMM
from latentkit.sequence._emissions import PoissonEmission

RNG = np.random.default_rng(0)
COUNTS = RNG.poisson([[1.0, 8.0]] * 30 + [[9.0, 1.0]] * 30)
STATES = np.repeat([0, 1, 0, 1], 20)
SERIES = RNG.poisson(np.where(STATES == 0, 1.0, 8.0))[:, None]
ROWS = np.vstack([RNG.normal(0, 1, (30, 2)), RNG.normal(5, 1, (30, 2))])
REAL_SERIES = RNG.normal(np.where(STATES == 0, 0.0, 5.0), 1.0)[:, None]
BINARY = (RNG.random((60, 4)) < np.array([[0.9, 0.9, 0.1, 0.1]] * 30
                                         + [[0.1, 0.1, 0.9, 0.9]] * 30)).astype(float)


@pytest.mark.parametrize("prior", [(1.0, 1.0), (2.0, 0.5)])
def test_the_mixture_takes_the_distribution_as_its_component(prior):
    """The same fit, bit for bit, as the component it stands for (same prior)."""
    a = DirichletProcessMixture(3, component=Poisson(rate_prior=prior), random_state=0,
                                max_iter=30).fit(COUNTS)
    b = DirichletProcessMixture(3, component=PoissonComponent(rate_prior=prior),
                                random_state=0, max_iter=30).fit(COUNTS)
    np.testing.assert_array_equal(a.lower_bounds_, b.lower_bounds_)
    np.testing.assert_array_equal(a.gamma_shape_, b.gamma_shape_)
    assert a.get_params()["component__rate_prior"] == prior


def test_the_mixtures_default_prior_is_gamma_1_1():
    a = DirichletProcessMixture(3, component=Poisson(), random_state=0, max_iter=10,
                                tol=0.1).fit(COUNTS)
    b = DirichletProcessMixture(3, component="poisson", random_state=0, max_iter=10,
                                tol=0.1).fit(COUNTS)
    np.testing.assert_array_equal(a.lower_bounds_, b.lower_bounds_)


def test_the_hmm_takes_the_same_object_as_its_emission():
    for prior in (None, (2.0, 0.5)):
        a = HiddenMarkovModel(2, emission=Poisson(rate_prior=prior), random_state=0).fit(SERIES)
        b = PoissonHMM(2, rate_prior=prior, random_state=0).fit(SERIES)
        np.testing.assert_array_equal(a.lower_bounds_, b.lower_bounds_)
        np.testing.assert_array_equal(a.lambdas_, b.lambdas_)


def test_the_hmm_map_estimate_is_the_closed_form():
    """One state: the MAP rate under Gamma(a, b) is (sum x + a - 1) / (T + b) exactly."""
    a, b = 3.0, 2.0
    hmm = HiddenMarkovModel(1, emission=Poisson(rate_prior=(a, b)), random_state=0,
                            max_iter=5).fit(SERIES)
    expected = (SERIES.sum(0) + a - 1.0) / (SERIES.shape[0] + b)
    np.testing.assert_allclose(hmm.lambdas_[0], expected, rtol=1e-12)  # a division: ~1 ulp


def test_the_old_spelling_warns_once_and_fits_the_same():
    new = PoissonHMM(2, rate_prior=(2.0, 0.5), random_state=0).fit(SERIES)
    with pytest.warns(DeprecationWarning, match=r"lambdas_prior=, lambdas_weight=.*rate_prior"):
        old = PoissonHMM(2, lambdas_prior=2.0, lambdas_weight=0.5, random_state=0)
    assert old.get_params()["rate_prior"] == (2.0, 0.5)
    assert "lambdas_prior" not in old.get_params()
    np.testing.assert_array_equal(old.fit(SERIES).lower_bounds_, new.lower_bounds_)
    with pytest.warns(DeprecationWarning, match="rate_prior"):
        emission = PoissonEmission(lambdas_prior=2.0)
    assert emission.rate_prior == (2.0, 0.0)  # lambdas_weight's default then
    with pytest.warns(DeprecationWarning), pytest.raises(TypeError, match="rate_prior"):
        PoissonHMM(2, rate_prior=(2.0, 1.0), lambdas_prior=2.0)


def test_files_with_the_old_spelling_upgrade_silently():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        params = PoissonHMM._upgrade_params({"n_components": 2, "lambdas_prior": 2.0,
                                             "lambdas_weight": 0.5})
    assert params == {"n_components": 2, "rate_prior": (2.0, 0.5)}
    assert PoissonHMM._upgrade_params({"lambdas_prior": None, "lambdas_weight": 0.0}) == {
        "rate_prior": None}


def test_a_bad_prior_names_rate_prior():
    with pytest.raises(ValueError, match=r"rate_prior\[0\]"):
        PoissonHMM(2, rate_prior=(0.5, 1.0)).fit(SERIES)
    with pytest.raises(ValueError, match="rate_prior must be None or a pair"):
        HiddenMarkovModel(2, emission=Poisson(rate_prior=3.0)).fit(SERIES)
    with pytest.raises(ValueError, match="rate_prior"):
        DirichletProcessMixture(2, component=Poisson(rate_prior=(0.0, 1.0))).fit(COUNTS)


@pytest.mark.parametrize("prior", [None, 2.0, (0.5, 3.0)])
def test_the_mixture_takes_the_bernoulli_distribution(prior):
    a = DirichletProcessMixture(3, component=Bernoulli(probability_prior=prior),
                                random_state=0, max_iter=20).fit(BINARY)
    b = DirichletProcessMixture(3, component=BernoulliComponent(
        probability_prior=(1.0, 1.0) if prior is None else prior), random_state=0,
        max_iter=20).fit(BINARY)
    np.testing.assert_array_equal(a.lower_bounds_, b.lower_bounds_)
    np.testing.assert_array_equal(a.probability_concentration_, b.probability_concentration_)


@pytest.mark.parametrize("component,data", [(Poisson(rate_prior=(2.0, 0.5)), COUNTS),
                                            (Bernoulli(probability_prior=2.0), BINARY),
                                            (Gaussian("diag", mean_precision_prior=2.0), ROWS)])
def test_a_model_file_keeps_the_distribution(tmp_path, component, data):
    dpm = DirichletProcessMixture(3, component=component, random_state=0,
                                  max_iter=20).fit(data)
    path = latentkit.save(dpm, tmp_path / "dpm")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        back = latentkit.load(path)
    assert type(back.component) is type(component)
    assert back.component.get_params() == component.get_params()
    np.testing.assert_array_equal(back.score_samples(data), dpm.score_samples(data))


@pytest.mark.parametrize("ct", ["full", "diag"])
def test_the_gaussian_is_a_component_and_an_emission(ct):
    a = DirichletProcessMixture(3, component=Gaussian(ct, mean_precision_prior=2.0),
                                random_state=0, max_iter=20).fit(ROWS)
    b = DirichletProcessMixture(3, component=GaussianComponent(ct, mean_precision_prior=2.0),
                                random_state=0, max_iter=20).fit(ROWS)
    np.testing.assert_array_equal(a.lower_bounds_, b.lower_bounds_)
    np.testing.assert_array_equal(a.means_, b.means_)
    c = HiddenMarkovModel(2, emission=Gaussian(ct), init="kmeans++",
                          random_state=0).fit(REAL_SERIES)
    d = GaussianHMM(2, covariance_type=ct, random_state=0).fit(REAL_SERIES)
    np.testing.assert_array_equal(c.lower_bounds_, d.lower_bounds_)
    np.testing.assert_array_equal(c.covariances_, d.covariances_)


def test_an_hmm_refuses_the_mixtures_gaussian_prior():
    with pytest.raises(ValueError, match="takes no prior.*mean_prior"):
        HiddenMarkovModel(2, emission=Gaussian(mean_prior=[0.0])).fit(REAL_SERIES)
