"""Benchmark: latentkit's NumPy VAE against an equivalent PyTorch CPU VAE on optdigits.

Both models: encoder 64 -> 256 -> 128 -> 2 x latent_dim, decoder latent_dim -> 128 -> 256 -> 64
(ReLU; ``--hidden`` changes the widths), Bernoulli logits, diagonal Gaussian q(z|x), one
reparameterised sample per data point, analytic KL, Adam (lr 3e-3, betas (0.9, 0.999),
eps 1e-8), minibatches of 100 reshuffled every epoch
(the last, smaller batch kept), the same number of epochs, the **same initial weights** (ours,
copied into PyTorch), and **float64 throughout** in both. Data: optdigits binarised at count >= 8
(``load_optdigits(scale='binary')``), train 3,823 / test 1,797.

Printed: milliseconds per epoch of each (mean over the epochs, whole training loop included;
the two are timed **interleaved**, one PyTorch epoch after each of ours, so that both see the
same load from other processes), the
ratio ours / PyTorch (target <= 1.5), and each model's test ELBO (nats per sample, 100
Monte-Carlo draws; target: ours within 1 nat of PyTorch's), plus our importance-weighted
log-likelihood and the 5-NN digit accuracy of the latent means (latent_dim=2; target >= 0.8).

PyTorch is used only here, never by latentkit; without it the script says so and runs ours.

Run::

    python benchmarks/bench_vae.py [--epochs 100] [--hidden 256 128] [--latent-dim 2]
                                   [--torch-threads N]

Our fit runs BLAS on one thread (threadpoolctl); ``--torch-threads 1`` gives PyTorch the same.
"""

import argparse
import time
import warnings

import numpy as np

from latentkit._utils.validation import check_random_state
from latentkit.datasets import load_optdigits
from latentkit.neural import VAE
from latentkit.neural._vae import _VAEData


def knn_accuracy(Z_train, y_train, Z_test, y_test, k=5):
    """k-NN accuracy in latent space (Euclidean), in NumPy."""
    d2 = (Z_test ** 2).sum(1)[:, None] - 2.0 * Z_test @ Z_train.T + (Z_train ** 2).sum(1)[None, :]
    nn = np.argpartition(d2, k, axis=1)[:, :k]
    votes = y_train[nn]
    pred = np.array([np.bincount(v, minlength=10).argmax() for v in votes])
    return float((pred == y_test).mean())


def initial_params(model, X):
    """The exact starting parameters ``model.fit(X)`` will use (same code path as fit)."""
    m = VAE(**model.get_params())
    m._check_common_params()
    m._validate_params()
    m._check_X(X, reset=True)
    m._init_params(_VAEData(X), check_random_state(model.random_state))
    return m


def make_torch(init, Xtr, batch_size, lr, seed, n_threads):
    """The PyTorch twin of ``init`` (same weights): returns ``(epoch, test_elbo)`` closures."""
    import torch
    from torch import nn

    torch.manual_seed(seed)
    if n_threads:
        torch.set_num_threads(n_threads)
    dt = torch.float64
    L = int(init.latent_dim)

    def linear(W, b):
        lin = nn.Linear(W.shape[0], W.shape[1]).to(dt)
        with torch.no_grad():
            lin.weight.copy_(torch.from_numpy(W.T.copy()))
            lin.bias.copy_(torch.from_numpy(b.copy()))
        return lin

    def mlp(layers):
        mods = []
        for i, (W, b) in enumerate(layers):
            if i:
                mods.append(nn.ReLU())
            mods.append(linear(W, b))
        return nn.Sequential(*mods)

    enc = mlp(init.encoder_layers_)
    dec = mlp(init.decoder_layers_)
    params = list(enc.parameters()) + list(dec.parameters())
    opt = torch.optim.Adam(params, lr=lr, betas=(0.9, 0.999), eps=1e-8)
    Xt = torch.from_numpy(Xtr)
    n = Xt.shape[0]

    def elbo_rows(x):
        h = enc(x)
        mu, logvar = h[:, :L], h[:, L:]
        z = mu + torch.exp(0.5 * logvar) * torch.randn_like(mu)
        logits = dec(z)
        rec = -nn.functional.binary_cross_entropy_with_logits(logits, x, reduction="none").sum(1)
        kl = 0.5 * (mu * mu + logvar.exp() - logvar - 1.0).sum(1)
        return rec - kl

    def epoch():
        perm = torch.randperm(n)
        for k in range(0, n, batch_size):
            xb = Xt[perm[k:k + batch_size]]
            loss = -elbo_rows(xb).mean()
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()

    def test_elbo(Xte, n_samples=100):
        with torch.no_grad():
            xte = torch.from_numpy(Xte)
            return float(np.mean([elbo_rows(xte).mean().item() for _ in range(n_samples)]))

    return epoch, test_elbo


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--epochs", type=int, default=100)
    ap.add_argument("--hidden", type=int, nargs="+", default=[256, 128])
    ap.add_argument("--latent-dim", type=int, default=2)
    ap.add_argument("--batch-size", type=int, default=100)
    ap.add_argument("--learning-rate", type=float, default=3e-3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--torch-threads", type=int, default=0,
                    help="torch.set_num_threads (0: PyTorch's default)")
    args = ap.parse_args(argv)

    tr = load_optdigits("train", scale="binary")
    te = load_optdigits("test", scale="binary")
    model = VAE(latent_dim=args.latent_dim, hidden_layer_sizes=tuple(args.hidden),
                activation="relu", likelihood="bernoulli", batch_size=args.batch_size,
                learning_rate=args.learning_rate, max_iter=args.epochs, tol=0.0,
                random_state=args.seed)
    init = initial_params(model, tr.data)
    enc = "-".join(map(str, [64, *args.hidden, 2 * args.latent_dim]))
    dec = "-".join(map(str, [args.latent_dim, *args.hidden[::-1], 64]))
    print(f"optdigits binarised (count >= 8): train {tr.data.shape}, test {te.data.shape}; "
          f"encoder {enc}, decoder {dec}, ReLU, Bernoulli, "
          f"batch {args.batch_size}, Adam lr {args.learning_rate}, {args.epochs} epochs, float64")

    try:
        import torch
    except ImportError:
        torch = None
        print("PyTorch is not installed: skipping the PyTorch comparison "
              "(pip install torch to run it).")
    # Interleaved timing: after each of our epochs, the callback runs one PyTorch epoch, so
    # both see the same machine load (other processes); our time excludes the callback's.
    torch_time = [0.0]
    if torch is not None:
        t_epoch_fn, t_test_fn = make_torch(init, tr.data, args.batch_size, args.learning_rate,
                                           args.seed, args.torch_threads)

        def callback(m, n_iter, elbo):
            t = time.perf_counter()
            t_epoch_fn()
            torch_time[0] += time.perf_counter() - t

        model.set_params(callback=callback)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.perf_counter()
        model.fit(tr.data)
        ours_epoch = (time.perf_counter() - t0 - torch_time[0]) / args.epochs
    np.testing.assert_array_equal(initial_params(model, tr.data).params_, init.params_)
    ours_test, ours_se = model.elbo(te.data, n_samples=100, return_std=True)
    ours_iwae = model.log_likelihood(te.data, n_importance=1000)
    acc = knn_accuracy(model.transform(tr.data), tr.target, model.transform(te.data), te.target)
    print(f"latentkit : {ours_epoch * 1e3:8.1f} ms/epoch   test ELBO {ours_test:.3f} "
          f"(+- {ours_se:.3f})   test IWAE(K=1000) {ours_iwae:.3f}   "
          f"train ELBO (last epoch) {model.lower_bound_:.3f}   active units "
          f"{model.active_units_}/{args.latent_dim}   5-NN accuracy (latent means) {acc:.3f}")
    if torch is None:
        return
    t_epoch = torch_time[0] / args.epochs
    t_test = t_test_fn(te.data)
    print(f"pytorch {torch.__version__} ({torch.get_num_threads()} threads): "
          f"{t_epoch * 1e3:8.1f} ms/epoch   test ELBO {t_test:.3f}")
    print(f"time per epoch ratio ours/pytorch = {ours_epoch / t_epoch:.2f} (target <= 1.5); "
          f"test ELBO ours - pytorch = {ours_test - t_test:+.3f} nats/sample "
          f"(target |.| <= 1)")


if __name__ == "__main__":
    main()
