"""`latentkit fit vae` end to end on the bundled optdigits (a tiny, short fit)."""

import io

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


def test_fit_vae_cli_plots_or_clear_error(tmp_path, capsys):
    png = str(tmp_path / "latent.png")
    rc = main(["fit", "vae", "--hidden", "8", "--max-iter", "1", "--n-importance", "2",
               "--plot-latent", png, "--plot-samples", str(tmp_path / "s.png"), "--quiet"],
              out=io.StringIO())
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        assert rc == 2
        assert "matplotlib" in capsys.readouterr().err
    else:
        assert rc == 0
        assert (tmp_path / "latent.png").stat().st_size > 0
        assert (tmp_path / "s.png").stat().st_size > 0
    rc = main(["fit", "vae", "--latent-dim", "3", "--plot-latent", png, "--quiet"],
              out=io.StringIO())
    assert rc == 2
