"""The moment estimators are unbiased: exact enumeration on tiny models (issue 17, item 3).

For each model every outcome of one observation unit is enumerated with its exact probability,
the library's estimator is evaluated on it, and the probability-weighted sum (the estimator's
expectation) is compared with the population moment to 1e-12:

* LDA with 3 words and 2 topics, documents of 3, 4 and 6 tokens: every topic and word sequence
  (Polya urn probability of the topic counts times the word probabilities) gives the count
  vector ``c``; the per-document estimators ``m1 = c / l``, ``e2(c)`` (:meth:`LDAMoments
  .e2_matmat`) and ``e3(c)`` (:meth:`ImplicitMomentTensor.from_documents`, whitened or not) have
  expectations ``E[x1]``, ``E[x1 x2^T]``, ``E[x1 (x) x2 (x) x3]`` (Dirichlet moments); with those
  expectations in place of the sample ones, :class:`LDAMoments`' corrections give
  ``M2 = sum_i alpha_i / (a0 (a0+1)) mu_i mu_i^T`` and
  ``M3 = sum_i 2 alpha_i / (a0 (a0+1) (a0+2)) mu_i^{(x)3}`` (AFHKL12; AGHKT14 Theorem 3.5).
* The single-topic model (one topic per document, AGHKT14 Theorem 3.1): ``E[e2] = sum_i w_i
  mu_i mu_i^T``, ``E[e3] = sum_i w_i mu_i^{(x)3}``.
* The spherical Gaussian mixture with 2 components: the estimators are polynomials of degree
  <= 3 in x, and a Rademacher vector has the moments of N(0, I) up to order 3, so
  ``x = mu_h + sigma s``, ``s in {-1, 1}^d``, is an exact cubature; enumerating (h, s) with
  weights ``w_h 2^{-d}`` gives the expectations of the sample mean, ``X^T X / n`` and the
  third moment, and :class:`GMMMoments` on that enumeration (mixture weights 1/3, 2/3, so the
  enumeration is a uniform sample of 3 * 2^d rows) returns ``sigma^2``,
  ``M2 = sum_i w_i mu_i mu_i^T`` and ``M3(W, W, W) = sum_i w_i (W^T mu_i)^{(x)3}`` exactly
  (Hsu & Kakade 2013, Theorem 1).
"""

import itertools

import numpy as np

from latentkit.spectral import GMMMoments, LDAMoments, whiten
from latentkit.spectral._tensors import ImplicitMomentTensor

TOPICS = np.array([[0.6, 0.3, 0.1], [0.1, 0.25, 0.65]])  # 2 topics over 3 words
ALPHA = np.array([0.4, 0.9])
V, K = 3, 2


def document_law(length, topic_law):
    """{count vector: probability} of one document; ``topic_law(z)`` = P(topic sequence z)."""
    law = {}
    for z in itertools.product(range(K), repeat=length):
        pz = topic_law(z)
        for words in itertools.product(range(V), repeat=length):
            p = pz * np.prod(TOPICS[list(z), list(words)])
            c = tuple(np.bincount(words, minlength=V))
            law[c] = law.get(c, 0.0) + p
    return law


def polya(z):
    """P(topic sequence z) under theta ~ Dir(ALPHA): rising factorials."""
    n = np.bincount(z, minlength=K)
    num = np.prod([np.prod(ALPHA[i] + np.arange(n[i])) for i in range(K)])
    return num / np.prod(ALPHA.sum() + np.arange(len(z)))


def dirichlet_moments():
    a, a0 = ALPHA, ALPHA.sum()
    E1 = a / a0
    E2 = (np.outer(a, a) + np.diag(a)) / (a0 * (a0 + 1))
    E3 = np.einsum("i,j,k->ijk", a, a, a)
    for i in range(K):
        E3[i, i, :] += a[i] * a
        E3[i, :, i] += a[i] * a
        E3[:, i, i] += a[i] * a
        E3[i, i, i] += 2 * a[i]
    return E1, E2, E3 / (a0 * (a0 + 1) * (a0 + 2))


def expectations(law, a0, W):
    """Probability-weighted sums of the library's per-document estimators."""
    m1, e2, e3, e3w = 0.0, 0.0, 0.0, 0.0
    total = 0.0
    for c, p in law.items():
        X = np.array([c], dtype=float)
        mom = LDAMoments(X, a0)
        m1 = m1 + p * mom.M1
        e2 = e2 + p * mom.e2_matmat(np.eye(V))
        e3 = e3 + p * ImplicitMomentTensor.from_documents(X, np.eye(V)).to_dense()
        e3w = e3w + p * ImplicitMomentTensor.from_documents(X, W).to_dense()
        total += p
    return total, m1, e2, e3, e3w


def test_lda_moments_unbiased_by_enumeration():
    a0 = ALPHA.sum()
    E1, E2, E3 = dirichlet_moments()
    pop1 = E1 @ TOPICS
    pop2 = TOPICS.T @ E2 @ TOPICS
    pop3 = np.einsum("ijk,ia,jb,kc->abc", E3, TOPICS, TOPICS, TOPICS)
    W = np.random.default_rng(0).standard_normal((V, 2))
    M2_closed = (TOPICS.T * (ALPHA / (a0 * (a0 + 1)))) @ TOPICS
    M3_closed = np.einsum("i,ia,ib,ic->abc", 2 * ALPHA / (a0 * (a0 + 1) * (a0 + 2)),
                          TOPICS, TOPICS, TOPICS)
    for length in (3, 4, 6):
        law = document_law(length, polya)
        total, m1, e2, e3, e3w = expectations(law, a0, W)
        assert abs(total - 1.0) < 1e-12
        np.testing.assert_allclose(m1, pop1, rtol=0, atol=1e-12)
        np.testing.assert_allclose(e2, pop2, rtol=0, atol=1e-12)
        np.testing.assert_allclose(e3, pop3, rtol=0, atol=1e-12)
        np.testing.assert_allclose(e3w, np.einsum("abc,ai,bj,ck->ijk", pop3, W, W, W),
                                   rtol=0, atol=1e-12)
        # LDAMoments' corrections, evaluated at the expectations: the population M2 and M3
        mom = LDAMoments(np.array([[1.0, 1.0, 1.0]]), a0)
        mom.M1, mom.e2_matmat = m1, (lambda Z, e2=e2: e2 @ Z)
        np.testing.assert_allclose(mom.m2_matmat(np.eye(V)), M2_closed, rtol=0, atol=1e-12)
        wh = whiten(M2_closed, K, method="eigh")
        # e3 part over the enumeration + corrections from the expected M1 and e2, by linearity
        T = 0.0
        for c, p in law.items():
            doc = LDAMoments(np.array([c], dtype=float), a0)
            doc.M1, doc.e2_matmat = mom.M1, mom.e2_matmat
            T = T + p * doc.tensor(wh).to_dense()
        np.testing.assert_allclose(T, np.einsum("abc,ai,bj,ck->ijk", M3_closed, wh.W, wh.W,
                                                wh.W), rtol=0, atol=1e-12)


def test_single_topic_moments_unbiased_by_enumeration():
    w = np.array([0.35, 0.65])
    W = np.random.default_rng(1).standard_normal((V, 2))
    pop2 = (TOPICS.T * w) @ TOPICS
    pop3 = np.einsum("i,ia,ib,ic->abc", w, TOPICS, TOPICS, TOPICS)
    for length in (3, 5):
        law = document_law(length, lambda z: w[z[0]] * all(t == z[0] for t in z))
        total, m1, e2, e3, e3w = expectations(law, 1e-6, W)
        assert abs(total - 1.0) < 1e-12
        np.testing.assert_allclose(m1, w @ TOPICS, rtol=0, atol=1e-12)
        np.testing.assert_allclose(e2, pop2, rtol=0, atol=1e-12)
        np.testing.assert_allclose(e3, pop3, rtol=0, atol=1e-12)
        np.testing.assert_allclose(e3w, np.einsum("abc,ai,bj,ck->ijk", pop3, W, W, W),
                                   rtol=0, atol=1e-12)


def test_spherical_gmm_moments_unbiased_by_exact_cubature():
    means = np.array([[1.0, -0.5, 0.3], [-0.4, 0.8, 1.2]])
    weights = np.array([1 / 3, 2 / 3])
    sigma = 0.7
    d = means.shape[1]
    signs = np.array(list(itertools.product([-1.0, 1.0], repeat=d)))
    # components 0, 1, 1: a uniform sample with the mixture's moments up to order 3
    X = np.vstack([means[h] + sigma * signs for h in (0, 1, 1)])
    # the Rademacher cubature reproduces N(0, I) moments up to order 3
    S = signs
    np.testing.assert_allclose(S.mean(0), 0, atol=1e-15)
    np.testing.assert_allclose(S.T @ S / len(S), np.eye(d), atol=1e-15)
    np.testing.assert_allclose(np.einsum("ta,tb,tc->abc", S, S, S) / len(S), 0, atol=1e-15)
    mom = GMMMoments(X, 2, center=False)  # the papers' raw moments
    m = weights @ means
    pop2 = (means.T * weights) @ means
    np.testing.assert_allclose(mom.mean, m, rtol=0, atol=1e-12)
    np.testing.assert_allclose(X.T @ X / len(X), pop2 + sigma ** 2 * np.eye(d), rtol=0,
                               atol=1e-12)
    assert abs(mom.sigma2 - sigma ** 2) < 1e-12
    np.testing.assert_allclose(mom.M2, pop2, rtol=0, atol=1e-12)
    np.testing.assert_allclose(mom.M1, sigma ** 2 * m, rtol=0, atol=1e-12)
    wh = whiten(mom.M2, 2, method="eigh")
    T = mom.tensor(wh).to_dense()
    np.testing.assert_allclose(T, np.einsum("i,ia,ib,ic->abc", weights, means @ wh.W,
                                            means @ wh.W, means @ wh.W), rtol=0, atol=1e-12)
    # third raw moment with the mixture weights as row weights (from_rows)
    Y = np.vstack([means[h] + sigma * signs for h in (0, 1)])
    rw = np.repeat(weights, len(signs)) / len(signs)
    raw3 = ImplicitMomentTensor.from_rows(Y, weights=rw).to_dense()
    pop_raw3 = np.einsum("i,ia,ib,ic->abc", weights, means, means, means)
    for a in range(d):  # E[x (x) x (x) x] = sum w mu^3 + sigma^2 Sym(m (x) I)
        pop_raw3[a, a, :] += sigma ** 2 * m
        pop_raw3[a, :, a] += sigma ** 2 * m
        pop_raw3[:, a, a] += sigma ** 2 * m
    np.testing.assert_allclose(raw3, pop_raw3, rtol=0, atol=1e-12)
