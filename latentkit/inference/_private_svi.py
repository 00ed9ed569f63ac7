"""Differentially private stochastic variational inference for the conjugate models.

:class:`PrivateStochasticVI` is the variational Bayes in private settings of Park, Foulds,
Chaudhuri & Welling (2020, *Variational Bayes in private settings (VIPS)*, JAIR 68, Algorithm 1)
on latentkit's natural-gradient step (Hoffman, Blei, Wang & Paisley 2013): at each step ``t``

1. a minibatch ``B_t`` is a **Poisson sample** of the rows (each row independently with
   probability ``q = batch_size / N``);
2. each row's expected sufficient statistics ``s_i`` are computed at the current global
   parameters by the model's local E-step and **clipped** to L2 norm ``C``:
   ``s_i <- s_i min(1, C / ||s_i||)``;
3. their sum is released with Gaussian noise, ``S_t = sum_{i in B_t} s_i + N(0, sigma^2 I)``,
   ``sigma = noise_multiplier * C`` (negative entries of the released counts are then set to 0,
   a post-processing);
4. the natural-gradient step ``lambda <- (1 - rho_t) lambda + rho_t (prior + S_t / q)`` is taken
   with the public scale ``1 / q`` (not ``N / |B_t|``: ``|B_t|`` is not released).

**Neighbouring relation**: data sets differing by one row (document) added or removed.
**Sensitivity**: the local E-step of a row depends only on that row and on the current global
parameters, which are a function of the earlier releases (and of the data-independent start);
so adding or removing one row changes the clipped sum of step 2 by one clipped term, of L2 norm
at most ``C``: the sensitivity is ``C``, and each step is a Poisson-subsampled Gaussian mechanism
with noise multiplier ``sigma / C`` and sampling rate ``q``. The ``T`` steps compose adaptively
under Renyi DP (Mironov 2017, Prop. 1; Mironov, Talwar & Zhang 2019 for each step), accounted by
one :class:`latentkit.privacy.PrivacyAccountant`; the fitted model is post-processing.

What is released about the data besides the noisy statistics: nothing (the start is drawn from
``random_state`` without looking at the data; no training ELBO is recorded); ``N`` enters only
through ``q`` and is treated as public, as in DP-SGD.
"""

import math
import numbers
import warnings

import numpy as np

from .._engine.steps import check_learning_rate, step_size_schedule
from .._utils.user_frame import user_stacklevel
from .._utils.validation import check_random_state, check_scalar
from .._utils.validation import privacy_noise_rng as _os_rng  # OS entropy, never random_state
from ..base import ParamsMixin, clone
from ._stochastic_vi import StochasticVI
from ..exceptions import InputError, InputTypeError, PrivacyNoiseWarning

__all__ = ["PrivateStochasticVI"]


# --------------------------------------------------------------------------------------------
# The release of one step; the per-model pieces (a data-independent start, clipped per-row
# statistics, the noisy step) come from the model's ``_private_svi_pieces`` hook
# (latentkit/topic/_private_svi.py, latentkit/mixture/_private_svi.py)
# --------------------------------------------------------------------------------------------

def release(pieces, X, q, clip, sigma, rng):
    """One step's release: a Poisson sample of the rows of ``X`` (rate ``q``), the sum of their
    statistics clipped to ``clip``, plus ``N(0, sigma^2 I)``; draws ``rng.random(N)`` then
    ``rng.normal(size=shape)``. Returns the noisy sum and the sampled rows' norms (not
    released)."""
    rows = np.flatnonzero(rng.random(X.shape[0]) < q)
    if rows.size:
        S, norms = pieces.clipped_sum(X[rows], clip)
    else:
        S, norms = np.zeros(pieces.shape()), np.zeros(0)
    return S + rng.normal(0.0, sigma, size=S.shape), norms


#: the models with the ``_private_svi_pieces`` hook, for the messages (the hook decides)
_SUPPORTED = "the models with a _private_svi_pieces hook: latentkit's LDA and Gaussian mixtures"


def _pieces_for(model, owner):
    """The model's private-SVI pieces (its ``_private_svi_pieces(owner)`` hook): an object
    with ``unit``, ``default_clip()``, ``missing_clip`` (the message when no ``clip`` is given
    and there is no default), ``check_X(X)``, ``start(n_features, rng)``, ``shape()``,
    ``clipped_sum(X, clip) -> (sum, norms)`` and ``step(noisy_sum, rho, scale)``."""
    hook = getattr(model, "_private_svi_pieces", None)
    if hook is None:
        raise InputTypeError(f"PrivateStochasticVI supports {_SUPPORTED}, got "
                             f"{type(model).__name__}.")
    return hook(owner)


class PrivateStochasticVI(ParamsMixin):
    """(epsilon, delta)-differentially private stochastic variational inference.

    Park, Foulds, Chaudhuri & Welling (2020), Algorithm 1, on the natural-gradient step of
    :class:`latentkit.inference.StochasticVI`: Poisson-sampled minibatches of rows, per-row
    expected sufficient statistics clipped to norm ``clip``, summed, released with Gaussian
    noise and scaled by ``1 / q`` in the step. The module docstring derives the sensitivity
    (``clip``, for one row added or removed) and states what is released.

    A separate class rather than a ``private=`` argument of StochasticVI: the private fit draws
    Poisson (not shuffled, fixed-size) minibatches, scales by the public ``1/q`` instead of
    ``N/|B|``, starts without looking at the data, records no training ELBO, runs a number of
    steps fixed by the budget, and needs per-row statistics; sharing StochasticVI's loop would
    put a branch on each of these in it.

    Parameters
    ----------
    model : LatentDirichletAllocation, VariationalGaussianMixture or GaussianMixture
        Unfitted template (cloned into ``model_``). The mixtures need ``radius`` (below);
        GaussianMixture takes stepwise-EM steps (Liang & Klein 2009) on the noisy statistics.
    epsilon : float, default 1.0
        Total budget (> 0). ``inf`` runs today's non-private
        :class:`~latentkit.inference.StochasticVI` with the same ``batch_size``, learning rate,
        ``n_epochs``, ``max_steps`` and ``random_state``: the same fit exactly.
    delta : float, default 1e-5
        In (0, 1); take it below ``1 / N``.
    clip : float
        L2 (Frobenius) norm ``C`` > 0 to which each row's statistics are clipped. LDA: a
        document's expected topic-word counts (norm at most its length). Mixtures: the
        statistics of a row clipped to ``radius``, normalised (see
        :mod:`latentkit.mixture._private_svi`); their norm is at most ``sqrt(3)``, the default.
    batch_size : int, default 256
        Expected minibatch size ``q N``; the sampling rate is ``q = batch_size / N``, which
        treats ``N`` as public.
    sampling_rate : float, optional
        ``q`` in (0, 1) given directly (then ``batch_size`` is unused, except by the
        non-private fit at ``epsilon=inf``): nothing of the fit then depends on ``N``.
    n_epochs : float, default 10
        Steps ``T = ceil(n_epochs / q)`` (expected passes), unless ``max_steps`` is given.
    max_steps : int, optional
    noise_multiplier : float, optional
        ``sigma / C``. Default: the smallest that lets the ``T`` steps spend ``epsilon``
        (:func:`latentkit.privacy.calibrate_noise_multiplier`). When given, the fit runs
        until the next step would exceed the budget (or ``T`` steps).
    conversion : {'rdp_improved', 'rdp'}, default 'rdp_improved'
        RDP-to-(epsilon, delta) conversion used to calibrate and to stop.
    learning_offset, learning_decay : float, default 10.0, 0.7
        ``rho_t = (t + tau)^-kappa``.
    radius : float, optional
        Mixtures only: the public radius ``R`` to which every row is clipped (L2, after
        centring on ``center``) before its statistics are computed.
    center : array-like of shape (n_features,), optional
        Mixtures only: a public centre (default 0).
    random_state : None, int or numpy.random.Generator
        Seeds the data-independent start only. The minibatches and the noise always come from
        the operating system's entropy.

    Attributes
    ----------
    model_ : fitted model
    accountant_ : PrivacyAccountant
        One subsampled release per step (sensitivity ``clip``, noise ``sigma_``, rate ``q_``).
    noise_multiplier_, sigma_, q_ : float
    n_steps_ : int
    epsilon_ : dict
        ``{'rdp': ..., 'rdp_improved': ...}``, the accountant's epsilon at ``delta`` by both
        conversions.
    neighbouring_relation_ : str
    noise_norm_, signal_norm_ : float
        The norm of one step's noise, ``sigma sqrt(n_entries)``, and the root-mean-square
        norm of the clipped sums estimated from the releases alone (post-processing).
    noise_dominated_rows_ : ndarray of shape (n_rows,) of bool or None
        LDA: per topic, fewer than half of its 10 largest mean released counts stand above the
        noise floor ``sigma / sqrt(T) sqrt(2 ln(K V))`` (from the releases).
    noise_dominated_ : bool
        ``noise_norm_ >= signal_norm_`` or any noise-dominated row; a
        :class:`~latentkit.exceptions.PrivacyNoiseWarning` says so at fit.
    clipped_fraction_ : float
        Fraction of the sampled rows whose statistics were clipped (a diagnostic of the fit;
        it is computed from the data and is not covered by the guarantee: do not release it).

    Raises
    ------
    ValueError
        Bad budget, clip, sizes; ``clip`` missing for LDA; ``radius`` missing for a mixture.
    TypeError
        An unsupported model.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit import LatentDirichletAllocation, PrivateStochasticVI
    >>> X = np.random.default_rng(0).poisson(1.0, size=(200, 20))
    >>> lda = LatentDirichletAllocation(3, random_state=0)
    >>> private = PrivateStochasticVI(lda, epsilon=1.0, delta=1e-5, clip=1.0, batch_size=50,
    ...                               n_epochs=2, random_state=0).fit(X)
    >>> private.model_.components_.shape, private.n_steps_, private.q_  # Poisson rate 50 / 200
    ((3, 20), 8, 0.25)
    >>> round(private.noise_multiplier_, 2)  # calibrated so that the 8 steps spend epsilon = 1
    3.4
    """

    def __init__(self, model, epsilon=1.0, delta=1e-5, clip=None, batch_size=256,
                 sampling_rate=None, n_epochs=10, max_steps=None, noise_multiplier=None,
                 conversion="rdp_improved", learning_offset=10.0, learning_decay=0.7,
                 radius=None, center=None, random_state=None):
        self.model = model
        self.epsilon = epsilon
        self.delta = delta
        self.clip = clip
        self.batch_size = batch_size
        self.sampling_rate = sampling_rate
        self.n_epochs = n_epochs
        self.max_steps = max_steps
        self.noise_multiplier = noise_multiplier
        self.conversion = conversion
        self.learning_offset = learning_offset
        self.learning_decay = learning_decay
        self.radius = radius
        self.center = center
        self.random_state = random_state

    def _is_nonprivate(self):
        e = self.epsilon
        return isinstance(e, numbers.Real) and not isinstance(e, bool) and math.isinf(e) and e > 0

    def _check_params(self):
        if not hasattr(self.model, "get_params"):
            raise InputTypeError(f"model must be a latentkit estimator ({_SUPPORTED}), got "
                                 f"{type(self.model).__name__}.")
        if not self._is_nonprivate():
            check_scalar(self.epsilon, "epsilon", numbers.Real, low=0.0, low_inclusive=False)
        check_scalar(self.delta, "delta", numbers.Real, low=0.0, high=1.0, low_inclusive=False,
                     high_inclusive=False)
        check_scalar(self.batch_size, "batch_size", numbers.Integral, low=1)
        if self.sampling_rate is not None:
            check_scalar(self.sampling_rate, "sampling_rate", numbers.Real, low=0.0, high=1.0,
                         low_inclusive=False, high_inclusive=False)
        check_scalar(self.n_epochs, "n_epochs", numbers.Real, low=0.0, low_inclusive=False)
        if self.max_steps is not None:
            check_scalar(self.max_steps, "max_steps", numbers.Integral, low=1)
        if self.noise_multiplier is not None:
            check_scalar(self.noise_multiplier, "noise_multiplier", numbers.Real, low=0.0,
                         low_inclusive=False)
        if self.conversion not in ("rdp", "rdp_improved"):
            raise InputError(f"conversion must be 'rdp' or 'rdp_improved', got "
                             f"{self.conversion!r}.")
        check_learning_rate(self.learning_offset, self.learning_decay)

    def _n_steps(self, q):
        if self.max_steps is not None:
            return int(self.max_steps)
        return int(math.ceil(float(self.n_epochs) / q))

    def fit(self, X, y=None):
        """Fit ``model_`` privately.

        Parameters
        ----------
        X : array-like or scipy.sparse matrix of shape (n_samples, n_features)
            Training rows (LDA: counts, documents in rows).
        y : ignored

        Returns
        -------
        self
        """
        # local: the privacy accounting (and SciPy's special functions) load only for a
        # private fit
        from ..privacy import PrivacyAccountant, calibrate_noise_multiplier
        from ..privacy._subsampled import DEFAULT_RDP_ORDERS, rdp_to_epsilon, \
            subsampled_gaussian_rdp

        self._check_params()
        if self._is_nonprivate():
            return self._fit_nonprivate(X)
        model = clone(self.model)
        pieces = _pieces_for(model, self)
        clip = pieces.default_clip() if self.clip is None else self.clip
        if clip is None:
            raise InputError(pieces.missing_clip)
        clip = check_scalar(clip, "clip", numbers.Real, low=0.0, low_inclusive=False)
        X = pieces.check_X(X)
        n = X.shape[0]
        if self.sampling_rate is not None:
            q = float(self.sampling_rate)
        elif self.batch_size >= n:
            raise InputError(f"batch_size={self.batch_size} must be smaller than the number "
                             f"of rows N={n} (Poisson sampling at a rate below 1).")
        else:
            q = self.batch_size / n
        T = self._n_steps(q)
        delta, eps = float(self.delta), float(self.epsilon)
        if self.noise_multiplier is None:
            nm = calibrate_noise_multiplier(eps, delta, q, T, method=self.conversion)
        else:
            nm = float(self.noise_multiplier)
        orders = np.asarray(DEFAULT_RDP_ORDERS)
        per_step = subsampled_gaussian_rdp(orders, q, nm)
        # the budget: the largest number of steps <= T whose composition spends <= epsilon
        lo, hi = 0, T
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if rdp_to_epsilon(orders, mid * per_step, delta, self.conversion)[0] <= eps:
                lo = mid
            else:
                hi = mid - 1
        if lo == 0:
            raise InputError(f"noise_multiplier={nm} cannot take a single step within "
                             f"epsilon={eps}, delta={delta}.")
        T = lo
        sigma = nm * clip
        rng = check_random_state(self.random_state)
        pieces.start(X.shape[1], rng)
        noise_rng = _os_rng()
        acc = PrivacyAccountant(epsilon=eps, delta=delta)
        n_clipped = n_rows = 0
        release_sq, release_sum = 0.0, np.zeros(pieces.shape())
        for t in range(1, T + 1):
            noisy, norms = release(pieces, X, q, clip, sigma, noise_rng)
            release_sq += float(np.sum(noisy * noisy))  # of the release: post-processing
            release_sum += noisy
            n_clipped += int(np.sum(norms > clip))
            n_rows += norms.size
            rho = min(1.0, step_size_schedule(t, self.learning_offset, self.learning_decay))
            pieces.step(noisy, rho, 1.0 / q)
            acc.record(clip, sigma, sampling_rate=q)
        self.model_ = model
        self.accountant_ = acc
        self.noise_multiplier_ = nm
        self.sigma_ = sigma
        self.q_ = q
        self.clip_ = clip
        self.n_steps_ = T
        self.epsilon_ = {"rdp": acc.spent(delta, "rdp"),
                         "rdp_improved": acc.spent(delta, "rdp_improved")}
        self.neighbouring_relation_ = f"one {pieces.unit} added or removed"
        self.clipped_fraction_ = n_clipped / max(n_rows, 1)
        self._noise_check(release_sq / T, release_sum / T, sigma, T)
        return self

    def _noise_check(self, mean_sq, mean_release, sigma, T, n_top=10):
        """From the releases alone (post-processing): ``noise_norm_`` (``sigma sqrt(size)``,
        the norm of one step's noise), ``signal_norm_`` (the root-mean-square norm of the
        clipped sums, ``sqrt(mean_t ||S_t||^2 - size sigma^2)``), ``noise_dominated_rows_``
        (LDA: per topic, fewer than half of its ``n_top`` largest mean released counts stand
        above the largest value the noise of the mean reaches with high probability,
        ``sigma / sqrt(T) sqrt(2 ln size)``; None for a flat statistic) and
        ``noise_dominated_``; warns with :class:`PrivacyNoiseWarning` when either says so."""
        size = mean_release.size
        self.noise_norm_ = sigma * math.sqrt(size)
        self.signal_norm_ = math.sqrt(max(mean_sq - size * sigma * sigma, 0.0))
        rows = None
        if mean_release.ndim == 2:
            top = min(n_top, mean_release.shape[1])
            floor = sigma / math.sqrt(T) * math.sqrt(2.0 * math.log(max(size, 2)))
            largest = np.sort(mean_release, axis=1)[:, -top:]
            rows = np.sum(largest > floor, axis=1) < top / 2.0
        self.noise_dominated_rows_ = rows
        self.noise_dominated_ = bool(self.noise_norm_ >= self.signal_norm_
                                     or (rows is not None and rows.any()))
        if self.noise_dominated_:
            what = ("" if rows is None or not rows.any() else
                    f"{int(rows.sum())} of {rows.size} rows (topics) have fewer than half of "
                    f"their {top} largest released values above the noise floor {floor:.4g}; ")
            warnings.warn(
                f"the privacy noise dominates the released statistics: {what}the noise norm "
                f"is {self.noise_norm_:.4g} per step (sigma {sigma:.4g} on each of {size} "
                f"entries) against an estimated norm {self.signal_norm_:.4g} of the clipped "
                f"sums (root mean square over the {self.n_steps_} steps, from the releases); "
                f"the fitted parameters are mostly noise: raise epsilon, the batch size or "
                f"the sampling rate, or lower the number of steps or of entries (components, "
                f"words).", PrivacyNoiseWarning, stacklevel=user_stacklevel())

    def _fit_nonprivate(self, X):
        from ..privacy import PrivacyAccountant  # local: as in fit
        svi = StochasticVI(self.model, batch_size=self.batch_size,
                           learning_offset=self.learning_offset,
                           learning_decay=self.learning_decay,
                           n_epochs=int(math.ceil(self.n_epochs)), max_steps=self.max_steps,
                           random_state=self.random_state).fit(X)
        n = X.shape[0]
        self.model_ = svi.model_
        self.q_ = self.batch_size / n
        self.noise_multiplier_ = self.sigma_ = 0.0
        self.clip_ = self.clip
        self.n_steps_ = svi.n_steps_
        self.accountant_ = PrivacyAccountant()
        self.epsilon_ = {"rdp": math.inf, "rdp_improved": math.inf}
        self.neighbouring_relation_ = "none (epsilon=inf: not private)"
        self.clipped_fraction_ = 0.0
        self.noise_norm_ = self.signal_norm_ = 0.0
        self.noise_dominated_, self.noise_dominated_rows_ = False, None
        return self

    def __getattr__(self, name):
        # forward fitted attributes and inference methods (components_, perplexity, ...)
        if name.startswith("__") or name in ("model_",):
            raise AttributeError(name)
        model = self.__dict__.get("model_")
        if model is None:
            raise AttributeError(name)
        return getattr(model, name)
