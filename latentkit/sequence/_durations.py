"""Duration distributions of the hidden semi-Markov model (:class:`HiddenSemiMarkovModel`):
arrays in, values out.

A state's segment lasts ``d`` steps, ``1 <= d <= D`` (``D = max_duration``), with pmf
``p_k(d)``:

* ``'nonparametric'``: ``durationprob[k, d - 1]`` free (Ferguson 1980; Yu 2010, section 2.1);
  the M-step normalises the expected counts (closed form);
* ``'poisson'``: ``d - 1 ~ Poisson(duration_lambdas[k])`` truncated to ``d <= D`` (the shifted
  Poisson of Russell & Moore 1985); the M-step maximises the expected complete-data
  log-likelihood of the truncated pmf, which is concave in ``log lambda`` (bounded Brent);
* ``'negative_binomial'``: ``d - 1 ~ NB(duration_n[k], duration_p[k])`` (scipy's ``nbinom``:
  failures before the ``n``-th success) truncated to ``d <= D``; the M-step runs L-BFGS from the
  current values on ``(log n, logit p)``.

The numeric M-steps keep the current values unless the new ones raise the objective, so each
is a generalised EM step and the log-likelihood never decreases.
"""

import numpy as np
from scipy import optimize, stats
from scipy.special import expit, logit

from ..exceptions import InputError

__all__ = ["DURATION_KINDS", "duration_param_names", "duration_pmf", "log_pmf_and_survival",
           "maximize_durations", "start_durations", "check_duration_param",
           "n_duration_parameters"]

DURATION_KINDS = ("nonparametric", "poisson", "negative_binomial")

_NAMES = {"nonparametric": ("durationprob",), "poisson": ("duration_lambdas",),
          "negative_binomial": ("duration_n", "duration_p")}


def duration_param_names(kind):
    """The parameter names of a duration kind (fitted attributes: the names plus ``_``)."""
    return _NAMES[kind]


def n_duration_parameters(kind, n_components, max_duration):
    """Free scalars of the duration distributions (BIC / AIC)."""
    per_state = {"nonparametric": max_duration - 1, "poisson": 1, "negative_binomial": 2}[kind]
    return n_components * per_state


def _truncated(logpmf):
    """Normalise log pmf rows (K, D) over ``1..D``."""
    logz = np.logaddexp.reduce(logpmf, axis=1, keepdims=True)
    return np.exp(logpmf - logz)


def _parametric_logpmf(kind, params, D):
    k = np.arange(D)[None, :]  # d - 1
    if kind == "poisson":
        lam = np.asarray(params["duration_lambdas"], dtype=float)[:, None]
        return stats.poisson.logpmf(k, lam)
    n = np.asarray(params["duration_n"], dtype=float)[:, None]
    p = np.asarray(params["duration_p"], dtype=float)[:, None]
    return stats.nbinom.logpmf(k, n, p)


def duration_pmf(kind, params, max_duration):
    """The duration pmf, shape (K, max_duration): column ``d - 1`` is ``p_k(d)``.

    Parameters
    ----------
    kind : {'nonparametric', 'poisson', 'negative_binomial'}
    params : dict
        The kind's parameters (:func:`duration_param_names`), arrays of shape (K, D) or (K,).
    max_duration : int

    Returns
    -------
    ndarray of shape (K, max_duration)
        Rows sum to 1 (the parametric ones truncated to ``d <= max_duration``, renormalised).
    """
    if kind == "nonparametric":
        return np.asarray(params["durationprob"], dtype=float)
    return _truncated(_parametric_logpmf(kind, params, max_duration))


def log_pmf_and_survival(pmf):
    """``(log p, log S)`` of duration pmf rows, ``S(d) = sum_{d' >= d} p(d')`` (log 0 = -inf).

    Parameters
    ----------
    pmf : ndarray of shape (K, D)

    Returns
    -------
    log_p, log_S : ndarray of shape (K, D)
    """
    surv = np.cumsum(pmf[:, ::-1], axis=1)[:, ::-1]
    with np.errstate(divide="ignore"):
        return np.log(pmf), np.log(np.maximum(surv, 0.0))


def start_durations(kind, n_components, max_duration, rng):
    """Starting duration parameters drawn from ``rng``: geometric pmfs (an HMM's sojourns)
    with ratios uniform on (0.3, 0.9), times Dirichlet(50) noise; Poisson and negative-binomial
    means of ``d - 1`` uniform on (0.05, 0.3) of ``max_duration`` (negative binomial with
    ``n = 2``). A near-uniform pmf over 1..D started EM at long segments, and on the geyser
    series it stopped 160 nats below the geometric start."""
    K, D = n_components, max_duration
    if kind == "nonparametric":
        q = rng.uniform(0.3, 0.9, size=K)[:, None]
        pmf = (1 - q) * q ** np.arange(D)[None, :] * rng.dirichlet(np.full(D, 50.0), size=K)
        return {"durationprob": pmf / pmf.sum(axis=1, keepdims=True)}
    mean = np.maximum(rng.uniform(0.05, 0.3, size=K) * D, 0.5)  # of d - 1
    if kind == "poisson":
        return {"duration_lambdas": mean}
    n = np.full(K, 2.0)
    return {"duration_n": n, "duration_p": n / (n + mean)}


def check_duration_param(name, value, n_components, max_duration, where="init"):
    """A user-given duration parameter, validated (a float copy).

    Raises
    ------
    InputError
        Wrong shape, non-finite values, a pmf row off the simplex, a non-positive rate or
        ``n``, ``p`` outside (0, 1]; the message names ``where[name]`` (or the attribute).
    """
    label = f"{where}[{name!r}]" if where == "init" else where
    arr = np.array(value, dtype=float, copy=True)
    K, D = n_components, max_duration
    shape = (K, D) if name == "durationprob" else (K,)
    if arr.shape != shape:
        what = "(n_components, max_duration)" if name == "durationprob" else "(n_components,)"
        raise InputError(f"{label} must have shape {what} = {shape}, got {arr.shape}.")
    if not np.all(np.isfinite(arr)):
        raise InputError(f"{label} must be finite, got non-finite values.")
    if name == "durationprob":
        if np.any(arr < 0) or not np.allclose(arr.sum(axis=1), 1.0, rtol=0, atol=1e-8):
            raise InputError(f"{label} rows must be probabilities summing to 1 (durations "
                             f"1..{D}), got row sums {arr.sum(axis=1)}.")
        return arr / arr.sum(axis=1, keepdims=True)
    if name == "duration_p":
        if np.any(arr <= 0) or np.any(arr > 1):
            raise InputError(f"{label} must be in (0, 1], got {arr}.")
        return arr
    if np.any(arr <= 0):
        raise InputError(f"{label} must be positive, got {arr}.")
    return arr


def _objective(kind, x, counts_row, D):
    """Expected complete-data log-likelihood of one state's truncated pmf at ``x`` (the
    unconstrained parameters: ``log lambda`` or ``(log n, logit p)``)."""
    if kind == "poisson":
        params = {"duration_lambdas": np.exp(np.atleast_1d(x[0]))}
    else:
        params = {"duration_n": np.exp(np.atleast_1d(x[0])),
                  "duration_p": expit(np.atleast_1d(x[1]))}
    logpmf = _parametric_logpmf(kind, params, D)[0]
    logz = np.logaddexp.reduce(logpmf)
    keep = counts_row > 0
    return float(np.dot(counts_row[keep], logpmf[keep] - logz))


def maximize_durations(kind, counts, params, max_duration):
    """M-step of the duration distributions from expected counts.

    Parameters
    ----------
    kind : {'nonparametric', 'poisson', 'negative_binomial'}
    counts : ndarray of shape (K, D)
        Expected numbers of segments of each state and duration.
    params : dict
        The current parameters (kept where a state has no segment, or where the numeric
        optimum does not raise the objective).
    max_duration : int

    Returns
    -------
    dict
        The new parameters.
    """
    K, D = counts.shape
    if kind == "nonparametric":
        old = params["durationprob"]
        tot = counts.sum(axis=1, keepdims=True)
        with np.errstate(invalid="ignore", divide="ignore"):
            new = np.where(tot > 0, counts / np.where(tot > 0, tot, 1.0), old)
        return {"durationprob": new}
    names = duration_param_names(kind)
    out = {name: np.array(params[name], dtype=float, copy=True) for name in names}
    for k in range(K):
        row = counts[k]
        if not row.sum() > 0:
            continue
        if kind == "poisson":
            x0 = np.array([np.log(out["duration_lambdas"][k])])
        else:
            x0 = np.array([np.log(out["duration_n"][k]),
                           logit(min(out["duration_p"][k], 1 - 1e-12))])
        f0 = _objective(kind, x0, row, D)
        if kind == "poisson":
            res = optimize.minimize_scalar(lambda v: -_objective(kind, [v], row, D),
                                           bounds=(np.log(1e-8), np.log(10.0 * D + 10.0)),
                                           method="bounded", options={"xatol": 1e-10})
            x1 = np.array([res.x])
        else:
            res = optimize.minimize(lambda v: -_objective(kind, v, row, D), x0,
                                    method="L-BFGS-B",
                                    bounds=[(np.log(1e-6), np.log(1e6)), (-30.0, 30.0)])
            x1 = res.x
        if _objective(kind, x1, row, D) > f0:
            if kind == "poisson":
                out["duration_lambdas"][k] = np.exp(x1[0])
            else:
                out["duration_n"][k] = np.exp(x1[0])
                out["duration_p"][k] = expit(x1[1])
    return out
