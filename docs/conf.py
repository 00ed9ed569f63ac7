"""Sphinx configuration of latentkit's documentation.

Build (no network needed):  python -m sphinx -W -b html docs docs/_build/html

The API reference is generated at build time from ``__all__`` of every public module
(``_ext/latentkit_api.py``); the tutorial notebooks are copied from ``tutorials/`` and rendered
by myst-nb with the outputs they are stored with (``tests/docs/test_tutorials.py`` re-executes them
and fails when a stored CHECK line is stale); ``LATENTKIT_DOCS_EXECUTE=1`` re-executes them at
build in the tests' fast mode instead (``LATENTKIT_TUTORIAL_FAST=1``).
"""

import os
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(ROOT))  # the checkout's latentkit, as python -m pytest imports it
sys.path.insert(0, str(DOCS / "_ext"))

import latentkit  # noqa: E402

project = "latentkit"
author = "latentkit developers"
copyright = "latentkit developers, BSD-3-Clause"
version = release = latentkit.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx-mathjax-offline",  # MathJax 3 copied into _static: equations typeset offline
    "numpydoc",
    "myst_nb",
    "sphinxarg.ext",
    "latentkit_api",
    "latentkit_tutorials",
]

root_doc = "index"
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store", "**.ipynb_checkpoints",
                    "jupyter_execute"]
templates_path = ["_templates"]
source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}

# --- API reference --------------------------------------------------------------------------
autosummary_generate = True
autosummary_imported_members = True
autodoc_default_options = {"member-order": "bysource"}
autodoc_typehints = "none"  # the numpydoc Parameters sections say the types
autodoc_inherit_docstrings = True
numpydoc_show_class_members = False  # the class template lists the members itself
numpydoc_class_members_toctree = False
numpydoc_attributes_as_param_list = True
numpydoc_xref_param_type = False

# --- MyST and notebooks ---------------------------------------------------------------------
myst_enable_extensions = ["colon_fence", "dollarmath", "amsmath", "deflist"]
myst_heading_anchors = 3
nb_execution_mode = "force" if os.environ.get("LATENTKIT_DOCS_EXECUTE") else "off"
nb_execution_timeout = 600
nb_execution_raise_on_error = True
if nb_execution_mode != "off":
    os.environ["LATENTKIT_TUTORIAL_FAST"] = "1"
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])
nb_merge_streams = True

# --- HTML -----------------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"latentkit {release}"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "use_edit_page_button": False,
    "navbar_align": "left",
}
html_static_path = []
html_show_sourcelink = False
html_last_updated_fmt = None
