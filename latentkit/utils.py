"""Utilities for writing a latentkit model outside the package (as ``sklearn.utils``): the
argument checks every model uses, public so that a new model needs no private import
(``docs/design.md``, section 3, the recipe).

* :func:`check_array` -- validate an array-like into a C-contiguous float array (never
  modifying the caller's array);
* :func:`check_scalar` -- a hyper-parameter's kind and range, the message naming it;
* :func:`check_random_state` -- ``None``/int/Generator/RandomState to a
  :class:`numpy.random.Generator`.
"""

from ._utils.validation import check_array, check_random_state, check_scalar

__all__ = ["check_array", "check_random_state", "check_scalar"]
