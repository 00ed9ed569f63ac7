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
from ._report_views_page import VIEWS
from ._pyldavis import PyLDAvisMixin
from ._report_inputs import _corpus_parts, _slice_topic_word, _topic_word
from ._report_views import covariate_groups, label_sets, label_view, over_time_view
from ._dtm_data import slice_index
from ._seeding import resolve_seed_topics
from ..exceptions import InputError

__all__ = ["topic_report", "report_data", "relevance", "saliency", "classical_mds",
           "ReportMixin", "TopicReportMixin"]

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
                top_n=10, n_docs=10, title_column=None, times=None, labels=None,
                covariates=None):
    """The numbers a topic report shows (also embedded in the HTML as JSON).

    Parameters
    ----------
    model : fitted topic model
        ``LatentDirichletAllocation``, ``PLSA`` or another model with ``components_``;
        ``LabeledLDA`` and ``DirichletMultinomialRegression`` (with the per-label view);
        ``DynamicTopicModel`` (with the over-time view; its map and bars show each topic's
        word distribution averaged over the slices).
    corpus : Corpus, count matrix (n_docs, n_words), or None
        Gives topic prevalence (token-weighted mean topic proportion), p(w) (corpus word
        frequencies), coherence and typical documents. Without it, prevalence comes from the
        model (LDA: expected tokens per topic, ``components_`` minus the prior; PLSA and the
        DTM: uniform) and p(w) is the mixture marginal.
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
    times : array-like (n_docs,), optional
        A ``DynamicTopicModel``'s corpus: each document's time slice label (needed with a
        corpus). Adds ``over_time``.
    labels : one label or list of labels per document, or 0/1 matrix (n_docs, n_labels)
        Adds ``by_label``: the documents grouped by label. A ``LabeledLDA`` also reads its
        documents' topics with them (``transform(X, labels=labels)``; needed with a corpus).
    covariates : array-like (n_docs, n_covariates), optional
        A ``DirichletMultinomialRegression``'s corpus: each document's covariates (passed to
        ``transform``); without ``labels``, ``by_label`` groups the documents by their
        distinct covariate rows.

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
        With ``times``: ``over_time`` = {``slices`` (labels as str), ``prevalence`` (n_slices,
        n_topics) the mean ``transform`` of each slice's documents, ``n_docs``,
        ``top_words[k][t]`` (the ``top_n`` most probable words of topic k at slice t),
        ``tracked[k]`` (``words``: the topic's words most probable at some slice, ``p``:
        their p(w|k) at every slice)}. With ``labels`` (or a DMR's ``covariates``):
        ``by_label`` = {``labels``, ``n_docs``, ``shares`` (n_labels, n_topics) the mean
        ``transform`` of each label's documents, ``top_topics`` (per label, its 3 topics by
        share), ``topic_words`` (per topic, its ``top_n`` words), ``topic_names`` (a
        ``LabeledLDA``'s topic labels, else None)}.

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
    extra = _transform_args(model, X, times, labels, covariates)
    theta = None
    if X is not None:
        theta = model.transform(X, **extra)
        lengths = np.asarray(X.sum(axis=1)).ravel()
        prevalence = lengths @ theta
        freq = np.asarray(X.sum(axis=0)).ravel()
        p_w = freq / freq.sum()
    else:
        prior = getattr(model, "topic_word_prior_", None)
        comps = getattr(model, "components_", None)
        prior = None if comps is None else prior
        mass = None if comps is None else np.asarray(comps, dtype=np.float64).sum(axis=1)
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
            coh = coherence(_ranked_topics(model, phi, top_n), ref, coherence_measure,
                            top_n=top_n,
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
    out = {"terms": [vocab[j] for j in used], "topics": topics, "overall": overall,
           "search": search, "n_words": R,
           "measure": coherence_measure if coh is not None else None,
           "diversity": _diversity(_ranked_topics(model, phi, min(25, W)), W),
           "model": type(model).__name__}
    out.update(_metadata_views(model, X, theta, phi, vocab, int(top_n), times, labels,
                               covariates))
    return out


def _ranked_topics(model, phi, n):
    """The model itself where it has ``components_`` (coherence and diversity rank them), else
    each topic's ``n`` most probable word ids."""
    if getattr(model, "components_", None) is not None:
        return model
    return [_rank(phi[k])[:n].tolist() for k in range(phi.shape[0])]


def _transform_args(model, X, times, labels, covariates):
    """The keyword arguments of the model's ``transform`` for the corpus: a DTM's ``times``, a
    Labeled LDA's ``labels``, a DMR's ``covariates``."""
    sliced = getattr(model, "time_slices_", None) is not None
    labelled = getattr(model, "classes_", None) is not None
    regressed = getattr(model, "covariate_rows_", None) is not None
    for name, value, takes in (("times", times, sliced), ("covariates", covariates, regressed)):
        if value is not None and not takes:
            raise InputError(f"{name}= is for a model fitted with {name} "
                             f"(a {type(model).__name__} has none).")
        if value is not None and X is None:
            raise InputError(f"{name}= describes the corpus's documents; pass the corpus too.")
    if X is None:
        return {}
    if sliced and times is None:
        raise InputError(f"a {type(model).__name__}'s report with a corpus needs times=: each "
                         "document's time slice label.")
    if labelled and labels is None:
        raise InputError(f"a {type(model).__name__}'s report with a corpus needs labels=: each "
                         "document's labels.")
    if regressed and covariates is None:
        raise InputError(f"a {type(model).__name__}'s report with a corpus needs covariates=: "
                         "each document's covariates.")
    return ({"times": times} if sliced else {"labels": labels} if labelled else
            {"covariates": covariates} if regressed else {})


def _metadata_views(model, X, theta, phi, vocab, top_n, times, labels, covariates):
    """``over_time`` (a model with time slices) and ``by_label`` (``labels`` or covariates)."""
    out = {}
    by_slice = _slice_topic_word(model)
    if by_slice is not None:
        slices = model.time_slices_
        where = None if X is None else slice_index(times, slices, X.shape[0])
        view = over_time_view(by_slice, where, theta, vocab, n_words=top_n)
        view["slices"] = [str(v) for v in slices.tolist()]
        out["over_time"] = view
    if X is not None and (labels is not None or covariates is not None):
        if labels is not None:
            names, member = label_sets(labels, X.shape[0])
        else:
            names, member = covariate_groups(covariates)
        classes = getattr(model, "classes_", None)
        topic_names = None
        if classes is not None:
            topic_names = [str(c) for c in classes.tolist()]
            topic_names += [f"free {i}" for i in range(phi.shape[0] - len(topic_names))]
        out["by_label"] = label_view(names, member, theta, phi, vocab, n_words=top_n,
                                     topic_names=topic_names)
    return out


def _diversity(topics, W):
    """Topic diversity of the top 25 words (:func:`latentkit.topic.topic_diversity`), None
    where a topic has no positive weight."""
    try:
        return float(topic_diversity(topics, min(25, W)))
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
                 coherence_measure="c_v", top_n=10, n_docs=10, title_column=None, title=None,
                 times=None, labels=None, covariates=None):
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
    times, labels, covariates
        See :func:`report_data`: a ``DynamicTopicModel``'s page gains a section "Topics over
        time" (each topic's share by slice, its top words at a chosen slice, a word's
        probability in the topic over the slices), and ``labels`` (a ``LabeledLDA``'s, or any
        grouping; a DMR's covariate levels) a section "Topics by label" (a table of the mean
        topic shares of each label's documents and the label's top topics with their words).
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
                       title_column=title_column, times=times, labels=labels,
                       covariates=covariates)
    title = title or f"{data['model']}: {len(data['topics'])} topics"
    payload = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
    page = (PAGE.replace("__VIEWS__", VIEWS).replace("__TITLE__", html.escape(title))
            .replace("__DATA__", payload))
    if path is not None:
        with open(os.fspath(path), "w", encoding="utf-8") as fh:
            fh.write(page)
    return page


class ReportMixin:
    """Adds :meth:`report` to a topic model: :func:`topic_report` of the model itself
    (``DynamicTopicModel``, ``LabeledLDA`` and ``DirichletMultinomialRegression``, whose
    ``transform`` needs side information, get only this; the others get
    :class:`TopicReportMixin`)."""

    def report(self, path=None, corpus=None, **kwargs):
        """An interactive standalone HTML report of the topics (inter-topic map with a size
        legend, the most salient words, relevance bars with a lambda slider and a scale, a
        word search that resizes the circles, coherence and typical documents; a section
        "Topics over time" with ``times=``, "Topics by label" with ``labels=`` or a DMR's
        ``covariates=``).

        Same as ``topic_report(self, corpus, path, **kwargs)``.

        Parameters
        ----------
        path : str or path-like, optional
            Where to write the HTML file (UTF-8). Default: only return it.
        corpus : Corpus or count matrix (n_docs, n_features), optional
            For prevalence, p(w), coherence and the typical documents.
        **kwargs
            ``vocabulary``, ``n_words``, ``coherence_measure``, ``top_n``, ``n_docs`` (default
            10), ``title_column`` (a column of the corpus's table naming the documents),
            ``title``, and the corpus's side information: ``times`` (n_docs,) each document's
            time slice label (a ``DynamicTopicModel``: required with a corpus), ``labels``
            (each document's labels: a ``LabeledLDA`` keeps none of its training labels, so
            pass them, required with a corpus; any other model: an optional grouping),
            ``covariates`` (n_docs, n_covariates) (a ``DirichletMultinomialRegression``:
            required with a corpus). See :func:`latentkit.topic.topic_report`.

        Returns
        -------
        str
            The HTML document.

        Raises
        ------
        NotFittedError
            The model is not fitted.
        InputError
            A corpus without the side information the model's ``transform`` needs (``times``,
            ``labels``, ``covariates``), or side information the model does not take; see
            :func:`latentkit.topic.report_data`.

        Notes
        -----
        Source: Sievert & Shirley (2014), "LDAvis: A method for visualizing and interpreting
        topics"; Chuang, Manning & Heer (2012).

        Examples
        --------
        >>> import numpy as np
        >>> from latentkit.topic import DynamicTopicModel, topic_report
        >>> X = np.array([[3, 1, 0, 0], [2, 2, 0, 0], [0, 0, 3, 1], [0, 1, 2, 2]])
        >>> years = [2001, 2001, 2002, 2002]
        >>> dtm = DynamicTopicModel(2, init="random", random_state=0, max_iter=3)
        >>> dtm = dtm.fit(X, times=years)
        >>> html = dtm.report(corpus=X, times=years, coherence_measure=None)  # also path=...
        >>> html.startswith("<!DOCTYPE html>")
        True
        >>> html == topic_report(dtm, X, times=years, coherence_measure=None)
        True
        """
        self._check_is_fitted()
        return topic_report(self, corpus, path, **kwargs)


class TopicReportMixin(ReportMixin, PyLDAvisMixin):
    """Adds :meth:`report` (from :class:`ReportMixin`) and :meth:`to_pyldavis` (from
    :class:`PyLDAvisMixin`) to a topic model with ``components_`` whose ``transform`` takes
    the counts alone (``LatentDirichletAllocation``, ``PLSA``, ...)."""
