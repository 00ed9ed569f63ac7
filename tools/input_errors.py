"""Rewrite the library's input checks to raise latentkit's InputError classes (issue 25, item 3).

Every ``ValueError(...)`` / ``TypeError(...)`` that latentkit's own code builds (in a ``raise``
or returned by a helper that makes the error) becomes ``InputError(...)`` /
``InputTypeError(...)`` from :mod:`latentkit.exceptions`, and the module gets the import
(``from ..exceptions import InputError``, merged into an existing import from that module).
``InputError`` is a ``ValueError`` and ``InputTypeError`` both an ``InputError`` and a
``TypeError``, so every ``except``/``pytest.raises`` written for the plain classes still holds.

Left alone, and listed below with the reason (reviewed by hand):

- ``SKIP_DIRS``: whole folders (the kernels sit below ``latentkit.exceptions`` in the layer
  order, and their checks guard their callers' contract, not the user's input);
- ``SKIP``: single raises that are internal invariants or control flow (a state the code itself
  must never reach, or an error raised to be caught a few lines further on), keyed by
  ``(path, enclosing function, class, start of the message)`` so that the key survives edits
  elsewhere in the file and a move of the function to another module;
- any raise inside a numba-compiled function (``@jit``/``@njit``/``@jit_kernel``...: numba
  raises only the exception classes it knows).

Usage, from a checkout's root (idempotent: a second run changes nothing)::

    python tools/input_errors.py            # rewrite latentkit/ in place, print a summary
    python tools/input_errors.py --check    # change nothing; list what a run would change
                                            # (exit status 1 if anything)
    python tools/input_errors.py --list     # every raise with its key (for reviewing)

``tests/contract/test_input_errors.py`` runs ``--check``'s logic: every ``ValueError``/``TypeError``
left in ``latentkit/`` must be on the skip lists below, so new code cannot slip back.
"""

import argparse
import ast
import sys
from pathlib import Path

CLASSES = {"ValueError": "InputError", "TypeError": "InputTypeError"}

SKIP_DIRS = {
    "latentkit/_kernels/": "kernels: below latentkit.exceptions in the layer order; their "
                           "checks guard the calling contract of the models that call them",
}

SKIP_FILES = {
    "latentkit/exceptions.py": "defines the classes",
}

#: (path, enclosing function's qualified name, class, start of the message) -> reason.
#: The message start is the literal text of the message with ``{}`` for each formatted field
#: (an empty start matches only an empty message). A raise matches on the function's own name,
#: the class and the message start; the path says where it was reviewed (so an entry follows
#: its function when another branch moves it to another module).
SKIP = {
    # control flow: raised to be caught a few lines below (the caller falls back)
    ("latentkit/topic/_dmm_start.py", "single_topic_spectral", "ValueError",
     "n_components={} exceeds the vocabulary size {}"):
        "caught a few lines below, where the DMM's start falls back to seeded "
        "(SpectralInitWarning)",
    ("latentkit/topic/_dmm_start.py", "single_topic_spectral", "ValueError",
     "non-finite spectral estimate"):
        "caught a few lines below, where the DMM's start falls back to seeded "
        "(SpectralInitWarning)",
    ("latentkit/selection.py", "parse_k_range", "ValueError", ""):
        "a bare raise caught by the except ValueError below, which raises the named error",
    ("latentkit/spectral/_gmm_start.py", "_spectral_pass", "ValueError",
     "non-finite spectral means"):
        "caught by its callers (spectral_labels' decorrelated pass), which fall back",
    ("latentkit/spectral/_recipes.py", "spectral_init_lda", "ValueError",
     "non-finite spectral estimate"):
        "caught a few lines below, where the start falls back to random (SpectralInitWarning)",
    ("latentkit/spectral/_recipes.py", "spectral_init_hmm", "ValueError",
     "non-finite spectral estimate"):
        "caught a few lines below, where the start falls back to random (SpectralInitWarning)",
    # internal invariants: a state the library's own callers never produce
    ("latentkit/base.py", "LatentModel._elbo_from_stats", "ValueError",
     "Cannot compute an ELBO from statistics of zero samples"):
        "every caller validated at least one sample (check_array, check_sample_weight) first",
    ("latentkit/inference/_stochastic_vi.py", "StochasticVI._fit_into", "ValueError",
     "An empty minibatch was drawn"):
        "the minibatches are cut from a validated, non-empty data set",
    ("latentkit/topic/_plsa.py", "PLSA._doc_factor", "ValueError",
     "The training documents' parameters do not match the data"):
        "the training data object and doc_topic_ are built together by fit",
    ("latentkit/_engine/steps.py", "step_size_schedule", "ValueError",
     "the step number t is 1-based"):
        "the drivers count steps from 1",
    ("latentkit/neural/_mlp.py", "unpack", "ValueError", "flat has {} entries"):
        "the VAE packs and unpacks its own parameter vector",
    ("latentkit/neural/_mlp.py", "_activate", "ValueError", "activation must be one of"):
        "VAE._validate_params checked activation before any forward pass",
    ("latentkit/neural/_mlp.py", "_activate_grad", "ValueError", "activation must be one of"):
        "VAE._validate_params checked activation before any backward pass",
    ("latentkit/neural/_optim.py", "Adam.step", "ValueError", "params must be a writeable"):
        "the VAE's own parameter vector",
    ("latentkit/neural/_optim.py", "Adam.step", "ValueError", "grad must have shape"):
        "the VAE's own gradient",
    ("latentkit/neural/_gradients.py", "VAEObjective.__call__", "ValueError",
     "per-example gradients need free_bits == 0"):
        "PrivateVAE._validate_params refuses free_bits with clipping first (a named check)",
    ("latentkit/plotting/__init__.py", "_full_covariances", "ValueError",
     "unknown covariance_type"):
        "a fitted mixture's covariance_type was validated by its fit",
}

_JIT_NAMES = ("jit", "njit", "vectorize", "guvectorize", "jit_kernel", "kernel")


def _decorator_name(node):
    while isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return ""


def _is_jitted(fn):
    return any(any(j in _decorator_name(d).lower() for j in _JIT_NAMES)
               for d in fn.decorator_list)


def _message_start(call):
    """The literal text of the first argument, ``{}`` for each formatted field."""
    if not isinstance(call, ast.Call) or not call.args:
        return ""
    arg = call.args[0]
    parts = []

    def walk(node):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            parts.append(node.value)
        elif isinstance(node, ast.JoinedStr):
            for v in node.values:
                walk(v)
        elif isinstance(node, ast.FormattedValue):
            parts.append("{}")
        elif isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mod)):
            walk(node.left)
            if isinstance(node.op, ast.Add):
                walk(node.right)
        else:
            parts.append("{}")

    walk(arg)
    return " ".join("".join(parts).split())


class _Finder(ast.NodeVisitor):
    """Every ``ValueError(...)``/``TypeError(...)`` call and bare ``raise ValueError``."""

    def __init__(self):
        self.stack, self.jit_depth, self.hits = [], 0, []

    def _scope(self, node):
        jitted = isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _is_jitted(node)
        self.stack.append(node.name)
        self.jit_depth += jitted
        self.generic_visit(node)
        self.jit_depth -= jitted
        self.stack.pop()

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = _scope

    def _hit(self, name_node, call):
        self.hits.append({"name": name_node, "call": call, "qualname": ".".join(self.stack),
                          "jitted": self.jit_depth > 0})

    def visit_Call(self, node):
        if isinstance(node.func, ast.Name) and node.func.id in CLASSES:
            self._hit(node.func, node)
        self.generic_visit(node)

    def visit_Raise(self, node):
        if isinstance(node.exc, ast.Name) and node.exc.id in CLASSES:
            self._hit(node.exc, None)
        self.generic_visit(node)


def _skip_reason(rel, hit, cls):
    for folder, reason in SKIP_DIRS.items():
        if rel.startswith(folder):
            return reason
    if rel in SKIP_FILES:
        return SKIP_FILES[rel]
    if hit["jitted"]:
        return "inside a numba-compiled function"
    msg = _message_start(hit["call"])
    here = hit["qualname"].split(".")[-1]
    for (_path, qualname, kind, start), reason in SKIP.items():
        if qualname.split(".")[-1] == here and kind == cls and (
                msg.startswith(start) if start else msg == ""):
            return reason
    return None


def scan(root):
    """``[(rel, lineno, qualname, cls, message_start, skip_reason_or_None), ...]``."""
    root = Path(root)
    out = []
    for path in sorted((root / "latentkit").rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=rel)
        finder = _Finder()
        finder.visit(tree)
        for hit in finder.hits:
            cls = hit["name"].id
            out.append((rel, hit["name"].lineno, hit["qualname"], cls,
                        _message_start(hit["call"]), _skip_reason(rel, hit, cls)))
    return out


def _relative_module(rel):
    """``..exceptions`` for ``latentkit/a/b.py``, ``.exceptions`` for ``latentkit/b.py``."""
    depth = len(Path(rel).parts) - 1  # folders below the root, latentkit/ included
    return "." * depth + "exceptions"


def _import_edit(tree, lines, rel, needed):
    """Add ``needed`` names to the module's import from latentkit.exceptions (new or merged)."""
    target = _relative_module(rel)
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and (
                ("." * node.level + (node.module or "")) == target
                or node.module == "latentkit.exceptions"):
            have = {a.name for a in node.names}
            if not (needed - have):
                return False
            names = [f"{a.name} as {a.asname}" if a.asname else a.name for a in node.names]
            names += sorted(needed - have)
            head = f"from {'.' * node.level}{node.module or ''} import "
            one = head + ", ".join(names)
            comment = ""
            last = lines[node.end_lineno - 1]
            if "#" in last and not last.rstrip().endswith(")"):
                comment = "  " + last[last.index("#"):].rstrip("\n")
            text = one + comment if len(one + comment) <= 99 else (
                head + "(" + ", ".join(names) + ")" + comment)
            lines[node.lineno - 1:node.end_lineno] = [text + "\n"]
            return True
    # a new import after the last module-level import above the first definition
    anchor = 0
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            break
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            anchor = node.end_lineno
        elif anchor == 0 and isinstance(node, ast.Expr) and isinstance(
                getattr(node, "value", None), ast.Constant):  # the module docstring
            anchor = node.end_lineno
    lines.insert(anchor, f"from {target} import {', '.join(sorted(needed))}\n")
    return True


def rewrite_file(root, rel):
    """Rewrite one module; return the number of raises changed."""
    path = Path(root) / rel
    text = path.read_text(encoding="utf-8")
    tree = ast.parse(text, filename=rel)
    finder = _Finder()
    finder.visit(tree)
    todo = [h for h in finder.hits if _skip_reason(rel, h, h["name"].id) is None]
    if not todo:
        return 0
    lines = text.splitlines(keepends=True)
    for hit in sorted(todo, key=lambda h: (h["name"].lineno, h["name"].col_offset),
                      reverse=True):
        node = hit["name"]
        raw = lines[node.lineno - 1].encode("utf-8")
        start, end = node.col_offset, node.end_col_offset
        assert raw[start:end].decode() == node.id, (rel, node.lineno)
        lines[node.lineno - 1] = (raw[:start] + CLASSES[node.id].encode()
                                  + raw[end:]).decode("utf-8")
    needed = {CLASSES[h["name"].id] for h in todo}
    _import_edit(tree, lines, rel, needed)
    new = "".join(lines)
    ast.parse(new, filename=rel)  # never write a file that does not parse
    path.write_text(new, encoding="utf-8")
    return len(todo)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", nargs="?", default=".", help="the checkout's root")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="change nothing; exit 1 if a run "
                                                            "would change anything")
    mode.add_argument("--list", action="store_true", help="print every raise and its key")
    args = parser.parse_args(argv)
    rows = scan(args.root)
    if args.list:
        for rel, line, qual, cls, msg, reason in rows:
            print(f"{rel}:{line}\t{qual}\t{cls}\t{msg[:60]!r}\t{reason or ''}")
        return 0
    todo = [r for r in rows if r[5] is None]
    if args.check:
        for rel, line, qual, cls, msg, _ in todo:
            print(f"{rel}:{line}: {cls} in {qual or '<module>'}: {msg[:60]!r}")
        print(f"{len(todo)} to rewrite, {len(rows) - len(todo)} skipped (reviewed)")
        return 1 if todo else 0
    files = sorted({r[0] for r in todo})
    n = sum(rewrite_file(args.root, rel) for rel in files)
    print(f"rewrote {n} raises in {len(files)} modules; {len(rows) - len(todo)} skipped "
          f"(reviewed)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
