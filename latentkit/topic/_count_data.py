"""The count-data validation the topic models share (LDA, HDP): a document-term matrix of
non-negative counts, its width fixed at the first fit."""

from .._utils.validation import check_counts, check_n_features
from ..exceptions import InputTypeError

__all__ = ["validate_count_data"]


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
