"""Every named input check raises latentkit.exceptions.InputError (issue 25, item 3).

`tools/input_errors.py` rewrites the library's `raise ValueError/TypeError` to the InputError
classes and keeps a reviewed list of the raises that are not input errors (internal invariants,
control flow). Here: the exception hierarchy, that no unreviewed `ValueError`/`TypeError` is
left in `latentkit/` (new code cannot slip back), and that the rewrite is correct and
idempotent on a small tree."""

import importlib
import importlib.util
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import latentkit.exceptions as exc

ROOT = Path(__file__).resolve().parents[2]


def _script():
    spec = importlib.util.spec_from_file_location("input_errors", ROOT / "tools" / "input_errors.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_hierarchy():
    assert issubclass(exc.InputError, ValueError)
    assert issubclass(exc.InputTypeError, exc.InputError)
    assert issubclass(exc.InputTypeError, TypeError)
    for cls in (exc.ModelFileError, exc.DatasetIntegrityError, exc.TextInputError,
                exc.StateCheckError):
        assert issubclass(cls, exc.InputError), cls
    for name in exc.__all__:
        cls = getattr(exc, name)
        assert issubclass(cls, (Exception, Warning)) and cls.__module__ == exc.__name__, name


@pytest.mark.parametrize("module, name", [
    ("latentkit.io", "ModelFileError"),
    ("latentkit.datasets", "DatasetIntegrityError"),
    ("latentkit.text", "TextInputError"),
    ("latentkit._engine.state_checks", "StateCheckError"),
    ("latentkit.base", "NotFittedError"),
    ("latentkit.base", "ConvergenceWarning"),
    ("latentkit.cli", "CLIError"),
    ("latentkit.cli._common", "KWarning"),
    ("latentkit.distributions", "CollapsedComponentWarning"),
    ("latentkit.spectral", "SpectralInitWarning"),
    ("latentkit.spectral", "PrivacyNoiseWarning"),
    ("latentkit.spectral", "PrivacyRelationWarning"),
])
def test_old_import_paths_give_the_same_class(module, name):
    assert getattr(importlib.import_module(module), name) is getattr(exc, name)


def test_validation_raises_input_errors():
    from latentkit._utils.validation import check_array, check_scalar

    with pytest.raises(exc.InputTypeError, match="tol must be a real number"):
        check_scalar("1", "tol")
    with pytest.raises(exc.InputError, match="tol must be >= 0"):
        check_scalar(-1.0, "tol", low=0)
    with pytest.raises(exc.InputTypeError, match="must contain numbers"):
        check_array([[{}, 1.0]])
    with pytest.raises(exc.InputError, match="must contain numbers") as info:
        check_array([["a", "1"]])
    assert not isinstance(info.value, TypeError)  # an unparsable string: a value error


def test_every_value_or_type_error_left_is_reviewed():
    rows = _script().scan(ROOT)
    left = [f"{rel}:{line} {cls} in {qual}: {msg[:50]!r}"
            for rel, line, qual, cls, msg, reason in rows if reason is None]
    assert not left, ("raise InputError/InputTypeError (latentkit.exceptions) for a named "
                      "input check, or add the raise to SKIP in tools/input_errors.py with "
                      "its reason:\n" + "\n".join(left))


def test_every_skip_entry_still_matches_a_raise():
    script = _script()
    rows = script.scan(ROOT)
    reasons = {r[5] for r in rows}
    stale = [key for key, reason in script.SKIP.items() if reason not in reasons]
    assert not stale, f"SKIP entries that match no raise any more: {stale}"


def test_rewrite_is_correct_and_idempotent(tmp_path):
    script = _script()
    pkg = tmp_path / "latentkit" / "sub"
    pkg.mkdir(parents=True)
    (tmp_path / "latentkit" / "__init__.py").write_text("")
    (tmp_path / "latentkit" / "exceptions.py").write_text(
        (ROOT / "latentkit" / "exceptions.py").read_text())
    (pkg / "__init__.py").write_text("")
    (pkg / "_mod.py").write_text(textwrap.dedent('''\
        """Doc."""
        import numpy as np

        from ..exceptions import NotFittedError  # a comment

        SKIPPED = 1


        def check(x):
            if x < 0:
                raise ValueError(f"x must be >= 0, got {x}.")
            if not isinstance(x, int):
                raise TypeError("x must be an int.")
            return _err("text")


        def _err(msg):
            return {"é": ValueError("é " + msg)}["é"]


        def _activate(a):
            raise ValueError("activation must be one of relu")
        '''))
    (pkg / "_plain.py").write_text("def f():\n    raise TypeError('t')\n")
    out = subprocess.run([sys.executable, str(ROOT / "tools" / "input_errors.py"), str(tmp_path)],
                         capture_output=True, text=True, check=True).stdout
    assert out.startswith("rewrote 4 raises in 2 modules; 1 skipped"), out
    mod = (pkg / "_mod.py").read_text()
    assert "from ..exceptions import NotFittedError, InputError, InputTypeError  # a comment" in mod
    assert 'raise InputError(f"x must be >= 0' in mod and 'raise InputTypeError("x must' in mod
    assert 'return {"é": InputError("é " + msg)}["é"]' in mod
    assert 'raise ValueError("activation must be one of relu")' in mod  # on the skip list
    plain = (pkg / "_plain.py").read_text()
    assert plain == "from ..exceptions import InputTypeError\ndef f():\n    raise InputTypeError('t')\n"
    # the rewritten module imports the classes and raises them
    probe = ("from latentkit.sub import _mod\n"
             "try:\n    _mod.check(-1)\nexcept Exception as e:\n    print(type(e).__name__)")
    ran = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True,
                         text=True, check=True)
    assert ran.stdout.strip() == "InputError", ran
    before = {p: p.read_text() for p in tmp_path.rglob("*.py")}
    assert script.main([str(tmp_path), "--check"]) == 0
    script.main([str(tmp_path)])
    assert {p: p.read_text() for p in tmp_path.rglob("*.py")} == before
