"""Drivers of the ELBO interface beyond the batch loop of :mod:`latentkit.base`.

* **Sources** of data read lazily in chunks (:class:`ArraySource`, :class:`IterableSource`,
  :class:`DocwordSource`, :class:`CSVSource`): ``model.fit(source)`` sums the E-step statistics
  over the chunks in every iteration, so a data set larger than memory is fitted by exact batch
  EM / VB with memory bounded by one chunk plus the model.
* :class:`StochasticVI` (:mod:`latentkit.inference._stochastic_vi`): stochastic variational
  inference (Hoffman, Blei, Wang & Paisley 2013) for the conjugate models, and stepwise EM
  (Liang & Klein 2009) for the EM models, through the models' ``partial_fit`` step: one step
  is ``_m_step(S_B, step_size=rho_t, scale=N/|B|)``, i.e.
  ``lambda <- (1 - rho_t) lambda + rho_t (prior + (N/|B|) S_B)`` with
  ``rho_t = (t + tau)^-kappa``, ``t = 1, 2, ...``.
* :class:`PrivateStochasticVI` (:mod:`latentkit.inference._private_svi`): its differentially private
  version for LDA and the variational Gaussian mixture (Park, Foulds, Chaudhuri & Welling 2020).
"""

from ._private_svi import PrivateStochasticVI
from .._engine.steps import step_size_schedule
from ._stochastic_vi import StochasticVI
from ..sources import (  # noqa: F401 (re-exported: latentkit.inference.ArraySource etc.)
    ArraySource,
    ChunkSource,
    CSVSource,
    DocwordSource,
    IterableSource,
    ValidatedChunks,
)
from ..sources import __all__ as _source_names

__all__ = [*_source_names, "StochasticVI", "PrivateStochasticVI", "step_size_schedule"]
