"""``latentkit fit llda``: Labeled LDA on raw texts with a label column (``--text FILE
--label-column topic``), one topic per label plus ``--free-topics`` open to every document; the
report shows each label's topic with its number of documents."""

import numpy as np

from ._common import (CLIError, FitResult, _add_text_args, _attach_text, _given,
                      _vocabulary_summary, load_input)
from ._messages import init_summary

__all__ = ["add_llda_args", "run_llda"]


def add_llda_args(p):
    """The options of ``latentkit fit llda`` (besides the common ones).

    Parameters
    ----------
    p : argparse.ArgumentParser

    Examples
    --------
    >>> import argparse
    >>> from latentkit.cli.fit_llda import add_llda_args
    >>> p = argparse.ArgumentParser()
    >>> add_llda_args(p)
    >>> p.parse_args(["--label-column", "topic"]).label_separator
    ','
    """
    _add_text_args(p)
    p.add_argument("--label-column", metavar="NAME", default=None,
                   help="column / key of the --text .csv / .tsv / .jsonl file holding each "
                        "document's labels (empty: the document may use every topic)")
    p.add_argument("--label-separator", default=",", metavar="SEP",
                   help="separator of several labels in one cell (default ',')")
    p.add_argument("--free-topics", type=int, default=None,
                   help="topics open to every document besides the label topics (Partially "
                        "Labeled LDA; default 0, the library's)")
    p.add_argument("--doc-topic-prior", type=float, default=None,
                   help="alpha over a document's allowed topics (default 1/K)")
    p.add_argument("--top", type=int, default=10, help="words shown per topic (default 10)")


def run_llda(args, progress):
    """Fit the Labeled LDA of ``latentkit fit llda`` and format its report.

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
        No ``--text`` / ``--label-column``, ``-k`` given, or a column the file does not have.

    Examples
    --------
    >>> import json, os, tempfile
    >>> from latentkit import cli
    >>> from latentkit.cli._progress import Progress
    >>> from latentkit.cli.fit_llda import run_llda
    >>> path = os.path.join(tempfile.mkdtemp(), "docs.jsonl")
    >>> with open(path, "w") as f:
    ...     for i in range(12):
    ...         text, label = ("cats dogs birds", "pets") if i % 2 else ("fish swim", "sea")
    ...         _ = f.write(json.dumps({"text": text, "kind": label}) + "\\n")
    >>> args = cli.build_parser().parse_args(["fit", "llda", "--text", path, "--label-column",
    ...                                       "kind", "--max-iter", "3", "--stop-words", "none"])
    >>> run_llda(args, Progress(None, enabled=False)).summary["labels"]
    ['pets', 'sea']
    """
    from ..topic import LabeledLDA  # lazy: numba, ~2 s start-up

    if getattr(args, "text", None) is None or args.label_column is None:
        raise CLIError("fit llda needs --text FILE (a .csv, .tsv or .jsonl file) and "
                       "--label-column NAME (the column holding each document's labels).")
    if args.n_components is not None:
        raise CLIError("fit llda has one topic per label: use --free-topics for more topics, "
                       "not -k.")
    corpus = load_input(args, "counts")
    meta = corpus.get("metadata") or {}
    if args.label_column not in meta:
        raise CLIError(f"--label-column {args.label_column!r} is not a column of {args.text}; "
                       f"its columns are: {', '.join(sorted(meta)) or '(none)'}.")
    sep = args.label_separator
    labels = [[s.strip() for s in str(v).split(sep) if s.strip()] if v not in (None, "") else []
              for v in meta[args.label_column]]
    X, vocab = corpus.data, corpus.vocabulary
    model = LabeledLDA(random_state=args.seed, callback=progress.callback,
                       **_given(n_free_components=args.free_topics,
                                doc_topic_prior=args.doc_topic_prior, max_iter=args.max_iter,
                                tol=args.tol, init=args.init))
    progress.total = model.max_iter
    with progress:
        model.fit(X, labels=labels)
    model.feature_names_in_ = np.asarray(vocab, dtype=str)
    _attach_text(model, corpus)
    topics = model.top_words(list(vocab), n=args.top)
    names = [str(c) for c in model.classes_] + [
        f"(free {j})" for j in range(int(model.n_free_components))]
    n_docs = [sum(name in lab for lab in labels) for name in names[:len(model.classes_)]]
    n_docs += [X.shape[0]] * int(model.n_free_components)
    vocab_lines, pruning = _vocabulary_summary(corpus)
    init_text, init_ran, _ = init_summary(model)
    unlabelled = sum(not lab for lab in labels)
    lines = [
        f"data        {corpus['name']}: {X.shape[0]} documents x {X.shape[1]} words, "
        f"{int(X.sum())} tokens; {unlabelled} without a label (every topic allowed)",
        *vocab_lines,
        f"model       LabeledLDA({len(model.classes_)} labels of {args.label_column!r}, "
        f"n_free_components={model.n_free_components}, doc_topic_prior="
        f"{model.doc_topic_prior_:.4g})",
        f"init        {init_text}",
        f"iterations  {model.n_iter_} "
        f"({'converged' if model.converged_ else 'not converged'}, tol={model.tol_:.3g})",
        f"ELBO        {model.lower_bound_:.4f} nats per document",
        f"top {args.top} words of each label's topic (documents with the label):",
    ]
    width = max(len(n) for n in names)
    lines += [f"  {name:<{width}} ({n:>4}): {' '.join(words)}"
              for name, n, words in zip(names, n_docs, topics)]
    summary = {"n_features": X.shape[1], "n_tokens": int(X.sum()), "labels": names,
               "documents_per_label": n_docs, "n_unlabelled": unlabelled, "topics": topics,
               "init": model.init if isinstance(model.init, str) else "given",
               "init_used": init_ran}
    if pruning is not None:
        summary["vocabulary_pruning"] = pruning
    return FitResult(model, summary, lines, X.shape[0], plot_data={"vocabulary": list(vocab)})
