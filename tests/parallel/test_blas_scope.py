"""Inference methods of every LatentModel (score, score_samples, predict, predict_proba,
transform, elbo, perplexity) run with BLAS on one thread, as the fit loop does, and restore
the caller's BLAS thread count afterwards (latentkit._utils.threads.blas_scoped)."""

import numpy as np
import pytest
from threadpoolctl import threadpool_info, threadpool_limits

from latentkit._utils.threads import blas_single_thread
from latentkit.mixture import GaussianMixture
from latentkit.topic import LatentDirichletAllocation


def _blas_threads():
    return [m["num_threads"] for m in threadpool_info() if m["user_api"] == "blas"]


@pytest.fixture(scope="module")
def blas_two_threads():
    if not _blas_threads():
        pytest.skip("no BLAS library reported by threadpoolctl")
    with threadpool_limits(limits=2, user_api="blas"):
        yield


def test_inference_methods_run_with_one_blas_thread_and_restore(blas_two_threads):
    seen = []

    class Recording(GaussianMixture):
        def _weighted_log_prob(self, X):
            seen.append(_blas_threads())
            return super()._weighted_log_prob(X)

    X = np.random.default_rng(0).standard_normal((200, 3))
    m = Recording(2, max_iter=2, tol=0.0, random_state=0).fit(X)
    before = _blas_threads()
    assert max(before) == 2
    seen.clear()
    ref = GaussianMixture(2, max_iter=2, tol=0.0, random_state=0).fit(X)
    for name in ("score_samples", "score", "predict", "predict_proba"):
        got = getattr(m, name)(X)
        np.testing.assert_array_equal(got, getattr(ref, name)(X))  # same answer
    assert len(seen) == 4 and all(max(s) == 1 for s in seen)
    assert _blas_threads() == before  # restored
    # the methods keep their signature and docstring
    assert Recording.score_samples.__doc__ == GaussianMixture.score_samples.__wrapped__.__doc__


@pytest.mark.slow
def test_lda_transform_and_nested_scopes(blas_two_threads):
    X = np.random.default_rng(1).poisson(1.0, size=(30, 12))
    lda = LatentDirichletAllocation(2, max_iter=2, random_state=0).fit(X)
    assert hasattr(LatentDirichletAllocation.transform, "__wrapped__")
    with blas_single_thread():
        assert max(_blas_threads()) == 1
        with blas_single_thread():  # nested: nothing re-applied, nothing restored early
            lda.transform(X)
        assert max(_blas_threads()) == 1
    assert max(_blas_threads()) == 2


def test_every_public_model_scopes_its_inference_methods_mixins_included():
    # the HMMs' score/predict live in HMMInferenceMixin, which is not a LatentModel
    # subclass: they must be wrapped too
    import latentkit
    from latentkit.base import LatentModel

    models = [getattr(latentkit, n) for n in latentkit.__all__]
    models = [c for c in models if isinstance(c, type) and issubclass(c, LatentModel)]
    assert len(models) >= 10
    unscoped = {c.__name__: [n for n in LatentModel._blas_scoped_methods
                             if callable(getattr(c, n, None))
                             and not getattr(getattr(c, n), "_blas_scoped", False)]
                for c in models}
    assert not {k: v for k, v in unscoped.items() if v}, unscoped


def test_the_limit_covers_the_blas_of_numba_kernels_loaded_later():
    # numba's np.dot calls scipy.linalg.cython_blas; a controller built before that BLAS is
    # loaded never limits it (an AVX2 OpenBLAS then ran the Gaussian E-step's GEMMs on two
    # threads inside each numba thread). A fresh process: the controller first, then the BLAS.
    import os
    import subprocess
    import sys
    from pathlib import Path

    import latentkit

    code = (
        "from latentkit._utils.threads import blas_single_thread\n"
        "with blas_single_thread():\n"
        "    import scipy.linalg.cython_blas\n"
        "    from threadpoolctl import threadpool_info\n"
        "    print([m['num_threads'] for m in threadpool_info() if m['user_api'] == 'blas'])\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=Path(latentkit.__file__).parents[1],
                         env={**os.environ, "OPENBLAS_NUM_THREADS": "2"}).stdout
    threads = eval(out.strip())
    assert threads and all(t == 1 for t in threads), out
