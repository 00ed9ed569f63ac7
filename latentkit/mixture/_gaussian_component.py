"""The Gaussian (Normal-Wishart) component of the variational mixtures.

:class:`GaussianComponent` is the component protocol of :mod:`latentkit.mixture._components`
for Gaussian rows: ``x ~ N(mu_k, Lambda_k^-1)`` with a Normal-Wishart prior (Normal-Gamma for
'diag' and 'spherical') on ``(mu_k, Lambda_k)``, for the four covariance structures. The
factors themselves are :class:`latentkit.distributions.NormalWishart`; the E-step is the fused
Gaussian pass (:func:`latentkit.distributions.gaussian_mixture_e_step`, or the missing-data
pass with ``missing='marginalize'``). Its parameter dict is ``{'nw': NormalWishart, 'shift':
(D,)}``: moments are accumulated about the fixed ``shift`` (the weighted data mean of the
start) for accuracy.

Source: Bishop (2006), *Pattern Recognition and Machine Learning*, section 10.2 (eqs.
10.46-10.82); Blei & Jordan (2006) for its use as the base measure of a DP mixture.
"""

import numbers

import numpy as np

from .._utils.summaries import check_second_moments
from .._utils.validation import check_array, check_scalar
from ..distributions import _missing
from ..distributions._gaussian import (GaussianStats, check_covariance_type,
                                       precisions_from_cholesky)
from ..distributions._gaussian_family import Gaussian
from ..distributions._normal_wishart import NormalWishart
from ._components import ConjugateComponent
from ..exceptions import InputError

__all__ = ["GaussianComponent"]

_EPS = np.finfo(np.float64).eps


def _proper_covariance_prior(c, noise=0.0):
    """Whether a prior covariance gives a proper Wishart (Gamma) prior in float64.

    Parameters
    ----------
    c : ndarray of shape (D, D), (D,) or float
        covariance_prior (full/tied, diag, spherical).
    noise : ndarray of shape (D,) or float, default 0
        Rounding level of each variance: a variance at or below it is 0 up to rounding (a
        constant feature's computed variance is ~1e-34, not 0).

    Returns
    -------
    bool
        Every variance exceeds ``noise`` and, for a matrix, the smallest eigenvalue of the
        correlation matrix exceeds its rounding level ``D eps lambda_max`` (numpy's
        ``matrix_rank`` tolerance; collinear features give ~1e-16 instead of 0). Below these
        levels ``ln |W_0^-1|``, hence the Wishart normaliser and the ELBO, are -inf or
        rounding noise. The correlation matrix makes the test independent of the units of
        the features.
    """
    c = np.asarray(c, dtype=np.float64)
    if not np.all(np.isfinite(c)):
        return False
    if c.ndim != 2:
        return bool(np.all(c > noise))
    d = np.diag(c)
    if not np.all(d > noise):
        return False
    s = 1.0 / np.sqrt(d)
    lam = np.linalg.eigvalsh(c * s[:, None] * s[None, :])
    return bool(lam[0] > c.shape[0] * _EPS * lam[-1])


def _default_covariance_prior(summary, ct, reg_covar):
    """scikit-learn's default W_0^-1: the covariance of X (ddof 1), its diagonal ('diag') or
    the mean variance ('spherical'), plus reg_covar on the diagonal only where it is singular
    in float64."""
    n, D, sw = summary.n, summary.mean.shape[0], summary.sw
    if sw <= 1.0:
        raise InputError(f"the default covariance_prior (the covariance of X) needs a "
                         f"total sample weight above 1, got n_samples = {n} (weight "
                         f"{sw:g}); pass more samples or covariance_prior.")
    cov = summary.scatter / (sw - 1.0)
    cov = 0.5 * (cov + cov.T)
    # rounding level of each variance: the computed mean of a constant feature is off
    # by up to n eps |x|, so its computed variance is noise of that size squared
    absmax = np.maximum(np.abs(summary.xmin), np.abs(summary.xmax))
    noise = np.square(4.0 * n * _EPS * absmax)
    if ct in ("full", "tied"):
        c0 = cov
    elif ct == "diag":
        c0 = np.diag(cov).copy()
    else:
        c0 = float(np.diag(cov).mean())
        noise = float(noise.mean())
    if not _proper_covariance_prior(c0, noise) and reg_covar > 0:
        # constant or collinear features (or fewer weighted rows than features): the
        # empirical covariance is singular -- in float64 its smallest eigenvalue or a
        # variance is rounding noise (~1e-16 relative, ~1e-34), not 0 -- and the
        # Wishart/Gamma prior would be improper (log-normaliser -inf: an ELBO of -inf)
        # or decided by rounding. reg_covar on its diagonal keeps it proper, as
        # reg_covar does for the components.
        c0 = c0 + reg_covar * (np.eye(D) if np.ndim(c0) == 2 else 1.0)
    if not _proper_covariance_prior(c0):
        raise InputError(
            "the default covariance_prior (the covariance of X) is singular "
            "(constant or collinear features) and reg_covar is 0; pass "
            "covariance_prior or a positive reg_covar.")
    return c0


def _given_covariance_prior(value, ct, D):
    """A user's covariance_prior, checked for the shape and properness of ``ct``."""
    c0 = np.array(value, dtype=np.float64, copy=True)
    if ct in ("full", "tied"):
        if c0.shape != (D, D):
            raise InputError(f"covariance_prior must have shape ({D}, {D}) for "
                             f"covariance_type={ct!r}, got {c0.shape}.")
        if not (np.all(np.isfinite(c0)) and np.allclose(c0, c0.T)):
            raise InputError("covariance_prior must be finite and symmetric.")
        if not _proper_covariance_prior(c0):
            raise InputError(
                "covariance_prior must be symmetric positive definite, got a singular "
                "matrix (in float64: its correlation matrix has an eigenvalue below "
                "n_features x 2.2e-16 x the largest); a singular Wishart scale makes "
                "the prior improper (an ELBO of -inf). Add a small multiple of the "
                "identity.")
    elif ct == "diag":
        if c0.shape != (D,):
            raise InputError(f"covariance_prior must have shape ({D},) for "
                             f"covariance_type='diag', got {c0.shape}.")
        if not (np.all(np.isfinite(c0)) and np.all(c0 > 0)):
            raise InputError("covariance_prior must be finite and positive.")
    else:
        if c0.ndim != 0:
            raise InputError("covariance_prior must be a positive float for "
                             f"covariance_type='spherical', got shape {c0.shape}.")
        c0 = float(c0)
        if not (np.isfinite(c0) and c0 > 0):
            raise InputError(f"covariance_prior must be positive, got {c0}.")
    return c0


class GaussianComponent(ConjugateComponent):
    """Gaussian component with a Normal-Wishart (Normal-Gamma) prior.

    Parameters
    ----------
    covariance_type : {'full', 'tied', 'diag', 'spherical'}, default 'full'
        Wishart factors ('full', one per component; 'tied', one shared) or independent Gamma
        factors of the precisions ('diag', 'spherical'); see
        :mod:`latentkit.distributions._normal_wishart`.
    reg_covar : float, default 1e-6
        N_k reg_covar on the diagonal of each posterior scatter, counted in the E-step as
        isotropic N(0, reg_covar I) jitter (an offset -reg_covar / 2 E[tr Lambda_k] in
        log rho_ik), so both steps are exact coordinate ascent on one bound.
    mean_precision_prior, mean_prior, degrees_of_freedom_prior, covariance_prior :
        beta_0, m_0, nu_0 and W_0^-1, or None for scikit-learn's data-derived defaults (1,
        the mean of X, n_features, the covariance of X); see
        :class:`latentkit.mixture.VariationalGaussianMixture`.
    missing : {'error', 'marginalize'}, default 'error'
        'marginalize': NaN entries are latent with the optimal Gaussian factor q(x_m | z)
        (Ghahramani & Beal 2000).

    Notes
    -----
    Sources: Bishop (2006), eqs. (10.46)-(10.82) (updates 10.60-10.63, expectations
    10.64-10.65, bound 10.70-10.77, Student-t predictive 10.79-10.82); Hoffman et al. (2013)
    for the natural-gradient step on (beta, beta (m - c), Q + beta (m - c)(m - c)^T, nu).

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.mixture import DirichletProcessMixture
    >>> from latentkit.mixture._gaussian_component import GaussianComponent  # users: Gaussian()
    >>> rng = np.random.default_rng(0)
    >>> X = np.r_[rng.normal(0, 1, (40, 2)), rng.normal(6, 1, (40, 2))]
    >>> component = GaussianComponent(covariance_type="diag")
    >>> dpm = DirichletProcessMixture(5, component=component, random_state=0).fit(X)
    >>> dpm.n_effective_components_, dpm.covariances_.shape
    (2, (5, 2))
    """

    name = "gaussian"
    prior_names = ("mean_precision_prior", "mean_prior", "degrees_of_freedom_prior",
                   "covariance_prior")
    state_names = ("shift", "nw_scatter")
    n_lloyd = 300  # Lloyd iterations to convergence, like scikit-learn's KMeans start
    spectral_start = True
    handles_missing = True

    def __init__(self, covariance_type="full", reg_covar=1e-6, mean_precision_prior=None,
                 mean_prior=None, degrees_of_freedom_prior=None, covariance_prior=None,
                 missing="error"):
        self.covariance_type = covariance_type
        self.reg_covar = reg_covar
        self.mean_precision_prior = mean_precision_prior
        self.mean_prior = mean_prior
        self.degrees_of_freedom_prior = degrees_of_freedom_prior
        self.covariance_prior = covariance_prior
        self.missing = missing

    def _marginalize(self):
        return self.missing == "marginalize"

    def _dist(self):
        """The shared Gaussian block (:mod:`latentkit.distributions._gaussian_family`) of
        these hyper-parameters."""
        return Gaussian(self.covariance_type, self.reg_covar, self.missing)

    # ---- hyper-parameters, data and priors ---------------------------------------------------
    def validate(self, has_tail):
        check_covariance_type(self.covariance_type)
        check_scalar(self.reg_covar, "reg_covar", numbers.Real, low=0.0)
        _missing.check_missing(self.missing)
        if self.mean_precision_prior is not None:
            check_scalar(self.mean_precision_prior, "mean_precision_prior", numbers.Real,
                         low=0.0, low_inclusive=False)
        if has_tail and self.covariance_type == "tied":
            raise InputError("truncation_method='tail' needs a per-component precision, got "
                             "covariance_type='tied': use 'full', 'diag' or 'spherical', or "
                             "truncation_method='fixed'.")

    def check_X(self, X):
        check = _missing.check_array_missing if self._marginalize() else check_array
        return check(X, "X")

    def data_summary(self, X, w):
        return _missing.data_summary(X, w, self.missing)

    def summary_weight(self, summary):
        return summary.sw

    def resolve_prior(self, summary, n_features, n_components):
        """The scale check, then the Normal-Wishart prior from the moments of all the data
        (scikit-learn's documented defaults: mean_prior = mean of X, covariance_prior =
        covariance of X (ddof=1; its diagonal for 'diag', the mean variance for
        'spherical'), degrees_of_freedom_prior = n_features, mean_precision_prior = 1).

        Returns
        -------
        dict
            ``{'mean_precision_prior', 'mean_prior', 'degrees_of_freedom_prior',
            'covariance_prior'}`` (the model stores them with a trailing underscore).
        """
        check_second_moments(summary)
        D, ct = summary.mean.shape[0], self.covariance_type
        out = {"mean_precision_prior": 1.0 if self.mean_precision_prior is None else
               float(self.mean_precision_prior)}
        if self.mean_prior is None:
            out["mean_prior"] = summary.mean
        else:
            m0 = np.array(self.mean_prior, dtype=np.float64, copy=True)
            if m0.shape != (D,) or not np.all(np.isfinite(m0)):
                raise InputError(f"mean_prior must be a finite array of shape ({D},), got "
                                 f"shape {m0.shape}.")
            out["mean_prior"] = m0
        if self.degrees_of_freedom_prior is None:
            out["degrees_of_freedom_prior"] = float(D)
        else:
            nu0 = check_scalar(self.degrees_of_freedom_prior, "degrees_of_freedom_prior",
                               numbers.Real)
            low = D - 1.0 if ct in ("full", "tied") else 0.0
            if not nu0 > low:
                raise InputError(f"degrees_of_freedom_prior must be > {low:g} for "
                                 f"covariance_type={ct!r} (n_features={D}), got {nu0:g}.")
            out["degrees_of_freedom_prior"] = nu0
        if self.covariance_prior is None:
            out["covariance_prior"] = _default_covariance_prior(summary, ct, self.reg_covar)
        else:
            out["covariance_prior"] = _given_covariance_prior(self.covariance_prior, ct, D)
        return out

    def prior(self, resolved, n_features):
        return {"nw": NormalWishart.prior(
            self.covariance_type, resolved["mean_precision_prior"], resolved["mean_prior"],
            resolved["degrees_of_freedom_prior"], resolved["covariance_prior"])}

    # ---- start --------------------------------------------------------------------------------
    def start_rows(self, X, w):
        """The rows with NaN filled by column means (k-means++ and the spectral start)."""
        return _missing.mean_fill(X, w)

    def start(self, X, w, resp):
        """The moment shift (the weighted mean of the filled rows) and the statistics of the
        starting responsibilities about it."""
        X = _missing.mean_fill(X, w)
        shift = (w @ X) / w.sum()
        nk, sx, sxx = self._dist().sufficient_stats(X, resp, shift=shift, sample_weight=w)
        return ({"nw": None, "shift": shift},
                GaussianStats(n=float(w.sum()), data_term=0.0, nk=nk, sx=sx, sxx=sxx))

    # ---- E-step -------------------------------------------------------------------------------
    def empty_stats(self, n_components, n_features, has_tail):
        K = n_components + (1 if has_tail else 0)
        return GaussianStats.empty(K, n_features, self.covariance_type)

    def _log_rho_offsets(self, params, prior, log_weights, log_tail):
        """Per-component offsets for the fused E-step, and the factors used there.

        ``log rho_ik = E[ln pi_k] + E[ln N(x_i | mu_k, Lambda_k^-1)]
        - reg_covar / 2 E[tr Lambda_k]``: the last term is the expectation of the
        log-likelihood over an isotropic jitter ``x_i + e``, ``e ~ N(0, reg_covar I)``, whose
        second moment is the ``N_k reg_covar I`` that the M-step adds to each scatter
        (scikit-learn's convention). With it, the E-step and the M-step are both exact
        coordinate-ascent steps of one bound, so the ELBO never decreases, even when
        ``reg_covar`` dominates a direction of a scatter (rank-deficient data)."""
        nw = params["nw"]
        jitter = 0.5 * float(self.reg_covar)
        offs = log_weights + nw.log_weight_offsets() - jitter * nw.expected_trace()
        means, U = nw.means, nw.precisions_cholesky()
        if log_tail is not None:
            pr = prior["nw"]
            offs = np.append(offs, log_tail + pr.log_weight_offsets()
                             - jitter * pr.expected_trace())
            means = np.vstack((means, pr.means))
            U = np.concatenate((U, pr.precisions_cholesky()), axis=0)
        return offs, means, U

    def e_step(self, params, prior, X, w, log_weights, log_tail, cache=None):
        offs, means, U = self._log_rho_offsets(params, prior, log_weights, log_tail)
        # missing='marginalize': the rows copied in pattern order once per fit (cache)
        return _missing.policy_e_step(self.missing, X, offs, means, U, self.covariance_type,
                                      sample_weight=w, shift=params["shift"], cache=cache)

    def log_resp(self, params, prior, X, log_weights, log_tail):
        offs, means, U = self._log_rho_offsets(params, prior, log_weights, log_tail)
        _, log_resp = _missing.policy_e_step(self.missing, X, offs, means, U,
                                             self.covariance_type, shift=params["shift"],
                                             return_log_resp=True)
        return log_resp

    # ---- M-step -------------------------------------------------------------------------------
    def update(self, params, prior, stats, n_components, scale=1.0, step_size=1.0):
        """The batch update (Bishop 10.60-10.63, centred form) or, for ``step_size < 1``, a
        natural-gradient step towards it."""
        K, ct, shift = n_components, self.covariance_type, params["shift"]
        nk = stats.nk[:K] * scale
        sxx = stats.sxx if ct == "tied" else stats.sxx[:K]
        pr = prior["nw"]
        if step_size < 1.0 and params["nw"] is not None:
            inc = NormalWishart.natural_stats(ct, nk, stats.sx[:K] * scale, sxx * scale,
                                              self.reg_covar)
            eta = NormalWishart.natural_prior(pr, K, shift)
            eta = [e + s for e, s in zip(eta, inc)]
            cur = params["nw"].to_natural(shift)
            eta = [(1.0 - step_size) * c + step_size * e for c, e in zip(cur, eta)]
            nw = NormalWishart.from_natural(ct, eta, shift)
        else:  # the batch update in centred form (exact for one-point components)
            nw = self._dist().posterior(pr, (nk, stats.sx[:K] * scale, sxx * scale), shift)
        return {"nw": nw, "shift": shift}

    def public(self, params):
        nw = params["nw"]
        pc = nw.precisions_cholesky()
        return {"means": nw.means, "covariances": nw.covariances(), "precisions_cholesky": pc,
                "precisions": precisions_from_cholesky(pc, self.covariance_type),
                "mean_precision": nw.beta,
                "degrees_of_freedom": np.asarray(nw.dof, dtype=np.float64)}

    def kl(self, params, prior):
        return self._dist().kl(params["nw"], prior["nw"])

    # ---- state --------------------------------------------------------------------------------
    def get_state(self, params):
        return {"shift": params["shift"], "nw_scatter": params["nw"].scatter}

    def set_state(self, attrs, state):
        scatter = state.get("nw_scatter")
        if scatter is None:
            return None
        ct = self.covariance_type
        nu = np.asarray(attrs["degrees_of_freedom"], dtype=np.float64)
        nw = NormalWishart(ct, attrs["mean_precision"], attrs["means"], scatter,
                           float(nu) if ct == "tied" else nu)
        return {"nw": nw, "shift": state.get("shift")}

    # ---- prediction ---------------------------------------------------------------------------
    def log_predictive(self, params, X):
        """Student-t posterior predictive of each component on each row's observed
        coordinates (Bishop 10.81-10.82), shape (n, K), nats."""
        return self._dist().log_predictive(params["nw"], X)

    def impute(self, params, prior, X, log_weights, log_tail, return_std=False):
        offs, means, U = self._log_rho_offsets(params, prior, log_weights, log_tail)
        return _missing.conditional_impute(X, offs, means, U, self.covariance_type,
                                           shift=params["shift"], return_std=return_std)

    def sample(self, params, weights, n_samples, rng, **kwargs):
        """The plug-in mixture (``weights``, ``means_``, ``covariances_``) as scikit-learn
        samples it: multinomial counts per component, rows in component order."""
        counts = rng.multinomial(n_samples, weights)
        labels = np.repeat(np.arange(weights.shape[0]), counts)
        nw = params["nw"]
        return self._dist().sample((nw.means, nw.covariances()), labels, rng), labels
