"""Issue 42, item 2: the Gaussian HMM spectral start for every covariance type ('diag',
'spherical', 'full', 'tied'): exact on population moments, differentiable there (so its
errors follow the moments' n^-1/2), and an n^-1/2 rate on sampled chains."""

import itertools

import numpy as np
import pytest

from latentkit.sequence import spectral_init_gaussian_hmm
from latentkit.sequence._spectral_start import _gaussian_args
from latentkit.spectral._multiview import cross_products, views_estimate

TYPES = ("diag", "spherical", "full", "tied")


def _chain(K, D, seed):
    """A planted chain: start law, sticky transitions, means, full covariances (eigenvalues
    >= 0.09, above the start's variance floor)."""
    rng = np.random.default_rng(seed)
    pi = rng.dirichlet(np.ones(K) * 3)
    A = rng.dirichlet(np.ones(K), size=K) + np.eye(K)
    A /= A.sum(1, keepdims=True)
    mu = rng.normal(size=(K, D)) * 1.5
    L = rng.normal(size=(K, D, D)) * 0.3 + np.eye(D) * 0.5
    C = L @ L.transpose(0, 2, 1) + 0.05 * np.eye(D)
    return pi, A, mu, C


def _covariances(C, w, ct):
    """The states' covariances of type ``ct`` from full ones, and the true ``covars``."""
    var = np.diagonal(C, axis1=1, axis2=2)
    if ct == "diag":
        return np.stack([np.diag(v) for v in var]), var
    if ct == "spherical":
        return np.stack([np.eye(C.shape[1]) * v.mean() for v in var]), var.mean(1)
    if ct == "tied":
        tied = np.einsum("k,kij->ij", w, C)
        return np.broadcast_to(tied, C.shape), tied
    return C, C


def _population_rows(pi, A, mu, C):
    """Every state path of a window, its probability, and each view's row: the conditional
    mean of the features (1, z, z^2, z_i z_j for i < j) given its state (closed forms of the
    normal law; the estimator's feature map for K <= 1 + 2 D)."""
    K, D = mu.shape
    i, j = np.triu_indices(D, 1)
    m = np.array([np.r_[1.0, mu[k], mu[k] ** 2 + np.diag(C[k]),
                        mu[k, i] * mu[k, j] + C[k][i, j]] for k in range(K)])
    paths = np.array(list(itertools.product(range(K), repeat=3)))
    weights = pi[paths[:, 0]] * A[paths[:, 0], paths[:, 1]] * A[paths[:, 1], paths[:, 2]]
    return [m[paths[:, v]] for v in range(3)], weights


def _match(means, mu):
    return [int(np.argmin(np.abs(means - m).sum(1))) for m in mu]


@pytest.mark.parametrize("ct", TYPES)
@pytest.mark.parametrize("K, D", [(3, 2), (2, 3), (3, 3)])
def test_start_exact_on_population_moments(ct, K, D):
    pi, A, mu, Cfull = _chain(K, D, seed=K + 10 * D)
    w = pi @ A  # the law of the middle state
    C, truth = _covariances(Cfull, w, ct)
    rows, weights = _population_rows(pi, A, mu, C)
    cross = ct in ("full", "tied")
    F = 1 + 2 * D
    rows = rows if cross else [r[:, :F] for r in rows]
    est = views_estimate(*rows, K, D, np.random.default_rng(0), weights=weights, cross=cross)
    # the start's own map from the moments to the parameters (floor, eigenvalue clip, tied
    # average), in standardised units (loc 0, scale 1); 3e4 windows put the variance floor
    # at 0.0058, below every planted variance (>= 0.05)
    X0 = np.random.default_rng(0).normal(size=(30_000, D))
    build = _gaussian_args(X0, None, K, ct, 0, 1e-2)[-1]
    out = build(*est, np.zeros(D), np.ones(D))
    perm = _match(out["means"], mu)
    # 1e-12: exact algebra on O(1) numbers, what is left is rounding
    np.testing.assert_allclose(out["means"][perm], mu, atol=1e-12)
    covars = out["covars"] if ct == "tied" else out["covars"][perm]
    np.testing.assert_allclose(covars, truth, atol=1e-12)
    np.testing.assert_allclose(est[3][np.ix_(perm, perm)], A, atol=1e-12)


def test_cross_products_order():
    Z = np.arange(6.0).reshape(2, 3)  # rows (0, 1, 2), (3, 4, 5)
    np.testing.assert_array_equal(cross_products(Z), [[0.0, 0.0, 2.0], [12.0, 15.0, 20.0]])


@pytest.mark.parametrize("cross", [False, True])
def test_estimator_is_differentiable_at_the_population_moments(cross):
    # moments moved by delta: error / delta constant as delta -> 0. A clip, a floor or a
    # fixed-iteration step that does not shrink with the moments' error would leave an
    # error that does not fall with delta (error / delta growing); sampled moments have
    # errors of order n^-1/2, so then the estimates' errors fall as n^-1/2 too
    K, D = 3, 2
    pi, A, mu, C = _chain(K, D, seed=5)
    rows, weights = _population_rows(pi, A, mu, C)
    rows = rows if cross else [r[:, :1 + 2 * D] for r in rows]
    g = np.random.default_rng(1)
    direction = [g.standard_normal(r.shape) * (np.arange(r.shape[1]) > 0) for r in rows]
    ratios = []
    for delta in (1e-4, 1e-6):
        moved = [r + delta * d for r, d in zip(rows, direction)]
        mz, sq, _, _ = views_estimate(*moved, K, D, np.random.default_rng(0),
                                      weights=weights, cross=cross)
        perm = _match(mz, mu)
        cov = sq - mz[:, :, None] * mz[:, None, :] if cross else sq - mz ** 2
        tcov = C if cross else np.diagonal(C, axis1=1, axis2=2)
        ratios.append([np.abs(mz[perm] - mu).max() / delta,
                       np.abs(cov[perm] - tcov).max() / delta])
    ratios = np.array(ratios)
    assert np.all(ratios[0] > 0.1), ratios  # the direction moves the estimate
    # linear response: the two ratios agree to O(delta) (1e-4 relative, 2 % allowed)
    np.testing.assert_allclose(ratios[1], ratios[0], rtol=0.02)


def _triples(pi, A, n, rng):
    """States of n independent windows of three steps, the first from ``pi``."""
    cdf = np.cumsum(A, axis=1)
    z0 = rng.choice(pi.size, size=n, p=pi)
    z1 = (rng.random(n)[:, None] > cdf[z0]).sum(1)
    z2 = (rng.random(n)[:, None] > cdf[z1]).sum(1)
    return np.minimum(np.stack([z0, z1, z2], axis=1).ravel(), pi.size - 1)


def _sampled_errors(ct, n, seeds):
    """Mean absolute error of the means and the covariances (every entry) of the start on n
    independent triples of a well-separated 3-state chain, averaged over ``seeds``."""
    pi = np.array([0.4, 0.35, 0.25])
    A = np.array([[0.8, 0.1, 0.1], [0.15, 0.7, 0.15], [0.1, 0.2, 0.7]])
    mu = np.array([[0.0, 0.0], [3.0, 0.0], [0.0, 3.0]])
    Cfull = np.array([[[1.0, 0.3], [0.3, 0.5]], [[0.4, -0.1], [-0.1, 0.8]],
                      [[0.6, 0.0], [0.0, 0.6]]])
    C, truth = _covariances(Cfull, pi @ A, ct)
    chol = np.linalg.cholesky(C)
    out = []
    for s in seeds:
        rng = np.random.default_rng(s)
        z = _triples(pi, A, n, rng)
        X = mu[z] + np.einsum("nij,nj->ni", chol[z], rng.standard_normal((z.size, 2)))
        est = spectral_init_gaussian_hmm(X, [3] * n, 3, ct, random_state=s)
        perm = _match(est["means"], mu)
        cov = est["covars"] if ct == "tied" else est["covars"][perm]
        out.append((np.abs(est["means"][perm] - mu).mean(), np.abs(cov - truth).mean()))
    return np.mean(out, axis=0)


@pytest.mark.slow  # about 6 s of one core per covariance type: 4 seeds x 6.8e4 triples
@pytest.mark.parametrize("ct", TYPES)
def test_errors_fall_as_n_to_the_minus_half(ct):
    # n^-1/2 predicts a ratio 0.25 from 4e3 to 6.4e4 triples; a step that stays as n grows
    # (a fixed floor, a clip) gives a ratio that levels off towards 1. 0.5 leaves room for
    # the noise of a mean over 4 seeds: measured 0.18-0.36 (these seeds) and 0.19-0.23
    # (seeds 4-7) over the four types; 0.20-0.38 from 1e4 to 1.6e5 over three seed sets
    small = _sampled_errors(ct, 4_000, range(4))
    large = _sampled_errors(ct, 64_000, range(4))
    assert np.all(large < 0.5 * small), (ct, large / small)


def test_perturbed_full_and_tied_covariances_stay_positive_definite():
    from latentkit.sequence._spectral_start import perturb_start

    C = np.array([[[1.0, 0.8], [0.8, 1.0]], [[2.0, -0.5], [-0.5, 0.5]]])
    means = np.zeros((2, 2))
    for ct, cov in (("full", C), ("tied", C[0])):
        out = perturb_start({"means": means, "covars": cov}, np.random.default_rng(1), 1.0,
                            ct)
        new = out["covars"]
        assert new.shape == cov.shape
        np.testing.assert_array_equal(new, np.swapaxes(new, -1, -2))
        assert np.all(np.linalg.eigvalsh(new) > 0)
        # S C S with S diagonal: the correlations are kept, the variances move
        d_old = np.diagonal(cov, axis1=-2, axis2=-1)
        d_new = np.diagonal(new, axis1=-2, axis2=-1)
        corr = new / np.sqrt(d_new[..., :, None] * d_new[..., None, :])
        np.testing.assert_allclose(corr, cov / np.sqrt(d_old[..., :, None] * d_old[..., None, :]),
                                   atol=1e-12)
        assert not np.allclose(d_new, d_old)
        assert out["means"].shape == means.shape and not np.allclose(out["means"], means)
    # the variances of 'diag' as before: the same draws without a covariance type
    var = np.array([[1.0, 2.0], [0.5, 0.25]])
    a = perturb_start({"means": means, "covars": var}, np.random.default_rng(2), 1.0)
    z = np.random.default_rng(2).standard_normal((2, 2))
    np.testing.assert_allclose(a["covars"], var * np.exp(z), rtol=1e-12)


@pytest.mark.slow  # 2-6 s: two fits of n_init=2, each running both starts to the end
@pytest.mark.parametrize("ct", ["full", "tied"])
def test_gaussian_hmm_spectral_start_of_full_and_tied_keeps_its_promise(ct):
    # planted 3-state chain; init='spectral' (both starts fitted to the end, the better
    # kept) ends at or above init='kmeans++' (whose fit is its default run, same generator)
    rng = np.random.default_rng(3)
    A = np.array([[0.9, 0.05, 0.05], [0.05, 0.9, 0.05], [0.05, 0.05, 0.9]])
    z = sample_states(A, 3000, rng)
    mu = np.array([[0.0, 0.0], [3.0, 0.0], [0.0, 3.0]])
    X = mu[z] + rng.standard_normal((z.size, 2)) @ np.array([[0.7, 0.3], [0.0, 0.6]])
    from latentkit.sequence import GaussianHMM

    spec = GaussianHMM(3, ct, init="spectral", random_state=0, n_init=2).fit(X)
    km = GaussianHMM(3, ct, init="kmeans++", random_state=0, n_init=2).fit(X)
    assert spec.covariances_.shape == ((3, 2, 2) if ct == "full" else (2, 2))
    assert spec.spectral_report_["default_init"] == "kmeans++"
    assert spec.lower_bound_ >= km.lower_bound_ - 1e-9, (spec.spectral_report_,
                                                         km.lower_bound_)


def sample_states(A, n, rng):
    """A state path of length n from the stationary start of ``A`` (rows sum to 1)."""
    cdf = np.cumsum(A, axis=1)
    z = np.empty(n, dtype=np.int64)
    z[0] = 0
    u = rng.random(n)
    for t in range(1, n):
        z[t] = min(int((u[t] > cdf[z[t - 1]]).sum()), A.shape[0] - 1)
    return z
