"""Choosing the number of components: fit every K, score each fit, and say which K wins by what.

:func:`select_n_components` fits one model per K (the same seed and the same held-out split for
every K) and returns a :class:`Selection` whose ``table`` has one row per K:

=======  ==========================================================  ======================
kind     columns                                                     rule
=======  ==========================================================  ======================
lda      held-out perplexity (per-document bound), c_npmi, u_mass,   lowest held-out
         topic diversity (top 25), training ELBO, seconds            perplexity
gmm      BIC, AIC (training split), held-out log-likelihood,         lowest BIC
vgmm     seconds
hmm      BIC, AIC (training split), held-out log-likelihood,         lowest BIC
         seconds
dmm      as lda (the Dirichlet-multinomial mixture)                  lowest held-out
btm      as lda (the biterm topic model; perplexity per biterm       perplexity
         word)
=======  ==========================================================  ======================

BIC = -2 log L + p log n (Schwarz 1978), AIC = -2 log L + 2p (Akaike 1974), both on the training
split; held-out log-likelihoods are nats per sample (per time step for HMMs). LDA's held-out
perplexity is ``exp(-bound / tokens)`` with the per-document bound (Hoffman, Blei & Bach 2010;
no global KL term), over the words seen in the training split: a held-out word that no
training document contains is dropped from both splits before any fit (the same words for every
K, counted in ``Selection.heldout_unseen``), since its probability would be the topic-word
prior's share, a share that changes with K. Its coherences are those of
:func:`latentkit.topic.coherence` on the whole corpus (Roeder, Both & Hinneburg 2015; Mimno et
al. 2011); its diversity is :func:`latentkit.topic.topic_diversity` of the top 25 words (Dieng, Ruiz & Blei 2020).
"""

import math
import numbers
import time
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from ._utils.words import top_word_ids
from .exceptions import InputError, InputTypeError

__all__ = ["select_n_components", "Selection", "parse_k_range", "hdp_effective_components"]

KINDS = ("lda", "gmm", "vgmm", "hmm", "dmm", "btm")
#: the topic models of count matrices: kind -> (class name in latentkit.topic, default params)
_TOPIC_KINDS = {"lda": ("LatentDirichletAllocation", {"init": "spectral"}),
                "dmm": ("DirichletMultinomialMixture", {}),
                "btm": ("BitermTopicModel", {})}
_RULES = {
    "lda": ("heldout_perplexity", "min", "the lowest held-out perplexity"),
    "dmm": ("heldout_perplexity", "min", "the lowest held-out perplexity"),
    "btm": ("heldout_perplexity", "min", "the lowest held-out perplexity (per biterm word)"),
    "gmm": ("bic", "min", "the lowest BIC"),
    "vgmm": ("bic", "min", "the lowest BIC"),
    "hmm": ("bic", "min", "the lowest BIC"),
}


@dataclass
class Selection:
    """The result of :func:`select_n_components`.

    Attributes
    ----------
    kind : str
    table : list of dict
        One row per K, in the order given: ``n_components`` plus the kind's columns.
    best : int
        The chosen K.
    criterion : str
        The column that chose it.
    rule : str
        In words, e.g. ``'the lowest BIC'``.
    models : dict
        K -> the fitted model (not serialised).
    train_index : ndarray of int or None
        'lda', 'gmm', 'vgmm': the rows of ``X`` in the training split (sorted); None for
        'hmm'.
    feature_index : ndarray of int or None
        'lda': the columns of ``X`` the models were fitted on (the words of the training split,
        sorted); None for the other kinds.
    heldout_unseen : dict or None
        'lda': the held-out words absent from the training split, dropped from both splits for
        every K: ``words`` (distinct words), ``tokens`` (their held-out count), ``fraction``
        (of the held-out tokens); None for the other kinds.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.selection import select_n_components
    >>> X = np.random.default_rng(0).normal(size=(60, 2))
    >>> selection = select_n_components("gmm", X, [1, 2])
    >>> type(selection).__name__, selection.kind, sorted(selection.models)
    ('Selection', 'gmm', [1, 2])
    """

    kind: str
    table: list
    best: int
    criterion: str
    rule: str
    models: dict = field(default_factory=dict, repr=False)
    train_index: np.ndarray = field(default=None, repr=False)
    feature_index: np.ndarray = field(default=None, repr=False)
    heldout_unseen: dict = None

    def edge(self):
        """Where the chosen K sits in the grid, with the grid to try next.

        Returns
        -------
        dict or None
            None when the chosen K has a tried K on each side (or only one K was tried);
            otherwise ``side`` ('smallest' or 'largest'), ``k`` (the chosen K) and ``next``
            (a ``START:STOP:STEP`` range that brackets it, as ``-k`` takes it; None when the
            chosen K is 1, the smallest possible).
        """
        ks = sorted({int(r["n_components"]) for r in self.table})
        if len(ks) < 2 or self.best not in (ks[0], ks[-1]):
            return None
        n = len(ks)
        if self.best == ks[-1]:
            # from the K before it, as many steps of the grid's last step beyond it
            step = ks[-1] - ks[-2]
            nxt = f"{ks[-2]}:{ks[-1] + (n - 1) * step}:{step}"
            return {"side": "largest", "k": self.best, "next": nxt}
        if ks[0] == 1:
            return {"side": "smallest", "k": self.best, "next": None}
        # down to 1 (or as far below as the first step), up to the next K tried, n values
        start = max(1, ks[0] - (ks[1] - ks[0]))
        step = max(1, (ks[1] - start) // max(n - 1, 1))
        return {"side": "smallest", "k": self.best, "next": f"{start}:{ks[1]}:{step}"}

    def edge_note(self):
        """One sentence on a choice at the edge of the grid (``''`` when it is inside)."""
        e = self.edge()
        if e is None:
            return ""
        extreme = "lowest" if _RULES[self.kind][1] == "min" else "highest"
        text = (f"K = {e['k']} is the {e['side']} K tried and {self.criterion} is {extreme} "
                "there: ")
        if e["next"] is None:
            return text + "1 is the smallest K there is."
        where = "beyond" if e["side"] == "largest" else "below"
        return text + f"the best K may lie {where} the grid; try -k {e['next']}."

    def columns(self):
        """Column names of the table, in display order."""
        return list(self.table[0]) if self.table else []

    def to_text(self):
        """The table as aligned text, with the chosen K marked and the rule stated."""
        cols = self.columns()
        cells = [[_fmt(r[c]) for c in cols] for r in self.table]
        widths = [max(len(c), *(len(row[i]) for row in cells)) for i, c in enumerate(cols)]
        lines = ["  " + "  ".join(c.rjust(w) for c, w in zip(cols, widths))]
        for r, row in zip(self.table, cells):
            mark = "* " if r["n_components"] == self.best else "  "
            lines.append(mark + "  ".join(v.rjust(w) for v, w in zip(row, widths)))
        lines.append(f"chosen K = {self.best}: {self.rule} ({self.criterion}).")
        note = self.edge_note()
        if note:
            lines.append(note)
        u = self.heldout_unseen
        if u is not None and u["tokens"] == 0:
            lines.append("every held-out word is in the training split.")
        elif u is not None:
            lines.append(f"held-out words absent from the training split: {u['words']} words, "
                         f"{u['tokens']} tokens ({u['fraction']:.2%} of the held-out tokens), "
                         "dropped from both splits for every K.")
        return "\n".join(lines)

    def to_dict(self):
        """JSON-serialisable form (non-finite numbers become None)."""
        clean = [{k: (None if isinstance(v, float) and not math.isfinite(v) else v)
                  for k, v in r.items()} for r in self.table]
        out = {"kind": self.kind, "best": self.best, "criterion": self.criterion,
               "rule": self.rule, "table": clean, "edge": self.edge()}
        if self.heldout_unseen is not None:
            out["heldout_unseen"] = dict(self.heldout_unseen)
        return out

    def plot(self, path):
        """Save the curves (one panel per score) with the chosen K marked, as an image.

        Parameters
        ----------
        path : str or path-like
            Image file (the format from its extension, e.g. ``.png``).

        Returns
        -------
        path

        Raises
        ------
        ImportError
            matplotlib is not installed (``pip install "latentkit[plot]"``).
        """
        try:
            import matplotlib

            matplotlib.use("Agg", force=False)
            import matplotlib.pyplot as plt
        except ImportError:  # pragma: no cover - matplotlib is in the plot extra
            raise ImportError('plotting needs matplotlib: pip install "latentkit[plot]".') \
                from None
        from .plotting import plot_selection

        n = len([c for c in self.columns() if c not in ("n_components", "seconds")])
        fig, axes = plt.subplots(1, n, figsize=(3.6 * n + 1.2, 3.4), squeeze=False)
        plot_selection(self, axes=axes[0])
        fig.suptitle(f"{self.kind}: chosen K = {self.best}, {self.rule}", fontsize=11)
        fig.tight_layout()
        fig.savefig(path, dpi=100)
        plt.close(fig)
        return path


def _fmt(v):
    if isinstance(v, bool) or v is None:
        return str(v)
    if isinstance(v, numbers.Integral):
        return str(v)
    if isinstance(v, float):
        return f"{v:.4f}" if abs(v) < 1e5 else f"{v:.1f}"
    return str(v)


def parse_k_range(text):
    """``'5:50:5'`` -> [5, 10, ..., 50] (inclusive stop); ``'2,3,5'`` -> [2, 3, 5]; ``'4'`` -> [4].

    Raises
    ------
    ValueError
        Malformed text, or a K < 1.

    Examples
    --------
    >>> from latentkit.selection import parse_k_range
    >>> parse_k_range("5:20:5"), parse_k_range("2,3,5"), parse_k_range("4")
    ([5, 10, 15, 20], [2, 3, 5], [4])
    """
    try:
        if ":" in text:
            parts = [int(p) for p in text.split(":")]
            if len(parts) not in (2, 3) or (len(parts) == 3 and parts[2] < 1):
                raise ValueError
            start, stop = parts[0], parts[1]
            step = parts[2] if len(parts) == 3 else 1
            ks = list(range(start, stop + 1, step))
        else:
            ks = [int(p) for p in text.split(",")]
    except ValueError:
        raise InputError(f"K must be START:STOP[:STEP] (e.g. 5:50:5) or a list (e.g. 2,3,5), got "
                         f"{text!r}.") from None
    if not ks or min(ks) < 1:
        raise InputError(f"K must give at least one value, all >= 1; {text!r} gives {ks}.")
    return ks


def _split(n, heldout, rng, what):
    if not 0.0 < heldout < 1.0:
        raise InputError(f"heldout must be a fraction in (0, 1), got {heldout!r}.")
    n_test = int(math.ceil(heldout * n))
    if n_test < 1 or n - n_test < 1:
        raise InputError(f"heldout={heldout} leaves no training or no held-out {what} among {n}.")
    perm = rng.permutation(n)
    return np.sort(perm[n_test:]), np.sort(perm[:n_test])


def _lda_split(data, tr, te):
    """The training and held-out counts over the words of the training split, the kept
    columns, and what was dropped (held-out words no training document contains)."""
    X_train, X_test = data[tr], data[te]
    seen = np.asarray(X_train.sum(axis=0)).ravel() > 0
    test_counts = np.asarray(X_test.sum(axis=0)).ravel()
    dropped = float(test_counts[~seen].sum())
    unseen = {"words": int(np.count_nonzero(test_counts[~seen])), "tokens": int(round(dropped)),
              "fraction": dropped / float(test_counts.sum()) if test_counts.sum() > 0 else 0.0}
    keep = np.flatnonzero(seen)
    if keep.size < data.shape[1]:
        X_train, X_test = X_train[:, keep], X_test[:, keep]
    return (X_train, X_test), keep, unseen


def _lda_row(K, X_train, X_test, corpus, params, seed, top_n, columns=None, kind="lda"):
    # local: load only the model family being selected
    from . import topic
    from .topic import coherence, topic_diversity

    name, defaults = _TOPIC_KINDS[kind]
    model = getattr(topic, name)(n_components=K, random_state=seed, **{**defaults, **params})
    t = time.perf_counter()
    model.fit(X_train)
    seconds = time.perf_counter() - t
    row = {"heldout_perplexity": float(model.perplexity(X_test, include_prior_kl=False))}
    topics = model
    if columns is not None:  # fitted on the training split's words: their corpus columns
        topics = [[int(columns[j]) for j in row] for row in top_word_ids(model.components_,
                                                                         top_n)]
    for m in ("c_npmi", "u_mass"):
        try:
            row[m] = float(coherence(topics, corpus, m, top_n=top_n).mean)
        except ValueError:  # a top word absent from the reference corpus
            row[m] = float("nan")
    row["diversity"] = topic_diversity(model, 25)
    row["train_elbo"] = float(model.lower_bound_)
    row["seconds"] = round(seconds, 3)
    return model, row


def _mixture_row(kind, K, X_train, X_test, params, seed):
    # local: load only the model family being selected
    from .distributions._gaussian import n_gaussian_parameters
    # local: load only the model family being selected
    from .mixture import GaussianMixture, VariationalGaussianMixture

    cls = GaussianMixture if kind == "gmm" else VariationalGaussianMixture
    model = cls(n_components=K, random_state=seed, **params)
    t = time.perf_counter()
    model.fit(X_train)
    seconds = time.perf_counter() - t
    ll = model.score_samples(X_train)
    n, D = X_train.shape
    p = K - 1 + n_gaussian_parameters(K, D, model.covariance_type)
    row = {"bic": float(-2 * ll.sum() + p * np.log(n)), "aic": float(-2 * ll.sum() + 2 * p),
           "heldout_loglik": float(model.score(X_test)), "train_loglik": float(ll.mean()),
           "seconds": round(seconds, 3)}
    return model, row


def _hmm_row(K, train, test, params, seed):
    # local: load only the model family being selected
    from .sequence import CategoricalHMM, GaussianHMM, PoissonHMM

    params = dict(params)
    emission = params.pop("emission", "gaussian")
    classes = {"gaussian": GaussianHMM, "poisson": PoissonHMM, "categorical": CategoricalHMM}
    if emission not in classes:
        raise InputError(f"emission must be one of {sorted(classes)}, got {emission!r}.")
    model = classes[emission](n_components=K, random_state=seed, **params)
    (X_tr, len_tr), (X_te, len_te) = train, test
    t = time.perf_counter()
    model.fit(X_tr, lengths=len_tr)
    seconds = time.perf_counter() - t
    row = {"bic": float(model.bic(X_tr, lengths=len_tr)),
           "aic": float(model.aic(X_tr, lengths=len_tr)),
           "heldout_loglik": float(model.score(X_te, lengths=len_te)),
           "train_loglik": float(model.score(X_tr, lengths=len_tr)),
           "seconds": round(seconds, 3)}
    return model, row


def _hmm_split(X, lengths, heldout, rng):
    X = np.asarray(X)
    if lengths is None or len(lengths) < 2:
        # one sequence: the last fraction of its time steps is the held-out sequence
        n = X.shape[0]
        n_test = int(math.ceil(heldout * n))
        if not 0.0 < heldout < 1.0 or n - n_test < 2:
            raise InputError(f"heldout={heldout} leaves too few time steps of {n} to train on.")
        return (X[:n - n_test], None), (X[n - n_test:], None)
    lengths = np.asarray(lengths, dtype=np.int64)
    tr, te = _split(len(lengths), heldout, rng, "sequences")
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])

    def take(idx):
        return (np.concatenate([X[starts[i]:starts[i] + lengths[i]] for i in idx]),
                lengths[idx])

    return take(tr), take(te)


def select_n_components(kind, X, n_components, *, lengths=None, heldout=0.1, random_state=0,
                        top_n=10, progress=False, model_params=None):
    """Fit one model per K and choose K.

    Parameters
    ----------
    kind : {'lda', 'gmm', 'vgmm', 'hmm', 'dmm', 'btm'}
        'dmm' and 'btm' (the short-text models :class:`~latentkit.topic.DirichletMultinomialMixture`
        and :class:`~latentkit.topic.BitermTopicModel`) take LDA's data and columns; BTM's
        held-out perplexity is per biterm word.
    X : data
        'lda', 'dmm', 'btm': a count matrix (n_docs, n_words) or a latentkit ``Corpus`` (its token streams,
        when it has them, are the coherence reference); 'gmm'/'vgmm': array (n_samples,
        n_features); 'hmm': array (n_samples, n_features) with ``lengths``.
    n_components : iterable of int
        The K values (e.g. ``range(5, 51, 5)``).
    lengths : array of int, optional
        HMM sequence lengths. Several sequences: a ``heldout`` fraction of the sequences is held
        out; one sequence: its last ``heldout`` fraction of time steps.
    heldout : float in (0, 1), default 0.1
        Fraction of documents / samples / sequences held out (the same split for every K).
    random_state : int, default 0
        Seed of the split and of every fit (the same for every K).
    top_n : int, default 10
        Words per topic for the LDA coherences.
    progress : bool, default False
        A tqdm progress bar on stderr, advanced once per K.
    model_params : dict, optional
        Extra keyword arguments for every model (e.g. ``{'max_iter': 50}``, or
        ``{'emission': 'poisson'}`` for HMMs). LDA starts from ``init='spectral'`` unless given.

    Returns
    -------
    Selection
        ``table`` (one dict per K), ``best``, ``criterion``, ``rule``, ``models``; for 'lda'
        also ``feature_index`` (the words of the training split, the models' columns) and
        ``heldout_unseen`` (the held-out words absent from training, dropped for every K);
        :meth:`Selection.edge` says when the chosen K is at an end of the grid.

    Raises
    ------
    ValueError
        Unknown ``kind``; no K, a K < 1, or a K larger than the training data allow;
        ``heldout`` outside (0, 1) or leaving an empty split; ('lda') a split without tokens.
    TypeError
        ``random_state`` not an int.

    Notes
    -----
    Source: Schwarz (1978) BIC; Akaike (1974) AIC; Hoffman, Blei & Bach (2010) per-document
    bound; Roeder, Both & Hinneburg (2015) coherence.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.selection import select_n_components
    >>> rng = np.random.default_rng(0)
    >>> X = np.r_[rng.normal(0, 1, (60, 2)), rng.normal(8, 1, (60, 2))]  # two clusters
    >>> selection = select_n_components("gmm", X, [1, 2, 3])
    >>> selection.best, selection.criterion
    (2, 'bic')
    >>> [row["n_components"] for row in selection.table]
    [1, 2, 3]
    """
    if kind not in KINDS:
        raise InputError(f"kind must be one of {KINDS}, got {kind!r}.")
    ks = [int(k) for k in n_components]
    if not ks or min(ks) < 1:
        raise InputError(f"n_components must hold at least one K >= 1, got {ks}.")
    if not isinstance(random_state, numbers.Integral) or isinstance(random_state, bool):
        raise InputTypeError(f"random_state must be an int (one seed for every K), got "
                        f"{type(random_state).__name__}.")
    params = dict(model_params or {})
    rng = np.random.default_rng(random_state)
    if kind in _TOPIC_KINDS:
        corpus = X
        data = X["data"] if isinstance(X, dict) else X
        data = data.tocsr() if sp.issparse(data) else sp.csr_matrix(np.asarray(data, float))
        tr, te = _split(data.shape[0], heldout, rng, "documents")
        train_index = tr
        split, feature_index, unseen = _lda_split(data, tr, te)
        for part, name in zip(split, ("training", "held-out")):
            if not part.sum() > 0:   # else fit's or perplexity's "X contains no tokens"
                also = (" of words in the training split" if name == "held-out" and
                        unseen["tokens"] else "")
                raise InputError(f"the {name} split ({part.shape[0]} of {data.shape[0]} "
                                 f"documents, heldout={heldout}) contains no tokens{also}; give "
                                 "more documents with words or change heldout.")
        if not isinstance(corpus, dict):
            corpus = data
    elif kind in ("gmm", "vgmm"):
        data = np.asarray(X, dtype=np.float64)
        if data.ndim != 2:
            raise InputError(f"X must be 2-d (n_samples, n_features), got shape {data.shape}.")
        tr, te = _split(data.shape[0], heldout, rng, "samples")
        train_index = tr
        split = (data[tr], data[te])
        if max(ks) > split[0].shape[0]:
            raise InputError(f"K={max(ks)} exceeds the {split[0].shape[0]} training samples.")
    else:
        split = _hmm_split(X, lengths, heldout, rng)
        train_index = None
    if kind not in _TOPIC_KINDS:
        feature_index = unseen = None
    from tqdm.auto import tqdm

    table, models = [], {}
    bar = tqdm(ks, desc=f"select {kind}", unit="K", disable=not progress, leave=False)
    for K in bar:
        bar.set_postfix_str(f"K={K}", refresh=False)
        if kind in _TOPIC_KINDS:
            columns = None if feature_index.size == data.shape[1] else feature_index
            model, row = _lda_row(K, split[0], split[1], corpus, params, random_state, top_n,
                                  columns, kind)
        elif kind in ("gmm", "vgmm"):
            model, row = _mixture_row(kind, K, split[0], split[1], params, random_state)
        else:
            model, row = _hmm_row(K, split[0], split[1], params, random_state)
        table.append({"n_components": K, **row})
        models[K] = model
    criterion, sense, rule = _RULES[kind]
    values = np.array([r[criterion] for r in table], dtype=float)
    values = np.where(np.isfinite(values), values, np.inf if sense == "min" else -np.inf)
    best = ks[int(np.argmin(values) if sense == "min" else np.argmax(values))]
    return Selection(kind=kind, table=table, best=best, criterion=criterion, rule=rule,
                     models=models, train_index=train_index, feature_index=feature_index,
                     heldout_unseen=unseen)


def hdp_effective_components(X, n_components, *, random_state=0, **params):
    """How many topics a hierarchical Dirichlet process uses on a count matrix: the
    nonparametric answer beside :func:`select_n_components`'s ``'lda'`` table.

    Fits :class:`latentkit.topic.HierarchicalDirichletProcess` with corpus truncation
    ``n_components`` (its defaults otherwise: document truncation 10, concentrations 1,
    ``topic_word_prior`` 0.01, batch VB from a random start) and reports its
    ``n_effective_components_``: the topics that carry more than
    ``EFFECTIVE_WEIGHT_THRESHOLD`` (1%) of the expected topic-word counts. Pass the training
    split of a selection, ``X[selection.train_index]``, to compare on the same documents.

    Parameters
    ----------
    X : array-like or scipy.sparse matrix of shape (n_documents, n_words)
        Counts (e.g. the training split of :func:`select_n_components`).
    n_components : int
        T, the corpus truncation (the most topics the HDP can use; >= 1).
    random_state : int, default 0
        Seed of the fit.
    **params
        Further keyword arguments of the model (e.g. ``max_iter``).

    Returns
    -------
    dict
        ``n_effective_components`` (int), ``truncation`` (T), ``threshold`` (0.01, the share
        of the expected tokens a topic must exceed), ``seconds`` (wall time of the fit) and
        ``model`` (the fitted model).

    Raises
    ------
    ValueError, TypeError
        As the model's ``fit`` (bad counts, T < 1, bad parameters).

    Notes
    -----
    Teh, Jordan, Beal & Blei (2006), JASA (the HDP); Wang, Paisley & Blei (2011), AISTATS
    (the two-level stick-breaking truncation fitted here).

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.selection import hdp_effective_components
    >>> rng = np.random.default_rng(0)
    >>> X = np.zeros((40, 6))  # documents about words 0-2 or about words 3-5
    >>> X[:20, :3] = rng.poisson(5, (20, 3)); X[20:, 3:] = rng.poisson(5, (20, 3))
    >>> out = hdp_effective_components(X, n_components=5)
    >>> out["truncation"], out["n_effective_components"]  # topics with over 1% of the counts
    (5, 3)
    """
    # local: load only the model family being selected
    from .topic import HierarchicalDirichletProcess
    from .topic._hdp import EFFECTIVE_WEIGHT_THRESHOLD

    model = HierarchicalDirichletProcess(n_components, random_state=random_state, **params)
    t = time.perf_counter()
    model.fit(X)
    return {"n_effective_components": int(model.n_effective_components_),
            "truncation": int(model.n_components), "threshold": EFFECTIVE_WEIGHT_THRESHOLD,
            "seconds": round(time.perf_counter() - t, 3), "model": model}
