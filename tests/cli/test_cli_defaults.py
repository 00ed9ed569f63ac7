"""One set of defaults (issue 27): every `latentkit fit` model built with no options has the
parameters of its class's defaults (the CLI passes only what was given), and --help states the
library's defaults. On the main branch of that time this failed for lda (--init spectral),
gmm/vgmm (-k 2 / 10 against 1), hmm --emission gmm (n_mix 2 against 1) and the text options."""

import inspect

import pytest

from latentkit import cli
from latentkit.cli import _common, _defaults
from latentkit.cli._progress import Progress


class _Built(Exception):
    pass


def _model_built_by(argv, monkeypatch):
    """The estimator the runner of `argv` builds: caught when its fit starts (``with
    progress:``), before any iteration."""
    seen = {}

    def enter(self):
        seen["model"] = inspect.currentframe().f_back.f_locals["model"]
        raise _Built

    monkeypatch.setattr(Progress, "__enter__", enter)
    args = cli.build_parser().parse_args(argv)
    with pytest.raises(_Built):
        cli.FIT_COMMANDS[args.model].run(args, Progress(None, enabled=False))
    return seen["model"]


# the CLI's only own choice: --seed 0 (a command gives the same result when run again)
_CLI_OWN = {"random_state", "callback"}


@pytest.mark.parametrize("name", ["lda", "plsa", "gmm", "vgmm", "dpmm", "hmm", "vae"])
def test_each_fit_command_without_options_builds_the_class_defaults(name, monkeypatch):
    model = _model_built_by(["fit", name], monkeypatch)
    default = type(model)()
    got = {k: v for k, v in model.get_params(deep=False).items() if k not in _CLI_OWN}
    want = {k: v for k, v in default.get_params(deep=False).items() if k not in _CLI_OWN}
    assert got == want
    assert model.random_state == 0  # --seed's documented default


def test_hmm_gmm_emission_and_raw_text_options_take_the_library_defaults(monkeypatch, tmp_path):
    from latentkit.sequence import GMMHMM
    from latentkit.text import TextVectorizer

    model = _model_built_by(["fit", "hmm", "--emission", "gmm"], monkeypatch)
    assert model.get_params()["n_mix"] == GMMHMM().n_mix
    folder = tmp_path / "docs"
    folder.mkdir()
    for i, t in enumerate(["cats and dogs", "dogs and birds", "fish swim", "cats purr"]):
        (folder / f"{i}.txt").write_text(t)
    args = cli.build_parser().parse_args(["fit", "lda", "--text", str(folder)])
    vec = _common._load_text_corpus(args)["vectorizer"]
    assert vec.get_settings() == TextVectorizer().get_settings()


def test_private_lda_defaults(monkeypatch):
    from latentkit.spectral import PrivateSpectralLDA

    seen = {}

    def fit(self, X):
        seen["model"] = self
        raise _Built

    monkeypatch.setattr(PrivateSpectralLDA, "fit", fit)
    args = cli.build_parser().parse_args(["fit", "lda", "--init", "spectral", "--private"])
    with pytest.raises(_Built):
        cli.FIT_COMMANDS["lda"].run(args, Progress(None, enabled=False))
    got = seen["model"].get_params()
    want = PrivateSpectralLDA(10).get_params()  # LDA's default k: the class has none
    assert {k: v for k, v in got.items() if k != "random_state"} == \
        {k: v for k, v in want.items() if k != "random_state"}


def test_help_states_the_library_defaults_and_choices(capsys):
    from latentkit.mixture import (DirichletProcessMixture, GaussianMixture,
                                   VariationalGaussianMixture)
    from latentkit.topic import PLSA, LatentDirichletAllocation

    classes = {"lda": LatentDirichletAllocation, "plsa": PLSA, "gmm": GaussianMixture,
               "vgmm": VariationalGaussianMixture, "dpmm": DirichletProcessMixture}
    for name, cls in classes.items():
        params = inspect.signature(cls).parameters
        assert _defaults.INIT_DEFAULTS[name] == params["init"].default
        assert _common._K_DEFAULTS[name] == params["n_components"].default
        with pytest.raises(SystemExit):
            cli.main(["fit", name, "--help"])
        text = " ".join(capsys.readouterr().out.split())
        assert f"(default {params['init'].default}, the library's)" in text
        assert all(c in text for c in _defaults.INIT_CHOICES[name])
        assert f"(default: the model's, {params['n_components'].default})" in text
