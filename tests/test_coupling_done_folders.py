"""Folders already passing arrays, not the model (issue 39, item 1): in ``neural/``,
``spectral/``, ``_utils/``, ``cli/``, ``plotting/``, ``privacy/``, ``io.py`` and
``selection.py`` no module reads a private attribute that it does not define (other than the
declared hooks of ``tests/test_drivers.py``), and no module-level function reads or writes a
private attribute of its first argument (the model). The counts are
``tools/architecture_counts.py``'s (``--list private_refs`` / ``--list model_taking`` print
every place); once every folder is at 0 a whole-package test replaces this one.
"""

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DONE = ("neural/", "spectral/", "_utils/", "cli/", "plotting/", "privacy/", "io.py",
        "selection.py")


@pytest.fixture(scope="module")
def counts():
    spec = importlib.util.spec_from_file_location("_architecture_counts",
                                                  ROOT / "tools" / "architecture_counts.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("kind", ["private_refs", "model_taking"])
def test_done_folders_pass_arrays_not_the_model(counts, kind):
    found = [f"{path}:{line} {what}" for path, line, what in getattr(counts, kind)(ROOT)
             if path.startswith(DONE)]
    assert not found, (f"{kind} below the model class (pass arrays or the model's own object "
                       "and assign in the model's hook):\n" + "\n".join(found))
