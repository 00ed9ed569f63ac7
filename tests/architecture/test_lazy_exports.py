"""Lazy package exports (PEP 562, latentkit._utils.lazy): a Gaussian mixture fit, from Python
or the CLI, does not import its sibling families' modules, the spectral estimators or the
SciPy submodules only they need; every name in ``__all__`` still resolves and is listed by
``dir()``. Checked in a new process (sys.modules of this one holds what other tests imported)."""

import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: modules a GaussianMixture does not need (each was imported by `from latentkit.mixture import
#: GaussianMixture` before the exports were lazy)
NOT_NEEDED = ["latentkit.mixture._dirichlet_process", "latentkit.mixture._variational",
              "latentkit.spectral._estimators", "latentkit.spectral._private_lda",
              "latentkit.spectral._accounting", "scipy.optimize", "scipy.spatial"]


def _imported_after(code):
    out = subprocess.run([sys.executable, "-c", code + "\nimport sys, json\n"
                          "print(json.dumps(sorted(sys.modules)))"], cwd=str(ROOT), check=True,
                         capture_output=True, text=True, timeout=300).stdout
    return set(json.loads(out.strip().splitlines()[-1]))


def test_gaussian_mixture_imports_no_sibling_family():
    mods = _imported_after("from latentkit.mixture import GaussianMixture")
    assert "latentkit.mixture._gaussian" in mods
    assert not [m for m in NOT_NEEDED if m in mods]


def test_cli_parser_imports_no_model_family():
    mods = _imported_after("from latentkit.cli import build_parser; build_parser()")
    assert not [m for m in NOT_NEEDED + ["latentkit.mixture._gaussian", "numba"] if m in mods]


@pytest.mark.parametrize("package", ["latentkit.mixture", "latentkit.spectral",
                                     "latentkit.distributions"])
def test_every_exported_name_resolves_and_is_listed(package):
    mod = importlib.import_module(package)
    listed = dir(mod)
    for name in mod.__all__:
        assert name in listed
        value = getattr(mod, name)
        assert getattr(value, "__name__", name) == name or not callable(value)
    with pytest.raises(AttributeError, match="no attribute 'not_a_name'"):
        getattr(mod, "not_a_name")
