"""Copy the tutorial notebooks (``tutorials/*.ipynb``) into ``docs/tutorials/`` before the
build reads its sources, so the site renders them (myst-nb) without a second copy in git.
``docs/tutorials/`` is generated (git-ignored); the copies are refreshed only when changed, so
an incremental build re-renders only the notebooks that changed."""

import shutil
from pathlib import Path


def _copy(app, config):
    src = Path(app.srcdir).parent / "tutorials"
    dst = Path(app.srcdir) / "tutorials"
    dst.mkdir(exist_ok=True)
    wanted = {p.name for p in src.glob("[0-9]*.ipynb")}
    for stale in dst.glob("*.ipynb"):
        if stale.name not in wanted:
            stale.unlink()
    for name in sorted(wanted):
        new = (src / name).read_bytes()
        target = dst / name
        if not target.exists() or target.read_bytes() != new:
            target.write_bytes(new)
    for folder in ("gallery", "data"):  # data: what a notebook reads (LATENTKIT_DOCS_EXECUTE)
        copy = dst / folder
        if copy.exists():
            shutil.rmtree(copy)
        if (src / folder).is_dir():
            shutil.copytree(src / folder, copy)


def setup(app):
    # before the environment lists the source files
    app.connect("config-inited", _copy)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
