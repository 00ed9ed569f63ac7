"""The ``latentkit`` command line (also ``python -m latentkit``).

Layout: this module holds the parser, ``main``, the ``fit`` driver and the ``FIT_COMMANDS``
registry; ``_common`` what every command shares (``CLIError``, ``FitResult``, ``FitCommand``,
``Progress``, ``load_input``, the common options, the ``--plot`` figure); ``fit_mixture``
(gmm, vgmm, dpmm), ``fit_topic`` (lda, plsa), ``fit_hdp`` (hdp), ``fit_private`` (lda --private), ``fit_hmm`` and
``fit_vae`` one model family each; ``cmd_datasets``, ``cmd_show``, ``cmd_topics`` (coherence,
report) and ``cmd_select`` the other commands; ``_defaults`` the ``--init`` choices and the
library's defaults the help states, ``_messages`` warnings as ``warning:`` lines, the init
summary and library errors in flag names, ``_progress`` the progress bar (the start phase,
kernel compilation). Runners hold no library logic: they load the data,
build the estimator, fit it and format what it computed.

Start-up: ``latentkit datasets`` or ``--help`` must not pay for the numba model code, so the
runners import their estimators inside the function (each such import says so); everything else
is imported at the top.

How to add a model to ``latentkit fit`` (three small pieces, nothing else to touch):

1. ``def add_<name>_args(parser)`` in the family's ``fit_<family>.py``: add the model's own
   options. The common ones (--dataset, --data, --vocab, -k/--n-components, --init, --max-iter,
   --tol, --seed, --out, --plot, --json, --quiet) are added for every model by
   ``_common._add_common_args``.
2. ``def run_<name>(args, progress) -> FitResult``: load the data with
   ``load_input(args, kind)`` (kind 'counts' -> Corpus, 'matrix' -> Bunch with a dense array,
   'sequence' -> Bunch with ``data`` and ``lengths``), build the model with
   ``callback=progress.callback``, fit it inside ``with progress:``, and return
   ``FitResult(model, summary, lines)``: ``summary`` is the model-specific part of the --json
   object (the driver adds model, n_samples, n_iter, converged, lower_bounds, lower_bound,
   seconds), ``lines`` the human-readable report printed after the common header, and
   ``plot_data`` what ``--plot`` draws besides the model (``X``, or ``vocabulary`` for topics).
3. One entry in ``FIT_COMMANDS`` below: ``"name": FitCommand(help, add_name_args, run_name,
   default_dataset)``.

The driver (``_cmd_fit``) times the fit, shows a tqdm progress bar on stderr (unless --quiet),
saves the model with ``latentkit.io.save`` (--out), saves a figure with ``latentkit.plotting``
(--plot: the ELBO trace and the model's picture) and prints text or one JSON object (--json).
Every option that maps to a model parameter defaults to the library's default (passed only when
given). Output paths and optional extras are checked before any work (``check_before_work``).
Warnings are printed as one line each, ``warning: ...``, after the progress bar. Errors in the
input (bad file, unknown data set, invalid hyper-parameter) exit with status 2 and one line
``latentkit: error: ...`` on stderr, naming the flag (``-k``) rather than the parameter. Such
errors are exactly :class:`~latentkit.exceptions.CLIError` (a bad option), ``OSError`` (a path
that cannot be read or written) and :class:`~latentkit.exceptions.InputError` (what every named
input check of the library raises); anything else is a bug and shows its traceback.
"""

import argparse
import json
import os
import sys
import time

from .. import __version__
from ..exceptions import InputError, NotFittedError
from ..io import save
from . import cmd_datasets, cmd_sample, cmd_select, cmd_show, cmd_topics
from ._common import (CLIError, FitCommand, FitResult, Progress, _add_common_args, _finite,
                      _save_plot, _tolist, check_before_work, load_input)
from ._messages import WarningLines, flush_warnings, in_cli_terms, option_names
from .fit_hdp import add_hdp_args, run_hdp
from .fit_hmm import add_hmm_args, run_hmm
from .fit_mixture import add_dpmm_args, add_gmm_args, add_vgmm_args, run_dpmm, run_gmm, run_vgmm
from .fit_topic import add_lda_args, add_plsa_args, run_lda, run_plsa
from .fit_vae import add_vae_args, run_vae
from .fit_semi_markov import add_arhmm_args, add_hsmm_args, run_arhmm, run_hsmm
from .fit_iohmm import add_iohmm_args, run_iohmm
from .fit_short import add_btm_args, add_dmm_args, run_btm, run_dmm
from .fit_dtm import add_dtm_args, run_dtm
from .fit_llda import add_llda_args, run_llda
from .fit_dmr import add_dmr_args, run_dmr

__all__ = ["main", "build_parser", "CLIError", "FitCommand", "FitResult", "Progress", "load_input",
           "FIT_COMMANDS"]


FIT_COMMANDS = {
    "lda": FitCommand("latent Dirichlet allocation (variational Bayes) on a count matrix",
                      add_lda_args, run_lda, default_dataset="kos"),
    "hdp": FitCommand("hierarchical Dirichlet process topic model (variational Bayes) on a "
                      "count matrix: the corpus chooses its number of topics",
                      add_hdp_args, run_hdp, default_dataset="kos"),
    "gmm": FitCommand("Gaussian mixture by EM on a table of numbers",
                      add_gmm_args, run_gmm, default_dataset="old_faithful"),
    "plsa": FitCommand("probabilistic latent semantic analysis (EM) on a count matrix",
                       add_plsa_args, run_plsa, default_dataset="kos"),
    "vgmm": FitCommand("variational Bayesian Gaussian mixture on a table of numbers",
                       add_vgmm_args, run_vgmm, default_dataset="old_faithful"),
    "dpmm": FitCommand("truncated Dirichlet-process Gaussian mixture (variational) on a table "
                       "of numbers", add_dpmm_args, run_dpmm, default_dataset="old_faithful"),
    "vae": FitCommand("variational autoencoder (AEVB) on a table of numbers",
                      add_vae_args, run_vae, default_dataset="optdigits"),
    "hmm": FitCommand("hidden Markov model by Baum-Welch on sequences (categorical, Poisson or "
                      "Gaussian emissions)", add_hmm_args, run_hmm,
                      default_dataset="earthquakes"),
    "hsmm": FitCommand("hidden semi-Markov model (explicit durations) by EM on sequences "
                       "(categorical, Poisson or Gaussian emissions)", add_hsmm_args, run_hsmm,
                       default_dataset="geyser"),
    "arhmm": FitCommand("autoregressive Gaussian HMM by Baum-Welch on real-valued sequences",
                        add_arhmm_args, run_arhmm, default_dataset="earthquakes"),
    "iohmm": FitCommand("input-output HMM (transitions driven by input columns; Gaussian "
                        "emissions) by generalised EM on a table of numbers",
                        add_iohmm_args, run_iohmm, default_dataset="geyser"),
    "dmm": FitCommand("Dirichlet-multinomial mixture (one topic per document; variational "
                      "Bayes) for short texts on a count matrix", add_dmm_args, run_dmm,
                      default_dataset="kos"),
    "btm": FitCommand("biterm topic model (word pairs share a topic; variational Bayes) for "
                      "short texts on a count matrix", add_btm_args, run_btm,
                      default_dataset="kos"),
    "dtm": FitCommand("dynamic topic model (topics drifting over time slices; variational "
                      "Kalman filter) on raw texts with a time column",
                      add_dtm_args, run_dtm, default_dataset="kos"),
    "llda": FitCommand("Labeled LDA (one topic per label, optional free topics) on raw texts "
                       "with a label column", add_llda_args, run_llda, default_dataset="kos"),
    "dmr": FitCommand("topic model with Dirichlet-multinomial regression priors on raw texts "
                      "with covariate columns", add_dmr_args, run_dmr, default_dataset="kos"),
}


def _check_fit_args(args):
    """Argument errors found before any work: one line each (exit status 2)."""
    if args.data is not None and getattr(args, "dataset_given", False):
        raise CLIError("--data and --dataset are alternatives; give one of them.")
    for flag, name in (("-k", "n_components"), ("--max-iter", "max_iter"),
                       ("--n-init", "n_init")):
        value = getattr(args, name, None)
        if value is not None and value < 1:
            raise CLIError(f"{flag} must be a positive integer, got {value}.")
    batch_size = getattr(args, "batch_size", None)  # used to size the progress bar first
    if batch_size is not None and batch_size < 1:
        raise CLIError(f"--batch-size must be a positive integer, got {batch_size}.")
    check_before_work(args)


def _save_interrupted(model, path):
    """After Ctrl-C during ``fit ... --out PATH``: save what the model kept -- the parameters
    of its last completed iteration, marked ``converged_ = False`` (``LatentModel.fit`` keeps
    them on an interrupt) -- and say so on stderr, or say that nothing was saved (no iteration
    completed, or a model that keeps nothing consistent). A second Ctrl-C during the save
    leaves no partial file (the save is atomic)."""
    kept = (model is not None and getattr(model, "converged_", None) is False
            and getattr(model, "n_iter_", 0) >= 1)
    if kept:
        try:
            save(model, path)
        except (TypeError, ValueError, NotFittedError, OSError) as exc:
            sys.stderr.write(f"latentkit: nothing was saved to {path} ({exc})\n")
            return
        sys.stderr.write(f"latentkit: saved the model of iteration {model.n_iter_} (not "
                         f"converged, converged_ = False) to {path}\n")
    else:
        sys.stderr.write(f"latentkit: interrupted before a model iteration completed; nothing "
                         f"was saved to {path}\n")


def _cmd_fit(args, out):
    _check_fit_args(args)
    command = FIT_COMMANDS[args.model]
    progress = Progress(total=None, enabled=not args.quiet, desc=f"fit {args.model}")
    start = time.perf_counter()
    try:
        result = command.run(args, progress)
    except KeyboardInterrupt:
        if args.out:
            _save_interrupted(progress.model, args.out)
        raise
    seconds = time.perf_counter() - start
    flush_warnings()  # one line each, after the progress bar and before the results
    model = result.model
    if args.out:
        save(model, args.out)
    if args.plot:
        _save_plot(args.plot, model, result.plot_data)
    if args.json:
        # a method-of-moments estimate (lda --private) has no iterations and no ELBO trace
        n_iter, converged = getattr(model, "n_iter_", None), getattr(model, "converged_", None)
        obj = {"model": type(model).__name__, "n_samples": int(result.n_samples),
               "n_iter": None if n_iter is None else int(n_iter),
               "converged": None if converged is None else bool(converged),
               "lower_bounds": _tolist(getattr(model, "lower_bounds_", [])),
               "lower_bound": _finite(getattr(model, "lower_bound_", float("nan")))}
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



def build_parser():
    """The argparse parser of the ``latentkit`` command (with every registered fit model).

    Examples
    --------
    >>> from latentkit.cli import build_parser
    >>> args = build_parser().parse_args(["fit", "gmm", "-k", "3"])
    >>> args.command, args.model, args.n_components, args.dataset
    ('fit', 'gmm', 3, 'old_faithful')
    """
    parser = argparse.ArgumentParser(
        prog="latentkit",
        description="Fit latent-variable models by raising their ELBO, on bundled or your data.")
    parser.add_argument("--version", action="version", version=f"latentkit {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    cmd_datasets.add_parser(sub)
    p = sub.add_parser("fit", help="fit a model and print its summary")
    models = p.add_subparsers(dest="model", metavar="MODEL")
    models.required = True
    for name, cmd in FIT_COMMANDS.items():
        mp = models.add_parser(name, help=cmd.help, description=cmd.description or cmd.help)
        _add_common_args(mp, cmd.default_dataset, name)
        cmd.add_arguments(mp)
    p.set_defaults(handler=_cmd_fit)

    cmd_show.add_parser(sub)
    cmd_topics.add_parsers(sub)  # coherence, report
    cmd_select.add_parser(sub)
    cmd_sample.add_parser(sub)
    _tag_leaves(parser)
    _state_defaults(parser)
    return parser


_FLAGS = (argparse._HelpAction, argparse._VersionAction, argparse._StoreTrueAction,
          argparse._StoreFalseAction, argparse._CountAction, argparse._StoreConstAction)


def _state_defaults(parser, seen=None):
    """Every option's help states its default: a help text that does not say "default"
    gets ``(default: VALUE)``, ``(default: none)`` for an option that is off unless given.
    On/off flags are off unless given and are left as they are."""
    seen = set() if seen is None else seen
    if id(parser) in seen:
        return
    seen.add(id(parser))
    for action in parser._actions:  # argparse keeps no public list of its actions
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                _state_defaults(child, seen)
            continue
        if not action.option_strings or isinstance(action, _FLAGS) or not action.help \
                or action.help == argparse.SUPPRESS or "default" in action.help.lower():
            continue
        value = action.default
        if value is None or value is argparse.SUPPRESS:
            text = "none"
        elif isinstance(value, (list, tuple)):
            text = " ".join(map(str, value))
        else:
            text = str(value)
        action.help = f"{action.help} (default: {text.replace('%', '%%')})"


def _tag_leaves(parser):
    """Give every command's own parser as ``args.parser_`` (its flags name the errors)."""
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        parser.set_defaults(parser_=parser)
    for action in subs:
        for child in action.choices.values():
            _tag_leaves(child)


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

    Examples
    --------
    >>> from latentkit.cli import main
    >>> main(["datasets"])  # doctest: +ELLIPSIS
    NAME                  KIND                                 SHAPE ...
    kos                   counts: text                         3430 x 6906 ...
    ...
    iris                  matrix: real, labelled               150 x 4 ...
    ...
    0
    """
    out = sys.stdout if out is None else out
    args = build_parser().parse_args(argv)
    try:
        with WarningLines(enabled=not getattr(args, "quiet", False),
                          names=option_names(getattr(args, "parser_", None))):
            return args.handler(args, out)
    except BrokenPipeError:  # e.g. `latentkit datasets | head`: the reader left; not an error
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError, AttributeError):
            pass
        return 0
    except KeyboardInterrupt:
        sys.stderr.write("latentkit: interrupted\n")
        return 130
    except (CLIError, OSError, InputError) as exc:  # a user error; a bug shows its traceback
        message = str(exc)
        if not isinstance(exc, CLIError):  # the library's words: name the flag, not the parameter
            message = in_cli_terms(message, option_names(getattr(args, "parser_", None)))
        sys.stderr.write(f"latentkit: error: {message}\n")
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
