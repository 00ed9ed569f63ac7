"""Spherical Gaussian mixture by the method of moments with differential privacy per sample.

Neighbouring relation: two data sets with the same number of samples ``n`` (public) that differ
in one sample (replaced by any other). Same pipeline and accounting as
:mod:`latentkit.spectral._private_lda` (read its docstring first); what changes is the
contribution rule and the sensitivities.

Contribution rule: every sample is clipped to the public radius ``R = clip_norm``,
``x~ = x min(1, R / ||x||)`` (a sample already inside the ball is unchanged). The moments are
those of the clipped samples, so choose ``R`` (from public knowledge, never from the data) at or
above the norm of most samples, after scaling the data to a known range.

Sensitivities (replace ``x~`` by ``x~'``, both of norm at most ``R``)
--------------------------------------------------------------------
1. Stage 1 releases ``sum_t x~_t`` (d): ``||x~ - x~'|| <= 2R``.
2. Stage 2 releases ``sum_t x~_t x~_t^T`` by Analyze Gauss (upper triangle with diagonal):
   ``||x x^T - x' x'^T||_F^2 = ||x||^4 + ||x'||^4 - 2 (x.x')^2 <= 2 R^4``, so ``Delta_2 =
   sqrt(2) R^2`` (the upper triangle's norm is at most the Frobenius norm).
3. Post-processing (Hsu & Kakade 2013; SPECTRAL_NOTES.md section 1.4): ``mean = s1 / n``,
   ``S = S2 / n``, ``sigma^2`` the mean of the ``d - k + 1`` smallest eigenvalues of
   ``S - mean mean^T`` (floored at 0), ``M1 = sigma^2 mean``, ``M2 = S - sigma^2 I``, ``W`` from its
   top-k eigenpairs (floored at the expected spectral norm of the stage-2 noise,
   ``2 sigma_2 sqrt(d) / n``).
4. Stage 3: the private tensor power method on
   ``T = (1/n) sum_t y_t^{(x)3} - Sym(W^T M1 (x) W^T W)``
   with ``y_t = W^T x~_t``; only the first term reads the data. For a unit ``u``:
   ``||y (y.u)^2|| <= ||W||_2 R (R ||W u||)^2`` and ``|(y.u)^3| <= (R ||W u||)^3``, so

       Delta(T(I, u, u)) = 2 ||W||_2 R^3 ||W u||^2 / n,    Delta(T(u, u, u)) = 2 R^3 ||W u||^3 / n.

Accounting, ``epsilon=inf`` and the noise diagnostics are as for
:class:`~latentkit.spectral.PrivateSpectralLDA`.
"""

import math
import numbers

import numpy as np

from .._utils.deprecation import renamed_kwargs
from .._utils.validation import check_array, check_random_state, check_scalar
from ._estimators import SpectralGMM
from ._state_checks import FittedState, check_spectral_gmm
from ._private_power import _is_inf_epsilon, _noise_rng
from ._private_lda import (_PrivateSpectralBase, _analyze_gauss_noise, _budget_sigmas,
                           _check_budget_split, _private_power_stage, _released_whitening,
                           _sym_outer)
from ._accounting import PrivacyAccountant, _check_delta, _check_epsilon
from ..exceptions import InputError

__all__ = ["PrivateSpectralGMM"]


def _stage3_sensitivities(W, R, n):
    """Sensitivity functions of the stage-3 releases (module docstring) for the released
    whitening ``W`` (d, k), clip radius ``R`` and ``n`` samples: ``(sens_power, sens_eval)``,
    each mapping unit vectors ``U`` (k, L) to (L,) sensitivities
    ``2 ||W||_2 R^3 ||W u||_2^2 / n`` and ``2 R^3 ||W u||_2^3 / n``."""
    w2 = float(np.linalg.norm(W, 2))

    def sens_power(Ub):
        return 2.0 * w2 * R ** 3 * np.linalg.norm(W @ Ub, axis=0) ** 2 / n

    def sens_eval(Ub):
        return 2.0 * R ** 3 * np.linalg.norm(W @ Ub, axis=0) ** 3 / n

    return sens_power, sens_eval


class PrivateSpectralGMM(_PrivateSpectralBase):
    """Spherical Gaussian mixture (common variance) that is (epsilon, delta)-DP for each sample.

    Parameters
    ----------
    n_components : int
        k, at most n_features.
    clip_norm : float
        Public radius ``R`` every sample is clipped to (module docstring), > 0. Required: a
        radius computed from the data would itself leak.
    epsilon : float, default 1.0
        Total budget of the whole pipeline, > 0 (``numpy.inf``: the same pipeline without
        noise).
    delta : float, default 1e-5
    budget_split : tuple of 3 floats, default (0.2, 0.4, 0.4)
        Shares of ``rho`` for the sum, the second moment and the tensor power method.
    accountant : {'analytic', 'rdp'}, default 'analytic'
    n_init : int, default 10
        Restarts of the power method (``n_restarts`` before 0.2: deprecated alias).
    max_iter : int, default 20
        Noisy power iterations per restart (``n_iter`` before 0.2: deprecated alias).
    random_state : None, int or numpy.random.Generator
        Source of the starting vectors of the power method only; the privacy noise is drawn
        from the operating system's entropy whatever ``random_state`` is, so two fits with the
        same seed give different noise and nothing saved with the model regenerates it.

    Attributes
    ----------
    weights_ : ndarray of shape (n_components,)
    means_ : ndarray of shape (n_components, n_features)
    covariances_ : ndarray of shape (n_components,)
        The common variance for every component.
    sigma2_ : float
    eigenvalues_ : ndarray of shape (n_components,)
    whitening_ : Whitening
    accountant_ : PrivacyAccountant
    privacy_report_ : dict
        As :class:`~latentkit.spectral.PrivateSpectralLDA` (``neighbouring`` is 'sample').
    noise_scale_, noise_dominated_, m2_eigenvalues_, m2_noise_norm_, m2_noise_dominated_
        As :class:`~latentkit.spectral.PrivateSpectralLDA`.
    n_features_in_, n_releases_ : int

    Raises
    ------
    ValueError (from ``fit``)
        Missing or non-positive ``clip_norm``, bad budget, ``n_components > n_features``,
        fewer than 2 samples, NaN.

    Warns
    -----
    PrivacyNoiseWarning

    Notes
    -----
    Sources: Hsu & Kakade (2013), Theorem 1; Dwork, Talwar, Thakurta & Zhang (2014), Algorithm 1;
    Wang & Anandkumar (2016), Algorithm 3 and Theorem 2.2; accounting as in
    :mod:`latentkit.spectral._accounting`. Derivations in this module's docstring.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.spectral import PrivateSpectralGMM
    >>> rng = np.random.default_rng(0)
    >>> X = np.array([[0.0, 0.0, 6.0], [6.0, 0.0, 0.0]])[rng.integers(0, 2, 500)]
    >>> pg = PrivateSpectralGMM(2, clip_norm=10.0, epsilon=float("inf"), random_state=0).fit(X)
    >>> pg.means_.shape
    (2, 3)
    """

    @renamed_kwargs(n_restarts="n_init", n_iter="max_iter")
    def __init__(self, n_components, clip_norm=None, epsilon=1.0, delta=1e-5,
                 budget_split=(0.2, 0.4, 0.4), accountant="analytic", n_init=10, max_iter=20,
                 random_state=None):
        self.n_components = n_components
        self.clip_norm = clip_norm
        self.epsilon = epsilon
        self.delta = delta
        self.budget_split = budget_split
        self.accountant = accountant
        self.n_init = n_init
        self.max_iter = max_iter
        self.random_state = random_state

    def fit(self, X, y=None):
        """Estimate the mixture privately from X of shape (n_samples, n_features).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Not modified; ``n_samples`` is public under the relation.
        y : ignored

        Returns
        -------
        self
        """
        k = check_scalar(self.n_components, "n_components", numbers.Integral, low=1)
        if self.clip_norm is None:
            raise InputError("clip_norm must be given: a public bound R on the sample norms "
                             "(samples are clipped to it); computing it from the data would "
                             "leak.")
        R = check_scalar(self.clip_norm, "clip_norm", numbers.Real, low=0.0,
                         low_inclusive=False)
        eps = math.inf if _is_inf_epsilon(self.epsilon) else _check_epsilon(self.epsilon)
        delta = _check_delta(self.delta)
        if self.accountant not in ("analytic", "rdp"):
            raise InputError(f"accountant must be 'analytic' or 'rdp', got {self.accountant!r}.")
        L = check_scalar(self.n_init, "n_init", numbers.Integral, low=1)
        R_it = check_scalar(self.max_iter, "max_iter", numbers.Integral, low=1)
        split = _check_budget_split(self.budget_split)
        X = check_array(X, "X", ensure_min_samples=2)
        n, d = X.shape
        if k > d:
            raise InputError(f"n_components={k} exceeds n_features={d}.")
        self._reset_fitted()
        rng = check_random_state(self.random_state)
        acc = PrivacyAccountant(method=self.accountant)
        K = k * L * (R_it + 1)
        r1, r2, ratio3 = _budget_sigmas(eps, delta, self.accountant, split, K)
        norms = np.linalg.norm(X, axis=1)
        Xc = X * np.minimum(1.0, R / np.maximum(norms, 1e-300))[:, None]
        # stage 1 and 2
        sig1, sig2 = 2.0 * R * r1, math.sqrt(2.0) * R ** 2 * r2
        noise_rng = _noise_rng()  # OS entropy, never random_state (nothing stored regenerates it)
        s1 = Xc.sum(axis=0) + sig1 * noise_rng.standard_normal(d)
        acc.record(2.0 * R, sig1)
        S2 = Xc.T @ Xc + _analyze_gauss_noise(d, sig2, noise_rng)
        acc.record(math.sqrt(2.0) * R ** 2, sig2)
        mean, S = s1 / n, S2 / n
        cov_eig = np.linalg.eigvalsh((S + S.T) / 2 - np.outer(mean, mean))
        sigma2 = float(max(cov_eig[: d - k + 1].mean(), 0.0))
        M1 = sigma2 * mean
        wh, s, noise2 = _released_whitening(S - sigma2 * np.eye(d), k, sig2, n)
        W = wh.W
        # stage 3
        Y = Xc @ W
        T = np.einsum("ti,tj,tk->ijk", Y, Y, Y, optimize=True) / n \
            - _sym_outer(W.T @ M1, W.T @ W)
        sens_power, sens_eval = _stage3_sensitivities(W, R, n)
        lam, Vk, noise = _private_power_stage(T, k, L, R_it, rng, ratio3, sens_power, sens_eval,
                                              acc, noise_rng)
        lam_safe = np.where(np.abs(lam) > 1e-12, lam, 1e-12)
        w = lam_safe ** -2.0
        self.weights_ = w / w.sum()
        self.means_ = (wh.B @ Vk * lam_safe).T
        self.sigma2_ = sigma2
        self.covariances_ = np.full(k, sigma2)
        self._store_private_fit(lam, wh, acc, delta, noise, "sample")
        self.m2_eigenvalues_, self.m2_noise_norm_ = s, noise2
        self.m2_noise_dominated_ = bool(s[-1] <= noise2)
        self.n_features_in_ = d
        self._warn_noise("components", "more samples or a smaller clip_norm")
        return self

    #: spherical posterior mode, as :meth:`SpectralGMM.predict`
    predict = SpectralGMM.predict

    def _check_state(self):
        """Validate a restored state (:mod:`latentkit.spectral._state_checks`)."""
        check_spectral_gmm(FittedState(vars(self), type(self).__name__))
