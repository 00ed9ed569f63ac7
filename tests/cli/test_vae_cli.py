"""`latentkit fit vae` end to end on the bundled optdigits (a tiny, short fit)."""

import io

import pytest

from latentkit.cli import main
from latentkit.io import load


def test_fit_vae_cli_prints_train_and_test_elbo_and_saves(tmp_path):
    path = str(tmp_path / "vae.npz")
    out = io.StringIO()
    rc = main(["fit", "vae", "--dataset", "optdigits", "--latent-dim", "2", "--hidden", "16",
               "--max-iter", "2", "--n-importance", "5", "--out", path, "--quiet"], out=out)
    assert rc == 0
    lines = {ln.split("  ")[0].strip(): ln for ln in out.getvalue().splitlines()}
    for key in ("train ELBO", "test ELBO"):
        value = float(lines[key].split()[2])
        assert -60 < value < 0, lines[key]
    assert "test log-likelihood (importance weighted, K=5)" in out.getvalue()
    assert "train 3823 x 64, test 1797" in out.getvalue()
    model = load(path)
    from latentkit.datasets import load_optdigits

    X = load_optdigits("test", scale="binary").data[:50]
    assert model.transform(X).shape == (50, 2)
    assert model.n_iter_ == 2 and model.lower_bounds_.shape == (2,)


def test_fit_vae_cli_plot_folds_latent_map_and_decoded_grid(tmp_path):
    """--plot replaces the former --plot-latent/--plot-samples: one figure with the ELBO
    trace, the latent map and (latent_dim 2) the decoded grid; any latent_dim works."""
    pytest.importorskip("matplotlib")
    for dim in ("2", "3"):
        png = tmp_path / f"vae{dim}.png"
        rc = main(["fit", "vae", "--hidden", "8", "--max-iter", "1", "--n-importance", "2",
                   "--latent-dim", dim, "--plot", str(png), "--quiet"], out=io.StringIO())
        assert rc == 0
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(SystemExit) as exc:  # the old option is gone: argparse's usage error
        main(["fit", "vae", "--plot-latent", str(tmp_path / "x.png"), "--quiet"],
             out=io.StringIO())
    assert exc.value.code == 2
