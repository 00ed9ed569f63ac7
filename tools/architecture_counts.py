"""Count the coupling issue 39 measures, for a checkout (before and after a redesign).

Usage: ``python tools/architecture_counts.py [ROOT] [--list KIND]`` with ROOT a checkout (the
folder holding ``latentkit/`` and ``tests/``; default this one). For the numbers before a change:
``git archive <commit> latentkit tests docs | tar -x -C /tmp/old`` then
``python tools/architecture_counts.py /tmp/old``. ``--list model_taking`` (or ``private_refs``,
``family_names``, ``distribution_classes``) prints every place counted, one a line.

The counts (the definitions are the ones ``tests/architecture/test_architecture.py`` enforces):

model_taking
    module-level functions that read or write a private attribute (``p._x``, one leading
    underscore) of their first parameter other than a declared hook, helper or driver state
    (below): code below the family class that takes the model.
private_refs
    attribute references ``obj._x`` (``self._x`` included) whose name ``_x`` the module does not
    define itself (a ``def _x`` or a class-level ``_x = ...`` in one of its classes, or an
    assignment ``self._x = ...``; for ``self._x``, one in the same family folder: the family's
    own base class) and that is not a declared hook, helper or driver state of
    ``LatentModel`` (docs/design.md section 3; the sets in ``tests/architecture/test_drivers.py``).
    References on imported modules (``np._NoValue``) and the namedtuple API (``_replace``, ``_fields``,
    ``_asdict``, ``_make``) are not counted, nor names latentkit defines nowhere (argparse's
    ``_actions``).
family_names
    names of model classes of the family packages (``mixture``, ``topic``, ``sequence``,
    ``neural``, ``spectral``) and the family words below, appearing as identifiers or string
    literals in the core (``_engine/``, ``base.py``, ``inference/``, ``sources.py``).
distribution_classes
    classes per distribution: the component, emission and block classes whose names carry a
    distribution's name (models, whose names end in HMM, Mixture, Model or Allocation, are not
    counted).
folder_circles
    load-time (module-level import) cycles between folders of the package.
tests_at_root
    ``test_*.py`` files directly in ``tests/``.
"""

import ast
import copy
import functools
import importlib.util
import pathlib
import sys
from collections import Counter

HERE = pathlib.Path(__file__).resolve().parents[1]

NAMEDTUPLE_API = {"_replace", "_fields", "_asdict", "_make", "_field_defaults"}
FAMILIES = ("mixture", "topic", "sequence", "neural", "spectral")
CORE = ("_engine", "base.py", "inference", "inference.py", "sources.py")
FAMILY_WORDS = ("Categorical", "Gaussian", "Poisson", "Bernoulli", "Dirichlet", "VAE", "LDA",
                "HMM", "Multinomial")
DISTRIBUTIONS = ("Poisson", "Categorical", "Gaussian", "Bernoulli", "Multinomial",
                 "NegativeBinomial", "StudentT", "Exponential", "Gamma", "Beta")
MODEL_SUFFIXES = ("HMM", "Mixture", "Model", "Allocation", "PLSA", "Regression")


@functools.lru_cache(maxsize=None)
def _parse_cached(path, mtime_ns):
    return ast.parse(path.read_text())


def _parse(path):
    """The module's AST, parsed once per file version (the counts walk every file several
    times). Callers that annotate nodes (``_with_parents``) get a fresh copy."""
    return _parse_cached(path, path.stat().st_mtime_ns)


def _load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _test_file(root, name):
    """A test file of a checkout: in ``tests/architecture/`` (since issue 39) or, in an older
    checkout, at ``tests/`` root; None if neither holds it."""
    for path in (pathlib.Path(root) / "tests" / "architecture" / name,
                 pathlib.Path(root) / "tests" / name):
        if path.exists():
            return path
    return None


def declared(root):
    """The private names a module may use without defining them (test_drivers.py's sets)."""
    path = _test_file(root, "test_drivers.py") or _test_file(HERE, "test_drivers.py")
    tree = _parse(path)
    names = set()
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Set):
            target = node.targets[0]
            if isinstance(target, ast.Name) and target.id in {"TEMPLATE", "HOOKS", "HELPERS",
                                                              "STATE"}:
                names |= {e.value for e in node.value.elts if isinstance(e, ast.Constant)}
    return names


def _private(name):
    return name.startswith("_") and not name.startswith("__")


def _module_aliases(tree):
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            # ``from . import _lda_guard`` binds a module; treat every imported name that is a
            # module of the package as a module alias (checked by the caller's file list)
            out |= {a.asname or a.name for a in node.names}
    return out


def _defined(tree):
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    names.add(item.name)
                elif isinstance(item, (ast.Assign, ast.AnnAssign)):
                    targets = item.targets if isinstance(item, ast.Assign) else [item.target]
                    names |= {t.id for t in targets if isinstance(t, ast.Name)}
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                for sub in ast.walk(t):
                    if (isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name)
                            and sub.value.id in {"self", "cls"}):
                        names.add(sub.attr)
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "setattr":
            if (len(node.args) >= 2 and isinstance(node.args[0], ast.Name)
                    and node.args[0].id in {"self", "cls"}
                    and isinstance(node.args[1], ast.Constant)):
                names.add(node.args[1].value)
        if isinstance(node, ast.ClassDef):
            for item in ast.walk(node):
                if isinstance(item, ast.Assign):
                    for t in item.targets:
                        if isinstance(t, ast.Name) and t.id == "__slots__":
                            v = item.value
                            if isinstance(v, (ast.Tuple, ast.List)):
                                names |= {e.value for e in v.elts if isinstance(e, ast.Constant)}
    return names


def _files(package):
    return sorted(p for p in package.rglob("*.py") if "__pycache__" not in p.parts)


def _package_modules(package):
    """Every module and subpackage name of the package (to recognise module aliases)."""
    names = set()
    for p in _files(package):
        names.add(p.stem if p.stem != "__init__" else p.parent.name)
    return names


def _package_defined(package):
    """Private names latentkit itself defines somewhere (others, e.g. argparse's ``_actions``,
    belong to a library and are not counted)."""
    names = set()
    for path in _files(package):
        names |= _defined(_parse(path))
    return names


def private_refs(root):
    package = pathlib.Path(root) / "latentkit"
    allowed = declared(root) | (NAMEDTUPLE_API)
    ours = _package_defined(package)
    modules = _package_modules(package)
    by_folder = {}
    for path in _files(package):
        by_folder.setdefault(path.parent, set()).update(_defined(_parse(path)))
    found = []
    for path in _files(package):
        tree = _parse(path)
        own = _defined(tree)
        aliases = _module_aliases(tree)
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Attribute) and _private(node.attr)):
                continue
            if node.attr in own or node.attr in allowed or node.attr not in ours:
                continue
            value = node.value
            if (isinstance(value, ast.Name) and value.id in {"self", "cls"}
                    and path.parent != package and node.attr in by_folder[path.parent]):
                continue  # a family's own base class, in the family's folder
            if isinstance(value, ast.Name) and value.id in aliases and (
                    value.id in modules or value.id not in {"self", "cls"}
                    and not value.id.islower() or value.id in sys.stdlib_module_names
                    or value.id in {"np", "sp", "numba", "scipy", "numpy"}):
                continue
            rel = path.relative_to(package).as_posix()
            found.append((rel, node.lineno, ast.unparse(node)))
    return found


def model_taking(root):
    package = pathlib.Path(root) / "latentkit"
    allowed = declared(root)
    ours = _package_defined(package)
    found = []
    for path in _files(package):
        tree = _parse(path)
        for node in tree.body:
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            args = node.args.posonlyargs + node.args.args
            if not args:
                continue
            first = args[0].arg
            touched = {n.attr for n in ast.walk(node)
                       if isinstance(n, ast.Attribute) and _private(n.attr)
                       and isinstance(n.value, ast.Name) and n.value.id == first}
            touched = sorted((touched - allowed) & ours)
            if touched:
                rel = path.relative_to(package).as_posix()
                found.append((rel, node.lineno, f"{node.name}({first}): {', '.join(touched)}"))
    return found


def _family_classes(package):
    names = set()
    for fam in FAMILIES:
        for path in _files(package / fam):
            for node in _parse(path).body:
                if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                    names.add(node.name)
    return names


def family_names(root):
    package = pathlib.Path(root) / "latentkit"
    classes = _family_classes(package)
    found = []
    for rel in CORE:
        p = package / rel
        if not p.exists():
            continue
        for path in (_files(p) if p.is_dir() else [p]):
            tree = _with_parents(copy.deepcopy(_parse(path)))
            for node in ast.walk(tree):
                text = None
                if isinstance(node, ast.Name):
                    text = node.id
                elif isinstance(node, ast.Attribute):
                    text = node.attr
                elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                    text = node.value
                if text is None:
                    continue
                if isinstance(node, ast.Constant):
                    if isinstance(getattr(node, "parent", None), ast.Expr):
                        continue
                    hit = [w for w in classes if w in text.split() or text == w]
                    hit += [w for w in FAMILY_WORDS if text == w]
                else:
                    hit = [w for w in classes | set(FAMILY_WORDS) if text == w]
                if hit:
                    found.append((path.relative_to(package).as_posix(), node.lineno,
                                  ", ".join(sorted(set(hit)))))
    return found


def _with_parents(tree):
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            child.parent = node
    return tree


def distribution_classes(root):
    package = pathlib.Path(root) / "latentkit"
    found = []
    for path in _files(package):
        for node in ast.walk(_parse(path)):
            if not isinstance(node, ast.ClassDef):
                continue
            name = node.name.lstrip("_")
            if name.endswith(MODEL_SUFFIXES) or name.endswith("Error"):
                continue
            for d in DISTRIBUTIONS:
                if d in name and not (d == "Gamma" and "NegativeBinomial" in name):
                    found.append((path.relative_to(package).as_posix(), node.lineno,
                                  f"{d}: {node.name}"))
                    break
    return found


def folder_circles(root):
    t = _load(_test_file(HERE, "test_layers.py"), "_test_layers")
    package = pathlib.Path(root).resolve() / "latentkit"
    graph = {}
    for importer, _, _, local, loaded in t.import_edges(package):
        if local:
            continue
        for b in loaded:
            if None not in (_folder(importer), _folder(b)) and _folder(importer) != _folder(b):
                graph.setdefault(_folder(importer), set()).add(_folder(b))
    return t.cycles(graph)


def _folder(module):
    """The folder of a module; a top-level module (``latentkit.base``) is its own node, and the
    package's ``__init__`` (which only re-exports) is left out."""
    parts = module.split(".")
    return ".".join(parts[:2]) if len(parts) >= 2 else None


def tests_at_root(root):
    return sorted(p.name for p in (pathlib.Path(root) / "tests").glob("test_*.py"))


def counts(root=HERE):
    root = pathlib.Path(root)
    return {
        "model_taking": model_taking(root),
        "private_refs": private_refs(root),
        "family_names": [f for f in family_names(root)],
        "distribution_classes": distribution_classes(root),
        "folder_circles": folder_circles(root),
        "tests_at_root": tests_at_root(root),
    }


def main(argv):
    listing = None
    if "--list" in argv:
        i = argv.index("--list")
        listing = argv[i + 1]
        argv = argv[:i] + argv[i + 2:]
    root = pathlib.Path(argv[0]) if argv else HERE
    c = counts(root)
    print(f"{root.resolve()}")
    for key, items in c.items():
        print(f"{key:22s} {len(items)}")
    by_folder = Counter(r[0].split("/")[0] for r in c["private_refs"])
    print("private_refs by folder: " + ", ".join(f"{k} {v}" for k, v in by_folder.most_common()))
    by_folder = Counter(r[0].split("/")[0] for r in c["model_taking"])
    print("model_taking by folder: " + ", ".join(f"{k} {v}" for k, v in by_folder.most_common()))
    dists = Counter(r[2].split(":")[0] for r in c["distribution_classes"])
    print("classes per distribution: " + ", ".join(f"{k} {v}" for k, v in dists.most_common()))
    if listing:
        for item in c[listing]:
            print("  ", *item) if isinstance(item, tuple) else print("  ", item)


if __name__ == "__main__":
    main(sys.argv[1:])
