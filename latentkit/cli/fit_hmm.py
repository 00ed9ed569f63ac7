"""``latentkit fit hmm``: hidden Markov models by Baum-Welch (or variational Bayes with
``--variational``) on sequences, with categorical, Poisson, Gaussian or Gaussian-mixture
emissions; the report includes the Viterbi path's occupancy and run lengths."""

import numpy as np

from ._common import (CLIError, FitResult, _finite, _fmt_matrix, _given, _refuse_nan, _tolist,
                      load_input)
from ._messages import init_summary

__all__ = ["add_hmm_args", "run_hmm"]


def add_hmm_args(p):
    """Add the options of ``latentkit fit hmm`` to ``p``: those of
    a hidden Markov model.

    The options every model shares (--dataset, --data, -k, --max-iter, --seed, ...) are
    added by the driver, not here.

    Parameters
    ----------
    p : argparse.ArgumentParser
        The parser of the ``fit hmm`` subcommand.

    Examples
    --------
    >>> import argparse
    >>> from latentkit.cli.fit_hmm import add_hmm_args
    >>> p = argparse.ArgumentParser()
    >>> add_hmm_args(p)
    >>> p.parse_args(["--emission", "poisson"]).emission
    'poisson'
    """
    p.add_argument("--emission", default=None,
                   choices=["categorical", "poisson", "gaussian", "gmm"],
                   help="emission distribution (default: categorical for symbol data with an "
                        "alphabet, poisson for integer counts, else gaussian; gmm: a Gaussian "
                        "mixture per state, GMMHMM)")
    p.add_argument("--n-mix", type=int, default=None,
                   help="--emission gmm: Gaussians per state (default 1, the library's)")
    p.add_argument("--covariance-type", default="diag",
                   choices=["full", "diag", "spherical", "tied"],
                   help="Gaussian emissions: covariance structure (default diag)")
    p.add_argument("--n-init", type=int, default=None, help="initialisations (best kept; default 1)")
    p.add_argument("--variational", action="store_true",
                   help="variational Bayes (VariationalCategoricalHMM / VariationalGaussianHMM: "
                        "Dirichlet and Normal-Wishart posteriors, unused states emptied)")
    p.add_argument("--missing", choices=["error", "marginalize"], default="error",
                   help="nan entries (Gaussian emissions, not --variational): refuse them "
                        "(default) or integrate them out exactly (GaussianHMM)")


def _state_runs(states, lengths):
    """Where a run of one state starts in the decoded sequences.

    Parameters
    ----------
    states : ndarray of shape (n_samples,)
        The Viterbi states of the concatenated sequences.
    lengths : ndarray of shape (n_sequences,)
        Lengths of the sequences, summing to ``n_samples``.

    Returns
    -------
    ndarray of bool, shape (n_samples,)
        True where a sequence starts or the state changes (so ``states[starts]`` counts the runs).
    """
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    starts = np.zeros(len(states), dtype=bool)
    starts[offsets[:-1]] = True
    starts[1:] |= states[1:] != states[:-1]
    return starts


def _check_hmm_options(args, emission, X):
    """Refuse (CLIError) options that the chosen emission would silently ignore, and nan
    entries without --missing marginalize (naming the first one and the option)."""
    if args.n_mix is not None and emission != "gmm":
        raise CLIError(f"--n-mix applies to --emission gmm only, got emission {emission!r}.")
    if args.missing == "marginalize" and (emission != "gaussian" or args.variational):
        raise CLIError("--missing marginalize needs Gaussian emissions without --variational "
                       f"(GaussianHMM), got emission {emission!r}"
                       + (" with --variational." if args.variational else "."))
    _refuse_nan(X, args.missing, "with Gaussian emissions ")


def run_hmm(args, progress):
    """Run ``latentkit fit hmm``: load the data, fit the model, format the report.

    The model: a hidden Markov model (:class:`~latentkit.sequence.PoissonHMM` on counts).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed options of ``fit hmm`` (:func:`latentkit.cli.build_parser`).
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
    >>> import numpy as np
    >>> path = os.path.join(tempfile.mkdtemp(), "counts.csv")
    >>> np.savetxt(path, np.r_[np.full(10, 1.0), np.full(10, 8.0), np.full(10, 1.0)], fmt="%d")
    >>> from latentkit.cli import Progress, build_parser
    >>> from latentkit.cli.fit_hmm import run_hmm
    >>> args = build_parser().parse_args(["fit", "hmm", "--data", path, "-k", "2", "--emission",
    ...                                   "poisson"])
    >>> result = run_hmm(args, Progress(None, enabled=False))
    >>> result.n_samples, type(result.model).__name__
    (30, 'PoissonHMM')
    >>> print(result.lines[1])
    model       PoissonHMM(n_components=2)
    """
    # lazy: numba, ~2 s start-up
    from ..sequence import (GMMHMM, CategoricalHMM, GaussianHMM, PoissonHMM,
                            VariationalCategoricalHMM, VariationalGaussianHMM)

    bunch = load_input(args, "sequence")
    X = np.asarray(bunch.data)
    if X.ndim == 1:
        X = X.reshape(-1, 1)
    lengths = bunch.get("lengths")
    lengths = np.array([len(X)]) if lengths is None else np.asarray(lengths)
    alphabet = bunch.get("alphabet")
    emission = args.emission
    if emission is None:
        integer = X.dtype.kind in "iu" or bool(np.all(X == np.round(X)))
        emission = ("categorical" if alphabet is not None else
                    "poisson" if integer else "gaussian")
    _check_hmm_options(args, emission, X)
    common = dict(random_state=args.seed, callback=progress.callback,
                  **_given(n_components=args.n_components, max_iter=args.max_iter, tol=args.tol,
                           n_init=args.n_init, init=args.init))
    if args.variational:
        if emission == "poisson":
            raise CLIError("--variational needs categorical or gaussian emissions, got "
                             "poisson; use --emission categorical or gaussian.")
        categorical, gaussian = VariationalCategoricalHMM, VariationalGaussianHMM
    else:
        categorical, gaussian = CategoricalHMM, GaussianHMM
    if emission == "categorical":
        model = categorical(**common)
    elif emission == "poisson":
        model = PoissonHMM(**common)
    elif emission == "gmm":
        if args.variational:
            raise CLIError("--variational needs categorical or gaussian emissions, got gmm.")
        X = X.astype(np.float64)
        model = GMMHMM(covariance_type=args.covariance_type, **_given(n_mix=args.n_mix),
                       **common)
    else:
        X = X.astype(np.float64)
        model = gaussian(covariance_type=args.covariance_type, **common,
                         **({"missing": "marginalize"} if args.missing == "marginalize" else {}))
    k = model.n_components
    progress.total = model.max_iter * (model.n_init if isinstance(model.n_init, int) else 1)
    with progress:
        model.fit(X, lengths=lengths)
    n = len(X)
    init_text, init_ran, fallback = init_summary(model)
    total = float(model.score_sequences(X, lengths).sum())
    bic = model.bic(X, lengths)
    logprob, states = model.decode(X, lengths)
    starts = _state_runs(states, lengths)
    occupancy = np.bincount(states, minlength=k)
    runs = np.bincount(states[starts], minlength=k)
    lines = [
        f"data        {bunch['name']}: {n} time steps in {len(lengths)} sequence(s) x "
        f"{X.shape[1]} feature(s)",
        f"model       {type(model).__name__}(n_components={k}"
        + (f", n_mix={model.n_mix}" if emission == "gmm" else "")
        + (", missing='marginalize'" if args.missing == "marginalize" else "")
        + (f", covariance_type={args.covariance_type!r}" if emission in ("gaussian", "gmm")
           else "")
        + ")",
        f"init        {init_text}",
        f"iterations  {model.n_iter_} ({'converged' if model.converged_ else 'not converged'}, "
        f"tol={model.tol_:.3g})",
        f"log-likelihood  {total:.4f} total (-log L = {-total:.4f}), "
        f"{total / n:.6f} per time step (nats)",
        f"BIC         {bic:.4f}",
        *([f"ELBO        {model.lower_bound_:.6f} nats per time step; effective states "
           f"{model.n_effective_components_} of {k}"] if args.variational else []),
        "startprob",
        "    " + "  ".join(f"{w:>11.5g}" for w in model.startprob_),
        "transmat (row i: p(next state | state i))",
        *_fmt_matrix(model.transmat_),
    ]
    summary = {"emission": emission, "n_sequences": int(len(lengths)),
               "log_likelihood": _finite(total), "bic": _finite(bic),
               "startprob": _tolist(model.startprob_), "transmat": _tolist(model.transmat_),
               "init": model.init if isinstance(model.init, str) else "given",
               "init_used": init_ran, "init_fallback": fallback}
    if args.variational:
        summary.update(elbo=_finite(model.lower_bound_),
                       n_effective_components=model.n_effective_components_)
    if emission == "gmm":
        lines += ["weights (one row per state)", *_fmt_matrix(model.weights_)]
        for i in range(k):
            lines += [f"means of state {i} (one row per mixture component)",
                      *_fmt_matrix(model.means_[i])]
        summary.update(weights=_tolist(model.weights_), means=_tolist(model.means_),
                       covars=_tolist(model.covariances_), covariance_type=args.covariance_type)
    elif emission == "poisson":
        lines += ["lambdas (one row per state)", *_fmt_matrix(model.lambdas_)]
        summary["lambdas"] = _tolist(model.lambdas_)
    elif emission == "gaussian":
        lines += ["means (one row per state)", *_fmt_matrix(model.means_),
                  f"covars ({args.covariance_type})"]
        cov = np.asarray(model.covariances_)
        if args.covariance_type == "full":
            for i, c in enumerate(cov):
                lines += [f"  state {i}", *_fmt_matrix(c)]
        else:
            lines += _fmt_matrix(cov)
        summary.update(means=_tolist(model.means_), covars=_tolist(cov),
                       covariance_type=args.covariance_type)
    else:
        B = model.emissionprob_
        symbols = list(alphabet) if alphabet is not None and len(alphabet) == B.shape[1] else \
            [str(i) for i in range(B.shape[1])]
        symbols = ["_" if c == " " else c for c in symbols]
        lines.append("emissionprob (symbols by decreasing probability, '_' = space)")
        for i in range(k):
            order = np.argsort(-B[i])[:12]
            lines.append(f"  state {i}: " + " ".join(f"{symbols[j]}:{B[i, j]:.3f}" for j in order))
        summary["emissionprob"] = _tolist(B)
        summary["symbols"] = symbols
    lines.append(f"Viterbi state sequence (log p(x, z*) = {logprob:.4f})")
    for i in range(k):
        mean_run = occupancy[i] / runs[i] if runs[i] else 0.0
        lines.append(f"  state {i}: {occupancy[i]} steps ({occupancy[i] / n:.1%}), {runs[i]} runs, "
                     f"mean run length {mean_run:.2f}")
    head = states[:80]
    lines.append("  first steps: " + "".join(str(s) if k <= 10 else chr(65 + s % 26) for s in head)
                 + (" ..." if n > 80 else ""))
    summary.update(occupancy=occupancy.tolist(), runs=runs.tolist(),
                   viterbi_log_prob=_finite(logprob))
    return FitResult(model, summary, lines, n, plot_data={
        "X": X, "lengths": lengths, "symbols": summary.get("symbols")})

