"""Run by ``test_thread_independence.py`` in a subprocess (``NUMBA_NUM_THREADS`` set by the
caller): fits every model whose E-step runs on numba's threads and prints one SHA-256 per
workload over the exact bytes of the fitted parameters and bound trace."""

import hashlib
import json
import sys
import warnings

import numpy as np


def digest(*arrays):
    h = hashlib.sha256()
    for a in arrays:
        h.update(np.ascontiguousarray(np.asarray(a, dtype=np.float64)).tobytes())
    return h.hexdigest()


def main():
    import numba

    from latentkit.datasets import make_gmm, make_lda_corpus
    from latentkit.mixture import GaussianMixture
    from latentkit.mixture._variational import VariationalGaussianMixture
    from latentkit.sequence import CategoricalHMM
    from latentkit.topic import LatentDirichletAllocation

    warnings.simplefilter("ignore")
    out = {"threads": numba.get_num_threads()}
    # GMM full covariance: 9000 rows make 3 partitions of the BLAS E-step, with a ragged
    # last chunk in each; diag runs the fused prange kernel
    X, _, _ = make_gmm(9000, 3, 5, separation=2.0, random_state=0)
    for cov in ("full", "diag"):
        m = GaussianMixture(3, covariance_type=cov, max_iter=4, tol=0, random_state=0).fit(X)
        out["gmm_" + cov] = digest(m.weights_, m.means_, m.covariances_, m.lower_bounds_)
    m = VariationalGaussianMixture(3, max_iter=4, tol=0, random_state=0).fit(X)
    out["vgmm_full"] = digest(m.weights_, m.means_, m.covariances_, m.lower_bounds_)
    # LDA batch VB: prange over documents
    counts, _ = make_lda_corpus(n_docs=300, n_components=4, vocab_size=200, doc_length=60,
                                random_state=0)
    m = LatentDirichletAllocation(4, max_iter=3, random_state=0, init="random").fit(counts)
    out["lda_batch"] = digest(m.components_, m.lower_bounds_)
    from latentkit.topic import _lda_estep  # the statistics by document blocks, on small data

    _lda_estep._SUFF_BLOCK_NNZ = 2000
    m = LatentDirichletAllocation(4, max_iter=3, random_state=0, init="random").fit(counts)
    out["lda_batch_blocked_stats"] = digest(m.components_, m.lower_bounds_)
    # categorical HMM: 60 sequences x 300 steps x 8^2 states is above the parallel threshold
    rng = np.random.default_rng(0)
    sym = rng.integers(0, 6, size=(60 * 300, 1))
    m = CategoricalHMM(8, n_features=6, max_iter=3, tol=0, random_state=0)
    m.fit(sym, lengths=[300] * 60)
    out["hmm_categorical"] = digest(m.startprob_, m.transmat_, m.emissionprob_,
                                    m.lower_bounds_)
    # one sequence long enough for the blocked forward-backward (parallel over time blocks)
    from latentkit.sequence import _hmm

    T = _hmm._BLOCKED_MIN_LENGTH + 5000
    sym = rng.integers(0, 6, size=(T, 1))
    m = CategoricalHMM(4, n_features=6, max_iter=2, tol=0, random_state=0).fit(sym)
    out["hmm_long"] = digest(m.startprob_, m.transmat_, m.emissionprob_, m.lower_bounds_)
    missing_data_fits(out)
    json.dump(out, sys.stdout)


def missing_data_fits(out):
    """missing='marginalize' (prange over row partitions, latentkit._kernels.missing): 3000
    rows in partitions of 256 (patterns cut between them), GEMM chunks of 100 rows with a
    ragged last chunk in each partition, every covariance type and the variational mixture."""
    from latentkit.datasets import make_gmm
    from latentkit.distributions import _missing
    from latentkit.mixture import GaussianMixture, VariationalGaussianMixture

    _missing._PART_ROWS, _missing._GEMM_ROWS = 256, 100
    X, _, _ = make_gmm(3000, 3, 5, separation=2.0, random_state=0)
    X[np.random.default_rng(0).random(X.shape) < 0.2] = np.nan
    for cov in ("full", "tied", "diag", "spherical"):
        m = GaussianMixture(3, covariance_type=cov, max_iter=3, tol=0, random_state=0,
                            missing="marginalize").fit(X)
        out["gmm_missing_" + cov] = digest(m.weights_, m.means_, m.covariances_,
                                           m.lower_bounds_)
    m = VariationalGaussianMixture(3, max_iter=3, tol=0, random_state=0,
                                   missing="marginalize").fit(X)
    out["vgmm_missing_full"] = digest(m.weights_, m.means_, m.covariances_, m.lower_bounds_)


if __name__ == "__main__":
    main()
