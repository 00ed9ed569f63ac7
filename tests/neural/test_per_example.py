"""Per-example gradients of the VAE (DP-SGD's input, issue 30 item 3) against central finite
differences of each row's own objective, the weighted (clipped) gradient against a loop over the
examples, and weights of exactly one against today's summed gradient, bit for bit."""

import numpy as np
import pytest

from latentkit.neural._per_example import per_example_gradients, per_example_norms
from test_mlp_gradients import H, RTOL, _setup


def _row_objective(m, theta, data, i, beta):
    rec, kl, _, _ = m._objective(theta, data[i:i + 1], beta=beta, need_grad=False)
    return rec.mean() - beta * kl.sum()


@pytest.mark.parametrize("likelihood,activation,bayesian,S", [
    ("bernoulli", "relu", False, 2), ("gaussian", "tanh", False, 3),
    ("categorical", "softplus", False, 1), ("gaussian", "softplus", True, 2)])
def test_per_example_gradients_match_finite_differences(likelihood, activation, bayesian, S):
    m, data = _setup(likelihood, activation, bayesian=bayesian, S=S)
    theta0 = m.params_.copy()
    beta = 0.7
    G = per_example_gradients(m._objective, theta0, data, beta=beta)
    n = data.X.shape[0]
    assert G.shape == (n, theta0.size)
    for i in range(n):
        fd = np.empty_like(theta0)
        for k in range(theta0.size):
            tp, tm = theta0.copy(), theta0.copy()
            tp[k] += H
            tm[k] -= H
            fd[k] = (_row_objective(m, tp, data, i, beta) - _row_objective(m, tm, data, i, beta)) \
                / (2 * H)
        assert np.linalg.norm(fd) > 0
        assert np.linalg.norm(G[i] - fd) / np.linalg.norm(fd) < RTOL, i
    # the rows sum to the minibatch gradient; the rows differ (the check is not vacuous)
    g = m._objective(theta0, data, beta=beta)[3]
    np.testing.assert_allclose(G.sum(axis=0), g, rtol=1e-12, atol=1e-12)
    assert np.linalg.norm(G[0] - G[1]) > 1e-3
    np.testing.assert_allclose(per_example_norms(m._objective, theta0, data, beta), np.linalg.norm(G, axis=1),
                               rtol=1e-13)
    np.testing.assert_array_equal(m.params_, theta0)


def test_chunked_per_example_gradients_equal_one_chunk(monkeypatch):
    import latentkit.neural._per_example as pe
    m, data = _setup("gaussian", "relu")
    full = per_example_gradients(m._objective, m.params_, data)
    monkeypatch.setattr(pe, "_CHUNK_ENTRIES", 1)  # one row per chunk
    np.testing.assert_allclose(per_example_gradients(m._objective, m.params_, data), full, rtol=1e-13,
                               atol=1e-15)


@pytest.mark.parametrize("likelihood,bayesian", [("gaussian", False), ("bernoulli", True)])
def test_clipped_sum_equals_a_loop_over_examples(likelihood, bayesian):
    from latentkit.neural._private import clipped_gradient_sum
    m, data = _setup(likelihood, "tanh", bayesian=bayesian)
    theta = m.params_
    norms = np.array([np.linalg.norm(m._objective(theta, data[i:i + 1])[3])
                      for i in range(data.X.shape[0])])
    clip = float(np.median(norms))  # clips some rows and not others
    assert np.any(norms > clip) and np.any(norms < clip)
    loop = np.zeros_like(theta)
    for i in range(data.X.shape[0]):
        g = m._objective(theta, data[i:i + 1])[3]
        loop += g * min(1.0, clip / np.linalg.norm(g))
    total, got_norms = clipped_gradient_sum(m._objective, theta, data, clip)
    np.testing.assert_allclose(got_norms, norms, rtol=1e-12)
    np.testing.assert_allclose(total, loop, rtol=1e-11, atol=1e-12)


def test_unit_weights_give_todays_gradient_bit_for_bit():
    m, data = _setup("gaussian", "relu", S=2)
    a = m._objective(m.params_, data, beta=0.5)[3]
    b = m._objective(m.params_, data, beta=0.5, row_weights=np.ones(data.X.shape[0]))[3]
    np.testing.assert_array_equal(a, b)


def test_per_example_refuses_free_bits():
    m, data = _setup("bernoulli", "relu")
    with pytest.raises(ValueError, match="free_bits"):
        m._objective(m.params_, data, free_bits=0.1, per_example=True)
