"""A Gamma prior on the concentration of Beta(1, alpha) sticks, with a variational Gamma factor.

Model: ``alpha ~ Gamma(s_1, s_2)`` (shape, rate) and ``v_k | alpha ~ Beta(1, alpha)`` for the
``n`` free sticks that share it. With ``q(alpha) = Gamma(w_1, w_2)`` and the sticks' factors
``q(v_k)`` the optimal factor is (Blei & Jordan 2006, section 3.3; the same update for both
levels of the HDP, Teh et al. 2006 / Wang, Paisley & Blei 2011)

    w_1 = s_1 + n,    w_2 = s_2 - sum_k E_q[log(1 - v_k)],

and the sticks' own update uses ``E_q[alpha] = w_1 / w_2`` in place of alpha. The bound's
terms: ``E_q[log p(v_k | alpha)] = E_q[log alpha] + (E_q[alpha] - 1) E_q[log(1 - v_k)]``,
which is ``-KL(q(v_k) || Beta(1, E_q[alpha])) + E_q[log q(v_k)]`` plus the gap
``E_q[log alpha] - log E_q[alpha]`` (<= 0, Jensen) per stick, and
``E_q[log p(alpha)] - E_q[log q(alpha)] = -KL(Gamma(w_1, w_2) || Gamma(s_1, s_2))``.

Sources: Blei & Jordan (2006), "Variational inference for Dirichlet process mixtures",
Bayesian Analysis 1(1), section 3.3 (the Gamma prior on alpha and the update of ``w``);
Penny (2001) for the Gamma KL.
"""

import numbers

import numpy as np
from scipy.special import psi

from .._utils.validation import check_scalar
from ..exceptions import InputError
from ._normal_wishart import gamma_kl

__all__ = ["check_gamma_prior", "concentration_posterior", "concentration_mean",
           "concentration_log_gap", "concentration_kl", "free_stick_log_rest"]


def check_gamma_prior(value, name):
    """A Gamma prior given as ``(shape, rate)``, or None.

    Parameters
    ----------
    value : None or (float, float)
        Shape and rate, both finite and > 0.
    name : str
        The argument's name, for the message.

    Returns
    -------
    None or ndarray of shape (2,)

    Raises
    ------
    InputError
        Not a pair, an entry not finite and positive, or a mean shape / rate that
        overflows or underflows to 0.
    """
    if value is None:
        return None
    if isinstance(value, (str, bytes)) or not hasattr(value, "__len__") or len(value) != 2:
        raise InputError(f"{name} must be None or a (shape, rate) pair of the Gamma prior, "
                         f"got {value!r}.")
    a = check_scalar(value[0], f"{name}[0] (shape)", numbers.Real, low=0.0, low_inclusive=False)
    b = check_scalar(value[1], f"{name}[1] (rate)", numbers.Real, low=0.0, low_inclusive=False)
    if not (np.isfinite(a) and np.isfinite(b)):
        raise InputError(f"{name} must be finite, got {value!r}.")
    mean = float(a) / float(b)   # an overflow gave a NaN ELBO, an underflow a numba SystemError
    if not (np.isfinite(mean) and mean > 0.0):
        raise InputError(f"{name}: the prior mean shape / rate must be finite and > 0 in "
                         f"float64, got {float(a)!r} / {float(b)!r} = {mean!r}.")
    return np.array([float(a), float(b)])


def free_stick_log_rest(sticks):
    """``sum E_q[log(1 - v)]`` over the free sticks of ``sticks`` (..., 2, K): the last column
    of each set is the fixed stick ``v_K = 1`` and is left out (truncation 'fixed').

    Returns
    -------
    float
        Nats (<= 0).
    """
    s = np.asarray(sticks, dtype=np.float64)[..., :-1]
    a, b = s[..., 0, :], s[..., 1, :]
    return float(np.sum(psi(b) - psi(a + b)))


def concentration_posterior(n_sticks, log_rest, prior):
    """The optimal ``q(alpha) = Gamma(s_1 + n, s_2 - sum_k E[log(1 - v_k)])`` (Blei & Jordan
    2006, section 3.3).

    Parameters
    ----------
    n_sticks : float
        n, the number of free sticks (a scaled count for a stochastic step).
    log_rest : float
        ``sum_k E_q[log(1 - v_k)]`` over them (<= 0).
    prior : ndarray of shape (2,)
        (s_1, s_2), shape and rate.

    Returns
    -------
    ndarray of shape (2,)
        (w_1, w_2), shape and rate.
    """
    return np.array([prior[0] + float(n_sticks), prior[1] - float(log_rest)])


def concentration_mean(posterior):
    """``E_q[alpha] = w_1 / w_2``."""
    return float(posterior[0] / posterior[1])


def concentration_log_gap(posterior):
    """``E_q[log alpha] - log E_q[alpha] = psi(w_1) - log(w_1)`` (<= 0), the term per stick
    that ``-KL(q(v) || Beta(1, E_q[alpha]))`` lacks for the expectation under ``q(alpha)``."""
    return float(psi(posterior[0]) - np.log(posterior[0]))


def concentration_kl(posterior, prior):
    """``KL(q(alpha) || p(alpha))`` of two Gamma (shape, rate) pairs, nats."""
    return float(gamma_kl(posterior[0], posterior[1], prior[0], prior[1]))
