"""Run by ``test_missing_threads.py`` in a subprocess (``NUMBA_NUM_THREADS`` set by the
caller): fits GaussianMixture with missing='marginalize' for every covariance type and the
variational mixture, and prints one SHA-256 per fit over the exact bytes of the fitted
parameters and bound trace."""

import hashlib
import json
import warnings

import numpy as np


def digest(*arrays):
    h = hashlib.sha256()
    for a in arrays:
        h.update(np.ascontiguousarray(np.asarray(a, dtype=np.float64)).tobytes())
    return h.hexdigest()


def main():
    import numba

    from latentkit.datasets import make_gmm
    from latentkit.distributions import _missing
    from latentkit.mixture import GaussianMixture, VariationalGaussianMixture

    warnings.simplefilter("ignore")
    # 3000 rows in partitions of 256 (12 partitions, patterns cut between them), GEMM chunks of
    # 100 rows with a ragged last chunk in each partition
    _missing._PART_ROWS = 256
    _missing._GEMM_ROWS = 100
    out = {"threads": numba.get_num_threads()}
    X, _, _ = make_gmm(3000, 3, 5, separation=2.0, random_state=0)
    rng = np.random.default_rng(0)
    X[rng.random(X.shape) < 0.2] = np.nan
    for cov in ("full", "tied", "diag", "spherical"):
        m = GaussianMixture(3, covariance_type=cov, max_iter=3, tol=0, random_state=0,
                            missing="marginalize").fit(X)
        out["gmm_" + cov] = digest(m.weights_, m.means_, m.covariances_, m.lower_bounds_)
    m = VariationalGaussianMixture(3, max_iter=3, tol=0, random_state=0,
                                   missing="marginalize").fit(X)
    out["vgmm_full"] = digest(m.weights_, m.means_, m.covariances_, m.lower_bounds_)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
