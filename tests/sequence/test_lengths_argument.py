"""``lengths`` given as a bare number (``fit(X, lengths=2)``) is refused as "not a sequence of
ints" by every HMM path, before the sum is compared with the rows (QA of issue 31: PoissonHMM
said the lengths' sum was wrong)."""

import numpy as np
import pytest

from latentkit.inference import StochasticVI
from latentkit.sequence import (GMMHMM, CategoricalHMM, GaussianHMM, PoissonHMM,
                                VariationalCategoricalHMM, VariationalGaussianHMM,
                                spectral_init_gaussian_hmm, spectral_init_hmm,
                                spectral_init_poisson_hmm)
from latentkit.spectral import SpectralHMM

COUNTS = np.array([[0], [1], [2], [0], [1], [2]])
REALS = np.linspace(-1.0, 1.0, 12).reshape(6, 2)
MESSAGE = r"lengths must be a sequence of ints.*got the single value 2.*lengths=\[6\]"

FITS = {
    "CategoricalHMM": lambda n: CategoricalHMM(2).fit(COUNTS, lengths=n),
    "PoissonHMM": lambda n: PoissonHMM(2).fit(COUNTS, lengths=n),
    "GaussianHMM": lambda n: GaussianHMM(2).fit(REALS, lengths=n),
    "GMMHMM": lambda n: GMMHMM(2, n_mix=2).fit(REALS, lengths=n),
    "VariationalCategoricalHMM": lambda n: VariationalCategoricalHMM(2).fit(COUNTS, lengths=n),
    "VariationalGaussianHMM": lambda n: VariationalGaussianHMM(2).fit(REALS, lengths=n),
    "SpectralHMM": lambda n: SpectralHMM(2).fit(COUNTS.ravel(), lengths=n),
    "spectral_init_hmm": lambda n: spectral_init_hmm(COUNTS, lengths=n),
    "spectral_init_poisson_hmm": lambda n: spectral_init_poisson_hmm(COUNTS, lengths=n),
    "spectral_init_gaussian_hmm": lambda n: spectral_init_gaussian_hmm(REALS, lengths=n),
    "StochasticVI": lambda n: StochasticVI(PoissonHMM(2)).fit(COUNTS, lengths=n),
}


@pytest.mark.parametrize("path", sorted(FITS))
def test_a_bare_number_for_lengths_is_not_a_sequence(path):
    with pytest.raises(TypeError, match=MESSAGE):
        FITS[path](2)
    with pytest.raises(TypeError, match=MESSAGE):
        FITS[path](np.int64(2))


def test_a_fitted_hmm_checks_lengths_when_it_scores():
    model = CategoricalHMM(2, max_iter=2, tol=1e6, random_state=0).fit(COUNTS, lengths=[3, 3])
    for method in (model.score, model.predict, model.predict_proba, model.score_samples):
        with pytest.raises(TypeError, match=MESSAGE):
            method(COUNTS, lengths=2)


def test_dask_arrays_check_lengths_as_numpy_arrays():
    da = pytest.importorskip("dask.array")
    with pytest.raises(TypeError, match=MESSAGE):
        PoissonHMM(2).fit(da.from_array(COUNTS, chunks=3), lengths=2)
    with pytest.raises(ValueError, match="lengths sum to 5, but X has 6 rows"):
        PoissonHMM(2).fit(da.from_array(COUNTS, chunks=3), lengths=[2, 3])


@pytest.mark.parametrize("path", ["CategoricalHMM", "GaussianHMM", "SpectralHMM"])
@pytest.mark.parametrize("make, kind", [(lambda: (n for n in (3, 3)), "generator"),
                                        (lambda: iter([3, 3]), "list_iterator"),
                                        (lambda: {3}, "set")])
def test_a_generator_or_set_for_lengths_is_named_as_such(path, make, kind):
    # np.asarray made a 0-d object array of it, and the message said "got the single value
    # <generator object ...>; for one sequence give lengths=[6]" (iqa3)
    with pytest.raises(TypeError, match=rf"must be a list or array of ints .*got a {kind}"):
        FITS[path](make())
