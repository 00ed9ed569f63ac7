"""Ranked words of topic-word matrices: the one place every model and the CLI list top words.

Rule: a word whose weight is not positive (probability zero, e.g. after the simplex projection of
a spectral or private estimate) is never listed, because it has no rank: listing such words would
show ties broken by column order (the vocabulary's last words alphabetically) as if ranked. A
topic's list is therefore shorter than ``n`` when it has fewer than ``n`` positive weights.
Positive ties keep column order (stable sort).
"""

import numbers

import numpy as np

from .validation import check_scalar
from ..exceptions import InputError

__all__ = ["top_words", "top_word_ids", "TopWordsMixin"]


def top_word_ids(components, n=10):
    """Column indices of the ``n`` largest positive entries of every row, largest first.

    Equal to ``np.argsort(-row, kind="stable")[:n]`` restricted to the positive entries, but
    without sorting whole rows: ``np.partition`` finds the ``n``-th largest value, and only the
    entries at least that large (ties at the boundary included) are sorted, by decreasing value
    and then by column. O(n_features + c log c) per row for ``c`` such candidates.

    Parameters
    ----------
    components : ndarray of shape (n_components, n_features), float
        Finite or infinite weights, no NaN (checked by :func:`top_words`).
    n : int
        ``1 <= n``; capped at n_features.

    Returns
    -------
    list of n_components ndarrays of int64
        Each of length ``min(n, number of positive entries of the row)``.
    """
    C = np.asarray(components, dtype=float)
    V = C.shape[1]
    n = min(int(n), V)
    if V == 0:
        return [np.zeros(0, dtype=np.int64) for _ in range(C.shape[0])]
    threshold = np.partition(C, V - n, axis=1)[:, V - n]  # the n-th largest value of each row
    out = []
    for row, t in zip(C, threshold):
        cand = np.flatnonzero((row >= t) & (row > 0))
        out.append(cand[np.lexsort((cand, -row[cand]))[:n]].astype(np.int64))
    return out


def top_words(components, vocabulary=None, n=10):
    """The ``n`` largest positive entries of every row of a topic-word matrix.

    Parameters
    ----------
    components : array-like of shape (n_components, n_features)
        Topic-word weights (probabilities or pseudo-counts); finite.
    vocabulary : sequence of str of length n_features, optional
        Word of each column. Default: the column indices.
    n : int, default 10
        Words per topic (at most n_features).

    Returns
    -------
    list of n_components lists
        Words (plain ``str``, or ``int`` column indices) by decreasing weight; each list has
        ``min(n, number of positive weights in the row)`` entries.

    Raises
    ------
    ValueError
        ``vocabulary`` of the wrong length, ``n`` < 1, a components array that is not 2-D or
        holds NaN.
    TypeError
        Non-integer ``n``.
    """
    C = np.asarray(components, dtype=float)
    if C.ndim != 2:
        raise InputError(f"components must be a 2-D (n_components, n_features) array, got shape "
                         f"{C.shape}.")
    if np.isnan(C).any():
        raise InputError("components contains NaN; no word ranking exists.")
    n = min(check_scalar(n, "n", numbers.Integral, low=1), C.shape[1])
    if vocabulary is not None and len(vocabulary) != C.shape[1]:
        raise InputError(f"vocabulary must have n_features={C.shape[1]} entries, "
                         f"got {len(vocabulary)}.")
    out = []
    for idx in top_word_ids(C, n):
        if vocabulary is None:
            out.append([int(j) for j in idx])
        else:
            # plain Python values (a NumPy array of words would give np.str_ items)
            words = (vocabulary[j] for j in idx)
            out.append([v.item() if isinstance(v, np.generic) else v for v in words])
    return out


class TopWordsMixin:
    """``top_words`` for every model with a topic-word ``components_`` (LDA, PLSA, SpectralLDA,
    PrivateSpectralLDA): one implementation of the rule above."""

    def top_words(self, vocabulary=None, n=10):
        """The ``n`` most probable words of every topic (largest ``components_`` first); words of
        probability zero are never listed, so a list can be shorter than ``n``.

        Parameters
        ----------
        vocabulary : sequence of str of length n_features, optional
            Word of each column. Default: the vocabulary the model carries
            (``feature_names_in_``, set by a fit on texts or :func:`latentkit.text.attach`),
            else the column indices.
        n : int, default 10
            Words per topic (capped at n_features).

        Returns
        -------
        list of n_components lists of length at most min(n, n_features)
            Words (plain ``str``, or ``int`` column indices) per topic.

        Raises
        ------
        NotFittedError
            Before ``fit``.
        ValueError
            ``vocabulary`` of the wrong length, or ``n`` < 1.
        """
        self._check_is_fitted()
        if vocabulary is None:
            vocabulary = getattr(self, "feature_names_in_", None)
        return top_words(self.components_, vocabulary, n)
