"""Data-derived defaults come from all the data, whatever the source (issue 11, item 3).

``mean_doc_length_`` and ``tol_`` of LDA, the Normal-Wishart prior (``mean_prior_``,
``covariance_prior_``) of the variational and Dirichlet-process mixtures, the inferred
alphabet of CategoricalHMM and the shift of GaussianHMM are resolved from a merged summary of
every chunk (ArraySource, DocwordSource, IterableSource) or Dask block, never from the first. The
first chunk of every test is chosen unrepresentative (short documents, the smallest values of a
sorted feature, a subset of the symbols), so a first-chunk default gives a different fit. The
reference is the in-memory fit; initialisation is fixed (an ``init`` dict, or the state an
in-memory initialisation gives, copied without the data-derived defaults) because a chunked fit
initialises from its first chunk by design. Dask runs on its synchronous scheduler (the merge of
block summaries is what is tested; tests/parallel/test_dask.py covers a real cluster).
"""

import copy

import numpy as np
import pytest
import scipy.sparse as sp

from latentkit.inference import ArraySource, DocwordSource, IterableSource, StochasticVI
from latentkit.mixture import DirichletProcessMixture, GaussianMixture
from latentkit.mixture._variational import VariationalGaussianMixture
from latentkit.sequence import CategoricalHMM, GaussianHMM
from latentkit.topic import LatentDirichletAllocation

from test_out_of_core import write_docword

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")

RTOL = 1e-10


def _dask(X, rows):
    return da.from_array(X, chunks=(rows, X.shape[1]))


def _fit_dask(model, X, **kw):
    with dask.config.set(scheduler="synchronous"):
        return model.fit(X, **kw)


def _fixed_init(model, X, **fit_params):
    """A subclass of type(model) whose ``_init_params`` sets what an in-memory initialisation
    on all of X sets -- and nothing else: the data-derived defaults stay those the source
    resolves."""
    ref = copy.deepcopy(model)
    ref._check_common_params()
    ref._validate_params()
    data = ref._validate_data(X, reset=True, **fit_params)
    before = {k: v for k, v in vars(ref).items()}
    ref._init_params(data, np.random.default_rng(0))
    state = {k: copy.deepcopy(v) for k, v in vars(ref).items()
             if k not in before or v is not before[k]}

    class Fixed(type(model)):
        def _init_params(self, data, rng):
            vars(self).update(copy.deepcopy(state))

    Fixed.__name__ = type(model).__name__
    return Fixed(**model.get_params(deep=False))


def _same_fit(ref, other, attrs):
    assert other.n_iter_ == ref.n_iter_
    np.testing.assert_allclose(other.lower_bounds_, ref.lower_bounds_, rtol=RTOL)
    for a in attrs:
        np.testing.assert_allclose(getattr(other, a), getattr(ref, a), rtol=RTOL, atol=1e-12)


@pytest.fixture(scope="module")
def short_then_long():
    """40 documents over 20 words: the first 10 short (Poisson(0.3) per word), the rest long
    (Poisson(3))."""
    rng = np.random.default_rng(0)
    X = np.vstack([rng.poisson(0.3, (10, 20)), rng.poisson(3.0, (30, 20))]).astype(float)
    return sp.csr_matrix(X)


def test_lda_mean_doc_length_and_tol_from_every_chunk(short_then_long, tmp_path):
    X = short_then_long
    init = {"components": np.random.default_rng(1).gamma(100.0, 0.01, (3, 20))}
    ref = LatentDirichletAllocation(3, init=init).fit(X)  # default tol: from the data
    assert ref.mean_doc_length_ == pytest.approx(X.sum() / 40, rel=1e-15)
    path = tmp_path / "docword.txt"
    write_docword(path, X)
    sources = [ArraySource(X, 10), DocwordSource(path, chunk_size=10), _dask(X.toarray(), 10)]
    for src in sources:
        model = LatentDirichletAllocation(3, init=init)
        model = _fit_dask(model, src) if not isinstance(src, (ArraySource, DocwordSource)) \
            else model.fit(src)
        assert model.mean_doc_length_ == pytest.approx(ref.mean_doc_length_, rel=1e-14)
        assert model.tol_ == pytest.approx(ref.tol_, rel=1e-14)
        _same_fit(ref, model, ["components_"])


def test_online_lda_mean_doc_length_from_every_chunk(short_then_long):
    X = short_then_long
    kw = dict(batch_size=10, n_epochs=2, random_state=0)
    mem = StochasticVI(LatentDirichletAllocation(3), **kw).fit(X).model_
    chunked = StochasticVI(LatentDirichletAllocation(3), **kw).fit(ArraySource(X, 10)).model_
    assert chunked.mean_doc_length_ == pytest.approx(X.sum() / 40, rel=1e-14)
    assert mem.mean_doc_length_ == pytest.approx(X.sum() / 40, rel=1e-14)


@pytest.mark.parametrize("cls", [VariationalGaussianMixture, DirichletProcessMixture])
def test_variational_priors_from_every_block(cls):
    rng = np.random.default_rng(2)
    X = np.vstack([rng.normal(-3, 1, (30, 2)), rng.normal(3, 0.5, (30, 2))])
    X = X[np.argsort(X[:, 0])]  # blocks of 10 sorted by the first coordinate
    k = {"n_components": 3} if cls is VariationalGaussianMixture else {"n_components": 3}
    model = cls(**k, init="random", max_iter=40, random_state=0)
    ref = _fixed_init(model, X).fit(X)
    assert ref.mean_prior_ == pytest.approx(X.mean(0), rel=1e-13)
    for src, fit in [(ArraySource(X, 10), lambda m, s: m.fit(s)), (_dask(X, 10), _fit_dask)]:
        other = fit(_fixed_init(model, X), src)
        np.testing.assert_allclose(other.mean_prior_, ref.mean_prior_, rtol=RTOL)
        np.testing.assert_allclose(other.covariance_prior_, ref.covariance_prior_, rtol=RTOL)
        _same_fit(ref, other, ["means_", "covariances_", "weights_"])


def test_gaussian_mixture_scale_check_sees_every_chunk():
    X = np.vstack([np.random.default_rng(0).normal(size=(10, 2)), [[1e160, 0.0]]])
    with pytest.raises(ValueError, match="too large in scale"):
        GaussianMixture(2, random_state=0).fit(X)
    with pytest.raises(ValueError, match="too large in scale"):
        GaussianMixture(2, random_state=0).fit(ArraySource(X, 10))


def test_categorical_hmm_alphabet_from_every_chunk():
    rng = np.random.default_rng(3)
    X = np.concatenate([rng.integers(0, 3, (30, 1)), rng.integers(0, 6, (30, 1))])
    init = {"startprob": np.full(2, 0.5), "transmat": np.full((2, 2), 0.5),
            "emissionprob": rng.dirichlet(np.ones(6), 2)}
    ref = CategoricalHMM(2, init=init, max_iter=20, tol=0, random_state=0).fit(X, lengths=[30, 30])
    src = IterableSource([(X[:30], {"lengths": [30]}), (X[30:], {"lengths": [30]})])
    chunked = CategoricalHMM(2, init=init, max_iter=20, tol=0, random_state=0).fit(src)
    assert chunked.emission_.n_features_ == 6
    _same_fit(ref, chunked, ["emissionprob_", "transmat_"])
    remote = _fit_dask(CategoricalHMM(2, init=init, max_iter=20, tol=0, random_state=0),
                       _dask(X, 30), lengths=[30, 30])
    _same_fit(ref, remote, ["emissionprob_", "transmat_"])


def test_gaussian_hmm_shift_and_time_steps_from_every_chunk():
    rng = np.random.default_rng(4)
    X = np.concatenate([rng.normal(0, 1, (20, 1)), rng.normal(1e4, 1, (40, 1))])
    model = GaussianHMM(2, max_iter=10, tol=0, random_state=0)
    ref = _fixed_init(model, X, lengths=[20, 40]).fit(X, lengths=[20, 40])
    src = IterableSource([(X[:20], {"lengths": [20]}), (X[20:], {"lengths": [40]})])
    chunked = _fixed_init(model, X, lengths=[20, 40]).fit(src)
    np.testing.assert_allclose(chunked.emission_.shift_, X.mean(0), rtol=1e-14)
    _same_fit(ref, chunked, ["means_", "covariances_", "transmat_"])
    # more states than the first chunk's time steps, fewer than all: accepted
    two = IterableSource([(X[:2], {"lengths": [2]}), (X[2:], {"lengths": [58]})])
    GaussianHMM(3, max_iter=2, tol=0, random_state=0).fit(two)


def test_stochastic_vi_defaults_from_all_the_data_not_the_first_minibatch():
    from latentkit.inference import StochasticVI

    rng = np.random.default_rng(5)
    X = rng.normal(size=(200, 2))
    X = X[np.argsort(X[:, 0])]
    for data in (X, ArraySource(X, 50)):
        svi = StochasticVI(VariationalGaussianMixture(n_components=3, random_state=0),
                           batch_size=20, n_epochs=1, shuffle=False, random_state=0).fit(data)
        ref = VariationalGaussianMixture(n_components=3)
        ref._validate_params()
        ref._validate_data(X, reset=True)
        np.testing.assert_allclose(svi.model_.mean_prior_, ref.mean_prior_, rtol=1e-12)
        np.testing.assert_allclose(svi.model_.covariance_prior_, ref.covariance_prior_,
                                   rtol=1e-12)
        assert "_whole_data_summary" not in vars(svi.model_)
