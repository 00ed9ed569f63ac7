"""Variational Bayesian HMMs: hmmlearn parity, the bound against a brute-force evaluation, state
pruning, the common contract, save/load and bad input."""

import itertools

import numpy as np
import pytest
from scipy.special import logsumexp

from latentkit._utils.validation import check_random_state
from latentkit.distributions._dirichlet import dirichlet_expectation, dirichlet_kl
from latentkit.io import load, save
from latentkit.sequence import VariationalCategoricalHMM, VariationalGaussianHMM
from latentkit.testing import check_latent_model

vhmm = pytest.importorskip("hmmlearn.vhmm")

LENGTHS = [60, 1, 90, 49]


def _gauss_data(seed=0):
    rng = np.random.default_rng(seed)
    z = np.repeat([0, 1, 0, 1, 0], 40)
    X = rng.normal(size=(200, 2)) * 0.6 + np.array([[0.0, 0.0], [3.0, 2.0]])[z]
    return X


def _cat_data(seed=0):
    rng = np.random.default_rng(seed)
    B = np.array([[0.7, 0.2, 0.05, 0.05], [0.05, 0.05, 0.2, 0.7]])
    z = np.repeat([0, 1, 0, 1, 0], 40)
    return np.array([rng.choice(4, p=B[k]) for k in z])[:, None]


def _started(model, X, lengths):
    """The model with its starting posteriors drawn (no iteration)."""
    model._validate_params()
    data = model._validate_data(X, True, lengths)
    model._init_params(data, check_random_state(model.random_state))
    return model


def _hmmlearn_from(model, peer):
    """Copy latentkit's priors and starting posteriors into an hmmlearn model."""
    K = model.n_components
    peer.startprob_prior_ = model.startprob_prior_.copy()
    peer.transmat_prior_ = model.transmat_prior_.copy()
    for name in model._posterior_names():
        v = getattr(model, name + "_")
        setattr(peer, name + "_", np.array(v) if np.ndim(v) else float(v))
    if isinstance(model, VariationalCategoricalHMM):
        peer.emissionprob_prior_ = model.emissionprob_prior_.copy()
        peer.n_features = model.emission_.n_features_
        return peer
    ct = model.covariance_type
    peer.n_features = model.emission_.n_features_
    peer.means_prior_ = np.tile(model.means_prior_, (K, 1))
    peer.beta_prior_ = np.full(K, model.beta_prior_)
    peer.dof_prior_ = model.dof_prior_ if ct == "tied" else np.full(K, model.dof_prior_)
    peer.scale_prior_ = (model.scale_prior_ if ct == "tied"
                         else np.array([model.scale_prior_] * K))
    peer.covars_ = model.covariances_
    return peer


# --------------------------------------------------------------------------------------------
# hmmlearn parity
# --------------------------------------------------------------------------------------------

@pytest.mark.kernel_sensitive
def test_categorical_parity_with_hmmlearn():
    X = _cat_data()
    n_iter = 25
    start = _started(VariationalCategoricalHMM(3, random_state=0, max_iter=n_iter, tol=0),
                     X, LENGTHS)
    init = {n: getattr(start, n + "_") for n in start._posterior_names()}
    m = VariationalCategoricalHMM(3, init=init, max_iter=n_iter, tol=0).fit(X, lengths=LENGTHS)
    peer = vhmm.VariationalCategoricalHMM(3, n_iter=n_iter, tol=-np.inf, init_params="",
                                          implementation="scaling")
    _hmmlearn_from(start, peer).fit(X, LENGTHS)
    # hmmlearn's history is the total bound; ours is per time step
    hist = np.asarray(peer.monitor_.history) / X.shape[0]
    assert hist.size == m.lower_bounds_.size == n_iter
    np.testing.assert_allclose(m.lower_bounds_, hist, rtol=1e-8)
    np.testing.assert_allclose(m.emissionprob_posterior_, peer.emissionprob_posterior_,
                               rtol=1e-8)
    np.testing.assert_allclose(m.transmat_posterior_, peer.transmat_posterior_, rtol=1e-8)
    np.testing.assert_allclose(m.predict_proba(X, LENGTHS), peer.predict_proba(X, LENGTHS),
                               atol=1e-10)
    assert np.all(np.diff(m.lower_bounds_) >= -1e-12)


@pytest.mark.kernel_sensitive
@pytest.mark.parametrize("ct", ["full", "tied"])
def test_gaussian_parity_with_hmmlearn(ct):
    X = _gauss_data()
    n_iter = 15
    start = _started(VariationalGaussianHMM(3, ct, random_state=0, max_iter=n_iter, tol=0),
                     X, LENGTHS)
    init = {n: getattr(start, n + "_") for n in start._posterior_names()}
    m = VariationalGaussianHMM(3, ct, init=init, max_iter=n_iter, tol=0).fit(X, lengths=LENGTHS)
    peer = vhmm.VariationalGaussianHMM(3, ct, n_iter=n_iter, tol=-np.inf, init_params="",
                                       implementation="scaling")
    _hmmlearn_from(start, peer).fit(X, LENGTHS)
    # hmmlearn: total over time steps, without the -D/2 log(2 pi) of each Gaussian step
    D = X.shape[1]
    hist = np.asarray(peer.monitor_.history) / X.shape[0] - 0.5 * D * np.log(2 * np.pi)
    assert hist.size == m.lower_bounds_.size == n_iter
    np.testing.assert_allclose(m.lower_bounds_, hist, rtol=1e-8)
    for name in ("means_posterior", "beta_posterior", "dof_posterior", "scale_posterior"):
        np.testing.assert_allclose(getattr(m, name + "_"), getattr(peer, name + "_"),
                                   rtol=1e-8, err_msg=name)
    np.testing.assert_allclose(m.predict_proba(X, LENGTHS), peer.predict_proba(X, LENGTHS),
                               atol=1e-10)


@pytest.mark.parametrize("ct", ["diag", "spherical"])
def test_diagonal_updates_equal_hmmlearn_given_the_same_statistics(ct):
    # hmmlearn's diag/spherical E-step uses Wishart expectations of a diagonal matrix (its own
    # bound is then not the ELBO of its updates); the conjugate updates themselves are equal
    X = _gauss_data()
    m = _started(VariationalGaussianHMM(3, ct, random_state=0), X, LENGTHS)
    peer = _hmmlearn_from(m, vhmm.VariationalGaussianHMM(3, ct, init_params=""))
    peer._check()
    stats = m._e_step(m._validate_data(X, False, LENGTHS))
    peer_stats = {"start": stats.start, "trans": stats.trans, "post": stats.nk,
                  "obs": stats.sx + stats.nk[:, None] * m.emission_.shift_}
    gamma = m._vb_forward_backward(m._validate_data(X, False, LENGTHS))[0]
    # raw second moments for hmmlearn (it keeps moments about 0)
    peer_stats["obs**2"] = gamma.T @ (X ** 2)
    m._m_step(stats)
    peer._do_mstep(peer_stats)
    np.testing.assert_allclose(m.means_posterior_, peer.means_posterior_, rtol=1e-10)
    np.testing.assert_allclose(m.dof_posterior_, peer.dof_posterior_, rtol=1e-12)
    np.testing.assert_allclose(m.scale_posterior_, peer.scale_posterior_, rtol=1e-8)
    np.testing.assert_allclose(m.covariances_, peer._covars_, rtol=1e-8)


# --------------------------------------------------------------------------------------------
# the bound against brute force
# --------------------------------------------------------------------------------------------

def test_categorical_bound_equals_brute_force_over_paths():
    # log Z = log sum over every state path of the sub-normalised joint; bound = log Z - KLs
    X = np.array([0, 2, 1, 1, 3, 0, 2])[:, None]
    lengths = [4, 3]
    m = VariationalCategoricalHMM(2, random_state=3, max_iter=3, tol=0).fit(X, lengths=lengths)
    ls = dirichlet_expectation(m.startprob_posterior_)
    lt = dirichlet_expectation(m.transmat_posterior_)
    le = dirichlet_expectation(m.emissionprob_posterior_)
    logz = 0.0
    for a, b in ((0, 4), (4, 7)):
        x = X[a:b, 0]
        terms = []
        for path in itertools.product(range(2), repeat=b - a):
            v = ls[path[0]] + le[path[0], x[0]]
            for t in range(1, b - a):
                v += lt[path[t - 1], path[t]] + le[path[t], x[t]]
            terms.append(v)
        logz += logsumexp(terms)
    kl = (dirichlet_kl(m.startprob_posterior_, m.startprob_prior_)
          + dirichlet_kl(m.transmat_posterior_, m.transmat_prior_).sum()
          + dirichlet_kl(m.emissionprob_posterior_, m.emissionprob_prior_).sum())
    assert m.elbo(X, lengths=lengths) == pytest.approx((logz - kl) / 7, rel=1e-12)


def test_gaussian_bound_matches_exact_marginal_likelihood_for_one_state():
    # K = 1, one sequence: q(theta) = the exact Normal-Wishart posterior, the bound is tight
    # and equals the closed-form evidence (Bishop 2006, eq. 3.118 analogue for Normal-Wishart)
    from scipy.special import multigammaln

    rng = np.random.default_rng(1)
    X = rng.normal(size=(30, 2)) @ np.array([[1.0, 0.3], [0.0, 0.7]]) + 1.0
    m = VariationalGaussianHMM(1, "full", max_iter=3, tol=0).fit(X)
    N, D = X.shape
    m0, b0, nu0, S0 = m.means_prior_, m.beta_prior_, m.dof_prior_, m.scale_prior_
    bN, nuN, SN = m.beta_posterior_[0], m.dof_posterior_[0], m.scale_posterior_[0]
    log_ev = (-0.5 * N * D * np.log(np.pi) + multigammaln(0.5 * nuN, D)
              - multigammaln(0.5 * nu0, D) + 0.5 * nu0 * np.linalg.slogdet(S0)[1]
              - 0.5 * nuN * np.linalg.slogdet(SN)[1] + 0.5 * D * np.log(b0 / bN))
    assert m0.shape == (D,)
    assert m.lower_bound_ * N == pytest.approx(log_ev, rel=1e-10)


@pytest.mark.parametrize("ct", ["diag", "spherical"])
def test_diagonal_bound_matches_exact_normal_gamma_evidence_for_one_state(ct):
    # diag: independent Normal-Gamma per feature; spherical: one Gamma precision shared by the
    # features (Bishop 2006, eqs. 2.154-2.155; the evidence of a Normal-Gamma model). The bound
    # of the converged K = 1 fit is tight, so it must equal the evidence to rounding.
    from scipy.special import gammaln

    rng = np.random.default_rng(5)
    X = rng.normal(size=(40, 3)) * np.array([0.5, 1.0, 2.0]) + 1.0
    m = VariationalGaussianHMM(1, ct, max_iter=3, tol=0).fit(X)
    N, D = X.shape
    b0, bN = m.beta_prior_, m.beta_posterior_[0]
    nu0, nuN = m.dof_prior_, m.dof_posterior_[0]
    if ct == "diag":
        a0, aN = nu0 / 2, nuN / 2
        r0, rN = m.scale_prior_ / 2, m.scale_posterior_[0] / 2  # Gamma rates per feature
        log_ev = np.sum(gammaln(aN) - gammaln(a0) + a0 * np.log(r0) - aN * np.log(rN)
                        + 0.5 * np.log(b0 / bN)) - 0.5 * N * D * np.log(2 * np.pi)
    else:
        a0, aN = D * nu0 / 2, D * nuN / 2
        r0, rN = D * m.scale_prior_ / 2, D * m.scale_posterior_[0] / 2
        log_ev = (gammaln(aN) - gammaln(a0) + a0 * np.log(r0) - aN * np.log(rN)
                  + 0.5 * D * np.log(b0 / bN) - 0.5 * N * D * np.log(2 * np.pi))
    assert m.lower_bound_ * N == pytest.approx(log_ev, rel=1e-10)


def test_frozen_posteriors_stay_at_their_start():
    X = _cat_data()
    start = _started(VariationalCategoricalHMM(2, random_state=0), X, None)
    init = {n: getattr(start, n + "_") for n in start._posterior_names()}
    m = VariationalCategoricalHMM(2, init=init, frozen={"transmat", "emissionprob"},
                                  max_iter=5, tol=0).fit(X)
    np.testing.assert_array_equal(m.transmat_posterior_, init["transmat_posterior"])
    np.testing.assert_array_equal(m.emissionprob_posterior_, init["emissionprob_posterior"])
    assert not np.array_equal(m.startprob_posterior_, init["startprob_posterior"])
    assert np.all(np.diff(m.lower_bounds_) >= -1e-12)


# --------------------------------------------------------------------------------------------
# model behaviour
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("ct", ["full", "tied", "diag", "spherical"])
def test_gaussian_bound_never_decreases_and_extra_states_are_emptied(ct):
    X = _gauss_data(2)
    m = VariationalGaussianHMM(6, ct, random_state=0, max_iter=300, tol=1e-9).fit(X)
    d = np.diff(m.lower_bounds_)
    assert np.all(d >= -1e-10 * np.abs(m.lower_bounds_[:-1])), d.min()
    occ = m.state_occupancy_
    np.testing.assert_allclose(occ.sum(), X.shape[0], rtol=1e-10)
    share = occ / occ.sum()
    assert m.n_effective_components_ == np.sum(share > 0.01) < 6
    # an emptied state's posteriors fall back to the prior
    empty = np.flatnonzero(occ < 1e-3)
    assert empty.size >= 1
    np.testing.assert_allclose(m.transmat_posterior_[empty],
                               m.transmat_prior_[empty] + 0 * m.transmat_posterior_[empty],
                               atol=1e-3)
    np.testing.assert_allclose(m.beta_posterior_[empty], m.beta_prior_, atol=1e-3)
    # the occupied states cover the two clusters
    big = occ > 0.05 * X.shape[0]
    near = np.abs(m.means_[big, 0][:, None] - np.array([0.0, 3.0])[None]).min(axis=1)
    assert np.all(near < 0.5) and occ[big].sum() > 0.95 * X.shape[0]


def test_categorical_recovers_emissions_and_reports_effective_states():
    X = _cat_data(1)
    m = VariationalCategoricalHMM(2, random_state=0, n_init=3, max_iter=500,
                                  tol=1e-10).fit(X)
    B = m.emissionprob_[np.argsort(m.emissionprob_[:, 0])[::-1]]
    np.testing.assert_allclose(B, [[0.7, 0.2, 0.05, 0.05], [0.05, 0.05, 0.2, 0.7]], atol=0.12)
    assert m.n_effective_components_ == 2
    # a larger model empties its extra states on the same data (the bound may keep a split
    # state: VB-EM is a local method), never reports more states than it occupies
    big = VariationalCategoricalHMM(6, random_state=0, max_iter=500, tol=1e-10).fit(X)
    share = big.state_occupancy_ / big.state_occupancy_.sum()
    assert big.n_effective_components_ == np.sum(share > 0.01)


@pytest.mark.parametrize("model", [
    VariationalCategoricalHMM(2, random_state=0, max_iter=5),
    VariationalGaussianHMM(2, "diag", random_state=0, max_iter=5),
    VariationalGaussianHMM(2, "tied", random_state=0, max_iter=5),
], ids=["categorical", "gaussian-diag", "gaussian-tied"])
def test_contract(model):
    X = _cat_data() if isinstance(model, VariationalCategoricalHMM) else _gauss_data()
    check_latent_model(model, X, {"lengths": LENGTHS})


@pytest.mark.parametrize("make", [
    lambda: (VariationalCategoricalHMM(2, random_state=0, max_iter=5), _cat_data()),
    lambda: (VariationalGaussianHMM(2, "spherical", random_state=0, max_iter=5),
             _gauss_data()),
    lambda: (VariationalGaussianHMM(2, "full", random_state=0, max_iter=5), _gauss_data()),
])
def test_save_load_round_trip(tmp_path, make):
    m, X = make()
    m.fit(X, lengths=LENGTHS)
    path = tmp_path / "m.npz"
    save(m, path)
    r = load(path)
    assert type(r) is type(m)
    assert r.elbo(X, lengths=LENGTHS) == pytest.approx(m.elbo(X, lengths=LENGTHS), rel=1e-12)
    np.testing.assert_allclose(r.predict_proba(X, LENGTHS), m.predict_proba(X, LENGTHS),
                               rtol=1e-12)
    assert r.n_effective_components_ == m.n_effective_components_


def test_partial_fit_minibatches_raise_the_bound():
    X = _gauss_data()
    m = VariationalGaussianHMM(2, "diag", random_state=0)
    for _ in range(20):
        m.partial_fit(X[:100], total_samples=200)
        m.partial_fit(X[100:], total_samples=200)
    ref = VariationalGaussianHMM(2, "diag", random_state=0, max_iter=1).fit(X)
    assert m.elbo(X) > ref.lower_bound_


# --------------------------------------------------------------------------------------------
# bad input
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs, match", [
    ({"startprob_prior": 0.0}, "startprob_prior must be finite and > 0"),
    ({"transmat_prior": -1.0}, "transmat_prior must be finite and > 0"),
    ({"emissionprob_prior": np.nan}, "emissionprob_prior must be finite and > 0"),
    ({"init": "banana"}, "init must be one of"),
    ({"init": {"emissionprob": np.ones((2, 4)) / 4}}, "unknown posterior"),
    ({"init": {"transmat_posterior": np.ones((3, 3))}}, r"init\['transmat_posterior'\]"),
])
def test_categorical_bad_parameters(kwargs, match):
    with pytest.raises(ValueError, match=match):
        VariationalCategoricalHMM(2, **kwargs).fit(_cat_data())


@pytest.mark.parametrize("kwargs, match", [
    ({"beta_prior": 0.0}, "beta_prior"),
    ({"dof_prior": 0.5}, "dof_prior must be > n_features - 1"),
    ({"scale_prior": np.ones(3)}, "scale_prior must have shape"),
    ({"covariance_type": "diag", "scale_prior": np.array([1.0, -1.0])}, "scale_prior must be"),
    ({"means_prior": [0.0]}, "means_prior must be finite with shape"),
    ({"covariance_type": "banana"}, "covariance_type"),
    ({"init": {"scale_posterior": np.ones((2, 2, 2))}}, "positive"),
])
def test_gaussian_bad_parameters(kwargs, match):
    with pytest.raises(ValueError, match=match):
        VariationalGaussianHMM(2, **kwargs).fit(_gauss_data())


def test_gaussian_rejects_nan_and_mutates_nothing():
    X = _gauss_data()
    X[5, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        VariationalGaussianHMM(2).fit(X)
    prior = np.eye(2)
    X = _gauss_data()
    X0, p0 = X.copy(), prior.copy()
    VariationalGaussianHMM(2, scale_prior=prior, max_iter=3).fit(X)
    np.testing.assert_array_equal(X, X0)
    np.testing.assert_array_equal(prior, p0)


# --------------------------------------------------------------------------------------------
# CLI
# --------------------------------------------------------------------------------------------

def test_cli_fit_hmm_variational(capsys):
    import io
    import json

    from latentkit.cli import main

    out = io.StringIO()
    assert main(["fit", "hmm", "--dataset", "geyser", "-k", "4", "--covariance-type", "full",
                 "--variational", "--max-iter", "200", "--json"], out=out) == 0
    obj = json.loads(out.getvalue())
    assert obj["model"] == "VariationalGaussianHMM"
    assert 1 <= obj["n_effective_components"] <= 4
    lb = np.asarray(obj["lower_bounds"])
    assert np.all(np.diff(lb) >= -1e-10 * np.abs(lb[:-1]))
    assert obj["elbo"] == pytest.approx(lb[-1])
    out = io.StringIO()
    assert main(["fit", "hmm", "--dataset", "lambda_phage", "-k", "2", "--variational",
                 "--max-iter", "3", "--quiet"], out=out) == 0
    assert "VariationalCategoricalHMM" in out.getvalue() and "effective states" in out.getvalue()
    assert main(["fit", "hmm", "--dataset", "earthquakes", "--emission", "poisson",
                 "--variational", "--quiet"], out=io.StringIO()) != 0
    assert "--variational needs categorical or gaussian" in capsys.readouterr().err


# --------------------------------------------------------------------------------------------
# spectral start
# --------------------------------------------------------------------------------------------

def test_spectral_start_of_the_variational_gaussian_hmm():
    rng = np.random.default_rng(7)
    A = np.array([[0.9, 0.05, 0.05], [0.05, 0.9, 0.05], [0.05, 0.05, 0.9]])
    z = np.zeros(3000, dtype=int)
    for t in range(1, 3000):
        z[t] = rng.choice(3, p=A[z[t - 1]])
    mu = np.array([[0.0, 0.0], [3.0, 0.0], [0.0, 3.0]])
    X = mu[z] + rng.normal(size=(3000, 2)) * 0.8
    spec = VariationalGaussianHMM(3, "diag", init="spectral", random_state=0, tol=1e-8,
                                  max_iter=500).fit(X)
    km = VariationalGaussianHMM(3, "diag", init="kmeans++", random_state=0, tol=1e-8,
                                max_iter=500).fit(X)
    assert spec.lower_bound_ >= km.lower_bound_ - 1e-6
    assert spec.n_iter_ < km.n_iter_
    assert spec.n_effective_components_ == 3
    with pytest.raises(ValueError, match="'diag' or 'spherical'"):
        VariationalGaussianHMM(3, "full", init="spectral").fit(X)


def test_spectral_start_of_the_variational_categorical_hmm():
    rng = np.random.default_rng(8)
    B = np.array([[0.6, 0.3, 0.05, 0.05], [0.05, 0.05, 0.3, 0.6]])
    z = np.zeros(4000, dtype=int)
    for t in range(1, 4000):
        z[t] = z[t - 1] if rng.random() < 0.9 else 1 - z[t - 1]
    X = np.array([rng.choice(4, p=B[k]) for k in z])[:, None]
    m = _started(VariationalCategoricalHMM(2, init="spectral", random_state=0), X, None)
    # the starting posterior means are the spectral estimate, already close to the truth
    order = np.argsort(m.emissionprob_[:, 0])[::-1]
    np.testing.assert_allclose(m.emissionprob_[order], B, atol=0.08)


def test_stochastic_vi_reaches_the_batch_bound():
    # natural-gradient steps on minibatches of whole sequences (Hoffman et al. 2013)
    from latentkit.inference import IterableSource, StochasticVI

    rng = np.random.default_rng(0)
    z = np.repeat(np.arange(30) % 2, 50)
    X = rng.normal(size=(z.size, 2)) * 0.6 + np.array([[0.0, 0.0], [3.0, 2.0]])[z]
    lengths = [150] * 10
    chunks = [(X[a:a + 300], {"lengths": [150, 150]}) for a in range(0, 1500, 300)]
    svi = StochasticVI(VariationalGaussianHMM(2, "diag", random_state=0), batch_size=300,
                       n_epochs=10, tol=0.0, random_state=0).fit(
        IterableSource(chunks, n_samples=1500))
    batch = VariationalGaussianHMM(2, "diag", random_state=0).fit(X, lengths=lengths)
    assert svi.model_.elbo(X, lengths=lengths) == pytest.approx(batch.lower_bound_, abs=2e-3)
