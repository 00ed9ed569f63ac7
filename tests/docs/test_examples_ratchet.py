"""Every public class and function page has a runnable example (issue 47, item 2), measured
from the docstrings: a numpydoc ``Examples`` section (run by ``tests/docs/test_doctests.py``).

Not done yet for the names in ``tests/data/public_names_without_example.txt`` (the gap when the
check was written: 73 of 95 classes and 178 of 180 functions). The list may only shrink: a new
public name without an example fails here, and so does a listed name that has gained one (take
it off the list)."""

import importlib
import inspect
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TODO = ROOT / "tests" / "data" / "public_names_without_example.txt"


def _pages():
    sys.path.insert(0, str(ROOT / "docs" / "_ext"))
    try:
        import latentkit_api as api
    finally:
        sys.path.pop(0)
    table, _ = api.api_table()
    for modname, rows in table.items():
        for name, owner in rows:
            if owner != modname:
                continue
            obj = getattr(importlib.import_module(modname), name)
            if inspect.isclass(obj) or inspect.isroutine(obj):
                yield f"{modname}.{name}", obj


def _has_example(obj):
    return "Examples\n--------" in (inspect.getdoc(obj) or "")


def test_public_pages_without_an_example_only_shrink():
    todo = set(TODO.read_text(encoding="utf-8").split())
    without = {name for name, obj in _pages() if not _has_example(obj)}
    new = sorted(without - todo)
    assert not new, f"public names without an Examples section (write one): {new}"
    done = sorted(todo & {name for name, obj in _pages() if _has_example(obj)})
    assert not done, f"these have an example now; remove them from {TODO.name}: {done}"
    gone = sorted(todo - {name for name, _ in _pages()})
    assert not gone, f"no longer public; remove them from {TODO.name}: {gone}"


def _with_examples():
    sys.path.insert(0, str(ROOT / "tests" / "contract"))
    from test_common import NOT_MODELS, public_model_classes
    models = {cls for name, cls in public_model_classes().items() if name not in NOT_MODELS}
    # the model classes' examples run in tests/docs/test_doctests.py
    return {name: obj for name, obj in _pages() if _has_example(obj) and obj not in models}


_EXAMPLES = sorted(_with_examples())


@pytest.mark.parametrize("name", _EXAMPLES)
def test_examples_run(name):
    """The Examples of every other public class and function page run (doctest)."""
    import doctest
    import warnings
    obj = dict(_pages())[name]
    test = doctest.DocTestParser().get_doctest(inspect.getdoc(obj), {}, name, None, 0)
    assert test.examples, f"{name}: the Examples section holds no doctest"
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    failures = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # convergence on toy data is not what they show
        runner.run(test, out=failures.append)
    assert runner.failures == 0, "".join(failures)
