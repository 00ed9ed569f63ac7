"""How many words each vocabulary rule of a :class:`latentkit.text.TextVectorizer` removed.

The vectorizer (scikit-learn's ``CountVectorizer``) drops stop words while tokenising, then the
terms outside ``[min_df, max_df]`` documents, then all but the ``max_features`` most frequent;
it keeps no record of which rule removed which word. :func:`pruning_summary` counts them by
running the same tokeniser without the rules (one more pass over the texts), for the summary
that ``latentkit fit lda|plsa --text`` prints.
"""

import numpy as np

from .vocabulary_rule import describe

__all__ = ["pruning_summary", "format_pruning"]


def _doc_count(value, n_docs):
    """``CountVectorizer``'s document count of a min_df / max_df setting."""
    return value if isinstance(value, (int, np.integer)) else value * n_docs


def pruning_summary(vectorizer, texts):
    """Distinct words found and removed by each rule of a fitted vectorizer.

    Parameters
    ----------
    vectorizer : fitted latentkit.text.TextVectorizer
    texts : list of str, length n_docs
        The texts it was fitted on.

    Returns
    -------
    dict
        ``'words'`` (distinct tokens of at least ``min_length`` letters), ``'stop_words'``
        (of them, in the chosen list), ``'extra_stop_words'`` (in ``extra_stop_words`` and not
        in the chosen list), ``'min_df'``, ``'max_df'``, ``'max_features'`` (terms removed by
        each, in that order; with bigrams the terms include two-word terms), ``'kept'``
        (the vocabulary size). Counts of distinct words or terms.

    Notes
    -----
    Source: scikit-learn's ``CountVectorizer`` semantics (stop words removed by the analyzer;
    then ``min_df <= df <= max_df``; then the ``max_features`` most frequent terms).
    """
    from sklearn.feature_extraction.text import CountVectorizer

    params = vectorizer.count_vectorizer_params()
    # the chosen list alone: a vectorizer of the same list without the extra words
    base = type(vectorizer)(stop_words=vectorizer.stop_words, lowercase=vectorizer.lowercase,
                            min_length=vectorizer.min_length).count_vectorizer_params()
    base = base["stop_words"] or []
    everything = set(params["stop_words"] or ())
    bare = dict(params, stop_words=None, min_df=1, max_df=1.0, max_features=None,
                ngram_range=(1, 1))
    words = set(CountVectorizer(**bare).fit(texts).vocabulary_)
    base = set(base)
    out = {"words": len(words), "stop_words": len(words & base),
           "extra_stop_words": len(words & (everything - base))}
    unpruned = CountVectorizer(**dict(params, min_df=1, max_df=1.0, max_features=None))
    X = unpruned.fit_transform(texts)
    df = np.asarray((X > 0).sum(axis=0)).ravel()
    n = X.shape[0]
    low = df < _doc_count(params["min_df"], n)
    high = ~low & (df > _doc_count(params["max_df"], n))
    out["min_df"], out["max_df"] = int(low.sum()), int(high.sum())
    kept = len(vectorizer.vocabulary_)
    out["max_features"] = int(df.size - low.sum() - high.sum() - kept)
    out["kept"] = kept
    return out


def format_pruning(summary, vectorizer):
    """One line for the CLI: the words found, what each rule removed, the words kept."""
    v = vectorizer
    chosen = v.stop_words if isinstance(v.stop_words, str) or v.stop_words is None else "list"
    parts = [f"stop words ({chosen}) -{summary['stop_words']}"]
    if v.extra_stop_words:
        parts.append(f"--extra-stop-words -{summary['extra_stop_words']}")
    n = getattr(v, "n_documents_", None)
    parts.append(f"{describe(v.min_df, getattr(v, 'min_df_', v.min_df), 'min_df', n)} "
                 f"-{summary['min_df']}")
    parts.append(f"{describe(v.max_df, getattr(v, 'max_df_', v.max_df), 'max_df', n)} "
                 f"-{summary['max_df']}")
    if v.max_features is not None:
        parts.append(f"max_features={v.max_features} -{summary['max_features']}")
    return (f"vocabulary  {summary['kept']} words kept of {summary['words']} distinct words of "
            f">= {v.min_length} letters: " + ", ".join(parts))
