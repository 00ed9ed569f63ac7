"""Lazy package exports (PEP 562): a package's ``__init__`` names what it exports and from
which submodule, and a submodule is imported on first attribute access. So importing one
model's module (``latentkit.mixture._gaussian``, what ``latentkit fit gmm`` needs) does not
import its siblings (the variational and Dirichlet-process mixtures, the spectral starts and
their SciPy submodules): ``python -X importtime -m latentkit fit gmm`` shows the difference.
"""

import importlib

__all__ = ["lazy_exports"]


def lazy_exports(namespace, exports):
    """Module ``__getattr__`` and ``__dir__`` for a package with lazily imported names.

    Parameters
    ----------
    namespace : dict
        The package's ``globals()``.
    exports : dict of str to str
        Public name -> submodule that defines it, relative to the package (``"_gaussian"``).

    Returns
    -------
    (__getattr__, __dir__) : tuple of callables
        Bind them as the package's module-level ``__getattr__`` and ``__dir__``; the first
        imports the submodule, caches the name in the package's namespace and returns it, and
        raises ``AttributeError`` for a name not in ``exports``. (A package with deprecated
        moved names uses :func:`latentkit._utils.deprecation.moved_names` and its ``lazy``
        table instead, as ``latentkit.spectral``.)
    """
    package = namespace["__name__"]

    def __getattr__(name):
        sub = exports.get(name)
        if sub is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{sub}"), name)
        namespace[name] = value
        return value

    def __dir__():
        return sorted(set(namespace) | set(exports))

    return __getattr__, __dir__
