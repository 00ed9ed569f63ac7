"""Below the family class, code takes arrays (or the model's own callables) and returns values;
the model's hooks assign (issue 39, item 1) -- for the mixtures, the HMM emissions and the
distributions. Counted by ``tools/architecture_counts.py`` (its definitions): on main
``mixture/_private_svi.py`` wrote ``m._prior``, ``m._params``, ``m._shift``,
``mixture/_hand_set.py`` wrote ``model._shift``, ``sequence/_hand_set.py`` called
``model._make_emission`` and ``sequence/_start_check.py`` ``model._start_values``: 15
references, 4 model-taking functions, so this test fails there."""

import importlib.util
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]
FOLDERS = ("mixture/", "sequence/", "distributions/")


def _counts():
    spec = importlib.util.spec_from_file_location("_arch_counts",
                                                  ROOT / "tools" / "architecture_counts.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_no_private_reach_into_another_modules_model():
    tool = _counts()
    refs = [r for r in tool.private_refs(ROOT) if r[0].startswith(FOLDERS)]
    assert not refs, f"private attributes read or written from another module: {refs}"


def test_no_helper_takes_the_model_to_touch_its_private_state():
    tool = _counts()
    found = [r for r in tool.model_taking(ROOT) if r[0].startswith(FOLDERS)]
    assert not found, f"module-level functions that take the model: {found}"
