"""Raw text in: document-term matrices and their vocabulary from your own texts.

:class:`TextVectorizer` wraps scikit-learn's ``CountVectorizer`` (the optional ``text`` extra,
``pip install "latentkit[text]"``): a well-kept Unicode-aware tokeniser and counter, so the
counts equal ``CountVectorizer`` with the same settings on the same texts. What latentkit adds:

* readers for a folder of ``.txt`` files (one document each), a text file with one document per
  line, a CSV, TSV or JSON-lines file with a named text column (the other columns are kept as
  document metadata), each also gzip-compressed (``.gz``), or any iterable of strings
  (:func:`read_texts`, :func:`load_texts`), with one-line errors naming the file and the fix
  (an empty folder, a binary file, a file not in UTF-8, a corrupt gzip stream, a missing
  column);
* the bundled English stop list plus your own words, a minimum token length in letters,
  ``min_df`` / ``max_df`` / ``max_features``, optional bigrams, and an error that names the
  setting that removed every word;
* token streams (word ids in reading order) for the sliding-window coherence measures;
* the settings and the vocabulary saved with a fitted model (:func:`attach`), so
  ``model.transform(["new raw text", ...])`` and :func:`TextVectorizer.from_model` run the same
  pipeline after ``latentkit.load``;
* interop: a gensim bag-of-words corpus with its ``Dictionary`` (:func:`from_gensim`) and
  scikit-learn's sparse output (:func:`from_sklearn`).
"""

import json
import os
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from .datasets._corpus import Corpus, english_stop_words
from ._utils.threads import caught_warnings
from ._utils.vocabulary_rule import (AUTO, check_document_frequency,
                                     resolve_document_frequencies)
from ._utils.text_files import file_texts, read_utf8 as _read_utf8
from .base import NotFittedError
from .exceptions import (TextInputError, InputError, InputTypeError)  # defined there; importable here as before

__all__ = ["TextVectorizer", "read_texts", "load_texts", "load_texts_for", "attach",
           "from_gensim", "from_sklearn", "stop_words_from_file", "TextInputError"]

_SETTINGS_ATTR = "text_settings_"


def _require_sklearn():
    try:
        from sklearn.feature_extraction.text import CountVectorizer
    except ImportError:  # pragma: no cover - the test extra has it
        raise ImportError("latentkit.text needs scikit-learn's CountVectorizer: "
                          'pip install "latentkit[text]" (or pip install scikit-learn).') from None
    return CountVectorizer


# ----------------------------------------------------------------------------- reading files

def _title(text):
    line = text.strip().split("\n", 1)[0].strip()
    return line if len(line) <= 80 else line[:77] + "..."


def read_texts(source, text_column=None):
    """Read documents from a folder, a file or an iterable of strings.

    Parameters
    ----------
    source : str, path-like or iterable of str
        A folder (every ``*.txt`` file in it, sorted by name, is one document); a ``.txt`` file
        (one document per non-blank line); a ``.csv`` file or a TAB-separated ``.tsv`` file
        without quoting (header row; one document per row); a ``.jsonl`` file (one JSON
        object per line); any of these files gzip-compressed (``.txt.gz``, ``.csv.gz``,
        ``.tsv.gz``, ``.jsonl.gz``); or an iterable of strings.
    text_column : str, optional
        The column (CSV / TSV) or key (JSON lines) holding the text; default ``'text'``.

    Returns
    -------
    texts : list of str, length n_docs
    titles : list of str, length n_docs
        File name and first line (folder), ``'line N'`` (text file), the ``title`` column when a table has
        one, else each document's first line (80 characters at most).
    metadata : dict of str to list
        The other columns of a CSV / TSV / JSON-lines file (one value per document); empty
        otherwise.

    Raises
    ------
    TextInputError (a ValueError)
        A missing path, an empty folder, a file of another type, a corrupt gzip stream, a
        binary or non-UTF-8 file (checked after decompression), a table without the text
        column, a malformed JSON line, or no documents.
    TypeError
        ``source`` is neither a path nor an iterable of str.

    Examples
    --------
    >>> from latentkit.text import read_texts
    >>> texts, titles, metadata = read_texts(["The cat sat.", "A dog ran."])
    >>> texts, titles
    (['The cat sat.', 'A dog ran.'], ['The cat sat.', 'A dog ran.'])
    >>> import gzip, os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "docs.tsv.gz")
    >>> with gzip.open(path, "wt", encoding="utf-8") as fh:
    ...     _ = fh.write("package\\tdescription\\nvim\\tVi IMproved, a text editor\\n")
    >>> texts, titles, metadata = read_texts(path, text_column="description")
    >>> texts, metadata
    (['Vi IMproved, a text editor'], {'package': ['vim']})
    """
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        if not path.exists():
            raise TextInputError(f"{path}: no such file or folder.")
        if path.is_dir():
            files = sorted(p for p in path.iterdir() if p.is_file() and p.suffix.lower() == ".txt")
            if not files:
                raise TextInputError(f"{path}: the folder holds no .txt files; put one document "
                                     "per .txt file in it (UTF-8).")
            texts = [_read_utf8(p) for p in files]
            return texts, [f"{p.name}: {_title(t)}" for p, t in zip(files, texts)], {}
        texts, titles, meta = file_texts(path, text_column)  # .txt/.csv/.tsv/.jsonl[.gz]
        if titles is not None:
            return texts, titles, meta
        titles = [_title(t) if "title" not in meta or meta["title"][i] is None
                  else str(meta["title"][i]) for i, t in enumerate(texts)]
        return texts, titles, meta
    if isinstance(source, bytes) or not hasattr(source, "__iter__"):
        raise InputTypeError(f"source must be a path or an iterable of str, got "
                        f"{type(source).__name__}.")
    texts = list(source)
    bad = [i for i, t in enumerate(texts) if not isinstance(t, str)]
    if bad:
        raise InputTypeError(f"source must hold str documents; item {bad[0]} is a "
                        f"{type(texts[bad[0]]).__name__}.")
    if not texts:
        raise TextInputError("source holds no documents.")
    return texts, [_title(t) for t in texts], {}


# ----------------------------------------------------------------------------- vectorizer

class TextVectorizer:
    """Texts -> document-term counts and vocabulary, through scikit-learn's ``CountVectorizer``.

    Parameters
    ----------
    stop_words : 'english', None, or collection of str, default 'english'
        'english' is latentkit's bundled 318-word list (scikit-learn's ``ENGLISH_STOP_WORDS``).
    extra_stop_words : collection of str, optional
        Your own words, added to ``stop_words``.
    lowercase : bool, default True
    min_length : int, default 2
        Minimum token length in letters. Tokens are maximal runs of Unicode letters (digits,
        underscores and punctuation separate them): the token pattern
        ``(?u)\\b[^\\W\\d_]{min_length,}\\b``.
    min_df, max_df : 'auto', int or float, default 'auto'
        Keep words found in at least ``min_df`` and at most ``max_df`` documents; a float in
        [0, 1] is a fraction of the documents (``CountVectorizer``'s semantics). ``'auto'``
        (the library's rule, :mod:`latentkit._utils.vocabulary_rule`): for N documents
        ``min_df = max(2, ceil(N / 2000))`` and ``max_df = 0.5``; below 100 documents
        ``min_df = 1`` and ``max_df = 1.0``. The values used are ``min_df_`` and ``max_df_``.
    max_features : int, optional
        Keep the most frequent words only.
    bigrams : bool, default False
        Add two-word terms (``ngram_range=(1, 2)``).

    Attributes
    ----------
    vocabulary_ : ndarray of str, shape (n_words,)
        Column j of the counts counts ``vocabulary_[j]`` (alphabetical, as ``CountVectorizer``).
    count_vectorizer_ : sklearn.feature_extraction.text.CountVectorizer
        The fitted scikit-learn object.
    min_df_, max_df_ : int or float
        The document-frequency bounds used (``'auto'`` resolved for the fitted corpus).
    n_documents_ : int
        The number of documents the vocabulary was learned from.

    Notes
    -----
    Source: scikit-learn's ``CountVectorizer`` (Pedregosa et al. 2011); the settings map to its
    ``token_pattern``, ``stop_words``, ``lowercase``, ``min_df``, ``max_df``, ``max_features``
    and ``ngram_range`` (:meth:`count_vectorizer_params`).

    Examples
    --------
    >>> from latentkit.text import TextVectorizer
    >>> vec = TextVectorizer(min_df=1, max_df=1.0)
    >>> X = vec.fit_transform(["red apple", "green apple", "red wine"])
    >>> X.toarray(), vec.vocabulary_.tolist()
    (array([[1., 0., 1., 0.],
           [1., 1., 0., 0.],
           [0., 0., 1., 1.]]), ['apple', 'green', 'red', 'wine'])
    """

    def __init__(self, *, stop_words="english", extra_stop_words=None, lowercase=True,
                 min_length=2, min_df=AUTO, max_df=AUTO, max_features=None, bigrams=False):
        self.stop_words = stop_words
        self.extra_stop_words = extra_stop_words
        self.lowercase = lowercase
        self.min_length = min_length
        self.min_df = min_df
        self.max_df = max_df
        self.max_features = max_features
        self.bigrams = bigrams

    # settings ------------------------------------------------------------------------------
    def _stop_list(self):
        sw = self.stop_words
        if isinstance(sw, str):
            if sw != "english":
                raise InputError(f"stop_words must be 'english', None or a collection of words, "
                                 f"got {sw!r} (to read a file, use stop_words_from_file).")
            words = set(english_stop_words())
        elif sw is None:
            words = set()
        else:
            words = {str(w) for w in sw}
        words |= {str(w) for w in (self.extra_stop_words or ())}
        if self.lowercase:
            words = {w.lower() for w in words}
        return sorted(words) or None

    def _check(self):
        import numbers

        if not isinstance(self.min_length, numbers.Integral) or self.min_length < 1:
            raise InputError(f"min_length must be a positive integer, got {self.min_length!r}.")
        for name in ("min_df", "max_df"):
            check_document_frequency(name, getattr(self, name))
        if self.max_features is not None and (not isinstance(self.max_features, numbers.Integral)
                                              or self.max_features < 1):
            raise InputError(f"max_features must be a positive integer or None, got "
                             f"{self.max_features!r}.")

    def token_pattern(self):
        """The regular expression that finds tokens (Unicode letters, ``min_length`` or more)."""
        return r"(?u)\b[^\W\d_]{%d,}\b" % int(self.min_length)

    def count_vectorizer_params(self, n_docs=None):
        """The keyword arguments of the equivalent ``CountVectorizer``.

        Parameters
        ----------
        n_docs : int, optional
            Corpus size that resolves ``'auto'`` bounds; default: the fitted corpus's
            (``min_df_``, ``max_df_``), else no bound (1 and 1.0).

        Returns
        -------
        dict
        """
        self._check()
        if n_docs is not None:
            min_df, max_df = resolve_document_frequencies(self.min_df, self.max_df, n_docs)
        elif hasattr(self, "min_df_"):
            min_df, max_df = self.min_df_, self.max_df_
        else:
            min_df, max_df = resolve_document_frequencies(self.min_df, self.max_df, 0)
        return dict(token_pattern=self.token_pattern(), lowercase=bool(self.lowercase),
                    stop_words=self._stop_list(), min_df=min_df, max_df=max_df,
                    max_features=self.max_features,
                    ngram_range=(1, 2) if self.bigrams else (1, 1))

    def get_settings(self):
        """The settings as a JSON-serialisable dict (stored with a model by :func:`attach`)."""
        sw = self.stop_words
        return {"stop_words": sw if isinstance(sw, str) or sw is None else sorted(map(str, sw)),
                "extra_stop_words": sorted(map(str, self.extra_stop_words or ())),
                "lowercase": bool(self.lowercase), "min_length": int(self.min_length),
                "min_df": self.min_df, "max_df": self.max_df, "max_features": self.max_features,
                "bigrams": bool(self.bigrams)}

    # fitting -------------------------------------------------------------------------------
    def _diagnose_empty(self, texts):
        """Which setting removed every word (for the error message)."""
        import re

        pattern = re.compile(self.token_pattern())
        tokens = set()
        for t in texts:
            tokens.update(pattern.findall(t.lower() if self.lowercase else t))
        if not tokens:
            return (f"the texts hold no words of at least min_length={self.min_length} letters "
                    "(tokens are runs of letters; digits and punctuation are dropped)")
        stop = set(self._stop_list() or ())
        if not tokens - stop:
            return ("stop_words removed every word (all of the texts' words are stop words); "
                    "pass fewer stop words (--stop-words none)")
        lo, hi = resolve_document_frequencies(self.min_df, self.max_df, len(texts))
        return (f"min_df={lo!r} / max_df={hi!r} removed every word (no word is "
                "in at least min_df and at most max_df of the documents); lower min_df or raise "
                "max_df")

    def fit_transform(self, texts):
        """Learn the vocabulary and return the counts.

        Parameters
        ----------
        texts : iterable of str, length n_docs

        Returns
        -------
        scipy.sparse.csr_matrix of shape (n_docs, n_words), float64
            Word counts (``CountVectorizer.fit_transform`` as float64).

        Raises
        ------
        ValueError
            Invalid settings, or settings that remove every word (the message names the
            setting).
        """
        CountVectorizer = _require_sklearn()
        texts = list(texts)
        params = self.count_vectorizer_params(n_docs=len(texts))
        cv = CountVectorizer(**params)
        try:
            with caught_warnings("ignore", UserWarning):  # stop-list consistency notice
                X = cv.fit_transform(texts)
        except ValueError as exc:
            msg = str(exc)
            if "no terms remain" in msg or "empty vocabulary" in msg:
                raise TextInputError(f"the corpus prunes to nothing: "
                                     f"{self._diagnose_empty(texts)}.") from None
            if "max_df corresponds to" in msg:
                raise TextInputError(
                    f"the corpus prunes to nothing: min_df={params['min_df']!r} is more "
                    f"documents than max_df={params['max_df']!r} allows among the {len(texts)} "
                    "documents; lower min_df or raise max_df.") from None
            raise
        self.count_vectorizer_ = cv
        self.min_df_, self.max_df_ = params["min_df"], params["max_df"]
        self.n_documents_ = len(texts)
        self.vocabulary_ = np.asarray(cv.get_feature_names_out(), dtype=str)
        return sp.csr_matrix(X, dtype=np.float64)

    def fit(self, texts):
        """Learn the vocabulary (see :meth:`fit_transform`). Returns self."""
        self.fit_transform(texts)
        return self

    def transform(self, texts):
        """Counts of new texts over the learned vocabulary (unknown words are dropped).

        Parameters
        ----------
        texts : iterable of str

        Returns
        -------
        scipy.sparse.csr_matrix of shape (n_docs, n_words), float64

        Raises
        ------
        latentkit.base.NotFittedError
        TypeError
            A bare string instead of a list of documents.
        """
        if not hasattr(self, "count_vectorizer_"):
            raise NotFittedError("This TextVectorizer is not fitted; call fit first.")
        if isinstance(texts, str):
            raise InputTypeError("texts must be a list of documents, got one str; wrap it: [text].")
        with caught_warnings("ignore", UserWarning):
            return sp.csr_matrix(self.count_vectorizer_.transform(list(texts)), dtype=np.float64)

    def tokens(self, texts):
        """Token streams: the word ids of each document in reading order (unigrams).

        Words not in the vocabulary (stop words, pruned words) are kept as -1 so that window
        distances stay those of the text, as gensim's ``CoherenceModel`` keeps them.

        Parameters
        ----------
        texts : iterable of str

        Returns
        -------
        list of ndarray of int64
        """
        cv = self.count_vectorizer_
        pre, tok = cv.build_preprocessor(), cv.build_tokenizer()
        index = {w: i for i, w in enumerate(self.vocabulary_)}
        return [np.fromiter((index.get(w, -1) for w in tok(pre(t))), dtype=np.int64)
                for t in texts]

    @classmethod
    def from_settings(cls, settings, vocabulary):
        """A fitted vectorizer from saved settings and a vocabulary.

        Parameters
        ----------
        settings : dict or JSON str
            As returned by :meth:`get_settings`.
        vocabulary : sequence of str, length n_words

        Returns
        -------
        TextVectorizer
        """
        CountVectorizer = _require_sklearn()
        if isinstance(settings, str):
            settings = json.loads(settings)
        vec = cls(**settings)
        params = vec.count_vectorizer_params()
        vocab = [str(w) for w in vocabulary]
        cv = CountVectorizer(vocabulary={w: i for i, w in enumerate(vocab)}, **params)
        vec.count_vectorizer_ = cv
        vec.vocabulary_ = np.asarray(vocab, dtype=str)
        return vec

    @classmethod
    def from_model(cls, model):
        """The vectorizer stored with a model by :func:`attach` (also after ``latentkit.load``).

        Raises
        ------
        ValueError
            The model was not fitted on texts through :mod:`latentkit.text`.
        """
        settings = getattr(model, _SETTINGS_ATTR, None)
        vocab = getattr(model, "feature_names_in_", None)
        if settings is None or vocab is None:
            raise InputError(f"this {type(model).__name__} has no text settings; it was not fitted "
                             "on raw texts through latentkit.text (see latentkit.text.attach).")
        return cls.from_settings(settings, vocab)


def attach(model, vectorizer):
    """Store a vectorizer's settings and vocabulary on a fitted model.

    Sets ``model.feature_names_in_`` (the vocabulary) and ``model.text_settings_`` (a JSON
    string), both saved by ``latentkit.save``; then ``model.transform(list_of_texts)`` (for
    ``LatentDirichletAllocation`` and ``PLSA``) and :meth:`TextVectorizer.from_model` use the same
    pipeline on new raw texts.

    Parameters
    ----------
    model : fitted topic model, ``n_features_in_ == len(vectorizer.vocabulary_)``
    vectorizer : fitted TextVectorizer

    Returns
    -------
    model

    Raises
    ------
    ValueError
        The vocabulary and the model's width differ.

    Examples
    --------
    >>> from latentkit import LatentDirichletAllocation
    >>> from latentkit.text import TextVectorizer, attach
    >>> texts = ["red apple pie", "green apple tart", "red wine glass", "white wine glass"]
    >>> vec = TextVectorizer(min_df=1, max_df=1.0)
    >>> lda = LatentDirichletAllocation(2, random_state=0).fit(vec.fit_transform(texts))
    >>> lda = attach(lda, vec)  # stores the vocabulary and the settings on the model
    >>> lda.transform(["apple pie"]).shape  # raw texts now go through the same pipeline
    (1, 2)
    """
    n = getattr(model, "n_features_in_", None)
    if n is not None and n != len(vectorizer.vocabulary_):
        raise InputError(f"the model has {n} features but the vectorizer's vocabulary has "
                         f"{len(vectorizer.vocabulary_)} words.")
    model.feature_names_in_ = np.asarray(vectorizer.vocabulary_, dtype=str)
    setattr(model, _SETTINGS_ATTR, json.dumps(vectorizer.get_settings()))
    return model


def counts_from_texts(model, X):
    """``X`` unchanged, or the counts of a list of raw texts through the model's stored
    vectorizer (the hook of the topic models' ``transform``)."""
    if isinstance(X, (list, tuple)) and X and all(isinstance(t, str) for t in X):
        return TextVectorizer.from_model(model).transform(X)
    return X


# ----------------------------------------------------------------------------- corpora

def load_texts(source, *, text_column=None, stop_words="english", extra_stop_words=None,
               lowercase=True, min_length=2, min_df=AUTO, max_df=AUTO, max_features=None,
               bigrams=False):
    """Read texts and build their document-term matrix, vocabulary and token streams.

    Parameters
    ----------
    source, text_column
        See :func:`read_texts`.
    stop_words, extra_stop_words, lowercase, min_length, min_df, max_df, max_features, bigrams
        See :class:`TextVectorizer`.

    Returns
    -------
    Corpus
        ``data`` CSR (n_docs, n_words) float64 counts; ``vocabulary`` (n_words,) str;
        ``titles`` (n_docs,); ``metadata`` (dict of columns); ``tokens`` (list of int64 arrays:
        word ids in reading order, -1 for dropped words); ``vectorizer`` (the fitted
        :class:`TextVectorizer`); ``texts`` (the raw documents); ``name``.

    Raises
    ------
    TextInputError, TypeError
        See :func:`read_texts` and :meth:`TextVectorizer.fit_transform`.

    Examples
    --------
    >>> from latentkit.text import load_texts
    >>> corpus = load_texts(["cats and dogs", "dogs and cats", "fish swim"], min_df=1, max_df=1.0)
    >>> corpus.data.shape, corpus.vocabulary.tolist()
    ((3, 4), ['cats', 'dogs', 'fish', 'swim'])
    """
    texts, titles, meta = read_texts(source, text_column)
    vec = TextVectorizer(stop_words=stop_words, extra_stop_words=extra_stop_words,
                         lowercase=lowercase, min_length=min_length, min_df=min_df, max_df=max_df,
                         max_features=max_features, bigrams=bigrams)
    try:
        X = vec.fit_transform(texts)
    except TextInputError as exc:
        where = f"{os.fspath(source)}: " if isinstance(source, (str, os.PathLike)) else ""
        raise TextInputError(where + str(exc)) from None
    name = os.fspath(source) if isinstance(source, (str, os.PathLike)) else "texts"
    return Corpus(data=X, vocabulary=vec.vocabulary_, feature_names=vec.vocabulary_,
                  target=None, target_names=None, titles=np.asarray(titles, dtype=str),
                  metadata=meta, tokens=vec.tokens(texts), vectorizer=vec, texts=texts,
                  name=name, DESCR=f"{len(texts)} documents read from {name}.")


def load_texts_for(model, source, text_column=None):
    """Texts counted with the vectorizer stored in a model (its vocabulary, its settings).

    Parameters
    ----------
    model : topic model fitted through :mod:`latentkit.text` (see :func:`attach`)
    source, text_column
        See :func:`read_texts`.

    Returns
    -------
    Corpus
        As :func:`load_texts`, over the model's vocabulary (words the model does not know are
        dropped), for coherence and reports.

    Raises
    ------
    ValueError
        The model has no stored text settings.
    TextInputError, TypeError
        See :func:`read_texts`.

    Examples
    --------
    >>> from latentkit import LatentDirichletAllocation
    >>> from latentkit.text import TextVectorizer, attach, load_texts_for
    >>> vec = TextVectorizer(min_df=1, max_df=1.0)
    >>> X = vec.fit_transform(["red apple pie", "green apple tart", "red wine glass"])
    >>> lda = attach(LatentDirichletAllocation(2, random_state=0).fit(X), vec)
    >>> load_texts_for(lda, ["apple wine", "unseen words"]).data.toarray().sum(axis=1)
    array([2., 0.])
    """
    vec = TextVectorizer.from_model(model)
    texts, titles, meta = read_texts(source, text_column)
    name = os.fspath(source) if isinstance(source, (str, os.PathLike)) else "texts"
    return Corpus(data=vec.transform(texts), vocabulary=vec.vocabulary_,
                  feature_names=vec.vocabulary_, target=None, target_names=None,
                  titles=np.asarray(titles, dtype=str), metadata=meta, tokens=vec.tokens(texts),
                  vectorizer=vec, texts=texts, name=name,
                  DESCR=f"{len(texts)} documents read from {name}.")


def stop_words_from_file(path):
    """Stop words from a UTF-8 file, one word per line (blank lines and ``#`` comments skipped).

    Returns
    -------
    list of str

    Raises
    ------
    TextInputError

    Examples
    --------
    >>> import os, tempfile
    >>> from latentkit.text import stop_words_from_file
    >>> path = os.path.join(tempfile.mkdtemp(), "stop.txt")
    >>> with open(path, "w") as f:
    ...     print("# my stop words", "the", "", "and", sep=os.linesep, file=f)
    >>> stop_words_from_file(path)
    ['the', 'and']
    """
    text = _read_utf8(Path(path)) if Path(path).is_file() else None
    if text is None:
        raise TextInputError(f"{path}: no such stop-word file; pass 'english', 'none' or a file "
                             "with one word per line.")
    return [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.startswith("#")]


def from_gensim(bow_corpus, dictionary):
    """A Corpus from a gensim bag-of-words corpus and its ``Dictionary``.

    Parameters
    ----------
    bow_corpus : iterable of lists of (word id, count)
        gensim's streamed or in-memory corpus (e.g. ``[dictionary.doc2bow(t) for t in texts]``).
    dictionary : gensim.corpora.Dictionary or mapping id -> word
        Word ids 0..n_words-1.

    Returns
    -------
    Corpus
        ``data`` CSR (n_docs, n_words) float64, ``vocabulary`` in id order.

    Raises
    ------
    ValueError
        A word id outside the dictionary, or a negative count.

    Examples
    --------
    >>> from latentkit.text import from_gensim
    >>> corpus = from_gensim([[(0, 2), (1, 1)], [(1, 3)]], {0: "cat", 1: "dog"})
    >>> corpus.data.toarray(), corpus.vocabulary.tolist()
    (array([[2., 1.],
           [0., 3.]]), ['cat', 'dog'])
    """
    id2word = dict(dictionary.items()) if hasattr(dictionary, "items") else dict(dictionary)
    n_words = (max(id2word) + 1) if id2word else 0
    vocab = np.asarray([str(id2word.get(i, "")) for i in range(n_words)], dtype=str)
    indptr, indices, data = [0], [], []
    for d, doc in enumerate(bow_corpus):
        for pair in doc:
            j, c = int(pair[0]), float(pair[1])
            if not 0 <= j < n_words:
                raise InputError(f"bow_corpus document {d}: word id {j} is not in the dictionary "
                                 f"(ids 0..{n_words - 1}).")
            if c < 0:
                raise InputError(f"bow_corpus document {d}: negative count {c} for word id {j}.")
            indices.append(j)
            data.append(c)
        indptr.append(len(indices))
    X = sp.csr_matrix((np.asarray(data, np.float64), np.asarray(indices, np.int64),
                       np.asarray(indptr, np.int64)), shape=(len(indptr) - 1, n_words))
    X.sum_duplicates()
    return Corpus(data=X, vocabulary=vocab, feature_names=vocab, target=None, target_names=None,
                  titles=None, name="gensim corpus", DESCR="A gensim bag-of-words corpus.")


def from_sklearn(X, vectorizer):
    """A Corpus from scikit-learn's sparse counts and the fitted ``CountVectorizer``.

    No copy is made when ``X`` is already a float64 CSR matrix (the topic models' input type);
    integer counts are converted once.

    Parameters
    ----------
    X : scipy.sparse matrix (n_docs, n_words)
    vectorizer : fitted sklearn CountVectorizer (or anything with ``get_feature_names_out``)

    Returns
    -------
    Corpus

    Raises
    ------
    ValueError
        The vocabulary and the width of ``X`` differ.

    Examples
    --------
    >>> from sklearn.feature_extraction.text import CountVectorizer
    >>> from latentkit.text import from_sklearn
    >>> cv = CountVectorizer()
    >>> corpus = from_sklearn(cv.fit_transform(["a cat", "a cat and a dog"]), cv)
    >>> corpus.data.dtype, corpus.vocabulary.tolist()
    (dtype('float64'), ['and', 'cat', 'dog'])
    """
    vocab = np.asarray(vectorizer.get_feature_names_out(), dtype=str)
    if not sp.issparse(X):
        X = sp.csr_matrix(np.asarray(X))
    if X.shape[1] != len(vocab):
        raise InputError(f"X has {X.shape[1]} columns but the vectorizer has {len(vocab)} words.")
    if not (sp.isspmatrix_csr(X) and X.dtype == np.float64):
        X = sp.csr_matrix(X, dtype=np.float64)
    return Corpus(data=X, vocabulary=vocab, feature_names=vocab, target=None, target_names=None,
                  titles=None, name="scikit-learn counts", DESCR="scikit-learn sparse counts.")
