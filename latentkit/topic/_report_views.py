"""The topic report's metadata views, computed from arrays (no model object): topics over time
(a :class:`latentkit.topic.DynamicTopicModel`'s slices) and topics by label (the labels of a
:class:`latentkit.topic.LabeledLDA`, or any grouping of the documents, e.g. the covariate levels
of a :class:`latentkit.topic.DirichletMultinomialRegression`).

Both are plain means of the documents' topic proportions (the model's ``transform``) over the
documents of a slice or of a label, so a view's numbers can be recomputed from the fitted model
in one line (the tests do).
"""

import numbers

import numpy as np
import scipy.sparse as sp

from ..exceptions import InputError

__all__ = []


def _ranked(row, n):
    """Indices of the ``n`` largest entries, ties by increasing index."""
    return np.lexsort((np.arange(row.shape[-1]), -row))[:n]


def over_time_view(word_probs, slice_of_doc, theta, vocab, n_words=10, n_tracked=None):
    """The over-time view's numbers.

    Parameters
    ----------
    word_probs : ndarray (n_slices, n_topics, n_words)
        p(w | topic, slice), rows sum to 1.
    slice_of_doc : ndarray (n_docs,) of int, or None
        Each document's slice position; None: no corpus (no shares).
    theta : ndarray (n_docs, n_topics) or None
        The documents' topic proportions at their slices.
    vocab : list of str
    n_words : int
        Top words listed per topic and slice.
    n_tracked : int, optional
        Words per topic whose probability over time is embedded: the topic's ``n_words`` most
        probable words at any slice, ranked by their largest probability over the slices
        (default: all of them).

    Returns
    -------
    dict
        ``prevalence`` (n_slices, n_topics) the mean topic proportions of each slice's
        documents (None without a corpus; a slice without documents: None entries),
        ``n_docs`` per slice, ``top_words[k][t]`` the ``n_words`` most probable words of
        topic k at slice t, and ``tracked[k]`` = {``words``, ``p`` (n_tracked, n_slices)
        p(w|k, t)}.
    """
    T, K, _ = word_probs.shape
    prevalence = n_docs = None
    if theta is not None:
        n_docs = np.bincount(slice_of_doc, minlength=T)
        sums = np.zeros((T, K))
        np.add.at(sums, slice_of_doc, theta)
        prevalence = [[float(v) for v in sums[t] / n_docs[t]] if n_docs[t] else
                      [None] * K for t in range(T)]
        n_docs = [int(v) for v in n_docs]
    top, tracked = [], []
    for k in range(K):
        top.append([[vocab[j] for j in _ranked(word_probs[t, k], n_words)] for t in range(T)])
        peak = word_probs[:, k, :].max(axis=0)
        cand = np.unique(np.concatenate([_ranked(word_probs[t, k], n_words) for t in range(T)]))
        words = cand[_ranked(peak[cand], cand.size if n_tracked is None else n_tracked)]
        tracked.append({"words": [vocab[j] for j in words],
                        "p": [[float(v) for v in word_probs[:, k, j]] for j in words]})
    return {"prevalence": prevalence, "n_docs": n_docs, "top_words": top, "tracked": tracked}


def label_sets(labels, n_docs, name="labels"):
    """(label names, boolean membership (n_docs, n_labels)) from one label or a list of labels
    per document, or an indicator matrix (n_docs, n_labels) (labels named by column index)."""
    if sp.issparse(labels) or (isinstance(labels, np.ndarray) and labels.ndim == 2):
        Y = np.asarray(labels.todense() if sp.issparse(labels) else labels)
        if Y.shape[0] != n_docs or not np.all(np.isin(Y, (0, 1))):
            raise InputError(f"{name} as a matrix must be 0/1 with one row per document "
                             f"({n_docs}), got shape {Y.shape}.")
        return [str(j) for j in range(Y.shape[1])], Y.astype(bool)
    sets = list(labels)
    if len(sets) != n_docs:
        raise InputError(f"{name} must have one entry per document ({n_docs}), got "
                         f"{len(sets)}.")
    sets = [() if s is None else (s,) if isinstance(s, (str, numbers.Number)) else tuple(s)
            for s in sets]
    names = sorted({str(v) for s in sets for v in s})
    index = {v: i for i, v in enumerate(names)}
    Y = np.zeros((n_docs, len(names)), dtype=bool)
    for d, s in enumerate(sets):
        for v in s:
            Y[d, index[str(v)]] = True
    return names, Y


def covariate_groups(C):
    """Names and membership of the distinct covariate rows of ``C`` (n_docs, n_covariates)."""
    rows, inverse = np.unique(np.asarray(C, dtype=np.float64).reshape(len(C), -1), axis=0,
                              return_inverse=True)
    inverse = np.asarray(inverse).ravel()
    names = ["x = (" + ", ".join(f"{v:g}" for v in r) + ")" for r in rows]
    return names, inverse[:, None] == np.arange(rows.shape[0])[None, :]


def label_view(names, member, theta, phi, vocab, n_words=8, n_topics=3, topic_names=None):
    """The per-label view's numbers.

    Parameters
    ----------
    names : list of str
        The labels.
    member : ndarray (n_docs, n_labels) of bool
        Which documents carry which label (a document may carry several).
    theta : ndarray (n_docs, n_topics)
        The documents' topic proportions.
    phi : ndarray (n_topics, n_words)
        p(w | topic).
    vocab : list of str
    n_words : int
        Top words shown per topic.
    n_topics : int
        Topics listed per label (its largest shares).
    topic_names : list of str, optional
        A name per topic (Labeled LDA: the topic's label, or ``free i``).

    Returns
    -------
    dict
        ``labels``, ``n_docs`` per label, ``shares`` (n_labels, n_topics) the mean topic
        proportions of the label's documents (None for a label without documents),
        ``top_topics[l]`` the label's ``n_topics`` topics by share, ``topic_words[k]`` the
        ``n_words`` most probable words of topic k, ``topic_names``.
    """
    counts = member.sum(axis=0)
    shares, top = [], []
    for j in range(len(names)):
        if counts[j] == 0:
            shares.append(None)
            top.append([])
            continue
        s = theta[member[:, j]].mean(axis=0)
        shares.append([float(v) for v in s])
        top.append([int(k) for k in _ranked(s, min(n_topics, s.shape[0]))])
    return {"labels": list(names), "n_docs": [int(c) for c in counts], "shares": shares,
            "top_topics": top,
            "topic_words": [[vocab[j] for j in _ranked(phi[k], n_words)]
                            for k in range(phi.shape[0])],
            "topic_names": topic_names}
