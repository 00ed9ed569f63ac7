"""Distributed fitting on a dask.distributed LocalCluster with 2 worker processes equals the
local batch fit (same iterations, same ELBO trace to 1e-10), for GaussianMixture, LDA,
CategoricalHMM and VariationalGaussianMixture. Both fits start from identical parameters."""

import copy
import sys

import cloudpickle
import numpy as np
import pytest

da = pytest.importorskip("dask.array")
db = pytest.importorskip("dask.bag")
distributed = pytest.importorskip("distributed")

from latentkit.datasets import make_gmm, make_lda_corpus  # noqa: E402
from latentkit.mixture import GaussianMixture  # noqa: E402
from latentkit.mixture._variational import VariationalGaussianMixture  # noqa: E402
from latentkit.sequence import CategoricalHMM  # noqa: E402
from latentkit.topic import LatentDirichletAllocation  # noqa: E402

# the fixed-start subclasses below travel to the workers by value
cloudpickle.register_pickle_by_value(sys.modules[__name__])


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None, silence_logs=40)
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


def fixed_start(model, X, **fit_params):
    """A subclass of type(model) whose _init_params sets the state a local initialisation on
    the full data gives (so the Dask fit, which initialises from its first block, starts from
    the same point)."""
    ref = copy.deepcopy(model)
    ref._check_common_params()
    ref._validate_params()
    data = ref._validate_data(X, reset=True, **fit_params)
    ref._init_params(data, np.random.default_rng(0))
    state = ref._fit_state()

    class Fixed(type(model)):
        def _init_params(self, data, rng):
            vars(self).update(copy.deepcopy(state))

    Fixed.__name__ = type(model).__name__
    return Fixed(**model.get_params(deep=False))


def _compare(local, remote):
    assert remote.n_iter_ == local.n_iter_
    np.testing.assert_allclose(remote.lower_bounds_, local.lower_bounds_, rtol=1e-10)


@pytest.mark.slow
def test_gaussian_mixture_on_a_cluster_equals_local(client):
    X, _, _ = make_gmm(3000, 3, 4, random_state=0)
    model = fixed_start(GaussianMixture(3, tol=0, max_iter=6), X)
    local = copy.deepcopy(model).fit(X)
    remote = copy.deepcopy(model).fit(da.from_array(X, chunks=(700, 4)))
    _compare(local, remote)
    np.testing.assert_allclose(remote.means_, local.means_, rtol=1e-10)


@pytest.mark.slow  # quick tier: over 2 s on 2 quiet cores (tools/quick_tier.py)
def test_variational_mixture_on_a_cluster_equals_local(client):
    X, _, _ = make_gmm(2000, 3, 3, random_state=1)
    model = fixed_start(VariationalGaussianMixture(n_components=4, tol=0, max_iter=6,
                                                   random_state=0), X)
    local = copy.deepcopy(model).fit(X)
    remote = copy.deepcopy(model).fit(da.from_array(X, chunks=(450, 3)))
    _compare(local, remote)
    np.testing.assert_allclose(remote.weights_, local.weights_, rtol=1e-10)


@pytest.mark.slow
def test_lda_on_a_cluster_equals_local_array_and_bag(client):
    X, _ = make_lda_corpus(400, 4, 60, doc_length=40, random_state=0)
    model = fixed_start(LatentDirichletAllocation(4, tol=0, max_iter=5, init="random"), X)
    local = copy.deepcopy(model).fit(X)
    dense = X.toarray()
    remote = copy.deepcopy(model).fit(da.from_array(dense, chunks=(90, dense.shape[1])))
    _compare(local, remote)
    bag = db.from_sequence([X[i] for i in range(X.shape[0])], npartitions=5)
    remote_bag = copy.deepcopy(model).fit(bag)
    _compare(local, remote_bag)
    np.testing.assert_allclose(remote_bag.components_, local.components_, rtol=1e-10)


@pytest.mark.slow
def test_categorical_hmm_on_a_cluster_respects_sequence_boundaries(client):
    rng = np.random.default_rng(0)
    lengths = rng.integers(1, 120, size=40)
    X = rng.integers(0, 5, size=(lengths.sum(), 1))
    model = fixed_start(CategoricalHMM(3, n_features=5, tol=0, max_iter=5, random_state=0),
                        X, lengths=lengths)
    local = copy.deepcopy(model).fit(X, lengths=lengths)
    remote = copy.deepcopy(model).fit(da.from_array(X, chunks=(500, 1)), lengths=lengths)
    _compare(local, remote)
    np.testing.assert_allclose(remote.transmat_, local.transmat_, rtol=1e-10)


@pytest.mark.slow  # quick tier: over 1.5 s on 2 quiet cores (tools/quick_tier.py)
def test_gmm_hmm_on_a_cluster_equals_local(client):
    # GMMHMM is an emission component: its statistics map-reduce over blocks unchanged
    from latentkit.sequence import GMMHMM

    rng = np.random.default_rng(1)
    lengths = rng.integers(5, 80, size=20)
    X = rng.normal(size=(lengths.sum(), 2)) + rng.choice([-2.0, 2.0], size=(lengths.sum(), 1))
    model = fixed_start(GMMHMM(2, 2, "full", tol=0, max_iter=4, random_state=0), X,
                        lengths=lengths)
    local = copy.deepcopy(model).fit(X, lengths=lengths)
    remote = copy.deepcopy(model).fit(da.from_array(X, chunks=(300, 2)), lengths=lengths)
    _compare(local, remote)
    np.testing.assert_allclose(remote.covariances_, local.covariances_, rtol=1e-10)


def test_lda_derived_tables_are_rebuilt_on_the_workers_not_sent():
    """reduce_stats leaves ``_derived_attributes`` out of the state sent with every iteration
    (for LDA it halves the bytes); the worker's _set_state rebuilds them exactly."""
    from latentkit.parallel.dask import _model_from_state

    X, _ = make_lda_corpus(60, 3, 30, doc_length=20, random_state=1)
    lda = LatentDirichletAllocation(3, max_iter=2, tol=0, random_state=0).fit(X)
    state = lda._get_state()
    assert set(lda._derived_attributes) <= set(state)
    for name in lda._derived_attributes:
        del state[name]
    rebuilt = _model_from_state((type(lda), lda.get_params(deep=False), state))
    np.testing.assert_array_equal(rebuilt.exp_dirichlet_component_,
                                  lda.exp_dirichlet_component_)


def test_default_start_on_a_cluster_equals_local(client):
    """No fixed start, default tol: the Dask fit draws its start from the same start sample
    as the local fit (issue 26, item 3): LDA's default CVB0 start on all the documents (it was
    CVB0 on the first block: 2 against 3 iterations). Every model's default start on Dask's
    local scheduler: tests/contract/test_data_location.py."""
    X, _ = make_lda_corpus(160, 3, 40, doc_length=30, random_state=0)
    local = LatentDirichletAllocation(3, random_state=0).fit(X)
    dense = X.toarray()
    remote = LatentDirichletAllocation(3, random_state=0).fit(
        da.from_array(dense, chunks=(50, dense.shape[1])))
    _compare(local, remote)
    np.testing.assert_allclose(remote.components_, local.components_, rtol=1e-10)


@pytest.mark.slow
def test_lda_guard_state_stays_on_the_workers_and_matches_local(client, monkeypatch):
    """LDA's monotone guard keeps the previous gammas per block on the workers. At alpha =
    1/K, from topics near convergence (34 local iterations), the guard acts in most of the
    next 8 iterations; the cluster fit follows the local one through them."""
    import scipy.sparse as sp

    import latentkit.topic._lda_guard as guard

    X = sp.csr_matrix(np.random.default_rng(0).poisson(0.3, size=(300, 60)).astype(float))
    lam0 = np.random.default_rng(1).gamma(100.0, 0.01, size=(5, 60))
    lam = LatentDirichletAllocation(5, max_iter=34, tol=0,
                                    init={"components": lam0}).fit(X).components_
    acted = []
    keep_better = guard._keep_better
    monkeypatch.setattr(guard, "_keep_better", lambda *a: acted.append(1) or keep_better(*a))
    params = dict(n_components=5, max_iter=8, tol=0, init={"components": lam})
    local = LatentDirichletAllocation(**params).fit(X)
    assert len(acted) >= 3  # the guard acted locally (in memory)
    remote = LatentDirichletAllocation(**params).fit(
        da.from_array(X.toarray(), chunks=(80, 60)))
    _compare(local, remote)
    np.testing.assert_allclose(remote.components_, local.components_, rtol=1e-10)
