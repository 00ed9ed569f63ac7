"""No latentkit call changes process-wide state: BLAS/OpenMP thread counts, numba's thread
count, NumPy's floating-point error handling, the warning filters, the global NumPy RNG,
environment variables and the working directory (issue: a GaussianMixture fit used to leave
OpenBLAS at one thread for the rest of the process)."""

import os
import warnings

import numba
import numpy as np
import pytest
import threadpoolctl

import latentkit as lk
from latentkit.base import ConvergenceWarning

from _model_cases import CASES, SPECTRAL_CASES


def _snapshot():
    return {
        "threads": {(i["filepath"], i["internal_api"]): i["num_threads"]
                    for i in threadpoolctl.threadpool_info()},
        "numba_threads": numba.get_num_threads(),
        "errstate": np.geterr(),
        "warning_filters": list(warnings.filters),
        "np_random": np.random.get_state(),
        "environ": dict(os.environ),
        "cwd": os.getcwd(),
    }


def _assert_unchanged(before, after, what):
    common = before["threads"].keys() & after["threads"].keys()
    changed = {k: (before["threads"][k], after["threads"][k]) for k in common
               if before["threads"][k] != after["threads"][k]}
    assert not changed, f"{what} changed thread pools: {changed}"
    # libraries loaded by the call itself start at the limit set below (3 threads)
    for k in after["threads"].keys() - before["threads"].keys():
        assert after["threads"][k] != 1 or os.cpu_count() == 1, f"{what} left {k} at 1 thread"
    for key in ("numba_threads", "errstate", "warning_filters", "environ", "cwd"):
        assert before[key] == after[key], f"{what} changed {key}"
    a, b = before["np_random"], after["np_random"]
    assert np.array_equal(a[1], b[1]) and a[2:] == b[2:], f"{what} used the global NumPy RNG"


@pytest.fixture
def nondefault_process():
    """Thread pools at 3 threads and an unusual errstate, so any reset to a library default
    (one BLAS thread, NumPy's default error handling) shows as a change."""
    with threadpoolctl.threadpool_limits(limits=3), np.errstate(under="warn", divide="raise"):
        yield


def _calls(model, X, tmp_path):
    """(name, call) for every public entry point the model has."""
    out = [("fit", lambda: model.fit(X))]
    if hasattr(model, "partial_fit"):
        out.append(("partial_fit", lambda: model.partial_fit(X)))
    for name in ("predict", "score", "transform"):
        if hasattr(model, name):
            out.append((name, lambda name=name: getattr(model, name)(X)))
    path = tmp_path / "m.npz"
    out.append(("save", lambda: lk.save(model, path)))
    out.append(("load", lambda: lk.load(path)))
    return out


@pytest.mark.parametrize("name", sorted(CASES) + sorted(SPECTRAL_CASES))
def test_no_call_changes_process_state(name, tmp_path, nondefault_process):
    make, data = {**CASES, **SPECTRAL_CASES}[name]
    model = make()
    X = data(200 if name in SPECTRAL_CASES else 60, 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for what, call in _calls(model, X, tmp_path):
            before = _snapshot()
            call()
            _assert_unchanged(before, _snapshot(), f"{name}.{what}")


def test_threaded_full_covariance_estep_keeps_blas_threads(nondefault_process):
    """The input of the report: the BLAS E-step (full covariance, 3000 x 6) runs with BLAS
    at one thread inside its worker threads only."""
    X = np.random.default_rng(0).normal(size=(3000, 6))
    before = _snapshot()
    lk.GaussianMixture(3, random_state=0, max_iter=5, tol=0).fit(X)
    _assert_unchanged(before, _snapshot(), "GaussianMixture.fit")
