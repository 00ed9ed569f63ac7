"""Process-wide settings under several Python threads (issue 26, item 1): the BLAS limit of
``latentkit._utils.threads.blas_single_thread`` is one reference count for the whole process, so
any order of entering and leaving from several threads leaves the BLAS thread count as it
was; two threads fitting two models at once give the answers of one-at-a-time fits and leave
the thread pools as they were."""

import itertools
import threading

import numba
import numpy as np
import pytest
from threadpoolctl import threadpool_info, threadpool_limits

from latentkit._utils import threads as _threads
from latentkit.mixture import GaussianMixture
from latentkit.topic import LatentDirichletAllocation

WAIT = 30  # seconds: a step that does not happen in this time is a failure, not a hang


def _blas_threads():
    return sorted({m["num_threads"] for m in threadpool_info() if m["user_api"] == "blas"})


@pytest.fixture
def blas_two_threads():
    if not _blas_threads():
        pytest.skip("no BLAS library reported by threadpoolctl")
    with threadpool_limits(limits=2, user_api="blas"):
        yield


class _FakeBlas:
    """Stands in for threadpoolctl's controller: one process-wide BLAS thread count (2), and
    limiters that save it and restore it, as threadpoolctl's do. (OpenBLAS itself ignores some
    limits set from a second thread, which would hide the order being tested.)"""

    def __init__(self):
        self.threads = 2

    def limit(self, limits, user_api):
        assert user_api == "blas"
        fake, saved = self, self.threads
        self.threads = limits

        class Limiter:
            def restore_original_limits(self):
                fake.threads = saved

        return Limiter()


@pytest.fixture
def fake_blas(monkeypatch):
    fake = _FakeBlas()
    monkeypatch.setattr(_threads, "_CONTROLLER", fake)
    return fake


class _Holder:
    """A thread that enters ``blas_single_thread`` when told, and leaves it when told."""

    def __init__(self):
        self.go_enter, self.entered = threading.Event(), threading.Event()
        self.go_exit, self.exited = threading.Event(), threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        assert self.go_enter.wait(WAIT)
        with _threads.blas_single_thread():
            self.entered.set()
            assert self.go_exit.wait(WAIT)
        self.exited.set()

    def step(self, what):
        go, done = (self.go_enter, self.entered) if what == "enter" else (self.go_exit,
                                                                         self.exited)
        go.set()
        assert done.wait(WAIT), f"thread did not {what}"


def _interleavings(n):
    """Every order of n threads' enter/exit events in which each thread enters first."""
    events = [(i, e) for i in range(n) for e in ("enter", "exit")]
    for order in itertools.permutations(events):
        if all(order.index((i, "enter")) < order.index((i, "exit")) for i in range(n)):
            yield order


@pytest.mark.parametrize("n_threads", [2, 3])
def test_every_enter_exit_order_of_several_threads_restores(fake_blas, n_threads):
    orders = list(_interleavings(n_threads))
    assert len(orders) == {2: 6, 3: 90}[n_threads]
    for order in orders:
        holders = [_Holder() for _ in range(n_threads)]
        inside = set()
        for i, what in order:
            holders[i].step(what)
            (inside.add if what == "enter" else inside.discard)(i)
            # one BLAS thread while any thread is inside, the caller's 2 once none is
            assert fake_blas.threads == (1 if inside else 2), (order, i, what)
        for h in holders:
            h.thread.join(WAIT)


def test_nested_blocks_in_two_threads(fake_blas):
    a, b = _Holder(), _Holder()
    a.step("enter")
    with _threads.blas_single_thread():  # this thread nests inside its own block
        b.step("enter")
        with _threads.blas_single_thread():
            a.step("exit")
        assert fake_blas.threads == 1
    assert fake_blas.threads == 1  # b is still inside
    b.step("exit")
    assert fake_blas.threads == 2


def test_the_real_blas_limit_is_applied_and_restored(blas_two_threads):
    with _threads.blas_single_thread():
        assert _blas_threads() == [1]
        with _threads.blas_single_thread():
            assert _blas_threads() == [1]
        assert _blas_threads() == [1]
    assert _blas_threads() == [2]


def _data():
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(size=(150, 3)), rng.normal(size=(150, 3)) + 4.0])
    counts = rng.poisson(0.8, size=(80, 30)).astype(np.float64)
    return X, counts


def _fit_both(X, counts, barrier=None):
    out = {}

    def gmm():
        if barrier is not None:
            barrier.wait(WAIT)
        out["gmm"] = GaussianMixture(2, max_iter=30, tol=0.0, random_state=0).fit(X)

    def lda():
        if barrier is not None:
            barrier.wait(WAIT)
        out["lda"] = LatentDirichletAllocation(3, max_iter=15, tol=0.0, random_state=0,
                                               init="random").fit(counts)

    return out, gmm, lda


def test_two_threads_fitting_a_gmm_and_an_lda_leave_the_pools_as_they_were(blas_two_threads):
    X, counts = _data()
    ref, gmm, lda = _fit_both(X, counts)
    gmm()
    lda()
    numba_before, blas_before = numba.get_num_threads(), _blas_threads()
    assert blas_before == [2]
    for _ in range(3):
        out, gmm, lda = _fit_both(X, counts, threading.Barrier(2))
        threads = [threading.Thread(target=f) for f in (gmm, lda)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
            assert not t.is_alive(), "a fitting thread hung"
        # the answers of one-at-a-time fits, to the bit
        np.testing.assert_array_equal(out["gmm"].means_, ref["gmm"].means_)
        np.testing.assert_array_equal(out["gmm"].covariances_, ref["gmm"].covariances_)
        np.testing.assert_array_equal(out["lda"].components_, ref["lda"].components_)
        assert _blas_threads() == blas_before
        assert numba.get_num_threads() == numba_before


def test_warning_blocks_of_two_threads_restore_the_filters_and_keep_their_warnings():
    import warnings

    before = list(warnings.filters)
    inside_a, release_a, b_done = threading.Event(), threading.Event(), threading.Event()
    got = {}

    def a():
        with _threads.caught_warnings("always", record=True) as caught:
            inside_a.set()
            assert release_a.wait(WAIT)
            warnings.warn("from a", UserWarning)
        got["a"] = [str(w.message) for w in caught]

    def b():
        assert inside_a.wait(WAIT)
        with _threads.caught_warnings("ignore"):  # waits for a's block: they never overlap
            got["b_filters"] = list(warnings.filters)
        b_done.set()

    ta, tb = threading.Thread(target=a), threading.Thread(target=b)
    ta.start()
    tb.start()
    assert inside_a.wait(WAIT)
    assert not b_done.wait(0.5)  # b is held until a leaves (were it not, it would be done)
    release_a.set()
    ta.join(WAIT)
    tb.join(WAIT)
    assert got["a"] == ["from a"]
    assert got["b_filters"][0][0] == "ignore"
    assert warnings.filters == before


def test_recording_collects_only_the_recording_threads_warnings():
    import warnings

    recording, other_done = threading.Event(), threading.Event()
    got = {}

    def other():
        assert recording.wait(WAIT)
        warnings.warn("from the other thread", RuntimeWarning)
        other_done.set()

    t = threading.Thread(target=other)
    t.start()
    with warnings.catch_warnings(record=True) as outer:  # where the other's warning goes
        warnings.simplefilter("always")
        with _threads.caught_warnings("always", record=True) as caught:
            recording.set()
            assert other_done.wait(WAIT)
            warnings.warn("mine", UserWarning)
    t.join(WAIT)
    assert [str(w.message) for w in caught] == ["mine"]
    assert [str(w.message) for w in outer] == ["from the other thread"]
