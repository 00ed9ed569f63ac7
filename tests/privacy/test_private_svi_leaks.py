"""Private SVI against one extreme row and against a reader of its releases (issue 40 items 2,
3, 5 and 8): D and D plus an extreme row finish alike; the minibatches do not follow the seed;
the noise warning comes from the releases; every clip holds, and is reached, for an
adversarial neighbour (a clip doubled by mistake fails here: tools/mutation_check.py)."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp

import latentkit.inference._private_svi as psvi
import latentkit.topic._private_svi as lda_pieces
from latentkit.exceptions import PrivacyNoiseWarning
from latentkit.inference import PrivateStochasticVI
from latentkit.mixture import GaussianMixture, VariationalGaussianMixture
from latentkit.mixture._private_svi import clip_rows
from latentkit.topic import LatentDirichletAllocation

COUNTS = np.random.default_rng(0).poisson(1.0, size=(100, 15)).astype(float)
ROWS = np.random.default_rng(1).normal(size=(100, 3))


def _fit(model, data, **kw):
    """(fitted driver or None, exception type or None, the warnings as a sorted list)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            fit = PrivateStochasticVI(model, epsilon=1e4, sampling_rate=0.2, max_steps=20,
                                      **kw).fit(data)
            error = None
        except Exception as exc:  # compared: the same for both neighbours
            fit, error = None, type(exc)
    return fit, error, sorted({(w.category.__name__, str(w.message)) for w in caught})


def _not_noise(found):
    """The warnings other than PrivacyNoiseWarning. The noise is drawn from the operating
    system's entropy (the minibatches and the noise do not follow any seed), so whether a nearly
    empty topic of a structureless corpus ends below the noise floor is itself random: at
    epsilon=1e4 one fit in 13 on COUNTS warns (3 of 40 measured), with or without the extreme
    row. The extreme row is clipped to the same norm as every other row, so it may add no
    warning of any other kind (on main: 'overflow encountered', NaN topics)."""
    return [w for w in found if w[0] != "PrivacyNoiseWarning"]


@pytest.mark.slow
def test_a_document_of_huge_counts_changes_nothing_but_the_noise():
    """On main, a document with two counts of 1.5e308 made every topic NaN."""
    doc = np.zeros((1, 15))
    doc[0, :2] = 1.5e308
    a = _fit(LatentDirichletAllocation(3), COUNTS, clip=10.0)
    b = _fit(LatentDirichletAllocation(3), np.vstack([COUNTS, doc]), clip=10.0)
    assert a[1] is None and b[1] is None and _not_noise(a[2]) == _not_noise(b[2]) == []
    assert np.all(np.isfinite(a[0].components_)) and np.all(np.isfinite(b[0].components_))
    assert a[0].n_steps_ == b[0].n_steps_ and a[0].noise_multiplier_ == b[0].noise_multiplier_


@pytest.mark.slow
@pytest.mark.parametrize("model", [VariationalGaussianMixture, GaussianMixture])
@pytest.mark.parametrize("value", [1e6, 1e300])
def test_an_extreme_row_changes_nothing_but_the_noise(model, value):
    """On main a row at 1e300 warned 'overflow encountered' (a warning only that row causes)."""
    a = _fit(model(2), ROWS, radius=3.0)
    b = _fit(model(2), np.vstack([ROWS, np.full((1, 3), value)]), radius=3.0)
    assert a[1] is None and b[1] is None and _not_noise(a[2]) == _not_noise(b[2]) == []
    assert np.all(np.isfinite(a[0].means_)) and np.all(np.isfinite(b[0].means_))


@pytest.mark.slow
def test_the_same_seed_draws_other_minibatches(monkeypatch):
    seen = []
    real = lda_pieces.LDAPrivatePieces.clipped_sum

    def spy(self, X, clip):
        seen[-1].append(X.shape[0] and tuple(np.asarray(X.sum(axis=1)).ravel()))
        return real(self, X, clip)

    monkeypatch.setattr(lda_pieces.LDAPrivatePieces, "clipped_sum", spy)
    for _ in range(2):
        seen.append([])
        _fit(LatentDirichletAllocation(3, random_state=0), COUNTS, clip=10.0, random_state=0)
    assert sum(x == y for x, y in zip(*seen)) <= 1


@pytest.mark.slow
def test_the_noise_warning_comes_from_the_releases(monkeypatch):
    with pytest.warns(PrivacyNoiseWarning, match=r"noise dominates .* norm [0-9.]+"):
        f = PrivateStochasticVI(LatentDirichletAllocation(3), epsilon=0.1, clip=10.0,
                                sampling_rate=0.2, max_steps=10).fit(COUNTS)
    assert f.noise_dominated_ and f.noise_norm_ > f.signal_norm_
    # epsilon=1e4: no warning. Not with the OS entropy: COUNTS has no topics, and in 2 of 40
    # fits (1 of 3 in the pytest loop that found it) the random start and the secret minibatches
    # leave a topic nearly empty, whose top released counts fall below the noise floor (true of
    # that fit: not a chance failure of the noise check). The noise source and the start are
    # pinned here (as tests/spectral/conftest.py does for the spectral estimators); at this pin
    # the signal norm is 23x the noise norm and every topic's 5th largest mean release is 19x
    # the floor, far from either edge. (The first half holds under OS entropy: in 40 of 40
    # fits both the norm and the row criteria fired; the norm one fails to fire only when the
    # mean of 10 chi-square(45) draws nearly doubles: p < 1e-26.)
    monkeypatch.setattr(psvi, "_os_rng", lambda: np.random.default_rng(2026))
    f, _, caught = _fit(LatentDirichletAllocation(3), COUNTS, clip=10.0, random_state=0)
    assert caught == [] and not f.noise_dominated_ and f.signal_norm_ > f.noise_norm_ > 0


# -- every clip is a bound that an adversarial neighbour reaches --------------------------------
def _driver(model, **kw):
    return PrivateStochasticVI(model, epsilon=1.0, **kw)


def _lda_pieces(K=3, V=15):
    from latentkit.inference._private_svi import _pieces_for
    owner = _driver(LatentDirichletAllocation(K), clip=10.0)
    p = _pieces_for(owner.model, owner)
    p.start(V, np.random.default_rng(0))
    return p


def test_lda_document_clip_holds_and_is_reached():
    """Adding one document changes the clipped sum by at most C, and a long document (its
    statistics' norm far above C) reaches C."""
    p = _lda_pieces()
    X = sp.csr_matrix(COUNTS[:30])
    long_doc = np.zeros((1, 15))
    long_doc[0, [2, 7]] = 500.0
    for C in (0.5, 10.0):
        base, _ = p.clipped_sum(X, C)
        more, norms = p.clipped_sum(sp.vstack([X, sp.csr_matrix(long_doc)]).tocsr(), C)
        assert norms[-1] > 10 * C
        change = np.linalg.norm(more - base)
        assert change == pytest.approx(C, rel=1e-9)  # reached, and not exceeded


@pytest.mark.parametrize("model", [VariationalGaussianMixture, GaussianMixture])
@pytest.mark.parametrize("covariance_type", ["full", "tied"])
@pytest.mark.parametrize("clip", [0.5, np.sqrt(3.0)])
def test_mixture_statistics_clip_holds_and_is_reached(model, covariance_type, clip):
    """The normalised statistics of a row on the radius sphere, far from every component
    but one, have norm about sqrt(3) ('tied': about sqrt(2) + its responsibility part): any clip
    at or below that is reached exactly; the default sqrt(3) is never exceeded."""
    from latentkit.inference._private_svi import _pieces_for
    owner = _driver(model(2, covariance_type=covariance_type), radius=2.0)
    p = _pieces_for(owner.model, owner)
    Xc = p.check_X(ROWS[:20])
    p.start(3, np.random.default_rng(0))
    far = p.check_X(np.array([[1e3, 0.0, 0.0]]))  # clipped to the sphere of radius 2
    base, _ = p.clipped_sum(Xc, clip)
    more, norms = p.clipped_sum(np.vstack([Xc, far]), clip)
    change = np.linalg.norm(more - base)
    assert norms[-1] <= np.sqrt(3.0) * (1 + 1e-12)
    assert change <= clip * (1 + 1e-12)
    if norms[-1] >= clip:
        assert change == pytest.approx(clip, rel=1e-9)
    if clip < 1.0:  # a row on the sphere always has norm >= 1 (its responsibilities)
        assert change == pytest.approx(clip, rel=1e-9)


def test_mixture_radius_clip_holds_and_is_reached():
    R = 2.5
    Y = np.array([[1e300, -1e300, 3.0], [3.0, 4.0, 0.0], [0.1, 0.2, 0.3], [0.0, 0.0, 0.0],
                  [-1e6, 0.0, 0.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = clip_rows(Y, R)
    norms = np.linalg.norm(out, axis=1)
    np.testing.assert_allclose(norms[[0, 1, 4]], R, rtol=1e-12)   # reached
    np.testing.assert_array_equal(out[[2, 3]], Y[[2, 3]])         # inside: unchanged
    # the third entry is 3 / 1e300 of the radius (about 5e-300): compared to 1e-290 absolute
    np.testing.assert_allclose(out[0], R * np.array([1, -1, 0]) / np.sqrt(2), rtol=1e-12,
                               atol=1e-290)
