"""Export of a fitted topic model to pyLDAvis (Sievert & Shirley 2014).

``pyLDAvis.prepare(**model.to_pyldavis(X))`` draws the model with pyLDAvis: the dict holds exactly
the five required keyword arguments of ``pyLDAvis.prepare``, computed as pyLDAvis's own
scikit-learn helper (``pyLDAvis.lda_model``) computes them, so latentkit needs no pyLDAvis import.

pyLDAvis ranks a topic's words by relevance ``lambda log p(w|t) + (1 - lambda) log(p(w|t) / p(w))``
like :meth:`report`, but it re-derives p(w) from the model (``sum_t p(t) p(w|t)`` with p(t) the
token-weighted topic proportions; LDAvis pull request #41) instead of the corpus's word
frequencies the report uses, so for lambda < 1 the two rankings can differ slightly; at lambda = 1
they are the same ranking.
"""

import numpy as np

from ..text import counts_from_texts
from ._report_inputs import _corpus_parts, _topic_word
from ..exceptions import InputError

__all__ = ["pyldavis_data", "PyLDAvisMixin"]


def pyldavis_data(model, corpus, *, vocabulary=None):
    """The keyword arguments of ``pyLDAvis.prepare`` for a fitted topic model and a corpus.

    Parameters
    ----------
    model : fitted LatentDirichletAllocation or PLSA
    corpus : Corpus, count matrix (n_docs, n_words), or list of str
        The documents to show (usually the training corpus): a ``latentkit`` ``Corpus``, a
        dense or sparse count matrix, or raw texts when the model was fitted on texts (its saved
        vectorizer counts them).
    vocabulary : sequence of str of length n_words, optional
        Word of each column. Default: the model's saved vocabulary (``feature_names_in_``, set by
        a fit on texts), else the Corpus's ``vocabulary``, else the column indices as strings.

    Returns
    -------
    dict
        ``topic_term_dists`` ndarray (n_topics, n_words), rows p(w | t) summing to 1 (exact
        zeros, e.g. PLSA's, raised to the smallest positive double so logarithms stay finite);
        ``doc_topic_dists`` ndarray (n_docs, n_topics), ``model.transform`` (rows sum to 1);
        ``doc_lengths`` ndarray (n_docs,), tokens per document; ``vocab`` list of str
        (n_words,); ``term_frequency`` ndarray (n_words,), corpus count of each word.

    Raises
    ------
    NotFittedError
        Before ``fit``.
    TypeError
        Not a topic model.
    ValueError
        A corpus whose width differs from the model's; a vocabulary of the wrong length; raw
        texts for a model not fitted on texts.

    Notes
    -----
    Source: Sievert & Shirley (2014), "LDAvis: a method for visualizing and interpreting topics",
    ACL workshop on interactive language learning; ``pyLDAvis.prepare``'s documented arguments.
    """
    model._check_is_fitted()
    phi = _topic_word(model)
    n_words = phi.shape[1]
    X, _, _ = _corpus_parts(model, counts_from_texts(model, corpus), None)
    if X is None:
        raise InputError("corpus must be given: the documents to show (a count matrix, a "
                         "Corpus, or raw texts for a model fitted on texts), got None.")
    if vocabulary is None:
        vocabulary = getattr(model, "feature_names_in_", None)
    if vocabulary is None and isinstance(corpus, dict):
        vocabulary = corpus.get("vocabulary")
    if vocabulary is None:
        vocabulary = range(n_words)
    vocab = [str(w.item() if isinstance(w, np.generic) else w) for w in vocabulary]
    if len(vocab) != n_words:
        raise InputError(f"vocabulary must have n_words={n_words} entries (one per column), "
                         f"got {len(vocab)}.")
    return {
        "topic_term_dists": phi / phi.sum(axis=1, keepdims=True),
        "doc_topic_dists": np.asarray(model.transform(X), dtype=np.float64),
        "doc_lengths": np.asarray(X.sum(axis=1), dtype=np.float64).ravel(),
        "vocab": vocab,
        "term_frequency": np.asarray(X.sum(axis=0), dtype=np.float64).ravel(),
    }


class PyLDAvisMixin:
    """``to_pyldavis`` for the topic models with a topic-word ``components_`` and ``transform``
    (LatentDirichletAllocation, PLSA; through :class:`TopicReportMixin`)."""

    def to_pyldavis(self, corpus, *, vocabulary=None):
        """The keyword arguments of ``pyLDAvis.prepare``: ``pyLDAvis.prepare(**m.to_pyldavis(X))``.

        Parameters
        ----------
        corpus : Corpus, count matrix (n_docs, n_features), or list of str
            The documents to show; raw texts when the model was fitted on texts.
        vocabulary : sequence of str of length n_features, optional
            Default: the vocabulary saved by a fit on texts, else the Corpus's, else the column
            indices.

        Returns
        -------
        dict
            ``topic_term_dists`` (n_components, n_features), ``doc_topic_dists`` (n_docs,
            n_components), ``doc_lengths`` (n_docs,) tokens, ``vocab`` (n_features,) str,
            ``term_frequency`` (n_features,) counts. See :func:`pyldavis_data`.

        Raises
        ------
        NotFittedError, TypeError, ValueError
            See :func:`pyldavis_data`.

        Notes
        -----
        Source: Sievert & Shirley (2014); ``pyLDAvis.prepare``.
        """
        return pyldavis_data(self, corpus, vocabulary=vocabulary)
