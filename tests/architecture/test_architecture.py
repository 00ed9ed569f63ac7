"""The architecture counts of issue 39 that are at zero stay there (``tools/architecture_counts.py``
defines them; ``python tools/architecture_counts.py`` prints all of them for a checkout).

* The core (``_engine/``, ``base.py``, ``inference``, ``sources.py``) holds no family names:
  each family checks its own restored state with its ``_check_state`` hook (docs/design.md
  section 3) and the core only has generic checkers of values.
* No load-time circle between folders: ``_engine/`` holds the pieces ``base`` is built from,
  and the drivers built on ``base`` (``StochasticVI``, ``PrivateStochasticVI``) live in the
  ``inference`` package above it (on main: ``_engine <-> base <-> parallel <-> sources``).
* Code below a family class takes arrays and returns values, in every folder of the package:
  no module reads or writes a private attribute it does not define (other than the declared
  hooks of docs/design.md section 3: 45 such references on 2a396fa), and no module-level
  function takes the model to touch its private state (16 on 2a396fa). This replaces the
  per-folder guards the issue 39 branches added while each folder was being done.
"""

import ast
import pathlib
import sys

import latentkit
from latentkit._engine.params import ParamsMixin

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

import architecture_counts  # noqa: E402  (tools/ is not a package)


def test_the_core_holds_no_family_names():
    found = architecture_counts.family_names(ROOT)
    assert found == [], ("the core names a model family (move the branch into the family, "
                         "behind a hook such as _check_state): "
                         + "; ".join(f"{path}:{line} {names}" for path, line, names in found))


def test_every_exported_model_checks_its_own_state():
    """Every exported model class overrides ParamsMixin's empty ``_check_state`` (the base
    class and the drivers, which hold no fitted model state of their own, excepted)."""
    without = {name for name, _ in latentkit._EXPORTS.items()
               if isinstance(getattr(latentkit, name), type)
               and issubclass(getattr(latentkit, name), ParamsMixin)
               and getattr(latentkit, name)._check_state is ParamsMixin._check_state}
    assert without == {"LatentModel", "StochasticVI", "PrivateStochasticVI"}, sorted(without)


def test_no_load_time_circle_between_folders():
    assert architecture_counts.folder_circles(ROOT) == []


def test_the_engine_imports_nothing_built_on_base():
    """``_engine/`` is the floor below ``base``: none of its modules imports ``base``,
    ``sources``, ``parallel`` or ``inference``, even inside a function."""
    engine = ROOT / "latentkit" / "_engine"
    above = ("base", "sources", "parallel", "inference")
    for path in sorted(engine.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level == 2 and node.module:
                assert node.module.split(".")[0] not in above, (path.name, node.module)
            if isinstance(node, ast.Import):
                for alias in node.names:
                    parts = alias.name.split(".")
                    assert not (parts[0] == "latentkit" and parts[1:2] and parts[1] in above), \
                        (path.name, alias.name)


def test_no_module_reaches_into_another_modules_private_state():
    found = architecture_counts.private_refs(ROOT)
    assert found == [], ("private attributes used outside the module that defines them "
                         "(pass arrays, or declare a hook in docs/design.md section 3): "
                         + "; ".join(f"{path}:{line} {ref}" for path, line, ref in found))


def test_no_function_takes_the_model_to_touch_its_private_state():
    found = architecture_counts.model_taking(ROOT)
    assert found == [], ("module-level functions that take the model and touch its private "
                         "state (let the model's hook call them with arrays): "
                         + "; ".join(f"{path}:{line} {what}" for path, line, what in found))
