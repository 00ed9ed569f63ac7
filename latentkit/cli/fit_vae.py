"""``latentkit fit vae``: a variational autoencoder (AEVB) on a table of numbers; on optdigits
also the test ELBO, the importance-weighted test log-likelihood and a 5-NN accuracy of the test
digits in latent space."""

import numpy as np
from scipy.spatial import cKDTree

from .. import datasets as ds
from ._common import FitResult, _finite, _given, load_input

__all__ = ["add_vae_args", "run_vae"]


def add_vae_args(p):
    p.add_argument("--latent-dim", type=int, default=2, help="latent dimension (default 2)")
    p.add_argument("--hidden", type=int, nargs="*", default=[256], metavar="H",
                   help="encoder hidden-layer widths, reversed for the decoder (default 256)")
    p.add_argument("--activation", default="relu", choices=["relu", "tanh", "softplus"])
    p.add_argument("--likelihood", default="bernoulli",
                   choices=["bernoulli", "gaussian", "categorical"],
                   help="p(x|z) (default bernoulli; optdigits is then binarised at count >= 8, "
                        "with gaussian it is scaled to [0, 1])")
    p.add_argument("--binarize", type=float, default=None, metavar="T",
                   help="bernoulli with --data: use X > T")
    p.add_argument("--epochs", type=int, default=None, help="maximum epochs (default 100; "
                   "--max-iter is the same)")
    p.add_argument("--batch-size", type=int, default=None, help="minibatch size (default 100)")
    p.add_argument("--learning-rate", type=float, default=None, help="Adam step (default 1e-3)")
    p.add_argument("--n-mc-samples", type=int, default=None, help="draws of z per point")
    p.add_argument("--kl-warmup-epochs", type=float, default=None)
    p.add_argument("--free-bits", type=float, default=None)
    p.add_argument("--bayesian-decoder", action="store_true",
                   help="mean-field Gaussian posterior over the decoder weights")
    p.add_argument("--early-stopping", action="store_true",
                   help="hold out 10%% of the training data and stop on its ELBO")
    p.add_argument("--n-importance", type=int, default=100,
                   help="importance samples of the log-likelihood estimate (default 100)")


def run_vae(args, progress):
    from ..neural import VAE  # lazy: numba, ~2 s start-up

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
    model = VAE(latent_dim=args.latent_dim, hidden_layer_sizes=tuple(args.hidden),
                activation=args.activation, likelihood=args.likelihood, binarize=binarize,
                bayesian_decoder=args.bayesian_decoder, early_stopping=args.early_stopping,
                random_state=args.seed, callback=progress.callback,
                **_given(max_iter=epochs, tol=args.tol, batch_size=args.batch_size,
                       learning_rate=args.learning_rate, n_mc_samples=args.n_mc_samples,
                       kl_warmup_epochs=args.kl_warmup_epochs, free_bits=args.free_bits))
    progress.total = model.max_iter
    with progress:
        model.fit(X)
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
               "active_units": int(model.active_units_)}
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
            _, nn = cKDTree(Ztr).query(Zte, k=5)
            pred = np.array([np.bincount(v, minlength=int(y.max()) + 1).argmax() for v in y[nn]])
            acc = float((pred == y_test).mean())
            lines.append(f"5-NN accuracy of the test digits in latent space  {acc:.3f}")
            summary["knn_accuracy"] = acc
    lines.append(f"active units {model.active_units_} of {model.latent_dim} (Burda et al. 2016)")
    return FitResult(model, summary, lines, X.shape[0], plot_data={"X": X, "y": y})

