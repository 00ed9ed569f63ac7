"""The metadata options of ``latentkit report``: ``--time-column`` / ``--slices`` (a dynamic
topic model's over-time view), ``--label-column`` (the per-label view; a Labeled LDA's labels)
and ``--covariates`` (a DMR's covariates), read from the columns of the ``--text`` table."""

import numpy as np

from ._common import CLIError
from .fit_dmr import covariate_matrix

__all__ = ["add_report_meta_args", "report_meta"]


def add_report_meta_args(p):
    """Add the metadata options to the ``report`` parser.

    Parameters
    ----------
    p : argparse.ArgumentParser

    Examples
    --------
    >>> import argparse
    >>> from latentkit.cli._report_meta import add_report_meta_args
    >>> p = argparse.ArgumentParser()
    >>> add_report_meta_args(p)
    >>> p.parse_args(["--time-column", "created"]).slices
    'year'
    """
    g = p.add_argument_group("metadata views (columns of a .csv / .tsv / .jsonl --text file)")
    g.add_argument("--time-column", metavar="NAME", default=None,
                   help="a dynamic topic model (fit dtm): the column of each document's time; "
                        "adds the over-time view (documents without a time are left out)")
    g.add_argument("--slices", default="year", metavar="year|month|none|N",
                   help="with --time-column: the slices the model was fitted with (default year)")
    g.add_argument("--label-column", metavar="NAME", default=None,
                   help="adds the per-label view (topic shares of each label's documents); a "
                        "Labeled LDA (fit llda) needs its label column here")
    g.add_argument("--label-separator", default=",", metavar="SEP",
                   help="separator of several labels in one cell (default ',')")
    g.add_argument("--covariates", metavar="COL,COL", default=None,
                   help="a DMR (fit dmr): its covariate columns; without --label-column the "
                        "per-label view groups the documents by their covariate values")


def _column(meta, name, flag, path):
    if not meta or name not in meta:
        none = "(none: give a .csv, .tsv or .jsonl file)"
        raise CLIError(f"{flag} {name!r} is not a column of {path}; its columns are: "
                       f"{', '.join(sorted(meta or {})) or none}.")
    return meta[name]


def _subset(corpus, keep):
    """The corpus parts the report reads (data, titles, texts, metadata) of the kept rows."""
    idx = np.flatnonzero(keep)
    out = type(corpus)(**corpus)
    out["data"] = corpus["data"][idx]
    for key in ("titles", "texts", "tokens"):
        if corpus.get(key) is not None:
            out[key] = [corpus[key][i] for i in idx]
    meta = corpus.get("metadata")
    if meta:
        out["metadata"] = {k: [v[i] for i in idx] for k, v in meta.items()}
    return out


def report_meta(args, model, corpus):
    """(corpus, keyword arguments of :func:`latentkit.topic.topic_report`) from the options.

    Parameters
    ----------
    args : argparse.Namespace
    model : fitted topic model
    corpus : Corpus or None

    Returns
    -------
    corpus : Corpus, dict or None
        Without the documents that have no time (``--time-column``).
    kwargs : dict
        ``times``, ``labels``, ``covariates`` as given.

    Raises
    ------
    CLIError
        An option without a --text table, a column the file does not have, or a model that
        needs an option that is missing.
    """
    from ..topic import slice_times  # lazy: numba, ~2 s start-up

    kw = {}
    given = [f for f, v in (("--time-column", args.time_column), ("--label-column",
             args.label_column), ("--covariates", args.covariates)) if v is not None]
    if corpus is None:
        if given:
            raise CLIError(f"{given[0]} needs --text with a .csv, .tsv or .jsonl file.")
        return None, kw
    meta = corpus.get("metadata")
    sliced = getattr(model, "time_slices_", None) is not None
    if sliced and args.time_column is None:
        raise CLIError(f"{args.path} holds a {type(model).__name__}: give --time-column (and "
                       "--slices as in fit dtm) for the documents' time slices.")
    if getattr(model, "classes_", None) is not None and args.label_column is None:
        raise CLIError(f"{args.path} holds a {type(model).__name__}: give --label-column (the "
                       "labels it was fitted with).")
    if getattr(model, "covariate_rows_", None) is not None and args.covariates is None:
        raise CLIError(f"{args.path} holds a {type(model).__name__}: give --covariates (the "
                       "columns it was fitted with).")
    if args.time_column is not None:
        values = _column(meta, args.time_column, "--time-column", args.text)
        try:
            by = int(args.slices)
        except ValueError:
            by = args.slices
        times, keep = slice_times(values, by)
        if not keep.all():
            corpus = _subset(corpus, keep)
            meta = corpus.get("metadata")
        kw["times"] = times
    if args.label_column is not None:
        sep = args.label_separator
        kw["labels"] = [[s.strip() for s in str(v).split(sep) if s.strip()]
                        if v not in (None, "") else []
                        for v in _column(meta, args.label_column, "--label-column", args.text)]
    if args.covariates is not None:
        columns = [c.strip() for c in args.covariates.split(",") if c.strip()]
        for c in columns:
            _column(meta, c, "--covariates", args.text)
        C, names = covariate_matrix(meta, columns)
        kw["covariates"] = C
        if "labels" not in kw:
            kw["labels"] = [", ".join(n if v == 1 and "=" in n else f"{n}={v:g}"
                                      for n, v in zip(names, row) if v != 0 or "=" not in n)
                            or "(none)" for row in C]
    return corpus, kw
