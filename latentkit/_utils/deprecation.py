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

* :func:`moved_names`: a module ``__getattr__`` for public names that moved to another
  module (the spectral starts that moved from ``latentkit.spectral`` to their family): the old
  path imports the new module on first access, with a warning.

* :func:`replaced_names`: a module ``__getattr__`` for public names that another object
  replaces (the models' adapters ``GaussianComponent``, ``PoissonEmission``..., whose public
  replacement is the distribution class): the old name still returns its object, with a
  warning naming the replacement.

* :func:`moved_kwargs`: a decorator for an ``__init__`` whose hyper-parameters moved into a
  composed object (the DirichletProcessMixture's component priors, now
  ``component=Poisson(rate_prior=...)``): it still accepts them as keywords and folds
  them into the object with one warning (:func:`moved_parameters`), so ``get_params``/``clone``
  and the signature see the object only.

All say the release the old name goes away (``REMOVED_IN``).
"""

import functools
import importlib
import inspect
import sys
import warnings

from .user_frame import user_stacklevel
from ..exceptions import InputError, InputTypeError

__all__ = ["REMOVED_IN", "deprecated_option", "moved_kwargs", "moved_names",
           "moved_parameters", "renamed_attribute", "renamed_kwargs", "renamed_parameter"]

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
                        raise InputTypeError(f"{owner}: give {new!r} only ({old!r} is its "
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
        raise InputError(f"{owner}: give {new}= only ({old}= is its deprecated old name); got "
                         f"{old}={old_value!r} and {new}={new_value!r}.")
    _warn(owner, f"{old}=", f"{new}=", stacklevel=3)
    return old_value


def moved_names(module, moved, lazy=None):
    """A module ``__getattr__`` for names imported on first access.

    Parameters
    ----------
    module : str
        The module's ``__name__`` (for the messages).
    moved : dict of str to str
        Name -> the module it moved to: access warns (``DeprecationWarning`` at the user's
        line, naming the new path) and returns the object there.
    lazy : dict of str to str, optional
        Name -> the module that defines it, imported without a warning (a name that stays
        public here but whose module is not loaded with this one).

    Returns
    -------
    callable
        ``__getattr__(name)`` (PEP 562); other names raise ``AttributeError``.
    """
    lazy = dict(lazy or {})

    def __getattr__(name):
        if name in moved:
            if _from_import_probe():
                # ``from module import name`` asks twice: the import system's
                # ``hasattr`` probe, then the statement's own lookup; warn on the second only
                return getattr(importlib.import_module(moved[name]), name)
            warnings.warn(f"{module}.{name} is deprecated and will be removed in latentkit "
                          f"{REMOVED_IN}; use {moved[name]}.{name} instead.", DeprecationWarning,
                          stacklevel=user_stacklevel())
            return getattr(importlib.import_module(moved[name]), name)
        if name in lazy:
            return getattr(importlib.import_module(lazy[name]), name)
        raise AttributeError(f"module {module!r} has no attribute {name!r}")

    return __getattr__


def replaced_names(module, replaced, fallback=None):
    """A module ``__getattr__`` for public names that another object replaces (a model's
    adapter class, now private, whose public replacement is the distribution class).

    Parameters
    ----------
    module : str
        The module's ``__name__`` (for the messages).
    replaced : dict of str to (str, str)
        Name -> (the module that defines it, the dotted name of its replacement): access
        warns (``DeprecationWarning`` at the user's line, naming the replacement and
        :data:`REMOVED_IN`) and returns the old object, which works as before.
    fallback : callable, optional
        The module's other ``__getattr__`` (e.g. of :func:`latentkit._utils.lazy.lazy_exports`),
        asked for every other name; without it they raise ``AttributeError``.

    Returns
    -------
    callable
        ``__getattr__(name)`` (PEP 562).
    """
    replaced = dict(replaced)

    def __getattr__(name):
        if name in replaced:
            where, new = replaced[name]
            if not _from_import_probe():
                warnings.warn(f"{module}.{name} is deprecated and will be removed in latentkit "
                              f"{REMOVED_IN}; pass {new} instead (the model builds its own "
                              f"adapter from it).", DeprecationWarning,
                              stacklevel=user_stacklevel())
            return getattr(importlib.import_module(where), name)
        if fallback is not None:
            return fallback(name)
        raise AttributeError(f"module {module!r} has no attribute {name!r}")

    return __getattr__


def _from_import_probe():
    """Whether the module ``__getattr__`` calling this was called by the import system's
    ``_handle_fromlist`` (its ``hasattr`` check of a ``from package import name``), which is
    followed by the statement's own lookup of the same name."""
    frame = sys._getframe(2)   # 0: this function, 1: __getattr__, 2: who asked for the name
    return (frame.f_code.co_name == "_handle_fromlist"
            and frame.f_globals.get("__name__") == "importlib._bootstrap")


def moved_parameters(owner, names, new):
    """Warn that the keywords ``names`` of ``owner`` moved into the object ``new``.

    Parameters
    ----------
    owner : str
        Class name, for the message.
    names : iterable of str
        The deprecated keywords that were given (listed sorted in the message).
    new : str
        What to write instead, e.g. ``"component=Poisson(...)"``.

    Warns
    -----
    DeprecationWarning
        One warning naming every moved keyword and ``new``, attributed to the first frame
        outside latentkit (the user's line, :func:`latentkit._utils.user_frame.user_stacklevel`).
    """
    names = sorted(names)
    old = ", ".join(f"{n}=" for n in names)
    warnings.warn(f"{owner}: {old} {'is' if len(names) == 1 else 'are'} deprecated and will be "
                  f"removed in latentkit {REMOVED_IN}; use {new} instead.", DeprecationWarning,
                  stacklevel=user_stacklevel())


def moved_kwargs(target, names, fold):
    """Decorator for ``__init__``: accept the deprecated keywords ``names``, which moved into the
    object hyper-parameter ``target``, and fold them into it.

    Parameters
    ----------
    target : str
        The hyper-parameter that holds them now, e.g. ``'component'``.
    names : iterable of str
        The deprecated keywords.
    fold : callable
        ``fold(value, legacy) -> object``: the new ``target`` from its given (or default)
        value and the dict of deprecated keywords given; raises ``TypeError``/``ValueError``
        for a combination it cannot express.

    Returns
    -------
    callable
        A decorator. The wrapped ``__init__`` keeps its signature (``functools.wraps``: the
        deprecated keywords appear neither in ``inspect.signature`` nor in ``get_params``) and
        warns once (``DeprecationWarning`` naming every keyword given and the class of the
        folded object, :func:`moved_parameters`) when some are given; a keyword it knows
        neither way is Python's ``TypeError``.
    """
    names = frozenset(names)

    def decorate(init):
        owner = init.__qualname__.replace(".__init__", "")
        default = inspect.signature(init).parameters[target].default

        @functools.wraps(init)
        def wrapper(self, *args, **kwargs):
            legacy = {k: kwargs.pop(k) for k in list(kwargs) if k in names}
            if legacy:
                value = fold(kwargs.get(target, default), legacy)
                moved_parameters(owner, legacy, f"{target}={type(value).__name__}(...)")
                kwargs[target] = value
            return init(self, *args, **kwargs)

        return wrapper

    return decorate


def deprecated_option(flag, note, stacklevel=2):
    """Warn that a command-line option is deprecated (a ``DeprecationWarning``, which the
    command prints as one ``warning:`` line).

    Parameters
    ----------
    flag : str
        The old option as the user types it (``'--no-hdp'``); listed in CHANGELOG.md.
    note : str
        What it does now and what to use instead.
    stacklevel : int, default 2

    Examples
    --------
    >>> import warnings
    >>> from latentkit._utils.deprecation import deprecated_option
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     deprecated_option("--no-hdp", "select lda fits the HDP only with --hdp now")
    >>> str(caught[0].message)
    '--no-hdp is deprecated and will be removed in latentkit 0.3: select lda fits the HDP only with --hdp now.'
    """
    warnings.warn(f"{flag} is deprecated and will be removed in latentkit {REMOVED_IN}: "
                  f"{note}.", DeprecationWarning, stacklevel=stacklevel + 1)

