"""One fit driver that talks to a model through declared hooks only (issue 25, item 2).

* the drivers (the batch loop, SQUAREM, StochasticVI, the chunk and Dask wrappers, the start
  sample, private SVI) touch only the hooks, helpers and state that docs/design.md (section 3)
  lists -- no private attribute as a side channel;
* ``LatentModel`` holds hooks and helpers only (the machinery is in ``latentkit._engine``);
* no core module imports a model family, even inside a function;
* the stochastic step returns its ELBO pieces, and online LDA is StochasticVI fitting the
  estimator itself (its callback sees the estimator, no clone).
"""

import ast
import pathlib

import numpy as np
import pytest
import scipy.sparse as sp

import latentkit
from latentkit.base import LatentModel
from latentkit.inference import StochasticVI
from latentkit.topic import LatentDirichletAllocation

ROOT = pathlib.Path(latentkit.__file__).parent

#: docs/design.md section 3: the template, the hooks with defaults, the helpers, the state the
#: drivers keep on a model (and ParamsMixin's parameter names)
TEMPLATE = {"_validate_params", "_validate_data", "_init_params", "_empty_stats", "_e_step",
            "_m_step", "_global_elbo_terms"}
HOOKS = {"_n_samples", "_split_data", "_start_needs_data", "_stochastic_init", "_data_summary",
         "_set_data_defaults", "_prepare_data", "_warm_state", "_warm_e_step", "_iterate",
         "_stop_early", "_deprecated_fit", "_resolved_max_iter", "_resolved_tol", "_state_attributes",
         "_get_state", "_set_state", "_check_common_params", "_partial_step",
         "_convergence_rule", "_elbo_decrease_note", "_sample_unit", "_tol_may_be_none",
         "_svi_stepper", "_private_svi_pieces", "_defer_data_defaults", "_start_bound",
         "_check_state", "_row_fit_params"}
HELPERS = {"_resolve_data_defaults", "_elbo_from_stats", "_blend_stats", "_is_fitted",
           "_check_is_fitted", "_fit_state", "_sampling_rng"}
STATE = {"_running_stats", "_rng", "_sample_rng", "_get_param_names"}

DRIVERS = ["_engine/fitting.py", "_engine/acceleration.py", "_engine/start_sample.py",
           "inference/_private_svi.py", "_engine/hook_state.py", "inference/_stochastic_vi.py",
           "sources.py", "parallel/dask.py"]

#: how the drivers name the model they drive
_MODEL_NAMES = {"model", "probe"}


def _is_model(node):
    return ((isinstance(node, ast.Name) and node.id in _MODEL_NAMES)
            or (isinstance(node, ast.Attribute) and node.attr == "model"))


def _private_names_touched(path):
    """Private attribute names a driver module reads or writes on a model: ``model._x`` and
    the string keys of ``vars(model)`` / ``model.__dict__`` calls."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Attribute) and _is_model(node.value):
            if node.attr.startswith("_") and not node.attr.startswith("__"):
                found.add(node.attr)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            owner = node.func.value
            on_dict = ((isinstance(owner, ast.Call) and getattr(owner.func, "id", None) == "vars"
                        and owner.args and _is_model(owner.args[0]))
                       or (isinstance(owner, ast.Attribute) and owner.attr == "__dict__"
                           and _is_model(owner.value)))
            if on_dict:
                found |= {a.value for a in node.args
                          if isinstance(a, ast.Constant) and isinstance(a.value, str)}
    return found


def test_drivers_touch_only_declared_hooks():
    allowed = TEMPLATE | HOOKS | HELPERS | STATE
    for rel in DRIVERS:
        extra = _private_names_touched(ROOT / rel) - allowed
        assert not extra, f"{rel} reaches into the model through undeclared {sorted(extra)}"


def test_latent_model_holds_hooks_and_helpers_only():
    own = {k for k in vars(LatentModel) if k.startswith("_") and not k.startswith("__")}
    own -= {"_blas_scoped_methods"}  # the class's own wrapping of inference methods
    assert own <= TEMPLATE | HOOKS | HELPERS, sorted(own - (TEMPLATE | HOOKS | HELPERS))


_FAMILIES = ("mixture", "topic", "sequence", "neural")
_CORE = ["base.py", "inference", "sources.py", "parallel", "_engine"]


def _imports(path):
    """Every latentkit module ``path`` imports, function-local imports included."""
    package = ".".join(("latentkit",) + path.relative_to(ROOT).with_suffix("").parts[:-1])
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[:len(parts) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            out.add(base)
    return {m for m in out if m.startswith("latentkit")}


def test_no_core_module_imports_a_family():
    files = []
    for rel in _CORE:
        p = ROOT / rel
        files += sorted(p.rglob("*.py")) if p.is_dir() else [p]
    for path in files:
        bad = {m for m in _imports(path) if m.split(".")[1:2] and m.split(".")[1] in _FAMILIES}
        assert not bad, f"{path.relative_to(ROOT)} imports {sorted(bad)}"


def _corpus(n=120, V=15, seed=0):
    rng = np.random.default_rng(seed)
    return sp.csr_matrix(rng.poisson(1.0, size=(n, V)).astype(float))


def test_stochastic_step_returns_its_elbo_pieces():
    X = _corpus()
    m = LatentDirichletAllocation(3, random_state=0)
    first = m._partial_step(X[:40], step_size=0.5, total_samples=120, with_global=True)
    # the data term is the E-step's at the topics entering the step (the start)
    assert first.n == 40.0 and first.global_term is not None
    before = m.components_.copy()
    step = m._partial_step(X[40:80], step_size=0.5, total_samples=120)
    assert step.global_term is None
    ref = LatentDirichletAllocation(3, random_state=0)
    ref.__dict__.update({k: v for k, v in vars(m).items() if k not in ref.get_params()})
    ref._set_components(before)
    np.testing.assert_allclose(step.data_term, ref._e_step(X[40:80]).data_term, rtol=1e-12)
    assert not {k for k in vars(m) if k.startswith("_step") or k.startswith("_record")}


def test_online_lda_fits_the_estimator_itself():
    """learning_method='online' runs StochasticVI on the estimator: the callback sees it (not a
    clone) and the fit equals StochasticVI's with the same settings."""
    X = _corpus()
    seen = []
    lda = LatentDirichletAllocation(3, learning_method="online", batch_size=30, max_iter=3,
                                    random_state=1, callback=lambda m, t, v: seen.append(m))
    lda.set_params(holdout=0.2)
    with pytest.warns(DeprecationWarning, match="learning_method"):  # until 0.3
        lda.fit(X)
    assert seen and all(m is lda for m in seen)
    svi = StochasticVI(LatentDirichletAllocation(3), batch_size=30, n_epochs=3, holdout=0.2,
                       tol=lda.tol_, random_state=1).fit(X)
    np.testing.assert_array_equal(lda.components_, svi.model_.components_)
    np.testing.assert_array_equal(lda.lower_bounds_, svi.epoch_bounds_)
    np.testing.assert_array_equal(lda.heldout_bounds_, svi.heldout_bounds_)
    assert lda.n_steps_ == svi.n_steps_ and lda.n_iter_ == svi.n_epochs_
