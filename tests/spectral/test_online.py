"""Online tensor power method: agreement with the batch method, bounded memory, sources."""

import tracemalloc

import numpy as np
import pytest

from latentkit.spectral import ImplicitMomentTensor, online_tensor_power, robust_tensor_power
from latentkit.testing import match_components

D, K = 20, 3
_rng = np.random.default_rng(0)
VTRUE = np.linalg.qr(_rng.standard_normal((D, K)))[0]
W = np.array([0.5, 0.3, 0.2])
SIGMA = 0.2


def stream(n, chunk=500, seed=1):
    """x = v_h + sigma P z, h ~ W, P the projector off span(V): the v_h stay exact eigenvectors
    of E[x^3] = sum_h w_h v_h^3 + sigma^2 Sym(m (x) P) (P v = 0), the noise adds sampling error."""
    rng = np.random.default_rng(seed)
    for s in range(0, n, chunk):
        m = min(chunk, n - s)
        h = rng.choice(K, m, p=W)
        z = rng.standard_normal((m, D))
        yield VTRUE[:, h].T + SIGMA * (z - (z @ VTRUE) @ VTRUE.T)


def run_online(n, seed=0):
    R = 15
    return online_tensor_power(stream(n), K, n_restarts=10, n_iter=R,
                               batch_size=n // (K * (R + 1)), random_state=seed)


@pytest.mark.slow
def test_online_matches_batch_within_sampling_error():
    n = 100_000
    on = run_online(n)
    X = np.concatenate(list(stream(n)))
    batch = robust_tensor_power(ImplicitMomentTensor.from_rows(X), K, tol=1e-8, random_state=0)
    perm, err = match_components(batch.eigenvectors.T, on.eigenvectors.T, "l2")
    # each online step sees B = n / (k (R + 1)) ~ 2000 samples: error ~ sqrt(d / B) scale
    assert err.max() < 0.15, err
    np.testing.assert_allclose(on.eigenvalues[perm], batch.eigenvalues, atol=0.05)
    perm2, err2 = match_components(VTRUE.T, batch.eigenvectors.T, "l2")
    assert err2.max() < 0.1  # the batch answer is itself near the planted vectors
    np.testing.assert_allclose(batch.eigenvalues[perm2], W, atol=0.03)


def peak(n):
    tracemalloc.start()
    try:
        run_online(n)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_peak_memory_independent_of_stream_length():
    run_online(10_000)  # warm-up (imports, caches)
    small, large = peak(10_000), peak(100_000)  # 10^6 in benchmarks/bench_spectral.py
    assert abs(large - small) / small < 0.10, (small, large)


def test_sources_array_npy_text_agree(tmp_path):
    X = np.concatenate(list(stream(4800)))
    a = online_tensor_power(X, 2, n_restarts=5, n_iter=7, chunk_size=333, random_state=3)
    np.save(tmp_path / "x.npy", X)
    b = online_tensor_power(tmp_path / "x.npy", 2, n_restarts=5, n_iter=7, chunk_size=100,
                            random_state=3)
    np.savetxt(tmp_path / "x.txt", X)
    c = online_tensor_power(str(tmp_path / "x.txt"), 2, n_restarts=5, n_iter=7,
                            batch_size=4800 // 16, chunk_size=250, random_state=3)
    np.testing.assert_allclose(a.eigenvectors, b.eigenvectors, atol=1e-12)
    np.testing.assert_allclose(a.eigenvectors, c.eigenvectors, atol=1e-8)


def test_online_bad_input():
    with pytest.raises(ValueError, match="stream ended after"):
        online_tensor_power(stream(1000), 2, n_iter=5, batch_size=200)
    with pytest.raises(ValueError, match="batch_size is required"):
        online_tensor_power(stream(1000), 2)
    bad = np.ones((100, 3))
    bad[5, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        online_tensor_power(bad, 1, n_iter=2)
    with pytest.raises(ValueError, match="exceeds the dimension"):
        online_tensor_power(np.ones((100, 3)), 4, n_iter=2)
    with pytest.raises(TypeError, match="source"):
        online_tensor_power(3.0, 1)
