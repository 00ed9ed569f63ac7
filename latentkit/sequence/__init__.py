"""Hidden Markov models: :class:`HiddenMarkovModel` with composed emission components, and
the familiar :class:`CategoricalHMM`, :class:`GaussianHMM` and :class:`PoissonHMM`, fitted by
Baum-Welch on latentkit's ELBO interface."""

from .._utils.deprecation import replaced_names
from ._emissions import (
                         CategoricalEmission,
                         CategoricalHMMStats,
                         Emission,
                         GaussianHMMStats,
                         HMMStats,
                         PoissonHMMStats,
)
from ._gmm import GMMHMM, GMMEmission, GMMHMMStats
from ._hmm import (
                         CategoricalHMM,
                         GaussianHMM,
                         HiddenMarkovModel,
                         PoissonHMM,
                         SequenceData,
                         check_lengths,
)
from ._spectral_start import (
                         spectral_init_gaussian_hmm,
                         spectral_init_hmm,
                         spectral_init_poisson_hmm,
)
from ._variational import (
                         VariationalCategoricalEmission,
                         VariationalCategoricalHMM,
                         VariationalGaussianEmission,
                         VariationalGaussianHMM,
                         VariationalHMM,
)
from ._hsmm import HiddenSemiMarkovModel
from ._arhmm import AutoregressiveEmission, AutoregressiveHMM, AutoregressiveHMMStats
from ._iohmm import InputOutputHMM
from ._variational_arhmm import VariationalAutoregressiveEmission, VariationalAutoregressiveHMM

__all__ = [
                         "CategoricalEmission",
                         "CategoricalHMM",
                         "CategoricalHMMStats",
                         "Emission",
                         "GaussianHMM",
                         "GaussianHMMStats",
                         "GMMEmission",
                         "GMMHMM",
                         "GMMHMMStats",
                         "HMMStats",
                         "HiddenMarkovModel",
                         "PoissonHMM",
                         "PoissonHMMStats",
                         "SequenceData",
                         "VariationalCategoricalEmission",
                         "VariationalCategoricalHMM",
                         "VariationalGaussianEmission",
                         "VariationalGaussianHMM",
                         "VariationalHMM",
                         "check_lengths",
                         "spectral_init_gaussian_hmm",
                         "spectral_init_hmm",
                         "spectral_init_poisson_hmm",
                         "HiddenSemiMarkovModel",
                         "AutoregressiveEmission",
                         "AutoregressiveHMM",
                         "AutoregressiveHMMStats",
                         "InputOutputHMM",
                         "VariationalAutoregressiveEmission",
                         "VariationalAutoregressiveHMM",
]

#: adapters that are no longer public: users pass the distribution (until 0.3 they import,
#: with a DeprecationWarning naming it)
__getattr__ = replaced_names(__name__, {
    "GaussianEmission": ("latentkit.sequence._gaussian_emission",
                         "latentkit.distributions.Gaussian"),
    "PoissonEmission": ("latentkit.sequence._emissions", "latentkit.distributions.Poisson"),
})
