"""Property-based tests (hypothesis): ``latentkit.load`` on arbitrary or damaged files raises
only its documented errors, and every model's statistics form a monoid whose merge of chunk
statistics equals the statistics of the concatenation."""

import io as _pyio
import json
import warnings
import zipfile

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import latentkit as lk
from latentkit.base import ConvergenceWarning
from latentkit.io import ModelFileError

from _model_cases import CASES

_SETTINGS = dict(deadline=None, derandomize=True,
                 suppress_health_check=[HealthCheck.function_scoped_fixture,
                                        HealthCheck.too_slow])


def _fitted(name, n=60):
    make, data = CASES[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return make().fit(data(n, 0))


@pytest.fixture(scope="module")
def saved_bytes(tmp_path_factory):
    """A GaussianHMM file (emission, frozen set, running statistics and generator states in
    its state) and a GaussianMixture file."""
    out = {}
    for name in ("GaussianHMM", "GaussianMixture"):
        m = _fitted(name)
        m.partial_fit(CASES[name][1](20, 1))
        path = tmp_path_factory.mktemp("files") / f"{name}.npz"
        lk.save(m, path)
        out[name] = path.read_bytes()
    return out


def _load_bytes(raw, tmp_path):
    path = tmp_path / "f.npz"
    path.write_bytes(raw)
    try:
        return lk.load(path)
    except ModelFileError:
        return None


@settings(max_examples=40, **_SETTINGS)
@given(raw=st.binary(max_size=600))
def test_load_of_arbitrary_bytes_raises_only_model_file_error(raw, tmp_path):
    assert _load_bytes(raw, tmp_path) is None


@settings(max_examples=40, **_SETTINGS)
@given(data=st.data())
def test_load_of_a_damaged_file_is_intact_or_model_file_error(data, saved_bytes, tmp_path):
    name = data.draw(st.sampled_from(sorted(saved_bytes)))
    raw = bytearray(saved_bytes[name])
    how = data.draw(st.sampled_from(["flip", "truncate", "splice"]))
    if how == "flip":
        for i in data.draw(st.lists(st.integers(0, len(raw) - 1), min_size=1, max_size=4)):
            raw[i] ^= data.draw(st.integers(1, 255))
    elif how == "truncate":
        raw = raw[:data.draw(st.integers(0, len(raw) - 1))]
    else:
        i = data.draw(st.integers(0, len(raw)))
        raw[i:i] = data.draw(st.binary(min_size=1, max_size=40))
    m = _load_bytes(bytes(raw), tmp_path)
    if m is not None:  # harmless damage (unused zip fields): the model is intact
        ref = _load_bytes(saved_bytes[name], tmp_path)
        np.testing.assert_array_equal(m.means_, ref.means_)


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=False)
    | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner,
                                                                 max_size=3),
    max_leaves=8)


def _paths(obj, prefix=()):
    yield prefix
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _paths(v, prefix + (i,))


def _rewrite_metadata(raw, meta):
    """The same archive with other metadata (a well-formed zip: only the content is wrong)."""
    src = zipfile.ZipFile(_pyio.BytesIO(raw))
    out = _pyio.BytesIO()
    with zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            if info.filename == "__metadata__.npy":
                buf = _pyio.BytesIO()
                np.save(buf, np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8))
                dst.writestr(info.filename, buf.getvalue())
            else:
                dst.writestr(info, src.read(info.filename))
    return out.getvalue()


@pytest.mark.slow
@settings(max_examples=60, **_SETTINGS)
@given(data=st.data())
def test_load_with_arbitrary_metadata_raises_only_model_file_error(data, saved_bytes,
                                                                   tmp_path):
    """Replace one node of the JSON metadata (the part the checksum does not cover) by an
    arbitrary JSON value: load returns a model or raises ModelFileError, nothing else."""
    name = data.draw(st.sampled_from(sorted(saved_bytes)))
    raw = saved_bytes[name]
    with np.load(_pyio.BytesIO(raw), allow_pickle=False) as npz:
        meta = json.loads(bytes(npz["__metadata__"]).decode())
    paths = [p for p in _paths(meta) if p]
    path = data.draw(st.sampled_from(paths))
    node = meta
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = data.draw(_JSON)
    _load_bytes(_rewrite_metadata(raw, meta), tmp_path)


# --------------------------------------------------------------------------------------------
# the statistics monoid
# --------------------------------------------------------------------------------------------

def _validated(model, X):
    if isinstance(model, lk.HiddenMarkovModel):
        n = X.shape[0]
        return model._validate_data(X, reset=False, lengths=[n // 4, n // 4, n // 4,
                                                             n - 3 * (n // 4)])
    return model._validate_data(X, reset=False)


def _assert_stats_close(a, b, rtol=1e-10, atol=1e-9):
    lk.testing.assert_stats_allclose(a, b, rtol=rtol, atol=atol)


@pytest.fixture(scope="module")
def fitted_models():
    return {name: _fitted(name) for name in CASES}


@pytest.mark.parametrize("name", sorted(CASES))
def test_statistics_are_a_monoid(name, fitted_models):
    model = fitted_models[name]
    make, gen = CASES[name]

    @settings(max_examples=8, **_SETTINGS)
    @given(seed=st.integers(0, 2**16), n_chunks=st.integers(1, 4),
           weights=st.tuples(*[st.floats(0.1, 10.0)] * 3))
    def check(seed, n_chunks, weights):
        data = _validated(model, gen(48, seed))
        whole = model._e_step(data)
        chunks = [model._e_step(c) for c in model._split_data(data, n_chunks)]
        empty = model._empty_stats()
        # identity, on both sides, exactly
        assert whole + empty == whole and empty + whole == whole
        assert empty.zero() == empty
        # merging the chunks' statistics equals the statistics of the whole
        total = empty
        for c in chunks:
            total = total + c
        _assert_stats_close(total, whole)
        # associativity (and commutativity) of the merge, on scaled statistics
        a, b, c = (w * s for w, s in zip(weights, (whole, chunks[0], chunks[-1])))
        _assert_stats_close((a + b) + c, a + (b + c))
        _assert_stats_close(a + b, b + a)

    check()
