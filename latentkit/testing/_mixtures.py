"""Test support for the Gaussian mixtures: one spelling of the Gaussian component's
hyper-parameters for tests shared by :class:`~latentkit.mixture.VariationalGaussianMixture`
(flat hyper-parameters, as scikit-learn's) and :class:`~latentkit.mixture.DirichletProcessMixture`
(``component=Gaussian(...)``, :class:`latentkit.distributions.Gaussian`)."""

from ..distributions import Gaussian
from ..mixture import DirichletProcessMixture

__all__ = ["GAUSSIAN_COMPONENT_PARAMS", "gaussian_mixture"]

#: the hyper-parameters of :class:`~latentkit.distributions.Gaussian`
GAUSSIAN_COMPONENT_PARAMS = ("covariance_type", "reg_covar", "mean_precision_prior",
                             "mean_prior", "degrees_of_freedom_prior", "covariance_prior",
                             "missing")


def gaussian_mixture(cls, *args, **kw):
    """``cls(*args, **kw)``, with the Gaussian component's hyper-parameters in ``kw`` passed
    to a DirichletProcessMixture as its ``component`` object.

    Parameters
    ----------
    cls : type
        A Gaussian mixture class.
    *args, **kw
        Its arguments, the Gaussian component's (:data:`GAUSSIAN_COMPONENT_PARAMS`) given flat.

    Returns
    -------
    LatentModel
        The unfitted model.
    """
    if issubclass(cls, DirichletProcessMixture):
        comp = {k: kw.pop(k) for k in GAUSSIAN_COMPONENT_PARAMS if k in kw}
        if comp:
            kw["component"] = Gaussian(**comp)
    return cls(*args, **kw)
