"""Run by ``test_model_list_determinism.py`` in a subprocess: fits every model of
``tests/_model_cases.py`` (``CASES`` and ``SPECTRAL_CASES``) plus LDA's CVB0 start on a Poisson
count matrix (issue 48's case) and prints JSON ``{name: [digest, ...]}``, one SHA-256 per run
over the exact bytes of every fitted array (``fitted_arrays``).

    python _model_list_workload.py threads N_ROWS SEED   # NUMBA_NUM_THREADS >= 7
    python _model_list_workload.py once N_ROWS SEED [NAME,NAME...]

(``PYTHONPATH`` set to the checkout, as the test does.)

``threads``: each model at numba thread counts 1, 2, 3 and 7, each time after a few small
arrays were allocated and freed at random (a kernel whose result depends on where its arrays
lie in memory, as LDA's CVB0 start did, issue 48, shows it across such runs), then at 2 while
a GaussianMixture fits in a second thread, with the small-data serial shortcuts turned off so
the document ranges, row partitions and time blocks really run on several threads.
``once``: each model once (the cache-history test compares processes).
"""

import hashlib
import json
import os
import sys
import threading
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/

THREADS = (1, 2, 3, 7)


def digest(arrays):
    h = hashlib.sha256()
    for key in sorted(arrays):
        h.update(key.encode())
        h.update(np.ascontiguousarray(np.asarray(arrays[key], dtype=np.float64)).tobytes())
    return h.hexdigest()[:16]


def serial_shortcuts_off():
    """Small data runs on threads too (each threshold only picks serial or threaded, the
    results are promised equal)."""
    from latentkit._kernels import gaussian
    from latentkit.distributions import _gaussian_estep, _missing
    from latentkit.sequence import _forward_backward
    from latentkit.spectral import _power
    from latentkit.topic import _cvb0, _lda_estep

    for mod, name, value in ((_cvb0, "SERIAL_BELOW", 0), (_lda_estep, "_THREADS_FROM_NNZ", 0),
                             (gaussian, "DIAG_SERIAL_ROWS", 0),
                             (_forward_backward, "_PARALLEL_MIN_WORK", 0),
                             (_missing, "_PART_ROWS", 16), (_missing, "_GEMM_ROWS", 8),
                             (_gaussian_estep, "_GEMM_PART_ROWS", 16), (_power, "_PAR_MIN_WORK", 0)):
        if hasattr(mod, name):
            setattr(mod, name, value)


def seeded_privacy_noise():
    """The private estimators draw their noise from the OS's entropy whatever random_state is
    (their docs say so): a fixed generator instead, so the rest of their arithmetic is
    compared."""
    from latentkit.spectral import _private_gmm, _private_lda, _private_power

    for mod in (_private_gmm, _private_lda, _private_power):
        mod._noise_rng = lambda: np.random.default_rng(12345)


def cases(n, seed):
    """name -> (make, X): the model list on data of ``n`` rows drawn with ``seed``."""
    import scipy.sparse as sp

    import latentkit as lk
    from _model_cases import CASES, SPECTRAL_CASES

    out = {name: (make, data(n, seed))
           for name, (make, data, *_) in {**CASES, **SPECTRAL_CASES}.items()}
    counts = np.random.default_rng(seed).poisson(0.7, size=(n, 40)).astype(float)
    out["LatentDirichletAllocation-cvb0"] = (
        lambda: lk.LatentDirichletAllocation(4, init="cvb0", random_state=0),
        sp.csr_matrix(counts))
    return out


def fit_digest(make, X):
    from _model_cases import fitted_arrays

    return digest({k: v for k, v in fitted_arrays(make().fit(X)).items() if "time" not in k})


def main():
    import numba

    mode, n, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    warnings.simplefilter("ignore")
    seeded_privacy_noise()
    models = cases(n, seed)
    if len(sys.argv) > 4:
        models = {k: models[k] for k in sys.argv[4].split(",")}
    out = {}
    if mode == "once":
        for name, (make, X) in models.items():
            out[name] = [fit_digest(make, X)]
        json.dump(out, sys.stdout)
        return
    serial_shortcuts_off()
    from latentkit.mixture import GaussianMixture

    rng, junk = np.random.default_rng(seed), []
    for name, (make, X) in models.items():
        runs = []
        for t in THREADS:
            for _ in range(int(rng.integers(1, 8))):  # another heap layout for each fit
                junk.append(np.empty(int(rng.integers(1, 64))))
                if len(junk) > 12:
                    junk.pop(int(rng.integers(0, 12)))
            numba.set_num_threads(t)
            runs.append(fit_digest(make, X))
        numba.set_num_threads(2)
        stop = threading.Event()
        Y = np.random.default_rng(1).normal(size=(3000, 4))

        def other():   # another fit, on numba's threads and BLAS, as long as ours runs
            while not stop.is_set():
                GaussianMixture(3, max_iter=5, tol=0, random_state=0).fit(Y)

        th = threading.Thread(target=other)
        th.start()
        try:
            runs.append(fit_digest(make, X))
        finally:
            stop.set()
            th.join()
        out[name] = runs
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
