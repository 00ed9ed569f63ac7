"""Checks of a restored VAE state (its ``_check_state`` hook): functions of a
:class:`~latentkit._engine.state_checks.FittedState` (the fitted values by name) and of the
network's size, raising :class:`~latentkit.exceptions.StateCheckError` naming the bad
attribute."""

import numbers

import numpy as np

from .._engine.state_checks import FittedState, StateCheckError, _array, _get, _int

__all__ = ["FittedState", "check_vae_layers", "check_vae_params"]


def check_vae_layers(state):
    """``n_features_in_`` and ``hidden_layer_sizes_`` (positive integers, as the
    hyper-parameter ``hidden_layer_sizes`` says): what the network is built from."""
    _int(state, "n_features_in_")
    sizes = _get(state, "hidden_layer_sizes_")
    if not isinstance(sizes, (tuple, list)) or not all(
            isinstance(h, numbers.Integral) and h >= 1 for h in sizes):
        raise StateCheckError("hidden_layer_sizes_", f"expected a tuple of positive integers, "
                                                     f"found {sizes!r}")
    if tuple(sizes) != tuple(state["hidden_layer_sizes"]):
        raise StateCheckError("hidden_layer_sizes_", f"{tuple(sizes)} disagrees with the "
                                                     f"hyper-parameter "
                                                     f"{state['hidden_layer_sizes']}")


def check_vae_params(state, n_params):
    """The flat parameter vector (``n_params`` long: the network's layout) and the latent
    activity (NaN throughout for a private fit, which withholds its training-data
    diagnostics)."""
    _array(state, "params_", (n_params,))
    latent_dim = int(state["latent_dim"])
    activity = np.asarray(_get(state, "latent_activity_"), dtype=float)
    if state.get("privacy_report_") is not None and activity.shape == (
            latent_dim,) and np.isnan(activity).all():
        return  # a private fit withholds its training-data diagnostics (all NaN by design)
    _array(state, "latent_activity_", (latent_dim,), nonnegative=True)
