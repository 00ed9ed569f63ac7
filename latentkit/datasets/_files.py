"""The bundled data files: where they are, the ``datasets/MANIFEST`` that lists them, the sha256
check every loader goes through (once per process and file), the DESCR text built from the
MANIFEST, and the small readers of bundled CSV/TSV files. Nothing is ever downloaded.

The files live in the top-level ``datasets/`` folder of the source tree and are installed inside
the package as ``latentkit/datasets/data/`` (see ``pyproject.toml``). Provenance, license and
citation of every file: ``datasets/README.md``.
"""

import csv
import hashlib
import threading
from pathlib import Path

import numpy as np

from ..exceptions import DatasetIntegrityError  # defined there; importable here as before
from ._corpus import _open_text

__all__ = ["DatasetIntegrityError", "bundled_data_dir", "manifest"]


# ----------------------------------------------------------------------------- files

def _candidate_dirs():
    here = Path(__file__).resolve().parent
    # installed wheel: latentkit/datasets/data/ (a symlink to ../../datasets in the source tree)
    yield here / "data"
    # source checkout / editable install without the symlink (e.g. checked out on Windows)
    yield here.parent.parent / "datasets"


_DATA_DIR = None  # resolved lazily; tests may point it elsewhere


def bundled_data_dir():
    """The folder holding the bundled data files and their ``MANIFEST``.

    Returns
    -------
    pathlib.Path

    Raises
    ------
    FileNotFoundError
        If no folder with a MANIFEST is found (a broken installation).

    Examples
    --------
    >>> from latentkit.datasets import bundled_data_dir
    >>> (bundled_data_dir() / "MANIFEST").is_file()
    True
    """
    global _DATA_DIR
    if _DATA_DIR is not None:
        return Path(_DATA_DIR)
    for d in _candidate_dirs():
        if (d / "MANIFEST").is_file():
            _DATA_DIR = d
            return d
    raise FileNotFoundError(
        "latentkit's bundled data were not found (looked for MANIFEST in "
        + ", ".join(str(d) for d in _candidate_dirs())
        + "). Reinstall latentkit with `pip install latentkit` or `pip install .` from a source tree.")


_MANIFEST_CACHE = {}
_VERIFIED = set()
_LOCK = threading.Lock()


def manifest():
    """The bundled files: one dict per line of ``datasets/MANIFEST``.

    Returns
    -------
    dict
        ``{relative path: {'file', 'sha256', 'bytes', 'license', 'source', 'citation'}}``.

    Raises
    ------
    DatasetIntegrityError
        If the MANIFEST is malformed.

    Examples
    --------
    >>> from latentkit.datasets import manifest
    >>> entries = manifest()
    >>> any(name.startswith("iris") for name in entries), len(next(iter(entries.values()))["sha256"])
    (True, 64)
    """
    root = bundled_data_dir()
    key = str(root)
    if key in _MANIFEST_CACHE:
        return _MANIFEST_CACHE[key]
    entries = {}
    fields = None
    with open(root / "MANIFEST", encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, start=1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            parts = line.split("\t")
            if fields is None:
                fields = parts
                continue
            if len(parts) != len(fields):
                raise DatasetIntegrityError(f"{root / 'MANIFEST'}, line {lineno}: expected "
                                            f"{len(fields)} tab-separated fields, found {len(parts)}.")
            entry = dict(zip(fields, parts))
            entry["bytes"] = int(entry["bytes"])
            entries[entry["file"]] = entry
    _MANIFEST_CACHE[key] = entries
    return entries


def _bundled(relpath):
    """Absolute path of a bundled file after checking it is listed and its sha256 matches."""
    entries = manifest()
    if relpath not in entries:
        raise DatasetIntegrityError(f"{relpath!r} is not listed in the bundled data MANIFEST; "
                                    "loaders read only listed files.")
    path = bundled_data_dir() / relpath
    key = str(path)
    if key in _VERIFIED:
        return path
    if not path.is_file():
        raise DatasetIntegrityError(f"bundled data file {path} is missing; the installation is "
                                    "incomplete. Reinstall latentkit.")
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    expected = entries[relpath]["sha256"]
    if h.hexdigest() != expected:
        raise DatasetIntegrityError(
            f"bundled data file {path} is corrupt: its sha256 is {h.hexdigest()}, the MANIFEST "
            f"expects {expected}. Reinstall latentkit (the file must not be edited).")
    with _LOCK:
        _VERIFIED.add(key)
    return path


def _descr(title, relpaths, text=""):
    entries = manifest()
    lic, cites, srcs = [], [], []
    for rp in relpaths:
        e = entries[rp]
        for lst, k in ((lic, "license"), (cites, "citation"), (srcs, "source")):
            if e[k] not in lst:
                lst.append(e[k])
    out = [title, "=" * len(title), ""]
    if text:
        out += [text.strip(), ""]
    out += ["Files: " + ", ".join(relpaths), "License: " + "; ".join(lic),
            "Source: " + "; ".join(srcs), "Citation: " + " ".join(cites),
            "Provenance details: datasets/README.md in the latentkit source tree."]
    return "\n".join(out)


def _read_csv(relpath, delimiter=","):
    """Header and rows (lists of str) of a bundled CSV/TSV, no quote processing."""
    path = _bundled(relpath)
    with _open_text(path) as fh:
        reader = csv.reader(fh, delimiter=delimiter, quoting=csv.QUOTE_NONE)
        header = next(reader)
        rows = [r for r in reader if r]
    return header, rows


def _codes(values, order=None):
    """Integer codes of string labels; ``order`` fixes the names (else first appearance)."""
    if order is None:
        order = list(dict.fromkeys(values))
    index = {v: i for i, v in enumerate(order)}
    return np.array([index[v] for v in values], dtype=np.int64), np.array(order, dtype=str)
