"""Every README command works as written for a newcomer (issue 27, item 9): it runs with only
the extras the README has named by then, and prints no traceback and no Python warning.

What stands in for a fresh virtual environment per command (decision, issue 27):

* A fresh venv per command means a pip install of NumPy, SciPy and numba and a cold numba
  cache each time: minutes per command, far over the suite's budget. What such an environment
  changes for latentkit is which optional packages import; so each run is a fresh interpreter
  (``tests/_readme_driver.py``) whose import system refuses the top-level modules of every
  extra in ``pyproject.toml`` the README has not named yet (read from the README's own
  ``pip install ".[extra]"`` / ``latentkit[extra]`` / "the `extra` extra" up to the command),
  with the checkout first on ``sys.path`` and ``-W always``. The ``test`` extra is left out:
  the README names it for running the test suite, a different job from the commands.
* Consecutive commands that see the same extras share one interpreter (in README order, in
  one working folder, so ``--out topics.npz`` is there for ``report topics.npz``); the first
  command's output includes the import-time warnings.
* Placeholders get real files: ``my_texts/`` is a folder the test writes from the bundled
  novels (``export_gutenberg_texts``), ``points.csv`` a table with missing entries,
  ``docword.txt.gz`` / ``vocab.txt`` a UCI corpus; ``latentkit fit plsa|vgmm|dpmm ...`` runs
  each of the three with its defaults.
* The big bundled corpora (kos, gutenberg_novels, optdigits) are cut to their first
  ``LATENTKIT_README_SHRINK`` rows (default 60; 0 runs them whole) inside the driver, not by
  changing the commands (and ``datasets export`` writes one book): the same options, defaults
  and code paths run, so a traceback or a warning of the command shows; numbers, convergence and timings are not checked (the
  command's own tests check them). ``LATENTKIT_README_SHRINK=0`` is the release check.

Not covered: the ``pip install`` step itself and a cold numba cache (compilation warnings).
"""

import gzip
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

try:
    import tomllib
except ImportError:  # pragma: no cover - Python 3.10
    tomllib = pytest.importorskip("tomli")

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", ROOT / "docs" / "guide" / "getting_started.md",
         ROOT / "docs" / "guide" / "cli.md"]
_NAMED = re.compile(r"pip install \"?(?:\.|latentkit)\[([\w,]+)\]|the `(\w+)` extra")
_WARNING = re.compile(r"^\S.*:\d+: \w*Warning\b|\b\w+Warning: ", re.M)


def _extras():
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    base = {re.split(r"[\[<>=;! ]", d)[0].lower() for d in meta["dependencies"]}
    extras = {}
    for name, reqs in meta["optional-dependencies"].items():
        extras[name] = {re.split(r"[\[<>=;! ]", r)[0].lower() for r in reqs} - base
    return extras


def _modules(dists):
    """Top-level import names of installed distributions."""
    from importlib.metadata import packages_distributions

    out = set()
    for module, owners in packages_distributions().items():
        if {o.lower().replace("_", "-") for o in owners} & {d.replace("_", "-") for d in dists}:
            out.add(module)
    return out


def readme_commands(text, inline=True):
    """``(argv, extras named so far)`` of each ``latentkit`` command of a page, in order
    (``inline=False``: only the ``bash`` blocks, not commands quoted in the prose, which on the
    guide pages name placeholders such as ``COMMAND``)."""
    commands, named = [], set()
    pos = 0
    pattern = re.compile(r"```bash\n(.*?)```" + (r"|`(latentkit [^`]*)`" if inline else ""), re.S)
    for m in pattern.finditer(text):
        for n in _NAMED.finditer(text[pos:m.start()]):
            named.update((n.group(1) or n.group(2)).split(","))
        pos = m.end()
        lines = m.group(1).splitlines() if m.group(1) else [m.group(2)]
        for line in lines:
            for n in _NAMED.finditer(line):  # a comment on the line names its extra
                named.update((n.group(1) or n.group(2)).split(","))
            line = line.split("  #")[0].strip()
            line = re.sub(r"^.*&& python -m latentkit ", "latentkit ", line)
            if not line.startswith("latentkit ") or "..." in line and "|" not in line:
                continue
            argv = shlex.split(line)[1:]
            if len(argv) > 1 and "|" in argv[1] and argv[-1] == "...":  # fit plsa|vgmm|dpmm
                commands += [([argv[0], m_], set(named)) for m_ in argv[1].split("|")]
            else:
                commands.append((argv, set(named)))
    # the test extra is named for running the test suite, not for the commands (docstring)
    return [(argv, named - {"test"}) for argv, named in commands]


def _make_inputs(folder, full):
    from latentkit.datasets import export_gutenberg_texts, load_kos

    export_gutenberg_texts(folder / "my_texts", format="folder", level="chapter",
                           books=None if full else ["persuasion"])
    rng = np.random.default_rng(0)
    X = np.concatenate([rng.normal(0, 1, (50, 2)), rng.normal(5, 1, (50, 2))])
    X[rng.random(X.shape) < 0.05] = np.nan
    np.savetxt(folder / "points.csv", X, delimiter=",", header="x,y", comments="")
    # series.csv (the CLI guide's autoregressive HMM command): a two-regime AR(1) series
    y = np.zeros(300)
    for t in range(1, 300):
        y[t] = (0.9 if (t // 50) % 2 else -0.5) * y[t - 1] + rng.normal()
    np.savetxt(folder / "series.csv", y[:, None], delimiter=",", header="y", comments="")
    kos = load_kos()
    C = kos.data[: None if full else 60].tocoo()
    with gzip.open(folder / "docword.txt.gz", "wt") as fh:
        fh.write(f"{C.shape[0]}\n{C.shape[1]}\n{C.nnz}\n")
        for d, w, c in zip(C.row, C.col, C.data):
            fh.write(f"{d + 1} {w + 1} {int(c)}\n")
    (folder / "vocab.txt").write_text("\n".join(map(str, kos.vocabulary)) + "\n")
    # peps.jsonl (the README's topics-over-time commands): chapters with a date and a topic
    chapters = sorted((folder / "my_texts").rglob("*.txt"))
    with open(folder / "peps.jsonl", "w") as fh:
        for i, path in enumerate(chapters):
            fh.write(json.dumps({"text": path.read_text(), "created": f"{2000 + i % 4}-06-01",
                                 "topic": ["Packaging", "Typing", ""][i % 3]}) + "\n")


@pytest.mark.slow
def test_readme_commands_run_clean_with_only_the_named_extras(tmp_path):
    extras = _extras()
    shrink = int(os.environ.get("LATENTKIT_README_SHRINK", "60"))
    commands = []
    for page in PAGES:
        if page.exists():
            commands += readme_commands(page.read_text(), inline=page.name == "README.md")
    assert len(commands) >= 15  # the parser found the README's commands
    _make_inputs(tmp_path, full=shrink == 0)
    groups, seen = [], set()
    for argv, named in commands:
        key = tuple(argv)  # a repeated command runs once, with the fewest extras
        if key in seen:
            continue
        seen.add(key)
        blocked = sorted(_modules(set().union(*(deps for name, deps in extras.items()
                                                   if name not in named and name != "test"))
                                  - set().union(*(extras[n] for n in named if n in extras))))
        if groups and groups[-1][0] == blocked:
            groups[-1][1].append(argv)
        else:
            groups.append((blocked, [argv]))
    assert any("matplotlib" in g[0] for g in groups)  # the first commands run without extras
    failures = []
    for blocked, argvs in groups:
        spec = tmp_path / "spec.json"
        spec.write_text(json.dumps({"repo": str(ROOT), "blocked": blocked, "shrink": shrink,
                                    "commands": argvs}))
        proc = subprocess.run([sys.executable, "-W", "always", str(ROOT / "tests" /
                                                                    "_readme_driver.py"),
                               str(spec)], cwd=tmp_path, capture_output=True, text=True,
                              timeout=1800)
        assert proc.returncode == 0, proc.stderr
        for r in json.loads(proc.stdout.splitlines()[-1]):
            out = r["output"]
            problems = ([f"exit status {r['status']}"] if r["status"] != 0 else []) + \
                (["traceback"] if "Traceback (most recent call last)" in out else []) + \
                ([f"Python warning: {m.group(0)}" for m in _WARNING.finditer(out)])
            if problems:
                failures.append(f"latentkit {' '.join(r['argv'])} (extras blocked: "
                                f"{', '.join(blocked) or 'none'}): {'; '.join(problems)}\n"
                                f"{out[-1500:]}")
    assert not failures, "\n\n".join(failures)
