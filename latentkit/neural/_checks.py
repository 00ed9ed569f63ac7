"""The VAE's checks of its hyper-parameters and of its input (every message names the
argument, what was expected and what was found); called by :class:`latentkit.neural.VAE`."""

import numbers

import numpy as np

from .._utils.summaries import MomentSummary
from .._utils.summaries import check_second_moments as _check_second_moments
from .._utils.validation import check_array, check_n_features, check_scalar
from ._likelihoods import one_hot_groups
from ._network import LIKELIHOOD_CLASSES, make_likelihood
from ..exceptions import InputError, InputTypeError

__all__ = ["check_params", "check_input", "check_step"]

LIKELIHOODS = tuple(LIKELIHOOD_CLASSES)
ACTIVATIONS = ("relu", "tanh", "softplus")


def check_params(vae):
    """Check the hyper-parameters of ``vae`` (a :class:`VAE`); return its hidden layer widths
    as a tuple of int (``hidden_layer_sizes_``).

    Raises
    ------
    ValueError, TypeError
        A hyper-parameter out of range or of the wrong type (the message names it).
    """
    check_scalar(vae.latent_dim, "latent_dim", numbers.Integral, low=1)
    hls = vae.hidden_layer_sizes
    if isinstance(hls, numbers.Integral) and not isinstance(hls, bool):
        hls = (hls,)
    try:
        hls = tuple(hls)
    except TypeError:
        raise InputTypeError("hidden_layer_sizes must be a tuple of positive ints, got "
                        f"{vae.hidden_layer_sizes!r}.") from None
    for h in hls:
        check_scalar(h, "hidden_layer_sizes entries", numbers.Integral, low=1)
    if vae.activation not in ACTIVATIONS:
        raise InputError(f"activation must be one of {ACTIVATIONS}, got {vae.activation!r}.")
    if vae.likelihood not in LIKELIHOODS:
        raise InputError(f"likelihood must be one of {LIKELIHOODS}, got {vae.likelihood!r}.")
    ov = vae.observation_variance
    if isinstance(ov, str):
        if ov not in ("diagonal", "isotropic"):
            raise InputError("observation_variance must be 'diagonal', 'isotropic' or a "
                             f"positive float, got {ov!r}.")
    else:
        check_scalar(ov, "observation_variance", numbers.Real, low=0.0, low_inclusive=False)
    if vae.binarize is not None:
        check_scalar(vae.binarize, "binarize", numbers.Real)
        if vae.likelihood != "bernoulli":
            raise InputError("binarize applies to likelihood='bernoulli' only, got "
                             f"likelihood={vae.likelihood!r}.")
    check_scalar(vae.n_mc_samples, "n_mc_samples", numbers.Integral, low=1)
    check_scalar(vae.learning_rate, "learning_rate", numbers.Real, low=0.0,
                 low_inclusive=False)
    check_scalar(vae.batch_size, "batch_size", numbers.Integral, low=1)
    if not isinstance(vae.early_stopping, (bool, np.bool_)):
        raise InputTypeError(f"early_stopping must be a bool, got {vae.early_stopping!r}.")
    check_scalar(vae.validation_fraction, "validation_fraction", numbers.Real, low=0.0,
                 high=1.0, low_inclusive=False, high_inclusive=False)
    check_scalar(vae.n_iter_no_change, "n_iter_no_change", numbers.Integral, low=1)
    check_scalar(vae.kl_warmup_epochs, "kl_warmup_epochs", numbers.Real, low=0.0)
    check_scalar(vae.free_bits, "free_bits", numbers.Real, low=0.0)
    if not isinstance(vae.bayesian_decoder, (bool, np.bool_)):
        raise InputTypeError(f"bayesian_decoder must be a bool, got {vae.bayesian_decoder!r}.")
    check_scalar(vae.decoder_prior_std, "decoder_prior_std", numbers.Real, low=0.0,
                 low_inclusive=False)
    return tuple(int(h) for h in hls)


def check_input(X, likelihood, binarize=None, n_categories=None, n_features_in=None,
                groups=None, name="X", model_name="VAE"):
    """Validate and transform the input ``X`` (n, D) of a VAE: binarise it for
    ``binarize=t``. Never modifies the caller's array.

    Parameters
    ----------
    X : array-like of shape (n, D)
    likelihood : {'bernoulli', 'gaussian', 'categorical'}
    binarize : float, optional
        The Bernoulli likelihood's threshold (``X > binarize``).
    n_categories : int or sequence of int, optional
        The categorical likelihood's group sizes (read at fit only, see ``groups``).
    n_features_in : int, optional
        None at fit (then the Gaussian likelihood's scale check runs and the one-hot groups
        come from ``n_categories``); otherwise the fitted width ``X`` must have.
    groups : tuple of ndarray, optional
        ``(starts, sizes)`` of the fitted one-hot groups (categorical, after fit).
    name, model_name : str
        For the messages.

    Returns
    -------
    X : ndarray of shape (n, D)
    groups : tuple of ndarray or None
        ``(starts, sizes)`` of the one-hot groups for the categorical likelihood, else None.

    Raises
    ------
    ValueError
        NaN or infinity, the wrong number of features, non-binary data with the Bernoulli
        likelihood, malformed one-hot groups.
    """
    X = check_array(X, name, dtype=np.float64)
    if n_features_in is None:
        if likelihood == "gaussian":  # the scale check of every Gaussian model
            _check_second_moments(MomentSummary.of(X, np.ones(X.shape[0]), diagonal=True),
                                  name)
    else:
        check_n_features(X.shape[1], n_features_in, name, model_name)
    if likelihood == "bernoulli":
        if binarize is not None:
            X = (X > binarize).astype(np.float64)
        elif not np.all((X == 0.0) | (X == 1.0)):
            bad = X[(X != 0.0) & (X != 1.0)][0]
            raise InputError(
                f"{name} must be binary (0/1) for likelihood='bernoulli', found the value "
                f"{bad}; pass binarize=threshold to binarise it (e.g. binarize=0.5 for data "
                "scaled to [0, 1]) or use likelihood='gaussian'.")
    elif likelihood == "categorical":
        if n_features_in is None:
            groups = one_hot_groups(n_categories, X.shape[1])
        make_likelihood("categorical", groups).check_one_hot(X, name)
    return X, groups


def check_step(step_size, total_samples, n):
    """Check ``partial_fit``'s ``step_size`` (in (0, 1]) and ``total_samples`` (at least the
    minibatch's ``n`` rows); return ``(step_size, scale)``, ``scale = total_samples / n``
    (1 without ``total_samples``).

    Raises
    ------
    ValueError, TypeError
        Either out of range or not a number.
    """
    scale = 1.0
    if total_samples is not None:
        total_samples = check_scalar(total_samples, "total_samples", numbers.Real, low=1)
        if total_samples < n:
            raise InputError(f"total_samples={total_samples} is smaller than the minibatch "
                             f"({n} samples); it must be the size of the whole data set.")
        scale = total_samples / n
    step_size = check_scalar(step_size, "step_size", numbers.Real, low=0.0, high=1.0,
                             low_inclusive=False)
    return step_size, scale
