"""The tests live in folders by what they test (issue 39, item 6): ``tests/cli/``,
``tests/topic/``, ``tests/architecture/``, ... (docs/guide/testing.md lists them). At
``tests/`` root stay only the shared helpers (``conftest.py``, ``_model_cases.py``,
``_stored.py``, ``toy_models.py``, ``recipe_models.py``, ``_readme_driver.py``) and ``data/``.

The test folders have no ``__init__.py`` (pytest's default ``prepend`` import mode imports each
test file under its base name, and ``tests/conftest.py`` puts ``tests/`` on ``sys.path`` for the
helpers), so two test files with one base name in two folders would fail to collect with
"import file mismatch"; this test names them instead."""

import ast
from collections import defaultdict
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]


def test_no_test_file_at_tests_root():
    at_root = sorted(p.name for p in TESTS.glob("test_*.py"))
    assert not at_root, (f"test files at tests/ root: {at_root}; put each in the folder of what it "
                         "tests (tests/cli/, tests/topic/, tests/core/, ...: "
                         "docs/guide/testing.md, 'Where the tests live')")


def test_test_file_names_are_unique_across_folders():
    where = defaultdict(list)
    for path in TESTS.rglob("test_*.py"):
        where[path.name].append(path.relative_to(TESTS).as_posix())
    twice = {name: sorted(paths) for name, paths in where.items() if len(paths) > 1}
    assert not twice, (f"test files sharing a base name (pytest imports them under that name, "
                       f"so the second fails to import): {twice}; rename one")


def test_no_init_py_in_test_folders():
    # an __init__.py in one folder would make its files a package (imported as cli.test_x)
    # while the others stay base-named: a mixed layout where helper imports break by folder
    inits = sorted(p.relative_to(TESTS).as_posix() for p in TESTS.rglob("__init__.py"))
    assert not inits, f"__init__.py in the tests tree: {inits}"


def _is_slow_mark(node):
    """``pytest.mark.slow`` (or ``mark.slow``), called or not."""
    if isinstance(node, ast.Call):
        node = node.func
    return isinstance(node, ast.Attribute) and node.attr == "slow" and (
        isinstance(node.value, ast.Attribute) and node.value.attr == "mark"
        or isinstance(node.value, ast.Name) and node.value.id == "mark")


def _module_is_slow(tree):
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "pytestmark"
                                                for t in node.targets):
            marks = node.value.elts if isinstance(node.value, (ast.List, ast.Tuple)) \
                else [node.value]
            if any(_is_slow_mark(m) for m in marks):
                return True
    return False


def _quick_tests(tree):
    """Test functions (and methods of Test classes) without a slow mark."""
    found = []
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            if any(_is_slow_mark(d) for d in node.decorator_list):
                continue
            body = node.body
        else:
            body = [node]
        for f in body:
            if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)) and \
                    f.name.startswith("test") and \
                    not any(_is_slow_mark(d) for d in f.decorator_list):
                found.append(f.name)
    return found


# Test files whose every test is slow, with the reason none can be quick.
ALL_SLOW = {
    "docs/test_readme_commands.py": "its one test runs every README command in fresh "
                                    "interpreters",
    "parallel/test_model_list_determinism.py": "its one test fits every model in subprocesses "
                                               "at four numba thread counts",
}


def test_every_test_file_keeps_a_quick_test():
    """The quick tier (``python -m pytest -q -m "not slow"``) runs at least one test of every
    test file, so that every module's main path is in it; a file may be all slow only when it
    is listed above with its reason."""
    all_slow = []
    for path in sorted(TESTS.rglob("test_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if _module_is_slow(tree) or not _quick_tests(tree):
            all_slow.append(path.relative_to(TESTS).as_posix())
    assert sorted(ALL_SLOW) == all_slow, (
        f"test files with no quick test, not listed in ALL_SLOW: "
        f"{sorted(set(all_slow) - set(ALL_SLOW))}; listed but with a quick test: "
        f"{sorted(set(ALL_SLOW) - set(all_slow))}")


def test_slow_marker_registered_and_quick_tier_named_in_the_readme():
    root = TESTS.parent
    # the markers list of [tool.pytest.ini_options] (read as text: tomllib is 3.11+)
    assert '"slow: ' in (root / "pyproject.toml").read_text(encoding="utf-8")
    assert 'python -m pytest -q -m "not slow"' in (root / "README.md").read_text(encoding="utf-8")
