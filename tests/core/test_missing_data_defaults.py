"""Data-derived defaults with missing entries come from all the data (issue 15 item 1 with
issue 11 item 3): the scale check, the default Normal-Wishart prior of the variational and
Dirichlet-process mixtures and GaussianHMM's ``shift_`` are resolved from a NaN-aware,
mergeable summary (:class:`latentkit._utils.summaries.MissingMomentSummary`: observed weights, means
and centred cross products per pair of columns), so a chunked or Dask fit equals the in-memory
fit to 1e-10 even when the first chunk is unrepresentative (sorted by a feature, a column
entirely missing in it).
"""

import numpy as np
import pytest

from latentkit._utils.summaries import MissingMomentSummary, MomentSummary
from latentkit.distributions._missing import mean_fill
from latentkit.inference import ArraySource, IterableSource
from latentkit.mixture import DirichletProcessMixture, GaussianMixture
from latentkit.mixture._variational import VariationalGaussianMixture
from latentkit.sequence import GaussianHMM
from latentkit.testing._mixtures import gaussian_mixture

from test_data_defaults import RTOL, _dask, _fit_dask, _fixed_init, _same_fit


def _with_holes(X, frac, seed, first_rows=10, first_col=1):
    """NaN at random (``frac``), the column ``first_col`` entirely missing in the first
    ``first_rows`` rows and the row 3 entirely missing."""
    rng = np.random.default_rng(seed)
    X = np.where(rng.random(X.shape) < frac, np.nan, X)
    X[:first_rows, first_col] = np.nan
    X[3] = np.nan
    return X


@pytest.mark.parametrize("diagonal", [False, True])
def test_summary_of_chunks_equals_the_mean_filled_whole(diagonal):
    """The merged summary is the in-memory definition (NaN filled by the column means of the
    observed entries), and merging is associative with the empty summary as identity."""
    rng = np.random.default_rng(0)
    X = _with_holes(rng.normal(5.0, 2.0, (57, 4)) * [1, 10, 0.1, 1], 0.25, 0)
    w = rng.uniform(0.2, 2.0, 57)
    ref = MomentSummary.of(mean_fill(X, w), w, diagonal=diagonal)
    parts = [MissingMomentSummary.of(X[a:b], w[a:b], diagonal=diagonal)
             for a, b in ((0, 7), (7, 20), (20, 57))]
    empty = MissingMomentSummary.of(X[:0], w[:0], diagonal=diagonal)
    for got in (parts[0] + parts[1] + parts[2], parts[0] + (parts[1] + parts[2]),
                empty + parts[0] + parts[1] + parts[2] + empty,
                MissingMomentSummary.of(X, w, diagonal=diagonal)):
        assert (got.n, got.sw) == (57, pytest.approx(w.sum(), rel=1e-14))
        np.testing.assert_allclose(got.mean, ref.mean, rtol=1e-13)
        np.testing.assert_allclose(got.scatter, ref.scatter, rtol=1e-12, atol=1e-12)
        np.testing.assert_array_equal(got.xmin, ref.xmin)
        np.testing.assert_array_equal(got.xmax, ref.xmax)
    none = MissingMomentSummary.of(np.full((3, 2), np.nan), np.ones(3), diagonal=diagonal)
    np.testing.assert_array_equal(none.mean, 0.0)  # as the column-mean fill: 0
    np.testing.assert_array_equal(none.xmin, 0.0)


@pytest.mark.filterwarnings("ignore::latentkit.base.ConvergenceWarning")  # max_iter=10
@pytest.mark.parametrize("cls", [VariationalGaussianMixture, DirichletProcessMixture])
def test_variational_priors_with_missing_entries_from_every_block(cls):
    rng = np.random.default_rng(2)
    X = np.vstack([rng.normal(-3, 1, (30, 2)), rng.normal(3, 0.5, (30, 2))])
    X = _with_holes(X[np.argsort(X[:, 0])], 0.15, 1)  # blocks of 10 sorted by coordinate 0
    k = {"n_components": 3} if cls is VariationalGaussianMixture else {"truncation": 3}
    model = gaussian_mixture(cls, **k, init="random", max_iter=10, random_state=0,
                             missing="marginalize")
    ref = _fixed_init(model, X).fit(X)
    assert ref.mean_prior_ == pytest.approx(np.nanmean(X, axis=0), rel=1e-13)
    for src, fit in [(ArraySource(X, 10), lambda m, s: m.fit(s)), (_dask(X, 10), _fit_dask)]:
        other = fit(_fixed_init(model, X), src)
        np.testing.assert_allclose(other.mean_prior_, ref.mean_prior_, rtol=RTOL)
        np.testing.assert_allclose(other.covariance_prior_, ref.covariance_prior_, rtol=RTOL)
        _same_fit(ref, other, ["means_", "covariances_", "weights_"])


def test_gaussian_hmm_shift_with_missing_entries_from_every_chunk():
    rng = np.random.default_rng(4)
    X = np.concatenate([rng.normal(0, 1, (20, 2)), rng.normal(1e3, 1, (40, 2))])
    X = _with_holes(X, 0.1, 2, first_rows=20)
    model = GaussianHMM(2, max_iter=8, tol=0, random_state=0, missing="marginalize")
    ref = _fixed_init(model, X, lengths=[20, 40]).fit(X, lengths=[20, 40])
    np.testing.assert_allclose(ref.emission_.shift_, np.nanmean(X, axis=0), rtol=1e-13)
    src = IterableSource([(X[:20], {"lengths": [20]}), (X[20:], {"lengths": [40]})])
    chunked = _fixed_init(model, X, lengths=[20, 40]).fit(src)
    np.testing.assert_allclose(chunked.emission_.shift_, ref.emission_.shift_, rtol=RTOL)
    _same_fit(ref, chunked, ["means_", "covars_", "transmat_"])


def test_scale_check_with_missing_entries_sees_every_chunk():
    X = _with_holes(np.random.default_rng(0).normal(size=(12, 2)), 0.2, 3)
    X[11] = [1e160, np.nan]
    for data in (X, ArraySource(X, 10)):
        with pytest.raises(ValueError, match="too large in scale"):
            GaussianMixture(2, random_state=0, missing="marginalize").fit(data)
