"""Execute every tutorial notebook end to end on the bundled data (a notebook that raises
fails the test), and check what each one teaches against its published number."""

import os
import pathlib

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = pathlib.Path(__file__).parents[1]
TUTORIALS = sorted((ROOT / "tutorials").glob("*.ipynb"))


def _run(path, monkeypatch):
    # the kernel imports the latentkit of this checkout, installed or not
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(
        [str(ROOT)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=600, kernel_name="python3",
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    return "\n".join(out.get("text", "") for cell in nb.cells if cell.cell_type == "code"
                     for out in cell.get("outputs", []))


def test_there_are_tutorials():
    assert len(TUTORIALS) >= 3


@pytest.mark.parametrize("path", TUTORIALS, ids=lambda p: p.stem)
def test_tutorial_runs(path, monkeypatch):
    text = _run(path, monkeypatch)
    if "old_faithful" in path.stem:
        assert "total log-likelihood: -1130.26" in text
        assert "ELBO never decreases: True" in text
    if "earthquakes" in path.stem:
        assert "2 states: -log L = 341.8787" in text
        assert "3 states: -log L = 328.5275" in text
    if "kos" in path.stem:
        assert "rows sum to one: True" in text
