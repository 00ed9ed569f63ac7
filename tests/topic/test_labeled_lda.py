"""Labeled LDA: the one-label closed form (the conjugate Dirichlet-multinomial fit and its
exact log evidence), the restriction to each document's labels, free topics, recovery."""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.special import gammaln

import latentkit as lk
from latentkit.exceptions import InputError
from latentkit.testing import match_components
from latentkit.topic import LabeledLDA

pytestmark = pytest.mark.filterwarnings("ignore::latentkit.ConvergenceWarning")


def _corpus(n=120, K=3, V=25, length=50, seed=0, labels_per_doc=1):
    rng = np.random.default_rng(seed)
    topics = rng.dirichlet(np.full(V, 0.2), size=K)
    rows, labels = [], []
    for _ in range(n):
        own = rng.choice(K, size=labels_per_doc, replace=False)
        theta = np.zeros(K)
        theta[own] = rng.dirichlet(np.ones(labels_per_doc))
        rows.append(rng.multinomial(length, theta @ topics))
        labels.append([f"L{k}" for k in own])
    return sp.csr_matrix(np.array(rows, dtype=float)), labels, topics


def test_one_label_per_document_is_the_closed_form_multinomial_fit():
    X, labels, _ = _corpus(seed=1)
    eta = 0.1
    m = LabeledLDA(topic_word_prior=eta, random_state=0, max_iter=5, tol=0.0).fit(
        X, labels=labels)
    Y = np.array([[lab[0] == f"L{k}" for k in range(3)] for lab in labels], dtype=float)
    counts = Y.T @ X.toarray()
    np.testing.assert_allclose(m.components_, eta + counts, rtol=1e-12)
    # the bound is then the exact log evidence of the Dirichlet-multinomial (token sequence)
    V = X.shape[1]
    evidence = np.sum(gammaln(V * eta) - gammaln(V * eta + counts.sum(axis=1))
                      + np.sum(gammaln(eta + counts) - gammaln(eta), axis=1))
    np.testing.assert_allclose(m.lower_bound_ * X.shape[0], evidence, rtol=1e-10)
    np.testing.assert_allclose(m.transform(X, labels=labels), Y, atol=0)


def test_topics_stay_on_their_labels_and_free_topics_take_the_rest():
    X, labels, topics = _corpus(n=300, seed=2, labels_per_doc=2)
    m = LabeledLDA(random_state=0, max_iter=60).fit(X, labels=labels)
    theta = m.transform(X, labels=labels)
    allowed = np.array([[f"L{k}" in lab for k in range(3)] for lab in labels])
    assert np.all(theta[~allowed] == 0.0)
    est = m.components_ / m.components_.sum(axis=1, keepdims=True)
    # labels fix the topics' identity: no matching needed
    assert np.abs(est - topics).sum(axis=1).max() < 0.15
    assert m.classes_.tolist() == ["L0", "L1", "L2"]
    assert np.all(np.diff(m.lower_bounds_) >= -1e-9 * np.abs(m.lower_bounds_[:-1]))
    # with a free topic, documents labelled only L0 may use L0 and the free topic
    free = LabeledLDA(n_free_components=1, random_state=0, max_iter=20).fit(X, labels=labels)
    th = free.transform(X, labels=[["L0"]] * X.shape[0])
    assert th.shape == (X.shape[0], 4) and np.all(th[:, 1:3] == 0.0)


def test_indicator_labels_unlabelled_documents_and_errors():
    X, labels, _ = _corpus(n=30, seed=3)
    Y = np.array([[lab[0] == f"L{k}" for k in range(3)] for lab in labels], dtype=int)
    a = LabeledLDA(random_state=0, max_iter=5).fit(X, labels=Y)
    b = LabeledLDA(random_state=0, max_iter=5).fit(X, labels=labels)
    np.testing.assert_allclose(a.components_, b.components_, rtol=1e-12)
    assert a.classes_.tolist() == [0, 1, 2]
    # unlabelled: every topic allowed
    assert np.all(a.transform(X) > 0)
    with pytest.raises(InputError, match="labels"):
        LabeledLDA().fit(X)
    with pytest.raises(InputError, match="not a fitted label"):
        b.transform(X, labels=[["nope"]] * 30)
    with pytest.raises(InputError, match="one entry per document"):
        LabeledLDA().fit(X, labels=labels[:-1])


def test_save_load(tmp_path):
    X, labels, _ = _corpus(n=30, seed=4)
    m = LabeledLDA(n_free_components=1, random_state=0, max_iter=5).fit(X, labels=labels)
    lk.save(m, tmp_path / "l.npz")
    back = lk.load(tmp_path / "l.npz")
    assert back.elbo(X, labels=labels) == m.elbo(X, labels=labels)
    assert back.classes_.tolist() == m.classes_.tolist()
