"""HMMs defined by hand, as hmmlearn users do: set ``startprob_``, ``transmat_`` and the
emission's parameters (``emissionprob_``; ``means_`` and ``covariances_``; ``lambdas_``;
``weights_``, ``means_`` and ``covariances_`` of a GMMHMM) on an unfitted model, then call
``score``, ``decode``, ``predict``, ``predict_proba`` or ``sample``.

At the first such call the values are validated (shapes against ``n_components`` and each
other, rows on the simplex, positive variances, symmetric positive-definite covariance
matrices; a ``ValueError`` naming the attribute) and the model is completed as a fit would
leave it (the emission component, its number of features and, for Gaussians, the shift about
which densities are evaluated). The variational HMMs hold posteriors, not point parameters, and
are not set by hand.

The parameters are checked again at every later use (``score``, ``predict``, ``sample``...)
whenever one of them changed since the last check, whether the model was set by hand or fitted:
a new array assigned, or an array changed in place (:func:`recheck_hand_set` keeps each
array's identity, shape, dtype and a hash of its bytes; the check runs only when one
differs). Rows of probabilities stored in float32 (or float16) are accepted within a few ulps
of that type (:func:`latentkit._utils.validation.check_simplex_rows`), as hmmlearn accepts them.
"""

import numpy as np

from ..exceptions import NotFittedError, InputError
from .._utils.validation import check_simplex_rows

__all__ = ["adopt_hand_set", "recheck_hand_set"]

#: hmmlearn's attribute name for the covariances, accepted as an alias of ``covariances_``
_ALIASES = {"covariances_": "covars_"}


def _attr(name):
    return {"covars": "covariances"}.get(name, name) + "_"


def _named(exc, name, attr):
    """The emission checks name ``init[...]``: name the attribute instead."""
    msg = str(exc).replace(f"init['{name}']", attr).replace(f"init[{name!r}]", attr)
    return InputError(msg if attr in msg else f"{attr}: {msg}")


def adopt_hand_set(model, make_emission):
    """Complete an unfitted HMM whose parameters were set by hand (module docstring).

    Parameters
    ----------
    model : HiddenMarkovModel
        Not fitted (no ``transmat_`` with an ``emission_``).
    make_emission : callable
        ``make_emission()``: a new emission component of the model's hyper-parameters (the
        model's own method; called only when the model may be set by hand).

    Returns
    -------
    bool
        True when the model was completed; False when no parameter was set by hand (the
        caller raises its NotFittedError).

    Raises
    ------
    NotFittedError
        Some but not all of the parameters were set (the message lists the missing ones).
    ValueError
        A hand-set value of the wrong shape, off the simplex, not positive (definite) or not
        finite, naming the attribute.
    """
    if not getattr(model, "_hand_settable", True):
        return False
    values = vars(model)
    for attr, alias in _ALIASES.items():
        if alias in values and attr not in values:
            values[attr] = values.pop(alias)
    emission = make_emission()
    names = ("startprob", "transmat") + tuple(emission.param_names)
    attrs = [_attr(n) for n in names]
    present = [a for a in attrs if a in values]
    if not present:
        return False
    missing = [a for a in attrs if a not in values]
    if missing:
        raise NotFittedError(
            f"This {type(model).__name__} has {', '.join(present)} set by hand but not "
            f"{', '.join(missing)}: set all of {', '.join(attrs)} (or call 'fit').")
    K = int(model.n_components)
    model._validate_params()  # the emission component (emission_) and frozen_
    try:
        _complete(model, K, names, attrs)
    except Exception:
        for name in ("emission_", "frozen_"):  # left unfitted: the next call checks again
            values.pop(name, None)
        raise
    values["_checked_params"] = _fingerprint(model, attrs)
    return True


def _param_attrs(model):
    return [_attr(n) for n in ("startprob", "transmat") + tuple(model.emission_.param_names)]


def _fingerprint(model, attrs):
    """Per parameter: identity, shape, dtype and a hash of the bytes (cheap next to a
    forward pass: the arrays are K x K and K x n_features)."""
    values = vars(model)
    out = []
    for a in attrs:
        v = values.get(a)
        arr = np.asarray(v)
        out.append((a, id(v), arr.shape, arr.dtype.str,
                    hash(np.ascontiguousarray(arr).tobytes()) if arr.dtype != object else None))
    return tuple(out)


def recheck_hand_set(model):
    """Validate a fitted or hand-set HMM's parameters again when one changed since the last
    check (module docstring); nothing when none changed.

    Parameters
    ----------
    model : HiddenMarkovModel
        Fitted (``transmat_`` and ``emission_``).

    Raises
    ------
    ValueError
        A parameter of the wrong shape, off the simplex, not positive (definite) or not
        finite, naming the attribute. The model is left as it was (the next call checks
        again).
    """
    if not getattr(model, "_hand_settable", True):
        return
    values = vars(model)
    attrs = _param_attrs(model)
    if any(a not in values for a in attrs):
        return  # a model in the middle of its fit, or from an older file: nothing to compare
    fp = _fingerprint(model, attrs)
    if values.get("_checked_params") == fp:
        return
    names = ("startprob", "transmat") + tuple(model.emission_.param_names)
    _checked(model, int(model.n_components), names, attrs)
    values["_checked_params"] = fp


def _complete(model, K, names, attrs):
    values = vars(model)
    em = model.emission_
    first = np.asarray(values[attrs[2]])
    if first.ndim < 2:
        raise InputError(f"{attrs[2]} must have one row per state, shape ({K}, ...), got "
                         f"shape {first.shape}.")
    n_feat = getattr(em, "n_features", None)
    em.n_features_ = int(n_feat) if n_feat is not None else int(first.shape[-1])
    checked = _checked(model, K, names, attrs)
    if "means_" in checked:  # Gaussians: densities are evaluated about a fixed point
        em.shift_ = checked["means_"].reshape(-1, em.n_features_).mean(axis=0)
    values.update(checked)
    # the observation columns X has: one column of symbols for categorical emissions
    model.n_features_in_ = 1 if "emissionprob_" in checked else em.n_features_


def _checked(model, K, names, attrs):
    """The validated parameters (copies), by attribute; raises naming the attribute."""
    values, em = vars(model), model.emission_
    checked = {
        "startprob_": check_simplex_rows(values["startprob_"], "startprob_", (K,)),
        "transmat_": check_simplex_rows(values["transmat_"], "transmat_", (K, K)),
    }
    for name, attr in zip(names[2:], attrs[2:]):
        try:
            checked[attr] = np.asarray(em.check_param(name, values[attr], K), dtype=float)
        except ValueError as exc:
            raise _named(exc, name, attr) from None
    return checked
