"""What a topic report and a pyLDAvis export read from a model and a corpus: the normalised
topic-word matrix and the corpus parts (counts, titles, texts). One module below both
(``_report`` builds on ``_pyldavis``)."""

import numpy as np
import scipy.sparse as sp
from ..exceptions import InputError, InputTypeError

__all__ = []


def _topic_word(model):
    comps = np.asarray(getattr(model, "components_", None), dtype=np.float64)
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
    if X.shape[1] != model.components_.shape[1]:
        raise InputError(f"corpus has {X.shape[1]} words but the model has "
                         f"{model.components_.shape[1]}; pass the corpus the model was fitted on.")
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
