"""``latentkit fit dmr``: the Dirichlet-multinomial regression topic model on raw texts with
covariate columns (``--text FILE --covariates type,topic``): numeric columns as they are, other
columns one-hot; the report shows each covariate level's prior topic mix."""

import numpy as np

from ._common import (CLIError, FitResult, _add_text_args, _attach_text, _given,
                      _vocabulary_summary, load_input, warn_k_above)
from ._messages import init_summary

__all__ = ["add_dmr_args", "run_dmr", "covariate_matrix"]


def add_dmr_args(p):
    """The options of ``latentkit fit dmr`` (besides the common ones).

    Parameters
    ----------
    p : argparse.ArgumentParser

    Examples
    --------
    >>> import argparse
    >>> from latentkit.cli.fit_dmr import add_dmr_args
    >>> p = argparse.ArgumentParser()
    >>> add_dmr_args(p)
    >>> p.parse_args(["--covariates", "type"]).covariates
    'type'
    """
    _add_text_args(p)
    p.add_argument("--covariates", metavar="COL,COL", default=None,
                   help="columns of the --text .csv / .tsv / .jsonl file that set each document's "
                        "topic prior: numbers as they are, anything else one-hot")
    p.add_argument("--prior-variance", type=float, default=None,
                   help="variance of the Gaussian prior of the regression coefficients "
                        "(default 10, the library's)")
    p.add_argument("--top", type=int, default=10, help="words shown per topic (default 10)")


def covariate_matrix(meta, columns):
    """The covariates of ``columns`` of a table: numeric columns as they are (missing: 0),
    other columns one-hot over their distinct values (missing: all zeros).

    Parameters
    ----------
    meta : dict of str to list
        The table's columns.
    columns : list of str

    Returns
    -------
    C : ndarray of shape (n_rows, n_covariates)
    names : list of str
        One name per covariate (``column`` or ``column=value``).

    Examples
    --------
    >>> from latentkit.cli.fit_dmr import covariate_matrix
    >>> C, names = covariate_matrix({"type": ["a", "b", "a"], "year": [1, 2, 3]},
    ...                             ["type", "year"])
    >>> names
    ['type=a', 'type=b', 'year']
    >>> C[:, 2].tolist()
    [1.0, 2.0, 3.0]
    """
    blocks, names = [], []
    for col in columns:
        vals = meta[col]
        if all(v is None or isinstance(v, (int, float)) and not isinstance(v, bool)
               for v in vals):
            blocks.append(np.array([0.0 if v is None else float(v) for v in vals])[:, None])
            names.append(col)
            continue
        levels = sorted({str(v) for v in vals if v not in (None, "")})
        blocks.append(np.array([[float(str(v) == lev) for lev in levels] for v in vals]))
        names += [f"{col}={lev}" for lev in levels]
    return np.hstack(blocks) if blocks else np.zeros((0, 0)), names


def run_dmr(args, progress):
    """Fit the DMR topic model of ``latentkit fit dmr`` and format its report.

    Parameters
    ----------
    args : argparse.Namespace
    progress : Progress

    Returns
    -------
    FitResult

    Raises
    ------
    CLIError
        No ``--text`` / ``--covariates``, or a column the file does not have.

    Examples
    --------
    >>> import json, os, tempfile
    >>> from latentkit import cli
    >>> from latentkit.cli._progress import Progress
    >>> from latentkit.cli.fit_dmr import run_dmr
    >>> path = os.path.join(tempfile.mkdtemp(), "docs.jsonl")
    >>> with open(path, "w") as f:
    ...     for i in range(12):
    ...         text, kind = ("cats dogs birds", "pets") if i % 2 else ("fish swim", "sea")
    ...         _ = f.write(json.dumps({"text": text, "kind": kind}) + "\\n")
    >>> args = cli.build_parser().parse_args(["fit", "dmr", "--text", path, "--covariates",
    ...                                       "kind", "-k", "2", "--max-iter", "3",
    ...                                       "--stop-words", "none"])
    >>> run_dmr(args, Progress(None, enabled=False)).summary["covariates"]
    ['kind=pets', 'kind=sea']
    """
    from ..topic import DirichletMultinomialRegression  # lazy: numba, ~2 s start-up

    if getattr(args, "text", None) is None or args.covariates is None:
        raise CLIError("fit dmr needs --text FILE (a .csv, .tsv or .jsonl file) and --covariates "
                       "COL[,COL...] (the columns that set each document's topic prior).")
    corpus = load_input(args, "counts")
    meta = corpus.get("metadata") or {}
    columns = [c.strip() for c in args.covariates.split(",") if c.strip()]
    missing = [c for c in columns if c not in meta]
    if missing:
        raise CLIError(f"--covariates {missing[0]!r} is not a column of {args.text}; its "
                       f"columns are: {', '.join(sorted(meta)) or '(none)'}.")
    C, names = covariate_matrix(meta, columns)
    X, vocab = corpus.data, corpus.vocabulary
    warn_k_above(args.n_components, X.shape[0], "documents")
    model = DirichletMultinomialRegression(
        random_state=args.seed, callback=progress.callback,
        **_given(n_components=args.n_components, prior_variance=args.prior_variance,
                 max_iter=args.max_iter, tol=args.tol, init=args.init))
    progress.total = model.max_iter
    with progress:
        model.fit(X, covariates=C)
    model.feature_names_in_ = np.asarray(vocab, dtype=str)
    _attach_text(model, corpus)
    topics = model.top_words(list(vocab), n=args.top)
    levels = np.eye(len(names))
    mix = model.doc_topic_prior(levels)
    vocab_lines, pruning = _vocabulary_summary(corpus)
    init_text, init_ran, _ = init_summary(model)
    K = int(model.n_components)
    lines = [
        f"data        {corpus['name']}: {X.shape[0]} documents x {X.shape[1]} words, "
        f"{int(X.sum())} tokens",
        *vocab_lines,
        f"model       DirichletMultinomialRegression(n_components={K}, {len(names)} covariates "
        f"of {', '.join(columns)}, prior_variance={model.prior_variance:.4g})",
        f"init        {init_text}",
        f"iterations  {model.n_iter_} "
        f"({'converged' if model.converged_ else 'not converged'}, tol={model.tol_:.3g})",
        f"ELBO        {model.lower_bound_:.4f} nats per document",
        f"top {args.top} words of each topic:",
    ]
    width = len(str(K - 1))
    lines += [f"  topic {k:>{width}}: {' '.join(w)}" for k, w in enumerate(topics)]
    lines.append("prior topic mix alpha of each covariate alone (largest topics first):")
    nwidth = max(len(n) for n in names) if names else 0
    for name, a in zip(names, mix):
        top = np.argsort(-a)[:3]
        lines.append(f"  {name:<{nwidth}}  " + "  ".join(f"topic {k} {a[k]:.3g}" for k in top))
    summary = {"n_features": X.shape[1], "n_tokens": int(X.sum()), "covariates": names,
               "coef": model.coef_.tolist(), "topics": topics,
               "init": model.init if isinstance(model.init, str) else "given",
               "init_used": init_ran}
    if pruning is not None:
        summary["vocabulary_pruning"] = pruning
    return FitResult(model, summary, lines, X.shape[0], plot_data={"vocabulary": list(vocab)})
