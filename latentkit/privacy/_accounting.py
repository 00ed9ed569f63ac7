"""Privacy accounting for Gaussian mechanisms: advanced composition, Renyi-DP and the exact
(analytic) Gaussian privacy profile.

Three composition rules are implemented for a sequence of Gaussian-mechanism releases (each release
adds ``N(0, sigma^2 I)`` noise to a query of L2 sensitivity ``Delta``):

* ``'advanced'``: the calibration used by Wang & Anandkumar (2016), *Online and differentially-private
  tensor decomposition*, NIPS, Algorithm 3 / Theorem 4.1: ``K`` releases, each an
  ``(eps', delta')``-DP classical Gaussian mechanism (Dwork & Roth 2014, Theorem A.1:
  ``sigma = Delta sqrt(2 ln(1.25/delta')) / eps'``, valid for ``eps' < 1``) with
  ``delta' = delta / (2K)`` and ``eps' = eps / sqrt(K (4 + ln(2/delta)))``.
* ``'rdp'``: Renyi differential privacy (Mironov 2017, *Renyi differential privacy*, CSF):
  a Gaussian release is ``(lambda, lambda Delta^2 / (2 sigma^2))``-RDP for every order
  ``lambda > 1`` (Prop. 7), RDP guarantees of a composition add (Prop. 1), and an
  ``(lambda, r)``-RDP mechanism is ``(r + ln(1/delta)/(lambda - 1), delta)``-DP (Prop. 3). For
  Gaussian mechanisms the total is ``rho * lambda`` with ``rho = sum_i Delta_i^2/(2 sigma_i^2)``, and
  the conversion minimised over all real orders ``lambda > 1`` has the closed form
  ``eps = rho + 2 sqrt(rho ln(1/delta))`` at ``lambda* = 1 + sqrt(ln(1/delta)/rho)``.

* ``'analytic'``: the exact privacy profile. One Gaussian release with ``mu = Delta / sigma`` is
  (epsilon, delta)-DP exactly when
  ``delta >= Phi(-epsilon/mu + mu/2) - e^epsilon Phi(-epsilon/mu - mu/2)`` (Balle & Wang 2018,
  *Improving the Gaussian mechanism for differential privacy: analytical calibration and optimal
  denoising*, ICML, Theorem 8; Phi the standard normal CDF); the analytic Gaussian mechanism
  (their Algorithm 1) is the smallest sigma meeting it. A composition of Gaussian releases, adaptive
  ones included, has the same profile with ``mu = sqrt(sum_i (Delta_i / sigma_i)^2)`` (Dong, Roth &
  Su 2022, *Gaussian differential privacy*, JRSS-B, Corollary 3.3 with Corollary 2.13: a
  Gaussian release is ``Delta/sigma``-GDP, GDP composes by the root sum of squares, and
  ``mu``-GDP is that profile). This is the tightest (exact) accounting of Gaussian releases; the
  other two rules are upper bounds on it.

``PrivacyAccountant.calibrate`` inverts each rule; for ``'rdp'`` and ``'analytic'`` by bisection, so the
returned sigma is the smallest one (to 1e-12 relative) whose composition meets the budget.

A note on the 'advanced' rule: it is the paper's calibration, kept exactly. Checked against the
Dwork-Rothblum-Vadhan advanced-composition theorem (``eps_tot = sqrt(2K ln(1/delta'')) eps' +
K eps' (e^eps' - 1)``, ``delta_tot = K delta' + delta''``) it meets the budget only when
``ln(2/delta) <= 4``; for smaller ``delta`` the DRV theorem certifies about ``sqrt(2)`` times the
target epsilon. ``PrivacyAccountant.spent(method='drv')`` reports that figure; the Renyi-DP rule
is valid for every budget and needs less noise.
"""

import math
import numbers

import numpy as np
from scipy.special import log_ndtr, ndtr

from .._utils.validation import check_scalar
from ._subsampled import SAMPLINGS, spent_on_orders
from ..exceptions import InputError

__all__ = [
    "PrivacyAccountant",
    "calibrate_gaussian_noise",
    "rdp_epsilon",
    "gaussian_rdp",
    "analytic_gaussian_delta",
    "analytic_gaussian_epsilon",
    "rho_for_budget",
]

_METHODS = ("advanced", "rdp", "analytic")


def _check_epsilon(epsilon, name="epsilon"):
    return check_scalar(epsilon, name, numbers.Real, low=0.0, low_inclusive=False)


def _check_delta(delta, name="delta"):
    return check_scalar(delta, name, numbers.Real, low=0.0, high=1.0, low_inclusive=False,
                        high_inclusive=False)


def _check_method(method, allowed=_METHODS):
    if method not in allowed:
        raise InputError(f"method must be one of {allowed}, got {method!r}.")
    return method


def gaussian_rdp(order, sensitivity, sigma):
    """Renyi-DP of one Gaussian mechanism at a given order.

    Parameters
    ----------
    order : float or ndarray
        Renyi order ``lambda > 1``.
    sensitivity : float
        L2 sensitivity ``Delta`` of the released query.
    sigma : float
        Standard deviation of the added Gaussian noise (per coordinate).

    Returns
    -------
    float or ndarray
        ``lambda Delta^2 / (2 sigma^2)`` (nats), the RDP of the release at each order.

    Notes
    -----
    Mironov (2017), Proposition 7 / Table II.

    Examples
    --------
    >>> from latentkit.privacy import gaussian_rdp
    >>> float(gaussian_rdp(order=2.0, sensitivity=1.0, sigma=2.0))  # order Delta^2 / (2 sigma^2)
    0.25
    """
    return np.asarray(order, dtype=float) * sensitivity ** 2 / (2.0 * sigma ** 2)


def rdp_epsilon(rho, delta):
    """(epsilon, delta)-DP of a composition of Gaussian mechanisms with total RDP slope ``rho``.

    A composition whose RDP curve is ``r(lambda) = rho * lambda`` is converted with Mironov (2017),
    Proposition 3, ``eps(lambda) = rho lambda + ln(1/delta) / (lambda - 1)``, minimised over all real
    orders ``lambda > 1``: ``eps = rho + 2 sqrt(rho ln(1/delta))``.

    Parameters
    ----------
    rho : float
        ``sum_i Delta_i^2 / (2 sigma_i^2)`` over the releases (>= 0).
    delta : float
        Target delta in (0, 1).

    Returns
    -------
    epsilon : float
        Never negative; 0 when ``rho == 0`` (nothing released).
    order : float
        The minimising order ``lambda*`` (``inf`` when ``rho == 0``).

    Examples
    --------
    >>> import math
    >>> from latentkit.privacy import rdp_epsilon
    >>> eps, order = rdp_epsilon(rho=0.125, delta=1e-5)
    >>> round(eps, 6), round(0.125 + 2 * math.sqrt(0.125 * math.log(1e5)), 6)
    (2.524263, 2.524263)
    """
    rho = float(rho)
    if rho < 0:
        raise InputError(f"rho must be >= 0, got {rho}.")
    if rho == 0.0:
        return 0.0, math.inf
    log_inv_delta = -math.log(delta)
    eps = rho + 2.0 * math.sqrt(rho * log_inv_delta)
    return eps, 1.0 + math.sqrt(log_inv_delta / rho)


def analytic_gaussian_delta(epsilon, mu):
    """Exact privacy profile of the Gaussian mechanism: the smallest delta at a given epsilon.

    Parameters
    ----------
    epsilon : float
        >= 0.
    mu : float
        ``Delta / sigma`` (sensitivity over noise standard deviation) of one release, or
        ``sqrt(sum_i (Delta_i/sigma_i)^2)`` of a composition of Gaussian releases; >= 0
        (``inf``: no noise).

    Returns
    -------
    delta : float
        ``Phi(-epsilon/mu + mu/2) - e^epsilon Phi(-epsilon/mu - mu/2)`` in [0, 1] (0 when
        ``mu == 0``, 1 when ``mu`` is infinite). The second term is computed as
        ``exp(epsilon + log Phi(.))`` so that large epsilon does not overflow.

    Notes
    -----
    Balle & Wang (2018), Theorem 8; for compositions, Dong, Roth & Su (2022), Corollaries 2.13
    and 3.3.

    Examples
    --------
    >>> from latentkit.privacy import analytic_gaussian_delta
    >>> round(analytic_gaussian_delta(epsilon=1.0, mu=1.0), 6)
    0.126937
    """
    epsilon, mu = float(epsilon), float(mu)
    if mu == 0.0:
        return 0.0
    if math.isinf(mu):
        return 1.0
    a = float(ndtr(-epsilon / mu + mu / 2.0))
    b = math.exp(epsilon + float(log_ndtr(-epsilon / mu - mu / 2.0)))
    return min(max(a - b, 0.0), 1.0)


def analytic_gaussian_epsilon(mu, delta):
    """Smallest epsilon at which Gaussian releases with total ``mu`` are (epsilon, delta)-DP.

    Inverts :func:`analytic_gaussian_delta` in epsilon (it is decreasing in epsilon) by
    bisection to 1e-12 relative.

    Parameters
    ----------
    mu : float
        ``sqrt(sum_i (Delta_i / sigma_i)^2)``, >= 0 (``inf``: no noise).
    delta : float
        In (0, 1).

    Returns
    -------
    epsilon : float
        >= 0; 0 when ``analytic_gaussian_delta(0, mu) <= delta``; ``inf`` when ``mu`` is infinite.

    Examples
    --------
    >>> from latentkit.privacy import analytic_gaussian_delta, analytic_gaussian_epsilon
    >>> eps = analytic_gaussian_epsilon(mu=1.0, delta=1e-5)
    >>> round(eps, 4), round(analytic_gaussian_delta(eps, 1.0) / 1e-5, 6)  # the inverse
    (4.3772, 1.0)
    """
    mu = float(mu)
    delta = _check_delta(delta)
    if math.isinf(mu):
        return math.inf
    if analytic_gaussian_delta(0.0, mu) <= delta:
        return 0.0
    lo, hi = 0.0, 1.0
    while analytic_gaussian_delta(hi, mu) > delta:
        lo, hi = hi, 2.0 * hi
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if analytic_gaussian_delta(mid, mu) > delta:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-12 * hi:
            break
    return hi


def _analytic_mu(epsilon, delta):
    """Largest mu with analytic_gaussian_delta(epsilon, mu) <= delta (delta is increasing in mu)."""
    lo, hi = 0.0, 1.0
    while analytic_gaussian_delta(epsilon, hi) <= delta:
        lo, hi = hi, 2.0 * hi
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if analytic_gaussian_delta(epsilon, mid) <= delta:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-13 * hi:
            break
    return lo


def rho_for_budget(epsilon, delta, method="rdp"):
    """Total ``rho = sum_i Delta_i^2 / (2 sigma_i^2)`` that a composition of Gaussian releases may
    spend for an (epsilon, delta) budget.

    Parameters
    ----------
    epsilon : float
        > 0 (``inf``: no limit, returns ``inf``).
    delta : float
        In (0, 1).
    method : {'rdp', 'analytic'}, default 'rdp'
        ``'rdp'``: the inverse of :func:`rdp_epsilon`,
        ``rho = (sqrt(ln(1/delta) + epsilon) - sqrt(ln(1/delta)))^2``; ``'analytic'``:
        ``mu^2 / 2`` with ``mu`` the largest total of the exact profile
        (:func:`analytic_gaussian_delta`).

    Returns
    -------
    rho : float
        Split it between releases: a release of sensitivity ``Delta`` given the share ``rho_j``
        needs ``sigma = Delta / sqrt(2 rho_j)``.
    """
    if isinstance(epsilon, numbers.Real) and not isinstance(epsilon, bool) and \
            math.isinf(epsilon) and epsilon > 0:
        return math.inf
    epsilon = _check_epsilon(epsilon)
    delta = _check_delta(delta)
    _check_method(method, ("rdp", "analytic"))
    if method == "rdp":
        L = math.log(1.0 / delta)
        return (math.sqrt(L + epsilon) - math.sqrt(L)) ** 2
    return _analytic_mu(epsilon, delta) ** 2 / 2.0


def _advanced_per_release(epsilon, delta, n_releases):
    eps_prime = epsilon / math.sqrt(n_releases * (4.0 + math.log(2.0 / delta)))
    delta_prime = delta / (2.0 * n_releases)
    return eps_prime, delta_prime


def calibrate_gaussian_noise(epsilon, delta, n_releases, sensitivity=1.0, method="advanced"):
    """Gaussian noise standard deviation for ``n_releases`` releases under an (epsilon, delta) budget.

    Parameters
    ----------
    epsilon : float
        Total privacy budget, > 0.
    delta : float
        Total delta, in (0, 1).
    n_releases : int
        Number ``K`` of Gaussian-mechanism releases composed (>= 1).
    sensitivity : float, default 1.0
        L2 sensitivity of each release (> 0). The noise scales linearly with it.
    method : {'advanced', 'rdp', 'analytic'}, default 'advanced'
        ``'advanced'``: the paper's calibration (Wang & Anandkumar 2016, Alg. 3),
        ``sigma = Delta sqrt(2 ln(1.25/delta')) / eps'`` with ``delta' = delta/(2K)``,
        ``eps' = eps / sqrt(K (4 + ln(2/delta)))``; with ``Delta = 6`` this is the paper's ``nu``.
        ``'rdp'``: the smallest sigma whose K-fold composition is (epsilon, delta)-DP under
        Renyi-DP accounting (Mironov 2017), found by bisection.
        ``'analytic'``: the smallest sigma whose K-fold composition is (epsilon, delta)-DP by the
        exact privacy profile: ``sigma = Delta sqrt(K) / mu*`` with ``mu*`` the largest ``mu``
        with ``analytic_gaussian_delta(epsilon, mu) <= delta``; for ``K = 1`` this is the
        analytic Gaussian mechanism of Balle & Wang (2018, Algorithm 1), for ``K > 1`` its
        composition (Dong, Roth & Su 2022, Corollary 3.3). Never more noise than the other two.

    Returns
    -------
    sigma : float
        Per-coordinate noise standard deviation (same unit as the query).

    Raises
    ------
    ValueError
        epsilon <= 0, delta outside (0, 1), n_releases < 1, sensitivity <= 0, unknown method, or
        (``'advanced'``) a per-release ``eps' >= 1``, for which the classical Gaussian mechanism
        gives no guarantee (use ``method='rdp'``).

    Examples
    --------
    >>> from latentkit.privacy import PrivacyAccountant, calibrate_gaussian_noise
    >>> sigma = calibrate_gaussian_noise(1.0, 1e-5, n_releases=10, method="analytic")
    >>> acct = PrivacyAccountant(method="analytic")
    >>> acct.record(sensitivity=1.0, sigma=sigma, count=10)
    PrivacyAccountant(epsilon=None, delta=None, method='analytic', n_releases=10)
    >>> round(sigma, 4), round(acct.spent(1e-5), 6)  # the budget is spent exactly
    (11.7973, 1.0)
    """
    epsilon = _check_epsilon(epsilon)
    delta = _check_delta(delta)
    n_releases = check_scalar(n_releases, "n_releases", numbers.Integral, low=1)
    sensitivity = check_scalar(sensitivity, "sensitivity", numbers.Real, low=0.0,
                               low_inclusive=False)
    _check_method(method)
    if method == "advanced":
        eps_prime, delta_prime = _advanced_per_release(epsilon, delta, n_releases)
        if eps_prime >= 1.0:
            raise InputError(
                f"budget cannot be met with method='advanced': the per-release epsilon' = "
                f"{eps_prime:.4g} must be < 1 for the classical Gaussian mechanism "
                f"(epsilon={epsilon}, delta={delta}, n_releases={n_releases}); "
                f"use method='rdp' or a smaller epsilon."
            )
        return sensitivity * math.sqrt(2.0 * math.log(1.25 / delta_prime)) / eps_prime
    if method == "analytic":
        return sensitivity * math.sqrt(n_releases) / _analytic_mu(epsilon, delta)
    return sensitivity * _rdp_unit_sigma(epsilon, delta, n_releases)


def _rdp_unit_sigma(epsilon, delta, n_releases):
    """Smallest sigma (sensitivity 1) with rdp_epsilon(K/(2 sigma^2), delta) <= epsilon; bisection."""

    def eps_of(sigma):
        return rdp_epsilon(n_releases / (2.0 * sigma * sigma), delta)[0]

    lo, hi = 1e-3, 1.0
    while eps_of(hi) > epsilon:  # eps is decreasing in sigma
        lo, hi = hi, hi * 2.0
    while eps_of(lo) <= epsilon:
        hi, lo = lo, lo / 2.0
    # invariant: eps_of(lo) > epsilon >= eps_of(hi)
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if eps_of(mid) > epsilon:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-13 * hi:
            break
    return hi


class PrivacyAccountant:
    """Record Gaussian-mechanism releases and report the privacy spent.

    Parameters
    ----------
    epsilon, delta : float, optional
        A total budget. When given, :meth:`check_budget` (called by the private estimators before
        any data is touched) refuses a fit whose releases would exceed it.
    method : {'advanced', 'rdp', 'analytic'}, default 'rdp'
        The composition rule used to check the budget.

    Attributes
    ----------
    releases : list of (sensitivity, sigma, count)
        Recorded releases; ``count`` identical releases per entry. ``sigma == 0`` records a
        release without noise (``epsilon=inf`` runs): every rule then reports ``inf``.
    n_releases : int
        Total number of releases recorded.

    Notes
    -----
    ``spent(delta, 'rdp')``: Mironov (2017), Props. 1, 3 and 7 (composition of the recorded
    releases, conversion minimised over orders). ``spent(delta, 'advanced')``: the composition rule
    of Wang & Anandkumar (2016, Alg. 3) that ``calibrate(..., 'advanced')`` inverts: each release is
    charged ``eps_i = Delta_i sqrt(2 ln(1.25/delta'))/sigma_i`` at ``delta' = delta/(2K)`` and
    the total is ``sqrt((4 + ln(2/delta)) sum_i eps_i^2)`` (equal to ``eps' sqrt(K(4+ln(2/delta)))``
    for identical releases). ``spent(delta, 'analytic')``: the exact profile of the composition,
    ``analytic_gaussian_epsilon(sqrt(sum_i (Delta_i/sigma_i)^2), delta)`` (Balle & Wang 2018,
    Thm 8; Dong, Roth & Su 2022, Cor. 3.3); never above the 'rdp' figure. ``spent(delta, 'drv')``: the Dwork-Rothblum-Vadhan (2010) advanced
    composition theorem (Dwork & Roth 2014, Thm 3.20) with ``delta'' = delta/2``; see the module
    note.

    Examples
    --------
    >>> from latentkit.privacy import PrivacyAccountant
    >>> acct = PrivacyAccountant(method="analytic")
    >>> acct.record(sensitivity=1.0, sigma=2.0, count=4)  # 4 releases of N(0, 2^2) noise
    PrivacyAccountant(epsilon=None, delta=None, method='analytic', n_releases=4)
    >>> acct.n_releases, round(acct.spent(1e-5), 4)
    (4, 4.3772)
    """

    def __init__(self, epsilon=None, delta=None, method="rdp"):
        self.epsilon = epsilon
        self.delta = delta
        self.method = method
        self.releases = []
        self.subsampled_releases = []

    # -- calibration ------------------------------------------------------------------------
    @staticmethod
    def calibrate(epsilon, delta, n_releases, sensitivity=1.0, method="advanced"):
        """Gaussian noise standard deviation for a budget; see :func:`calibrate_gaussian_noise`.

        The paper's ``nu`` (Wang & Anandkumar 2016, Alg. 3) is
        ``calibrate(eps, delta, K, 6.0, 'advanced')`` with ``K = k L (R + 1)``;
        ``calibrate(eps, delta, 1, Delta, 'analytic')`` is the analytic Gaussian mechanism
        (Balle & Wang 2018, Algorithm 1).
        """
        return calibrate_gaussian_noise(epsilon, delta, n_releases, sensitivity, method)

    # -- recording --------------------------------------------------------------------------
    @property
    def n_releases(self):
        return int(sum(c for _, _, c in self.releases)
                   + sum(r[2] for r in self.subsampled_releases))

    def record(self, sensitivity, sigma, count=1, sampling_rate=1.0, sampling="poisson"):
        """Record ``count`` Gaussian releases of L2 sensitivity ``sensitivity`` with noise ``sigma``.

        Parameters
        ----------
        sensitivity : float
            > 0 (same unit as the released query), under the neighbouring relation of
            ``sampling`` when ``sampling_rate < 1`` (see :mod:`latentkit.privacy._subsampled`).
        sigma : float
            >= 0; 0 is a release without noise (infinite privacy loss).
        count : int, default 1
        sampling_rate : float, default 1.0
            In (0, 1]. Below 1, each release is computed on a random subsample of the rows and
            is accounted as a subsampled Gaussian (Mironov, Talwar & Zhang 2019, or Wang, Balle
            & Kasiviswanathan 2019); such releases are kept in ``subsampled_releases`` and only
            the ``'rdp'`` and ``'rdp_improved'`` rules of :meth:`spent` account them.
        sampling : {'poisson', 'without_replacement'}, default 'poisson'
            ``'poisson'``: each row enters independently with probability ``sampling_rate``,
            neighbours differ by one row added or removed. ``'without_replacement'``: a uniform
            subset of ``sampling_rate * n`` rows, ``n`` public, neighbours differ by one row
            replaced. One accountant holds one relation: mixing them raises.

        Returns
        -------
        self

        Raises
        ------
        ValueError
            Non-positive sensitivity or count, negative sigma, sampling rate outside (0, 1],
            unknown sampling or a second neighbouring relation.
        """
        sensitivity = check_scalar(sensitivity, "sensitivity", numbers.Real, low=0.0,
                                   low_inclusive=False)
        sigma = check_scalar(sigma, "sigma", numbers.Real, low=0.0)
        count = check_scalar(count, "count", numbers.Integral, low=1)
        q = check_scalar(sampling_rate, "sampling_rate", numbers.Real, low=0.0, high=1.0,
                         low_inclusive=False)
        if sampling not in SAMPLINGS:
            raise InputError(f"sampling must be one of {SAMPLINGS}, got {sampling!r}.")
        if q < 1.0:
            relations = {r[4] for r in self.subsampled_releases}
            if relations and sampling not in relations:
                raise InputError(
                    f"sampling={sampling!r} has another neighbouring relation than the "
                    f"releases already recorded ({sorted(relations)}); use one accountant per "
                    f"relation.")
            self.subsampled_releases.append((sensitivity, sigma, count, float(q), sampling))
            return self
        self.releases.append((sensitivity, sigma, count))
        return self

    def record_many(self, sensitivities, sigmas):
        """Record one release per pair of ``sensitivities[i]``, ``sigmas[i]`` (1-D arrays)."""
        s = np.asarray(sensitivities, dtype=float).ravel()
        g = np.asarray(sigmas, dtype=float).ravel()
        if s.shape != g.shape:
            raise InputError(f"sensitivities and sigmas must have the same shape, got "
                             f"{s.shape} and {g.shape}.")
        if s.size and (not np.all(s > 0) or not np.all(g >= 0)):
            raise InputError("sensitivities must all be > 0 and sigmas >= 0.")
        # releases with the same ratio are equivalent for both accountants' sums
        for a, b in zip(s, g):
            self.releases.append((float(a), float(b), 1))
        return self

    def reset(self):
        """Forget every recorded release; returns self."""
        self.releases = []
        self.subsampled_releases = []
        return self

    # -- reporting --------------------------------------------------------------------------
    def _rho(self):
        if any(g == 0 for _, g, _ in self.releases):
            return math.inf
        return float(sum(c * (s / g) ** 2 / 2.0 for s, g, c in self.releases))

    def spent(self, delta=None, method="tightest"):
        """Privacy spent by the recorded releases at a given delta.

        Parameters
        ----------
        delta : float, optional
            Target delta in (0, 1); defaults to the accountant's ``delta``.
        method : {'tightest', 'rdp', 'rdp_improved', 'advanced', 'analytic', 'drv'}
            Composition rule (see the class notes). Default ``'tightest'``: the smallest
            epsilon of the rules that apply to the recorded releases (every one of them is a
            valid bound, so their minimum is too): with subsampled releases the smaller of
            ``'rdp'`` and ``'rdp_improved'``, else the smallest of all five (the exact
            ``'analytic'`` profile, up to its root-finding tolerance). ``'rdp_improved'``: the RDP curve on
            :data:`DEFAULT_RDP_ORDERS` converted by Balle et al. (2020) / Canonne, Kamath &
            Steinke (2020). When subsampled releases were recorded only ``'rdp'`` (classic
            conversion, minimised over the same orders) and ``'rdp_improved'`` apply.

        Returns
        -------
        epsilon : float
            The epsilon spent (>= 0; 0 when nothing was released; ``inf`` when a release had no
            noise). For 'advanced' and 'drv' it is ``inf`` when some release's per-release
            epsilon is >= 1 (outside the range of the classical Gaussian mechanism, Dwork & Roth
            2014, Thm A.1, on which both rules rest).

        Raises
        ------
        ValueError
            delta missing or outside (0, 1), unknown method.
        """
        if delta is None:
            delta = self.delta
        if delta is None:
            raise InputError("delta must be given (the accountant has no delta budget).")
        delta = _check_delta(delta)
        _check_method(method, ("tightest", "rdp", "advanced", "analytic", "drv",
                               "rdp_improved"))
        if method == "tightest":
            rules = (("rdp", "rdp_improved") if self.subsampled_releases else
                     ("rdp", "rdp_improved", "analytic", "advanced", "drv"))
            return min(self.spent(delta, m) for m in rules)
        if self.subsampled_releases or method == "rdp_improved":
            return spent_on_orders(self, delta, method)
        K = self.n_releases
        if K == 0:
            return 0.0
        rho = self._rho()
        if math.isinf(rho):
            return math.inf
        if method == "rdp":
            return rdp_epsilon(rho, delta)[0]
        if method == "analytic":
            return analytic_gaussian_epsilon(math.sqrt(2.0 * rho), delta)
        delta_prime = delta / (2.0 * K)
        c = math.sqrt(2.0 * math.log(1.25 / delta_prime))
        eps_i = [(c * s / g, n) for s, g, n in self.releases]
        # both rules rest on the classical Gaussian mechanism, valid for a per-release eps < 1
        if any(e >= 1.0 for e, _ in eps_i):
            return math.inf
        if method == "advanced":
            return math.sqrt((4.0 + math.log(2.0 / delta)) * sum(n * e * e for e, n in eps_i))
        sq = sum(n * e * e for e, n in eps_i)
        return (math.sqrt(2.0 * math.log(2.0 / delta) * sq)
                + sum(n * e * math.expm1(e) for e, n in eps_i))

    def report(self, delta=None):
        """Dict ``{'n_releases', 'delta', 'epsilon_advanced', 'epsilon_rdp', 'epsilon_analytic',
        'epsilon_drv'}``: the spent epsilon under every rule at ``delta``; with subsampled
        releases ``{'n_releases', 'delta', 'epsilon_rdp', 'epsilon_rdp_improved'}``."""
        if delta is None:
            delta = self.delta
        if self.subsampled_releases:
            return {"n_releases": self.n_releases, "delta": delta,
                    "epsilon_rdp": self.spent(delta, "rdp"),
                    "epsilon_rdp_improved": self.spent(delta, "rdp_improved")}
        return {
            "n_releases": self.n_releases,
            "delta": delta,
            "epsilon_advanced": self.spent(delta, "advanced"),
            "epsilon_rdp": self.spent(delta, "rdp"),
            "epsilon_analytic": self.spent(delta, "analytic"),
            "epsilon_drv": self.spent(delta, "drv"),
        }

    def check_budget(self, epsilon, delta, n_releases, sensitivity, sigma):
        """Refuse (ValueError) a planned fit whose releases would exceed this accountant's budget.

        Parameters
        ----------
        epsilon, delta : float
            The fit's own target (used when the accountant has no total budget).
        n_releases : int
            Number of releases the fit will make.
        sensitivity, sigma : float
            Per-release ratio ``sensitivity / sigma`` is what matters.

        Raises
        ------
        ValueError
            When the planned releases, added to those already recorded, spend more than the
            accountant's budget under its ``method``.
        """
        if self.epsilon is None and self.delta is None:
            return
        budget_eps = _check_epsilon(self.epsilon if self.epsilon is not None else epsilon,
                                    "PrivacyAccountant.epsilon")
        budget_delta = _check_delta(self.delta if self.delta is not None else delta,
                                    "PrivacyAccountant.delta")
        method = _check_method(self.method)
        trial = PrivacyAccountant()
        trial.releases = list(self.releases) + [(sensitivity, sigma, int(n_releases))]
        trial.subsampled_releases = list(self.subsampled_releases)
        would = trial.spent(budget_delta, method)
        if would > budget_eps * (1 + 1e-9):
            raise InputError(
                f"privacy budget cannot be met: this fit ({n_releases} releases) would bring the "
                f"spent epsilon to {would:.4g} (method={method!r}, delta={budget_delta}), above "
                f"the accountant's budget epsilon={budget_eps} (already spent "
                f"{self.spent(budget_delta, method):.4g}). Use a smaller epsilon for the fit or a "
                f"new accountant."
            )

    def __repr__(self):
        return (f"PrivacyAccountant(epsilon={self.epsilon!r}, delta={self.delta!r}, "
                f"method={self.method!r}, n_releases={self.n_releases})")
