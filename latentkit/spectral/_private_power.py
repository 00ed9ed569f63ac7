"""Differentially private robust tensor power method (Wang & Anandkumar 2016, Algorithm 3).

Neighbouring relation (WA16 section 4; SPECTRAL_NOTES.md section 4, item 2): two symmetric
tensors are neighbours when they differ by ``+- symmetrize(e_i (x) e_j (x) e_k)`` (the six index
permutations summed). Then for a unit vector ``u`` the L2 sensitivity of ``T(I, u, u)`` is
``6 ||u||_inf^2`` and that of ``T(u, u, u)`` is ``6 ||u||_inf^3`` (WA16 Theorem 4.1), and every
release is a Gaussian mechanism with noise ``nu ||u||_inf^2`` (resp. ``nu ||u||_inf^3``): the ratio
sensitivity/noise is ``6 / nu`` for every release, so ``K = k L (R + 1)`` releases compose as ``K``
identical Gaussian mechanisms. Normalisation, the choice of the best candidate and deflation are
post-processing of released values and cost nothing. There is no noiseless refinement phase (it
would leak).
"""

import numbers
from dataclasses import dataclass, field

import numpy as np

from .._utils.validation import check_random_state, check_scalar
from .._utils.validation import privacy_noise_rng as _noise_rng  # OS entropy, never random_state
from ..base import ParamsMixin
from ._power import robust_tensor_power
from ._tensors import as_tensor_operator, operator_dim
from ._accounting import PrivacyAccountant, _check_delta, _check_epsilon, calibrate_gaussian_noise
from ..exceptions import InputError

__all__ = [
    "private_tensor_power",
    "PrivateTensorPower",
    "PrivateTensorPowerResult",
    "input_perturbation_power",
    "DEFAULT_SENSITIVITY_CONSTANT",
]

#: The constant of WA16 Theorem 4.1 (symmetric neighbouring tensors): sensitivities
#: 6 ||u||_inf^2 and 6 ||u||_inf^3.
DEFAULT_SENSITIVITY_CONSTANT = 6.0


def _as_operator(T):
    """Return (operator, dimension) for a dense 3-way array or an object with contract/evaluate."""
    if not (hasattr(T, "contract") and hasattr(T, "evaluate")):
        arr = np.asarray(T) if not hasattr(T, "toarray") else T
        if getattr(arr, "ndim", 0) != 3 or not (arr.shape[0] == arr.shape[1] == arr.shape[2]):
            raise InputError(f"T must be a cubical (d, d, d) array or a tensor operator, got "
                             f"shape {getattr(arr, 'shape', None)}.")
    op = as_tensor_operator(T)
    return op, operator_dim(op)


@dataclass
class PrivateTensorPowerResult:
    """Output of :func:`private_tensor_power` / :func:`input_perturbation_power`.

    Attributes
    ----------
    weights : ndarray of shape (n_components,)
        Released eigenvalue estimates ``lambda_i`` (noisy), in extraction order.
    factors : ndarray of shape (d, n_components)
        Unit eigenvector estimates ``v_i`` as columns.
    nu : float
        Noise multiplier: the released ``T(I, u, u)`` carries ``N(0, (nu ||u||_inf^2)^2 I)`` noise
        (for input perturbation: the per-entry noise standard deviation before symmetrisation).
    n_releases : int
        Number of Gaussian-mechanism releases ``K``.
    accountant : PrivacyAccountant
        The releases, recorded; ``accountant.report(delta)`` gives the spent epsilon under every
        composition rule.
    epsilon, delta : float
        The requested budget.
    method : str
        The calibration used ('advanced' or 'rdp').
    scores : ndarray of shape (n_components, n_restarts)
        The released ``T(u, u, u)`` of every candidate (the selection scores).
    """

    weights: np.ndarray
    factors: np.ndarray
    nu: float
    n_releases: int
    accountant: PrivacyAccountant
    epsilon: float
    delta: float
    method: str
    scores: np.ndarray = field(default=None)

    def privacy_spent(self):
        """Dict with the spent epsilon under 'advanced', 'rdp' and 'drv' at ``self.delta``."""
        return self.accountant.report(self.delta)


def _is_inf_epsilon(epsilon):
    """True for ``epsilon = +inf`` (the non-private run with the same algorithm)."""
    return (isinstance(epsilon, numbers.Real) and not isinstance(epsilon, bool)
            and epsilon == float("inf"))


def _check_common(n_components, epsilon, delta, n_restarts, n_iter, accountant,
                  sensitivity_constant):
    n_components = check_scalar(n_components, "n_components", numbers.Integral, low=1)
    epsilon = float("inf") if _is_inf_epsilon(epsilon) else _check_epsilon(epsilon)
    delta = _check_delta(delta)
    n_restarts = check_scalar(n_restarts, "n_restarts", numbers.Integral, low=1)
    n_iter = check_scalar(n_iter, "n_iter", numbers.Integral, low=1)
    if accountant not in ("advanced", "rdp", "analytic"):
        raise InputError(f"accountant must be 'advanced', 'rdp' or 'analytic', got "
                         f"{accountant!r}.")
    sensitivity_constant = check_scalar(sensitivity_constant, "sensitivity_constant",
                                        numbers.Real, low=0.0, low_inclusive=False)
    return n_components, epsilon, delta, n_restarts, n_iter, sensitivity_constant


def private_tensor_power(T, n_components, epsilon, delta, n_restarts=10, n_iter=20,
                         accountant="advanced", random_state=None, *,
                         sensitivity_constant=DEFAULT_SENSITIVITY_CONSTANT,
                         privacy_accountant=None, callback=None):
    """Differentially private robust tensor power method.

    Implements Wang & Anandkumar (2016), *Online and differentially-private tensor
    decomposition*, NIPS, Algorithm 3: for each of ``k`` components, ``L`` candidates start
    uniformly on the unit sphere; each of ``R`` power steps releases
    ``T_i(I, u, u) + nu ||u||_inf^2 z`` (``z ~ N(0, I_d)``) and normalises; the candidates'
    ``T_i(u, u, u) + nu ||u||_inf^3 z'`` are released once, the best is kept, and the deflated
    tensor ``T_{i+1} = T_i - lambda_i v_i^{(x)3}`` is applied implicitly. ``K = k L (R + 1)``
    releases.

    Parameters
    ----------
    T : ndarray of shape (d, d, d) or tensor operator
        Symmetric tensor, or any object with ``contract(U)`` (``T(I, u_l, u_l)`` for the columns
        of U, shape (d, L)) and ``evaluate(U)`` (``T(u_l, u_l, u_l)``, shape (L,)) and an
        ``n_features`` (or ``shape``) attribute. Not modified.
    n_components : int
        Number ``k`` of components to extract.
    epsilon : float
        Privacy budget, > 0. ``numpy.inf`` runs the same algorithm (same starts, same number of
        power steps, same candidate selection) without noise: the non-private baseline the
        paper compares with (``nu = 0``; the accountant records the releases with sigma 0 and
        reports an infinite epsilon).
    delta : float
        Privacy delta, in (0, 1).
    n_restarts : int, default 10
        Candidates ``L`` per component.
    n_iter : int, default 20
        Power steps ``R`` per candidate.
    accountant : {'advanced', 'rdp', 'analytic'}, default 'advanced'
        Noise calibration. ``'advanced'``: the paper's
        ``nu = 6 sqrt(2 ln(1.25/delta')) / eps'``, ``delta' = delta/(2K)``,
        ``eps' = eps / sqrt(K (4 + ln(2/delta)))``. ``'rdp'``: the smallest ``nu`` whose K-fold
        Gaussian composition is (epsilon, delta)-DP under Renyi-DP accounting (Mironov 2017);
        smaller than the 'advanced' nu. ``'analytic'``: the smallest ``nu`` by the exact
        privacy profile of the composition (Balle & Wang 2018; Dong, Roth & Su 2022); smaller
        still (see :mod:`latentkit.spectral._accounting`).
    random_state : None, int or numpy.random.Generator
        Source of the starting vectors only. The privacy noise is always drawn from a
        generator seeded by the operating system's entropy, never from ``random_state``, so a
        fixed seed reproduces the starts but not the noise (two runs with the same seed give
        different noisy results at finite epsilon); nothing that would regenerate the noise is
        returned or stored.
    sensitivity_constant : float, default 6.0
        The constant ``c`` of the sensitivities ``c ||u||_inf^2`` and ``c ||u||_inf^3``
        (WA16 Thm 4.1 for symmetric neighbours; a public MATLAB implementation uses 2).
    privacy_accountant : PrivacyAccountant, optional
        Accountant to record the releases in. If it carries a total budget, the fit is refused
        before any release when it would exceed that budget.
    callback : callable, optional
        ``callback(kind, U, released)`` after every release, with ``kind`` ``'power'`` (``U``:
        (d, L) the vectors contracted, ``released``: (d, L) the noisy ``T_i(I, u, u)``) or
        ``'eigenvalue'`` (``released``: (L,) the noisy ``T_i(u, u, u)``). Released values are
        DP outputs; exposing them costs no privacy.

    Returns
    -------
    PrivateTensorPowerResult
        ``weights`` (k,), ``factors`` (d, k), ``nu``, ``n_releases`` (K), the ``accountant``
        with every release recorded, and the candidates' released ``scores`` (k, L).

    Raises
    ------
    ValueError
        epsilon <= 0, delta outside (0, 1), non-positive counts, unknown accountant, a budget the
        'advanced' rule cannot meet (per-release eps' >= 1), or a budget the given
        ``privacy_accountant`` cannot meet.
    TypeError
        T is neither an array nor a tensor operator.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.spectral import private_tensor_power
    >>> T = np.zeros((3, 3, 3)); T[0, 0, 0] = 2.0; T[1, 1, 1] = 1.0
    >>> res = private_tensor_power(T, n_components=2, epsilon=np.inf, delta=1e-5, random_state=0)
    >>> np.round(res.weights, 6), res.n_releases  # epsilon=inf: no noise, the same steps
    (array([2., 1.]), 420)
    """
    (n_components, epsilon, delta, n_restarts, n_iter,
     sensitivity_constant) = _check_common(n_components, epsilon, delta, n_restarts, n_iter,
                                           accountant, sensitivity_constant)
    op, d = _as_operator(T)
    if n_components > d:
        raise InputError(f"n_components must be <= the dimension d={d}, got {n_components}.")
    K = n_components * n_restarts * (n_iter + 1)
    nu = 0.0 if epsilon == float("inf") else calibrate_gaussian_noise(
        epsilon, delta, K, sensitivity_constant, accountant)
    acc = privacy_accountant if privacy_accountant is not None else PrivacyAccountant()
    acc.check_budget(epsilon, delta, K, sensitivity_constant, nu)
    rng = check_random_state(random_state)
    c = sensitivity_constant
    weights, factors, scores, sens, sig = _noisy_power_iterations(
        op, d, n_components, n_restarts, n_iter, rng, nu / c,
        lambda U: c * np.max(np.abs(U), axis=0) ** 2,
        lambda U: c * np.max(np.abs(U), axis=0) ** 3, callback, noise_rng=_noise_rng())
    acc.record_many(np.concatenate(sens), np.concatenate(sig))
    return PrivateTensorPowerResult(weights=weights, factors=factors, nu=nu, n_releases=K,
                                    accountant=acc, epsilon=epsilon, delta=delta,
                                    method=accountant, scores=scores)


def _noisy_power_iterations(op, d, n_components, n_restarts, n_iter, rng, noise_ratio,
                            sens_power, sens_eval, callback=None, *, noise_rng):
    """The loop of WA16 Algorithm 3 with release-dependent sensitivities.

    Every power step releases ``T_i(I, u, u) + noise_ratio * sens_power(u) * z`` and every
    candidate's eigenvalue ``T_i(u, u, u) + noise_ratio * sens_eval(u) * z'``, so each release is
    a Gaussian mechanism with the same ratio ``sensitivity / sigma = 1 / noise_ratio``
    (``noise_ratio = 0``: no noise). The starting vectors come from ``rng`` (``random_state``),
    the noise from ``noise_rng`` (:func:`_noise_rng`, OS entropy), so the starts of a seeded run
    do not depend on epsilon. Deflation by the released ``(lambda_j, v_j)`` is post-processing.

    Returns
    -------
    weights (k,), factors (d, k), scores (k, L), sensitivities (list of arrays), sigmas (list)
    """
    L = n_restarts
    weights = np.zeros(n_components)
    factors = np.zeros((d, n_components))
    scores = np.zeros((n_components, L))
    sens = []
    sig = []
    for i in range(n_components):
        U = rng.standard_normal((d, L))
        U /= np.linalg.norm(U, axis=0)
        Vp, lp = factors[:, :i], weights[:i]
        for _ in range(n_iter):
            C = np.asarray(op.contract(U), dtype=float)
            if i:  # implicit deflation: T_i(I,u,u) = T(I,u,u) - sum_j lam_j (v_j.u)^2 v_j
                C = C - Vp @ (lp[:, None] * (Vp.T @ U) ** 2)
            s_p = np.asarray(sens_power(U), dtype=float)
            C = C + (noise_ratio * s_p)[None, :] * noise_rng.standard_normal((d, L))
            sens.append(s_p)
            sig.append(noise_ratio * s_p)
            if callback is not None:
                callback("power", U.copy(), C.copy())
            norms = np.linalg.norm(C, axis=0)
            # with Gaussian noise a zero vector has probability zero; guard anyway
            norms[norms == 0] = 1.0
            U = C / norms
        lam = np.asarray(op.evaluate(U), dtype=float)
        if i:
            lam = lam - ((Vp.T @ U) ** 3).T @ lp
        s_e = np.asarray(sens_eval(U), dtype=float)
        lam = lam + noise_ratio * s_e * noise_rng.standard_normal(L)
        sens.append(s_e)
        sig.append(noise_ratio * s_e)
        if callback is not None:
            callback("eigenvalue", U.copy(), lam.copy())
        scores[i] = lam
        best = int(np.argmax(lam))
        weights[i] = lam[best]
        factors[:, i] = U[:, best]
    return weights, factors, scores, sens, sig


class AccountantStateMixin:
    """Fitted state of an estimator with an ``accountant_`` (:class:`PrivacyAccountant`): stored
    as its budget, method and releases ((m, 3): sensitivity, sigma, count) under the state
    entry ``accountant``, and restored as a new accountant holding them."""

    def _get_state(self):
        state = super()._get_state()
        acc = state.pop("accountant_", None)
        if acc is not None:
            state["accountant"] = {
                "releases": np.array(acc.releases, dtype=np.float64).reshape(-1, 3),
                "epsilon": acc.epsilon, "delta": acc.delta, "method": acc.method}
        return state

    def _set_state(self, state):
        state = dict(state)
        acc_state = state.pop("accountant", None)
        super()._set_state(state)
        if acc_state is not None:
            acc = PrivacyAccountant(acc_state["epsilon"], acc_state["delta"], acc_state["method"])
            acc.releases = [(float(a), float(b), int(c)) for a, b, c in
                            np.asarray(acc_state["releases"]).reshape(-1, 3)]
            self.accountant_ = acc


class PrivateTensorPower(AccountantStateMixin, ParamsMixin):
    """Estimator wrapper of :func:`private_tensor_power` (forwards every argument).

    Parameters
    ----------
    n_components, epsilon, delta, n_restarts, n_iter, accountant, random_state,
    sensitivity_constant, privacy_accountant, callback
        As in :func:`private_tensor_power`.

    Attributes
    ----------
    weights_ : ndarray of shape (n_components,)
    factors_ : ndarray of shape (d, n_components)
    nu_ : float
    n_releases_ : int
    accountant_ : PrivacyAccountant
        :func:`latentkit.save` stores its budget and releases and :func:`latentkit.load`
        rebuilds it (as a new accountant with the same releases).
    result_ : PrivateTensorPowerResult
        Not stored by :func:`latentkit.save`.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.spectral import PrivateTensorPower
    >>> T = np.zeros((3, 3, 3)); T[0, 0, 0] = 2.0; T[1, 1, 1] = 1.0
    >>> est = PrivateTensorPower(n_components=2, epsilon=np.inf, delta=1e-5, random_state=0).fit(T)
    >>> np.round(est.weights_, 6), est.factors_.shape
    (array([2., 1.]), (3, 2))
    """

    def __init__(self, n_components, epsilon, delta, n_restarts=10, n_iter=20,
                 accountant="advanced", random_state=None,
                 sensitivity_constant=DEFAULT_SENSITIVITY_CONSTANT, privacy_accountant=None,
                 callback=None):
        self.n_components = n_components
        self.epsilon = epsilon
        self.delta = delta
        self.n_restarts = n_restarts
        self.n_iter = n_iter
        self.accountant = accountant
        self.random_state = random_state
        self.sensitivity_constant = sensitivity_constant
        self.privacy_accountant = privacy_accountant
        self.callback = callback

    def fit(self, T):
        """Decompose ``T`` privately; returns self. See :func:`private_tensor_power`."""
        res = private_tensor_power(
            T, self.n_components, self.epsilon, self.delta, n_restarts=self.n_restarts,
            n_iter=self.n_iter, accountant=self.accountant, random_state=self.random_state,
            sensitivity_constant=self.sensitivity_constant,
            privacy_accountant=self.privacy_accountant, callback=self.callback)
        self.result_ = res
        self.weights_ = res.weights
        self.factors_ = res.factors
        self.nu_ = res.nu
        self.n_releases_ = res.n_releases
        self.accountant_ = res.accountant
        return self

    def _get_state(self):
        """Public fitted attributes (``result_`` is not part of it), ``accountant_`` as in
        :class:`AccountantStateMixin`."""
        state = super()._get_state()
        state.pop("result_", None)
        return state


def _symmetrize(A):
    return (A + A.transpose(0, 2, 1) + A.transpose(1, 0, 2) + A.transpose(1, 2, 0)
            + A.transpose(2, 0, 1) + A.transpose(2, 1, 0)) / 6.0


def input_perturbation_power(T, n_components, epsilon, delta, n_restarts=10, n_iter=20,
                             random_state=None, *,
                             sensitivity_constant=DEFAULT_SENSITIVITY_CONSTANT,
                             privacy_accountant=None, accountant="rdp"):
    """Input-perturbation baseline: add Gaussian noise to ``T`` once, then run a (noiseless) RTPM.

    The whole tensor is one Gaussian-mechanism release: under the neighbouring relation of
    Wang & Anandkumar (2016, section 4) neighbours differ by ``symmetrize(e_i (x) e_j (x) e_k)``,
    whose Frobenius norm is at most 6 (``i = j = k``), so i.i.d. ``N(0, sigma^2)`` noise with
    ``sigma = calibrate(epsilon, delta, 1, 6, accountant)`` on all ``d^3`` entries is
    (epsilon, delta)-DP; the noisy tensor is then symmetrised (post-processing) and decomposed by
    the robust tensor power method (Anandkumar et al. 2014, Alg. 1) with ``n_restarts`` starts
    and ``n_iter`` iterations.

    The default calibration, ``accountant='rdp'``, converts the Renyi-DP curve of one Gaussian
    release to (epsilon, delta) (Mironov 2017, Prop. 3). That conversion is valid but **not
    tight**: the exact calibration of one Gaussian release is the analytic Gaussian mechanism
    (Balle & Wang 2018), ``accountant='analytic'``, and the Renyi-DP sigma is larger than it by
    14-56% for epsilon in [0.1, 10] at delta = 1e-5 (31% at epsilon = 1; 10-32% at delta = 1e-8).
    For epsilon <= 1 the Renyi-DP sigma is within 1.2% of the classical Gaussian mechanism's
    ``sqrt(2 ln(1.25/delta)) Delta / epsilon`` (Dwork & Roth 2014, Thm A.1).

    Parameters
    ----------
    T : ndarray of shape (d, d, d)
        Dense symmetric tensor (not modified).
    n_components, epsilon, delta, n_restarts, n_iter, random_state, sensitivity_constant,
    privacy_accountant
        As in :func:`private_tensor_power` (``epsilon=numpy.inf``: no noise).
    accountant : {'rdp', 'analytic', 'advanced'}, default 'rdp'
        Calibration of the single release (see above; 'advanced' is the classical Gaussian
        mechanism at ``delta/2``, ``epsilon / sqrt(4 + ln(2/delta))``).

    Returns
    -------
    PrivateTensorPowerResult
        With ``nu`` the per-entry noise standard deviation and ``n_releases = 1``.

    Raises
    ------
    ValueError
        As :func:`private_tensor_power`; T not a cubical array.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.spectral import input_perturbation_power
    >>> T = np.zeros((3, 3, 3)); T[0, 0, 0] = 2.0; T[1, 1, 1] = 1.0
    >>> res = input_perturbation_power(T, n_components=2, epsilon=np.inf, delta=1e-5,
    ...                                random_state=0)
    >>> np.round(res.weights, 6), res.n_releases  # one release: the whole noisy tensor
    (array([2., 1.]), 1)
    """
    (n_components, epsilon, delta, n_restarts, n_iter,
     sensitivity_constant) = _check_common(n_components, epsilon, delta, n_restarts, n_iter,
                                           accountant, sensitivity_constant)
    arr = np.asarray(T)
    if arr.ndim != 3 or not (arr.shape[0] == arr.shape[1] == arr.shape[2]):
        raise InputError(f"T must be a dense cubical (d, d, d) array, got shape {arr.shape}.")
    d = arr.shape[0]
    if n_components > d:
        raise InputError(f"n_components must be <= the dimension d={d}, got {n_components}.")
    sigma = 0.0 if epsilon == float("inf") else calibrate_gaussian_noise(
        epsilon, delta, 1, sensitivity_constant, accountant)
    acc = privacy_accountant if privacy_accountant is not None else PrivacyAccountant()
    acc.check_budget(epsilon, delta, 1, sensitivity_constant, sigma)
    rng = check_random_state(random_state)
    noise = _noise_rng().standard_normal(arr.shape)  # OS entropy, never random_state
    noisy = _symmetrize(np.asarray(arr, dtype=float) + sigma * noise)
    acc.record(sensitivity_constant, sigma)
    weights, factors = _rtpm(noisy, n_components, n_restarts, n_iter, rng)
    return PrivateTensorPowerResult(weights=weights, factors=factors, nu=sigma, n_releases=1,
                                    accountant=acc, epsilon=epsilon, delta=delta,
                                    method=accountant)


def _rtpm(T, n_components, n_restarts, n_iter, rng):
    """Robust tensor power method (spectral core) on a dense tensor; returns (weights, factors)."""
    res = robust_tensor_power(T, n_components, n_restarts=n_restarts, n_iter=n_iter, tol=1e-10,
                              random_state=rng, check_symmetric=False)
    return np.asarray(res.eigenvalues, dtype=float), np.asarray(res.eigenvectors, dtype=float)
