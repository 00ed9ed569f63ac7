"""A GaussianMixture defined by hand: set ``weights_``, ``means_`` and ``covariances_`` (shape
by ``covariance_type``) on an unfitted model, or assign new ones to a fitted model, then call
``score``, ``score_samples``, ``predict``, ``predict_proba``, ``sample``, ``bic`` or ``aic``.

At the first such call the values are validated (weights on the simplex, means finite of shape
(n_components, n_features), covariances of the covariance type's shape, positive variances,
symmetric positive-definite matrices; a ``ValueError`` naming the attribute) and the
attributes a fit derives from them are computed (``precisions_cholesky_``, ``precisions_``,
``n_features_in_``). Assign new arrays; an array changed in place is not seen. The variational
mixtures hold posteriors, not point parameters, and are not set by hand.
"""

import numpy as np

from ..exceptions import NotFittedError, InputError
from .._utils.validation import check_simplex_rows
from ..distributions._gaussian_covariance import (check_gaussian_parameters,
                                                  compute_precision_cholesky,
                                                  covariance_shape,
                                                  covariances_from_precisions,
                                                  precisions_from_cholesky)

__all__ = ["check_hand_set"]

_NAMES = ("weights_", "means_", "covariances_")


def _consistent(model):
    """Whether the fitted precisions belong to the current ``covariances_`` (and the shapes
    to each other): nothing was assigned by hand since they were computed."""
    v = vars(model)
    if "precisions_cholesky_" not in v or "n_features_in_" not in v:
        return False
    K, D, ct = int(model.n_components), int(model.n_features_in_), model.covariance_type
    cov = np.asarray(model.covariances_)
    if (np.shape(model.weights_) != (K,) or np.shape(model.means_) != (K, D)
            or cov.shape != covariance_shape(ct, K, D)
            or np.shape(model.precisions_cholesky_) != cov.shape):
        return False
    implied = covariances_from_precisions(precisions_from_cholesky(model.precisions_cholesky_,
                                                                   ct), ct)
    return bool(np.allclose(implied, cov, rtol=1e-7, atol=0.0))


def check_hand_set(model, shift):
    """Validate and complete hand-set parameters of a GaussianMixture (module docstring); a
    fitted model whose parameters were not reassigned is left as it is. Reads the model's
    public attributes only; the caller assigns what it returns.

    Parameters
    ----------
    model : GaussianMixture
    shift : ndarray of shape (n_features,) or None
        The model's current fixed point of the moments (kept when its shape fits).

    Returns
    -------
    dict
        The attributes to set (``weights_``, ``means_``, ``covariances_`` as validated copies,
        ``precisions_cholesky_``, ``precisions_``, ``n_features_in_`` and ``_shift``, the fixed
        point densities are evaluated about); empty when nothing was set by hand or nothing
        changed.

    Raises
    ------
    NotFittedError
        Some but not all of ``weights_``, ``means_``, ``covariances_`` set.
    ValueError
        A hand-set value of the wrong shape, off the simplex, not finite, not positive
        (definite), naming the attribute.
    """
    v = vars(model)
    present = [n for n in _NAMES if n in v]
    if not present or _consistent(model):
        return {}
    missing = [n for n in _NAMES if n not in v]
    if missing:
        raise NotFittedError(
            f"This {type(model).__name__} has {', '.join(present)} set by hand but not "
            f"{', '.join(missing)}: set all of {', '.join(_NAMES)} (or call 'fit').")
    K, ct = int(model.n_components), model.covariance_type
    means = np.array(model.means_, dtype=np.float64, copy=True)
    if means.ndim != 2 or means.shape[0] != K or not np.all(np.isfinite(means)):
        raise InputError(f"means_ must be finite with shape ({K}, n_features), got shape "
                         f"{means.shape}" + ("" if means.ndim != 2 or means.shape[0] != K
                                             else " with NaN or infinity") + ".")
    D = means.shape[1]
    weights = check_simplex_rows(model.weights_, "weights_", (K,))
    cov = check_gaussian_parameters("covariances_", model.covariances_, ct, K, D)
    prec_chol, _ = compute_precision_cholesky(cov, ct, repair=False)
    if shift is None or np.shape(shift) != (D,):
        shift = weights @ means  # the fixed point densities are evaluated about
    return dict(weights_=weights, means_=means, covariances_=cov,
                precisions_cholesky_=prec_chol,
                precisions_=precisions_from_cholesky(prec_chol, ct), n_features_in_=D,
                _shift=shift)
