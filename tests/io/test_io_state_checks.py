"""Model files that load must work (issue 26, item 4).

* The checksum covers the metadata: a file whose class name, module or hyper-parameters were
  edited is refused at ``load`` (it used to load and fail at first use).
* Every loaded state is validated by the model's family (``model._check_state()``): a fuzz
  over edited fields of every model's file, with the checksum made consistent again (as a
  deliberately crafted or a buggy writer's file would be), must give either a
  ``ModelFileError`` naming the edited attribute, or a model whose inference methods work.
"""

import json
import zlib
import warnings

import numpy as np
import pytest

from latentkit import io
from latentkit._engine.state_checks import StateCheckError, check_state

from _model_cases import CASES, SPECTRAL_CASES

ALL = {**CASES, **SPECTRAL_CASES}
_METHODS = ("score_samples", "score", "predict", "predict_proba", "transform", "elbo",
            "perplexity")


def _read(path):
    with np.load(path, allow_pickle=False) as npz:
        arrays = {k: npz[k] for k in npz.files}
    return arrays, json.loads(bytes(arrays.pop("__metadata__")).decode())


def _write(path, arrays, meta, resign=True):
    if resign:
        meta["sha256"] = io._digest(arrays, meta)
    out = dict(arrays, __metadata__=np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8))
    np.savez(path, **out)


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """name -> (path of the saved fitted model, data)."""
    folder = tmp_path_factory.mktemp("models")
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, (make, data) in ALL.items():
            X = data(40, 0)
            path = folder / f"{name}.npz"
            io.save(make().fit(X), path)
            out[name] = (path, X)
    return out


def _works(model, X):
    """Call every inference method the model has on X (raises if one fails)."""
    called = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for method in _METHODS:
            if callable(getattr(model, method, None)):
                try:
                    getattr(model, method)(X)
                except NotImplementedError:
                    continue
                called += 1
        if hasattr(model, "transmat_") and callable(getattr(model, "decode", None)):
            model.decode(X)
            called += 1
    return called


@pytest.mark.parametrize("name", sorted(ALL))
def test_unedited_files_pass_and_metadata_edits_are_refused(saved, name, tmp_path):
    path, X = saved[name]
    model = io.load(path)
    check_state(model)
    _works(model, X)
    arrays, meta = _read(path)
    other = "PLSA" if meta["class"] != "PLSA" else "GaussianMixture"
    edits = {"class": other, "module": "latentkit.topic",
             "params": dict(meta["params"], random_state=12345),
             "attributes": dict(meta["attributes"], n_features_in_={
                 "kind": "scalar", "type": "int",
                 "value": meta["attributes"]["n_features_in_"]["value"] + 1})}
    for key, value in edits.items():
        edited = dict(meta, **{key: value})
        _write(tmp_path / "m.npz", arrays, edited, resign=False)
        with pytest.raises(io.ModelFileError, match="checksum"):
            io.load(tmp_path / "m.npz")


def _array_edits(a):
    """(label, edited array) for one stored array."""
    out = [("extra row", np.concatenate([a, a[:1]]) if a.ndim and a.shape[0] else None),
           ("nan", a.astype(float).copy()),
           ("negated", -a.astype(float) - (a == 0)),
           ("doubled", a.astype(float) * 2 + 1.0),
           ("flattened", a.reshape(-1) if a.ndim > 1 else None)]
    if a.size:
        out[1][1].flat[a.size // 2] = np.nan
    else:
        out[1] = ("nan", None)
    return [(label, e) for label, e in out if e is not None]


@pytest.mark.parametrize("name", sorted(ALL))
def test_edited_fields_give_a_named_error_or_a_working_model(saved, name, tmp_path):
    path, X = saved[name]
    arrays, meta = _read(path)
    bad = tmp_path / "bad.npz"
    refused = 0
    n_features = meta["attributes"]["n_features_in_"]["value"]
    cases = []
    n_arrays = sum(info["kind"] == "array" for info in meta["attributes"].values())
    for i, (attr, info) in enumerate(meta["attributes"].items()):
        if info["kind"] != "array":
            continue
        edits = _array_edits(arrays[f"attr/{attr}"])
        # two of the edits per attribute, in turn (all of them over the attributes and models:
        # the suite's time), and the attribute dropped
        # (the turn is a stable function of the model's name, not of its place in the case
        # list: a new model case shifted every later model's edits, and LDA lost a refusal)
        offset = i + zlib.crc32(name.encode())
        # a model with few arrays (LDA: components_, its E-step table, the ELBO trace) gets
        # every edit, else too few refusals are sampled to say anything
        n_edits = 2 if n_arrays >= 4 else len(edits)
        for label, edited in [edits[(offset + j) % len(edits)] for j in range(n_edits)]:
            a2 = dict(arrays, **{f"attr/{attr}": edited})
            m2 = json.loads(json.dumps(meta))
            m2["attributes"][attr] = {"kind": "array", "dtype": edited.dtype.str,
                                      "shape": list(edited.shape)}
            cases.append((attr, label, a2, m2))
        a2 = {k: v for k, v in arrays.items() if k != f"attr/{attr}"}
        m2 = json.loads(json.dumps(meta))
        del m2["attributes"][attr]
        cases.append((attr, "dropped", a2, m2))
    for attr, value in (("n_features_in_", n_features + 1), ("n_components", None)):
        m2 = json.loads(json.dumps(meta))
        if attr == "n_features_in_":
            m2["attributes"][attr]["value"] = value
        elif isinstance(m2["params"].get("n_components"), int):
            m2["params"]["n_components"] += 1
        else:
            continue
        cases.append((attr, "plus one", arrays, m2))
    for attr, label, a2, m2 in cases:
        _write(bad, a2, m2)
        try:
            model = io.load(bad)
        except io.ModelFileError as exc:
            # the edited attribute is named, or (a size edited) an array that disagrees with it
            assert attr in str(exc) or (label == "plus one" and "attribute" in str(exc)), \
                (attr, label, str(exc))
            refused += 1
            continue
        try:  # a file that loads must work
            _works(model, X)
        except Exception as exc:  # noqa: BLE001 - any failure at first use is the bug
            pytest.fail(f"{name}: {attr} {label}: loaded, then {type(exc).__name__}: {exc}")
    assert refused >= 5, refused


def test_covariance_checks_name_the_attribute():
    from latentkit.mixture import GaussianMixture

    X = np.random.default_rng(0).normal(size=(60, 2))
    g = GaussianMixture(2, random_state=0).fit(X)
    g.covariances_ = g.covariances_.copy()
    g.covariances_[1] = [[1.0, 2.0], [2.0, 1.0]]  # symmetric, not positive definite
    with pytest.raises(StateCheckError, match="covariances_: expected positive-definite"):
        check_state(g)
    g.covariances_[1] = [[1.0, 0.5], [0.0, 1.0]]
    with pytest.raises(StateCheckError, match="covariances_: expected symmetric"):
        check_state(g)
    g.covariances_ = g.covariances_[:, :, :1]
    with pytest.raises(StateCheckError, match=r"covariances_: expected shape \(2, 2, 2\)"):
        check_state(g)


def test_version_2_files_still_load(saved, tmp_path):
    path, X = saved["GaussianMixture"]
    arrays, meta = _read(path)
    meta["format_version"] = 2
    meta["sha256"] = io._digest(arrays)  # version 2: the arrays only
    _write(tmp_path / "v2.npz", arrays, meta, resign=False)
    np.testing.assert_array_equal(io.load(tmp_path / "v2.npz").score_samples(X),
                                  io.load(path).score_samples(X))
    del meta["sha256"]
    meta["format_version"] = 3
    _write(tmp_path / "v3.npz", arrays, meta, resign=False)
    with pytest.raises(io.ModelFileError, match="lack the checksum"):
        io.load(tmp_path / "v3.npz")


def test_genuine_fits_of_every_covariance_type_pass_the_checks():
    import latentkit as lk

    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(size=(40, 3)), rng.normal(size=(40, 3)) + 3.0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for ct in ("full", "tied", "diag", "spherical"):
            for make in (lambda: lk.GaussianMixture(2, covariance_type=ct, random_state=0),
                         lambda: lk.VariationalGaussianMixture(2, covariance_type=ct,
                                                               random_state=0, max_iter=5),
                         lambda: lk.DirichletProcessMixture(
                             2, component=lk.distributions.Gaussian(ct), random_state=0,
                             max_iter=5),
                         lambda: lk.GaussianHMM(2, covariance_type=ct, random_state=0,
                                                max_iter=3),
                         lambda: lk.GMMHMM(2, 2, covariance_type=ct, random_state=0,
                                           max_iter=3)):
                check_state(make().fit(X))
        for ct in ("full", "diag", "spherical", "tied"):
            check_state(lk.VariationalGaussianHMM(2, ct, random_state=0, max_iter=3).fit(X))
