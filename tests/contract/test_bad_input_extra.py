"""Bad input found by a fresh-user pass over the recent features: a feature (column) that is
NaN in every row under ``missing='marginalize'``, and the CLI's missing-data and HMM options."""

import io
import json
import warnings

import numpy as np
import pytest

from latentkit import cli
from latentkit.mixture import DirichletProcessMixture, GaussianMixture, VariationalGaussianMixture
from latentkit.mixture._gaussian_component import GaussianComponent
from latentkit.sequence import GaussianHMM
from latentkit.sources import ArraySource

MODELS = {
    "gmm": lambda: GaussianMixture(2, missing="marginalize", random_state=0, max_iter=5),
    "vgmm": lambda: VariationalGaussianMixture(n_components=2, missing="marginalize",
                                               random_state=0, max_iter=5),
    "dpmm": lambda: DirichletProcessMixture(
        n_components=3, component=GaussianComponent(missing="marginalize"), random_state=0,
        max_iter=5),
    "ghmm": lambda: GaussianHMM(2, missing="marginalize", random_state=0, max_iter=5),
}


def _with_holes(seed=0, n=40, d=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X[rng.random(X.shape) < 0.1] = np.nan
    return X


@pytest.mark.parametrize("name", sorted(MODELS))
def test_a_column_missing_everywhere_is_refused_naming_it(name):
    # before: the fit "learned" mean 0 and variance reg_covar for a feature it never saw, and
    # impute() filled it with 0 and a standard deviation of ~0.003
    X = _with_holes()
    X[:, 1] = np.nan
    before = X.copy()
    with pytest.raises(ValueError, match=r"no observed entry in column\(s\) \[1\] of 3"):
        MODELS[name]().fit(X)
    np.testing.assert_array_equal(X, before)  # the input is untouched
    with pytest.raises(ValueError, match=r"column\(s\) \[0, 1, 2\]"):  # nothing observed at all
        MODELS[name]().fit(np.full((10, 3), np.nan))


def test_the_column_check_sees_all_the_chunks_and_the_weights():
    X = _with_holes()
    X[:, 2] = np.nan
    with pytest.raises(ValueError, match=r"column\(s\) \[2\]"):
        GaussianMixture(2, missing="marginalize", max_iter=3).fit(ArraySource(X, chunk_size=7))
    X[-1, 2] = 0.5  # observed once, in the last chunk: the merged summary has it
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a one-point feature: convergence is not the point
        GaussianMixture(2, missing="marginalize", max_iter=3, random_state=0).fit(
            ArraySource(X, chunk_size=7))
    w = np.ones(len(X))
    w[-1] = 0.0  # ... but only in a row of zero weight
    with pytest.raises(ValueError, match=r"column\(s\) \[2\]"):
        GaussianMixture(2, missing="marginalize", max_iter=3).fit(X, sample_weight=w)


def _csv(tmp_path, X, name="points.csv"):
    path = tmp_path / name
    np.savetxt(path, X, delimiter=",", header=",".join(f"f{j}" for j in range(X.shape[1])),
               comments="")
    return str(path)


def _run(argv):
    out = io.StringIO()
    return cli.main(argv, out=out), out.getvalue()


def test_cli_fit_vgmm_passes_missing_marginalize_to_the_model(tmp_path):
    # before: refused ("VariationalGaussianMixture has no missing-data option"), though it has
    X = _with_holes(seed=1, n=60, d=2)
    X[:30] += 5.0
    path = _csv(tmp_path, X)
    status, text = _run(["fit", "vgmm", "--data", path, "-k", "3", "--seed", "0",
                         "--max-iter", "20", "--missing", "marginalize", "--json", "--quiet"])
    assert status == 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = VariationalGaussianMixture(n_components=3, missing="marginalize", random_state=0,
                                         max_iter=20).fit(np.loadtxt(path, delimiter=",",
                                                                     skiprows=1))
    np.testing.assert_allclose(json.loads(text)["means"], ref.means_, rtol=1e-10)


@pytest.mark.parametrize("command", [["fit", "gmm"], ["fit", "hmm"], ["select", "gmm", "-k", "2"],
                                     ["select", "hmm", "-k", "2"]])
def test_cli_nan_without_missing_names_the_entry_and_the_option(tmp_path, command, capsys):
    X = np.arange(40.0).reshape(20, 2)
    X[3, 1] = np.nan
    status, _ = _run([*command, "--data", _csv(tmp_path, X), "--quiet"])
    err = capsys.readouterr().err
    assert status == 2
    assert "1 missing (nan) entries, the first at row 3, column 1" in err
    assert "--missing marginalize" in err


def test_cli_fit_hmm_missing_marginalize_is_gaussian_hmm(tmp_path):
    rng = np.random.default_rng(2)
    X = np.r_[rng.normal(0, 1, (40, 2)), rng.normal(4, 1, (40, 2))]
    X[rng.random(X.shape) < 0.1] = np.nan
    path = _csv(tmp_path, X)
    status, text = _run(["fit", "hmm", "--data", path, "-k", "2", "--seed", "0", "--max-iter",
                         "15", "--missing", "marginalize", "--json", "--quiet"])
    assert status == 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = GaussianHMM(2, missing="marginalize", random_state=0, max_iter=15).fit(
            np.loadtxt(path, delimiter=",", skiprows=1))
    np.testing.assert_allclose(json.loads(text)["means"], ref.means_, rtol=1e-10)


@pytest.mark.parametrize("argv, message", [
    (["--dataset", "old_faithful", "--n-mix", "3"], "--n-mix applies to --emission gmm only"),
    (["--dataset", "earthquakes", "--missing", "marginalize"], "got emission 'poisson'"),
    (["--dataset", "old_faithful", "--variational", "--missing", "marginalize"],
     "with --variational"),
])
def test_cli_fit_hmm_refuses_options_it_would_ignore(argv, message, capsys):
    # before: --n-mix without --emission gmm was silently ignored (a GaussianHMM was fitted)
    status, _ = _run(["fit", "hmm", *argv, "--quiet"])
    assert status == 2 and message in capsys.readouterr().err


def test_cli_select_passes_missing_marginalize_to_every_fit(tmp_path):
    from latentkit.selection import select_n_components

    X = _with_holes(seed=3, n=60, d=2)
    path = _csv(tmp_path, X)
    status, text = _run(["select", "gmm", "--data", path, "-k", "1:2", "--max-iter", "10",
                         "--missing", "marginalize", "--json", "--quiet"])
    assert status == 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = select_n_components("gmm", np.loadtxt(path, delimiter=",", skiprows=1), [1, 2],
                                  progress=False, model_params={
                                      "covariance_type": "full", "missing": "marginalize",
                                      "max_iter": 10}).to_dict()
    got = json.loads(text)["table"]
    np.testing.assert_allclose([r["bic"] for r in got], [r["bic"] for r in ref["table"]],
                               rtol=1e-12)


@pytest.mark.parametrize("lengths", [[2**63 - 1, 1], np.array([2**64 - 1], dtype=np.uint64),
                                     [1e20, 1.0]])
def test_lengths_longer_than_x_are_named_before_the_sum_wraps(lengths):
    # before: int64 wrap-around, "lengths sum to -9223372036854775808" or "lengths[0] = -1"
    from latentkit._utils.validation import check_lengths

    with pytest.raises(ValueError, match=r"lengths\[0\] = \d.* is longer than X, which has 60"):
        check_lengths(lengths, 60)
    with pytest.raises(ValueError, match=r"lengths\[0\] = \d.* is longer than X"):
        GaussianHMM(2).fit(np.zeros((60, 1)), lengths=lengths)


def test_save_names_the_bad_destination_not_the_temporary_file(tmp_path):
    # before: "No such file or directory: '.../nope/.x.npz.4238.b97e069e.tmp'" and, for a
    # folder, an IsADirectoryError about a temporary file created in the folder's parent
    import latentkit as lk

    model = GaussianMixture(1, max_iter=2).fit(np.arange(10.0).reshape(5, 2))
    with pytest.raises(FileNotFoundError, match="folder to save into does not exist") as exc:
        lk.save(model, tmp_path / "nope" / "x.npz")
    assert exc.value.filename == str(tmp_path / "nope")
    with pytest.raises(IsADirectoryError, match="path is a folder") as exc:
        lk.save(model, tmp_path)
    assert exc.value.filename == str(tmp_path)
    assert sorted(p.name for p in tmp_path.parent.iterdir() if p.name.endswith(".tmp")) == []


@pytest.mark.parametrize("option, value", [("--max-df", "0"), ("--min-df", "0")])
def test_cli_text_document_count_zero_is_a_user_error_not_a_traceback(tmp_path, option, value,
                                                                     capsys):
    # before: --max-df 0 passed latentkit's check (int >= 0) and scikit-learn's CountVectorizer
    # raised InvalidParameterError, shown as a traceback (not a latentkit error)
    pytest.importorskip("sklearn")
    (tmp_path / "a.txt").write_text("the sea and the ship", encoding="utf-8")
    (tmp_path / "b.txt").write_text("a ship on the sea", encoding="utf-8")
    status, _ = _run(["fit", "lda", "--text", str(tmp_path), "-k", "2", option, value,
                      "--quiet"])
    assert status == 2
    # issue 27: the message names the flag (--max-df), not the parameter (max_df)
    assert f"{option} must be a document count (int >= 1)" in capsys.readouterr().err


def _two_state_series_with_nan():
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(0.0, 1.0, (100, 2)), rng.normal(4.0, 1.0, (100, 2))]
    X[3, 0] = np.nan
    X[150, 1] = np.nan
    return X


def test_gaussian_hmm_spectral_start_with_missing_entries_starts_from_mean_filled_data():
    # before: "Input X contains NaN or infinity at row 3" from the spectral start, which
    # validated the raw data with missing='error'
    X = _two_state_series_with_nan()
    m = GaussianHMM(2, covariance_type="diag", missing="marginalize", init="spectral",
                    random_state=0).fit(X)
    means = np.sort(m.means_[:, 0])
    assert np.all(np.isfinite(m.lower_bounds_))
    assert abs(means[0]) < 0.5 and abs(means[1] - 4.0) < 0.5


def test_gaussian_hmm_impute_without_marginalize_says_what_to_do():
    # before: the generic "Input X contains NaN or infinity at row 3"
    X = _two_state_series_with_nan()
    m = GaussianHMM(2, covariance_type="diag", random_state=0).fit(np.nan_to_num(X))
    with pytest.raises(ValueError, match="impute needs the model fitted with "
                                         "missing='marginalize'"):
        m.impute(X)


@pytest.mark.parametrize("name", ["GaussianHMM", "GMMHMM", "VariationalGaussianHMM"])
def test_gaussian_hmms_refuse_sparse_input_with_the_dense_message(name):
    # before: numpy's "ufunc 'isfinite' not supported for the input types"
    import scipy.sparse as sp

    from latentkit import sequence

    X = sp.csr_matrix(np.abs(np.random.default_rng(1).normal(size=(30, 2))))
    with pytest.raises(TypeError, match="sparse matrix, but a dense array is required"):
        getattr(sequence, name)(2).fit(X)


def test_gmmhmm_refuses_more_gaussians_than_time_steps():
    # before: GMMHMM(2, n_mix=50) on 20 points fitted with collapsed components and a bound
    # of +9.5 nats per step
    from latentkit.sequence import GMMHMM

    X = np.random.default_rng(0).normal(size=(20, 2))
    with pytest.raises(ValueError, match=r"n_components \* n_mix = 2 \* 50 = 100 Gaussians"):
        GMMHMM(2, n_mix=50).fit(X)
    GMMHMM(2, n_mix=10, max_iter=2).fit(X)  # 20 Gaussians, 20 steps: allowed


def test_csv_missing_values_as_pandas_and_r_write_them_are_nan(tmp_path):
    # before: "line 2: '' is not a number" for pandas' empty field and R's NA
    from latentkit.datasets import read_numeric_csv
    from latentkit.sources import CSVSource

    path = tmp_path / "holes.csv"
    path.write_text("a,b,c\n1.5,,3\nNA,2,N/A\n4,null,6\n", encoding="utf-8")
    X, header = read_numeric_csv(path)
    assert list(header) == ["a", "b", "c"]
    expected = np.array([[1.5, np.nan, 3.0], [np.nan, 2.0, np.nan], [4.0, np.nan, 6.0]])
    np.testing.assert_array_equal(X, expected)
    chunks = [np.asarray(c) for c in CSVSource(str(path), chunk_size=2).iter_chunks()]
    np.testing.assert_array_equal(np.vstack(chunks), expected)
    with pytest.raises(ValueError, match="'x' is not a number"):
        (tmp_path / "bad.csv").write_text("a,b\n1,2\nx,3\n", encoding="utf-8")
        read_numeric_csv(tmp_path / "bad.csv")


def test_stochastic_vi_takes_in_memory_sequences_as_whole_sequence_minibatches():
    # before: the full lengths went with every minibatch ("lengths[0] = 50 is longer than X,
    # which has 1 rows"); now in-memory sequences take the ChunkSource path of whole sequences
    from latentkit.inference import StochasticVI
    from latentkit.sources import IterableSource

    rng = np.random.default_rng(3)
    lengths = rng.integers(20, 40, size=12)
    X = np.r_[rng.normal(0, 1, (lengths.sum() // 2, 2)),
              rng.normal(4, 1, (lengths.sum() - lengths.sum() // 2, 2))]
    kw = dict(batch_size=60, n_epochs=3, random_state=0, holdout=None)
    a = StochasticVI(GaussianHMM(2, random_state=0), **kw).fit(X, lengths=lengths).model_
    b = StochasticVI(GaussianHMM(2, random_state=0), **kw).fit(
        IterableSource([(X, {"lengths": lengths})], n_samples=len(X))).model_
    np.testing.assert_array_equal(a.means_, b.means_)
    np.testing.assert_array_equal(a.transmat_, b.transmat_)
    with pytest.raises(ValueError, match="would cut sequences apart"):
        StochasticVI(GaussianHMM(2), batch_size=60, holdout=0.1).fit(X, lengths=lengths)
    with pytest.raises(ValueError, match="lengths"):
        StochasticVI(GaussianHMM(2), batch_size=60, holdout=None).fit(X, lengths=[5, 5])


@pytest.mark.slow
@pytest.mark.parametrize("holdout", [None, 0.25])
def test_online_lda_batch_size_over_the_corpus_is_one_minibatch_as_scikit_learn(holdout):
    # before: "batch_size=128 is larger than the number of training samples N=40" with the
    # default batch_size on a 40-document corpus (scikit-learn fits it); StochasticVI caps it
    from latentkit.inference import StochasticVI
    from latentkit.topic import LatentDirichletAllocation
    from latentkit.topic._lda_svi import online_batch_size

    X = np.random.default_rng(0).poisson(1.0, (40, 10))
    kw = dict(n_epochs=3, random_state=0, holdout=holdout)
    n_train = 40 if holdout is None else 30
    assert online_batch_size(128, 40, holdout) == n_train
    assert online_batch_size(16, 40, holdout) == 16
    big = StochasticVI(LatentDirichletAllocation(3), batch_size=128, **kw).fit(X)
    exact = StochasticVI(LatentDirichletAllocation(3), batch_size=n_train, **kw).fit(X)
    np.testing.assert_array_equal(big.components_, exact.components_)
