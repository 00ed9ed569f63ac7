"""``latentkit fit vae``: a variational autoencoder (AEVB) on a table of numbers; on optdigits
also the test ELBO, the importance-weighted test log-likelihood and a 5-NN accuracy of the test
digits in latent space. ``--private`` trains a :class:`latentkit.neural.PrivateVAE` (DP-SGD) and
prints the neighbouring relation, the accountant's epsilon (both conversions) and the noise
multiplier."""

import math

import numpy as np

from .. import datasets as ds
from ._common import CLIError, FitResult, _finite, _given, load_input

__all__ = ["add_vae_args", "run_vae"]


def add_vae_args(p):
    """Add the options of ``latentkit fit vae`` to ``p``: those of
    :class:`~latentkit.neural.VAE`.

    The options every model shares (--dataset, --data, -k, --max-iter, --seed, ...) are
    added by the driver, not here.

    Parameters
    ----------
    p : argparse.ArgumentParser
        The parser of the ``fit vae`` subcommand.

    Examples
    --------
    >>> import argparse
    >>> from latentkit.cli.fit_vae import add_vae_args
    >>> p = argparse.ArgumentParser()
    >>> add_vae_args(p)
    >>> p.parse_args(["--latent-dim", "3"]).latent_dim
    3
    """
    p.add_argument("--latent-dim", type=int, default=2, help="latent dimension (default 2)")
    p.add_argument("--hidden", type=int, nargs="*", default=[256], metavar="H",
                   help="encoder hidden-layer widths, reversed for the decoder (default 256)")
    p.add_argument("--activation", default="relu", choices=["relu", "tanh", "softplus"],
                   help="hidden-layer activation of the encoder and decoder (default relu)")
    p.add_argument("--likelihood", default="bernoulli",
                   choices=["bernoulli", "gaussian", "categorical"],
                   help="p(x|z) (default bernoulli; optdigits is then binarised at count >= 8, "
                        "with gaussian it is scaled to [0, 1])")
    p.add_argument("--binarize", type=float, default=None, metavar="T",
                   help="bernoulli with --data: use X > T (default: the data must already be "
                        "0/1)")
    p.add_argument("--epochs", type=int, default=None, help="maximum epochs (default 100; "
                   "--max-iter is the same)")
    p.add_argument("--batch-size", type=int, default=None, help="minibatch size (default 100)")
    p.add_argument("--learning-rate", type=float, default=None, help="Adam step (default 1e-3)")
    p.add_argument("--n-mc-samples", type=int, default=None, help="Monte-Carlo draws of z per point in each "
                   "ELBO estimate (default 1)")
    p.add_argument("--kl-warmup-epochs", type=float, default=None, metavar="EPOCHS",
                   help="epochs over which the KL term's weight rises linearly from 0 to 1 "
                        "(default 0: the full ELBO from the start)")
    p.add_argument("--free-bits", type=float, default=None, metavar="NATS",
                   help="minimum KL per latent dimension, in nats per sample, below which the "
                        "KL is not penalised (default 0)")
    p.add_argument("--bayesian-decoder", action="store_true",
                   help="mean-field Gaussian posterior over the decoder weights")
    p.add_argument("--early-stopping", action="store_true",
                   help="hold out 10%% of the training data and stop on its ELBO")
    p.add_argument("--n-importance", type=int, default=100,
                   help="importance samples of the log-likelihood estimate (default 100)")
    g = p.add_argument_group("differential privacy (DP-SGD)")
    g.add_argument("--private", action="store_true",
                   help="train by DP-SGD: Poisson-sampled minibatches, per-example gradients "
                        "clipped to --clip-norm, Gaussian noise (protects one training row)")
    g.add_argument("--epsilon", type=float, default=None,
                   help="--private: epsilon of the whole fit (default 1; inf: no noise)")
    g.add_argument("--delta", type=float, default=None, help="--private: delta (default 1e-5)")
    g.add_argument("--clip-norm", type=float, default=1.0,
                   help="--private: L2 bound of every per-example gradient (default 1)")
    g.add_argument("--noise-multiplier", type=float, default=None,
                   help="--private: noise std over --clip-norm (default: calibrated so that "
                        "--max-iter epochs spend the budget; given: stop when it is spent)")
    g.add_argument("--accountant", default="rdp_improved", choices=["rdp", "rdp_improved"],
                   help="--private: RDP-to-(epsilon, delta) conversion of the budget (default "
                        "rdp_improved)")


def _privacy_lines(model, delta):
    """The privacy part of the report of ``fit vae --private``."""
    rep = model.privacy_report_
    return [
        f"privacy     neighbouring relation: {rep['neighbouring']}; DP-SGD, "
        f"{rep['steps']} steps, sampling rate q = {rep['sampling_rate']:.4g} (Poisson), "
        f"clip norm {rep['clip_norm']:g}",
        f"  noise     noise multiplier {rep['noise_multiplier']:.4g} (noise std "
        f"{rep['noise_multiplier'] * rep['clip_norm']:.4g})",
        f"  spent     epsilon = {rep['epsilon_rdp_improved']:.4g} ('rdp_improved'), "
        f"{rep['epsilon_rdp']:.4g} ('rdp') at delta = {delta:g}; budget {rep['epsilon']:g}",
    ]


def _private_result(args, model, X, test, name):
    """The report of ``fit vae --private``: only released quantities, i.e. the private
    parameters' privacy report and numbers computed from them and PUBLIC data (the held-out
    test digits of optdigits). Nothing computed from the training rows is printed or put in
    --json: no training ELBO, no active units, no 5-NN accuracy (it would encode the training
    rows), no count of clipped gradients. The number of training rows is public under the
    relation (it sets the sampling rate) and is printed. ``--plot`` draws the latent codes of
    the public test rows."""
    X_test, y_test = test
    lines = [
        f"data        {name}: train {X.shape[0]} x {X.shape[1]} (the number of rows is not "
        f"protected)" + (f", test {X_test.shape[0]} (public)" if X_test is not None else ""),
        f"model       VAE(latent_dim={model.latent_dim}, hidden_layer_sizes="
        f"{model.hidden_layer_sizes}, activation={model.activation!r}, "
        f"likelihood={model.likelihood!r}, bayesian_decoder={model.bayesian_decoder})",
        f"epochs      {model.n_iter_} (the budget's; DP-SGD stops when it is spent)",
    ]
    lines += _privacy_lines(model, args.delta)
    rep = model.privacy_report_
    if rep.get("noise_dominated"):
        lines.append(f"  WARNING   the noise dominates the released gradients (noise norm "
                     f"{rep['noise_norm']:.4g} >= estimated signal norm "
                     f"{rep['signal_norm']:.4g}): the network is mostly noise")
    summary = {"n_features": int(X.shape[1]), "latent_dim": int(model.latent_dim),
               "active_units": None,
               "privacy": {k: (None if isinstance(v, float) and math.isinf(v) else v)
                           for k, v in rep.items()}}
    if X_test is not None:  # public held-out data: a post-processing of the private parameters
        test_elbo, test_se = model.elbo(X_test, n_samples=10, return_std=True)
        test_ll = model.log_likelihood(X_test, n_importance=args.n_importance)
        lines += [f"test ELBO   {test_elbo:.4f} +- {test_se:.4f} nats per sample (10 draws)",
                  f"test log-likelihood (importance weighted, K={args.n_importance})  "
                  f"{test_ll:.4f} nats per sample"]
        summary.update(test_elbo=_finite(test_elbo), test_elbo_se=_finite(test_se),
                       test_log_likelihood=_finite(test_ll))
    lines.append("active units withheld, and the train ELBO and the 5-NN accuracy (computed "
                 "from the training rows without noise)")
    return FitResult(model, summary, lines, X.shape[0], plot_data={"X": X_test, "y": y_test})


def run_vae(args, progress):
    """Run ``latentkit fit vae``: load the data, fit the model, format the report.

    The model: :class:`~latentkit.neural.VAE`.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed options of ``fit vae`` (:func:`latentkit.cli.build_parser`).
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
    >>> path = os.path.join(tempfile.mkdtemp(), "data.csv")
    >>> rng = np.random.default_rng(0)
    >>> np.savetxt(path, np.r_[rng.normal(0, 1, (20, 2)), rng.normal(6, 1, (20, 2))],
    ...                        delimiter=",")
    >>> from latentkit.cli import Progress, build_parser
    >>> from latentkit.cli.fit_vae import run_vae
    >>> args = build_parser().parse_args(["fit", "vae", "--data", path, "--hidden", "8",
    ...                                   "--epochs", "2", "--likelihood", "gaussian"])
    >>> result = run_vae(args, Progress(None, enabled=False))
    >>> result.n_samples, type(result.model).__name__
    (40, 'VAE')
    >>> print(result.lines[1])
    model       VAE(latent_dim=2, hidden_layer_sizes=(8,), activation='relu',
    likelihood='gaussian', bayesian_decoder=False)
    """
    from ..neural import VAE, PrivateVAE  # lazy: numba, ~2 s start-up

    X_test = y_test = None
    y = None
    binarize = args.binarize
    if args.data is None and args.dataset == "optdigits":
        scale = "binary" if args.likelihood == "bernoulli" else "unit"
        tr, te = ds.load_optdigits("train", scale=scale), ds.load_optdigits("test", scale=scale)
        X, y, X_test, y_test = tr.data, tr.target, te.data, te.target
        name = f"optdigits ({'binarised at count >= 8' if scale == 'binary' else 'counts / 16'})"
    else:
        bunch = load_input(args, "matrix")
        X = np.asarray(bunch.data, dtype=np.float64)
        y = bunch.get("target")
        name = bunch["name"]
    epochs = args.epochs if args.epochs is not None else args.max_iter
    cls, private = VAE, {}
    for flag in ("epsilon", "delta"):  # else a fit the user believes private would run without
        if not args.private and getattr(args, flag) is not None:
            raise CLIError(f"--{flag} applies to --private only; add --private for a "
                           "differentially private fit.")
    if args.private and getattr(args, "plot", None) and X_test is None:
        raise CLIError("--plot with --private draws the latent codes of public held-out rows "
                       "(optdigits' test digits); with --data there are none, and a plot of "
                       "the training rows would not be private.")
    if args.private:
        args.epsilon = 1.0 if args.epsilon is None else args.epsilon
        args.delta = 1e-5 if args.delta is None else args.delta
        if not args.epsilon > 0 or not 0 < args.delta < 1:
            raise CLIError(f"--epsilon must be > 0 and --delta in (0, 1), got {args.epsilon} "
                           f"and {args.delta}.")
        cls = PrivateVAE
        private = dict(epsilon=args.epsilon, delta=args.delta, clip_norm=args.clip_norm,
                       noise_multiplier=args.noise_multiplier, accountant=args.accountant)
    model = cls(latent_dim=args.latent_dim, hidden_layer_sizes=tuple(args.hidden),
                activation=args.activation, likelihood=args.likelihood, binarize=binarize,
                bayesian_decoder=args.bayesian_decoder, early_stopping=args.early_stopping,
                random_state=args.seed, callback=progress.callback,
                **_given(max_iter=epochs, tol=args.tol, batch_size=args.batch_size,
                       learning_rate=args.learning_rate, n_mc_samples=args.n_mc_samples,
                       kl_warmup_epochs=args.kl_warmup_epochs, free_bits=args.free_bits),
                **private)
    progress.total = model.max_iter
    with progress:
        model.fit(X)
    if args.private:
        return _private_result(args, model, X, (X_test, y_test), name)
    train_elbo, train_se = model.elbo(X, n_samples=10, return_std=True)
    lines = [
        f"data        {name}: train {X.shape[0]} x {X.shape[1]}"
        + (f", test {X_test.shape[0]}" if X_test is not None else ""),
        f"model       VAE(latent_dim={model.latent_dim}, hidden_layer_sizes="
        f"{model.hidden_layer_sizes}, activation={model.activation!r}, "
        f"likelihood={model.likelihood!r}, bayesian_decoder={model.bayesian_decoder})",
        f"epochs      {model.n_iter_} ({'converged' if model.converged_ else 'not converged'}, "
        f"tol={model.tol})",
        f"train ELBO  {train_elbo:.4f} +- {train_se:.4f} nats per sample (10 draws)",
    ]
    summary = {"n_features": int(X.shape[1]), "latent_dim": int(model.latent_dim),
               "train_elbo": _finite(train_elbo), "train_elbo_se": _finite(train_se),
               "active_units": None if model.active_units_ is None else int(model.active_units_)}
    if X_test is not None:
        test_elbo, test_se = model.elbo(X_test, n_samples=10, return_std=True)
        test_ll = model.log_likelihood(X_test, n_importance=args.n_importance)
        lines += [f"test ELBO   {test_elbo:.4f} +- {test_se:.4f} nats per sample (10 draws)",
                  f"test log-likelihood (importance weighted, K={args.n_importance})  "
                  f"{test_ll:.4f} nats per sample"]
        summary.update(test_elbo=_finite(test_elbo), test_elbo_se=_finite(test_se),
                       test_log_likelihood=_finite(test_ll))
        if model.latent_dim <= 10 and y is not None:
            Ztr, Zte = model.transform(X), model.transform(X_test)
            from scipy.spatial import cKDTree  # lazy: 0.1-0.3 s of SciPy for the other fits
            _, nn = cKDTree(Ztr).query(Zte, k=5)
            pred = np.array([np.bincount(v, minlength=int(y.max()) + 1).argmax() for v in y[nn]])
            acc = float((pred == y_test).mean())
            lines.append(f"5-NN accuracy of the test digits in latent space  {acc:.3f}")
            summary["knn_accuracy"] = acc
    lines.append(f"active units {model.active_units_} of {model.latent_dim} (Burda et al. 2016)"
                 if model.active_units_ is not None else
                 "active units withheld (computed from the training rows without noise)")
    return FitResult(model, summary, lines, X.shape[0], plot_data={"X": X, "y": y})

