"""BIC and AIC count the free parameters only (issue 26, item 7): frozen HMM parameters, tied,
diagonal and spherical covariances, fixed priors. The count of the code under test
(``_n_parameters``, and the ``p`` inside ``bic``/``aic``) is checked against a brute-force
count: every stored scalar of every parameter that is not frozen is perturbed (then put back on
its constraint: rows renormalised onto the simplex, matrices symmetrised), and the rank of the
finite-difference Jacobian of the per-sequence (per-row) log-likelihoods is the number of free
scalars the likelihood depends on."""

import warnings

import numpy as np
import pytest

import latentkit as lk

#: how each point parameter is constrained, by attribute: 'simplex' (last axis sums to 1),
#: 'free' (any real / positive value), 'sym' (symmetric matrices over the last two axes)
_SIMPLEX = {"startprob_", "transmat_", "emissionprob_", "weights_"}


def _kind(model, attr):
    if attr in _SIMPLEX:
        return "simplex"
    if attr == "covariances_" and model.covariance_type in ("full", "tied"):
        return "sym"
    return "free"


def _perturbed(value, idx, h, kind):
    new = np.array(value, dtype=float, copy=True)
    new[idx] += h
    if kind == "simplex":
        new /= new.sum(axis=-1, keepdims=True)
    elif kind == "sym":
        new = (new + np.swapaxes(new, -1, -2)) / 2
    return new


def _free_attrs(model):
    """Parameters that the fit moves: all point parameters but the frozen ones (a variational
    HMM freezes its whole emission factor when any emission name is frozen, class docs)."""
    if isinstance(model, lk.GaussianMixture):
        return ["weights_", "means_", "covariances_"]
    emission = [{"covars": "covariances"}.get(n, n) + "_" for n in model.emission_.param_names]
    frozen = {{"covars": "covariances"}.get(n, n) + "_" for n in model.frozen_}
    if isinstance(model, lk.sequence.VariationalHMM) and frozen & set(emission):
        frozen |= set(emission)
    return [a for a in ["startprob_", "transmat_"] + emission if a not in frozen]


def brute_force_count(model, X, lengths=None, h=1e-5):
    if isinstance(model, lk.GaussianMixture):
        units = lambda: model.score_samples(X)  # noqa: E731
    else:
        units = lambda: model.score_sequences(X, lengths)  # noqa: E731
    columns = []
    for attr in _free_attrs(model):
        base = getattr(model, attr)
        kind = _kind(model, attr)
        scale = np.abs(base).max()
        for idx in np.ndindex(np.shape(base)):
            step = h * max(abs(float(base[idx])), 0.1 * scale)
            setattr(model, attr, _perturbed(base, idx, step, kind))
            up = units()
            setattr(model, attr, _perturbed(base, idx, -step, kind))
            down = units()
            columns.append((up - down) / (2 * step))
        setattr(model, attr, base)
    if not columns:
        return 0
    s = np.linalg.svd(np.column_stack(columns), compute_uv=False)
    return int(np.sum(s > 1e-6 * s[0]))


def _sequences(kind, n_seq=70, T=6, seed=0):
    rng = np.random.default_rng(seed)
    states = np.zeros(n_seq * T, dtype=int)
    for t in range(1, len(states)):
        states[t] = states[t - 1] if rng.random() < 0.8 else 1 - states[t - 1]
    if kind == "categorical":
        p = np.array([[0.5, 0.3, 0.1, 0.1], [0.1, 0.1, 0.3, 0.5]])
        X = np.array([rng.choice(4, p=p[s]) for s in states])[:, None]
    elif kind == "poisson":
        X = rng.poisson(np.array([[1.0, 4.0], [5.0, 1.0]])[states])
    else:
        X = np.array([[0.0, 0.0], [3.0, 2.0]])[states] + rng.normal(size=(len(states), 2)) \
            * np.array([1.0, 0.6])
        X[:, 1] += 0.4 * X[:, 0]
    return X, [T] * n_seq


CTS = ["full", "tied", "diag", "spherical"]
HMM_CASES = [
    *[(lambda f=f: lk.CategoricalHMM(2, n_features=4, frozen=f), "categorical")
      for f in (None, {"startprob"}, {"transmat"}, {"emissionprob"})],
    *[(lambda ct=ct: lk.GaussianHMM(2, ct), "gaussian") for ct in CTS],
    *[(lambda ct=ct, f=f: lk.GaussianHMM(2, ct, frozen=f), "gaussian")
      for ct in ("full", "spherical") for f in ({"means"}, {"covariances"})],
    (lambda: lk.GaussianHMM(2, "full", frozen={"startprob", "covariances"}), "gaussian"),
    # fixed priors are hyper-parameters, not fitted: they add nothing
    (lambda: lk.GaussianHMM(2, "diag", startprob_prior=2.0, transmat_prior=3.0), "gaussian"),
    *[(lambda f=f: lk.PoissonHMM(2, frozen=f), "poisson") for f in (None, {"lambdas"})],
    *[(lambda ct=ct: lk.GMMHMM(2, 2, ct), "gaussian") for ct in CTS],
    *[(lambda f=f: lk.GMMHMM(2, 2, "diag", frozen=f), "gaussian")
      for f in ({"weights"}, {"means"}, {"covariances"})],
    *[(lambda f=f: lk.VariationalCategoricalHMM(2, n_features=4, frozen=f), "categorical")
      for f in (None, {"emissionprob"})],
    *[(lambda f=f: lk.VariationalGaussianHMM(2, "diag", frozen=f), "gaussian")
      for f in (None, {"means"})],
]


def _name(case):
    m = case[0]()
    return f"{type(m).__name__}-{getattr(m, 'covariance_type', '')}-{sorted(m.frozen or ())}" \
        + ("-priors" if getattr(m, "startprob_prior", None) is not None else "")


def _fit(model, X, **kw):
    model.set_params(random_state=0, max_iter=5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return model.fit(X, **kw)


@pytest.mark.parametrize("case", HMM_CASES, ids=[_name(c) for c in HMM_CASES])
def test_hmm_information_criteria_count_free_parameters(case):
    make, kind = case
    X, lengths = _sequences(kind)
    model = _fit(make(), X, lengths=lengths)
    p = brute_force_count(model, X, lengths)
    assert model._n_parameters() == p
    loglik = model.score(X, lengths) * len(X)
    assert model.bic(X, lengths) == pytest.approx(-2 * loglik + p * np.log(len(X)), rel=1e-10)
    assert model.aic(X, lengths) == pytest.approx(-2 * loglik + 2 * p, rel=1e-10)


@pytest.mark.parametrize("ct, missing", [(ct, "error") for ct in CTS]
                         + [("full", "marginalize"), ("diag", "marginalize")])
def test_gaussian_mixture_information_criteria_count_free_parameters(ct, missing):
    rng = np.random.default_rng(1)
    X = np.vstack([rng.normal(size=(40, 3)), rng.normal(size=(40, 3)) @ np.diag([2, 1, .5])
                   + 3.0])
    model = _fit(lk.GaussianMixture(2, covariance_type=ct, missing=missing), X)
    p = brute_force_count(model, X)
    assert model._n_parameters() == p
    loglik = model.score(X) * len(X)
    assert model.bic(X) == pytest.approx(-2 * loglik + p * np.log(len(X)), rel=1e-10)
    assert model.aic(X) == pytest.approx(-2 * loglik + 2 * p, rel=1e-10)
