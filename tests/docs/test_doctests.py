"""Every public model class has an ``Examples`` section, and its examples run (doctest).

The classes come from the same walk over ``__all__`` as ``tests/contract/test_common.py``, so a new
public model without examples fails here."""

import doctest
import sys
import warnings
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "contract"))
from test_common import NOT_MODELS, public_model_classes  # noqa: E402

MODELS = {name: cls for name, cls in public_model_classes().items() if name not in NOT_MODELS}


@pytest.mark.parametrize("name", sorted(MODELS))
def test_class_examples_run(name):
    cls = MODELS[name]
    assert "\n    Examples\n    --------\n" in (cls.__doc__ or ""), \
        f"{name} has no Examples section in its docstring"
    # the class docstring only (methods keep their own, untested, examples, if any)
    test = doctest.DocTestParser().get_doctest(cls.__doc__, {}, f"{cls.__module__}.{name}",
                                               None, 0)
    assert test.examples, f"{name}: the Examples section holds no doctest"
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    failures = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # convergence on toy data is not what they show
        runner.run(test, out=failures.append)
    assert runner.failures == 0, "".join(failures)

