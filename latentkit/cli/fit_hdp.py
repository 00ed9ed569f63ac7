"""``latentkit fit hdp``: the hierarchical Dirichlet process topic model on a count matrix (a
bundled corpus, a UCI docword file or raw texts with ``--text``); the model chooses how many
of its ``-k`` topics the corpus uses."""

import numpy as np

from ._common import (CLIError, FitResult, _add_text_args, _attach_text, _finite, _given,
                      _vocabulary_summary, warn_k_above)
from ._messages import init_summary
from .fit_topic import _lda_corpus

__all__ = ["add_hdp_args", "run_hdp"]


def add_hdp_args(p):
    """Add the options of ``latentkit fit hdp`` to ``p``: those of
    :class:`~latentkit.topic.HierarchicalDirichletProcess`.

    The options every model shares (--dataset, --data, -k, --max-iter, --seed, ...) are
    added by the driver, not here.

    Parameters
    ----------
    p : argparse.ArgumentParser
        The parser of the ``fit hdp`` subcommand.

    Examples
    --------
    >>> import argparse
    >>> from latentkit.cli.fit_hdp import add_hdp_args
    >>> p = argparse.ArgumentParser()
    >>> add_hdp_args(p)
    >>> p.parse_args(["--doc-components", "4"]).doc_components
    4
    """
    _add_text_args(p)
    p.add_argument("--doc-components", type=int, default=None,
                   help="K, the most topics of one document (default 10)")
    p.add_argument("--concentration", type=float, default=None,
                   help="gamma, corpus-level concentration (default 1)")
    p.add_argument("--doc-concentration", type=float, default=None,
                   help="alpha, document-level concentration (default 1)")
    p.add_argument("--topic-word-prior", type=float, default=None,
                   help="eta (default 0.01)")
    p.add_argument("--n-init", type=int, default=None,
                   help="initialisations (best ELBO kept; default 1)")
    p.add_argument("--top", type=int, default=10, help="words shown per topic (default 10)")
    p.add_argument("--level", choices=["chapter", "paragraph", "book"], default=None,
                   help="--dataset gutenberg_novels: one document per chapter (default), "
                        "paragraph or book")


def run_hdp(args, progress):
    """Run ``latentkit fit hdp``: load the data, fit the model, format the report.

    The model: :class:`~latentkit.topic.HierarchicalDirichletProcess`.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed options of ``fit hdp`` (:func:`latentkit.cli.build_parser`).
    progress : Progress
        The progress bar; its ``callback`` is given to the model.

    Returns
    -------
    FitResult
        The fitted model, the --json summary and the report lines.

    Raises
    ------
    CLIError
        Data or options that do not fit the model (one line naming the flag).

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "docword.txt")
    >>> rows = ["6", "4", "12", "1 1 3", "1 2 2", "2 1 4", "2 2 1", "3 2 3", "3 1 1",
    ...         "4 3 3", "4 4 2", "5 3 4", "5 4 1", "6 4 3", "6 3 1"]  # D, W, NNZ; doc word count
    >>> with open(path, "w") as f:
    ...     print(*rows, sep=os.linesep, file=f)
    >>> from latentkit.cli import Progress, build_parser
    >>> from latentkit.cli.fit_hdp import run_hdp
    >>> args = build_parser().parse_args(["fit", "hdp", "--data", path, "-k", "3"])
    >>> result = run_hdp(args, Progress(None, enabled=False))
    >>> result.n_samples, type(result.model).__name__
    (6, 'HierarchicalDirichletProcess')
    >>> print(result.lines[1])
    model       HierarchicalDirichletProcess(n_components=3, n_doc_components=10, concentration=1,
    doc_concentration=1, topic_word_prior=0.01)
    """
    from ..topic import HierarchicalDirichletProcess  # lazy: numba, ~2 s start-up

    corpus = _lda_corpus(args)
    X, vocab = corpus.data, corpus.vocabulary
    if args.doc_components is not None and args.doc_components < 1:
        raise CLIError(f"--doc-components must be a positive integer, got "
                       f"{args.doc_components}.")
    warn_k_above(args.n_components, X.shape[0], "documents")
    model = HierarchicalDirichletProcess(
        random_state=args.seed, callback=progress.callback,
        **_given(n_components=args.n_components, n_doc_components=args.doc_components,
                 concentration=args.concentration, doc_concentration=args.doc_concentration,
                 topic_word_prior=args.topic_word_prior, max_iter=args.max_iter, tol=args.tol,
                 n_init=args.n_init, init=args.init))
    progress.total = model.max_iter * (model.n_init if isinstance(model.n_init, int) else 1)
    with progress:
        model.fit(X)
    model.feature_names_in_ = np.asarray(vocab, dtype=str)
    _attach_text(model, corpus)
    perplexity = model.perplexity(X)
    order = np.argsort(-model.topic_weights_, kind="stable")
    mask = model.effective_mask()
    live = [int(k) for k in order if mask[k]]
    topics = model.top_words(list(vocab), n=args.top)
    vocab_lines, pruning = _vocabulary_summary(corpus)
    init_text, init_ran, _ = init_summary(model)
    n_docs, n_words = X.shape
    T = model.n_components
    lines = [
        f"data        {corpus['name']}: {n_docs} documents x {n_words} words, "
        f"{int(X.sum())} tokens",
        *vocab_lines,
        f"model       HierarchicalDirichletProcess(n_components={T}, "
        f"n_doc_components={model.n_doc_components}, concentration="
        f"{model.concentration_:.4g}, doc_concentration={model.doc_concentration_:.4g}, "
        f"topic_word_prior={model.topic_word_prior_:.4g})",
        f"init        {init_text}",
        f"iterations  {model.n_iter_} "
        f"({'converged' if model.converged_ else 'not converged'}, tol={model.tol_:.3g})",
        f"ELBO        {model.lower_bound_:.4f} nats per document",
        f"perplexity  {perplexity:.2f} (training documents, per token)",
        f"topics      {model.n_effective_components_} of {T} carry more than 1% of the tokens",
        f"top {args.top} words of those topics (by weight):",
    ]
    width = len(str(T - 1))
    lines += [f"  topic {k:>{width}} ({model.topic_weights_[k]:.3f}): " + " ".join(topics[k])
              for k in live]
    summary = {"n_features": n_words, "n_tokens": int(X.sum()), "perplexity": _finite(perplexity),
               "topics": topics, "topic_weights": [float(w) for w in model.topic_weights_],
               "n_effective_components": int(model.n_effective_components_),
               "n_doc_components": int(model.n_doc_components),
               "concentration": model.concentration_,
               "doc_concentration": model.doc_concentration_,
               "topic_word_prior": model.topic_word_prior_,
               "init": model.init if isinstance(model.init, str) else "given",
               "init_used": init_ran}
    if pruning is not None:
        summary["vocabulary_pruning"] = pruning
    return FitResult(model, summary, lines, n_docs, plot_data={"vocabulary": list(vocab)})
