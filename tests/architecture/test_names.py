"""The names table (docs/design.md): old names keep working for one release, with a
DeprecationWarning that names the new one, and the new name is the one stored."""

import numpy as np
import pytest

import latentkit as lk
from latentkit._utils.deprecation import renamed_attribute, renamed_kwargs
from latentkit.base import clone

from _model_cases import _gauss

pytestmark = pytest.mark.filterwarnings("ignore::latentkit.base.ConvergenceWarning")


@pytest.mark.parametrize("cls", [lk.SpectralGMM, lk.SpectralLDA, lk.SpectralHMM,
                                 lk.spectral.PrivateSpectralLDA, lk.spectral.PrivateSpectralGMM])
def test_spectral_restarts_and_iterations_renamed(cls):
    with pytest.warns(DeprecationWarning, match="'n_restarts' is deprecated .* use 'n_init'"):
        old = cls(2, n_restarts=3)
    with pytest.warns(DeprecationWarning, match="use 'max_iter'"):
        old2 = cls(2, n_iter=7)
    assert old.n_init == 3 and old2.max_iter == 7
    params = old.get_params()
    assert "n_init" in params and "n_restarts" not in params and "n_iter" not in params
    assert clone(old).n_init == 3
    with pytest.warns(DeprecationWarning, match="use 'n_init'"):
        assert old.n_restarts == 3  # reading the old attribute still works
    with pytest.raises(TypeError, match="give 'n_init' only"):
        cls(2, n_init=2, n_restarts=3)


def test_old_and_new_spectral_names_give_the_same_fit():
    X = _gauss(300, 0, 3)
    new = lk.SpectralGMM(2, n_init=4, max_iter=30, random_state=0).fit(X)
    with pytest.warns(DeprecationWarning):
        old = lk.SpectralGMM(2, n_restarts=4, n_iter=30, random_state=0).fit(X)
    np.testing.assert_array_equal(old.means_, new.means_)


def test_helpers_name_owner_and_release():
    class Thing:
        covars_ = renamed_attribute("covars_", "covariances_")

        @renamed_kwargs(rank="n_components")
        def __init__(self, n_components=1):
            self.n_components = n_components

    with pytest.warns(DeprecationWarning, match=r"Thing: 'rank' is deprecated and will be "
                                                r"removed in latentkit 0\.3; use 'n_components'"):
        t = Thing(rank=4)
    assert t.n_components == 4
    t.covariances_ = np.eye(2)
    with pytest.warns(DeprecationWarning, match="Thing: 'covars_' .* use 'covariances_'"):
        np.testing.assert_array_equal(t.covars_, np.eye(2))
    with pytest.warns(DeprecationWarning):
        t.covars_ = np.ones(2)
    np.testing.assert_array_equal(t.covariances_, np.ones(2))


_HMM_DATA = _gauss(60, 0)


@pytest.mark.parametrize("make", [lambda: lk.GaussianHMM(2, random_state=0, max_iter=5),
                                  lambda: lk.GMMHMM(2, 2, random_state=0, max_iter=5),
                                  lambda: lk.VariationalGaussianHMM(2, "diag", random_state=0,
                                                                    max_iter=5)])
def test_hmm_covariances_and_the_covars_alias(make):
    m = make().fit(_HMM_DATA)
    assert "covariances_" in vars(m) and "covars_" not in vars(m)
    with pytest.warns(DeprecationWarning, match="'covars_' is deprecated .* 'covariances_'"):
        np.testing.assert_array_equal(m.covars_, m.covariances_)


def test_hmm_init_and_frozen_take_both_keys():
    X = _HMM_DATA
    start = lk.GaussianHMM(2, random_state=0, max_iter=1).fit(X)
    cov = start.covariances_ * 2.0
    new = lk.GaussianHMM(2, init={"means": start.means_, "covariances": cov},
                         frozen={"covariances"}, random_state=0, max_iter=3).fit(X)
    old = lk.GaussianHMM(2, init={"means": start.means_, "covars": cov},
                         frozen={"covars"}, random_state=0, max_iter=3).fit(X)
    np.testing.assert_array_equal(new.covariances_, cov)  # frozen: left as given
    np.testing.assert_array_equal(old.means_, new.means_)
    with pytest.raises(ValueError, match="unknown parameter"):
        lk.GaussianHMM(2, frozen={"covariance"}).fit(X)


def test_hmm_state_saved_under_the_old_name_still_loads():
    m = lk.GaussianHMM(2, random_state=0, max_iter=5).fit(_HMM_DATA)
    state = m._get_state()
    key = next(k for k in state if "covariances" in k)
    state[key.replace("covariances", "covars")] = state.pop(key)  # a file written before 0.2
    m2 = clone(m)
    with pytest.warns(DeprecationWarning, match="covars_"):
        m2._set_state(state)
    np.testing.assert_array_equal(m2.covariances_, m.covariances_)
    assert m2.score(_HMM_DATA) == m.score(_HMM_DATA)


def test_sparse_spectral_gmm_max_iter():
    with pytest.warns(DeprecationWarning, match="'n_iter' is deprecated .* use 'max_iter'"):
        old = lk.spectral.SparseSpectralGMM(2, 3, n_iter=7)
    assert old.max_iter == 7 and "n_iter" not in old.get_params()


def test_moved_parameters_name_owner_keywords_release_and_the_object():
    """The DPMM's component priors moved into ``component=`` (the names table's row)."""
    with pytest.warns(DeprecationWarning, match=r"DirichletProcessMixture: component_type=, "
                      r"rate_prior= are deprecated and will be removed in latentkit 0\.3; use "
                      r"component=Poisson\(\.\.\.\)"):
        m = lk.DirichletProcessMixture(3, component_type="poisson", rate_prior=(2.0, 1.0))
    params = m.get_params()
    assert "rate_prior" not in params and params["component__rate_prior"] == (2.0, 1.0)
