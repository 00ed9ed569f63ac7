"""``docs/design.md`` stays true (issue 39, item 7).

* its layout section (section 2) is what ``tools/design_layout.py`` generates from the tree:
  every package folder and module of ``latentkit/`` with its docstring's first sentence, nothing
  that no longer exists;
* the recipe (section 3) names every hook the drivers may call on a model, and no other: the
  hook table's first column against ``TEMPLATE | HOOKS`` of ``tests/architecture/test_drivers.py`` (the
  sets the drivers are checked against), the five methods of step 3 and the helpers'
  paragraph against ``TEMPLATE`` and ``HELPERS``.

Cheap: reads files, fits nothing.
"""

import importlib.util
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DESIGN = ROOT / "docs" / "design.md"


def _load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def drivers():
    """tests/architecture/test_drivers.py wherever the tests folder keeps it."""
    (path,) = sorted((ROOT / "tests").rglob("test_drivers.py"))
    return _load("_design_doc_drivers", path)


@pytest.fixture(scope="module")
def text():
    return DESIGN.read_text(encoding="utf-8")


def _section(text, start, stop):
    i = text.index(start)
    j = text.index(stop, i + len(start))
    return text[i:j]


_NAME = re.compile(r"`(_[a-z]\w*)")


def test_layout_section_is_generated_from_the_tree(text):
    tool = _load("_design_layout", ROOT / "tools" / "design_layout.py")
    found = tool.current(text)
    assert found is not None, (f"docs/design.md has no {tool.BEGIN!r} ... {tool.END!r} "
                               "section; run: python tools/design_layout.py --write")
    assert found == tool.layout(ROOT), (
        "docs/design.md's layout section (section 2) differs from the tree; regenerate it "
        "with: python tools/design_layout.py --write")


def test_layout_section_names_every_package_and_module(text):
    """The generator itself: every folder and module of latentkit/ is on a line of its own
    (so a new folder cannot be left out by a bug in the walk)."""
    tool = _load("_design_layout", ROOT / "tools" / "design_layout.py")
    lines = tool.current(text).splitlines()
    labels = [ln[:tool.COLUMN].strip() for ln in lines if ln[:1] in " l" and ln.strip()]
    package = ROOT / "latentkit"
    want = []
    for p in sorted(package.rglob("*.py")):
        if "__pycache__" not in p.parts:
            want.append(p.parent.name + "/" if p.name == "__init__.py" else p.name)
    assert sorted(labels) == sorted(want)


def _hook_table(text):
    table = _section(text, "### Every hook, with its contract", "Helpers a model calls")
    rows = [ln for ln in table.splitlines() if ln.startswith("| `")]
    return {name for row in rows for name in _NAME.findall(row.split(" | ")[0])}


def test_recipe_hook_table_lists_every_driver_hook(text, drivers):
    declared = drivers.TEMPLATE | drivers.HOOKS
    in_doc = _hook_table(text)
    assert in_doc == declared, (
        f"docs/design.md's hook table lacks {sorted(declared - in_doc)} and names "
        f"{sorted(in_doc - declared)} that tests/architecture/test_drivers.py does not declare")


def test_recipe_step_three_lists_the_template(text, drivers):
    step3 = _section(text, "3. **Five methods**", "4. **Inference methods**")
    named = set(_NAME.findall(step3))
    assert named == drivers.TEMPLATE | {"_check_state"}, sorted(named)


def test_recipe_lists_the_helpers(text, drivers):
    para = _section(text, "Helpers a model calls", "A new **component")
    helpers = set(_NAME.findall(para.split("The state the")[0]))
    assert helpers == drivers.HELPERS, sorted(helpers ^ drivers.HELPERS)
