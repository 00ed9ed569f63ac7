"""Spectral (method of moments) start of the HMMs, ``init='spectral'``: categorical symbols by
:func:`latentkit.spectral.spectral_init_hmm`, Gaussian and Poisson observations by the
three-view moments of :mod:`latentkit.spectral._multiview_hmm` (Anandkumar, Hsu & Kakade
2012). The spectral package (and numba) load only when a spectral start is asked for."""

import numpy as np

from ..distributions._missing import mean_fill
from . import _emissions as em

__all__ = []


def _spectral_ok(emission):
    """Whether ``init='spectral'`` has a moment estimator for this emission component."""
    if type(emission) in (em.CategoricalEmission, em.PoissonEmission):
        return True
    return type(emission) is em.GaussianEmission and emission.covariance_type in (
        "diag", "spherical")


def _spectral_start(emission, data, K, rng):
    """Spectral starting parameters (None: degenerate moments, warned; keep the k-means++
    start): categorical symbols by :func:`latentkit.spectral.spectral_init_hmm`, Gaussian and
    Poisson observations by the three-view moments of
    :mod:`latentkit.spectral._multiview_hmm` (Anandkumar, Hsu & Kakade 2012)."""
    # local: spectral (and numba) load only for init='spectral'
    from ..spectral import _multiview_hmm as mv

    if isinstance(emission, em.CategoricalEmission):
        # local: spectral (and numba) load only for init='spectral'
        from ..spectral._recipes import spectral_init_hmm

        return spectral_init_hmm(data.X, np.diff(data.offsets), K, emission.n_features_,
                                 random_state=rng)
    lengths = np.diff(data.offsets)
    if isinstance(emission, em.PoissonEmission):
        return mv.spectral_init_poisson_hmm(data.X, lengths, K, random_state=rng)
    X = data.X
    if emission._marginalize():  # a GaussianEmission from here on
        X = mean_fill(X)  # the moments of the mean-filled data, as the mixtures' start
    return mv.spectral_init_gaussian_hmm(X, lengths, K, emission.covariance_type,
                                         random_state=rng)
