"""Each family checks its own restored state (issue 39, item 2): the checks follow the model's
own ``_check_state`` hook and the objects it holds, not its class name.

* On main, ``_engine/state_checks.py`` chose the checks by ``type(model).__name__``: a
  ``HiddenMarkovModel(emission='poisson')`` or a subclass under another name had only its chain
  checked, and a negative rate loaded. The HMM's checks now follow its emission's
  ``param_names``.
* SQUAREM's test for negative expected counts reads the statistics' ``count_fields`` (the core
  no longer knows the mixtures' field ``nk``).
"""

import numpy as np
import pytest

from latentkit._engine import acceleration
from latentkit._engine.state_checks import StateCheckError, check_state
from latentkit.base import Stats, stats_dataclass
from latentkit.sequence import GaussianHMM, HiddenMarkovModel


def _counts(seed=0):
    rng = np.random.default_rng(seed)
    return np.vstack([rng.poisson(1.0, size=(60, 3)), rng.poisson(6.0, size=(60, 3))])


def test_a_generic_hmm_checks_its_emission_parameters():
    model = HiddenMarkovModel(2, emission="poisson", random_state=0, max_iter=3).fit(_counts())
    check_state(model)  # a genuine fit passes
    model.lambdas_ = -model.lambdas_
    with pytest.raises(StateCheckError, match="lambdas_: expected positive values"):
        check_state(model)


class _Renamed(GaussianHMM):
    """A subclass under another name keeps its family's checks (the method is inherited)."""


def test_a_renamed_subclass_keeps_its_family_checks():
    X = np.random.default_rng(1).normal(size=(80, 2))
    model = _Renamed(2, random_state=0, max_iter=3).fit(X)
    check_state(model)
    model.covariances_ = model.covariances_[:1]  # one state short
    with pytest.raises(StateCheckError, match="covariances_: expected shape"):
        check_state(model)


@stats_dataclass
class _TallyStats(Stats):
    n: float
    data_term: float
    tally: np.ndarray

    count_fields = ("tally",)


def test_squarem_reads_the_count_fields_the_statistics_declare():
    good = _TallyStats(n=1.0, data_term=0.0, tally=np.array([0.0, 2.0]))
    bad = _TallyStats(n=1.0, data_term=0.0, tally=np.array([-1e-3, 2.0]))
    assert acceleration._valid_counts(good) and not acceleration._valid_counts(bad)
