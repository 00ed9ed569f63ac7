"""`latentkit sample MODEL.npz -n N --out FILE` (issue 40 item 7): synthetic rows from a saved
model; for a private model they are a post-processing of its released parameters (drawn from
the saved file and the seed alone) and spend no new budget."""

import io
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from latentkit import cli
from latentkit.io import load, save
from latentkit.neural import PrivateVAE


def _run(argv):
    out = io.StringIO()
    return cli.main(argv, out=out), out.getvalue()


def test_sample_a_private_vae_draws_from_the_saved_parameters(tmp_path):
    X = (np.random.default_rng(0).random((80, 6)) < 0.5).astype(float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = PrivateVAE(2, epsilon=2.0, hidden_layer_sizes=(3,), batch_size=20,
                       max_iter=1).fit(X)
    path = str(tmp_path / "m.npz")
    save(m, path)
    status, out = _run(["sample", path, "-n", "7", "--out", str(tmp_path / "s.csv"),
                        "--seed", "3"])
    assert status == 0 and "covered by its epsilon 2, no new budget" in out
    rows = np.loadtxt(tmp_path / "s.csv", delimiter=",")
    ref = load(path).sample(7, random_state=np.random.default_rng(3))[0]
    np.testing.assert_array_equal(rows, ref)
    # the draws are a function of the parameters and the seed: the in-memory model (which
    # saw the data) gives the same rows, other parameters give other rows
    np.testing.assert_array_equal(m.sample(7, random_state=np.random.default_rng(3))[0], ref)
    other = load(path)
    other.params_ = other.params_ + 1.0
    assert not np.array_equal(other.sample(7, random_state=np.random.default_rng(3))[0], ref)


def test_sample_a_private_svi_lda_needs_a_public_document_length(tmp_path, capsys):
    from test_cli_private_svi import _base
    path = str(tmp_path / "lda.npz")
    status, _ = _run(_base(tmp_path) + ["--epsilon", "50", "--out", path])
    assert status == 0
    status, _ = _run(["sample", path, "-n", "4", "--out", str(tmp_path / "d.npz")])
    assert status == 2 and "--doc-length" in capsys.readouterr().err
    status, out = _run(["sample", path, "-n", "4", "--out", str(tmp_path / "d.npz"),
                        "--doc-length", "30", "--seed", "1"])
    assert status == 0
    docs = sp.load_npz(tmp_path / "d.npz")
    ref = load(path).sample(4, random_state=np.random.default_rng(1), doc_length=30)[0]
    assert docs.shape == (4, 25) and (docs != ref).nnz == 0


def test_sample_bad_arguments(tmp_path, capsys):
    X = (np.random.default_rng(0).random((40, 4)) < 0.5).astype(float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = PrivateVAE(2, epsilon=2.0, hidden_layer_sizes=(3,), batch_size=20,
                       max_iter=1).fit(X)
    path = str(tmp_path / "m.npz")
    save(m, path)
    for extra in (["-n", "0", "--out", str(tmp_path / "a.csv")],
                  ["-n", "2", "--out", str(tmp_path / "a.txt")]):
        status, _ = _run(["sample", path] + extra)
        assert status == 2
