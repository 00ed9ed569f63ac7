"""Validation of a restored fitted state, one function per model family.

:func:`latentkit.load` rebuilds a model from a file and then calls ``model._check_state()``
(:meth:`latentkit.base.ParamsMixin._check_state`), which runs the function of the model's
family here: every attribute the family needs is present, its shape agrees with the
hyper-parameters (``n_components``, ``covariance_type``, ``n_mix``, ...) and with the other
attributes (``n_features_in_``, the vocabulary size), probabilities are non-negative rows
that sum to one, rates and concentrations are positive, covariances are symmetric positive
definite, and every number is finite. A failure is a ValueError naming the attribute, so a
damaged file is refused at ``load`` rather than at first use.
"""

import numbers

import numpy as np

from ..exceptions import StateCheckError  # defined there; importable here as before

__all__ = ["check_state", "StateCheckError"]

_SUM_TOL = 1e-6  # relative tolerance of the sums of probability rows




def _get(m, name):
    try:
        return getattr(m, name)
    except AttributeError:
        raise StateCheckError(name, f"missing (a fitted {type(m).__name__} has it)") from None


def _int(m, name, low=1):
    v = _get(m, name)
    if isinstance(v, bool) or not isinstance(v, numbers.Integral) or v < low:
        raise StateCheckError(name, f"expected an integer >= {low}, found {v!r}")
    return int(v)


def _real(m, name, low=None):
    v = _get(m, name)
    if isinstance(v, bool) or not isinstance(v, numbers.Real) or not np.isfinite(v) \
            or (low is not None and not v > low):
        bound = "" if low is None else f" > {low}"
        raise StateCheckError(name, f"expected a finite number{bound}, found {v!r}")
    return float(v)


def _array(m, name, shape, positive=False, nonnegative=False):
    """The attribute as an array of the given shape (None: any length), finite."""
    a = _get(m, name)
    if not isinstance(a, np.ndarray) or a.dtype.kind not in "fiu":
        raise StateCheckError(name, f"expected a numeric array, found {type(a).__name__}")
    if a.ndim != len(shape) or any(s is not None and s != n for s, n in zip(shape, a.shape)):
        want = tuple("any" if s is None else s for s in shape)
        raise StateCheckError(name, f"expected shape {want}, found {a.shape}")
    if not np.all(np.isfinite(a)):
        raise StateCheckError(name, "has non-finite values")
    if positive and not np.all(a > 0):
        raise StateCheckError(name, "expected positive values, found some <= 0")
    if nonnegative and not np.all(a >= 0):
        raise StateCheckError(name, "expected non-negative values, found some < 0")
    return a


def _simplex(m, name, shape):
    """Probability rows (the last axis sums to one)."""
    a = _array(m, name, shape, nonnegative=True)
    sums = a.sum(axis=-1)
    if not np.allclose(sums, 1.0, rtol=0.0, atol=_SUM_TOL * max(1, a.shape[-1])):
        raise StateCheckError(name, "expected rows summing to 1 (probabilities), found sums "
                                    f"from {sums.min():.6g} to {sums.max():.6g}")
    return a


def _covariances(m, name, covariance_type, lead, D):
    """Covariances stored per ``covariance_type``: full ``lead + (D, D)``, tied ``(D, D)``
    (``tied_lead + (D, D)`` for mixtures in states), diag ``lead + (D,)``, spherical
    ``lead``; positive variances, symmetric positive-definite matrices."""
    if covariance_type == "full":
        a = _array(m, name, (*lead, D, D))
    elif covariance_type == "tied":
        a = _array(m, name, (*lead[:-1], D, D))
    elif covariance_type == "diag":
        return _array(m, name, (*lead, D), positive=True)
    elif covariance_type == "spherical":
        return _array(m, name, lead, positive=True)
    else:
        raise StateCheckError("covariance_type", f"unknown value {covariance_type!r}")
    if not np.allclose(a, np.swapaxes(a, -1, -2), rtol=1e-8, atol=1e-12):
        raise StateCheckError(name, "expected symmetric matrices")
    try:
        np.linalg.cholesky(a)
    except np.linalg.LinAlgError:
        raise StateCheckError(name, "expected positive-definite matrices") from None
    return a


def _n_components(m):
    return _int(m, "n_components")


# ----------------------------------------------------------------------------- families

def _common(m):
    """What every fitted latentkit model has."""
    return _int(m, "n_features_in_")


def _gaussian_mixture(m):
    K, D = _n_components(m), _common(m)
    _simplex(m, "weights_", (K,))
    _array(m, "means_", (K, D))
    cov = _covariances(m, "covariances_", m.covariance_type, (K,), D)
    _array(m, "precisions_cholesky_", cov.shape)


def _conjugate_mixture(m):
    """VariationalGaussianMixture and DirichletProcessMixture (any component type)."""
    K, D = _n_components(m), _common(m)
    if type(m).__name__ == "DirichletProcessMixture":  # (the 'tail' truncation: sum < 1)
        _array(m, "weights_", (K,), nonnegative=True)
        _array(m, "stick_prior_", (2,), positive=True)
        _array(m, "weight_concentration_", (2, K), nonnegative=True)  # the last stick: 0
    else:
        _simplex(m, "weights_", (K,))
        _real(m, "weight_concentration_prior_", low=0.0)
        _array(m, "weight_concentration_", (K,), positive=True)
    kind = m._component().name  # the component's short name ('poisson', ...)
    if kind != "gaussian":
        (_simplex if kind == "categorical" else _array)(m, "components_", (K, D))
        if kind == "poisson":
            _array(m, "rate_prior_", (2,), positive=True)
            _array(m, "gamma_shape_", (K, D), positive=True)
            _array(m, "gamma_rate_", (K, D), positive=True)
        elif kind == "bernoulli":
            _array(m, "probability_prior_", (2,), positive=True)
            _array(m, "probability_concentration_", (2, K, D), positive=True)
        elif kind == "categorical":
            _array(m, "category_prior_", (D,), positive=True)
            _array(m, "category_concentration_", (K, D), positive=True)
        return
    _array(m, "means_", (K, D))
    cov = _covariances(m, "covariances_", m.covariance_type, (K,), D)
    _array(m, "precisions_cholesky_", cov.shape)
    _real(m, "mean_precision_prior_", low=0.0)
    _array(m, "mean_prior_", (D,))
    _real(m, "degrees_of_freedom_prior_", low=D - 1.0)
    if m.covariance_type == "spherical":
        _real(m, "covariance_prior_", low=0.0)
    else:  # full and tied: one (D, D) matrix; diag: (D,) variances
        _covariances(m, "covariance_prior_", "diag" if m.covariance_type == "diag" else "tied",
                     (1,) if m.covariance_type != "diag" else (), D)
    _array(m, "mean_precision_", (K,), positive=True)
    if m.covariance_type == "tied":  # one Wishart: one number of degrees of freedom
        dof = _array(m, "degrees_of_freedom_", ())
    else:
        dof = _array(m, "degrees_of_freedom_", (K,))
    if not np.all(dof > D - 1):
        raise StateCheckError("degrees_of_freedom_", f"expected values > n_features - 1 = {D - 1}")


def _hmm_chain(m):
    K = _n_components(m)
    _simplex(m, "startprob_", (K,))
    _simplex(m, "transmat_", (K, K))
    return K


def _variational_hmm(m, K, D):
    """The Dirichlet priors and posteriors of a variational HMM (and its emission's)."""
    _array(m, "startprob_prior_", (K,), positive=True)
    _array(m, "transmat_prior_", (K, K), positive=True)
    _array(m, "startprob_posterior_", (K,), positive=True)
    _array(m, "transmat_posterior_", (K, K), positive=True)
    _array(m, "state_occupancy_", (K,), nonnegative=True)
    if hasattr(m, "emissionprob_prior_") or "Categorical" in type(m).__name__:
        V = np.shape(_get(m, "emissionprob_"))[-1]
        _array(m, "emissionprob_prior_", (K, V), positive=True)
        _array(m, "emissionprob_posterior_", (K, V), positive=True)
        return
    _array(m, "means_prior_", (D,))
    _real(m, "beta_prior_", low=0.0)
    _real(m, "dof_prior_", low=0.0)
    _array(m, "means_posterior_", (K, D))
    _array(m, "beta_posterior_", (K,), positive=True)
    if m.covariance_type != "tied":  # tied: one Wishart, one number
        _array(m, "dof_posterior_", (K,), positive=True)
    if m.covariance_type in ("full", "diag"):
        _covariances(m, "scale_prior_", m.covariance_type, (), D)
        _covariances(m, "scale_posterior_", m.covariance_type, (K,), D)


def _hmm(m):
    """The HMMs (maximum likelihood and variational) and the spectral HMM."""
    K, D = _hmm_chain(m), _common(m)
    name = type(m).__name__
    if name.startswith("Variational"):
        _variational_hmm(m, K, D)
    if "Categorical" in name or name == "SpectralHMM":
        V = getattr(m, "n_features", None)
        _simplex(m, "emissionprob_", (K, V if isinstance(V, numbers.Integral) else None))
    elif name == "PoissonHMM":
        _array(m, "lambdas_", (K, D), positive=True)
    elif name == "GMMHMM":
        M = _int(m, "n_mix")
        _simplex(m, "weights_", (K, M))
        _array(m, "means_", (K, M, D))
        _covariances(m, "covariances_", m.covariance_type, (K, M), D)
    elif name in ("GaussianHMM", "VariationalGaussianHMM"):  # (other emissions: the chain)
        _array(m, "means_", (K, D))
        _covariances(m, "covariances_", m.covariance_type, (K,), D)


def _lda(m):
    K, V = _n_components(m), _common(m)
    _array(m, "components_", (K, V), positive=True)
    _array(m, "exp_dirichlet_component_", (K, V), positive=True)
    # a float, or the vector / matrix priors of latentkit.topic._lda_priors
    _real_or_array(m, "doc_topic_prior_", [(K,)])
    _real_or_array(m, "topic_word_prior_", [(V,), (K, V)])


def _real_or_array(m, name, shapes):
    if np.ndim(_get(m, name)) == 0:
        _real(m, name, low=0.0)
        return
    a = _get(m, name)
    if not any(np.shape(a) == s for s in shapes):
        raise StateCheckError(name, f"expected a number or shape {' or '.join(map(str, shapes))}, "
                                    f"found {np.shape(a)}")
    _array(m, name, np.shape(a), positive=True)


def _plsa(m):
    K, V = _n_components(m), _common(m)
    _simplex(m, "components_", (K, V))
    _simplex(m, "doc_topic_", (None, K))


def _vae(m):
    _common(m)
    sizes = _get(m, "hidden_layer_sizes_")
    if not isinstance(sizes, (tuple, list)) or not all(
            isinstance(h, numbers.Integral) and h >= 1 for h in sizes):
        raise StateCheckError("hidden_layer_sizes_", f"expected a tuple of positive integers, "
                                                     f"found {sizes!r}")
    if tuple(sizes) != tuple(m.hidden_layer_sizes):
        raise StateCheckError("hidden_layer_sizes_", f"{tuple(sizes)} disagrees with the "
                                                     f"hyper-parameter {m.hidden_layer_sizes}")
    _array(m, "params_", (m._network.layout["n"],))
    activity = np.asarray(_get(m, "latent_activity_"), dtype=float)
    if getattr(m, "privacy_report_", None) is not None and activity.shape == (
            int(m.latent_dim),) and np.isnan(activity).all():
        return  # a private fit withholds its training-data diagnostics (all NaN by design)
    _array(m, "latent_activity_", (int(m.latent_dim),), nonnegative=True)


def _spectral_gmm(m):
    K, D = _n_components(m), _common(m)
    _array(m, "eigenvalues_", (None,))  # (a sparse start may find fewer)
    _array(m, "weights_", (K,))
    _array(m, "means_", (K, D))
    _array(m, "covariances_", (K,), nonnegative=True)


def _spectral_lda(m):
    K, V = _n_components(m), _common(m)
    _array(m, "eigenvalues_", (K,))
    _simplex(m, "components_", (K, V))
    _array(m, "doc_topic_prior_", (K,), positive=True)


#: family of each model class (by class name, looked up along the MRO so subclasses inherit)
_FAMILIES = {
    "GaussianMixture": _gaussian_mixture,
    "_ConjugateMixture": _conjugate_mixture,
    "HiddenMarkovModel": _hmm,
    "SpectralHMM": _hmm,
    "LatentDirichletAllocation": _lda,
    "PLSA": _plsa,
    "VAE": _vae,
    "SpectralGMM": _spectral_gmm,
    "PrivateSpectralGMM": _spectral_gmm,
    "SpectralLDA": _spectral_lda,
    "PrivateSpectralLDA": _spectral_lda,
}


def check_state(model):
    """Validate the fitted state of ``model`` by its family (nothing for other classes).

    Parameters
    ----------
    model : latentkit.base.ParamsMixin
        A model whose state was just restored (``_set_state``).

    Returns
    -------
    None

    Raises
    ------
    StateCheckError
        (a ValueError) An attribute is missing, has the wrong shape for the
        hyper-parameters or the other attributes, holds non-finite values, probabilities
        that are negative or do not sum to one, non-positive rates, or covariances that are
        not symmetric positive definite; the message names the attribute.
    """
    for cls in type(model).__mro__:
        check = _FAMILIES.get(cls.__name__)
        if check is not None:
            try:
                check(model)
            except StateCheckError as exc:
                sizes = ", ".join(f"{k}={getattr(model, k)!r}" for k in
                                  ("n_components", "n_features_in_") if hasattr(model, k))
                raise StateCheckError(exc.attribute, f"{str(exc).split(': ', 1)[1]} (the "
                                                     f"model has {sizes})") from None
            return
