"""Gaussian mixture fitted by expectation-maximisation, on the shared ELBO interface.

Source: Dempster, Laird & Rubin (1977); Bishop (2006), *Pattern Recognition and Machine
Learning*, section 9.2.2 (EM for Gaussian mixtures, eqs. 9.23-9.28); stepwise EM: Liang & Klein
(2009), *Online EM for unsupervised models*; k-means++: Arthur & Vassilvitskii (2007).
"""

import numbers

import numpy as np
from scipy.special import logsumexp

from .._utils.kmeans import kmeans_plusplus
from .._engine.steps import check_learning_rate
from .._utils.validation import check_array, check_n_features, check_sample_weight, check_scalar
from .._utils.summaries import check_second_moments as _check_second_moments
from ..base import LatentModel
from ._private_svi import GMMPrivatePieces
from ..distributions._gaussian import (GaussianStats, check_covariance_type,
                                       check_gaussian_parameters, compute_precision_cholesky,
                                       covariances_from_precisions,
                                       estimate_gaussian_parameters, log_gaussian_prob,
                                       n_gaussian_parameters, params_from_resp,
                                       precision_cholesky_from_precisions,
                                       precisions_from_cholesky, sample_gaussian)
from ..distributions import _missing
from ._hand_set import check_hand_set
from ._split_merge import model_lookahead
from ._start_check import _checked_start
from ._state_checks import FittedState, check_gaussian_mixture
from ..exceptions import InputError

__all__ = ["GaussianMixture", "kmeans_plusplus"]

_INIT_KEYS = ("weights", "means", "covariances", "precisions")


class _Rows:
    """Validated rows plus their sample weights; slicing keeps them together (so the base
    class's chunking and the common contract's chunked E-step work unchanged)."""

    __slots__ = ("X", "w", "cache")

    def __init__(self, X, w):
        self.X = X
        self.w = w
        self.cache = {}  # derived from X for this fit (missing data: rows by pattern)

    @property
    def shape(self):
        return self.X.shape

    def __getitem__(self, s):
        return _Rows(self.X[s], self.w[s])

    def __getstate__(self):
        return (self.X, self.w)

    def __setstate__(self, state):
        self.X, self.w = state
        self.cache = {}


# --------------------------------------------------------------------------------------------
# validation shared by the Gaussian mixtures (EM, variational, Dirichlet process)
# --------------------------------------------------------------------------------------------

def _check_mixture_params(model, k_name="n_components", covariance=True):
    """Check the hyper-parameters every mixture has: the number of components (named
    ``k_name``), ``covariance_type`` and ``reg_covar`` (unless ``covariance`` is False: the
    variational mixtures' component checks them) and the step size of ``partial_fit``
    (``learning_offset`` >= 0, ``learning_decay`` in (0.5, 1]).

    Raises
    ------
    ValueError, TypeError
        Naming the hyper-parameter.
    """
    check_scalar(getattr(model, k_name), k_name, numbers.Integral, low=1)
    if covariance:
        check_covariance_type(model.covariance_type)
        check_scalar(model.reg_covar, "reg_covar", numbers.Real, low=0.0)
    check_learning_rate(model.learning_offset, model.learning_decay)


def _check_rows(model, X, reset, sample_weight, check=check_array):
    """Validate a mixture's input rows and sample weights.

    ``check`` validates ``X`` (``check_array``, or ``check_counts`` for count data); on
    ``reset`` the number of features is recorded as ``model.n_features_in_``, else it must
    match it.

    Returns
    -------
    _Rows
        The validated rows and weights (shape (n_samples,), a new array).

    Raises
    ------
    ValueError, TypeError
        From ``check``, a different number of features, invalid ``sample_weight``.
    """
    X = check(X, "X")
    if reset:
        model.n_features_in_ = X.shape[1]
    else:
        check_n_features(X.shape[1], model.n_features_in_, "X", type(model).__name__)
    return _Rows(X, check_sample_weight(sample_weight, X.shape[0]))


def _total_bound_tol(tol, total_weight):
    """``tol``, or the default 1e-3 nats on the total bound, per sample: ``1e-3 / N``
    (scikit-learn's BayesianGaussianMixture rule; its GaussianMixture applies 1e-3 per
    sample, which stops short of convergence on the bundled data sets)."""
    return float(tol) if tol is not None else 1e-3 / float(total_weight)


def _check_n_samples(sample_weight, n_components, k_name="n_components", context="",
                     remedy="pass more samples"):
    """Raise unless at least ``n_components`` rows have positive weight.

    Raises
    ------
    ValueError
        ``"Expected n_samples >= n_components<context> but got ...; reduce n_components or
        <remedy>."``
    """
    n_pos = int(np.count_nonzero(sample_weight > 0))
    if n_pos < n_components:
        raise InputError(
            f"Expected n_samples >= {k_name}{context} but got {k_name} = {n_components}, "
            f"n_samples = {n_pos}"
            + (" (with positive sample_weight)" if n_pos < sample_weight.shape[0] else "")
            + f"; reduce {k_name} or {remedy}.")


def _random_responsibilities(n_samples, n_components, rng):
    """Uniform random rows normalised to sum to 1 (scikit-learn's ``init='random'``)."""
    resp = rng.uniform(size=(n_samples, n_components))
    resp /= resp.sum(axis=1, keepdims=True)
    return resp


def _kmeans_responsibilities(X, n_components, rng, sample_weight, n_lloyd=10):
    """One-hot responsibilities of the labels of :func:`kmeans_plusplus` (``n_lloyd`` Lloyd
    iterations after the seeding)."""
    _, labels = kmeans_plusplus(X, n_components, rng, sample_weight=sample_weight,
                                n_lloyd=n_lloyd)
    resp = np.zeros((X.shape[0], n_components))
    resp[np.arange(X.shape[0]), labels] = 1.0
    return resp


# --------------------------------------------------------------------------------------------
# The model
# --------------------------------------------------------------------------------------------

class GaussianMixture(LatentModel):
    """Gaussian mixture model fitted by expectation-maximisation (EM).

    ``p(x) = sum_k weights_k N(x | means_k, covariances_k)``. Each EM iteration computes the
    responsibilities and the log-likelihood at the current parameters (E-step), then the
    closed-form maximum-likelihood parameters (M-step) from the sufficient statistics
    ``(N_k, sum r x, sum r x x^T)`` (:mod:`latentkit.distributions._gaussian`). The ELBO of EM
    equals the log-likelihood after the E-step, so ``lower_bounds_`` is the **mean
    log-likelihood per sample (nats)** at the parameters entering each iteration -- exactly
    scikit-learn's ``lower_bounds_``.

    Parameters
    ----------
    n_components : int, default 1
        Number of mixture components K.
    covariance_type : {'full', 'tied', 'diag', 'spherical'}, default 'full'
        Covariance structure; ``covariances_`` has shape (K, D, D), (D, D), (K, D) or (K,).
    tol : float or None, default None
        Convergence threshold on the change of the mean log-likelihood per sample (nats).
        ``tol=0`` runs exactly ``max_iter`` iterations. The default None resolves to
        ``tol_ = 1e-3 / n_samples`` (the total sample weight), i.e. 1e-3 nats on the total
        log-likelihood, which reaches the converged fit on the bundled data sets:
        scikit-learn's per-sample ``tol=1e-3`` stops 0.15-0.23 nats per sample short of it on
        wine and olive oil (K=3, standardised). Pass ``tol=1e-3`` to stop as scikit-learn does.
    reg_covar : float, default 1e-6
        Non-negative regularisation added to the diagonal of every covariance.
    max_iter : int, default 1000
        EM iterations per initialisation (Old Faithful, K=3, needs 152 at the default tol).
    n_init : int, default 1
        Initialisations; the one with the highest final log-likelihood is kept.
    init : {'kmeans++', 'random', 'spectral'} or dict, default 'kmeans++'
        ``'kmeans++'``: greedy k-means++ seeding plus a few Lloyd iterations, then one M-step
        from the hard labels. ``'random'``: one M-step from uniformly random responsibilities
        (scikit-learn's ``'random'``). ``'spectral'``: a method-of-moments start from
        :func:`latentkit.mixture.spectral_init_gmm` (standardised features, per-component
        spherical moments, Lloyd refinement, a within-class whitened second pass), checked
        against the k-means++ start: when the latter is more likely, it is used (the same
        start as ``init='kmeans++'``) and a ``SpectralInitWarning`` says so (ValueError when
        the spectral module does not provide it); otherwise the model is fitted from it and a
        split-and-merge search runs (``spectral_report_``). A dict gives starting parameters
        with any of the keys ``'weights'`` (K,), ``'means'`` (K, D), and one of
        ``'covariances'`` or ``'precisions'`` (shapes of ``covariances_``; ``'precisions'`` is
        scikit-learn's ``precisions_init`` and gives bit-identical starting Cholesky
        factors); missing ones come from k-means++.
    random_state : None, int or numpy.random.Generator, default None
        Seed of the initialisation; a fixed value gives identical fits.
    callback : callable, optional
        ``callback(model, n_iter, elbo)`` after every iteration; returning True stops the fit.
    verbose : bool, default False
        Print the log-likelihood per iteration.
    learning_offset : float, default 10.0
        tau >= 0 of the stepwise-EM step size ``rho_t = (t + tau)^-kappa`` in
        :meth:`partial_fit`.
    learning_decay : float, default 0.7
        kappa in (0.5, 1] of that step size.
    missing : {'error', 'marginalize'}, default 'error'
        ``'error'`` refuses NaN in ``X``. ``'marginalize'``: NaN marks an unobserved entry
        (missing at random); the E-step uses each row's marginal on its observed coordinates
        and the M-step the conditional expectations of the missing ones (Ghahramani & Jordan
        1994; :mod:`latentkit.distributions._missing`), so ``lower_bounds_`` is the exact
        log-likelihood of the observed entries. The start (k-means++, spectral) sees NaN
        filled with column means. :meth:`impute` returns the conditional means.

    Attributes
    ----------
    weights_ : ndarray of shape (K,)
    means_ : ndarray of shape (K, D)
    covariances_ : ndarray
        (K, D, D) full, (D, D) tied, (K, D) diag, (K,) spherical.
    precisions_cholesky_ : ndarray
        Upper-triangular ``U`` with ``precisions_ = U U^T`` (same shapes; diag/spherical:
        ``1 / sqrt(variance)``).
    precisions_ : ndarray
        Inverse covariances, same shapes.
    n_features_in_ : int
    lower_bound_, lower_bounds_, n_iter_, converged_, monitor_
        See :class:`latentkit.base.LatentModel`; nats per sample.
    spectral_report_ : dict
        Only after a fit with ``init='spectral'``: the start's check and search
        (:func:`latentkit.mixture.spectral_init_gmm`, ``return_report``); ``'n_iter'`` counts
        the iterations run inside the start, which ``n_iter_`` does not. When the search ran,
        the fit continues from the parameters of the optimum it reached: ``lower_bounds_``
        and ``n_iter_`` are the fit's own, and its first change is measured from that
        optimum's last bound (``'objective'``), so a converged optimum takes one iteration.

    Raises
    ------
    ValueError, TypeError
        From :meth:`fit`: invalid hyper-parameters, NaN/infinite input, wrong dimensions,
        ``n_components`` larger than the number of samples, an invalid ``init`` dict, X whose
        squared deviations from its mean overflow float64 (about ``|x - mean| > 1e150``).
        Such data is refused, not rescaled internally (``reg_covar`` is absolute, in the
        units of X squared, so a hidden rescaling would change the fit): standardise X, or
        fit ``X / s`` and multiply ``means_`` by s, ``covariances_`` by s^2 and add
        ``-n_features ln s`` to the log-likelihoods.

    Warns
    -----
    CollapsedComponentWarning
        A component collapsed (singular covariance, e.g. on duplicated points); it is kept
        positive definite by ``reg_covar`` (or re-regularised), never NaN.

    Notes
    -----
    The E-step is one pass over chunks of rows: a GEMM ``(X - c) @ [U_1 ... U_K]``, a fused
    numba pass for the squared norms, log-sum-exp and responsibilities, and a GEMM for the
    second moments (see :func:`latentkit.distributions.gaussian_mixture_e_step`).

    Source: Bishop (2006) section 9.2.2; Liang & Klein (2009) for :meth:`partial_fit`.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit import GaussianMixture
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(0, 1, (50, 2)), rng.normal(6, 1, (50, 2))])
    >>> gm = GaussianMixture(2, random_state=0).fit(X)
    >>> [int(v) for v in np.sort(gm.means_[:, 0]).round()]
    [0, 6]
    >>> gm.predict_proba(X[:2]).shape
    (2, 2)
    """

    _state_attributes = ("_shift",)  # the fixed point of the moments (see _init_params)
    _elbo_decrease_note = (
        "EM is monotone only up to the M-step's reg_covar, which is added to every covariance "
        "and holds a collapsing one positive definite: near a (nearly) singular covariance the "
        "log-likelihood can then drift down, as scikit-learn's EM does; a larger reg_covar or "
        "fewer components avoid it.")
    _tol_may_be_none = True  # tol=None: 1e-3 / n_samples, resolved from the data (tol_)
    _start_from_parameters = True  # init dicts hold parameters (read by ModelLookahead)

    def __init__(self, n_components=1, *, covariance_type="full", tol=None, reg_covar=1e-6,
                 max_iter=1000, n_init=1, init="kmeans++", random_state=None, callback=None,
                 verbose=False, learning_offset=10.0, learning_decay=0.7, missing="error"):
        self.n_components = n_components
        self.covariance_type = covariance_type
        self.tol = tol
        self.reg_covar = reg_covar
        self.max_iter = max_iter
        self.n_init = n_init
        self.init = init
        self.random_state = random_state
        self.callback = callback
        self.verbose = verbose
        self.learning_offset = learning_offset
        self.learning_decay = learning_decay
        self.missing = missing

    # ---- template ----------------------------------------------------------------------------
    def _validate_params(self):
        _check_mixture_params(self)
        _missing.check_missing(self.missing)
        init = self.init
        if isinstance(init, dict):
            unknown = set(init) - set(_INIT_KEYS)
            if unknown:
                raise InputError(
                    f"init dict has unknown key(s) {sorted(unknown)}; allowed keys are "
                    f"{list(_INIT_KEYS)}.")
            if "covariances" in init and "precisions" in init:
                raise InputError("init dict must give 'covariances' or 'precisions', not both.")
        elif not (isinstance(init, str) and init in ("kmeans++", "random", "spectral")):
            raise InputError(
                "init must be 'kmeans++', 'random', 'spectral' or a dict with keys among "
                f"{list(_INIT_KEYS)}, got {init!r}.")

    def _validate_data(self, X, reset, sample_weight=None):
        nan_ok = _missing.check_missing(getattr(self, "missing", "error"))
        data = _check_rows(self, X, reset, sample_weight,
                           check=_missing.check_array_missing if nan_ok else check_array)
        if reset:
            self._resolve_data_defaults(data)
        return data

    def _data_summary(self, data):
        return _missing.data_summary(data.X, data.w, self.missing, diagonal=True)

    def _set_data_defaults(self, summary):
        _check_second_moments(summary)
        self.tol_ = _total_bound_tol(self.tol, summary.sw)

    def _init_params(self, data, rng):
        _check_n_samples(data.w, self.n_components)
        X, w = _missing.mean_fill(data.X, data.w), data.w  # NaN only with missing='marginalize'
        K, ct = self.n_components, self.covariance_type
        n, D = X.shape
        self._shift = (w @ X) / w.sum()  # fixed point about which moments are taken
        init = self.init
        given = {}
        if isinstance(init, dict):
            given = self._check_init_dict(init, D)
            base_init = "kmeans++"
        elif init == "spectral":
            given = self._check_init_dict(self._spectral_start(X, w, rng), D)
            if X is not data.X:  # the search ran on mean-filled rows: its bounds are not ours
                vars(self).pop("_start_bound", None)
            base_init = "kmeans++"
        else:
            base_init = init
        need_resp = not ({"weights", "means"} <= set(given)
                         and ({"covariances", "precisions"} & set(given)))
        if need_resp:
            if base_init == "random":
                resp = _random_responsibilities(n, K, rng)
            else:
                resp = _kmeans_responsibilities(X, K, rng, w)
            start = params_from_resp(X, resp, ct, self.reg_covar, w)  # about self._shift
            weights, means, cov = start["weights"], start["means"], start["covariances"]
        self.weights_ = given.get("weights", weights if need_resp else None)
        self.means_ = given.get("means", means if need_resp else None)
        if "precisions" in given:
            self.precisions_cholesky_ = precision_cholesky_from_precisions(given["precisions"], ct)
            self.precisions_ = given["precisions"]
            self.covariances_ = covariances_from_precisions(given["precisions"], ct)
        else:
            cov = given.get("covariances", cov if need_resp else None)
            self.precisions_cholesky_, self.covariances_ = compute_precision_cholesky(
                cov, ct, reg_covar=self.reg_covar)
            self.precisions_ = precisions_from_cholesky(self.precisions_cholesky_, ct)

    def _check_init_dict(self, init, n_features):
        K, ct = self.n_components, self.covariance_type
        out = {}
        if "weights" in init:
            wts = np.array(init["weights"], dtype=np.float64, copy=True)
            if wts.shape != (K,):
                raise InputError(f"init['weights'] must have shape ({K},), got {wts.shape}.")
            if not np.all(np.isfinite(wts)) or (wts < 0).any() or abs(wts.sum() - 1.0) > 1e-6:
                raise InputError(
                    "init['weights'] must be non-negative and sum to 1, got sum "
                    f"{wts.sum():.6g} and minimum {wts.min():.6g}.")
            out["weights"] = wts
        if "means" in init:
            means = np.array(init["means"], dtype=np.float64, copy=True)
            if means.shape != (K, n_features):
                raise InputError(
                    f"init['means'] must have shape ({K}, {n_features}), got {means.shape}.")
            if not np.all(np.isfinite(means)):
                raise InputError("init['means'] contains NaN or infinity.")
            out["means"] = means
        for key in ("covariances", "precisions"):
            if key in init:
                out[key] = check_gaussian_parameters(f"init[{key!r}]", init[key], ct, K,
                                                     n_features, kind=key)
        return out

    def _spectral_start(self, X, w, rng):
        """Hook of ``init='spectral'``: the start of ``latentkit.mixture.spectral_init_gmm(X,
        n_components, covariance_type, reg_covar=..., sample_weight=..., random_state=rng)``
        with this model's own look-ahead (its ``_checked_start`` and one M-step): a dict with
        keys among 'weights', 'means', 'covariances', 'precisions'."""
        lookahead = model_lookahead(self, X, w)
        resp, self.spectral_report_ = _checked_start(
            X, self.n_components, self.covariance_type, self.reg_covar, w, rng,
            n_lloyd_kmeans=10, lookahead=lookahead)
        params = params_from_resp(X, resp, self.covariance_type, self.reg_covar, w)
        fitted = getattr(lookahead, "optimum", None)  # the search's optimum
        if fitted is not None:  # the fit continues its run
            self._start_bound = fitted.lower_bound_  # the fit's monitor goes on from it
            return {"weights": fitted.weights_, "means": fitted.means_,
                    "precisions": fitted.precisions_}
        return params

    def _private_svi_pieces(self, owner):
        """The pieces of :class:`latentkit.inference.PrivateStochasticVI` for this mixture
        (stepwise EM on the noisy statistics; :mod:`latentkit.mixture._private_svi`)."""
        return GMMPrivatePieces(self, owner, adopt_start=self._adopt_private_start)

    def _adopt_private_start(self, priors, center):
        """Private SVI's start: no prior, the statistics taken about ``center``."""
        self._shift = center.copy()

    def _empty_stats(self):
        return GaussianStats.empty(self.n_components, self.n_features_in_, self.covariance_type)

    def _e_step(self, data):
        return _missing.policy_e_step(
            self.missing, data.X, np.log(self.weights_), self.means_,
            self.precisions_cholesky_, self.covariance_type, sample_weight=data.w,
            shift=self._shift, cache=getattr(data, "cache", None))

    def _m_step(self, stats, step_size=1.0, scale=1.0):
        s = self._blend_stats(stats, step_size, scale)
        ct = self.covariance_type
        nks = s.nk + 10.0 * np.finfo(np.float64).eps
        means, cov, _ = estimate_gaussian_parameters(s.nk, s.sx, s.sxx, ct,
                                                     reg_covar=self.reg_covar, shift=self._shift)
        self.weights_ = nks / nks.sum()
        self.means_ = means
        self.precisions_cholesky_, self.covariances_ = compute_precision_cholesky(
            cov, ct, reg_covar=self.reg_covar)
        self.precisions_ = precisions_from_cholesky(self.precisions_cholesky_, ct)

    # ---- public methods ----------------------------------------------------------------------
    def fit(self, X, y=None, sample_weight=None):
        """Fit by EM until the change of the mean log-likelihood is below ``tol``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features) or ChunkSource
            Training data (float32 and non-contiguous input are accepted and copied; the
            caller's array is never modified).
        y : ignored
        sample_weight : array-like of shape (n_samples,), optional
            Non-negative weights; a row of weight w counts as w rows in the likelihood.

        Returns
        -------
        self

        Raises
        ------
        ValueError, TypeError
            Invalid hyper-parameters or input (NaN/inf, wrong dimensions, fewer samples than
            components, malformed ``init``, a scale whose squared deviations overflow
            float64), the message naming the argument and the fix.
        """
        return super().fit(X, sample_weight=sample_weight)

    def _check_is_fitted(self):
        # parameters set by hand (mixture/_hand_set.py)
        vars(self).update(check_hand_set(self, getattr(self, "_shift", None)))
        super()._check_is_fitted()

    def _weighted_log_prob(self, X):
        self._check_is_fitted()
        X = self._validate_data(X, reset=False).X
        log_prob = _missing.marginal_log_gaussian_prob if self.missing == "marginalize" \
            else log_gaussian_prob
        lp = log_prob(X, self.means_, self.precisions_cholesky_, self.covariance_type,
                      shift=self._shift)
        with np.errstate(divide="ignore"):
            lp += np.log(self.weights_)
        return lp

    def score_samples(self, X):
        """Log-likelihood of each sample, ``log sum_k weights_k N(x_i | k)``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
            Nats.

        Raises
        ------
        NotFittedError, ValueError
        """
        return logsumexp(self._weighted_log_prob(X), axis=1)

    def score(self, X, y=None):
        """Mean log-likelihood per sample (nats); equals :meth:`elbo` for EM.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : ignored

        Returns
        -------
        float
        """
        return float(self.score_samples(X).mean())

    def predict_proba(self, X):
        """Posterior component probabilities (responsibilities).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_components)
            Rows sum to 1.
        """
        lp = self._weighted_log_prob(X)
        return np.exp(lp - logsumexp(lp, axis=1, keepdims=True))

    def predict(self, X):
        """Most probable component of each sample.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,), int
        """
        return np.argmax(self._weighted_log_prob(X), axis=1)

    def fit_predict(self, X, y=None, **fit_params):
        """Fit, then return :meth:`predict` on ``X``.

        Returns
        -------
        ndarray of shape (n_samples,), int
        """
        return self.fit(X, **fit_params).predict(X)

    def sample(self, n_samples=1, random_state=None):
        """Draw samples from the fitted mixture.

        Parameters
        ----------
        n_samples : int, default 1
        random_state : None, int or numpy.random.Generator
            Default None: the model's own sampling generator (seeded from the
            ``random_state`` hyper-parameter when the model is fitted and advanced by every
            call, so repeated calls give fresh draws; scikit-learn reseeds and repeats them).

        Returns
        -------
        X : ndarray of shape (n_samples, n_features)
        labels : ndarray of shape (n_samples,), int
            The component of each draw (draws are grouped by component, as in scikit-learn).

        Raises
        ------
        NotFittedError, ValueError
        """
        self._check_is_fitted()
        n_samples = check_scalar(n_samples, "n_samples", numbers.Integral, low=1)
        rng = self._sampling_rng(random_state)
        wts = np.clip(self.weights_, 0.0, None)
        counts = rng.multinomial(n_samples, wts / wts.sum())
        return sample_gaussian(self.means_, self.covariances_, self.covariance_type, counts, rng)

    def impute(self, X, return_std=False):
        """Fill the missing (NaN) entries of ``X`` with their conditional means under the fitted
        mixture, ``E[x_m | x_o] = sum_k p(k | x_o) E[x_m | x_o, k]``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            NaN marks a missing entry (accepted whatever ``missing`` is).
        return_std : bool, default False
            Also return the conditional standard deviations (law of total variance).

        Returns
        -------
        X_imputed : ndarray of shape (n_samples, n_features)
            A new array: observed entries unchanged, missing ones imputed (units of X).
        std : ndarray of shape (n_samples, n_features)
            Only with ``return_std``: 0 at observed entries.

        Raises
        ------
        NotFittedError, ValueError
            Unfitted model, infinite entries, a wrong number of features.

        Source: Ghahramani & Jordan (1994) section 3.
        """
        X = _missing.check_impute_input(self, X)
        return _missing.conditional_impute(
            X, np.log(self.weights_), self.means_, self.precisions_cholesky_,
            self.covariance_type, shift=self._shift, return_std=return_std)

    def _n_parameters(self):
        K, D = self.means_.shape
        return K - 1 + n_gaussian_parameters(K, D, self.covariance_type)

    def bic(self, X):
        """Bayesian information criterion, ``-2 log L + p log n`` (lower is better).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        float
            Nats (times 2).
        """
        ll = self.score_samples(X)
        return float(-2.0 * ll.sum() + self._n_parameters() * np.log(ll.shape[0]))

    def aic(self, X):
        """Akaike information criterion, ``-2 log L + 2 p`` (lower is better).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        float
        """
        ll = self.score_samples(X)
        return float(-2.0 * ll.sum() + 2.0 * self._n_parameters())

    def _update_sklearn_tags(self, tags):
        tags.estimator_type = "density_estimator"
        return tags

    def _check_state(self):
        """Validate a restored state (:mod:`latentkit.mixture._state_checks`)."""
        check_gaussian_mixture(FittedState(vars(self), type(self).__name__), self.covariance_type)
