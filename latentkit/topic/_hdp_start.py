"""A cheap start for the HDP topic model: CVB0 topics of a document subsample.

The batch fit's first useful topics otherwise come after its first full E-step (1-3 s on the
full KOS, NIPS or Gutenberg corpora on 2 cores); a collapsed Gibbs sampler (tomotopy's
``HDPModel``) has topics after its first pass (0.1-0.5 s). CVB0's sequential pass and a few
sweeps on a random subsample of the documents give topics in a fraction of that time; they
are a model of their own (their held-out perplexity can be reported) and a start for the
batch fit, handed over as ``init={'components': ..., 'weight_concentration': ...}``.
"""

import numbers

import numpy as np

from ..exceptions import InputTypeError
from .._utils.validation import check_counts, check_random_state, check_scalar
from ..distributions._stick_breaking import stick_posterior
from ._cvb0 import cvb0_topics

__all__ = ["hdp_subsample_start"]


def hdp_subsample_start(X, n_components, *, n_doc_components=10, concentration=1.0,
                        doc_concentration=1.0, topic_word_prior=0.01, subsample=1.0,
                        min_docs=200, n_sweeps=20, random_state=None, callback=None):
    """Start of :class:`HierarchicalDirichletProcess` from CVB0 on a document subsample.

    CVB0 (zero-order collapsed VB of LDA with T topics and ``doc_topic_prior = alpha / T``,
    as ``init='cvb0'``; its first sweep the sequential pass) on
    ``max(min_docs, subsample * D)`` documents drawn without replacement; the expected
    topic-word counts are scaled by ``D / n_subsample`` to the whole corpus, the topics
    ordered by mass, and the corpus sticks set as if the ``D * K`` document atoms were spread
    over the topics in proportion to their mass (as ``init='cvb0'`` does)::

        start = hdp_subsample_start(X, 50)
        HierarchicalDirichletProcess(50, init=start).fit(X)

    Parameters
    ----------
    X : array-like or scipy.sparse matrix of shape (n_documents, n_features)
        Non-negative counts.
    n_components : int
        T, the corpus truncation (>= 1).
    n_doc_components : int, default 10
        K, the document truncation (>= 1): sets the atoms spread over the corpus sticks.
    concentration : float, default 1.0
        gamma (> 0), the corpus stick-breaking concentration.
    doc_concentration : float, default 1.0
        alpha (> 0); CVB0 runs with ``doc_topic_prior = alpha / T``.
    topic_word_prior : float, default 0.01
        eta (> 0).
    subsample : float in (0, 1], default 1.0
        Share of the documents CVB0 sees (1: all of them; a sweep over the full KOS, NIPS or
        Gutenberg-paragraph corpus takes 0.3-0.6 s at T = 50 on 2 cores).
    min_docs : int, default 200
        At least this many documents (all of them if the corpus is smaller).
    n_sweeps : int, default 20
        CVB0 sweeps over the subsample (the first is the sequential pass).
    random_state : None, int or numpy.random.Generator
        Draws the subsample and seeds CVB0.
    callback : callable, optional
        ``callback(sweep, components)`` after every sweep, ``components`` (T, n_features) the
        topic-word parameters scaled to the corpus (unordered); returning True stops.

    Returns
    -------
    init : dict
        ``'components'``: (T, n_features) topic-word Dirichlet parameters ``eta + scale *
        N_kw`` (> 0), ordered by decreasing mass; ``'weight_concentration'``: (2, T) Beta
        parameters of the corpus sticks (the last column (1, 0), the truncation).

    Raises
    ------
    ValueError, TypeError
        Bad counts; ``n_components``, ``n_doc_components``, ``min_docs`` or ``n_sweeps`` < 1;
        ``subsample`` outside (0, 1]; non-positive concentrations or prior; a ``callback``
        that is not callable.

    Notes
    -----
    Asuncion, Welling, Smyth & Teh (2009), UAI, eq. (5) (CVB0); Canini, Shi & Griffiths
    (2009), AISTATS, section 3 (the sequential pass); Wang, Paisley & Blei (2011), AISTATS,
    section 3 (the corpus sticks). Measured in ``benchmarks/bench_hdp.py``.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.topic import hdp_subsample_start
    >>> rng = np.random.default_rng(0)
    >>> X = np.zeros((40, 6))  # documents about words 0-2 or about words 3-5
    >>> X[:20, :3] = rng.poisson(4, (20, 3)); X[20:, 3:] = rng.poisson(4, (20, 3))
    >>> init = hdp_subsample_start(X, n_components=4, random_state=0)
    >>> init["components"].shape, init["weight_concentration"].shape
    ((4, 6), (2, 4))
    """
    X = check_counts(X, "X")
    T = int(check_scalar(n_components, "n_components", numbers.Integral, low=1))
    K = int(check_scalar(n_doc_components, "n_doc_components", numbers.Integral, low=1))
    gamma = float(check_scalar(concentration, "concentration", numbers.Real, low=0.0,
                               low_inclusive=False))
    alpha = float(check_scalar(doc_concentration, "doc_concentration", numbers.Real, low=0.0,
                               low_inclusive=False))
    eta = float(check_scalar(topic_word_prior, "topic_word_prior", numbers.Real, low=0.0,
                             low_inclusive=False))
    share = float(check_scalar(subsample, "subsample", numbers.Real, low=0.0, high=1.0,
                               low_inclusive=False))
    min_docs = int(check_scalar(min_docs, "min_docs", numbers.Integral, low=1))
    if callback is not None and not callable(callback):
        raise InputTypeError(f"callback must be callable or None, got {type(callback).__name__}.")
    rng = check_random_state(random_state)
    D, V = X.shape
    n = min(D, max(min_docs, int(np.ceil(share * D))))
    rows = np.sort(rng.choice(D, n, replace=False)) if n < D else np.arange(D)
    scale = D / n

    def scaled(lam):
        return eta + scale * (lam - eta)

    inner = None if callback is None else (lambda s, lam: callback(s, scaled(lam)))
    lam = scaled(cvb0_topics(X[rows], T, alpha / T, eta, n_sweeps=n_sweeps, random_state=rng,
                             callback=inner))
    mass = np.maximum(lam.sum(axis=1) - V * eta, 0.0)
    order = np.argsort(-mass, kind="stable")
    atoms = float(max(D, 1)) * K * (mass[order] + 1e-3) / (mass[order] + 1e-3).sum()
    return {"components": np.ascontiguousarray(lam[order]),
            "weight_concentration": stick_posterior(atoms, 0.0, (1.0, gamma), "fixed")}
