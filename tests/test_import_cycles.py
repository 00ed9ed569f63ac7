"""The package has no import cycle among its module-level imports (issue 12 item 4).

Every module of ``latentkit`` is parsed (not imported); the imports executed when the module is
loaded (those outside function bodies) give a directed graph between latentkit modules. An
import of ``latentkit.a.b`` also loads the packages ``latentkit.a`` that are not already
ancestors of the importing module. A strongly connected component with more than one module,
or a module importing itself, is a cycle.
"""

import ast
import functools
import pathlib

import latentkit

ROOT = pathlib.Path(latentkit.__file__).parent


def _module_names():
    names = {}
    for path in ROOT.rglob("*.py"):
        rel = path.relative_to(ROOT.parent).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts.pop()
        names[".".join(parts)] = path
    return names


def _module_level_imports(tree):
    """Import nodes executed at import time: everything except function bodies."""
    todo = list(tree.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
            continue
        todo.extend(ast.iter_child_nodes(node))


def _resolve(node, module, is_package, modules):
    """latentkit modules loaded by one import statement."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    if node.level:
        base = module.split(".") if is_package else module.split(".")[:-1]
        base = base[:len(base) - (node.level - 1)]
        target = ".".join(base + ([node.module] if node.module else []))
    else:
        target = node.module or ""
    out = [target]
    for alias in node.names:
        sub = f"{target}.{alias.name}"
        if sub in modules:
            out.append(sub)
    return out


@functools.lru_cache(maxsize=1)
def import_graph():
    modules = _module_names()
    graph = {m: set() for m in modules}
    for module, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        is_package = path.name == "__init__.py"
        ancestors = {".".join(module.split(".")[:i]) for i in range(1, module.count(".") + 1)}
        if is_package:
            ancestors.add(module)
        for node in _module_level_imports(tree):
            for target in _resolve(node, module, is_package, modules):
                parts = target.split(".")
                for i in range(1, len(parts) + 1):
                    t = ".".join(parts[:i])
                    if t in modules and t not in ancestors and t != module:
                        graph[module].add(t)
    return graph


def _cycles(graph):
    """Strongly connected components of size > 1 (Tarjan, iterative)."""
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
                    work.append((w, iter(sorted(graph[w]))))
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


def test_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_graph_sees_known_edges():
    graph = import_graph()
    assert "latentkit.base" in graph["latentkit._engine.stochastic_vi"]
    assert "latentkit._utils.validation" in graph["latentkit.base"]


def test_no_import_cycle():
    cycles = _cycles(import_graph())
    assert not cycles, "import cycles among module-level imports: " + "; ".join(
        " <-> ".join(c) for c in cycles)
