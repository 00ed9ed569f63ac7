"""The ELBO interface: :class:`LatentModel`, sufficient statistics and the one fit loop.

Every latentkit model is fitted by raising its evidence lower bound (ELBO)

    ELBO(q) = E_q[log p(X, Z, theta)] - E_q[log q(Z, theta)] <= log p(X),

reported in **nats per sample** (a data point, a document, a time step of an HMM; each model's
docstring says which). A model implements a small private template and this module drives it:

``_validate_params()``
    check hyper-parameters; store resolved defaults as ``name_`` (never overwrite ``name``).
``_validate_data(X, reset, **kw) -> data``
    validate the input into the form ``_e_step`` consumes (``reset=True`` in ``fit``).
``_init_params(data, rng)``
    starting global parameters.
``_empty_stats() -> Stats``
    the zero of the model's statistics.
``_e_step(data) -> Stats``
    pure: expected sufficient statistics plus the additive ELBO data term.
``_m_step(stats, step_size=1.0, scale=1.0)``
    closed-form update; a natural-gradient / stepwise step when ``step_size < 1``.
``_global_elbo_terms() -> float``
    sum of ``-KL(q || p)`` of the global factors (log prior for MAP, 0 for ML).

so that ``ELBO = (stats.data_term + _global_elbo_terms()) / stats.n`` with no second pass, and
batch, chunked/streaming, stochastic (SVI) and distributed (Dask) fitting share one code path
(DESIGN.md section 2).
"""

import contextlib
import copy
import inspect
import numbers
import warnings

import numpy as np

from ._utils.threads import blas_scoped, blas_single_thread
from ._engine.steps import step_size_schedule
from ._utils.validation import check_random_state, check_scalar
from .parallel.dask import DaskData
from .sources import ChunkSource, ValidatedChunks
from ._engine.start_sample import start_data
# The building blocks of a model, each in its own module; ``latentkit.base`` stays their public
# import path (``from latentkit.base import Stats, ConvergenceMonitor, ...``).
from ._engine.convergence import ConvergenceMonitor
from .exceptions import ConvergenceWarning, ELBODecreaseWarning, NotFittedError
from ._engine.params import ParamsMixin, clone
from ._utils.rng_state import _rng_from_state, _rng_to_state
from ._engine.stats import Stats, stats_dataclass
from ._utils.user_frame import user_stacklevel

__all__ = [
    "LatentModel",
    "Stats",
    "ConvergenceMonitor",
    "NotFittedError",
    "ConvergenceWarning",
    "ELBODecreaseWarning",
    "ParamsMixin",
    "clone",
    "stats_dataclass",
]


# --------------------------------------------------------------------------------------------
# The model template and the fit loop
# --------------------------------------------------------------------------------------------

class LatentModel(ParamsMixin):
    """Base class of every latentkit model: the ELBO interface and the one fit loop.

    Subclasses implement the private template listed in this module's docstring and the
    public methods of their family (``predict``, ``transform``, ``sample``...). The loop here
    gives every model the same ``fit``, ``partial_fit``, ``elbo``, ``n_init`` best-of,
    ``callback``, ``random_state`` and convergence behaviour.

    Attributes
    ----------
    lower_bound_ : float
        Final ELBO, nats per sample (the last entry of ``lower_bounds_``).
    lower_bounds_ : ndarray of shape (``n_iter_``,)
        ELBO per iteration; entry ``i`` is computed in iteration ``i``'s E-step at the
        parameters entering it (as scikit-learn and hmmlearn record it).
    n_iter_ : int
        Iterations run in the best initialisation.
    converged_ : bool
        Whether ``tol`` was met.
    monitor_ : ConvergenceMonitor
        The monitor of the best initialisation.

    (All set by :meth:`fit`.)

    Notes
    -----
    Class attributes a subclass may set: ``_convergence_rule`` (``'exact'`` for EM/VB,
    ``'noisy'`` for Monte-Carlo bounds), ``_elbo_decrease_note`` (why an exact bound can still
    decrease, for the warning) and ``_sample_unit`` (what ``n`` counts, for messages).
    """

    _convergence_rule = "exact"
    _elbo_decrease_note = None  # why the bound can decrease (ConvergenceMonitor), if it can
    _sample_unit = "sample"
    _tol_may_be_none = False  # a model whose tol=None means "resolved from the data" (tol_)
    #: Inference methods run with BLAS on one thread, as the fit loop is (latentkit._utils.threads)
    _blas_scoped_methods = ("elbo", "score", "score_samples", "predict", "predict_proba",
                            "transform", "perplexity")

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        for name in cls._blas_scoped_methods:
            # defined here, or inherited from a mixin that is not a LatentModel (the HMMs'
            # and the VAE's inference mixins); blas_scoped leaves a wrapped method as it is
            method = getattr(cls, name, None)
            if inspect.isfunction(method) and not getattr(method, "_blas_scoped", False):
                setattr(cls, name, blas_scoped(method))

    # ---- template (subclasses) -------------------------------------------------------------
    def _validate_params(self):
        """Check hyper-parameters; store resolved defaults as ``name_``."""

    def _validate_data(self, X, reset, **kw):  # pragma: no cover - abstract
        raise NotImplementedError

    def _init_params(self, data, rng):  # pragma: no cover - abstract
        raise NotImplementedError

    def _empty_stats(self):  # pragma: no cover - abstract
        raise NotImplementedError

    def _e_step(self, data):  # pragma: no cover - abstract
        raise NotImplementedError

    def _m_step(self, stats, step_size=1.0, scale=1.0):  # pragma: no cover - abstract
        raise NotImplementedError

    def _global_elbo_terms(self):
        """Sum of ``-KL(q || p)`` over global factors; 0 for maximum likelihood."""
        return 0.0

    def _n_samples(self, data):
        """Number of samples in validated data (what ``stats.n`` counts, unweighted)."""
        return data.shape[0]

    def _start_needs_data(self):
        """Whether ``_init_params`` draws its start from the data (True); a model whose
        start needs only the data's width returns False, and a chunked or Dask fit then skips
        gathering the start sample (:mod:`latentkit._engine.start_sample`)."""
        return True

    def _split_data(self, data, n_chunks):
        """Split validated data into ``n_chunks`` contiguous chunks whose E-step statistics sum
        to those of the whole (rows by default; HMMs split on sequence boundaries)."""
        n = self._n_samples(data)
        bounds = np.linspace(0, n, n_chunks + 1).astype(int)
        return [data[a:b] for a, b in zip(bounds[:-1], bounds[1:]) if b > a]

    # ---- data-derived defaults ---------------------------------------------------------------
    def _data_summary(self, data):
        """Mergeable summary (``+``) of validated data from which the data-derived defaults are
        resolved (:mod:`latentkit._utils.summaries`); None when the model has none."""
        return None

    def _set_data_defaults(self, summary):
        """Resolve the data-derived defaults (``mean_doc_length_``, priors, alphabet, scale
        checks...) from the summary of **all** the training data."""

    def _resolve_data_defaults(self, data):
        """Called by ``_validate_data(reset=True)``: resolve the defaults from ``data``, unless
        a driver (chunked source, Dask) is merging the summaries of all chunks first."""
        if self.__dict__.get("_defer_data_defaults"):
            return
        summary = self.__dict__.get("_whole_data_summary")  # set by StochasticVI
        if summary is None:
            summary = self._data_summary(data)
        if summary is not None:
            self._set_data_defaults(summary)

    @contextlib.contextmanager
    def _deferred_data_defaults(self):
        """While active, ``_validate_data(reset=True)`` leaves the data-derived defaults unset
        and chunk validation does not check against them; the driver merges the chunks'
        ``_data_summary`` and calls ``_set_data_defaults`` once."""
        self._defer_data_defaults = True
        try:
            yield
        finally:
            self.__dict__.pop("_defer_data_defaults", None)

    # ---- shared machinery ------------------------------------------------------------------
    def _prepare_data(self, X, reset, **fit_params):
        """Validate ``X`` for the drivers: in-memory input goes through ``_validate_data``; a
        :class:`latentkit.sources.ChunkSource` (chunks read lazily, e.g. from a file) and a
        Dask collection are wrapped so that ``_e_step_all`` sums statistics over chunks or
        blocks without holding the whole data."""
        if isinstance(X, ChunkSource):
            return ValidatedChunks(self, X, reset=reset, fit_params=fit_params)
        if type(X).__module__.partition(".")[0] == "dask":
            return DaskData(self, X, reset=reset, fit_params=fit_params)
        return self._validate_data(X, reset=reset, **fit_params)

    def _e_step_all(self, data):
        """E-step over all of ``data``: one call, a sum over the chunks of a chunked source
        (in chunk order), or a map-reduce over the blocks of a distributed collection."""
        reduce_stats = getattr(data, "reduce_stats", None)
        if reduce_stats is not None:
            return reduce_stats(self)
        chunks = getattr(data, "iter_chunks", None)
        if chunks is None:
            return self._e_step(data)
        total = self._empty_stats()
        for chunk in chunks():
            total = total + self._e_step(chunk)
        return total

    def _elbo_from_stats(self, stats):
        """``(stats.data_term + _global_elbo_terms()) / stats.n``, nats per sample."""
        if stats.n <= 0:
            raise ValueError("Cannot compute an ELBO from statistics of zero samples.")
        return (float(stats.data_term) + float(self._global_elbo_terms())) / float(stats.n)

    def _blend_stats(self, stats, step_size=1.0, scale=1.0):
        """Stepwise-EM helper for point-estimate models (Liang & Klein 2009):
        ``s <- (1 - rho) s + rho * scale * stats``; ``rho = 1`` replaces ``s``.

        Returns the blended statistics, also kept as the running statistics of ``partial_fit``.
        """
        new = stats * scale if scale != 1.0 else stats
        prev = getattr(self, "_running_stats", None)
        if step_size >= 1.0 or prev is None:
            self._running_stats = new
        else:
            self._running_stats = prev * (1.0 - step_size) + new * step_size
        return self._running_stats

    def _warm_state(self):
        """A fresh carrier of local state between the iterations of one batch fit, passed to
        :meth:`_warm_e_step` in every iteration (LDA's monotone guard keeps the previous
        iteration's document posteriors in it: in memory, in temporary files for a chunked
        source, on the workers for Dask, so that every path computes the same). None (the
        default): the E-step is a pure function of the global parameters."""
        return None

    def _warm_e_step(self, data, warm):
        """The E-step of one iteration given the fit's :meth:`_warm_state`; a model with
        local state overrides it for all three kinds of ``data`` (in memory,
        :class:`latentkit.sources.ValidatedChunks`, :class:`latentkit.parallel.dask.DaskData`)."""
        return self._e_step(data, warm=warm)

    def _iterate(self, data, warm=None):
        """One iteration of the batch driver: E-step, ELBO, M-step. Returns the ELBO (nats per
        sample) computed at the parameters entering the iteration. ``warm``: the fit's
        :meth:`_warm_state`."""
        stats = self._e_step_all(data) if warm is None else self._warm_e_step(data, warm)
        elbo = self._elbo_from_stats(stats)
        self._m_step(stats)
        return elbo

    def _stop_early(self):
        """Hook called after every iteration: return True to stop the fit early on a
        model-specific criterion (the VAE's validation ELBO). Like a callback stop, it is not a
        convergence failure. Default: never."""
        return False

    def _resolved_max_iter(self):
        """``max_iter`` (a model with a deprecated old name for it resolves that here)."""
        return int(self.max_iter)

    def _resolved_tol(self):
        """``tol``, or ``tol_`` resolved from the training data when ``tol`` is None."""
        return float(self.tol if self.tol is not None else self.tol_)

    def _is_fitted(self):
        return any(k.endswith("_") and not k.startswith("__") for k in vars(self))

    def _check_is_fitted(self):
        if not self._is_fitted():
            raise NotFittedError(
                f"This {type(self).__name__} instance is not fitted yet. Call 'fit' with "
                "appropriate arguments before using this estimator."
            )

    def _fit_state(self):
        params = set(self._get_param_names())
        return {k: copy.deepcopy(v) for k, v in vars(self).items() if k not in params}

    #: Private attributes that belong to the fitted state (a moment shift, running
    #: statistics kept outside ``Stats``), stored under their names without the underscore.
    _state_attributes = ()

    def _get_state(self):
        """Public fitted attributes plus what resuming needs: the running statistics of
        ``partial_fit`` (``running_stats``), the training generator (``rng``) and the
        generator of :meth:`sample`-like draws (``sample_rng``), as bit-generator states, and
        the attributes named in ``_state_attributes``."""
        state = super()._get_state()
        for name in self._state_attributes:
            if getattr(self, name, None) is not None:
                state[name.lstrip("_")] = getattr(self, name)
        if getattr(self, "_running_stats", None) is not None:
            state["running_stats"] = self._running_stats
        for name in ("rng", "sample_rng"):
            rng = getattr(self, "_" + name, None)
            if rng is not None:
                state[name] = _rng_to_state(rng)
        return state

    def _set_state(self, state):
        state = dict(state)
        for name in self._state_attributes:
            setattr(self, name, state.pop(name.lstrip("_"), None))
        stats = state.pop("running_stats", None)
        self._running_stats = stats
        for name in ("rng", "sample_rng"):
            value = state.pop(name, None)
            setattr(self, "_" + name, None if value is None else _rng_from_state(value))
        super()._set_state(state)

    def _sampling_rng(self, random_state=None):
        """The generator of :meth:`sample`: ``random_state`` when given, else the model's own
        sampling generator, created from the ``random_state`` hyper-parameter on first use and
        advanced by every draw (so repeated calls give fresh draws, reproducibly for a seeded
        model; a refit restarts it). It is separate from the training generator, so sampling
        never changes a later ``partial_fit``."""
        if random_state is not None:
            return check_random_state(random_state)
        rng = getattr(self, "_sample_rng", None)
        if rng is None:
            rng = self._sample_rng = check_random_state(self.random_state)
        return rng

    def _check_common_params(self):
        check_scalar(self.max_iter, "max_iter", numbers.Integral, low=1)
        if self.tol is not None or not self._tol_may_be_none:
            check_scalar(self.tol, "tol", numbers.Real, low=0.0)
        if hasattr(self, "n_init"):
            check_scalar(self.n_init, "n_init", numbers.Integral, low=1)
        cb = getattr(self, "callback", None)
        if cb is not None and not callable(cb):
            raise TypeError(f"callback must be callable or None, got {type(cb).__name__}.")

    # ---- public API --------------------------------------------------------------------------
    def fit(self, X, y=None, **fit_params):
        """Fit the model by raising the ELBO until its change is below ``tol``.

        Runs ``n_init`` initialisations (when the model has ``n_init``) and keeps the one with
        the highest final ELBO.

        Parameters
        ----------
        X : array-like, ChunkSource or Dask collection
            Training data in the model's input form (see the class docstring); a
            :class:`latentkit.inference.ChunkSource` is read chunk by chunk in every iteration
            (memory bounded by one chunk; the start is drawn from the start sample of
            :mod:`latentkit._engine.start_sample`, all the data up to a cap, as in memory, and the
            data-derived defaults come from one statistics pass over all chunks first), and a
            Dask array or bag runs the E-step on the workers (:mod:`latentkit.parallel.dask`).
        y : ignored
            Present for scikit-learn compatibility.
        **fit_params
            Model-specific extras (``sample_weight`` for mixtures, ``lengths`` for HMMs).

        Returns
        -------
        self

        Raises
        ------
        ValueError, TypeError
            Invalid hyper-parameters or input, each message naming the argument.

        Warns
        -----
        ConvergenceWarning
            When no initialisation converged within ``max_iter``.
        """
        self._check_common_params()
        self._validate_params()
        data = self._prepare_data(X, reset=True, **fit_params)
        tol = self._resolved_tol()
        max_iter = self._resolved_max_iter()
        rng = check_random_state(self.random_state)
        # the same start sample wherever the data lives (all of it, up to a cap)
        init_data = start_data(self, data, X, fit_params, rng)
        n_init = getattr(self, "n_init", 1)
        callback = getattr(self, "callback", None)
        best_state, best_bound = None, -np.inf
        stopped = False
        monitor, last = None, None
        self._sample_rng = None  # a refit restarts the draws of sample()
        try:
            # the heavy loops are numba kernels with their own threads: BLAS on one thread for
            # the whole fit (restored afterwards), so OpenBLAS's idle workers, woken by a small
            # product between two E-steps, do not spin on the cores numba's threads need
            # (measured: the threaded GMM E-step went from 1.0x to 2.0x on 2 threads)
            with blas_single_thread():
                for _ in range(n_init):
                    monitor, last = None, None
                    self._running_stats = None
                    vars(self).pop("_start_bound", None)  # only this _init_params may set it
                    self._init_params(init_data, rng)
                    warm = self._warm_state()  # local state across iterations (LDA)
                    monitor = ConvergenceMonitor(tol, max_iter, rule=self._convergence_rule,
                                                 verbose=bool(getattr(self, "verbose", False)),
                                                 previous=vars(self).pop("_start_bound", None),
                                                 decrease_note=self._elbo_decrease_note)
                    for n_iter in range(1, max_iter + 1):
                        elbo = self._iterate(data, warm)
                        monitor.report(elbo)
                        last = self._shallow_state()  # the last completed iteration
                        stop = callback is not None and bool(callback(self, n_iter, elbo))
                        stop = self._stop_early() or stop
                        stopped = stopped or stop
                        if monitor.converged or stop:
                            break
                    self._record_run(monitor)
                    if self.lower_bound_ > best_bound or best_state is None:
                        best_bound = self.lower_bound_
                        best_state = self._fit_state()
        except KeyboardInterrupt:
            self._keep_interrupted_fit(monitor, last, best_state, best_bound, rng)
            raise
        vars(self).update(best_state)
        self._rng = rng  # the training generator, where the fit left it (resumed by partial_fit)
        if not self.converged_ and tol > 0 and not stopped:
            warnings.warn(
                f"{type(self).__name__} did not converge in max_iter={max_iter} iterations "
                f"(last ELBO change above tol={tol:.4g}); increase max_iter or tol.",
                ConvergenceWarning, stacklevel=user_stacklevel())
        self.n_steps_ = 0
        return self

    def _record_run(self, monitor):
        """Set ``lower_bounds_``, ``lower_bound_``, ``n_iter_``, ``converged_`` and ``monitor_``
        from the monitor of one initialisation."""
        self.lower_bounds_ = np.asarray(monitor.history, dtype=np.float64)
        self.lower_bound_ = float(monitor.history[-1])
        self.n_iter_ = monitor.iter
        self.converged_ = bool(monitor.converged)
        self.monitor_ = monitor

    def _shallow_state(self):
        """References to the current fitted attributes (the M-steps rebind them, so this keeps
        the parameters of the moment without copying them)."""
        params = set(self._get_param_names())
        return {k: v for k, v in vars(self).items() if k not in params}

    def _keep_interrupted_fit(self, monitor, last, best_state, best_bound, rng):
        """After a ``KeyboardInterrupt`` (or any interrupt raised by a callback) during
        :meth:`fit`: keep a consistent model -- the parameters of the last completed iteration
        of the interrupted initialisation or the best completed initialisation, whichever has
        the higher bound, with ``lower_bounds_`` up to that point and ``converged_=False``; a
        fit interrupted before any iteration completed leaves the model unfitted."""
        params = set(self._get_param_names())

        def clear_fitted():
            for k in [k for k in vars(self) if k not in params]:
                delattr(self, k)

        current = None
        if last is not None and monitor is not None and monitor.history:
            clear_fitted()
            vars(self).update(last)
            self._record_run(monitor)
            current = self.lower_bound_
        if best_state is not None and (current is None or best_bound >= current):
            clear_fitted()
            vars(self).update(best_state)
        elif current is None:  # no iteration completed: the model is left unfitted
            clear_fitted()
            return
        self.converged_ = False
        self._rng = rng
        self.n_steps_ = 0

    def _default_step_size(self, t):
        """``rho_t = (t + tau)^-kappa`` for the 1-based step number ``t``, with the model's
        ``learning_offset`` (tau, default 10) and ``learning_decay`` (kappa, default 0.7)
        (Hoffman, Blei, Wang & Paisley 2013, section 2.3; scikit-learn's online LDA counts
        steps from 1 the same way)."""
        return step_size_schedule(t, getattr(self, "learning_offset", 10.0),
                                  getattr(self, "learning_decay", 0.7))

    def partial_fit(self, X, y=None, *, step_size=None, total_samples=None, **fit_params):
        """One incremental update from a minibatch.

        Conjugate models take a natural-gradient step (stochastic variational inference,
        Hoffman, Blei, Wang & Paisley 2013), EM models a stepwise-EM step (Liang & Klein 2009):
        ``s <- (1 - rho) s + rho (N / |B|) S_B``. An unfitted model is first initialised from
        this minibatch.

        Parameters
        ----------
        X : array-like
            The minibatch.
        y : ignored
        step_size : float in (0, 1], optional
            ``rho``; default ``(t + learning_offset) ** -learning_decay`` at step ``t``.
            ``step_size=1`` with the full data equals one batch iteration.
        total_samples : int, optional
            N, the size of the full data set: the minibatch statistics are scaled by
            ``N / |B|`` (exactly once). Default: no scaling.
        **fit_params
            As in :meth:`fit`.

        Returns
        -------
        self

        Raises
        ------
        ValueError
            ``step_size`` outside (0, 1], ``total_samples`` smaller than the minibatch, empty
            minibatch.
        """
        first = not self._is_fitted()
        if first:
            self._check_common_params()
            self._validate_params()
        data = self._validate_data(X, reset=first, **fit_params)
        n_batch = self._n_samples(data)
        if n_batch == 0:
            raise ValueError("partial_fit received an empty minibatch.")
        scale = 1.0
        if total_samples is not None:
            total_samples = check_scalar(total_samples, "total_samples", numbers.Real, low=1)
            if total_samples < n_batch:
                raise ValueError(
                    f"total_samples={total_samples} is smaller than the minibatch "
                    f"({n_batch} {self._sample_unit}s); it must be the size of the whole data set."
                )
            scale = total_samples / n_batch
        if first:
            self._running_stats = None
            self._rng = check_random_state(self.random_state)
            self._init_params(data, self._rng)
            self.n_steps_ = 0
        t = getattr(self, "n_steps_", 0)
        rho = self._default_step_size(t + 1) if step_size is None else check_scalar(
            step_size, "step_size", numbers.Real, low=0.0, high=1.0, low_inclusive=False)
        stats = self._e_step_all(data)
        # the step's ELBO pieces at the parameters entering it, for StochasticVI's epoch
        # bounds; the global term only when the driver asks (once per epoch: it costs a
        # pass over the global factors, e.g. 20 % of an online LDA step on KOS)
        glob = self.__dict__.pop("_record_global_term", False)
        self._step_elbo = (float(stats.data_term), float(stats.n),
                           float(self._global_elbo_terms()) if glob else None)
        self._m_step(stats, step_size=rho, scale=scale)
        self.n_steps_ = t + 1
        return self

    @blas_scoped
    def elbo(self, X, **kw):
        """Mean per-sample ELBO of ``X``: local factors optimised, global ones fixed.

        Parameters
        ----------
        X : array-like
            Data in the model's input form.

        Returns
        -------
        float
            Nats per sample (see the class docstring for what a sample is).
        """
        self._check_is_fitted()
        data = self._prepare_data(X, reset=False, **kw)
        return self._elbo_from_stats(self._e_step_all(data))
