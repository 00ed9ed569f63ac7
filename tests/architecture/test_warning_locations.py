"""Warnings point at the user's line (the first frame outside latentkit), as numpy's and
scikit-learn's do, whatever the depth of the library code that emits them: a user's
``filterwarnings(module=...)`` and the printed ``file:line`` then name their own code.

Before: ``ConvergenceWarning`` at ``mixture/_gaussian.py`` (a subclass's ``super().fit``),
``SpectralInitWarning`` at ``spectral/_recipes.py``, ``CollapsedComponentWarning`` at
``mixture/_gaussian.py``, ``ELBODecreaseWarning`` two frames above its caller."""

import numpy as np
import pytest

from latentkit._engine.convergence import ConvergenceMonitor
from latentkit.exceptions import ConvergenceWarning, ELBODecreaseWarning
from latentkit.distributions import CollapsedComponentWarning
from latentkit.mixture import DirichletProcessMixture, GaussianMixture
from latentkit.spectral import SpectralInitWarning
from latentkit.topic import LatentDirichletAllocation


def _blobs():
    rng = np.random.default_rng(1)
    return np.vstack([rng.normal(0, 1, (30, 3)), rng.normal(5, 1, (30, 3))])


def _located_here(record, category):
    hits = [r for r in record if issubclass(r.category, category)]
    assert hits, f"no {category.__name__}"
    assert {r.filename for r in hits} == {__file__}, [(r.filename, r.lineno) for r in hits]


@pytest.mark.parametrize("model", [GaussianMixture(2, max_iter=1, random_state=0),
                                   DirichletProcessMixture(2, max_iter=1, random_state=0)])
def test_convergence_warning_points_at_the_fit_call(model):
    with pytest.warns(ConvergenceWarning) as record:
        model.fit(_blobs())
    _located_here(record, ConvergenceWarning)


def test_lda_convergence_warning_points_at_the_fit_call():
    X = np.random.default_rng(0).poisson(1.0, (20, 10))
    with pytest.warns(ConvergenceWarning) as record:
        LatentDirichletAllocation(2, max_iter=1, random_state=0).fit(X)
    _located_here(record, ConvergenceWarning)


def test_spectral_init_warning_points_at_the_fit_call():
    with pytest.warns(SpectralInitWarning) as record:
        GaussianMixture(3, init="spectral", random_state=0).fit(_blobs()[:, :1])
    _located_here(record, SpectralInitWarning)


def test_collapsed_component_warning_points_at_the_fit_call():
    X = np.repeat(_blobs()[:5], 10, axis=0)
    with pytest.warns(CollapsedComponentWarning) as record:
        GaussianMixture(3, random_state=0).fit(X)
    _located_here(record, CollapsedComponentWarning)


def test_elbo_decrease_warning_points_at_the_reporting_call():
    monitor = ConvergenceMonitor(1e-3, 10)
    monitor.report(-1.0)
    with pytest.warns(ELBODecreaseWarning) as record:
        monitor.report(-2.0)
    _located_here(record, ELBODecreaseWarning)
