"""Edges of the privacy guarantee (issue 33, items 2-4): the 'advanced' accounting outside
the classical Gaussian mechanism's range, unbounded documents, and the tensor-entry relation."""

import math
import warnings

import numpy as np
import pytest

from latentkit.spectral import (PrivacyAccountant, PrivacyNoiseWarning, PrivacyRelationWarning,
                                PrivateSpectralLDA)


def _sigma_for_eps_i(eps_i, delta, K):
    """The sigma at which one release of sensitivity 1 is charged ``eps_i`` by the 'advanced'
    rule (``eps_i = sqrt(2 ln(1.25/delta')) / sigma``, ``delta' = delta / (2K)``)."""
    return math.sqrt(2.0 * math.log(1.25 / (delta / (2.0 * K)))) / eps_i


@pytest.mark.parametrize("K", [1, 7])
def test_advanced_is_infinite_outside_its_range(K):
    delta = 1e-5
    inside = PrivacyAccountant().record(1.0, _sigma_for_eps_i(1.0 - 1e-9, delta, K), K)
    outside = PrivacyAccountant().record(1.0, _sigma_for_eps_i(1.0 + 1e-9, delta, K), K)
    # inside: the classical composition, sqrt((4 + ln(2/delta)) K) eps_i
    assert inside.spent(delta, "advanced") == pytest.approx(
        math.sqrt((4.0 + math.log(2.0 / delta)) * K) * (1.0 - 1e-9), rel=1e-12)
    assert outside.spent(delta, "advanced") == math.inf
    # one release outside the range is enough, whatever the others
    mixed = PrivacyAccountant().record(1.0, 1e3, 5).record(1.0, _sigma_for_eps_i(2.0, delta, 6))
    assert mixed.spent(delta, "advanced") == math.inf


def test_advanced_never_below_the_exact_epsilon():
    """A valid composition bound is never below the exact privacy profile ('analytic')."""
    delta = 1e-5
    for K in (1, 3, 50):
        for sigma in np.geomspace(1e-4, 1e3, 60):
            acc = PrivacyAccountant().record(1.0, float(sigma), K)
            exact = acc.spent(delta, "analytic")
            assert acc.spent(delta, "advanced") >= exact * (1 - 1e-9), (K, sigma)


def test_epsilon_1e4_single_release_and_budget_check():
    """The case of issue 33: one release calibrated exactly (analytic) to epsilon = 1e4."""
    delta = 1e-5
    sigma = PrivacyAccountant.calibrate(1e4, delta, 1, 1.0, "analytic")
    acc = PrivacyAccountant().record(1.0, sigma)
    assert acc.spent(delta, "analytic") == pytest.approx(1e4, rel=1e-6)
    assert acc.spent(delta, "advanced") >= 1e4
    # a budget of 5000 under 'advanced' refuses it (it was accepted at 'epsilon' 3358)
    budget = PrivacyAccountant(epsilon=5000.0, delta=delta, method="advanced")
    with pytest.raises(ValueError, match="budget cannot be met"):
        budget.check_budget(1e4, delta, 1, 1.0, sigma)


def test_private_lda_report_at_large_epsilon():
    rng = np.random.default_rng(0)
    X = rng.poisson(2.0, size=(80, 6))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyNoiseWarning)
        m = PrivateSpectralLDA(2, 1e4, n_words=6, n_init=2, max_iter=2, random_state=0).fit(X)
    rep = m.privacy_report_
    assert rep["epsilon_analytic"] == pytest.approx(1e4, rel=1e-6)
    assert rep["epsilon_advanced"] >= rep["epsilon_analytic"]


# ----------------------------------------------------------------------------- item 3

def _corpus():
    rng = np.random.default_rng(1)
    X = rng.poisson(1.5, size=(30, 6)).astype(float)
    X[:, 0] += 3
    return X


@pytest.mark.parametrize("row", [[1.5e308, 1.5e308, 0, 0, 0, 0],
                                 [2.0 ** 53, 2.0, 0, 0, 0, 0]])
def test_unbounded_document_refused_before_any_release(row):
    X = _corpus()
    Xbad = X.copy()
    Xbad[4] = row
    messages = set()
    for epsilon in (1.0, 1e3):  # the refusal does not depend on the noise or its amount
        m = PrivateSpectralLDA(2, epsilon, n_words=6, n_init=2, max_iter=2, random_state=0)
        with pytest.raises(ValueError, match=r"X: every document's length .* at most 2\*\*53"
                                             r".*document 4 has length") as err:
            m.fit(Xbad)
        messages.add(str(err.value))
        assert not hasattr(m, "accountant_") and not hasattr(m, "word_frequencies_")
    assert len(messages) == 1
    # the neighbour (that document replaced by an ordinary one) fits
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyNoiseWarning)
        PrivateSpectralLDA(2, 1.0, n_words=6, n_init=2, max_iter=2, random_state=0).fit(X)


def test_document_of_length_2_53_is_accepted():
    X = _corpus()
    X[4] = [2.0 ** 52, 2.0 ** 52, 0, 0, 0, 0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyNoiseWarning)
        m = PrivateSpectralLDA(2, 1.0, n_words=6, n_init=2, max_iter=2, random_state=0).fit(X)
    assert m.accountant_.n_releases > 2


# ----------------------------------------------------------------------------- item 4

def test_tensor_entry_warns_and_reports_no_document_epsilon():
    X = _corpus()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyNoiseWarning)
        with pytest.warns(PrivacyRelationWarning, match="no document is protected"):
            te = PrivateSpectralLDA(2, 1.0, neighbouring="tensor_entry", n_init=2, max_iter=2,
                                    random_state=0).fit(X)
        doc = PrivateSpectralLDA(2, 1.0, n_words=6, n_init=2, max_iter=2,
                                 random_state=0).fit(X)
    assert te.privacy_report_["epsilon_documents"] is None
    assert doc.privacy_report_["epsilon_documents"] == doc.privacy_report_["epsilon"]
