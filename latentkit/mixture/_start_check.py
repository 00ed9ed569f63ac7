"""The mixtures' spectral start checked against their k-means++ start (``init='spectral'``).

:func:`choose_start` turns each spectral partition of
:func:`latentkit.spectral.spectral_labels` into the model's starting parameters by one M-step
and keeps the one with the highest log-likelihood (nats per sample, of the requested covariance
type); when the k-means++ start is more likely, a :class:`SpectralInitWarning` says so with
both numbers, and the start is exactly the one ``init='kmeans++'`` gives with the same random
state. For the Dirichlet-process mixture the spectral start has fewer clusters (k from the
spectrum) than the model has columns, and a likelihood always prefers more clusters: there the
model's own objective (the ELBO after one iteration) from each start is compared. A kept start
goes on to the split-and-merge search (:mod:`._split_merge`).

Moved from ``latentkit/spectral/_gmm_start.py`` and ``_recipes.py`` (issue 25). It imports no
model: the models pass their own look-ahead, the public starts (:mod:`._spectral_start`) a
default model.
"""

import copy
import numbers
import warnings

import numpy as np

from .._utils.kmeans import kmeans_plusplus
from .._utils.user_frame import user_stacklevel
from .._utils.validation import check_array, check_random_state, check_sample_weight, check_scalar
from ..exceptions import SpectralInitWarning, InputError, InputTypeError
from ..spectral._gmm_start import (one_hot, params_from_labels, spectral_labels,
                                   start_log_likelihood)
from ..spectral._moments import check_moment_scale
from ._split_merge import bic_complexity, model_lookahead, split_merge

_COVARIANCE_TYPES = ("full", "diag", "spherical", "tied")

__all__ = ["choose_start"]


def _check_n_components(n_components, n_samples, what="samples"):
    k = check_scalar(n_components, "n_components", numbers.Integral, low=1)
    if k > n_samples:
        raise InputError(f"n_components={k} exceeds the number of {what} ({n_samples}); a "
                         f"start needs at least one of them per component.")
    return int(k)


def choose_start(X, n_components, covariance_type, reg_covar, w, rng, n_lloyd_kmeans,
                 what="k-means++", lookahead=None, n_columns=None, check="likelihood",
                 default_model=None):
    """Spectral candidates against the k-means++ start, by the start's log-likelihood or the
    model's objective.

    The spectral partitions (:func:`spectral_labels`) are ranked by the log-likelihood of
    their one-M-step parameters. ``check='likelihood'``: the best is compared with the
    k-means++ candidate with ``n_components`` clusters, drawn from a copy of ``rng``, the
    same way. ``check='objective'``: the model's objective (``lookahead``, one iteration)
    from the best spectral partition is compared with the one from the model's own
    ``init='kmeans++'`` start (``n_columns`` clusters); one iteration each, counted in
    ``report['n_iter']``. When k-means++ wins, the start is the model's own ``init='kmeans++'``
    start for the same random state: k-means++ with ``n_columns`` clusters (the whole
    truncation of a Dirichlet-process mixture) and ``n_lloyd_kmeans`` Lloyd iterations, with
    a :class:`SpectralInitWarning` giving both numbers. When the spectral start is kept,
    :func:`split_merge` fits the model from it (``lookahead``; default maximum-likelihood EM
    of ``covariance_type``, and no search without a ``lookahead`` when ``n_columns`` exceeds
    ``n_components``) and searches for a better optimum; the start is then the
    responsibilities of the optimum reached, so the model's own fit from it only confirms
    convergence, and the iterations spent are in ``report['n_iter']``. Without a ``lookahead``
    the look-ahead fits ``default_model(n_columns, covariance_type=..., reg_covar=...)`` (the
    public starts pass :class:`~latentkit.mixture.GaussianMixture`; the models pass their own
    look-ahead).

    Returns
    -------
    resp : ndarray of shape (n_samples, n_columns)
        Starting responsibilities (one-hot, or those of the optimum the search reached).
    report : dict
        ``'chosen'`` ('spectral' or 'kmeans++'), ``'spectral'`` and ``'kmeans'`` (the
        compared numbers, nats per sample: start log-likelihoods, or with
        ``check='objective'`` the objectives after one iteration; None where not computed,
        e.g. degenerate moments), ``'n_iter'`` (iterations of the model's updates run inside
        the start, the check's included), ``'moves'`` (accepted split-and-merge moves),
        ``'objective'`` (the model's objective at the optimum the search reached, or None).

    Warns
    -----
    SpectralInitWarning
        When the moments are degenerate or the k-means++ start wins the check.
    """
    cols = n_components if n_columns is None else n_columns
    model_rng = copy.deepcopy(rng)  # the state init='kmeans++' would start from
    km_labels = {}

    def kmeans(n_clusters):  # with n_clusters = cols: exactly the model's init='kmeans++' start
        if n_clusters not in km_labels:
            km_labels[n_clusters] = kmeans_plusplus(X, n_clusters, copy.deepcopy(model_rng),
                                                    sample_weight=w, n_lloyd=n_lloyd_kmeans)[1]
        return km_labels[n_clusters]

    report = {"chosen": "kmeans++", "spectral": None, "kmeans": None, "n_iter": 0, "moves": 0,
              "objective": None}
    if check == "likelihood":
        km = params_from_labels(X, kmeans(n_components), n_components, covariance_type,
                                reg_covar, w)
        report["kmeans"] = start_log_likelihood(X, km, covariance_type, reg_covar, w)

    def fallback(reason):
        warnings.warn(f"init='spectral': {reason}; falling back to the {what} start.",
                      SpectralInitWarning, stacklevel=user_stacklevel())
        return one_hot(kmeans(cols), cols), report

    try:
        cands = spectral_labels(X, n_components, w, rng)
    except (ValueError, np.linalg.LinAlgError) as exc:
        return fallback(f"the moments are degenerate ({exc})")
    best = None
    for lab in cands:
        p = params_from_labels(X, lab, n_components, covariance_type, reg_covar, w)
        ll = start_log_likelihood(X, p, covariance_type, reg_covar, w)
        if best is None or ll > best[0]:
            best = (ll, lab)
    report["spectral"], lab_sp = best
    if lookahead is None and cols > n_components:
        # no model to judge births into the empty columns (a likelihood accepts every one)
        report["chosen"] = "spectral"
        return one_hot(lab_sp, cols), report
    if lookahead is None:
        lookahead = model_lookahead(default_model(cols, covariance_type=covariance_type,
                                                  reg_covar=reg_covar), X, w)
    start = one_hot(lab_sp, cols)
    if check == "objective":
        # the model's own objective after one iteration from each start (nats per sample)
        obj_sp, it_sp, start = lookahead(start, 1, 0.0)  # the search continues this run
        obj_km, it_km, _ = lookahead(one_hot(kmeans(cols), cols), 1, 0.0)
        report.update(spectral=obj_sp, kmeans=obj_km, n_iter=it_sp + it_km)
        if obj_sp < obj_km:
            return fallback(
                f"the model's objective after one iteration from the spectral start "
                f"({obj_sp:.4f} nats per sample, {n_components} clusters) is below the one "
                f"from the {what} start ({obj_km:.4f}); the spherical moment model fits this "
                "data poorly")
    elif report["spectral"] < report["kmeans"]:
        return fallback(
            f"the spectral start's log-likelihood ({report['spectral']:.4f} nats per sample, "
            f"{n_components} clusters) is below the k-means++ start's ({report['kmeans']:.4f}); "
            "the spherical moment model fits this data poorly")
    report["chosen"] = "spectral"
    n_checked = report["n_iter"]
    complexity = (bic_complexity(X.shape[1], covariance_type, w.sum())
                  if getattr(lookahead, "penalised", False) else 0.0)
    resp, info = split_merge(X, start, lookahead, covariance_type, reg_covar, w,
                             complexity=complexity)
    info["n_iter"] += n_checked
    report.update(info)
    return resp, report


def _checked_start(X, n_components, covariance_type, reg_covar, sample_weight, random_state,
                   n_lloyd_kmeans, n_columns=None, lookahead=None, check="likelihood",
                   default_model=None):
    """Validate the arguments of the two mixture recipes, then :func:`choose_start`:
    (responsibilities, report)."""
    X = check_array(X, "X")
    k = _check_n_components(n_components, X.shape[0])
    cols = k if n_columns is None else int(check_scalar(n_columns, "n_columns",
                                                        numbers.Integral, low=k))
    if covariance_type not in _COVARIANCE_TYPES:
        raise InputError(f"covariance_type must be one of {_COVARIANCE_TYPES}, got "
                         f"{covariance_type!r}.")
    reg_covar = float(check_scalar(reg_covar, "reg_covar", numbers.Real, low=0.0))
    w = check_sample_weight(sample_weight, X.shape[0])
    rng = check_random_state(random_state)
    check_moment_scale(X, order=3)  # refused by name, not a fallback on inf moments
    what = "k-means++" if cols == k else f"k-means++ ({cols} clusters)"
    if lookahead is not None and not callable(lookahead):
        raise InputTypeError(f"lookahead must be callable or None, got {type(lookahead).__name__}.")
    return choose_start(X, k, covariance_type, reg_covar, w, rng, n_lloyd_kmeans, what=what,
                        lookahead=lookahead, n_columns=cols, check=check,
                        default_model=default_model)
