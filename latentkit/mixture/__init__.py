"""Mixture models: Gaussian mixture by EM (``_gaussian.py``), variational Gaussian mixture
(``_variational.py``) and truncated Dirichlet-process mixture (``_dirichlet_process.py``); the
two variational ones share the template of ``_conjugate.py`` and the component protocol of
``_components.py`` (categorical, Poisson, Bernoulli; Gaussian in ``_gaussian_component.py``).
``init='spectral'``: ``_start_check.py`` (the spectral start against k-means++),
``_split_merge.py`` (the search from it) and ``_spectral_start.py`` (the public functions).

The names are imported lazily (PEP 562, :func:`latentkit._utils.lazy.lazy_exports`): ``fit gmm``
imports ``_gaussian`` and what it needs, not its siblings."""

from .._utils.deprecation import replaced_names
from .._utils.lazy import lazy_exports

_EXPORTS = {
    "CategoricalComponent": "_components",
    "ConjugateComponent": "_components",
    "DirichletProcessMixture": "_dirichlet_process",
    "GaussianMixture": "_gaussian",
    "VariationalGaussianMixture": "_variational",
    "spectral_init_gmm": "_spectral_start",
    "spectral_responsibilities": "_spectral_start",
}

__all__ = sorted(_EXPORTS)

_lazy_getattr, __dir__ = lazy_exports(globals(), _EXPORTS)

#: adapters that are no longer public: users pass the distribution (until 0.3 they import,
#: with a DeprecationWarning naming it)
__getattr__ = replaced_names(__name__, {
    "GaussianComponent": ("latentkit.mixture._gaussian_component",
                          "latentkit.distributions.Gaussian"),
    "PoissonComponent": ("latentkit.mixture._components", "latentkit.distributions.Poisson"),
    "BernoulliComponent": ("latentkit.mixture._components",
                           "latentkit.distributions.Bernoulli"),
}, fallback=_lazy_getattr)
