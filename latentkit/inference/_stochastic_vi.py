"""Stochastic variational inference (and stepwise EM) for any latentkit model:
:class:`StochasticVI`, re-exported by :mod:`latentkit.inference` (its public path).

Each step is the model's ``_partial_step`` (:func:`latentkit._engine.fitting.partial_step`),
which returns its ELBO pieces; the driver keeps the epoch bounds, the held-out trace and the
noisy convergence rule. Hoffman, Blei, Wang & Paisley (2013, Algorithm 1); Liang & Klein (2009).
"""

import numbers
import time

import numpy as np
import scipy.sparse as sp

from .._utils.chunking import split_sequences
from .._utils.validation import check_lengths, check_random_state, check_scalar
from .._engine.steps import check_learning_rate
from .._engine.fitting import StochasticStart, shallow_state
from .._engine.hook_state import deferred_data_defaults
from ..base import BEFORE_FIT, ConvergenceMonitor, LatentModel, NotFittedError, ParamsMixin, clone
from ..sources import ChunkSource, IterableSource, ValidatedChunks
from .._utils.row_params import slice_row_params, take_rows
from ..exceptions import InputError, InputTypeError

__all__ = ["StochasticVI", "SVIRun"]


# --------------------------------------------------------------------------------------------
# Stochastic variational inference
# --------------------------------------------------------------------------------------------

def _clone_with_vocabulary(model):
    """``clone(model)`` keeping what a model may hold before ``fit`` (``BEFORE_FIT``: the
    vocabulary ``feature_names_in_`` and ``text_settings_`` of :func:`latentkit.text.attach`,
    in which LDA's ``seed_topics`` words are looked up), as a refit keeps them."""
    copy = clone(model)
    for name in BEFORE_FIT:
        if name in vars(model):
            setattr(copy, name, getattr(model, name))
    return copy


def _model_tol(model):
    """The default tolerance of the held-out rule: the model's own stopping tolerance
    (``_resolved_tol()``, e.g. LDA's ``tol_ = 1e-3 x`` the mean document length), read once
    the first step has set its data-derived defaults; 1e-3 for a model without one."""
    hook = getattr(model, "_resolved_tol", None)
    try:
        return 1e-3 if hook is None else float(hook())
    except (AttributeError, TypeError):  # no tol, or tol=None without a data default
        return 1e-3


def record_trace(model, run):
    """The per-epoch record of a stochastic fit on the fitted model, as ``fit`` leaves it
    (an iteration is an epoch, as for the VAE): ``lower_bounds_`` (the epochs' training
    bounds), ``lower_bound_``, ``n_iter_``, ``converged_`` and ``monitor_`` (the noisy rule
    of the held-out ELBO), and the held-out trace ``heldout_bounds_``, ``heldout_steps_``,
    ``heldout_times_``. Nothing for a model stepped through its own ``partial_fit`` (the
    VAE), whose steps return no ELBO and which keeps its own record."""
    if not run.epoch_bounds:
        return
    model.lower_bounds_ = np.asarray(run.epoch_bounds, dtype=float)
    model.lower_bound_ = float(model.lower_bounds_[-1])
    model.n_iter_ = int(run.epoch)
    model.converged_ = bool(run.monitor.converged)
    model.monitor_ = run.monitor
    model.heldout_bounds_ = np.asarray(run.bounds, dtype=float)
    model.heldout_steps_ = np.asarray(run.steps, dtype=int)
    model.heldout_times_ = np.asarray(run.times, dtype=float)


def _training_summary(model, X, source, fit_params):
    """The merged ``_data_summary`` of all the training data (or None), computed on a probe
    copy so that ``model`` stays unfitted for ``partial_fit``'s initialisation."""
    probe = _clone_with_vocabulary(model)
    probe._check_common_params()
    probe._validate_params()
    if source is not None:
        return ValidatedChunks(probe, source, reset=True, fit_params=fit_params).summary
    with deferred_data_defaults(probe):
        return probe._data_summary(probe._validate_data(X, reset=True, **fit_params))


class SVIRun:
    """The record of one stochastic fit (:meth:`StochasticVI._fit_into`): the model, the
    held-out trace (``bounds``, ``steps``, ``times``), the epochs' training bounds, the steps
    ``t`` and epochs taken, and the noisy monitor of the held-out ELBO."""

    def __init__(self, model, monitor):
        self.model, self.monitor = model, monitor
        self.bounds, self.steps, self.times, self.epoch_bounds = [], [], [], []
        self.t = self.epoch = 0


def _template_step(model):
    """``model._partial_step`` (the step of the template's ``partial_fit``, returning its ELBO
    pieces) when the model's ``partial_fit`` is the template's; None for a model with its own
    ``partial_fit`` (the VAE), which StochasticVI then calls."""
    if getattr(type(model), "partial_fit", None) is LatentModel.partial_fit:
        return model._partial_step
    return None


def _model_stepper(model, n):
    """The model's dedicated SVI step (``model._svi_stepper(N)``: an object with
    ``step(batch, rho, record_global)`` and ``sync()``, equal to ``partial_fit`` but cheaper),
    or None: then every step is ``partial_fit``."""
    hook = getattr(model, "_svi_stepper", None)
    return None if hook is None else hook(n)


def _is_fraction(holdout):
    """Whether ``holdout`` is a fraction of the rows (a real number, not a bool), not a
    held-out data set."""
    return isinstance(holdout, numbers.Real) and not isinstance(holdout, bool)


def _heldout_count(frac, n):
    """Rows that ``holdout`` as a fraction ``frac`` takes from ``n``: at least one, rounded.
    The one rule of :meth:`StochasticVI.fit` and of LDA's online minibatch size."""
    return max(1, int(round(frac * n)))


class StochasticVI(ParamsMixin):
    """Stochastic variational inference (and stepwise EM) for any latentkit model.

    Each step draws a minibatch B, runs the model's local E-step on it and takes
    ``model._m_step(S_B, step_size=rho_t, scale=N/|B|)``: for conjugate models
    (LatentDirichletAllocation, VariationalGaussianMixture, DirichletProcessMixture) the
    natural-gradient step ``lambda <- (1 - rho_t) lambda + rho_t (prior + (N/|B|) S_B)`` of
    Hoffman, Blei, Wang & Paisley (2013, Algorithm 1); for EM models (GaussianMixture, PLSA,
    HMMs) the stepwise EM update of the running statistics (Liang & Klein 2009). The minibatch
    statistics are scaled by ``N/|B|`` exactly once, inside ``partial_fit``.

    Parameters
    ----------
    model : LatentModel
        An unfitted template model; it is cloned into ``model_`` (never modified).
    batch_size : int, default 256
        ``|B|``, samples per minibatch; more than the N training samples means one minibatch
        of all of them (scikit-learn's online LDA; LDA's ``learning_method='online'`` did so).
    learning_offset : float, default 10.0
        tau >= 0 in ``rho_t = (t + tau)^-kappa``.
    learning_decay : float, default 0.7
        kappa in (0.5, 1].
    n_epochs : int, default 10
        Passes over the data (ignored when ``max_steps`` is reached first).
    max_steps : int, optional
        Maximum number of minibatch steps.
    shuffle : bool, default True
        Shuffle in-memory data every epoch (chunk sources are read in order).
    holdout : float, array-like or None, default None
        Held-out data for convergence and the trace: a fraction in (0, 1) of the in-memory
        training data split off at random, or a separate data set (or a tuple
        ``(X_heldout, fit_params)``, e.g. with ``{'lengths': ...}`` for HMMs). ``None`` disables
        the held-out trace and convergence check (``n_epochs``/``max_steps`` stop the run).
    evaluate_every : int, optional
        Steps between held-out evaluations; default once per epoch's tenth (at least 1).
    tol : float or None, default None
        Noisy convergence rule on the held-out ELBO (nats per sample): stop when the means of
        the last two windows of ``window`` evaluations differ by less than ``tol``. None: the
        model's own stopping tolerance in the same unit (its ``tol``, or the ``tol_`` it
        resolves from the training data, e.g. LDA's ``1e-3 x`` the mean document length, as
        batch ``fit`` uses it); 1e-3 for a model without one.
    window : int, default 5
    random_state : None, int or numpy.random.Generator
        Seeds the model's initialisation, the hold-out split and the shuffling.
    callback : callable, optional
        ``callback(svi, n_steps, heldout_elbo)`` after each evaluation; True stops.

    Attributes
    ----------
    model_ : LatentModel
        The fitted model. It keeps the template's vocabulary (``feature_names_in_``,
        ``text_settings_``: :func:`latentkit.text.attach`) and holds the record of the run as
        ``fit`` leaves one, an iteration being an epoch: ``lower_bounds_`` (=
        ``epoch_bounds_``), ``lower_bound_``, ``n_iter_`` (= ``n_epochs_``), ``converged_``,
        ``monitor_`` and the held-out trace ``heldout_bounds_``, ``heldout_steps_``,
        ``heldout_times_`` (not for a model with its own ``partial_fit``, the VAE).
    epoch_bounds_ : ndarray of shape (``n_epochs_``,)
        Training ELBO of each epoch (nats per sample), estimated from its minibatches as the
        VAE's ``lower_bounds_`` is: the sum of their data terms, each at the parameters
        entering its step, divided by the samples they hold, plus the global term at the
        parameters entering the epoch divided by N (evaluated once per epoch). With
        ``batch_size = N`` entry i is exactly the training ELBO at the parameters entering
        epoch i. Empty for a model with its own ``partial_fit`` (the VAE), whose step
        returns no ELBO.
    heldout_bounds_ : ndarray of shape (n_evaluations,)
        Held-out ELBO (nats per sample) at each evaluation.
    heldout_steps_ : ndarray of int
        Step numbers of the evaluations.
    heldout_times_ : ndarray of float
        Seconds since the start of ``fit`` at each evaluation (excluding evaluation time),
        for time-to-accuracy curves.
    n_steps_ : int
    n_epochs_ : int
    converged_ : bool
    monitor_ : ConvergenceMonitor

    Raises
    ------
    ValueError
        kappa outside (0.5, 1], a ``total_samples`` inconsistent with the source, an empty
        minibatch.

    Notes
    -----
    With ``learning_offset=0`` the first step size is ``1^-kappa = 1``, so a single step with
    the full data as one batch equals one batch VB / EM iteration.

    Each step is the model's ``_partial_step`` (the step of the template's ``partial_fit``,
    :func:`latentkit._engine.fitting.partial_step`), which returns the minibatch's ELBO pieces
    for ``epoch_bounds_``; the first one starts the model from the summary of all the training
    data (its data-derived defaults) and from ``random_state``. A model with its own
    ``partial_fit`` (the VAE) is stepped through it.

    A model may provide a cheaper equivalent of its ``partial_fit`` step (``_svi_stepper``):
    LatentDirichletAllocation's touches only the minibatch's words, keeping
    ``lambda = eta + S U`` with the common factor ``S`` of the words outside the minibatch
    (:mod:`latentkit.topic._lda_svi`; equal to ``partial_fit`` to rounding). The first step
    always goes through ``partial_fit`` (initialisation); the model is brought up to date
    before every evaluation, callback and at the end.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit import LatentDirichletAllocation, StochasticVI
    >>> rng = np.random.default_rng(0)
    >>> X = rng.poisson(1.0, size=(200, 20))
    >>> lda = LatentDirichletAllocation(3, random_state=0)
    >>> svi = StochasticVI(lda, batch_size=50, n_epochs=2, random_state=0).fit(X)
    >>> svi.model_.components_.shape, svi.n_steps_  # 2 epochs of 4 minibatches of 50 rows
    ((3, 20), 8)
    """

    def __init__(self, model, batch_size=256, learning_offset=10.0, learning_decay=0.7,
                 n_epochs=10, max_steps=None, shuffle=True, holdout=None, evaluate_every=None,
                 tol=None, window=5, random_state=None, callback=None):
        self.model = model
        self.batch_size = batch_size
        self.learning_offset = learning_offset
        self.learning_decay = learning_decay
        self.n_epochs = n_epochs
        self.max_steps = max_steps
        self.shuffle = shuffle
        self.holdout = holdout
        self.evaluate_every = evaluate_every
        self.tol = tol
        self.window = window
        self.random_state = random_state
        self.callback = callback

    # -- helpers ---------------------------------------------------------------------------
    def _check_params(self):
        check_learning_rate(self.learning_offset, self.learning_decay)
        check_scalar(self.batch_size, "batch_size", numbers.Integral, low=1)
        check_scalar(self.n_epochs, "n_epochs", numbers.Integral, low=1)
        if self.max_steps is not None:
            check_scalar(self.max_steps, "max_steps", numbers.Integral, low=1)
        if self.evaluate_every is not None:
            check_scalar(self.evaluate_every, "evaluate_every", numbers.Integral, low=1)
        if self.tol is not None:
            check_scalar(self.tol, "tol", numbers.Real, low=0.0)
        check_scalar(self.window, "window", numbers.Integral, low=1)
        if isinstance(self.model, type):
            raise InputTypeError(f"model must be a model instance, e.g. {self.model.__name__}(...), "
                            f"got the class {self.model.__name__} itself.")
        if not hasattr(self.model, "partial_fit") or not hasattr(self.model, "_m_step"):
            raise InputTypeError(f"model must be a latentkit model with partial_fit, got "
                            f"{type(self.model).__name__}.")

    def _minibatches(self, X, source, rng, bs=None, fit_params=None, take=None):
        """Yield (batch, fit_params) for one epoch.

        Chunks with ``lengths`` (HMM sequences) are cut into whole sequences by
        :func:`latentkit._utils.chunking.split_sequences` with targets at ``batch_size, 2 batch_size,
        ...`` rows of the chunk: each minibatch ends at the sequence boundary nearest to its
        target. (Before the one splitter, minibatches were packed greedily with at most
        ``batch_size`` rows, which gave more and smaller minibatches than ``N / batch_size``;
        the minibatches of sequences, hence the SVI steps and traces on them, differ from
        those of latentkit 0.1.) ``bs``: ``batch_size`` capped at N (default ``batch_size``).
        ``take``: a one-element list; once ``take[0]`` is set (the stepper's row taker of
        in-memory data validated once, ``stepper.bind(X)``), in-memory minibatches are
        ``take[0](rows)`` instead of ``X[rows]``."""
        bs = self.batch_size if bs is None else bs
        names = tuple(self.model._row_fit_params)  # cut with the rows (times=, labels=...)
        rows = {k: v for k, v in (fit_params or {}).items() if k in names and v is not None}
        if source is None:
            n = X.shape[0]
            order = rng.permutation(n) if self.shuffle else np.arange(n)
            for a in range(0, n, bs):
                idx = np.sort(order[a:a + bs]) if sp.issparse(X) else order[a:a + bs]
                if take is not None and take[0] is not None:  # no row arguments (rows == {})
                    yield take[0](idx), {}
                    continue
                yield X[idx], {k: take_rows(v, idx) for k, v in rows.items()}
        else:
            start = 0
            for chunk in source.iter_chunks():
                kw = {}
                if isinstance(chunk, tuple):
                    chunk, kw = chunk
                m = chunk.shape[0]
                kw = {**slice_row_params(rows, names, start, start + m), **kw}
                start += m
                if m == 0:
                    raise InputError("The data source yielded an empty chunk (an empty minibatch).")
                lengths = kw.get("lengths")
                if lengths is None:
                    for a in range(0, m, bs):
                        yield chunk[a:a + bs], slice_row_params(kw, names, a, a + bs)
                    continue
                # sequences (HMMs): minibatches of whole sequences cut near every bs rows
                # of the chunk (latentkit._utils.chunking.split_sequences, the one rule)
                lengths = np.asarray(lengths)
                offsets = np.concatenate([[0], np.cumsum(lengths)])
                bounds = split_sequences(offsets, np.arange(bs, m, bs))
                for s, e in zip(bounds[:-1], bounds[1:]):  # row-aligned arguments cut too
                    yield chunk[offsets[s]:offsets[e]], {
                        **slice_row_params(kw, names, int(offsets[s]), int(offsets[e])),
                        "lengths": lengths[s:e]}

    def _sequences_as_source(self, X, fit_params):
        """In-memory sequences (``lengths``) as one chunk of whole sequences, which
        :meth:`_minibatches` cuts into minibatches of whole sequences (the same path as a
        ChunkSource of ``(X, {'lengths': ...})`` chunks)."""
        if _is_fraction(self.holdout):
            raise InputError("holdout as a fraction of the rows would cut sequences apart; with "
                             "lengths give holdout=(X_heldout, {'lengths': lengths_heldout}).")
        X = np.asarray(X) if not hasattr(X, "shape") else X
        if getattr(X, "ndim", 2) == 0:
            raise InputTypeError(f"X must be an array, got {type(X).__name__}.")
        fit_params = dict(fit_params)
        offsets = check_lengths(fit_params.pop("lengths"), X.shape[0])
        chunk = (X, {**fit_params, "lengths": np.diff(offsets)})
        return IterableSource([chunk], n_samples=X.shape[0]), {}

    def fit(self, X, y=None, total_samples=None, **fit_params):
        """Fit ``model_`` by stochastic steps over minibatches of ``X``.

        Parameters
        ----------
        X : array-like, scipy.sparse matrix, or ChunkSource
            Training data; a :class:`ChunkSource` is streamed (chunks split into minibatches).
        y : ignored
        total_samples : int, optional
            N, the number of training samples; default the size of ``X`` or
            ``X.n_samples``. Given with an in-memory ``X`` it must equal its size.
        **fit_params
            Passed to the model's ``partial_fit``. ``lengths`` (HMM sequences in memory)
            makes minibatches of whole sequences of about ``batch_size`` time steps, as a
            ChunkSource of ``(X, {'lengths': ...})`` chunks does.

        Returns
        -------
        self
        """
        self._check_params()
        rng = check_random_state(self.random_state)
        model = _clone_with_vocabulary(self.model)
        if hasattr(model, "random_state"):
            model.set_params(random_state=int(rng.integers(2**31 - 1)))
        return self._fit_into(model, X, rng, total_samples, fit_params,
                              record=self._record_fit)

    def _fit_into(self, model, X, rng, total_samples, fit_params, *, start_rng=None,
                  record):
        """The stochastic fit of ``model`` itself (unfitted; :meth:`fit` passes a clone of
        ``model``, LDA's ``learning_method='online'`` the estimator): ``rng`` draws the
        hold-out split and the shuffles, ``start_rng`` (default: the model's
        ``random_state``) its start. ``record(run)`` receives the :class:`SVIRun` at the end,
        and after an interrupt once a step completed (then the model is that of the last
        completed step and the interrupt is raised again)."""
        if not isinstance(X, ChunkSource) and fit_params.get("lengths") is not None:
            X, fit_params = self._sequences_as_source(X, fit_params)
        source = X if isinstance(X, ChunkSource) else None
        heldout = None
        if source is None:
            if isinstance(X, (list, tuple)):
                X = np.asarray(X)
            if not hasattr(X, "shape"):
                raise InputTypeError("X must be an array, a sparse matrix or a ChunkSource, got "
                                f"{type(X).__name__}.")
            if sp.issparse(X):
                X = sp.csr_matrix(X)
            if _is_fraction(self.holdout):
                frac = check_scalar(self.holdout, "holdout", numbers.Real, low=0.0, high=1.0,
                                    low_inclusive=False, high_inclusive=False)
                perm = rng.permutation(X.shape[0])
                n_hold = _heldout_count(frac, X.shape[0])
                hold_idx, train_idx = np.sort(perm[:n_hold]), np.sort(perm[n_hold:])
                heldout, X = X[hold_idx], X[train_idx]
            n = X.shape[0]
        else:
            if _is_fraction(self.holdout):
                raise InputError("holdout as a fraction needs in-memory data; give a held-out "
                                 "data set with a ChunkSource.")
            n = source.n_samples
        if heldout is None and self.holdout is not None and not isinstance(self.holdout, numbers.Real):
            heldout = self.holdout
        if total_samples is not None:
            total_samples = check_scalar(total_samples, "total_samples", numbers.Integral, low=1)
            if n is not None and total_samples != n:
                raise InputError(
                    f"total_samples={total_samples} is inconsistent with the data, which has "
                    f"{n} samples."
                )
            n = total_samples
        if n is None:
            raise InputError("The number of samples N is unknown: give total_samples= or a "
                             "source with n_samples.")
        if n == 0:
            raise InputError("X has no samples.")
        # more than N: one minibatch of all the training samples (scikit-learn's online LDA)
        bs = min(int(self.batch_size), int(n))
        if isinstance(heldout, tuple):  # (X, fit_params), e.g. HMM sequences with lengths
            heldout, heldout_kw = heldout
        else:
            heldout_kw = {}
        # data-derived defaults (priors, alphabet, scale checks) from all the training data,
        # not from the first minibatch: one statistics pass, given to the first step
        start = StochasticStart(_training_summary(model, X, source, fit_params), start_rng)
        step = _template_step(model)
        every = self.evaluate_every or max(1, int(np.ceil(n / bs)) // 10)
        max_steps = self.max_steps if self.max_steps is not None else np.inf
        # tol=None: the model's own tolerance, known once the first step set its defaults
        run = SVIRun(model, ConvergenceMonitor(1e-3 if self.tol is None else self.tol, np.inf,
                                               rule="noisy", window=self.window))
        # rho_t = (t + tau)^-kappa (step_size_schedule, its parameters checked once here, not
        # per step: the same floats, tests/topic/test_svi_step_overhead.py)
        check_learning_rate(self.learning_offset, self.learning_decay)
        tau, kappa = float(self.learning_offset), float(self.learning_decay)
        elapsed = 0.0
        stop = False
        self.model_ = model  # visible to callbacks during the fit
        last = None  # the model after the last completed step
        stepper = None  # the model's own sparse step, once partial_fit has initialised it
        take = [None]  # its taker of rows of X validated once (in-memory data)
        try:
            for run.epoch in range(1, self.n_epochs + 1):
                epoch_sum = [0.0, 0.0, None]  # data terms, samples, global term
                for batch, kw in self._minibatches(X, source, rng, bs, fit_params, take):
                    if batch.shape[0] == 0:
                        raise ValueError("An empty minibatch was drawn.")
                    t0 = time.perf_counter()
                    rho = min(1.0, (run.t + 1 + tau) ** -kappa)  # step_size_schedule's
                    with_global = epoch_sum[2] is None  # the epoch's first step (or none yet)
                    if stepper is not None:
                        result = stepper.step(batch, rho, record_global=with_global)
                    elif step is not None:
                        result = step(batch, step_size=rho, total_samples=n,
                                      with_global=with_global, start=start,
                                      **{**fit_params, **kw})
                        if run.t == 0 and not fit_params and not kw:
                            stepper = _model_stepper(model, n)
                            if (stepper is not None and source is None
                                    and hasattr(stepper, "bind")):
                                take[0] = stepper.bind(X)  # validated once, not per step
                    else:  # a model with its own partial_fit (the VAE): no step ELBO
                        model.partial_fit(batch, step_size=rho, total_samples=n,
                                          **{**fit_params, **kw})
                        result = None
                    run.t += 1
                    if run.t == 1 and self.tol is None:
                        run.monitor.tol = _model_tol(model)
                    if result is not None:
                        epoch_sum[0] += result.data_term
                        epoch_sum[1] += result.n
                        if epoch_sum[2] is None:
                            epoch_sum[2] = result.global_term
                        bound = epoch_sum[0] / epoch_sum[1] + epoch_sum[2] / n
                        if len(run.epoch_bounds) < run.epoch:
                            run.epoch_bounds.append(bound)
                        else:
                            run.epoch_bounds[-1] = bound
                    if stepper is None:
                        last = shallow_state(model)
                    elapsed += time.perf_counter() - t0
                    if heldout is not None and run.t % every == 0:
                        if stepper is not None:
                            stepper.sync()
                        value = model.elbo(heldout, **heldout_kw)
                        run.bounds.append(value)
                        run.steps.append(run.t)
                        run.times.append(elapsed)
                        run.monitor.report(value)
                        if self.callback is not None and self.callback(self, run.t, value):
                            stop = True
                        if run.monitor.converged:
                            stop = True
                    if stop or run.t >= max_steps:
                        break
                if stop or run.t >= max_steps:
                    break
        except KeyboardInterrupt:
            # keep the model of the last completed step (or no model before the first one)
            if stepper is not None:  # its state changes only once a step is complete
                stepper.sync()
                last = shallow_state(model)
            if last is None:
                del self.model_
                raise
            params = set(model._get_param_names())
            for k in [k for k in vars(model) if k not in last and k not in params]:
                delattr(model, k)
            vars(model).update(last)
            run.monitor.converged = False
            record(run)
            raise
        if stepper is not None:
            stepper.sync()
        record(run)
        return self

    def _record_fit(self, run):
        self.model_ = run.model
        record_trace(run.model, run)
        self.epoch_bounds_ = np.asarray(run.epoch_bounds, dtype=float)
        self.heldout_bounds_ = np.asarray(run.bounds, dtype=float)
        self.heldout_steps_ = np.asarray(run.steps, dtype=int)
        self.heldout_times_ = np.asarray(run.times, dtype=float)
        self.n_steps_ = run.t
        self.n_epochs_ = run.epoch
        self.converged_ = bool(run.monitor.converged)
        self.monitor_ = run.monitor

    def __getattr__(self, name):
        # Forward fitted attributes and inference methods (components_, transform, elbo,
        # perplexity, predict, ...) to the fitted model.
        if name.startswith("__") or name in ("model_",):
            raise AttributeError(name)
        model = self.__dict__.get("model_")
        if model is None:
            if name.endswith("_") or hasattr(type(self.__dict__.get("model", object)), name):
                raise NotFittedError(f"This StochasticVI instance is not fitted yet; "
                                     f"'{name}' is available after fit.")
            raise AttributeError(name)
        return getattr(model, name)
