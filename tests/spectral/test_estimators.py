"""Moments, whitening and the method-of-moments estimators on planted data."""

import numpy as np
import pytest
import scipy.sparse as sp

from latentkit.datasets import make_lda_corpus
from latentkit.spectral import (LDAMoments, SpectralGMM, SpectralHMM, SpectralLDA, project_simplex,
                                whiten)
from latentkit.testing import match_components


def test_lda_moments_exact_identities():
    # M2 product == dense formula from per-document brute force
    rng = np.random.default_rng(0)
    X = sp.csr_matrix(rng.integers(0, 3, (30, 7)).astype(float))
    mom = LDAMoments(X, alpha0=0.7)
    C = X.toarray()
    ell = C.sum(1)
    keep = ell >= 3
    C, ell = C[keep], ell[keep]
    M1 = (C / ell[:, None]).mean(0)
    E2 = np.mean([(np.outer(c, c) - np.diag(c)) / (l * (l - 1)) for c, l in zip(C, ell)], axis=0)
    M2 = E2 - 0.7 / 1.7 * np.outer(M1, M1)
    np.testing.assert_allclose(mom.M1, M1, rtol=1e-12)
    np.testing.assert_allclose(mom.m2_matmat(np.eye(7)), M2, rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(mom.m2_dense(), M2, rtol=1e-10, atol=1e-14)


def test_whiten_randomized_matches_eigh_and_rank_errors():
    rng = np.random.default_rng(1)
    A = rng.standard_normal((60, 4))
    M2 = A @ np.diag([4.0, 3.0, 2.0, 1.0]) @ A.T
    w1 = whiten(M2, 4, method="eigh")
    w2 = whiten(M2, 4, method="randomized", random_state=0)
    for w in (w1, w2):
        np.testing.assert_allclose(w.W.T @ M2 @ w.W, np.eye(4), atol=1e-10)
        np.testing.assert_allclose(w.B.T @ w.W, np.eye(4), atol=1e-10)
    with pytest.raises(ValueError, match="exceeds the rank of M2"):
        whiten(M2, 5)
    with pytest.raises(ValueError, match="exceeds the dimension"):
        whiten(M2, 61)
    bad = M2.copy()
    bad[0, 1] += 1.0
    with pytest.raises(ValueError, match="symmetric"):
        whiten(bad, 2)
    bad[0, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        whiten(bad, 2)


def test_project_simplex():
    P = project_simplex(np.array([[0.5, 0.5, 0.5], [2.0, -1.0, 0.0], [0.2, 0.3, 0.5]]))
    np.testing.assert_allclose(P, [[1 / 3, 1 / 3, 1 / 3], [1.0, 0.0, 0.0], [0.2, 0.3, 0.5]])


def lda_error(n_docs, seed=0):
    X, truth = make_lda_corpus(n_docs, n_components=10, vocab_size=500, doc_length=100,
                               doc_topic_prior=0.1, random_state=seed)
    est = SpectralLDA(10, doc_topic_prior=0.1, random_state=0).fit(X)
    _, err = match_components(truth["topics"], est.components_, "l1")
    return err.mean(), est


def test_spectral_lda_error_falls_like_inverse_sqrt_n():
    # K = 10, V = 500, alpha_0 = 1 (make_lda_corpus); 500 and 5k documents (the 1k/10k/100k
    # table is in benchmarks/bench_spectral.py): 10x the documents -> error / sqrt(10)
    e1, est = lda_error(500)
    e2, est2 = lda_error(5000)
    ratio = e1 / e2
    assert e2 < 0.1
    assert 2.0 < ratio < 5.0, ratio  # sqrt(10) = 3.16
    np.testing.assert_allclose(est2.components_.sum(1), 1.0)
    assert abs(est2.doc_topic_prior_.sum() - 1.0) < 0.05  # sum of alpha_i ~ alpha_0
    np.testing.assert_allclose(est2.raw_topic_sums_, 1.0, atol=0.05)


@pytest.mark.slow
def test_spectral_lda_dense_equals_implicit_and_trigram_corpus():
    # documents of exactly 3 tokens: a sharp test of the unbiased third-moment estimator
    X, truth = make_lda_corpus(20000, n_components=3, vocab_size=30, doc_length=3,
                               doc_topic_prior=0.5 / 3, topic_word_prior=0.3, random_state=4)
    a = SpectralLDA(3, doc_topic_prior=0.5 / 3, tensor="dense", random_state=0).fit(X)
    b = SpectralLDA(3, doc_topic_prior=0.5 / 3, tensor="implicit", random_state=0).fit(X)
    np.testing.assert_allclose(a.components_, b.components_, atol=1e-6)
    _, err = match_components(truth["topics"], a.components_, "l1")
    assert err.mean() < 0.15


def test_spectral_lda_bad_input():
    X = sp.csr_matrix(np.array([[1, 1, 0], [0, 2, 0]], dtype=float))
    with pytest.raises(ValueError, match="at least 3 tokens"):
        SpectralLDA(2).fit(X)
    X, _ = make_lda_corpus(200, n_components=2, vocab_size=20, random_state=0)
    with pytest.raises(ValueError, match="exceeds the vocabulary size"):
        SpectralLDA(21).fit(X)
    Xn = X.copy()
    Xn.data[0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        SpectralLDA(2).fit(Xn)


def planted_spherical(n, seed):
    rng = np.random.default_rng(seed)
    k, d = 4, 12
    means = rng.standard_normal((k, d)) * 3.0
    w = np.array([0.2, 0.3, 0.25, 0.25])
    z = rng.choice(k, n, p=w)
    X = means[z] + rng.standard_normal((n, d)) * 1.0
    return X, means, w, z


def test_spectral_gmm_recovers_planted_spherical_means():
    X, means, w, z = planted_spherical(100000, 0)
    est = SpectralGMM(4, random_state=0).fit(X)
    perm, err = match_components(means, est.means_, "l2")
    assert err.max() < 0.25 * np.linalg.norm(means, axis=1).min() / 5
    np.testing.assert_allclose(est.weights_[perm], w, atol=0.03)
    assert abs(est.sigma2_ - 1.0) < 0.05
    inv = np.argsort(perm)  # estimated component -> planted component
    acc = (inv[est.predict(X[:5000])] == z[:5000]).mean()
    assert acc > 0.97
    with pytest.raises(ValueError, match="exceeds n_features"):
        SpectralGMM(13).fit(X[:100])
    Xn = X[:100].copy()
    Xn[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        SpectralGMM(2).fit(Xn)


def sample_hmm(A, B, pi, n_seq, length, rng):
    k = A.shape[0]
    h = np.empty((n_seq, length), dtype=np.int64)
    h[:, 0] = rng.choice(k, n_seq, p=pi)
    cA, cB = np.cumsum(A, 1), np.cumsum(B, 1)
    for t in range(1, length):
        h[:, t] = (rng.random(n_seq)[:, None] > cA[h[:, t - 1]]).sum(1)
    x = (rng.random((n_seq, length))[..., None] > cB[h]).sum(-1)
    return np.minimum(x, B.shape[1] - 1)


def test_spectral_hmm_recovers_planted_parameters_at_1e6_observations():
    rng = np.random.default_rng(0)
    A = np.array([[0.8, 0.1, 0.1], [0.15, 0.7, 0.15], [0.1, 0.2, 0.7]])
    B = rng.dirichlet(np.full(8, 0.5), size=3)
    pi = np.full(3, 1 / 3)
    x = sample_hmm(A, B, pi, 1000, 1000, rng)  # 10^6 observations
    est = SpectralHMM(3, n_features=8, random_state=0).fit(x.ravel(), lengths=[1000] * 1000)
    perm, _ = match_components(B, est.emissionprob_, "l1")
    assert np.abs(est.emissionprob_[perm] - B).max() < 0.05
    assert np.abs(est.transmat_[np.ix_(perm, perm)] - A).max() < 0.05
    np.testing.assert_allclose(est.transmat_.sum(1), 1.0)
    with pytest.raises(ValueError, match="exceeds the number of symbols"):
        SpectralHMM(9, n_features=8).fit(x.ravel())
    with pytest.raises(ValueError, match="3 consecutive"):
        SpectralHMM(2).fit([0, 1, 0, 1], lengths=[2, 2])


def test_spectral_gmm_predict_checks_n_features():
    X, _, _, _ = planted_spherical(500, 1)
    est = SpectralGMM(2, random_state=0).fit(X[:, :3])
    msg = "X has 2 features, but SpectralGMM is expecting 3 features as input."
    with pytest.raises(ValueError, match=msg):
        est.predict(X[:, :2])
    with pytest.raises(ValueError, match="NaN"):
        est.predict(np.full((2, 3), np.nan))


def test_project_simplex_bad_input():
    for bad in (np.array([np.nan, 1.0]), np.array([np.inf, 1.0])):
        with pytest.raises(ValueError, match="V contains"):
            project_simplex(bad)
    for empty in (np.array([]), np.zeros((0, 3)), np.zeros((2, 0))):
        with pytest.raises(ValueError, match="V must be non-empty"):
            project_simplex(empty)
    with pytest.raises(ValueError, match="V must be a vector"):
        project_simplex(np.ones((2, 2, 2)))
    with pytest.raises(TypeError, match="V must be a real"):
        project_simplex(np.array(["a", "b"]))
    np.testing.assert_allclose(project_simplex([3.0, 1.0]), [[1.0, 0.0]])  # 1-D: one row


def _assert_same_decomposition(a, b):
    for f in ("W", "B", "eigenvalues", "eigenvectors"):
        np.testing.assert_array_equal(getattr(a.whitening_, f), getattr(b.whitening_, f))
    assert a.whitening_.method == b.whitening_.method
    assert len(a.history_) == len(b.history_)
    for ha, hb in zip(a.history_, b.history_):
        assert ha.keys() == hb.keys()
        for key in ha:
            np.testing.assert_array_equal(ha[key], hb[key])
            assert type(hb[key]) is type(ha[key])


def test_spectral_estimators_round_trip_through_save_load(tmp_path):
    import latentkit
    X, _, _, _ = planted_spherical(2000, 2)
    Xl, _ = make_lda_corpus(300, n_components=3, vocab_size=40, random_state=0)
    rng = np.random.default_rng(0)
    A = np.array([[0.8, 0.1, 0.1], [0.1, 0.8, 0.1], [0.1, 0.1, 0.8]])
    x = sample_hmm(A, rng.dirichlet(np.ones(6), size=3), np.full(3, 1 / 3), 20, 200, rng)
    fitted = [(SpectralGMM(4, random_state=0).fit(X), lambda m: m.predict(X[:50])),
              (SpectralLDA(3, random_state=0).fit(Xl), lambda m: m.components_),
              (SpectralHMM(3, n_features=6, random_state=0).fit(x.ravel(), [200] * 20),
               lambda m: m.transmat_)]
    for i, (est, out) in enumerate(fitted):
        path = tmp_path / f"m{i}.npz"
        latentkit.save(est, path)
        back = latentkit.load(path)
        assert type(back) is type(est)
        _assert_same_decomposition(est, back)
        np.testing.assert_array_equal(out(back), out(est))
        # the rebuilt whitening still whitens the same M2: un-whitening inverts it
        np.testing.assert_allclose(back.whitening_.B.T @ back.whitening_.W, np.eye(est.n_components),
                                   atol=1e-10)
