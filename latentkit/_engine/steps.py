"""The step-size schedule of every stochastic update (``partial_fit``, :class:`StochasticVI`)
and the one check of its parameters (tau, kappa).

Source: Hoffman, Blei, Wang & Paisley (2013), *Stochastic variational inference*, JMLR 14,
eq. 26; Robbins & Monro (1951).
"""

import numbers

import numpy as np

from .._utils.validation import check_scalar

__all__ = ["step_size_schedule", "check_learning_rate"]


def step_size_schedule(t, learning_offset=10.0, learning_decay=0.7):
    """Robbins-Monro step size ``rho_t = (t + tau)^-kappa`` (Hoffman et al. 2013, eq. 26).

    Parameters
    ----------
    t : int or ndarray of int
        1-based step number.
    learning_offset : float, default 10.0
        tau >= 0; it down-weights early steps.
    learning_decay : float, default 0.7
        kappa in (0.5, 1], the forgetting rate; the Robbins-Monro conditions
        (sum rho = inf, sum rho^2 < inf) hold exactly for kappa in (0.5, 1].

    Returns
    -------
    float or ndarray
        rho_t in (0, 1] when tau >= 0 and t >= 1.

    Raises
    ------
    ValueError
        kappa outside (0.5, 1], tau < 0, or t < 1.

    Examples
    --------
    >>> from latentkit.inference import step_size_schedule
    >>> round(float(step_size_schedule(1, learning_offset=3.0, learning_decay=1.0)), 4)
    0.25
    >>> [round(float(r), 3) for r in step_size_schedule([1, 10, 100])]  # the defaults
    [0.187, 0.123, 0.037]
    """
    check_learning_rate(learning_offset, learning_decay)
    t = np.asarray(t)
    if np.any(t < 1):
        raise ValueError(f"the step number t is 1-based, got {t.min()}.")
    rho = (t + float(learning_offset)) ** (-float(learning_decay))
    return float(rho) if rho.ndim == 0 else rho


def check_learning_rate(learning_offset, learning_decay):
    """Validate tau and kappa of the step-size schedule (see :func:`step_size_schedule`)."""
    check_scalar(learning_offset, "learning_offset (tau)", numbers.Real, low=0.0)
    check_scalar(learning_decay, "learning_decay (kappa)", numbers.Real, low=0.5, high=1.0,
                 low_inclusive=False)
