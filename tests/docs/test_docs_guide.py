"""The code in the README and the user guide (docs/guide/*.md, docs/design.md) stays true:
``pycon`` blocks (``>>>`` examples) run as doctests, every ``python`` block compiles and the
latentkit names it imports or uses exist, every ``latentkit ...`` command line parses with the
CLI's own parser, and every copy of the raw-text example is the README's (which
``tests/cli/test_cli_text.py`` runs end to end). Cheap: the doctests fit two small models."""

import ast
import doctest
import importlib
import re
import shlex
from pathlib import Path

import pytest

import latentkit
from latentkit.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]
GUIDE = sorted((ROOT / "docs" / "guide").glob("*.md"))
PAGES = [ROOT / "README.md", ROOT / "docs" / "design.md", ROOT / "docs" / "index.md",
         ROOT / "docs" / "tutorials.md"] + GUIDE
FENCE = re.compile(r"^```(\w+)[^\n]*\n(.*?)^```", re.S | re.M)


def blocks(path, lang):
    return [m.group(2) for m in FENCE.finditer(path.read_text(encoding="utf-8"))
            if m.group(1) == lang]


def _ids(p):
    return str(p.relative_to(ROOT))


def test_the_guide_has_its_pages():
    names = {p.name for p in GUIDE}
    assert {"getting_started.md", "mixtures.md", "topic_models.md", "hmm.md", "vae.md",
            "spectral.md", "privacy.md", "choosing_k.md", "scaling.md", "saving.md", "cli.md",
            "benchmarks.md", "testing.md"} <= names
    for p in GUIDE:  # each page opens with its title (sections are appended below it)
        assert p.read_text(encoding="utf-8").startswith("# "), p.name


def test_readme_is_short():
    assert len((ROOT / "README.md").read_text(encoding="utf-8").splitlines()) <= 200


@pytest.mark.kernel_sensitive
@pytest.mark.filterwarnings("ignore::latentkit.base.ConvergenceWarning")
@pytest.mark.parametrize("path", [p for p in PAGES if blocks(p, "pycon")], ids=_ids)
def test_pycon_blocks_run(path):
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    globs = {}
    for i, src in enumerate(blocks(path, "pycon")):
        test = parser.get_doctest(src, globs, f"{path.name}[{i}]", str(path), 0)
        assert test.examples, f"{path.name}: a pycon block without >>> examples"
        runner.run(test, clear_globs=False)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} doctest examples of {path.name} failed"


def _latentkit_names(tree):
    """(module, name) pairs the code imports from latentkit or reads as ``lk.X``."""
    aliases, used = {}, []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] == "latentkit":
                    aliases[a.asname or a.name] = a.name
                    used.append((a.name, None))
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("latentkit"):
            used += [(node.module, a.name) for a in node.names]
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                and node.value.id in aliases):
            used.append((aliases[node.value.id], node.attr))
    return used


@pytest.mark.parametrize("path", [p for p in PAGES if blocks(p, "python")], ids=_ids)
def test_python_blocks_compile_and_name_real_things(path):
    for src in blocks(path, "python"):
        tree = ast.parse(src)
        for module, name in _latentkit_names(tree):
            mod = importlib.import_module(module)
            assert name is None or hasattr(mod, name), f"{path.name}: {module}.{name}"


def _command_lines(path):
    for src in blocks(path, "bash"):
        src = src.replace("\\\n", " ")  # a line continued with a backslash is one command
        for line in src.splitlines():
            line = line.split("  #")[0].strip()
            for part in line.split("&&"):
                argv = shlex.split(part.strip())
                if argv[:1] == ["latentkit"]:
                    yield argv[1:]
                elif argv[:3] == ["python", "-m", "latentkit"]:
                    yield argv[3:]


@pytest.mark.parametrize("path", [p for p in PAGES if list(_command_lines(p))], ids=_ids)
def test_command_lines_parse(path):
    parser = build_parser()
    for argv in _command_lines(path):
        try:
            parser.parse_args(argv)
        except SystemExit:
            pytest.fail(f"{path.name}: `latentkit {shlex.join(argv)}` does not parse")


def test_every_copy_of_the_raw_text_example_is_the_readmes():
    pattern = re.compile(r"<!-- raw-text-example -->\s*```bash\n(.*?)```", re.S)
    readme = pattern.findall((ROOT / "README.md").read_text(encoding="utf-8"))
    assert len(readme) == 1
    copies = [(p.name, b) for p in GUIDE for b in pattern.findall(p.read_text(encoding="utf-8"))]
    assert copies, "the guide has no copy of the raw-text example"
    for name, block in copies:
        assert block == readme[0], name


def test_latentkit_is_the_checkout():
    assert Path(latentkit.__file__).resolve().parent == ROOT / "latentkit"
