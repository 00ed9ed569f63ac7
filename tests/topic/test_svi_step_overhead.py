"""The per-step Python work that StochasticVI's sparse LDA step no longer repeats (issue 46,
item 5) gives the same numbers bit for bit: the training matrix validated once and its
minibatches gathered by a kernel (against scipy's ``X[rows]`` and the per-step validation),
the column update fused into one kernel (against NumPy's ``U[cols] += c S``), the epoch's
global term without the full E-step tables of a sync, the step sizes without their checks per
step, and ``dirichlet_kl``'s scalar-prior path (against its array path). Every comparison is
exact: these changes must not move a fitted number (``tools/fit_dump.py compare``)."""

import copy

import numpy as np
import pytest
import scipy.sparse as sp

from latentkit._engine.steps import step_size_schedule
from latentkit._kernels import svi as ks
from latentkit.datasets import make_lda_corpus
from latentkit.distributions import dirichlet_kl
from latentkit.inference import StochasticVI
from latentkit.topic import LatentDirichletAllocation
from latentkit.topic import _lda_svi


@pytest.fixture(scope="module")
def corpus():
    X, _ = make_lda_corpus(120, 4, 60, doc_length=25, random_state=3)
    return sp.csr_matrix(X)


def test_gather_rows_is_scipy_row_indexing():
    rng = np.random.default_rng(0)
    X = sp.random(40, 30, density=0.2, format="csr", random_state=1)
    A = X.toarray()
    A[5] = 0.0
    X = sp.csr_matrix(A)  # row 5 empty
    assert X[5].nnz == 0
    for rows in (np.arange(40), rng.permutation(40)[:17], np.array([5, 5, 0, 39]),
                 np.array([], dtype=np.int64)):
        ref = X[rows]
        indptr, indices, data = ks.gather_rows(X.indptr, X.indices, X.data, rows.astype(np.int64))
        np.testing.assert_array_equal(indptr, ref.indptr)
        np.testing.assert_array_equal(indices, ref.indices)
        np.testing.assert_array_equal(data, ref.data)


@pytest.mark.parametrize("K", [3, 20])
def test_add_scaled_rows_is_numpy_bit_for_bit(K):
    rng = np.random.default_rng(K)
    V, n = 90, 37
    u_t = rng.gamma(0.5, 3.0, size=(V, K))
    cols = np.sort(rng.choice(V, n, replace=False)).astype(np.int64)
    ss_t = rng.gamma(0.3, 5.0, size=(n, K))
    c = 0.1234567 * 3430 / 256 / 0.377
    ref_u = u_t.copy()
    inc = c * ss_t
    ref_u[cols] += inc
    row_inc = np.empty(K)
    ks.add_scaled_rows(u_t, cols, ss_t, c, row_inc)
    np.testing.assert_array_equal(u_t, ref_u)
    np.testing.assert_array_equal(row_inc, inc.sum(axis=0))


@pytest.mark.parametrize("p", [0.05, 1.0, 3])
def test_dirichlet_kl_scalar_prior_equals_its_array(p):
    q = np.random.default_rng(1).gamma(0.5, 2.0, size=(5, 257)) + 1e-3
    np.testing.assert_array_equal(dirichlet_kl(q, p), dirichlet_kl(q, np.full(q.shape, p)))
    np.testing.assert_array_equal(dirichlet_kl(q[0], p), dirichlet_kl(q[0], np.full(257, p)))


def _fit(X, **kw):
    return StochasticVI(LatentDirichletAllocation(4, random_state=0), batch_size=25, n_epochs=3,
                        learning_offset=2.0, random_state=1, **kw).fit(X)


def test_rows_validated_once_give_the_per_step_validation_bit_for_bit(corpus, monkeypatch):
    # explicit zeros and duplicate entries: validation sums and drops them row by row
    X = corpus.tocoo()
    X = sp.coo_matrix((np.r_[X.data, 0.0, 1.0, 2.0], (np.r_[X.row, 3, 7, 7],
                                                      np.r_[X.col, 4, 9, 9])), shape=X.shape)
    for data in (X.tocsr(), X.toarray()):
        once = _fit(data)
        with monkeypatch.context() as m:
            m.delattr(_lda_svi.LDAStochasticStepper, "bind")  # every step validates its rows
            each = _fit(data)
        np.testing.assert_array_equal(once.components_, each.components_)
        np.testing.assert_array_equal(once.epoch_bounds_, each.epoch_bounds_)


def test_the_step_sizes_are_the_schedule(corpus, monkeypatch):
    seen = []
    step = _lda_svi.LDAStochasticStepper.step

    def record(self, X, rho, *a, **kw):
        seen.append(rho)
        return step(self, X, rho, *a, **kw)

    monkeypatch.setattr(_lda_svi.LDAStochasticStepper, "step", record)
    svi = _fit(corpus)
    expected = [min(1.0, step_size_schedule(t, 2.0, 0.7)) for t in range(2, svi.n_steps_ + 1)]
    assert seen == expected  # exact floats (step 1 is partial_fit's)


def test_global_term_without_sync_is_the_synced_models(corpus):
    model = LatentDirichletAllocation(4, random_state=0).partial_fit(corpus[:30],
                                                                    total_samples=120)
    a = model._svi_stepper(120)
    for s in range(3):  # S < 1 after these steps: the fold is exercised
        a.step(corpus[30 * s:30 * s + 30], 0.3)
    b = copy.deepcopy(a)  # its model and set_components with it
    assert b.model is not a.model and b.set_components.__self__ is b.model
    glob_a = a._global_term()
    b.sync()
    assert glob_a == float(b.model._global_elbo_terms())
    assert a.step(corpus[90:], 0.2).data_term == b.step(corpus[90:], 0.2).data_term
    a.sync(), b.sync()
    np.testing.assert_array_equal(a.model.components_, b.model.components_)


@pytest.mark.parametrize("width", [40, 10**7], ids=["counted", "declared-wide"])
def test_count_summary_columns_are_the_sorted_distinct_used_columns(width):
    from latentkit._utils.summaries import CountSummary

    rng = np.random.default_rng(width)
    cols = rng.integers(0, 40, 200)
    X = sp.csr_matrix((rng.integers(0, 3, 200).astype(float), (rng.integers(0, 30, 200), cols)),
                      shape=(30, width))  # explicit zeros among them: not "used"
    X.sum_duplicates()
    got = CountSummary.of(X).columns
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, np.unique(X.indices[X.data != 0]))
