"""HMMs defined by hand, as hmmlearn users do: set ``startprob_``, ``transmat_`` and the
emission's parameters (``emissionprob_``; ``means_`` and ``covariances_``; ``lambdas_``;
``weights_``, ``means_`` and ``covariances_`` of a GMMHMM) on an unfitted model, then call
``score``, ``decode``, ``predict``, ``predict_proba`` or ``sample``.

At the first such call the values are validated (shapes against ``n_components`` and each
other, rows on the simplex, positive variances, symmetric positive-definite covariance
matrices; a ``ValueError`` naming the attribute) and the model is completed as a fit would
leave it (the emission component, its number of features and, for Gaussians, the shift about
which densities are evaluated). The variational HMMs hold posteriors, not point parameters, and
are not set by hand. A fitted HMM uses reassigned parameters as they are (it keeps nothing
derived from them), without this validation.
"""

import numpy as np

from ..exceptions import NotFittedError, InputError
from .._utils.validation import check_simplex_rows

__all__ = ["adopt_hand_set"]

#: hmmlearn's attribute name for the covariances, accepted as an alias of ``covariances_``
_ALIASES = {"covariances_": "covars_"}


def _attr(name):
    return {"covars": "covariances"}.get(name, name) + "_"


def _named(exc, name, attr):
    """The emission checks name ``init[...]``: name the attribute instead."""
    msg = str(exc).replace(f"init['{name}']", attr).replace(f"init[{name!r}]", attr)
    return InputError(msg if attr in msg else f"{attr}: {msg}")


def adopt_hand_set(model):
    """Complete an unfitted HMM whose parameters were set by hand (module docstring).

    Parameters
    ----------
    model : HiddenMarkovModel
        Not fitted (no ``transmat_`` with an ``emission_``).

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
    emission = model._make_emission()
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
    return True


def _complete(model, K, names, attrs):
    values = vars(model)
    em = model.emission_
    first = np.asarray(values[attrs[2]])
    if first.ndim < 2:
        raise InputError(f"{attrs[2]} must have one row per state, shape ({K}, ...), got "
                         f"shape {first.shape}.")
    n_feat = getattr(em, "n_features", None)
    em.n_features_ = int(n_feat) if n_feat is not None else int(first.shape[-1])
    checked = {
        "startprob_": check_simplex_rows(values["startprob_"], "startprob_", (K,)),
        "transmat_": check_simplex_rows(values["transmat_"], "transmat_", (K, K)),
    }
    for name, attr in zip(names[2:], attrs[2:]):
        try:
            checked[attr] = np.asarray(em.check_param(name, values[attr], K), dtype=float)
        except ValueError as exc:
            raise _named(exc, name, attr) from None
    if "means_" in checked:  # Gaussians: densities are evaluated about a fixed point
        em.shift_ = checked["means_"].reshape(-1, em.n_features_).mean(axis=0)
    values.update(checked)
    # the observation columns X has: one column of symbols for categorical emissions
    model.n_features_in_ = 1 if "emissionprob_" in checked else em.n_features_
