"""Repeatable privacy noise for the spectral tests.

The private estimators draw their noise from OS entropy whatever ``random_state`` is (issue
33), so a test with statistical margins would see new noise on every run. Here the noise source
is replaced by independent generators spawned from one fixed SeedSequence, a new one per call,
except in tests marked ``os_entropy`` (those that check the OS-entropy source itself).
"""

import numpy as np
import pytest

_NOISE_MODULES = ("_private_power", "_private_lda", "_private_gmm")


def pytest_configure(config):
    config.addinivalue_line("markers", "os_entropy: keep the private estimators' OS-entropy "
                                       "noise source (no seeded replacement)")


@pytest.fixture(autouse=True)
def _seeded_privacy_noise(request, monkeypatch):
    if request.node.get_closest_marker("os_entropy"):
        return
    seq = np.random.SeedSequence(33)

    def noise_rng():
        return np.random.default_rng(seq.spawn(1)[0])

    for mod in _NOISE_MODULES:
        monkeypatch.setattr(f"latentkit.spectral.{mod}._noise_rng", noise_rng)
