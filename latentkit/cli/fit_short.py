"""``latentkit fit dmm`` and ``latentkit fit btm``: the short-text topic models (one topic per
document; topics shared by word pairs) on a count matrix (a bundled corpus, a UCI docword file
or raw texts with ``--text``). The model file works with ``coherence`` and ``report``."""

import numpy as np

from ._common import (CLIError, FitResult, _add_text_args, _attach_text, _finite, _given,
                      _vocabulary_summary, warn_k_above)
from ._messages import init_summary
from .fit_topic import _lda_corpus

__all__ = ["add_dmm_args", "run_dmm", "add_btm_args", "run_btm"]


def _add_shared(p, prior_help, eta_default):
    _add_text_args(p)
    p.add_argument("--weight-concentration-prior", type=float, default=None,
                   help=prior_help)
    p.add_argument("--topic-word-prior", type=float, default=None,
                   help=f"eta, the topics' Dirichlet prior (default {eta_default})")
    p.add_argument("--n-init", type=int, default=None, help="initialisations (best ELBO kept)")
    p.add_argument("--top", type=int, default=10, help="words shown per topic (default 10)")
    p.add_argument("--level", choices=["chapter", "paragraph", "book"], default=None,
                   help="--dataset gutenberg_novels: one document per chapter (default), "
                        "paragraph or book")


def add_dmm_args(p):
    """Add the options of ``latentkit fit dmm`` to ``p``: those of
    :class:`~latentkit.topic.DirichletMultinomialMixture`.

    The options every model shares (--dataset, --data, -k, --max-iter, --seed, ...) are
    added by the driver, not here.

    Parameters
    ----------
    p : argparse.ArgumentParser
        The parser of the ``fit dmm`` subcommand.

    Examples
    --------
    >>> import argparse
    >>> from latentkit.cli.fit_short import add_dmm_args
    >>> p = argparse.ArgumentParser()
    >>> add_dmm_args(p)
    >>> p.parse_args(["--topic-word-prior", "0.5"]).topic_word_prior
    0.5
    """
    _add_shared(p, "alpha of the topic weights (default 1/K; 1 with --dirichlet-process)",
                "0.1")
    p.add_argument("--dirichlet-process", action="store_true",
                   help="truncated stick-breaking weights (weight_concentration_prior_type="
                        "'dirichlet_process'): unneeded topics may stay empty")


def add_btm_args(p):
    """Add the options of ``latentkit fit btm`` to ``p``: those of
    :class:`~latentkit.topic.BitermTopicModel`.

    The options every model shares (--dataset, --data, -k, --max-iter, --seed, ...) are
    added by the driver, not here.

    Parameters
    ----------
    p : argparse.ArgumentParser
        The parser of the ``fit btm`` subcommand.

    Examples
    --------
    >>> import argparse
    >>> from latentkit.cli.fit_short import add_btm_args
    >>> p = argparse.ArgumentParser()
    >>> add_btm_args(p)
    >>> p.parse_args(["--topic-word-prior", "0.5"]).topic_word_prior
    0.5
    """
    _add_shared(p, "alpha of the corpus topic mixture (default 50/K, Yan et al.)", "0.01")


def _fit(args, progress, model):
    corpus = _lda_corpus(args)
    X, vocab = corpus.data, corpus.vocabulary
    warn_k_above(model.n_components, X.shape[0], "documents")
    progress.total = model.max_iter * (model.n_init if isinstance(model.n_init, int) else 1)
    with progress:
        model.fit(X)
    model.feature_names_in_ = np.asarray(vocab, dtype=str)
    _attach_text(model, corpus)
    return corpus, X, vocab


def _result(args, model, corpus, X, vocab, params_text, perplexity_text, perplexity):
    topics = model.top_words(list(vocab), n=args.top)
    vocab_lines, pruning = _vocabulary_summary(corpus)
    init_text, init_ran, _ = init_summary(model)
    n_docs, n_words = X.shape
    K = model.n_components
    order = np.argsort(-model.topic_weights_, kind="stable")
    lines = [
        f"data        {corpus['name']}: {n_docs} documents x {n_words} words, "
        f"{int(X.sum())} tokens",
        *vocab_lines,
        f"model       {type(model).__name__}(n_components={K}, {params_text})",
        f"init        {init_text}",
        f"iterations  {model.n_iter_} "
        f"({'converged' if model.converged_ else 'not converged'}, tol={model.tol_:.3g})",
        f"ELBO        {model.lower_bound_:.4f} nats per document",
        f"perplexity  {perplexity:.2f} ({perplexity_text})",
        f"top {args.top} words per topic (by weight, largest topic first):",
    ]
    width = len(str(K - 1))
    lines += [f"  topic {k:>{width}} ({model.topic_weights_[k]:.3f}): " + " ".join(topics[k])
              for k in order if model.topic_weights_[k] > 0.005 or K <= 20]
    summary = {"n_features": n_words, "n_tokens": int(X.sum()), "perplexity": _finite(perplexity),
               "topics": topics, "topic_weights": [float(w) for w in model.topic_weights_],
               "weight_concentration_prior": model.weight_concentration_prior_,
               "topic_word_prior": model.topic_word_prior_,
               "init": model.init if isinstance(model.init, str) else "given",
               "init_used": init_ran}
    if pruning is not None:
        summary["vocabulary_pruning"] = pruning
    return FitResult(model, summary, lines, n_docs, plot_data={"vocabulary": list(vocab)})


def run_dmm(args, progress):
    """Run ``latentkit fit dmm``: load the data, fit the model, format the report.

    The model: :class:`~latentkit.topic.DirichletMultinomialMixture`.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed options of ``fit dmm`` (:func:`latentkit.cli.build_parser`).
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
    >>> from latentkit.cli.fit_short import run_dmm
    >>> args = build_parser().parse_args(["fit", "dmm", "--data", path, "-k", "2"])
    >>> result = run_dmm(args, Progress(None, enabled=False))
    >>> result.n_samples, type(result.model).__name__
    (6, 'DirichletMultinomialMixture')
    >>> print(result.lines[1])
    model       DirichletMultinomialMixture(n_components=2,
    weight_concentration_prior_type='dirichlet_distribution', weight_concentration_prior=0.5,
    topic_word_prior=0.1)
    """
    from ..topic import DirichletMultinomialMixture  # lazy: the topic package

    model = DirichletMultinomialMixture(
        random_state=args.seed, callback=progress.callback,
        weight_concentration_prior_type="dirichlet_process" if args.dirichlet_process
        else "dirichlet_distribution",
        **_given(n_components=args.n_components, max_iter=args.max_iter, tol=args.tol,
                 weight_concentration_prior=args.weight_concentration_prior,
                 topic_word_prior=args.topic_word_prior, n_init=args.n_init, init=args.init))
    corpus, X, vocab = _fit(args, progress, model)
    perplexity = model.perplexity(X)
    res = _result(args, model, corpus, X, vocab,
                  f"weight_concentration_prior_type={model.weight_concentration_prior_type!r}, "
                  f"weight_concentration_prior={model.weight_concentration_prior_:.4g}, "
                  f"topic_word_prior={model.topic_word_prior_:.4g}",
                  "training documents, per token", perplexity)
    res.summary["n_effective_components"] = int(model.n_effective_components_)
    at = next(i for i, line in enumerate(res.lines) if line.startswith("top "))
    res.lines.insert(at, f"topics      {model.n_effective_components_} of "
                         f"{model.n_components} hold more than 1% of the tokens")
    return res


def run_btm(args, progress):
    """Run ``latentkit fit btm``: load the data, fit the model, format the report.

    The model: :class:`~latentkit.topic.BitermTopicModel`.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed options of ``fit btm`` (:func:`latentkit.cli.build_parser`).
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
    >>> from latentkit.cli.fit_short import run_btm
    >>> args = build_parser().parse_args(["fit", "btm", "--data", path, "-k", "2"])
    >>> result = run_btm(args, Progress(None, enabled=False))
    >>> result.n_samples, type(result.model).__name__
    (6, 'BitermTopicModel')
    >>> print(result.lines[1])
    model       BitermTopicModel(n_components=2, weight_concentration_prior=25,
    topic_word_prior=0.01)
    """
    from ..topic import BitermTopicModel  # lazy: the topic package

    if args.init not in (None, "seeded", "random", "spectral"):
        raise CLIError(f"--init for btm must be seeded, random or spectral, got {args.init!r}.")
    model = BitermTopicModel(
        random_state=args.seed, callback=progress.callback,
        **_given(n_components=args.n_components, max_iter=args.max_iter, tol=args.tol,
                 weight_concentration_prior=args.weight_concentration_prior,
                 topic_word_prior=args.topic_word_prior, n_init=args.n_init, init=args.init))
    corpus, X, vocab = _fit(args, progress, model)
    try:
        perplexity = model.perplexity(X)
    except ValueError:  # no document of 2 tokens
        perplexity = float("nan")
    return _result(args, model, corpus, X, vocab,
                   f"weight_concentration_prior={model.weight_concentration_prior_:.4g}, "
                   f"topic_word_prior={model.topic_word_prior_:.4g}",
                   "training biterms, per biterm word", perplexity)
