"""Variational emission components of the variational HMMs
(:mod:`latentkit.sequence._variational`): conjugate posteriors over the emission parameters,
Dirichlet rows for categorical emissions (Beal 2003, ch. 3) and Normal-Wishart factors for
Gaussian emissions (Bishop 2006, section 10.2; the block shared with the variational mixtures in
:mod:`latentkit.distributions._normal_wishart`).

A variational emission component extends a point emission (it keeps ``param_names``,
``check_X``, ``accumulate``, ``log_likelihood`` for the point estimates) with:

``posterior_names``                                  names of the posterior parameters
``resolve_prior(X, n_components)``                   dict of prior arrays (``*_prior``)
``init_posterior(X, n_components, rng, init, prior)`` starting posteriors
``check_posterior(name, value, n_components)``       validate a user-given posterior
``expected_log_likelihood(post, X)``                 (n, K) ``E_q[log p(x_t | theta_k)]``
``occupancy(stats)``                                 (K,) expected time steps per state
``vb_update(post, prior, stats, step_size, scale)``  conjugate (natural-gradient) update
``kl(post, prior)``                                  ``KL(q(theta) || p(theta))``, nats
``point_estimate(post)``                             posterior-mean point parameters
"""

import numbers

import numpy as np

from .._utils.validation import check_scalar
from ..distributions._dirichlet import dirichlet_expectation, dirichlet_kl
from ..distributions._normal_wishart import NormalWishart
from . import _emissions as em
from ..exceptions import InputError

__all__ = ["VariationalCategoricalEmission", "VariationalGaussianEmission"]


def _check_positive(value, name, shape):
    """Broadcast a concentration-like hyper-parameter to ``shape``; finite and > 0."""
    try:
        arr = np.array(np.broadcast_to(np.asarray(value, dtype=float), shape))
    except (ValueError, TypeError):
        raise InputError(f"{name} must be a scalar or broadcast to shape {shape}, got "
                         f"{value!r}.") from None
    if not np.all(np.isfinite(arr)) or np.any(arr <= 0):
        raise InputError(f"{name} must be finite and > 0, got {value!r}.")
    return arr


def _blend(current, target, step_size):
    """Natural-gradient step ``(1 - rho) current + rho target`` (rho = 1: ``target``)."""
    if step_size >= 1.0 or current is None:
        return target
    return (1.0 - step_size) * current + step_size * target


# --------------------------------------------------------------------------------------------
# variational emission components
# --------------------------------------------------------------------------------------------

class VariationalCategoricalEmission(em.CategoricalEmission):
    """Categorical emissions with Dirichlet posteriors over the rows of ``emissionprob``
    (MacKay 1997; Beal 2003, section 3.4).

    Parameters
    ----------
    n_features : int, optional
        Number of symbols; default ``max(X) + 1``.
    emissionprob_prior : float or array-like of shape (n_components, n_features), optional
        Dirichlet concentration (> 0) of each row; default ``1 / n_features`` (hmmlearn's).

    Notes
    -----
    Posterior names: ``emissionprob_posterior`` (n_components, n_features) Dirichlet
    concentrations; the point estimate ``emissionprob`` is their row-normalised mean.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.sequence import HiddenMarkovModel, VariationalCategoricalEmission
    >>> X = np.array([[0], [0], [1], [1], [0], [0], [1], [1]])
    >>> emission = VariationalCategoricalEmission(n_features=2)
    >>> hmm = HiddenMarkovModel(2, emission=emission, random_state=0).fit(X)
    >>> np.round(hmm.emissionprob_.sum(axis=1), 6)
    array([1., 1.])
    """

    posterior_names = ("emissionprob_posterior",)

    def validate(self, n_components):
        if self.n_features is not None:
            check_scalar(self.n_features, "n_features", numbers.Integral, low=1)
        if self.emissionprob_prior is not None:
            p = np.asarray(self.emissionprob_prior, dtype=float)
            if not np.all(np.isfinite(p)) or np.any(p <= 0):
                raise InputError("emissionprob_prior must be finite and > 0 (a Dirichlet "
                                 f"concentration), got {self.emissionprob_prior!r}.")

    def resolve_prior(self, X, n_components):
        """Prior hyper-parameters as arrays: ``{'emissionprob_prior': (K, M)}``."""
        M = self.n_features_
        p = 1.0 / M if self.emissionprob_prior is None else self.emissionprob_prior
        return {"emissionprob_prior": _check_positive(p, "emissionprob_prior",
                                                      (n_components, M))}

    def init_posterior(self, X, n_components, rng, init, prior):
        """Prior plus ``n_samples / K`` pseudo-counts spread by the point start of
        :meth:`CategoricalEmission.init_params` (a data-tilted random draw)."""
        B = self.init_params(X, n_components, rng, init)["emissionprob"]
        return {"emissionprob_posterior": prior["emissionprob_prior"]
                + B * X.shape[0] / n_components}

    def posterior_from_point(self, point, n_per_state, prior):
        """Posterior with ``n_per_state`` pseudo-counts spread by a point estimate (the
        spectral start)."""
        return {"emissionprob_posterior": prior["emissionprob_prior"]
                + point["emissionprob"] * n_per_state}

    def check_posterior(self, name, value, n_components):
        """Validate ``emissionprob_posterior``: shape (K, n_features), finite and > 0."""
        return _check_positive(value, f"init[{name!r}]", (n_components, self.n_features_))

    def expected_log_likelihood(self, post, X):
        """``E_q[log B[k, x_t]] = psi(alpha_kx) - psi(sum_m alpha_km)``, shape (n, K)."""
        return np.ascontiguousarray(dirichlet_expectation(post["emissionprob_posterior"]).T[X])

    def occupancy(self, stats):
        """Expected time steps per state, shape (K,)."""
        return stats.counts.sum(axis=1)

    def vb_update(self, post, prior, stats, step_size, scale):
        """``alpha_k = alpha0_k + scale * counts_k`` (Beal 2003, eq. 3.57), blended with the
        current posterior by ``step_size``."""
        target = prior["emissionprob_prior"] + scale * stats.counts
        return {"emissionprob_posterior": _blend(post.get("emissionprob_posterior"), target,
                                                 step_size)}

    def kl(self, post, prior):
        """``sum_k KL(Dir(alpha_k) || Dir(alpha0_k))``, nats."""
        return float(np.sum(dirichlet_kl(post["emissionprob_posterior"],
                                         prior["emissionprob_prior"])))

    def point_estimate(self, post):
        """``emissionprob``: the posterior mean (row-normalised concentrations)."""
        a = post["emissionprob_posterior"]
        return {"emissionprob": a / a.sum(axis=1, keepdims=True)}


class VariationalGaussianEmission(em.GaussianEmission):
    """Gaussian emissions with Normal-Wishart (full, tied) or Normal-Gamma (diag, spherical)
    posteriors over each state's mean and precision (Beal 2003, section 3.4; Bishop 2006,
    section 10.2; McGrory & Titterington 2009).

    Parameters
    ----------
    covariance_type : {'full', 'tied', 'diag', 'spherical'}, default 'full'
    means_prior : array-like of shape (n_features,), optional
        Prior mean ``m0`` of every state's mean; default the data mean.
    beta_prior : float, default 1.0
        Prior precision scaling ``beta0`` of the means (> 0).
    dof_prior : float, optional
        Prior degrees of freedom ``nu0``; default ``n_features`` (> n_features - 1).
    scale_prior : array-like, optional
        Prior inverse scale ``W0^-1``: (D, D) full/tied, (D,) diag, a float spherical (a
        variance; the Gamma rate is D times it); default ``1e-3`` times the identity.
    reg_covar : float, default 0.0
        Added ``N_k reg_covar`` to the diagonal of each posterior scatter (>= 0), as in
        scikit-learn's BayesianGaussianMixture; 0 is the exact conjugate update (hmmlearn's).

    Notes
    -----
    Posterior names (hmmlearn's): ``means_posterior`` (K, D), ``beta_posterior`` (K,),
    ``dof_posterior`` (K,) or a float for 'tied', ``scale_posterior`` (K, D, D) full, (D, D)
    tied, (K, D) diag, (K,) spherical (the per-dimension rate, i.e. the Gamma rate divided by D).
    Point estimates ``means = means_posterior`` and ``covars = scale_posterior / dof_posterior``.
    The diagonal structures use independent Gamma precisions, so
    ``E[log |Lambda|] = D psi(nu / 2) - sum_j log(Q_j / 2)`` (diag; spherical with shape
    ``D nu / 2``), which makes the bound exact; hmmlearn instead applies the full Wishart
    formulas to the diagonal matrix, so for 'diag' and 'spherical' its bound and posteriors
    differ from these (its parameter updates are the same).

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.sequence import HiddenMarkovModel, VariationalGaussianEmission
    >>> noise = np.random.default_rng(0).normal(size=(20, 1))
    >>> X = np.r_[np.zeros((10, 1)), np.full((10, 1), 5.0)] + noise  # 10 steps near 0, then near 5
    >>> hmm = HiddenMarkovModel(2, emission=VariationalGaussianEmission(), random_state=0).fit(X)
    >>> np.round(np.sort(hmm.means_[:, 0]), 0) + 0.0
    array([0., 5.])
    """

    posterior_names = ("means_posterior", "beta_posterior", "dof_posterior", "scale_posterior")

    def __init__(self, covariance_type="full", means_prior=None, beta_prior=1.0,
                 dof_prior=None, scale_prior=None, reg_covar=0.0):
        self.covariance_type = covariance_type
        self.means_prior = means_prior
        self.beta_prior = beta_prior
        self.dof_prior = dof_prior
        self.scale_prior = scale_prior
        self.reg_covar = reg_covar

    def validate(self, n_components):
        super().validate(n_components)
        check_scalar(self.beta_prior, "beta_prior", numbers.Real, low=0.0, low_inclusive=False)
        if self.dof_prior is not None:
            check_scalar(self.dof_prior, "dof_prior", numbers.Real, low=0.0, low_inclusive=False)

    def resolve_prior(self, X, n_components):
        """Prior hyper-parameters as arrays (``means_prior`` (D,), ``beta_prior``,
        ``dof_prior`` floats, ``scale_prior`` (D, D) / (D,) / float)."""
        D = self.n_features_
        ct = self.covariance_type
        m0 = X.mean(axis=0) if self.means_prior is None else np.asarray(self.means_prior,
                                                                        dtype=float)
        if m0.shape != (D,) or not np.all(np.isfinite(m0)):
            raise InputError(f"means_prior must be finite with shape ({D},), got "
                             f"{self.means_prior!r}.")
        nu0 = float(D if self.dof_prior is None else self.dof_prior)
        if nu0 <= D - 1:
            raise InputError(f"dof_prior must be > n_features - 1 = {D - 1}, got {nu0!r}.")
        shape = {"full": (D, D), "tied": (D, D), "diag": (D,), "spherical": ()}[ct]
        if self.scale_prior is None:
            s0 = 1e-3 * (np.eye(D) if len(shape) == 2 else np.ones(shape))
        else:
            s0 = np.asarray(self.scale_prior, dtype=float)
            if s0.shape != shape:
                raise InputError(f"scale_prior must have shape {shape} for covariance_type="
                                 f"{ct!r}, got shape {s0.shape}.")
            ok = np.all(np.isfinite(s0))
            if ok and len(shape) == 2:
                ok = np.allclose(s0, s0.T) and np.all(np.linalg.eigvalsh(s0) > 0)
            elif ok:
                ok = np.all(s0 > 0)
            if not ok:
                raise InputError("scale_prior must be finite and positive (definite), got "
                                 f"{self.scale_prior!r}.")
        return {"means_prior": m0, "beta_prior": float(self.beta_prior), "dof_prior": nu0,
                "scale_prior": s0}

    def _prior_nw(self, prior):
        return NormalWishart.prior(self.covariance_type, prior["beta_prior"],
                                   prior["means_prior"], prior["dof_prior"],
                                   prior["scale_prior"])

    def _nw(self, post):
        ct, D = self.covariance_type, self.n_features_
        q = post["scale_posterior"] * (D if ct == "spherical" else 1.0)
        dof = float(post["dof_posterior"]) if ct == "tied" else post["dof_posterior"]
        return NormalWishart(ct, post["beta_posterior"], post["means_posterior"], q, dof)

    def _post(self, nw):
        ct, D = self.covariance_type, self.n_features_
        return {"means_posterior": nw.means, "beta_posterior": nw.beta,
                "dof_posterior": np.asarray(nw.dof, dtype=float),
                "scale_posterior": nw.scatter / (D if ct == "spherical" else 1.0)}

    def init_posterior(self, X, n_components, rng, init, prior):
        """Means at the point start of :meth:`GaussianEmission.init_params` (k-means++ or
        random rows); ``beta = beta0 + N_k`` and ``nu = nu0 + N_k`` with ``N_k`` the sizes of
        the nearest-mean clusters; covariances ``scale / dof`` equal to the data covariance
        (hmmlearn's start, with the prior added so every factor is proper)."""
        start = self.init_params(X, n_components, rng, init)
        means = start["means"]
        lab = np.argmin((means ** 2).sum(1)[None, :] - 2.0 * X @ means.T, axis=1)
        nk = np.bincount(lab, minlength=n_components).astype(float)
        beta = prior["beta_prior"] + nk
        ct = self.covariance_type
        if ct == "tied":
            dof = np.asarray(prior["dof_prior"] + nk.sum())
            scale = start["covars"] * dof
        else:
            dof = prior["dof_prior"] + nk
            c = start["covars"]
            scale = c * dof.reshape((-1,) + (1,) * (c.ndim - 1))
        return {"means_posterior": means, "beta_posterior": beta, "dof_posterior": dof,
                "scale_posterior": scale}

    def posterior_from_point(self, point, n_per_state, prior):
        """Normal-Gamma posteriors centred on point ``means``/``covars`` ('diag' or
        'spherical') with ``n_per_state`` pseudo-observations each (the spectral start)."""
        K = point["means"].shape[0]
        beta = np.full(K, prior["beta_prior"] + n_per_state)
        dof = np.full(K, prior["dof_prior"] + n_per_state)
        c = np.asarray(point["covars"], dtype=float)
        return {"means_posterior": np.array(point["means"], dtype=float),
                "beta_posterior": beta, "dof_posterior": dof,
                "scale_posterior": c * dof.reshape((-1,) + (1,) * (c.ndim - 1))}

    def check_posterior(self, name, value, n_components):
        """Validate a posterior array (hmmlearn's shapes, see the class notes): finite,
        ``beta`` and ``dof`` > 0 (``dof`` > D - 1 for Wishart factors), ``scale`` positive
        (definite)."""
        ct, D, K = self.covariance_type, self.n_features_, n_components
        shapes = {"means_posterior": (K, D), "beta_posterior": (K,),
                  "dof_posterior": () if ct == "tied" else (K,),
                  "scale_posterior": {"full": (K, D, D), "tied": (D, D), "diag": (K, D),
                                      "spherical": (K,)}[ct]}
        arr = np.array(value, dtype=float, copy=True)
        if arr.shape != shapes[name] or not np.all(np.isfinite(arr)):
            raise InputError(f"init[{name!r}] must be finite with shape {shapes[name]}, got "
                             f"shape {arr.shape}.")
        if name in ("beta_posterior", "dof_posterior") and np.any(arr <= 0):
            raise InputError(f"init[{name!r}] must be > 0.")
        if name == "dof_posterior" and ct in ("full", "tied") and np.any(arr <= D - 1):
            raise InputError(f"init['dof_posterior'] must be > n_features - 1 = {D - 1}.")
        if name == "scale_posterior":
            ok = (np.all(np.linalg.eigvalsh(arr) > 0) if ct in ("full", "tied")
                  else np.all(arr > 0))
            if not ok:
                raise InputError("init['scale_posterior'] must be positive (definite).")
        return arr

    def expected_log_likelihood(self, post, X):
        """``E_q[log N(x_t | mu_k, Lambda_k^-1)]``, shape (n, K), nats (Bishop 2006,
        eq. 10.64-10.67; the Gamma expectations for the diagonal structures)."""
        return np.ascontiguousarray(self._nw(post).expected_log_likelihood(X,
                                                                           shift=self.shift_))

    def occupancy(self, stats):
        """Expected time steps per state, shape (K,)."""
        return stats.nk

    def vb_update(self, post, prior, stats, step_size, scale):
        """Conjugate Normal-Wishart update on the natural parameters (Bishop 2006, eqs.
        10.60-10.63), blended with the current posterior by ``step_size``."""
        ct = self.covariance_type
        inc = NormalWishart.natural_stats(ct, stats.nk * scale, stats.sx * scale,
                                          stats.sxx * scale, self.reg_covar)
        K = stats.nk.shape[0]
        eta = NormalWishart.natural_prior(self._prior_nw(prior), K, self.shift_)
        eta = [e + s for e, s in zip(eta, inc)]
        if step_size < 1.0 and post:
            cur = self._nw(post).to_natural(self.shift_)
            eta = [_blend(c, e, step_size) for c, e in zip(cur, eta)]
        return self._post(NormalWishart.from_natural(ct, eta, self.shift_))

    def kl(self, post, prior):
        """KL of the Normal-Wishart (Normal-Gamma) posteriors to the prior, nats."""
        return self._nw(post).kl(self._prior_nw(prior))

    def point_estimate(self, post):
        """``means`` = ``means_posterior``; ``covars`` = E[Lambda]^-1 (scale / dof)."""
        return {"means": np.array(post["means_posterior"], dtype=float),
                "covars": self._nw(post).covariances()}
