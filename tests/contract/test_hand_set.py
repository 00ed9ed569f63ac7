"""Models defined by hand (issue 26, item 6): hmmlearn users set ``startprob_``,
``transmat_`` and the emission parameters (scikit-learn users ``weights_``, ``means_``,
``covariances_``) on an unfitted model and call ``score``, ``decode``, ``predict``,
``sample``. Checked against hmmlearn and scikit-learn on the same hand-set models, over every
hand-settable model of the contract list, and for the named errors of bad values."""

import warnings

import numpy as np
import pytest

import latentkit as lk

from _model_cases import CASES

hmm = pytest.importorskip("hmmlearn.hmm")

# the "occasionally dishonest casino" (Durbin, Eddy, Krogh & Mitchison 1998, section 3.2):
# a fair die and a loaded one (a six half of the time), switched rarely
CASINO = dict(startprob=np.array([0.5, 0.5]),
              transmat=np.array([[0.95, 0.05], [0.10, 0.90]]),
              emissionprob=np.vstack([np.full(6, 1 / 6), [0.1] * 5 + [0.5]]))


def _casino(model):
    model.startprob_ = CASINO["startprob"]
    model.transmat_ = CASINO["transmat"]
    model.emissionprob_ = CASINO["emissionprob"]
    return model


@pytest.mark.kernel_sensitive
def test_dishonest_casino_matches_hmmlearn():
    ref = _casino(hmm.CategoricalHMM(2))
    rolls, _ = ref.sample(400, random_state=0)
    model = _casino(lk.CategoricalHMM(2))
    # score: nats per roll here, hmmlearn's total log-likelihood
    assert model.score(rolls) * len(rolls) == pytest.approx(ref.score(rolls), rel=1e-12)
    logp, path = model.decode(rolls)
    ref_logp, ref_path = ref.decode(rolls, algorithm="viterbi")
    assert logp == pytest.approx(ref_logp, rel=1e-12)
    np.testing.assert_array_equal(path, ref_path)
    np.testing.assert_array_equal(model.predict(rolls), ref.predict(rolls))
    np.testing.assert_allclose(model.predict_proba(rolls), ref.predict_proba(rolls), atol=1e-12)
    # the loaded die is found: most sixes fall in the decoded loaded stretches
    sixes = rolls[:, 0] == 5
    assert sixes[path == 1].mean() > sixes[path == 0].mean()
    X, states = model.sample(2000, random_state=1)
    assert X.shape == (2000, 1) and set(np.unique(X)) <= set(range(6))
    assert (X[states == 1, 0] == 5).mean() == pytest.approx(0.5, abs=0.06)


@pytest.mark.kernel_sensitive
@pytest.mark.parametrize("ct", ["full", "diag", "spherical", "tied"])
def test_hand_set_gaussian_hmm_matches_hmmlearn(ct):
    rng = np.random.default_rng(0)
    K, D = 3, 2
    A = rng.normal(size=(K, D, D))
    full = A @ A.transpose(0, 2, 1) + np.eye(D)
    cov = {"full": full, "diag": rng.uniform(0.5, 2, (K, D)),
           "spherical": rng.uniform(0.5, 2, K), "tied": full[0]}[ct]
    params = dict(startprob_=rng.dirichlet(np.ones(K)),
                  transmat_=rng.dirichlet(np.ones(K), size=K),
                  means_=rng.normal(scale=3, size=(K, D)))
    ref = hmm.GaussianHMM(K, covariance_type=ct)
    model = lk.GaussianHMM(K, covariance_type=ct)
    for name, value in params.items():
        setattr(ref, name, value)
        setattr(model, name, value)
    ref.covars_ = cov
    model.covariances_ = cov
    X, _ = ref.sample(300, random_state=2)
    lengths = [100, 200]
    assert model.score(X, lengths) * 300 == pytest.approx(ref.score(X, lengths), rel=1e-10)
    np.testing.assert_array_equal(model.decode(X, lengths)[1],
                                  ref.decode(X, lengths, algorithm="viterbi")[1])


@pytest.mark.kernel_sensitive
def test_hand_set_poisson_hmm_matches_hmmlearn():
    model, ref = lk.PoissonHMM(2), hmm.PoissonHMM(2)
    for m in (model, ref):
        m.startprob_ = np.array([0.6, 0.4])
        m.transmat_ = np.array([[0.9, 0.1], [0.2, 0.8]])
        m.lambdas_ = np.array([[1.0, 5.0], [6.0, 0.5]])
    X, _ = ref.sample(200, random_state=0)
    assert model.score(X) * 200 == pytest.approx(ref.score(X), rel=1e-10)
    np.testing.assert_array_equal(model.predict(X), ref.predict(X))


@pytest.mark.kernel_sensitive
def test_hand_set_gaussian_mixture_matches_sklearn():
    from sklearn.mixture import GaussianMixture

    weights, means = np.array([0.3, 0.7]), np.array([[0.0, 0.0], [3.0, 3.0]])
    cov = np.stack([np.eye(2), [[2.0, 0.5], [0.5, 1.0]]])
    model = lk.GaussianMixture(2)
    model.weights_, model.means_, model.covariances_ = weights, means, cov
    ref = GaussianMixture(2)
    ref.weights_, ref.means_, ref.covariances_ = weights, means, cov
    ref.precisions_cholesky_ = np.linalg.cholesky(np.linalg.inv(cov))
    X = np.random.default_rng(0).normal(scale=2.0, size=(100, 2))
    np.testing.assert_allclose(model.score_samples(X), ref.score_samples(X), rtol=1e-12)
    np.testing.assert_array_equal(model.predict(X), ref.predict(X))
    assert model.sample(5, random_state=0)[0].shape == (5, 2)
    # a fitted mixture whose covariances are reassigned scores with the new ones
    fitted = lk.GaussianMixture(2, random_state=0).fit(X)
    fitted.covariances_ = cov
    fitted.means_, fitted.weights_ = means, weights
    np.testing.assert_allclose(fitted.score_samples(X), ref.score_samples(X), rtol=1e-12)


#: every hand-settable model of the contract list: its parameter attributes
_HAND = {name: make for name, (make, _) in CASES.items()
         if isinstance(make(), (lk.GaussianMixture, lk.HiddenMarkovModel))
         and not isinstance(make(), lk.sequence.VariationalHMM)}


def _point_params(model):
    if isinstance(model, lk.GaussianMixture):
        return ["weights_", "means_", "covariances_"]
    return ["startprob_", "transmat_"] + [
        {"covars": "covariances"}.get(n, n) + "_" for n in model.emission_.param_names] + [
        n + "_" for n in getattr(model, "_duration_names", tuple)()]  # a semi-Markov model's


@pytest.mark.parametrize("name", sorted(_HAND))
def test_every_point_model_set_by_hand_equals_the_fitted_one(name):
    make, data = CASES[name]
    X = data(60, 0)
    kw = {"lengths": [30, 30]} if isinstance(make(), lk.HiddenMarkovModel) else {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", lk.ConvergenceWarning)
        fitted = make().fit(X, **kw)
    by_hand = make()
    for attr in _point_params(fitted):
        setattr(by_hand, attr, getattr(fitted, attr).copy())
    np.testing.assert_allclose(by_hand.score(X, **kw), fitted.score(X, **kw), rtol=1e-10)
    np.testing.assert_array_equal(by_hand.predict(X, **kw), fitted.predict(X, **kw))
    assert len(by_hand.sample(4, random_state=0)[0]) == 4


def test_variational_models_are_not_set_by_hand():
    m = lk.VariationalCategoricalHMM(2, n_features=6)
    _casino(m)
    with pytest.raises(lk.NotFittedError):
        m.score(np.zeros((5, 1), dtype=int))


@pytest.mark.parametrize("attr, value, match", [
    ("transmat_", np.array([[0.9, 0.2], [0.1, 0.9]]), "transmat_ must sum to 1"),
    ("startprob_", np.array([0.5, 0.3, 0.2]), r"startprob_ must have shape \(2,\)"),
    ("emissionprob_", np.full((2, 6), 0.2), "emissionprob_ must sum to 1"),
    ("emissionprob_", -CASINO["emissionprob"], "emissionprob_ must be finite and non-neg"),
])
def test_bad_hand_set_hmm_values_are_named(attr, value, match):
    m = _casino(lk.CategoricalHMM(2))
    setattr(m, attr, value)
    with pytest.raises(ValueError, match=match):
        m.score(np.zeros((5, 1), dtype=int))


def test_bad_hand_set_gaussian_values_are_named():
    m = lk.GaussianHMM(2, covariance_type="full")
    m.startprob_, m.transmat_ = CASINO["startprob"], CASINO["transmat"]
    m.means_ = np.zeros((2, 2))
    m.covariances_ = np.stack([np.eye(2), [[1.0, 2.0], [2.0, 1.0]]])
    with pytest.raises(ValueError, match=r"covariances_\[1\] is not positive definite"):
        m.decode(np.zeros((4, 2)))
    m.covariances_ = np.ones((2, 2))
    with pytest.raises(ValueError, match=r"covariances_ must have shape \(2, 2, 2\)"):
        m.sample(3)
    m.means_ = np.zeros((3, 2))
    with pytest.raises(ValueError, match=r"means_ must be finite with shape \(2, 2\)"):
        m.score(np.zeros((4, 2)))
    g = lk.GaussianMixture(2, covariance_type="diag")
    g.weights_, g.means_, g.covariances_ = np.array([0.5, 0.6]), np.zeros((2, 2)), np.ones((2, 2))
    with pytest.raises(ValueError, match="weights_ must sum to 1"):
        g.predict(np.zeros((3, 2)))
    g.weights_, g.covariances_ = np.array([0.5, 0.5]), np.array([[1.0, 0.0], [1.0, 1.0]])
    with pytest.raises(ValueError, match="covariances_ must be positive"):
        g.score(np.zeros((3, 2)))


def test_partly_hand_set_model_names_what_is_missing():
    m = lk.GaussianHMM(2)
    m.startprob_, m.transmat_ = CASINO["startprob"], CASINO["transmat"]
    with pytest.raises(lk.NotFittedError, match="not means_, covariances_"):
        m.score(np.zeros((4, 1)))
    g = lk.GaussianMixture(2)
    g.means_ = np.zeros((2, 1))
    with pytest.raises(lk.NotFittedError, match="not weights_, covariances_"):
        g.score(np.zeros((4, 1)))


# issue 48, item 4: checked at every use, float32 probabilities as hmmlearn accepts them


def test_float32_probabilities_are_accepted_as_hmmlearn_accepts_them():
    """Exact probabilities stored as float32 sum to 1 within a few float32 ulps (here 3e-8,
    beyond the float64 tolerance 1e-8): refused on main with "got sums in [1, 1]"."""
    params = {k: v.astype(np.float32) for k, v in CASINO.items()}
    params["emissionprob"] = np.vstack([np.full(6, 1 / 6), [0.1] * 5 + [0.5]]).astype(np.float32)
    assert np.abs(params["transmat"].astype(float).sum(1) - 1).max() > 1e-8 or \
        np.abs(params["emissionprob"].astype(float).sum(1) - 1).max() > 1e-8
    ref = hmm.CategoricalHMM(2)
    m = lk.CategoricalHMM(2)
    for obj in (ref, m):
        obj.startprob_, obj.transmat_ = params["startprob"], params["transmat"]
        obj.emissionprob_ = params["emissionprob"]
    rolls, _ = ref.sample(200, random_state=0)
    # the float32 rows are divided by their sums (proper distributions in float64); hmmlearn
    # uses them as given: the two agree to the float32 rounding of the rows (~1e-7 a roll)
    assert m.score(rolls) * len(rolls) == pytest.approx(ref.score(rolls), rel=1e-5)


def test_far_off_float32_rows_are_refused_with_the_worst_sum():
    m = _casino(lk.CategoricalHMM(2))
    m.transmat_ = np.array([[0.95, 0.05], [0.10, 0.9001]], dtype=np.float32)
    with pytest.raises(ValueError, match=r"transmat_ must sum to 1.*sum of 1\.000099.*\(row 1\)"
                                         r".*tolerance 9\.54e-07 for float32"):
        m.score(np.zeros((5, 1), dtype=int))


@pytest.mark.filterwarnings("ignore::latentkit.ConvergenceWarning")
@pytest.mark.parametrize("case", ["reassigned", "in place"])
@pytest.mark.parametrize("attr, bad, match", [
    ("transmat_", np.array([[0.9, 0.05], [0.1, 0.9]]), r"transmat_ must sum to 1.*0\.95"),
    ("transmat_", np.array([[2.0, 1.0], [0.1, 0.9]]), r"transmat_ must sum to 1.*sum of 3\.0"),
    ("emissionprob_", np.full((2, 5), 0.2), r"emissionprob_.*shape \(2, 6\)"),
])
def test_parameters_changed_after_the_first_call_are_checked_again(case, attr, bad, match):
    """On main a parameter reassigned after the first call was never checked again: rows
    summing to 0.95 or 3, or an emission matrix of the wrong shape, scored silently."""
    rolls = np.random.default_rng(0).integers(0, 6, size=(50, 1))
    for fitted in (False, True):
        m = (lk.CategoricalHMM(2, max_iter=3, random_state=0).fit(rolls) if fitted
             else _casino(lk.CategoricalHMM(2)))
        good = m.score(rolls)
        kept = getattr(m, attr).copy()
        if case == "reassigned" or kept.shape != bad.shape:
            setattr(m, attr, bad)
        else:
            getattr(m, attr)[...] = bad  # changed in place
        for call in (m.score, m.predict, m.predict_proba, m.sample):
            with pytest.raises(ValueError, match=match):
                call(3 if call == m.sample else rolls)
        setattr(m, attr, kept)
        assert m.score(rolls) == good  # valid again: accepted, the same model
