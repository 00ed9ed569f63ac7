"""HMM whose states emit Gaussian mixtures (:class:`GMMHMM`), as an emission component.

State ``k`` emits ``p(x | z = k) = sum_m w_km N(x | mu_km, Sigma_km)`` (Juang, Levinson &
Sondhi 1986; Rabiner 1989, eqs. 49-54). The E-step is the HMM forward-backward on these
densities followed by the mixture responsibilities within each state,
``r_tkm = gamma_tk w_km N(x_t | mu_km, Sigma_km) / p(x_t | z_t = k)``; the M-step is the
Gaussian mixture M-step of each state on the weighted statistics (Rabiner 1989, eqs. 52-54).
All ``K x M`` Gaussians go through the shared Gaussian block of
:mod:`latentkit.distributions` as one stacked set of components (moments about a fixed shift,
Cholesky factors of precisions), so the statistics are additive over chunks and the model runs
unchanged under :class:`~latentkit.inference.StochasticVI`, chunked sources and Dask.

hmmlearn's names and shapes: ``n_mix``, ``weights_`` (K, M), ``means_`` (K, M, D),
``covariances_`` (K, M, D, D) full, (K, M, D) diag, (K, M) spherical and (K, D, D) tied (one
covariance per state shared by its mixture components, hmmlearn's meaning of 'tied' here).
"""

import numbers
import warnings
from types import SimpleNamespace

import numpy as np
from scipy.special import logsumexp

from .._utils.kmeans import kmeans_plusplus
from .._utils.validation import check_scalar
from ..base import stats_dataclass
from . import _emissions as em
from ._hmm import HiddenMarkovModel
from ..distributions import (
    CollapsedComponentWarning,
    accumulate_gaussian_stats,
    check_gaussian_parameters,
    compute_precision_cholesky,
    estimate_gaussian_parameters,
    log_gaussian_prob,
    sample_gaussian,
)
from ..exceptions import InputError

__all__ = ["GMMEmission", "GMMHMM", "GMMHMMStats"]


@em._old_stats_names(post_mix="nk", obs="sx", obs2="sxx")
@stats_dataclass
class GMMHMMStats(em.HMMStats):
    """:class:`HMMStats` plus, for each state ``k`` and mixture component ``m`` (the names of
    the mixtures' :class:`~latentkit.distributions.GaussianStats`): ``nk`` (K, M) expected
    counts, ``sx`` (K, M, D) weighted sums of ``x - shift`` and ``sxx`` weighted second
    moments about the shift: (K, M, D, D) for 'full' and 'tied', (K, M, D) 'diag', (K, M)
    'spherical' (squared norms). Formerly ``post_mix``, ``obs``, ``obs2`` (old names read with
    a ``DeprecationWarning``; old model files load).

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.sequence import GMMHMMStats
    >>> s = GMMHMMStats(n=2.0, data_term=-2.0, start=np.array([1.0]), trans=np.array([[1.0]]),
    ...                 nk=np.array([[1.5, 0.5]]), sx=np.array([[[3.0], [1.0]]]),
    ...                 sxx=np.array([[[6.0], [2.0]]]))
    >>> s.nk.shape  # states x mixture components
    (1, 2)
    """

    nk: np.ndarray
    sx: np.ndarray
    sxx: np.ndarray


def _inner_type(ct):
    """Covariance type of the stacked K*M components ('tied' per state = 'full' stacked)."""
    return "full" if ct == "tied" else ct


class GMMEmission(em.GaussianEmission):
    """Gaussian-mixture emissions: ``n_mix`` Gaussians per state (Juang, Levinson & Sondhi
    1986; Rabiner 1989, section IV.B).

    Parameters
    ----------
    n_mix : int, default 1
        Number of Gaussians per state ``M``.
    covariance_type : {'diag', 'full', 'spherical', 'tied'}, default 'diag'
        'tied': one full covariance per state shared by its ``M`` components (hmmlearn's).
    reg_covar : float, default 1e-6
        Added to the diagonal of every covariance at each M-step (>= 0); 0 is plain maximum
        likelihood (hmmlearn's M-step).
    covars_about : {'new_means', 'previous_means'}, default 'new_means'
        Centre of the covariance scatter at the M-step: the updated means (exact EM) or the
        means entering the iteration (hmmlearn's ``GMMHMM``; a generalised EM step that also
        never lowers the likelihood, with covariances larger by
        ``(mu_new - mu_old)(mu_new - mu_old)^T``).

    Notes
    -----
    Parameters: ``weights`` (K, M) rows on the simplex, ``means`` (K, M, D), ``covars``
    (shapes above). A mixture component with no posterior weight keeps its mean and covariance.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.sequence import GMMEmission, HiddenMarkovModel
    >>> X = np.random.default_rng(0).normal(size=(40, 2))
    >>> hmm = HiddenMarkovModel(2, emission=GMMEmission(n_mix=2), random_state=0).fit(X)
    >>> hmm.weights_.shape, hmm.means_.shape  # states x mixture components (x features)
    ((2, 2), (2, 2, 2))
    """

    param_names = ("weights", "means", "covars")
    stats_class = GMMHMMStats

    def __init__(self, n_mix=1, covariance_type="diag", reg_covar=1e-6,
                 covars_about="new_means"):
        self.n_mix = n_mix
        self.covariance_type = covariance_type
        self.reg_covar = reg_covar
        self.covars_about = covars_about

    def validate(self, n_components):
        check_scalar(self.n_mix, "n_mix", numbers.Integral, low=1)
        if self.covars_about not in ("new_means", "previous_means"):
            raise InputError("covars_about must be 'new_means' (exact EM) or 'previous_means' "
                             f"(hmmlearn's update), got {self.covars_about!r}.")
        super().validate(n_components)

    def set_data_defaults(self, summary, n_components):
        """The Gaussian checks, and at least one time step per Gaussian: ``n_components *
        n_mix`` Gaussians cannot be estimated from fewer observations (each would collapse
        on a point or on none)."""
        if n_components * self.n_mix > summary.n:
            raise InputError(
                f"n_components * n_mix = {n_components} * {self.n_mix} = "
                f"{n_components * self.n_mix} Gaussians is larger than the number of time "
                f"steps in X ({summary.n}); use a smaller n_mix or n_components.")
        super().set_data_defaults(summary, n_components)

    # ---- shapes ------------------------------------------------------------------------------
    def _covars_shape(self, K):
        M, D = self.n_mix, self.n_features_
        return {"full": (K, M, D, D), "diag": (K, M, D), "spherical": (K, M),
                "tied": (K, D, D)}[self.covariance_type]

    def _stacked_covars(self, covars):
        """(K*M, ...) covariances in the inner ('tied' -> 'full') layout."""
        M = self.n_mix
        c = np.asarray(covars, dtype=float)
        if self.covariance_type == "tied":
            c = np.repeat(c[:, None], M, axis=1)
        return c.reshape((-1,) + c.shape[2:])

    # ---- parameters --------------------------------------------------------------------------
    def init_params(self, X, n_components, rng, init):
        """State centres by k-means++ (``'kmeans++'``) or random rows (``'random'``); within
        each state's nearest points, ``n_mix`` k-means++ centres (random rows of ``X`` when
        the state has fewer than ``n_mix`` points); uniform weights; every covariance the data
        covariance plus ``max(reg_covar, 1e-6)`` on the diagonal (hmmlearn's start, with
        latentkit's k-means)."""
        K, M, D = n_components, self.n_mix, X.shape[1]
        base = super().init_params(X, K, rng, init)
        centres = base["means"]
        lab = np.argmin((centres ** 2).sum(1)[None, :] - 2.0 * X @ centres.T, axis=1)
        means = np.empty((K, M, D))
        for k in range(K):
            Xk = X[lab == k]
            if Xk.shape[0] >= M:
                means[k] = (kmeans_plusplus(Xk, M, rng, n_local_trials=1)[0] if M > 1
                            else Xk.mean(axis=0)[None])
            else:
                means[k] = X[rng.choice(X.shape[0], size=M, replace=X.shape[0] < M)]
        cv = base["covars"]  # in GaussianEmission's layout for this covariance_type
        ct = self.covariance_type
        full = {"full": lambda: cv[0], "tied": lambda: cv, "diag": lambda: np.diag(cv[0]),
                "spherical": lambda: np.eye(D) * cv[0]}[ct]()
        covars = {"full": np.tile(full, (K, M, 1, 1)), "tied": np.tile(full, (K, 1, 1)),
                  "diag": np.tile(np.diag(full), (K, M, 1)),
                  "spherical": np.full((K, M), np.diag(full).mean())}[ct]
        return {"weights": np.full((K, M), 1.0 / M), "means": means, "covars": covars}

    def restore(self, params):
        """Set the resolved ``n_features_`` and moment shift ``shift_`` from restored
        parameters (a model loaded from a file, or hand-set ``means_``)."""
        means = np.asarray(params["means"], dtype=float)
        self.n_features_ = int(means.shape[2])
        self.shift_ = means.reshape(-1, self.n_features_).mean(axis=0)

    def check_param(self, name, value, n_components):
        """Validate ``weights`` (K, M) rows on the simplex, ``means`` (K, M, D) finite,
        ``covars`` (shape by covariance_type) positive (definite)."""
        K, M, D = n_components, self.n_mix, self.n_features_
        if name == "weights":
            return em._check_stochastic(value, name, (K, M))
        if name == "means":
            m = np.array(value, dtype=float, copy=True)
            if m.shape != (K, M, D) or not np.all(np.isfinite(m)):
                raise InputError(f"init['means'] must be finite with shape ({K}, {M}, {D}), "
                                 f"got shape {m.shape}.")
            return m
        c = np.array(value, dtype=float, copy=True)
        shape = self._covars_shape(K)
        if c.shape != shape:
            raise InputError(f"init['covars'] must have shape {shape} for covariance_type="
                             f"{self.covariance_type!r}, got {c.shape}.")
        ct = self.covariance_type
        flat = c.reshape((-1,) + c.shape[2:]) if ct != "tied" else c
        check_gaussian_parameters("init['covars']", flat, _inner_type(ct), flat.shape[0], D)
        return c

    # ---- E-step --------------------------------------------------------------------------------
    def _component_log_prob(self, params, X):
        """``log w_km + log N(x_t | mu_km, Sigma_km)``, shape (n, K, M)."""
        w = np.asarray(params["weights"], dtype=float)
        K, M = w.shape
        D = self.n_features_
        ct = _inner_type(self.covariance_type)
        prec_chol, _ = compute_precision_cholesky(self._stacked_covars(params["covars"]), ct,
                                                  reg_covar=self.reg_covar)
        lp = log_gaussian_prob(X, np.asarray(params["means"]).reshape(K * M, D), prec_chol,
                               ct, shift=self.shift_)
        with np.errstate(divide="ignore"):
            return lp.reshape(-1, K, M) + np.log(w)[None]

    def log_likelihood(self, params, X):
        return np.ascontiguousarray(logsumexp(self._component_log_prob(params, X), axis=2))

    def empty_stats(self, n_components):
        K, M, D = n_components, self.n_mix, self.n_features_
        o2 = {"full": (K, M, D, D), "tied": (K, M, D, D), "diag": (K, M, D),
              "spherical": (K, M)}[self.covariance_type]
        return {"nk": np.zeros((K, M)), "sx": np.zeros((K, M, D)), "sxx": np.zeros(o2)}

    def accumulate(self, params, X, gamma):
        """Mixture responsibilities within each state times the state posteriors, then the
        stacked Gaussian statistics (Rabiner 1989, eq. 54)."""
        lp = self._component_log_prob(params, X)
        K, M = lp.shape[1:]
        with np.errstate(invalid="ignore"):
            r = np.exp(lp - logsumexp(lp, axis=2, keepdims=True))
        r = np.nan_to_num(r) * gamma[:, :, None]
        nk, sx, sxx = accumulate_gaussian_stats(X, r.reshape(-1, K * M),
                                                _inner_type(self.covariance_type),
                                                shift=self.shift_)
        D = self.n_features_
        return {"nk": nk.reshape(K, M), "sx": sx.reshape(K, M, D),
                "sxx": sxx.reshape((K, M) + sxx.shape[1:])}

    # ---- M-step --------------------------------------------------------------------------------
    def m_step(self, params, stats, frozen):
        """Per state: ``w_km = N_km / N_k``, ``mu_km = sum_t r_tkm x_t / N_km``,
        ``Sigma_km`` the weighted scatter about ``mu_km`` (tied: pooled over ``m``) plus
        ``reg_covar`` (Rabiner 1989, eqs. 52-54); components without weight keep theirs."""
        frozen = em._as_frozen(frozen)
        out = {}
        nkm = stats.nk
        K, M = nkm.shape
        D = self.n_features_
        ct = self.covariance_type
        if "weights" not in frozen:
            out["weights"] = em._normalize_rows(nkm, params["weights"])
        if "means" in frozen and "covars" in frozen:
            return out
        flat_n = nkm.reshape(-1)
        flat_sx = stats.sx.reshape(K * M, D)
        flat_sxx = stats.sxx.reshape((K * M,) + stats.sxx.shape[2:])
        inner = _inner_type(ct)
        reg = 0.0 if ct == "tied" else self.reg_covar
        means, covs, collapsed = estimate_gaussian_parameters(
            flat_n, flat_sx, flat_sxx, inner, reg_covar=reg, shift=self.shift_, warn=False)
        empty = flat_n <= 1e-8 * max(float(flat_n.sum()), 1e-300)
        old_means = np.asarray(params["means"]).reshape(K * M, D)
        if "means" in frozen or self.covars_about == "previous_means":
            # scatter about the means entering the iteration (fixed, or hmmlearn's GEM step)
            fake = SimpleNamespace(nk=flat_n, sx=flat_sx, sxx=flat_sxx)
            prev = self._stacked_covars(params["covars"])
            covs = em._covars_about(fake, old_means, self.shift_, inner, reg, prev, empty)
        if "means" in frozen:
            means = old_means
        means[empty] = old_means[empty]
        if ct == "tied":
            # pooled per state: sum_m N_km Sigma_km / N_k (Sigma_km about its own mean)
            per = covs.reshape(K, M, D, D) * nkm[:, :, None, None]
            nk = nkm.sum(axis=1)
            ok = nk > 1e-8 * max(float(nk.sum()), 1e-300)
            pooled = per.sum(axis=1) / np.where(ok, nk, 1.0)[:, None, None]
            pooled += self.reg_covar * np.eye(D)
            covars = np.where(ok[:, None, None], pooled, params["covars"])
        else:
            covs = covs.reshape(K * M, *covs.shape[1:])
            prev = self._stacked_covars(params["covars"])
            covs[empty] = prev[empty]
            covars = covs.reshape(self._covars_shape(K))
        collapsed = collapsed & ~empty
        if collapsed.any() and ct != "tied":
            warnings.warn(
                f"mixture component(s) {[divmod(int(i), M) for i in np.flatnonzero(collapsed)]} "
                f"(state, component) collapsed (a singular covariance); held positive definite "
                f"by reg_covar={self.reg_covar:g}.", CollapsedComponentWarning, stacklevel=4)
        if "means" not in frozen:
            out["means"] = means.reshape(K, M, D)
        if "covars" not in frozen:
            out["covars"] = covars
        return out

    def free_parameter_counts(self, n_components):
        K, M, D = n_components, self.n_mix, self.n_features_
        cov = {"full": K * M * D * (D + 1) // 2, "diag": K * M * D, "spherical": K * M,
               "tied": K * D * (D + 1) // 2}[self.covariance_type]
        return {"weights": K * (M - 1), "means": K * M * D, "covars": cov}

    def sample(self, params, states, rng):
        w = params["weights"]
        K, M = w.shape
        cdf = np.cumsum(w, axis=1)
        u = rng.random(len(states))
        rows = cdf[states]  # searchsorted(row, v, side="right") = count of row <= v (sorted)
        comp = np.minimum((rows <= (u * rows[:, -1])[:, None]).sum(axis=1), M - 1)
        flat = states * M + comp
        counts = np.bincount(flat, minlength=K * M)
        draws, labels = sample_gaussian(np.asarray(params["means"]).reshape(K * M, -1),
                                        self._stacked_covars(params["covars"]),
                                        _inner_type(self.covariance_type), counts, rng)
        out = np.empty((len(states), self.n_features_))
        for j in range(K * M):
            out[flat == j] = draws[labels == j]
        return out


class GMMHMM(HiddenMarkovModel):
    """HMM with Gaussian-mixture emissions, fitted by Baum-Welch (hmmlearn's ``GMMHMM``;
    Juang, Levinson & Sondhi 1986; Rabiner 1989, section IV.B).

    Parameters
    ----------
    n_components : int, default 2
        Number of hidden states.
    n_mix : int, default 1
        Number of Gaussians per state.
    covariance_type : {'diag', 'full', 'spherical', 'tied'}, default 'diag'
        ``covariances_`` shapes (K, M, D), (K, M, D, D), (K, M), (K, D, D) ('tied': one covariance
        per state, shared by its components).
    reg_covar : float, default 1e-6
        Added to the diagonal of every covariance at each M-step (>= 0).
    covars_about : {'new_means', 'previous_means'}, default 'new_means'
        'new_means': exact EM; 'previous_means': hmmlearn's update (see Notes).
    startprob_prior, transmat_prior : float or array-like, optional
        Dirichlet concentrations (>= 1), MAP; None: maximum likelihood.
    init : {'kmeans++', 'random'} or dict, default 'kmeans++'
        See :meth:`GMMEmission.init_params`; a dict gives any of ``'startprob'``,
        ``'transmat'``, ``'weights'``, ``'means'``, ``'covariances'`` (or ``'covars'``).
    frozen : set of str, optional
        Parameters kept fixed, e.g. ``{'means'}`` (covariances are then about the fixed means).
    n_init, max_iter, tol, random_state, callback, verbose
        See :class:`HiddenMarkovModel` (``tol`` in nats per time step).

    Attributes
    ----------
    startprob_ : ndarray of shape (n_components,)
    transmat_ : ndarray of shape (n_components, n_components)
    weights_ : ndarray of shape (n_components, n_mix)
    means_ : ndarray of shape (n_components, n_mix, n_features)
    covariances_ : ndarray
        Shape by ``covariance_type`` (above). ``covars_`` (hmmlearn's GMMHMM name, same
        shapes) is a deprecated alias that warns, removed in latentkit 0.3.
    lower_bound_, lower_bounds_, n_iter_, converged_
        Log-likelihood in nats per time step (hmmlearn's ``monitor_.history`` divided by the
        number of rows).

    Notes
    -----
    The default M-step is exact EM: covariances are the scatter about the *new* means.
    hmmlearn's ``GMMHMM`` accumulates the scatter about the means entering the iteration (a
    generalised EM step: the covariance maximises the expected log-likelihood at the old means,
    and moving the means then raises it further; its covariances exceed the exact ones by
    ``(mu_new - mu_old)(mu_new - mu_old)^T``). ``covars_about='previous_means'`` reproduces it:
    from the same start, the same log-likelihood per iteration (hmmlearn's ``monitor_.history``
    divided by the number of rows). hmmlearn's default 'spherical' prior is not maximum
    likelihood (its divisor is ``D (N_km + 1) - n_mix`` instead of ``D N_km``); ours is.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.sequence import GMMHMM
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 2))
    >>> GMMHMM(2, n_mix=2, random_state=0, max_iter=5, tol=0).fit(X).means_.shape
    (2, 2, 2)

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> states = np.repeat([0, 1, 0, 1], 25)
    >>> from latentkit import GMMHMM
    >>> X = rng.normal(np.where(states == 0, 0.0, 5.0), 1.0)[:, None]
    >>> hmm = GMMHMM(2, n_mix=2, random_state=0).fit(X)
    >>> hmm.weights_.shape, hmm.means_.shape
    ((2, 2), (2, 2, 1))
    """

    def __init__(self, n_components=2, n_mix=1, covariance_type="diag", *, reg_covar=1e-6,
                 covars_about="new_means", startprob_prior=None, transmat_prior=None,
                 init="kmeans++", frozen=None, n_init=1, max_iter=1000, tol=None,
                 random_state=None, callback=None, verbose=False):
        self.n_components = n_components
        self.n_mix = n_mix
        self.covariance_type = covariance_type
        self.reg_covar = reg_covar
        self.covars_about = covars_about
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
        return GMMEmission(n_mix=self.n_mix, covariance_type=self.covariance_type,
                           reg_covar=self.reg_covar, covars_about=self.covars_about)
