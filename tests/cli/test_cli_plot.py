"""`latentkit fit <model> --plot FILE.png` for every fit command: the figure holds the ELBO
trace (the model's lower_bounds_) and the model's own picture from latentkit.plotting."""

import io
import json
from pathlib import Path

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")

from latentkit import cli  # noqa: E402
from latentkit.cli import FIT_COMMANDS, main  # noqa: E402

SHORT_TEXTS = Path(__file__).parents[1] / "data" / "short_texts.txt"

ARGS = {
    "gmm": ["--max-iter", "20"],
    "vgmm": ["-k", "4", "--max-iter", "30"],
    "dpmm": ["-k", "5", "--max-iter", "30"],
    "lda": ["--dataset", "kos", "-k", "3", "--max-iter", "2", "--init", "random"],
    "plsa": ["--dataset", "kos", "-k", "3", "--max-iter", "2"],
    "hdp": ["--dataset", "kos", "-k", "4", "--doc-components", "2", "--max-iter", "2"],
    "hmm": ["--max-iter", "20"],
    "hsmm": ["--max-iter", "5", "--max-duration", "5"],
    "arhmm": ["--max-iter", "5"],
    # the short-text models on 90 synthetic one-line texts (BTM's biterms grow with the
    # square of the document length: the bundled corpora are long texts)
    "dmm": ["--text", str(SHORT_TEXTS), "-k", "3", "--max-iter", "2"],
    "btm": ["--text", str(SHORT_TEXTS), "-k", "3", "--max-iter", "2"],
}


def test_every_fit_command_is_covered():
    # vae: tests/cli/test_vae_cli.py::test_fit_vae_cli_plot_folds_latent_map_and_decoded_grid
    # dtm, llda, dmr (need --text with a time / label / covariate column): tests/cli/test_cli_dtm.py
    # iohmm: refuses --plot (tests/cli/test_cli_iohmm.py)
    assert set(ARGS) | {"vae", "dtm", "llda", "dmr", "iohmm"} == set(FIT_COMMANDS)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(ARGS))
def test_fit_plot_writes_elbo_and_model_figure(name, tmp_path, monkeypatch):
    drawn = {}
    real = cli._save_plot

    def spy(path, model, data):  # keep the figure's ELBO panel for inspection
        from matplotlib.figure import Figure

        saved = Figure.savefig

        def savefig(fig, *a, **k):
            drawn["fig"] = fig
            return saved(fig, *a, **k)

        monkeypatch.setattr(Figure, "savefig", savefig)
        return real(path, model, data)

    monkeypatch.setattr(cli, "_save_plot", spy)
    png = tmp_path / f"{name}.png"
    out = io.StringIO()
    rc = main(["fit", name, *ARGS[name], "--plot", str(png), "--json", "--quiet"], out=out)
    assert rc == 0
    obj = json.loads(out.getvalue())
    assert obj["plot"] == str(png)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    fig = drawn["fig"]
    elbo_ax = fig.subfigs[0].axes[0]
    np.testing.assert_allclose(elbo_ax.lines[-1].get_ydata(), obj["lower_bounds"])
    model_axes = [a for a in fig.subfigs[1].axes if a.get_visible()]
    assert model_axes and any(a.has_data() for a in model_axes)


def test_plot_folder_must_exist(tmp_path, capsys):
    rc = main(["fit", "gmm", "--plot", str(tmp_path / "no" / "f.png"), "--quiet"],
              out=io.StringIO())
    assert rc == 2
    assert "--plot" in capsys.readouterr().err
