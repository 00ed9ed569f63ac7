"""Spectral (method-of-moments) estimation: moments, whitening, implicit tensors and tensor
power methods (DESIGN.md section 5; formulas in SPECTRAL_NOTES.md).

* :func:`robust_tensor_power` / :class:`RobustTensorPower` -- Anandkumar, Ge, Hsu, Kakade &
  Telgarsky (2014), Algorithm 1, on a dense array, an implicit moment tensor or any object with
  ``contract(U)`` and ``evaluate(U)``.
* :func:`online_tensor_power` -- Wang & Anandkumar (2016), Algorithm 2 (streaming).
* :class:`SymmetricTensor`, :class:`ImplicitMomentTensor` -- tensors exposing ``contract(U)``
  (``T(I, u_l, u_l)`` for every column) and ``evaluate(U)`` (``T(u_l, u_l, u_l)``).
* Moments and whitening for spherical Gaussian mixtures, single-topic/LDA and HMMs;
  :class:`SpectralGMM`, :class:`SpectralLDA`, :class:`SpectralHMM`.

The HMMs' spectral starts (``spectral_init_hmm``, ``spectral_init_gaussian_hmm``,
``spectral_init_poisson_hmm``) need an emission model and live in :mod:`latentkit.sequence`;
their old paths here still work, with a ``DeprecationWarning``, until the release
``latentkit._utils.deprecation.REMOVED_IN``.
"""

from .._utils.deprecation import moved_name
# tensors and the tensor power method
from ._tensors import ImplicitMomentTensor, SymmetricTensor, as_tensor_operator
from ._power import RobustTensorPower, TensorPowerResult, robust_tensor_power
from ._online import online_tensor_power
# moments, whitening and the estimators
from ._whitening import Whitening, whiten
from ._moments import GMMMoments, HMMMoments, LDAMoments, project_simplex
from ._estimators import SpectralGMM, SpectralHMM, SpectralLDA
# spectral starts of the likelihood models
from ._gmm_start import SpectralInitWarning, spectral_labels
from ._spectrum_components import n_components_from_spectrum
from ._recipes import spectral_init_gmm, spectral_init_lda, spectral_responsibilities
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
    "SpectralGMM", "SpectralLDA", "SpectralHMM",
    "SpectralInitWarning", "spectral_init_gmm", "spectral_init_lda",
    "spectral_responsibilities", "n_components_from_spectrum", "spectral_labels",
    "PrivacyAccountant", "calibrate_gaussian_noise", "private_tensor_power",
    "subsampled_gaussian_rdp", "calibrate_noise_multiplier", "rdp_to_epsilon",
    "DEFAULT_RDP_ORDERS",
    "PrivateTensorPower", "input_perturbation_power", "PrivateSpectralLDA",
    "PrivacyNoiseWarning", "PrivacyRelationWarning", "PrivateSpectralGMM",
    "complete_tensor", "TensorCompletion", "truncated_tensor_power", "TruncatedTensorPower",
    "select_rank_sparsity", "sparse_spectral_gmm", "SparseSpectralGMM",
]

#: public names moved to a model family: name -> the module that holds it now (resolved lazily
#: by ``__getattr__``, so this package imports no family; each access warns)
_MOVED_HMM = {name: "latentkit.sequence" for name in (
    "spectral_init_hmm", "spectral_init_gaussian_hmm", "spectral_init_poisson_hmm")}


def __getattr__(name):
    if name in _MOVED_HMM:
        return moved_name(__name__, name, _MOVED_HMM[name])
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
