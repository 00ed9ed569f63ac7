"""Variational autoencoder: auto-encoding variational Bayes on the shared ELBO interface.

The model, its estimator and how it maps onto :class:`latentkit.base.LatentModel`: see
:mod:`latentkit.neural`.
"""

import numbers

import numpy as np

from .._utils.threads import blas_single_thread
from ..base import LatentModel
from .._utils.deprecation import renamed_parameter
from .._utils.validation import check_array, check_n_features, check_random_state, check_scalar
from ._bounds import VAEBounds
from ._checks import check_input, check_params, check_step
from ._gradients import VAEObjective
from ._likelihoods import one_hot_groups
from ._network import VAENetwork, _VAEData
from ._optim import Adam
from ._state_checks import FittedState, check_vae_layers, check_vae_params
from ._vae_stats import VAEStats
from ..exceptions import InputError, InputTypeError

__all__ = ["VAE"]


class VAE(LatentModel):
    """Variational autoencoder fitted by auto-encoding variational Bayes (AEVB).

    Encoder and decoder are NumPy MLPs (:mod:`latentkit.neural._mlp`), trained by Adam on
    minibatch Monte-Carlo estimates of the ELBO; every gradient is written out by hand and
    checked against finite differences in the test suite. No deep-learning framework is used.

    Parameters
    ----------
    latent_dim : int, default 2
        Dimension ``L`` of the latent space.
    hidden_layer_sizes : tuple of int, default (256,)
        Widths of the encoder's hidden layers; the decoder uses them in reverse order. ``()``
        gives linear encoder and decoder (with ``likelihood='gaussian'``: probabilistic PCA).
    activation : {'relu', 'tanh', 'softplus'}, default 'relu'
        Hidden-layer activation of both networks.
    likelihood : {'bernoulli', 'gaussian', 'categorical'}, default 'bernoulli'
        ``p(x | z)``. ``'bernoulli'``: binary features, decoder outputs logits.
        ``'gaussian'``: real features, decoder outputs means, variance set by
        ``observation_variance``. ``'categorical'``: one-hot groups of features (see
        ``n_categories``), decoder outputs logits, softmax within each group.
    observation_variance : {'diagonal', 'isotropic'} or float, default 'diagonal'
        Gaussian likelihood only: a learned variance per feature, one learned variance shared
        by all features, or a fixed positive variance.
    n_categories : None, int or sequence of int, default None
        Categorical likelihood only: sizes of the consecutive one-hot groups. ``None``: all
        features form one group; an int ``k``: groups of ``k`` features (``k`` divides
        ``n_features``); a sequence: the group sizes (summing to ``n_features``).
    binarize : None or float, default None
        Bernoulli likelihood only: ``None`` requires the data to be 0/1 (anything else raises
        ``ValueError``); a float ``t`` replaces ``X`` by ``X > t`` in every method.
    n_mc_samples : int, default 1
        Monte-Carlo samples of ``z`` per data point in each training step.
    learning_rate : float, default 1e-3
        Adam step size.
    batch_size : int, default 100
        Minibatch size (clipped to the number of training samples).
    max_iter : int, default 100
        Maximum number of iterations of the fit loop. A VAE has no closed-form M-step, so one
        iteration is one **epoch** (a pass of minibatch Adam steps over the training rows), as
        in scikit-learn's ``MLPClassifier(solver='adam').max_iter``; ``tol``, ``callback``,
        ``n_iter_`` and ``lower_bounds_`` count epochs too.
    max_epochs : int, optional
        Deprecated old name of ``max_iter`` (a ``DeprecationWarning`` at fit); removed in the
        next release.
    tol : float, default 1e-3
        Noisy convergence rule: stop when the means of the last two windows of 10 epochs of
        the training ELBO differ by less than ``tol`` nats per sample (0 runs all epochs). Also
        the minimum improvement of the validation ELBO under ``early_stopping``.
    early_stopping : bool, default False
        Hold out ``validation_fraction`` of the training data, record its ELBO after every
        epoch in ``validation_bounds_``, stop when it has not improved by ``tol`` for
        ``n_iter_no_change`` epochs, and keep the parameters of the best validation epoch.
    validation_fraction : float in (0, 1), default 0.1
    n_iter_no_change : int, default 10
    kl_warmup_epochs : float, default 0
        KL annealing (Bowman et al. 2016; Sønderby et al. 2016): the KL term of the training
        objective is multiplied by ``beta`` rising linearly from 0 to 1 over this many epochs.
        The reported bounds always use ``beta = 1``.
    free_bits : float, default 0.0
        Free bits (Kingma et al. 2016, eq. 15), nats per latent dimension: the training
        objective uses ``max(free_bits, mean_minibatch KL_j)`` for each latent dimension ``j``.
        (With ``free_bits > 0`` the gradient depends on the minibatch as a whole, so it is no
        longer additive over chunks of a minibatch; ``data_term`` still is.)
    bayesian_decoder : bool, default False
        Fully Bayesian AEVB (Kingma & Welling 2014, appendix F): a mean-field Gaussian
        posterior ``q(w) = N(mu_w, diag(sigma_w^2))`` over every decoder weight and bias, a
        prior ``N(0, decoder_prior_std^2)``, one reparameterised draw of ``w`` per minibatch,
        and ``-KL(q(w) || p(w))`` as the global ELBO term. The Gaussian observation variance
        stays a point estimate.
    decoder_prior_std : float, default 1.0
        Prior standard deviation of the decoder weights (Bayesian decoder only).
    random_state : None, int or numpy.random.Generator, default None
        Weight initialisation, minibatch order, validation split and Monte-Carlo noise.
    callback : callable, optional
        ``callback(model, epoch, elbo)`` after every epoch; returning True stops the fit.
    verbose : bool, default False
        Print the training ELBO of every epoch.

    Attributes
    ----------
    params_ : ndarray of shape (n_params,)
        All parameters in one flat vector (layout: encoder, decoder [means], decoder
        log-standard-deviations [Bayesian decoder], observation log-variance [Gaussian]).
    encoder_layers_, decoder_layers_ : list of (ndarray, ndarray)
        Views ``(W, b)`` per layer into ``params_`` (decoder: posterior means of the weights
        when Bayesian); ``W`` has shape ``(n_in, n_out)``.
    observation_variance_ : ndarray of shape (n_features,)
        Gaussian likelihood only: the variance of each feature.
    lower_bounds_ : ndarray of shape (``n_iter_``,)
        Training ELBO (nats per sample) per epoch: the running average of the Monte-Carlo ELBO
        over the epoch's minibatches, each at the parameters entering its step (what
        deep-learning libraries report as the epoch's training loss), plus the global term.
    lower_bound_, n_iter_, converged_, monitor_
        As in :class:`~latentkit.base.LatentModel` (``n_iter_`` counts epochs).
    validation_bounds_ : ndarray of shape (``n_iter_``,) or (0,)
        Validation ELBO per epoch (``n_mc_samples`` draws), empty without early stopping.
    best_validation_bound_ : float or None
        Best validation ELBO (the parameters kept), None without early stopping.
    active_units_ : int
        Number of latent dimensions whose posterior mean varies over the training data,
        ``Cov_x(E_q[z_j | x]) > 0.01`` (Burda, Grosse & Salakhutdinov 2016, section 5.2).
    latent_activity_ : ndarray of shape (latent_dim,)
        Those variances.
    n_features_in_ : int
    n_steps_ : int
        Optimiser steps taken by ``partial_fit`` since the last ``fit``.

    Notes
    -----
    Units: every ELBO and log-likelihood is in **nats per sample**. All arithmetic is float64.
    ``fit``, ``elbo`` and ``log_likelihood`` run BLAS on one thread (through threadpoolctl
    when it is installed): the products are small, and thread synchronisation costs more
    than it gains.

    References
    ----------
    Kingma, D. P. & Welling, M. (2014). Auto-encoding variational Bayes. ICLR.
    Burda, Y., Grosse, R. & Salakhutdinov, R. (2016). Importance weighted autoencoders. ICLR.
    Kingma, D. P., Salimans, T., Jozefowicz, R., Chen, X., Sutskever, I. & Welling, M. (2016).
    Improved variational inference with inverse autoregressive flow. NeurIPS.
    Kingma, D. P. & Ba, J. (2015). Adam: a method for stochastic optimization. ICLR.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit import VAE
    >>> X = (np.random.default_rng(0).random((40, 6)) < 0.5).astype(float)
    >>> vae = VAE(latent_dim=2, hidden_layer_sizes=(4,), max_epochs=2, batch_size=20,
    ...           random_state=0).fit(X)
    >>> vae.transform(X).shape
    (40, 2)
    """

    # Held objects, one per concern: networks and parameter layout (``_network``), objective
    # and gradient (``_objective``), held-out bounds (``_bounds``); checks are functions.
    _convergence_rule = "noisy"
    _groups = None  # (starts, sizes) of the categorical likelihood's one-hot groups, from fit

    def __init__(self, latent_dim=2, hidden_layer_sizes=(256,), activation="relu",
                 likelihood="bernoulli", observation_variance="diagonal", n_categories=None,
                 binarize=None, n_mc_samples=1, learning_rate=1e-3, batch_size=100,
                 max_iter=100, tol=1e-3, early_stopping=False, validation_fraction=0.1,
                 n_iter_no_change=10, kl_warmup_epochs=0, free_bits=0.0,
                 bayesian_decoder=False, decoder_prior_std=1.0, random_state=None,
                 callback=None, verbose=False, max_epochs=None):
        self.latent_dim = latent_dim
        self.hidden_layer_sizes = hidden_layer_sizes
        self.activation = activation
        self.likelihood = likelihood
        self.observation_variance = observation_variance
        self.n_categories = n_categories
        self.binarize = binarize
        self.n_mc_samples = n_mc_samples
        self.learning_rate = learning_rate
        self.batch_size = batch_size
        self.max_iter = max_iter
        self.max_epochs = max_epochs
        self.tol = tol
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.kl_warmup_epochs = kl_warmup_epochs
        self.free_bits = free_bits
        self.bayesian_decoder = bayesian_decoder
        self.decoder_prior_std = decoder_prior_std
        self.random_state = random_state
        self.callback = callback
        self.verbose = verbose

    def _update_sklearn_tags(self, tags):
        from sklearn.utils import TransformerTags
        tags.transformer_tags = TransformerTags()
        # score_samples / elbo are Monte-Carlo estimates whose noise follows the row order
        tags.non_deterministic = True
        return tags

    def _check_common_params(self):
        if self.max_epochs is not None:
            check_scalar(self.max_epochs, "max_epochs", numbers.Integral, low=1)
        super()._check_common_params()

    def _resolved_max_iter(self):
        return int(renamed_parameter("VAE", "max_epochs", "max_iter", self.max_epochs,
                                     self.max_iter, 100))

    def _validate_params(self):
        self.hidden_layer_sizes_ = check_params(self)

    def _check_X(self, X, reset, name="X"):  # never modifies the caller's array
        X, groups = check_input(X, self.likelihood, self.binarize, self.n_categories,
                                None if reset else self.n_features_in_,
                                None if reset else self._groups, name, type(self).__name__)
        if reset:
            self.n_features_in_, self._groups = X.shape[1], groups
        return X

    def _validate_data(self, X, reset, **kw):
        if kw:
            raise InputTypeError(f"VAE got unexpected keyword arguments {sorted(kw)}.")
        X = self._check_X(X, reset)
        if reset:
            return _VAEData(X)
        return self._with_noise(X, np.random.default_rng(self._eval_seed))

    def _parts(self):
        """``(network, objective, bounds)``, built on first use after ``_init_params`` or
        ``_set_state`` (which drop them) from the hyper-parameters and ``n_features_in_``."""
        if self.__dict__.get("_held") is None:
            net = VAENetwork(self.n_features_in_, self.latent_dim, self.hidden_layer_sizes_,
                             self.activation, self.likelihood, self.observation_variance,
                             self.bayesian_decoder, self._groups)
            objective = VAEObjective(net, self.decoder_prior_std)
            self._held = (net, objective, VAEBounds(net, objective))
        return self._held

    _network = property(lambda self: self._parts()[0], doc="The :class:`VAENetwork`.")
    _objective = property(lambda self: self._parts()[1], doc="The :class:`VAEObjective`.")
    _bounds = property(lambda self: self._parts()[2], doc="The :class:`VAEBounds`.")

    def _initial_params(self, X, rng):  # the start (a hook of PrivateVAE)
        return self._network.initial_params(X, rng)

    def _with_noise(self, X, rng):
        return self._network.with_noise(X, rng, self.n_mc_samples)

    def _elbo_draws(self, X, n_samples, rng):
        return self._bounds.elbo_draws(self.params_, X, n_samples, rng)

    def _eval_rng(self, random_state, offset):  # seeded at fit unless given: calls agree
        return (np.random.default_rng(self._eval_seed + offset) if random_state is None
                else check_random_state(random_state))

    @property
    def encoder_layers_(self):
        """``[(W, b), ...]`` of the encoder (views into ``params_``)."""
        self._check_is_fitted()
        return self._network.encoder_layers(self.params_)

    @property
    def decoder_layers_(self):
        """``[(W, b), ...]`` of the decoder's means (views into ``params_``)."""
        self._check_is_fitted()
        return self._network.decoder_layers(self.params_)

    @property
    def observation_variance_(self):
        """The Gaussian likelihood's variance per feature, shape (n_features,)."""
        if self.likelihood != "gaussian":
            raise AttributeError("observation_variance_ exists for likelihood='gaussian' only.")
        self._check_is_fitted()
        return np.exp(self._network.obs_logvar(self.params_)) * np.ones(self.n_features_in_)

    def _init_params(self, data, rng):
        self._held = None
        self.params_ = theta = self._initial_params(data.X, rng)
        self._optimizer = Adam(theta.shape[0])
        self._rng = rng
        self._eval_seed = int(rng.integers(2**31 - 1))
        self._beta = 1.0
        self._epoch = 0
        self._n_fit_steps = 0
        self._clear_epoch_state()

    def _empty_stats(self):
        return VAEStats(n=0.0, data_term=0.0, grad=np.zeros(self._network.layout["n"]))

    def _e_step(self, data):
        if data.eps_z is None:  # noise drawn for the rows at hand (fit-time data objects)
            data = self._with_noise(data.X, np.random.default_rng(self._eval_seed))
        rec, kl, _, grad = self._objective(self.params_, data, beta=self._beta,
                                           free_bits=float(self.free_bits))
        data_term = float(rec.sum() / rec.shape[1] - kl.sum())
        return VAEStats(n=float(rec.shape[0]), data_term=data_term, grad=grad)

    def _global_elbo_terms(self):
        return self._objective.global_terms(self.params_)[0]

    def _m_step(self, stats, step_size=1.0, scale=1.0):
        """One Adam ascent step on the per-sample ELBO of the whole data set.

        The gradient is ``(scale * stats.grad + grad_global) / (scale * stats.n)``: with
        ``scale = N / |B|`` it is the unbiased minibatch estimate of the gradient of the
        per-sample ELBO of all ``N`` samples. ``step_size`` is rho in (0, 1], the fraction of
        the full step taken: Adam's learning rate for this step is ``rho * learning_rate``.
        """
        _, g_glob = self._objective.global_terms(self.params_)
        g = stats.grad * scale
        if g_glob is not None:
            g = g + g_glob
        g /= scale * stats.n
        self._optimizer.step(self.params_, g, float(self.learning_rate) * float(step_size))

    def _kl_beta(self, steps_per_epoch):
        w = float(self.kl_warmup_epochs)
        if w <= 0:
            return 1.0
        return min(1.0, self._n_fit_steps / (w * steps_per_epoch))

    def _iterate(self, data, warm=None):
        """One epoch: shuffled minibatch steps over the training rows, then the validation ELBO.

        This overrides the batch driver's "E-step over all data, then one M-step" because a
        VAE has no closed-form M-step: every minibatch is an E-step (Monte-Carlo ELBO and its
        gradient) followed by an M-step (one Adam step with ``scale = N_train / |B|``). One
        iteration of the shared fit loop (:meth:`LatentModel.fit`) is therefore one epoch,
        so ``max_iter``, ``tol``, ``callback`` and the convergence monitor all count epochs.

        Returns
        -------
        float
            Training ELBO of the epoch, nats per sample: the sum over its minibatches of the
            ELBO estimates (each at the parameters entering its step), plus the average global
            term, divided by the number of training samples.
        """
        X = data.X
        rng = self._rng
        if self._split is None:
            n = X.shape[0]
            if self.early_stopping:
                n_val = max(1, int(round(float(self.validation_fraction) * n)))
                if n - n_val < 1:
                    raise InputError(f"validation_fraction={self.validation_fraction} leaves no "
                                     f"training samples out of {n}.")
                perm = rng.permutation(n)
                self._split = (np.sort(perm[n_val:]), np.sort(perm[:n_val]))
            else:
                self._split = (np.arange(n), None)
        train_idx, val_idx = self._split
        N = train_idx.shape[0]
        B = min(int(self.batch_size), N)
        steps = -(-N // B)
        order = rng.permutation(train_idx)
        data_term, glob = 0.0, 0.0
        for k in range(steps):
            rows = order[k * B:(k + 1) * B]
            self._beta = self._kl_beta(steps)
            stats = self._e_step(self._with_noise(X[rows], rng))
            data_term += stats.data_term
            glob += self._global_elbo_terms()
            self._m_step(stats, scale=N / rows.shape[0])
            self._n_fit_steps += 1
        self._beta = 1.0
        self._epoch += 1
        if val_idx is not None:
            draws = self._elbo_draws(X[val_idx], int(self.n_mc_samples), rng)
            val = float(draws.mean())
            self._val_history.append(val)
            if self._best is None or val > self._best[0] + float(self.tol):
                self._best = (val, self.params_.copy(), self._epoch)
            if self.verbose:
                print(f"epoch {self._epoch:5d}  validation elbo {val: .6g}")
        return (data_term + glob / steps) / N

    def _stop_early(self):
        """Early stopping: the validation ELBO has not improved by ``tol`` for
        ``n_iter_no_change`` epochs."""
        if not self.early_stopping or self._best is None:
            return False
        return self._epoch - self._best[2] >= int(self.n_iter_no_change)

    def fit(self, X, y=None):
        """Fit by AEVB: minibatch Adam steps on the Monte-Carlo ELBO, one epoch per iteration.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data (binary for ``'bernoulli'`` unless ``binarize`` is set; one-hot
            groups for ``'categorical'``; real for ``'gaussian'``). Not modified.
        y : ignored

        Returns
        -------
        self

        Raises
        ------
        ValueError, TypeError
            NaN/infinity, non-binary data with the Bernoulli likelihood, malformed one-hot
            groups, invalid hyper-parameters or their types (each message names the argument).
        FloatingPointError
            The ELBO became non-finite (learning rate too large).
        """
        with blas_single_thread():
            try:
                super().fit(X)
            except KeyboardInterrupt:
                if hasattr(self, "params_"):  # keep the interrupted fit consistent
                    self._finish_fit(X)
                raise
            self._finish_fit(X)
        return self

    def _finish_fit(self, X):
        """After the epochs: the best validation parameters, the validation trace and the
        latent activity; the per-fit bookkeeping is cleared."""
        if self._best is not None:
            self.params_ = self._best[1]
            self.best_validation_bound_ = float(self._best[0])
        else:
            self.best_validation_bound_ = None
        self.validation_bounds_ = np.asarray(self._val_history, dtype=np.float64)
        # Cov_x(E_q[z_j | x]) per latent unit (Burda et al. 2016, section 5.2): active > 0.01
        X = self._check_X(X, reset=False)
        self.latent_activity_ = self._network.encode(self.params_, X)[0].var(axis=0)
        self.active_units_ = int(np.sum(self.latent_activity_ > 0.01))
        self._clear_epoch_state()

    def partial_fit(self, X, y=None, *, step_size=1.0, total_samples=None):
        """One Adam step on a minibatch (initialising the model on the first call).

        Parameters
        ----------
        X : array-like of shape (n_batch, n_features)
            The minibatch.
        y : ignored
        step_size : float in (0, 1], default 1.0
            rho, the fraction of the full step taken, as for every model's ``partial_fit``: the
            full step of a VAE is one Adam step with ``learning_rate``, rho scales it to
            ``rho * learning_rate``. The default is 1, not the conjugate models' schedule,
            because Adam adapts its own step; :class:`~latentkit.inference.StochasticVI` passes
            its rho_t.
        total_samples : int, optional
            Size ``N`` of the whole data set: the minibatch gradient is scaled by
            ``N / n_batch`` so that the Bayesian decoder's KL is weighted correctly (without
            it, the minibatch is treated as the whole data set).

        Returns
        -------
        self

        Raises
        ------
        ValueError
            Bad input as in :meth:`fit`; ``total_samples`` smaller than the minibatch.
        """
        first = not hasattr(self, "params_")
        if first:
            self._check_common_params()
            self._validate_params()
        X = self._check_X(X, reset=first)
        if first:
            self._init_params(_VAEData(X), check_random_state(self.random_state))
            self.n_steps_ = 0
        step_size, scale = check_step(step_size, total_samples, X.shape[0])
        if getattr(self, "_rng", None) is None:
            self._rng = np.random.default_rng(self._eval_seed + getattr(self, "n_steps_", 0))
        self._beta = 1.0
        stats = self._e_step(self._with_noise(X, self._rng))
        self._m_step(stats, step_size=step_size, scale=scale)
        self.n_steps_ = getattr(self, "n_steps_", 0) + 1
        return self

    #: in the state with Adam's moments (``adam``) and the base state (the training generator,
    #: whose draws ``partial_fit`` continues, and the sampling one)
    _state_attributes = ("_eval_seed", "_epoch", "_n_fit_steps")

    def _get_state(self):
        state = super()._get_state()
        if getattr(self, "_optimizer", None) is not None:
            state["adam"] = self._optimizer.get_state()
        return state

    def _set_state(self, state):
        state = dict(state)
        adam = state.pop("adam", None)
        super()._set_state(state)
        self._held = None
        if adam is not None:
            self._optimizer = Adam.from_state(adam)
        if self.likelihood == "categorical" and hasattr(self, "n_features_in_"):
            self._groups = one_hot_groups(self.n_categories, self.n_features_in_)
        self._beta = 1.0
        self._clear_epoch_state()

    def _clear_epoch_state(self):
        self._split, self._best, self._val_history = None, None, []

    def elbo(self, X, n_samples=10, return_std=False, random_state=None):
        """Monte-Carlo ELBO of ``X``, mean per sample, with its standard error.

        ``ELBO = (sum_i E_q[log p(x_i | z)] - KL(q(z | x_i) || p(z)) - KL(q(w) || p(w))) / n``
        (the last term only with the Bayesian decoder), with ``n_samples`` reparameterised
        draws per row (and one decoder-weight draw per Monte-Carlo draw).

        Parameters
        ----------
        X : array-like of shape (n, n_features)
        n_samples : int, default 10
            Monte-Carlo draws.
        return_std : bool, default False
            Also return the Monte-Carlo standard error of the estimate (the standard deviation
            of the per-draw data-set means divided by ``sqrt(n_samples)``; needs
            ``n_samples >= 2``).
        random_state : None, int or Generator, default None
            Noise; ``None`` uses a seed fixed at fit time, so repeated calls agree.

        Returns
        -------
        elbo : float
            Nats per sample.
        std : float
            Standard error (nats per sample), when ``return_std``.

        Raises
        ------
        NotFittedError, ValueError
            Unfitted model; bad ``X`` (NaN, wrong number of features, non-binary data);
            ``return_std`` with ``n_samples < 2``.

        References
        ----------
        Kingma & Welling (2014), eq. 10 (SGVB estimator B).
        """
        self._check_is_fitted()
        n_samples = check_scalar(n_samples, "n_samples", numbers.Integral, low=1)
        if return_std and n_samples < 2:
            raise InputError("return_std=True needs n_samples >= 2 to estimate a spread.")
        X = self._check_X(X, reset=False)
        draws = self._elbo_draws(X, n_samples, self._eval_rng(random_state, 0))
        value = float(draws.mean())
        if return_std:
            return value, float(draws.std(ddof=1) / np.sqrt(n_samples))
        return value

    def log_likelihood(self, X, n_importance=100, random_state=None, per_sample=False):
        """Importance-weighted estimate of ``log p(x)`` (Burda et al. 2016, eq. 8).

        ``log p(x) ~ log (1/K) sum_k p(x, z_k) / q(z_k | x)``, ``z_k ~ q(z | x)``: a lower bound
        in expectation that is never below the ELBO in expectation and tightens as ``K``
        grows. With the Bayesian decoder, the decoder is evaluated at the posterior means of
        its weights (a plug-in estimate).

        Parameters
        ----------
        X : array-like of shape (n, n_features)
        n_importance : int, default 100
            ``K``.
        random_state : None, int or Generator
            ``None`` uses a seed fixed at fit time.
        per_sample : bool, default False
            Return the estimate of every row instead of the mean.

        Returns
        -------
        float or ndarray of shape (n,)
            Nats per sample.

        Raises
        ------
        NotFittedError, ValueError
        """
        self._check_is_fitted()
        n_importance = check_scalar(n_importance, "n_importance", numbers.Integral, low=1)
        X = self._check_X(X, reset=False)
        rng = self._eval_rng(random_state, 1)
        with blas_single_thread():
            rows = self._bounds.iwae_rows(self.params_, X, n_importance, rng)
        return rows if per_sample else float(rows.mean())

    def score_samples(self, X):
        """Importance-weighted log-likelihood estimate of every row of ``X`` (n, n_features),
        shape (n,), nats: :meth:`log_likelihood` with ``n_importance=100``."""
        return self.log_likelihood(X, per_sample=True)

    def score(self, X, y=None):
        """Mean importance-weighted log-likelihood estimate (nats per sample); see
        :meth:`log_likelihood`."""
        return self.log_likelihood(X)

    def transform(self, X):
        """Posterior means ``E_q[z | x]``.

        Parameters
        ----------
        X : array-like of shape (n, n_features)

        Returns
        -------
        ndarray of shape (n, latent_dim)

        Raises
        ------
        NotFittedError, ValueError
            Unfitted; NaN, wrong number of features, non-binary data for Bernoulli.
        """
        self._check_is_fitted()
        return self._network.encode(self.params_, self._check_X(X, reset=False))[0]

    def fit_transform(self, X, y=None):
        """``fit(X).transform(X)``: posterior means of the training data, shape (n, latent_dim)."""
        return self.fit(X).transform(X)

    def transform_std(self, X):
        """Posterior standard deviations ``sqrt(Var_q[z | x])``, shape (n, latent_dim)."""
        self._check_is_fitted()
        return np.exp(0.5 * self._network.encode(self.params_, self._check_X(X, reset=False))[1])

    def decode(self, Z):
        """Mean of ``p(x | z)``: probabilities (Bernoulli, categorical) or means (Gaussian).

        Parameters
        ----------
        Z : array-like of shape (n, latent_dim)

        Returns
        -------
        ndarray of shape (n, n_features)

        Raises
        ------
        NotFittedError, ValueError
            Wrong latent dimension or NaN.
        """
        self._check_is_fitted()
        Z = check_array(Z, "Z")
        check_n_features(Z.shape[1], int(self.latent_dim), "Z", "the VAE's latent space")
        return self._network.likelihood.mean(self._network.decode(self.params_, Z))

    inverse_transform = decode

    def reconstruct(self, X):
        """``decode(transform(X))``: the decoder mean at the posterior mean of every row of
        ``X`` (n, n_features), shape (n, n_features)."""
        return self.decode(self.transform(X))

    def sample(self, n_samples=1, random_state=None):
        """Draw ``(X, Z)`` from the generative model: ``z ~ N(0, I)``, ``x ~ p(x | z)``.

        Parameters
        ----------
        n_samples : int, default 1
        random_state : None, int or Generator
            Default None: the model's own sampling generator, seeded from the ``random_state``
            hyper-parameter at fit and advanced by every call (repeated calls give fresh draws).

        Returns
        -------
        X : ndarray of shape (n_samples, n_features)
            Binary (Bernoulli), real (Gaussian) or one-hot groups (categorical).
        Z : ndarray of shape (n_samples, latent_dim)

        Raises
        ------
        NotFittedError, ValueError
        """
        self._check_is_fitted()
        n_samples = check_scalar(n_samples, "n_samples", numbers.Integral, low=1)
        rng = self._sampling_rng(random_state)
        Z = rng.standard_normal((n_samples, int(self.latent_dim)))
        net = self._network
        X = net.likelihood.sample(net.decode(self.params_, Z), rng, net.lik_log_var(self.params_))
        return X, Z

    def _check_state(self):
        """Validate a restored state (:mod:`latentkit.neural._state_checks`)."""
        state = FittedState(vars(self), type(self).__name__)
        check_vae_layers(state)
        check_vae_params(state, self._network.layout["n"])
