"""``latentkit fit lda`` and ``latentkit fit plsa``: topic models on a count matrix (a bundled
corpus, a UCI docword file or raw texts with ``--text``); ``--private`` hands over to
:mod:`latentkit.cli.fit_private`."""

import numpy as np

from .. import datasets as ds
from .._utils.words import top_words
from ._common import (CLIError, FitResult, _add_text_args, _attach_text, _finite, _given, _tolist,
                      _vocabulary_summary, load_input, refuse_k_above_vocabulary,
                      warn_k_above)
from ._messages import init_summary
from ._topic_priors import (add_prior_args, check_private_priors, check_seed_lines, prior_json,
                            prior_text, seed_args)
from .fit_private import run_private_spectral_lda
from .fit_private_svi import run_private_svi_lda

__all__ = ["add_lda_args", "run_lda", "add_plsa_args", "run_plsa"]


def add_lda_args(p):
    """Add the options of ``latentkit fit lda`` to ``p``: those of
    :class:`~latentkit.topic.LatentDirichletAllocation`.

    The options every model shares (--dataset, --data, -k, --max-iter, --seed, ...) are
    added by the driver, not here.

    Parameters
    ----------
    p : argparse.ArgumentParser
        The parser of the ``fit lda`` subcommand.

    Examples
    --------
    >>> import argparse
    >>> from latentkit.cli.fit_topic import add_lda_args
    >>> p = argparse.ArgumentParser()
    >>> add_lda_args(p)
    >>> p.parse_args(["--doc-topic-prior", "0.1"]).doc_topic_prior
    0.1
    """
    _add_text_args(p)
    add_prior_args(p)  # --alpha/--doc-topic-prior, --eta/--topic-word-prior, --seed-words
    p.add_argument("--n-init", type=int, default=None,
                   help="initialisations (best ELBO kept; default 1)")
    p.add_argument("--top", type=int, default=10, help="words shown per topic (default 10)")
    p.add_argument("--private", action="store_true",
                   help="with --init spectral: differentially private spectral estimate only "
                        "(latentkit.spectral.PrivateSpectralLDA); with --method svi: private "
                        "stochastic VI (latentkit.inference.PrivateStochasticVI); prints the "
                        "privacy spent")
    p.add_argument("--clip", type=float, default=None,
                   help="--method svi --private: norm to which each document's expected "
                        "topic-word counts are clipped (default 10)")
    p.add_argument("--epsilon", type=float, default=None,
                   help="--private: privacy epsilon of the whole pipeline (default 1; inf: no "
                        "noise)")
    p.add_argument("--delta", type=float, default=None,
                   help="--private: privacy delta (default 1e-5)")
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
                   help="batch variational Bayes (default, the model's fit) or stochastic "
                        "variational inference (online VB over shuffled minibatches: "
                        "latentkit.inference.StochasticVI; --max-iter then counts epochs, "
                        "default 100)")
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


def run_lda(args, progress):
    """Run ``latentkit fit lda``: load the data, fit the model, format the report.

    The model: :class:`~latentkit.topic.LatentDirichletAllocation`.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed options of ``fit lda`` (:func:`latentkit.cli.build_parser`).
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
    >>> from latentkit.cli.fit_topic import run_lda
    >>> args = build_parser().parse_args(["fit", "lda", "--data", path, "-k", "2"])
    >>> result = run_lda(args, Progress(None, enabled=False))
    >>> result.n_samples, type(result.model).__name__
    (6, 'LatentDirichletAllocation')
    >>> print(result.lines[1])
    model       LatentDirichletAllocation(n_components=2, doc_topic_prior=0.5,
    topic_word_prior=0.5)
    """
    from ..topic import LatentDirichletAllocation  # lazy: numba, ~2 s start-up
    from ..topic._lda_svi import online_batch_size  # local: with the model above
    from ..inference import StochasticVI

    if getattr(args, "private", False):
        check_private_priors(args)
        args.epsilon = 1.0 if args.epsilon is None else args.epsilon
        args.delta = 1e-5 if args.delta is None else args.delta
        if args.method == "svi":
            return run_private_svi_lda(args, progress)
        return run_private_spectral_lda(args, progress)
    if args.clip is not None:
        raise CLIError("--clip applies to --method svi --private only.")
    for flag in ("epsilon", "delta"):  # else a fit the user believes private would run without
        if getattr(args, flag) is not None:
            raise CLIError(f"--{flag} applies to --private only; add --private for a "
                           "differentially private fit.")
    corpus = _lda_corpus(args)
    X, vocab = corpus.data, corpus.vocabulary
    svi = args.method == "svi"
    _check_lda_method_args(args)
    refuse_k_above_vocabulary(args.n_components, X.shape[1], X.shape[0])
    warn_k_above(args.n_components, X.shape[0], "documents")
    model = LatentDirichletAllocation(
        random_state=args.seed, callback=None if svi else progress.callback,
        # every default is the library's (init='auto': CVB0 sweeps for batch VB, a random start
        # for SVI; max_iter=100 iterations or epochs): the CLI passes only what was given
        **_given(n_components=args.n_components, doc_topic_prior=args.doc_topic_prior,
                 topic_word_prior=args.topic_word_prior, max_iter=args.max_iter, tol=args.tol,
                 n_init=args.n_init, init=args.init, learning_offset=args.learning_offset,
                 learning_decay=args.learning_decay), **seed_args(args))
    check_seed_lines(args, model)
    if model.seed_topics is not None:  # seed words are looked up in the vocabulary
        model.feature_names_in_ = np.asarray(vocab, dtype=str)
    k = model.n_components
    batch_size = 128 if args.batch_size is None else args.batch_size  # the library's default
    if svi:  # the callback runs at held-out evaluations, with the step number
        if model.n_init != 1:
            raise CLIError(f"--n-init {model.n_init}: --method svi runs one initialisation.")
        progress.total = model.max_iter * -(-X.shape[0] // batch_size)
    else:
        progress.total = model.max_iter * (model.n_init if isinstance(model.n_init, int) else 1)
    with progress:
        if args.dask_scheduler:
            _fit_on_dask(model, X, args.dask_scheduler)
        elif svi:  # StochasticVI over LDA's step; the progress bar sees the fitted model
            model = StochasticVI(
                model, batch_size=batch_size, n_epochs=model.max_iter,
                learning_offset=model.learning_offset, learning_decay=model.learning_decay,
                holdout=args.holdout, random_state=args.seed,
                callback=lambda driver, t, value: progress.callback(driver.model_, t, value),
            ).fit(X).model_
        else:
            model.fit(X)
    model.feature_names_in_ = np.asarray(vocab, dtype=str)
    _attach_text(model, corpus)
    perplexity = model.perplexity(X)
    topics = model.top_words(list(vocab), n=args.top)
    vocab_lines, pruning = _vocabulary_summary(corpus)
    init_text, init_ran, fallback = init_summary(model, stochastic=svi)
    n_docs, n_words = X.shape
    lines = [
        f"data        {corpus['name']}: {n_docs} documents x {n_words} words, "
        f"{int(X.sum())} tokens",
        *vocab_lines,
        f"model       LatentDirichletAllocation(n_components={k}, "
        f"doc_topic_prior={prior_text(model.doc_topic_prior_)}, "
        f"topic_word_prior={prior_text(model.topic_word_prior_)})",
        *([f"method      stochastic VI: {model.n_steps_} minibatch steps of "
           f"{online_batch_size(batch_size, n_docs, args.holdout)} documents, "
           f"kappa={model.learning_decay}, "
           f"tau={model.learning_offset}"] if svi else
          [f"method      batch VB on the dask cluster {args.dask_scheduler}"]
          if args.dask_scheduler else []),
        f"init        {init_text}",
        f"{'epochs' if svi else 'iterations':<10}  {model.n_iter_} "
        f"({'converged' if model.converged_ else 'not converged'}, tol={model.tol_:.3g})",
        f"ELBO        {model.lower_bound_:.4f} nats per document"
        + (" (held-out)" if svi and args.holdout else ""),
        f"perplexity  {perplexity:.2f} (training documents, per token)",
        f"top {args.top} words per topic:",
    ]
    width = len(str(k - 1))
    seeded = model.seed_topics or {}
    lines += [f"  topic {i:>{width}}{'*' if i in seeded else ''}: " + " ".join(words)
              for i, words in enumerate(topics)]
    if seeded:
        lines.append("  (* seeded topic: " + "; ".join(f"{k}: {' '.join(map(str, w))}"
                                                     for k, w in sorted(seeded.items())) + ")")
    summary = {"n_features": n_words, "n_tokens": int(X.sum()), "perplexity": _finite(perplexity),
               "topics": topics, "doc_topic_prior": prior_json(model.doc_topic_prior_),
               "topic_word_prior": prior_json(model.topic_word_prior_), "method": args.method,
               "init": model.init if isinstance(model.init, str) else "given",
               "init_used": init_ran, "init_fallback": fallback}
    if pruning is not None:
        summary["vocabulary_pruning"] = pruning
    if seeded:
        summary["seed_topics"] = {str(k): list(map(str, w)) for k, w in seeded.items()}
    if svi:
        summary.update(n_steps=int(model.n_steps_), batch_size=int(batch_size),
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
    corpus = ds.load_gutenberg_novels(level=args.level)
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
    try:  # lazy: dask is optional (the 'dask' extra)
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




def add_plsa_args(p):
    """Add the options of ``latentkit fit plsa`` to ``p``: those of
    :class:`~latentkit.topic.PLSA`.

    The options every model shares (--dataset, --data, -k, --max-iter, --seed, ...) are
    added by the driver, not here.

    Parameters
    ----------
    p : argparse.ArgumentParser
        The parser of the ``fit plsa`` subcommand.

    Examples
    --------
    >>> import argparse
    >>> from latentkit.cli.fit_topic import add_plsa_args
    >>> p = argparse.ArgumentParser()
    >>> add_plsa_args(p)
    >>> p.parse_args(["--beta", "0.9"]).beta
    0.9
    """
    _add_text_args(p)
    p.add_argument("--parametrization", default="asymmetric", choices=["asymmetric", "symmetric"],
                   help="P(d)P(z|d)P(w|z) or P(z)P(d|z)P(w|z) (default asymmetric)")
    p.add_argument("--beta", type=float, default=None, help="tempered EM exponent (default 1)")
    p.add_argument("--doc-iter", type=int, default=None,
                   help="updates of each P(z|d) per update of P(w|z) (default 1: EM)")
    p.add_argument("--doc-start", default=None, choices=["previous", "uniform"],
                   help="start of those updates: the current P(z|d) or 1/K every iteration "
                        "(BigARTM's scheme; default previous)")
    p.add_argument("--top", type=int, default=10, help="words shown per aspect (default 10)")


def run_plsa(args, progress):
    """Run ``latentkit fit plsa``: load the data, fit the model, format the report.

    The model: :class:`~latentkit.topic.PLSA`.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed options of ``fit plsa`` (:func:`latentkit.cli.build_parser`).
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
    >>> from latentkit.cli.fit_topic import run_plsa
    >>> args = build_parser().parse_args(["fit", "plsa", "--data", path, "-k", "2"])
    >>> result = run_plsa(args, Progress(None, enabled=False))
    >>> result.n_samples, type(result.model).__name__
    (6, 'PLSA')
    >>> print(result.lines[1])
    model       PLSA(n_components=2, parametrization='asymmetric', beta=1.0, init='random',
    doc_iter=1, doc_start='previous')
    """
    from ..topic import PLSA  # lazy: numba, ~2 s start-up

    corpus = load_input(args, "counts")
    X, vocab = corpus.data, list(corpus.vocabulary)
    refuse_k_above_vocabulary(args.n_components, X.shape[1], X.shape[0])
    warn_k_above(args.n_components, X.shape[0], "documents")
    model = PLSA(parametrization=args.parametrization, random_state=args.seed,
                 callback=progress.callback,
                 **_given(n_components=args.n_components, beta=args.beta,
                          max_iter=args.max_iter, tol=args.tol, init=args.init,
                          doc_iter=args.doc_iter, doc_start=args.doc_start))
    k = model.n_components
    progress.total = model.max_iter
    with progress:
        model.fit(X)
    model.feature_names_in_ = np.asarray(vocab, dtype=str)
    _attach_text(model, corpus)
    n_docs, n_words = X.shape
    topics = top_words(model.components_, vocab, args.top)
    vocab_lines, pruning = _vocabulary_summary(corpus)
    per_token = model.lower_bound_ / model.mean_doc_length_  # lower_bound_: nats per document
    perplexity = float(np.exp(-per_token)) if args.parametrization == "asymmetric" else None
    lines = [
        f"data        {corpus['name']}: {n_docs} documents x {n_words} words, "
        f"{int(X.sum())} tokens",
        *vocab_lines,
        f"model       PLSA(n_components={k}, parametrization={args.parametrization!r}, "
        f"beta={model.beta}, init={model.init!r}, doc_iter={model.doc_iter}, "
        f"doc_start={model.doc_start!r})",
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
    if pruning is not None:
        summary["vocabulary_pruning"] = pruning
    return FitResult(model, summary, lines, n_docs, plot_data={"vocabulary": vocab})

