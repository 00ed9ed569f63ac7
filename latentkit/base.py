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
(DESIGN.md section 2). The drivers are functions of :mod:`latentkit._engine.fitting` (the batch
loop, the stochastic step), :mod:`latentkit._engine.acceleration` (SQUAREM) and
:class:`latentkit.inference.StochasticVI`; the class below holds only the hooks they call (the
template above, then hooks with defaults a model overrides when it needs to) and the helpers a
model calls, in that order. ``docs/design.md`` (section 3) lists every hook with its contract.
"""

import copy
import inspect
import numbers

import numpy as np

from ._utils.threads import blas_scoped
from ._utils.validation import check_random_state, check_scalar
from .parallel.dask import DaskData
from .sources import ChunkSource, ValidatedChunks
from ._engine.fitting import e_step_all, fit_model, partial_step
# The building blocks of a model, each in its own module; ``latentkit.base`` stays their public
# import path (``from latentkit.base import Stats, ConvergenceMonitor, ...``).
from ._engine.convergence import ConvergenceMonitor
from .exceptions import ConvergenceWarning, ELBODecreaseWarning, NotFittedError, InputTypeError
from ._engine.params import ParamsMixin, clone
from ._utils.rng_state import _rng_from_state, _rng_to_state
from ._engine.stats import Stats, stats_dataclass

#: attributes a model may get before ``fit`` (:func:`latentkit.text.attach`: the vocabulary
#: that ``seed_topics`` words are looked up in): no sign of a fit, and a refit keeps them
BEFORE_FIT = frozenset({"feature_names_in_", "text_settings_"})

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

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit import GaussianMixture
    >>> from latentkit.base import LatentModel
    >>> X = np.random.default_rng(0).normal(size=(50, 2))
    >>> model = GaussianMixture(2, random_state=0).fit(X)  # fit is LatentModel's, for every model
    >>> isinstance(model, LatentModel), model.converged_, len(model.lower_bounds_) == model.n_iter_
    (True, True, True)
    >>> bool(np.all(np.diff(model.lower_bounds_) > -1e-9))  # the ELBO never decreases
    True
    """

    _convergence_rule = "exact"
    _elbo_decrease_note = None  # why the bound can decrease (ConvergenceMonitor), if it can
    _sample_unit = "sample"
    _tol_may_be_none = False  # a model whose tol=None means "resolved from the data" (tol_)
    # fit arguments with one entry per row (a document's time, labels, covariates): cut with
    # the rows per chunk of a source, per Dask block and for the start sample
    _row_fit_params = ()
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

    # ---- the template: hooks every model implements (docs/design.md, section 3) -----------------
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

    # ---- hooks with defaults: the data ----------------------------------------------------------
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

    def _stochastic_init(self, data, rng):
        """The start of a stochastic fit (the first :meth:`partial_fit` step, the first step of
        :class:`latentkit.inference.StochasticVI`) from its first minibatch: ``_init_params``
        by default (LDA's ``init='auto'`` starts at random here)."""
        self._init_params(data, rng)

    # ---- hooks: data-derived defaults -----------------------------------------------------------
    def _data_summary(self, data):
        """Mergeable summary (``+``) of validated data from which the data-derived defaults are
        resolved (:mod:`latentkit._utils.summaries`); None when the model has none."""
        return None

    def _set_data_defaults(self, summary):
        """Resolve the data-derived defaults (``mean_doc_length_``, priors, alphabet, scale
        checks...) from the summary of **all** the training data."""

    # ---- hooks with defaults: the fit loop, checks and the fitted state -------------------------
    def _prepare_data(self, X, reset, **fit_params):
        """Validate ``X`` for the drivers: in-memory input goes through ``_validate_data``; a
        :class:`latentkit.sources.ChunkSource` (chunks read lazily, e.g. from a file) and a
        Dask collection are wrapped so that ``e_step_all`` (:mod:`latentkit._engine.fitting`)
        sums statistics over chunks or blocks without holding the whole data."""
        if isinstance(X, ChunkSource):
            return ValidatedChunks(self, X, reset=reset, fit_params=fit_params)
        if type(X).__module__.partition(".")[0] == "dask":
            return DaskData(self, X, reset=reset, fit_params=fit_params)
        return self._validate_data(X, reset=reset, **fit_params)

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
        stats = e_step_all(self, data) if warm is None else self._warm_e_step(data, warm)
        elbo = self._elbo_from_stats(stats)
        self._m_step(stats)
        return elbo

    def _stop_early(self):
        """Hook called after every iteration: return True to stop the fit early on a
        model-specific criterion (the VAE's validation ELBO). Like a callback stop, it is not a
        convergence failure. Default: never."""
        return False

    def _deprecated_fit(self):
        """Hook: the fit that deprecated hyper-parameters select instead of the batch loop
        (LDA's ``learning_method='online'``, which runs
        :class:`latentkit.inference.StochasticVI`, until latentkit 0.3), as a callable
        ``fit(X, y, **fit_params) -> self``; None (the default): :meth:`fit` runs the batch
        loop. Not for new models: a model never overrides ``fit``, a driver takes it."""
        return None

    def _resolved_max_iter(self):
        """``max_iter`` (a model with a deprecated old name for it resolves that here)."""
        return int(self.max_iter)

    def _resolved_tol(self):
        """``tol``, or ``tol_`` resolved from the training data when ``tol`` is None."""
        return float(self.tol if self.tol is not None else self.tol_)

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

    def _check_common_params(self):
        check_scalar(self.max_iter, "max_iter", numbers.Integral, low=1)
        if self.tol is not None or not self._tol_may_be_none:
            check_scalar(self.tol, "tol", numbers.Real, low=0.0)
        if hasattr(self, "n_init"):
            check_scalar(self.n_init, "n_init", numbers.Integral, low=1)
        cb = getattr(self, "callback", None)
        if cb is not None and not callable(cb):
            raise InputTypeError(f"callback must be callable or None, got {type(cb).__name__}.")

    # ---- helpers a model calls (not overridden) -------------------------------------------------
    def _resolve_data_defaults(self, data):
        """Called by ``_validate_data(reset=True)``: resolve the defaults from ``data``, unless
        a driver (chunked source, Dask, StochasticVI) is merging the summaries of all chunks first
        (:func:`latentkit._engine.fitting.deferred_data_defaults`)."""
        if self.__dict__.get("_defer_data_defaults"):
            return
        summary = self._data_summary(data)
        if summary is not None:
            self._set_data_defaults(summary)


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


    def _is_fitted(self):
        return any(k.endswith("_") and not k.startswith("__") and k not in BEFORE_FIT
                   for k in vars(self))


    def _check_is_fitted(self):
        if not self._is_fitted():
            raise NotFittedError(
                f"This {type(self).__name__} instance is not fitted yet. Call 'fit' with "
                "appropriate arguments before using this estimator."
            )


    def _fit_state(self):
        params = set(self._get_param_names())
        return {k: copy.deepcopy(v) for k, v in vars(self).items() if k not in params}


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


    # ---- public API -----------------------------------------------------------------------------
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
        # the spectral start's record is this fit's: a refit with another init leaves none
        vars(self).pop("spectral_report_", None)
        deprecated = self._deprecated_fit()
        if deprecated is not None:
            return deprecated(X, y, **fit_params)
        return fit_model(self, X, fit_params)

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
        self._partial_step(X, step_size, total_samples, **fit_params)
        return self

    def _partial_step(self, X, step_size=None, total_samples=None, *, with_global=False,
                      start=None, **fit_params):
        """The step of :meth:`partial_fit`, returning its ELBO pieces
        (:class:`latentkit._engine.fitting.StepResult`;
        :func:`latentkit._engine.fitting.partial_step`).
        :class:`latentkit.inference.StochasticVI` calls it directly: ``with_global`` asks for
        the global term at the parameters entering the step, ``start`` (a
        :class:`~latentkit._engine.fitting.StochasticStart`) gives an unfitted model the
        summary of all the training data and the generator of its start. A model overrides
        it to change a default of the step (LDA: ``total_samples``)."""
        return partial_step(self, X, step_size, total_samples, fit_params,
                            with_global=with_global, start=start)

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
        return self._elbo_from_stats(e_step_all(self, data))
