"""Differentially private VAE: DP-SGD (Abadi et al. 2016, Algorithm 1) with Adam.

Every step takes a Poisson sample of the training rows (each row independently with
probability ``q = batch_size / N``), computes the gradient of every sampled row's Monte-Carlo
ELBO (:mod:`._per_example`, our own backpropagation), scales each to L2 norm at most
``clip_norm``, sums them, adds ``N(0, (noise_multiplier * clip_norm)^2 I)`` and takes one Adam
step along the noisy sum divided by the expected batch size. One
:class:`latentkit.privacy.PrivacyAccountant` composes all the steps as Poisson-subsampled
Gaussian mechanisms under Renyi DP (Mironov, Talwar & Zhang 2019); the fit stops when the budget
is spent. See :class:`PrivateVAE`.
"""

import math
import numbers
import warnings

import numpy as np

from .._utils.user_frame import user_stacklevel
from .._utils.validation import check_array, check_scalar
from .._utils.validation import privacy_noise_rng as _noise_generator  # OS entropy
from ._per_example import per_example_norms
from ._vae import VAE
from ._vae_stats import VAEStats
from ..exceptions import InputError, InputTypeError, PrivacyNoiseWarning

__all__ = ["PrivateVAE", "clipped_gradient_sum"]

_ACCOUNTANTS = ("rdp", "rdp_improved")
NEIGHBOURING = "one example (training row) added or removed"


def _clipped(objective, theta, data, clip_norm, beta):
    """``rec, kl, sum_i w_i g_i, ||g_i||`` for the rows of ``data``, ``w_i = min(1, C/||g_i||)``.

    A row whose gradient norm is not finite (a row so large that its ELBO overflows) gets
    weight 0: it is left out of the sum, so the sum stays finite and its change by one row is
    still at most ``C`` (a NaN norm must never pass the clip). Floating-point warnings of the
    rows' computation are silenced: whether they occur depends on one row and nothing about
    them may be reported.
    """
    n = data.X.shape[0]
    with np.errstate(all="ignore"):
        if math.isinf(clip_norm):
            norms, weights = np.full(n, np.nan), np.ones(n)
        else:
            norms = per_example_norms(objective, theta, data, beta)
            weights = np.minimum(1.0, clip_norm / norms)  # a zero gradient: weight 1
            finite = np.isfinite(norms)
            if not finite.all():  # weight 0: the row is left out of the backward pass
                keep = np.flatnonzero(finite)
                data, weights = data[keep], weights[keep]
                if keep.size == 0:
                    return (np.zeros((0, 1)), np.zeros(0), np.zeros_like(theta), norms)
        rec, kl, _, grad = objective(theta, data, beta=beta, row_weights=weights)
    return rec, kl, grad, norms


def clipped_gradient_sum(objective, theta, data, clip_norm, beta=1.0):
    """Sum of the per-example gradients, each clipped to L2 norm ``clip_norm``.

    ``sum_i g_i min(1, C / ||g_i||)`` (Abadi et al. 2016, Algorithm 1, "clip gradient"), with
    ``g_i`` the gradient of row ``i``'s training objective (see
    :func:`latentkit.neural._per_example.per_example_gradients`). The norms come from the
    per-example gradients; the sum from one backward pass with row weights ``min(1, C/||g_i||)``.
    Under "one row added or removed" the sum has L2 sensitivity ``C``.

    Parameters
    ----------
    objective : VAEObjective
        A VAE's training objective (held as ``_objective``).
    theta : ndarray of shape (n_params,)
    data : _VAEData
        Rows with their reparameterisation noise.
    clip_norm : float
        ``C`` > 0 (``inf``: no clipping; the norms are then not computed and are NaN).
    beta : float, default 1.0
        KL weight.

    Returns
    -------
    total : ndarray of shape (n_params,)
    norms : ndarray of shape (n,)
        ``||g_i||`` before clipping.
    """
    _, _, total, norms = _clipped(objective, theta, data, float(clip_norm), beta)
    return total, norms


def _noisy_clipped_sum(objective, theta, batch, clip_norm, noise_std, noise_rng, beta=1.0):
    """The release of one DP-SGD step: the clipped sum of the batch's per-example gradients
    (of ``objective`` at ``theta``) plus ``N(0, noise_std^2 I)`` drawn from ``noise_rng``.

    Returns
    -------
    noisy : ndarray of shape (n_params,)
    n_rows : int
        Rows in the batch (the Poisson sample's size; not released).
    """
    if batch.X.shape[0]:
        _, _, total, _ = _clipped(objective, theta, batch, float(clip_norm), beta)
    else:  # an empty Poisson sample: the release is the noise alone
        total = np.zeros_like(theta)
    return total + noise_std * noise_rng.standard_normal(total.shape[0]), batch.X.shape[0]


# -- the accountant (PrivacyAccountant with Poisson-subsampled Gaussian releases) ---------------
def _accountant():
    from ..privacy import PrivacyAccountant
    return PrivacyAccountant()


def _spent(steps, sampling_rate, noise_multiplier, delta, method):
    """Epsilon of ``steps`` Poisson-subsampled Gaussian steps (noise multiplier ``z``)."""
    if steps == 0:
        return 0.0
    acc = _accountant()
    acc.record(1.0, noise_multiplier, count=int(steps), sampling_rate=sampling_rate,
               sampling="poisson")
    return float(acc.spent(delta, method=method))


def _calibrate(epsilon, delta, sampling_rate, steps, method):
    """Noise multiplier whose ``steps`` steps spend at most ``epsilon``: at most 1e-6 (relative)
    above the smallest such (the upper end of the bisection bracket, so always within budget)."""
    from ..privacy import calibrate_noise_multiplier
    return float(calibrate_noise_multiplier(epsilon, delta, sampling_rate, steps, method=method,
                                            rtol=1e-6))


def _affordable_steps(epsilon, delta, sampling_rate, noise_multiplier, max_steps, method):
    """Largest number of steps (<= max_steps) whose epsilon is at most ``epsilon``."""
    if _spent(max_steps, sampling_rate, noise_multiplier, delta, method) <= epsilon:
        return max_steps
    lo, hi = 0, max_steps  # spent(lo) <= epsilon < spent(hi)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if _spent(mid, sampling_rate, noise_multiplier, delta, method) <= epsilon:
            lo = mid
        else:
            hi = mid
    return lo


class PrivateVAE(VAE):
    """Variational autoencoder trained by DP-SGD: (epsilon, delta)-differentially private.

    Abadi et al. (2016), Algorithm 1, with Adam on the noisy gradient: every step

    1. takes a **Poisson sample** of the training rows (each row with probability
       ``q = batch_size / N``, independently);
    2. computes every sampled row's gradient ``g_i`` of its Monte-Carlo ELBO (our own
       per-example backpropagation, :mod:`latentkit.neural._per_example`) and **clips** it to L2
       norm ``C = clip_norm``: ``g_i min(1, C / ||g_i||)``;
    3. releases their sum plus **Gaussian noise** ``N(0, (z C)^2 I)`` (``z`` the noise
       multiplier);
    4. takes one Adam step along that noisy sum divided by the expected batch size ``q N``.

    **Neighbouring relation**: one example (training row) added or removed. Adding or removing a
    row changes the clipped sum by at most ``C`` in L2 norm whatever the other rows are, so each
    step is a Poisson-subsampled Gaussian mechanism of sensitivity ``C`` and noise ``z C``. One
    :class:`latentkit.privacy.PrivacyAccountant` composes all the steps of the fit under Renyi
    DP (Mironov, Talwar & Zhang 2019) and converts to (epsilon, delta) with ``accountant``
    ('rdp': Mironov 2017, Prop. 3; 'rdp_improved': Balle et al. 2020 / Canonne, Kamath & Steinke
    2020). With ``noise_multiplier=None`` the smallest ``z`` whose ``max_iter`` epochs (of
    ``ceil(N / batch_size)`` steps each) spend ``epsilon`` is used; with a given ``z`` the fit
    runs until the next step would overspend the budget (or ``max_iter`` epochs). Either way the
    fit stops when the budget is spent and never on the data (``tol`` is ignored).

    **Randomness**: the Poisson samples, the reparameterisation draws and the privacy noise
    come from fresh operating-system entropy on every fit (the amplification by subsampling
    assumes the samples are secret), whatever ``random_state`` is; that generator is dropped
    after the fit and nothing saved or pickled replays it. ``random_state`` governs only public
    choices: the weight initialisation (drawn without the data), the seed of the evaluation
    draws of ``elbo`` / ``log_likelihood`` on other data, and ``sample``.

    **One extreme row**: a row whose per-example gradient is not finite gets weight 0 (it is
    left out of its step's sum); the Gaussian likelihood's scale check is not applied and the
    data's moments are not read; no training ELBO is computed (the value passed to
    ``callback`` is 0.0). So one row changes nothing but the noisy releases.

    **What is protected**: the presence of any one training row in everything the fitted
    parameters ``params_`` reveal (and whatever is computed from them: ``transform``, ``decode``,
    ``sample``, ``elbo`` on other data). **Not protected**: the number of rows ``N`` (it sets
    ``q``, treated as public), hyper-parameters chosen by looking at the data (``clip_norm``,
    ``learning_rate``, the architecture, ``binarize``), repeated fits on the same data (each
    spends its own budget), whether ``fit`` refuses the data (a row with NaN or infinity, or
    not binary for the Bernoulli likelihood) and the floating-point side channels of the
    Gaussian sampler (Mironov 2012). With the Gaussian likelihood a private fit starts from a
    point that does not depend on the data (decoder output bias 0, observation variance 1,
    instead of the data's moments): scale the features with public constants. With a finite budget the training-data diagnostics are withheld:
    ``lower_bounds_`` and ``lower_bound_`` are NaN and ``latent_activity_`` / ``active_units_``
    are not computed (they would be computed from the rows without noise). When the noise
    dominates the released gradients (estimated from the releases alone) the fit warns with
    :class:`~latentkit.exceptions.PrivacyNoiseWarning`.

    With ``epsilon=inf`` and ``noise_multiplier=None`` nothing is private: the fit is the
    :class:`VAE`'s (shuffled epochs of ``batch_size`` rows), with the per-example gradients
    clipped to ``clip_norm``; with ``clip_norm=inf`` too it equals ``VAE(...).fit`` exactly.

    Parameters
    ----------
    latent_dim : int, default 2
    epsilon : float, default 1.0
        Privacy budget of the whole fit (> 0; ``inf``: no privacy).
    delta : float, default 1e-5
        In (0, 1); below ``1 / N`` for a meaningful guarantee.
    clip_norm : float, default 1.0
        ``C``, the L2 bound of every per-example gradient (nats per unit of the parameters);
        must be finite when the budget is.
    noise_multiplier : float, optional
        ``z``, noise standard deviation over ``clip_norm``. None: calibrated to the budget.
    accountant : {'rdp', 'rdp_improved'}, default 'rdp_improved'
        The RDP-to-(epsilon, delta) conversion used for calibration and the budget.
    sampling_rate : float, optional
        ``q`` in (0, 1) given directly: an epoch is then ``ceil(1 / q)`` steps and the noisy
        sum is divided by ``batch_size`` (the public expected batch size), so nothing of the
        fit depends on ``N``. Default: ``q = batch_size / N``.
    hidden_layer_sizes, activation, likelihood, observation_variance, n_categories, binarize,
    n_mc_samples, learning_rate, batch_size, max_iter, tol, early_stopping,
    validation_fraction, n_iter_no_change, kl_warmup_epochs, free_bits, bayesian_decoder,
    decoder_prior_std, random_state, callback, verbose, max_epochs
        As in :class:`VAE`; ``batch_size`` is the **expected** batch size ``q N`` of the Poisson
        samples. With a finite budget (or a noise multiplier) ``free_bits`` must be 0 (it
        couples the rows of a minibatch) and ``early_stopping`` False (its validation ELBO
        would be released without noise).

    Attributes
    ----------
    params_ and the other fitted attributes of :class:`VAE`
    accountant_ : PrivacyAccountant
        Every step of the fit, recorded once per epoch as Poisson-subsampled Gaussian releases
        (sensitivity ``clip_norm``, noise ``noise_multiplier * clip_norm``, rate ``q``).
    noise_multiplier_ : float
        ``z`` used (0 without noise).
    sampling_rate_ : float
        ``q = min(batch_size, N) / N``, or ``sampling_rate``.
    n_private_steps_ : int
        Noisy steps taken.
    privacy_report_ : dict
        ``neighbouring``, ``epsilon`` (budget), ``delta``, ``epsilon_rdp`` and
        ``epsilon_rdp_improved`` (spent, both conversions), ``noise_multiplier``,
        ``sampling_rate``, ``steps``, ``clip_norm``; with noise also ``noise_norm``,
        ``signal_norm`` (estimated from the releases) and ``noise_dominated``.

    Raises
    ------
    ValueError
        (at fit) Invalid privacy parameters, ``free_bits > 0`` or ``early_stopping`` with
        noise, an infinite ``clip_norm`` with a finite budget, or a budget that a given noise
        multiplier cannot meet for a single step.

    References
    ----------
    Abadi, M., Chu, A., Goodfellow, I., McMahan, H. B., Mironov, I., Talwar, K. & Zhang, L.
    (2016). Deep learning with differential privacy. CCS. Algorithm 1.
    Mironov, I., Talwar, K. & Zhang, L. (2019). Renyi differential privacy of the sampled
    Gaussian mechanism. arXiv:1908.10530.
    Mironov, I. (2012). On significance of the least significant bits for differential privacy.
    CCS.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.neural import PrivateVAE
    >>> X = (np.random.default_rng(0).random((200, 6)) < 0.5).astype(float)
    >>> vae = PrivateVAE(2, epsilon=2.0, delta=1e-4, clip_norm=1.0, hidden_layer_sizes=(4,),
    ...                  batch_size=50, max_iter=2, random_state=0).fit(X)
    >>> vae.privacy_report_["steps"], vae.privacy_report_["epsilon_rdp_improved"] <= 2.0
    (8, True)
    """

    def __init__(self, latent_dim=2, *, epsilon=1.0, delta=1e-5, clip_norm=1.0,
                 noise_multiplier=None, accountant="rdp_improved", sampling_rate=None,
                 hidden_layer_sizes=(256,),
                 activation="relu", likelihood="bernoulli", observation_variance="diagonal",
                 n_categories=None, binarize=None, n_mc_samples=1, learning_rate=1e-3,
                 batch_size=100, max_iter=100, tol=1e-3, early_stopping=False,
                 validation_fraction=0.1, n_iter_no_change=10, kl_warmup_epochs=0,
                 free_bits=0.0, bayesian_decoder=False, decoder_prior_std=1.0,
                 random_state=None, callback=None, verbose=False, max_epochs=None):
        super().__init__(
            latent_dim=latent_dim, hidden_layer_sizes=hidden_layer_sizes, activation=activation,
            likelihood=likelihood, observation_variance=observation_variance,
            n_categories=n_categories, binarize=binarize, n_mc_samples=n_mc_samples,
            learning_rate=learning_rate, batch_size=batch_size, max_iter=max_iter, tol=tol,
            early_stopping=early_stopping, validation_fraction=validation_fraction,
            n_iter_no_change=n_iter_no_change, kl_warmup_epochs=kl_warmup_epochs,
            free_bits=free_bits, bayesian_decoder=bayesian_decoder,
            decoder_prior_std=decoder_prior_std, random_state=random_state, callback=callback,
            verbose=verbose, max_epochs=max_epochs)
        self.epsilon = epsilon
        self.delta = delta
        self.clip_norm = clip_norm
        self.noise_multiplier = noise_multiplier
        self.accountant = accountant
        self.sampling_rate = sampling_rate

    # -- hyper-parameters ---------------------------------------------------------------------
    def _noisy(self):
        """Whether the fit adds noise (a finite budget or a given positive multiplier)."""
        z = self.noise_multiplier
        return not math.isinf(float(self.epsilon)) or (z is not None and float(z) > 0)

    def _validate_params(self):
        super()._validate_params()
        for name in ("epsilon", "clip_norm"):  # > 0, inf allowed
            value = getattr(self, name)
            if not (isinstance(value, numbers.Real) and not isinstance(value, bool)):
                raise InputTypeError(f"{name} must be a real number, got {value!r} of type "
                                f"{type(value).__name__}.")
            if not float(value) > 0:
                raise InputError(f"{name} must be > 0 (inf allowed), got {value}.")
        check_scalar(self.delta, "delta", numbers.Real, low=0.0, high=1.0, low_inclusive=False,
                     high_inclusive=False)
        if self.noise_multiplier is not None:
            check_scalar(self.noise_multiplier, "noise_multiplier", numbers.Real, low=0.0)
            if math.isinf(float(self.noise_multiplier)):
                raise InputError("noise_multiplier must be finite, got inf.")
        if self.sampling_rate is not None:
            check_scalar(self.sampling_rate, "sampling_rate", numbers.Real, low=0.0, high=1.0,
                         low_inclusive=False, high_inclusive=False)
        if self.accountant not in _ACCOUNTANTS:
            raise InputError(f"accountant must be one of {_ACCOUNTANTS}, got "
                             f"{self.accountant!r}.")
        if float(self.free_bits) > 0 and not math.isinf(float(self.clip_norm)):
            raise InputError(f"free_bits must be 0 with a finite clip_norm (free bits couple "
                             f"the rows of a minibatch, so a row has no gradient of its own), "
                             f"got {self.free_bits}.")
        if not self._noisy():
            return
        if math.isinf(float(self.clip_norm)):
            raise InputError("clip_norm must be finite with a finite epsilon or a noise "
                             "multiplier (it is the sensitivity), got inf.")
        if self.early_stopping:
            raise InputError("early_stopping must be False for a private fit (its validation "
                             "ELBO would be released without noise).")

    def _resolved_tol(self):
        return 0.0 if self._noisy() else super()._resolved_tol()

    def partial_fit(self, X, y=None, *, step_size=1.0, total_samples=None):
        """Not available: a single step outside the fit's accountant would not be private.

        Raises
        ------
        NotImplementedError
            Always; use :meth:`fit` (or :class:`VAE` for non-private steps).
        """
        raise NotImplementedError("PrivateVAE.partial_fit is not available: a step outside "
                                  "fit() would escape the privacy accounting.")

    # -- the fit --------------------------------------------------------------------------------
    def _initial_params(self, X, rng):
        """The VAE's start, except that a private fit with the Gaussian likelihood starts the
        decoder's output bias at 0 and the observation log-variance at 0 (unit variance) instead
        of the feature means and log-variances of ``X``, which would be released without
        noise."""
        if self._noisy() and self.likelihood == "gaussian":  # never read X (not even its moments)
            X = np.zeros((1, X.shape[1]))
        theta = super()._initial_params(X, rng)
        if self._noisy() and self.likelihood == "gaussian":
            self._network.output_bias(theta)[...] = 0.0
            theta[self._network.layout["obs"]] = 0.0
        return theta

    def _check_X(self, X, reset, name="X"):
        """The VAE's checks, except that a private fit does not refuse Gaussian data whose
        second moments overflow (the VAE's scale check): that refusal would depend on one row.
        Every row is finite (checked); a row whose gradient is not finite is left out of its
        step's sum (weight 0, :func:`_clipped`)."""
        if reset and self._noisy() and self.likelihood == "gaussian":
            X = check_array(X, name, dtype=np.float64)
            self.n_features_in_ = X.shape[1]
            return X
        return super()._check_X(X, reset, name)

    def _init_params(self, data, rng):
        super()._init_params(data, rng)
        N = data.X.shape[0]
        if self.sampling_rate is not None and self._noisy():
            # nothing depends on N: the rate, the steps per epoch (ceil(1/q)) and the
            # normaliser (the expected batch size ``batch_size``) are public
            self.sampling_rate_ = float(self.sampling_rate)
            self._steps_per_epoch = int(math.ceil(1.0 / self.sampling_rate_))
            self._expected_batch = float(self.batch_size)
        else:
            B = min(int(self.batch_size), N)
            self.sampling_rate_ = B / N
            self._steps_per_epoch = -(-N // B)
            self._expected_batch = self.sampling_rate_ * N
        # the Poisson samples, the reparameterisation draws and the noise of a private fit:
        # fresh operating-system entropy, never random_state, and never saved
        self._noise_rng = _noise_generator()
        self._release_sq = []
        self.accountant_ = _accountant()
        self.n_private_steps_ = 0
        if not self._noisy():
            self.noise_multiplier_ = 0.0
            self._steps_left = None
            return
        max_steps = self._resolved_max_iter() * self._steps_per_epoch
        eps, delta, method = float(self.epsilon), float(self.delta), self.accountant
        if self.noise_multiplier is None:
            self.noise_multiplier_ = _calibrate(eps, delta, self.sampling_rate_, max_steps,
                                                method)
            self._steps_left = max_steps
        else:
            self.noise_multiplier_ = float(self.noise_multiplier)
            self._steps_left = _affordable_steps(eps, delta, self.sampling_rate_,
                                                 self.noise_multiplier_, max_steps, method)
            if self._steps_left == 0:
                raise InputError(
                    f"noise_multiplier={self.noise_multiplier} cannot meet epsilon={eps} at "
                    f"delta={delta} for even one step at sampling rate "
                    f"{self.sampling_rate_:.4g}; raise it or the budget.")

    def _e_step(self, data):
        """Minibatch statistics with every row's gradient clipped to ``clip_norm`` (the
        shuffled epochs without noise; the noisy steps are in :meth:`_iterate`)."""
        if data.eps_z is None:
            return super()._e_step(data)
        rec, kl, grad, _ = _clipped(self._objective, self.params_, data, float(self.clip_norm),
                                    self._beta)
        return VAEStats(n=float(rec.shape[0]),
                        data_term=float(rec.sum() / rec.shape[1] - kl.sum()), grad=grad)

    def _iterate(self, data, warm=None):
        """One epoch: ``ceil(N / batch_size)`` noisy steps on Poisson samples (fewer when the
        budget runs out), recorded in ``accountant_``; without noise, the VAE's epoch.

        Returns
        -------
        float
            Training ELBO of the epoch (nats per sample; a diagnostic withheld at the end of a
            private fit): the ELBO estimates of the sampled rows over their number, plus the
            global term per sample.
        """
        if not self._noisy():
            return super()._iterate(data, warm)
        X, rng = data.X, self._noise_rng  # OS entropy: the samples must stay secret
        N = X.shape[0]
        q, C = self.sampling_rate_, float(self.clip_norm)
        std = self.noise_multiplier_ * C
        steps = min(self._steps_per_epoch, self._steps_left)
        for _ in range(steps):
            self._beta = self._kl_beta(self._steps_per_epoch)
            rows = np.flatnonzero(rng.random(N) < q)
            noisy, _ = _noisy_clipped_sum(self._objective, self.params_,
                                          self._with_noise(X[rows], rng), C, std, rng, self._beta)
            self._release_sq.append(float(noisy @ noisy))  # of the release: post-processing
            # divided by the expected batch size (public), not by the sample's size
            self._m_step(VAEStats(n=self._expected_batch, data_term=0.0, grad=noisy),
                         scale=1.0 / q)
            self._n_fit_steps += 1
        self._beta = 1.0
        self._epoch += 1
        self.accountant_.record(C, std, count=steps, sampling_rate=q, sampling="poisson")
        self._steps_left -= steps
        self.n_private_steps_ += steps
        # no training ELBO: it would be computed from the rows without noise, and the fit
        # loop would raise or warn on it (a row at 1e300 makes it infinite)
        return 0.0

    def _stop_early(self):
        if self._noisy() and self._steps_left <= 0:
            return True
        return super()._stop_early()

    def _finish_fit(self, X):
        if self._noisy():
            self._finish_private_fit()
        else:
            super()._finish_fit(X)
        delta = float(self.delta)
        report = {"neighbouring": NEIGHBOURING, "epsilon": float(self.epsilon), "delta": delta,
                  "noise_multiplier": float(self.noise_multiplier_),
                  "sampling_rate": float(self.sampling_rate_),
                  "steps": int(self.n_private_steps_), "clip_norm": float(self.clip_norm)}
        for method in _ACCOUNTANTS:
            report["epsilon_" + method] = (float(self.accountant_.spent(delta, method=method))
                                           if self._noisy() else math.inf)
        if self._noisy():
            report.update(self._noise_check())
            del self._release_sq
        self.privacy_report_ = report
        if self._noisy() and report["noise_dominated"]:
            warnings.warn(
                f"the privacy noise dominates the released gradients: its norm "
                f"{report['noise_norm']:.4g} per step (noise multiplier "
                f"{report['noise_multiplier']:.4g} x clip norm {report['clip_norm']:g} x "
                f"sqrt({self.params_.shape[0]} parameters)) is at least the estimated norm "
                f"{report['signal_norm']:.4g} of the clipped gradient sum (root mean square "
                f"over the {report['steps']} steps, from the releases); the network is mostly "
                f"noise: raise epsilon, the batch size or the sampling rate, or use fewer "
                f"parameters.", PrivacyNoiseWarning, stacklevel=user_stacklevel())

    def _finish_private_fit(self):
        """After a private fit: the training-data diagnostics, computed from the rows without
        noise, are withheld (not computed at all); the generators of the private path are
        dropped, so that nothing saved or pickled can replay the samples or the noise."""
        self.lower_bounds_ = np.full(np.shape(getattr(self, "lower_bounds_", [])), np.nan)
        self.lower_bound_ = math.nan
        self.latent_activity_ = np.full(int(self.latent_dim), np.nan)
        self.active_units_ = None
        self.best_validation_bound_ = None
        self.validation_bounds_ = np.zeros(0)
        self._rng = None
        self.__dict__.pop("_noise_rng", None)
        self._clear_epoch_state()

    def _noise_check(self):
        """Whether the noise dominates, from the releases only (post-processing): the noise
        norm ``z C sqrt(P)`` per step against the root-mean-square norm of the clipped sum,
        estimated without bias from the releases ``G_t``: ``mean_t ||G_t||^2 - P (z C)^2``."""
        P = self.params_.shape[0]
        var = (self.noise_multiplier_ * float(self.clip_norm)) ** 2
        mean_sq = float(np.mean(self._release_sq)) if self._release_sq else 0.0
        signal = math.sqrt(max(mean_sq - P * var, 0.0))
        noise = math.sqrt(P * var)
        return {"noise_norm": noise, "signal_norm": signal, "noise_dominated": noise >= signal}
