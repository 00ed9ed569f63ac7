"""Generic checks of a restored fitted state, taking values (no model family is known here).

:func:`latentkit.load` rebuilds a model from a file and then calls :func:`check_state`, which
runs the model's own ``_check_state()`` hook (docs/design.md section 3): each family checks
its state in a small module of its folder (``latentkit/mixture/_state_checks.py``, ...)
with the checkers below. They read the fitted values from a :class:`FittedState` (the
model's public attributes by name, built by the hook) and check that every attribute is
present, that its shape agrees with the hyper-parameters and the other attributes, that
probability rows are non-negative and sum to one, rates and concentrations positive,
covariances symmetric positive definite, and every number finite. A failure is a
:class:`StateCheckError` (a ValueError) naming the attribute, so a damaged file is refused at
``load`` rather than at first use.
"""

import numbers
from collections.abc import Mapping

import numpy as np

from ..exceptions import StateCheckError  # defined there; importable here as before

__all__ = ["FittedState", "check_state", "StateCheckError"]

_SUM_TOL = 1e-6  # relative tolerance of the sums of probability rows


class FittedState(Mapping):
    """The public attributes of a model by name (its fitted state and hyper-parameters), as
    values: a missing name is a :class:`StateCheckError` naming it.

    Parameters
    ----------
    attributes : dict
        ``vars(model)``; names starting with ``_`` are left out.
    owner : str
        The model's class name (for the message of a missing attribute).
    """

    def __init__(self, attributes, owner):
        self._values = {k: v for k, v in attributes.items() if not k.startswith("_")}
        self._owner = owner

    def __getitem__(self, name):
        try:
            return self._values[name]
        except KeyError:
            raise StateCheckError(name, f"missing (a fitted {self._owner} has it)") from None

    def get(self, name, default=None):
        return self._values.get(name, default)

    def __contains__(self, name):
        return name in self._values

    def __iter__(self):
        return iter(self._values)

    def __len__(self):
        return len(self._values)


def _get(state, name):
    """``state[name]`` of a :class:`FittedState` (or, for the older callers that pass an
    object, its attribute), a missing one a :class:`StateCheckError`."""
    if isinstance(state, Mapping):
        return state[name]
    try:
        return getattr(state, name)
    except AttributeError:
        raise StateCheckError(name, f"missing (a fitted {type(state).__name__} has it)") \
            from None


def _int(state, name, low=1):
    v = _get(state, name)
    if isinstance(v, bool) or not isinstance(v, numbers.Integral) or v < low:
        raise StateCheckError(name, f"expected an integer >= {low}, found {v!r}")
    return int(v)


def _real(state, name, low=None):
    v = _get(state, name)
    if isinstance(v, bool) or not isinstance(v, numbers.Real) or not np.isfinite(v) \
            or (low is not None and not v > low):
        bound = "" if low is None else f" > {low}"
        raise StateCheckError(name, f"expected a finite number{bound}, found {v!r}")
    return float(v)


def _array(state, name, shape, positive=False, nonnegative=False):
    """The attribute as an array of the given shape (None: any length), finite."""
    a = _get(state, name)
    if not isinstance(a, np.ndarray) or a.dtype.kind not in "fiu":
        raise StateCheckError(name, f"expected a numeric array, found {type(a).__name__}")
    if a.ndim != len(shape) or any(s is not None and s != n for s, n in zip(shape, a.shape)):
        want = tuple("any" if s is None else s for s in shape)
        raise StateCheckError(name, f"expected shape {want}, found {a.shape}")
    if not np.all(np.isfinite(a)):
        raise StateCheckError(name, "has non-finite values")
    if positive and not np.all(a > 0):
        raise StateCheckError(name, "expected positive values, found some <= 0")
    if nonnegative and not np.all(a >= 0):
        raise StateCheckError(name, "expected non-negative values, found some < 0")
    return a


def _simplex(state, name, shape):
    """Probability rows (the last axis sums to one)."""
    a = _array(state, name, shape, nonnegative=True)
    sums = a.sum(axis=-1)
    if not np.allclose(sums, 1.0, rtol=0.0, atol=_SUM_TOL * max(1, a.shape[-1])):
        raise StateCheckError(name, "expected rows summing to 1 (probabilities), found sums "
                                    f"from {sums.min():.6g} to {sums.max():.6g}")
    return a


def _covariances(state, name, covariance_type, lead, D):
    """Covariances stored per ``covariance_type``: full ``lead + (D, D)``, tied ``(D, D)``
    (``tied_lead + (D, D)`` for mixtures in states), diag ``lead + (D,)``, spherical
    ``lead``; positive variances, symmetric positive-definite matrices."""
    if covariance_type == "full":
        a = _array(state, name, (*lead, D, D))
    elif covariance_type == "tied":
        a = _array(state, name, (*lead[:-1], D, D))
    elif covariance_type == "diag":
        return _array(state, name, (*lead, D), positive=True)
    elif covariance_type == "spherical":
        return _array(state, name, lead, positive=True)
    else:
        raise StateCheckError("covariance_type", f"unknown value {covariance_type!r}")
    if not np.allclose(a, np.swapaxes(a, -1, -2), rtol=1e-8, atol=1e-12):
        raise StateCheckError(name, "expected symmetric matrices")
    try:
        np.linalg.cholesky(a)
    except np.linalg.LinAlgError:
        raise StateCheckError(name, "expected positive-definite matrices") from None
    return a


def _real_or_array(state, name, shapes):
    """A positive number, or a positive array of one of ``shapes``."""
    if np.ndim(_get(state, name)) == 0:
        _real(state, name, low=0.0)
        return
    a = _get(state, name)
    if not any(np.shape(a) == s for s in shapes):
        raise StateCheckError(name, f"expected a number or shape {' or '.join(map(str, shapes))}, "
                                    f"found {np.shape(a)}")
    _array(state, name, np.shape(a), positive=True)


def _sizes(state):
    """``(n_components, n_features_in_)``: the sizes every latent model has."""
    return _int(state, "n_components"), _int(state, "n_features_in_")


def check_state(model):
    """Validate the fitted state of ``model`` by its own ``_check_state`` hook (nothing for a
    class without one), naming the model's sizes in the error.

    Parameters
    ----------
    model : latentkit.base.ParamsMixin
        A model whose state was just restored (``_set_state``).

    Returns
    -------
    None

    Raises
    ------
    StateCheckError
        (a ValueError) An attribute is missing, has the wrong shape for the
        hyper-parameters or the other attributes, holds non-finite values, probabilities
        that are negative or do not sum to one, non-positive rates, or covariances that are
        not symmetric positive definite; the message names the attribute.
    """
    check = getattr(model, "_check_state", None)
    if check is None:
        return
    try:
        check()
    except StateCheckError as exc:
        sizes = ", ".join(f"{k}={getattr(model, k)!r}" for k in
                          ("n_components", "n_features_in_") if hasattr(model, k))
        raise StateCheckError(exc.attribute, f"{str(exc).split(': ', 1)[1]} (the "
                                             f"model has {sizes})") from None
