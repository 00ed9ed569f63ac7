"""The default vocabulary rule of :mod:`latentkit.text` and of the ``--text`` option of the
command line (one rule for both): which words are too rare or too common to keep.

``min_df='auto'`` and ``max_df='auto'`` (the defaults of :class:`latentkit.text.TextVectorizer`,
:func:`latentkit.text.load_texts` and ``latentkit fit|select ... --text``) resolve, for a corpus
of N documents, to

* ``min_df = max(2, ceil(N / MIN_DF_DOCS_PER_DOC))`` documents: a word must be in at least two
  documents (a word of one document carries no co-occurrence and, held out, no training
  count), and in at least one document in ``MIN_DF_DOCS_PER_DOC`` on a large corpus;
* ``max_df = MAX_DF_SHARE`` of the documents: a word in more than that share (``pep`` and
  ``python`` in the PEPs, ``said`` in novels' chapters) is boilerplate, not a topic;

and below ``SMALL_CORPUS`` documents to ``min_df = 1``, ``max_df = 1.0`` (every word kept: too
few documents to tell a rare or a boilerplate word). The constants were chosen by measurement
on the bundled Gutenberg novels, the Debian short descriptions and the PEPs (the table in
``docs/guide/topic_models.md``, "Vocabulary defaults").
"""

import math
import numbers

from ..exceptions import InputError

__all__ = ["AUTO", "MIN_DF_DOCS_PER_DOC", "MAX_DF_SHARE", "SMALL_CORPUS",
           "auto_document_frequencies", "resolve_document_frequencies", "describe",
           "check_document_frequency"]

AUTO = "auto"
#: on a large corpus a kept word is in at least one document in this many
MIN_DF_DOCS_PER_DOC = 2000
#: a word in more than this share of the documents is dropped
MAX_DF_SHARE = 0.5
#: below this many documents the rule keeps every word
SMALL_CORPUS = 100


def auto_document_frequencies(n_docs):
    """The rule's ``(min_df, max_df)`` for a corpus of ``n_docs`` documents.

    Parameters
    ----------
    n_docs : int
        Number of documents N (>= 0).

    Returns
    -------
    min_df : int
        A document count (``max(2, ceil(N / MIN_DF_DOCS_PER_DOC))``; 1 below
        ``SMALL_CORPUS`` documents).
    max_df : float
        A fraction of the documents (``MAX_DF_SHARE``; 1.0 below ``SMALL_CORPUS``).

    Examples
    --------
    >>> auto_document_frequencies(15000)
    (8, 0.5)
    >>> auto_document_frequencies(736)
    (2, 0.5)
    >>> auto_document_frequencies(40)
    (1, 1.0)
    """
    n = int(n_docs)
    if n < SMALL_CORPUS:
        return 1, 1.0
    return max(2, math.ceil(n / MIN_DF_DOCS_PER_DOC)), float(MAX_DF_SHARE)


def resolve_document_frequencies(min_df, max_df, n_docs):
    """``min_df`` and ``max_df`` with ``'auto'`` replaced by the rule's value for ``n_docs``
    documents (other values unchanged: scikit-learn's counts and fractions).

    Returns
    -------
    (min_df, max_df)
    """
    auto_min, auto_max = auto_document_frequencies(n_docs)
    return (auto_min if _is_auto(min_df) else min_df,
            auto_max if _is_auto(max_df) else max_df)


def _is_auto(value):
    return isinstance(value, str) and value == AUTO


def describe(setting, resolved, name, n_docs):
    """How the CLI's vocabulary line names a setting: ``min_df=8 (auto, N=15000)`` or
    ``min_df=2``."""
    if _is_auto(setting):
        return f"{name}={resolved} (auto, N={n_docs})"
    return f"{name}={setting}"


def check_document_frequency(name, value):
    """``value`` is ``'auto'``, a document count (int >= 1) or a fraction in [0, 1]; raises
    :class:`latentkit.exceptions.InputError` naming ``name`` otherwise."""
    if _is_auto(value):
        return
    count = isinstance(value, numbers.Integral)  # scikit-learn's rule: a count is >= 1
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or (
            value < 1 if count else not 0 <= value <= 1):
        raise InputError(f"{name} must be a document count (int >= 1), a fraction (float in "
                         f"[0, 1]) or 'auto' (the library's rule), got {value!r}.")
