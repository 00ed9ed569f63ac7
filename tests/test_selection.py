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
    test = X[np.sort(perm[:n_test])]
    for row in sel.table:
        m = sel.models[row["n_components"]]
        assert row["heldout_perplexity"] == pytest.approx(
            m.perplexity(test, include_prior_kl=False), rel=1e-12)
        assert row["c_npmi"] == pytest.approx(coherence(m, X, "c_npmi").mean, rel=1e-12)
        assert row["u_mass"] == pytest.approx(coherence(m, X, "u_mass").mean, rel=1e-12)
        assert row["diversity"] == topic_diversity(m, 25)
        assert m.init == "spectral"
    assert sel.best == min(sel.table, key=lambda r: r["heldout_perplexity"])["n_components"]
    out = sel.plot(tmp_path / "sel.png")
    assert (tmp_path / "sel.png").read_bytes()[:4] == b"\x89PNG" and out == tmp_path / "sel.png"
    assert sel.to_dict()["best"] == sel.best


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
