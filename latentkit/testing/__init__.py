"""Testing helpers: the common model contract, permutation matching, and the naive NumPy
oracles of every numba kernel (each compared to its kernel to 1e-10 in the test suite).

Oracles live in ``latentkit/testing/_oracles_<family>.py`` and are re-exported here.
"""

import numpy as np
from scipy.optimize import linear_sum_assignment

from ._contract import (assert_input_unchanged, assert_stats_allclose, check_latent_model,
                        snapshot_input)
from ._sklearn import NOT_FITTED_XFAIL, check_sklearn_estimator
from ._hmm_chains import mixing_hmm, sample_categorical_hmm
from ._sparse_cp import cp_factor_error, planted_sparse_cp
from ._privacy import empirical_epsilon_lower_bound
from ..exceptions import InputError

__all__ = [
    "check_latent_model",
    "assert_stats_allclose",
    "assert_input_unchanged",
    "snapshot_input",
    "match_components",
    "check_sklearn_estimator",
    "NOT_FITTED_XFAIL",
    "planted_sparse_cp",
    "cp_factor_error",
    "mixing_hmm",
    "sample_categorical_hmm",
    "empirical_epsilon_lower_bound",
]


def match_components(true, est, metric="l1"):
    """Best one-to-one matching of estimated to true components (Hungarian algorithm).

    Parameters
    ----------
    true, est : ndarray of shape (k, d)
        Components as rows (topics, means, eigenvectors...).
    metric : {'l1', 'l2', 'abs_cos'}, default 'l1'
        Cost between rows: L1 distance, Euclidean distance, or ``1 - |cosine|`` (sign-invariant).

    Returns
    -------
    perm : ndarray of shape (k,) of int
        ``est[perm[i]]`` is matched to ``true[i]``.
    errors : ndarray of shape (k,)
        The cost of each matched pair.

    Raises
    ------
    ValueError
        When the shapes differ.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.testing import match_components
    >>> true = np.array([[1.0, 0.0], [0.0, 1.0]])
    >>> est = np.array([[0.1, 0.9], [0.8, 0.2]])
    >>> perm, errors = match_components(true, est)
    >>> perm, np.round(errors, 6)
    (array([1, 0]), array([0.4, 0.2]))
    """
    true = np.asarray(true, dtype=float)
    est = np.asarray(est, dtype=float)
    if true.ndim != 2 or true.shape != est.shape:
        raise InputError(f"true and est must have the same 2-D shape, got {true.shape} and {est.shape}.")
    if metric == "l1":
        cost = np.abs(true[:, None, :] - est[None, :, :]).sum(-1)
    elif metric == "l2":
        cost = np.sqrt(((true[:, None, :] - est[None, :, :]) ** 2).sum(-1))
    elif metric == "abs_cos":
        tn = true / np.linalg.norm(true, axis=1, keepdims=True)
        en = est / np.linalg.norm(est, axis=1, keepdims=True)
        cost = 1.0 - np.abs(tn @ en.T)
    else:
        raise InputError(f"metric must be 'l1', 'l2' or 'abs_cos', got {metric!r}.")
    rows, cols = linear_sum_assignment(cost)
    perm = np.empty(true.shape[0], dtype=int)
    perm[rows] = cols
    return perm, cost[rows, cols][np.argsort(rows)]


# NumPy oracles of the numba kernels, one module per kernel family; each defines __all__.
from ._oracles_gaussian import *  # noqa: E402,F401,F403
from ._oracles_topic import *  # noqa: E402,F401,F403
from ._oracles_hmm import *  # noqa: E402,F401,F403
from ._oracles_spectral import *  # noqa: E402,F401,F403
from ._oracles_neural import *  # noqa: E402,F401,F403
from ._oracles_tensor import *  # noqa: E402,F401,F403
from ._oracles_coherence import *  # noqa: E402,F401,F403
from . import (_oracles_coherence, _oracles_gaussian, _oracles_hmm, _oracles_neural,  # noqa: E402
               _oracles_spectral, _oracles_tensor, _oracles_topic)

for _mod in (_oracles_gaussian, _oracles_topic, _oracles_hmm, _oracles_spectral, _oracles_neural,
             _oracles_tensor, _oracles_coherence):
    __all__.extend(_mod.__all__)
del _mod
from ._oracles_hsmm import *  # noqa: E402,F401,F403
from . import _oracles_hsmm  # noqa: E402

__all__.extend(_oracles_hsmm.__all__)
