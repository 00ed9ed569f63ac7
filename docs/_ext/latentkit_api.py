"""The API reference, generated from ``__all__`` of every public latentkit module.

A module is public when no part of its dotted name starts with ``_``. Every public module must
define ``__all__``; every name in it gets one page (``api/generated/<module>.<name>``) under the
module that owns it (the public module nearest to where the object is defined), and the other
modules that re-export it link to that page. At ``config-inited`` this writes ``api/*.rst``
(autosummary then writes one page per name); at ``build-finished`` it checks that every page
was written, so a public module without ``__all__`` or a public name without a page fails the
build. ``expected_pages()`` is what ``tests/docs/test_docs.py`` checks the built site against.
"""

import importlib
import inspect
import json
import pkgutil
import re
from pathlib import Path

from sphinx.errors import ExtensionError
from sphinx.util import logging

logger = logging.getLogger(__name__)

PACKAGE = "latentkit"
API_DIR = "api"

# Cross-references between a model, its sufficient statistics and its spectral start, shown as
# a "Related" line on the model's page (names are canonical page names, checked at build).
RELATED = {
    "GaussianMixture": ["GaussianStats", "SpectralGMM", "VariationalGaussianMixture"],
    "VariationalGaussianMixture": ["GaussianStats", "SpectralGMM", "GaussianMixture",
                                   "DirichletProcessMixture"],
    "DirichletProcessMixture": ["GaussianStats", "SpectralGMM", "VariationalGaussianMixture"],
    "LatentDirichletAllocation": ["LDAStats", "SpectralLDA", "PrivateSpectralLDA", "PLSA",
                                  "StochasticVI", "cvb0_topics"],
    "PLSA": ["SpectralLDA", "LatentDirichletAllocation"],
    "CategoricalHMM": ["HiddenMarkovModel", "SpectralHMM", "VariationalCategoricalHMM"],
    "GaussianHMM": ["GaussianHMMStats", "HiddenMarkovModel", "SpectralHMM",
                    "VariationalGaussianHMM", "GMMHMM"],
    "PoissonHMM": ["PoissonHMMStats", "HiddenMarkovModel", "SpectralHMM"],
    "GMMHMM": ["GMMHMMStats", "GaussianHMM", "HiddenMarkovModel"],
    "VariationalCategoricalHMM": ["CategoricalHMM", "SpectralHMM"],
    "VariationalGaussianHMM": ["GaussianHMMStats", "GaussianHMM", "SpectralHMM"],
    "SpectralGMM": ["GaussianMixture", "robust_tensor_power"],
    "SpectralLDA": ["LatentDirichletAllocation", "PrivateSpectralLDA", "robust_tensor_power"],
    "SpectralHMM": ["CategoricalHMM", "GaussianHMM", "PoissonHMM"],
    "PrivateSpectralLDA": ["SpectralLDA", "PrivacyAccountant", "private_tensor_power"],
    "StochasticVI": ["LatentDirichletAllocation", "LatentModel"],
    "VAE": ["LatentModel"],
}


def public_modules():
    """Names of the public modules of latentkit, sorted (the package itself first)."""
    pkg = importlib.import_module(PACKAGE)
    names = [PACKAGE]
    for info in pkgutil.walk_packages(pkg.__path__, PACKAGE + "."):
        if not any(part.startswith("_") for part in info.name.split(".")):
            names.append(info.name)
    return sorted(names, key=lambda n: (n != PACKAGE, n))


def _documented_names(module):
    return [n for n in module.__all__ if not (n.startswith("__") and n.endswith("__"))]


def api_table():
    """``{module: [(name, owner_module), ...]}`` for every public module, and the list of
    public modules that lack ``__all__``."""
    modules, missing = {}, []
    for modname in public_modules():
        mod = importlib.import_module(modname)
        if not hasattr(mod, "__all__"):
            missing.append(modname)
            continue
        modules[modname] = mod
    owners = {}  # id(obj) -> owner module name
    for modname, mod in modules.items():
        for name in _documented_names(mod):
            obj = getattr(mod, name)
            defined = getattr(obj, "__module__", None) if (
                inspect.isclass(obj) or inspect.isroutine(obj)) else None
            key = (id(obj), name) if defined else (modname, name)
            best = owners.get(key)
            if defined:
                # the public module nearest to the definition: longest prefix of __module__,
                # else the most specific (longest) public module that exports it
                score = (defined == modname or defined.startswith(modname + "."),
                         modname.count("."), modname != PACKAGE)
            else:
                score = (True, modname.count("."), True)
            if best is None or score > best[0]:
                owners[key] = (score, modname)
    table = {}
    for modname, mod in modules.items():
        rows = []
        for name in _documented_names(mod):
            obj = getattr(mod, name)
            is_code = inspect.isclass(obj) or inspect.isroutine(obj)
            key = (id(obj), name) if is_code and getattr(obj, "__module__", None) else (
                modname, name)
            rows.append((name, owners[key][1]))
        table[modname] = rows
    return table, missing


def expected_pages():
    """The pages the API reference must have: ``{"<owner>.<name>", ...}``."""
    table, _ = api_table()
    return {f"{owner}.{name}" for rows in table.values() for name, owner in rows}


def _title(text, char="="):
    return f"{text}\n{char * len(text)}\n"


def _write_if_changed(path, text):
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


def write_api_sources(srcdir):
    table, missing = api_table()
    if missing:
        raise ExtensionError(
            "public modules without __all__ (their names cannot be documented): "
            + ", ".join(missing) + "; define __all__ or rename the module with a leading _")
    out = Path(srcdir) / API_DIR
    out.mkdir(exist_ok=True)
    canonical = {name: owner for rows in table.values() for name, owner in rows}
    # autosummary's stubs of names that moved or left the API since the last build would be
    # pages outside every toctree (a -W error): remove them before autosummary writes the new
    expected = {f"{owner}.{name}" for rows in table.values() for name, owner in rows}
    for stub in (out / "generated").glob("*.rst"):
        if stub.stem not in expected:
            stub.unlink()
    index = [_title("API reference"),
             "One page per public class and function, generated from ``__all__`` of every "
             "public module. A name re-exported by several modules (``latentkit.GaussianMixture`` "
             "is ``latentkit.mixture.GaussianMixture``) has one page, under the module nearest "
             "to its definition.\n",
             ".. toctree::\n   :maxdepth: 1\n"]
    for modname, rows in table.items():
        index.append(f"   {modname}")
        own = [name for name, owner in rows if owner == modname]
        other = [(name, owner) for name, owner in rows if owner != modname]
        lines = [f".. _api-{modname}:\n", _title(f"``{modname}``"),
                 f".. automodule:: {modname}\n   :no-members:\n   :no-index:\n",
                 f".. currentmodule:: {modname}\n"]
        if own:
            lines.append(".. autosummary::\n   :toctree: generated\n   :nosignatures:\n")
            lines += [f"   {name}" for name in own]
            lines.append("")
        if other:
            lines.append(_title("Re-exported here", "-"))
            lines.append(".. list-table::\n   :header-rows: 0\n")
            for name, owner in other:
                lines.append(f"   * - ``{modname}.{name}``\n     - :py:obj:`{owner}.{name}`")
            lines.append("")
        _write_if_changed(out / f"{modname}.rst", "\n".join(lines) + "\n")
    _write_if_changed(out / "index.rst", "\n".join(index) + "\n")
    return canonical


_CANONICAL = {}  # name -> owner module, filled at config-inited
_USED_IN = {}  # name -> [(docname, title)] of the tutorials whose code uses it


def tutorial_uses(tutorials_dir, names):
    """``{name: [(docname, title), ...]}``: the tutorial notebooks whose code cells use each
    public name (a whole-word match), in the notebooks' order."""
    uses = {}
    for nb in sorted(Path(tutorials_dir).glob("[0-9]*.ipynb")):
        cells = json.loads(nb.read_text(encoding="utf-8"))["cells"]
        code = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
        title = next((line.lstrip("# ").strip() for c in cells if c["cell_type"] == "markdown"
                      for line in "".join(c["source"]).splitlines()
                      if line.startswith("# ")), nb.stem)
        title = re.sub(r"[`<>*]", "", title)
        for name in names:
            if re.search(rf"\b{re.escape(name)}\b", code):
                uses.setdefault(name, []).append((f"tutorials/{nb.stem}", title))
    return uses


def _on_config_inited(app, config):
    # before the environment lists the source files, so the pages written here are read
    _CANONICAL.clear()
    _CANONICAL.update(write_api_sources(app.srcdir))
    _USED_IN.clear()
    _USED_IN.update(tutorial_uses(Path(app.srcdir).parent / "tutorials", list(_CANONICAL)))
    bad = [(m, r) for m, rel in RELATED.items() for r in [m] + rel if r not in _CANONICAL]
    if bad:
        raise ExtensionError(f"RELATED names that are not public names: {bad}")


def _on_process_docstring(app, what, name, obj, options, lines):
    """Append "Examples using this class / function" (the tutorials whose code uses it) to
    every public name's page, and a "Related" line to the pages of the models in RELATED."""
    if what not in ("class", "function"):
        return
    short = name.rsplit(".", 1)[-1]
    canonical = _CANONICAL
    if name != f"{canonical.get(short)}.{short}":
        return
    if _USED_IN.get(short):
        lines += ["", f".. rubric:: Examples using this {what}", ""]
        lines += [f"- :doc:`{title} </{doc}>`" for doc, title in _USED_IN[short]]
        lines.append("")
    if what != "class":
        return
    if short not in RELATED or name != f"{canonical.get(short)}.{short}":
        return
    refs = ", ".join(f":py:obj:`~{canonical[r]}.{r}`" for r in RELATED[short])
    lines += ["", ".. rubric:: Related", "", refs, ""]


def _on_build_finished(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    outdir = Path(app.outdir) / API_DIR / "generated"
    missing = sorted(p for p in expected_pages() if not (outdir / f"{p}.html").is_file())
    if missing:
        raise ExtensionError(f"public names without an API page: {missing}")


def setup(app):
    app.connect("config-inited", _on_config_inited)
    # after numpydoc (priority 500) has turned the docstring into reST
    app.connect("autodoc-process-docstring", _on_process_docstring, priority=600)
    app.connect("build-finished", _on_build_finished)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
