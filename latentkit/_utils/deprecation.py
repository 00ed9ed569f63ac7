"""Old names that keep working for one release, with a ``DeprecationWarning`` naming the new one.

The names table in ``docs/design.md`` fixes one vocabulary (``n_init``, ``max_iter``,
``n_components``, ``covariances_``). A renamed name goes through one of two tools here:

* :func:`renamed_attribute`: a class attribute (property) that forwards an old fitted-attribute
  name (``covars_``) to the new one, reading and writing, with a warning;
* :func:`renamed_kwargs`: a decorator for a function or ``__init__`` that accepts the old keyword
  (``n_restarts=``) in place of the new one (``n_init=``), with a warning. On ``__init__`` the
  value is stored under the new name only, so ``get_params``/``clone`` see one parameter.

* :func:`renamed_parameter`: for an estimator that keeps the old hyper-parameter in ``__init__``
  (default None) and resolves it in ``fit`` (the DirichletProcessMixture's ``truncation``, the
  VAE's ``max_epochs``), so an old model's ``get_params`` still round-trips.

* :func:`moved_name`: for a module ``__getattr__`` that re-exports, lazily, a public name that
  moved to another module (the HMMs' spectral starts left ``latentkit.spectral`` for
  ``latentkit.sequence``), with a warning naming the new path.

All say the release the old name goes away (``REMOVED_IN``).
"""

import functools
import importlib
import warnings

__all__ = ["REMOVED_IN", "moved_name", "renamed_attribute", "renamed_kwargs", "renamed_parameter"]

#: the release in which the deprecated names are removed
REMOVED_IN = "0.3"


def _warn(owner, old, new, stacklevel):
    warnings.warn(f"{owner}: {old!r} is deprecated and will be removed in latentkit "
                  f"{REMOVED_IN}; use {new!r} instead.", DeprecationWarning,
                  stacklevel=stacklevel + 1)


def renamed_attribute(old, new):
    """A property that forwards the deprecated attribute ``old`` to ``new``.

    Parameters
    ----------
    old, new : str
        Attribute names, e.g. ``'covars_'`` and ``'covariances_'``.

    Returns
    -------
    property
        Reading or assigning ``obj.<old>`` warns (``DeprecationWarning`` naming ``new``) and
        reads or assigns ``obj.<new>``; an unset ``new`` raises ``AttributeError`` as usual.
    """
    def fget(self):
        _warn(type(self).__name__, old, new, 2)
        return getattr(self, new)

    def fset(self, value):
        _warn(type(self).__name__, old, new, 2)
        setattr(self, new, value)

    return property(fget, fset, doc=f"Deprecated alias of ``{new}`` (removed in {REMOVED_IN}).")


def renamed_kwargs(**old_to_new):
    """Decorator: accept each deprecated keyword ``old`` as the new keyword ``new``.

    Parameters
    ----------
    **old_to_new : str
        ``old='new'`` pairs, e.g. ``renamed_kwargs(n_restarts='n_init')``.

    Returns
    -------
    callable
        A decorator. The wrapped function warns (``DeprecationWarning`` naming the new keyword)
        when an old keyword is given, and passes its value as the new one.

    Raises
    ------
    TypeError
        When both the old and the new keyword are given.
    """
    def decorate(func):
        owner = func.__qualname__.replace(".__init__", "")

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            for old, new in old_to_new.items():
                if old in kwargs:
                    if new in kwargs:
                        raise TypeError(f"{owner}: give {new!r} only ({old!r} is its "
                                        "deprecated name), not both.")
                    _warn(owner, old, new, 2)
                    kwargs[new] = kwargs.pop(old)
            return func(*args, **kwargs)

        return wrapper

    return decorate


def renamed_parameter(owner, old, new, old_value, new_value, default):
    """The value of a renamed hyper-parameter resolved at fit time (scikit-learn's style: the
    old name stays an ``__init__`` parameter for one release and ``fit`` resolves it).

    Parameters
    ----------
    owner : str
        Class name, for the message.
    old, new : str
        The deprecated and the current parameter name.
    old_value, new_value : object
        Their values; ``old_value=None`` means the old name was not used.
    default : object
        The new parameter's default (a new value different from it and an old value both
        given is ambiguous).

    Returns
    -------
    object
        ``new_value``, or ``old_value`` when the old name was used.

    Warns
    -----
    DeprecationWarning
        When ``old_value`` is not None, naming the new parameter.

    Raises
    ------
    ValueError
        Both names given with different values.
    """
    if old_value is None:
        return new_value
    if new_value != default and new_value != old_value:
        raise ValueError(f"{owner}: give {new}= only ({old}= is its deprecated old name); got "
                         f"{old}={old_value!r} and {new}={new_value!r}.")
    _warn(owner, f"{old}=", f"{new}=", stacklevel=3)
    return old_value


def moved_name(old_module, name, new_module):
    """The object ``new_module.name`` for an access to ``old_module.name``, with a warning.

    Meant for a module-level ``__getattr__`` (PEP 562): the new module is imported only when
    the old name is used, so the old module need not import it at load time.

    Parameters
    ----------
    old_module, new_module : str
        Dotted module names, e.g. ``'latentkit.spectral'`` and ``'latentkit.sequence'``.
    name : str
        The public name, the same in both.

    Returns
    -------
    object
        ``getattr(importlib.import_module(new_module), name)``, after a ``DeprecationWarning``
        (stacklevel: the caller's access) naming ``new_module.name``.
    """
    # stacklevel: _warn, this function, the module's __getattr__, then the access itself
    _warn(old_module, f"{old_module}.{name}", f"{new_module}.{name}", 3)
    return getattr(importlib.import_module(new_module), name)
