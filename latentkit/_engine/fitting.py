"""The one fit driver of the ELBO interface: batch fits, SQUAREM and stochastic steps.

:meth:`latentkit.base.LatentModel.fit` is :func:`fit_model`; the accelerated driver
(:func:`latentkit._engine.acceleration.squarem_fit`) shares its prologue (:func:`prepare_fit`),
its start (:func:`start_run`) and its record (:func:`record_run`, :func:`finish_fit`), and only
replaces the iterations; :meth:`~latentkit.base.LatentModel.partial_fit` and
:class:`latentkit.inference.StochasticVI` share :func:`partial_step`, which returns the step's
ELBO pieces (:class:`StepResult`) instead of leaving them on the model.

The drivers talk to a model only through the hooks listed in ``docs/design.md`` (section 3): the
five methods of the template, ``_global_elbo_terms``, the data-defaults pair
(``_data_summary``/``_set_data_defaults``), the two hook attributes of
:mod:`latentkit._engine.hook_state` (``_defer_data_defaults``, ``_start_bound``), and the
optional ``_warm_state``/``_warm_e_step``, ``_iterate``, ``_stop_early``, ``_stochastic_init``,
``_resolved_tol``/``_resolved_max_iter``.
"""

import dataclasses
import numbers
import warnings

import numpy as np

from .convergence import ConvergenceMonitor
from .hook_state import deferred_data_defaults, take_start_bound
from .start_sample import start_data
from .steps import step_size_schedule
from ..exceptions import ConvergenceWarning, InputError
from .._utils.threads import blas_single_thread
from .._utils.user_frame import user_stacklevel
from .._utils.validation import check_random_state, check_scalar

__all__ = ["FitSetup", "StepResult", "StochasticStart", "e_step_all", "finish_fit",
           "fit_model", "partial_step", "prepare_fit", "record_run", "shallow_state",
           "start_run"]


# --------------------------------------------------------------------------------------------
# Pieces shared by the drivers
# --------------------------------------------------------------------------------------------

def e_step_all(model, data):
    """E-step over all of ``data``: one call, a sum over the chunks of a chunked source (in
    chunk order), or a map-reduce over the blocks of a distributed collection."""
    reduce_stats = getattr(data, "reduce_stats", None)
    if reduce_stats is not None:
        return reduce_stats(model)
    chunks = getattr(data, "iter_chunks", None)
    if chunks is None:
        return model._e_step(data)
    total = model._empty_stats()
    for chunk in chunks():
        total = total + model._e_step(chunk)
    return total


def shallow_state(model):
    """References to the current fitted attributes of ``model`` (the M-steps rebind them, so
    this keeps the parameters of the moment without copying them)."""
    params = set(model._get_param_names())
    return {k: v for k, v in vars(model).items() if k not in params}


@dataclasses.dataclass
class FitSetup:
    """What :func:`prepare_fit` returns: validated data, the start sample, the generator and
    the resolved stopping rule."""

    data: object
    init_data: object
    rng: np.random.Generator
    tol: float
    max_iter: int


def prepare_fit(model, X, fit_params, *, tol=None, max_iter=None, check=None):
    """The prologue of every batch driver: check the hyper-parameters, validate ``X`` (the
    data-derived defaults from all of it), resolve ``tol``/``max_iter`` (unless given) and draw
    the start sample with the fit's generator. ``check(model)`` runs after validation (a driver
    that refuses some models)."""
    model._check_common_params()
    model._validate_params()
    data = model._prepare_data(X, reset=True, **fit_params)
    if check is not None:
        check(model)
    tol = model._resolved_tol() if tol is None else float(tol)
    max_iter = model._resolved_max_iter() if max_iter is None else int(max_iter)
    rng = check_random_state(model.random_state)
    # the same start sample wherever the data lives (all of it, up to a cap)
    init_data = start_data(model, data, X, fit_params, rng)
    return FitSetup(data, init_data, rng, tol, max_iter)


def start_run(model, init_data, rng):
    """Start one run: fresh running statistics, ``_init_params``, and the bound of the run that
    start continues (:func:`take_start_bound`; None for an ordinary start)."""
    model._running_stats = None
    take_start_bound(model)  # only this _init_params may set it
    model._init_params(init_data, rng)
    return take_start_bound(model)


def record_run(model, monitor, lower_bounds=None, n_iter=None):
    """Set ``lower_bounds_``, ``lower_bound_``, ``n_iter_``, ``converged_`` and ``monitor_``
    from the monitor of one run (``lower_bounds``/``n_iter`` when the run evaluated more
    points than its monitor's history, as SQUAREM does)."""
    history = monitor.history if lower_bounds is None else lower_bounds
    model.lower_bounds_ = np.asarray(history, dtype=np.float64)
    model.lower_bound_ = float(monitor.history[-1])
    model.n_iter_ = monitor.iter if n_iter is None else int(n_iter)
    model.converged_ = bool(monitor.converged)
    model.monitor_ = monitor


def finish_fit(model, rng):
    """The epilogue of a batch fit: the training generator where the fit left it (resumed by
    ``partial_fit``) and no stochastic step taken since."""
    model._rng = rng
    model.n_steps_ = 0


# --------------------------------------------------------------------------------------------
# The batch fit
# --------------------------------------------------------------------------------------------

class _Progress:
    """The state of a fit that an interrupt must see: the current run's monitor, the model
    after its last completed iteration, the best completed run."""

    def __init__(self):
        self.monitor = self.last = self.best_state = None
        self.best_bound = -np.inf
        self.stopped = False


def run_once(model, setup, progress, callback=None):
    """One initialisation of the batch fit: start, then E-step, ELBO, M-step (``_iterate``)
    until the monitor converges, ``max_iter`` is reached, ``callback`` or ``_stop_early``
    stops it. Records the run on ``model`` (:func:`record_run`)."""
    progress.monitor, progress.last = None, None
    previous = start_run(model, setup.init_data, setup.rng)
    warm = model._warm_state()  # local state across iterations (LDA)
    monitor = progress.monitor = ConvergenceMonitor(
        setup.tol, setup.max_iter, rule=model._convergence_rule,
        verbose=bool(getattr(model, "verbose", False)), previous=previous,
        decrease_note=model._elbo_decrease_note)
    for n_iter in range(1, setup.max_iter + 1):
        elbo = model._iterate(setup.data, warm)
        monitor.report(elbo)
        progress.last = shallow_state(model)  # the last completed iteration
        stop = callback is not None and bool(callback(model, n_iter, elbo))
        stop = model._stop_early() or stop
        progress.stopped = progress.stopped or stop
        if monitor.converged or stop:
            break
    record_run(model, monitor)


def fit_model(model, X, fit_params):
    """:meth:`latentkit.base.LatentModel.fit`: ``n_init`` runs of :func:`run_once`, the best
    kept; BLAS on one thread throughout; a consistent model after an interrupt."""
    setup = prepare_fit(model, X, fit_params)
    n_init = getattr(model, "n_init", 1)
    callback = getattr(model, "callback", None)
    progress = _Progress()
    model._sample_rng = None  # a refit restarts the draws of sample()
    try:
        # the heavy loops are numba kernels with their own threads: BLAS on one thread for
        # the whole fit (restored afterwards), so OpenBLAS's idle workers, woken by a small
        # product between two E-steps, do not spin on the cores numba's threads need
        # (measured: the threaded GMM E-step went from 1.0x to 2.0x on 2 threads)
        with blas_single_thread():
            for _ in range(n_init):
                run_once(model, setup, progress, callback)
                if model.lower_bound_ > progress.best_bound or progress.best_state is None:
                    progress.best_bound = model.lower_bound_
                    progress.best_state = model._fit_state()
    except KeyboardInterrupt:
        _keep_interrupted_fit(model, progress, setup.rng)
        raise
    vars(model).update(progress.best_state)
    finish_fit(model, setup.rng)
    tol, max_iter = setup.tol, setup.max_iter
    if not model.converged_ and tol > 0 and not progress.stopped:
        warnings.warn(
            f"{type(model).__name__} did not converge in max_iter={max_iter} iterations "
            f"(last ELBO change above tol={tol:.4g}); increase max_iter or tol.",
            ConvergenceWarning, stacklevel=user_stacklevel())
    return model


def _keep_interrupted_fit(model, progress, rng):
    """After a ``KeyboardInterrupt`` (or any interrupt raised by a callback) during a fit:
    keep a consistent model -- the parameters of the last completed iteration of the
    interrupted initialisation or the best completed initialisation, whichever has the higher
    bound, with ``lower_bounds_`` up to that point and ``converged_=False``; a fit interrupted
    before any iteration completed leaves the model unfitted."""
    params = set(model._get_param_names())
    monitor, last = progress.monitor, progress.last
    best_state, best_bound = progress.best_state, progress.best_bound

    def clear_fitted():
        for k in [k for k in vars(model) if k not in params]:
            delattr(model, k)

    current = None
    if last is not None and monitor is not None and monitor.history:
        clear_fitted()
        vars(model).update(last)
        record_run(model, monitor)
        current = model.lower_bound_
    if best_state is not None and (current is None or best_bound >= current):
        clear_fitted()
        vars(model).update(best_state)
    elif current is None:  # no iteration completed: the model is left unfitted
        clear_fitted()
        return
    model.converged_ = False
    finish_fit(model, rng)


# --------------------------------------------------------------------------------------------
# The stochastic step
# --------------------------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class StepResult:
    """The ELBO pieces of one stochastic step, at the parameters entering it.

    Attributes
    ----------
    data_term : float
        The minibatch's ELBO data term (nats, summed over its samples).
    n : float
        Its number of samples.
    global_term : float or None
        ``_global_elbo_terms()`` (nats), when the driver asked for it (``with_global``).
    """

    data_term: float
    n: float
    global_term: object = None


@dataclasses.dataclass(frozen=True)
class StochasticStart:
    """How a driver starts an unfitted model at its first step: the merged ``_data_summary``
    of all the training data (None: the first minibatch's) and the generator of the start
    (None: the model's ``random_state``)."""

    summary: object = None
    rng: object = None


def default_step_size(model, t):
    """``rho_t = (t + tau)^-kappa`` for the 1-based step number ``t``, with the model's
    ``learning_offset`` (tau, default 10) and ``learning_decay`` (kappa, default 0.7)
    (Hoffman, Blei, Wang & Paisley 2013, section 2.3; scikit-learn's online LDA counts steps
    from 1 the same way)."""
    return step_size_schedule(t, getattr(model, "learning_offset", 10.0),
                              getattr(model, "learning_decay", 0.7))


def _validate_first(model, X, fit_params, start):
    """Validate the first minibatch (``reset=True``): its data-derived defaults from the
    driver's summary of all the training data when it gives one."""
    if start is None or start.summary is None:
        return model._validate_data(X, reset=True, **fit_params)
    with deferred_data_defaults(model):
        data = model._validate_data(X, reset=True, **fit_params)
    model._set_data_defaults(start.summary)
    if model._row_fit_params:
        # validated again at the defaults of all the data: a model with side information per
        # row reads it at them (the DTM's slices, Labeled LDA's labels, DMR's covariate rows),
        # so the first minibatch is seen as every later one
        data = model._validate_data(X, reset=False, **fit_params)
    return data


def partial_step(model, X, step_size=None, total_samples=None, fit_params=None, *,
                 with_global=False, start=None):
    """One incremental update of ``model`` from the minibatch ``X`` (the body of
    :meth:`~latentkit.base.LatentModel.partial_fit`; arguments as there); an unfitted model is
    first started from this minibatch by its ``_stochastic_init`` hook (``start``: a
    :class:`StochasticStart` from the driver).

    Returns
    -------
    StepResult
        The step's ELBO pieces at the parameters entering it; the global term only when
        ``with_global`` (it costs a pass over the global factors, e.g. 20 % of an online LDA
        step on KOS).
    """
    fit_params = {} if fit_params is None else fit_params
    first = not model._is_fitted()
    if first:
        model._check_common_params()
        model._validate_params()
        data = _validate_first(model, X, fit_params, start)
    else:
        data = model._validate_data(X, reset=False, **fit_params)
    n_batch = model._n_samples(data)
    if n_batch == 0:
        raise InputError("partial_fit received an empty minibatch.")
    scale = 1.0
    if total_samples is not None:
        total_samples = check_scalar(total_samples, "total_samples", numbers.Real, low=1)
        if total_samples < n_batch:
            raise InputError(
                f"total_samples={total_samples} is smaller than the minibatch "
                f"({n_batch} {model._sample_unit}s); it must be the size of the whole data set."
            )
        scale = total_samples / n_batch
    if first:
        model._running_stats = None
        rng = None if start is None else start.rng
        model._rng = check_random_state(model.random_state) if rng is None else rng
        model._stochastic_init(data, model._rng)
        model.n_steps_ = 0
    t = getattr(model, "n_steps_", 0)
    rho = default_step_size(model, t + 1) if step_size is None else check_scalar(
        step_size, "step_size", numbers.Real, low=0.0, high=1.0, low_inclusive=False)
    stats = e_step_all(model, data)
    result = StepResult(float(stats.data_term), float(stats.n),
                        float(model._global_elbo_terms()) if with_global else None)
    model._m_step(stats, step_size=rho, scale=scale)
    model.n_steps_ = t + 1
    return result
