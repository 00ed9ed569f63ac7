"""Moved to :mod:`latentkit.privacy._accounting` (issue 40); this old path is the same module object
(imports, attributes and monkeypatching see one module)."""

import sys

from ..privacy import _accounting as _moved

sys.modules[__name__] = _moved
