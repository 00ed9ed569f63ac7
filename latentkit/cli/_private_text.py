"""``--text`` with ``--private``: the private documents counted over a PUBLIC vocabulary.

Building the vocabulary from the private documents (as ``--text`` does otherwise) publishes
it: one document with a word of its own adds that word to the vocabulary, the printed word
count and the saved model (issue 40). A private fit on raw texts therefore takes its vocabulary
from a file chosen without looking at the documents (``--vocab FILE``, one word per line);
words outside it are dropped, and the rules that read the documents (``--min-df``,
``--max-df``, ``--max-features``) are refused. The stop list and ``--min-length`` are public
rules and apply to the vocabulary file. Nothing printed about the vocabulary depends on the
documents (no count of the words each rule removed).
"""

import os

import numpy as np

from ..datasets._corpus import Corpus, english_stop_words
from ..text import TextVectorizer, read_texts, stop_words_from_file
from ._common import CLIError, _extra_stop_words, load_input

__all__ = ["load_private_texts", "private_counts", "public_vocabulary"]

#: The flags whose rules are computed from the documents.
_DOCUMENT_RULES = (("min_df", "--min-df"), ("max_df", "--max-df"),
                   ("max_features", "--max-features"))


def public_vocabulary(path, stop_words, min_length):
    """The words of a vocabulary file (one per line; blank lines and ``#`` comments skipped;
    first occurrence kept), minus the stop words and the words shorter than ``min_length``.

    Raises
    ------
    CLIError
        The file is missing or leaves no word.
    """
    if not os.path.isfile(path):
        raise CLIError(f"--vocab {path!r}: no such file (a public vocabulary, one word per "
                       "line).")
    words, seen = [], set()
    for w in stop_words_from_file(path):
        w = w.lower()
        if w not in seen and w not in stop_words and len(w) >= min_length:
            seen.add(w)
            words.append(w)
    if not words:
        raise CLIError(f"--vocab {path!r} leaves no word after the stop list and --min-length.")
    return words


def load_private_texts(args):
    """The corpus of ``--text`` for a private fit: counts over the public vocabulary of
    ``--vocab``.

    Returns
    -------
    Corpus
        ``data`` CSR (n_docs, n_words) over the vocabulary file's words (in its order),
        ``vocabulary``, ``vectorizer`` (the fixed-vocabulary vectorizer), ``texts`` None (no
        summary computed from the documents), ``name``.

    Raises
    ------
    CLIError
        No ``--vocab``, a rule that reads the documents, or ``--data`` / ``--dataset`` given
        too.
    """
    if args.data is not None or getattr(args, "dataset_given", False):
        raise CLIError("--text, --data and --dataset are alternatives; give one of them.")
    if getattr(args, "vocab", None) is None:
        raise CLIError("--private with --text needs a public vocabulary: --vocab FILE (one word "
                       "per line, chosen without looking at the documents). A vocabulary built "
                       "from the private documents would publish their words.")
    for name, flag in _DOCUMENT_RULES:
        if getattr(args, name, None) is not None:
            raise CLIError(f"{flag} is not available with --private: it selects words by "
                           f"their counts in the private documents (use --vocab to choose the "
                           f"words).")
    sw = args.stop_words
    stop = None if sw == "none" else "english" if sw == "english" else stop_words_from_file(sw)
    extra = _extra_stop_words(getattr(args, "extra_stop_words", None))
    min_length = 2 if args.min_length is None else int(args.min_length)
    stop_set = set(english_stop_words()) if stop == "english" else set(stop or ())
    stop_set |= set(extra or ())
    words = public_vocabulary(args.vocab, stop_set, min_length)
    settings = TextVectorizer(stop_words=stop, extra_stop_words=extra, min_length=min_length,
                              bigrams=args.bigrams).get_settings()
    vec = TextVectorizer.from_settings(settings, words)
    texts, titles, meta = read_texts(args.text, args.text_column)
    return Corpus(data=vec.transform(texts), vocabulary=vec.vocabulary_,
                  feature_names=vec.vocabulary_, target=None, target_names=None,
                  titles=np.asarray(titles, dtype=str), metadata=meta, tokens=None,
                  vectorizer=vec, texts=None, name=args.text,
                  DESCR=f"{len(texts)} documents read from {args.text}, counted over the "
                        f"public vocabulary {args.vocab} ({len(words)} words).")


def private_counts(args):
    """The counts of a private fit: ``--text`` over the public vocabulary
    (:func:`load_private_texts`), else ``--dataset`` / ``--data`` as every fit reads them."""
    if getattr(args, "text", None) is not None:
        return load_private_texts(args)
    return load_input(args, "counts")
