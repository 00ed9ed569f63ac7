"""Run README commands as a newcomer would, in one fresh interpreter (used by
``tests/docs/test_readme_commands.py``; see its docstring for why this stands in for a fresh
virtual environment per command).

Usage: ``python -W always tests/_readme_driver.py SPEC.json`` where the spec holds ``repo``
(the checkout, put first on sys.path), ``blocked`` (top-level modules of the extras the README
has not named yet: importing them raises ImportError, as in an environment without them),
``shrink`` (documents kept of the big bundled corpora, and
``datasets export`` writes one book; 0: no shrinking) and ``commands`` (argv lists).
Prints one JSON list: per command its exit status and everything it wrote (stdout and stderr,
tracebacks included).
"""

import contextlib
import importlib.abc
import io
import json
import sys
import time
import traceback
import warnings


class _Blocker(importlib.abc.MetaPathFinder):
    def __init__(self, names):
        self.names = set(names)

    def find_spec(self, fullname, path, target=None):
        if fullname.split(".")[0] in self.names:
            raise ImportError(f"No module named {fullname!r} (not installed in this "
                              "environment)", name=fullname)
        return None


def _subset(bunch, n):
    """The first ``n`` documents / rows of a bundled data set (per-row fields sliced)."""
    rows = bunch["data"].shape[0]
    if rows <= n:
        return bunch
    out = type(bunch)(bunch)
    for key, value in bunch.items():
        if key == "data":
            out[key] = value[:n]
        elif hasattr(value, "__len__") and not isinstance(value, (str, dict)) \
                and len(value) == rows:
            out[key] = value[:n]
    return out


def _shrink(n):
    import latentkit.datasets as ds
    from latentkit.datasets import _registry

    def smaller(loader):
        return lambda *a, **k: _subset(loader(*a, **k), n)

    for name in ("kos", "gutenberg_novels", "optdigits"):
        loader, *rest = _registry._REGISTRY[name]
        _registry._REGISTRY[name] = (smaller(loader), *rest)
    ds.load_optdigits = smaller(ds.load_optdigits)
    ds.load_gutenberg_novels = smaller(ds.load_gutenberg_novels)
    export = ds.export_gutenberg_texts

    def export_one_book(path, format="jsonl", level="paragraph", books=None):
        return export(path, format=format, level=level, books=books or ["persuasion"])

    ds.export_gutenberg_texts = export_one_book


def main(spec_path):
    with open(spec_path) as fh:
        spec = json.load(fh)
    sys.path.insert(0, spec["repo"])
    sys.meta_path.insert(0, _Blocker(spec["blocked"]))
    results = []
    first = io.StringIO()
    with contextlib.redirect_stdout(first), contextlib.redirect_stderr(first):
        warnings.simplefilter("always")
        try:
            from latentkit import cli  # import-time warnings count for the first command
            if spec["shrink"]:
                _shrink(spec["shrink"])
        except BaseException:
            traceback.print_exc()
            print(json.dumps([{"argv": c, "status": None, "output": first.getvalue()}
                              for c in spec["commands"]]), file=sys.__stdout__)
            return
    for k, argv in enumerate(spec["commands"]):
        buf = io.StringIO()
        start = time.perf_counter()
        if k == 0:
            buf.write(first.getvalue())
        with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
            warnings.simplefilter("always")
            try:
                status = cli.main(argv)
            except SystemExit as exc:
                status = exc.code
            except BaseException:
                traceback.print_exc()
                status = None
        results.append({"argv": argv, "status": status, "output": buf.getvalue(),
                        "seconds": round(time.perf_counter() - start, 2)})
    print(json.dumps(results), file=sys.__stdout__)


if __name__ == "__main__":
    main(sys.argv[1])
