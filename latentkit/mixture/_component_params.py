"""The component hyper-parameter of :class:`~latentkit.mixture.DirichletProcessMixture`:
the string shorthands, the check of a given component, and the deprecated flattened
spelling of latentkit < 0.2.

Before 0.2 the mixture took ``component_type='poisson'`` and every component's priors as its
own keywords (``rate_prior=``, ``covariance_type=``, ...), 24 parameters in all. Now it takes
one ``component=`` object, as :class:`~latentkit.sequence.HiddenMarkovModel` takes
``emission=``; the old keywords still work for one release (folded into the component with a
``DeprecationWarning``, :func:`latentkit._utils.deprecation.moved_kwargs`) and model files
written before are read with them folded silently (:func:`upgrade_params`, called by
:func:`latentkit.load`).
"""

from ._components import (BernoulliComponent, CategoricalComponent, ConjugateComponent,
                          PoissonComponent)
from ._gaussian_component import GaussianComponent
from ..distributions._counts import Bernoulli, Categorical, Poisson
from ..distributions._gaussian_family import Gaussian
from ..exceptions import InputError, InputTypeError

__all__ = ["COMPONENTS", "DISTRIBUTIONS", "LEGACY_DEFAULTS", "PUBLIC", "build_component",
           "fold_legacy", "shorthand_of", "upgrade_params"]

#: ``component`` shorthand -> component class; a string builds one with default priors.
COMPONENTS = {"gaussian": GaussianComponent, "categorical": CategoricalComponent,
              "poisson": PoissonComponent, "bernoulli": BernoulliComponent}

#: shorthand -> the class users pass where the adapter is private (the distribution): what
#: the deprecated flattened keywords and old model files fold into
PUBLIC = {"gaussian": Gaussian, "poisson": Poisson, "bernoulli": Bernoulli}

#: distribution class -> the adapter built from it (``component=Poisson(...)``): the one
#: class per distribution that the HMMs take as ``emission=`` too; its prior's ``None`` is
#: the variational mixtures' proper default
DISTRIBUTIONS = {
    Poisson: lambda d: PoissonComponent(
        rate_prior=(1.0, 1.0) if d.rate_prior is None else d.rate_prior),
    Categorical: lambda d: CategoricalComponent(
        category_prior=0.5 if d.category_prior is None else d.category_prior),
    Bernoulli: lambda d: BernoulliComponent(
        probability_prior=(1.0, 1.0) if d.probability_prior is None else d.probability_prior),
    Gaussian: lambda d: GaussianComponent(**d.get_params(deep=False)),
}

#: The flattened keywords of latentkit < 0.2 and their defaults then.
LEGACY_DEFAULTS = {"component_type": "gaussian", "category_prior": 0.5,
                   "rate_prior": (1.0, 1.0), "probability_prior": (1.0, 1.0),
                   "covariance_type": "full", "reg_covar": 1e-6, "mean_precision_prior": None,
                   "mean_prior": None, "degrees_of_freedom_prior": None,
                   "covariance_prior": None, "missing": "error"}


def build_component(component):
    """The component object of the hyper-parameter ``component`` (a shorthand string builds
    one with its defaults; an object is used as it is, the model never modifies it).

    Parameters
    ----------
    component : str, ConjugateComponent or distribution
        A distribution of :data:`DISTRIBUTIONS` (``Poisson(rate_prior=...)``) is turned into
        its component, with the same prior.

    Returns
    -------
    ConjugateComponent

    Raises
    ------
    ValueError
        An unknown shorthand.
    TypeError
        Neither a string nor a component object.
    """
    if isinstance(component, str):
        if component not in COMPONENTS:
            raise InputError(f"component must be one of {list(COMPONENTS)} or a component "
                             f"object (e.g. Poisson(rate_prior=(2.0, 1.0))), got "
                             f"{component!r}.")
        return COMPONENTS[component]()
    if type(component) in DISTRIBUTIONS:
        return DISTRIBUTIONS[type(component)](component)
    if not isinstance(component, ConjugateComponent):
        raise InputTypeError(f"component must be one of {list(COMPONENTS)} or a component object "
                        f"(a distribution such as latentkit.distributions.Gaussian), got "
                        f"{type(component).__name__}.")
    return component


def fold_legacy(component, legacy, owner="DirichletProcessMixture"):
    """The component object that the deprecated keywords ``legacy`` describe.

    Parameters
    ----------
    component : str or ConjugateComponent
        The ``component`` argument given with them ('gaussian' when it was left out).
    legacy : dict
        Deprecated keywords (names of :data:`LEGACY_DEFAULTS`) and their values.
    owner : str
        Class name, for the messages.

    Returns
    -------
    ConjugateComponent or distribution
        ``component_type``'s class (or ``component``'s shorthand; the distribution of
        :data:`PUBLIC` where the adapter is private) built from the keywords it takes; the keywords of other component types are dropped, as they had no effect
        before either.

    Raises
    ------
    TypeError
        A component object given together with old keywords.
    ValueError
        ``component_type`` and a different ``component`` shorthand given together; an unknown
        ``component_type``; ``missing='marginalize'`` for a non-Gaussian type (refused before
        as well).
    """
    legacy = dict(legacy)
    if not isinstance(component, str):
        raise InputTypeError(f"{owner}: give the priors inside the component object, not as the "
                        f"deprecated keywords {sorted(legacy)} next to component={component!r}.")
    kind = legacy.pop("component_type", component)
    if kind != component and component != "gaussian":
        raise InputError(f"{owner}: give component= only (component_type= is its deprecated "
                         f"name); got component={component!r} and component_type={kind!r}.")
    if not isinstance(kind, str) or kind not in COMPONENTS:
        raise InputError(f"component_type must be one of {list(COMPONENTS)}, got {kind!r}.")
    cls = PUBLIC.get(kind, COMPONENTS[kind])
    names = set(cls._get_param_names())
    if "missing" not in names and legacy.get("missing", "error") != "error":
        raise InputError(f"missing='marginalize' needs component_type='gaussian'; {kind} data "
                         f"has no missing entries, got missing={legacy['missing']!r}.")
    return cls(**{k: v for k, v in legacy.items() if k in names})


def shorthand_of(component):
    """The shorthand string of a component object of one of the built-in classes (adapter or
    :data:`PUBLIC` distribution), or None.

    Parameters
    ----------
    component : object

    Returns
    -------
    str or None
    """
    return next((k for table in (COMPONENTS, PUBLIC) for k, c in table.items()
                 if type(component) is c), None)


def upgrade_params(params):
    """The hyper-parameters of a model file written before 0.2 (flattened component
    keywords) in today's form, folded silently (the file is not the user's code).

    Parameters
    ----------
    params : dict
        The stored hyper-parameters.

    Returns
    -------
    dict
        ``params`` without the old keywords and with ``component`` the object they describe
        (unchanged when the file has none of them).
    """
    legacy = {k: params[k] for k in params if k in LEGACY_DEFAULTS}
    if not legacy:
        return params
    out = {k: v for k, v in params.items() if k not in LEGACY_DEFAULTS}
    out["component"] = fold_legacy(out.get("component", "gaussian"), legacy)
    return out
