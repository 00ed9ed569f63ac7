"""Spectral (method-of-moments) estimation: moments, whitening, implicit tensors and tensor
power methods (DESIGN.md section 5; formulas in SPECTRAL_NOTES.md).

* :func:`robust_tensor_power` / :class:`RobustTensorPower` -- Anandkumar, Ge, Hsu, Kakade &
  Telgarsky (2014), Algorithm 1, on a dense array, an implicit moment tensor or any object with
  ``contract(U)`` and ``evaluate(U)``.
* :func:`online_tensor_power` -- Wang & Anandkumar (2016), Algorithm 2 (streaming).
* :class:`SymmetricTensor`, :class:`ImplicitMomentTensor` -- tensors exposing ``contract(U)``
  (``T(I, u_l, u_l)`` for every column) and ``evaluate(U)`` (``T(u_l, u_l, u_l)``).
* Moments and whitening for spherical Gaussian mixtures, single-topic/LDA and HMMs;
  :class:`SpectralGMM` (its function core :func:`spectral_gmm`), :class:`SpectralLDA`,
  :class:`SpectralHMM`.

This package is the layer under the model families (docs/design.md, "Layers"): it imports no
family when it loads. The families' spectral starts live in the families
(``latentkit.mixture.spectral_init_gmm``, ``latentkit.topic.spectral_init_lda``,
``latentkit.sequence.spectral_init_hmm``); their old paths here still work, with a
``DeprecationWarning``.
"""

from .._utils.deprecation import moved_names
from ..exceptions import SpectralInitWarning

# tensors and the tensor power method
from ._tensors import ImplicitMomentTensor, SymmetricTensor, as_tensor_operator
from ._power import RobustTensorPower, TensorPowerResult, robust_tensor_power
from ._online import online_tensor_power
# moments, whitening and the estimators
from ._whitening import Whitening, whiten
from ._moments import GMMMoments, HMMMoments, LDAMoments, project_simplex
from ._gmm_core import SpectralGMMResult, spectral_gmm
from ._estimators import SpectralGMM, SpectralHMM, SpectralLDA
# the model-free parts of the spectral starts
from ._gmm_start import spectral_labels
from ._spectrum_components import n_components_from_spectrum
# differential privacy
from ._accounting import PrivacyAccountant, calibrate_gaussian_noise
from ._subsampled import (DEFAULT_RDP_ORDERS, calibrate_noise_multiplier, rdp_to_epsilon,
                          subsampled_gaussian_rdp)
from ._private_power import PrivateTensorPower, input_perturbation_power, private_tensor_power
from ._private_lda import PrivacyNoiseWarning, PrivacyRelationWarning, PrivateSpectralLDA
from ._private_gmm import PrivateSpectralGMM
# tensor completion and sparse (truncated) tensor power
from ._completion import TensorCompletion, complete_tensor
from ._sparse import (SparseSpectralGMM, TruncatedTensorPower, select_rank_sparsity,
                      sparse_spectral_gmm, truncated_tensor_power)

__all__ = [
    "SymmetricTensor", "ImplicitMomentTensor", "as_tensor_operator", "robust_tensor_power",
    "RobustTensorPower", "TensorPowerResult", "online_tensor_power",
    "Whitening", "whiten", "GMMMoments", "LDAMoments", "HMMMoments", "project_simplex",
    "SpectralGMM", "SpectralLDA", "SpectralHMM", "spectral_gmm", "SpectralGMMResult",
    "SpectralInitWarning", "n_components_from_spectrum", "spectral_labels",
    "PrivacyAccountant", "calibrate_gaussian_noise", "private_tensor_power",
    "subsampled_gaussian_rdp", "calibrate_noise_multiplier", "rdp_to_epsilon",
    "DEFAULT_RDP_ORDERS",
    "PrivateTensorPower", "input_perturbation_power", "PrivateSpectralLDA",
    "PrivacyNoiseWarning", "PrivacyRelationWarning", "PrivateSpectralGMM",
    "complete_tensor", "TensorCompletion", "truncated_tensor_power", "TruncatedTensorPower",
    "select_rank_sparsity", "sparse_spectral_gmm", "SparseSpectralGMM",
]

#: The starts that moved to their family, loaded on first access with a ``DeprecationWarning``
#: (removed in 0.3), so that this package imports no family when it loads.
__getattr__ = moved_names(__name__, moved={
    "spectral_init_gmm": "latentkit.mixture",
    "spectral_responsibilities": "latentkit.mixture",
    "spectral_init_lda": "latentkit.topic",
    "spectral_init_hmm": "latentkit.sequence",
    "spectral_init_gaussian_hmm": "latentkit.sequence",
    "spectral_init_poisson_hmm": "latentkit.sequence",
})
