"""Re-execute every tutorial notebook, store it with its outputs, and write the README gallery.

    python tutorials/build.py            # all notebooks
    python tutorials/build.py 03 05      # the notebooks whose file name starts with 03 or 05
    python tutorials/build.py --help     # the notebooks and options

Each notebook runs top to bottom in a fresh kernel (working directory ``tutorials/``, the
checkout's ``latentkit`` first on ``PYTHONPATH``) and is saved in place with its outputs, so a
reader sees the figures without running anything. A code cell whose metadata has
``"gallery": "NAME.png"`` also has its figure written to ``tutorials/gallery/NAME.png``
(figures drawn by ``latentkit.plotting``; the README gallery links them).

Notebooks print every number they check as one line ``CHECK <what> = <value>``;
``tests/docs/test_tutorials.py`` re-executes them (with ``LATENTKIT_TUTORIAL_FAST=1``, which shrinks
only the work no CHECK line depends on) and fails when a stored CHECK line differs from the
re-executed one, i.e. when the stored outputs are stale: run this script after changing a
notebook or the library behind it. Needs the ``tutorials`` extra (nbclient, nbformat,
ipykernel, matplotlib).
"""

import base64
import os
import pathlib
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
GALLERY = HERE / "gallery"
FAST_ENV = "LATENTKIT_TUTORIAL_FAST"


def notebooks(prefixes=()):
    """The tutorial notebooks, sorted by name (those starting with one of ``prefixes``)."""
    paths = sorted(HERE.glob("[0-9]*.ipynb"))
    if prefixes:
        paths = [p for p in paths if p.name.startswith(tuple(prefixes))]
    return paths


def execute(path, fast=False, timeout=600, record_timing=False):
    """Run the notebook at ``path`` in a fresh kernel and return it (nbformat v4, outputs in).

    ``fast`` sets LATENTKIT_TUTORIAL_FAST=1 in the kernel's environment; ``record_timing``
    keeps nbclient's per-cell timestamps (off: a rebuild then changes only what the code
    prints and draws).
    """
    import nbformat
    from nbclient import NotebookClient

    env = {"PYTHONPATH": os.pathsep.join(
        [str(ROOT)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])}
    old = {k: os.environ.get(k) for k in ("PYTHONPATH", FAST_ENV, "MPLBACKEND")}
    os.environ.update(env)
    os.environ.pop("MPLBACKEND", None)  # the kernel's inline backend draws the figures
    if fast:
        os.environ[FAST_ENV] = "1"
    else:
        os.environ.pop(FAST_ENV, None)
    try:
        nb = nbformat.read(path, as_version=4)
        for cell in nb.cells:
            if cell.cell_type == "code":
                cell.outputs, cell.execution_count = [], None
                cell.metadata.pop("execution", None)
        NotebookClient(nb, timeout=timeout, kernel_name="python3", record_timing=record_timing,
                       resources={"metadata": {"path": str(path.parent)}}).execute()
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    return nb


def text_output(nb):
    """All stream and text/plain output of the code cells, joined by newlines."""
    parts = []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        for out in cell.get("outputs", []):
            if "text" in out:
                parts.append(out["text"])
            elif "data" in out and "text/plain" in out["data"] and "image/png" not in out["data"]:
                parts.append(out["data"]["text/plain"])
    return "\n".join(parts)


def check_lines(nb):
    """The ``CHECK ...`` lines a notebook printed, in order."""
    return [ln.strip() for ln in text_output(nb).splitlines() if ln.startswith("CHECK ")]


def images(nb):
    """(cell, png bytes) for every image output."""
    return [(cell, base64.b64decode(out["data"]["image/png"])) for cell in nb.cells
            if cell.cell_type == "code" for out in cell.get("outputs", [])
            if "data" in out and "image/png" in out["data"]]


def write_gallery(nb):
    """Write the figure of every cell tagged ``gallery`` to tutorials/gallery/; the paths."""
    GALLERY.mkdir(exist_ok=True)
    written = []
    for cell, png in images(nb):
        name = cell.metadata.get("gallery")
        if name and name not in [p.name for p in written]:
            (GALLERY / name).write_bytes(png)
            written.append(GALLERY / name)
    return written


def parse_args(argv=None):
    """The command line: notebook prefixes (``--help`` lists the notebooks)."""
    import argparse

    names = [p.name for p in notebooks()]
    parser = argparse.ArgumentParser(
        prog="python tutorials/build.py",
        description="Re-execute tutorial notebooks in a fresh kernel, store them with their "
                    "outputs and write their gallery figures. Notebooks: " + ", ".join(names),
        epilog="example: python tutorials/build.py 03 05  (rebuilds 03_* and 05_*)")
    parser.add_argument("prefixes", nargs="*", metavar="NN",
                        help="rebuild the notebooks whose file name starts with NN (default all)")
    parser.add_argument("--timeout", type=int, default=600, metavar="S",
                        help="seconds allowed per cell (default 600)")
    args = parser.parse_args(argv)
    unknown = [p for p in args.prefixes if not notebooks([p])]
    if unknown:
        parser.error(f"no notebook starts with {', '.join(map(repr, unknown))}; the notebooks "
                     f"are {', '.join(names)}")
    return args


def main(argv=None):
    import nbformat

    args = parse_args(argv)
    paths = notebooks(args.prefixes)
    for path in paths:
        start = time.perf_counter()
        nb = execute(path, timeout=args.timeout)
        nbformat.write(nb, path)
        gallery = write_gallery(nb)
        print(f"{path.name}: {time.perf_counter() - start:.1f} s, {len(images(nb))} figures, "
              f"{len(check_lines(nb))} checks"
              + (f", gallery {', '.join(p.name for p in gallery)}" if gallery else ""))
        for line in check_lines(nb):
            print("   ", line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
