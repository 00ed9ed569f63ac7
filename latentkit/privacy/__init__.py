"""Differential privacy: the accountants, the calibration of the Gaussian mechanism and the
noise generator that every private fit of latentkit uses (issue 40).

* :class:`PrivacyAccountant` composes Gaussian releases, plain or subsampled (Poisson, or
  without replacement), and converts to (epsilon, delta): Renyi DP with the classic (Mironov
  2017) or the improved conversion (Balle et al. 2020; Canonne, Kamath & Steinke 2020), the
  exact analytic-Gaussian profile (Balle & Wang 2018), advanced composition.
  ``spent(delta)`` gives the tightest of the valid rules.
* :func:`subsampled_gaussian_rdp`, :func:`rdp_to_epsilon`, :func:`gaussian_rdp`,
  :func:`analytic_gaussian_epsilon`, :func:`analytic_gaussian_delta`, :func:`rdp_epsilon`
  -- the curves and conversions; :data:`DEFAULT_RDP_ORDERS`.
* :func:`calibrate_noise_multiplier` (subsampled steps) and :func:`calibrate_gaussian_noise`
  (plain releases) -- the noise for a budget.
* :func:`noise_generator` -- a generator seeded from the operating system's entropy: the
  privacy noise and the secret subsampling of every private fit, never ``random_state``.

This package is below the estimators (it imports only the utilities): the private spectral
fits, private SVI and the private VAE import it. The old paths
(``latentkit.spectral.PrivacyAccountant``, ``latentkit.spectral._accounting``,
``latentkit.spectral._subsampled``) keep working: they are the same objects.
"""

from .._utils.validation import privacy_noise_rng as noise_generator
from ..exceptions import PrivacyNoiseWarning, PrivacyRelationWarning
from ._accounting import (PrivacyAccountant, analytic_gaussian_delta, analytic_gaussian_epsilon,
                          calibrate_gaussian_noise, gaussian_rdp, rdp_epsilon)
from ._subsampled import (DEFAULT_RDP_ORDERS, calibrate_noise_multiplier, rdp_to_epsilon,
                          subsampled_gaussian_rdp)

__all__ = ["PrivacyAccountant", "calibrate_gaussian_noise", "calibrate_noise_multiplier",
           "subsampled_gaussian_rdp", "rdp_to_epsilon", "gaussian_rdp", "rdp_epsilon",
           "analytic_gaussian_epsilon", "analytic_gaussian_delta", "DEFAULT_RDP_ORDERS",
           "noise_generator", "PrivacyNoiseWarning", "PrivacyRelationWarning"]
