"""``latentkit fit hsmm`` (explicit-duration hidden semi-Markov model) and ``latentkit fit
arhmm`` (autoregressive Gaussian HMM) on sequences: a bundled sequence set or a CSV of numbers
(one sequence). The report has the chain, the durations or the regression of each state, and
the Viterbi segmentation's occupancy and run lengths."""

import numpy as np

from ._common import CLIError, FitResult, _finite, _fmt_matrix, _given, _tolist, load_input
from ._messages import init_summary
from .fit_hmm import _state_runs

__all__ = ["add_hsmm_args", "run_hsmm", "add_arhmm_args", "run_arhmm"]


def add_hsmm_args(p):
    """Add the options of ``latentkit fit hsmm`` to ``p``: those of
    :class:`~latentkit.sequence.HiddenSemiMarkovModel`.

    The options every model shares (--dataset, --data, -k, --max-iter, --seed, ...) are
    added by the driver, not here.

    Parameters
    ----------
    p : argparse.ArgumentParser
        The parser of the ``fit hsmm`` subcommand.

    Examples
    --------
    >>> import argparse
    >>> from latentkit.cli.fit_semi_markov import add_hsmm_args
    >>> p = argparse.ArgumentParser()
    >>> add_hsmm_args(p)
    >>> p.parse_args(["--max-duration", "20"]).max_duration
    20
    """
    p.add_argument("--emission", default=None, choices=["categorical", "poisson", "gaussian"],
                   help="emission distribution (default: categorical for symbol data with an "
                        "alphabet, poisson for integer counts, else gaussian)")
    p.add_argument("--covariance-type", default="diag",
                   choices=["full", "diag", "spherical", "tied"],
                   help="Gaussian emissions: covariance structure (default diag)")
    p.add_argument("--duration", default=None,
                   choices=["nonparametric", "poisson", "negative_binomial"],
                   help="duration distribution of a state's segments (default nonparametric, "
                        "the library's)")
    p.add_argument("--max-duration", type=int, default=None,
                   help="longest segment in time steps (default 50, the library's)")
    p.add_argument("--n-init", type=int, default=None, help="initialisations (best kept)")


def add_arhmm_args(p):
    """Add the options of ``latentkit fit arhmm`` to ``p``: those of
    :class:`~latentkit.sequence.AutoregressiveHMM`.

    The options every model shares (--dataset, --data, -k, --max-iter, --seed, ...) are
    added by the driver, not here.

    Parameters
    ----------
    p : argparse.ArgumentParser
        The parser of the ``fit arhmm`` subcommand.

    Examples
    --------
    >>> import argparse
    >>> from latentkit.cli.fit_semi_markov import add_arhmm_args
    >>> p = argparse.ArgumentParser()
    >>> add_arhmm_args(p)
    >>> p.parse_args(["--n-lags", "2"]).n_lags
    2
    """
    p.add_argument("--n-lags", type=int, default=None,
                   help="autoregressive order (default 1, the library's)")
    p.add_argument("--coefs-prior", type=float, default=None,
                   help="ridge strength on the AR coefficients, a matrix-normal prior (default "
                        "0: maximum likelihood)")
    p.add_argument("--n-init", type=int, default=None, help="initialisations (best kept)")


def _sequences(args):
    bunch = load_input(args, "sequence")
    X = np.asarray(bunch.data)
    if X.ndim == 1:
        X = X.reshape(-1, 1)
    lengths = bunch.get("lengths")
    lengths = np.array([len(X)]) if lengths is None else np.asarray(lengths)
    return bunch, X, lengths


def _refuse_nan(X, command):
    """CLIError naming the first nan entry (these commands take no missing values)."""
    nan = np.isnan(X) if X.dtype.kind == "f" else np.zeros(X.shape, dtype=bool)
    if nan.any():
        r, c = np.argwhere(nan)[0]
        raise CLIError(f"the data has {int(nan.sum())} missing (nan) entries, the first at row "
                       f"{r}, column {c}; fit {command} needs every value (remove them, or use "
                       "the Python API's Gaussian(missing='marginalize') for hsmm).")


def _common_kw(args, progress):
    return dict(random_state=args.seed, callback=progress.callback,
                **_given(n_components=args.n_components, max_iter=args.max_iter, tol=args.tol,
                         n_init=args.n_init, init=args.init))


def _fit(model, X, lengths, progress):
    progress.total = model.max_iter * (model.n_init if isinstance(model.n_init, int) else 1)
    with progress:
        model.fit(X, lengths=lengths)


def _report(model, bunch, X, lengths, name, next_of="next segment's state"):
    """The lines and summary every sequence model shares: data, fit, chain, Viterbi runs."""
    n, k = len(X), model.n_components
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
        f"model       {name}",
        f"init        {init_text}",
        f"iterations  {model.n_iter_} ({'converged' if model.converged_ else 'not converged'}, "
        f"tol={model.tol_:.3g})",
        f"log-likelihood  {total:.4f} total (-log L = {-total:.4f}), "
        f"{total / n:.6f} per time step (nats)",
        f"BIC         {bic:.4f}",
        "startprob",
        "    " + "  ".join(f"{w:>11.5g}" for w in model.startprob_),
        f"transmat (row i: p({next_of} | state i))",
        *_fmt_matrix(model.transmat_),
    ]
    tail = [f"Viterbi segmentation (log p(x, z*) = {logprob:.4f})"]
    for i in range(k):
        mean_run = occupancy[i] / runs[i] if runs[i] else 0.0
        tail.append(f"  state {i}: {occupancy[i]} steps ({occupancy[i] / n:.1%}), {runs[i]} "
                    f"runs, mean run length {mean_run:.2f}")
    summary = {"n_sequences": int(len(lengths)), "log_likelihood": _finite(total),
               "bic": _finite(bic), "startprob": _tolist(model.startprob_),
               "transmat": _tolist(model.transmat_),
               "init": model.init if isinstance(model.init, str) else "given",
               "init_used": init_ran, "init_fallback": fallback,
               "occupancy": occupancy.tolist(), "runs": runs.tolist(),
               "viterbi_log_prob": _finite(logprob)}
    return lines, tail, summary


def run_hsmm(args, progress):
    """Run ``latentkit fit hsmm``: load the data, fit the model, format the report.

    The model: :class:`~latentkit.sequence.HiddenSemiMarkovModel`.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed options of ``fit hsmm`` (:func:`latentkit.cli.build_parser`).
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
    >>> from latentkit.cli.fit_semi_markov import run_hsmm
    >>> args = build_parser().parse_args(["fit", "hsmm", "--data", path, "-k", "2", "--emission",
    ...                                   "poisson", "--max-duration", "12"])
    >>> result = run_hsmm(args, Progress(None, enabled=False))
    >>> result.n_samples, type(result.model).__name__
    (30, 'HiddenSemiMarkovModel')
    >>> print(result.lines[1])
    model       HiddenSemiMarkovModel(n_components=2, emission='poisson',
    duration='nonparametric', max_duration=12)
    """
    # lazy: numba, ~2 s start-up
    from ..distributions import Categorical, Gaussian, Poisson
    from ..sequence import HiddenSemiMarkovModel

    bunch, X, lengths = _sequences(args)
    alphabet = bunch.get("alphabet")
    emission = args.emission
    if emission is None:
        integer = X.dtype.kind in "iu" or bool(np.all(X == np.round(X)))
        emission = ("categorical" if alphabet is not None else
                    "poisson" if integer else "gaussian")
    _refuse_nan(X, "hsmm")
    if args.max_duration is not None and args.max_duration < 1:
        raise CLIError(f"--max-duration must be a positive integer, got {args.max_duration}.")
    if emission == "gaussian":
        X = X.astype(np.float64)
        component = Gaussian(covariance_type=args.covariance_type)
    elif emission == "poisson":
        component = Poisson()
    else:
        component = Categorical()
    model = HiddenSemiMarkovModel(emission=component, **_common_kw(args, progress),
                                  **_given(duration=args.duration,
                                           max_duration=args.max_duration))
    _fit(model, X, lengths, progress)
    name = (f"HiddenSemiMarkovModel(n_components={model.n_components}, emission={emission!r}, "
            f"duration={model.duration!r}, max_duration={model.max_duration})")
    lines, tail, summary = _report(model, bunch, X, lengths, name)
    pmf = model.durationprob_
    d = np.arange(1, pmf.shape[1] + 1)
    lines.append("durations (state: mean, mode; p(d) for d = 1..10)")
    for i, row in enumerate(pmf):
        lines.append(f"  state {i}: mean {row @ d:.2f}, mode {int(np.argmax(row)) + 1}; "
                     + " ".join(f"{v:.3f}" for v in row[:10]))
    summary.update(emission=emission, duration=model.duration,
                   durationprob=_tolist(pmf))
    if emission == "gaussian":
        lines += ["means (one row per state)", *_fmt_matrix(model.means_)]
        summary.update(means=_tolist(model.means_), covars=_tolist(model.covariances_))
    elif emission == "poisson":
        lines += ["lambdas (one row per state)", *_fmt_matrix(model.lambdas_)]
        summary["lambdas"] = _tolist(model.lambdas_)
    else:
        lines += ["emissionprob (one row per state)", *_fmt_matrix(model.emissionprob_)]
        summary["emissionprob"] = _tolist(model.emissionprob_)
    return FitResult(model, summary, lines + tail, len(X), plot_data={
        "X": X, "lengths": lengths, "symbols": None})


def run_arhmm(args, progress):
    """Run ``latentkit fit arhmm``: load the data, fit the model, format the report.

    The model: :class:`~latentkit.sequence.AutoregressiveHMM`.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed options of ``fit arhmm`` (:func:`latentkit.cli.build_parser`).
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
    >>> from latentkit.cli.fit_semi_markov import run_arhmm
    >>> args = build_parser().parse_args(["fit", "arhmm", "--data", path, "-k", "2"])
    >>> result = run_arhmm(args, Progress(None, enabled=False))
    >>> result.n_samples, type(result.model).__name__
    (30, 'AutoregressiveHMM')
    >>> print(result.lines[1])
    model       AutoregressiveHMM(n_components=2, n_lags=1)
    """
    # lazy: numba, ~2 s start-up
    from ..sequence import AutoregressiveHMM

    bunch, X, lengths = _sequences(args)
    _refuse_nan(X, "arhmm")
    X = X.astype(np.float64)
    for flag, value, low in (("--n-lags", args.n_lags, 1), ("--coefs-prior", args.coefs_prior, 0)):
        if value is not None and not value >= low:
            raise CLIError(f"{flag} must be >= {low}, got {value}.")
    model = AutoregressiveHMM(**_common_kw(args, progress),
                              **_given(n_lags=args.n_lags, coefs_prior=args.coefs_prior))
    _fit(model, X, lengths, progress)
    name = f"AutoregressiveHMM(n_components={model.n_components}, n_lags={model.n_lags})"
    lines, tail, summary = _report(model, bunch, X, lengths, name, next_of="next state")
    lines += ["intercepts (one row per state)", *_fmt_matrix(model.intercepts_)]
    for i in range(model.n_components):
        lines += [f"coefs of state {i} (row: feature; columns: lag 1 features, lag 2, ...)",
                  *_fmt_matrix(model.coefs_[i])]
    summary.update(intercepts=_tolist(model.intercepts_), coefs=_tolist(model.coefs_),
                   covars=_tolist(model.covariances_))
    return FitResult(model, summary, lines + tail, len(X), plot_data={
        "X": X, "lengths": lengths, "symbols": None})
