"""The contract of ``init='spectral'`` for every HMM, as the mixtures have it.

A spectral start is only a start: EM from it may end in a worse optimum than EM from the
model's default start (on the earthquake counts with 3 states, 4 of 5 spectral starts of a
PoissonHMM ended at 329.095 nats of negative log-likelihood where the random start reaches
328.53). So the spectral start is checked against the default start of the class (its
``init`` default: ``'random'`` for the categorical and Poisson HMMs, ``'kmeans++'`` for the
Gaussian ones), drawn from a copy of the fit's generator, exactly what ``init=<default>``
would start from:

1. both starts run the model's own updates for the same short run (:data:`CHECK_ITERATIONS`
   iterations of the model's ``fit``: Baum-Welch for the HMMs, the variational updates for
   the variational HMMs);
2. the start whose run ends at the higher objective (the model's own: log-likelihood or ELBO,
   nats per time step) is kept; when the default start wins, a
   :class:`~latentkit.spectral.SpectralInitWarning` gives both numbers;
3. the model adopts the parameters the kept run ended with, so its own fit *continues* that
   run (its monitor measures the first change from the run's last bound), and the
   iterations of both runs are counted in ``spectral_report_['n_iter']``: the start's cost is
   reported, not hidden.

Degenerate moments (too few triples, rank-deficient pair moments, ...) fall back to the
default start with a warning, without the check.
"""

import copy
import inspect
import warnings

import numpy as np

from .._utils.threads import caught_warnings
from .._utils.user_frame import user_stacklevel
from ..base import clone
from ..spectral import SpectralInitWarning
from ..spectral._multiview import Degenerate

__all__ = ["CHECK_ITERATIONS", "checked_spectral_start"]

#: Iterations of the model's updates run from each start before the two are compared.
CHECK_ITERATIONS = 10

#: Fitted attributes that record a run, not the parameters it ended with, or that follow from
#: the hyper-parameters the check's runs changed (``tol_``): not adopted.
_RUN_RECORD = frozenset({"lower_bound_", "lower_bounds_", "n_iter_", "converged_", "monitor_",
                         "n_steps_", "_rng", "_sample_rng", "_running_stats", "spectral_report_",
                         "_init_params", "squarem_", "tol_"})


def default_init(model):
    """The class's default ``init`` (the start ``init='spectral'`` is checked against)."""
    return inspect.signature(type(model).__init__).parameters["init"].default


def _short_run(model, values, data, n_iter):
    """A clone of ``model`` fitted from the starting values ``values`` (a dict its ``init``
    accepts) for ``n_iter`` iterations; warnings silenced (a check, not the user's fit)."""
    m = clone(model)
    m.set_params(init=values, max_iter=n_iter, tol=0.0, n_init=1, callback=None)
    with caught_warnings("ignore"):
        m.fit(data.X, lengths=np.diff(data.offsets))
    return m


def _adopt(model, fitted):
    """Give ``model`` the parameters (and private fitted state) ``fitted`` ended with, so
    that its fit continues ``fitted``'s run from its last bound."""
    for key, value in fitted._fit_state().items():
        if key not in _RUN_RECORD:
            setattr(model, key, value)
    model._start_bound = float(fitted.lower_bound_)


def checked_spectral_start(model, data, rng):
    """``init='spectral'`` of an HMM under the contract of the module docstring.

    Parameters
    ----------
    model : HiddenMarkovModel or VariationalHMM
        Validated, with its data defaults resolved; it must define ``_start_values(data, rng,
        method)`` (the starting values of ``init=method`` as a dict its ``init`` accepts; for
        'spectral' None when the moments are degenerate).
    data : SequenceData
        The start sample of the fit.
    rng : numpy.random.Generator
        The fit's generator (advanced as by the chosen start).

    Returns
    -------
    None
        The model holds the kept start's parameters after its short run, ``_start_bound``
        and ``spectral_report_``: ``'chosen'`` ('spectral' or the default's name),
        ``'spectral'`` and ``'default'`` (objectives after the short runs, nats per time
        step; ``'spectral'`` None for degenerate moments), ``'default_init'`` and
        ``'n_iter'`` (iterations of the model's updates run inside the start).

    Warns
    -----
    SpectralInitWarning
        Degenerate moments, or a default start whose short run ends higher (both numbers).
    """
    name = default_init(model)
    what = f"the {name} start"
    default_rng = copy.deepcopy(rng)  # the state init=<default> would start from
    try:
        spectral = model._start_values(data, rng, "spectral")
    except Degenerate as exc:
        warnings.warn(f"init='spectral': the moments are degenerate ({exc}); falling back to "
                      f"{what}.", SpectralInitWarning, stacklevel=user_stacklevel())
        spectral = None
    default = model._start_values(data, default_rng, name)
    report = {"chosen": name, "spectral": None, "default": None, "default_init": name,
              "n_iter": 0}
    rng_after_default = default_rng.bit_generator.state
    if spectral is None:  # the default start itself (the dict overrides every value)
        model.set_params(init=default)
        try:
            model._init_params(data, default_rng)
        finally:
            model.set_params(init="spectral")
        rng.bit_generator.state = rng_after_default
        model.spectral_report_ = report
        return None
    runs = {"spectral": _short_run(model, spectral, data, CHECK_ITERATIONS),
            "default": _short_run(model, default, data, CHECK_ITERATIONS)}
    report.update(spectral=float(runs["spectral"].lower_bound_),
                  default=float(runs["default"].lower_bound_),
                  n_iter=int(runs["spectral"].n_iter_ + runs["default"].n_iter_))
    if report["spectral"] >= report["default"]:
        report["chosen"] = "spectral"
        kept = runs["spectral"]
    else:
        kept = runs["default"]
        warnings.warn(
            f"init='spectral': the model's objective after {CHECK_ITERATIONS} iterations from "
            f"the spectral start ({report['spectral']:.6f} nats per time step) is below the "
            f"one from {what} ({report['default']:.6f}); falling back to {what}.",
            SpectralInitWarning, stacklevel=user_stacklevel())
        rng.bit_generator.state = rng_after_default
    _adopt(model, kept)
    model.spectral_report_ = report
    return None
