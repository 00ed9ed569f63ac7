"""The public import paths survive moves between modules (issue 12: modules split by concern).

``latentkit.base`` keeps exporting the building blocks that now live in their own private
modules, the package-level names are the same objects, and every name a module lists in its
``__all__`` exists."""

import importlib
import pkgutil

import pytest

import latentkit
import latentkit.base as base

BASE_NAMES = ["LatentModel", "Stats", "ConvergenceMonitor", "NotFittedError",
              "ConvergenceWarning", "ELBODecreaseWarning", "ParamsMixin", "clone",
              "stats_dataclass"]


def test_base_exports_its_building_blocks():
    assert sorted(base.__all__) == sorted(BASE_NAMES)
    from latentkit.base import (ConvergenceMonitor, ConvergenceWarning,  # noqa: F401
                                ELBODecreaseWarning, LatentModel, NotFittedError, ParamsMixin,
                                Stats, clone, stats_dataclass)
    for name in ("LatentModel", "ConvergenceMonitor", "NotFittedError", "ConvergenceWarning",
                 "clone"):
        assert getattr(latentkit, name) is getattr(base, name)
    assert issubclass(base.LatentModel, base.ParamsMixin)
    assert issubclass(base.NotFittedError, ValueError)
    assert issubclass(base.NotFittedError, AttributeError)


def test_vae_private_paths_used_by_tests_and_benchmarks():
    from latentkit.neural import VAE, VAEStats
    from latentkit.neural._vae import VAE as VAE2, VAEStats as VAEStats2, _VAEData  # noqa: F401

    assert VAE is VAE2 and VAEStats is VAEStats2 and latentkit.VAE is VAE
    for name in ("_with_noise", "_elbo_draws", "elbo", "log_likelihood", "score"):
        assert callable(getattr(VAE, name)), name
    # what the VAE holds (composition, not mixins): its networks, objective and bounds
    from latentkit.neural._bounds import VAEBounds
    from latentkit.neural._gradients import VAEObjective
    from latentkit.neural._network import VAENetwork

    assert VAE.__mro__[1] is base.LatentModel
    vae = VAE(hidden_layer_sizes=(3,), max_iter=1, random_state=0).fit([[0.0, 1.0], [1.0, 0.0]])
    assert isinstance(vae._network, VAENetwork) and isinstance(vae._bounds, VAEBounds)
    assert isinstance(vae._objective, VAEObjective) and callable(vae._objective)
    assert vae._objective.global_terms(vae.params_)[0] == vae._global_elbo_terms()
    # the VAE's held-out bound, not the generic one of LatentModel
    assert VAE.elbo is not base.LatentModel.elbo


def _modules():
    names = ["latentkit"]
    for info in pkgutil.walk_packages(latentkit.__path__, "latentkit."):
        names.append(info.name)
    return sorted(names)


@pytest.mark.parametrize("module", _modules())
def test_every_all_entry_exists(module):
    mod = importlib.import_module(module)
    for name in getattr(mod, "__all__", ()):
        assert hasattr(mod, name), f"{module}.__all__ lists {name!r}, which it does not define"


# ---------------------------------------------------------------- issue 25: spectral/ below the
# families. What needs a model moved into the family; the old public paths keep working.

MOVED_FROM_SPECTRAL = {"spectral_init_gmm": "latentkit.mixture",
                       "spectral_responsibilities": "latentkit.mixture",
                       "spectral_init_lda": "latentkit.topic"}


@pytest.mark.parametrize("name", sorted(MOVED_FROM_SPECTRAL))
def test_moved_spectral_starts_keep_their_old_path_with_a_deprecation(name):
    import latentkit.spectral as spectral

    new = getattr(importlib.import_module(MOVED_FROM_SPECTRAL[name]), name)
    with pytest.warns(DeprecationWarning, match=rf"latentkit\.spectral\.{name} is deprecated.*"
                                                rf"use {MOVED_FROM_SPECTRAL[name]}\.{name}") as rec:
        old = getattr(spectral, name)
    assert old is new
    assert rec[0].filename == __file__  # the user's line, not latentkit's
    with pytest.warns(DeprecationWarning) as rec:
        from latentkit.spectral import spectral_init_gmm  # noqa: F401
    assert rec[0].filename == __file__
    with pytest.raises(AttributeError, match="no attribute 'spectral_init_nothing'"):
        spectral.spectral_init_nothing  # noqa: B018


def test_the_hmm_starts_moved_to_sequence_with_a_warning():
    import latentkit.sequence as sequence
    import latentkit.spectral as spectral

    for name in ("spectral_init_hmm", "spectral_init_gaussian_hmm", "spectral_init_poisson_hmm"):
        with pytest.warns(DeprecationWarning, match=f"latentkit.sequence.{name}") as rec:
            assert getattr(spectral, name) is getattr(sequence, name)
        assert rec[0].filename == __file__
        assert name in sequence.__all__ and name not in spectral.__all__


def test_from_import_of_a_moved_name_warns_once():
    """``from package import name`` looks the name up twice (the import system's ``hasattr``
    probe, then the statement): one warning, at this line."""
    import warnings

    for name in ("spectral_init_hmm", "spectral_init_gmm", "spectral_init_lda"):
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            exec(f"from latentkit.spectral import {name}", {"__name__": "user_code"})
        deprecations = [w for w in rec if issubclass(w.category, DeprecationWarning)]
        assert len(deprecations) == 1, [str(w.message) for w in deprecations]
        assert f"latentkit.spectral.{name} is deprecated" in str(deprecations[0].message)


def test_moved_names_have_one_home():
    from latentkit import exceptions, mixture, spectral, topic
    from latentkit._utils import words

    assert spectral.SpectralInitWarning is exceptions.SpectralInitWarning
    assert "spectral_init_gmm" in mixture.__all__ and "spectral_init_lda" in topic.__all__
    assert topic.LatentDirichletAllocation.top_words is words.TopWordsMixin.top_words
    assert spectral.SpectralLDA.top_words is words.TopWordsMixin.top_words


def test_importing_spectral_loads_no_model_family():
    """``latentkit.spectral`` is the layer under the families (a fresh interpreter)."""
    import subprocess
    import sys

    code = ("import sys, latentkit.spectral; print(sorted({m.split('.')[1] for m in sys.modules "
            "if m.startswith('latentkit.') and m.split('.')[1] in "
            "('mixture', 'topic', 'sequence', 'neural')}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=str(__import__("pathlib").Path(__file__).parents[2]))
    assert out.stdout.strip() == "[]", out.stdout
