"""Export of a fitted topic model to pyLDAvis (Sievert & Shirley 2014).

``pyLDAvis.prepare(**model.to_pyldavis(X))`` draws the model with pyLDAvis: the dict holds exactly
the five required keyword arguments of ``pyLDAvis.prepare``, computed as pyLDAvis's own
scikit-learn helper (``pyLDAvis.lda_model``) computes them, so latentkit needs no pyLDAvis import.

pyLDAvis ranks a topic's words by relevance ``lambda log p(w|t) + (1 - lambda) log(p(w|t) / p(w))``
like :meth:`report`, but it re-derives p(w) from the model (``sum_t p(t) p(w|t)`` with p(t) the
token-weighted topic proportions; LDAvis pull request #41) instead of the corpus's word
frequencies the report uses, so for lambda < 1 the two rankings can differ slightly; at lambda = 1
they are the same ranking.
"""

import os
import shutil
from pathlib import Path

import numpy as np

from ..text import counts_from_texts, load_texts_for
from ._report_inputs import _corpus_parts, _topic_word
from ..exceptions import InputError, InputTypeError

__all__ = ["pyldavis_data", "PyLDAvisMixin", "save_pyldavis_html"]


def _corpus_from_path(model, corpus):
    """A path (str or path-like) read as a texts file through the model's stored vectorizer."""
    path = os.fspath(corpus)
    if not os.path.exists(path):
        raise InputError(f"corpus: got the string {path!r}, which is read as a path (a folder "
                         "of .txt files or a .txt / .csv / .jsonl file), but there is no such "
                         "file or folder; for raw texts pass a list of strings.")
    if getattr(model, "text_settings_", None) is None:
        raise InputError(f"corpus: got the path {path!r}, but this {type(model).__name__} was "
                         "not fitted on raw texts (it has no stored vocabulary to count them "
                         "with); pass the count matrix or Corpus it was fitted on, or fit it "
                         "through latentkit.text (see latentkit.text.attach).")
    return load_texts_for(model, path)


def pyldavis_data(model, corpus, *, vocabulary=None):
    """The keyword arguments of ``pyLDAvis.prepare`` for a fitted topic model and a corpus.

    Parameters
    ----------
    model : fitted LatentDirichletAllocation or PLSA
    corpus : Corpus, count matrix (n_docs, n_words), list of str, or path
        The documents to show (usually the training corpus): a ``latentkit`` ``Corpus``, a
        dense or sparse count matrix, or, when the model was fitted on texts, the raw texts as a
        list of str or a path (str or ``os.PathLike``: a folder of ``.txt`` files or a
        ``.txt`` / ``.csv`` / ``.jsonl`` file, read by :func:`latentkit.text.read_texts`); the
        model's saved vectorizer counts them. A single string is always read as a path.
    vocabulary : sequence of str of length n_words, optional
        Word of each column. Default: the model's saved vocabulary (``feature_names_in_``, set by
        a fit on texts), else the Corpus's ``vocabulary``, else the column indices as strings.

    Returns
    -------
    dict
        ``topic_term_dists`` ndarray (n_topics, n_words), rows p(w | t) summing to 1 (exact
        zeros, e.g. PLSA's, raised to the smallest positive double so logarithms stay finite);
        ``doc_topic_dists`` ndarray (n_docs, n_topics), ``model.transform`` (rows sum to 1);
        ``doc_lengths`` ndarray (n_docs,), tokens per document; ``vocab`` list of str
        (n_words,); ``term_frequency`` ndarray (n_words,), corpus count of each word.

    Raises
    ------
    NotFittedError
        Before ``fit``.
    TypeError
        Not a topic model.
    ValueError
        (:class:`~latentkit.exceptions.InputError`) A corpus whose width differs from the
        model's; a vocabulary of the wrong length; raw texts or a path for a model not fitted
        on texts; a path that does not exist (the message says it was read as a path).

    Notes
    -----
    Source: Sievert & Shirley (2014), "LDAvis: a method for visualizing and interpreting topics",
    ACL workshop on interactive language learning; ``pyLDAvis.prepare``'s documented arguments.
    """
    model._check_is_fitted()
    if isinstance(corpus, (str, os.PathLike)):
        corpus = _corpus_from_path(model, corpus)
    phi = _topic_word(model)
    n_words = phi.shape[1]
    X, _, _ = _corpus_parts(model, counts_from_texts(model, corpus), None)
    if X is None:
        raise InputError("corpus must be given: the documents to show (a count matrix, a "
                         "Corpus, or raw texts for a model fitted on texts), got None.")
    if vocabulary is None:
        vocabulary = getattr(model, "feature_names_in_", None)
    if vocabulary is None and isinstance(corpus, dict):
        vocabulary = corpus.get("vocabulary")
    if vocabulary is None:
        vocabulary = range(n_words)
    vocab = [str(w.item() if isinstance(w, np.generic) else w) for w in vocabulary]
    if len(vocab) != n_words:
        raise InputError(f"vocabulary must have n_words={n_words} entries (one per column), "
                         f"got {len(vocab)}.")
    return {
        "topic_term_dists": phi / phi.sum(axis=1, keepdims=True),
        "doc_topic_dists": np.asarray(model.transform(X), dtype=np.float64),
        "doc_lengths": np.asarray(X.sum(axis=1), dtype=np.float64).ravel(),
        "vocab": vocab,
        "term_frequency": np.asarray(X.sum(axis=0), dtype=np.float64).ravel(),
    }


def save_pyldavis_html(prepared, path):
    """Save a pyLDAvis visualisation that opens with no network.

    ``pyLDAvis.save_html`` writes a page that loads d3 and LDAvis's JavaScript and CSS from a
    CDN, so it is blank offline. This writes the page with those three files copied from the
    installed pyLDAvis (``pyLDAvis/js``) into a folder ``<name>_files`` beside it, linked by
    relative URLs: the page and its folder open from disk, or from any web server, offline.

    Parameters
    ----------
    prepared : pyLDAvis.PreparedData
        ``pyLDAvis.prepare(**model.to_pyldavis(corpus))``.
    path : str or path-like
        The HTML file to write (its folder must exist); ``<stem>_files/`` is written beside it.

    Returns
    -------
    pathlib.Path
        ``path``.

    Raises
    ------
    ImportError
        pyLDAvis is not installed (``pip install pyLDAvis``).
    InputTypeError
        ``prepared`` is not pyLDAvis's prepared data.
    InputError
        The folder of ``path`` does not exist.

    Notes
    -----
    Source: ``pyLDAvis.save_html`` and ``pyLDAvis.urls`` (the ``*_LOCAL`` files); Sievert &
    Shirley (2014).

    Examples
    --------
    >>> import numpy as np, pyLDAvis, tempfile, os
    >>> from latentkit.topic import LatentDirichletAllocation, save_pyldavis_html
    >>> X = np.random.default_rng(0).poisson(1.0, size=(30, 12))
    >>> lda = LatentDirichletAllocation(n_components=2, max_iter=5, random_state=0).fit(X)
    >>> vis = pyLDAvis.prepare(**lda.to_pyldavis(X), sort_topics=False, n_jobs=1)
    >>> out = save_pyldavis_html(vis, os.path.join(tempfile.mkdtemp(), "topics.html"))
    >>> sorted(p.name for p in (out.parent / "topics_files").iterdir())
    ['d3.v5.min.js', 'ldavis.v1.0.0.css', 'ldavis.v3.0.0.js']
    """
    try:
        import pyLDAvis
        from pyLDAvis import urls
    except ImportError as exc:  # pragma: no cover - exercised without pyLDAvis only
        raise ImportError("save_pyldavis_html needs pyLDAvis (pip install pyLDAvis).") from exc
    if type(prepared).__name__ != "PreparedData":
        raise InputTypeError(f"prepared must be pyLDAvis's prepared data (the result of "
                             f"pyLDAvis.prepare), got {type(prepared).__name__}.")
    path = Path(path)
    if not path.parent.is_dir():
        raise InputError(f"path: the folder {str(path.parent)!r} does not exist.")
    assets = path.parent / f"{path.stem}_files"
    assets.mkdir(exist_ok=True)
    names = {}
    for key, source in (("d3_url", urls.D3_LOCAL), ("ldavis_url", urls.LDAVIS_LOCAL),
                        ("ldavis_css_url", urls.LDAVIS_CSS_LOCAL)):
        shutil.copyfile(source, assets / os.path.basename(source))
        names[key] = f"{assets.name}/{os.path.basename(source)}"
    pyLDAvis.save_html(prepared, str(path), **names)
    return path


class PyLDAvisMixin:
    """``to_pyldavis`` for the topic models with a topic-word ``components_`` and ``transform``
    (LatentDirichletAllocation, PLSA; through :class:`TopicReportMixin`)."""

    def to_pyldavis(self, corpus, *, vocabulary=None):
        """The keyword arguments of ``pyLDAvis.prepare``: ``pyLDAvis.prepare(**m.to_pyldavis(X))``.

        Parameters
        ----------
        corpus : Corpus, count matrix (n_docs, n_features), list of str, or path
            The documents to show; raw texts (a list of str, or a path to a folder or a
            ``.txt`` / ``.csv`` / ``.jsonl`` file) when the model was fitted on texts. A single
            string is read as a path.
        vocabulary : sequence of str of length n_features, optional
            Default: the vocabulary saved by a fit on texts, else the Corpus's, else the column
            indices.

        Returns
        -------
        dict
            ``topic_term_dists`` (n_components, n_features), ``doc_topic_dists`` (n_docs,
            n_components), ``doc_lengths`` (n_docs,) tokens, ``vocab`` (n_features,) str,
            ``term_frequency`` (n_features,) counts. See :func:`pyldavis_data`.

        Raises
        ------
        NotFittedError, TypeError, ValueError
            See :func:`pyldavis_data`.

        Notes
        -----
        Source: Sievert & Shirley (2014); ``pyLDAvis.prepare``.
        """
        return pyldavis_data(self, corpus, vocabulary=vocabulary)
