"""Topic diversity (Dieng, Ruiz & Blei 2020): the share of unique words among all topics' top words.

A companion of :func:`latentkit.topic.coherence`: coherence rewards topics whose top words occur
together, diversity penalises topics that repeat each other's top words. Near 1: every topic has
its own words; near 1/K: all K topics list the same words.
"""

import numbers

import numpy as np

from ._coherence import _plain, _topics_from
from ..exceptions import InputError, InputTypeError

__all__ = ["topic_diversity"]


def topic_diversity(topics_or_model, top_n=25):
    """Topic diversity: unique words among the topics' top ``top_n`` words, over all listed words.

    ``TD = |union_k top_n(k)| / sum_k |top_n(k)|``, which is ``|union| / (K * top_n)`` when
    every topic lists ``top_n`` words.

    Parameters
    ----------
    topics_or_model : fitted topic model or list of lists
        A model with ``components_`` of shape (n_topics, n_words) (``LatentDirichletAllocation``,
        ``PLSA``, spectral LDA), or topics as lists of words (str) or column ids (int), most
        probable first (only the first ``top_n`` of each list are used).
    top_n : int, default 25
        Words per topic (25 in Dieng, Ruiz & Blei 2020).

    Returns
    -------
    float
        In (0, 1]; unitless.

    Raises
    ------
    ValueError
        ``top_n`` < 1; a model whose ``components_`` is not 2-d or holds NaN; no topic, or an
        empty topic (also: a model row with no positive weight); a topic that repeats a word.
    TypeError
        ``topics_or_model`` of an unsupported type, or a topic that is not a list of str words or
        int ids (e.g. a row of topic-word weights); a non-integer ``top_n``.

    Notes
    -----
    Ties: a model's top words are those of :meth:`top_words` (the :mod:`latentkit._utils.words`
    rule): words of weight zero are never listed (so a topic with fewer than ``top_n`` positive
    weights lists fewer words, and the denominator counts the words listed), and equal weights at
    the cut-off keep column order (the lower column index wins). Words given as lists are taken
    as given (a str word and an int id are different words).

    Source: Dieng, Ruiz & Blei (2020), "Topic modeling in embedding spaces", TACL 8, section 5
    ("topic diversity ... the percentage of unique words in the top 25 words of all topics").

    Examples
    --------
    >>> from latentkit.topic import topic_diversity
    >>> topic_diversity([["apple", "pie", "tart"], ["wine", "glass", "apple"]], top_n=3)  # 5 / 6
    0.8333333333333334
    """
    if isinstance(top_n, bool) or not isinstance(top_n, numbers.Integral):
        raise InputTypeError(f"top_n must be an int, got {type(top_n).__name__}.")
    if top_n < 1:
        raise InputError(f"top_n must be >= 1, got {top_n}.")
    if getattr(topics_or_model, "components_", None) is not None:
        listed, _ = _topics_from(topics_or_model, top_n, None)  # the top_words rule
    else:
        if isinstance(topics_or_model, (str, bytes)) or not hasattr(topics_or_model, "__iter__"):
            raise InputTypeError("topics_or_model must be a fitted topic model (with components_) or "
                            f"a list of topics (lists of words or word ids), got "
                            f"{type(topics_or_model).__name__}.")
        listed = []
        for k, t in enumerate(topics_or_model):
            if isinstance(t, (str, bytes)) or not hasattr(t, "__iter__"):
                raise InputTypeError(f"topics_or_model: topic {k} must be a list of words or word ids, "
                                f"got {type(t).__name__}.")
            words = [_plain(w) for w in t][:top_n]
            for w in words:
                if isinstance(w, bool) or not isinstance(w, (str, numbers.Integral)):
                    raise InputTypeError(
                        f"topics_or_model: topic {k} holds {w!r} of type {type(w).__name__}; "
                        "words must be str or int column ids (for a topic-word matrix, pass the "
                        "fitted model, whose components_ are ranked).")
            listed.append(words)
    if not listed:
        raise InputError("topics_or_model must hold at least one topic.")
    for k, t in enumerate(listed):
        if len(t) == 0:
            raise InputError(f"topic {k} is empty (a model row with no positive weight has no "
                             "top words).")
        if len(set(t)) != len(t):
            raise InputError(f"topic {k} repeats a word in its top {top_n}: {t!r}.")
    total = sum(len(t) for t in listed)
    return len(set().union(*map(set, listed))) / total
