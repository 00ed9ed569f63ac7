"""What a topic report and a pyLDAvis export read from a model and a corpus: the normalised
topic-word matrix and the corpus parts (counts, titles, texts). One module below both
(``_report`` builds on ``_pyldavis``)."""

import numpy as np
import scipy.sparse as sp
from ..exceptions import InputError, InputTypeError

__all__ = []


def _slice_topic_word(model):
    """p(w | topic, slice) (n_slices, n_topics, n_words) of a model with time slices (a
    :class:`latentkit.topic.DynamicTopicModel`), else None."""
    if getattr(model, "components_", None) is not None or \
            getattr(model, "time_slices_", None) is None:
        return None
    return np.asarray(model.topic_word_distributions(), dtype=np.float64)


def _topic_word(model):
    """p(w | topic) (n_topics, n_words); a model with time slices: the mean over its slices."""
    by_slice = _slice_topic_word(model)
    comps = (by_slice.mean(axis=0) if by_slice is not None else
             np.asarray(getattr(model, "components_", None), dtype=np.float64))
    if comps.ndim != 2:
        raise InputTypeError(f"model must be a fitted topic model with components_ (n_topics, "
                        f"n_words), got {type(model).__name__}.")
    phi = comps / comps.sum(axis=1, keepdims=True)
    # exact zeros (PLSA) would give log 0 = -inf, which JSON cannot carry
    return np.maximum(phi, np.finfo(np.float64).tiny)


def _corpus_parts(model, corpus, title_column):
    """(counts CSR or None, titles or None, texts or None) from the corpus argument."""
    if corpus is None:
        if title_column is not None:
            raise InputError("title_column needs a corpus with a table's columns (from "
                             "load_texts / load_texts_for on a .csv or .jsonl file), got none.")
        return None, None, None
    titles = texts = None
    if isinstance(corpus, dict) and "data" in corpus:
        titles, texts, X = corpus.get("titles"), corpus.get("texts"), corpus["data"]
    else:
        X = corpus
    X = X.tocsr() if sp.issparse(X) else sp.csr_matrix(np.asarray(X, dtype=np.float64))
    width = _topic_word(model).shape[1]
    if X.shape[1] != width:
        raise InputError(f"corpus has {X.shape[1]} words but the model has "
                         f"{width}; pass the corpus the model was fitted on.")
    if title_column is not None:
        meta = corpus.get("metadata") if isinstance(corpus, dict) else None
        if not meta:
            raise InputError(f"title_column={title_column!r} needs a corpus read from a .csv or "
                             ".jsonl table (load_texts); this corpus has no other columns.")
        if title_column not in meta:
            raise InputError(f"title_column={title_column!r} is not a column of the corpus "
                             f"(columns: {', '.join(map(str, meta))}).")
        column = meta[title_column]
        titles = [str(v) if v is not None and str(v).strip() else
                  (str(titles[d]) if titles is not None else f"document {d}")
                  for d, v in enumerate(column)]
    return X, titles, texts
