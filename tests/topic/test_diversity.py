"""Topic diversity (Dieng, Ruiz & Blei 2020) against a brute-force count."""

import numpy as np
import pytest

from latentkit.topic import PLSA, topic_diversity


class _Topics:
    """A stand-in model: only ``components_``."""

    def __init__(self, components):
        self.components_ = np.asarray(components, dtype=float)


def _brute(components, top_n):
    """Top words by a full Python sort: weight descending, then column ascending (the documented
    tie rule), zero weights never listed; unique words over words listed."""
    listed = []
    for row in np.asarray(components):
        order = sorted(range(len(row)), key=lambda j: (-row[j], j))
        listed.append([j for j in order if row[j] > 0][:top_n])
    words = [w for t in listed for w in t]
    return len(set(words)) / len(words)


def test_hand_made_values():
    # two topics sharing one of their two top words: 3 unique of 4
    assert topic_diversity([["a", "b"], ["b", "c"]], top_n=2) == 0.75
    # identical topics: 1/K
    assert topic_diversity([[0, 1, 2]] * 4, top_n=3) == 0.25
    # top_n cuts the given lists
    assert topic_diversity([["a", "b", "x"], ["a", "b", "y"]], top_n=2) == 0.5
    # ties at the cut-off: column order decides (column 0 before column 1)
    C = [[3, 2, 1, 0], [1, 1, 0, 5]]
    assert topic_diversity(_Topics(C), top_n=2) == 3 / 4  # {0,1} and {3,0}
    assert topic_diversity(_Topics(C), top_n=3) == 4 / 6  # {0,1,2} and {3,0,1}
    # zero weights are never listed: row 1 lists 1 word only
    assert topic_diversity(_Topics([[1, 1, 1], [0, 0, 2]]), top_n=3) == 3 / 4


@pytest.mark.parametrize("seed", range(5))
def test_matches_brute_force_with_ties_and_zeros(seed):
    rng = np.random.default_rng(seed)
    K, V = rng.integers(2, 8), rng.integers(5, 40)
    C = rng.integers(0, 4, size=(K, V)).astype(float)  # many ties, some zeros
    C[:, 0] += 1  # every row has a positive weight
    for top_n in (1, 3, 25, V + 3):
        assert topic_diversity(_Topics(C), top_n) == pytest.approx(_brute(C, top_n), abs=1e-15)


def test_fitted_model_and_its_top_words_agree():
    rng = np.random.default_rng(0)
    X = rng.poisson(1.0, size=(30, 40))
    model = PLSA(n_components=3, random_state=0, max_iter=500, tol=1e-3).fit(X)
    assert topic_diversity(model, 10) == topic_diversity(model.top_words(n=10), 10)
    assert topic_diversity(model, 10) == pytest.approx(_brute(model.components_, 10), abs=1e-15)


def test_bad_input():
    with pytest.raises(ValueError, match="top_n"):
        topic_diversity([["a"]], top_n=0)
    with pytest.raises(TypeError, match="top_n"):
        topic_diversity([["a"]], top_n=2.5)
    with pytest.raises(TypeError, match="topics_or_model"):
        topic_diversity("abc")
    with pytest.raises(ValueError, match="at least one topic"):
        topic_diversity([])
    with pytest.raises(ValueError, match="topic 1 is empty"):
        topic_diversity([["a"], []])
    with pytest.raises(ValueError, match="topic 1 is empty"):
        topic_diversity(_Topics([[1, 2], [0, 0]]))
    with pytest.raises(ValueError, match="repeats"):
        topic_diversity([["a", "a"]])
    with pytest.raises(ValueError, match="NaN"):
        topic_diversity(_Topics([[1, np.nan]]))


def test_a_topic_word_matrix_is_not_read_as_word_ids():
    # 5 topics over 3 words: at most 3 distinct top words, so the diversity is at most 3/10; read
    # as lists of float "ids" the matrix gave 1.0. A weight matrix must come as a fitted model.
    weights = np.random.default_rng(0).dirichlet(np.ones(3), size=5)
    with pytest.raises(TypeError, match="topic 0 holds .* float"):
        topic_diversity(weights, top_n=2)
    assert topic_diversity(_Topics(weights), top_n=2) <= 3 / 10
    with pytest.raises(TypeError, match="topic 0 must be a list"):
        topic_diversity(np.arange(3), top_n=2)
    with pytest.raises(TypeError, match="topic 0 holds"):
        topic_diversity([[True, False]], top_n=2)
