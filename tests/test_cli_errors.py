"""Which exceptions `latentkit` turns into one line and exit status 2 (the user's mistake) and
which it lets through with their traceback (a bug): `latentkit.cli._is_user_error`."""

import io

import numpy as np
import pytest

from latentkit import cli
from latentkit.cli._common import _finite
from latentkit.datasets import load_dataset


def _caught(fn):
    try:
        fn()
    except Exception as exc:  # noqa: BLE001 - the exception itself is under test
        return exc
    raise AssertionError("expected an exception")


def test_user_errors_are_latentkit_raises_oserrors_and_cli_errors():
    assert cli._is_user_error(cli.CLIError("bad option"))
    assert cli._is_user_error(FileNotFoundError(2, "No such file", "x.csv"))
    # a `raise ValueError(...)` of latentkit's validation
    assert cli._is_user_error(_caught(lambda: load_dataset("mnist")))


def test_bugs_are_not_user_errors():
    # raised inside NumPy
    assert not cli._is_user_error(_caught(lambda: np.ones(2).reshape(3)))
    # a failing expression in latentkit's code, not a `raise` statement
    assert not cli._is_user_error(_caught(lambda: _finite("not a number")))
    # raised outside latentkit (here: by this test file)
    assert not cli._is_user_error(ValueError("constructed, never raised"))


def _with_runner(run_fn, argv, monkeypatch):
    monkeypatch.setitem(cli.FIT_COMMANDS, "dummy",
                        cli.FitCommand("dummy model", lambda p: None, run_fn, "iris"))
    return cli.main(["fit", "dummy", "--quiet", *argv], out=io.StringIO())


def test_a_bug_in_a_runner_shows_its_traceback(monkeypatch):
    def run_fn(args, progress):
        return np.ones(2).reshape(3)  # a NumPy ValueError: a bug, not bad input

    with pytest.raises(ValueError, match="reshape"):
        _with_runner(run_fn, [], monkeypatch)


def test_bad_input_is_one_line_and_status_2(monkeypatch, capsys, tmp_path):
    def run_fn(args, progress):
        return cli.load_input(args, "matrix")

    assert _with_runner(run_fn, ["--dataset", "kos"], monkeypatch) == 2  # CLIError
    assert "is not a table of numbers" in capsys.readouterr().err
    missing = str(tmp_path / "missing.csv")
    assert _with_runner(run_fn, ["--data", missing], monkeypatch) == 2  # OSError
    assert "missing.csv" in capsys.readouterr().err
    # the library's own validation (GaussianMixture refuses tol=-1), in the CLI's words (the
    # flag --tol, not the parameter tol)
    assert cli.main(["fit", "gmm", "--tol", "-1", "--quiet"], out=io.StringIO()) == 2
    err = capsys.readouterr().err
    assert err.startswith("latentkit: error: --tol must be"), err
