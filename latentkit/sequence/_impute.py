"""Missing entries of a fitted GaussianHMM filled with their posterior means
(:meth:`latentkit.sequence.GaussianHMM.impute`).

Source: Ghahramani & Jordan (1994), "Supervised learning from incomplete data via an EM
approach": the Gaussian conditionals of the missing coordinates given the observed ones, mixed
by the forward-backward posteriors of the states.
"""

import numpy as np

from ..distributions import compute_precision_cholesky
from ..distributions._missing import check_array_missing, conditional_impute
from ..exceptions import InputError

__all__ = ["impute_missing"]


def impute_missing(model, X, lengths=None, return_std=False):
    """The body of :meth:`GaussianHMM.impute` (see there for parameters, returns and errors)."""
    model._check_is_fitted()
    if model.missing != "marginalize":
        raise InputError("impute needs the model fitted with missing='marginalize' (NaN "
                         f"entries are then marginalised), got missing={model.missing!r}; "
                         "refit with GaussianHMM(..., missing='marginalize').")
    gamma = model.predict_proba(X, lengths)
    X = check_array_missing(X, "X")
    pc, _ = compute_precision_cholesky(model.covariances_, model.covariance_type,
                                       reg_covar=model.reg_covar)
    return conditional_impute(X, np.zeros(model.n_components), model.means_, pc,
                              model.covariance_type, shift=model.emission_.shift_,
                              return_std=return_std, resp=gamma)
