"""Where the data lives does not change the answer: every model, with its default start and
default ``tol`` (no ``init`` dict), fitted on the same data in memory, from a chunked source
and from a Dask collection, gives the same model to 1e-10 (issue 26, item 3).

What made them differ before: the start drawn from the first chunk or block (k-means++, CVB0
of ``LatentDirichletAllocation(init='auto')``, priors resolved at the start), and LDA's
monotone guard, which kept per-document state in memory only. Now the start is drawn from the
same start sample on every path (:mod:`latentkit._engine.start_sample`) and the guard's state is kept
per chunk (temporary files) or per block (on the workers). A real cluster:
``tests/parallel/test_dask.py``.
"""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp

import latentkit as lk
import latentkit._engine.start_sample as start_sample
from latentkit.sources import IterableSource

from _model_cases import CASES, _counts, _gauss, assert_same_model

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")
db = pytest.importorskip("dask.bag")

#: the models every path can fit; the others, with the reason
NOT_CHUNKED = {
    "VAE": "fitted by minibatch SGD on in-memory data (no chunked or Dask path)",
    "PLSA": "keeps P(z|d) per training document; refuses chunked and Dask data (TypeError)",
}

DEFAULT_CASES = {
    **{k: v for k, v in CASES.items() if k not in NOT_CHUNKED},
    # (in tests/contract/test_common.py's cases, not _model_cases')
    "VariationalAutoregressiveHMM": (
        lambda: lk.VariationalAutoregressiveHMM(2, random_state=0, max_iter=10),
        lambda n, s: _gauss(n, s)),
    # the default start of LDA (init='auto': CVB0 sweeps on the whole corpus)
    "LatentDirichletAllocation-auto": (
        lambda: lk.LatentDirichletAllocation(3, random_state=0, max_iter=10),
        lambda n, s: _counts(n, s)),
}

#: the models whose fit takes side information with one entry per document (times=, labels=,
#: covariates=; tests/contract/test_common.py's cases): the argument and its value for n
#: documents, sorted so that the first chunk or block lacks some slices / labels / covariate
#: rows (the fitted ones are all the chunks')
SIDE_CASES = {
    "DynamicTopicModel": (
        lambda: lk.DynamicTopicModel(3, init="random", random_state=0, max_iter=10),
        "times", lambda n: 2000 + np.arange(n) * 4 // n),
    # its default start: a static LDA fit on the start sample (all the chunks' documents)
    "DynamicTopicModel-lda": (
        lambda: lk.DynamicTopicModel(3, random_state=0, max_iter=5),
        "times", lambda n: 2000 + np.arange(n) * 4 // n),
    "DynamicTopicModel-spectral": (
        lambda: lk.DynamicTopicModel(3, init="spectral", random_state=0, max_iter=5),
        "times", lambda n: 2000 + np.arange(n) * 4 // n),
    "LabeledLDA": (
        lambda: lk.LabeledLDA(1, random_state=0, max_iter=10),
        "labels", lambda n: [[[0], [0, 1], [1], [], [2]][i * 5 // n] for i in range(n)]),
    "LabeledLDA-indicators": (
        lambda: lk.LabeledLDA(0, random_state=0, max_iter=10),
        "labels", lambda n: np.eye(3)[np.arange(n) * 3 // n]),
    "DirichletMultinomialRegression": (
        lambda: lk.DirichletMultinomialRegression(3, random_state=0, max_iter=10),
        "covariates", lambda n: np.eye(3)[np.arange(n) * 3 // n][:, :2].copy()),
}

#: the sequence models whose fit takes an argument with one row per time step (inputs=): the
#: argument and its value for n time steps
SEQUENCE_SIDE_CASES = {
    "InputOutputHMM": (lambda: lk.InputOutputHMM(2, random_state=0, max_iter=10),
                       "inputs", lambda n: np.random.default_rng(1).normal(size=(n, 2))),
    "InputOutputHMM-input_start": (
        lambda: lk.InputOutputHMM(2, input_start=True, covariance_type="full",
                                  random_state=0, max_iter=10),
        "inputs", lambda n: np.random.default_rng(1).normal(size=(n, 1))),
}

N, PARTS = 90, 3


def _fit(model, X, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", lk.ConvergenceWarning)
        return model.fit(X, **kw)


def _three_ways(make, X, lengths=None):
    """The model fitted in memory, from a chunked source of PARTS chunks, and from a Dask
    array of PARTS blocks (local synchronous scheduler)."""
    size = X.shape[0] // PARTS
    kw = {} if lengths is None else {"lengths": lengths}
    if lengths is None:
        chunks = [X[i * size:(i + 1) * size] for i in range(PARTS)]
    else:  # whole sequences per chunk
        per = len(lengths) // PARTS
        chunks = [(X[i * size:(i + 1) * size], {"lengths": lengths[i * per:(i + 1) * per]})
                  for i in range(PARTS)]
    dense = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=float)
    memory = _fit(make(), X, **kw)
    chunked = _fit(make(), IterableSource(chunks))
    with dask.config.set(scheduler="synchronous"):
        distributed = _fit(make(), da.from_array(dense, chunks=(size, dense.shape[1])), **kw)
    return memory, chunked, distributed


@pytest.mark.parametrize("name", sorted(DEFAULT_CASES))
def test_default_fit_is_the_same_in_memory_chunked_and_on_dask(name):
    make, data = DEFAULT_CASES[name]
    X = data(N, 0)
    hmm = isinstance(make(), lk.HiddenMarkovModel)
    memory, chunked, distributed = _three_ways(make, X, [15] * 6 if hmm else None)
    assert memory.n_iter_ == chunked.n_iter_ == distributed.n_iter_
    assert_same_model(memory, chunked)
    assert_same_model(memory, distributed)


@pytest.mark.parametrize("name", sorted(SIDE_CASES))
def test_side_information_travels_with_the_rows(name):
    """A fit with times= / labels= / covariates= is the same in memory, from a source of
    ``(X, {name: value})`` chunks, from an ArraySource with the whole argument (cut per
    chunk), and on a Dask array and a Dask bag with the whole argument (cut per block);
    before issue 44's
    second part these models refused chunked and Dask data."""
    make, arg, side = SIDE_CASES[name]
    X = _counts(N, 0)
    value = side(N)
    size = N // PARTS
    chunks = [(X[i * size:(i + 1) * size], {arg: value[i * size:(i + 1) * size]})
              for i in range(PARTS)]
    memory = _fit(make(), X, **{arg: value})
    fits = [_fit(make(), IterableSource(chunks)),
            _fit(make(), lk.inference.ArraySource(X, 25), **{arg: value})]
    with dask.config.set(scheduler="synchronous"):
        fits.append(_fit(make(), da.from_array(X.toarray(), chunks=(size, X.shape[1])),
                         **{arg: value}))
        bag = db.from_sequence([X[i] for i in range(N)], npartitions=4)  # uneven partitions
        fits.append(_fit(make(), bag, **{arg: value}))
    for other in fits:
        assert memory.n_iter_ == other.n_iter_
        assert_same_model(memory, other)


@pytest.mark.parametrize("name", sorted(SEQUENCE_SIDE_CASES))
def test_per_step_inputs_travel_with_the_sequences(name):
    """An InputOutputHMM's fit with inputs= (one row per time step) is the same in memory,
    from a source of ``(X, {'lengths': ..., 'inputs': ...})`` chunks of whole sequences, from
    a source of ``(X, {'lengths': ...})`` chunks with the whole ``inputs=`` (cut per chunk),
    and on a Dask array whose blocks (25 rows) cut sequences apart: the blocks are moved to
    sequence boundaries and ``inputs`` is cut by the same rows. On main the model refused
    chunked and Dask data."""
    make, arg, side = SEQUENCE_SIDE_CASES[name]
    X, value = _gauss(N, 0), side(N)
    lengths = [15] * 6
    size, per = N // PARTS, len(lengths) // PARTS
    memory = _fit(make(), X, lengths=lengths, **{arg: value})
    own = [(X[i * size:(i + 1) * size], {"lengths": lengths[i * per:(i + 1) * per],
                                         arg: value[i * size:(i + 1) * size]})
           for i in range(PARTS)]
    whole = [(c, {"lengths": kw["lengths"]}) for c, kw in own]
    fits = [_fit(make(), IterableSource(own)),
            _fit(make(), IterableSource(whole), **{arg: value})]
    with dask.config.set(scheduler="synchronous"):
        fits.append(_fit(make(), da.from_array(X, chunks=(25, X.shape[1])), lengths=lengths,
                         **{arg: value}))
    for other in fits:
        assert memory.n_iter_ == other.n_iter_
        assert_same_model(memory, other)
    # the answer depends on the inputs: another input series gives another model
    shifted = _fit(make(), X, lengths=lengths, **{arg: np.roll(value, 7, axis=0)})
    assert not np.allclose(shifted.transition_coefs_, memory.transition_coefs_)


def test_stochastic_vi_cuts_per_step_inputs_with_the_sequences():
    """StochasticVI of an InputOutputHMM gives the same model from memory (lengths= and
    inputs=), from a source of ``(X, {'lengths', 'inputs'})`` chunks and from a source of
    ``(X, {'lengths'})`` chunks with the whole ``inputs=``: each minibatch of whole sequences
    carries its own rows of inputs. On main every path failed (the minibatch of sequences kept
    the whole chunk's inputs; then the start's second validation took the model for unfitted)."""
    make, arg, side = SEQUENCE_SIDE_CASES["InputOutputHMM"]
    X, u = _gauss(N, 0), side(N)
    lengths = [15] * 6
    own = [(X[a:a + 30], {"lengths": [15, 15], "inputs": u[a:a + 30]}) for a in (0, 30, 60)]
    whole = [(c, {"lengths": kw["lengths"]}) for c, kw in own]

    def svi(data, **kw):
        run = lk.inference.StochasticVI(make(), batch_size=30, n_epochs=2, shuffle=False,
                                        random_state=0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", lk.ConvergenceWarning)
            return run.fit(data, **kw).model_

    memory = svi(X, lengths=lengths, inputs=u)
    assert_same_model(memory, svi(IterableSource(own, n_samples=N)))
    assert_same_model(memory, svi(IterableSource(whole, n_samples=N), inputs=u))
    # the inputs are read: other inputs give another model
    other = svi(X, lengths=lengths, inputs=-u)
    assert not np.allclose(other.transition_coefs_, memory.transition_coefs_)


def test_per_step_inputs_of_the_wrong_length_are_refused_on_chunked_and_dask_data():
    X, u = _gauss(N, 0), np.zeros((N - 1, 2))
    source = IterableSource([(X[:45], {"lengths": [45]}), (X[45:], {"lengths": [45]})])
    with pytest.raises(lk.exceptions.InputError, match="inputs"):
        lk.InputOutputHMM(2).fit(source, inputs=u)
    with pytest.raises(lk.exceptions.InputError, match="inputs"):
        lk.InputOutputHMM(2).fit(da.from_array(X, chunks=(30, X.shape[1])), lengths=[45, 45],
                                 inputs=u)


@pytest.mark.parametrize("name", ["DynamicTopicModel", "LabeledLDA",
                                  "DirichletMultinomialRegression"])
def test_stochastic_vi_cuts_the_side_information_with_the_minibatches(name):
    """StochasticVI gives the same model from memory, from a source of (X, {name: value})
    chunks and from an ArraySource with the whole argument; the first minibatch lacks some
    slices / labels / covariate rows (the model's are all the data's, and the first step reads
    its documents at them). On main the in-memory fit failed (the whole argument beside a
    minibatch)."""
    make, arg, side = SIDE_CASES[name]
    X, value = _counts(N, 0), side(N)
    order = np.r_[np.arange(30, 60), np.arange(0, 30), np.arange(60, 90)]
    X = X[order]
    value = value[order] if isinstance(value, np.ndarray) else [value[i] for i in order]
    source = IterableSource([(X[a:a + 30], {arg: value[a:a + 30]}) for a in (0, 30, 60)],
                            n_samples=N)

    def svi(data, **kw):
        run = lk.inference.StochasticVI(make(), batch_size=15, n_epochs=2, shuffle=False,
                                        random_state=0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", lk.ConvergenceWarning)
            return run.fit(data, **kw).model_

    memory = svi(X, **{arg: value})
    assert_same_model(memory, svi(source))
    assert_same_model(memory, svi(lk.inference.ArraySource(X, 30), **{arg: value}))
    batch = _fit(make(), X, **{arg: value})  # the slices / labels / rows of all the data
    for attr in ("time_slices_", "classes_", "covariate_rows_"):
        if hasattr(batch, attr):
            np.testing.assert_array_equal(getattr(memory, attr), getattr(batch, attr))


def test_side_information_of_the_wrong_length_is_refused_on_every_path():
    X = _counts(N, 0)
    times = np.arange(N - 1) % 3
    with pytest.raises(lk.exceptions.InputError, match="times"):
        lk.DynamicTopicModel(2, init="random").fit(lk.inference.ArraySource(X, 30), times=times)
    with pytest.raises(lk.exceptions.InputError, match="times"):
        lk.DynamicTopicModel(2, init="random").fit(da.from_array(X.toarray(), chunks=(30, 12)),
                                                   times=times)


def test_every_public_model_is_covered_or_excused():
    from test_common import LATENT_CASES

    names = {type(make()).__name__ for make, _ in LATENT_CASES.values()}
    covered = {type(make()).__name__ for make, _ in DEFAULT_CASES.values()}
    covered |= {type(make()).__name__ for make, _, _ in SIDE_CASES.values()}
    covered |= {type(make()).__name__ for make, _, _ in SEQUENCE_SIDE_CASES.values()}
    # the generic HMM classes are the same code as their named subclasses; the recipe's test
    # models (tests/toy_models.py, tests/recipe_models.py) are not public models
    generic = {"HiddenMarkovModel", "VariationalHMM", "ToyMixture", "BernoulliMixture"}
    assert names - covered - generic == set(NOT_CHUNKED), names - covered - generic


def test_lda_guard_keeps_chunked_and_dask_fits_on_the_in_memory_trajectory(monkeypatch):
    """At alpha = 1/K, from topics near convergence (34 in-memory iterations), the monotone
    guard acts in most of the next 8 iterations (a fixed start, tol=0); a chunked fit and a
    Dask bag fit (uneven partitions) follow the in-memory fit through them."""
    import latentkit.topic._lda_guard as guard

    X = sp.csr_matrix(np.random.default_rng(0).poisson(0.3, size=(300, 60)).astype(float))
    lam0 = np.random.default_rng(1).gamma(100.0, 0.01, size=(5, 60))
    lam = lk.LatentDirichletAllocation(5, max_iter=34, tol=0,
                                       init={"components": lam0}).fit(X).components_
    acted = []
    keep_better = guard._keep_better
    monkeypatch.setattr(guard, "_keep_better", lambda *a: acted.append(1) or keep_better(*a))
    make = lambda: lk.LatentDirichletAllocation(5, max_iter=8, tol=0,  # noqa: E731
                                                init={"components": lam})
    memory = _fit(make(), X)
    assert len(acted) >= 3  # the guard acted
    chunked = _fit(make(), lk.inference.ArraySource(X, 70))
    bag = db.from_sequence([X[i] for i in range(X.shape[0])], npartitions=4)
    with dask.config.set(scheduler="synchronous"):
        on_bag = _fit(make(), bag)
    for other in (chunked, on_bag):
        np.testing.assert_allclose(other.lower_bounds_, memory.lower_bounds_, rtol=1e-10)
        np.testing.assert_allclose(other.components_, memory.components_, rtol=1e-10)
    assert np.all(np.diff(memory.lower_bounds_) >= 0)  # the guard's promise


@pytest.mark.parametrize("name", ["GaussianMixture", "GaussianHMM",
                                  "LatentDirichletAllocation-auto"])
def test_start_sample_above_the_cap_is_the_same_on_every_path(name, monkeypatch):
    """Above the cap the start is drawn from a random sample of whole rows (sequences for an
    HMM): the same rows on every path."""
    monkeypatch.setattr(start_sample, "START_SAMPLE_SIZE", 40)
    make, data = DEFAULT_CASES[name]
    X = data(N, 0)
    hmm = isinstance(make(), lk.HiddenMarkovModel)
    memory, chunked, distributed = _three_ways(make, X, [15] * 6 if hmm else None)
    assert_same_model(memory, chunked)
    assert_same_model(memory, distributed)


@pytest.mark.parametrize("name", ["DynamicTopicModel-lda", "DynamicTopicModel-spectral"])
def test_start_sample_above_the_cap_carries_the_side_information(name, monkeypatch):
    """Above the cap the start sample's documents keep their own times (cut and joined with
    the rows: latentkit/_utils/row_params.py) on every path."""
    monkeypatch.setattr(start_sample, "START_SAMPLE_SIZE", 40)
    make, arg, side = SIDE_CASES[name]
    X, value = _counts(N, 0), side(N)
    memory = _fit(make(), X, **{arg: value})
    chunked = _fit(make(), lk.inference.ArraySource(X, 25), **{arg: value})
    with dask.config.set(scheduler="synchronous"):
        distributed = _fit(make(), da.from_array(X.toarray(), chunks=(30, X.shape[1])),
                           **{arg: value})
    assert_same_model(memory, chunked)
    assert_same_model(memory, distributed)


def test_row_arguments_are_cut_and_joined_as_given():
    from latentkit._utils.row_params import concat_rows, slice_row_params, take_rows

    labels = [["a"], [], ["a", "b"], ["b"]]
    assert take_rows(labels, np.array([True, False, True, False])) == [["a"], ["a", "b"]]
    assert concat_rows([labels[:1], labels[1:]]) == labels
    Y = sp.csr_matrix(np.eye(4)[:, :2])
    np.testing.assert_array_equal(concat_rows([take_rows(Y, slice(0, 2)),
                                               take_rows(Y, [2, 3])]).toarray(), Y.toarray())
    cut = slice_row_params({"times": np.arange(4), "other": 7}, ("times",), 1, 3)
    assert cut["times"].tolist() == [1, 2] and cut["other"] == 7


def test_start_sample_draws_whole_units_under_the_cap():
    rng = np.random.default_rng(0)
    sizes = np.array([15, 15, 30, 5, 40])
    keep = start_sample._choose(sizes, rng, 50)
    assert 0 < sizes[keep].sum() <= 50
    keep_all = start_sample._choose(sizes, rng, 105)
    assert keep_all.all()
    one = start_sample._choose(np.array([80, 90]), rng, 50)  # at least one unit
    assert one.sum() == 1
