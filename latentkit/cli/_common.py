"""What every ``latentkit`` command shares: the user-error type, the fit result and command
records, the progress bar, input loading (``--dataset`` / ``--data`` / ``--text``), the common and
text options, JSON-safe numbers and the ``--plot`` figure."""

import argparse
import math
import os
from dataclasses import dataclass
from typing import Callable

import numpy as np
from .. import datasets as ds
from ..exceptions import CLIError, KWarning  # defined there; importable here as before
from .._utils.vocabulary_rule import MAX_DF_SHARE, MIN_DF_DOCS_PER_DOC, SMALL_CORPUS
from ..text import attach, load_texts, stop_words_from_file
from ._defaults import INIT_CHOICES, init_help
from ._progress import Progress

__all__ = ["CLIError", "FitCommand", "FitResult", "Progress", "load_input"]


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

    Examples
    --------
    >>> from latentkit import GaussianMixture
    >>> from latentkit.cli import FitResult
    >>> import numpy as np
    >>> X = np.array([[0.0], [0.1], [5.0], [5.1]])
    >>> model = GaussianMixture(n_components=2, random_state=0).fit(X)
    >>> result = FitResult(model, summary={"k": 2}, lines=["model  GaussianMixture"],
    ...                    n_samples=len(X))
    >>> result.n_samples, result.summary, result.plot_data
    (4, {'k': 2}, None)
    """

    model: object
    summary: dict
    lines: list
    n_samples: int
    plot_data: dict = None


@dataclass
class FitCommand:
    """A ``latentkit fit <name>`` subcommand: help text, argument adder, runner, default data.

    Examples
    --------
    >>> import argparse
    >>> from latentkit.cli import FitCommand
    >>> def add_args(p):
    ...     p.add_argument("--alpha", type=float, default=1.0)
    >>> cmd = FitCommand("my model on a table of numbers", add_args, run=None,
    ...                  default_dataset="old_faithful")
    >>> p = argparse.ArgumentParser()
    >>> cmd.add_arguments(p)
    >>> p.parse_args(["--alpha", "0.5"]).alpha, cmd.default_dataset
    (0.5, 'old_faithful')
    """

    help: str
    add_arguments: Callable
    run: Callable
    default_dataset: str = None
    description: str = ""


#: optional dependency -> (import names, extra): checked before any work
_EXTRAS = {"--plot": (("matplotlib",), "plot"), "--text": (("sklearn",), "text"),
           "--dask-scheduler": (("dask.bag", "distributed"), "dask")}


def require_extra(flag):
    """CLIError naming ``pip install "latentkit[<extra>]"`` when ``flag``'s optional
    dependency cannot be imported (a one-line error at once, not a traceback after the fit)."""
    modules, extra = _EXTRAS[flag]
    for name in modules:
        try:
            __import__(name)  # lazy: the extras are optional
        except ImportError:
            package = {"sklearn": "scikit-learn"}.get(name, name.split(".")[0])
            raise CLIError(f"{flag} needs {package}, which is not installed: "
                           f'pip install "latentkit[{extra}]".') from None


def check_before_work(args, outputs=("out", "plot")):
    """The checks every command makes before loading data or fitting: the folders of its
    output files exist and are writable, and the optional dependencies of its options
    (--plot: matplotlib, --text: scikit-learn, --dask-scheduler: dask) are installed."""
    for dest in outputs:
        path = getattr(args, dest, None)
        if not path:
            continue
        opt = "--" + dest.replace("_", "-")
        folder = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(folder):
            raise CLIError(f"{opt} {path!r}: the folder {folder!r} does not exist.")
        if not os.access(folder, os.W_OK):
            raise CLIError(f"{opt} {path!r}: the folder {folder!r} is not writable.")
        if os.path.isdir(path):
            raise CLIError(f"{opt} {path!r} is a folder; give a file name.")
    for flag in _EXTRAS:
        if getattr(args, flag[2:].replace("-", "_"), None):
            require_extra(flag)


def warn_k_above(k, n, unit):
    """Warn (one ``warning:`` line) when ``-k`` exceeds the ``n`` documents or samples."""
    if k is not None and n is not None and int(k) > int(n):
        import warnings

        warnings.warn(f"-k {k} is more than the {n} {unit} of the data; with more components "
                      f"than {unit} some have no {unit[:-1]} of their own (empty or "
                      "duplicates): choose a smaller -k.", KWarning, stacklevel=2)


def refuse_k_above_vocabulary(k, n_words, n_docs):
    """Refuse ``-k`` above the number of words (issue 48: ``-k 1000000`` on a small corpus
    allocated a K x V topic matrix of 1.1 GB and printed a million topics): more topics than
    words cannot be told apart by their words."""
    if k is not None and n_words is not None and int(k) > int(n_words):
        raise CLIError(f"-k {k} is more than the {n_words} words of the vocabulary (and the "
                       f"corpus has {n_docs} documents): topics are distributions over the "
                       f"words, at most {n_words} of them can differ; choose a smaller -k.")


def refuse_k_above_rows(k, shape):
    """Refuse ``-k`` above the number of rows of a table (a clear message instead of the
    library's "Expected n_samples >= -k")."""
    if k is not None and int(k) > int(shape[0]):
        raise CLIError(f"-k {k} is more than the {shape[0]} row{'s' if shape[0] != 1 else ''} "
                       f"of the data ({shape[0]} x {shape[1]}): every component needs a row to "
                       "start from; choose -k at most the number of rows, or pass more rows.")


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

    Examples
    --------
    >>> from latentkit.cli import build_parser, load_input
    >>> args = build_parser().parse_args(["fit", "gmm", "--dataset", "iris"])
    >>> bunch = load_input(args, "matrix")
    >>> bunch.data.shape, bunch["name"]
    ((150, 4), 'iris')
    """
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
    kinds = {d["name"]: d["kind"] for d in ds.list_datasets()}
    if name not in kinds:
        raise CLIError(f"unknown dataset {name!r}; bundled data sets are: {', '.join(kinds)} "
                       "(or pass --data PATH).")
    found = kinds[name]

    def of(*wanted):
        return ", ".join(n for n, k in kinds.items() if k in wanted)

    # checked on the registry's kind, before a possibly large file is read
    if kind == "counts" and found != "counts":
        raise CLIError(f"dataset {name!r} is not a text corpus; use one of {of('counts')}.")
    if kind == "matrix" and found != "matrix":
        raise CLIError(f"dataset {name!r} is not a table of numbers; use one of "
                       f"{of('matrix')}.")
    if kind == "sequence" and found == "counts":
        raise CLIError(f"dataset {name!r} is a text corpus (bag of words), not sequence data; "
                       f"use one of {of('sequence')} (or a table of numbers as one sequence, "
                       "or --data PATH).")
    bunch = ds.load_dataset(name)
    bunch["name"] = name
    if kind == "sequence" and "lengths" not in bunch:
        bunch["lengths"] = None
    return bunch


def _load_text_corpus(args):
    """--text PATH with the text options: a Corpus from latentkit.text (vectorizer kept)."""
    if args.data is not None or getattr(args, "dataset_given", False):
        raise CLIError("--text, --data and --dataset are alternatives; give one of them.")
    sw = args.stop_words
    stop = None if sw == "none" else "english" if sw == "english" else stop_words_from_file(sw)
    extra = _extra_stop_words(getattr(args, "extra_stop_words", None))
    corpus = load_texts(args.text, text_column=args.text_column, stop_words=stop,
                        extra_stop_words=extra, bigrams=args.bigrams,
                        **_given(min_df=args.min_df, max_df=args.max_df,
                                 max_features=args.max_features, min_length=args.min_length))
    return corpus


def _extra_stop_words(value):
    """--extra-stop-words: a file (one word per line) when such a file exists, else words
    separated by commas; None when not given."""
    if value is None:
        return None
    if os.path.isfile(value):
        return stop_words_from_file(value)
    words = [w.strip() for w in value.split(",") if w.strip()]
    if not words or any(os.sep in w for w in words):
        raise CLIError(f"--extra-stop-words {value!r}: neither a file nor words separated by "
                       "commas (e.g. --extra-stop-words package,provides,library).")
    return words


def _count(value):
    """--min-df / --max-df: 'auto' (the library's rule), an int is a document count, a number
    with a dot a fraction."""
    if value == "auto":
        return value
    try:
        return int(value)
    except ValueError:
        return float(value)


def _add_text_args(p):
    g = p.add_argument_group("raw texts (latentkit.text; instead of --dataset/--data)")
    g.add_argument("--text", metavar="PATH",
                   help="your texts: a folder of .txt files (one document each), a .txt file "
                        "(one document per line), or a .csv / .tsv / .jsonl file with a text "
                        "column; any of these files may be gzip-compressed (.gz)")
    g.add_argument("--text-column", metavar="NAME", default=None,
                   help="column / key holding the text in .csv / .tsv / .jsonl (default 'text')")
    g.add_argument("--min-df", type=_count, default=None, metavar="N|auto",
                   help="keep words in at least N documents (a fraction if written 0.x); "
                        "default auto, the library's rule: max(2, "
                        f"ceil(N/{MIN_DF_DOCS_PER_DOC})) for a corpus of N documents, 1 below "
                        f"{SMALL_CORPUS} documents")
    g.add_argument("--max-df", type=_count, default=None, metavar="F|auto",
                   help="drop words in more than F of the documents: a fraction if written "
                        f"0.x, else a document count; default auto, the library's rule: "
                        f"{MAX_DF_SHARE} (boilerplate such as 'pep' in the PEPs), 1.0 below "
                        f"{SMALL_CORPUS} documents")
    g.add_argument("--max-features", type=int, default=None, metavar="N",
                   help="keep the N most frequent words (default: all)")
    g.add_argument("--min-length", type=int, default=None, metavar="N",
                   help="minimum word length in letters (default 2, the library's)")
    g.add_argument("--stop-words", default="english", metavar="english|none|FILE",
                   help="stop list: the bundled English list (default, the library's), none, "
                        "or a file with one word per line")
    g.add_argument("--extra-stop-words", default=None, metavar="FILE|WORD,WORD",
                   help="words added to the chosen stop list: a file with one word per line, "
                        "or words separated by commas (e.g. package,provides,library)")
    g.add_argument("--bigrams", action="store_true", help="add two-word terms")


def _vocabulary_summary(corpus):
    """--text: the line saying how many words each vocabulary rule removed, and its counts
    (``([], None)`` for other corpora)."""
    vec = corpus.get("vectorizer")
    if vec is None or corpus.get("texts") is None:
        return [], None
    from .._utils.text_pruning import format_pruning, pruning_summary  # lazy: scikit-learn

    counts = pruning_summary(vec, corpus["texts"])
    return [format_pruning(counts, vec)], counts


def _attach_text(model, corpus):
    """Store the vectorizer of a --text corpus with the model (saved by --out)."""
    if corpus.get("vectorizer") is not None:
        attach(model, corpus["vectorizer"])


class _StoreDataset(argparse.Action):
    """Store --dataset and remember that it was given (so --data with --dataset is an error)."""

    def __call__(self, parser, namespace, values, option_string=None):
        setattr(namespace, self.dest, values)
        namespace.dataset_given = True


#: the library's default n_components of each ``fit`` model (checked by test_cli_defaults)
_K_DEFAULTS = {"lda": 10, "hdp": 50, "plsa": 10, "gmm": 1, "vgmm": 1, "dpmm": 30, "hmm": 2,
               "hsmm": 2, "arhmm": 2, "iohmm": 2, "dmm": 10, "btm": 10, "dtm": 10, "dmr": 10,
               "llda": "one topic per label, plus --free-topics"}

#: what the ELBO of each ``fit`` model is averaged over (``--tol``'s unit); others: a sample
_ELBO_UNITS = {"lda": "document", "hdp": "document", "plsa": "document", "dmm": "document",
               "btm": "document", "dtm": "document", "llda": "document", "dmr": "document",
               "hmm": "time step", "hsmm": "time step", "arhmm": "time step",
               "iohmm": "time step"}

#: ``-k``'s meaning where it is not the number of components
_K_HELP = {"hdp": "truncation: the most corpus topics the HDP can use; it keeps the ones the "
                  "corpus supports (default 50)",
           "dpmm": "truncation: the most components the DP mixture can use; it keeps the ones "
                   "the data support (default: the model's, 30)"}


def _add_common_args(p, default_dataset, model=None):
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
                   help=_K_HELP.get(model, "number of components / topics / states (default: "
                                    f"the model's, {_K_DEFAULTS.get(model, 'see the model')})"))
    if model in INIT_CHOICES:  # the VAE has no init
        p.add_argument("--init", default=None, metavar="|".join(INIT_CHOICES[model]),
                       help=init_help(model))
    else:
        p.set_defaults(init=None)
    p.add_argument("--max-iter", type=int, default=None,
                   help="maximum iterations (default: the model's)")
    p.add_argument("--tol", type=float, default=None,
                   help=f"stop when the ELBO (nats per {_ELBO_UNITS.get(model, 'sample')}) "
                        "changes by less than this (default: the model's)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--out", metavar="MODEL.npz", help="save the fitted model (latentkit.io.save)")
    p.add_argument("--plot", metavar="FILE.png",
                   help="save a figure: the ELBO trace beside the model's own picture "
                        "(latentkit.plotting; needs matplotlib, the 'plot' extra)")
    p.add_argument("--json", action="store_true",
                   help="print one JSON object instead of text")
    p.add_argument("--quiet", action="store_true",
                   help="no progress bar and no warnings on stderr")


def _refuse_nan(X, missing, where=""):
    """CLIError when ``X`` has nan entries and ``missing`` is not 'marginalize', naming the
    first entry and the option (``where`` says which models take it); returns the count."""
    nan = np.isnan(X) if X.dtype.kind == "f" else np.zeros(X.shape, dtype=bool)
    if missing != "marginalize" and nan.any():
        r, c = np.argwhere(nan)[0]
        raise CLIError(f"the data has {int(nan.sum())} missing (nan) entries, the first at row "
                       f"{r}, column {c}; {where}pass --missing marginalize to integrate them "
                       "out, or remove them.")
    return int(nan.sum())


def _given(**kw):
    """Keyword arguments whose CLI value was given (not None)."""
    return {k: v for k, v in kw.items() if v is not None}


def _save_plot(path, model, data):
    """--plot FILE.png: the ELBO trace (left) beside the model's figure (right), drawn by
    latentkit.plotting on a pyplot-free Figure (no backend or style is changed)."""
    from matplotlib.figure import Figure  # lazy: matplotlib is optional (the 'plot' extra)

    from .. import plotting  # lazy: it needs matplotlib

    data = data or {}
    X = data.get("X")
    kind = ("vae" if hasattr(model, "latent_dim") else "hmm" if hasattr(model, "transmat_")
            else "dtm" if "prevalence" in data
            else "topics" if "vocabulary" in data else "mixture")
    n_topics = len(model.components_) if kind == "topics" else 0
    height = {"topics": max(4.5, 2.4 * -(-min(n_topics, 20) // 4)), "hmm": 6.0}.get(kind, 5.0)
    fig = Figure(figsize=(15.0 if kind in ("topics", "vae") else 12.0, height),
                 layout="constrained")
    left, right = fig.subfigures(1, 2, width_ratios=[1.0, 2.0 if kind in ("topics", "vae")
                                                     else 1.3])
    ax = left.subplots()
    if np.size(getattr(model, "heldout_bounds_", ())) or np.size(getattr(model, "lower_bounds_",
                                                                          ())):
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
    elif kind == "dtm":  # topics over time (latentkit.topic.DynamicTopicModel)
        words = model.top_words(data["vocabulary"], n=3)
        plotting.plot_topic_prevalence(data["prevalence"], model.time_slices_,
                                       ax=right.subplots(),
                                       topic_labels=[f"{k}: {' '.join(w)}"
                                                     for k, w in enumerate(words)])
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




def _fmt_matrix(a, indent="    "):
    return [indent + "  ".join(f"{v:>11.5g}" for v in row) for row in np.atleast_2d(a)]


