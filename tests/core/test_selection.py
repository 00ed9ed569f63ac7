"""latentkit.selection: every column recomputed independently from the fitted models, the
rule applied to the table, the split shared by every K, and the plot."""

import numpy as np
import pytest

from latentkit.datasets import load_earthquakes, load_old_faithful
from latentkit.selection import parse_k_range, select_n_components
from latentkit.topic import coherence, topic_diversity

pytestmark = pytest.mark.filterwarnings("ignore::latentkit.base.ConvergenceWarning")


def test_parse_k_range():
    assert parse_k_range("5:50:5") == list(range(5, 51, 5))
    assert parse_k_range("2:4") == [2, 3, 4]
    assert parse_k_range("2,3,7") == [2, 3, 7]
    for bad in ("5:x", "0:3", "5:2", "1:9:0", ""):
        with pytest.raises(ValueError, match="K must"):
            parse_k_range(bad)


def test_gmm_table_and_rule():
    X = load_old_faithful().data
    sel = select_n_components("gmm", X, [1, 2, 3], heldout=0.2, random_state=0,
                              model_params={"covariance_type": "full"})
    rng = np.random.default_rng(0)
    perm = rng.permutation(len(X))
    n_test = int(np.ceil(0.2 * len(X)))
    train, test = X[np.sort(perm[n_test:])], X[np.sort(perm[:n_test])]
    for row in sel.table:
        m = sel.models[row["n_components"]]
        assert row["bic"] == pytest.approx(m.bic(train), rel=1e-12)
        assert row["aic"] == pytest.approx(m.aic(train), rel=1e-12)
        assert row["heldout_loglik"] == pytest.approx(m.score(test), rel=1e-12)
    assert sel.best == min(sel.table, key=lambda r: r["bic"])["n_components"] == 2
    assert sel.rule == "the lowest BIC" and "chosen K = 2" in sel.to_text()


def test_hmm_one_sequence_holds_out_its_end():
    X = load_earthquakes().data.reshape(-1, 1)
    sel = select_n_components("hmm", X, [1, 2], heldout=0.1,
                              model_params={"emission": "poisson", "max_iter": 200})
    n_test = int(np.ceil(0.1 * len(X)))
    for row in sel.table:
        m = sel.models[row["n_components"]]
        assert row["heldout_loglik"] == pytest.approx(m.score(X[-n_test:]), rel=1e-12)
        assert row["bic"] == pytest.approx(m.bic(X[:-n_test]), rel=1e-12)
    assert sel.best == 2  # two regimes (Zucchini & MacDonald)


def test_lda_columns_and_plot(tmp_path):
    X = _corpus()
    sel = select_n_components("lda", X, [2, 3, 4], heldout=0.2, random_state=1,
                              model_params={"max_iter": 30}, progress=True)
    rng = np.random.default_rng(1)
    perm = rng.permutation(X.shape[0])
    n_test = int(np.ceil(0.2 * X.shape[0]))
    train, test = X[np.sort(perm[n_test:])], X[np.sort(perm[:n_test])]
    # the models see the words of the training split only; held-out words outside it are
    # dropped (and counted) for every K
    seen = np.flatnonzero(np.asarray(train.sum(axis=0)).ravel() > 0)
    assert 0 < seen.size < X.shape[1]  # the corpus has rare words: the case is exercised
    np.testing.assert_array_equal(sel.feature_index, seen)
    lost = np.asarray(test.sum(axis=0)).ravel()
    lost[seen] = 0
    assert sel.heldout_unseen == {"words": int(np.count_nonzero(lost)),
                                  "tokens": int(lost.sum()),
                                  "fraction": pytest.approx(lost.sum() / test.sum(), rel=1e-12)}
    for row in sel.table:
        m = sel.models[row["n_components"]]
        assert m.n_features_in_ == seen.size
        assert row["heldout_perplexity"] == pytest.approx(
            m.perplexity(test[:, seen], include_prior_kl=False), rel=1e-12)
        # the coherences: the model's top words, as columns of the whole corpus
        full = np.zeros((m.n_components, X.shape[1]))
        full[:, seen] = m.components_
        for measure in ("c_npmi", "u_mass"):
            ref = coherence(FullWidth(full), X, measure).mean
            assert row[measure] == pytest.approx(ref, rel=1e-12)
        assert row["diversity"] == topic_diversity(m, 25)
        assert m.init == "spectral"
    assert sel.best == min(sel.table, key=lambda r: r["heldout_perplexity"])["n_components"]
    out = sel.plot(tmp_path / "sel.png")
    assert (tmp_path / "sel.png").read_bytes()[:4] == b"\x89PNG" and out == tmp_path / "sel.png"
    assert sel.to_dict()["best"] == sel.best
    assert sel.to_dict()["heldout_unseen"]["tokens"] == int(lost.sum())
    assert (f"{int(lost.sum())} tokens" if lost.sum() else
            "every held-out word is in the training split") in sel.to_text()


class FullWidth:
    """A stand-in model: topics over the whole corpus's columns (zero on unseen words)."""

    def __init__(self, components):
        self.components_ = components


def _corpus():
    import scipy.sparse as sp

    rng = np.random.default_rng(0)
    topics = rng.dirichlet(np.full(40, 0.1), size=3)
    theta = rng.dirichlet(np.full(3, 0.3), size=150)
    counts = np.array([rng.multinomial(60, t @ topics) for t in theta], dtype=float)
    return sp.csr_matrix(counts)


def test_bad_input():
    X = load_old_faithful().data
    with pytest.raises(ValueError, match="kind"):
        select_n_components("kmeans", X, [2])
    with pytest.raises(ValueError, match="heldout"):
        select_n_components("gmm", X, [2], heldout=1.5)
    with pytest.raises(ValueError, match="n_components"):
        select_n_components("gmm", X, [])
    with pytest.raises(TypeError, match="random_state"):
        select_n_components("gmm", X, [2], random_state=np.random.default_rng(0))


@pytest.mark.parametrize("rows", [[], [0], [9]])
def test_lda_split_without_tokens_is_named(rows):
    # a split without tokens ended in fit's or perplexity's "X contains no tokens", about an X
    # the user never passed (iqa3); tokens in one document leave one of the two splits empty
    X = np.zeros((10, 6))
    X[rows, 2] = 3
    with pytest.raises(ValueError, match=r"(training|held-out) split \(\d+ of 10 documents, "
                                         r"heldout=0.2\) contains no tokens"):
        select_n_components("lda", X, [2], heldout=0.2, random_state=0)


def test_lda_heldout_words_absent_from_training_do_not_move_the_table():
    # issue 41: a held-out word no training document contains got the topic-word prior's
    # share of each topic, a share that changes with K, so a vocabulary that keeps rare words
    # pushed perplexity up with K. Now such words are dropped from both splits for every K:
    # words that occur only in held-out documents leave every held-out perplexity unchanged.
    import scipy.sparse as sp

    X = _corpus()
    rng = np.random.default_rng(3)
    n_test = int(np.ceil(0.2 * X.shape[0]))
    test_rows = np.sort(rng.permutation(X.shape[0])[:n_test])
    extra = np.zeros((X.shape[0], 25))
    extra[test_rows] = np.random.default_rng(7).poisson(0.8, size=(n_test, 25))
    padded = sp.hstack([X, sp.csr_matrix(extra)]).tocsr()
    params = {"max_iter": 20}
    plain = select_n_components("lda", X, [2, 4], heldout=0.2, random_state=3,
                                model_params=params)
    more = select_n_components("lda", padded, [2, 4], heldout=0.2, random_state=3,
                               model_params=params)
    for a, b in zip(plain.table, more.table):
        assert b["heldout_perplexity"] == pytest.approx(a["heldout_perplexity"], rel=1e-9)
        assert b["u_mass"] == pytest.approx(a["u_mass"], rel=1e-9)
    added = more.heldout_unseen["tokens"] - plain.heldout_unseen["tokens"]
    assert added == int(extra.sum())
    assert more.heldout_unseen["words"] - plain.heldout_unseen["words"] == \
        int(np.count_nonzero(extra.sum(axis=0)))


def test_edge_of_the_grid_is_said_with_the_next_grid():
    from latentkit.selection import Selection

    def sel(values, ks):
        table = [{"n_components": k, "heldout_perplexity": v} for k, v in zip(ks, values)]
        best = ks[int(np.argmin(values))]
        return Selection("lda", table, best, "heldout_perplexity", "the lowest held-out "
                         "perplexity")

    ks = list(range(5, 41, 5))
    falling = sel([9.0, 8, 7, 6, 5, 4, 3, 2], ks)
    assert falling.edge() == {"side": "largest", "k": 40, "next": "35:75:5"}
    assert "try -k 35:75:5" in falling.to_text() and "largest K tried" in falling.to_text()
    assert parse_k_range("35:75:5")[:2] == [35, 40]  # brackets the chosen K
    rising = sel([2.0, 3, 4, 5, 6, 7, 8, 9], ks)
    assert rising.edge() == {"side": "smallest", "k": 5, "next": "1:10:1"}
    assert "below the grid; try -k 1:10:1" in rising.to_text()
    inside = sel([3.0, 2, 1, 2, 3, 4, 5, 6], ks)
    assert inside.edge() is None and "tried" not in inside.to_text()
    assert inside.to_dict()["edge"] is None
    one = sel([3.0, 4], [1, 2])
    assert one.edge() == {"side": "smallest", "k": 1, "next": None}
    assert "1 is the smallest K there is" in one.to_text()
    assert sel([3.0], [7]).edge() is None


def test_gmm_choice_at_the_edge_is_said():
    X = load_old_faithful().data
    sel = select_n_components("gmm", X, [1, 2], random_state=0)
    assert sel.best == 2 and sel.edge()["next"] == "1:3:1"
    assert sel.heldout_unseen is None and sel.feature_index is None


def test_next_grid_of_an_uneven_grid_brackets_the_choice():
    from latentkit.selection import Selection

    ks = [5, 10, 20, 40]
    low = Selection("lda", [{"n_components": k, "heldout_perplexity": float(k)} for k in ks], 5,
                    "heldout_perplexity", "the lowest held-out perplexity")
    assert low.edge()["next"] == "1:10:3" and parse_k_range("1:10:3") == [1, 4, 7, 10]
    high = Selection("lda", [{"n_components": k, "heldout_perplexity": -float(k)} for k in ks],
                     40, "heldout_perplexity", "the lowest held-out perplexity")
    assert high.edge()["next"] == "20:100:20"
