"""The ``latentkit`` command line (also ``python -m latentkit``).

Commands: ``latentkit datasets [export]``, ``latentkit fit <model> ...``, ``latentkit show
model.npz``; ``coherence``, ``report`` and ``select`` live in ``latentkit._commands``.

How to add a model to ``latentkit fit`` (three small pieces, nothing else to touch):

1. ``def _add_<name>_args(parser)``: add the model's own options. The common ones (--dataset,
   --data, --vocab, -k/--n-components, --init, --max-iter, --tol, --seed, --out, --plot,
   --json, --quiet) are added for every model by ``_add_common_args``.
2. ``def _run_<name>(args, progress) -> FitResult``: load the data with
   ``load_input(args, kind)`` (kind 'counts' -> Corpus, 'matrix' -> Bunch with a dense array,
   'sequence' -> Bunch with ``data`` and ``lengths``), build the model with
   ``callback=progress.callback``, fit it inside ``with progress:``, and return
   ``FitResult(model, summary, lines)``: ``summary`` is the model-specific part of the --json
   object (the driver adds model, n_samples, n_iter, converged, lower_bounds, lower_bound,
   seconds), ``lines`` the human-readable report printed after the common header, and
   ``plot_data`` what ``--plot`` draws besides the model (``X``, or ``vocabulary`` for topics).
3. One entry in ``FIT_COMMANDS``: ``"name": FitCommand(help, _add_name_args, _run_name,
   default_dataset)``.

The driver (``_cmd_fit``) times the fit, shows a tqdm progress bar on stderr (unless --quiet),
saves the model with ``latentkit.io.save`` (--out), saves a figure with ``latentkit.plotting``
(--plot: the ELBO trace and the model's picture) and prints text or one JSON object (--json).
Errors in the input (bad file, unknown data set, invalid hyper-parameter) exit with status 2 and
one line ``latentkit: error: ...`` on stderr.
"""

import argparse
import json
import math
import os
import sys
import time
import warnings
from dataclasses import dataclass
from typing import Callable

import numpy as np

__all__ = ["main", "FitCommand", "FitResult", "Progress", "load_input", "FIT_COMMANDS"]


class CLIError(Exception):
    """A user error: printed as one line and exit status 2."""


# ----------------------------------------------------------------------------- plumbing

@dataclass
class FitResult:
    """What a ``_run_<model>`` function returns.

    Attributes
    ----------
    model : LatentModel
        The fitted model (saved by the driver with --out).
    summary : dict
        JSON-serialisable model-specific results (merged into the --json object).
    lines : list of str
        Human-readable report.
    n_samples : int
        Number of samples (documents, points, time steps) the model was fitted on.
    plot_data : dict, optional
        What ``--plot`` needs besides the model: ``X`` (and ``lengths``, ``y``,
        ``vocabulary``, ``symbols``, ``feature_names`` where they apply); see ``_save_plot``.
    """

    model: object
    summary: dict
    lines: list
    n_samples: int
    plot_data: dict = None


@dataclass
class FitCommand:
    """A ``latentkit fit <name>`` subcommand: help text, argument adder, runner, default data."""

    help: str
    add_arguments: Callable
    run: Callable
    default_dataset: str = None
    description: str = ""


class Progress:
    """A tqdm progress bar on stderr driven by the model's ``callback(model, n_iter, elbo)``.

    Use as ``with progress: model.fit(X)`` with ``callback=progress.callback``. Disabled by
    --quiet; the bar appears only for fits longer than about half a second.
    """

    def __init__(self, total, enabled=True, desc="fit", delay=0.5):
        self.total = total
        self.delay = delay
        self.enabled = enabled
        self.desc = desc
        self._bar = None
        self.n_iter = 0

    def __enter__(self):
        if self.enabled:
            from tqdm.auto import tqdm

            self._bar = tqdm(total=self.total, desc=self.desc, unit="it", file=sys.stderr,
                             delay=self.delay, leave=False,
                             dynamic_ncols=True)
        return self

    def __exit__(self, *exc):
        if self._bar is not None:
            self._bar.close()
            self._bar = None
        return False

    def callback(self, model, n_iter, elbo):
        """``callback(model, n_iter, elbo)`` for the model: advances the bar, never stops."""
        if self._bar is not None:
            self._bar.update(n_iter - self.n_iter)
            self._bar.set_postfix_str(f"ELBO {elbo:.6g}", refresh=False)
        self.n_iter = n_iter
        return False


def _finite(x):
    """JSON-safe float: None for NaN/inf."""
    x = float(x)
    return x if math.isfinite(x) else None


def _tolist(a):
    a = np.asarray(a, dtype=np.float64)
    return [(_tolist(r) if a.ndim > 1 else _finite(r)) for r in a]


def load_input(args, kind):
    """Load the data named by ``--dataset`` or ``--data`` for a fit command.

    Parameters
    ----------
    args : argparse.Namespace
        With ``dataset``, ``data`` and (for counts) ``vocab``.
    kind : {'counts', 'matrix', 'sequence'}
        'counts': a :class:`latentkit.datasets.Corpus` (bundled text corpus, or a UCI docword
        file with --data and optional --vocab). 'matrix': a Bunch whose ``data`` is a dense
        float64 array (bundled table, or a CSV of numbers with --data). 'sequence': a Bunch with
        ``data`` (n, n_features) and ``lengths`` (bundled sequence data, or a CSV with one
        sequence; ``lengths`` None).

    Returns
    -------
    Corpus or Bunch
        With an extra key ``name`` describing the source.

    Raises
    ------
    CLIError
        Unknown data set, a data set of the wrong kind, or an unreadable file.
    """
    from . import datasets as ds

    if getattr(args, "text", None) is not None:
        return _load_text_corpus(args)
    if args.data is not None:
        if kind == "counts":
            corpus = ds.read_docword(args.data, vocab=getattr(args, "vocab", None))
            corpus["name"] = args.data
            return corpus
        X, names = ds.read_numeric_csv(args.data)
        return ds.Bunch(data=X, feature_names=names, target=None, lengths=None, name=args.data)
    name = args.dataset
    known = [d["name"] for d in ds.list_datasets()]
    if name not in known:
        raise CLIError(f"unknown dataset {name!r}; bundled data sets are: {', '.join(known)} "
                       "(or pass --data PATH).")
    bunch = ds.load_dataset(name)
    bunch["name"] = name
    is_corpus = isinstance(bunch, ds.Corpus)
    if kind == "counts" and not is_corpus:
        texts = [d["name"] for d in ds.list_datasets() if d["kind"].startswith("text")]
        raise CLIError(f"dataset {name!r} is not a text corpus; use one of {', '.join(texts)}.")
    if kind == "matrix" and (is_corpus or "lengths" in bunch):
        reals = [d["name"] for d in ds.list_datasets() if not d["kind"].startswith(("text", "seq"))]
        raise CLIError(f"dataset {name!r} is not a table of numbers; use one of "
                       f"{', '.join(reals)}.")
    if kind == "sequence" and is_corpus:
        seqs = [d["name"] for d in ds.list_datasets()
                if d["kind"].startswith(("seq", "real"))]
        raise CLIError(f"dataset {name!r} is a text corpus (bag of words), not sequence data; "
                       f"use one of {', '.join(seqs)} (or --data PATH).")
    if kind == "sequence" and "lengths" not in bunch:
        bunch["lengths"] = None
    return bunch


def _load_text_corpus(args):
    """--text PATH with the text options: a Corpus from latentkit.text (vectorizer kept)."""
    from .text import load_texts, stop_words_from_file

    if args.data is not None or getattr(args, "dataset_given", False):
        raise CLIError("--text, --data and --dataset are alternatives; give one of them.")
    sw = args.stop_words
    stop = None if sw == "none" else "english" if sw == "english" else stop_words_from_file(sw)
    corpus = load_texts(args.text, text_column=args.text_column, stop_words=stop,
                        min_df=args.min_df, max_df=args.max_df, max_features=args.max_features,
                        min_length=args.min_length, bigrams=args.bigrams)
    return corpus


def _count(value):
    """--min-df / --max-df: an int is a document count, a number with a dot a fraction."""
    try:
        return int(value)
    except ValueError:
        return float(value)


def _add_text_args(p):
    g = p.add_argument_group("raw texts (latentkit.text; instead of --dataset/--data)")
    g.add_argument("--text", metavar="PATH",
                   help="your texts: a folder of .txt files (one document each), a .txt file "
                        "(one document per line), or a .csv / .jsonl file with a text column")
    g.add_argument("--text-column", metavar="NAME", default=None,
                   help="column / key holding the text in .csv / .jsonl (default 'text')")
    g.add_argument("--min-df", type=_count, default=2, metavar="N",
                   help="keep words in at least N documents (a fraction if written 0.x; "
                        "default 2)")
    g.add_argument("--max-df", type=_count, default=0.95, metavar="F",
                   help="drop words in more than F of the documents: a fraction if written "
                        "0.x, else a document count (default 0.95)")
    g.add_argument("--max-features", type=int, default=None, metavar="N",
                   help="keep the N most frequent words")
    g.add_argument("--min-length", type=int, default=2, metavar="N",
                   help="minimum word length in letters (default 2)")
    g.add_argument("--stop-words", default="english", metavar="english|none|FILE",
                   help="stop list: the bundled English list (default), none, or a file with "
                        "one word per line")
    g.add_argument("--bigrams", action="store_true", help="add two-word terms")


def _attach_text(model, corpus):
    """Store the vectorizer of a --text corpus with the model (saved by --out)."""
    if corpus.get("vectorizer") is not None:
        from .text import attach

        attach(model, corpus["vectorizer"])


class _StoreDataset(argparse.Action):
    """Store --dataset and remember that it was given (so --data with --dataset is an error)."""

    def __call__(self, parser, namespace, values, option_string=None):
        setattr(namespace, self.dest, values)
        namespace.dataset_given = True


def _add_common_args(p, default_dataset):
    src = p.add_argument_group("data (one of)")
    src.add_argument("--dataset", default=default_dataset, action=_StoreDataset,
                     help=f"bundled data set (see `latentkit datasets`; default {default_dataset})")
    p.set_defaults(dataset_given=False)
    src.add_argument("--data", metavar="PATH",
                     help="your own data: a UCI docword file (plain or .gz) for text models, "
                          "else a CSV of numbers (one optional header row)")
    src.add_argument("--vocab", metavar="PATH",
                     help="vocabulary file for --data docword (one word per line)")
    p.add_argument("-k", "--n-components", type=int, default=None,
                   help="number of components / topics / states")
    p.add_argument("--init", default=None,
                   help="initialisation (model-specific; see the model), e.g. random, kmeans++, "
                        "or spectral (lda, gmm, vgmm, dpmm: method-of-moments start, "
                        "latentkit.spectral)")
    p.add_argument("--max-iter", type=int, default=None, help="maximum iterations")
    p.add_argument("--tol", type=float, default=None,
                   help="stop when the ELBO (nats per sample) changes by less than this")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--out", metavar="MODEL.npz", help="save the fitted model (latentkit.io.save)")
    p.add_argument("--plot", metavar="FILE.png",
                   help="save a figure: the ELBO trace beside the model's own picture "
                        "(latentkit.plotting; needs matplotlib, the 'plot' extra)")
    p.add_argument("--json", action="store_true",
                   help="print one JSON object instead of text")
    p.add_argument("--quiet", action="store_true",
                   help="no progress bar and no warnings on stderr")


def _opt(args, **kw):
    """Keyword arguments whose CLI value was given (not None)."""
    return {k: v for k, v in kw.items() if v is not None}


def _save_plot(path, model, data):
    """--plot FILE.png: the ELBO trace (left) beside the model's figure (right), drawn by
    latentkit.plotting on a pyplot-free Figure (no backend or style is changed)."""
    from matplotlib.figure import Figure

    from . import plotting

    data = data or {}
    X = data.get("X")
    kind = ("vae" if hasattr(model, "latent_dim") else "hmm" if hasattr(model, "transmat_")
            else "topics" if "vocabulary" in data else "mixture")
    n_topics = len(model.components_) if kind == "topics" else 0
    height = {"topics": max(4.5, 2.4 * -(-min(n_topics, 20) // 4)), "hmm": 6.0}.get(kind, 5.0)
    fig = Figure(figsize=(15.0 if kind in ("topics", "vae") else 12.0, height),
                 layout="constrained")
    left, right = fig.subfigures(1, 2, width_ratios=[1.0, 2.0 if kind in ("topics", "vae")
                                                     else 1.3])
    ax = left.subplots()
    if np.size(getattr(model, "heldout_bounds_", ())) or np.size(model.lower_bounds_):
        plotting.plot_elbo(model, ax=ax)
    else:
        ax.set_axis_off()
        ax.text(0.5, 0.5, "no ELBO trace\n(a method-of-moments estimate)", ha="center")
    if kind == "mixture":
        plotting.plot_mixture(model, X, ax=right.subplots(),
                              feature_names=data.get("feature_names"))
    elif kind == "topics":
        shown = list(range(min(n_topics, 20)))
        ncols = min(4, len(shown))
        axes = right.subplots(-(-len(shown) // ncols), ncols, squeeze=False).ravel()
        for a in axes[len(shown):]:
            a.set_visible(False)
        plotting.plot_topics(model, data["vocabulary"], n_words=10, topics=shown, axes=axes)
    elif kind == "hmm":
        categorical = hasattr(model, "emissionprob_")
        axes = right.subplots(3 if categorical else 2, 1)
        plotting.plot_hmm(model, X, lengths=data.get("lengths"), axes=axes,
                          window=(0, min(len(X), 400)), symbols=data.get("symbols"))
    else:
        side = int(round(np.sqrt(X.shape[1])))
        grid = int(model.latent_dim) == 2 and side * side == X.shape[1]
        axes = right.subplots(1, 2 if grid else 1, squeeze=False).ravel()
        plotting.plot_latent(model, X, data.get("y"), ax=axes[0])
        if grid:
            plotting.plot_decoded_grid(model, ax=axes[1])
    fig.savefig(path, dpi=90)


# ----------------------------------------------------------------------------- fit lda

def _add_lda_args(p):
    _add_text_args(p)
    p.add_argument("--doc-topic-prior", type=float, default=None,
                   help="alpha (default 1/k)")
    p.add_argument("--topic-word-prior", type=float, default=None,
                   help="eta (default 1/k)")
    p.add_argument("--n-init", type=int, default=None, help="initialisations (best ELBO kept)")
    p.add_argument("--top", type=int, default=10, help="words shown per topic (default 10)")
    p.add_argument("--private", action="store_true",
                   help="with --init spectral: differentially private spectral estimate only "
                        "(latentkit.spectral.PrivateSpectralLDA); prints the privacy spent")
    p.add_argument("--epsilon", type=float, default=1.0,
                   help="privacy epsilon of the whole pipeline (default 1; inf: no noise)")
    p.add_argument("--delta", type=float, default=1e-5, help="privacy delta (default 1e-5)")
    p.add_argument("--accountant", default="analytic", choices=["analytic", "rdp", "advanced"],
                   help="noise calibration for --private (default analytic: exact; advanced "
                        "only with --neighbouring tensor_entry)")
    p.add_argument("--neighbouring", default="document", choices=["document", "tensor_entry"],
                   help="--private: what is protected (default document: one document; "
                        "tensor_entry: the paper's relation, protects no document)")
    p.add_argument("--n-words", type=int, default=200,
                   help="--private: words kept by private frequency selection (default 200)")
    p.add_argument("--level", choices=["chapter", "paragraph", "book"], default=None,
                   help="--dataset gutenberg_novels: one document per chapter (default), "
                        "paragraph (17,080 documents) or book")
    p.add_argument("--method", choices=["batch", "svi"], default="batch",
                   help="batch variational Bayes (default) or stochastic variational inference "
                        "(online VB over shuffled minibatches; --max-iter counts epochs, "
                        "default 10)")
    p.add_argument("--batch-size", type=int, default=None,
                   help="--method svi: documents per minibatch (default 128)")
    p.add_argument("--learning-offset", type=float, default=None,
                   help="--method svi: tau of the step size (t + tau)^-kappa (default 10)")
    p.add_argument("--learning-decay", type=float, default=None,
                   help="--method svi: kappa in (0.5, 1] (default 0.7)")
    p.add_argument("--holdout", type=float, default=None, metavar="FRACTION",
                   help="--method svi: fraction of documents held out; their ELBO is traced "
                        "and decides convergence (default none: run all epochs)")
    p.add_argument("--dask-scheduler", metavar="ADDRESS", default=None,
                   help="batch fit on a dask.distributed cluster: E-steps run on the workers "
                        "(e.g. tcp://127.0.0.1:8786; needs the dask extra)")


def _run_lda(args, progress):
    from .topic import LatentDirichletAllocation

    if getattr(args, "private", False):
        return _run_private_spectral_lda(args, progress)
    corpus = _lda_corpus(args)
    X, vocab = corpus.data, corpus.vocabulary
    k = 10 if args.n_components is None else args.n_components
    svi = args.method == "svi"
    _check_lda_method_args(args)
    model = LatentDirichletAllocation(
        n_components=k, random_state=args.seed, callback=progress.callback,
        **_opt(args, doc_topic_prior=args.doc_topic_prior, topic_word_prior=args.topic_word_prior,
               max_iter=args.max_iter if args.max_iter is not None or not svi else 10,
               tol=args.tol, n_init=args.n_init,
               # spectral start by default for batch VB: on KOS (K=20, 5 seeds) it reaches the
               # random start's final ELBO in 9-23 of its 60 iterations and ends higher
               # (benchmarks/bench_spectral_init.py); SVI and Dask fits start at random
               init=args.init if args.init is not None else
               (None if svi or getattr(args, "dask_scheduler", None) else "spectral"),
               learning_method="online" if svi else None, batch_size=args.batch_size,
               learning_offset=args.learning_offset, learning_decay=args.learning_decay,
               holdout=args.holdout))
    if svi:  # the callback runs at held-out evaluations, with the step number
        progress.total = model.max_iter * -(-X.shape[0] // model.batch_size)
    else:
        progress.total = model.max_iter * (model.n_init if isinstance(model.n_init, int) else 1)
    with progress:
        if args.dask_scheduler:
            _fit_on_dask(model, X, args.dask_scheduler)
        else:
            model.fit(X)
    model.feature_names_in_ = np.asarray(vocab, dtype=str)
    _attach_text(model, corpus)
    perplexity = model.perplexity(X)
    topics = model.top_words(list(vocab), n=args.top)
    n_docs, n_words = X.shape
    lines = [
        f"data        {corpus['name']}: {n_docs} documents x {n_words} words, "
        f"{int(X.sum())} tokens",
        f"model       LatentDirichletAllocation(n_components={k}, "
        f"doc_topic_prior={model.doc_topic_prior_:.4g}, topic_word_prior={model.topic_word_prior_:.4g})",
        *([f"method      stochastic VI: {model.n_steps_} minibatch steps of "
           f"{model.batch_size} documents, kappa={model.learning_decay}, "
           f"tau={model.learning_offset}"] if svi else
          [f"method      batch VB on the dask cluster {args.dask_scheduler}"]
          if args.dask_scheduler else []),
        f"init        {model.init if isinstance(model.init, str) else 'given'}",
        f"{'epochs' if svi else 'iterations':<10}  {model.n_iter_} "
        f"({'converged' if model.converged_ else 'not converged'}, tol={model.tol_:.3g})",
        f"ELBO        {model.lower_bound_:.4f} nats per document"
        + (" (held-out)" if svi and args.holdout else ""),
        f"perplexity  {perplexity:.2f} (training documents, per token)",
        f"top {args.top} words per topic:",
    ]
    width = len(str(k - 1))
    lines += [f"  topic {i:>{width}}: " + " ".join(words) for i, words in enumerate(topics)]
    summary = {"n_features": n_words, "n_tokens": int(X.sum()), "perplexity": _finite(perplexity),
               "topics": topics, "doc_topic_prior": model.doc_topic_prior_,
               "topic_word_prior": model.topic_word_prior_, "method": args.method,
               "init": model.init if isinstance(model.init, str) else "given"}
    if svi:
        summary.update(n_steps=int(model.n_steps_), batch_size=int(model.batch_size),
                       heldout_bounds=_tolist(model.heldout_bounds_),
                       heldout_steps=[int(t) for t in model.heldout_steps_])
    if args.dask_scheduler:
        summary["dask_scheduler"] = args.dask_scheduler
    return FitResult(model, summary, lines, n_docs, plot_data={"vocabulary": list(vocab)})


def _lda_corpus(args):
    """--dataset/--data, with --level for gutenberg_novels."""
    if args.level is None:
        return load_input(args, "counts")
    if args.data is not None or args.dataset != "gutenberg_novels":
        raise CLIError("--level applies to --dataset gutenberg_novels only.")
    from .datasets import load_gutenberg_novels

    corpus = load_gutenberg_novels(level=args.level)
    corpus["name"] = f"gutenberg_novels ({args.level}s)"
    return corpus


def _check_lda_method_args(args):
    if args.method != "svi":
        given = [f"--{n.replace('_', '-')}" for n in ("batch_size", "learning_offset",
                                                        "learning_decay", "holdout")
                 if getattr(args, n) is not None]
        if given:
            raise CLIError(f"{', '.join(given)} apply to --method svi only.")
    elif args.dask_scheduler:
        raise CLIError("--dask-scheduler runs batch VB; use it with --method batch.")


def _fit_on_dask(model, X, address):
    """Batch VB with the E-step on a dask.distributed cluster: the documents travel as a Dask
    bag of CSR blocks (two per worker), statistics are tree-summed (latentkit.parallel.dask)."""
    try:
        import dask.bag as db
        import distributed
    except ImportError:
        raise CLIError("--dask-scheduler needs dask and distributed: pip install "
                       "'latentkit[dask]'.") from None
    try:
        client = distributed.Client(address, timeout="10s")
    except (OSError, TimeoutError) as exc:
        raise CLIError(f"cannot connect to the dask scheduler at {address!r}: {exc}") from None
    with client:
        n_blocks = max(1, 2 * len(client.scheduler_info().get("workers", {})))
        bounds = np.linspace(0, X.shape[0], min(n_blocks, X.shape[0]) + 1).astype(int)
        blocks = [X[a:b] for a, b in zip(bounds[:-1], bounds[1:])]
        model.fit(db.from_sequence(blocks, npartitions=len(blocks)))
    return model


def _run_private_spectral_lda(args, progress):
    """``fit lda --init spectral --private``: :class:`~latentkit.spectral.PrivateSpectralLDA`."""
    import warnings

    from .spectral import PrivacyNoiseWarning, PrivateSpectralLDA
    from .topic._words import top_words

    if args.init not in (None, "spectral"):
        raise ValueError(f"--private needs --init spectral, got --init {args.init}.")
    corpus = load_input(args, "counts")
    X, vocab = corpus.data, corpus.vocabulary
    k = 10 if args.n_components is None else args.n_components
    prior = 1.0 / k if args.doc_topic_prior is None else args.doc_topic_prior
    model = PrivateSpectralLDA(k, args.epsilon, args.delta, doc_topic_prior=prior,
                               neighbouring=args.neighbouring, n_words=args.n_words,
                               accountant=args.accountant, random_state=args.seed)
    with progress, warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyNoiseWarning)  # printed below instead
        model.fit(X)
    model.feature_names_in_ = np.asarray(vocab, dtype=str)
    # the fields every `fit` prints; a moment estimator has no likelihood trace
    model.n_iter_, model.converged_ = model.n_iter, True
    model.lower_bounds_, model.lower_bound_ = np.zeros(0), float("nan")
    rep = model.privacy_report_
    top = top_words(model.components_, list(vocab), args.top)
    n_docs, n_words = X.shape
    doc = args.neighbouring == "document"
    relation = ("one document (neighbouring corpora differ in one document's content)" if doc
                else "one symmetric unit entry of the whitened moment tensor (Wang & "
                     "Anandkumar 2016); protects NO document")
    noisy = int(model.noise_dominated_.sum())
    lines = [
        f"data        {corpus['name']}: {n_docs} documents x {n_words} words",
        f"privacy     neighbouring relation: {relation}; whole pipeline spends "
        f"epsilon = {rep['epsilon']:.4g} at delta = {args.delta:g} "
        f"({rep['n_releases']} Gaussian releases, {args.accountant} accounting)",
        f"model       private spectral LDA (k={k}, alpha_0={k * prior:.4g}, "
        f"L={model.n_restarts}, R={model.n_iter}"
        + (f", {model.selected_words_.size} words chosen by private frequency)" if doc else ")"),
        f"  bounds    same releases: Renyi-DP epsilon = {rep['epsilon_rdp']:.4g}, exact "
        f"(analytic) = {rep['epsilon_analytic']:.4g}, paper's advanced rule = "
        f"{rep['epsilon_advanced']:.4g}",
    ]
    if not doc:
        lines.append("  note      the whitening and moments come from the raw corpus without "
                     "noise: use --neighbouring document to protect documents")
    lines.append(
        f"noise       {noisy} of {k} topics noise-dominated (noise >= |eigenvalue|/sqrt(k), "
        f"Wang & Anandkumar 2016 Thm 2.2)"
        + (f"; second moment noise-dominated (k-th eigenvalue {model.m2_eigenvalues_[-1]:.3g} "
           f"<= noise norm {model.m2_noise_norm_:.3g})" if model.m2_noise_dominated_ else "")
        + ("; THE TOPICS BELOW ARE MOSTLY NOISE" if noisy or model.m2_noise_dominated_ else ""))
    lines.append(f"top {args.top} words per topic (words of probability zero are not listed):")
    lines += [f"  topic {i}: " + (" ".join(w) if w else "(no word with positive probability)")
              for i, w in enumerate(top)]
    summary = {"n_features": n_words, "topics": top,
               "privacy": {k_: _finite(v) if isinstance(v, float) else v
                           for k_, v in rep.items()},
               "accountant": args.accountant, "neighbouring": args.neighbouring,
               "noise_dominated": [bool(b) for b in model.noise_dominated_],
               "m2_noise_dominated": bool(model.m2_noise_dominated_)}
    return FitResult(model, summary, lines, n_docs, plot_data={"vocabulary": list(vocab)})


# ----------------------------------------------------------------------------- fit gmm

def _add_gmm_args(p):
    p.add_argument("--covariance-type", default="full",
                   choices=["full", "diag", "spherical", "tied"],
                   help="covariance structure (default full)")
    p.add_argument("--n-init", type=int, default=None,
                   help="initialisations (the one with the best ELBO is kept)")
    p.add_argument("--reg-covar", type=float, default=None,
                   help="added to covariance diagonals (default 1e-6)")
    p.add_argument("--standardize", action="store_true",
                   help="standardise each column to mean 0, sd 1 before fitting")
    p.add_argument("--missing", choices=["error", "marginalize"], default="error",
                   help="NaN entries of the data (nan in a CSV): refuse them (default) or "
                        "treat them as unobserved and integrate them out exactly")


def _fmt_matrix(a, indent="    "):
    return [indent + "  ".join(f"{v:>11.5g}" for v in row) for row in np.atleast_2d(a)]


def _run_gmm(args, progress):
    from .mixture import GaussianMixture

    bunch = load_input(args, "matrix")
    X = np.asarray(bunch.data, dtype=np.float64)
    if X.ndim != 2:
        raise CLIError(f"the data must be a 2-D table of numbers, got shape {X.shape}.")
    n_missing = int(np.isnan(X).sum()) if args.missing == "marginalize" else 0
    if args.standardize:
        with np.errstate(invalid="ignore"):  # all-NaN columns are refused by fit
            sd = np.nanstd(X, axis=0)
            X = (X - np.nanmean(X, axis=0)) / np.where(sd > 0, sd, 1.0)
    k = 2 if args.n_components is None else args.n_components
    model = GaussianMixture(
        n_components=k, covariance_type=args.covariance_type, random_state=args.seed,
        callback=progress.callback, missing=args.missing,
        **_opt(args, max_iter=args.max_iter, tol=args.tol, n_init=args.n_init, init=args.init,
               reg_covar=args.reg_covar))
    progress.total = model.max_iter * (model.n_init if isinstance(model.n_init, int) else 1)
    with progress:
        model.fit(X)
    names = bunch.get("feature_names")
    if names is not None and len(names) == X.shape[1]:
        model.feature_names_in_ = np.asarray(names, dtype=str)
    n, d = X.shape
    per_sample = model.score(X)
    total = per_sample * n
    bic = model.bic(X)
    lines = [
        f"data        {bunch['name']}: {n} samples x {d} features"
        + (" (standardised)" if args.standardize else "")
        + (f", {n_missing} missing entries marginalised" if n_missing else "")
        + (f" [{', '.join(map(str, names))}]" if names is not None and len(names) == d else ""),
        f"model       GaussianMixture(n_components={k}, covariance_type={args.covariance_type!r})",
        f"init        {model.init if isinstance(model.init, str) else 'given'}",
        f"iterations  {model.n_iter_} ({'converged' if model.converged_ else 'not converged'}, "
        f"tol={model.tol_:.3g})",
        f"log-likelihood  {total:.4f} total, {per_sample:.6f} per sample (nats)",
        f"BIC         {bic:.4f}",
        "weights",
        "    " + "  ".join(f"{w:>11.5g}" for w in model.weights_),
        "means (one row per component)",
        *_fmt_matrix(model.means_),
        f"covariances ({args.covariance_type})",
    ]
    cov = np.asarray(model.covariances_)
    if args.covariance_type == "full":
        for i, c in enumerate(cov):
            lines.append(f"  component {i}")
            lines += _fmt_matrix(c)
    else:
        lines += _fmt_matrix(cov)
    summary = {"n_features": d, "weights": _tolist(model.weights_), "means": _tolist(model.means_),
               "covariances": _tolist(cov), "covariance_type": args.covariance_type,
               "log_likelihood": _finite(total), "log_likelihood_per_sample": _finite(per_sample),
               "bic": _finite(bic), "init": model.init if isinstance(model.init, str) else "given"}
    return FitResult(model, summary, lines, n, plot_data={"X": X, "feature_names": names})


# ----------------------------------------------------------------------------- fit vae

def _add_vae_args(p):
    p.add_argument("--latent-dim", type=int, default=2, help="latent dimension (default 2)")
    p.add_argument("--hidden", type=int, nargs="*", default=[256], metavar="H",
                   help="encoder hidden-layer widths, reversed for the decoder (default 256)")
    p.add_argument("--activation", default="relu", choices=["relu", "tanh", "softplus"])
    p.add_argument("--likelihood", default="bernoulli",
                   choices=["bernoulli", "gaussian", "categorical"],
                   help="p(x|z) (default bernoulli; optdigits is then binarised at count >= 8, "
                        "with gaussian it is scaled to [0, 1])")
    p.add_argument("--binarize", type=float, default=None, metavar="T",
                   help="bernoulli with --data: use X > T")
    p.add_argument("--epochs", type=int, default=None, help="maximum epochs (default 100; "
                   "--max-iter is the same)")
    p.add_argument("--batch-size", type=int, default=None, help="minibatch size (default 100)")
    p.add_argument("--learning-rate", type=float, default=None, help="Adam step (default 1e-3)")
    p.add_argument("--n-mc-samples", type=int, default=None, help="draws of z per point")
    p.add_argument("--kl-warmup-epochs", type=float, default=None)
    p.add_argument("--free-bits", type=float, default=None)
    p.add_argument("--bayesian-decoder", action="store_true",
                   help="mean-field Gaussian posterior over the decoder weights")
    p.add_argument("--early-stopping", action="store_true",
                   help="hold out 10%% of the training data and stop on its ELBO")
    p.add_argument("--n-importance", type=int, default=100,
                   help="importance samples of the log-likelihood estimate (default 100)")


def _run_vae(args, progress):
    from .neural import VAE

    X_test = y_test = None
    y = None
    binarize = args.binarize
    if args.data is None and args.dataset == "optdigits":
        from .datasets import load_optdigits

        scale = "binary" if args.likelihood == "bernoulli" else "unit"
        tr, te = load_optdigits("train", scale=scale), load_optdigits("test", scale=scale)
        X, y, X_test, y_test = tr.data, tr.target, te.data, te.target
        name = f"optdigits ({'binarised at count >= 8' if scale == 'binary' else 'counts / 16'})"
    else:
        bunch = load_input(args, "matrix")
        X = np.asarray(bunch.data, dtype=np.float64)
        y = bunch.get("target")
        name = bunch["name"]
    epochs = args.epochs if args.epochs is not None else args.max_iter
    model = VAE(latent_dim=args.latent_dim, hidden_layer_sizes=tuple(args.hidden),
                activation=args.activation, likelihood=args.likelihood, binarize=binarize,
                bayesian_decoder=args.bayesian_decoder, early_stopping=args.early_stopping,
                random_state=args.seed, callback=progress.callback,
                **_opt(args, max_iter=epochs, tol=args.tol, batch_size=args.batch_size,
                       learning_rate=args.learning_rate, n_mc_samples=args.n_mc_samples,
                       kl_warmup_epochs=args.kl_warmup_epochs, free_bits=args.free_bits))
    progress.total = model.max_iter
    with progress:
        model.fit(X)
    train_elbo, train_se = model.elbo(X, n_samples=10, return_std=True)
    lines = [
        f"data        {name}: train {X.shape[0]} x {X.shape[1]}"
        + (f", test {X_test.shape[0]}" if X_test is not None else ""),
        f"model       VAE(latent_dim={model.latent_dim}, hidden_layer_sizes="
        f"{model.hidden_layer_sizes}, activation={model.activation!r}, "
        f"likelihood={model.likelihood!r}, bayesian_decoder={model.bayesian_decoder})",
        f"epochs      {model.n_iter_} ({'converged' if model.converged_ else 'not converged'}, "
        f"tol={model.tol})",
        f"train ELBO  {train_elbo:.4f} +- {train_se:.4f} nats per sample (10 draws)",
    ]
    summary = {"n_features": int(X.shape[1]), "latent_dim": int(model.latent_dim),
               "train_elbo": _finite(train_elbo), "train_elbo_se": _finite(train_se),
               "active_units": int(model.active_units_)}
    if X_test is not None:
        test_elbo, test_se = model.elbo(X_test, n_samples=10, return_std=True)
        test_ll = model.log_likelihood(X_test, n_importance=args.n_importance)
        lines += [f"test ELBO   {test_elbo:.4f} +- {test_se:.4f} nats per sample (10 draws)",
                  f"test log-likelihood (importance weighted, K={args.n_importance})  "
                  f"{test_ll:.4f} nats per sample"]
        summary.update(test_elbo=_finite(test_elbo), test_elbo_se=_finite(test_se),
                       test_log_likelihood=_finite(test_ll))
        if model.latent_dim <= 10 and y is not None:
            Ztr, Zte = model.transform(X), model.transform(X_test)
            d2 = (Zte ** 2).sum(1)[:, None] - 2.0 * Zte @ Ztr.T + (Ztr ** 2).sum(1)[None, :]
            nn = np.argpartition(d2, 5, axis=1)[:, :5]
            pred = np.array([np.bincount(v, minlength=int(y.max()) + 1).argmax() for v in y[nn]])
            acc = float((pred == y_test).mean())
            lines.append(f"5-NN accuracy of the test digits in latent space  {acc:.3f}")
            summary["knn_accuracy"] = acc
    lines.append(f"active units {model.active_units_} of {model.latent_dim} (Burda et al. 2016)")
    return FitResult(model, summary, lines, X.shape[0], plot_data={"X": X, "y": y})


# ----------------------------------------------------------------------------- fit hmm

def _add_hmm_args(p):
    p.add_argument("--emission", default=None,
                   choices=["categorical", "poisson", "gaussian", "gmm"],
                   help="emission distribution (default: categorical for symbol data with an "
                        "alphabet, poisson for integer counts, else gaussian; gmm: a Gaussian "
                        "mixture per state, GMMHMM)")
    p.add_argument("--n-mix", type=int, default=2, help="--emission gmm: Gaussians per state")
    p.add_argument("--covariance-type", default="diag",
                   choices=["full", "diag", "spherical", "tied"],
                   help="Gaussian emissions: covariance structure (default diag)")
    p.add_argument("--n-init", type=int, default=None, help="initialisations (best kept)")
    p.add_argument("--variational", action="store_true",
                   help="variational Bayes (VariationalCategoricalHMM / VariationalGaussianHMM: "
                        "Dirichlet and Normal-Wishart posteriors, unused states emptied)")


def _state_runs(states, lengths):
    """Number of runs and mean run length of each state in the decoded sequences."""
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    starts = np.zeros(len(states), dtype=bool)
    starts[offsets[:-1]] = True
    starts[1:] |= states[1:] != states[:-1]
    return starts


def _run_hmm(args, progress):
    from .sequence import CategoricalHMM, GaussianHMM, PoissonHMM

    bunch = load_input(args, "sequence")
    X = np.asarray(bunch.data)
    if X.ndim == 1:
        X = X.reshape(-1, 1)
    lengths = bunch.get("lengths")
    lengths = np.array([len(X)]) if lengths is None else np.asarray(lengths)
    alphabet = bunch.get("alphabet")
    emission = args.emission
    if emission is None:
        integer = X.dtype.kind in "iu" or bool(np.all(X == np.round(X)))
        emission = ("categorical" if alphabet is not None else
                    "poisson" if integer else "gaussian")
    k = 2 if args.n_components is None else args.n_components
    common = dict(n_components=k, random_state=args.seed, callback=progress.callback,
                  **_opt(args, max_iter=args.max_iter, tol=args.tol, n_init=args.n_init,
                         init=args.init))
    if args.variational:
        from .sequence import VariationalCategoricalHMM, VariationalGaussianHMM

        if emission == "poisson":
            raise ValueError("--variational needs categorical or gaussian emissions, got "
                             "poisson; use --emission categorical or gaussian.")
        CategoricalHMM = VariationalCategoricalHMM  # noqa: N806 - the same call below
        GaussianHMM = VariationalGaussianHMM  # noqa: N806
    if emission == "categorical":
        model = CategoricalHMM(**common)
    elif emission == "poisson":
        model = PoissonHMM(**common)
    elif emission == "gmm":
        from .sequence import GMMHMM

        if args.variational:
            raise ValueError("--variational needs categorical or gaussian emissions, got gmm.")
        X = X.astype(np.float64)
        model = GMMHMM(n_mix=args.n_mix, covariance_type=args.covariance_type, **common)
    else:
        X = X.astype(np.float64)
        model = GaussianHMM(covariance_type=args.covariance_type, **common)
    progress.total = model.max_iter * (model.n_init if isinstance(model.n_init, int) else 1)
    with progress:
        model.fit(X, lengths=lengths)
    n = len(X)
    total = float(model.score_sequences(X, lengths).sum())
    bic = model.bic(X, lengths)
    logprob, states = model.decode(X, lengths)
    starts = _state_runs(states, lengths)
    occupancy = np.bincount(states, minlength=k)
    runs = np.bincount(states[starts], minlength=k)
    lines = [
        f"data        {bunch['name']}: {n} time steps in {len(lengths)} sequence(s) x "
        f"{X.shape[1]} feature(s)",
        f"model       {type(model).__name__}(n_components={k}"
        + (f", n_mix={args.n_mix}" if emission == "gmm" else "")
        + (f", covariance_type={args.covariance_type!r}" if emission in ("gaussian", "gmm")
           else "")
        + ")",
        f"iterations  {model.n_iter_} ({'converged' if model.converged_ else 'not converged'}, "
        f"tol={model.tol})",
        f"log-likelihood  {total:.4f} total (-log L = {-total:.4f}), "
        f"{total / n:.6f} per time step (nats)",
        f"BIC         {bic:.4f}",
        *([f"ELBO        {model.lower_bound_:.6f} nats per time step; effective states "
           f"{model.n_effective_components_} of {k}"] if args.variational else []),
        "startprob",
        "    " + "  ".join(f"{w:>11.5g}" for w in model.startprob_),
        "transmat (row i: p(next state | state i))",
        *_fmt_matrix(model.transmat_),
    ]
    summary = {"emission": emission, "n_sequences": int(len(lengths)),
               "log_likelihood": _finite(total), "bic": _finite(bic),
               "startprob": _tolist(model.startprob_), "transmat": _tolist(model.transmat_)}
    if args.variational:
        summary.update(elbo=_finite(model.lower_bound_),
                       n_effective_components=model.n_effective_components_)
    if emission == "gmm":
        lines += ["weights (one row per state)", *_fmt_matrix(model.weights_)]
        for i in range(k):
            lines += [f"means of state {i} (one row per mixture component)",
                      *_fmt_matrix(model.means_[i])]
        summary.update(weights=_tolist(model.weights_), means=_tolist(model.means_),
                       covars=_tolist(model.covars_), covariance_type=args.covariance_type)
    elif emission == "poisson":
        lines += ["lambdas (one row per state)", *_fmt_matrix(model.lambdas_)]
        summary["lambdas"] = _tolist(model.lambdas_)
    elif emission == "gaussian":
        lines += ["means (one row per state)", *_fmt_matrix(model.means_),
                  f"covars ({args.covariance_type})"]
        cov = np.asarray(model.covars_)
        if args.covariance_type == "full":
            for i, c in enumerate(cov):
                lines += [f"  state {i}", *_fmt_matrix(c)]
        else:
            lines += _fmt_matrix(cov)
        summary.update(means=_tolist(model.means_), covars=_tolist(cov),
                       covariance_type=args.covariance_type)
    else:
        B = model.emissionprob_
        symbols = list(alphabet) if alphabet is not None and len(alphabet) == B.shape[1] else \
            [str(i) for i in range(B.shape[1])]
        symbols = ["_" if c == " " else c for c in symbols]
        lines.append("emissionprob (symbols by decreasing probability, '_' = space)")
        for i in range(k):
            order = np.argsort(-B[i])[:12]
            lines.append(f"  state {i}: " + " ".join(f"{symbols[j]}:{B[i, j]:.3f}" for j in order))
        summary["emissionprob"] = _tolist(B)
        summary["symbols"] = symbols
    lines.append(f"Viterbi state sequence (log p(x, z*) = {logprob:.4f})")
    for i in range(k):
        mean_run = occupancy[i] / runs[i] if runs[i] else 0.0
        lines.append(f"  state {i}: {occupancy[i]} steps ({occupancy[i] / n:.1%}), {runs[i]} runs, "
                     f"mean run length {mean_run:.2f}")
    head = states[:80]
    lines.append("  first steps: " + "".join(str(s) if k <= 10 else chr(65 + s % 26) for s in head)
                 + (" ..." if n > 80 else ""))
    summary.update(occupancy=occupancy.tolist(), runs=runs.tolist(),
                   viterbi_log_prob=_finite(logprob))
    return FitResult(model, summary, lines, n, plot_data={
        "X": X, "lengths": lengths, "symbols": summary.get("symbols")})


# ----------------------------------------------------------------------------- fit plsa|vgmm|dpmm

def _add_plsa_args(p):
    _add_text_args(p)
    p.add_argument("--parametrization", default="asymmetric", choices=["asymmetric", "symmetric"],
                   help="P(d)P(z|d)P(w|z) or P(z)P(d|z)P(w|z) (default asymmetric)")
    p.add_argument("--beta", type=float, default=None, help="tempered EM exponent (default 1)")
    p.add_argument("--top", type=int, default=10, help="words shown per aspect (default 10)")


def _run_plsa(args, progress):
    from .topic import PLSA

    corpus = load_input(args, "counts")
    X, vocab = corpus.data, list(corpus.vocabulary)
    k = 10 if args.n_components is None else args.n_components
    model = PLSA(n_components=k, parametrization=args.parametrization, random_state=args.seed,
                 callback=progress.callback,
                 **_opt(args, beta=args.beta, max_iter=args.max_iter, tol=args.tol,
                        init=args.init))
    progress.total = model.max_iter
    with progress:
        model.fit(X)
    model.feature_names_in_ = np.asarray(vocab, dtype=str)
    _attach_text(model, corpus)
    n_docs, n_words = X.shape
    from .topic._words import top_words

    topics = top_words(model.components_, vocab, args.top)
    per_token = model.lower_bound_ / model.mean_doc_length_  # lower_bound_: nats per document
    perplexity = float(np.exp(-per_token)) if args.parametrization == "asymmetric" else None
    lines = [
        f"data        {corpus['name']}: {n_docs} documents x {n_words} words, "
        f"{int(X.sum())} tokens",
        f"model       PLSA(n_components={k}, parametrization={args.parametrization!r}, "
        f"beta={model.beta})",
        f"iterations  {model.n_iter_} ({'converged' if model.converged_ else 'not converged'}, "
        f"tol={model.tol_:.3g})",
        f"log-likelihood  {model.lower_bound_:.4f} nats per document, {per_token:.4f} per token",
    ]
    if perplexity is not None:
        lines.append(f"perplexity  {perplexity:.2f} (training documents, per token)")
    lines.append(f"top {args.top} words per aspect:")
    width = len(str(k - 1))
    lines += [f"  aspect {i:>{width}}: " + " ".join(w) for i, w in enumerate(topics)]
    summary = {"n_features": n_words, "n_tokens": int(X.sum()), "topics": topics,
               "parametrization": args.parametrization,
               "perplexity": None if perplexity is None else _finite(perplexity)}
    return FitResult(model, summary, lines, n_docs, plot_data={"vocabulary": vocab})


def _add_bayes_mixture_args(p):
    _add_gmm_args(p)  # the same covariance, initialisation and scaling options


def _add_vgmm_args(p):
    _add_bayes_mixture_args(p)
    p.add_argument("--weight-concentration-prior", type=float, default=None,
                   help="Dirichlet alpha_0 of the weights (default 1/k)")


def _add_dpmm_args(p):
    _add_bayes_mixture_args(p)
    p.add_argument("--concentration", type=float, default=None,
                   help="alpha of the Beta(1, alpha) sticks (default 1)")
    p.add_argument("--truncation-method", default="fixed", choices=["fixed", "tail"],
                   help="v_T = 1 (Blei & Jordan) or the prior tail (Kurihara et al.)")


def _run_bayes_mixture(args, progress, kind):
    from .mixture import DirichletProcessMixture, VariationalGaussianMixture

    bunch = load_input(args, "matrix")
    X = np.asarray(bunch.data, dtype=np.float64)
    if X.ndim != 2:
        raise CLIError(f"the data must be a 2-D table of numbers, got shape {X.shape}.")
    if args.standardize:
        sd = X.std(axis=0)
        X = (X - X.mean(axis=0)) / np.where(sd > 0, sd, 1.0)
    # the library defaults run the bound to convergence (tol_ = 1e-3 / n_samples, scikit-learn's
    # total-bound rule, and max_iter=1000): no CLI-only override
    common = _opt(args, max_iter=args.max_iter, tol=args.tol, n_init=args.n_init,
                  init=args.init, reg_covar=args.reg_covar)
    if kind == "vgmm":
        k = 10 if args.n_components is None else args.n_components
        model = VariationalGaussianMixture(
            n_components=k, covariance_type=args.covariance_type, random_state=args.seed,
            callback=progress.callback,
            **_opt(args, weight_concentration_prior=args.weight_concentration_prior), **common)
        desc = f"VariationalGaussianMixture(n_components={k}, covariance_type={args.covariance_type!r})"
    else:
        k = 30 if args.n_components is None else args.n_components
        model = DirichletProcessMixture(
            n_components=k, covariance_type=args.covariance_type, random_state=args.seed,
            truncation_method=args.truncation_method, callback=progress.callback,
            **_opt(args, concentration=args.concentration), **common)
        desc = (f"DirichletProcessMixture(n_components={k}, truncation_method="
                f"{args.truncation_method!r}, covariance_type={args.covariance_type!r})")
    progress.total = model.max_iter * (model.n_init if isinstance(model.n_init, int) else 1)
    with progress:
        model.fit(X)
    n, d = X.shape
    keep = np.flatnonzero(model.weights_ > 0.01)
    pred = model.score(X)
    lines = [
        f"data        {bunch['name']}: {n} samples x {d} features"
        + (" (standardised)" if args.standardize else ""),
        f"model       {desc}",
        f"iterations  {model.n_iter_} ({'converged' if model.converged_ else 'not converged'}, "
        f"tol={model.tol_:.3g})",
        f"ELBO        {model.lower_bound_:.6f} nats per sample",
        f"posterior predictive  {pred:.6f} nats per sample (mixture of Student-t)",
        f"effective components  {model.n_effective_components_} (expected weight > 0.01)",
        "weights of the effective components",
        "    " + "  ".join(f"{w:>11.5g}" for w in model.weights_[keep]),
        "means of the effective components (one row per component)",
        *_fmt_matrix(model.means_[keep]),
    ]
    summary = {"n_features": d, "weights": _tolist(model.weights_),
               "means": _tolist(model.means_),
               "n_effective_components": int(model.n_effective_components_),
               "covariance_type": args.covariance_type,
               "predictive_log_density_per_sample": _finite(pred)}
    return FitResult(model, summary, lines, n, plot_data={"X": X})


def _run_vgmm(args, progress):
    return _run_bayes_mixture(args, progress, "vgmm")


def _run_dpmm(args, progress):
    return _run_bayes_mixture(args, progress, "dpmm")


# ----------------------------------------------------------------------------- registry

FIT_COMMANDS = {
    "lda": FitCommand("latent Dirichlet allocation (variational Bayes) on a count matrix",
                      _add_lda_args, _run_lda, default_dataset="kos"),
    "gmm": FitCommand("Gaussian mixture by EM on a table of numbers",
                      _add_gmm_args, _run_gmm, default_dataset="old_faithful"),
    "plsa": FitCommand("probabilistic latent semantic analysis (EM) on a count matrix",
                       _add_plsa_args, _run_plsa, default_dataset="kos"),
    "vgmm": FitCommand("variational Bayesian Gaussian mixture on a table of numbers",
                       _add_vgmm_args, _run_vgmm, default_dataset="old_faithful"),
    "dpmm": FitCommand("truncated Dirichlet-process Gaussian mixture (variational) on a table "
                       "of numbers", _add_dpmm_args, _run_dpmm, default_dataset="old_faithful"),
    "vae": FitCommand("variational autoencoder (AEVB) on a table of numbers",
                      _add_vae_args, _run_vae, default_dataset="optdigits"),
    "hmm": FitCommand("hidden Markov model by Baum-Welch on sequences (categorical, Poisson or "
                      "Gaussian emissions)", _add_hmm_args, _run_hmm,
                      default_dataset="earthquakes"),
}


# ----------------------------------------------------------------------------- commands

def _cmd_datasets(args, out):
    from .datasets import list_datasets

    if getattr(args, "action", "list") == "export":
        from ._commands import run_datasets_export

        return run_datasets_export(args, out)

    rows = list_datasets()
    if args.json:
        out.write(json.dumps([{k: r[k] for k in ("name", "kind", "shape", "license")}
                              for r in rows]) + "\n")
        return 0
    cols = ("name", "kind", "shape", "license")
    widths = [max(len(c), *(len(str(r[c])) for r in rows)) for c in cols]
    out.write("  ".join(c.upper().ljust(w) for c, w in zip(cols, widths)).rstrip() + "\n")
    for r in rows:
        out.write("  ".join(str(r[c]).ljust(w) for c, w in zip(cols, widths)).rstrip() + "\n")
    out.write("\nProvenance and citations: datasets/README.md; load with "
              "latentkit.datasets.load_<name>().\n")
    return 0


def _check_fit_args(args):
    """Argument errors found before any work: one line each (exit status 2)."""
    if args.data is not None and getattr(args, "dataset_given", False):
        raise CLIError("--data and --dataset are alternatives; give one of them.")
    batch_size = getattr(args, "batch_size", None)  # used to size the progress bar first
    if batch_size is not None and batch_size < 1:
        raise CLIError(f"--batch-size must be a positive integer, got {batch_size}.")
    for opt, path in (("--out", args.out), ("--plot", getattr(args, "plot", None))):
        if not path:
            continue
        folder = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(folder):
            raise CLIError(f"{opt} {path!r}: the folder {folder!r} does not exist.")
        if not os.access(folder, os.W_OK):
            raise CLIError(f"{opt} {path!r}: the folder {folder!r} is not writable.")
    if getattr(args, "plot", None):
        try:  # checked before a long fit
            import matplotlib  # noqa: F401
        except ImportError:
            raise CLIError("--plot needs matplotlib (pip install 'latentkit[plot]').") from None


def _cmd_fit(args, out):
    _check_fit_args(args)
    command = FIT_COMMANDS[args.model]
    progress = Progress(total=None, enabled=not args.quiet, desc=f"fit {args.model}")
    with warnings.catch_warnings():
        if args.quiet or args.json:
            warnings.simplefilter("ignore")
        start = time.perf_counter()
        result = command.run(args, progress)
        seconds = time.perf_counter() - start
    model = result.model
    if args.out:
        from .io import save

        save(model, args.out)
    if args.plot:
        _save_plot(args.plot, model, result.plot_data)
    if args.json:
        obj = {"model": type(model).__name__, "n_samples": int(result.n_samples),
               "n_iter": int(model.n_iter_), "converged": bool(model.converged_),
               "lower_bounds": _tolist(model.lower_bounds_),
               "lower_bound": _finite(model.lower_bound_)}
        obj.update(result.summary)
        obj["seconds"] = round(seconds, 3)
        if args.out:
            obj["out"] = args.out
        if args.plot:
            obj["plot"] = args.plot
        out.write(json.dumps(obj) + "\n")
        return 0
    for line in result.lines:
        out.write(line + "\n")
    out.write(f"seconds     {seconds:.2f} (loading and fitting)\n")
    if args.out:
        out.write(f"saved       {args.out}\n")
    if args.plot:
        out.write(f"plot        {args.plot}\n")
    return 0


def _cmd_show(args, out):
    from .io import load, read_metadata

    meta = read_metadata(args.path)
    model = load(args.path)
    attrs = {k: getattr(model, k) for k in meta["attributes"] if not k.startswith("_")}
    if args.json:
        def enc(v):
            if isinstance(v, np.ndarray):
                return v.tolist() if v.dtype.kind in "US" else _tolist(v) if v.size <= 10000 \
                    else {"shape": list(v.shape), "dtype": v.dtype.str}
            return _finite(v) if isinstance(v, float) else v
        out.write(json.dumps({"class": meta["class"], "latentkit_version": meta["latentkit_version"],
                              "params": {k: v for k, v in model.get_params(deep=False).items()
                                         if isinstance(v, (int, float, str, bool, type(None)))},
                              "attributes": {k: enc(v) for k, v in attrs.items()}}) + "\n")
        return 0
    out.write(f"{meta['class']} saved by latentkit {meta['latentkit_version']} ({args.path})\n")
    out.write(f"  {model!r}\n")
    if "lower_bound_" in attrs:
        out.write(f"  lower_bound_ = {attrs['lower_bound_']:.6f} nats per sample after "
                  f"{attrs.get('n_iter_')} iterations (converged: {attrs.get('converged_')})\n")
    out.write("fitted attributes:\n")
    np_opts = dict(precision=5, suppress_small=True, max_line_width=100)
    for k, v in sorted(attrs.items()):
        if k in ("lower_bound_", "n_iter_", "converged_"):
            continue
        if isinstance(v, np.ndarray):
            head = f"  {k}: {v.dtype} array of shape {v.shape}"
            if v.size <= 40 and v.dtype.kind in "fiubUS":
                body = np.array2string(v, **np_opts).replace("\n", "\n      ")
                out.write(f"{head}\n      {body}\n")
            else:
                out.write(head + "\n")
        else:
            out.write(f"  {k}: {v!r}\n")
    comps, names = attrs.get("components_"), attrs.get("feature_names_in_")
    if comps is not None and names is not None and comps.ndim == 2 and comps.shape[1] == len(names):
        out.write("top words per topic:\n")
        from .topic._words import top_words

        for i, words in enumerate(top_words(comps, [str(w) for w in names], 10)):
            out.write(f"  topic {i}: " + " ".join(words) + "\n")
    if meta.get("skipped"):
        out.write(f"not stored: {', '.join(meta['skipped'])}\n")
    return 0


def build_parser():
    """The argparse parser of the ``latentkit`` command (with every registered fit model)."""
    from . import __version__

    parser = argparse.ArgumentParser(
        prog="latentkit",
        description="Fit latent-variable models by raising their ELBO, on bundled or your data.")
    parser.add_argument("--version", action="version", version=f"latentkit {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    p = sub.add_parser("datasets", help="list the bundled data sets (name, kind, shape, license)")
    p.add_argument("--json", action="store_true", help="print a JSON list")
    p.add_argument("action", nargs="?", choices=["list", "export"], default="list",
                   help="list (default) or export (gutenberg_novels as raw text)")
    from ._commands import add_commands, add_export_args

    add_export_args(p)

    p = sub.add_parser("fit", help="fit a model and print its summary")
    models = p.add_subparsers(dest="model", metavar="MODEL")
    models.required = True
    for name, cmd in FIT_COMMANDS.items():
        mp = models.add_parser(name, help=cmd.help, description=cmd.description or cmd.help)
        _add_common_args(mp, cmd.default_dataset)
        cmd.add_arguments(mp)

    p = sub.add_parser("show", help="summarise a model saved with --out / latentkit.io.save")
    p.add_argument("path", help="model file (.npz)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(extra_handlers=add_commands(sub))  # coherence, report, select
    return parser


def main(argv=None, out=None):
    """Run the ``latentkit`` command.

    Parameters
    ----------
    argv : list of str, optional
        Arguments without the program name (default ``sys.argv[1:]``).
    out : file-like, optional
        Where results go (default ``sys.stdout``); progress bars and errors go to stderr.

    Returns
    -------
    int
        Exit status: 0 success, 2 a user error (message on stderr).
    """
    out = sys.stdout if out is None else out
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = {"datasets": _cmd_datasets, "fit": _cmd_fit, "show": _cmd_show,
               **args.extra_handlers}[args.command]
    try:
        return handler(args, out)
    except (CLIError, ValueError, TypeError, FileNotFoundError, IsADirectoryError,
            PermissionError) as exc:
        sys.stderr.write(f"latentkit: error: {exc}\n")
        return 2
    except KeyboardInterrupt:
        sys.stderr.write("latentkit: interrupted\n")
        return 130
    except BrokenPipeError:  # e.g. `latentkit datasets | head`: the reader left; not an error
        try:
            import os

            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError, AttributeError):
            pass
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
