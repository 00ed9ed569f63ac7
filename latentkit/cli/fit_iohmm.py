"""``latentkit fit iohmm`` (input-output HMM) on a table of numbers: ``--inputs`` names the
columns that drive the transitions, the other columns are the Gaussian observations (one
sequence). The report has the transition regression of each state, the emission means and
the Viterbi path's occupancy."""

import numpy as np

from ._common import CLIError, FitResult, _finite, _fmt_matrix, _given, _tolist
from ._messages import init_summary
from .fit_hmm import _state_runs
from .fit_semi_markov import _common_kw, _refuse_nan, _sequences

__all__ = ["add_iohmm_args", "run_iohmm"]


def add_iohmm_args(p):
    """Add the options of ``latentkit fit iohmm`` to an argparse parser.

    Parameters
    ----------
    p : argparse.ArgumentParser
        The ``fit iohmm`` sub-parser (the common options are added by the CLI).

    Returns
    -------
    None

    Examples
    --------
    >>> import argparse
    >>> from latentkit.cli.fit_iohmm import add_iohmm_args
    >>> p = argparse.ArgumentParser()
    >>> add_iohmm_args(p)
    >>> p.parse_args(["--inputs", "waiting"]).inputs
    'waiting'
    """
    p.add_argument("--inputs", default=None,
                   help="comma-separated columns (header names or 0-based indices) that are "
                        "the per-step inputs u_t; the other columns are the observations "
                        "(default: the first column; geyser: waiting)")
    p.add_argument("--covariance-type", default="diag",
                   choices=["full", "diag", "spherical", "tied"],
                   help="covariance structure of the Gaussian emissions (default diag)")
    p.add_argument("--input-start", action="store_true",
                   help="the first state is a regression on the first step's inputs too")
    p.add_argument("--coefs-prior", type=float, default=None,
                   help="Gaussian prior precision on the regression coefficients (default 1.0, "
                        "the library's; 0: maximum likelihood)")
    p.add_argument("--n-init", type=int, default=None, help="initialisations (best kept)")


def _input_columns(spec, names, n_columns):
    """0-based indices of the ``--inputs`` columns."""
    if spec is None:
        return [0]
    names = [str(n) for n in names]
    cols = []
    for item in (s.strip() for s in spec.split(",")):
        if item in names:
            cols.append(names.index(item))
        elif item.isdigit() and int(item) < n_columns:
            cols.append(int(item))
        else:
            raise CLIError(f"--inputs: {item!r} is not a column of the data (columns: "
                           f"{', '.join(names)}; or 0-based indices below {n_columns}).")
    if len(set(cols)) != len(cols):
        raise CLIError(f"--inputs names a column twice: {spec!r}.")
    if len(cols) >= n_columns:
        raise CLIError(f"--inputs takes every column ({spec!r}); leave at least one column "
                       "of observations.")
    return cols


def run_iohmm(args, progress):
    """Fit an :class:`~latentkit.InputOutputHMM` for ``latentkit fit iohmm``.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed ``fit iohmm`` options (``--inputs`` columns are the inputs, the others the
        observations; one sequence).
    progress : latentkit.cli.Progress
        The progress bar (its callback is passed to the model).

    Returns
    -------
    FitResult
        The model, the ``--json`` summary (log-likelihood in nats, the regressions, the means,
        the Viterbi occupancy) and the report lines.

    Raises
    ------
    CLIError
        Unknown ``--inputs`` columns, no observation column left, a negative
        ``--coefs-prior``, missing values, ``--plot``.

    Examples
    --------
    >>> from latentkit.cli import Progress, build_parser
    >>> from latentkit.cli.fit_iohmm import run_iohmm
    >>> args = build_parser().parse_args(["fit", "iohmm", "--max-iter", "200"])
    >>> result = run_iohmm(args, Progress(None, enabled=False))
    >>> result.summary["inputs"]
    ['waiting']
    """
    # lazy: numba, ~2 s start-up
    from ..sequence import InputOutputHMM

    if getattr(args, "plot", None):
        raise CLIError("fit iohmm has no --plot figure; use the Python API "
                       "(InputOutputHMM.predict_proba with the inputs).")
    bunch, X, lengths = _sequences(args)
    _refuse_nan(X, "iohmm")
    X = X.astype(np.float64)
    names = bunch.get("feature_names")
    names = ([str(n) for n in names] if names is not None else
             [str(i) for i in range(X.shape[1])])
    cols = _input_columns(args.inputs, names, X.shape[1])
    obs = [c for c in range(X.shape[1]) if c not in cols]
    U, Y = X[:, cols], X[:, obs]
    if args.coefs_prior is not None and not args.coefs_prior >= 0:
        raise CLIError(f"--coefs-prior must be >= 0, got {args.coefs_prior}.")
    model = InputOutputHMM(covariance_type=args.covariance_type,
                           input_start=bool(args.input_start), **_common_kw(args, progress),
                           **_given(coefs_prior=args.coefs_prior))
    progress.total = model.max_iter * (model.n_init if isinstance(model.n_init, int) else 1)
    with progress:
        model.fit(Y, lengths=lengths, inputs=U)
    n, k = len(Y), model.n_components
    init_text = init_summary(model)[0]
    total = float(model.score_sequences(Y, lengths, inputs=U).sum())
    logprob, states = model.decode(Y, lengths, inputs=U)
    occupancy = np.bincount(states, minlength=k)
    runs = np.bincount(states[_state_runs(states, lengths)], minlength=k)
    in_names = [names[c] for c in cols]
    lines = [
        f"data        {bunch['name']}: {n} time steps in {len(lengths)} sequence(s); inputs "
        f"{', '.join(in_names)}; observations {', '.join(names[c] for c in obs)}",
        f"model       InputOutputHMM(n_components={k}, covariance_type="
        f"{model.covariance_type!r}, coefs_prior={model.coefs_prior})",
        f"init        {init_text}",
        f"iterations  {model.n_iter_} ({'converged' if model.converged_ else 'not converged'}, "
        f"tol={model.tol_:.3g})",
        f"log-likelihood  {total:.4f} total, {total / n:.6f} per time step (nats)",
        "transition intercepts (row i: log-odds of i -> j against staying, at inputs 0)",
        *_fmt_matrix(model.transition_intercepts_),
    ]
    for m, name in enumerate(in_names):
        lines += [f"transition coefs of {name} (row i: change of those log-odds per unit)",
                  *_fmt_matrix(model.transition_coefs_[:, :, m])]
    lines += ["means (one row per state)", *_fmt_matrix(model.means_),
              f"Viterbi path (log p(x, z* | u) = {logprob:.4f})"]
    for i in range(k):
        lines.append(f"  state {i}: {occupancy[i]} steps ({occupancy[i] / n:.1%}), "
                     f"{runs[i]} runs")
    summary = {"n_sequences": int(len(lengths)), "log_likelihood": _finite(total),
               "inputs": in_names, "transition_intercepts": _tolist(model.transition_intercepts_),
               "transition_coefs": _tolist(model.transition_coefs_),
               "means": _tolist(model.means_), "covars": _tolist(model.covariances_),
               "occupancy": occupancy.tolist(), "viterbi_log_prob": _finite(logprob)}
    return FitResult(model, summary, lines, n, plot_data=None)
