"""Analytic gradients of the VAE objective against central finite differences (float64).

Every parameter array (each weight matrix and bias of encoder and decoder, the decoder's
log-standard-deviations of the Bayesian decoder, the Gaussian observation log-variance) is
checked, for each likelihood and each activation, with the reparameterisation noise held fixed
so that the Monte-Carlo objective is a deterministic function of the parameters.
"""

import numpy as np
import pytest

from latentkit.neural import VAE
from latentkit.neural import _mlp
from latentkit.neural._optim import Adam
from latentkit.neural._vae import _VAEData

H = 1e-6
RTOL = 1e-6


def _data(likelihood, rng, n=4, d=6):
    if likelihood == "bernoulli":
        return (rng.random((n, d)) < 0.4).astype(float)
    if likelihood == "gaussian":
        return rng.normal(size=(n, d))
    X = np.zeros((n, d))  # two one-hot groups of sizes 2 and 4
    X[np.arange(n), rng.integers(0, 2, n)] = 1.0
    X[np.arange(n), 2 + rng.integers(0, 4, n)] = 1.0
    return X


def _setup(likelihood, activation, bayesian=False, obs="diagonal", seed=0, S=2):
    rng = np.random.default_rng(seed)
    X = _data(likelihood, rng)
    kw = dict(n_categories=[2, 4]) if likelihood == "categorical" else {}
    m = VAE(latent_dim=2, hidden_layer_sizes=(5, 3), activation=activation,
            likelihood=likelihood, observation_variance=obs, n_mc_samples=S,
            bayesian_decoder=bayesian, decoder_prior_std=0.7, random_state=seed, **kw)
    m._check_common_params()
    m._validate_params()
    m._check_X(X, reset=True)
    m._init_params(_VAEData(X), np.random.default_rng(seed))
    # move away from the symmetric start (zero biases, tiny sigmas) so every path is exercised
    m.params_ = m.params_ + 0.3 * rng.normal(size=m.params_.shape)
    data = m._with_noise(X, rng)
    return m, data


def _fd_check(m, data, beta=1.0, free_bits=0.0):
    theta0 = m.params_.copy()

    def f(theta):
        obj = m._objective(theta, data, beta=beta, free_bits=free_bits, need_grad=False)[2]
        return obj + m._objective.global_terms(theta)[0]

    _, _, _, g = m._objective(theta0, data, beta=beta, free_bits=free_bits)
    gg = m._objective.global_terms(theta0)[1]
    if gg is not None:
        g = g + gg
    fd = np.empty_like(theta0)
    for k in range(theta0.size):
        tp, tm = theta0.copy(), theta0.copy()
        tp[k] += H
        tm[k] -= H
        fd[k] = (f(tp) - f(tm)) / (2 * H)
    # compare per parameter array: every W and b of both networks, sigmas, obs variance
    lay = m._network.layout
    enc_sizes, dec_sizes = m._network.enc_sizes, m._network.dec_sizes
    blocks = []
    for name, sizes in (("enc", enc_sizes), ("dec", dec_sizes), ("dec_logsigma", dec_sizes)):
        if name not in lay:
            continue
        off = lay[name].start
        for i, ((wshape, bshape)) in enumerate(_mlp.layer_shapes(sizes)):
            nw = wshape[0] * wshape[1]
            blocks.append((f"{name}.W{i}", slice(off, off + nw)))
            blocks.append((f"{name}.b{i}", slice(off + nw, off + nw + bshape[0])))
            off += nw + bshape[0]
    if lay["obs"].stop > lay["obs"].start:
        blocks.append(("obs_logvar", lay["obs"]))
    covered = sum(b.stop - b.start for _, b in blocks)
    assert covered == theta0.size
    for name, b in blocks:
        num = np.linalg.norm(g[b] - fd[b])
        den = max(np.linalg.norm(g[b]), np.linalg.norm(fd[b]))
        assert den > 0, f"{name}: zero gradient, the check would be vacuous"
        assert num / den < RTOL, f"{name}: relative error {num / den:.2e}"
    # the parameters were not touched
    np.testing.assert_array_equal(m.params_, theta0)


@pytest.mark.parametrize("activation", ["relu", "tanh", "softplus"])
@pytest.mark.parametrize("likelihood", ["bernoulli", "gaussian", "categorical"])
def test_gradient_matches_finite_differences(likelihood, activation):
    m, data = _setup(likelihood, activation)
    _fd_check(m, data)


@pytest.mark.parametrize("likelihood", ["bernoulli", "gaussian", "categorical"])
def test_bayesian_decoder_gradient(likelihood):
    m, data = _setup(likelihood, "tanh", bayesian=True)
    _fd_check(m, data)


@pytest.mark.parametrize("obs", ["isotropic", 0.5])
def test_gaussian_variance_options_gradient(obs):
    m, data = _setup("gaussian", "softplus", obs=obs)
    _fd_check(m, data)


def test_kl_warmup_and_free_bits_gradient():
    m, data = _setup("bernoulli", "relu", S=3)
    _, kl, _, _ = m._objective(m.params_, data, need_grad=False)
    mean_kl = kl.mean(axis=0)
    # a floor between the two dimensions' KLs: one dimension is clamped, the other is not
    lam = float(mean_kl.mean())
    assert mean_kl.min() < lam < mean_kl.max()
    _fd_check(m, data, beta=0.3, free_bits=lam)


def test_mlp_backward_input_gradient():
    rng = np.random.default_rng(1)
    sizes = (4, 6, 3)
    flat = rng.normal(size=_mlp.n_parameters(sizes))
    X = rng.normal(size=(5, 4))
    C = rng.normal(size=(5, 3))
    for act in ("relu", "tanh", "softplus", "identity"):
        layers = _mlp.unpack(flat, sizes)
        out, cache = _mlp.forward(layers, X, act)
        g = np.zeros_like(flat)
        dX = _mlp.backward(layers, _mlp.unpack(g, sizes), cache, C, act, need_input_grad=True)
        fd = np.empty_like(X)
        for idx in np.ndindex(*X.shape):
            Xp, Xm = X.copy(), X.copy()
            Xp[idx] += H
            Xm[idx] -= H
            fd[idx] = ((_mlp.forward(layers, Xp, act)[0] * C).sum()
                       - (_mlp.forward(layers, Xm, act)[0] * C).sum()) / (2 * H)
        assert np.linalg.norm(dX - fd) / np.linalg.norm(fd) < RTOL, act


def test_adam_kernel_matches_algorithm_1_oracle():
    """The fused numba Adam kernel against Kingma & Ba (2015), Algorithm 1, written out."""
    from latentkit.testing import oracle_adam_step

    rng = np.random.default_rng(2)
    theta = rng.normal(size=1000)
    opt = Adam(1000, beta1=0.8, beta2=0.99, epsilon=1e-6)
    ref, m, v = theta.copy(), np.zeros(1000), np.zeros(1000)
    for t in range(1, 6):
        g = rng.normal(size=1000) * 10.0 ** rng.integers(-4, 3, size=1000)
        g_before = g.copy()
        opt.step(theta, g, 0.01)
        ref, m, v = oracle_adam_step(ref, g, m, v, t, 0.01, beta1=0.8, beta2=0.99, epsilon=1e-6)
        np.testing.assert_allclose(theta, ref, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(opt.m, m, rtol=1e-10, atol=1e-14)
        np.testing.assert_allclose(opt.v, v, rtol=1e-10, atol=1e-14)
        np.testing.assert_array_equal(g, g_before)
    with pytest.raises(ValueError, match="params must be"):
        opt.step(theta.astype(np.float32), g, 0.01)
    with pytest.raises(ValueError, match="grad must have shape"):
        opt.step(theta, g[:5], 0.01)
