"""Default stopping of the HMMs reaches the converged answer on the bundled data sets (issue 11,
item 9).

The defaults are ``tol=None`` (``tol_ = 1e-3 / n_samples``, 1e-3 nats on the total bound) and
``max_iter=1000``. Each case is a bundled data set and a seed on which the old defaults
(``tol=1e-6`` per time step, ``max_iter=100``) stopped the fit at ``max_iter`` short of
convergence: the default fit must now converge (no ConvergenceWarning) and agree with a fit
from the same start run to ``tol=1e-10`` -- the mean log-likelihood per time step to 2e-4 nats
and the transition matrix to 0.01 (the old defaults: 0.035 on CategoricalHMM). Seeds on which Baum-Welch sits on a long
plateau (PoissonHMM on earthquakes with seed 0, CategoricalHMM on lambda phage with seeds 1-2)
are not cases: no tolerance short of 1e-12 waits them out (README, "Default stopping").
"""

import warnings

import numpy as np
import pytest

import latentkit as lk
from latentkit.base import ConvergenceWarning
from latentkit.datasets import load_lambda_phage, load_old_faithful


def _faithful():
    X = load_old_faithful().data
    return (X - X.mean(axis=0)) / X.std(axis=0)


def _phage():
    return load_lambda_phage().data[:10000]


CASES = {
    "GMMHMM-faithful": (lambda **kw: lk.GMMHMM(2, n_mix=2, random_state=0, **kw), _faithful),
    "CategoricalHMM-phage": (lambda **kw: lk.CategoricalHMM(2, random_state=0, **kw), _phage),
    "VariationalCategoricalHMM-phage": (
        lambda **kw: lk.VariationalCategoricalHMM(2, random_state=2, **kw), _phage),
}


@pytest.mark.parametrize("name", list(CASES))
def test_default_hmm_fit_is_the_converged_fit(name):
    make, data = CASES[name]
    X = data()
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        default = make().fit(X)
    assert default.converged_
    assert default.tol_ == pytest.approx(1e-3 / X.shape[0], rel=1e-12)
    ref = make(tol=1e-10, max_iter=5000).fit(X)
    assert ref.converged_
    assert abs(default.score(X) - ref.score(X)) < 2e-4
    np.testing.assert_allclose(default.transmat_, ref.transmat_, atol=0.01)
