"""Imports point one way (issue 25 item 1; docs/design.md, "Layers").

Every module of ``latentkit`` is parsed (not imported) and every import statement is read, the
function-local ones included. The layers, lowest first, are :data:`LAYERS`. An import may point
down, or sideways inside its layer; one that points up is allowed only when
:data:`STATED_REASONS` gives its reason. A function-local import of a latentkit module is a cost
decision (it delays loading numba, matplotlib or a whole family until a command needs it) and
:data:`LAZY_REASONS` says which; it is never a way round a circle: the graph of every import has
no cycle between modules once the stated upward edges are left out, and the imports run at load
time have none at all. Imports of third-party modules are not checked (a lazy ``import
matplotlib`` is a cost decision by itself).

``tools/import_layers.py`` prints the per-layer table of this graph (modules, imports, function-
local imports) for any checkout.
"""

import ast
import functools
import pathlib

import latentkit

ROOT = pathlib.Path(latentkit.__file__).parent

#: The layers, lowest first: (name, module prefixes below ``latentkit.``).
LAYERS = (
    ("kernels", ("_kernels",)),
    ("utilities", ("_utils", "exceptions", "utils")),
    ("core", ("base", "_engine", "sources", "inference", "parallel", "privacy")),
    ("algorithms", ("distributions", "spectral")),
    ("families", ("mixture", "topic", "sequence", "neural")),
    ("applications", ("selection", "io", "plotting", "text", "datasets", "cli", "testing",
                      "__main__", "")),
)

_TEXT = ("a topic model fitted on raw texts turns new texts into counts with its stored "
         "TextVectorizer (text.py); moving text.py and the Corpus it builds "
         "(datasets/_corpus.py) under the families is left open")

#: (importer, imported) -> why this import may point up a layer, or close a circle.
STATED_REASONS = {
    # the HMM's spectral start builds sequence emissions (issue 32 moves it into sequence/)
    ("latentkit.topic._lda", "latentkit.text"): _TEXT,
    ("latentkit.topic._hdp", "latentkit.text"): _TEXT,
    ("latentkit.topic._plsa", "latentkit.text"): _TEXT,
    ("latentkit.topic._pyldavis", "latentkit.text"): _TEXT,
    ("latentkit.topic._dmm", "latentkit.text"): _TEXT,
    ("latentkit.topic._btm", "latentkit.text"): _TEXT,
}

_CLI = "the command line loads a model family only for the command that needs it (start-up time)"
_FAMILY = "selection loads only the model family being selected (import time)"

#: (importer, imported) -> why this import is function-local (a cost decision).
LAZY_REASONS = {
    ("latentkit._utils.summaries", "latentkit._kernels.missing"):
        "the utilities load no numba; the kernel only for the one diagonal summary",
    ("latentkit.neural._private", "latentkit.privacy"):
        "the VAE loads the privacy accounting (SciPy's special functions) only for PrivateVAE",
    ("latentkit.inference._private_svi", "latentkit.privacy"):
        "the SVI drivers load the privacy accounting only for a private fit",
    ("latentkit.inference._private_svi", "latentkit.privacy._subsampled"):
        "the SVI drivers load the privacy accounting only for a private fit",
    ("latentkit.selection", "latentkit.plotting"): "only plot=True draws (matplotlib)",
    ("latentkit.selection", "latentkit.topic"): _FAMILY,
    ("latentkit.selection", "latentkit.topic._hdp"): _FAMILY,
    ("latentkit.selection", "latentkit.mixture"): _FAMILY,
    ("latentkit.selection", "latentkit.distributions._gaussian"): _FAMILY,
    ("latentkit.selection", "latentkit.sequence"): _FAMILY,
    ("latentkit.cli._common", "latentkit.plotting"): "only --plot draws (matplotlib)",
    ("latentkit.cli._common", "latentkit._utils.text_pruning"):
        "none left (text_pruning imports scikit-learn inside its function): hoist it once "
        "cli/_common.py is free (the InputError branch edits it)",
    ("latentkit.cli._topic_priors", "latentkit.topic._seeding"): _CLI,
    ("latentkit.cli.cmd_topics", "latentkit.topic"): _CLI,
    ("latentkit.cli.fit_hmm", "latentkit.sequence"): _CLI,
    ("latentkit.cli.fit_semi_markov", "latentkit.sequence"): _CLI,
    ("latentkit.cli.fit_semi_markov", "latentkit.distributions"): _CLI,
    ("latentkit.cli.fit_iohmm", "latentkit.sequence"): _CLI,
    ("latentkit.cli.fit_short", "latentkit.topic"): _CLI,
    ("latentkit.cli.fit_mixture", "latentkit.mixture"): _CLI,
    ("latentkit.cli.fit_mixture", "latentkit.distributions"): _CLI,
    ("latentkit.cli.fit_private", "latentkit.spectral"): _CLI,
    ("latentkit.cli.fit_private_svi", "latentkit.inference"): _CLI,
    ("latentkit.cli.fit_private_svi", "latentkit.topic"): _CLI,
    ("latentkit.cli.fit_hdp", "latentkit.topic"): _CLI,
    ("latentkit.cli.fit_dtm", "latentkit.topic"): _CLI,
    ("latentkit.cli._report_meta", "latentkit.topic"): _CLI,
    ("latentkit.cli.fit_llda", "latentkit.topic"): _CLI,
    ("latentkit.cli.fit_dmr", "latentkit.topic"): _CLI,
    ("latentkit.cli.fit_topic", "latentkit.topic"): _CLI,
    ("latentkit.cli.fit_topic", "latentkit.topic._lda_svi"): _CLI,
    ("latentkit.cli.fit_topic", "latentkit.inference"): _CLI,
    ("latentkit.cli.fit_vae", "latentkit.neural"): _CLI,
}


def layer_of(module):
    """Index in :data:`LAYERS` of a ``latentkit`` module name."""
    rel = module[len("latentkit."):] if module.startswith("latentkit.") else ""
    head = rel.split(".")[0]
    for i, (_, prefixes) in enumerate(LAYERS):
        if head in prefixes:
            return i
    raise KeyError(f"{module} is in no layer: add its folder to LAYERS")


def module_names(root=ROOT):
    """``latentkit.a.b`` -> path of every module and package under ``root``."""
    names = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        names[".".join(parts)] = path
    return names


def _imports(tree):
    """(import node, whether it sits inside a function body) for every import statement."""
    todo = [(node, False) for node in tree.body]
    while todo:
        node, local = todo.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node, local
            continue
        local = local or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
        todo.extend((child, local) for child in ast.iter_child_nodes(node))


def _targets(node, module, is_package, modules):
    """(named, loaded) for each latentkit module an import statement names: the module itself
    (or the submodule named in ``from package import submodule``) and every module loading it
    loads (the packages above it included)."""
    if isinstance(node, ast.Import):
        named = [a.name for a in node.names]
    else:
        if node.level:
            base = module.split(".") if is_package else module.split(".")[:-1]
            base = base[:len(base) - (node.level - 1)]
            target = ".".join(base + ([node.module] if node.module else []))
        else:
            target = node.module or ""
        subs = [f"{target}.{a.name}" for a in node.names if f"{target}.{a.name}" in modules]
        named = subs or [target]
    for name in named:
        if name not in modules:
            continue
        parts = name.split(".")
        yield name, {".".join(parts[:i]) for i in range(1, len(parts) + 1)} & set(modules)


def import_edges(root=ROOT):
    """Every import of a latentkit module by a latentkit module: a list of (importer, named
    module, line, local, loaded modules). A package that contains the importer (loaded before
    it anyway) is left out of the loaded ones; an import of such a package is no edge."""
    modules = module_names(root)
    edges = []
    for module, path in modules.items():
        is_package = path.name == "__init__.py"
        ancestors = {".".join(module.split(".")[:i]) for i in range(1, module.count(".") + 1)}
        ancestors.add(module)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node, local in _imports(tree):
            for named, loaded in _targets(node, module, is_package, modules):
                if named not in ancestors:
                    edges.append((module, named, node.lineno, local,
                                  frozenset(loaded - ancestors)))
    return edges


@functools.lru_cache(maxsize=1)
def _edges():
    return import_edges()


def upward(edges):
    """The edges that point to a higher layer."""
    return [e for e in edges if max(map(layer_of, e[4])) > layer_of(e[0])]


def cycles(graph):
    """Strongly connected components of size > 1 (Tarjan, iterative), each sorted."""
    index, low, on_stack, stack, out = {}, {}, set(), [], []
    counter = [0]
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def _graph(edges):
    graph = {}
    for a, _, _, _, loaded in edges:
        graph.setdefault(a, set()).update(loaded)
    return graph


def _where(edges):
    return "; ".join(f"{a}:{line} -> {b}" for a, b, line, *_ in edges)


# ------------------------------------------------------------------------- the checker itself

def test_every_module_has_a_layer_and_the_scan_sees_both_kinds_of_import():
    for module in module_names():
        layer_of(module)
    edges = {(a, b): local for a, b, _, local, _ in _edges()}
    assert edges[("latentkit.inference._stochastic_vi", "latentkit.base")] is False
    assert ("latentkit.base", "latentkit._utils.validation") in edges
    assert layer_of("latentkit._kernels.hmm") < layer_of("latentkit._utils.validation") \
        < layer_of("latentkit.base") < layer_of("latentkit.spectral._power") \
        < layer_of("latentkit.topic._lda") < layer_of("latentkit.cli")


def test_the_scan_finds_a_function_local_import_going_up(tmp_path):
    pkg = tmp_path / "latentkit"
    (pkg / "spectral").mkdir(parents=True)
    (pkg / "mixture").mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "spectral" / "__init__.py").write_text("from ._a import f\n")
    (pkg / "spectral" / "_a.py").write_text(
        "def f():\n    from ..mixture import _b  # local\n    return _b\n")
    (pkg / "mixture" / "__init__.py").write_text("")
    (pkg / "mixture" / "_b.py").write_text("from ..spectral import f\n")
    edges = import_edges(pkg)
    assert [e[:2] for e in upward(edges)] == [("latentkit.spectral._a", "latentkit.mixture._b")]
    assert all(e[3] for e in upward(edges))
    assert cycles(_graph(edges)) == [["latentkit.mixture._b", "latentkit.spectral",
                                      "latentkit.spectral._a"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


# ------------------------------------------------------------------------------- the rules

def test_every_import_points_down_or_sideways():
    up = [e for e in upward(_edges()) if (e[0], e[1]) not in STATED_REASONS]
    assert not up, ("imports that point up a layer (move the code down, or state the reason in "
                    "STATED_REASONS): " + _where(up))


def test_every_function_local_import_of_latentkit_is_a_stated_cost_decision():
    lazy = [e for e in _edges() if e[3] and (e[0], e[1]) not in LAZY_REASONS
            and (e[0], e[1]) not in STATED_REASONS]
    assert not lazy, ("function-local imports of latentkit modules without a reason (import "
                      "at module level, or state the cost in LAZY_REASONS): " + _where(lazy))


def test_no_stated_exception_is_stale():
    seen = {(a, b) for a, b, *_ in _edges()}
    stale = sorted(set(STATED_REASONS) - seen)
    assert not stale, f"STATED_REASONS lists imports that no longer exist: {stale}"
    lazy = {(a, b) for a, b, _, local, _ in _edges() if local}
    stale = sorted(set(LAZY_REASONS) - lazy)
    assert not stale, f"LAZY_REASONS lists imports that are not function-local: {stale}"
    assert all(isinstance(r, str) and r for r in {**STATED_REASONS, **LAZY_REASONS}.values())


def test_no_circle_hidden_by_function_local_imports():
    kept = [e for e in _edges() if (e[0], e[1]) not in STATED_REASONS]
    found = cycles(_graph(kept))
    assert not found, "import cycles (function-local imports included): " + "; ".join(
        " <-> ".join(c) for c in found)


def test_no_import_cycle_at_load_time():
    found = cycles(_graph([e for e in _edges() if not e[3]]))
    assert not found, "import cycles among module-level imports: " + "; ".join(
        " <-> ".join(c) for c in found)
