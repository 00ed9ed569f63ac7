"""Normal-Wishart (and Normal-Gamma) factors of the variational Gaussian mixtures.

The prior and the mean-field posterior of a Gaussian component's mean and precision are

    p(mu_k, Lambda_k) = N(mu_k | m, (beta Lambda_k)^-1) W(Lambda_k | W, nu)

(Bishop 2006, eq. 10.40), one per component (``'full'``), one shared precision with a mean per
component (``'tied'``), or, for the diagonal structures, independent Gamma precisions:

=============  ===================================================  ======================
type           precision factor                                      ``scatter`` Q (shape)
=============  ===================================================  ======================
``'full'``     Lambda_k ~ Wishart(W_k, nu_k), Q_k = W_k^-1           (K, D, D)
``'tied'``     Lambda ~ Wishart(W, nu), Q = W^-1, nu shared          (D, D); nu scalar
``'diag'``     lambda_kj ~ Gamma(shape nu_k / 2, rate Q_kj / 2)      (K, D)
``'spherical'`` lambda_k ~ Gamma(shape D nu_k / 2, rate Q_k / 2)     (K,)
=============  ===================================================  ======================

With this choice the M-step of every structure is scikit-learn's BayesianGaussianMixture
update (``covariances_ = Q / nu``; spherical ``Q / (D nu)``), and E[Lambda] = covariances_^-1.
The diagonal structures differ from scikit-learn in E[log |Lambda|] only: scikit-learn uses the
Wishart formula sum_i psi((nu + 1 - i) / 2) for all four structures; here the Gamma factors give
D psi(nu / 2) (diag) and D psi(D nu / 2) (spherical), which makes the ELBO exact. Tied: the
exact conjugate update (nu = nu_0 + N, Q = Q_0 + sum_k [N_k S_k + beta_0 N_k / beta_k
(xbar_k - m_0)(...)^T]) where scikit-learn averages over components (nu = nu_0 + N / K).

All moments are kept about a fixed ``shift`` (the data mean) for accuracy; natural parameters
(beta, beta (m - c), Q + beta (m - c)(m - c)^T, nu) are linear in the sufficient statistics
(N_k, sum r x, sum r x x^T, N_k), which gives the natural-gradient (SVI) step of
Hoffman et al. (2013).

Sources: Bishop (2006), *Pattern Recognition and Machine Learning*, eqs. (10.40), (10.60)-(10.66)
(updates), (10.64)-(10.65) (expectations), (10.71)-(10.77) (bound), (10.79)-(10.82) (Student-t
predictive), (B.78)-(B.82) (Wishart); Penny (2001), *KL-divergences of Normal, Gamma, Dirichlet
and Wishart densities*.
"""

import math

import numpy as np
from scipy.special import gammaln, multigammaln, psi

from ._gaussian import log_gaussian_prob

__all__ = [
    "NormalWishart",
    "wishart_kl",
    "gamma_kl",
    "student_t_logpdf",
]

_LOG_2PI = math.log(2.0 * math.pi)


def gamma_kl(a, b, a0, b0):
    """KL(Gamma(a, b) || Gamma(a0, b0)), shape/rate parametrisation, elementwise.

    Parameters
    ----------
    a, b : array-like
        Shape and rate of q (> 0).
    a0, b0 : array-like
        Shape and rate of p (> 0), broadcastable.

    Returns
    -------
    ndarray
        Nats (>= 0).

    Notes
    -----
    Source: Penny (2001), eq. (22) (in rate form).

    Examples
    --------
    >>> from latentkit.distributions import gamma_kl
    >>> float(gamma_kl(2.0, 1.0, 2.0, 1.0))  # KL(q || q) = 0
    0.0
    >>> round(float(gamma_kl(1.0, 2.0, 1.0, 1.0)), 6)  # Exp(2) against Exp(1): log 2 - 1/2
    0.193147
    """
    a, b, a0, b0 = (np.asarray(v, dtype=np.float64) for v in (a, b, a0, b0))
    return ((a - a0) * psi(a) - gammaln(a) + gammaln(a0) + a0 * (np.log(b) - np.log(b0))
            + a * (b0 - b) / b)


def _wishart_log_norm(nu, logdet_q, D):
    """log B(W, nu) of Bishop (B.79) with ln|W| = -ln|Q| (Q = W^-1)."""
    return 0.5 * nu * logdet_q - 0.5 * nu * D * math.log(2.0) - multigammaln(0.5 * nu, D)


def _wishart_e_logdet(nu, logdet_q, D):
    """E[ln |Lambda|] = sum_i psi((nu + 1 - i) / 2) + D ln 2 - ln |Q| (Bishop 10.65)."""
    nu = np.asarray(nu, dtype=np.float64)
    return psi(0.5 * (nu[..., None] - np.arange(D))).sum(-1) + D * math.log(2.0) - logdet_q


def wishart_kl(nu, Q, nu0, Q0):
    """KL(Wishart(Q^-1, nu) || Wishart(Q0^-1, nu0)) for each leading index.

    Parameters
    ----------
    nu : float or ndarray of shape (K,)
        Degrees of freedom of q (> D - 1).
    Q : ndarray of shape (D, D) or (K, D, D)
        Inverse scale matrices W^-1 of q (positive definite).
    nu0 : float
        Degrees of freedom of the prior.
    Q0 : ndarray of shape (D, D)
        Inverse scale matrix W_0^-1 of the prior.

    Returns
    -------
    float or ndarray of shape (K,)
        Nats.

    Notes
    -----
    KL = ln B(W, nu) - ln B(W0, nu0) + (nu - nu0)/2 E[ln|Lambda|] - nu D / 2
    + nu/2 Tr(W0^-1 W); Bishop (2006) eqs. (B.79)-(B.82); Penny (2001), eq. (32).

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.distributions import wishart_kl
    >>> Q = np.eye(2)
    >>> float(wishart_kl(5.0, Q, 5.0, Q)), bool(wishart_kl(8.0, 2 * Q, 5.0, Q) > 0)
    (0.0, True)
    """
    Q = np.asarray(Q, dtype=np.float64)
    single = Q.ndim == 2
    Qs = Q[None] if single else Q
    D = Qs.shape[-1]
    nu = np.broadcast_to(np.asarray(nu, dtype=np.float64), (Qs.shape[0],))
    L = np.linalg.cholesky(Qs)
    logdet = 2.0 * np.log(np.diagonal(L, axis1=1, axis2=2)).sum(1)
    logdet0 = np.linalg.slogdet(Q0)[1]
    # Tr(Q0 Q^-1)
    Linv = np.linalg.inv(L)
    tr = np.einsum("kij,jl,kil->k", Linv, Q0, Linv)  # Tr(Q^-1 Q0) = Tr(L^-1 Q0 L^-T)
    e_logdet = _wishart_e_logdet(nu, logdet, D)
    out = (_wishart_log_norm(nu, logdet, D) - _wishart_log_norm(nu0, logdet0, D)
           + 0.5 * (nu - nu0) * e_logdet - 0.5 * nu * D + 0.5 * nu * tr)
    return float(out[0]) if single else out


def student_t_logpdf(maha, log_det_prec, dof, D):
    """log density of a D-variate Student-t from its squared Mahalanobis distance.

    Parameters
    ----------
    maha : ndarray
        (x - m)^T L (x - m) with L the t's precision (scale^-1) matrix.
    log_det_prec : ndarray
        ``ln |L|``, broadcastable to ``maha``.
    dof : ndarray
        Degrees of freedom (> 0), broadcastable.
    D : int
        Dimension.

    Returns
    -------
    ndarray
        Nats; Bishop (2006) eq. (B.68).

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.stats import t
    >>> from latentkit.distributions import student_t_logpdf
    >>> x, dof = 0.7, 4.0
    >>> round(float(student_t_logpdf(np.array(x ** 2), 0.0, dof, 1)), 6)
    -1.269725
    >>> round(float(t.logpdf(x, dof)), 6)  # scipy's density
    -1.269725
    """
    return (gammaln(0.5 * (dof + D)) - gammaln(0.5 * dof) - 0.5 * D * np.log(dof * math.pi)
            + 0.5 * log_det_prec - 0.5 * (dof + D) * np.log1p(maha / dof))


class NormalWishart:
    """K Normal-Wishart (or Normal-Gamma) factors of means and precisions.

    Parameters
    ----------
    covariance_type : {'full', 'tied', 'diag', 'spherical'}
    beta : ndarray of shape (K,)
        Precision scalings beta_k of the means (> 0).
    means : ndarray of shape (K, D)
        m_k.
    scatter : ndarray
        Q (see the module table): (K, D, D), (D, D), (K, D) or (K,).
    dof : ndarray of shape (K,), or float for 'tied'
        nu_k.

    Notes
    -----
    A prior is a ``NormalWishart`` with K = 1 (see :meth:`prior`). Source: Bishop (2006),
    section 10.2.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.distributions import NormalWishart
    >>> nw = NormalWishart("full", beta=np.array([1.0]), means=np.zeros((1, 2)),
    ...                    scatter=np.eye(2)[None], dof=np.array([4.0]))
    >>> nw.means.shape, nw.dof
    ((1, 2), array([4.]))
    """

    def __init__(self, covariance_type, beta, means, scatter, dof):
        self.covariance_type = covariance_type
        self.beta = np.asarray(beta, dtype=np.float64)
        self.means = np.asarray(means, dtype=np.float64)
        self.scatter = np.asarray(scatter, dtype=np.float64)
        self.dof = np.asarray(dof, dtype=np.float64) if covariance_type != "tied" \
            else float(dof)
        self._cache = None

    # ---- construction --------------------------------------------------------------------
    @classmethod
    def prior(cls, covariance_type, mean_precision_prior, mean_prior, degrees_of_freedom_prior,
              covariance_prior):
        """The prior of one component from scikit-learn-style hyper-parameters.

        Parameters
        ----------
        covariance_type : {'full', 'tied', 'diag', 'spherical'}
        mean_precision_prior : float
            beta_0 > 0.
        mean_prior : ndarray of shape (D,)
            m_0.
        degrees_of_freedom_prior : float
            nu_0.
        covariance_prior : ndarray
            W_0^-1: (D, D) full/tied, (D,) diag, float spherical (a variance s_0; Q_0 = D s_0).

        Returns
        -------
        NormalWishart with K = 1.
        """
        D = np.asarray(mean_prior).shape[0]
        q0 = np.asarray(covariance_prior, dtype=np.float64)
        if covariance_type == "full":
            q = q0[None]
        elif covariance_type == "tied":
            q = q0
        elif covariance_type == "diag":
            q = q0[None]
        else:
            q = np.array([D * float(q0)])
        dof = degrees_of_freedom_prior if covariance_type == "tied" else \
            np.array([degrees_of_freedom_prior], dtype=np.float64)
        return cls(covariance_type, np.array([mean_precision_prior], dtype=np.float64),
                   np.asarray(mean_prior, dtype=np.float64)[None], q, dof)

    @property
    def n_components(self):
        return self.means.shape[0]

    @property
    def n_features(self):
        return self.means.shape[1]

    # ---- moments -----------------------------------------------------------------------------
    def covariances(self):
        """E[Lambda]^-1, scikit-learn's ``covariances_``: Q / nu (spherical Q / (D nu))."""
        ct, D = self.covariance_type, self.n_features
        if ct == "full":
            return self.scatter / self.dof[:, None, None]
        if ct == "tied":
            return self.scatter / self.dof
        if ct == "diag":
            return self.scatter / self.dof[:, None]
        return self.scatter / (D * self.dof)

    def _moments(self):
        if self._cache is None:
            ct, D = self.covariance_type, self.n_features
            if ct in ("full", "tied"):
                q = self.scatter if ct == "full" else self.scatter[None]
                nu = np.atleast_1d(self.dof)
                try:
                    Lq = np.linalg.cholesky(q)
                except np.linalg.LinAlgError:
                    raise FloatingPointError(
                        "a Normal-Wishart scatter matrix is not positive definite; increase "
                        "reg_covar or covariance_prior.") from None
                # E[Lambda] = nu Q^-1 = U U^T with U = sqrt(nu) (Lq^-1)^T (upper triangular)
                U = np.sqrt(nu)[:, None, None] * np.linalg.inv(Lq).transpose(0, 2, 1)
                U = np.triu(U)
                logdet_q = 2.0 * np.log(np.diagonal(Lq, axis1=1, axis2=2)).sum(1)
                e_logdet = _wishart_e_logdet(nu, logdet_q, D)
                logdet_u = 0.5 * (D * np.log(nu) - logdet_q)
                if ct == "tied":
                    U, logdet_q, e_logdet = U[0], float(logdet_q[0]), float(e_logdet[0])
                    logdet_u = float(logdet_u[0])
            elif ct == "diag":
                U = np.sqrt(self.dof[:, None] / self.scatter)
                logdet_q = np.log(self.scatter).sum(1)
                logdet_u = np.log(U).sum(1)
                e_logdet = D * psi(0.5 * self.dof) - np.log(0.5 * self.scatter).sum(1)
            else:
                U = np.sqrt(D * self.dof / self.scatter)
                logdet_q = D * np.log(self.scatter)
                logdet_u = D * np.log(U)
                e_logdet = D * (psi(0.5 * D * self.dof) - np.log(0.5 * self.scatter))
            self._cache = (U, logdet_u, logdet_q, e_logdet)
        return self._cache

    def precisions_cholesky(self):
        """Upper Cholesky factors U of E[Lambda] = U U^T (scikit-learn's convention)."""
        return self._moments()[0]

    def expected_log_det(self):
        """``E[ln |Lambda_k|]``, shape (K,) (float for 'tied'); Bishop (10.65) or the Gamma form
        sum_j psi(a) - ln b_j."""
        return self._moments()[3]

    def expected_trace(self):
        """E[tr Lambda_k] = ||U_k||_F^2 for E[Lambda_k] = U_k U_k^T, shape (K,) (float for
        'tied'): nu_k tr(Q_k^-1) (Wishart, Bishop B.80), sum_j nu_k / Q_kj (diag Gamma means),
        D * D nu_k / Q_k (spherical)."""
        U = self._moments()[0]
        ct = self.covariance_type
        if ct == "full":
            return np.einsum("kij,kij->k", U, U)
        if ct == "tied":
            return float(np.sum(U * U))
        if ct == "diag":
            return (U * U).sum(1)
        return self.n_features * U * U

    def log_weight_offsets(self):
        """Per-component constants c_k such that, for the fused Gaussian E-step run with the
        factors ``precisions_cholesky()`` (E[Lambda]),
        ``c_k + ln det U_k - D/2 ln 2 pi - 1/2 ||(x - m_k) U_k||^2 = E[ln N(x | mu_k, Lambda_k^-1)]``
        (Bishop 10.64-10.67): c_k = 1/2 E[ln|Lambda_k|] - ln det U_k - D / (2 beta_k)."""
        _, logdet_u, _, e_logdet = self._moments()
        return 0.5 * e_logdet - logdet_u - 0.5 * self.n_features / self.beta

    def expected_log_likelihood(self, X, shift=None):
        """E_q[ln N(x_i | mu_k, Lambda_k^-1)], shape (n, K), nats (Bishop 10.64-10.67)."""
        U = self.precisions_cholesky()
        lp = log_gaussian_prob(X, self.means, U, self.covariance_type, shift=shift)
        return lp + self.log_weight_offsets()

    def expected_quadratic(self, X):
        """E_q[(x_i - mu_k)^T Lambda_k (x_i - mu_k)] = D / beta_k + (x - m_k)^T E[Lambda_k]
        (x - m_k), shape (n, K) (Bishop 10.64)."""
        U, logdet_u, _, _ = self._moments()
        D = self.n_features
        lp = log_gaussian_prob(X, self.means, U, self.covariance_type)
        maha = -2.0 * (lp - logdet_u + 0.5 * D * _LOG_2PI)
        return maha + D / self.beta

    # ---- KL to the prior ----------------------------------------------------------------------
    def kl(self, prior):
        """KL(q(mu_k, Lambda_k) || p(mu_k, Lambda_k)) summed over components (and the shared
        precision for 'tied').

        Parameters
        ----------
        prior : NormalWishart with K = 1 (same covariance_type)

        Returns
        -------
        float
            Nats. KL = E_q(Lambda)[KL(N(m, (beta Lambda)^-1) || N(m0, (beta0 Lambda)^-1))]
            + KL(q(Lambda) || p(Lambda)); the first term is
            1/2 [D beta0/beta - D - D ln(beta0/beta) + beta0 (m - m0)^T E[Lambda] (m - m0)].
        """
        ct, D = self.covariance_type, self.n_features
        U = self.precisions_cholesky()
        b0 = float(prior.beta[0])
        ratio = b0 / self.beta
        dm = self.means - prior.means[0]
        if ct in ("full", "tied"):
            Uk = U if ct == "full" else np.broadcast_to(U, (self.n_components, D, D))
            quad = (np.einsum("kd,kde->ke", dm, Uk) ** 2).sum(1)
        elif ct == "diag":
            quad = (dm ** 2 * U ** 2).sum(1)
        else:
            quad = (dm ** 2).sum(1) * U ** 2
        kl_mean = 0.5 * (D * ratio - D - D * np.log(ratio) + b0 * quad)
        nu0 = prior.dof if ct == "tied" else float(prior.dof[0])
        if ct == "full":
            kl_prec = wishart_kl(self.dof, self.scatter, nu0, prior.scatter[0])
        elif ct == "tied":
            kl_prec = wishart_kl(self.dof, self.scatter, nu0, prior.scatter)
        elif ct == "diag":
            kl_prec = gamma_kl(0.5 * self.dof[:, None], 0.5 * self.scatter,
                               0.5 * nu0, 0.5 * prior.scatter[0][None]).sum(1)
        else:
            kl_prec = gamma_kl(0.5 * D * self.dof, 0.5 * self.scatter, 0.5 * D * nu0,
                               0.5 * prior.scatter[0])
        return float(np.sum(kl_mean) + np.sum(kl_prec))

    # ---- natural parameters -------------------------------------------------------------------
    def to_natural(self, shift):
        """(beta, beta (m - c), Q + beta (m - c)(m - c)^T [summed over k for 'tied'], nu)."""
        ct = self.covariance_type
        mc = self.means - shift
        eta2 = self.beta[:, None] * mc
        if ct == "full":
            eta3 = self.scatter + self.beta[:, None, None] * mc[:, :, None] * mc[:, None, :]
        elif ct == "tied":
            eta3 = self.scatter + np.einsum("k,ki,kj->ij", self.beta, mc, mc)
        elif ct == "diag":
            eta3 = self.scatter + self.beta[:, None] * mc ** 2
        else:
            eta3 = self.scatter + self.beta * (mc ** 2).sum(1)
        return [self.beta.copy(), eta2, eta3, np.array(self.dof, dtype=np.float64)]

    @classmethod
    def from_natural(cls, covariance_type, eta, shift):
        """Inverse of :meth:`to_natural`."""
        beta, eta2, eta3, dof = eta
        mc = eta2 / beta[:, None]
        if covariance_type == "full":
            q = eta3 - beta[:, None, None] * mc[:, :, None] * mc[:, None, :]
            q = 0.5 * (q + q.transpose(0, 2, 1))
        elif covariance_type == "tied":
            q = eta3 - np.einsum("k,ki,kj->ij", beta, mc, mc)
            q = 0.5 * (q + q.T)
            dof = float(dof)
        elif covariance_type == "diag":
            q = eta3 - beta[:, None] * mc ** 2
        else:
            q = eta3 - beta * (mc ** 2).sum(1)
        return cls(covariance_type, beta, mc + shift, q, dof)

    @classmethod
    def posterior(cls, prior, nk, sx, sxx, reg_covar, shift):
        """The batch update (Bishop 2006, eqs. 10.60-10.63) in centred form.

        ``beta_k = beta_0 + N_k``, ``m_k = (beta_0 m_0 + N_k xbar_k) / beta_k``,
        ``Q_k = Q_0 + N_k S_k + N_k reg_covar I + beta_0 N_k / beta_k (xbar_k - m_0)(...)^T``,
        ``nu_k = nu_0 + N_k``, from statistics about ``shift``
        (:meth:`natural_stats`' layout). It equals :meth:`from_natural` of the prior's plus the
        statistics' natural parameters, but forms the scatter from the centred
        ``N_k S_k = sxx_k - N_k xbar_k xbar_k^T`` (exactly 0 for a component on one point) and
        the explicit offset term, instead of the difference of two terms of size
        ``beta_k |m_k - shift|^2``, which cancel catastrophically for a component far from
        the shift.
        """
        ct = prior.covariance_type
        nk = np.asarray(nk, dtype=np.float64)
        sx = np.asarray(sx, dtype=np.float64)
        sxx = np.asarray(sxx, dtype=np.float64)
        K, D = sx.shape
        b0 = float(prior.beta[0])
        mc0 = prior.means[0] - shift
        beta = b0 + nk
        xbar = sx / np.maximum(nk, 10.0 * np.finfo(np.float64).eps)[:, None]
        means = shift + (b0 * mc0[None, :] + sx) / beta[:, None]
        dev = xbar - mc0[None, :]
        coef = b0 * nk / beta
        # the centred scatter N_k S_k first: added to Q_0 before the subtraction, Q_0 would
        # be rounded away next to sxx
        if ct == "full":
            q = (sxx - nk[:, None, None] * xbar[:, :, None] * xbar[:, None, :]) \
                + prior.scatter[0][None] + coef[:, None, None] * dev[:, :, None] * dev[:, None, :]
            q = 0.5 * (q + q.transpose(0, 2, 1))
            q[:, np.arange(D), np.arange(D)] += nk[:, None] * reg_covar
            dof = float(prior.dof[0]) + nk
        elif ct == "tied":
            q = (sxx - np.einsum("k,ki,kj->ij", nk, xbar, xbar)) + prior.scatter \
                + np.einsum("k,ki,kj->ij", coef, dev, dev)
            q = 0.5 * (q + q.T) + nk.sum() * reg_covar * np.eye(D)
            dof = float(prior.dof) + float(nk.sum())
        elif ct == "diag":
            q = (sxx - nk[:, None] * xbar ** 2) + prior.scatter[0][None] \
                + coef[:, None] * dev ** 2 + nk[:, None] * reg_covar
            dof = float(prior.dof[0]) + nk
        else:
            q = (sxx - nk * (xbar ** 2).sum(1)) + float(prior.scatter[0]) \
                + coef * (dev ** 2).sum(1) + nk * reg_covar * D
            dof = float(prior.dof[0]) + nk
        return cls(ct, beta, means, q, dof)

    @staticmethod
    def natural_prior(prior, n_components, shift):
        """Natural parameters of K copies of the prior (for 'tied', the shared precision's
        scatter carries K copies of beta0 (m0 - c)(m0 - c)^T)."""
        ct = prior.covariance_type
        K = n_components
        b0 = float(prior.beta[0])
        mc = prior.means[0] - shift
        beta = np.full(K, b0)
        eta2 = np.tile(b0 * mc, (K, 1))
        if ct == "full":
            eta3 = np.tile(prior.scatter[0] + b0 * np.outer(mc, mc), (K, 1, 1))
        elif ct == "tied":
            eta3 = prior.scatter + K * b0 * np.outer(mc, mc)
        elif ct == "diag":
            eta3 = np.tile(prior.scatter[0] + b0 * mc ** 2, (K, 1))
        else:
            eta3 = np.full(K, prior.scatter[0] + b0 * (mc ** 2).sum())
        dof = float(prior.dof) if ct == "tied" else np.full(K, float(prior.dof[0]))
        return [beta, eta2, eta3, np.array(dof)]

    @staticmethod
    def natural_stats(covariance_type, nk, sx, sxx, reg_covar):
        """Natural-parameter increments of Gaussian sufficient statistics about the shift
        (``latentkit.distributions.accumulate_gaussian_stats`` layout); ``reg_covar`` adds
        N_k reg_covar to each scatter diagonal as scikit-learn does."""
        D = sx.shape[1]
        nk = np.asarray(nk, dtype=np.float64)
        if covariance_type == "full":
            s3 = sxx + nk[:, None, None] * reg_covar * np.eye(D)[None]
            dof = nk.copy()
        elif covariance_type == "tied":
            s3 = sxx + nk.sum() * reg_covar * np.eye(D)
            dof = np.array(nk.sum())
        elif covariance_type == "diag":
            s3 = sxx + nk[:, None] * reg_covar
            dof = nk.copy()
        else:
            s3 = sxx + nk * reg_covar * D
            dof = nk.copy()
        return [nk.copy(), np.asarray(sx, dtype=np.float64).copy(), s3, dof]

    # ---- predictive ---------------------------------------------------------------------------
    def log_predictive(self, X):
        """log of the posterior predictive density of each component, shape (n, K), nats.

        Full/tied: Student-t with nu + 1 - D degrees of freedom, location m_k and precision
        L_k = (nu + 1 - D) beta / (1 + beta) W_k (Bishop 10.81-10.82); diag: a product of
        univariate t's with nu degrees of freedom; spherical: a D-variate t with D nu degrees
        of freedom (the Normal-Gamma marginals).
        """
        ct, D = self.covariance_type, self.n_features
        X = np.asarray(X, dtype=np.float64)
        U, logdet_u, _, _ = self._moments()
        fac = self.beta / (1.0 + self.beta)
        if ct == "diag":
            out = np.empty((X.shape[0], self.n_components))
            for k in range(self.n_components):
                nu = self.dof[k]
                L = fac[k] * nu / self.scatter[k]  # (D,)
                z = (X - self.means[k]) ** 2 * L
                out[:, k] = student_t_logpdf(z, np.log(L), nu, 1).sum(1)
            return out
        lp = log_gaussian_prob(X, self.means, U, ct)
        maha = -2.0 * (lp - logdet_u + 0.5 * D * _LOG_2PI)  # (x-m)^T E[Lambda] (x-m)
        if ct == "spherical":
            dof_t = D * self.dof
            scale = fac  # L = fac E[Lambda] for a Normal-Gamma: t dof 2a, L = (a/b) fac
        else:
            dof_t = self.dof + 1.0 - D
            scale = fac * dof_t / self.dof
        log_det_L = D * np.log(scale) + 2.0 * logdet_u
        return student_t_logpdf(maha * scale, log_det_L, dof_t, D)
