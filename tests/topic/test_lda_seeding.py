"""Seeded topics of LDA (issue 31, item 2): the seeded prior matrix, the seeded CVB0 start, a
planted corpus where two topics share their most frequent words, and named errors."""

import numpy as np
import pytest
import scipy.sparse as sp

from latentkit import io
from latentkit.inference import StochasticVI
from latentkit.topic import LatentDirichletAllocation, cvb0_topics
from latentkit.topic._seeding import SeedWordError, read_seed_words, resolve_seed_topics

V = 60


@pytest.fixture(scope="module")
def shared_corpus():
    """Topics A and B put 85% of their mass on the same 10 words (0-9) and 15% on their own
    (A: 10-19, B: 20-29); C and D are distinct (30-44, 45-59); Dir(0.3) mixtures."""
    rng = np.random.default_rng(0)
    T = np.zeros((4, V))
    T[:2, 0:10] = 0.085
    T[0, 10:20] = T[1, 20:30] = 0.015
    T[2, 30:45] = T[3, 45:60] = 1 / 15
    X = np.array([rng.multinomial(40, rng.dirichlet(np.full(4, 0.3)) @ T) for _ in range(240)])
    return sp.csr_matrix(X.astype(float)), T


def _own_mass(model):
    t = model.components_ / model.components_.sum(axis=1, keepdims=True)
    return t[:, 10:20].sum(axis=1), t[:, 20:30].sum(axis=1)


SEEDS = {0: [10, 11, 12], 1: [20, 21, 22]}


def test_seeding_recovers_two_topics_that_unseeded_lda_merges(shared_corpus):
    X, T = shared_corpus
    # unseeded from the length-weighted CVB0 start (the default start before issue 41):
    # A's and B's own words end in the same topic, each at half its mass
    lam = cvb0_topics(X, 4, random_state=np.random.default_rng(1))
    a, b = _own_mass(LatentDirichletAllocation(4, init={"components": lam},
                                               max_iter=100).fit(X))
    assert np.argmax(a) == np.argmax(b) and a.max() < 0.1 and b.max() < 0.1
    # (the default start, one seed document per spectral topic, separates them unseeded)
    a, b = _own_mass(LatentDirichletAllocation(4, random_state=1, max_iter=100).fit(X))
    assert np.argmax(a) != np.argmax(b) and a.max() > 0.14 and b.max() > 0.14
    for seed in (0, 1, 2, 3):
        m = LatentDirichletAllocation(4, random_state=seed, max_iter=100,
                                      seed_topics=SEEDS).fit(X)
        a, b = _own_mass(m)
        assert np.argmax(a) == 0 and np.argmax(b) == 1 and a[0] > 0.14 and b[1] > 0.14
        t = m.components_ / m.components_.sum(axis=1, keepdims=True)
        # the seeded topics are A and B (Hellinger distance), the unseeded ones C and D
        h = np.sqrt(0.5 * ((np.sqrt(t[:, None]) - np.sqrt(T[None])) ** 2).sum(-1))
        assert h[0, 0] < 0.15 and h[1, 1] < 0.15
        assert sorted(np.argmin(h[2:], axis=1)) == [2, 3]


def test_seeded_prior_matrix_and_seeded_start(shared_corpus):
    X, _ = shared_corpus
    m = LatentDirichletAllocation(4, max_iter=2, tol=0, seed_topics={1: [20, 5]},
                                  seed_confidence=0.5, random_state=0).fit(X)
    counts = np.asarray(X.sum(axis=0)).ravel()
    want = np.full((4, V), 0.25)
    want[1, [5, 20]] += 0.5 * counts[[5, 20]]
    np.testing.assert_allclose(m.topic_word_prior_, want, rtol=1e-15)
    # the M-step keeps the prior matrix: lambda = eta + sstats
    stats = m._e_step(m._validate_data(X, reset=False))
    m._m_step(stats)
    np.testing.assert_allclose(m.components_, want + stats.sstats, rtol=1e-14)
    # CVB0 with a constant array prior is CVB0 with the scalar
    np.testing.assert_array_equal(cvb0_topics(X, 4, 0.25, np.full((4, V), 0.25), n_sweeps=3,
                                              random_state=0),
                                  cvb0_topics(X, 4, 0.25, 0.25, n_sweeps=3, random_state=0))


def test_seed_words_by_name_and_named_errors(shared_corpus, tmp_path):
    X, _ = shared_corpus
    vocab = [f"w{j}" for j in range(V)]
    seeds = {0: ["w10", "w11", 12], 1: ["w20", "w21", "w22"]}
    m = LatentDirichletAllocation(4, random_state=0, max_iter=100, seed_topics=seeds)
    m.feature_names_in_ = np.asarray(vocab)
    a, b = _own_mass(m.fit(X))
    assert np.argmax(a) == 0 and np.argmax(b) == 1
    with pytest.raises(SeedWordError, match=r"seed_topics\[1\]: \['nope'\] not in the vocab") as e:
        resolve_seed_topics({1: ["w3", "nope"]}, 4, V, vocab)
    assert e.value.words == ["nope"] and e.value.topic == 1 and isinstance(e.value, ValueError)
    with pytest.raises(SeedWordError, match=r"\[60\]"):
        LatentDirichletAllocation(4, seed_topics={0: [60]}, max_iter=1).fit(X)
    with pytest.raises(ValueError, match="no vocabulary"):
        LatentDirichletAllocation(4, seed_topics={0: ["w1"]}, max_iter=1).fit(X)
    with pytest.raises(ValueError, match=r"topic indices in \[0, 4\)"):
        LatentDirichletAllocation(4, seed_topics={4: [1]}, max_iter=1).fit(X)
    with pytest.raises(TypeError, match="seed_topics must be a dict"):
        LatentDirichletAllocation(4, seed_topics=[[1, 2]], max_iter=1).fit(X)
    with pytest.raises(TypeError, match=r"seed_topics\[0\] must be a list"):
        LatentDirichletAllocation(4, seed_topics={0: "w1"}, max_iter=1).fit(X)
    with pytest.raises(ValueError, match="seed_confidence"):
        LatentDirichletAllocation(4, seed_topics={0: [1]}, seed_confidence=0, max_iter=1).fit(X)
    with pytest.raises(ValueError, match="topic_word_prior='auto' is not supported"):
        LatentDirichletAllocation(4, seed_topics={0: [1]}, topic_word_prior="auto").fit(X)
    path = tmp_path / "seeds.txt"
    path.write_text("# topic per line\nw10 w11, w12\n\nw20 w21\n", encoding="utf-8")
    assert read_seed_words(path) == {0: ["w10", "w11", "w12"], 1: ["w20", "w21"]}


def test_seeded_model_with_learned_alpha_saves_and_loads(shared_corpus, tmp_path):
    X, _ = shared_corpus
    m = LatentDirichletAllocation(4, max_iter=100, seed_topics=SEEDS, doc_topic_prior="auto",
                                  random_state=0).fit(X)
    a, b = _own_mass(m)
    assert np.argmax(a) == 0 and np.argmax(b) == 1 and m.doc_topic_prior_.shape == (4,)
    assert np.all(np.diff(m.lower_bounds_) >= 0)
    io.save(m, tmp_path / "m.npz")
    back = io.load(tmp_path / "m.npz")
    np.testing.assert_array_equal(back.topic_word_prior_, m.topic_word_prior_)
    assert back.get_params()["seed_topics"] == SEEDS  # int keys kept


@pytest.mark.parametrize("how", ["online fit", "partial_fit"])
def test_seed_words_by_name_in_an_online_fit(how):
    """Seed words looked up in a vocabulary set before the fit (as ``latentkit.text.attach``
    and the CLI do) work online too: the online fit kept no ``feature_names_in_`` ('the model
    has no vocabulary'), and ``partial_fit`` took the model for fitted (AttributeError:
    no ``n_features_in_``). The seeded prior equals the one of the column indices."""
    X = sp.csr_matrix(np.random.default_rng(0).poisson(1.0, (30, 12)).astype(float))
    vocab = np.array([f"w{i}" for i in range(12)])

    def fitted(seeds, names):
        m = LatentDirichletAllocation(3, random_state=0, seed_topics=seeds)
        if names:
            m.feature_names_in_ = vocab
        if how == "partial_fit":
            return m.partial_fit(X)
        return StochasticVI(m, n_epochs=2, random_state=0).fit(X).model_

    by_name = fitted({0: ["w1", "w2"]}, True)
    by_index = fitted({0: [1, 2]}, False)
    np.testing.assert_array_equal(by_name.topic_word_prior_, by_index.topic_word_prior_)
    np.testing.assert_array_equal(by_name.components_, by_index.components_)
    np.testing.assert_array_equal(by_name.feature_names_in_, vocab)
