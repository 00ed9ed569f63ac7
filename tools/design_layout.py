"""The layout section of ``docs/design.md`` (section 2), generated from the tree.

Every package folder of ``latentkit/`` and every module in it, each with the first sentence of
its docstring (a folder with its ``__init__.py``'s), grouped by folder: the modules of the
package root first, then each folder with its modules on the lines under it.

    python tools/design_layout.py            # print the generated section
    python tools/design_layout.py --write    # rewrite it in docs/design.md, between the markers
    python tools/design_layout.py --check    # exit 1 when docs/design.md differs from the tree

``tests/architecture/test_design_doc.py`` fails when the section in ``docs/design.md`` is not what this tool
generates; after moving, adding or redocumenting a module, run it with ``--write``.

The summary of a module is the first sentence of its docstring, in plain text: Sphinx roles
become their target's name (``:class:`~a.B``` -> ``B``), double backquotes single ones,
parenthetical remarks are dropped, and a sentence longer than the line is cut (at a clause
boundary, ``;``, ``:`` or ``,``, near the end of the line, else between words), marked ``...``.
"""

import argparse
import ast
import re
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DESIGN = ROOT / "docs" / "design.md"
BEGIN = "<!-- layout:begin -->"
END = "<!-- layout:end -->"

WIDTH = 100  #: the page's line length
COLUMN = 30  #: where the summaries start
MAX_LINES = 1  #: a summary longer than this many lines is cut at a clause boundary

#: abbreviations whose full stop does not end a sentence
_ABBREVIATION = re.compile(r"(?:\be\.g|\bi\.e|\bet al|\bcf|\bvs|\bFig|\beq|\bEq|\bch|\bsec|\bno)$")
_ROLE = re.compile(r":[a-z]+:`(~?)([^`]+)`")


def _plain(text):
    """Sphinx markup as plain text: roles by their target, ``x`` as `x`."""
    def role(m):
        target = m.group(2).split("<")[-1].rstrip(">").strip()
        return "`" + (target.rsplit(".", 1)[-1] if m.group(1) else target) + "`"

    return _ROLE.sub(role, text).replace("``", "`")


def _without_asides(text):
    """The text without its top-level parenthetical remarks (a space before the parenthesis)."""
    out, depth = [], 0
    for i, ch in enumerate(text):
        if ch == "(" and (depth or (i > 1 and text[i - 1] == " " and text[i - 2] not in "=+-*/,")):
            depth += 1
            continue
        if depth:
            depth += ch == "("
            depth -= ch == ")"
            continue
        out.append(ch)
    return re.sub(r"\s+([,.;:])", r"\1", re.sub(r"\s+", " ", "".join(out))).strip()


def first_sentence(doc):
    """The first sentence of a docstring's first paragraph, plain and without asides."""
    para = " ".join((doc or "").strip().split("\n\n")[0].split())
    for m in re.finditer(r"\.(?=\s|$)", para):
        if not _ABBREVIATION.search(para[:m.start()]):
            para = para[:m.start() + 1]
            break
    return _without_asides(_plain(para))


def _shortened(text, limit):
    if len(text) <= limit:
        return text
    head = text[:limit - 4]
    cut = max(head.rfind(sep) for sep in ("; ", ": ", ", "))
    return (head[:cut] if cut > limit * 3 // 4 else head.rsplit(" ", 1)[0]).rstrip(",;:") + " ..."


def summary(path):
    """The summary of one module (or of a package, from its ``__init__.py``)."""
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
    if not doc:
        return "(no docstring)"
    return _shortened(first_sentence(doc), (WIDTH - COLUMN) * MAX_LINES)


def _entry(name, text, depth):
    label = "  " * depth + name
    first = label.ljust(COLUMN) if len(label) < COLUMN else label + "\n" + " " * COLUMN
    lines = textwrap.wrap(text, WIDTH - COLUMN, break_on_hyphens=False, break_long_words=False)
    return first + ("\n" + " " * COLUMN).join(lines)


def _walk(folder, depth, out):
    modules = sorted((p for p in folder.glob("*.py") if p.name != "__init__.py"),
                     key=lambda p: (not p.name.startswith("__"), p.name.lstrip("_")))
    packages = sorted((p for p in folder.iterdir() if (p / "__init__.py").is_file()),
                      key=lambda p: p.name.lstrip("_"))
    for mod in modules:
        out.append(_entry(mod.name, summary(mod), depth))
    for pkg in packages:
        out.append(_entry(pkg.name + "/", summary(pkg / "__init__.py"), depth))
        _walk(pkg, depth + 1, out)


def layout(root=ROOT):
    """The generated section: the markers and, between them, the tree as a text block."""
    package = root / "latentkit"
    out = [_entry("latentkit/", summary(package / "__init__.py"), 0)]
    _walk(package, 1, out)
    return "\n".join([BEGIN, "```text", *out, "```", END])


def current(text):
    """The section between the markers of ``text`` (markers included), or None."""
    start, stop = text.find(BEGIN), text.find(END)
    if start < 0 or stop < start:
        return None
    return text[start:stop + len(END)]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    what = parser.add_mutually_exclusive_group()
    what.add_argument("--write", action="store_true", help="rewrite the section in docs/design.md")
    what.add_argument("--check", action="store_true", help="exit 1 when the section is stale")
    args = parser.parse_args(argv)
    generated = layout()
    if not (args.write or args.check):
        print(generated)
        return 0
    text = DESIGN.read_text(encoding="utf-8")
    old = current(text)
    if old is None:
        print(f"{DESIGN}: no {BEGIN!r} ... {END!r} markers", file=sys.stderr)
        return 1
    if args.check:
        if old != generated:
            print(f"{DESIGN}: the layout section is stale; run python tools/design_layout.py "
                  "--write", file=sys.stderr)
            return 1
        return 0
    if old != generated:
        DESIGN.write_text(text.replace(old, generated), encoding="utf-8")
        print(f"rewrote the layout section of {DESIGN}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
