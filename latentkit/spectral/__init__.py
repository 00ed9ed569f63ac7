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

# public name -> submodule (imported on first access, PEP 562: a family that needs one piece,
# as the Gaussian mixture's spectral start, does not load the estimators, the privacy
# accounting or SciPy's optimize and sparse.linalg with it)
_EXPORTS = {
    # tensors and the tensor power method
    "ImplicitMomentTensor": "_tensors", "SymmetricTensor": "_tensors",
    "as_tensor_operator": "_tensors", "RobustTensorPower": "_power",
    "TensorPowerResult": "_power", "robust_tensor_power": "_power",
    "online_tensor_power": "_online",
    # moments, whitening and the estimators
    "Whitening": "_whitening", "whiten": "_whitening",
    "GMMMoments": "_moments", "HMMMoments": "_moments", "LDAMoments": "_moments",
    "project_simplex": "_moments", "SpectralGMMResult": "_gmm_core", "spectral_gmm": "_gmm_core",
    "SpectralGMM": "_estimators", "SpectralHMM": "_estimators", "SpectralLDA": "_estimators",
    # the model-free parts of the spectral starts
    "spectral_labels": "_gmm_start", "n_components_from_spectrum": "_spectrum_components",
    # differential privacy
    "PrivacyAccountant": "_accounting", "calibrate_gaussian_noise": "_accounting",
    "DEFAULT_RDP_ORDERS": "_subsampled", "calibrate_noise_multiplier": "_subsampled",
    "rdp_to_epsilon": "_subsampled", "subsampled_gaussian_rdp": "_subsampled",
    "PrivateTensorPower": "_private_power", "input_perturbation_power": "_private_power",
    "private_tensor_power": "_private_power", "PrivacyNoiseWarning": "_private_lda",
    "PrivacyRelationWarning": "_private_lda", "PrivateSpectralLDA": "_private_lda",
    "PrivateSpectralGMM": "_private_gmm",
    # tensor completion and sparse (truncated) tensor power
    "TensorCompletion": "_completion", "complete_tensor": "_completion",
    "SparseSpectralGMM": "_sparse", "TruncatedTensorPower": "_sparse",
    "select_rank_sparsity": "_sparse", "sparse_spectral_gmm": "_sparse",
    "truncated_tensor_power": "_sparse",
}

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
#: (removed in 0.3), so that this package imports no family when it loads; the names of
#: ``_EXPORTS`` load their submodule on first access, without a warning.
__getattr__ = moved_names(__name__, moved={
    "spectral_init_gmm": "latentkit.mixture",
    "spectral_responsibilities": "latentkit.mixture",
    "spectral_init_lda": "latentkit.topic",
    "spectral_init_hmm": "latentkit.sequence",
    "spectral_init_gaussian_hmm": "latentkit.sequence",
    "spectral_init_poisson_hmm": "latentkit.sequence",
}, lazy={name: f"{__name__}.{sub}" for name, sub in _EXPORTS.items()})


def __dir__():
    """The package's names, the lazily imported ones included (PEP 562)."""
    return sorted(set(globals()) | set(_EXPORTS))
