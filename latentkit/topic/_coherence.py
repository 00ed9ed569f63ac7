"""Topic coherence: ``u_mass``, ``c_uci``, ``c_npmi`` and ``c_v``.

The measures of Roeder, Both & Hinneburg (2015), "Exploring the space of topic coherence
measures" (WSDM), computed as gensim's ``CoherenceModel`` computes them (gensim 4: segmentation,
probability estimation, confirmation measure, arithmetic mean), so the numbers equal gensim's:

========  ==============  ===================================  =============================
measure   segmentation    probabilities                        confirmation
========  ==============  ===================================  =============================
u_mass    S_one_pre       boolean documents                    log P(w_i, w_j) / P(w_j)
c_uci     S_one_one       boolean sliding windows of 10        PMI
c_npmi    S_one_one       boolean sliding windows of 10        NPMI
c_v       S_one_set       boolean sliding windows of 110       cosine of NPMI context vectors
========  ==============  ===================================  =============================

with gensim's smoothing constant ``EPSILON = 1e-12`` inside the logarithms (Mimno et al. 2011
for ``u_mass``; Newman et al. 2010 for ``c_uci``; Bouma 2009 for NPMI; Aletras & Stevenson 2013
for context vectors). The co-occurrence counts come from the numba kernels of
:mod:`latentkit._kernels.coherence`.
"""

import numbers
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from .._kernels.coherence import document_cooccurrence, window_cooccurrence
from .._utils.words import top_word_ids
from ..exceptions import InputError, InputTypeError

__all__ = ["coherence", "Coherence", "MEASURES"]

EPSILON = 1e-12
#: measure -> default sliding window (None: boolean documents), as gensim's SLIDING_WINDOW_SIZES
MEASURES = {"u_mass": None, "c_uci": 10, "c_npmi": 10, "c_v": 110}


@dataclass
class Coherence:
    """The coherence of a set of topics.

    Attributes
    ----------
    measure : str
    per_topic : ndarray of shape (n_topics,)
        Coherence of each topic (unitless; ``u_mass`` and ``c_uci`` in nats).
    mean : float
        Arithmetic mean over topics (gensim's ``get_coherence``).
    topics : list of lists of str or int
        The top words each topic was scored on.
    window_size : int or None
        None for boolean documents.
    n_windows : int
        Virtual documents (windows, or documents) the probabilities were estimated on.
    token_streams : str
        What was counted: ``'boolean documents'`` (``u_mass``), ``'texts, removed words'
        positions kept'``, ``'texts, removed words dropped'`` or ``'bag of words (column
        order)'`` (a count matrix read as token streams); see ``removed_words`` of
        :func:`coherence`.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.topic import coherence
    >>> X = np.array([[2, 1, 0, 0], [1, 2, 0, 0], [0, 0, 2, 1], [0, 0, 1, 2]])
    >>> vocab = ["apple", "pie", "wine", "glass"]
    >>> c = coherence([["apple", "pie"], ["wine", "glass"]], X, measure="u_mass", vocabulary=vocab)
    >>> type(c).__name__, c.topics, round(float(c.mean), 6)
    ('Coherence', [['apple', 'pie'], ['wine', 'glass']], 0.0)
    """

    measure: str
    per_topic: np.ndarray
    mean: float
    topics: list = field(repr=False)
    window_size: object = None
    n_windows: int = 0
    token_streams: str = ""


# ----------------------------------------------------------------------------- inputs

def _plain(v):
    return v.item() if isinstance(v, np.generic) else v


def _model_vocabulary(obj):
    names = getattr(obj, "feature_names_in_", None)
    return None if names is None else [str(w) for w in names]


def _topics_from(topics_or_model, top_n, vocabulary):
    """Top word ids per topic, and their display form."""
    comps = getattr(topics_or_model, "components_", None)
    if comps is not None:
        comps = np.asarray(comps)
        if comps.ndim != 2:
            raise InputError(f"topics_or_model.components_ must be 2-d, got shape {comps.shape}.")
        if np.isnan(comps).any():
            raise InputError("topics_or_model.components_ contains NaN; no word ranking exists.")
        ids = [[int(j) for j in row] for row in top_word_ids(comps, top_n)]
    else:
        if isinstance(topics_or_model, (str, bytes)) or not hasattr(topics_or_model, "__iter__"):
            raise InputTypeError("topics_or_model must be a fitted topic model (with components_) or "
                            f"a list of topics (lists of words or word ids), got "
                            f"{type(topics_or_model).__name__}.")
        topics = [[_plain(w) for w in t] for t in topics_or_model]
        if not topics or any(len(t) == 0 for t in topics):
            raise InputError("topics_or_model must hold at least one non-empty topic.")
        index = None
        ids = []
        for k, t in enumerate(topics):
            row = []
            for w in t[:top_n]:
                if isinstance(w, str):
                    if vocabulary is None:
                        raise InputError("topics are given as words; pass vocabulary= (or a "
                                         "corpus with a vocabulary) to map them to columns.")
                    if index is None:
                        index = {v: i for i, v in enumerate(vocabulary)}
                    if w not in index:
                        raise InputError(f"topic {k}: word {w!r} is not in the vocabulary.")
                    row.append(index[w])
                elif isinstance(w, numbers.Integral):
                    row.append(int(w))
                else:
                    raise InputTypeError(f"topic {k}: words must be str or int ids, got "
                                    f"{type(w).__name__}.")
            if len(set(row)) != len(row):
                raise InputError(f"topic {k} repeats a word: {t[:top_n]!r}.")
            ids.append(row)
    shown = ids if vocabulary is None else [[vocabulary[i] for i in row] for row in ids]
    return ids, shown


def _as_csr(corpus, n_words):
    X = corpus.tocsr() if sp.issparse(corpus) else sp.csr_matrix(np.asarray(corpus, dtype=float))
    if X.ndim != 2:
        raise InputError(f"corpus must be a 2-d (n_docs, n_words) count matrix, got {X.ndim}-d.")
    if n_words is not None and X.shape[1] != n_words:
        raise InputError(f"corpus has {X.shape[1]} columns but the topics have {n_words} words "
                         "(the model's n_features).")
    if X.nnz and (not np.all(np.isfinite(X.data)) or X.data.min() < 0):
        raise InputError("corpus must hold non-negative finite counts.")
    return X


def _streams_from_csr(X):
    """Bag-of-words token streams: each word repeated count times, in column order."""
    X = X.copy()
    X.sort_indices()
    reps = np.rint(X.data).astype(np.int64)
    tokens = np.repeat(X.indices.astype(np.int64), reps)
    per_doc = np.add.reduceat(reps, X.indptr[:-1]) if reps.size else np.zeros(X.shape[0], int)
    per_doc[np.diff(X.indptr) == 0] = 0  # reduceat quirk on empty rows
    offsets = np.concatenate([[0], np.cumsum(per_doc)]).astype(np.int64)
    return offsets, tokens


def _streams_from_texts(texts, vocabulary):
    """Token streams from a list of token lists (str, mapped through vocabulary, or int ids)."""
    index = None
    lengths, chunks = [], []
    for d, doc in enumerate(texts):
        if isinstance(doc, str):
            raise InputTypeError(f"corpus document {d} is a str; pass token lists (e.g. "
                            "latentkit.text's corpus.tokens) or a count matrix.")
        doc = list(doc)
        if doc and isinstance(_plain(doc[0]), str):
            if vocabulary is None:
                raise InputError("corpus holds words; pass vocabulary= to map them to columns.")
            if index is None:
                index = {v: i for i, v in enumerate(vocabulary)}
            arr = np.fromiter((index.get(w, -1) for w in doc), dtype=np.int64, count=len(doc))
        else:
            arr = np.asarray(doc, dtype=np.int64).reshape(-1)
        lengths.append(arr.size)
        chunks.append(arr)
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    tokens = np.concatenate(chunks) if chunks else np.zeros(0, np.int64)
    return offsets, tokens


def _drop_removed(offsets, tokens, n_words):
    """Token streams without the removed words' positions (ids < 0 or >= n_words)."""
    keep = tokens >= 0
    if n_words is not None:
        keep &= tokens < n_words
    kept = np.concatenate([[0], np.cumsum(keep)]).astype(np.int64)
    return kept[offsets], tokens[keep]


def _csr_from_streams(offsets, tokens, n_words):
    n_docs = len(offsets) - 1
    rows = np.repeat(np.arange(n_docs), np.diff(offsets))
    keep = (tokens >= 0) & (tokens < n_words)
    return sp.csr_matrix((np.ones(int(keep.sum())), (rows[keep], tokens[keep])),
                         shape=(n_docs, n_words))


# ----------------------------------------------------------------------------- measures

def _npmi(C, N):
    P = C / N
    d = np.diag(P)
    with np.errstate(divide="ignore"):
        num = np.log((P + EPSILON) / np.outer(d, d))
    return num, num / -np.log(P + EPSILON)


def _score(measure, ids_local, C, N):
    """Per-topic scores from the relevant co-occurrence matrix C (R, R) and N virtual docs."""
    out = np.empty(len(ids_local))
    if measure == "u_mass":
        for k, t in enumerate(ids_local):
            M = C[np.ix_(t, t)]
            # S_one_pre: (w_prime = t[i], w_star = t[j]) for i > j, in gensim's order
            i, j = np.tril_indices(len(t), -1)
            out[k] = np.mean(np.log((M[i, j] / N + EPSILON) / (np.diag(M)[j] / N)))
        return out
    pmi, npmi = _npmi(C, N)
    for k, t in enumerate(ids_local):
        t = np.asarray(t)
        if measure in ("c_uci", "c_npmi"):
            M = (pmi if measure == "c_uci" else npmi)[np.ix_(t, t)]
            off = ~np.eye(len(t), dtype=bool)
            out[k] = M[off].mean() if len(t) > 1 else np.nan
        else:  # c_v: cosine of each word's NPMI context vector with the whole topic's
            M = npmi[np.ix_(t, t)]
            s = M.sum(axis=0)
            cos = (M @ s) / (np.sqrt((M * M).sum(axis=1)) * np.sqrt(s @ s))
            out[k] = cos.mean()
    return out


def coherence(topics_or_model, corpus, measure="c_v", top_n=10, *, vocabulary=None,
              window_size=None, window_counting="gensim", removed_words="keep"):
    """Coherence of topics on a reference corpus, per topic and averaged.

    Parameters
    ----------
    topics_or_model : fitted topic model or list of lists
        A model with ``components_`` of shape (n_topics, n_words) (``LatentDirichletAllocation``,
        ``PLSA``; its ``top_n`` largest entries per row are the topic's words), or topics as
        lists of words (str, mapped through ``vocabulary``) or of column ids (int), most probable
        first.
    corpus : sparse or dense matrix (n_docs, n_words), Corpus, or list of token lists
        The reference corpus. A count matrix gives the boolean documents of ``u_mass``; for the
        sliding-window measures its documents are read as token streams in bag-of-words order
        (each word repeated by its count, words in column order). A ``latentkit`` ``Corpus``
        with ``tokens`` (as made by :mod:`latentkit.text`) uses those token streams (the real
        word order) for windows, otherwise its ``data``. A list of token lists (str or int ids)
        is used as the texts.
    measure : {'c_v', 'c_npmi', 'c_uci', 'u_mass'}, default 'c_v'
    top_n : int, default 10
        Words per topic.
    vocabulary : sequence of str, optional
        Word of each column; default: the model's ``feature_names_in_`` or the corpus's
        ``vocabulary``. Needed when topics or texts are words.
    window_size : int, optional
        Sliding window length in tokens (default 10 for c_uci/c_npmi, 110 for c_v, as gensim).
        Ignored for ``u_mass``.
    window_counting : {'gensim', 'exact'}, default 'gensim'
        'gensim' reproduces gensim 4's window bookkeeping, where a word leaving the window's left
        edge is dropped from the window's word set even if it occurs again inside the window, so
        the numbers equal gensim's ``CoherenceModel``. 'exact' uses the true set of words in each
        window (Roeder et al. 2015; Palmetto). The two differ only on windows that repeat a top
        word.

    Returns
    -------
    Coherence
        ``per_topic`` (n_topics,), ``mean``, ``topics`` (the words scored), ``window_size``,
        ``n_windows``, ``token_streams`` (which streams were counted).

    Raises
    ------
    ValueError
        Unknown ``measure``, ``window_counting`` or ``removed_words``; ``top_n`` < 2 or
        ``window_size`` < 1;
        a corpus whose width differs from the model's; a topic word absent from the reference
        corpus (its probability is 0 and the measure is undefined); words without a vocabulary.
    TypeError
        ``topics_or_model`` or ``corpus`` of an unsupported type.

    Notes
    -----
    Source: Roeder, Both & Hinneburg (2015), Table 1 and section 3; gensim 4's
    ``topic_coherence`` pipelines, whose conventions (EPSILON = 1e-12, the last window of a
    document shorter than the window, S_one_pre order) are followed exactly.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.topic import coherence
    >>> X = np.array([[2, 1, 0, 0], [1, 2, 0, 0], [0, 0, 2, 1], [0, 0, 1, 2]])
    >>> vocab = ["apple", "pie", "wine", "glass"]
    >>> c = coherence([["apple", "pie"], ["wine", "glass"]], X, measure="u_mass", vocabulary=vocab)
    >>> c.measure, np.round(c.per_topic, 6)  # each pair co-occurs in every document of either word
    ('u_mass', array([0., 0.]))
    """
    if measure not in MEASURES:
        raise InputError(f"measure must be one of {sorted(MEASURES)}, got {measure!r}.")
    if removed_words not in ("keep", "drop"):
        raise InputError(f"removed_words must be 'keep' or 'drop', got {removed_words!r}.")
    if window_counting not in ("gensim", "exact"):
        raise InputError(f"window_counting must be 'gensim' or 'exact', got {window_counting!r}.")
    if not isinstance(top_n, numbers.Integral) or isinstance(top_n, bool) or top_n < 2:
        raise InputError(f"top_n must be an integer >= 2, got {top_n!r}.")
    win = MEASURES[measure] if window_size is None else window_size
    if measure != "u_mass" and (not isinstance(win, numbers.Integral) or win < 1):
        raise InputError(f"window_size must be a positive integer, got {window_size!r}.")

    texts = None
    if isinstance(corpus, dict) and "data" in corpus:  # a latentkit Corpus
        if vocabulary is None and corpus.get("vocabulary") is not None:
            vocabulary = [str(w) for w in corpus["vocabulary"]]
        texts = corpus.get("tokens")
        corpus = corpus["data"]
    if vocabulary is None:
        vocabulary = _model_vocabulary(topics_or_model)
    vocabulary = None if vocabulary is None else [str(_plain(w)) for w in vocabulary]
    comps = getattr(topics_or_model, "components_", None)
    n_words = None if comps is None else np.shape(comps)[1]
    if n_words is None and vocabulary is not None:
        n_words = len(vocabulary)
    ids, shown = _topics_from(topics_or_model, top_n, vocabulary)

    if sp.issparse(corpus) or isinstance(corpus, np.ndarray):
        X = _as_csr(corpus, n_words)
        n_words = X.shape[1]
    elif isinstance(corpus, (list, tuple)):
        X, texts = None, corpus
    else:
        raise InputTypeError("corpus must be a count matrix (scipy.sparse or ndarray), a latentkit "
                        f"Corpus or a list of token lists, got {type(corpus).__name__}.")
    if texts is not None:
        offsets, tokens = _streams_from_texts(texts, vocabulary)
        if removed_words == "drop":
            offsets, tokens = _drop_removed(offsets, tokens, n_words)
        if n_words is None:
            n_words = int(tokens.max()) + 1 if tokens.size else 0
    max_id = max(max(t) for t in ids)
    if n_words is not None and max_id >= n_words:
        raise InputError(f"topic word id {max_id} is out of range for {n_words} words.")
    n_words = max(n_words or 0, max_id + 1)

    relevant_words = list(dict.fromkeys(w for t in ids for w in t))
    relevant = np.full(n_words, -1, dtype=np.int64)
    relevant[relevant_words] = np.arange(len(relevant_words))
    local = [[int(relevant[w]) for w in t] for t in ids]

    streams = ("boolean documents" if measure == "u_mass" else
               "bag of words (column order)" if texts is None else
               f"texts, removed words{chr(39)} positions kept" if removed_words == "keep" else
               "texts, removed words dropped")
    if measure == "u_mass":
        if X is None:
            X = _csr_from_streams(offsets, tokens, n_words)
        C = document_cooccurrence(X.indptr.astype(np.int64), X.indices.astype(np.int64),
                                  X.data.astype(np.float64), relevant, len(relevant_words))
        N, win = X.shape[0], None
    else:
        if texts is None:
            offsets, tokens = _streams_from_csr(X)
        C, N = window_cooccurrence(offsets, tokens, relevant, len(relevant_words), int(win),
                                   window_counting == "exact")
    absent = [relevant_words[r] for r in range(len(relevant_words)) if C[r, r] == 0]
    if absent or N == 0:
        names = [vocabulary[w] if vocabulary else w for w in absent]
        raise InputError(f"topic words {names!r} never occur in the reference corpus, so their "
                         f"{measure} coherence is undefined; use the corpus the model was "
                         "fitted on, or a larger one.")
    per_topic = _score(measure, local, C.astype(np.float64), float(N))
    return Coherence(measure=measure, per_topic=per_topic, mean=float(np.mean(per_topic)),
                     topics=shown, window_size=win, n_windows=int(N), token_streams=streams)
