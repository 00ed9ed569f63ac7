"""The sequence package after its split by concern (issue 12 item 5): every module under 700
lines, and every class a saved model file (or a user import) may name by its old module path
is still there, the same class."""

import importlib
import pathlib

import pytest

import latentkit.sequence as seq

OLD_PATHS = {
    "latentkit.sequence._emissions": [
        "HMMStats", "CategoricalHMMStats", "PoissonHMMStats", "GaussianHMMStats", "Emission",
        "CategoricalEmission", "PoissonEmission", "GaussianEmission", "GMMEmission",
        "VariationalCategoricalEmission", "VariationalGaussianEmission"],
    "latentkit.sequence._hmm": ["HiddenMarkovModel", "CategoricalHMM", "PoissonHMM",
                                "GaussianHMM", "SequenceData", "check_lengths"],
    "latentkit.sequence._variational": [
        "VariationalHMM", "VariationalCategoricalHMM", "VariationalGaussianHMM",
        "VariationalCategoricalEmission", "VariationalGaussianEmission"],
    "latentkit.sequence._gmm": ["GMMHMM", "GMMHMMStats", "GMMEmission"],
}


@pytest.mark.parametrize("module", sorted(OLD_PATHS))
@pytest.mark.filterwarnings(r"ignore:latentkit\.sequence\.(Gaussian|Poisson)Emission:DeprecationWarning")
def test_old_module_paths_still_resolve(module):
    mod = importlib.import_module(module)
    for name in OLD_PATHS[module]:
        assert getattr(mod, name) is getattr(seq, name), (module, name)


def test_modules_hold_under_700_lines():
    root = pathlib.Path(seq.__file__).parent
    sizes = {p.name: len(p.read_text().splitlines()) for p in root.glob("*.py")}
    assert max(sizes.values()) < 700, sizes
