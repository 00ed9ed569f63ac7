"""``latentkit fit gmm``, ``vgmm`` and ``dpmm``: Gaussian mixtures (EM, variational Bayes and
the truncated Dirichlet process) on a table of numbers."""

import numpy as np

from ._common import (CLIError, FitResult, _finite, _fmt_matrix, _given, _refuse_nan, _tolist,
                      load_input, refuse_k_above_rows)
from ._messages import init_summary

__all__ = ["add_gmm_args", "run_gmm", "add_vgmm_args", "run_vgmm", "add_dpmm_args", "run_dpmm"]


def add_gmm_args(p):
    """Add the options of ``latentkit fit gmm`` to ``p``: those of
    :class:`~latentkit.mixture.GaussianMixture` by EM.

    The options every model shares (--dataset, --data, -k, --max-iter, --seed, ...) are
    added by the driver, not here.

    Parameters
    ----------
    p : argparse.ArgumentParser
        The parser of the ``fit gmm`` subcommand.

    Examples
    --------
    >>> import argparse
    >>> from latentkit.cli.fit_mixture import add_gmm_args
    >>> p = argparse.ArgumentParser()
    >>> add_gmm_args(p)
    >>> p.parse_args(["--covariance-type", "diag"]).covariance_type
    'diag'
    """
    p.add_argument("--covariance-type", default="full",
                   choices=["full", "diag", "spherical", "tied"],
                   help="covariance structure (default full)")
    p.add_argument("--n-init", type=int, default=None,
                   help="initialisations (the one with the best ELBO is kept; default 1)")
    p.add_argument("--reg-covar", type=float, default=None,
                   help="added to covariance diagonals (default 1e-6)")
    p.add_argument("--standardize", action="store_true",
                   help="standardise each column to mean 0, sd 1 before fitting")
    p.add_argument("--missing", choices=["error", "marginalize"], default="error",
                   help="NaN entries of the data (nan in a CSV): refuse them (default) or "
                        "treat them as unobserved and integrate them out exactly")



def _load_table(args):
    """The --dataset/--data table as float64, standardised with --standardize (NaN entries,
    kept for --missing marginalize, are left out of the column means and deviations).

    Returns ``(bunch, X, n_missing)``. NaN entries without --missing marginalize are refused
    here (CLIError naming the first one and the option), not by the model's generic message.
    """
    bunch = load_input(args, "matrix")
    X = np.asarray(bunch.data, dtype=np.float64)
    if X.ndim != 2:
        raise CLIError(f"the data must be a 2-D table of numbers, got shape {X.shape}.")
    n_missing = _refuse_nan(X, args.missing)
    if args.standardize:
        with np.errstate(invalid="ignore"):  # all-NaN columns are refused by fit
            sd = np.nanstd(X, axis=0)
            X = (X - np.nanmean(X, axis=0)) / np.where(sd > 0, sd, 1.0)
    return bunch, X, n_missing


def run_gmm(args, progress):
    """Run ``latentkit fit gmm``: load the data, fit the model, format the report.

    The model: :class:`~latentkit.mixture.GaussianMixture` by EM.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed options of ``fit gmm`` (:func:`latentkit.cli.build_parser`).
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
    >>> from latentkit.cli import Progress, build_parser
    >>> from latentkit.cli.fit_mixture import run_gmm
    >>> args = build_parser().parse_args(["fit", "gmm", "--dataset", "old_faithful", "-k", "2"])
    >>> result = run_gmm(args, Progress(None, enabled=False))
    >>> result.n_samples, type(result.model).__name__
    (272, 'GaussianMixture')
    >>> print(result.lines[1])
    model       GaussianMixture(n_components=2, covariance_type='full')
    """
    from ..mixture import GaussianMixture  # lazy: numba, ~2 s start-up

    bunch, X, n_missing = _load_table(args)
    refuse_k_above_rows(args.n_components, X.shape)
    model = GaussianMixture(
        covariance_type=args.covariance_type, random_state=args.seed,
        callback=progress.callback, missing=args.missing,
        **_given(n_components=args.n_components, max_iter=args.max_iter, tol=args.tol,
                 n_init=args.n_init, init=args.init, reg_covar=args.reg_covar))
    k = model.n_components
    progress.total = model.max_iter * (model.n_init if isinstance(model.n_init, int) else 1)
    with progress:
        model.fit(X)
    names = bunch.get("feature_names")
    if names is not None and len(names) == X.shape[1]:
        model.feature_names_in_ = np.asarray(names, dtype=str)
    n, d = X.shape
    init_text, init_ran, fallback = init_summary(model)
    per_sample = model.score(X)
    total = per_sample * n
    bic = model.bic(X)
    lines = [
        f"data        {bunch['name']}: {n} samples x {d} features"
        + (" (standardised)" if args.standardize else "")
        + (f", {n_missing} missing entries marginalised" if n_missing else "")
        + (f" [{', '.join(map(str, names))}]" if names is not None and len(names) == d else ""),
        f"model       GaussianMixture(n_components={k}, covariance_type={args.covariance_type!r})",
        f"init        {init_text}",
        f"iterations  {model.n_iter_} ({'converged' if model.converged_ else 'not converged'}, "
        f"tol={model.tol_:.3g})",
        f"log-likelihood  {total:.4f} total, {per_sample:.6f} per sample (nats)",
        f"BIC         {bic:.4f}",
        "weights",
        "    " + "  ".join(f"{w:>11.5g}" for w in model.weights_),
        "means (one row per component)",
        *_fmt_matrix(model.means_),
        f"covariances ({args.covariance_type})",
    ]
    cov = np.asarray(model.covariances_)
    if args.covariance_type == "full":
        for i, c in enumerate(cov):
            lines.append(f"  component {i}")
            lines += _fmt_matrix(c)
    else:
        lines += _fmt_matrix(cov)
    summary = {"n_features": d, "weights": _tolist(model.weights_), "means": _tolist(model.means_),
               "covariances": _tolist(cov), "covariance_type": args.covariance_type,
               "log_likelihood": _finite(total), "log_likelihood_per_sample": _finite(per_sample),
               "bic": _finite(bic), "init": model.init if isinstance(model.init, str) else "given",
               "init_used": init_ran, "init_fallback": fallback}
    return FitResult(model, summary, lines, n, plot_data={"X": X, "feature_names": names})


def add_vgmm_args(p):
    """Add the options of ``latentkit fit vgmm`` to ``p``: those of
    :class:`~latentkit.mixture.VariationalGaussianMixture`.

    The options every model shares (--dataset, --data, -k, --max-iter, --seed, ...) are
    added by the driver, not here.

    Parameters
    ----------
    p : argparse.ArgumentParser
        The parser of the ``fit vgmm`` subcommand.

    Examples
    --------
    >>> import argparse
    >>> from latentkit.cli.fit_mixture import add_vgmm_args
    >>> p = argparse.ArgumentParser()
    >>> add_vgmm_args(p)
    >>> p.parse_args(["--weight-concentration-prior", "0.1"]).weight_concentration_prior
    0.1
    """
    add_gmm_args(p)  # the same covariance, initialisation and scaling options
    p.add_argument("--weight-concentration-prior", type=float, default=None,
                   help="Dirichlet alpha_0 of the weights (default 1/k)")


def add_dpmm_args(p):
    """Add the options of ``latentkit fit dpmm`` to ``p``: those of
    :class:`~latentkit.mixture.DirichletProcessMixture`.

    The options every model shares (--dataset, --data, -k, --max-iter, --seed, ...) are
    added by the driver, not here.

    Parameters
    ----------
    p : argparse.ArgumentParser
        The parser of the ``fit dpmm`` subcommand.

    Examples
    --------
    >>> import argparse
    >>> from latentkit.cli.fit_mixture import add_dpmm_args
    >>> p = argparse.ArgumentParser()
    >>> add_dpmm_args(p)
    >>> p.parse_args(["--concentration", "2"]).concentration
    2.0
    """
    add_gmm_args(p)
    p.add_argument("--concentration", type=float, default=None,
                   help="alpha of the Beta(1, alpha) sticks (default 1)")
    p.add_argument("--truncation-method", default="fixed", choices=["fixed", "tail"],
                   help="v_T = 1 (Blei & Jordan) or the prior tail (Kurihara et al.)")


def _run_bayes_mixture(args, progress, kind):
    # lazy: numba, ~2 s start-up
    from ..distributions import Gaussian
    from ..mixture import DirichletProcessMixture, VariationalGaussianMixture

    bunch, X, n_missing = _load_table(args)
    # the library defaults run the bound to convergence (tol_ = 1e-3 / n_samples, scikit-learn's
    # total-bound rule, and max_iter=1000): no CLI-only override
    common = _given(max_iter=args.max_iter, tol=args.tol, n_init=args.n_init,
                  init=args.init)
    gaussian = dict(covariance_type=args.covariance_type, missing=args.missing,
                    **_given(reg_covar=args.reg_covar))
    if kind == "vgmm":
        model = VariationalGaussianMixture(
            random_state=args.seed, callback=progress.callback, **gaussian,
            **_given(n_components=args.n_components,
                     weight_concentration_prior=args.weight_concentration_prior), **common)
        k = model.n_components
        desc = f"VariationalGaussianMixture(n_components={k}, covariance_type={args.covariance_type!r})"
    else:
        component = Gaussian(**gaussian)  # the default one as the default string
        if component.get_params() == Gaussian().get_params():
            component = "gaussian"
        model = DirichletProcessMixture(
            component=component, random_state=args.seed,
            truncation_method=args.truncation_method, callback=progress.callback,
            **_given(n_components=args.n_components, concentration=args.concentration),
            **common)
        k = model.n_components
        desc = (f"DirichletProcessMixture(n_components={k}, truncation_method="
                f"{args.truncation_method!r}, covariance_type={args.covariance_type!r})")
    progress.total = model.max_iter * (model.n_init if isinstance(model.n_init, int) else 1)
    with progress:
        model.fit(X)
    n, d = X.shape
    init_text, init_ran, fallback = init_summary(model)
    keep = np.flatnonzero(model.weights_ > 0.01)
    pred = model.score(X)
    lines = [
        f"data        {bunch['name']}: {n} samples x {d} features"
        + (" (standardised)" if args.standardize else "")
        + (f", {n_missing} missing entries marginalised" if n_missing else ""),
        f"model       {desc}",
        f"init        {init_text}",
        f"iterations  {model.n_iter_} ({'converged' if model.converged_ else 'not converged'}, "
        f"tol={model.tol_:.3g})",
        f"ELBO        {model.lower_bound_:.6f} nats per sample",
        f"posterior predictive  {pred:.6f} nats per sample (mixture of Student-t)",
        f"effective components  {model.n_effective_components_} (expected weight > 0.01)",
        "weights of the effective components",
        "    " + "  ".join(f"{w:>11.5g}" for w in model.weights_[keep]),
        "means of the effective components (one row per component)",
        *_fmt_matrix(model.means_[keep]),
    ]
    summary = {"n_features": d, "weights": _tolist(model.weights_),
               "means": _tolist(model.means_),
               "n_effective_components": int(model.n_effective_components_),
               "covariance_type": args.covariance_type,
               "predictive_log_density_per_sample": _finite(pred),
               "init": model.init if isinstance(model.init, str) else "given",
               "init_used": init_ran, "init_fallback": fallback}
    return FitResult(model, summary, lines, n, plot_data={"X": X})


def run_vgmm(args, progress):
    """Run ``latentkit fit vgmm``: load the data, fit the model, format the report.

    The model: :class:`~latentkit.mixture.VariationalGaussianMixture`.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed options of ``fit vgmm`` (:func:`latentkit.cli.build_parser`).
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
    >>> from latentkit.cli import Progress, build_parser
    >>> from latentkit.cli.fit_mixture import run_vgmm
    >>> args = build_parser().parse_args(["fit", "vgmm", "--dataset", "old_faithful", "-k", "2"])
    >>> result = run_vgmm(args, Progress(None, enabled=False))
    >>> result.n_samples, type(result.model).__name__
    (272, 'VariationalGaussianMixture')
    >>> print(result.lines[1])
    model       VariationalGaussianMixture(n_components=2, covariance_type='full')
    """
    return _run_bayes_mixture(args, progress, "vgmm")


def run_dpmm(args, progress):
    """Run ``latentkit fit dpmm``: load the data, fit the model, format the report.

    The model: :class:`~latentkit.mixture.DirichletProcessMixture`.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed options of ``fit dpmm`` (:func:`latentkit.cli.build_parser`).
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
    >>> from latentkit.cli import Progress, build_parser
    >>> from latentkit.cli.fit_mixture import run_dpmm
    >>> args = build_parser().parse_args(["fit", "dpmm", "--dataset", "old_faithful", "-k", "3"])
    >>> result = run_dpmm(args, Progress(None, enabled=False))
    >>> result.n_samples, type(result.model).__name__
    (272, 'DirichletProcessMixture')
    >>> print(result.lines[1])
    model       DirichletProcessMixture(n_components=3, truncation_method='fixed',
    covariance_type='full')
    """
    return _run_bayes_mixture(args, progress, "dpmm")

