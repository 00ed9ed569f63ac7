"""Renyi-DP of subsampled Gaussian mechanisms and the RDP-to-(epsilon, delta) conversions.

A *subsampled Gaussian* release draws a random subset of the rows, computes a query of L2
sensitivity ``Delta`` on it and adds ``N(0, sigma^2 I)`` noise; ``noise_multiplier = sigma /
Delta``. Two ways of drawing the subset are accounted, each with its own neighbouring relation:

* ``'poisson'`` -- every row enters independently with probability ``q`` (the sampling rate).
  Neighbouring data sets differ by **one row added or removed**; ``Delta`` is the sensitivity of the
  query to adding/removing one row (``C`` for a sum of rows clipped to norm ``C``). The RDP at order
  ``alpha`` is ``log(A_alpha) / (alpha - 1)`` with
  ``A_alpha = E_{z ~ N(0, s^2)} [((1 - q) + q exp((2z - 1) / (2 s^2)))^alpha]``, ``s`` the noise
  multiplier (Mironov, Talwar & Zhang 2019, *Renyi differential privacy of the sampled Gaussian
  mechanism*, arXiv:1908.10530, Sections 3.2-3.3). For integer ``alpha`` the binomial expansion
  gives ``A_alpha = sum_k C(alpha, k) (1 - q)^(alpha - k) q^k exp((k^2 - k) / (2 s^2))`` (their
  Section 3.2); we sum it as ``1 + sum_{k >= 2} C(alpha, k) (1 - q)^(alpha - k) q^k
  expm1((k^2 - k) / (2 s^2))`` (the ``k = 0, 1`` terms of the ``expm1`` form vanish and the
  binomial weights sum to one), a sum of positive terms with no cancellation. For fractional
  ``alpha`` the paper expands the integral, split at ``z0 = s^2 ln(1/q - 1) + 1/2``, into two
  alternating binomial series (their Section 3.3); in double precision these lose the relative
  precision of ``A_alpha - 1`` when it is tiny (small ``q``, large ``s``), so we integrate
  ``A_alpha - 1 = E[h(u)]``, ``u = q expm1((2z - 1) / (2 s^2))``, ``h(u) = (1 + u)^alpha - 1 -
  alpha u >= 0`` (``E[u] = 0``) by the trapezoidal rule, exact to rounding for this analytic,
  Gaussian-decaying integrand (see ``_log_a_poisson_frac``; checked against 50-digit
  quadrature in the tests).
* ``'without_replacement'`` -- a uniformly random subset of fixed size ``m = q n`` is drawn. The
  data-set size ``n`` is public and neighbouring data sets differ by **one row replaced** by
  another; ``Delta`` is the replace-one sensitivity (``2C`` for a sum of rows clipped to ``C``).
  For integer ``alpha >= 2`` we use the general bound of Wang, Balle & Kasiviswanathan (2019,
  *Subsampled Renyi differential privacy and analytical moments accountant*, AISTATS, Theorem 9)
  with the Gaussian's ``eps(j) = j / (2 s^2)`` and ``eps(inf) = inf``:
  ``(alpha-1) eps'(alpha) <= log(1 + q^2 C(alpha,2) min(4 (e^eps(2) - 1), 2 e^eps(2))
  + sum_{j=3}^alpha q^j C(alpha, j) 2 e^((j-1) eps(j)))``; a fractional ``alpha`` interpolates
  ``(alpha - 1) eps'(alpha)`` linearly between the neighbouring integers, an upper bound by its
  convexity (their Corollary 10). This is the plain Theorem 9 bound, a little looser than the
  forward-difference refinement of their Theorem 27 for small orders.

Conversions from an RDP curve ``r(alpha)`` on a grid of orders to (epsilon, delta)-DP:

* classic (Mironov 2017, *Renyi differential privacy*, CSF, Proposition 3):
  ``eps = min_alpha r(alpha) + ln(1/delta) / (alpha - 1)``;
* improved (Balle, Barthe, Gaboardi, Hsu & Sato 2020, *Hypothesis testing interpretations and
  Renyi differential privacy*, AISTATS, Theorem 21; Canonne, Kamath & Steinke 2020, *The discrete
  Gaussian for differential privacy*, NeurIPS, Proposition 12):
  ``eps = min_alpha r(alpha) + ln(1 - 1/alpha) - (ln(delta) + ln(alpha)) / (alpha - 1)``, used
  for orders ``alpha > 1.01`` (it is numerically unstable as ``alpha -> 1``); and ``eps = 0``
  whenever ``delta >= sqrt(1 - exp(-r(alpha)))`` for some order, because the total variation
  distance is at most ``sqrt(1 - exp(-KL))`` (Bretagnolle-Huber) and ``KL <= r(alpha)``. These
  are the choices of Google's dp-accounting, so the two agree on the same curve.
"""

import functools
import math
import numbers

import numpy as np
from scipy.special import gammaln, logsumexp

from .._utils.validation import check_scalar
from ..exceptions import InputError, InputTypeError

__all__ = ["DEFAULT_RDP_ORDERS", "subsampled_gaussian_rdp", "rdp_to_epsilon",
           "calibrate_noise_multiplier", "accountant_rdp", "spent_on_orders", "SAMPLINGS"]

#: Orders at which the accountant evaluates RDP curves: those of dp-accounting's RdpAccountant
#: (dense near 1 for the large-noise regime, up to 1024 for the small-noise one).
DEFAULT_RDP_ORDERS = tuple([1.0 + x / 10.0 for x in range(1, 100)]
                           + [float(a) for a in range(11, 64)] + [128.0, 256.0, 512.0, 1024.0])

SAMPLINGS = ("poisson", "without_replacement")
_CONVERSIONS = ("rdp", "rdp_improved")


def _log_binom(n, k):
    """log C(n, k) for integer k >= 0 (log |C(n, k)| when n is fractional and k > n + 1):
    ``gammaln`` is the log of the absolute value of Gamma."""
    k = np.asarray(k, dtype=float)
    return gammaln(n + 1.0) - gammaln(k + 1.0) - gammaln(n - k + 1.0)


def _log_expm1(x):
    """log(exp(x) - 1) for x > 0, stable for small and large x."""
    x = np.asarray(x, dtype=float)
    big = x > 30.0
    out = np.empty_like(x)
    out[big] = x[big] + np.log1p(-np.exp(-x[big]))
    out[~big] = np.log(np.expm1(x[~big]))
    return out


def _log_a_poisson_int(q, s, alphas):
    """log A_alpha at integer orders ``alphas`` (1-D, each >= 2) (Mironov, Talwar & Zhang
    2019, Sec. 3.2), all orders' terms in one flat array."""
    alphas = np.asarray(alphas, dtype=np.int64)
    counts = alphas - 1  # terms k = 2..alpha
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    a = np.repeat(alphas, counts).astype(float)
    k = np.arange(counts.sum()) - np.repeat(starts, counts) + 2.0
    log_terms = (_log_binom(a, k) + k * math.log(q) + (a - k) * math.log1p(-q)
                 + _log_expm1((k * k - k) / (2.0 * s * s)))
    top = np.maximum.reduceat(log_terms, starts)
    log_s = top + np.log(np.add.reduceat(np.exp(log_terms - np.repeat(top, counts)), starts))
    return np.logaddexp(0.0, log_s)


def _log_h(u, alpha, log_u=None):
    """log((1 + u)^alpha - 1 - alpha u) (> 0 for u > -1, u != 0, alpha > 1), elementwise over
    broadcast ``u`` and ``alpha``, without cancellation: the binomial series
    ``sum_{i >= 2} C(alpha, i) u^i`` for ``|u| < 1e-2``, ``expm1(alpha log1p(u)) - alpha u`` in
    between and ``alpha log1p(u) + log1p(-(1 + alpha u) / (1 + u)^alpha)`` where the power
    would overflow. ``log_u`` (log of the positive ``u``) keeps huge ``u`` (beyond the float
    range) exact."""
    if log_u is None:
        with np.errstate(divide="ignore", invalid="ignore"):
            log_u = np.log(u)
    u, alpha, log_u = np.broadcast_arrays(np.asarray(u, dtype=float),
                                          np.asarray(alpha, dtype=float), log_u)
    shape = u.shape
    u, alpha, log_u = u.ravel(), alpha.ravel(), log_u.ravel()
    out = np.empty(u.shape)
    small = np.abs(u) < 1e-2
    us, al = u[small], alpha[small]
    acc, coef, power = np.zeros(us.shape), al * (al - 1.0) / 2.0, us * us
    for i in range(2, 12):
        acc += coef * power
        coef *= (al - i) / (i + 1.0)
        power *= us
    with np.errstate(divide="ignore"):
        out[small] = np.log(acc)
    rest = ~small
    u, alpha, log_u = u[rest], alpha[rest], log_u[rest]
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        pos = u > 1.0
        l1u = np.where(pos, np.logaddexp(0.0, log_u), np.log1p(np.minimum(u, 1.0)))
        l1au = np.where(pos, np.logaddexp(0.0, np.log(alpha) + log_u), np.log1p(alpha * u))
        big = alpha * l1u
        mid = np.expm1(np.minimum(big, 30.0)) - alpha * u
        out[rest] = np.where(big > 30.0, big + np.log1p(-np.exp(l1au - big)), np.log(mid))
    return out.reshape(shape)


#: the largest quadrature grid of :func:`_log_a_poisson_frac` (points per order)
_MAX_GRID = 200_000


def _log_a_poisson_frac(q, s, alphas):
    """log A_alpha at fractional orders ``alphas`` (1-D, each > 1) by quadrature of
    ``A_alpha - 1 = E_{z ~ N(0, s^2)}[h(q expm1((2z - 1) / (2 s^2)))]``,
    ``h(u) = (1 + u)^alpha - 1 - alpha u``.

    ``E[u] = 0`` because ``mu_1 / mu_0`` integrates to one under ``mu_0``, and ``h >= 0`` by
    convexity, so nothing cancels even when ``A_alpha - 1`` is tiny (small ``q``, large ``s``),
    where the alternating series of Mironov, Talwar & Zhang (2019, Sec. 3.3) loses its relative
    precision (it is their integral of Sec. 3.1 less its first-order part). The integrand is
    analytic in the strip ``|Im z| < pi s^2`` (where ``1 + u`` first vanishes) and decays like
    a Gaussian of scale ``s`` at both ends (around 0 and around ``alpha``), so the trapezoidal
    rule with step ``min(s, pi s^2) / 8`` on ``[-14 s, alpha + 14 s]`` is exact to rounding
    (its error is ``O(exp(-2 pi d / step)) <= exp(-16 pi)`` relative for a strip of half-width
    ``d``; the tails beyond 14 standard deviations weigh below ``exp(-98)``)."""
    alphas = np.asarray(alphas, dtype=float)
    step = min(s, math.pi * s * s) / 8.0
    hi = float(np.max(alphas)) + 14.0 * s
    if (hi + 14.0 * s) / step > _MAX_GRID:
        # a tiny noise multiplier (a huge epsilon: the bisection of calibrate_noise_multiplier
        # goes there) would need a grid of millions of points per order: these orders are left
        # out (+inf, a valid bound); the integer orders still bound the loss, so the minimum
        # over the orders stays valid, only possibly looser where no one adds so little noise
        return np.full(alphas.shape, np.inf)
    z = np.arange(-14.0 * s, hi + step, step)
    log_w = math.log(step) - math.log(s * math.sqrt(2.0 * math.pi)) - 0.5 * (z / s) ** 2
    x = (2.0 * z - 1.0) / (2.0 * s * s)
    with np.errstate(over="ignore"):
        u = q * np.expm1(x)  # inf where x > ~709: then log_u carries it
    log_u = np.where(x > 0, math.log(q) + _log_expm1(np.maximum(x, 1e-300)), -np.inf)
    keep = u != 0.0
    log_w, u, log_u = log_w[keep], u[keep], log_u[keep]
    if u.size * alphas.size <= 4_000_000:
        log_terms = log_w[None, :] + _log_h(u[None, :], alphas[:, None], log_u[None, :])
        return np.logaddexp(0.0, logsumexp(log_terms, axis=1))
    # a fine grid (small s): one order at a time to bound the memory
    return np.array([np.logaddexp(0.0, logsumexp(log_w + _log_h(u, a, log_u)))
                     for a in alphas])


def _log_a_wor_int(q, s, alpha):
    """(alpha - 1) eps'(alpha) for integer alpha >= 2, sampling without replacement (Wang, Balle
    & Kasiviswanathan 2019, Theorem 9 with the Gaussian's eps(j) = j / (2 s^2))."""
    alpha = int(alpha)
    e2 = 2.0 / (2.0 * s * s)
    t2 = (2.0 * math.log(q) + float(_log_binom(alpha, 2))
          + min(math.log(4.0) + float(_log_expm1(np.array([e2]))[0]), math.log(2.0) + e2))
    if alpha == 2:
        return float(np.logaddexp(0.0, t2))
    j = np.arange(3, alpha + 1, dtype=float)
    tj = (math.log(2.0) + (j - 1.0) * j / (2.0 * s * s) + j * math.log(q)
          + _log_binom(alpha, j))
    return float(np.logaddexp(0.0, logsumexp(np.concatenate([[t2], tj]))))


def _rdp_one(order, q, s, sampling):
    if q == 0.0:
        return 0.0
    if s == 0.0 or math.isinf(order):
        return math.inf
    if q == 1.0:
        return order / (2.0 * s * s)
    if sampling == "poisson":
        if float(order).is_integer():
            return float(_log_a_poisson_int(q, s, [order])[0]) / (order - 1.0)
        return float(_log_a_poisson_frac(q, s, [order])[0]) / (order - 1.0)
    lo, hi = math.floor(order), math.ceil(order)
    if lo == hi:
        return _log_a_wor_int(q, s, lo) / (order - 1.0)
    f_lo = 0.0 if lo == 1 else _log_a_wor_int(q, s, lo)
    t = order - lo
    return ((1.0 - t) * f_lo + t * _log_a_wor_int(q, s, hi)) / (order - 1.0)


def subsampled_gaussian_rdp(order, sampling_rate, noise_multiplier, sampling="poisson"):
    """Renyi-DP of one subsampled Gaussian release.

    Parameters
    ----------
    order : float or array-like of shape (n_orders,)
        Renyi orders ``alpha > 1`` (``inf`` allowed: infinite RDP unless ``sampling_rate == 0``).
    sampling_rate : float
        ``q`` in [0, 1]: the inclusion probability of each row (``'poisson'``) or the sample
        fraction ``m / n`` (``'without_replacement'``).
    noise_multiplier : float
        ``sigma / Delta`` >= 0, the noise standard deviation over the L2 sensitivity of the query
        under the sampling's neighbouring relation (see the module notes); 0 means no noise.
    sampling : {'poisson', 'without_replacement'}, default 'poisson'
        ``'poisson'``: add/remove-one neighbours (Mironov, Talwar & Zhang 2019);
        ``'without_replacement'``: replace-one neighbours with ``n`` public (Wang, Balle &
        Kasiviswanathan 2019, Theorem 9 and Corollary 10; an upper bound).

    Returns
    -------
    rdp : float or ndarray of shape (n_orders,)
        RDP (nats) at each order; ``alpha / (2 noise_multiplier^2)`` when ``sampling_rate == 1``.

    Raises
    ------
    ValueError
        An order <= 1, a sampling rate outside [0, 1], a negative noise multiplier, an unknown
        sampling.
    TypeError
        An order that is not a real number or a 1-d array of them (a string, a 2-d array).

    Notes
    -----
    Sources: Mironov, Talwar & Zhang (2019), Sections 3.2 (integer orders) and 3.3 (fractional
    orders); Wang, Balle & Kasiviswanathan (2019), Theorem 9. Formulas in the module docstring.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.privacy import gaussian_rdp, subsampled_gaussian_rdp
    >>> orders = np.array([2.0, 8.0])
    >>> np.round(subsampled_gaussian_rdp(orders, sampling_rate=1.0, noise_multiplier=2.0), 6)
    array([0.25, 1.  ])
    >>> np.round(gaussian_rdp(orders, 1.0, 2.0), 6)  # q = 1: no subsampling
    array([0.25, 1.  ])
    >>> bool(np.all(subsampled_gaussian_rdp(orders, 0.01, 2.0) < gaussian_rdp(orders, 1.0, 2.0)))
    True
    """
    q = check_scalar(sampling_rate, "sampling_rate", numbers.Real, low=0.0, high=1.0)
    s = check_scalar(noise_multiplier, "noise_multiplier", numbers.Real, low=0.0)
    if sampling not in SAMPLINGS:
        raise InputError(f"sampling must be one of {SAMPLINGS}, got {sampling!r}.")
    raw = np.asarray(order)
    if raw.dtype.kind not in "iuf" or raw.ndim > 1:
        raise InputTypeError(f"order must be a real number or a 1-d array of real numbers, got "
                        f"{order!r} (dtype {raw.dtype}, {raw.ndim} dimensions).")
    orders = raw.astype(float)
    if orders.size and not np.all(orders > 1.0):
        raise InputError(f"order must be > 1, got {order!r}.")
    flat = orders.ravel()
    frac = np.array([not a.is_integer() and math.isfinite(a) for a in flat.tolist()], dtype=bool)
    whole = np.isfinite(flat) & ~frac
    if sampling == "poisson" and 0.0 < q < 1.0 and s > 0.0:
        out = np.full(flat.shape, np.inf)
        if frac.any():
            out[frac] = _log_a_poisson_frac(float(q), float(s), flat[frac]) / (flat[frac] - 1.0)
        if whole.any():
            out[whole] = _log_a_poisson_int(float(q), float(s), flat[whole]) / (flat[whole] - 1.0)
    else:
        out = np.array([_rdp_one(a, float(q), float(s), sampling) for a in flat.tolist()])
    if orders.ndim == 0:
        return float(out[0])
    return out.reshape(orders.shape)


def rdp_to_epsilon(orders, rdp, delta, method="rdp_improved"):
    """Smallest epsilon over the orders at which an RDP curve is (epsilon, delta)-DP.

    Parameters
    ----------
    orders : array-like of shape (n_orders,)
        Renyi orders > 1.
    rdp : array-like of shape (n_orders,)
        RDP (nats) at each order, >= 0 (``inf`` allowed).
    delta : float
        In (0, 1).
    method : {'rdp', 'rdp_improved'}, default 'rdp_improved'
        ``'rdp'``: Mironov (2017), Proposition 3; ``'rdp_improved'``: Balle et al. (2020),
        Theorem 21 / Canonne, Kamath & Steinke (2020), Proposition 12, with the KL shortcut to
        ``epsilon = 0`` (module notes).

    Returns
    -------
    epsilon : float
        >= 0 (``inf`` when every order has infinite RDP).
    order : float
        The minimising order.

    Raises
    ------
    ValueError
        Mismatched shapes, an order <= 1, a negative RDP, delta outside (0, 1), unknown method.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.privacy import gaussian_rdp, rdp_to_epsilon
    >>> orders = np.arange(2, 64)
    >>> eps, order = rdp_to_epsilon(orders, gaussian_rdp(orders, 1.0, 4.0), 1e-5, method="rdp")
    >>> round(eps, 6), order
    (1.230943, 20.0)
    >>> round(float(order / 32 + np.log(1e5) / (order - 1)), 6)  # Mironov (2017), Prop. 3
    1.230943
    """
    a = np.asarray(orders, dtype=float).ravel()
    r = np.asarray(rdp, dtype=float).ravel()
    if a.shape != r.shape or a.size == 0:
        raise InputError(f"orders and rdp must be 1-D of the same non-zero length, got "
                         f"{a.shape} and {r.shape}.")
    if not np.all(a > 1.0):
        raise InputError("orders must all be > 1.")
    if np.any(np.isnan(r)) or np.any(r < 0):
        raise InputError("rdp must be >= 0 at every order.")
    delta = check_scalar(delta, "delta", numbers.Real, low=0.0, high=1.0, low_inclusive=False,
                         high_inclusive=False)
    if method not in _CONVERSIONS:
        raise InputError(f"method must be one of {_CONVERSIONS}, got {method!r}.")
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        if method == "rdp":
            eps = r + math.log(1.0 / delta) / (a - 1.0)
        else:
            eps = np.where(a > 1.01,
                           r + np.log1p(-1.0 / a) - np.log(delta * a) / (a - 1.0), np.inf)
            eps = np.where(delta * delta + np.expm1(-r) > 0, 0.0, eps)
    eps = np.where(np.isnan(eps), np.inf, eps)
    i = int(np.argmin(eps))
    return max(0.0, float(eps[i])), float(a[i])


def _composed_epsilon(noise_multiplier, sampling_rate, steps, delta, method, sampling, orders):
    rdp = steps * subsampled_gaussian_rdp(orders, sampling_rate, noise_multiplier, sampling)
    return rdp_to_epsilon(orders, rdp, delta, method)[0]


def calibrate_noise_multiplier(epsilon, delta, sampling_rate, steps, method="rdp_improved",
                               sampling="poisson", orders=None, rtol=1e-10):
    """Smallest noise multiplier whose ``steps``-fold subsampled Gaussian is (epsilon, delta)-DP.

    Parameters
    ----------
    epsilon : float
        Target epsilon > 0 (``inf``: returns 0.0, no noise).
    delta : float
        Target delta in (0, 1).
    sampling_rate : float
        ``q`` in (0, 1].
    steps : int
        Number of releases composed (>= 1).
    method : {'rdp', 'rdp_improved'}, default 'rdp_improved'
        RDP-to-(epsilon, delta) conversion (see :func:`rdp_to_epsilon`).
    sampling : {'poisson', 'without_replacement'}, default 'poisson'
    orders : array-like, optional
        Renyi orders; default :data:`DEFAULT_RDP_ORDERS`.
    rtol : float, default 1e-10
        Relative width of the final bisection bracket.

    Returns
    -------
    noise_multiplier : float
        ``sigma / Delta``: the upper end of a bracket of relative width ``rtol`` around the
        smallest multiplier meeting the budget (the epsilon spent is decreasing in it), so the
        returned value always meets the budget.

    Raises
    ------
    ValueError
        Bad arguments.

    Notes
    -----
    Bisection on :func:`subsampled_gaussian_rdp` composed ``steps`` times (RDP adds under
    composition, Mironov 2017, Proposition 1) and converted by :func:`rdp_to_epsilon`.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.privacy import calibrate_noise_multiplier, rdp_to_epsilon, subsampled_gaussian_rdp
    >>> z = calibrate_noise_multiplier(1.0, 1e-5, sampling_rate=0.01, steps=1000)
    >>> orders = np.arange(2, 128)
    >>> rdp = 1000 * subsampled_gaussian_rdp(orders, 0.01, z)
    >>> round(z, 3), round(rdp_to_epsilon(orders, rdp, 1e-5)[0], 3)
    (1.513, 1.0)
    """
    if isinstance(epsilon, numbers.Real) and not isinstance(epsilon, bool) and \
            math.isinf(epsilon) and epsilon > 0:
        return 0.0
    epsilon = check_scalar(epsilon, "epsilon", numbers.Real, low=0.0, low_inclusive=False)
    delta = check_scalar(delta, "delta", numbers.Real, low=0.0, high=1.0, low_inclusive=False,
                         high_inclusive=False)
    check_scalar(sampling_rate, "sampling_rate", numbers.Real, low=0.0, high=1.0,
                 low_inclusive=False)
    steps = check_scalar(steps, "steps", numbers.Integral, low=1)
    if method not in _CONVERSIONS:
        raise InputError(f"method must be one of {_CONVERSIONS}, got {method!r}.")
    orders = np.asarray(DEFAULT_RDP_ORDERS if orders is None else orders, dtype=float)

    def eps_of(s):
        return _composed_epsilon(s, sampling_rate, steps, delta, method, sampling, orders)

    # bracket lo < hi with eps(lo) > epsilon >= eps(hi), by doubling or halving from 1
    hi = 1.0
    if eps_of(hi) > epsilon:
        while eps_of(hi) > epsilon:
            hi *= 2.0
            if hi > 1e12:
                raise InputError(f"no noise multiplier below 1e12 meets epsilon={epsilon}, "
                                 f"delta={delta} for {steps} steps.")
        lo = 0.5 * hi
    else:
        lo = 0.5
        while eps_of(lo) <= epsilon:
            lo *= 0.5
            if lo < 1e-6:
                return 2.0 * lo
        hi = 2.0 * lo
    while hi - lo > rtol * hi:
        mid = 0.5 * (lo + hi)
        if eps_of(mid) > epsilon:
            lo = mid
        else:
            hi = mid
    return hi


@functools.lru_cache(maxsize=256)
def _cached_curve(q, noise_multiplier, sampling, orders):
    return subsampled_gaussian_rdp(np.array(orders), q, noise_multiplier, sampling)


def accountant_rdp(accountant, orders=None):
    """RDP curve of everything a :class:`PrivacyAccountant` recorded.

    Parameters
    ----------
    accountant : PrivacyAccountant
    orders : array-like of shape (n_orders,), optional
        Default :data:`DEFAULT_RDP_ORDERS`.

    Returns
    -------
    rdp : ndarray of shape (n_orders,)
        ``sum count * alpha Delta^2 / (2 sigma^2)`` over the full-batch releases (Mironov 2017,
        Prop. 7) plus ``sum count * subsampled_gaussian_rdp(alpha, q, sigma / Delta)`` over the
        subsampled ones (RDP adds under composition, Prop. 1); nats.
    """
    orders = tuple(float(a) for a in (DEFAULT_RDP_ORDERS if orders is None else orders))
    a = np.array(orders)
    rdp = np.zeros_like(a)
    for sens, sigma, count in accountant.releases:
        if sigma == 0:
            return np.full_like(a, np.inf)
        rdp = rdp + count * (a / (2.0 * (sigma / sens) ** 2))
    for sens, sigma, count, q, sampling in accountant.subsampled_releases:
        rdp = rdp + count * _cached_curve(float(q), float(sigma / sens), sampling, orders)
    return rdp


def spent_on_orders(accountant, delta, method):
    """``PrivacyAccountant.spent`` on the RDP curve over :data:`DEFAULT_RDP_ORDERS`: ``'rdp'``
    (Mironov 2017, Prop. 3) or ``'rdp_improved'`` (module notes). Raises ValueError for another
    method when subsampled releases were recorded (the other rules ignore amplification)."""
    if method not in _CONVERSIONS:
        raise InputError(
            f"method={method!r} does not account subsampled releases; use 'rdp' or "
            f"'rdp_improved'.")
    if accountant.n_releases == 0:
        return 0.0
    rdp = accountant_rdp(accountant)
    if not np.any(np.isfinite(rdp)):
        return math.inf
    return rdp_to_epsilon(DEFAULT_RDP_ORDERS, rdp, delta, method)[0]
