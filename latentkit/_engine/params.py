"""Hyper-parameters the scikit-learn way, without depending on it: :class:`ParamsMixin`
(``get_params`` / ``set_params`` / ``repr`` / the fitted-state interface) and :func:`clone`
(re-exported by :mod:`latentkit.base`)."""

import copy
import functools
import inspect

import numpy as np

from ..exceptions import InputError

__all__ = ["ParamsMixin", "clone"]


@functools.lru_cache(maxsize=None)
def _init_param_names(init):
    """Sorted names of the parameters of ``init``, cached per function: the fit loop asks for
    them in every iteration (``latentkit._engine.fitting.shallow_state``), and
    ``inspect.signature`` costs tens of microseconds."""
    names = []
    for p in inspect.signature(init).parameters.values():
        if p.name == "self" or p.kind in (p.VAR_KEYWORD, p.VAR_POSITIONAL):
            continue
        names.append(p.name)
    return tuple(sorted(names))


class ParamsMixin:
    """``get_params`` / ``set_params`` / ``repr`` / scikit-learn tags from ``__init__``'s signature.

    ``__init__`` stores its arguments unchanged; no validation happens there.

    Examples
    --------
    >>> from latentkit import GaussianMixture
    >>> from latentkit.base import ParamsMixin
    >>> gmm = GaussianMixture(n_components=3)
    >>> isinstance(gmm, ParamsMixin), gmm.get_params()["n_components"]
    (True, 3)
    >>> gmm.set_params(n_components=2)
    GaussianMixture(n_components=2)
    """

    @classmethod
    def _get_param_names(cls):
        init = cls.__init__
        if init is object.__init__:
            return []
        return list(_init_param_names(init))

    def get_params(self, deep=True):
        """Hyper-parameters as a dict (``deep=True`` adds ``sub__param`` of nested models).

        Returns
        -------
        dict
        """
        out = {}
        for name in self._get_param_names():
            value = getattr(self, name)
            if deep and hasattr(value, "get_params") and not isinstance(value, type):
                for k, v in value.get_params(deep=True).items():
                    out[f"{name}__{k}"] = v
            out[name] = value
        return out

    def set_params(self, **params):
        """Set hyper-parameters (``sub__param`` for nested models); returns self.

        Raises
        ------
        ValueError
            An unknown parameter name.
        """
        valid = self._get_param_names()
        nested = {}
        for key, value in params.items():
            name, _, sub = key.partition("__")
            if name not in valid:
                raise InputError(
                    f"Invalid parameter {name!r} for estimator {type(self).__name__}. "
                    f"Valid parameters are: {valid!r}."
                )
            if sub:
                nested.setdefault(name, {})[sub] = value
            else:
                setattr(self, name, value)
        for name, sub_params in nested.items():
            getattr(self, name).set_params(**sub_params)
        return self

    def __repr__(self):
        sig = inspect.signature(type(self).__init__)
        parts = []
        for name in self._get_param_names():
            default = sig.parameters[name].default
            value = getattr(self, name, None)
            try:
                same = default is not inspect.Parameter.empty and (
                    value is default or bool(np.all(value == default)))
            except Exception:
                same = False
            if not same:
                parts.append(f"{name}={value!r}")
        return f"{type(self).__name__}({', '.join(parts)})"

    # ---- fitted state: the one interface latentkit.io (and any driver) reads and writes ----
    def _get_state(self):
        """The fitted state, as a dict that :meth:`_set_state` turns back into this model.

        By default every public fitted attribute (an instance attribute ending in ``_`` that
        is not a hyper-parameter). Models add what they need beyond it under names without a
        trailing underscore (running statistics, generator states, a component's resolved
        values) and replace objects by their arrays; nothing else private is part of it.

        Returns
        -------
        dict
            ``{name: value}``; values are arrays, scalars, strings, None, lists, dicts of
            those, or :class:`Stats` objects.
        """
        params = set(self._get_param_names())
        return {k: v for k, v in vars(self).items()
                if k.endswith("_") and not k.startswith("_") and k not in params}

    def _set_state(self, state):
        """Restore the fitted state returned by :meth:`_get_state` (on a model built with the
        same hyper-parameters).

        Raises
        ------
        ValueError
            An entry this model does not know (a private entry no override consumed).
        """
        unknown = sorted(k for k in state if not k.endswith("_"))
        if unknown:
            raise InputError(f"{type(self).__name__} has no fitted state entries {unknown}.")
        for name, value in state.items():
            setattr(self, name, value)

    def _check_state(self):
        """Validate a restored fitted state (the hook :func:`latentkit.load` runs after
        :meth:`_set_state`, through :func:`latentkit._engine.state_checks.check_state`).
        Nothing by default: each family overrides it with the checks of its own state (a
        small ``_state_checks`` module in the family's folder: attributes present, shapes
        consistent with the hyper-parameters and with each other, probability rows,
        positive-definite covariances), built from the generic checkers of
        :mod:`latentkit._engine.state_checks`.

        Raises
        ------
        ValueError
            (``latentkit._engine.state_checks.StateCheckError``) naming the bad attribute.
        """

    # scikit-learn >= 1.7 asks estimators for tags; only imported when scikit-learn calls it.
    def __sklearn_tags__(self):
        from sklearn.utils import InputTags, Tags, TargetTags

        tags = Tags(estimator_type=None, target_tags=TargetTags(required=False),
                    input_tags=InputTags())
        return self._update_sklearn_tags(tags)

    def _update_sklearn_tags(self, tags):
        """Hook for subclasses: adjust scikit-learn's Tags object (e.g. sparse input)."""
        return tags


def clone(model):
    """A new unfitted model with the same hyper-parameters (deep-copied).

    Parameters
    ----------
    model : ParamsMixin

    Returns
    -------
    ParamsMixin

    Examples
    --------
    >>> import latentkit as lk
    >>> model = lk.GaussianMixture(n_components=3, random_state=0)
    >>> fresh = lk.clone(model)
    >>> fresh is model, fresh.get_params() == model.get_params()
    (False, True)
    """
    params = {k: copy.deepcopy(v) for k, v in model.get_params(deep=False).items()}
    params = {k: (clone(v) if isinstance(v, ParamsMixin) else v) for k, v in params.items()}
    return type(model)(**params)


