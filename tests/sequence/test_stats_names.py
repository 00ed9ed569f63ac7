"""The HMM statistics use the Gaussian block's names of the mixtures (``nk``, ``sx``, ``sxx``
as in ``GaussianStats``; issue 12 item 7): the old names (``post``, ``obs``, ``obs2``;
``post_mix`` for GMMHMM) still read with a DeprecationWarning, and model files written with the
old names (running statistics of ``partial_fit``) still load, to the same model."""

import json

import numpy as np
import pytest

from latentkit.distributions import GaussianStats
from latentkit.io import _digest, load, save
from latentkit.sequence import GMMHMM, GaussianHMM, PoissonHMM
from latentkit.sequence import GaussianHMMStats, GMMHMMStats, PoissonHMMStats

OLD = {GaussianHMMStats: {"post": "nk", "obs": "sx", "obs2": "sxx"},
       PoissonHMMStats: {"post": "nk", "obs": "sx"},
       GMMHMMStats: {"post_mix": "nk", "obs": "sx", "obs2": "sxx"}}


def test_gaussian_block_fields_match_the_mixtures():
    hmm_fields = set(GaussianHMMStats.__dataclass_fields__)
    assert {"nk", "sx", "sxx"} <= hmm_fields
    assert {"nk", "sx", "sxx"} <= set(GaussianStats.__dataclass_fields__)
    assert not hmm_fields & {"post", "obs", "obs2"}


def _data(seed=0):
    rng = np.random.default_rng(seed)
    z = np.repeat(np.arange(12) % 2, 20)
    return rng.normal(size=(z.size, 2)) + 3.0 * z[:, None], [40] * 6


def _models():
    X, lengths = _data()
    counts = np.random.default_rng(1).poisson(3.0, size=X.shape)
    return [(GaussianHMM(2, "full", random_state=0), X, lengths),
            (GaussianHMM(2, "tied", random_state=0), X, lengths),
            (PoissonHMM(2, random_state=0), counts, lengths),
            (GMMHMM(2, 2, "diag", random_state=0), X, lengths)]


@pytest.mark.parametrize("case", range(4))
def test_old_names_read_with_a_warning(case):
    model, X, lengths = _models()[case]
    model.partial_fit(X, lengths=lengths)
    stats = model._e_step(model._validate_data(X, False, lengths))
    for old, new in OLD[type(stats)].items():
        with pytest.warns(DeprecationWarning, match=new):
            value = getattr(stats, old)
        assert value is getattr(stats, new)


def _new_key(key, renames):
    head, _, last = key.rpartition("/")
    back = {old: new for new, old in renames.items()}
    return f"{head}/{back[last]}" if head and last in back else key


def _as_old_file(path, old_path, renames):
    """Rewrite a saved model as latentkit 0.1 wrote it: the statistics' fields (JSON keys and
    their array names) under the old names."""
    with np.load(path, allow_pickle=False) as f:
        arrays = {k: f[k] for k in f.files}
    meta = json.loads(bytes(arrays.pop("__metadata__")).decode("utf-8"))

    def rename(node):
        if isinstance(node, dict):
            if "__stats__" in node:
                node["fields"] = {renames.get(k, k): v for k, v in node["fields"].items()}
            return {k: rename(v) for k, v in node.items()}
        if isinstance(node, list):
            return [rename(v) for v in node]
        return node

    def old_key(key):
        head, _, last = key.rpartition("/")
        return f"{head}/{renames[last]}" if head and last in renames else key

    meta = rename(meta)
    for key in list(arrays):
        if old_key(key) != key:
            arrays[old_key(key)] = arrays.pop(key)
    meta["format_version"] = 2  # the old writer's format: its checksum covers the arrays only
    meta["sha256"] = _digest(arrays)  # the old writer's checksum over its array names
    text = json.dumps(meta)
    for key in arrays:
        text = text.replace(json.dumps(_new_key(key, renames)), json.dumps(key))
    assert all(f'"{old}"' in text for old in renames.values())  # the file really uses the old names
    arrays["__metadata__"] = np.frombuffer(text.encode("utf-8"), dtype=np.uint8)
    np.savez(old_path, **arrays)


@pytest.mark.parametrize("case", range(4))
def test_model_files_with_the_old_names_still_load(case, tmp_path):
    model, X, lengths = _models()[case]
    model.partial_fit(X, lengths=lengths)  # running statistics are part of the saved state
    save(model, tmp_path / "new.npz")
    renames = {new: old for old, new in OLD[type(model._running_stats)].items()}
    _as_old_file(tmp_path / "new.npz", tmp_path / "old.npz", renames)
    loaded = load(tmp_path / "old.npz")
    for name in OLD[type(model._running_stats)].values():
        np.testing.assert_array_equal(getattr(loaded._running_stats, name),
                                      getattr(model._running_stats, name))
    # the loaded model continues stepwise EM exactly as the original
    a = model.partial_fit(X, lengths=lengths, step_size=0.5)
    b = loaded.partial_fit(X, lengths=lengths, step_size=0.5)
    np.testing.assert_array_equal(b.transmat_, a.transmat_)
    np.testing.assert_array_equal(b.means_ if hasattr(a, "means_") else b.lambdas_,
                                  a.means_ if hasattr(a, "means_") else a.lambdas_)
