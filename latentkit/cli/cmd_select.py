"""``latentkit select <model> -k RANGE``: fit each number of components and compare held-out fit
and coherence / BIC (thin plumbing over :func:`latentkit.selection.select_n_components`)."""

import argparse
import json

import numpy as np

from .._utils.deprecation import deprecated_option
from ..selection import hdp_effective_components, parse_k_range, select_n_components
from ._common import (CLIError, Progress, _add_text_args, _load_text_corpus, _refuse_nan,
                      _StoreDataset, _vocabulary_summary, check_before_work, load_input,
                      warn_k_above)

__all__ = ["add_parser"]


def add_parser(sub):
    """Add ``select`` (one sub-command per model kind) to the ``latentkit`` subparsers.

    Examples
    --------
    >>> import argparse
    >>> from latentkit.cli import cmd_select
    >>> parser = argparse.ArgumentParser(prog="latentkit")
    >>> cmd_select.add_parser(parser.add_subparsers(dest="command"))
    >>> args = parser.parse_args(["select", "gmm", "-k", "1:4"])
    >>> args.command, args.kind, args.k
    ('select', 'gmm', '1:4')
    """
    p = sub.add_parser("select", help="choose the number of components: fit each K and "
                       "compare held-out fit, coherence / BIC")
    kinds = p.add_subparsers(dest="kind_name", metavar="MODEL")
    kinds.required = True
    helps = {"lda": "LDA: held-out perplexity, c_npmi, u_mass per K",
             "gmm": "Gaussian mixture: BIC, AIC, held-out log-likelihood per K",
             "vgmm": "variational Gaussian mixture: BIC, AIC, held-out log-likelihood per K",
             "hmm": "hidden Markov model: BIC, AIC, held-out log-likelihood per K",
             "dmm": "Dirichlet-multinomial mixture (short texts): held-out perplexity, "
                    "c_npmi, u_mass per K",
             "btm": "biterm topic model (short texts): held-out perplexity per biterm word, "
                    "c_npmi, u_mass per K"}
    for kind, text in helps.items():
        _add_select_args(kinds.add_parser(kind, help=text, description=text), kind)


def _cmd_select(args, out):
    try:
        ks = parse_k_range(args.k)
    except ValueError as exc:
        raise CLIError(f"-k {args.k!r}: {exc}") from None
    check_before_work(args, ("plot",))  # before the fits: they can take minutes
    if getattr(args, "hdp_truncation", None) is not None and args.hdp_truncation < 1:
        raise CLIError(f"--hdp-truncation must be a positive integer, got "
                       f"{args.hdp_truncation}.")
    params = {}
    if args.max_iter is not None:
        params["max_iter"] = args.max_iter
    lengths = None
    if args.kind in ("lda", "dmm", "btm"):
        X = _load_text_corpus(args) if args.text is not None else load_input(args,
                                                                                   "counts")
        name = X["name"]
    elif args.kind in ("gmm", "vgmm"):
        bunch = load_input(args, "matrix")
        X, name = bunch.data, bunch["name"]
        params["covariance_type"] = args.covariance_type or "full"
    else:
        bunch = load_input(args, "sequence")
        X = np.asarray(bunch.data)
        X = X.reshape(-1, 1) if X.ndim == 1 else X
        lengths, name = bunch.get("lengths"), bunch["name"]
        emission = args.emission
        if emission is None:
            integer = X.dtype.kind in "iu" or bool(np.all(X == np.round(X)))
            emission = ("categorical" if bunch.get("alphabet") is not None else
                        "poisson" if integer else "gaussian")
        params["emission"] = emission
        if emission == "gaussian":
            X = X.astype(np.float64)
            params["covariance_type"] = args.covariance_type or "diag"
        elif args.missing == "marginalize":
            raise CLIError(f"--missing marginalize needs Gaussian emissions, got {emission!r}.")
    if args.kind not in ("lda", "dmm", "btm"):
        _refuse_nan(np.asarray(X), args.missing,
                    "with Gaussian emissions " if args.kind == "hmm" else "")
        if args.missing == "marginalize":
            params["missing"] = "marginalize"
    n_units = len(lengths) if lengths is not None else np.shape(X["data"] if isinstance(X, dict)
                                                                  else X)[0]
    warn_k_above(max(ks), n_units, "sequences" if lengths is not None else
                 "documents" if args.kind in ("lda", "dmm", "btm") else "samples")
    sel = select_n_components(args.kind, X, ks, lengths=lengths, heldout=args.heldout,
                              random_state=args.seed, progress=not args.quiet,
                              model_params=params)
    hdp = _hdp_beside(args, X, sel, ks, params)
    vocabulary = _vocabulary_line(X) if args.kind == "lda" and args.text is not None else None
    # the table (or the JSON object) first: a failing figure must not lose the fits
    if args.json:
        obj = sel.to_dict()
        obj["data"] = name
        if hdp is not None:
            obj["hdp"] = {k: v for k, v in hdp.items() if k != "model"}
        if args.plot:
            obj["plot"] = args.plot
        out.write(json.dumps(obj) + "\n")
    else:
        out.write(f"select {args.kind} on {name}: K in {ks}, held-out fraction {args.heldout}, "
                  f"seed {args.seed}\n")
        if vocabulary:
            out.write(vocabulary + "\n")
        out.write(sel.to_text() + "\n")
        if hdp is not None:
            n, T = hdp["n_effective_components"], hdp["truncation"]
            out.write(f"HDP: {n} effective topics of T={T} (each > {hdp['threshold']:.0%} of "
                      f"the expected tokens; HierarchicalDirichletProcess on the same training "
                      f"split, {hdp['seconds']:.1f} s)\n")
            if n == T:
                out.write("     all T in use: the truncation bounds the answer "
                          "(a larger --hdp-truncation lets it say more)\n")
    out.flush()
    if args.plot:
        sel.plot(args.plot)
        if not args.json:
            out.write(f"plot        {args.plot}\n")
    return 0


def _hdp_beside(args, X, sel, ks, params):
    """``select lda --hdp``: the HDP's effective number of topics on the selection's training
    split (truncation ``--hdp-truncation``, default the largest K: the range the table
    explores; the fit's cost grows with T), with its own progress bar; None without --hdp
    (and for the other kinds)."""
    if args.kind != "lda":
        return None
    if args.no_hdp:
        deprecated_option("--no-hdp", "it does nothing; select lda fits the HDP only with "
                                      "--hdp now")
    if not (args.hdp or args.hdp_truncation is not None):  # --hdp-truncation implies --hdp
        return None
    T = args.hdp_truncation if args.hdp_truncation is not None else max(ks)
    data = X["data"] if isinstance(X, dict) else X
    extra = {"max_iter": params["max_iter"]} if "max_iter" in params else {}
    progress = Progress(total=extra.get("max_iter"), enabled=not args.quiet,
                        desc=f"select lda: HDP, T={T}")
    with progress:
        return hdp_effective_components(data[sel.train_index], T, random_state=args.seed,
                                        callback=progress.callback, **extra)


def _vocabulary_line(corpus):
    """--text: the ``vocabulary`` line of ``fit lda`` (the rule and what each setting removed)."""
    lines, _ = _vocabulary_summary(corpus)
    return lines[0] if lines else None


def _add_select_args(p, kind):
    default = {"lda": "kos", "gmm": "old_faithful", "vgmm": "old_faithful",
               "hmm": "earthquakes", "dmm": "kos", "btm": "kos"}[kind]
    src = p.add_argument_group("data (one of)")
    src.add_argument("--dataset", default=default, action=_StoreDataset,
                     help=f"bundled data set (default {default})")
    p.set_defaults(dataset_given=False, kind=kind, handler=_cmd_select)
    src.add_argument("--data", metavar="PATH",
                     help="a UCI docword file (lda) or a CSV of numbers")
    src.add_argument("--vocab", metavar="PATH", help="vocabulary file for --data docword")
    if kind in ("lda", "dmm", "btm"):
        _add_text_args(p)
    else:
        p.set_defaults(text=None)
    p.add_argument("-k", required=True, metavar="START:STOP[:STEP]|K1,K2,...",
                   help="the numbers of components to try, e.g. 5:50:5 (inclusive)")
    p.add_argument("--heldout", type=float, default=0.1,
                   help="fraction of documents / samples / sequences held out (default 0.1)")
    p.add_argument("--seed", type=int, default=0, help="seed of the split and every fit")
    p.add_argument("--max-iter", type=int, default=None, help="maximum iterations per fit")
    if kind in ("gmm", "vgmm", "hmm"):
        p.add_argument("--covariance-type", default=None,
                       choices=["full", "tied", "diag", "spherical"],
                       help="covariance structure (default: the model's: full for gmm and "
                            "vgmm, diag for hmm)")
        p.add_argument("--missing", choices=["error", "marginalize"], default="error",
                       help="nan entries: refuse them (default) or integrate them out exactly "
                            "(hmm: Gaussian emissions)")
    if kind == "hmm":
        p.add_argument("--emission", default=None, choices=["categorical", "poisson", "gaussian"],
                       help="emission distribution (default: from the data: categorical for "
                            "symbol data with an alphabet, poisson for integer counts, else "
                            "gaussian)")
    if kind == "lda":
        p.add_argument("--hdp", action="store_true",
                       help="also fit a hierarchical Dirichlet process on the training split "
                            "and print its effective number of topics beside the table (one "
                            "more fit, often as long as the table's; its own progress bar)")
        # deprecated: the HDP no longer runs by default (issue 41); accepted, does nothing
        p.add_argument("--no-hdp", action="store_true", help=argparse.SUPPRESS)
        p.add_argument("--hdp-truncation", type=int, default=None, metavar="T",
                       help="the HDP's corpus truncation (implies --hdp; default the largest K)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--plot", metavar="FILE.png", help="save the curves with the chosen K marked")
    p.add_argument("--quiet", action="store_true", help="no progress bar")


