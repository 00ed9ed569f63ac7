"""The recipe of docs/design.md (section 3) is enough to write a model: the two recipe models of
the tests (``toy_models.ToyMixture`` and ``recipe_models.BernoulliMixture``) import only public
latentkit modules, define only the recipe's hooks and inference methods, and give correct fits
(here: the mixture of Bernoullis against brute force and known parameters; both pass the
common contract in tests/contract/test_common.py)."""

import ast
import inspect

import numpy as np
import pytest
from scipy.special import betaln, logsumexp

import recipe_models
import toy_models
from latentkit.base import LatentModel
from latentkit.testing import match_components
from recipe_models import BernoulliMixture


def _binary(n, seed, probs=None):
    rng = np.random.default_rng(seed)
    if probs is None:
        probs = np.array([[0.9, 0.9, 0.1, 0.1, 0.8, 0.2],
                          [0.1, 0.2, 0.9, 0.8, 0.2, 0.9]])
    z = rng.integers(0, probs.shape[0], n)
    return (rng.random((n, probs.shape[1])) < probs[z]).astype(float), probs


@pytest.mark.parametrize("module", [toy_models, recipe_models])
def test_recipe_models_import_only_public_latentkit_modules(module):
    tree = ast.parse(inspect.getsource(module))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module.startswith("latentkit"):
            assert not any(part.startswith("_") for part in node.module.split(".")), node.module
        if isinstance(node, ast.Import):
            for alias in node.names:
                assert not any(p.startswith("_") for p in alias.name.split(".")), alias.name


#: what docs/design.md section 3 lets a model define: the hooks it lists and the inference
#: methods of step 4 (a private helper of the model's own is allowed, not a driver method)
_RECIPE_HOOKS = {"_validate_params", "_validate_data", "_init_params", "_empty_stats",
                 "_e_step", "_m_step", "_global_elbo_terms", "_check_state"}
_DRIVER_METHODS = {"fit", "partial_fit", "elbo", "_iterate", "_partial_step"}


def test_bernoulli_mixture_defines_only_recipe_hooks():
    own = {k for k in vars(BernoulliMixture) if not k.startswith("__")}
    assert {"_validate_data", "_init_params", "_empty_stats", "_e_step", "_m_step"} <= own
    assert not _DRIVER_METHODS & own
    # every private method it defines is either a listed hook or its own helper, never a
    # name of LatentModel's machinery
    overridden = {k for k in own if k.startswith("_") and hasattr(LatentModel, k)}
    assert overridden <= _RECIPE_HOOKS


def test_bernoulli_mixture_objective_is_the_brute_force_log_posterior():
    X, _ = _binary(200, 0)
    m = BernoulliMixture(2, probability_prior=2.0, random_state=0).fit(X)
    p, w = m.probs_, m.weights_
    # log p(x_i) by summing over the components, one row at a time
    ll = np.array([logsumexp([np.log(w[k]) + np.sum(x * np.log(p[k]) + (1 - x) * np.log(1 - p[k]))
                              for k in range(2)]) for x in X])
    log_prior = np.sum(np.log(p) + np.log(1 - p)) - p.size * betaln(2.0, 2.0)
    np.testing.assert_allclose(m.elbo(X), (ll.sum() + log_prior) / len(X), rtol=1e-12)
    np.testing.assert_allclose(m.score(X), ll.mean(), rtol=1e-12)
    assert np.all(np.diff(m.lower_bounds_) >= -1e-12 * np.abs(m.lower_bounds_[1:]))


def test_bernoulli_mixture_recovers_known_parameters():
    X, probs = _binary(3000, 1)
    m = BernoulliMixture(2, random_state=0, n_init=3).fit(X)
    _, err = match_components(probs, m.probs_)
    assert err.max() < 0.05 * probs.shape[1]  # L1 over the 6 features
    np.testing.assert_allclose(np.sort(m.weights_), [0.5, 0.5], atol=0.05)


def test_bernoulli_mixture_map_step_is_the_closed_form():
    """One M-step from given responsibilities: (sum r x + a - 1) / (sum r + 2a - 2)."""
    X, _ = _binary(50, 2)
    m = BernoulliMixture(2, probability_prior=3.0, random_state=0, max_iter=1, tol=0).fit(X)
    stats = m._e_step(X)
    r = m.predict_proba(X)
    m._m_step(stats)
    np.testing.assert_allclose(m.probs_, (r.T @ X + 2.0) / (r.sum(0)[:, None] + 4.0),
                               rtol=1e-12)


def test_bernoulli_mixture_refuses_non_binary_input():
    with pytest.raises(ValueError, match="X must hold only 0 and 1"):
        BernoulliMixture(2).fit(np.array([[0.0, 2.0], [1.0, 0.0], [1.0, 1.0]]))


def test_bernoulli_mixture_checks_its_restored_state(tmp_path):
    """Step 3's ``_check_state``: a saved fit loads, and a file whose probabilities were
    damaged (a value above 1, the checksum made consistent again) is refused at ``load``,
    naming the attribute."""
    import json

    import latentkit
    from latentkit import io
    from latentkit.exceptions import ModelFileError, StateCheckError

    X, _ = _binary(100, 2)
    m = BernoulliMixture(2, random_state=0).fit(X)
    good, bad = tmp_path / "good.npz", tmp_path / "bad.npz"
    latentkit.save(m, good)
    np.testing.assert_array_equal(latentkit.load(good, model_class=BernoulliMixture).probs_,
                                  m.probs_)
    with np.load(good) as z:
        arrays = {k: z[k] for k in z.files}
    meta = json.loads(bytes(arrays.pop("__metadata__")).decode())
    arrays["attr/probs_"] = arrays["attr/probs_"].copy()
    arrays["attr/probs_"][0, 0] = 1.5
    meta["sha256"] = io._digest(arrays, meta)
    np.savez(bad, **arrays,
             __metadata__=np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8))
    with pytest.raises(ModelFileError, match="probs_"):
        latentkit.load(bad, model_class=BernoulliMixture)
    m.weights_ = np.array([0.7, 0.7])
    with pytest.raises(StateCheckError, match="weights_"):
        m._check_state()
