"""Which exceptions `latentkit` turns into one line and exit status 2 (the user's mistake) and
which it lets through with their traceback (a bug): CLIError, OSError and
`latentkit.exceptions.InputError` are the user's; anything else is a bug."""

import io

import numpy as np
import pytest

from latentkit import cli
from latentkit._engine.steps import step_size_schedule
from latentkit.cli._common import _finite
from latentkit.mixture import GaussianMixture


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


def test_a_models_own_named_check_is_one_line(monkeypatch, capsys):
    # GaussianMixture's own check of its init dict (not a shared validation helper)
    def run_fn(args, progress):
        X = np.random.default_rng(0).normal(size=(20, 2))
        return GaussianMixture(2, init={"mean": X[:2]}).fit(X)

    assert _with_runner(run_fn, [], monkeypatch) == 2
    err = capsys.readouterr().err
    assert err.startswith("latentkit: error: init dict has unknown key(s) ['mean']"), err
    assert err.count("\n") == 1 and "Traceback" not in err
    # a shared check (check_array): the same
    assert _with_runner(lambda a, p: GaussianMixture(2).fit([[1.0, "x"]]), [], monkeypatch) == 2
    assert capsys.readouterr().err.count("\n") == 1


@pytest.mark.parametrize("bug", [
    lambda: np.ones(2).reshape(3),  # raised inside NumPy
    lambda: _finite("not a number"),  # a failing expression in latentkit, not a check
    lambda: step_size_schedule(0, 10.0, 0.7),  # an internal invariant of latentkit (skip list)
    lambda: {}["missing"],  # not a ValueError at all
])
def test_bugs_show_their_traceback(bug, monkeypatch):
    with pytest.raises((ValueError, TypeError, KeyError)):
        _with_runner(lambda args, progress: bug(), [], monkeypatch)
