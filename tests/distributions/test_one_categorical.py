"""The one Categorical: ``latentkit.distributions.Categorical(category_prior=...)`` is the
mixtures' component and the HMMs' emission alike (issue 39, item 3).

On main ``latentkit.distributions`` has no public Categorical (the block is private and takes
no prior) and neither family accepts it: every test here fails there.
"""

import warnings

import numpy as np
import pytest

import latentkit
from latentkit.distributions import Categorical
from latentkit.mixture import DirichletProcessMixture
from latentkit.mixture._components import CategoricalComponent
from latentkit.sequence import CategoricalHMM, HiddenMarkovModel

RNG = np.random.default_rng(0)
TOKENS = np.vstack([RNG.multinomial(12, [0.6, 0.3, 0.05, 0.05], 30),
                    RNG.multinomial(12, [0.05, 0.05, 0.3, 0.6], 30)])
STATES = np.repeat([0, 1, 0, 1], 20)
SYMBOLS = np.where(RNG.random(80) < 0.85, np.where(STATES == 0, 0, 2), 1)[:, None]


@pytest.mark.parametrize("prior", [None, 0.2, [0.5, 1.0, 2.0, 0.5]])
def test_the_mixture_takes_the_categorical_as_its_component(prior):
    """Bit for bit the fit of the component it stands for; None is the mixtures' Dir(0.5)."""
    a = DirichletProcessMixture(3, component=Categorical(category_prior=prior),
                                random_state=0, max_iter=20).fit(TOKENS)
    b = DirichletProcessMixture(3, component=CategoricalComponent(
        category_prior=0.5 if prior is None else prior), random_state=0,
        max_iter=20).fit(TOKENS)
    np.testing.assert_array_equal(a.lower_bounds_, b.lower_bounds_)
    np.testing.assert_array_equal(a.category_concentration_, b.category_concentration_)
    assert a.get_params()["component__category_prior"] is prior


@pytest.mark.parametrize("prior", [None, 2.0])
def test_the_hmm_takes_the_same_object_as_its_emission(prior):
    """Bit for bit CategoricalHMM with hmmlearn's spelling of the same prior."""
    a = HiddenMarkovModel(2, emission=Categorical(category_prior=prior),
                          random_state=0).fit(SYMBOLS)
    b = CategoricalHMM(2, emissionprob_prior=prior, random_state=0).fit(SYMBOLS)
    np.testing.assert_array_equal(a.lower_bounds_, b.lower_bounds_)
    np.testing.assert_array_equal(a.emissionprob_, b.emissionprob_)


def test_the_hmm_map_estimate_is_the_closed_form():
    """One state: the MAP under Dir(lambda) is (counts + lambda - 1) / sum exactly."""
    lam = np.array([2.0, 3.0, 1.5])
    hmm = HiddenMarkovModel(1, emission=Categorical(category_prior=lam), random_state=0,
                            max_iter=5).fit(SYMBOLS)
    counts = np.bincount(SYMBOLS.ravel(), minlength=3) + lam - 1.0
    np.testing.assert_allclose(hmm.emissionprob_[0], counts / counts.sum(), rtol=1e-12)


def test_the_mixture_posterior_is_the_conjugate_update():
    """One component: q(phi) = Dir(lambda + the column sums) exactly."""
    dpm = DirichletProcessMixture(1, component=Categorical(category_prior=0.3),
                                  random_state=0, max_iter=5).fit(TOKENS)
    np.testing.assert_allclose(dpm.category_concentration_[0], 0.3 + TOKENS.sum(0),
                               rtol=1e-12)  # sums of integers times responsibilities 1


def test_each_family_checks_the_prior_it_needs():
    with pytest.raises(ValueError, match="category_prior"):
        DirichletProcessMixture(2, component=Categorical(category_prior=0.0)).fit(TOKENS)
    with pytest.raises(ValueError, match=">= 1"):
        HiddenMarkovModel(2, emission=Categorical(category_prior=0.5)).fit(SYMBOLS)


def test_a_model_file_keeps_the_categorical(tmp_path):
    for model, data in [(DirichletProcessMixture(2, component=Categorical(0.4),
                                                 random_state=0, max_iter=10), TOKENS),
                        (HiddenMarkovModel(2, emission=Categorical(2.0), random_state=0),
                         SYMBOLS)]:
        model.fit(data)
        path = latentkit.save(model, tmp_path / type(model).__name__)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            back = latentkit.load(path)
        np.testing.assert_array_equal(back.score_samples(data), model.score_samples(data))
