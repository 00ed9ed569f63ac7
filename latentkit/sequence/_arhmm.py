"""Autoregressive HMM: each state's emission is a linear-Gaussian regression on the previous
``n_lags`` observations (:class:`AutoregressiveEmission`, :class:`AutoregressiveHMM`).

State ``k`` emits ``x_t = coefs[k] @ [x_{t-1}; ...; x_{t-p}] + intercepts[k] + e_t``,
``e_t ~ N(0, covariances[k])`` (Poritz 1982; Juang & Rabiner 1985; Hamilton 1989's Markov-
switching autoregression; dynamax's ``LinearAutoregressiveHMM``). The lags before a sequence's
first step are zeros (dynamax's convention), so the first ``p`` steps are regressed on what
the sequence has. The emission is an HMM emission component: :meth:`check_X` embeds each row's
lags in the validated data (``[x_t, x_{t-1}, ..., x_{t-p}]``, within its own sequence), so
chunks of whole sequences, Dask blocks and ``partial_fit`` work unchanged, and the M-step is
the closed-form weighted least squares of each state (with an optional ridge, the MAP estimate
under a matrix-normal prior ``coefs[k] ~ MN(0, covariances[k], I / coefs_prior)``).
"""

import numbers

import numpy as np
from scipy.linalg import cho_factor, cho_solve, solve_triangular

from .._utils.kmeans import kmeans_plusplus
from .._utils.validation import check_n_features, check_scalar
from ..base import stats_dataclass
from ..exceptions import InputError, InputTypeError, StateCheckError
from . import _emissions as em
from ._hmm import HiddenMarkovModel

__all__ = ["AutoregressiveEmission", "AutoregressiveHMM", "AutoregressiveHMMStats"]

_LOG_2PI = np.log(2.0 * np.pi)


@stats_dataclass
class AutoregressiveHMMStats(em.HMMStats):
    """:class:`HMMStats` plus the weighted regression moments of each state ``k``: ``nk``
    (K,) occupancies, ``sxx`` (K, D, D) ``sum_t gamma_tk x_t x_t^T``, ``sxz`` (K, D, P)
    ``sum_t gamma_tk x_t z_t^T`` and ``szz`` (K, P, P) ``sum_t gamma_tk z_t z_t^T``, where
    ``z_t = [x_{t-1}; ...; x_{t-p}; 1]`` (``P = p D + 1``).

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.sequence import AutoregressiveHMMStats
    >>> s = AutoregressiveHMMStats(n=3.0, data_term=-1.0, start=np.array([1.0]),
    ...                            trans=np.array([[2.0]]), nk=np.array([3.0]), sxx=np.ones((1, 1, 1)),
    ...                            sxz=np.ones((1, 1, 2)), szz=np.ones((1, 2, 2)))
    >>> s.nk, s.szz.shape
    (array([3.]), (1, 2, 2))
    """

    nk: np.ndarray
    sxx: np.ndarray
    sxz: np.ndarray
    szz: np.ndarray


def lagged_rows(X, offsets, n_lags):
    """``[x_t, x_{t-1}, ..., x_{t-p}]`` per row (zeros before each sequence's start).

    Parameters
    ----------
    X : ndarray of shape (n_samples, D)
    offsets : ndarray of shape (n_sequences + 1,)
    n_lags : int

    Returns
    -------
    ndarray of shape (n_samples, (n_lags + 1) D)
    """
    T, D = X.shape
    out = np.zeros((T, (n_lags + 1) * D))
    out[:, :D] = X
    for a, b in zip(offsets[:-1], offsets[1:]):
        for lag in range(1, n_lags + 1):
            if b - a > lag:
                out[a + lag:b, lag * D:(lag + 1) * D] = X[a:b - lag]
    return out


def _design(Xa, D):
    """(x, z): the observations and the regressors ``[lags, 1]`` of lagged rows."""
    return Xa[:, :D], np.hstack([Xa[:, D:], np.ones((Xa.shape[0], 1))])


class AutoregressiveEmission(em.Emission):
    """Linear-Gaussian autoregressive emissions: in state ``k``, ``x_t ~ N(coefs[k] @
    lags_t + intercepts[k], covars[k])`` with ``lags_t = [x_{t-1}; ...; x_{t-p}]`` (zeros
    before a sequence's start). Full covariances.

    Parameters
    ----------
    n_lags : int, default 1
        The order ``p`` of the autoregression.
    coefs_prior : float, default 0.0
        Ridge strength ``lambda >= 0``: the MAP estimate under ``coefs[k] ~ MN(0, covars[k],
        I / lambda)`` (the intercepts are unpenalised); 0 is maximum likelihood.
    reg_covar : float, default 1e-6
        Added to the diagonal of every covariance after each M-step (>= 0).

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.sequence import AutoregressiveEmission, HiddenMarkovModel
    >>> x = np.zeros(60); x[0] = 1.0
    >>> for t in range(1, 60):
    ...     x[t] = 0.9 * x[t - 1] + np.random.default_rng(t).normal(scale=0.1)
    >>> hmm = HiddenMarkovModel(1, emission=AutoregressiveEmission(n_lags=1), random_state=0)
    >>> round(float(hmm.fit(x.reshape(-1, 1)).coefs_[0].ravel()[0]), 1)  # about 0.9
    0.9
    """

    param_names = ("intercepts", "coefs", "covars")
    stats_class = AutoregressiveHMMStats

    def __init__(self, n_lags=1, coefs_prior=0.0, reg_covar=1e-6):
        self.n_lags = n_lags
        self.coefs_prior = coefs_prior
        self.reg_covar = reg_covar

    def validate(self, n_components):
        check_scalar(self.n_lags, "n_lags", numbers.Integral, low=1)
        check_scalar(self.coefs_prior, "coefs_prior", numbers.Real, low=0.0)
        check_scalar(self.reg_covar, "reg_covar", numbers.Real, low=0.0)

    def check_X(self, X, offsets, reset):
        """Validate real observations (n_samples, n_features) and embed each row's lags.

        Returns
        -------
        ndarray of shape (n_samples, (n_lags + 1) n_features)

        Raises
        ------
        InputError
            Not 2-D, no rows, NaN or infinite values (naming the position), a different number
            of features than in ``fit``.
        """
        if hasattr(X, "toarray"):
            raise InputTypeError("X must be a dense array of observations, got a sparse matrix.")
        arr = np.asarray(X)
        if arr.dtype.kind not in "fiub":
            raise InputTypeError(f"X must be numeric, got an array of dtype {arr.dtype}.")
        arr = arr.astype(float)
        if arr.ndim != 2:
            raise InputError(f"Expected 2D array for X, got shape {arr.shape}; use "
                             "X.reshape(-1, 1) for a single series.")
        if arr.shape[0] < 1 or arr.shape[1] < 1:
            raise InputError(f"X must have at least one row and one column, got {arr.shape}.")
        bad = ~np.isfinite(arr)
        if bad.any():
            r = int(np.argwhere(bad)[0][0])
            raise InputError(f"Input X contains NaN or infinity at {em._where(r, offsets)}; "
                             "the autoregressive emission needs every value.")
        if reset:
            self.n_features_ = arr.shape[1]
        else:
            check_n_features(arr.shape[1], self.n_features_)
        return lagged_rows(arr, offsets, int(self.n_lags))

    # ---- parameters ------------------------------------------------------------------------
    def init_params(self, X, n_components, rng, init):
        """The M-step on start responsibilities: ``'kmeans++'`` assigns each step to the
        nearest of k-means++ seeds of ``[x_t, lags]``; ``'random'`` draws Dirichlet(1)
        responsibilities. A ridge of 1e-3 keeps the first solves defined."""
        K, D = n_components, self.n_features_
        x, z = _design(X, D)
        if init == "kmeans++":
            centers = kmeans_plusplus(X, K, rng, n_local_trials=1, n_lloyd=0)[0]
            lab = np.argmin(((X[:, None, :] - centers[None]) ** 2).sum(-1), axis=1)
            w = np.eye(K)[lab] * 0.9 + 0.1 / K
        else:
            w = rng.dirichlet(np.ones(K), size=X.shape[0])
        s = self.accumulate_design(x, z, w)
        return self._solve(s["nk"], s["sxx"], s["sxz"], s["szz"], None, ridge=1e-3)

    def check_param(self, name, value, n_components):
        """Validate ``intercepts`` (K, D), ``coefs`` (K, D, p D) or ``covars`` (K, D, D)
        (symmetric positive definite)."""
        K, D, p = n_components, self.n_features_, int(self.n_lags)
        shape = {"intercepts": (K, D), "coefs": (K, D, p * D), "covars": (K, D, D)}[name]
        arr = np.array(value, dtype=float, copy=True)
        if arr.shape != shape:
            raise InputError(f"init[{name!r}] must have shape {shape}, got {arr.shape}.")
        if not np.all(np.isfinite(arr)):
            raise InputError(f"init[{name!r}] must be finite.")
        if name == "covars":
            for k in range(K):
                if not np.allclose(arr[k], arr[k].T) or np.any(np.linalg.eigvalsh(arr[k]) <= 0):
                    raise InputError(f"init[{name!r}][{k}] must be symmetric positive definite.")
        return arr

    # ---- densities and statistics --------------------------------------------------------
    def _coef_matrix(self, params):
        """(K, D, P): ``[coefs, intercepts]``."""
        return np.concatenate([params["coefs"], params["intercepts"][:, :, None]], axis=2)

    def log_likelihood(self, params, X):
        D = self.n_features_
        x, z = _design(X, D)
        B = self._coef_matrix(params)
        out = np.empty((X.shape[0], B.shape[0]))
        for k in range(B.shape[0]):
            L = np.linalg.cholesky(params["covars"][k])
            r = solve_triangular(L, (x - z @ B[k].T).T, lower=True)
            out[:, k] = -0.5 * (r * r).sum(axis=0) - np.log(np.diag(L)).sum() \
                - 0.5 * D * _LOG_2PI
        return out

    def empty_stats(self, n_components):
        D, P = self.n_features_, int(self.n_lags) * self.n_features_ + 1
        return {"nk": np.zeros(n_components), "sxx": np.zeros((n_components, D, D)),
                "sxz": np.zeros((n_components, D, P)), "szz": np.zeros((n_components, P, P))}

    @staticmethod
    def accumulate_design(x, z, w):
        """Weighted regression statistics of every state.

        Parameters
        ----------
        x : ndarray of shape (n_samples, n_features)
            The observations.
        z : ndarray of shape (n_samples, n_regressors)
            Their regressors (the lags and the bias).
        w : ndarray of shape (n_samples, n_components)
            State posteriors ``q(z_t = k)``.

        Returns
        -------
        dict
            ``nk`` (K,), ``sxx`` (K, D, D), ``sxz`` (K, D, P), ``szz`` (K, P, P): sums over
            time steps of ``w_tk``, ``w_tk x x^T``, ``w_tk x z^T``, ``w_tk z z^T``.
        """
        return {"nk": w.sum(axis=0), "sxx": np.einsum("tk,ti,tj->kij", w, x, x),
                "sxz": np.einsum("tk,ti,tj->kij", w, x, z),
                "szz": np.einsum("tk,ti,tj->kij", w, z, z)}

    def accumulate(self, params, X, gamma):
        x, z = _design(X, self.n_features_)
        return self.accumulate_design(x, z, gamma)

    def _ridge(self, P):
        lam = np.full(P, float(self.coefs_prior))
        lam[-1] = 0.0  # the intercept is not penalised
        return lam

    def _solve(self, nk, sxx, sxz, szz, previous, ridge=0.0):
        """Per state: ``B = sxz (szz + Lambda)^-1``, ``Sigma = (sxx - B sxz^T) / (nk + p D
        [coefs_prior > 0]) + reg_covar I``; a state with no weight keeps ``previous``."""
        K, D, P = sxz.shape
        lam = self._ridge(P) + ridge
        n_prior = (P - 1) if self.coefs_prior > 0 else 0
        B = np.empty((K, D, P))
        cov = np.empty((K, D, D))
        for k in range(K):
            if not nk[k] > 0 and previous is not None:
                B[k] = self._coef_matrix(previous)[k]
                cov[k] = previous["covars"][k]
                continue
            A = szz[k] + np.diag(lam)
            try:
                B[k] = cho_solve(cho_factor(A), sxz[k].T).T
            except np.linalg.LinAlgError:  # collinear regressors: the minimum-norm solution
                B[k] = sxz[k] @ np.linalg.pinv(A)
            S = (sxx[k] - B[k] @ sxz[k].T) / max(nk[k] + n_prior, 1e-300)
            cov[k] = 0.5 * (S + S.T) + self.reg_covar * np.eye(D)
        return {"intercepts": B[:, :, -1].copy(), "coefs": B[:, :, :-1].copy(), "covars": cov}

    def m_step(self, params, stats, frozen):
        if {"intercepts", "coefs", "covars"} & em._as_frozen(frozen):
            raise InputError("AutoregressiveEmission updates intercepts, coefs and covariances "
                             "together; freezing some of them is not supported.")
        return self._solve(stats.nk, stats.sxx, stats.sxz, stats.szz, params)

    def log_prior(self, params):
        """The matrix-normal log density of the coefficients given each covariance (0 when
        ``coefs_prior`` is 0): ``sum_k log MN(coefs[k] | 0, covars[k], I / lambda)``."""
        lam = float(self.coefs_prior)
        if lam <= 0:
            return 0.0
        out = 0.0
        for W, S in zip(params["coefs"], params["covars"]):
            D, Q = W.shape
            L = np.linalg.cholesky(S)
            r = solve_triangular(L, W, lower=True)
            out += (-0.5 * D * Q * _LOG_2PI + 0.5 * D * Q * np.log(lam)
                    - Q * np.log(np.diag(L)).sum() - 0.5 * lam * (r * r).sum())
        return float(out)

    def free_parameter_counts(self, n_components):
        K, D, p = n_components, self.n_features_, int(self.n_lags)
        return {"intercepts": K * D, "coefs": K * D * p * D, "covars": K * D * (D + 1) // 2}

    def sample(self, params, states, rng):
        """One sequence along ``states``, each step regressed on the ones drawn before it
        (zeros before the start)."""
        D, p = self.n_features_, int(self.n_lags)
        B = self._coef_matrix(params)
        L = np.linalg.cholesky(params["covars"])
        X = np.zeros((len(states) + p, D))
        for t, k in enumerate(states):
            z = np.concatenate([X[t + p - lag] for lag in range(1, p + 1)] + [[1.0]])
            X[t + p] = B[k] @ z + L[k] @ rng.standard_normal(D)
        return X[p:]


class AutoregressiveHMM(HiddenMarkovModel):
    """Autoregressive (Markov-switching) Gaussian HMM, fitted by Baum-Welch.

    State ``k`` emits ``x_t = coefs_[k] @ [x_{t-1}; ...; x_{t-n_lags}] + intercepts_[k] +
    e_t`` with ``e_t ~ N(0, covariances_[k])``; the lags before a sequence's first step are
    zeros. dynamax's ``LinearAutoregressiveHMM`` (``emission_weights`` = ``coefs_``,
    ``emission_biases`` = ``intercepts_``, ``emission_covariances`` = ``covariances_``) and
    Hamilton's (1989) Markov-switching autoregression with switching intercepts, coefficients
    and variances. The M-step is each state's weighted least squares (closed form); the bound
    is the log-likelihood in **nats per time step** (plus the log prior with ``coefs_prior``).

    Parameters
    ----------
    n_components : int, default 2
        Number of hidden states.
    n_lags : int, default 1
        Autoregressive order ``p``.
    coefs_prior : float, default 0.0
        Ridge strength (>= 0): MAP under ``coefs_[k] ~ MN(0, covariances_[k], I /
        coefs_prior)``; 0 is maximum likelihood.
    reg_covar : float, default 1e-6
        Added to the covariance diagonals at each M-step.
    startprob_prior, transmat_prior, init, frozen, n_init, max_iter, tol, random_state,
    callback, verbose
        See :class:`HiddenMarkovModel` (``init``: 'kmeans++' (default) or 'random' start
        responsibilities followed by one M-step, or a dict of ``startprob``, ``transmat``,
        ``intercepts``, ``coefs``, ``covariances``; no 'spectral').

    Attributes
    ----------
    startprob_ : ndarray of shape (n_components,)
    transmat_ : ndarray of shape (n_components, n_components)
    intercepts_ : ndarray of shape (n_components, n_features)
    coefs_ : ndarray of shape (n_components, n_features, n_lags * n_features)
        Columns ``[lag 1 | lag 2 | ...]``, each block (n_features, n_features).
    covariances_ : ndarray of shape (n_components, n_features, n_features)
    lower_bound_, lower_bounds_, n_iter_, converged_
        Log-likelihood per time step, nats.

    Raises
    ------
    InputError
        Bad hyper-parameters or data (NaN, wrong width), naming them.

    References
    ----------
    Poritz, A. B. (1982). Linear predictive hidden Markov models and the speech signal. ICASSP.
    Hamilton, J. D. (1989). A new approach to the economic analysis of nonstationary time series
    and the business cycle. Econometrica 57(2), 357-384.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit import AutoregressiveHMM
    >>> rng = np.random.default_rng(0)
    >>> x = np.zeros(400)
    >>> for t in range(1, 400):                  # AR(1) coefficient 0.9, then -0.5
    ...     x[t] = (0.9 if (t // 100) % 2 == 0 else -0.5) * x[t - 1] + rng.normal()
    >>> ar = AutoregressiveHMM(2, random_state=0).fit(x[:, None])
    >>> np.round(np.sort(ar.coefs_[:, 0, 0]), 1)
    array([-0.5,  0.9])
    """

    def __init__(self, n_components=2, n_lags=1, *, coefs_prior=0.0, reg_covar=1e-6,
                 startprob_prior=None, transmat_prior=None, init="kmeans++", frozen=None,
                 n_init=1, max_iter=1000, tol=None, random_state=None, callback=None,
                 verbose=False):
        self.n_components = n_components
        self.n_lags = n_lags
        self.coefs_prior = coefs_prior
        self.reg_covar = reg_covar
        self.startprob_prior = startprob_prior
        self.transmat_prior = transmat_prior
        self.init = init
        self.frozen = frozen
        self.n_init = n_init
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        self.callback = callback
        self.verbose = verbose

    def _make_emission(self):
        return AutoregressiveEmission(n_lags=self.n_lags, coefs_prior=self.coefs_prior,
                                      reg_covar=self.reg_covar)

    def _validate_params(self):
        if isinstance(self.init, str) and self.init == "spectral":
            raise InputError("init='spectral' is not available for AutoregressiveHMM; use "
                             "'kmeans++', 'random' or a dict.")
        super()._validate_params()

    def _check_state(self):
        """Validate a restored fitted state: the chain and ``n_features_in_`` (the HMM
        family's checks) and the emission parameters' shapes and positive-definite
        covariances.

        Raises
        ------
        StateCheckError
            (a ValueError) naming the bad attribute.
        """
        super()._check_state()
        for name in self.emission_.param_names:
            attr = {"covars": "covariances"}.get(name, name) + "_"
            try:
                self.emission_.check_param(name, getattr(self, attr), self.n_components)
            except (AttributeError, InputError) as exc:
                raise StateCheckError(attr, str(exc)) from None
