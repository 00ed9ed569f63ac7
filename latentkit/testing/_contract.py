"""The common contract every latentkit model must satisfy (DESIGN.md section 7)."""

import copy
import dataclasses
import pickle

import numpy as np
import scipy.sparse as sp

from ..base import NotFittedError, clone

__all__ = ["check_latent_model", "assert_stats_allclose", "snapshot_input", "assert_input_unchanged"]


def snapshot_input(X):
    """A deep copy of an input (array, sparse matrix, or tuple/list/dict of them).

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.testing import snapshot_input
    >>> X = np.ones((2, 2))
    >>> copy = snapshot_input({"X": X})
    >>> X[0, 0] = 5.0
    >>> float(copy["X"][0, 0])
    1.0
    """
    return copy.deepcopy(X)


def assert_input_unchanged(before, after, name="X"):
    """Assert that an input equals its snapshot bit for bit (values, dtype, layout).

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.testing import assert_input_unchanged, snapshot_input
    >>> X = np.arange(6.0).reshape(3, 2)
    >>> before = snapshot_input(X)
    >>> assert_input_unchanged(before, X)  # silent: nothing changed
    >>> X[0, 0] = -1.0
    >>> try:
    ...     assert_input_unchanged(before, X)
    ... except AssertionError:
    ...     print("X was modified")
    X was modified
    """
    if sp.issparse(before):
        assert sp.issparse(after), f"{name} changed type"
        for attr in ("data", "indices", "indptr"):
            assert np.array_equal(getattr(before, attr), getattr(after, attr)), \
                f"{name}.{attr} was modified in place"
        return
    if isinstance(before, np.ndarray):
        assert before.dtype == after.dtype, f"{name} dtype changed"
        assert np.array_equal(before, after, equal_nan=before.dtype.kind == "f"), \
            f"{name} was modified in place"
        assert before.flags.c_contiguous == after.flags.c_contiguous
        return
    if isinstance(before, (list, tuple)):
        for i, (b, a) in enumerate(zip(before, after)):
            assert_input_unchanged(b, a, f"{name}[{i}]")
        return
    if isinstance(before, dict):
        for k in before:
            assert_input_unchanged(before[k], after[k], f"{name}[{k!r}]")
        return
    assert before == after, f"{name} was modified"


def assert_stats_allclose(a, b, rtol=1e-10, atol=1e-12):
    """Field-by-field comparison of two statistics objects, naming the field that differs.

    Examples
    --------
    >>> from latentkit.distributions import GaussianStats
    >>> from latentkit.testing import assert_stats_allclose
    >>> import numpy as np
    >>> a = GaussianStats(n=2.0, data_term=-3.0, nk=np.array([2.0]), sx=np.zeros((1, 2)),
    ...                   sxx=np.ones((1, 2)))
    >>> b = GaussianStats(n=2.0, data_term=-3.0, nk=np.array([2.0 + 1e-13]), sx=np.zeros((1, 2)),
    ...                   sxx=np.ones((1, 2)))
    >>> assert_stats_allclose(a, b)  # silent: equal within rtol
    >>> import dataclasses
    >>> b = dataclasses.replace(b, data_term=-2.0)
    >>> try:
    ...     assert_stats_allclose(a, b)
    ... except AssertionError as e:
    ...     print("data_term" in str(e))
    True
    """
    assert type(a) is type(b), f"{type(a).__name__} vs {type(b).__name__}"
    for f in dataclasses.fields(a):
        np.testing.assert_allclose(getattr(a, f.name), getattr(b, f.name), rtol=rtol,
                                   atol=atol, err_msg=f"stats field {f.name!r} differs")


def _fitted_arrays(model):
    out = {}
    for k, v in vars(model).items():
        if k.endswith("_") and not k.startswith("_") and k != "monitor_":
            if isinstance(v, (np.ndarray, float, int, np.floating, np.integer)):
                out[k] = np.asarray(v)
    return out


def _assert_same_fit(m1, m2, rtol=0.0, atol=0.0, what=""):
    a1, a2 = _fitted_arrays(m1), _fitted_arrays(m2)
    assert a1.keys() == a2.keys(), f"{what}: fitted attributes differ: {a1.keys() ^ a2.keys()}"
    for k in a1:
        np.testing.assert_allclose(a1[k], a2[k], rtol=rtol, atol=atol,
                                   err_msg=f"{what}: fitted attribute {k} differs")


def check_latent_model(model, X, fit_params=None, *, exact=True, n_chunks=3,
                       methods=("predict", "predict_proba", "transform", "score_samples",
                                "score", "elbo"),
                       n_samples_draw=5, rtol=1e-10):
    """Run the common contract of latentkit models on ``model`` and data ``X``.

    Checks, in order: unfitted use raises :class:`~latentkit.base.NotFittedError`; ``fit``
    returns self and records ``lower_bounds_``, ``lower_bound_``, ``n_iter_``, ``converged_``
    consistently; ``lower_bounds_`` never decreases (beyond ``1e-9`` relative) when ``exact``;
    the same ``random_state`` gives an identical fit; pickling round-trips (same ELBO); a new
    model given the fitted state (``_set_state(_get_state())``, what :func:`latentkit.save`
    stores and Dask ships) is the same model and continues ``partial_fit`` identically;
    ``sample`` returns ``n_samples_draw`` draws; the E-step statistics of ``n_chunks`` chunks
    sum to those of the whole data (``rtol``); ``partial_fit(X, step_size=1)`` equals one batch
    iteration; ``elbo`` is finite; and no method modifies ``X`` or the fit parameters.

    Parameters
    ----------
    model : LatentModel
        An unfitted model with an int ``random_state`` (small ``max_iter`` keeps this fast).
    X : array-like
        Data the model accepts.
    fit_params : dict, optional
        Extra keyword arguments of ``fit`` (``lengths``, ``sample_weight``), also passed to the
        methods that take them.
    exact : bool, default True
        The model's bound is exact EM / coordinate ascent (monotone). False for Monte-Carlo
        bounds (VAE).
    n_chunks : int, default 3
    methods : tuple of str
        Inference methods to call when the model has them.
    n_samples_draw : int, default 5
    rtol : float, default 1e-10
        Tolerance of the chunked-statistics and partial_fit comparisons.

    Raises
    ------
    AssertionError
        Naming the part of the contract that failed.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit import GaussianMixture
    >>> from latentkit.testing import check_latent_model
    >>> X = np.random.default_rng(0).normal(size=(20, 2))
    >>> check_latent_model(GaussianMixture(n_components=2, max_iter=3, random_state=0), X)
    GaussianMixture(max_iter=3, n_components=2, random_state=0)
    """
    fit_params = dict(fit_params or {})
    X_before = snapshot_input(X)
    fp_before = snapshot_input(fit_params)
    m = clone(model)

    # 1. unfitted use raises
    for name in ("elbo", "predict", "score", "transform", "sample"):
        if hasattr(m, name):
            try:
                if name == "sample":
                    m.sample(2)
                else:
                    getattr(m, name)(X, **fit_params) if name == "elbo" else getattr(m, name)(X)
            except NotFittedError:
                pass
            except TypeError:
                pass  # signature needs other arguments; covered by model tests
            else:
                raise AssertionError(f"unfitted {type(m).__name__}.{name} did not raise NotFittedError")

    # 2. fit returns self, records the trace
    out = m.fit(X, **fit_params)
    assert out is m, "fit must return self"
    lb = np.asarray(m.lower_bounds_)
    assert lb.ndim == 1 and lb.size == m.n_iter_ >= 1, "lower_bounds_ must have n_iter_ entries"
    assert np.all(np.isfinite(lb)), "lower_bounds_ has non-finite values"
    assert m.lower_bound_ == lb[-1], "lower_bound_ must equal lower_bounds_[-1]"
    assert isinstance(m.converged_, bool)
    if exact:
        d = np.diff(lb)
        tol = 1e-9 * np.maximum(1.0, np.abs(lb[:-1]))
        bad = np.flatnonzero(d < -tol)
        assert bad.size == 0, f"lower_bounds_ decreased at iterations {bad + 1}: {d[bad]}"

    # 3. determinism
    m2 = clone(model).fit(X, **fit_params)
    np.testing.assert_array_equal(m.lower_bounds_, m2.lower_bounds_,
                                  err_msg="same random_state gave different lower_bounds_")
    _assert_same_fit(m, m2, what="refit with the same random_state")

    # 4. pickling
    m3 = pickle.loads(pickle.dumps(m))
    e1 = m.elbo(X, **fit_params)
    assert np.isfinite(e1), "elbo(X) is not finite"
    if exact:
        assert m3.elbo(X, **fit_params) == e1, "pickled model gives a different elbo"
    _assert_same_fit(m, m3, what="pickle round-trip")

    # 4b. the fitted state (what latentkit.save stores and Dask ships): a new model given it
    # is the same model, and continues training identically
    m4 = clone(m)
    m4._set_state(m._get_state())
    _assert_same_fit(m, m4, what="_set_state(_get_state()) round-trip")
    if exact:
        assert m4.elbo(X, **fit_params) == e1, "a model rebuilt from its state gives another elbo"
        c1, c2 = copy.deepcopy(m), m4
        for c in (c1, c2):
            c.partial_fit(X, step_size=0.5, **fit_params)
        _assert_same_fit(c1, c2, what="partial_fit after _set_state(_get_state())")

    # 5. sample
    if hasattr(m, "sample"):
        drawn = m.sample(n_samples_draw, random_state=0)
        first = drawn[0] if isinstance(drawn, tuple) else drawn
        assert first.shape[0] == n_samples_draw, "sample(n) must return n draws"
        again = m.sample(n_samples_draw, random_state=0)
        again = again[0] if isinstance(again, tuple) else again
        assert np.array_equal(np.asarray(first.todense() if sp.issparse(first) else first),
                              np.asarray(again.todense() if sp.issparse(again) else again)), \
            "sample with the same random_state differs"

    # 6. chunked E-steps sum to the batch E-step
    data = m._validate_data(X, reset=False, **fit_params)
    whole = m._e_step(data)
    parts = m._split_data(data, n_chunks)
    assert len(parts) >= 2 or m._n_samples(data) < 2, "_split_data did not split"
    summed = m._empty_stats()
    for part in parts:
        summed = summed + m._e_step(part)
    assert_stats_allclose(summed, whole, rtol=rtol)
    assert_stats_allclose(m._empty_stats() + whole, whole, rtol=0, atol=0)

    # 7. partial_fit with step 1 on the full data equals one batch iteration
    if exact:
        a = copy.deepcopy(m)
        b = copy.deepcopy(m)
        a.partial_fit(X, step_size=1.0, **fit_params)
        b._iterate(b._validate_data(X, reset=False, **fit_params))
        params_a = {k: v for k, v in _fitted_arrays(a).items() if k not in ("n_steps_",)}
        params_b = {k: v for k, v in _fitted_arrays(b).items() if k not in ("n_steps_",)}
        for k in params_b:
            np.testing.assert_allclose(params_a[k], params_b[k], rtol=rtol, atol=1e-12,
                                       err_msg=f"partial_fit(step_size=1) vs one batch step: {k}")

    # 8. inference methods run, are finite, and do not touch inputs or the model
    before_fit = _fitted_arrays(m)
    for name in methods:
        if hasattr(m, name):
            res = getattr(m, name)(X, **fit_params) if name in ("elbo",) else getattr(m, name)(X)
            arr = np.asarray(res[0] if isinstance(res, tuple) else res, dtype=float)
            assert np.all(np.isfinite(arr)), f"{name} returned non-finite values"
    if hasattr(m, "predict_proba"):
        p = np.asarray(m.predict_proba(X))
        np.testing.assert_allclose(p.sum(axis=-1), 1.0, rtol=1e-10,
                                   err_msg="predict_proba rows must sum to 1")
    after_fit = _fitted_arrays(m)
    for k in before_fit:
        assert np.array_equal(before_fit[k], after_fit[k]), f"inference changed {k}"

    assert_input_unchanged(X_before, X)
    assert_input_unchanged(fp_before, fit_params, "fit_params")
    return m
