"""Size the quick tier (``python -m pytest -q -m "not slow"``) from a durations log.

Usage: ``python tools/quick_tier.py LOG [--budget SECONDS] [--apply]`` where LOG is the output
of ``python -m pytest -q -p no:cacheprovider --durations=0`` of the whole suite (run on a quiet
machine, warm numba cache). It prints the suite's time, the quick tier's time with the slow
marks of the tree as they are (the sum of setup, call and teardown of every test function
without ``@pytest.mark.slow``; collection and imports come on top: measure them with
``python -m pytest --collect-only -q``), and, when that is over the budget (default 150 s), the
test functions to mark, heaviest first, keeping at least one quick test function in every test
file (``tests/architecture/test_tests_layout.py`` requires it). ``--apply`` writes
``@pytest.mark.slow`` above each proposed function (above its other decorators). A function is
marked whole: split a parametrized one by hand (``pytest.param(..., marks=pytest.mark.slow)``)
when only some of its cases are slow.
"""

import argparse
import ast
import collections
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
LINE = re.compile(r"^\s*([\d.]+)s (setup|call|teardown)\s+(\S+)")


def durations(log):
    """Seconds per (test file, test function) over its cases and phases."""
    per_func = collections.Counter()
    for line in pathlib.Path(log).read_text(errors="replace").splitlines():
        m = LINE.match(line)
        if m:
            path, _, rest = m.group(3).partition("::")
            per_func[(path, rest.split("[", 1)[0])] += float(m.group(1))
    return per_func


def _is_slow(node):
    node = node.func if isinstance(node, ast.Call) else node
    return isinstance(node, ast.Attribute) and node.attr == "slow"


def test_functions(path):
    """{name: (def node, slow?)} of a test file; methods of Test classes as ``Class::name``."""
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    module_slow = any(isinstance(n, ast.Assign) and any(getattr(t, "id", None) == "pytestmark"
                                                        for t in n.targets)
                      and any(_is_slow(e) for e in ast.walk(n.value)) for n in tree.body)
    out = {}
    for node in tree.body:
        pairs = [(node, "", False)]
        if isinstance(node, ast.ClassDef):
            slow_class = any(_is_slow(d) for d in node.decorator_list)
            pairs = [(f, node.name + "::", slow_class) for f in node.body]
        for f, prefix, inherited in pairs:
            if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)) and \
                    f.name.startswith("test"):
                slow = module_slow or inherited or any(_is_slow(d) for d in f.decorator_list)
                out[prefix + f.name] = (f, slow)
    return out


def plan(per_func, budget):
    files = {path: test_functions(path) for path, _ in per_func if (ROOT / path).exists()}
    quick = {key: t for key, t in per_func.items()
             if key[0] in files and key[1] in files[key[0]] and not files[key[0]][key[1]][1]}
    left = {path: sum(1 for _, slow in funcs.values() if not slow)
            for path, funcs in files.items()}
    total = sum(quick.values())
    marks = []
    for key, t in sorted(quick.items(), key=lambda kv: -kv[1]):
        if total <= budget:
            break
        if left[key[0]] <= 1:
            continue
        marks.append((key, t))
        left[key[0]] -= 1
        total -= t
    return sum(quick.values()), total, marks, files


def apply(marks, files):
    by_file = collections.defaultdict(list)
    for (path, name), _ in marks:
        node = files[path][name][0]
        first = node.decorator_list[0].lineno if node.decorator_list else node.lineno
        by_file[path].append((first - 1, node.col_offset))
    for path, spots in by_file.items():
        lines = (ROOT / path).read_text(encoding="utf-8").splitlines(keepends=True)
        for index, col in sorted(spots, reverse=True):
            lines.insert(index, " " * col + "@pytest.mark.slow\n")
        text = "".join(lines)
        if not re.search(r"^import pytest$", text, re.M):
            print(f"{path}: add 'import pytest'", file=sys.stderr)
        (ROOT / path).write_text(text, encoding="utf-8")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("log")
    parser.add_argument("--budget", type=float, default=150.0,
                        help="seconds of test time for the quick tier (default 150)")
    parser.add_argument("--apply", action="store_true", help="write the proposed marks")
    args = parser.parse_args(argv)
    per_func = durations(args.log)
    before, after, marks, files = plan(per_func, args.budget)
    print(f"suite {sum(per_func.values()):.1f} s over {len(per_func)} test functions; "
          f"quick tier now {before:.1f} s")
    for (path, name), t in marks:
        print(f"  {t:8.2f} s  {path}::{name}")
    if marks:
        print(f"quick tier with these {len(marks)} marked: {after:.1f} s")
        if args.apply:
            apply(marks, files)
    return 0


if __name__ == "__main__":
    sys.exit(main())
