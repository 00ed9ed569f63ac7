"""Empirical lower bound on the privacy loss of a mechanism from samples of a released statistic
on two neighbouring data sets (the audit of the private estimators' tests)."""

import math

import numpy as np
from scipy import stats

__all__ = ["empirical_epsilon_lower_bound"]


def empirical_epsilon_lower_bound(ta, tb, delta, alpha=1e-3, n_thresholds=60):
    """Largest lower confidence bound on epsilon over threshold events, both directions.

    For every threshold ``c`` and each of the events ``S = {t > c}`` (data set a against b) and
    ``S = {t < c}`` (b against a), an (epsilon, delta)-DP mechanism has
    ``P_a(S) <= e^epsilon P_b(S) + delta``, so ``ln((P_a_low - delta) / P_b_high)`` is a lower
    bound on epsilon, with Clopper-Pearson bounds at level ``alpha / (2 n_thresholds)`` each
    (Bonferroni over thresholds and directions): the returned value exceeds the mechanism's true
    epsilon with probability at most ``alpha``.

    Parameters
    ----------
    ta, tb : ndarray of shape (n,)
        A real statistic of the release (a post-processing chosen in advance), over ``n``
        independent runs on data set a and on its neighbour b.
    delta : float
        The mechanism's delta.
    alpha : float, default 1e-3
        Family-wise error level.
    n_thresholds : int, default 60
        Thresholds: quantiles 0.5 .. 0.9995 of the pooled runs.

    Returns
    -------
    float
        The bound (``-inf`` when no event gives one).

    References
    ----------
    Jagielski, M., Ullman, J. & Oprea, A. (2020). Auditing differentially private machine
    learning: how private is private SGD? NeurIPS. Section 3 (Clopper-Pearson bounds on the
    two probabilities of an event).
    """
    ta, tb = np.asarray(ta, dtype=float), np.asarray(tb, dtype=float)
    qs = np.quantile(np.concatenate([ta, tb]), np.linspace(0.5, 0.9995, n_thresholds))
    level = alpha / (2 * n_thresholds)
    best = -np.inf
    for x, y in ((ta, tb), (-tb, -ta)):  # S = {t > q} for (a vs b), {t < q} for (b vs a)
        thr = qs if x is ta else -qs[::-1]
        na, nb = len(x), len(y)
        for q in thr:
            ka, kb = int((x > q).sum()), int((y > q).sum())
            pa_low = stats.beta.ppf(level, ka, na - ka + 1) if ka > 0 else 0.0
            pb_high = stats.beta.ppf(1 - level, kb + 1, nb - kb) if kb < nb else 1.0
            if pa_low - delta > 0:
                best = max(best, math.log((pa_low - delta) / pb_high))
    return best
