"""The topic family's state objects (issue 39, item 1: the guard owns its warm state, LDAPriors
returns new priors) and online LDA through StochasticVI's public interface only (item 4).
The whole-package counts (no private reach, no model-taking function; topic/ had 18 and 7 on
2a396fa) are in ``tests/architecture/test_architecture.py``.
"""

import numpy as np
import pytest
import scipy.sparse as sp

from latentkit.topic import LatentDirichletAllocation
from latentkit.topic._lda_guard import GuardedEStep
from latentkit.topic._lda_priors import LDAPriors, prior_stats

def test_the_guard_owns_its_warm_state():
    """The warm state of a batch run is the guard object: the warm-up caps double from
    ``warmup_doc_update_iter`` up to ``max_doc_update_iter`` and count the iterations."""
    guard = GuardedEStep(100, 4)
    assert [guard.cap() for _ in range(7)] == [4, 8, 16, 32, 64, 100, 100]
    assert guard.it == 7 and guard.elbo is None and guard.state is None
    assert [GuardedEStep(50).cap() for _ in range(2)] == [50, 50]


def test_lda_priors_start_resets_the_trace_and_update_returns_new_priors():
    """``start`` gives each initialisation the same start (alpha and eta at 1/K, the trace
    restarted); ``update`` returns new priors and leaves the given arrays as they were."""
    K, V, D = 3, 8, 20
    priors = LDAPriors(K, learn_alpha=True, learn_eta=True)
    alpha, eta = priors.start(1.0 / K, 1.0 / K, V)
    np.testing.assert_array_equal(alpha, np.full(K, 1.0 / K))
    np.testing.assert_array_equal(eta, np.full(V, 1.0 / K))
    assert priors.scales == [1.0] and not priors.held
    gamma = np.random.default_rng(0).gamma(2.0, 1.0, size=(D, K))
    stats = prior_stats(True, sp.csr_matrix((D, V)), np.zeros((K, V)), np.zeros(D), gamma)
    lam = np.random.default_rng(1).gamma(2.0, 1.0, size=(K, V))
    a0, e0 = alpha.copy(), eta.copy()
    new_alpha, new_eta = priors.update(stats, alpha, eta, lam)
    np.testing.assert_array_equal(alpha, a0)  # inputs untouched
    np.testing.assert_array_equal(eta, e0)
    assert not np.array_equal(new_alpha, alpha) and not np.array_equal(new_eta, eta)
    assert len(priors.scales) == 2 and priors.scales[-1] == float(np.sum(new_alpha))
    priors.start(1.0 / K, 1.0 / K, V)
    assert priors.scales == [1.0]  # a new initialisation restarts the trace


def test_online_lda_keeps_its_vocabulary_and_fitted_state_only():
    """The online fit adopts the state of the StochasticVI fit of a clone: the vocabulary set
    before the fit stays, no attribute of an earlier fit survives a refit."""
    X = sp.csr_matrix(np.random.default_rng(0).poisson(1.0, (40, 10)).astype(float))
    lda = LatentDirichletAllocation(3, learning_method="online", batch_size=10, max_iter=2,
                                    random_state=0)  # deprecated spelling (until 0.3)
    lda.feature_names_in_ = np.array([f"w{i}" for i in range(10)])
    lda.stale_ = 1.0  # a fitted attribute of an earlier fit
    with pytest.warns(DeprecationWarning, match="learning_method="):
        lda.fit(X)
    assert not hasattr(lda, "stale_")
    assert lda.feature_names_in_[3] == "w3"
    assert lda.n_iter_ == 2 and lda.n_steps_ == 8 and lda.lower_bounds_.shape == (2,)
    assert lda.get_params()["learning_method"] == "online"
    # rows of the posterior mean sum to 1 (to the rounding of one division per row)
    np.testing.assert_allclose(lda.transform(X).sum(axis=1), np.ones(40), rtol=1e-12)


def test_lda_fits_through_the_drivers_only():
    """Issue 39 item 4: LDA overrides neither ``fit`` nor ``partial_fit`` (on main it overrode
    ``fit`` to dispatch ``learning_method='online'``); the deprecated keywords reach
    StochasticVI through the ``_deprecated_fit`` hook, and a plain model has none."""
    from latentkit.base import LatentModel

    for name in ("fit", "partial_fit"):
        assert getattr(LatentDirichletAllocation, name) is getattr(LatentModel, name), name
    assert LatentDirichletAllocation(3)._deprecated_fit() is None
    assert LatentDirichletAllocation(3, learning_method="batch")._deprecated_fit() is None
