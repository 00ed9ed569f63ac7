"""Where a warning is attributed: the user's line, not the library's.

``warnings.warn(..., stacklevel=n)`` with a fixed ``n`` names the right line only for one
call depth; the same warning reached through a subclass's ``super().fit`` or a longer start
path names a latentkit file instead, so ``filterwarnings(module=...)`` and the printed
``file:line`` miss the user's code. :func:`user_stacklevel` counts the frames up to the first
one outside the package (Python 3.12's ``skip_file_prefixes`` does this; 3.9+ supported here).

Imports only the standard library.
"""

import os
import sys

__all__ = ["user_stacklevel"]

# the latentkit package (this module lives in latentkit/_utils/)
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def user_stacklevel():
    """``stacklevel`` for a ``warnings.warn`` in the calling function that names the first
    frame outside latentkit (the user's call).

    Returns
    -------
    int
        >= 2 when called from inside the package (1 names the calling function's own line).
    """
    frame, level = sys._getframe(1), 1   # the caller of this function: stacklevel 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(
            _PACKAGE_DIR):
        frame, level = frame.f_back, level + 1
    return level
