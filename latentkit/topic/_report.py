"""An interactive, standalone HTML topic report (what pyLDAvis gives gensim users, and more).

Everything is computed here in Python (NumPy/SciPy) and embedded as JSON in one HTML file
whose JavaScript and CSS are inline (no network access; it opens from disk):

* an inter-topic map: classical multidimensional scaling (Torgerson 1952; Gower 1966) of the
  Jensen-Shannon distances between the topic-word distributions, circle area proportional to
  topic prevalence (Chuang, Manning & Heer 2012; Sievert & Shirley 2014);
* for the selected topic, word bars ranked by relevance (Sievert & Shirley 2014, eq. 1)
  ``r(w, t | lambda) = lambda log p(w|t) + (1 - lambda) log(p(w|t) / p(w))`` with a slider for
  lambda (1 = plain probability);
* a word search that highlights the topics where the word is most probable;
* per topic: its coherence and the titles (or first lines) of its three most typical documents
  (largest topic proportion), when a corpus is given.

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
from ._coherence import coherence
from ._pyldavis import PyLDAvisMixin

__all__ = ["topic_report", "report_data", "relevance", "classical_mds", "TopicReportMixin"]

_LAMBDA_GRID = np.round(np.linspace(0.0, 1.0, 101), 2)


def _topic_word(model):
    comps = np.asarray(getattr(model, "components_", None), dtype=np.float64)
    if comps.ndim != 2:
        raise TypeError(f"model must be a fitted topic model with components_ (n_topics, "
                        f"n_words), got {type(model).__name__}.")
    phi = comps / comps.sum(axis=1, keepdims=True)
    # exact zeros (PLSA) would give log 0 = -inf, which JSON cannot carry
    return np.maximum(phi, np.finfo(np.float64).tiny)


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
        raise ValueError(f"lambda must be in [0, 1], got {lam!r}.")
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


def _counts_and_titles(model, corpus):
    """(counts CSR or None, titles or None, token streams or None) from the corpus argument."""
    if corpus is None:
        return None, None, None
    titles = tokens = None
    if isinstance(corpus, dict) and "data" in corpus:
        titles = corpus.get("titles")
        tokens = corpus.get("tokens")
        X = corpus["data"]
    else:
        X = corpus
    X = X.tocsr() if sp.issparse(X) else sp.csr_matrix(np.asarray(X, dtype=np.float64))
    if X.shape[1] != model.components_.shape[1]:
        raise ValueError(f"corpus has {X.shape[1]} words but the model has "
                         f"{model.components_.shape[1]}; pass the corpus the model was fitted on.")
    return X, titles, tokens


def report_data(model, corpus=None, *, vocabulary=None, n_words=30, coherence_measure="c_v",
                top_n=10):
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
        Bars shown per topic.
    coherence_measure : str or None, default 'c_v'
        See :func:`latentkit.topic.coherence`; None skips coherence.
    top_n : int, default 10
        Words per topic for coherence.

    Returns
    -------
    dict
        JSON-serialisable: ``terms`` (words used), ``topics`` (per topic: ``x``, ``y`` map
        coordinates, ``prevalence``, ``coherence``, ``docs``, ``label``, and the word pool with
        ``logp`` = log p(w|t), ``loglift`` = log(p(w|t)/p(w)), ``pt`` = p(w|t), ``pw`` = p(w)),
        ``search`` (word -> the up to 3 topics with the largest p(w|t)), ``n_words``,
        ``measure``.

    Raises
    ------
    TypeError, ValueError
        Not a topic model; a corpus of another width; a vocabulary of the wrong length.
    """
    phi = _topic_word(model)
    K, W = phi.shape
    if vocabulary is None:
        vocabulary = getattr(model, "feature_names_in_", None)
    if vocabulary is None and isinstance(corpus, dict):
        vocabulary = corpus.get("vocabulary")
    vocab = [str(w) for w in vocabulary] if vocabulary is not None else [str(j) for j in range(W)]
    if len(vocab) != W:
        raise ValueError(f"vocabulary has {len(vocab)} words, the model {W}.")
    X, titles, _ = _counts_and_titles(model, corpus)
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
        prevalence = (mass - W * prior) if prior is not None else np.ones(K)
        prevalence = np.maximum(prevalence, 0) if np.any(prevalence > 0) else np.ones(K)
        p_w = None
    prevalence = prevalence / prevalence.sum()
    if p_w is None:
        p_w = prevalence @ phi
    # words absent from the corpus: fall back to the model's marginal (keeps logs finite)
    p_w = np.where(p_w > 0, p_w, prevalence @ phi)

    D = np.array([[jensenshannon(phi[i], phi[j]) if i != j else 0.0 for j in range(K)]
                  for i in range(K)])
    xy = classical_mds(D, 2)

    R = int(min(n_words, W))
    pools = []
    for k in range(K):
        pool = set()
        for lam in _LAMBDA_GRID:
            pool.update(_rank(relevance(phi[k:k + 1], p_w, lam)[0])[:R].tolist())
        pools.append(sorted(pool))
    used = sorted(set().union(*pools))
    term_index = {j: i for i, j in enumerate(used)}

    coh = None
    if coherence_measure is not None and X is not None:
        ref = corpus if isinstance(corpus, dict) else X
        try:
            coh = coherence(model, ref, coherence_measure, top_n=top_n,
                            vocabulary=vocab).per_topic
        except ValueError:
            coh = None
    docs = [[] for _ in range(K)]
    if theta is not None:
        for k in range(K):
            best = _rank(theta[:, k])[:3]
            for d in best:
                label = str(titles[d]) if titles is not None else f"document {d}"
                docs[k].append({"doc": int(d), "title": label, "share": float(theta[d, k])})

    logp = np.log(phi)
    loglift = logp - np.log(p_w)[None, :]
    topics = []
    for k in range(K):
        pool = pools[k]
        topics.append({
            "id": k, "x": float(xy[k, 0]), "y": float(xy[k, 1]),
            "prevalence": float(prevalence[k]),
            "coherence": None if coh is None else float(coh[k]),
            "label": " ".join(vocab[j] for j in _rank(phi[k])[:3]),
            "docs": docs[k],
            "words": [term_index[j] for j in pool],
            "logp": [float(logp[k, j]) for j in pool],
            "loglift": [float(loglift[k, j]) for j in pool],
            "pt": [float(phi[k, j]) for j in pool],
            "pw": [float(p_w[j]) for j in pool],
        })
    top3 = np.argsort(-phi, axis=0, kind="stable")[:min(3, K)].T
    search = {vocab[j]: [int(t) for t in top3[j]] for j in range(W)}
    return {"terms": [vocab[j] for j in used], "topics": topics, "search": search,
            "n_words": R, "measure": coherence_measure if coh is not None else None,
            "model": type(model).__name__}


def topic_report(model, corpus=None, path=None, *, vocabulary=None, n_words=30,
                 coherence_measure="c_v", top_n=10, title=None):
    """Write (or return) the interactive topic report as one standalone HTML file.

    Parameters
    ----------
    model : fitted LatentDirichletAllocation or PLSA
    corpus : Corpus, count matrix or None
        See :func:`report_data`.
    path : str or path-like, optional
        Where to write the HTML (UTF-8). Default: only return it.
    vocabulary, n_words, coherence_measure, top_n
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
    (relevance, eq. 1; the inter-topic map); Chuang, Manning & Heer (2012) (distinctiveness).
    """
    data = report_data(model, corpus, vocabulary=vocabulary, n_words=n_words,
                       coherence_measure=coherence_measure, top_n=top_n)
    title = title or f"{data['model']}: {len(data['topics'])} topics"
    payload = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
    page = (_TEMPLATE.replace("__TITLE__", html.escape(title))
            .replace("__DATA__", payload))
    if path is not None:
        with open(os.fspath(path), "w", encoding="utf-8") as fh:
            fh.write(page)
    return page


class TopicReportMixin(PyLDAvisMixin):
    """Adds :meth:`report` (and, from :class:`PyLDAvisMixin`, :meth:`to_pyldavis`) to a topic
    model (``LatentDirichletAllocation``, ``PLSA``)."""

    def report(self, path=None, corpus=None, **kwargs):
        """An interactive standalone HTML report of the topics (inter-topic map, relevance
        bars with a lambda slider, word search, coherence and typical documents).

        Parameters
        ----------
        path : str or path-like, optional
            Where to write the HTML file.
        corpus : Corpus or count matrix (n_docs, n_features), optional
            For prevalence, p(w), coherence and the typical documents.
        **kwargs
            ``vocabulary``, ``n_words``, ``coherence_measure``, ``top_n``, ``title``: see
            :func:`latentkit.topic.topic_report`.

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


_TEMPLATE = r"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>__TITLE__</title>
<style>
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:16px;color:#222}
h1{font-size:20px;margin:0 0 8px}
#controls{margin:8px 0 12px;display:flex;gap:24px;align-items:center;flex-wrap:wrap}
#main{display:flex;gap:24px;align-items:flex-start}
#map{border:1px solid #ccc;background:#fafafa}
circle.topic{fill:#8fb3d9;fill-opacity:.6;stroke:#3b6ea5;stroke-width:1;cursor:pointer}
circle.topic.selected{fill:#d9534f;fill-opacity:.75;stroke:#a02b27}
circle.topic.highlight{stroke:#f0a30a;stroke-width:4}
text.tlabel{font-size:11px;pointer-events:none;text-anchor:middle}
#panel{min-width:420px}
.bar-row{display:flex;align-items:center;height:18px;font-size:12px}
.bar-row .w{width:120px;text-align:right;padding-right:6px;overflow:hidden;white-space:nowrap}
.bar-row .track{position:relative;width:280px;height:13px}
.bar-row .all{position:absolute;height:13px;background:#c9d8e8}
.bar-row .top{position:absolute;height:13px;background:#d9534f}
#info{font-size:13px;margin:6px 0 10px}
#docs li{font-size:12px}
#found{font-size:13px;margin-left:8px}
</style></head><body>
<h1>__TITLE__</h1>
<div id="controls">
 <label>Selected topic: <span id="selected">none</span></label>
 <label>relevance &lambda; = <span id="lambda-value">1.00</span>
  <input id="lambda" type="range" min="0" max="1" step="0.01" value="1"></label>
 <form id="search-form"><input id="search" type="search" placeholder="find a word">
  <button type="submit" id="search-button">Search</button><span id="found"></span></form>
</div>
<div id="main">
 <svg id="map" width="520" height="520" role="img" aria-label="inter-topic distance map"></svg>
 <div id="panel"><div id="info">Click a topic on the map.</div>
  <div id="bars"></div><h3 style="font-size:14px">Most typical documents</h3><ol id="docs"></ol>
 </div>
</div>
<p style="font-size:12px;color:#555">Map: classical multidimensional scaling of the Jensen-Shannon
distances between topics; circle area proportional to topic prevalence. Bars: blue the word's
overall probability p(w), red its part in the selected topic p(w|t) p(t); words ranked by relevance
&lambda; log p(w|t) + (1 - &lambda;) log(p(w|t) / p(w)) (Sievert &amp; Shirley 2014).</p>
<script id="report-data" type="application/json">__DATA__</script>
<script>
(function(){
"use strict";
var DATA = JSON.parse(document.getElementById("report-data").textContent);
var NS = "http://www.w3.org/2000/svg", svg = document.getElementById("map");
var state = {topic: null, lambda: 1};
var T = DATA.topics, size = 520, pad = 75;
var xs = T.map(function(t){return t.x;}), ys = T.map(function(t){return t.y;});
var span = Math.max(Math.max.apply(null, xs) - Math.min.apply(null, xs),
                    Math.max.apply(null, ys) - Math.min.apply(null, ys), 1e-12);
var cx = (Math.max.apply(null, xs) + Math.min.apply(null, xs)) / 2;
var cy = (Math.max.apply(null, ys) + Math.min.apply(null, ys)) / 2;
var maxPrev = Math.max.apply(null, T.map(function(t){return t.prevalence;}));
function px(v, c){ return size / 2 + (v - c) / span * (size - 2 * pad); }
T.forEach(function(t){
  var c = document.createElementNS(NS, "circle");
  c.setAttribute("id", "topic-" + t.id);
  c.setAttribute("class", "topic");
  c.setAttribute("data-topic", t.id);
  c.setAttribute("cx", px(t.x, cx)); c.setAttribute("cy", px(-t.y, -cy));
  c.setAttribute("r", 8 + 40 * Math.sqrt(t.prevalence / maxPrev));
  var tip = document.createElementNS(NS, "title");
  tip.textContent = "topic " + t.id + ": " + t.label;
  c.appendChild(tip);
  c.addEventListener("click", function(){ select(t.id); });
  svg.appendChild(c);
  var l = document.createElementNS(NS, "text");
  l.setAttribute("class", "tlabel");
  l.setAttribute("x", px(t.x, cx)); l.setAttribute("y", px(-t.y, -cy) + 4);
  l.textContent = t.id;
  svg.appendChild(l);
});
function ranked(t, lam){
  var idx = t.words.map(function(_, i){ return i; });
  var rel = t.words.map(function(_, i){ return lam * t.logp[i] + (1 - lam) * t.loglift[i]; });
  idx.sort(function(a, b){ return (rel[b] - rel[a]) || (t.words[a] - t.words[b]); });
  return idx.slice(0, DATA.n_words);
}
function render(){
  var bars = document.getElementById("bars"), docs = document.getElementById("docs");
  bars.innerHTML = ""; docs.innerHTML = "";
  if (state.topic === null) return;
  var t = T[state.topic], order = ranked(t, state.lambda);
  var joint = function(i){ return t.pt[i] * t.prevalence; };
  var maxv = Math.max.apply(null, order.map(function(i){ return Math.max(joint(i), t.pw[i]); }));
  order.forEach(function(i){
    var row = document.createElement("div");
    row.className = "bar-row"; row.setAttribute("data-word", DATA.terms[t.words[i]]);
    var w = document.createElement("span"); w.className = "w";
    w.textContent = DATA.terms[t.words[i]];
    var track = document.createElement("span"); track.className = "track";
    var all = document.createElement("span"); all.className = "all";
    all.style.width = (280 * t.pw[i] / maxv) + "px";
    var top = document.createElement("span"); top.className = "top";
    top.style.width = (280 * joint(i) / maxv) + "px";
    top.title = "p(w|t) = " + t.pt[i].toPrecision(3) + ", p(w) = " + t.pw[i].toPrecision(3);
    track.appendChild(all); track.appendChild(top);
    row.appendChild(w); row.appendChild(track); bars.appendChild(row);
  });
  var info = "topic " + t.id + " &middot; prevalence " + (100 * t.prevalence).toFixed(1) + "%";
  if (t.coherence !== null) info += " &middot; coherence (" + DATA.measure + ") " +
                                     t.coherence.toFixed(3);
  document.getElementById("info").innerHTML = info;
  t.docs.forEach(function(d){
    var li = document.createElement("li");
    li.textContent = d.title + " (" + (100 * d.share).toFixed(0) + "%)";
    docs.appendChild(li);
  });
}
function select(k){
  state.topic = k;
  document.querySelectorAll("circle.topic").forEach(function(c){
    c.classList.toggle("selected", +c.getAttribute("data-topic") === k); });
  document.getElementById("selected").textContent = "topic " + k;
  render();
}
var slider = document.getElementById("lambda");
function onLambda(){
  state.lambda = parseFloat(slider.value);
  document.getElementById("lambda-value").textContent = state.lambda.toFixed(2);
  render();
}
slider.addEventListener("input", onLambda); slider.addEventListener("change", onLambda);
document.getElementById("search-form").addEventListener("submit", function(ev){
  ev.preventDefault();
  var q = document.getElementById("search").value.trim();
  var hits = DATA.search[q] || DATA.search[q.toLowerCase()];
  document.querySelectorAll("circle.topic").forEach(function(c){
    c.classList.toggle("highlight", !!hits && hits.indexOf(+c.getAttribute("data-topic")) >= 0); });
  document.getElementById("found").textContent = !q ? "" : hits ?
    "'" + q + "' is most probable in topics " + hits.join(", ") : "'" + q + "' is not in the vocabulary";
});
})();
</script></body></html>
"""
