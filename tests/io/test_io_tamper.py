"""A model file whose array is rewritten on purpose, the metadata kept and the zip CRCs
consistent (so the zip layer sees nothing wrong), is refused by latentkit.load (issue 33,
item 8): the checksum written with the metadata covers the arrays' bytes."""

import zipfile

import numpy as np
import pytest

from latentkit import io
from latentkit.datasets import make_gmm
from latentkit.mixture import GaussianMixture


def _rewrite_member(src, dst, member, new_array):
    """Copy the archive, replacing one .npy member by ``new_array`` (zipfile writes a correct
    CRC for it); every other member, the metadata included, is copied byte for byte."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            if info.filename == member:
                with zout.open(member, "w") as fh:
                    np.lib.format.write_array(fh, new_array, allow_pickle=False)
            else:
                zout.writestr(info, zin.read(info.filename))


@pytest.mark.parametrize("change", ["value", "permuted"])
def test_rewritten_array_with_kept_metadata_is_refused(tmp_path, change):
    X, _, _ = make_gmm(120, 2, 2, random_state=0)
    g = GaussianMixture(2, random_state=0).fit(X)
    path, bad = tmp_path / "g.npz", tmp_path / "bad.npz"
    io.save(g, path)
    means = g.means_.copy()
    # a plausible forgery, same dtype and shape: one mean moved, or the components swapped
    forged = means + np.array([[0.5, 0.0], [0.0, 0.0]]) if change == "value" else \
        means[::-1].copy()
    _rewrite_member(path, bad, "attr/means_.npy", forged)
    with zipfile.ZipFile(bad) as z:
        assert z.testzip() is None  # every CRC is consistent
        meta = io._META_KEY + ".npy"
        with zipfile.ZipFile(path) as orig:
            assert z.read(meta) == orig.read(meta)
    assert io.read_metadata(bad) == io.read_metadata(path)
    with pytest.raises(io.ModelFileError, match="checksum"):
        io.load(bad)
    # the untouched file loads, with the saved means
    np.testing.assert_array_equal(io.load(path).means_, g.means_)
