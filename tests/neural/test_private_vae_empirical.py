"""Empirical privacy of the DP-SGD release of PrivateVAE (issue 30 item 4).

The release of one step is the noisy clipped gradient sum of a Poisson sample
(``_noisy_clipped_sum``, the code the fit runs; ``test_private_vae`` checks the fit against the
same loop written out). A tiny data set b (three rows) and its neighbour a (b plus one row:
"one example added or removed"), the model's parameters and every row's reparameterisation draw
fixed. The release is reduced to one statistic chosen in advance, its projection on the added
row's clipped gradient over the noise scale, and every threshold event gives a Clopper-Pearson
lower bound on epsilon (:func:`latentkit.testing.empirical_epsilon_lower_bound`). That bound must
stay below the accountant's claim for the step, and an under-noised variant (half the noise)
must be caught.

The release code is checked draw for draw against ``clipped sum + Z C * normals`` (the noise
generator seeded here; the fit draws it from OS entropy); the statistic is then drawn 200,000
times per data set, vectorised, ``mask @ (G u) / sigma + N(0, 1)`` with ``G`` the exact clipped
per-example gradients, ``mask`` the Poisson sample and ``u`` the unit direction of the added row.
"""

import numpy as np

import latentkit.neural._private as priv
from latentkit.neural import VAE
from latentkit.neural._network import _VAEData
from latentkit.neural._per_example import per_example_gradients
from latentkit.spectral._accounting import analytic_gaussian_epsilon
from latentkit.testing import empirical_epsilon_lower_bound
from test_private_vae import needs_accountant

DELTA, C, Z = 1e-5, 1.0, 2.0


def _setup():
    rng = np.random.default_rng(4)
    Xa = (rng.random((4, 5)) < 0.5).astype(float)
    m = VAE(latent_dim=1, hidden_layer_sizes=(3,), random_state=0)
    m._check_common_params()
    m._validate_params()
    m._check_X(Xa, reset=True)
    m._init_params(_VAEData(Xa), np.random.default_rng(0))
    m.params_ = m.params_ + 0.5 * rng.normal(size=m.params_.shape)
    data_a = m._with_noise(Xa, rng)  # every row's draw, fixed
    G = per_example_gradients(m._objective, m.params_, data_a)
    norms = np.linalg.norm(G, axis=1)
    Gc = G * np.minimum(1.0, C / norms)[:, None]
    u = Gc[3] / np.linalg.norm(Gc[3])
    return m, data_a, Gc, u, norms


def _check_release_code(m, data, Gc, q, seed):
    """The fit's release code, draw for draw: the clipped sum of the Poisson sample's rows
    (``Gc``, computed here from the per-example gradients) plus ``Z C`` times the noise
    generator's normals, the sample drawn as in the fit."""
    rng, noise, again = (np.random.default_rng(seed), np.random.default_rng(seed + 1),
                         np.random.default_rng(seed + 1))
    N = data.X.shape[0]
    for _ in range(20):
        rows = np.flatnonzero(rng.random(N) < q)
        r, _ = priv._noisy_clipped_sum(m._objective, m.params_, data[rows], C, Z * C, noise)
        expect = Gc[rows].sum(axis=0) + Z * C * again.standard_normal(Gc.shape[1])
        np.testing.assert_allclose(r, expect, rtol=1e-12, atol=1e-12)


def _bulk(proj, q, n, seed):
    rng = np.random.default_rng(seed)
    mask = rng.random((n, proj.size)) < q
    return mask @ proj + rng.standard_normal(n)


def _claim(q):
    if q == 1.0:  # no subsampling: the exact epsilon of one Gaussian release (below any claim)
        return analytic_gaussian_epsilon(1.0 / Z, DELTA)
    return priv._spent(1, q, Z, DELTA, "rdp_improved")


def _audit(q):
    m, data_a, Gc, u, norms = _setup()
    assert np.all(norms > C)  # every row is clipped: the added row moves the sum by exactly C
    data_b = data_a[:3]
    n = 200_000
    proj = Gc @ u / (Z * C)
    ta, tb = _bulk(proj, q, n, 1), _bulk(proj[:3], q, n, 2)
    # the release code is what the bulk draws model, on both data sets
    _check_release_code(m, data_a, Gc, q, 3)
    _check_release_code(m, data_b, Gc[:3], q, 4)
    claim = _claim(q)
    eps_hat = empirical_epsilon_lower_bound(ta, tb, DELTA)
    assert eps_hat <= claim
    assert eps_hat > 0.25 * claim  # the audit has power
    # half the noise: spends more than claimed, and is caught
    proj2 = Gc @ u / (Z / 2 * C)
    ta, tb = _bulk(proj2, q, n, 5), _bulk(proj2[:3], q, n, 6)
    assert empirical_epsilon_lower_bound(ta, tb, DELTA) > claim


def test_full_batch_step_audit():
    _audit(1.0)


@needs_accountant
def test_poisson_sampled_step_audit():
    _audit(0.5)
