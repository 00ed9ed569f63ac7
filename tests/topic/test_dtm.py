"""The dynamic topic model: the chain computations against dense oracles, the bound, planted
recovery, the time slices and the save/load path."""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import minimize
from scipy.special import logsumexp

import latentkit as lk
from latentkit.exceptions import InputError
from latentkit.testing import match_components
from latentkit.testing._oracles_dtm import (dense_chain_kl, dense_chain_posterior,
                                            dense_newton_direction)
from latentkit.topic import DynamicTopicModel
from latentkit.topic._dtm_chain import (_objective, apply_precision, chain_kl_constant,
                                        chain_precision, chain_variances, newton_direction,
                                        newton_means, pseudo_observations, smooth_means)

pytestmark = pytest.mark.filterwarnings("ignore::latentkit.ConvergenceWarning")


@pytest.mark.parametrize("T,s2,nu,v0", [(1, 0.3, 0.5, 2.0), (2, 0.01, 0.5, 5.0),
                                        (7, 0.3, 0.2, 2.0), (12, 0.005, 0.5, 5.0)])
def test_smoother_equals_dense_conditioning(T, s2, nu, v0):
    """Kalman filter + RTS smoother == the joint Gaussian of (beta, beta_hat) conditioned
    densely: means, variances, lag-one covariances; the closed-form KL == the dense KL; the
    pseudo-observations recovered from the means exactly."""
    rng = np.random.default_rng(T)
    obs = rng.normal(size=(T, 5))
    var = chain_variances(T, s2, nu, v0)
    mean = smooth_means(obs, var, nu)
    d_mean, d_cov = dense_chain_posterior(obs, s2, nu, v0)
    np.testing.assert_allclose(mean, d_mean, rtol=0, atol=1e-10)
    np.testing.assert_allclose(var.smoothed, np.diag(d_cov), rtol=1e-10)
    np.testing.assert_allclose(var.lag_one, np.diag(d_cov, 1), rtol=1e-10, atol=1e-14)
    qd, qo = chain_precision(T, s2, v0)
    np.testing.assert_allclose(pseudo_observations(mean, qd, qo, nu), obs, rtol=0, atol=1e-10)
    const = chain_kl_constant(var, s2, v0)
    for w in range(obs.shape[1]):
        ours = const - 0.5 * mean[:, w] @ apply_precision(mean[:, [w]], qd, qo)[:, 0]
        np.testing.assert_allclose(ours, -dense_chain_kl(mean[:, w], d_cov, s2, v0),
                                   rtol=1e-10)


@pytest.mark.parametrize("T", [1, 3, 8])
def test_newton_direction_equals_dense_solve(T):
    """The Woodbury/tridiagonal kernel == the (T V) x (T V) Hessian solved densely."""
    rng = np.random.default_rng(T)
    V, s2, v0 = 9, 0.05, 5.0
    counts = rng.poisson(2.0, size=(T, V)).astype(float)
    counts[0, :3] = 0.0
    m = rng.normal(size=(T, V))
    qd, qo = chain_precision(T, s2, v0)
    g, d = newton_direction(m, counts, counts.sum(axis=1), qd, qo)
    g2, d2 = dense_newton_direction(m, counts, s2, v0)
    f, lse = _objective(m, counts, counts.sum(axis=1), qd, qo)
    Q = np.linalg.inv(v0 + s2 * np.minimum.outer(np.arange(T), np.arange(T)))
    dense_f = np.sum(counts * m) - counts.sum(axis=1) @ logsumexp(m, axis=1) \
        - 0.5 * np.trace(m.T @ Q @ m)
    np.testing.assert_allclose(f, dense_f, rtol=1e-12)
    np.testing.assert_allclose(lse, logsumexp(m, axis=1), rtol=1e-13)
    np.testing.assert_allclose(g, g2, rtol=0, atol=1e-10)
    np.testing.assert_allclose(d, d2, rtol=1e-10, atol=1e-10)


def test_newton_m_step_equals_lbfgs_on_the_pseudo_observations():
    """The M-step optimum (Newton over the smoothed means) == L-BFGS over the
    pseudo-observations on the bound (the paper's parametrisation), through the smoother."""
    rng = np.random.default_rng(1)
    T, V, s2, nu, v0 = 4, 8, 0.05, 0.5, 5.0
    counts = rng.poisson(3.0, size=(T, V)).astype(float)
    var = chain_variances(T, s2, nu, v0)
    qd, qo = chain_precision(T, s2, v0)
    n_t = counts.sum(axis=1)

    def neg_bound(b):
        m = smooth_means(b.reshape(T, V), var, nu)
        f = np.sum(counts * m) - n_t @ logsumexp(m, axis=1) \
            - 0.5 * np.sum(m * apply_precision(m, qd, qo))
        g = counts - n_t[:, None] * np.exp(m - logsumexp(m, axis=1, keepdims=True)) \
            - apply_precision(m, qd, qo)
        return -f, -smooth_means(g, var, nu).ravel()  # the smoother is symmetric and linear

    res = minimize(neg_bound, np.zeros(T * V), jac=True, method="L-BFGS-B",
                   options={"gtol": 1e-12, "ftol": 1e-15, "maxiter": 5000})
    ours = newton_means(counts, np.zeros((T, V)), qd, qo, tol=1e-14)
    theirs = smooth_means(res.x.reshape(T, V), var, nu)
    np.testing.assert_allclose(-neg_bound(pseudo_observations(ours, qd, qo, nu).ravel())[0],
                               -res.fun, rtol=1e-9)
    assert -neg_bound(pseudo_observations(ours, qd, qo, nu).ravel())[0] >= -res.fun - 1e-9
    # the objective is flat along (1, ..., 1) per slice only through the prior: still strictly
    # concave, so the optimum is unique
    np.testing.assert_allclose(ours, theirs, atol=1e-4)


def _planted(T=5, K=3, V=40, docs=150, length=80, s2=0.02, seed=0):
    """A corpus drawn from a DTM: beta_1 sparse-ish, then a Gaussian random walk per word."""
    rng = np.random.default_rng(seed)
    beta = np.empty((T, K, V))
    beta[0] = 3.0 * np.log(rng.dirichlet(np.full(V, 0.5), size=K) + 1e-3)
    for t in range(1, T):
        beta[t] = beta[t - 1] + rng.normal(scale=np.sqrt(s2) * 5, size=(K, V))
    topics = np.exp(beta - logsumexp(beta, axis=2, keepdims=True))
    rows, times = [], []
    for t in range(T):
        theta = rng.dirichlet(np.full(K, 0.3), size=docs)
        rows.append(np.vstack([rng.multinomial(length, th @ topics[t]) for th in theta]))
        times += [2000 + t] * docs
    return sp.csr_matrix(np.vstack(rows).astype(float)), np.array(times), topics


def test_planted_drifting_topics_are_recovered():
    X, times, topics = _planted()
    m = DynamicTopicModel(3, chain_variance=0.05, random_state=0, max_iter=30).fit(X,
                                                                                   times=times)
    est = m.topic_word_distributions()
    errs = []
    for t in range(topics.shape[0]):
        _, e = match_components(topics[t], est[t])
        errs.append(e.max())
    # measured 0.05-0.06 per slice; the mean L1 between two true topics is 1.2, and a static
    # LDA's topics are 0.42-0.88 from the truth
    assert max(errs) < 0.1, errs
    # the drift is seen: the fitted topics of the first and last slices differ as the truth
    _, e_true = match_components(topics[0], topics[-1])
    _, e_fit = match_components(est[0], est[-1])
    assert np.all(np.sort(e_fit) > 0.5 * np.sort(e_true))
    # a static LDA on all slices cannot follow the drift: the DTM is better on every slice
    lda = lk.LatentDirichletAllocation(3, random_state=0).fit(X)
    static = lda.components_ / lda.components_.sum(axis=1, keepdims=True)
    lda_errs = [match_components(topics[t], static)[1].max() for t in range(topics.shape[0])]
    assert np.mean(errs) < np.mean(lda_errs)


def test_bound_never_decreases_and_is_the_stated_bound():
    X, times, _ = _planted(T=4, docs=60, seed=3)
    m = DynamicTopicModel(4, init="random", random_state=2, max_iter=40, tol=0.0).fit(
        X, times=times)
    lb = m.lower_bounds_
    assert np.all(np.diff(lb) >= -1e-9 * np.abs(lb[:-1])), np.diff(lb).min()
    # the stated bound at the fitted parameters: local terms + chains' -KL, per document
    total = m.score_samples(X, times).sum() + m._global_elbo_terms()
    np.testing.assert_allclose(m.elbo(X, times=times), total / X.shape[0], rtol=1e-12)
    # the global term by the dense oracle, chain by chain
    T = m.time_slices_.size
    _, cov = dense_chain_posterior(np.zeros((T, 1)), m.chain_variance, m.obs_variance,
                                   m.initial_variance_)
    mu = m.topic_means_.reshape(T, -1)
    dense = -sum(dense_chain_kl(mu[:, j], cov, m.chain_variance, m.initial_variance_)
                 for j in range(mu.shape[1]))
    np.testing.assert_allclose(m._global_elbo_terms(), dense, rtol=1e-9)
    # the means are what the Kalman smoother gives from the pseudo-observations
    var = chain_variances(T, m.chain_variance, m.obs_variance, m.initial_variance_)
    np.testing.assert_allclose(smooth_means(m.pseudo_observations_, var, m.obs_variance),
                               m.topic_means_, rtol=0, atol=1e-9)


def test_one_slice_local_terms_equal_lda_e_step():
    """With one slice the E-step is LDA's kernel with topics exp(m - lse - V/2)."""
    X, _, _ = _planted(T=1, docs=50, seed=4)
    times = np.zeros(X.shape[0])
    m = DynamicTopicModel(3, init="random", random_state=0, max_iter=3).fit(X, times=times)
    logp = m.topic_means_[0] - logsumexp(m.topic_means_[0], axis=1, keepdims=True)
    # Dirichlet parameters whose E[log beta] is logp - V/2 would need psi inverses; compare
    # through the documents' bounds instead: a kernel call with the same tables
    from latentkit.topic._lda_estep import _run_local
    elog = logp - 0.5 * m.topic_variances_[0]
    shift = elog.max(axis=0)
    g, _, _, de, _ = _run_local(X, np.ascontiguousarray(np.exp(elog - shift).T), shift,
                                m.doc_topic_prior_, 100, 1e-3)
    np.testing.assert_allclose(m.score_samples(X, times), de, rtol=1e-12)
    np.testing.assert_allclose(m.transform(X, times), g / g.sum(axis=1, keepdims=True),
                               rtol=1e-12)


def test_times_labels_and_errors():
    X, times, _ = _planted(T=3, docs=20, seed=5)
    labels = np.array(["a", "b", "c"])[times - 2000]
    m = DynamicTopicModel(2, init="random", random_state=0, max_iter=3).fit(X, times=labels)
    assert m.time_slices_.tolist() == ["a", "b", "c"]
    assert m.perplexity(X, labels, per_slice=True).shape == (3,)
    assert np.allclose(m.topic_prevalence(X, labels).sum(axis=1), 1.0)
    # without times, transform puts every document at the last slice
    np.testing.assert_array_equal(m.transform(X), m.transform(X, times=np.full(60, "c")))
    with pytest.raises(InputError, match="times"):
        DynamicTopicModel(2).fit(X)
    with pytest.raises(InputError, match="one entry per document"):
        DynamicTopicModel(2).fit(X, times=labels[:-1])
    with pytest.raises(InputError, match="not a fitted time slice"):
        m.transform(X, times=np.full(60, "z"))
    with pytest.raises(InputError, match="chain_variance"):
        DynamicTopicModel(2, chain_variance=0.0).fit(X, times=labels)
    # the slices sort: shuffling the documents gives the same model
    perm = np.random.default_rng(0).permutation(X.shape[0])
    m2 = DynamicTopicModel(2, init="random", random_state=0, max_iter=3).fit(
        X[perm], times=labels[perm])
    np.testing.assert_allclose(m2.topic_means_, m.topic_means_, rtol=1e-9, atol=1e-9)


def test_save_load_round_trip(tmp_path):
    X, times, _ = _planted(T=3, docs=20, seed=6)
    m = DynamicTopicModel(2, init="random", random_state=0, max_iter=4).fit(X, times=times)
    path = tmp_path / "dtm.npz"
    lk.save(m, path)
    back = lk.load(path)
    np.testing.assert_array_equal(back.topic_means_, m.topic_means_)
    assert back.elbo(X, times=times) == m.elbo(X, times=times)
    back.topic_means_ = back.topic_means_[:, :1]
    with pytest.raises(ValueError, match="topic_means_"):
        back._check_state()


def _start_bounds(seed, inits=("lda", "spectral", "random")):
    """Final bounds (nats per document) of fits from each start on a small planted corpus,
    run to tol=1e-3 (the same optimum is then the same bound to about 0.02)."""
    X, times, _ = _planted(docs=60, seed=seed)
    return {init: DynamicTopicModel(3, chain_variance=0.05, init=init, random_state=0,
                                    max_iter=200, tol=1e-3).fit(X, times=times).lower_bound_
            for init in inits}


def test_spectral_start_reaches_the_lda_start_optimum():
    """init='spectral' (SpectralLDA's topics at every slice, no iterations) ends at the bound
    of the default start (a static LDA fit on all the slices, the paper's), where a random
    start stays 3.4 nats per document below (seed 2; measured: lda -143.426, spectral
    -143.442, random -146.811). Fails on main (init='spectral' refused)."""
    b = _start_bounds(2)
    # 0.05: above the two starts' measured gap (0.016), far below the gap to the other
    # optimum (3.4)
    assert b["spectral"] >= b["lda"] - 0.05, b
    assert b["random"] < b["lda"] - 1.0, b  # the corpus has a worse optimum


@pytest.mark.parametrize("seed", [0, 1, 3])
def test_spectral_start_is_not_below_the_default_start(seed):
    # measured gaps lda - spectral: 0.010, -0.012, 0.003 nats per document (seeds 0, 1, 3)
    b = _start_bounds(seed, ("lda", "spectral"))
    assert b["spectral"] >= b["lda"] - 0.05, b


def test_spectral_start_on_degenerate_moments_warns_and_starts_at_random():
    """Documents of fewer than 3 tokens have no third moment: the spectral start warns
    (SpectralInitWarning, as LDA's) and starts from the random topics."""
    X = sp.csr_matrix(np.eye(12)[np.arange(24) % 12] * 2.0)
    times = np.arange(24) % 2
    with pytest.warns(lk.exceptions.SpectralInitWarning):
        m = DynamicTopicModel(2, init="spectral", random_state=0, max_iter=3).fit(X, times=times)
    assert np.all(np.isfinite(m.topic_means_))
    with pytest.raises(InputError, match="init"):
        DynamicTopicModel(2, init="spektral").fit(X, times=times)
