"""Chunk sources, out-of-core batch fitting and StochasticVI, through the toy mixture (model-
specific SVI checks live with the models)."""

import gzip

import numpy as np
import pytest
import scipy.sparse as sp
from toy_models import ToyMixture

from latentkit._utils.validation import check_random_state
from latentkit.inference import (
    ArraySource,
    CSVSource,
    DocwordSource,
    IterableSource,
    StochasticVI,
    step_size_schedule,
)


class FixedInit(ToyMixture):
    def _init_params(self, data, rng):
        self.weights_ = np.array([0.5, 0.5])
        self.means_ = np.array([-1.0, 1.0])


@pytest.fixture
def X():
    rng = np.random.default_rng(0)
    return np.concatenate([rng.normal(-3, 1, 300), rng.normal(2, 1, 200)])[:, None]


def test_step_size_schedule_closed_form_and_errors():
    np.testing.assert_allclose(step_size_schedule(np.arange(1, 4), 10.0, 0.7),
                               (np.arange(1, 4) + 10.0) ** -0.7)
    assert step_size_schedule(1, 0.0, 0.9) == 1.0
    for kappa in (0.5, 1.01, 0.2):
        with pytest.raises(ValueError, match="kappa"):
            step_size_schedule(1, 10.0, kappa)
    with pytest.raises(ValueError, match="tau"):
        step_size_schedule(1, -1.0, 0.7)
    with pytest.raises(ValueError, match="1-based"):
        step_size_schedule(0)


@pytest.mark.parametrize("make_source", [
    lambda X: ArraySource(X, 64),
    lambda X: IterableSource([X[:100], X[100:333], X[333:]]),
    lambda X: IterableSource(lambda: (X[a:a + 200] for a in range(0, len(X), 200))),
])
def test_chunked_fit_equals_in_memory_fit(X, make_source):
    a = FixedInit(tol=0, max_iter=8).fit(X)
    b = FixedInit(tol=0, max_iter=8).fit(make_source(X))
    np.testing.assert_allclose(b.lower_bounds_, a.lower_bounds_, rtol=1e-12)
    np.testing.assert_allclose(b.means_, a.means_, rtol=1e-12)
    assert b.elbo(make_source(X)) == pytest.approx(a.elbo(X), rel=1e-12)


def test_one_shot_generator_is_refused(X):
    with pytest.raises(TypeError, match="one-shot"):
        IterableSource(x for x in [X])


def _write_docword(path, dense, extra_lines=()):
    rows, cols = np.nonzero(dense)
    lines = [str(dense.shape[0]), str(dense.shape[1]), str(len(rows))]
    lines += [f"{r + 1} {c + 1} {int(dense[r, c])}" for r, c in zip(rows, cols)]
    lines += list(extra_lines)
    with gzip.open(path, "wt") as fh:
        fh.write("\n".join(lines) + "\n")


def test_docword_source_chunks_reassemble_the_matrix(tmp_path):
    rng = np.random.default_rng(1)
    dense = rng.poisson(0.3, size=(23, 11)).astype(float)
    dense[[4, 5, 22]] = 0  # empty documents, including the last ones
    path = tmp_path / "docword.txt.gz"
    _write_docword(path, dense)
    src = DocwordSource(path, chunk_size=5)
    assert (src.n_samples, src.n_features) == (23, 11)
    chunks = list(src.iter_chunks())
    assert [c.shape[0] for c in chunks] == [5, 5, 5, 5, 3]
    np.testing.assert_array_equal(sp.vstack(chunks).toarray(), dense)


@pytest.mark.parametrize("bad,msg", [
    ("3 x 1", "line 6: docID and wordID must be integers"),
    ("9 1 1", "docID 9 is outside 1..4"),
    ("4 99 1", "wordID 99 is outside"),
    ("4 1 -2", "count must be finite and >= 0"),
])
def test_docword_source_reports_the_bad_line(tmp_path, bad, msg):
    dense = np.array([[1, 0], [0, 2], [0, 0], [0, 0]])
    path = tmp_path / "d.txt.gz"
    _write_docword(path, dense, extra_lines=[bad])
    with pytest.raises(ValueError, match=msg):
        list(DocwordSource(path, chunk_size=2).iter_chunks())


def test_csv_source_header_and_errors(tmp_path, X):
    p = tmp_path / "x.csv"
    np.savetxt(p, X, delimiter=",", header="value", comments="")
    src = CSVSource(p, chunk_size=128)
    assert src.n_samples == len(X)
    np.testing.assert_allclose(np.vstack(list(src.iter_chunks())), X)
    q = tmp_path / "bad.csv"
    q.write_text("1,2\n3,4\n5\n")
    # the message of read_numeric_csv: one parser for both
    with pytest.raises(ValueError, match="line 3: expected 2 fields, found 1"):
        list(CSVSource(q).iter_chunks())


def test_svi_step_one_full_batch_equals_one_batch_step(X):
    svi = StochasticVI(ToyMixture(), batch_size=len(X), learning_offset=0.0,
                       learning_decay=0.9, max_steps=1, shuffle=False, random_state=3).fit(X)
    seed = svi.model_.random_state
    ref = ToyMixture(random_state=seed)
    ref._init_params(X, check_random_state(seed))
    ref._iterate(X)
    np.testing.assert_allclose(svi.means_, ref.means_, rtol=1e-10)
    np.testing.assert_allclose(svi.weights_, ref.weights_, rtol=1e-10)


def test_svi_converges_to_the_batch_optimum_and_records_heldout(X):
    batch = ToyMixture(random_state=0).fit(X)
    svi = StochasticVI(ToyMixture(), batch_size=50, n_epochs=20, holdout=0.2, tol=1e-4,
                       random_state=0).fit(X)
    assert svi.heldout_bounds_.size >= 2 and svi.heldout_steps_.size == svi.heldout_bounds_.size
    assert np.all(np.diff(svi.heldout_times_) >= 0)
    np.testing.assert_allclose(np.sort(svi.means_), np.sort(batch.means_), atol=0.15)


@pytest.mark.parametrize("kw,fit_kw,exc,msg", [
    ({"learning_decay": 0.5}, {}, ValueError, "kappa"),
    ({"learning_decay": 1.5}, {}, ValueError, "kappa"),
    ({}, {"total_samples": 7}, ValueError, "inconsistent"),
    ({"holdout": 1.5}, {}, ValueError, "holdout"),
])
def test_svi_classic_mistakes_raise(X, kw, fit_kw, exc, msg):
    with pytest.raises(exc, match=msg):
        StochasticVI(ToyMixture(), **kw).fit(X, **fit_kw)


def test_svi_batch_size_over_n_is_one_minibatch_of_all_samples(X):
    # before: "batch_size=10000 is larger than the number of training samples"; now capped at
    # N as scikit-learn's online LDA (and LDA's learning_method='online') did: the same steps
    big = StochasticVI(ToyMixture(), batch_size=10_000, n_epochs=3, random_state=0).fit(X)
    exact = StochasticVI(ToyMixture(), batch_size=X.shape[0], n_epochs=3,
                         random_state=0).fit(X)
    assert big.n_steps_ == 3
    np.testing.assert_array_equal(big.means_, exact.means_)
    np.testing.assert_array_equal(big.epoch_bounds_, exact.epoch_bounds_)


def test_svi_empty_chunk_raises(X):
    src = IterableSource([X[:100], X[:0]], n_samples=100)
    with pytest.raises(ValueError, match="empty"):
        StochasticVI(ToyMixture(), batch_size=20, random_state=0).fit(src)


def test_svi_unfitted_forwarding_raises(X):
    from latentkit.base import NotFittedError
    svi = StochasticVI(ToyMixture())
    with pytest.raises(NotFittedError):
        svi.means_
    assert StochasticVI(ToyMixture(), batch_size=100, max_steps=2,
                        random_state=0).fit(X).n_steps_ == 2


def test_svi_given_a_class_instead_of_a_model(X):
    with pytest.raises(TypeError, match=r"model must be a model instance, e.g. ToyMixture\(...\)"):
        StochasticVI(ToyMixture).fit(X)
