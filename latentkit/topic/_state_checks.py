"""Checks of a restored LDA and PLSA state (their ``_check_state`` hooks): functions of a
:class:`~latentkit._engine.state_checks.FittedState` (the fitted values by name), raising
:class:`~latentkit.exceptions.StateCheckError` naming the bad attribute."""

from .._engine.state_checks import FittedState, _array, _real_or_array, _simplex, _sizes

__all__ = ["FittedState", "check_lda_state", "check_plsa_state"]


def check_lda_state(state):
    """The topics, their E-step table and the priors (a number, or the vector / matrix
    priors of :mod:`latentkit.topic._lda_priors`)."""
    K, V = _sizes(state)
    _array(state, "components_", (K, V), positive=True)
    _array(state, "exp_dirichlet_component_", (K, V), positive=True)
    _real_or_array(state, "doc_topic_prior_", [(K,)])
    _real_or_array(state, "topic_word_prior_", [(V,), (K, V)])


def check_plsa_state(state):
    """The topics and the training documents' topic proportions (probability rows)."""
    K, V = _sizes(state)
    _simplex(state, "components_", (K, V))
    _simplex(state, "doc_topic_", (None, K))
