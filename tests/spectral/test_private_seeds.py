"""Private estimators draw their noise from OS entropy (issue 33, item 1): a seed, even one
saved with the model, does not regenerate the noise, so the exact statistics cannot be
recovered from a saved model by subtracting it."""

import warnings

import numpy as np
import pytest

import latentkit
from latentkit.spectral import PrivacyNoiseWarning, PrivateSpectralGMM, PrivateSpectralLDA

pytestmark = pytest.mark.os_entropy  # the real noise source (tests/spectral/conftest.py)


def _corpus():
    rng = np.random.default_rng(0)
    X = rng.poisson(1.5, size=(60, 8)).astype(float)
    X[:, 0] += 3
    return X


def _exact_m1_sum(X):
    ell = X.sum(1)
    used = ell >= 3
    return (X[used] / ell[used, None]).sum(0)


def _fit_lda(X, seed):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyNoiseWarning)
        return PrivateSpectralLDA(2, 50.0, n_words=8, n_init=2, max_iter=2,
                                  random_state=seed).fit(X)


def test_same_seed_gives_different_noise():
    X = _corpus()
    a, b = _fit_lda(X, 1234), _fit_lda(X, 1234)
    exact = _exact_m1_sum(X)
    # the released stage-1 sums carry noise, and the noise differs entry by entry
    assert np.all(a.word_frequencies_ != exact)
    assert np.all(a.word_frequencies_ != b.word_frequencies_)
    assert a.n_docs_estimate_ != b.n_docs_estimate_
    rng = np.random.default_rng(0)
    Y = rng.normal(size=(200, 3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyNoiseWarning)
        g1, g2 = (PrivateSpectralGMM(2, clip_norm=3.0, epsilon=50.0, n_init=2, max_iter=2,
                                     random_state=1234).fit(Y) for _ in range(2))
    assert np.all(g1.m2_eigenvalues_ != g2.m2_eigenvalues_)


def _stored_integers(meta):
    """Every integer among the saved hyper-parameters (a candidate seed)."""
    out = []
    for enc in meta["params"].values():
        v = enc.get("value") if isinstance(enc, dict) else enc
        if isinstance(v, int) and not isinstance(v, bool):
            out.append(v)
    return out


def test_saved_model_does_not_regenerate_the_noise(tmp_path):
    """The attack of issue 33: read the seed from the file, redraw the stage-1 noise in the
    release order (one normal for the count, then one per word) and subtract it. With noise
    drawn from that seed this gives back the exact sums; it must not."""
    X = _corpus()
    m = _fit_lda(X, 1234)
    path = tmp_path / "private.npz"
    latentkit.save(m, path)
    meta = latentkit.io.read_metadata(path)
    seeds = _stored_integers(meta)
    assert 1234 in seeds  # random_state is kept (it drives the starts), and is useless here
    back = latentkit.load(path)
    sig1 = back.accountant_.releases[0][1]
    exact = _exact_m1_sum(X)
    for seed in seeds:
        rng = np.random.default_rng(seed)
        z_count = rng.standard_normal()
        z = rng.standard_normal(X.shape[1])
        assert not np.allclose(back.word_frequencies_ - sig1 * z, exact, rtol=0, atol=1e-9)
        assert abs(back.n_docs_estimate_ - sig1 * z_count - X.shape[0]) > 1e-9
    # refitting the saved hyper-parameters (seed included) gives other noise too
    again = _fit_lda(X, back.get_params()["random_state"])
    assert np.all(again.word_frequencies_ != back.word_frequencies_)
