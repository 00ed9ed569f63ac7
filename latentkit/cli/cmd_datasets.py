"""``latentkit datasets [--json]`` (the bundled data sets) and ``latentkit datasets export
gutenberg_novels --out PATH`` (:func:`latentkit.datasets.export_gutenberg_texts`)."""

import json

from .. import datasets as ds
from ._common import CLIError

__all__ = ["add_parser"]


def add_parser(sub):
    """Add ``datasets`` (list and export) to the ``latentkit`` subparsers.

    Examples
    --------
    >>> import argparse
    >>> from latentkit.cli import cmd_datasets
    >>> parser = argparse.ArgumentParser(prog="latentkit")
    >>> cmd_datasets.add_parser(parser.add_subparsers(dest="command"))
    >>> parser.parse_args(["datasets"]).command
    'datasets'
    """
    p = sub.add_parser("datasets", help="list the bundled data sets (name, kind, shape, license)")
    p.add_argument("--json", action="store_true", help="print a JSON list")
    p.add_argument("action", nargs="?", choices=["list", "export"], default="list",
                   help="list (default) or export (gutenberg_novels as raw text)")
    _add_export_args(p)
    p.set_defaults(handler=_cmd_datasets)


def _cmd_datasets(args, out):
    if getattr(args, "action", "list") == "export":
        return _run_datasets_export(args, out)

    rows = ds.list_datasets()
    if args.json:
        out.write(json.dumps([{k: r[k] for k in ("name", "kind", "description", "shape",
                                                 "license")} for r in rows]) + "\n")
        return 0
    # the KIND column: what the data are to a model, then in words (e.g. 'matrix: real, labelled')
    rows = [{**r, "kind": f"{r['kind']}: {r['description']}"} for r in rows]
    cols = ("name", "kind", "shape", "license")
    widths = [max(len(c), *(len(str(r[c])) for r in rows)) for c in cols]
    out.write("  ".join(c.upper().ljust(w) for c, w in zip(cols, widths)).rstrip() + "\n")
    for r in rows:
        out.write("  ".join(str(r[c]).ljust(w) for c, w in zip(cols, widths)).rstrip() + "\n")
    out.write("\nProvenance and citations: datasets/README.md; load with "
              "latentkit.datasets.load_<name>().\n")
    return 0



def _add_export_args(p):
    """Options of ``latentkit datasets export``."""
    p.add_argument("name", nargs="?", default=None,
                   help="with 'export': the data set to write as raw text (gutenberg_novels)")
    p.add_argument("--out", metavar="PATH", help="export: the .jsonl file or the folder to write")
    p.add_argument("--format", choices=["jsonl", "folder"], default=None,
                   help="export: JSON lines or a folder of .txt files (default: from --out, "
                        "jsonl when it ends in .jsonl)")
    p.add_argument("--level", choices=["paragraph", "chapter", "book"], default="paragraph",
                   help="export: one document per paragraph (default), chapter or book")
    p.add_argument("--books", nargs="+", metavar="ID", default=None,
                   help="export: book ids (default all)")


def _run_datasets_export(args, out):
    """``latentkit datasets export gutenberg_novels --out PATH``."""
    if args.name != "gutenberg_novels":
        raise CLIError(f"datasets export writes gutenberg_novels as raw text; got "
                           f"{args.name!r}.")
    if not args.out:
        raise CLIError("datasets export needs --out PATH (a .jsonl file or a new folder).")
    fmt = args.format or ("jsonl" if str(args.out).endswith((".jsonl", ".ndjson")) else "folder")
    n = ds.export_gutenberg_texts(args.out, format=fmt, level=args.level, books=args.books)
    out.write(f"wrote {n} {args.level}s of gutenberg_novels to {args.out} ({fmt})\n")
    return 0


