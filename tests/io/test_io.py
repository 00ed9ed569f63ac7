"""latentkit.io: save/load of fitted models as .npz + JSON metadata, never pickle."""

import json
import zipfile

import numpy as np
import pytest

import latentkit
from latentkit import io
from latentkit.base import LatentModel, NotFittedError, Stats, stats_dataclass
from latentkit.datasets import make_gmm, make_lda_corpus


@stats_dataclass
class _MeanStats(Stats):
    n: float
    sx: np.ndarray
    data_term: float


class UnitGaussian(LatentModel):
    """A tiny fake model: the mean of a unit-variance Gaussian (EM converges in one step)."""

    def __init__(self, max_iter=10, tol=1e-6, random_state=None, init="zeros", prior=None,
                 callback=None, label="fake"):
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        self.init = init
        self.prior = prior
        self.callback = callback
        self.label = label

    def _validate_data(self, X, reset, **kw):
        X = np.asarray(X, dtype=np.float64)
        if reset:
            self.n_features_in_ = X.shape[1]
        return X

    def _init_params(self, data, rng):
        self.mean_ = np.zeros(data.shape[1])
        self._cache = self.mean_ + 1.0  # a private derived array

    def _empty_stats(self):
        return _MeanStats(0.0, np.zeros(self.n_features_in_), 0.0)

    def _e_step(self, data):
        ll = -0.5 * ((data - self.mean_) ** 2).sum() - 0.5 * data.size * np.log(2 * np.pi)
        return _MeanStats(float(data.shape[0]), data.sum(0), float(ll))

    def _m_step(self, stats, step_size=1.0, scale=1.0):
        self.mean_ = stats.sx / stats.n
        self._cache = self.mean_ + 1.0

    def _set_state(self, state):
        super()._set_state(state)
        self._cache = self.mean_ + 1.0  # private derived state is rebuilt, never stored

    def score_samples(self, X):
        X = np.asarray(X, dtype=np.float64)
        return -0.5 * ((X - self.mean_) ** 2).sum(1) - 0.5 * X.shape[1] * np.log(2 * np.pi)


@pytest.fixture
def fake(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3)) + [1.0, -2.0, 0.5]
    model = UnitGaussian(prior={"mean": np.array([1.0, 2.0, 3.0]), "weight": 0.5},
                         callback=lambda m, i, e: None, random_state=3).fit(X)
    return model, X, tmp_path / "fake.npz"


def test_round_trip_fake_model(fake):
    model, X, path = fake
    io.save(model, path)
    loaded = io.load(path)
    assert type(loaded) is UnitGaussian
    np.testing.assert_array_equal(loaded.mean_, model.mean_)
    np.testing.assert_array_equal(loaded._cache, model._cache)
    np.testing.assert_array_equal(loaded.lower_bounds_, model.lower_bounds_)
    assert loaded.lower_bound_ == model.lower_bound_
    assert loaded.n_iter_ == model.n_iter_ and loaded.converged_ is model.converged_
    assert loaded.n_features_in_ == 3 and isinstance(loaded.n_features_in_, int)
    np.testing.assert_array_equal(loaded.score_samples(X), model.score_samples(X))
    # hyper-parameters, including an array inside a dict; the callback is dropped
    assert loaded.random_state == 3 and loaded.label == "fake" and loaded.init == "zeros"
    np.testing.assert_array_equal(loaded.prior["mean"], [1.0, 2.0, 3.0])
    assert loaded.prior["weight"] == 0.5
    assert loaded.callback is None
    meta = io.read_metadata(path)
    assert {"callback", "monitor_"} <= set(meta["skipped"])
    assert meta["class"] == "UnitGaussian" and meta["latentkit_version"] == latentkit.__version__
    assert meta["attributes"]["mean_"] == {"kind": "array", "dtype": "<f8", "shape": [3]}
    # nothing private leaks into the file: only the state the model declares
    assert not any(k.startswith("_") for k in meta["attributes"])
    assert set(meta["state"]) <= {"rng", "running_stats", "sample_rng"}
    assert meta["params"]["max_iter"] == 10
    # the caller's model is untouched by saving
    assert callable(model.callback)


def test_file_is_readable_without_pickle(fake):
    model, _, path = fake
    io.save(model, path)
    with np.load(path, allow_pickle=False) as npz:
        for key in npz.files:
            assert npz[key].dtype != object
        meta = json.loads(bytes(npz["__metadata__"]).decode())
    assert meta["format"] == "latentkit-model"


def test_errors_are_clear(fake, tmp_path):
    model, X, path = fake
    with pytest.raises(NotFittedError):
        io.save(UnitGaussian(), path)
    with pytest.raises(TypeError, match="latentkit model"):
        io.save(np.zeros(3), path)
    with pytest.raises(FileNotFoundError):
        io.load(tmp_path / "missing.npz")

    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"definitely not a zip file")
    with pytest.raises(io.ModelFileError, match="not a latentkit model file: not a .npz") as e:
        io.load(junk)
    assert "allow_pickle" not in str(e.value)  # issue 27: NumPy's advice misled

    io.save(model, path)
    truncated = tmp_path / "truncated.npz"
    truncated.write_bytes(path.read_bytes()[:200])
    with pytest.raises(io.ModelFileError):
        io.load(truncated)

    plain = tmp_path / "plain.npz"
    np.savez(plain, a=np.arange(3))
    with pytest.raises(io.ModelFileError, match="without latentkit metadata"):
        io.load(plain)


def _rewrite_meta(path, out, resign=False, **changes):
    """Copy of ``path`` with metadata entries changed; ``resign``: with the checksum made
    consistent again (as a file written that way would be)."""
    with np.load(path, allow_pickle=False) as npz:
        arrays = {k: npz[k] for k in npz.files}
    meta = json.loads(bytes(arrays["__metadata__"]).decode())
    meta.update(changes)
    if resign:
        meta["sha256"] = io._digest({k: v for k, v in arrays.items() if k != "__metadata__"},
                                    meta)
    arrays["__metadata__"] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    np.savez(out, **arrays)
    return out


def test_other_major_version_and_foreign_class(fake, tmp_path):
    model, _, path = fake
    io.save(model, path)
    old = _rewrite_meta(path, tmp_path / "old.npz", resign=True, latentkit_version="7.0.0")
    with pytest.raises(io.ModelFileError, match="another major version"):
        io.load(old)
    fmt = _rewrite_meta(path, tmp_path / "fmt.npz", format_version=99)
    with pytest.raises(io.ModelFileError, match="format version"):
        io.load(fmt)
    foreign = _rewrite_meta(path, tmp_path / "foreign.npz", resign=True,
                            module="some_unimported_pkg.models")
    with pytest.raises(io.ModelFileError, match="never imported"):
        io.load(foreign)
    assert isinstance(io.load(foreign, model_class=UnitGaussian), UnitGaussian)
    with np.load(path, allow_pickle=False) as npz:
        arrays = {k: npz[k] for k in npz.files}
    arrays["attr/mean_"] = np.zeros(5)  # shape disagrees with the metadata
    np.savez(tmp_path / "shape.npz", **arrays)
    with pytest.raises(io.ModelFileError, match="shape"):
        io.load(tmp_path / "shape.npz")


def test_round_trip_gaussian_mixture(tmp_path):
    from latentkit.mixture import GaussianMixture

    X, _, _ = make_gmm(200, 3, 2, random_state=0)
    for ct in ("full", "diag", "spherical", "tied"):
        gm = GaussianMixture(3, covariance_type=ct, random_state=0).fit(X)
        io.save(gm, tmp_path / "gm.npz")
        gm2 = latentkit.load(tmp_path / "gm.npz")
        assert gm2.get_params() == gm.get_params()
        for name in ("weights_", "means_", "covariances_", "precisions_cholesky_",
                     "lower_bounds_"):
            np.testing.assert_array_equal(getattr(gm2, name), getattr(gm, name))
        np.testing.assert_array_equal(gm2.score_samples(X), gm.score_samples(X))
        np.testing.assert_array_equal(gm2.predict(X), gm.predict(X))
        assert gm2.bic(X) == gm.bic(X)


def test_round_trip_lda(tmp_path):
    from latentkit.topic import LatentDirichletAllocation

    X, _ = make_lda_corpus(100, 3, 40, doc_length=30, random_state=0)
    lda = LatentDirichletAllocation(3, max_iter=10, tol=0.0, random_state=0, init="random").fit(X)
    latentkit.save(lda, tmp_path / "lda.npz")
    lda2 = io.load(tmp_path / "lda.npz")
    np.testing.assert_array_equal(lda2.components_, lda.components_)
    np.testing.assert_array_equal(lda2.transform(X), lda.transform(X))
    assert lda2.perplexity(X) == lda.perplexity(X)
    assert lda2.elbo(X) == lda.elbo(X)
    # a loaded model keeps working as a model: refit from the loaded hyper-parameters
    assert lda2.fit(X).n_iter_ >= 1


def test_save_accepts_str_path(fake):
    model, _, path = fake
    io.save(model, str(path))
    assert zipfile.is_zipfile(path)


@pytest.mark.slow  # quick tier: over 2 s on 2 quiet cores (tools/quick_tier.py)
def test_every_damaged_byte_is_a_model_file_error_or_harmless(tmp_path):
    # flipping any byte either leaves the model intact (unused zip header fields) or gives
    # ModelFileError: never zlib.error / NotImplementedError from deep inside, never silent
    # different parameters (the arrays carry a sha256 checked on load)
    from latentkit.mixture import GaussianMixture
    X, _, _ = make_gmm(120, 2, 2, random_state=0)
    g = GaussianMixture(2, random_state=0).fit(X)
    path = tmp_path / "g.npz"
    io.save(g, path)
    raw = path.read_bytes()
    bad = tmp_path / "bad.npz"
    outcomes = set()
    for i in range(0, len(raw), 3):
        b = bytearray(raw)
        b[i] ^= 0xFF
        bad.write_bytes(bytes(b))
        try:
            m = io.load(bad)
        except io.ModelFileError:
            outcomes.add("error")
        else:
            np.testing.assert_array_equal(m.means_, g.means_)
            np.testing.assert_array_equal(m.covariances_, g.covariances_)
            outcomes.add("intact")
    assert "error" in outcomes


def test_a_driver_holding_a_fitted_model_is_refused(tmp_path):
    from latentkit.inference import StochasticVI
    from latentkit.mixture import GaussianMixture
    X, _, _ = make_gmm(200, 2, 2, random_state=0)
    svi = StochasticVI(GaussianMixture(2), batch_size=50, n_epochs=1, random_state=0).fit(X)
    with pytest.raises(TypeError, match=r"save it on its own: latentkit.save\(obj.model_"):
        io.save(svi, tmp_path / "svi.npz")
    io.save(svi.model_, tmp_path / "model.npz")
    np.testing.assert_array_equal(io.load(tmp_path / "model.npz").means_, svi.means_)
