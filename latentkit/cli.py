"""The ``latentkit`` command line (also ``python -m latentkit``).

Commands: ``latentkit datasets``, ``latentkit fit <model> ...``, ``latentkit show model.npz``.

How to add a model to ``latentkit fit`` (three small pieces, nothing else to touch):

1. ``def _add_<name>_args(parser)``: add the model's own options. The common ones (--dataset,
   --data, --vocab, -k/--n-components, --init, --max-iter, --tol, --seed, --out, --json,
   --quiet) are added for every model by ``_add_common_args``.
2. ``def _run_<name>(args, progress) -> FitResult``: load the data with
   ``load_input(args, kind)`` (kind 'counts' -> Corpus, 'matrix' -> Bunch with a dense array,
   'sequence' -> Bunch with ``data`` and ``lengths``), build the model with
   ``callback=progress.callback``, fit it inside ``with progress:``, and return
   ``FitResult(model, summary, lines)``: ``summary`` is the model-specific part of the --json
   object (the driver adds model, n_samples, n_iter, converged, lower_bounds, lower_bound,
   seconds), ``lines`` the human-readable report printed after the common header.
3. One entry in ``FIT_COMMANDS``: ``"name": FitCommand(help, _add_name_args, _run_name,
   default_dataset)``.

The driver (``_cmd_fit``) times the fit, shows a tqdm progress bar on stderr (unless --quiet),
saves the model with ``latentkit.io.save`` (--out) and prints text or one JSON object (--json).
Errors in the input (bad file, unknown data set, invalid hyper-parameter) exit with status 2 and
one line ``latentkit: error: ...`` on stderr.
"""

import argparse
import json
import math
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
    """

    model: object
    summary: dict
    lines: list
    n_samples: int


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
    if kind == "sequence" and "lengths" not in bunch:
        bunch["lengths"] = None
    return bunch


def _add_common_args(p, default_dataset):
    src = p.add_argument_group("data (one of)")
    src.add_argument("--dataset", default=default_dataset,
                     help=f"bundled data set (see `latentkit datasets`; default {default_dataset})")
    src.add_argument("--data", metavar="PATH",
                     help="your own data: a UCI docword file (plain or .gz) for text models, "
                          "else a CSV of numbers (one optional header row)")
    src.add_argument("--vocab", metavar="PATH",
                     help="vocabulary file for --data docword (one word per line)")
    p.add_argument("-k", "--n-components", type=int, default=None,
                   help="number of components / topics / states")
    p.add_argument("--init", default=None, help="initialisation (model-specific; see the model)")
    p.add_argument("--max-iter", type=int, default=None, help="maximum iterations")
    p.add_argument("--tol", type=float, default=None,
                   help="stop when the ELBO (nats per sample) changes by less than this")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--out", metavar="MODEL.npz", help="save the fitted model (latentkit.io.save)")
    p.add_argument("--json", action="store_true",
                   help="print one JSON object instead of text")
    p.add_argument("--quiet", action="store_true",
                   help="no progress bar and no warnings on stderr")


def _opt(args, **kw):
    """Keyword arguments whose CLI value was given (not None)."""
    return {k: v for k, v in kw.items() if v is not None}


# ----------------------------------------------------------------------------- fit lda

def _add_lda_args(p):
    p.add_argument("--doc-topic-prior", type=float, default=None,
                   help="alpha (default 1/k)")
    p.add_argument("--topic-word-prior", type=float, default=None,
                   help="eta (default 1/k)")
    p.add_argument("--n-init", type=int, default=None, help="initialisations (best ELBO kept)")
    p.add_argument("--top", type=int, default=10, help="words shown per topic (default 10)")


def _run_lda(args, progress):
    from .topic import LatentDirichletAllocation

    corpus = load_input(args, "counts")
    X, vocab = corpus.data, corpus.vocabulary
    k = 10 if args.n_components is None else args.n_components
    model = LatentDirichletAllocation(
        n_components=k, random_state=args.seed, callback=progress.callback,
        **_opt(args, doc_topic_prior=args.doc_topic_prior, topic_word_prior=args.topic_word_prior,
               max_iter=args.max_iter, tol=args.tol, n_init=args.n_init, init=args.init))
    progress.total = model.max_iter * (model.n_init if isinstance(model.n_init, int) else 1)
    with progress:
        model.fit(X)
    model.feature_names_in_ = np.asarray(vocab, dtype=str)
    perplexity = model.perplexity(X)
    topics = model.top_words(list(vocab), n=args.top)
    n_docs, n_words = X.shape
    lines = [
        f"data        {corpus['name']}: {n_docs} documents x {n_words} words, "
        f"{int(X.sum())} tokens",
        f"model       LatentDirichletAllocation(n_components={k}, "
        f"doc_topic_prior={model.doc_topic_prior_:.4g}, topic_word_prior={model.topic_word_prior_:.4g})",
        f"iterations  {model.n_iter_} ({'converged' if model.converged_ else 'not converged'}, "
        f"tol={model.tol})",
        f"ELBO        {model.lower_bound_:.4f} nats per document",
        f"perplexity  {perplexity:.2f} (training documents, per token)",
        f"top {args.top} words per topic:",
    ]
    width = len(str(k - 1))
    lines += [f"  topic {i:>{width}}: " + " ".join(words) for i, words in enumerate(topics)]
    summary = {"n_features": n_words, "n_tokens": int(X.sum()), "perplexity": _finite(perplexity),
               "topics": topics, "doc_topic_prior": model.doc_topic_prior_,
               "topic_word_prior": model.topic_word_prior_}
    return FitResult(model, summary, lines, n_docs)


# ----------------------------------------------------------------------------- fit gmm

def _add_gmm_args(p):
    p.add_argument("--covariance-type", default="full",
                   choices=["full", "diag", "spherical", "tied"],
                   help="covariance structure (default full)")
    p.add_argument("--n-init", type=int, default=None, help="initialisations (best kept)")
    p.add_argument("--reg-covar", type=float, default=None,
                   help="added to covariance diagonals (default 1e-6)")
    p.add_argument("--standardize", action="store_true",
                   help="standardise each column to mean 0, sd 1 before fitting")


def _fmt_matrix(a, indent="    "):
    return [indent + "  ".join(f"{v:>11.5g}" for v in row) for row in np.atleast_2d(a)]


def _run_gmm(args, progress):
    from .mixture import GaussianMixture

    bunch = load_input(args, "matrix")
    X = np.asarray(bunch.data, dtype=np.float64)
    if X.ndim != 2:
        raise CLIError(f"the data must be a 2-D table of numbers, got shape {X.shape}.")
    if args.standardize:
        sd = X.std(axis=0)
        X = (X - X.mean(axis=0)) / np.where(sd > 0, sd, 1.0)
    k = 2 if args.n_components is None else args.n_components
    model = GaussianMixture(
        n_components=k, covariance_type=args.covariance_type, random_state=args.seed,
        callback=progress.callback,
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
        + (f" [{', '.join(map(str, names))}]" if names is not None and len(names) == d else ""),
        f"model       GaussianMixture(n_components={k}, covariance_type={args.covariance_type!r})",
        f"iterations  {model.n_iter_} ({'converged' if model.converged_ else 'not converged'}, "
        f"tol={model.tol})",
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
               "bic": _finite(bic)}
    return FitResult(model, summary, lines, n)


# ----------------------------------------------------------------------------- registry

FIT_COMMANDS = {
    "lda": FitCommand("latent Dirichlet allocation (variational Bayes) on a count matrix",
                      _add_lda_args, _run_lda, default_dataset="kos"),
    "gmm": FitCommand("Gaussian mixture by EM on a table of numbers",
                      _add_gmm_args, _run_gmm, default_dataset="old_faithful"),
}


# ----------------------------------------------------------------------------- commands

def _cmd_datasets(args, out):
    from .datasets import list_datasets

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


def _cmd_fit(args, out):
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
    if args.json:
        obj = {"model": type(model).__name__, "n_samples": int(result.n_samples),
               "n_iter": int(model.n_iter_), "converged": bool(model.converged_),
               "lower_bounds": _tolist(model.lower_bounds_),
               "lower_bound": _finite(model.lower_bound_)}
        obj.update(result.summary)
        obj["seconds"] = round(seconds, 3)
        if args.out:
            obj["out"] = args.out
        out.write(json.dumps(obj) + "\n")
        return 0
    for line in result.lines:
        out.write(line + "\n")
    out.write(f"seconds     {seconds:.2f} (loading and fitting)\n")
    if args.out:
        out.write(f"saved       {args.out}\n")
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
        order = np.argsort(-comps, axis=1, kind="stable")[:, :10]
        for i, row in enumerate(order):
            out.write(f"  topic {i}: " + " ".join(str(names[j]) for j in row) + "\n")
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
    handler = {"datasets": _cmd_datasets, "fit": _cmd_fit, "show": _cmd_show}[args.command]
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
