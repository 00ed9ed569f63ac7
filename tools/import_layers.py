"""Print the import graph of latentkit by layer (issue 25 item 1).

Usage: ``python tools/import_layers.py [ROOT]`` with ROOT a checkout (the folder holding
``latentkit/``; default this one), e.g. ``git archive main latentkit | tar -x -C /tmp/main``
then ``python tools/import_layers.py /tmp/main`` for the table before a change.

The layers and the scan are those of ``tests/architecture/test_layers.py``. An import is one
latentkit module named by one import statement (``from . import a, b`` is two). Columns: modules
of the layer; imports of latentkit modules by them, at module level and function-local; of those,
the ones pointing up a layer. Then the import cycles (function-local imports counted) between
modules and between folders, with and without the exceptions the layer test states.
"""

import importlib.util
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parents[1]


def _layer_test():
    path = HERE / "tests" / "architecture" / "test_layers.py"
    spec = importlib.util.spec_from_file_location("_test_layers", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main(root=HERE):
    t = _layer_test()
    package = pathlib.Path(root).resolve() / "latentkit"
    modules = t.module_names(package)
    edges = t.import_edges(package)
    rows = []
    for i, (name, _) in enumerate(t.LAYERS):
        own = [m for m in modules if t.layer_of(m) == i]
        out = [e for e in edges if t.layer_of(e[0]) == i]
        rows.append((name, len(own), sum(not e[3] for e in out), sum(e[3] for e in out),
                     len(t.upward(out))))
    head = ("layer", "modules", "module-level", "function-local", "upward")
    print(f"{root}")
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for row in rows:
        print("| " + " | ".join(map(str, row)) + " |")
    total = ("all", *(sum(r[i] for r in rows) for i in range(1, len(head))))
    print("| " + " | ".join(map(str, total)) + " |")
    kept = [e for e in edges if (e[0], e[1]) not in t.STATED_REASONS]
    for what, some in (("every import", edges),
                       ("without the STATED_REASONS of tests/architecture/test_layers.py", kept)):
        folders = {}
        for a, _, _, _, loaded in some:
            for b in loaded:
                fa, fb = (".".join(x.split(".")[:2]) for x in (a, b))
                if fa != fb:
                    folders.setdefault(fa, set()).add(fb)
        print(f"\n{what}: {len(t.cycles(t._graph(some)))} module cycles, "
              f"{len(t.cycles(folders))} folder cycles")
        for c in t.cycles(folders):
            print("  folders: " + " <-> ".join(c))
    print("\nupward imports:")
    for a, b, line, local, _ in t.upward(edges):
        print(f"  {a}:{line} -> {b}{' (function-local)' if local else ''}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else HERE)
