"""The contract every public model keeps, run over ONE list of every public model.

The list is derived from the package (``latentkit.__all__`` and the ``__all__`` of every public
submodule), so a new public model fails :func:`test_every_public_model_has_a_case` until it is
given a tiny-data case here or in ``tests/_model_cases.py`` (docs/design.md, "Adding a model").
"""

import importlib
import inspect
import pickle
import warnings

import numpy as np
import pytest
from scipy.special import logsumexp
from scipy.stats import norm

import latentkit as lk
from latentkit.base import LatentModel, clone
from latentkit.testing import (assert_input_unchanged, check_latent_model,
                               check_sklearn_estimator, snapshot_input)

from _model_cases import CASES, SPECTRAL_CASES, _gauss, assert_same_model
from recipe_models import BernoulliMixture
from toy_models import ToyMixture

#: classes found by the walk that are not models of data, each with the reason
NOT_MODELS = {
    "LatentModel": "the abstract base every model derives from",
    "StochasticVI": "a driver that fits a model given to it (tests/core/test_inference.py)",
    "PrivateStochasticVI": ("a driver that fits a model given to it "
                            "(tests/privacy/test_private_svi.py)"),
    "TextVectorizer": "turns texts into counts; it fits a vocabulary, not a latent model",
    "RobustTensorPower": "decomposes a given tensor, not data (tests/spectral/test_power.py)",
    "PrivateTensorPower": "decomposes a given tensor, not data (tests/spectral/test_privacy.py)",
    "TruncatedTensorPower": "decomposes a given tensor, not data (tests/spectral/test_sparse.py)",
    "TensorCompletion": "completes a given tensor, not data (tests/spectral/test_completion.py)",
    "PrivateVAE": ("the VAE trained by DP-SGD: its noise comes from OS entropy (no two fits "
                   "agree) and partial_fit is refused; at epsilon=inf it is the VAE's fit bit "
                   "for bit (tests/neural/test_private_vae.py, which checks the estimator part)"),
}

#: the generic HMM classes, as a user composes them (not in _model_cases: no special data)
_EXTRA_CASES = {
    "HiddenMarkovModel": (lambda: lk.HiddenMarkovModel(2, lk.distributions.Poisson(),
                                                       random_state=0, max_iter=10),
                          CASES["PoissonHMM"][1]),
    "VariationalHMM": (lambda: lk.sequence.VariationalHMM(2, "categorical", random_state=0,
                                                          max_iter=10),
                       CASES["VariationalCategoricalHMM"][1]),
    # built only from the recipe in docs/design.md ("Adding a model")
    "ToyMixture": (lambda: ToyMixture(2, random_state=0, max_iter=20),
                   lambda n, s: _gauss(n, s, 1)),
    # a second one, a mixture of multivariate Bernoullis (tests/architecture/test_recipe_model.py)
    "BernoulliMixture": (lambda: BernoulliMixture(2, random_state=0, max_iter=20),
                         lambda n, s: (_gauss(n, s, 3) > 0.5).astype(float)),
    # fitted with times= (_fit_params); not in _model_cases, whose tests fit(X) alone
    "DynamicTopicModel": (lambda: lk.DynamicTopicModel(3, init="random", random_state=0,
                                                       max_iter=10),
                          CASES["LatentDirichletAllocation"][1]),
    # fitted with labels= (_fit_params)
    "LabeledLDA": (lambda: lk.LabeledLDA(1, random_state=0, max_iter=10),
                   CASES["LatentDirichletAllocation"][1]),
    "VariationalAutoregressiveHMM": (
        lambda: lk.VariationalAutoregressiveHMM(2, random_state=0, max_iter=10),
        lambda n, s: _gauss(n, s)),
    # fitted with inputs= (_fit_params)
    "InputOutputHMM": (lambda: lk.InputOutputHMM(2, random_state=0, max_iter=10),
                       lambda n, s: _gauss(n, s)),
    # fitted with covariates= (_fit_params)
    "DirichletMultinomialRegression": (
        lambda: lk.DirichletMultinomialRegression(3, random_state=0, max_iter=10),
        CASES["LatentDirichletAllocation"][1]),
}

_SPECTRAL_EXTRA = {
    "SparseSpectralGMM": (lambda: lk.spectral.SparseSpectralGMM(2, 3, random_state=0),
                          lambda n, s: _gauss(n, s, 3)),
}

LATENT_CASES = {**CASES, **_EXTRA_CASES}

_KMEANS_ORDER = {
    # The check shuffles the weighted rows but not the repeated ones; k-means++ seeding draws
    # rows by their position in the cumulative weights, so the same random numbers pick
    # different seeds and the fit converges to a different (or permuted) solution. In the same
    # row order the fits agree (test_kmeans_start_weighted_equals_repeated_rows in the mixture
    # tests). scikit-learn xfails KMeans for the same reason (meta-issue #16298).
    "check_sample_weight_equivalence_on_dense_data": (
        "k-means++ seeding depends on the row order, which the check changes"),
}

#: scikit-learn's check_estimator, where it applies: name -> (estimator, expected failures,
#: minimum number of passed checks)
SKLEARN_CASES = {
    # no expected failure: our NotFittedError subclasses scikit-learn's once it is loaded
    "GaussianMixture": (lambda: lk.GaussianMixture(random_state=0), {}, 40),
    "VariationalGaussianMixture": (lambda: lk.VariationalGaussianMixture(2, random_state=0),
                                   _KMEANS_ORDER, 40),
    # 3 components: the checks fit as few as 10 rows, and k-means++ needs n_samples >= 3
    "DirichletProcessMixture": (lambda: lk.DirichletProcessMixture(3, random_state=0),
                                _KMEANS_ORDER, 40),
    # the Gaussian likelihood (the Bernoulli default rejects the checks' real-valued data by
    # design). The VAE declares itself non-deterministic to scikit-learn: score_samples is a
    # Monte-Carlo estimate whose noise follows the row order, so the sample-order / subset
    # invariance checks do not apply.
    "VAE": (lambda: lk.VAE(likelihood="gaussian", hidden_layer_sizes=(4,), max_epochs=2,
                           batch_size=20, random_state=0), {}, 35),
}

#: the public models check_estimator does not apply to, with the reason
SKLEARN_NOT_APPLICABLE = {
    **{name: "sequences: fit needs lengths, and rows are not exchangeable" for name in (
        "HiddenMarkovModel", "CategoricalHMM", "GaussianHMM", "PoissonHMM", "GMMHMM",
        "VariationalHMM", "VariationalCategoricalHMM", "VariationalGaussianHMM", "SpectralHMM")},
    "HiddenSemiMarkovModel": "sequences: fit needs lengths, and rows are not exchangeable",
    "AutoregressiveHMM": "sequences: fit needs lengths, and rows are not exchangeable",
    "VariationalAutoregressiveHMM": "sequences: fit needs lengths, and rows are not "
                                    "exchangeable",
    **{name: "count data (documents x words): the checks feed real-valued, negative data"
       for name in ("LatentDirichletAllocation", "HierarchicalDirichletProcess", "PLSA",
                    "SpectralLDA", "PrivateSpectralLDA")},
    # not yet conformant (found when this list was made; scikit-learn 1.9):
    **{name: "check_pipeline_consistency fails (no '_parent_callback_ctx'); 39 checks pass"
       for name in ("SpectralGMM", "PrivateSpectralGMM")},
    "DirichletMultinomialMixture": "count data (documents x words): the checks feed "
                                   "real-valued, negative data",
    "BitermTopicModel": "count data (documents x words): the checks feed real-valued, "
                        "negative data",
    "DynamicTopicModel": "count data with a time per document (fit needs times=)",
    "LabeledLDA": "count data with labels per document (fit needs labels=)",
    "DirichletMultinomialRegression": "count data with covariates (fit needs covariates=)",
    "InputOutputHMM": "sequences with per-step inputs (fit needs inputs=; rows are not "
                      "exchangeable)",
    "SparseSpectralGMM": ("no n_features_in_; refuses n_components=1 and one-feature data with "
                          "messages scikit-learn does not recognise (7 checks fail)"),
}
ESTIMATOR_CASES = {**SPECTRAL_CASES, **_SPECTRAL_EXTRA}


def public_model_classes():
    """Every public class with ``fit``: from ``latentkit.__all__`` and the submodules'."""
    found = {}
    modules = [lk] + [importlib.import_module(f"latentkit.{s}") for s in lk._SUBMODULES]
    for mod in modules:
        for name in getattr(mod, "__all__", ()):
            obj = getattr(mod, name, None)
            if inspect.isclass(obj) and callable(getattr(obj, "fit", None)):
                found[obj.__name__] = obj
    return found


def _case_class(make):
    return type(make()).__name__


def test_every_public_model_has_a_case():
    covered = {_case_class(make) for make, _ in {**LATENT_CASES, **ESTIMATOR_CASES}.values()}
    public = public_model_classes()
    missing = sorted(set(public) - covered - set(NOT_MODELS))
    assert not missing, (f"public models without a case in tests/contract/test_common.py or "
                         f"tests/_model_cases.py: {missing}")
    stale = sorted(set(NOT_MODELS) - set(public))
    assert not stale, f"NOT_MODELS names classes that are no longer public: {stale}"
    # every ELBO model goes through check_latent_model, never the lighter estimator contract
    for make, _ in ESTIMATOR_CASES.values():
        assert not isinstance(make(), LatentModel), type(make()).__name__


def test_every_public_model_has_a_sklearn_decision():
    """check_estimator runs on a model, or the model is listed with the reason it does not."""
    public = set(public_model_classes()) - set(NOT_MODELS)
    decided = {_case_class(make) for make, _, _ in SKLEARN_CASES.values()}
    assert not decided & set(SKLEARN_NOT_APPLICABLE)
    missing = sorted(public - decided - set(SKLEARN_NOT_APPLICABLE))
    assert not missing, f"decide check_estimator for: {missing}"


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(SKLEARN_CASES))
def test_sklearn_check_estimator(name):
    make, expected_failed, min_passed = SKLEARN_CASES[name]
    check_sklearn_estimator(make(), expected_failed, min_passed=min_passed)


def _fit_params(model, n):
    if isinstance(model, lk.HiddenMarkovModel):
        return {"lengths": [n // 2, n - n // 2]}
    if isinstance(model, lk.DynamicTopicModel):
        return {"times": np.arange(n) % 3 + 2000}
    if isinstance(model, lk.LabeledLDA):
        return {"labels": [[[0], [1], [0, 1], []][i % 4] for i in range(n)]}
    if isinstance(model, lk.InputOutputHMM):
        u = np.random.default_rng(1).normal(size=(n, 2))
        return {"lengths": [n // 2, n - n // 2], "inputs": u}
    if isinstance(model, lk.DirichletMultinomialRegression):
        return {"covariates": np.ascontiguousarray(np.eye(3)[np.arange(n) % 3][:, :2])}
    return None


@pytest.mark.parametrize("name", sorted(LATENT_CASES))
def test_latent_model_contract(name):
    make, data = LATENT_CASES[name]
    model = make()
    X = data(60, 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", lk.ConvergenceWarning)
        check_latent_model(model, X, _fit_params(model, 60), exact=not isinstance(model, lk.VAE))


@pytest.mark.parametrize("name", sorted(ESTIMATOR_CASES))
def test_estimator_contract(name, monkeypatch):
    """The method-of-moments estimators are not fitted by an ELBO; they keep the estimator part
    of the contract: fit returns self, the same seed gives the same fit, a clone is unfitted
    with the same parameters, pickling round-trips and the input is left unchanged. (The
    private estimators' noise comes from OS entropy whatever the seed, tests/spectral/
    test_private_seeds.py; here it is replaced by a seeded source, so that the seed's part,
    the non-private randomness, is what is compared.)"""
    for mod in ("_private_lda", "_private_gmm"):
        monkeypatch.setattr(f"latentkit.spectral.{mod}._noise_rng",
                            lambda: np.random.default_rng(12345))
    make, data = ESTIMATOR_CASES[name]
    model = make()
    X = data(200, 0)
    before = snapshot_input(X)
    params = model.get_params()
    assert model.fit(X) is model
    assert_input_unchanged(before, X)
    assert model.get_params() == params, "fit changed the hyper-parameters"
    again = clone(model)
    assert again.get_params() == params
    assert not any(k.endswith("_") and not k.startswith("_") for k in vars(again))
    assert_same_model(model, again.fit(X), rtol=0, atol=0)
    assert_same_model(model, pickle.loads(pickle.dumps(model)), rtol=0, atol=0)


def test_toy_model_follows_the_recipe():
    """The toy model defines exactly the recipe's methods, nothing the base class should do."""
    own = {k for k in vars(ToyMixture) if not k.startswith("__")}
    recipe = {"_validate_data", "_init_params", "_empty_stats", "_e_step", "_m_step"}
    assert recipe <= own
    assert not {"fit", "partial_fit", "elbo", "_iterate"} & own
    X = _gauss(80, 1, 1)
    m = ToyMixture(2, random_state=0).fit(X)
    # its ELBO is the exact log-likelihood (EM, no global factors), by brute force
    ll = logsumexp(np.log(m.weights_) + norm.logpdf(X, m.means_, 1.0), axis=1).mean()
    np.testing.assert_allclose(m.elbo(X), ll, rtol=1e-12)
