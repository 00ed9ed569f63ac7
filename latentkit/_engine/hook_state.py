"""The two declared hook attributes through which a driver and a model exchange state, and
the only functions that touch them (``docs/design.md``, section 3).

``_defer_data_defaults``
    Raised by :func:`deferred_data_defaults` while a driver (a chunked source, Dask, the start
    sample, :class:`latentkit.inference.StochasticVI`) validates pieces of the training data
    whose data-derived defaults it resolves once from the merged summaries;
    ``LatentModel._resolve_data_defaults`` (and a model's chunk checks) read it.
``_start_bound``
    Set by an ``_init_params`` that continues another run (the spectral starts of the
    mixtures end at a fitted optimum) to the ELBO that run reported last;
    :func:`take_start_bound` hands it to the fit's monitor.
"""

import contextlib

__all__ = ["deferred_data_defaults", "take_start_bound"]


@contextlib.contextmanager
def deferred_data_defaults(model):
    """While active, ``model._validate_data(reset=True)`` leaves the data-derived defaults
    unset and chunk validation does not check against them; the driver merges the chunks'
    ``_data_summary`` and calls ``_set_data_defaults`` once."""
    model._defer_data_defaults = True
    try:
        yield
    finally:
        model.__dict__.pop("_defer_data_defaults", None)


def take_start_bound(model):
    """``model._start_bound``, removed from the model: the ELBO (nats per sample) that the
    run an ``_init_params`` continues reported last, or None. The fit's monitor measures its
    first change from it."""
    return vars(model).pop("_start_bound", None)
