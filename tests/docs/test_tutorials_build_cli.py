"""``python tutorials/build.py --help`` works (argparse) and an unknown notebook prefix is a
one-line usage error naming the notebooks, before any kernel starts."""

import pathlib
import subprocess
import sys

BUILD = pathlib.Path(__file__).resolve().parents[2] / "tutorials" / "build.py"


def _run(*args):
    return subprocess.run([sys.executable, str(BUILD), *args], capture_output=True, text=True,
                          timeout=60)


def test_help_lists_the_notebooks_and_exits_0():
    res = _run("--help")
    assert res.returncode == 0 and res.stderr == ""
    assert res.stdout.startswith("usage: python tutorials/build.py")
    names = sorted(p.name for p in BUILD.parent.glob("[0-9]*.ipynb"))
    flat = " ".join(res.stdout.split())
    assert len(names) == 9 and all(n in flat for n in names)


def test_unknown_prefix_is_a_usage_error():
    res = _run("99")
    assert res.returncode == 2 and "Traceback" not in res.stderr
    assert "error: no notebook starts with '99'" in res.stderr
