"""The validation the topic models share (LDA, HDP): a document-term matrix of non-negative
counts, its width fixed at the first fit, the ``init`` hyper-parameter and the E-step and
step-size hyper-parameters."""

import numbers

from .._engine.steps import check_learning_rate
from .._utils.validation import check_counts, check_n_features, check_scalar
from ..exceptions import InputError, InputTypeError

__all__ = ["validate_count_data", "check_init", "check_step_params"]


def validate_count_data(model, X, reset, kw):
    """The ``_validate_data`` hook of a topic model over a document-term matrix.

    Parameters
    ----------
    model : LatentModel
        The topic model (``n_features_in_`` is set on it when ``reset``).
    X : array-like or sparse matrix of shape (n_documents, n_features)
        Word counts.
    reset : bool
        True in ``fit`` (sets ``n_features_in_`` and resolves the data-derived defaults),
        False afterwards (the width must match).
    kw : dict
        Extra keyword arguments the caller passed (none are accepted).

    Returns
    -------
    scipy.sparse.csr_matrix
        The validated counts (a copy where a conversion was needed; never the user's array
        modified).

    Raises
    ------
    InputTypeError
        Unexpected keyword arguments.
    InputError
        Negative, non-finite or non-integer-valued counts; a width other than the fitted one.
    """
    if kw:
        raise InputTypeError(f"{type(model).__name__} got unexpected arguments {sorted(kw)}.")
    X = check_counts(X, "X")
    if reset:
        model.n_features_in_ = X.shape[1]
        model._resolve_data_defaults(X)
    else:
        check_n_features(X.shape[1], model.n_features_in_, "X", type(model).__name__)
    return X


def check_init(init, methods, optional_keys=()):
    """Check a topic model's ``init``: one of the named start methods, or a dict of starting
    parameters with the key ``'components'`` (and, optionally, ``optional_keys``).

    Parameters
    ----------
    init : object
        The hyper-parameter as given.
    methods : tuple of str
        The start methods the model accepts by name.
    optional_keys : tuple of str, default ()
        Keys a dict may hold besides ``'components'``.

    Raises
    ------
    InputError
        An unknown method name, or a dict without ``'components'`` or with other keys.
    InputTypeError
        Neither a string nor a dict.
    """
    if isinstance(init, str):
        if init not in methods:
            names = ", ".join(repr(m) for m in methods)
            raise InputError(f"init must be {names} or a dict with key 'components', "
                             f"got {init!r}.")
    elif isinstance(init, dict):
        extra = set(init) - {"components", *optional_keys}
        if "components" not in init or extra:
            if optional_keys:
                allowed = "the key 'components' and optionally " + ", ".join(
                    repr(k) for k in optional_keys)
            else:
                allowed = "exactly the key 'components'"
            raise InputError(f"init dict must have {allowed}, got keys {sorted(init)}.")
    else:
        raise InputTypeError(f"init must be a string or a dict, got {type(init).__name__}.")


def check_step_params(model):
    """Check the E-step and step-size hyper-parameters of a topic model:
    ``max_doc_update_iter`` (int >= 1), ``mean_change_tol`` (>= 0), ``warmup_doc_update_iter``
    (None or int >= 1), ``learning_offset`` and ``learning_decay``
    (:func:`latentkit._engine.steps.check_learning_rate`).

    Raises
    ------
    InputError, InputTypeError
        Naming the first bad hyper-parameter.
    """
    check_scalar(model.max_doc_update_iter, "max_doc_update_iter", numbers.Integral, low=1)
    check_scalar(model.mean_change_tol, "mean_change_tol", numbers.Real, low=0.0)
    if model.warmup_doc_update_iter is not None:
        check_scalar(model.warmup_doc_update_iter, "warmup_doc_update_iter",
                     numbers.Integral, low=1)
    check_learning_rate(model.learning_offset, model.learning_decay)
