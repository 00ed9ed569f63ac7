"""``latentkit fit dtm``: the dynamic topic model on raw texts with a time column
(``--text FILE --time-column created --slices year``); the report shows each topic's share by
slice and its top words at the first and the last slice."""

import numpy as np

from ._common import (CLIError, FitResult, _add_text_args, _attach_text, _finite, _given,
                      _vocabulary_summary, load_input, warn_k_above)
from ._messages import init_summary

__all__ = ["add_dtm_args", "run_dtm"]


def add_dtm_args(p):
    """The options of ``latentkit fit dtm`` (besides the common ones).

    Parameters
    ----------
    p : argparse.ArgumentParser

    Examples
    --------
    >>> import argparse
    >>> from latentkit.cli.fit_dtm import add_dtm_args
    >>> p = argparse.ArgumentParser()
    >>> add_dtm_args(p)
    >>> p.parse_args(["--time-column", "created"]).slices
    'year'
    """
    _add_text_args(p)
    p.add_argument("--time-column", metavar="NAME", default=None,
                   help="column / key of the --text .csv / .tsv / .jsonl file holding each "
                        "document's time (an ISO date such as 2001-07-07, a year, or any "
                        "sortable value); documents without one are left out")
    p.add_argument("--slices", default="year", metavar="year|month|none|N",
                   help="time slices: the year (default) or month of each date, the values "
                        "themselves (none), or N slices of equal numbers of documents")
    p.add_argument("--chain-variance", type=float, default=None,
                   help="variance of a topic's log word weights from one slice to the next "
                        "(default 0.005, the library's; smaller: smoother topics)")
    p.add_argument("--doc-topic-prior", type=float, default=None,
                   help="alpha of the documents' topic proportions (default 1/K)")
    p.add_argument("--top", type=int, default=8, help="words shown per topic (default 8)")


def _slices_arg(value):
    try:
        return int(value)
    except ValueError:
        return value


def _share_line(labels, shares):
    """``first -> last (peak at label)`` of one topic's shares by slice."""
    peak = int(np.nanargmax(shares))
    return (f"{shares[0]:.2f} ({labels[0]}) -> {shares[-1]:.2f} ({labels[-1]}), peak "
            f"{shares[peak]:.2f} ({labels[peak]})")


def run_dtm(args, progress):
    """Fit the dynamic topic model of ``latentkit fit dtm`` and format its report.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line.
    progress : Progress
        The progress bar (its callback goes to the model).

    Returns
    -------
    FitResult

    Raises
    ------
    CLIError
        No ``--text`` / ``--time-column``, or a column the file does not have.

    Examples
    --------
    >>> import json, os, tempfile
    >>> from latentkit import cli
    >>> from latentkit.cli._progress import Progress
    >>> from latentkit.cli.fit_dtm import run_dtm
    >>> path = os.path.join(tempfile.mkdtemp(), "docs.jsonl")
    >>> with open(path, "w") as f:
    ...     for i in range(12):
    ...         text = "cats dogs birds" if i % 2 else "fish swim deep"
    ...         _ = f.write(json.dumps({"text": text, "created": f"{2000 + i % 3}-01-01"}) + "\\n")
    >>> args = cli.build_parser().parse_args(["fit", "dtm", "--text", path, "--time-column",
    ...                                       "created", "-k", "2", "--max-iter", "3",
    ...                                       "--stop-words", "none"])
    >>> run_dtm(args, Progress(None, enabled=False)).summary["time_slices"]
    ['2000', '2001', '2002']
    """
    from ..topic import DynamicTopicModel, slice_times  # lazy: numba, ~2 s start-up

    if getattr(args, "text", None) is None or args.time_column is None:
        raise CLIError("fit dtm needs --text FILE (a .csv, .tsv or .jsonl file) and --time-column "
                       "NAME (the column holding each document's time).")
    corpus = load_input(args, "counts")
    meta = corpus.get("metadata") or {}
    if args.time_column not in meta:
        raise CLIError(f"--time-column {args.time_column!r} is not a column of {args.text}; "
                       f"its columns are: {', '.join(sorted(meta)) or '(none)'}.")
    times, keep = slice_times(meta[args.time_column], _slices_arg(args.slices))
    X, vocab = corpus.data[keep], corpus.vocabulary
    warn_k_above(args.n_components, X.shape[0], "documents")
    model = DynamicTopicModel(
        random_state=args.seed, callback=progress.callback,
        **_given(n_components=args.n_components, chain_variance=args.chain_variance,
                 doc_topic_prior=args.doc_topic_prior, max_iter=args.max_iter, tol=args.tol,
                 init=args.init))
    progress.total = model.max_iter
    with progress:
        model.fit(X, times=times)
    model.feature_names_in_ = np.asarray(vocab, dtype=str)
    _attach_text(model, corpus)
    labels = [v.item() if hasattr(v, "item") else v for v in model.time_slices_]
    prevalence = model.topic_prevalence(X, times)
    per_slice = model.perplexity(X, times, per_slice=True)
    first = model.top_words(list(vocab), n=args.top, time_slice=0)
    last = model.top_words(list(vocab), n=args.top, time_slice=-1)
    vocab_lines, pruning = _vocabulary_summary(corpus)
    init_text, init_ran, _ = init_summary(model)
    n_docs, n_words = X.shape
    K = int(model.n_components)
    dropped = int((~keep).sum())
    lines = [
        f"data        {corpus['name']}: {n_docs} documents x {n_words} words, "
        f"{int(X.sum())} tokens" + (f" ({dropped} without a time left out)" if dropped else ""),
        *vocab_lines,
        f"slices      {len(labels)} by {args.slices} of {args.time_column!r}: {labels[0]} .. "
        f"{labels[-1]}",
        f"model       DynamicTopicModel(n_components={K}, chain_variance="
        f"{model.chain_variance:.4g}, doc_topic_prior={model.doc_topic_prior_:.4g})",
        f"init        {init_text}",
        f"iterations  {model.n_iter_} "
        f"({'converged' if model.converged_ else 'not converged'}, tol={model.tol_:.3g})",
        f"ELBO        {model.lower_bound_:.4f} nats per document",
        f"perplexity  {model.perplexity(X, times):.2f} (training documents, per token; by slice "
        f"{np.nanmin(per_slice):.0f} .. {np.nanmax(per_slice):.0f})",
        f"topics over time: share of the documents, first -> last slice; top {args.top} words "
        f"at {labels[0]} | at {labels[-1]}:",
    ]
    width = len(str(K - 1))
    for k in range(K):
        lines.append(f"  topic {k:>{width}}  {_share_line(labels, prevalence[:, k])}")
        lines.append(f"  {'':>{width + 6}}  {' '.join(first[k])} | {' '.join(last[k])}")
    summary = {"n_features": n_words, "n_tokens": int(X.sum()),
               "n_documents_without_time": dropped,
               "time_slices": [str(v) for v in labels],
               "topic_prevalence": [[_finite(v) for v in row] for row in prevalence],
               "perplexity_by_slice": [_finite(v) for v in per_slice],
               "topics_by_slice": [model.top_words(list(vocab), n=args.top, time_slice=t)
                                   for t in range(len(labels))],
               "init": model.init if isinstance(model.init, str) else "given",
               "init_used": init_ran}
    if pruning is not None:
        summary["vocabulary_pruning"] = pruning
    return FitResult(model, summary, lines, n_docs,
                     plot_data={"vocabulary": list(vocab), "prevalence": prevalence})
