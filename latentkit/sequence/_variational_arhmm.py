"""The variational autoregressive HMM (:class:`VariationalAutoregressiveHMM`): the
autoregressive emission of :mod:`latentkit.sequence._arhmm` under a conjugate
matrix-normal-Wishart prior, fitted by VB-EM with Dirichlet priors on the chain (the
variational HMMs of :mod:`latentkit.sequence._variational`).

State ``k`` has regression matrix ``B_k = [coefs, intercept]`` (D, P) and precision
``Lambda_k`` (D, D): ``Lambda_k ~ Wishart(dof_prior, scale_prior^-1)`` (the scale given as its
inverse ``Q_0``), ``B_k | Lambda_k ~ MN(0, Lambda_k^-1, Lambda_0^-1)`` with column precision
``Lambda_0 = diag(coefs_prior, ..., coefs_prior, intercept_prior)``. The posterior has the same
form (the conjugate Bayesian multivariate regression; Fox 2009, section 4.2):
``Lambda_n = Lambda_0 + sum_t g_t z z^T``, ``M_n = (sum_t g_t x z^T) Lambda_n^-1``,
``Q_n = Q_0 + sum_t g_t x x^T - M_n Lambda_n M_n^T``, ``nu_n = nu_0 + sum_t g_t``.
"""

import numbers

import numpy as np

from .._utils.kmeans import kmeans_plusplus
from .._utils.validation import check_scalar
from ..distributions._normal_wishart import _wishart_e_logdet, wishart_kl
from ..exceptions import InputError, StateCheckError
from .._engine.state_checks import _array, _int, _simplex
from ._arhmm import AutoregressiveEmission, _design
from ._variational import VariationalHMM
from ._variational_emissions import _blend

__all__ = ["VariationalAutoregressiveEmission", "VariationalAutoregressiveHMM"]

_LOG_2PI = np.log(2.0 * np.pi)


class VariationalAutoregressiveEmission(AutoregressiveEmission):
    """Autoregressive emissions with matrix-normal-Wishart posteriors over each state's
    regression and precision.

    Parameters
    ----------
    n_lags : int, default 1
    coefs_prior : float, default 1.0
        Column precision (> 0) of the lag coefficients in the matrix-normal prior.
    intercept_prior : float, default 1e-3
        Column precision (> 0) of the intercepts (vague).
    dof_prior : float, optional
        Wishart degrees of freedom (> n_features - 1); default ``n_features + 2``.

    Notes
    -----
    Posterior names: ``regression_posterior`` (K, D, P) ``M_n``,
    ``column_precision_posterior`` (K, P, P) ``Lambda_n``, ``dof_posterior`` (K,) ``nu_n``,
    ``scale_posterior`` (K, D, D) ``Q_n``; the point estimates are ``M_n`` and ``Q_n / nu_n``.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.sequence import VariationalAutoregressiveEmission, VariationalHMM
    >>> x = np.random.default_rng(0).normal(size=(200, 1))
    >>> vb = VariationalHMM(2, VariationalAutoregressiveEmission(n_lags=2), random_state=0,
    ...                     init="kmeans++").fit(x)
    >>> vb.regression_posterior_.shape
    (2, 1, 3)
    """

    posterior_names = ("regression_posterior", "column_precision_posterior", "dof_posterior",
                       "scale_posterior")

    def __init__(self, n_lags=1, coefs_prior=1.0, intercept_prior=1e-3, dof_prior=None):
        self.n_lags = n_lags
        self.coefs_prior = coefs_prior
        self.intercept_prior = intercept_prior
        self.dof_prior = dof_prior

    def validate(self, n_components):
        check_scalar(self.n_lags, "n_lags", numbers.Integral, low=1)
        for name in ("coefs_prior", "intercept_prior"):
            v = check_scalar(getattr(self, name), name, numbers.Real, low=0.0)
            if not v > 0:
                raise InputError(f"{name} must be > 0 (a prior precision), got {v!r}.")

    def resolve_prior(self, X, n_components):
        """``column_precision_prior`` (P, P), ``dof_prior``, ``scale_prior`` (D, D) = ``Q_0``:
        the data covariance times ``dof_prior``, so that ``E[Lambda] = cov^-1``."""
        D = self.n_features_
        x = X[:, :D]
        P = int(self.n_lags) * D + 1
        lam = np.full(P, float(self.coefs_prior))
        lam[-1] = float(self.intercept_prior)
        nu = float(D + 2) if self.dof_prior is None else float(self.dof_prior)
        if not nu > D - 1:
            raise InputError(f"dof_prior must be > n_features - 1 = {D - 1}, got {nu!r}.")
        cov = np.atleast_2d(np.cov(x.T, bias=True)) if x.shape[0] > 1 else np.eye(D)
        cov = cov + 1e-6 * np.eye(D)
        return {"column_precision_prior": np.diag(lam), "dof_prior": nu,
                "scale_prior": cov * nu}

    def _update(self, prior, nk, sxx, sxz, szz):
        L0, nu0, Q0 = (prior["column_precision_prior"], prior["dof_prior"],
                       prior["scale_prior"])
        Ln = L0[None] + szz
        M = np.einsum("kdp,kpq->kdq", sxz, np.linalg.inv(Ln))
        Q = Q0[None] + sxx - np.einsum("kdp,kpq,keq->kde", M, Ln, M)
        Q = 0.5 * (Q + Q.transpose(0, 2, 1))
        return {"regression_posterior": M, "column_precision_posterior": Ln,
                "dof_posterior": nu0 + nk, "scale_posterior": Q}

    def init_posterior(self, X, n_components, rng, init, prior):
        """The conjugate update from the start responsibilities of
        :meth:`AutoregressiveEmission.init_params` (k-means++ or Dirichlet draws)."""
        K, D = n_components, self.n_features_
        x, z = _design(X, D)
        if init == "kmeans++":
            centers = kmeans_plusplus(X, K, rng, n_local_trials=1, n_lloyd=0)[0]
            lab = np.argmin(((X[:, None, :] - centers[None]) ** 2).sum(-1), axis=1)
            w = np.eye(K)[lab] * 0.9 + 0.1 / K
        else:
            w = rng.dirichlet(np.ones(K), size=X.shape[0])
        s = self.accumulate_design(x, z, w)
        return self._update(prior, s["nk"], s["sxx"], s["sxz"], s["szz"])

    def check_posterior(self, name, value, n_components):
        """Refuse a starting posterior given in ``init``: always raises ``InputError``."""
        raise InputError(f"init[{name!r}]: starting posteriors of "
                         "VariationalAutoregressiveEmission are not accepted; use "
                         "init='kmeans++' or 'random'.")

    def expected_log_likelihood(self, post, X):
        """``E_q[log N(x_t | B_k z_t, Lambda_k^-1)]``, shape (n, K)."""
        D = self.n_features_
        x, z = _design(X, D)
        M, Ln, nu, Q = (post["regression_posterior"], post["column_precision_posterior"],
                        post["dof_posterior"], post["scale_posterior"])
        out = np.empty((X.shape[0], M.shape[0]))
        for k in range(M.shape[0]):
            Lq = np.linalg.cholesky(Q[k])
            logdet = 2.0 * np.log(np.diag(Lq)).sum()
            r = np.linalg.solve(Lq, (x - z @ M[k].T).T)
            quad = nu[k] * (r * r).sum(axis=0)
            var = np.einsum("tp,pq,tq->t", z, np.linalg.inv(Ln[k]), z)
            e_logdet = float(_wishart_e_logdet(nu[k], logdet, D))
            out[:, k] = 0.5 * e_logdet - 0.5 * D * _LOG_2PI - 0.5 * (quad + D * var)
        return out

    def occupancy(self, stats):
        """Expected time steps per state, shape (K,)."""
        return stats.nk

    def vb_update(self, post, prior, stats, step_size, scale):
        """The conjugate update with the statistics times ``scale`` (blended in the natural
        parameters by ``step_size``)."""
        target = self._update(prior, scale * stats.nk, scale * stats.sxx, scale * stats.sxz,
                              scale * stats.szz)
        if step_size >= 1.0 or not post:
            return target
        # natural parameters: Lambda_n, M_n Lambda_n, Q_n + M_n Lambda_n M_n^T, nu_n
        def nat(p):
            ML = np.einsum("kdp,kpq->kdq", p["regression_posterior"],
                           p["column_precision_posterior"])
            return (p["column_precision_posterior"], ML,
                    p["scale_posterior"] + np.einsum("kdp,keq->kde", ML,
                                                     p["regression_posterior"]),
                    p["dof_posterior"])
        cur, new = nat(post), nat(target)
        Ln, ML, S, nu = (_blend(c, n, step_size) for c, n in zip(cur, new))
        M = np.einsum("kdp,kpq->kdq", ML, np.linalg.inv(Ln))
        Q = S - np.einsum("kdp,keq->kde", ML, M)
        return {"regression_posterior": M, "column_precision_posterior": Ln,
                "dof_posterior": nu, "scale_posterior": 0.5 * (Q + Q.transpose(0, 2, 1))}

    def kl(self, post, prior):
        """``sum_k KL(q(B_k, Lambda_k) || p(B_k, Lambda_k))``: the Wishart KL plus the
        expected matrix-normal KL, nats."""
        M, Ln, nu, Q = (post["regression_posterior"], post["column_precision_posterior"],
                        post["dof_posterior"], post["scale_posterior"])
        L0 = prior["column_precision_prior"]
        K, D, P = M.shape
        out = float(np.sum(wishart_kl(nu, Q, prior["dof_prior"], prior["scale_prior"])))
        logdet0 = np.linalg.slogdet(L0)[1]
        for k in range(K):
            V = np.linalg.inv(Ln[k])
            e_lambda = nu[k] * np.linalg.inv(Q[k])
            out += 0.5 * (D * np.trace(L0 @ V) - D * P - D * logdet0
                          + D * np.linalg.slogdet(Ln[k])[1]
                          + np.trace(e_lambda @ M[k] @ L0 @ M[k].T))
        return out

    def point_estimate(self, post):
        """``intercepts``, ``coefs`` (the posterior mean ``M_n``) and ``covars`` (the inverse
        of ``E[Lambda] = nu Q^-1``)."""
        M = post["regression_posterior"]
        covars = post["scale_posterior"] / post["dof_posterior"][:, None, None]
        return {"intercepts": M[:, :, -1].copy(), "coefs": M[:, :, :-1].copy(),
                "covars": covars}

    def log_prior(self, params):
        return 0.0


class VariationalAutoregressiveHMM(VariationalHMM):
    """Autoregressive Gaussian HMM fitted by variational Bayes (VB-EM).

    :class:`AutoregressiveHMM`'s model (state ``k`` emits ``x_t = coefs[k] @ [x_{t-1}; ...;
    x_{t-p}] + intercepts[k] + e_t``, zeros before a sequence's start) with Dirichlet priors on
    ``startprob`` and the rows of ``transmat`` and a matrix-normal-Wishart prior on each
    state's regression and noise precision (:class:`VariationalAutoregressiveEmission`). The
    bound is the ELBO in **nats per time step** (Beal 2003, ch. 3); with one state it is the
    exact log evidence of the Bayesian multivariate regression.

    Parameters
    ----------
    n_components : int, default 2
    n_lags : int, default 1
    coefs_prior : float, default 1.0
        Prior column precision of the lag coefficients.
    intercept_prior : float, default 1e-3
        Prior column precision of the intercepts.
    dof_prior : float, optional
        Wishart degrees of freedom; default ``n_features + 2``.
    startprob_prior, transmat_prior : float or array-like, optional
        Dirichlet concentrations (default ``1 / n_components``).
    init : {'kmeans++', 'random'}, default 'kmeans++'
    n_init, max_iter, tol, random_state, callback, verbose
        See :class:`HiddenMarkovModel`.

    Attributes
    ----------
    startprob_, transmat_, intercepts_, coefs_, covariances_ : ndarray
        Posterior-mean point estimates (as :class:`AutoregressiveHMM`'s).
    regression_posterior_ : ndarray of shape (n_components, n_features, n_lags * n_features + 1)
        ``M_n = [coefs, intercept]``.
    column_precision_posterior_ : ndarray of shape (n_components, P, P)
    dof_posterior_ : ndarray of shape (n_components,)
    scale_posterior_ : ndarray of shape (n_components, n_features, n_features)
        ``Q_n``, the inverse Wishart scale.
    lower_bound_, lower_bounds_
        ELBO per time step, nats.

    Raises
    ------
    InputError
        Bad hyper-parameters or data, naming them; ``init='spectral'`` or a dict.

    References
    ----------
    Beal, M. J. (2003). Variational algorithms for approximate Bayesian inference. PhD thesis.
    Fox, E. B. (2009). Bayesian nonparametric learning of complex dynamical phenomena. PhD
    thesis, MIT (the matrix-normal inverse-Wishart prior of switching autoregressions).

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit import VariationalAutoregressiveHMM
    >>> rng = np.random.default_rng(0)
    >>> x = np.zeros(400)
    >>> for t in range(1, 400):                  # AR(1) coefficient 0.9, then -0.5
    ...     x[t] = (0.9 if (t // 100) % 2 == 0 else -0.5) * x[t - 1] + rng.normal()
    >>> vb = VariationalAutoregressiveHMM(2, random_state=0).fit(x[:, None])
    >>> np.round(np.sort(vb.coefs_[:, 0, 0]), 1)
    array([-0.5,  0.9])
    """

    def __init__(self, n_components=2, n_lags=1, *, coefs_prior=1.0, intercept_prior=1e-3,
                 dof_prior=None, startprob_prior=None, transmat_prior=None, init="kmeans++",
                 n_init=1, max_iter=1000, tol=None, random_state=None, callback=None,
                 verbose=False):
        self.n_components = n_components
        self.n_lags = n_lags
        self.coefs_prior = coefs_prior
        self.intercept_prior = intercept_prior
        self.dof_prior = dof_prior
        self.startprob_prior = startprob_prior
        self.transmat_prior = transmat_prior
        self.init = init
        self.n_init = n_init
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        self.callback = callback
        self.verbose = verbose

    frozen = None

    def _make_emission(self):
        return VariationalAutoregressiveEmission(
            n_lags=self.n_lags, coefs_prior=self.coefs_prior,
            intercept_prior=self.intercept_prior, dof_prior=self.dof_prior)

    def _validate_params(self):
        if not (isinstance(self.init, str) and self.init in ("kmeans++", "random")):
            raise InputError(f"init must be 'kmeans++' or 'random' for "
                             f"VariationalAutoregressiveHMM, got {self.init!r}.")
        super()._validate_params()

    def _check_state(self):
        """Validate a restored fitted state: the chain's posteriors and point estimates, the
        regression posteriors' shapes (from ``n_components``, ``n_lags``, ``n_features_in_``).

        Raises
        ------
        StateCheckError
            (a ValueError) naming the bad attribute.
        """
        K, D = _int(self, "n_components"), _int(self, "n_features_in_")
        P = int(self.n_lags) * D + 1
        _simplex(self, "startprob_", (K,))
        _simplex(self, "transmat_", (K, K))
        _array(self, "startprob_posterior_", (K,), positive=True)
        _array(self, "transmat_posterior_", (K, K), positive=True)
        _array(self, "regression_posterior_", (K, D, P))
        _array(self, "column_precision_posterior_", (K, P, P))
        nu = _array(self, "dof_posterior_", (K,))
        if not np.all(nu > D - 1):
            raise StateCheckError("dof_posterior_", f"expected values > {D - 1}")
        Q = _array(self, "scale_posterior_", (K, D, D))
        if any(np.any(np.linalg.eigvalsh(q) <= 0) for q in Q):
            raise StateCheckError("scale_posterior_", "expected positive-definite matrices")
