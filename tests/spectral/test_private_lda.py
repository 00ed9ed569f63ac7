"""PrivateSpectralLDA: document-level DP spectral LDA (issue 18). Moments against the
non-private estimator, sensitivities by brute force over neighbouring corpora, accounting."""

import math
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from latentkit.datasets._synthetic import make_lda_corpus
from latentkit.spectral import (LDAMoments, PrivacyNoiseWarning, PrivacyRelationWarning,
                                PrivateSpectralLDA, SpectralLDA, Whitening)
from latentkit.spectral._private_lda import _e3_sum_whitened, _sym_outer


def _topic_error(est, truth):
    T = truth["topics"]
    return float(np.mean([min(np.abs(t - T[j]).sum() for j in range(len(T)))
                          for t in est.components_]))


@pytest.fixture(scope="module")
def corpus():
    return make_lda_corpus(20000, 3, 30, 50, doc_topic_prior=0.3, topic_word_prior=0.2,
                           random_state=0)


def test_whitened_tensor_equals_the_nonprivate_moment_tensor():
    """The dense e3 sum with public corrections equals LDAMoments' implicit tensor (same W)."""
    X, _ = make_lda_corpus(300, 3, 12, 8, random_state=1)
    X = sp.vstack([X, sp.csr_matrix(np.array([[2.0] + [0.0] * 11]))]).tocsr()  # a short doc
    a0 = 0.9
    mom = LDAMoments(X, a0)
    rng = np.random.default_rng(0)
    W = rng.standard_normal((12, 3))
    wh = Whitening(W=W, B=W, eigenvalues=np.ones(3), eigenvectors=W, method="test")
    ref = mom.tensor(wh).to_dense()
    ell = np.asarray(X.sum(1)).ravel()
    used = ell >= 3
    n = used.sum()
    w3 = np.where(used, 1 / np.maximum(ell * (ell - 1) * (ell - 2), 1), 0.0)
    w2 = np.where(used, 1 / np.maximum(ell * (ell - 1), 1), 0.0)
    E2 = (X.T.multiply(w2) @ X).toarray()
    E2[np.diag_indices(12)] -= np.asarray(X.T @ w2).ravel()
    E2 /= n
    M1 = np.asarray(X.T @ np.where(used, 1 / np.maximum(ell, 1), 0)).ravel() / n
    q = W.T @ M1
    T = _e3_sum_whitened(X, w3, W) / n - a0 / (a0 + 2) * _sym_outer(q, W.T @ E2 @ W) \
        + 2 * a0 ** 2 / ((a0 + 1) * (a0 + 2)) * np.einsum("a,b,c->abc", q, q, q)
    np.testing.assert_allclose(T, ref, rtol=1e-10, atol=1e-12 * np.abs(ref).max())
    # restricting the documents to a word subset S with the full length is the S-block
    S = np.array([0, 2, 3, 7, 11])
    WS = np.zeros_like(W)
    WS[S] = W[S]
    np.testing.assert_allclose(_e3_sum_whitened(X[:, S], w3, W[S]),
                               _e3_sum_whitened(X, w3, WS), rtol=1e-12, atol=1e-12)


def test_epsilon_inf_is_the_nonprivate_estimate(corpus):
    X, truth = corpus
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyNoiseWarning)
        m = PrivateSpectralLDA(3, np.inf, doc_topic_prior=0.3, n_words=30,
                               random_state=0).fit(X)
    ref = SpectralLDA(3, doc_topic_prior=0.3, random_state=0).fit(X)
    # same moments, same estimator: the same topics up to the power method's convergence
    assert _topic_error(m, truth) < 0.02
    assert abs(_topic_error(m, truth) - _topic_error(ref, truth)) < 5e-3
    np.testing.assert_allclose(np.sort(m.doc_topic_prior_), np.sort(ref.doc_topic_prior_),
                               rtol=1e-3)
    assert m.privacy_report_["epsilon"] == math.inf and m.m2_noise_norm_ == 0
    assert not m.noise_dominated_.any()


def test_accounting_and_utility_against_epsilon(corpus):
    X, truth = corpus
    errs = []
    for eps in (1.0, 10.0, 100.0):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PrivacyNoiseWarning)
            m = PrivateSpectralLDA(3, eps, 1e-6, doc_topic_prior=0.3, n_words=30, n_init=5,
                                   max_iter=10, random_state=0).fit(X)
        K = 3 * 5 * 11
        assert m.n_releases_ == K + 2 == m.accountant_.n_releases
        rep = m.privacy_report_
        assert rep["epsilon"] == pytest.approx(eps, rel=1e-9)            # what the whole fit spends
        assert rep["epsilon_analytic"] == pytest.approx(eps, rel=1e-9)
        assert rep["epsilon_rdp"] > eps  # a looser bound on the same releases
        assert rep["neighbouring"] == "document"
        errs.append(_topic_error(m, truth))
    assert errs[0] > errs[1] > errs[2]
    assert errs[2] < 0.15
    # 'rdp' calibration spends exactly epsilon under Renyi-DP
    m = PrivateSpectralLDA(3, 100.0, doc_topic_prior=0.3, n_words=30, accountant="rdp",
                           random_state=0).fit(X)
    assert m.accountant_.spent(1e-5, "rdp") == pytest.approx(100.0, rel=1e-9)


def _tiny_neighbours():
    """A corpus and two neighbours that attain the stage-1 and stage-2 sensitivities."""
    rng = np.random.default_rng(0)
    X = rng.poisson(1.5, size=(12, 5)).astype(float)
    X[:, 0] += 3
    Xa, Xb = X.copy(), X.copy()
    Xa[0] = [6, 0, 0, 0, 0]
    Xb[0] = [0, 0, 0, 0, 6]
    return X, Xa, Xb


def _stage_stats(X):
    ell = X.sum(1)
    used = ell >= 3
    m1 = (X[used] / ell[used, None]).sum(0)
    E2 = sum((np.outer(c, c) - np.diag(c)) / (l * (l - 1)) for c, l in zip(X[used], ell[used]))
    return np.concatenate([[used.sum()], m1]), E2[np.triu_indices(X.shape[1])]


def test_sensitivities_by_brute_force():
    """Every derived sensitivity bounds the change over random neighbours, and the stage-1 and
    stage-2 constants (sqrt 2) are attained."""
    X, Xa, Xb = _tiny_neighbours()
    s1a, s2a = _stage_stats(Xa)
    s1b, s2b = _stage_stats(Xb)
    assert np.linalg.norm(s1a - s1b) == pytest.approx(math.sqrt(2), rel=1e-12)
    assert np.linalg.norm(s2a - s2b) == pytest.approx(math.sqrt(2), rel=1e-12)
    rng = np.random.default_rng(1)
    worst = [0.0, 0.0, 0.0, 0.0]
    for _ in range(300):
        Y = X.copy()
        Z = X.copy()
        Y[3] = rng.poisson(rng.uniform(0.1, 4), 5)
        Z[3] = rng.poisson(rng.uniform(0.1, 4), 5) * rng.integers(0, 2)
        a1, a2 = _stage_stats(Y)
        b1, b2 = _stage_stats(Z)
        worst[0] = max(worst[0], np.linalg.norm(a1 - b1) / math.sqrt(2))
        worst[1] = max(worst[1], np.linalg.norm(a2 - b2) / math.sqrt(2))
        # stage 3: data part of T(I,u,u) and T(u,u,u) for a random W and unit u
        W = rng.standard_normal((5, 2)) * rng.uniform(0.1, 3)
        u = rng.standard_normal(2)
        u /= np.linalg.norm(u)
        omega = np.sqrt((W ** 2).sum(1)).max()
        y_inf = np.abs(W @ u).max()
        diff = []
        for A in (Y, Z):
            ell = A.sum(1)
            w3 = np.where(ell >= 3, 1 / np.maximum(ell * (ell - 1) * (ell - 2), 1), 0.0)
            T = _e3_sum_whitened(sp.csr_matrix(A), w3, W)
            diff.append((np.einsum("ijk,j,k->i", T, u, u), np.einsum("ijk,i,j,k->", T, u, u, u)))
        worst[2] = max(worst[2], np.linalg.norm(diff[0][0] - diff[1][0]) / (2 * omega * y_inf ** 2))
        worst[3] = max(worst[3], abs(diff[0][1] - diff[1][1]) / (2 * y_inf ** 3))
    assert max(worst) <= 1 + 1e-12
    assert min(worst) > 0.3  # the bounds are not vacuous


def test_noise_warning_tensor_entry_and_bad_params(corpus):
    X, _ = corpus
    with pytest.warns(PrivacyNoiseWarning, match="noise"):
        m = PrivateSpectralLDA(3, 0.5, doc_topic_prior=0.3, n_words=30, n_init=3, max_iter=5,
                               random_state=0).fit(X)
    assert m.noise_dominated_.any() and m.noise_scale_.shape == (3,)
    # the paper's relation stays available as an explicit option, with its constant 6
    with warnings.catch_warnings(), pytest.warns(PrivacyRelationWarning, match="no document"):
        warnings.simplefilter("ignore", PrivacyNoiseWarning)
        m = PrivateSpectralLDA(3, 1.0, doc_topic_prior=0.3, neighbouring="tensor_entry",
                               accountant="advanced", n_init=3, max_iter=5,
                               random_state=0).fit(X)
    assert m.privacy_report_["neighbouring"] == "tensor_entry"
    assert m.privacy_report_["epsilon_documents"] is None  # the epsilon protects no document
    assert m.privacy_report_["epsilon"] == pytest.approx(1.0, rel=1e-10)
    assert m.selected_words_.size == X.shape[1]
    for kw, msg in [({"neighbouring": "word"}, "neighbouring"),
                    ({"accountant": "advanced"}, "accountant"),
                    ({"budget_split": (0.5, 0.5)}, "budget_split"),
                    ({"budget_split": (0.5, 0.6, -0.1)}, "budget_split"),
                    ({"epsilon": 0.0}, "epsilon"), ({"delta": 1.0}, "delta"),
                    ({"n_words": 2}, "n_words")]:
        with pytest.raises(ValueError, match=msg):
            PrivateSpectralLDA(3, **{"epsilon": 1.0, **kw}).fit(X)
    with pytest.raises(ValueError, match="integer word counts"):
        PrivateSpectralLDA(3).fit(X * 0.5)
    Xc = X.copy()
    PrivateSpectralLDA(3, np.inf, n_words=30, random_state=0).fit(Xc)
    assert (Xc != X).nnz == 0  # input untouched


def test_components_and_top_words(corpus):
    X, _ = corpus
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyNoiseWarning)
        m = PrivateSpectralLDA(3, 2.0, doc_topic_prior=0.3, n_words=8, random_state=0).fit(X)
    np.testing.assert_allclose(m.components_.sum(1), 1.0, rtol=1e-12)
    assert np.all(m.components_ >= 0)
    # outside the selected words: the remaining mass, in proportion to the released frequencies
    out = np.setdiff1d(np.arange(30), m.selected_words_)
    f = np.maximum(m.word_frequencies_, 0)
    share = np.clip(f[m.selected_words_].sum() / f.sum(), 0.05, 1)
    for row in m.components_:
        np.testing.assert_allclose(row[out], (1 - share) * f[out] / f[out].sum(), rtol=1e-12)
        np.testing.assert_allclose(row[m.selected_words_].sum(), share, rtol=1e-12)
    vocab = [f"w{j}" for j in range(30)]
    for row, words in zip(m.components_, m.top_words(vocab, 30)):
        assert len(words) == int((row > 0).sum())  # zero-probability words are not listed
        assert all(row[int(w[1:])] > 0 for w in words)


def test_save_load_round_trip(tmp_path, corpus):
    import latentkit
    from latentkit.spectral import PrivateSpectralGMM

    X, _ = corpus
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyNoiseWarning)
        m = PrivateSpectralLDA(3, 5.0, n_words=20, n_init=2, max_iter=3,
                               random_state=0).fit(X[:2000])
        g = PrivateSpectralGMM(2, clip_norm=3.0, n_init=2, max_iter=3, random_state=0).fit(
            np.random.default_rng(0).normal(size=(300, 4)))
    for est, attr in ((m, "components_"), (g, "means_")):
        latentkit.save(est, tmp_path / "m.npz")
        back = latentkit.load(tmp_path / "m.npz")
        np.testing.assert_array_equal(getattr(back, attr), getattr(est, attr))
        np.testing.assert_array_equal(back.whitening_.W, est.whitening_.W)
        assert back.accountant_.releases == est.accountant_.releases
        assert back.accountant_.spent(1e-5, "analytic") == pytest.approx(
            est.privacy_report_["epsilon"], rel=1e-12)
