"""Labelled and covariate topic models on the PEPs against tomotopy's samplers (``LLDAModel``,
``PLDAModel``, ``DMRModel``), for ``bench_dtm.py --labels``.

One evaluator for every method: each fit gives point topics ``phi`` (K, V) and, per held-out
document, its allowed topics and their Dirichlet prior (Labeled LDA: the topics of the
document's labels plus the free topics, alpha = 1/K for every method; DMR: every topic, at the
method's own fitted prior ``alpha_d`` of the document's type). The document's bound is LDA's
(gamma and phi optimised by LDA's E-step kernel with ``E[log beta] = log phi``), and the
per-label held-out perplexity is ``exp(-sum_d ELBO_d / n_tokens)`` over the held-out documents
carrying the label (a bound: lower is better). Coherence: ``c_npmi`` of every topic's top 10
words on the training texts.
"""

import time

import numpy as np


def label_sets(meta, rows):
    """Each document's labels: its type, plus its topics (``Packaging``, ``Typing``, ...)."""
    out = []
    for r in rows:
        labs = [meta["type"][r]]
        labs += [s.strip() for s in str(meta["topic"][r] or "").split(",") if s.strip()]
        out.append(labs)
    return out


def per_label_perplexity(phi, X, allowed, alphas, labels):
    """The one evaluator (module docstring): {label: perplexity} and the overall value.

    ``allowed[d]`` the topic ids of document d, ``alphas[d]`` their prior (array), ``labels[d]``
    the labels it is counted under."""
    from latentkit.topic._lda_estep import _run_local

    elog_all = np.log(np.maximum(phi, 1e-300))
    elbo = np.empty(X.shape[0])
    for d in range(X.shape[0]):
        cols = np.asarray(allowed[d])
        elog = elog_all[cols]
        shift = elog.max(axis=0)
        _, _, _, de, _ = _run_local(X[d:d + 1], np.ascontiguousarray(np.exp(elog - shift).T),
                                    np.ascontiguousarray(shift), np.asarray(alphas[d], float),
                                    100, 1e-3)
        elbo[d] = de[0]
    tokens = np.asarray(X.sum(axis=1)).ravel()
    names = sorted({v for labs in labels for v in labs})
    out = {}
    for lab in names:
        rows = [d for d, labs in enumerate(labels) if lab in labs]
        out[lab] = float(np.exp(-elbo[rows].sum() / tokens[rows].sum()))
    return out, float(np.exp(-elbo.sum() / tokens.sum()))


def _words(X, vocab):
    out = []
    for r in range(X.shape[0]):
        a, b = X.indptr[r], X.indptr[r + 1]
        out.append([vocab[j] for j, c in zip(X.indices[a:b], X.data[a:b]) for _ in range(int(c))])
    return out


def _tomotopy_phi(mdl, vocab, K):
    col = {w: j for j, w in enumerate(vocab)}
    cols = np.array([col[w] for w in mdl.used_vocabs])
    phi = np.full((K, len(vocab)), 1e-12)
    for k in range(K):
        phi[k, cols] = mdl.get_topic_word_dist(k)
    return phi / phi.sum(axis=1, keepdims=True)


def run_labeled(X, labels, free, seed):
    """latentkit's LabeledLDA: (phi, topic id of each label, seconds, extra)."""
    from latentkit.topic import LabeledLDA

    t0 = time.perf_counter()
    m = LabeledLDA(n_free_components=free, random_state=seed).fit(X, labels=labels)
    secs = time.perf_counter() - t0
    phi = m.components_ / m.components_.sum(axis=1, keepdims=True)
    return phi, {str(c): i for i, c in enumerate(m.classes_)}, secs, {"n_iter": int(m.n_iter_)}


def run_tomotopy_labeled(X, vocab, labels, free, seed, iters):
    """tomotopy's LLDAModel (``free == 0``) or PLDAModel (one topic per label, ``free`` latent
    topics, which come last)."""
    import tomotopy as tp

    t0 = time.perf_counter()
    mdl = (tp.LLDAModel(seed=seed) if free == 0 else
           tp.PLDAModel(latent_topics=free, topics_per_label=1, seed=seed))
    for words, labs in zip(_words(X, vocab), labels):
        if words:
            mdl.add_doc(words, labels=labs)
    mdl.train(0)
    for _ in range(iters // 10):
        mdl.train(10, workers=2)
    secs = time.perf_counter() - t0
    names = list(mdl.topic_label_dict)
    assert mdl.k == len(names) + free
    return (_tomotopy_phi(mdl, vocab, mdl.k), {n: i for i, n in enumerate(names)}, secs,
            {"iterations": iters})


def run_dmr(X, kinds, levels, K, seed):
    from latentkit.topic import DirichletMultinomialRegression

    C = np.array([[float(k == v) for v in levels[1:]] for k in kinds])
    t0 = time.perf_counter()
    m = DirichletMultinomialRegression(K, random_state=seed).fit(X, covariates=C)
    secs = time.perf_counter() - t0
    prior = {lev: m.doc_topic_prior(np.eye(len(levels))[i:i + 1, 1:])[0]
             for i, lev in enumerate(levels)}
    return m.components_ / m.components_.sum(axis=1, keepdims=True), prior, secs, {
        "n_iter": int(m.n_iter_)}


def run_tomotopy_dmr(X, vocab, kinds, levels, K, seed, iters):
    import tomotopy as tp

    t0 = time.perf_counter()
    mdl = tp.DMRModel(k=K, seed=seed)
    for words, kind in zip(_words(X, vocab), kinds):
        if words:
            mdl.add_doc(words, metadata=kind)
    mdl.train(0)
    for _ in range(iters // 10):
        mdl.train(10, workers=2)
    secs = time.perf_counter() - t0
    prior = {lev: np.asarray(mdl.get_topic_prior(metadata=lev)) for lev in levels}
    return _tomotopy_phi(mdl, vocab, K), prior, secs, {"iterations": iters}
