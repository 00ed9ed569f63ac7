"""Faults to survive: an interrupted fit leaves a consistent model, ``latentkit.save`` is
atomic, and scikit-learn catches our NotFittedError."""

import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

import latentkit as lk
from latentkit.base import ConvergenceWarning, NotFittedError

from _model_cases import CASES, assert_same_model, fitted_arrays


def _iter_param(model):
    return "max_iter"


class _Interrupt:
    """A callback that records the ELBO after every iteration and, at iteration ``at``,
    raises KeyboardInterrupt (as Ctrl-C would) or asks the fit to stop (returns True)."""

    def __init__(self, at, how):
        self.at = at
        self.how = how
        self.seen = []

    def __call__(self, model, n_iter, elbo):
        self.seen.append(elbo)
        if n_iter == self.at:
            if self.how == "interrupt":
                raise KeyboardInterrupt
            return True
        return False


@pytest.mark.slow
@pytest.mark.parametrize("how", ["interrupt", "callback stop"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_interrupted_fit_keeps_the_last_completed_iteration(name, how, tmp_path):
    make, data = CASES[name]
    X = data(60, 0)
    stop = _Interrupt(3, how)
    m = make()
    m.set_params(callback=stop, tol=0.0, **{_iter_param(m): 10})
    if how == "interrupt":
        with pytest.raises(KeyboardInterrupt):
            m.fit(X)
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("error", ConvergenceWarning)  # a stop is not a failure
            m.fit(X)
    ref = make()
    ref.set_params(tol=0.0, **{_iter_param(ref): 3})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        ref.fit(X)
    assert m.converged_ is False
    assert m.n_iter_ == 3
    np.testing.assert_array_equal(m.lower_bounds_, stop.seen)
    assert_same_model(ref, m, rtol=0.0, atol=0.0)
    # usable: predict / score / save / load
    for method in ("predict", "score"):
        if hasattr(m, method):
            np.testing.assert_array_equal(getattr(m, method)(X), getattr(ref, method)(X))
    lk.save(m, tmp_path / "m.npz")
    assert_same_model(m, lk.load(tmp_path / "m.npz"), rtol=0.0, atol=0.0)


def test_interrupt_in_a_later_restart_keeps_the_best_so_far():
    """n_init=2, interrupted in the second initialisation's first iteration: the first
    (completed) initialisation is kept, with converged_=False."""
    make, data = CASES["GaussianMixture"]
    X = data(60, 0)
    calls = []

    def cb(model, n_iter, elbo):
        calls.append(n_iter)
        if len(calls) > 1 and n_iter == 1:
            raise KeyboardInterrupt

    m = lk.GaussianMixture(2, n_init=2, max_iter=5, tol=0.0, random_state=0, callback=cb)
    with pytest.raises(KeyboardInterrupt):
        m.fit(X)
    first = lk.GaussianMixture(2, n_init=1, max_iter=5, tol=0.0, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        first.fit(X)
    assert m.converged_ is False
    assert m.lower_bound_ >= first.lower_bound_ - 1e-12
    if m.n_iter_ == 5:  # the completed restart was better than the interrupted one
        np.testing.assert_array_equal(m.means_, first.means_)
    m.predict(X)


def test_interrupt_before_any_iteration_leaves_the_model_unfitted():
    m = lk.GaussianMixture(2, random_state=0)

    def boom(*args, **kwargs):
        raise KeyboardInterrupt

    m._iterate = boom
    with pytest.raises(KeyboardInterrupt):
        m.fit(CASES["GaussianMixture"][1](30, 0))
    with pytest.raises(NotFittedError):
        m.predict(np.zeros((2, 2)))


# --------------------------------------------------------------------------------------------
# atomic save
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("error", [OSError("No space left on device"), KeyboardInterrupt])
def test_save_is_atomic(tmp_path, monkeypatch, error):
    make, data = CASES["GaussianMixture"]
    X = data(60, 0)
    a = make().fit(X)
    path = tmp_path / "model.npz"
    lk.save(a, path)
    before = path.read_bytes()
    b = make().set_params(random_state=1).fit(X + 1.0)

    def fail_midway(fh, **arrays):
        fh.write(b"PK\x03\x04 half an archive")
        raise error

    monkeypatch.setattr(np, "savez_compressed", fail_midway)
    with pytest.raises(type(error) if isinstance(error, Exception) else error):
        lk.save(b, path)
    with pytest.raises(type(error) if isinstance(error, Exception) else error):
        lk.save(b, tmp_path / "new.npz")
    assert path.read_bytes() == before  # the existing file is intact
    assert sorted(os.listdir(tmp_path)) == ["model.npz"]  # no partial or temporary file
    monkeypatch.undo()
    np.testing.assert_array_equal(lk.load(path).means_, a.means_)
    lk.save(b, path)  # replaces the file
    np.testing.assert_array_equal(lk.load(path).means_, b.means_)
    assert sorted(os.listdir(tmp_path)) == ["model.npz"]


# --------------------------------------------------------------------------------------------
# NotFittedError and scikit-learn
# --------------------------------------------------------------------------------------------

def test_not_fitted_error_is_caught_as_sklearns():
    import sklearn.exceptions

    for make, data in CASES.values():
        m = make()
        X = data(10, 0)
        method = getattr(m, "predict", None) or m.score
        with pytest.raises(sklearn.exceptions.NotFittedError):
            method(X)
        with pytest.raises(ValueError):
            method(X)
        with pytest.raises(AttributeError):
            method(X)
    assert issubclass(NotFittedError, sklearn.exceptions.NotFittedError)


@pytest.mark.slow
def test_import_latentkit_does_not_import_sklearn_and_later_sklearn_catches_ours():
    """In a fresh process: importing latentkit and its models loads no scikit-learn; once the
    user imports scikit-learn, ``except sklearn.exceptions.NotFittedError`` catches ours."""
    code = (
        "import sys, numpy as np, latentkit as lk\n"
        "lk.GaussianMixture, lk.LatentDirichletAllocation, lk.GaussianHMM, lk.VAE\n"
        "assert 'sklearn' not in sys.modules, 'import latentkit imported scikit-learn'\n"
        "import sklearn.exceptions as ske\n"
        "try:\n"
        "    lk.GaussianMixture(2).predict(np.zeros((3, 2)))\n"
        "except ske.NotFittedError as exc:\n"
        "    assert isinstance(exc, (ValueError, AttributeError))\n"
        "else:\n"
        "    raise SystemExit('not raised')\n"
        "assert issubclass(lk.NotFittedError, ske.NotFittedError)\n"
    )
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = {**os.environ, "PYTHONPATH": root + os.pathsep + os.environ.get("PYTHONPATH", "")}
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         timeout=120)
    assert res.returncode == 0, res.stderr


def test_fitted_arrays_helper_sees_parameters():
    """The comparisons above are not vacuous: every model exposes fitted arrays."""
    for name, (make, data) in CASES.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            assert len(fitted_arrays(make().fit(data(60, 0)))) >= 3, name


def _svi_interrupt_at(t_stop):
    def cb(svi, t, value):
        if t == t_stop:
            raise KeyboardInterrupt
    return cb


def test_interrupted_stochastic_vi_keeps_the_last_completed_step():
    from latentkit.inference import StochasticVI

    X = CASES["GaussianMixture"][1](80, 0)
    kw = dict(batch_size=10, holdout=0.25, evaluate_every=1, tol=0.0, random_state=0,
              n_epochs=5)
    svi = StochasticVI(lk.GaussianMixture(2, random_state=0),
                       callback=_svi_interrupt_at(3), **kw)
    with pytest.raises(KeyboardInterrupt):
        svi.fit(X)
    ref = StochasticVI(lk.GaussianMixture(2, random_state=0), max_steps=3, **kw).fit(X)
    assert svi.n_steps_ == 3 and svi.converged_ is False
    np.testing.assert_array_equal(svi.heldout_bounds_, ref.heldout_bounds_)
    assert_same_model(ref.model_, svi.model_, rtol=0.0, atol=0.0)
    svi.predict(X)


def test_interrupted_online_lda_keeps_the_last_completed_step():
    make, data = CASES["LatentDirichletAllocation"]
    X = data(60, 0)
    svi = lk.StochasticVI(lk.LatentDirichletAllocation(3), batch_size=10, holdout=0.2,
                          random_state=0, tol=0.0, n_epochs=3,
                          callback=lambda driver, t, v: (_ for _ in ()).throw(
                              KeyboardInterrupt) if t == 2 else None)
    with pytest.raises(KeyboardInterrupt):
        svi.fit(X)
    m = svi.model_
    # two steps of the first epoch: one (partial) epoch bound
    assert m.n_steps_ == 2 and m.converged_ is False and m.lower_bounds_.shape == (1,)
    m.transform(X)
