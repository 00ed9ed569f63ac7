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
"""

from ._tensors import ImplicitMomentTensor, SymmetricTensor, as_tensor_operator  # noqa: F401
from ._power import RobustTensorPower, TensorPowerResult, robust_tensor_power  # noqa: F401

__all__ = [
    "SymmetricTensor",
    "ImplicitMomentTensor",
    "as_tensor_operator",
    "robust_tensor_power",
    "RobustTensorPower",
    "TensorPowerResult",
]

# --- issue 5 (moments, whitening, estimators, online) ------------------------------------
from ._whitening import Whitening, whiten  # noqa: F401,E402
from ._moments import GMMMoments, HMMMoments, LDAMoments, project_simplex  # noqa: F401,E402
from ._estimators import SpectralGMM, SpectralHMM, SpectralLDA  # noqa: F401,E402
from ._online import online_tensor_power  # noqa: F401,E402
from ._recipes import (SpectralInitWarning, spectral_init_gmm, spectral_init_hmm,  # noqa: F401,E402
                       spectral_init_lda)

__all__ += ["Whitening", "whiten", "GMMMoments", "LDAMoments", "HMMMoments", "project_simplex",
            "SpectralGMM", "SpectralLDA", "SpectralHMM", "SpectralInitWarning",
            "spectral_init_gmm", "spectral_init_lda", "spectral_init_hmm", "online_tensor_power"]

# --- issue 19 (robust spectral start of the Gaussian mixtures) ---------------------------
from ._recipes import spectral_responsibilities  # noqa: F401,E402
from ._gmm_start import n_components_from_spectrum, spectral_labels  # noqa: F401,E402

__all__ += ["spectral_responsibilities", "n_components_from_spectrum", "spectral_labels"]

# --- issue 6 (private, completion, sparse) adds its imports below -------------------------
from ._accounting import PrivacyAccountant, calibrate_gaussian_noise  # noqa: F401,E402
from ._private_power import (PrivateTensorPower, input_perturbation_power,  # noqa: F401,E402
                       private_tensor_power)
from ._completion import TensorCompletion, complete_tensor  # noqa: F401,E402
from ._sparse import (SparseSpectralGMM, TruncatedTensorPower,  # noqa: F401,E402
                      select_rank_sparsity, sparse_spectral_gmm, truncated_tensor_power)

__all__ += ["PrivacyAccountant", "calibrate_gaussian_noise", "private_tensor_power",
            "PrivateTensorPower", "input_perturbation_power", "complete_tensor",
            "TensorCompletion", "truncated_tensor_power", "TruncatedTensorPower",
            "select_rank_sparsity", "sparse_spectral_gmm", "SparseSpectralGMM"]

# --- issue 15 (spectral starts of Gaussian and Poisson HMMs) -------------------------------
from ._multiview_hmm import (spectral_init_gaussian_hmm,  # noqa: F401,E402
                             spectral_init_poisson_hmm)

__all__ += ["spectral_init_gaussian_hmm", "spectral_init_poisson_hmm"]

# --- issue 18 (document-level private spectral LDA) ----------------------------------------
from ._private_lda import PrivacyNoiseWarning, PrivateSpectralLDA  # noqa: F401,E402

__all__ += ["PrivateSpectralLDA", "PrivacyNoiseWarning"]
from ._private_gmm import PrivateSpectralGMM  # noqa: F401,E402

__all__ += ["PrivateSpectralGMM"]
