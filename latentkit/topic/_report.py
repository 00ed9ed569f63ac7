"""An interactive, standalone HTML topic report (what pyLDAvis gives gensim users, and more).

Everything is computed here in Python (NumPy/SciPy) and embedded as JSON in one HTML file
whose JavaScript and CSS are inline (no network access; it opens from disk; the page itself is
in :mod:`latentkit.topic._report_page`):

* an inter-topic map: classical multidimensional scaling (Torgerson 1952; Gower 1966) of the
  Jensen-Shannon distances between the topic-word distributions, circle area proportional to
  topic prevalence, with a size legend (Chuang, Manning & Heer 2012; Sievert & Shirley 2014);
* before any click, the corpus's most salient words (Chuang, Manning & Heer 2012, eq. 2-3);
  for the selected topic, word bars ranked by relevance (Sievert & Shirley 2014, eq. 1)
  ``r(w, t | lambda) = lambda log p(w|t) + (1 - lambda) log(p(w|t) / p(w))`` with a slider for
  lambda (1 = plain probability); the bars have a scale in percent of all tokens;
* a word search that resizes every circle to the word's topic distribution p(t|w) (circle
  area proportional to the share of the word's tokens in the topic, as LDAvis does on a
  hover) and rings the three topics with the largest share;
* per topic: its coherence and its most typical documents (largest topic proportion,
  duplicate documents shown once), titled by a column of the corpus's table if asked.

The browser ranks words within a per-topic pool that contains the top ``n_words`` words for
every lambda on the slider's grid (0, 0.01, ..., 1), so its order equals :func:`relevance` ranked
over the whole vocabulary at each slider position.
"""

import html
import json
import os

import numpy as np
import scipy.sparse as sp
from scipy.spatial.distance import jensenshannon
from ._coherence import MEASURES, coherence
from ._diversity import topic_diversity
from ._report_page import PAGE
from ._pyldavis import PyLDAvisMixin
from ._report_inputs import _corpus_parts, _topic_word
from ._seeding import resolve_seed_topics
from ..exceptions import InputError

__all__ = ["topic_report", "report_data", "relevance", "saliency", "classical_mds",
           "TopicReportMixin"]

_LAMBDA_GRID = np.round(np.linspace(0.0, 1.0, 101), 2)


def relevance(phi, p_w, lam):
    """Relevance of every word to every topic (Sievert & Shirley 2014, eq. 1).

    Parameters
    ----------
    phi : ndarray (n_topics, n_words)
        p(w | t), rows sum to 1.
    p_w : ndarray (n_words,)
        Marginal word probability p(w).
    lam : float in [0, 1]

    Returns
    -------
    ndarray (n_topics, n_words)
        ``lam * log p(w|t) + (1 - lam) * log(p(w|t) / p(w))`` in nats.

    Raises
    ------
    ValueError
        ``lam`` outside [0, 1].
    """
    if not 0.0 <= lam <= 1.0:
        raise InputError(f"lambda must be in [0, 1], got {lam!r}.")
    logp = np.log(phi)
    loglift = logp - np.log(p_w)[None, :]
    return lam * logp + (1.0 - lam) * loglift


def _rank(scores):
    """Indices by decreasing score, ties by increasing index (the browser's order too)."""
    return np.lexsort((np.arange(scores.shape[-1]), -scores))


def classical_mds(D, n_components=2):
    """Classical (Torgerson) multidimensional scaling of a distance matrix.

    Parameters
    ----------
    D : ndarray (n, n)
        Symmetric distances.
    n_components : int, default 2

    Returns
    -------
    ndarray (n, n_components)
        Coordinates ``V_k sqrt(lambda_k)`` of the top eigenpairs of ``B = -1/2 J D^2 J``
        (negative eigenvalues give zero columns); each column's sign is fixed so that its
        largest-magnitude entry is positive.

    Notes
    -----
    Source: Torgerson (1952); Gower (1966); Cox & Cox (2001), section 2.2.
    """
    D = np.asarray(D, dtype=np.float64)
    n = D.shape[0]
    J = np.eye(n) - 1.0 / n
    B = -0.5 * J @ (D ** 2) @ J
    vals, vecs = np.linalg.eigh((B + B.T) / 2)
    order = np.argsort(vals)[::-1][:n_components]
    out = np.zeros((n, n_components))
    for c, k in enumerate(order):
        v = vecs[:, k] * np.sqrt(max(vals[k], 0.0))
        i = np.argmax(np.abs(v))
        out[:, c] = v if v[i] >= 0 else -v
    return out


def saliency(phi, prevalence, p_w):
    """Saliency of every word (Chuang, Manning & Heer 2012, eq. 2-3): how much knowing the
    word tells about the topic, weighted by the word's frequency.

    Parameters
    ----------
    phi : ndarray (n_topics, n_words)
        p(w | t), rows sum to 1.
    prevalence : ndarray (n_topics,)
        p(t), sums to 1.
    p_w : ndarray (n_words,)
        Marginal word probability p(w).

    Returns
    -------
    ndarray (n_words,)
        ``p(w) * KL(p(t|w) || p(t))`` in nats, with ``p(t|w) = p(w|t) p(t) / sum_t' p(w|t')
        p(t')``.

    Notes
    -----
    Source: Chuang, Manning & Heer (2012), "Termite: visualization techniques for assessing
    textual topic models", eq. 2 (distinctiveness) and 3 (saliency).
    """
    post = _topic_given_word(phi, prevalence)
    ratio = np.ones_like(post)
    np.divide(post, prevalence[:, None], out=ratio, where=post > 0)
    return p_w * np.sum(post * np.log(ratio), axis=0)


def _topic_given_word(phi, prevalence):
    """p(t | w) (n_topics, n_words) by Bayes' rule from p(w|t) and p(t)."""
    joint = phi * prevalence[:, None]
    return joint / joint.sum(axis=0, keepdims=True)


def _typical_docs(theta, X, titles, texts, n_docs):
    """Per topic, the ``n_docs`` documents with the largest proportion of it, each document's
    content (its text, else its counts) shown once."""
    keys = ([" ".join(str(t).split()) for t in texts] if texts is not None else
            [(X.indices[X.indptr[d]:X.indptr[d + 1]].tobytes(),
              X.data[X.indptr[d]:X.indptr[d + 1]].tobytes()) for d in range(X.shape[0])])
    docs = []
    for k in range(theta.shape[1]):
        seen, rows = set(), []
        for d in _rank(theta[:, k]):
            if len(rows) == n_docs:
                break
            if keys[d] in seen:
                continue
            seen.add(keys[d])
            label = str(titles[d]) if titles is not None else f"document {d}"
            rows.append({"doc": int(d), "title": label, "share": float(theta[d, k])})
        docs.append(rows)
    return docs


def report_data(model, corpus=None, *, vocabulary=None, n_words=30, coherence_measure="c_v",
                top_n=10, n_docs=10, title_column=None):
    """The numbers a topic report shows (also embedded in the HTML as JSON).

    Parameters
    ----------
    model : fitted LatentDirichletAllocation or PLSA
    corpus : Corpus, count matrix (n_docs, n_words), or None
        Gives topic prevalence (token-weighted mean topic proportion), p(w) (corpus word
        frequencies), coherence and typical documents. Without it, prevalence comes from the
        model (LDA: expected tokens per topic, ``components_`` minus the prior; PLSA: uniform)
        and p(w) is the mixture marginal.
    vocabulary : sequence of str, optional
        Default: the model's ``feature_names_in_``, else the corpus's ``vocabulary``.
    n_words : int, default 30
        Bars shown per topic (and overall, before a topic is selected).
    coherence_measure : str or None, default 'c_v'
        See :func:`latentkit.topic.coherence`; None skips coherence.
    top_n : int, default 10
        Words per topic for coherence.
    n_docs : int, default 10
        Typical documents listed per topic; documents with the same text (or, without texts,
        the same counts) are listed once.
    title_column : str, optional
        Column of the corpus's table (``corpus['metadata']``, from :func:`latentkit.text.
        load_texts` on a .csv or .jsonl file) that names the documents. Default: the corpus's
        ``titles`` (a ``title`` column, else each document's first line).

    Returns
    -------
    dict
        JSON-serialisable: ``terms`` (words used), ``topics`` (per topic: ``x``, ``y`` map
        coordinates, ``prevalence``, ``coherence``, ``seeded`` (the seed words of a topic of
        ``seed_topics``, else None), ``docs`` (``doc`` index, ``title``,
        ``share`` = the topic's proportion in the document), ``label``, and the word pool with
        ``logp`` = log p(w|t), ``loglift`` = log(p(w|t)/p(w)), ``pt`` = p(w|t), ``pw`` = p(w)),
        ``overall`` (the ``n_words`` most salient words: ``words`` indices into ``terms``,
        ``pw``, ``saliency`` in nats), ``search`` (word -> p(t|w) for every topic, rounded to
        3 decimals), ``n_words``, ``measure``, ``diversity`` (topic diversity of the top 25
        words, Dieng, Ruiz & Blei 2020; None when a topic has no positive weight).

    Raises
    ------
    TypeError, ValueError
        Not a topic model; a corpus of another width; a vocabulary of the wrong length;
        ``n_docs``, ``n_words`` or ``top_n`` below 1; an unknown ``coherence_measure``; a
        ``title_column`` the corpus does not have.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit import LatentDirichletAllocation
    >>> from latentkit.topic import report_data
    >>> X = np.array([[3, 1, 0, 0], [2, 2, 0, 0], [0, 0, 3, 1], [0, 1, 2, 2]])
    >>> lda = LatentDirichletAllocation(2, random_state=0).fit(X)
    >>> vocab = ["apple", "pie", "wine", "glass"]
    >>> data = report_data(lda, X, vocabulary=vocab, coherence_measure=None)
    >>> len(data["topics"]), sorted(data["terms"])
    (2, ['apple', 'glass', 'pie', 'wine'])
    """
    phi = _topic_word(model)
    K, W = phi.shape
    for name, value in (("n_docs", n_docs), ("n_words", n_words), ("top_n", top_n)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise InputError(f"{name} must be an integer >= 1, got {value!r}.")
    if coherence_measure is not None and coherence_measure not in MEASURES:
        raise InputError(f"coherence_measure must be one of {sorted(MEASURES)} or None, got "
                         f"{coherence_measure!r}.")
    if vocabulary is None:
        vocabulary = getattr(model, "feature_names_in_", None)
    if vocabulary is None and isinstance(corpus, dict):
        vocabulary = corpus.get("vocabulary")
    vocab = [str(w) for w in vocabulary] if vocabulary is not None else [str(j) for j in range(W)]
    if len(vocab) != W:
        raise InputError(f"vocabulary has {len(vocab)} words, the model {W}.")
    X, titles, texts = _corpus_parts(model, corpus, title_column)
    theta = None
    if X is not None:
        theta = model.transform(X)
        lengths = np.asarray(X.sum(axis=1)).ravel()
        prevalence = lengths @ theta
        freq = np.asarray(X.sum(axis=0)).ravel()
        p_w = freq / freq.sum()
    else:
        prior = getattr(model, "topic_word_prior_", None)
        mass = np.asarray(model.components_, dtype=np.float64).sum(axis=1)
        prevalence = (mass - np.broadcast_to(prior, (K, W)).sum(axis=1)) if prior is not None \
            else np.ones(K)
        prevalence = np.maximum(prevalence, 0) if np.any(prevalence > 0) else np.ones(K)
        p_w = None
    prevalence = prevalence / prevalence.sum()
    if p_w is None:
        p_w = prevalence @ phi
    # words absent from the corpus: fall back to the model's marginal (keeps logs finite)
    p_w = np.where(p_w > 0, p_w, prevalence @ phi)

    D = np.array([[jensenshannon(phi[i], phi[j]) if i != j else 0.0 for j in range(K)]
                  for i in range(K)])
    # two equal topics (e.g. unused ones, left at the prior) are at distance 0; scipy's sqrt of
    # a divergence rounded to -1e-17 gives NaN there, and NaN distances broke the map's eigh
    D = np.nan_to_num(D, nan=0.0)
    xy = classical_mds(D, 2)

    R = int(min(n_words, W))
    pools = []
    for k in range(K):
        pool = set()
        for lam in _LAMBDA_GRID:
            pool.update(_rank(relevance(phi[k:k + 1], p_w, lam)[0])[:R].tolist())
        pools.append(sorted(pool))
    sal = saliency(phi, prevalence, p_w)
    salient = _rank(sal)[:R].tolist()
    used = sorted(set(salient).union(*pools))
    term_index = {j: i for i, j in enumerate(used)}

    coh = None
    if coherence_measure is not None and X is not None:
        ref = corpus if isinstance(corpus, dict) else X
        try:
            coh = coherence(model, ref, coherence_measure, top_n=top_n,
                            vocabulary=vocab).per_topic
        except ValueError:
            coh = None
    docs = ([[] for _ in range(K)] if theta is None
            else _typical_docs(theta, X, titles, texts, int(n_docs)))

    logp = np.log(phi)
    loglift = logp - np.log(p_w)[None, :]
    seeded = _seed_words(model, vocab)
    topics = []
    for k in range(K):
        pool = pools[k]
        topics.append({
            "id": k, "x": float(xy[k, 0]), "y": float(xy[k, 1]),
            "prevalence": float(prevalence[k]),
            "coherence": None if coh is None else float(coh[k]),
            "seeded": seeded.get(k),
            "label": " ".join(vocab[j] for j in _rank(phi[k])[:3]),
            "docs": docs[k],
            "words": [term_index[j] for j in pool],
            "logp": [float(logp[k, j]) for j in pool],
            "loglift": [float(loglift[k, j]) for j in pool],
            "pt": [float(phi[k, j]) for j in pool],
            "pw": [float(p_w[j]) for j in pool],
        })
    post = np.round(_topic_given_word(phi, prevalence), 3)
    search = {vocab[j]: [float(v) if v else 0 for v in post[:, j]] for j in range(W)}
    overall = {"words": [term_index[j] for j in salient], "pw": [float(p_w[j]) for j in salient],
               "saliency": [float(sal[j]) for j in salient]}
    return {"terms": [vocab[j] for j in used], "topics": topics, "overall": overall,
            "search": search, "n_words": R,
            "measure": coherence_measure if coh is not None else None,
            "diversity": _diversity(model, W),
            "model": type(model).__name__}


def _diversity(model, W):
    """Topic diversity of the top 25 words (:func:`latentkit.topic.topic_diversity`), None
    where a topic has no positive weight."""
    try:
        return float(topic_diversity(model, min(25, W)))
    except ValueError:
        return None


def _seed_words(model, vocab):
    """{topic: its seed words} of a model fitted with ``seed_topics`` (an empty dict else)."""
    seeds = getattr(model, "seed_topics", None)
    if not seeds:
        return {}
    ids = resolve_seed_topics(seeds, model.components_.shape[0], len(vocab), vocab)
    return {k: [vocab[j] for j in v] for k, v in ids.items()}


def topic_report(model, corpus=None, path=None, *, vocabulary=None, n_words=30,
                 coherence_measure="c_v", top_n=10, n_docs=10, title_column=None, title=None):
    """Write (or return) the interactive topic report as one standalone HTML file.

    Parameters
    ----------
    model : fitted LatentDirichletAllocation or PLSA
    corpus : Corpus, count matrix or None
        See :func:`report_data`.
    path : str or path-like, optional
        Where to write the HTML (UTF-8). Default: only return it.
    vocabulary, n_words, coherence_measure, top_n, n_docs, title_column
        See :func:`report_data`.
    title : str, optional
        Page title (default: the model's class and number of topics).

    Returns
    -------
    str
        The HTML document.

    Raises
    ------
    TypeError, ValueError
        See :func:`report_data`.

    Notes
    -----
    Source: Sievert & Shirley (2014), "LDAvis: A method for visualizing and interpreting topics"
    (relevance, eq. 1; the inter-topic map; the circles resized by a word's p(t|w));
    Chuang, Manning & Heer (2012) (saliency, eq. 3).

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit import LatentDirichletAllocation
    >>> from latentkit.topic import topic_report
    >>> X = np.array([[3, 1, 0, 0], [2, 2, 0, 0], [0, 0, 3, 1], [0, 1, 2, 2]])
    >>> lda = LatentDirichletAllocation(2, random_state=0).fit(X)
    >>> vocab = ["apple", "pie", "wine", "glass"]
    >>> html = topic_report(lda, X, vocabulary=vocab, coherence_measure=None)  # also path=...
    >>> html.startswith("<!DOCTYPE html>"), "apple" in html
    (True, True)
    """
    data = report_data(model, corpus, vocabulary=vocabulary, n_words=n_words,
                       coherence_measure=coherence_measure, top_n=top_n, n_docs=n_docs,
                       title_column=title_column)
    title = title or f"{data['model']}: {len(data['topics'])} topics"
    payload = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
    page = (PAGE.replace("__TITLE__", html.escape(title))
            .replace("__DATA__", payload))
    if path is not None:
        with open(os.fspath(path), "w", encoding="utf-8") as fh:
            fh.write(page)
    return page


class TopicReportMixin(PyLDAvisMixin):
    """Adds :meth:`report` (and, from :class:`PyLDAvisMixin`, :meth:`to_pyldavis`) to a topic
    model (``LatentDirichletAllocation``, ``PLSA``)."""

    def report(self, path=None, corpus=None, **kwargs):
        """An interactive standalone HTML report of the topics (inter-topic map with a size
        legend, the most salient words, relevance bars with a lambda slider and a scale, a
        word search that resizes the circles, coherence and typical documents).

        Parameters
        ----------
        path : str or path-like, optional
            Where to write the HTML file.
        corpus : Corpus or count matrix (n_docs, n_features), optional
            For prevalence, p(w), coherence and the typical documents.
        **kwargs
            ``vocabulary``, ``n_words``, ``coherence_measure``, ``top_n``, ``n_docs`` (default
            10), ``title_column`` (a column of the corpus's table naming the documents),
            ``title``: see :func:`latentkit.topic.topic_report`.

        Returns
        -------
        str
            The HTML document.

        Raises
        ------
        NotFittedError, ValueError
        """
        self._check_is_fitted()
        return topic_report(self, corpus, path, **kwargs)
