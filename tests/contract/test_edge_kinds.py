"""Fault kinds of issue 11 (items 4-8), each checked in every model it can reach.

* one-point components get exactly ``reg_covar`` whatever their distance from the shift
  (Gaussian M-steps: GaussianMixture, GaussianHMM, the variational mixtures; float32 too);
* a declared width far beyond the columns used is refused before allocating (LDA batch, online
  and partial_fit, PLSA, categorical DPMM, spectral LDA, CategoricalHMM), one message;
* line-based files split at LF/CRLF only (vocabulary, docword, CSV, the chunked sources, CLI);
* PLSA's score, elbo and perplexity treat tokens of unseen words alike;
* every Gaussian model refuses data whose second moments overflow, with one message.
"""

import io
import json
import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp

from latentkit import cli
from latentkit.datasets import read_docword, read_numeric_csv, read_vocab
from latentkit.inference import CSVSource, DocwordSource, StochasticVI
from latentkit.mixture import DirichletProcessMixture, GaussianMixture
from latentkit.mixture._variational import VariationalGaussianMixture
from latentkit.sequence import CategoricalHMM, GaussianHMM, HiddenMarkovModel
from latentkit.sequence._emissions import GaussianEmission
from latentkit.neural import VAE
from latentkit.spectral import SpectralGMM, SpectralLDA
from latentkit.topic import PLSA, LatentDirichletAllocation
from latentkit.testing._mixtures import gaussian_mixture

COV_SHAPE = {"full": (2, 1, 1), "tied": (1, 1), "diag": (2, 1), "spherical": (2,)}
GAPS = [2e4, 2e8, 123456789.123]


# ---------------------------------------------------------------- item 4: exact regulariser

@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # the expected collapse warning
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("ct", ["full", "tied", "diag", "spherical"])
def test_one_point_components_get_exactly_reg_covar(ct, dtype):
    for gap in GAPS:
        X = np.array([[0.0], [gap]], dtype=dtype)
        means = X.astype(np.float64)
        gm = GaussianMixture(2, covariance_type=ct, reg_covar=0.1, init={"means": means},
                             max_iter=3, tol=0).fit(X)
        np.testing.assert_allclose(gm.covariances_, np.full(COV_SHAPE[ct], 0.1), rtol=1e-9)
        for hmm in (GaussianHMM(2, covariance_type=ct, reg_covar=0.1, max_iter=3, tol=0,
                                init={"means": means, "covars": np.ones(COV_SHAPE[ct])},
                                random_state=0),
                    HiddenMarkovModel(2, emission=GaussianEmission(ct, reg_covar=0.1),
                                      max_iter=3, tol=0, random_state=0,
                                      init={"means": means, "covars": np.ones(COV_SHAPE[ct])})):
            hmm.fit(X)
            np.testing.assert_allclose(hmm.covariances_, np.full(COV_SHAPE[ct], 0.1), rtol=1e-9)


@pytest.mark.parametrize("cls", [VariationalGaussianMixture, DirichletProcessMixture])
@pytest.mark.parametrize("ct", ["full", "diag", "spherical"])
def test_variational_one_point_component_scatter_is_exact(cls, ct):
    """The batch update of a component on one point x at the prior mean m0 is
    Q = Q0 + reg_covar (Bishop eq. 10.62 with S = 0, xbar = m0), nu = nu0 + 1, whatever the
    distance of x from the data mean (the shift)."""
    c0 = {"full": [[1.0]], "diag": [1.0], "spherical": 1.0}[ct]
    for gap in GAPS:
        X = np.array([[0.0], [gap]])
        k = {"n_components": 2} if cls is VariationalGaussianMixture else {"n_components": 2}
        m = gaussian_mixture(cls, **k, covariance_type=ct, reg_covar=0.1, mean_prior=[0.0],
                             covariance_prior=c0, init={"responsibilities": np.eye(2)})
        m._check_common_params()
        m._validate_params()
        m._init_params(m._validate_data(X, reset=True), np.random.default_rng(0))
        nu = float(np.ravel(m.degrees_of_freedom_)[0])
        assert nu == m.degrees_of_freedom_prior_ + 1.0
        np.testing.assert_allclose(np.ravel(m.covariances_)[0] * nu, 1.1, rtol=1e-9)
        assert np.ravel(m.means_)[0] == 0.0


# ---------------------------------------------------------------- item 5: declared width

def _hashed_ids():
    V = 2**31
    X = sp.csr_matrix((np.full(3, 3.0), ([0, 1, 2], [7, 42, V - 1])), shape=(3, V))
    return X


@pytest.mark.parametrize("fit", [
    lambda X: LatentDirichletAllocation(3).fit(X),
    lambda X: LatentDirichletAllocation(3).partial_fit(X),
    lambda X: StochasticVI(LatentDirichletAllocation(3), batch_size=2).fit(X),
    lambda X: PLSA(3).fit(X),
    lambda X: DirichletProcessMixture(n_components=3, component="categorical").fit(X),
    lambda X: SpectralLDA(2).fit(X),
], ids=["lda", "lda-partial", "lda-online", "plsa", "dpmm-categorical", "spectral-lda"])
def test_huge_declared_width_is_refused_before_allocating(fit):
    X = _hashed_ids()
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match=r"2147483648 columns \(\w+\) but uses only 3") as e:
            fit(X)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert "GiB" in str(e.value) and "Re-code" in str(e.value)
    assert peak < 50e6


def test_categorical_hmm_width_message_is_the_shared_one():
    with pytest.raises(ValueError, match=r"1000000001 symbols but uses only 3.*GiB.*Re-code"):
        CategoricalHMM(2).fit(np.array([[0], [1], [10**9], [1]]))


# ---------------------------------------------------------------- item 6: LF / CRLF only

WORDS = ["a\u2028b", "form\x0cfeed", "rec\x1esep", "ends\x85", "cr\rinside", "plain"]


@pytest.mark.parametrize("eol", ["\n", "\r\n"])
def test_vocabulary_words_with_unicode_separators_survive(tmp_path, eol):
    vocab = tmp_path / "vocab.txt"
    vocab.write_bytes("".join(w + eol for w in WORDS).encode("utf-8"))
    assert list(read_vocab(vocab)) == WORDS
    dw = tmp_path / "docword.txt"
    body = "3\n6\n7\n1 1 2\n1 2 1\n2 3 4\n2 4 1\n3 5 2\n3 6 3\n3 1 1\n"
    dw.write_bytes(body.replace("\n", eol).encode())
    corpus = read_docword(dw, vocab=vocab)
    assert list(corpus.vocabulary) == WORDS and corpus.data.sum() == 14
    chunks = list(DocwordSource(dw, chunk_size=2))
    np.testing.assert_array_equal(sp.vstack(chunks).toarray(), corpus.data.toarray())
    out = io.StringIO()
    status = cli.main(["fit", "lda", "--data", str(dw), "--vocab", str(vocab), "-k", "2",
                       "--max-iter", "2", "--seed", "0", "--json"], out=out)
    assert status == 0
    topics = json.loads(out.getvalue())["topics"]
    assert {w for t in topics for w in t} <= set(WORDS)


def test_csv_readers_split_at_lf_and_crlf_only(tmp_path):
    path = tmp_path / "x.csv"
    path.write_bytes(b"a\x0cb,c\r\n1,2\r\n3,4\n")
    X, names = read_numeric_csv(path)
    np.testing.assert_array_equal(X, [[1, 2], [3, 4]])
    assert list(names) == ["a\x0cb", "c"]
    np.testing.assert_array_equal(np.vstack(list(CSVSource(path, chunk_size=1))), X)
    bad = tmp_path / "cr.csv"
    bad.write_bytes(b"1,2\r3,4\n")
    with pytest.raises(ValueError, match="line 1: a carriage return"):
        read_numeric_csv(bad)


# ---------------------------------------------------------------- item 7: PLSA unseen words

def test_plsa_scores_unseen_words_alike():
    rng = np.random.default_rng(0)
    X = rng.poisson(2.0, (20, 10)).astype(float)
    X[:, 8:] = 0  # words 8 and 9 never seen
    m = PLSA(2, random_state=0).fit(X)
    only_unseen = np.zeros((1, 10))
    only_unseen[0, 8:] = [3, 1]
    for method in (m.score, m.score_per_token, m.elbo, m.perplexity):
        with pytest.warns(RuntimeWarning, match="4 of 4 tokens"), \
                pytest.raises(ValueError, match="no scorable tokens"):
            method(only_unseen)
    mixed = X[:2].copy()
    mixed[:, 9] = 5
    with pytest.warns(RuntimeWarning, match="10 of 40 tokens"):
        s, e, t, p = (m.score(mixed), m.elbo(mixed), m.score_per_token(mixed),
                      m.perplexity(mixed))
    # the same seen tokens: per document (score, elbo) and per token (score_per_token,
    # -log perplexity)
    np.testing.assert_allclose([s, e], m.score(X[:2]), rtol=1e-12)
    np.testing.assert_allclose([t, -np.log(p)], m.score_per_token(X[:2]), rtol=1e-12)


# ---------------------------------------------------------------- item 8: one scale check

@pytest.mark.parametrize("make", [
    lambda: GaussianMixture(2, random_state=0),
    lambda: VariationalGaussianMixture(n_components=2, random_state=0),
    lambda: DirichletProcessMixture(n_components=2, random_state=0),
    lambda: GaussianHMM(2, random_state=0),
    lambda: GaussianHMM(2, covariance_type="full", random_state=0),
    lambda: HiddenMarkovModel(2, emission=GaussianEmission(), random_state=0),
    lambda: SpectralGMM(2, random_state=0),
    lambda: VAE(latent_dim=1, likelihood="gaussian", max_iter=1, random_state=0),
], ids=["gmm", "vgmm", "dpmm", "ghmm-diag", "ghmm-full", "hmm-gaussian-emission", "spectral",
        "vae-gaussian"])
def test_every_gaussian_model_has_the_same_scale_message(make):
    X = np.random.default_rng(0).normal(size=(50, 3)) * 1e200
    with pytest.raises(ValueError, match=r"X is too large in scale to fit in float64.*"
                                         r"Standardise X"):
        make().fit(X)


def test_spectral_scale_check_covers_third_moments():
    from latentkit.mixture import spectral_init_gmm

    X = np.random.default_rng(0).normal(size=(50, 3)) * 1e110  # cubes overflow, squares not
    with pytest.raises(ValueError, match="sum of cubed deviations"):
        spectral_init_gmm(X, 2, random_state=0)
    GaussianMixture(2, random_state=0, max_iter=2, tol=0).fit(X)  # second moments are fine


# ---------------------------------------------------------------- item 9: default stopping

def _standardised(bunch):
    X = np.asarray(bunch.data, dtype=np.float64)
    return (X - X.mean(0)) / X.std(0)


@pytest.mark.slow
def test_default_stopping_lets_dying_components_die():
    """Standardised Old Faithful, DirichletProcessMixture(n_components=30) at its defaults: 2
    effective components for seeds 0-4, as scikit-learn's BayesianGaussianMixture run to
    convergence (its per-sample tol=1e-3 default left 3 for 4 of the 5 seeds here)."""
    from sklearn.mixture import BayesianGaussianMixture

    from latentkit.datasets import load_old_faithful

    X = _standardised(load_old_faithful())
    ours = [DirichletProcessMixture(n_components=30, random_state=s).fit(X) for s in range(5)]
    assert all(m.converged_ for m in ours)
    assert [m.n_effective_components_ for m in ours] == [2] * 5
    sk = [BayesianGaussianMixture(n_components=30, random_state=s, max_iter=1000,
                                  weight_concentration_prior_type="dirichlet_process").fit(X)
          for s in range(5)]
    assert [int((m.weights_ > 0.01).sum()) for m in sk] == [2] * 5
    assert ours[0].tol_ == pytest.approx(1e-3 / X.shape[0])


@pytest.mark.parametrize("name", ["wine", "olive_oil"])
def test_gaussian_mixture_default_reaches_the_converged_fit(name):
    from latentkit import datasets

    X = _standardised(getattr(datasets, "load_" + name)())
    default = GaussianMixture(3, random_state=0).fit(X)
    converged = GaussianMixture(3, random_state=0, tol=1e-12, max_iter=5000).fit(X)
    assert default.converged_
    assert default.lower_bound_ == pytest.approx(converged.lower_bound_, abs=1e-5)


@pytest.mark.parametrize("make", [
    lambda: GaussianMixture(2, random_state=0),
    lambda: VariationalGaussianMixture(n_components=2, random_state=0),
    lambda: GaussianHMM(2, random_state=0),
], ids=["gmm", "vgmm", "ghmm"])
def test_kmeans_start_does_not_depend_on_the_offset(make):
    """The k-means++ start (squared distances |x|^2 - 2 x.c + |c|^2) is taken about the data
    mean: 1e9 from the origin it seeded at random (VGMM merged both clusters)."""
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(-3, 1, (200, 2)), rng.normal(3, 1, (200, 2))])
    near, far = make().fit(X), make().fit(X + 1e9)
    assert far.n_iter_ == near.n_iter_
    np.testing.assert_allclose(np.sort(far.means_[:, 0]) - 1e9, np.sort(near.means_[:, 0]),
                               atol=1e-4)
