"""Bundled real data sets (checksummed, never downloaded) and synthetic generators with planted truth.

``load_*`` functions read the files listed in the top-level ``datasets/MANIFEST`` (installed with
the package) and check their sha256; ``make_*`` functions draw data from a known model.
"""

from ._synthetic import make_gmm, make_lda_corpus

__all__ = [
    "make_gmm",
    "make_lda_corpus",
]
