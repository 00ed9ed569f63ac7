"""The tests live in folders by what they test (issue 39, item 6): ``tests/cli/``,
``tests/topic/``, ``tests/architecture/``, ... (docs/guide/testing.md lists them). At
``tests/`` root stay only the shared helpers (``conftest.py``, ``_model_cases.py``,
``_stored.py``, ``toy_models.py``, ``recipe_models.py``, ``_readme_driver.py``) and ``data/``.

The test folders have no ``__init__.py`` (pytest's default ``prepend`` import mode imports each
test file under its base name, and ``tests/conftest.py`` puts ``tests/`` on ``sys.path`` for the
helpers), so two test files with one base name in two folders would fail to collect with
"import file mismatch"; this test names them instead."""

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
