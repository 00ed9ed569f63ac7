"""DirichletProcessMixture(component=...): the component is an object holding its own priors
(issue 25 item 4), nested get_params/set_params/clone, save/load of a component object, and
the deprecated flattened keywords of latentkit < 0.2 (folded into the component with a
DeprecationWarning, the same fit bit for bit)."""

import inspect
import warnings

import numpy as np
import pytest

import latentkit as lk
from latentkit.base import clone
from latentkit.distributions import Bernoulli, Gaussian, Poisson
from latentkit.mixture import CategoricalComponent, DirichletProcessMixture
from latentkit.mixture._components import PoissonComponent
from latentkit.mixture._gaussian_component import GaussianComponent

pytestmark = pytest.mark.filterwarnings("ignore::latentkit.ConvergenceWarning")

RNG = np.random.default_rng(3)
DATA = {"gaussian": np.vstack([RNG.normal(0, 1, (25, 2)), RNG.normal(5, 1, (25, 2))]),
        "poisson": RNG.poisson([[1.0, 6.0, 2.0], [6.0, 1.0, 3.0]] * 25).astype(float),
        "categorical": RNG.poisson([[1.0, 6.0, 2.0], [6.0, 1.0, 3.0]] * 25).astype(float),
        "bernoulli": (RNG.random((50, 4)) < [[0.9, 0.1, 0.8, 0.2], [0.1, 0.9, 0.3, 0.7]] * 25)
        .astype(float)}
#: (old flattened keywords, the component they mean now)
CASES = {"gaussian": ({"covariance_type": "diag", "reg_covar": 1e-4, "mean_precision_prior": 0.5},
                      Gaussian("diag", reg_covar=1e-4, mean_precision_prior=0.5)),
         "poisson": ({"component_type": "poisson", "rate_prior": (2.0, 0.5)},
                     Poisson(rate_prior=(2.0, 0.5))),
         "categorical": ({"component_type": "categorical", "category_prior": 0.3},
                         CategoricalComponent(category_prior=0.3)),
         "bernoulli": ({"component_type": "bernoulli", "probability_prior": (0.7, 1.3)},
                       Bernoulli(probability_prior=(0.7, 1.3)))}


def _fit(model, kind):
    return model.set_params(random_state=0, max_iter=15).fit(DATA[kind])


def test_the_model_keeps_only_its_own_parameters():
    """15 parameters at most (as the HMM with emission=), none of them a component prior."""
    names = DirichletProcessMixture._get_param_names()
    assert len(names) <= 15
    assert not {"component_type", "rate_prior", "covariance_type", "mean_prior"} & set(names)
    sig = inspect.signature(DirichletProcessMixture)
    assert list(sig.parameters)[:2] == ["n_components", "component"]


def test_nested_params_set_params_and_clone():
    m = DirichletProcessMixture(3, component=PoissonComponent(rate_prior=(2.0, 0.5)))
    params = m.get_params(deep=True)
    assert params["component__rate_prior"] == (2.0, 0.5)
    assert "component__rate_prior" not in m.get_params(deep=False)
    m.set_params(component__rate_prior=(3.0, 1.0))
    assert m.component.rate_prior == (3.0, 1.0)
    c = clone(m)
    assert c.component is not m.component and c.component.get_params() == {"rate_prior": (3.0, 1.0)}
    # the nested setting is the prior the fit uses: the same bound as giving it directly
    a = _fit(m, "poisson")
    b = _fit(DirichletProcessMixture(3, component=PoissonComponent(rate_prior=(3.0, 1.0))),
             "poisson")
    np.testing.assert_array_equal(a.lower_bounds_, b.lower_bounds_)
    np.testing.assert_array_equal(a.rate_prior_, [3.0, 1.0])
    # the fit never modifies the component it was given
    assert m.component.get_params() == {"rate_prior": (3.0, 1.0)}


def test_scikit_learn_clone_and_grid_keys():
    sklearn = pytest.importorskip("sklearn.base")
    m = DirichletProcessMixture(3, component=GaussianComponent("diag"))
    c = sklearn.clone(m)
    assert c.component is not m.component and c.component.covariance_type == "diag"
    c.set_params(component__covariance_type="spherical")
    assert c.covariance_type == "spherical" and m.covariance_type == "diag"


@pytest.mark.parametrize("kind", sorted(CASES))
def test_set_params_of_a_shorthand_component(kind):
    """``component__<name>`` on a string shorthand (the default 'gaussian' too) builds the
    shorthand's object and sets the prior on it, the fit then uses it (was an AttributeError:
    'str' object has no attribute 'set_params')."""
    old, comp = CASES[kind]
    name, value = next((k, v) for k, v in old.items() if k != "component_type")
    m = DirichletProcessMixture(3, component=kind).set_params(**{f"component__{name}": value})
    assert type(m.component) is type(comp) and getattr(m.component, name) == value
    # component= and component__ in one call: the shorthand given in the same call
    m2 = DirichletProcessMixture(3).set_params(component=kind, **{f"component__{name}": value})
    assert m2.component.get_params() == m.component.get_params()
    np.testing.assert_array_equal(_fit(m, kind).lower_bounds_,
                                  _fit(DirichletProcessMixture(
                                      3, component=type(comp)(**{name: value})), kind)
                                  .lower_bounds_)


@pytest.mark.parametrize("kind", sorted(CASES))
def test_string_shorthand_is_the_default_component(kind):
    a = _fit(DirichletProcessMixture(3, component=kind), kind)
    b = _fit(DirichletProcessMixture(3, component=type(CASES[kind][1])()), kind)
    np.testing.assert_array_equal(a.lower_bounds_, b.lower_bounds_)


@pytest.mark.parametrize("kind", sorted(CASES))
def test_the_deprecated_keywords_warn_and_give_the_same_fit(kind):
    old, component = CASES[kind]
    with pytest.warns(DeprecationWarning, match=r"deprecated .* use component=") as rec:
        m = DirichletProcessMixture(3, **old)
    assert rec[0].filename == __file__  # the user's line
    assert type(m.component) is type(component)
    assert m.component.get_params() == component.get_params()
    assert not set(old) & set(m.get_params())  # get_params and clone see the object only
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        clone(m)
    a, b = _fit(m, kind), _fit(DirichletProcessMixture(3, component=component), kind)
    np.testing.assert_array_equal(a.lower_bounds_, b.lower_bounds_)
    np.testing.assert_array_equal(a.predict_proba(DATA[kind]), b.predict_proba(DATA[kind]))


def test_deprecated_set_params_folds_into_the_component():
    m = DirichletProcessMixture(3, component=GaussianComponent("diag", reg_covar=1e-3))
    with pytest.warns(DeprecationWarning, match="DirichletProcessMixture: mean_precision_prior= "
                                                "is deprecated"):
        m.set_params(mean_precision_prior=2.0, max_iter=7)
    assert m.component.get_params(deep=False) == GaussianComponent(
        "diag", reg_covar=1e-3, mean_precision_prior=2.0).get_params()
    assert m.max_iter == 7
    with pytest.warns(DeprecationWarning, match="component_type="):
        m.set_params(component_type="poisson", rate_prior=(2.0, 2.0))
    assert m.component.get_params() == {"rate_prior": (2.0, 2.0)}


def test_deprecated_keywords_misuse_is_refused():
    with pytest.raises(TypeError, match="unexpected keyword argument .rate_priors."):
        DirichletProcessMixture(3, rate_priors=(1.0, 1.0))
    with pytest.raises(TypeError, match="inside the component object"):
        DirichletProcessMixture(3, component=PoissonComponent(), rate_prior=(1.0, 2.0))
    with pytest.raises(ValueError, match="give component= only"):
        DirichletProcessMixture(3, component="poisson", component_type="bernoulli")
    with pytest.raises(ValueError, match="component_type must be one of"):
        DirichletProcessMixture(3, component_type="gamma")
    with pytest.raises(ValueError, match="missing='marginalize' needs component_type"):
        DirichletProcessMixture(3, component_type="poisson", missing="marginalize")


@pytest.mark.parametrize("kind", ["gaussian", "poisson"])
def test_a_component_object_survives_save_and_load(tmp_path, kind):
    m = _fit(DirichletProcessMixture(3, component=CASES[kind][1]), kind)
    lk.save(m, tmp_path / "m.npz")
    m2 = lk.load(tmp_path / "m.npz")
    assert type(m2.component) is type(m.component)
    assert repr(m2.component) == repr(m.component)
    np.testing.assert_array_equal(m2.predict_proba(DATA[kind]), m.predict_proba(DATA[kind]))
