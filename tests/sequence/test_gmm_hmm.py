"""GMMHMM: hmmlearn parity, exact EM against GaussianHMM (one component per state) and a NumPy
reference, the common contract, chunked sources and StochasticVI, save/load, bad input."""

import numpy as np
import pytest
from scipy.special import logsumexp
from scipy.stats import multivariate_normal

from latentkit._utils.validation import check_random_state
from latentkit.inference import IterableSource, StochasticVI
from latentkit.io import load, save
from latentkit.sequence import GaussianHMM, GMMHMM
from latentkit.testing import check_latent_model

hmm = pytest.importorskip("hmmlearn.hmm")

LENGTHS = [100, 1, 149, 50]


def _one_blas_thread():
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover
        import contextlib
        return contextlib.nullcontext()
    return threadpool_limits(1)
CTS = ["diag", "full", "spherical", "tied"]


def _data(seed=0):
    # two states, each a two-component mixture (means +-1.5 along the diagonal)
    rng = np.random.default_rng(seed)
    z = np.repeat([0, 1, 0, 1, 0, 1], 50)
    return (rng.normal(size=(300, 2)) * 0.5 + np.array([[0.0, 0.0], [4.0, 4.0]])[z]
            + rng.choice([-1.5, 1.5], size=(300, 1)))


def _start(ct, X, lengths, n_mix=2, K=2, seed=0):
    m = GMMHMM(K, n_mix, ct, reg_covar=0.0, random_state=seed)
    m._validate_params()
    m._init_params(m._validate_data(X, True, lengths), check_random_state(seed))
    return {k: getattr(m, k + "_").copy() for k in m._param_names()}


@pytest.mark.kernel_sensitive
@pytest.mark.parametrize("ct", CTS)
def test_parity_with_hmmlearn_per_iteration(ct):
    X = _data()
    init = _start(ct, X, LENGTHS)
    n_iter = 12
    m = GMMHMM(2, 2, ct, reg_covar=0.0, covars_about="previous_means", init=init,
               max_iter=n_iter, tol=0).fit(X, lengths=LENGTHS)
    # hmmlearn's default spherical prior is not maximum likelihood; this one is
    extra = {"covars_prior": -(X.shape[1] / 2 + 1)} if ct == "spherical" else {}
    peer = hmm.GMMHMM(2, n_mix=2, covariance_type=ct, n_iter=n_iter, tol=-np.inf,
                      init_params="", implementation="scaling", **extra)
    for k, v in init.items():
        setattr(peer, k + "_", v.copy())
    peer._init = lambda X, lengths=None: None  # its k-means start is replaced by ours anyway
    with _one_blas_thread():  # hmmlearn's tiny triangular solves crawl when BLAS oversubscribes
        peer.fit(X, LENGTHS)
    hist = np.asarray(peer.monitor_.history) / X.shape[0]  # total -> per time step
    assert hist.size == m.lower_bounds_.size == n_iter
    np.testing.assert_allclose(m.lower_bounds_, hist, rtol=1e-8)
    for name in ("weights", "means", "covars", "transmat", "startprob"):
        np.testing.assert_allclose(getattr(m, name + "_"), getattr(peer, name + "_"),
                                   rtol=1e-7, atol=1e-10, err_msg=name)
    np.testing.assert_allclose(m.predict_proba(X, LENGTHS), peer.predict_proba(X, LENGTHS),
                               atol=1e-9)


@pytest.mark.parametrize("ct", ["diag", "full"])
def test_exact_em_differs_from_hmmlearn_by_the_mean_shift_only(ct):
    # one iteration from the same start: same weights and means; hmmlearn's covariances are
    # the exact ones plus (mu_new - mu_old)(mu_new - mu_old)^T
    X = _data()
    init = _start(ct, X, LENGTHS)
    a = GMMHMM(2, 2, ct, reg_covar=0.0, init=init, max_iter=1, tol=0).fit(X, lengths=LENGTHS)
    b = GMMHMM(2, 2, ct, reg_covar=0.0, init=init, max_iter=1, tol=0,
               covars_about="previous_means").fit(X, lengths=LENGTHS)
    np.testing.assert_allclose(a.weights_, b.weights_, rtol=1e-12)
    np.testing.assert_allclose(a.means_, b.means_, rtol=1e-12)
    d = a.means_ - init["means"]
    shift = d ** 2 if ct == "diag" else d[..., :, None] * d[..., None, :]
    np.testing.assert_allclose(b.covariances_, a.covariances_ + shift, rtol=1e-10, atol=1e-12)


def test_one_component_per_state_equals_gaussian_hmm():
    # n_mix = 1 is a GaussianHMM (GMMHMM's per-state 'tied' is GaussianHMM's 'full')
    X = _data(1)
    for ct, gct in (("diag", "diag"), ("full", "full"), ("spherical", "spherical"),
                    ("tied", "full")):
        init = _start(ct, X, LENGTHS, n_mix=1)
        g = GMMHMM(2, 1, ct, init=init, max_iter=8, tol=0).fit(X, lengths=LENGTHS)
        cov = init["covars"][:, 0] if ct != "tied" else init["covars"]
        ginit = {"startprob": init["startprob"], "transmat": init["transmat"],
                 "means": init["means"][:, 0], "covars": cov}
        h = GaussianHMM(2, gct, init=ginit, max_iter=8, tol=0).fit(X, lengths=LENGTHS)
        np.testing.assert_allclose(g.lower_bounds_, h.lower_bounds_, rtol=1e-10, err_msg=ct)
        np.testing.assert_allclose(g.means_[:, 0], h.means_, rtol=1e-9)


def test_m_step_equals_numpy_reference():
    X = _data(2)
    init = _start("full", X, None, n_mix=3)
    m = GMMHMM(2, 3, "full", init=init, max_iter=1, tol=0, reg_covar=0.0).fit(X)
    # reference: forward-backward posteriors at the start, then per-state weighted GMM M-step
    ref = GMMHMM(2, 3, "full", init=init, max_iter=1, tol=0, reg_covar=0.0)
    ref._validate_params()
    data = ref._validate_data(X, True)
    ref._init_params(data, check_random_state(0))
    gamma = ref._forward_backward(data)[0]
    dens = np.array([[init["weights"][k, j] * multivariate_normal(
        init["means"][k, j], init["covars"][k, j]).pdf(X) for j in range(3)]
        for k in range(2)]).transpose(0, 2, 1)  # (K, n, M)
    r = gamma.T[:, :, None] * dens / dens.sum(axis=2, keepdims=True)
    for k in range(2):
        nk = r[k].sum(axis=0)
        np.testing.assert_allclose(m.weights_[k], nk / nk.sum(), rtol=1e-10)
        for j in range(3):
            mu = r[k, :, j] @ X / nk[j]
            cov = (r[k, :, j, None] * (X - mu)).T @ (X - mu) / nk[j]
            np.testing.assert_allclose(m.means_[k, j], mu, rtol=1e-10)
            np.testing.assert_allclose(m.covariances_[k, j], cov, rtol=1e-9, atol=1e-12)
    # the first bound is the log-likelihood at the start (forward algorithm by brute force)
    logb = np.log(dens.sum(axis=2)).T  # (n, K)
    la = np.log(init["startprob"]) + logb[0]
    for t in range(1, len(X)):
        la = logsumexp(la[:, None] + np.log(init["transmat"]), axis=0) + logb[t]
    assert m.lower_bounds_[0] * len(X) == pytest.approx(logsumexp(la), rel=1e-12)


@pytest.mark.parametrize("ct", CTS)
def test_contract(ct):
    check_latent_model(GMMHMM(2, 2, ct, random_state=0, max_iter=4), _data(),
                       {"lengths": LENGTHS})


def test_chunked_source_equals_in_memory_fit_and_stochastic_vi_improves():
    X = _data(3)
    lengths = np.array([50] * 6)
    init = _start("diag", X, lengths)
    mem = GMMHMM(2, 2, init=init, max_iter=6, tol=0).fit(X, lengths=lengths)
    chunks = [(X[a:a + 100], {"lengths": [50, 50]}) for a in range(0, 300, 100)]
    src = GMMHMM(2, 2, init=init, max_iter=6, tol=0).fit(IterableSource(chunks, n_samples=300))
    np.testing.assert_allclose(src.lower_bounds_, mem.lower_bounds_, rtol=1e-10)
    np.testing.assert_allclose(src.covariances_, mem.covariances_, rtol=1e-9)
    svi = StochasticVI(GMMHMM(2, 2, init=init), batch_size=100, n_epochs=15, tol=0.0,
                       random_state=0).fit(IterableSource(chunks, n_samples=300))
    first = GMMHMM(2, 2, init=init, max_iter=1, tol=0).fit(X, lengths=lengths)
    assert svi.model_.score(X, lengths) > first.lower_bounds_[0] + 0.3


def test_save_load_round_trip(tmp_path):
    X = _data()
    m = GMMHMM(2, 2, "tied", random_state=0, max_iter=5).fit(X, lengths=LENGTHS)
    save(m, tmp_path / "g.npz")
    r = load(tmp_path / "g.npz")
    assert r.score(X, LENGTHS) == m.score(X, LENGTHS)
    np.testing.assert_array_equal(r.predict(X, LENGTHS), m.predict(X, LENGTHS))
    assert r.sample(7, random_state=0)[0].shape == (7, 2)


@pytest.mark.parametrize("kwargs, match", [
    ({"n_mix": 0}, "n_mix"),
    ({"covars_about": "old"}, "covars_about must be"),
    ({"covariance_type": "banana"}, "covariance_type"),
    ({"init": {"weights": np.ones((2, 3)) / 3}}, r"init\['weights'\] must have shape"),
    ({"init": {"means": np.zeros((2, 2))}}, r"init\['means'\] must be finite with shape"),
    ({"init": {"covars": -np.ones((2, 2, 2))}}, "positive"),
    ({"init": "spectral"}, "spectral"),
])
def test_bad_parameters(kwargs, match):
    with pytest.raises(ValueError, match=match):
        GMMHMM(2, **{"n_mix": 2, **kwargs}).fit(_data())


def test_bad_data_and_no_mutation():
    X = _data()
    X[3, 0] = np.inf
    with pytest.raises(ValueError, match="NaN or infinity"):
        GMMHMM(2, 2).fit(X)
    X = _data()
    X0 = X.copy()
    init = _start("diag", X, None)
    saved = {k: v.copy() for k, v in init.items()}
    GMMHMM(2, 2, init=init, max_iter=2).fit(X)
    np.testing.assert_array_equal(X, X0)
    for k in init:
        np.testing.assert_array_equal(init[k], saved[k])


def test_cli_fit_hmm_emission_gmm():
    import io
    import json

    from latentkit.cli import main

    out = io.StringIO()
    assert main(["fit", "hmm", "--dataset", "geyser", "-k", "2", "--emission", "gmm",
                 "--n-mix", "2", "--covariance-type", "diag", "--max-iter", "50",
                 "--json"], out=out) == 0
    obj = json.loads(out.getvalue())
    assert obj["model"] == "GMMHMM" and np.shape(obj["means"]) == (2, 2, 2)
    np.testing.assert_allclose(np.sum(obj["weights"], axis=1), 1.0)
    lb = np.asarray(obj["lower_bounds"])
    assert np.all(np.diff(lb) >= -1e-10 * np.abs(lb[:-1]))
    # the printed log-likelihood is after the last M-step: EM does not lower it
    assert obj["log_likelihood"] >= lb[-1] * obj["n_samples"] - 1e-8
    out = io.StringIO()
    assert main(["fit", "hmm", "--dataset", "geyser", "--emission", "gmm", "--max-iter", "3",
                 "--quiet"], out=out) == 0
    # issue 27: without --n-mix the CLI builds the library's GMMHMM (n_mix=1), not its own 2
    assert "GMMHMM(n_components=2, n_mix=1, covariance_type='diag')" in out.getvalue()


def test_composed_model_with_gmm_emission_saves_and_loads(tmp_path):
    # a HiddenMarkovModel composed with a GMMEmission object rebuilds it from the saved spec
    from latentkit.sequence import GMMEmission, HiddenMarkovModel

    X = _data()
    m = HiddenMarkovModel(2, emission=GMMEmission(n_mix=2, covariance_type="spherical"),
                          init="kmeans++", random_state=0, max_iter=4, tol=0).fit(X)
    save(m, tmp_path / "h.npz")
    r = load(tmp_path / "h.npz")
    assert r.score(X) == pytest.approx(m.score(X), rel=1e-12)
    assert isinstance(r.emission_, GMMEmission) and r.emission_.n_mix == 2
