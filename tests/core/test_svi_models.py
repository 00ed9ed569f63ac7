"""StochasticVI on the real models: SVI with step 1 and the full data as one batch is one batch
VB step (LDA, VariationalGaussianMixture, DirichletProcessMixture); stepwise EM through the
driver approaches the batch optimum (GaussianMixture, PLSA, CategoricalHMM) on planted data;
SVI LDA reaches the held-out perplexity of batch VB; the deprecated LatentDirichletAllocation(
learning_method='online') is exactly the StochasticVI driver; the classic SVI mistakes raise.

Sources: Hoffman, Blei, Wang & Paisley (2013), Algorithm 1 and eq. 26; Hoffman, Blei & Bach
(2010), Algorithm 2; Liang & Klein (2009) for stepwise EM.
"""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from latentkit._utils.validation import check_random_state
from latentkit.base import ConvergenceWarning
from latentkit.datasets import make_gmm, make_lda_corpus
from latentkit.inference import IterableSource, StochasticVI
from latentkit.mixture import GaussianMixture
from latentkit.mixture._gaussian_component import GaussianComponent
from latentkit.mixture._dirichlet_process import DirichletProcessMixture
from latentkit.mixture._variational import VariationalGaussianMixture
from latentkit.sequence import CategoricalHMM
from latentkit.testing import match_components
from latentkit.topic import LatentDirichletAllocation, lda_e_step
from latentkit.topic._plsa import PLSA


@pytest.fixture(scope="module")
def corpus():
    X, truth = make_lda_corpus(1200, 4, 120, doc_length=60, random_state=0)
    return X, truth


@pytest.fixture(scope="module")
def blobs():
    X, _, truth = make_gmm(600, 3, 2, random_state=2)
    return X, truth


def _one_batch_step(model, X, seed):
    """A fresh copy of ``model`` initialised as the first partial_fit does, then one batch
    iteration (E-step on all of X, M-step with step size 1)."""
    ref = type(model)(**{**model.get_params(deep=False), "random_state": seed})
    ref._check_common_params()
    ref._validate_params()
    data = ref._validate_data(X, reset=True)
    ref._init_params(data, check_random_state(seed))
    start = ref._fit_state()
    ref._iterate(data)
    return ref, start


def _svi_one_full_step(model, X, kappa=0.8):
    svi = StochasticVI(model, batch_size=X.shape[0], learning_offset=0.0, learning_decay=kappa,
                       max_steps=1, shuffle=False, random_state=5).fit(X)
    assert svi.n_steps_ == 1
    return svi


# ---------------------------------------------------------------------------------------------
# step size 1, full batch == one batch VB step (1e-10)
# ---------------------------------------------------------------------------------------------

def test_lda_full_batch_step_equals_batch_vb_step_and_second_step_blends(corpus):
    X, _ = corpus
    lam0 = np.random.default_rng(1).gamma(100.0, 0.01, size=(4, X.shape[1]))
    model = LatentDirichletAllocation(4, init={"components": lam0})
    svi = _svi_one_full_step(model, X)
    ref, _ = _one_batch_step(model, X, svi.model_.random_state)
    # the reference is the batch update written out: lambda = eta + sstats(lambda0)
    _, ss, _, _ = lda_e_step(X, lam0, 0.25)
    np.testing.assert_allclose(ref.components_, 0.25 + ss, rtol=1e-10)
    np.testing.assert_allclose(svi.components_, ref.components_, rtol=1e-10)
    assert svi.model_.elbo(X) == pytest.approx(ref.elbo(X), rel=1e-10)
    # a second full-data step with rho_2 = 2^-kappa is the natural-gradient blend
    svi2 = StochasticVI(model, batch_size=X.shape[0], learning_offset=0.0, learning_decay=0.8,
                        max_steps=2, n_epochs=2, shuffle=False, random_state=5).fit(X)
    rho2 = 2.0 ** -0.8
    _, ss1, _, _ = lda_e_step(X, ref.components_, 0.25)
    np.testing.assert_allclose(svi2.components_,
                               (1 - rho2) * ref.components_ + rho2 * (0.25 + ss1), rtol=1e-10)


@pytest.mark.parametrize("make", [
    lambda: VariationalGaussianMixture(n_components=3, covariance_type="full"),
    lambda: VariationalGaussianMixture(n_components=3, covariance_type="diag", init="random"),
    lambda: DirichletProcessMixture(n_components=5, component=GaussianComponent("full")),
    lambda: DirichletProcessMixture(n_components=5, truncation_method="tail",
                                    component=GaussianComponent("spherical"), init="random"),
], ids=["vgmm-full", "vgmm-diag", "dpm-fixed", "dpm-tail"])
def test_bayesian_mixture_full_batch_step_equals_batch_vb_step(blobs, make):
    X, _ = blobs
    model = make()
    svi = _svi_one_full_step(model, X, kappa=0.6)
    ref, start = _one_batch_step(model, X, svi.model_.random_state)
    fitted = svi.model_
    names = ["means_", "covariances_", "weights_", "mean_precision_", "degrees_of_freedom_"]
    if isinstance(model, DirichletProcessMixture):
        names.append("weight_concentration_")
    for name in names:
        np.testing.assert_allclose(getattr(fitted, name), getattr(ref, name), rtol=1e-10,
                                   atol=1e-12, err_msg=name)
    # the step moved the parameters (the comparison is not start == start)
    assert not np.allclose(start["means_"], ref.means_, rtol=1e-6)
    assert fitted.elbo(X) == pytest.approx(ref.elbo(X), rel=1e-10)


# ---------------------------------------------------------------------------------------------
# stepwise EM through the driver approaches the batch optimum
# ---------------------------------------------------------------------------------------------

def test_gaussian_mixture_stepwise_em_approaches_batch(blobs):
    X, _ = blobs
    batch = GaussianMixture(3, random_state=0, tol=1e-8, max_iter=500).fit(X)
    svi = StochasticVI(GaussianMixture(3), batch_size=50, learning_offset=2.0,
                       learning_decay=0.6, n_epochs=8, random_state=0).fit(X)
    assert svi.n_steps_ == 8 * 12
    # stepwise EM ends near (not at) the batch optimum: its last steps still carry minibatch
    # noise of order rho_t
    perm, err = match_components(batch.means_, svi.means_, metric="l2")
    assert err.max() < 0.2
    np.testing.assert_allclose(svi.weights_[perm], batch.weights_, atol=0.02)
    assert svi.score(X) == pytest.approx(batch.score(X), abs=5e-3)
    assert svi.score(X) <= batch.score(X) + 1e-9


def test_plsa_stepwise_em_approaches_batch(corpus):
    X, truth = corpus
    X = X[:600]
    with warnings.catch_warnings():  # 100 EM iterations: within 3e-4 nats/token of 300
        warnings.simplefilter("ignore", ConvergenceWarning)
        batch = PLSA(4, random_state=0, max_iter=100, tol=1e-6).fit(X)
    svi = StochasticVI(PLSA(4), batch_size=50, learning_offset=2.0, learning_decay=0.6,
                       n_epochs=5, random_state=0).fit(X)
    assert svi.n_steps_ == 5 * 12
    _, err_b = match_components(truth["topics"], batch.components_)
    perm, err_s = match_components(truth["topics"], svi.components_)
    assert err_b.max() < 0.1 and err_s.max() < 0.1
    # per-token log-likelihood of the documents folded in, within 1% of the batch optimum
    assert svi.score_per_token(X) == pytest.approx(batch.score_per_token(X), rel=1e-2)
    uniform = np.log(1.0 / X.shape[1])
    assert svi.score_per_token(X) > uniform + 0.5


def test_categorical_hmm_stepwise_em_through_a_source_of_sequences():
    rng = np.random.default_rng(8)
    truth_B = np.array([[0.8, 0.1, 0.1], [0.1, 0.1, 0.8]])
    lengths = rng.integers(20, 60, size=60)
    Z = [rng.integers(0, 2)]
    for _ in range(lengths.sum() - 1):
        Z.append(Z[-1] if rng.random() < 0.9 else 1 - Z[-1])
    Z = np.array(Z)
    X = (rng.random(len(Z))[:, None] > np.cumsum(truth_B[Z], axis=1)).sum(1)[:, None]
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    init = dict(startprob=[0.5, 0.5], transmat=[[0.6, 0.4], [0.3, 0.7]],
                emissionprob=[[0.5, 0.2, 0.3], [0.3, 0.2, 0.5]])
    chunks = [(X[offsets[s]:offsets[s + 20]], {"lengths": lengths[s:s + 20]})
              for s in range(0, 60, 20)]
    seen = []

    class Recording(CategoricalHMM):
        def _partial_step(self, X, *args, **kw):  # the step StochasticVI takes
            seen.append((X.shape[0], int(np.sum(kw["lengths"]))))
            return super()._partial_step(X, *args, **kw)

    svi = StochasticVI(Recording(2, n_features=3, init=init), batch_size=200,
                       learning_offset=2.0, learning_decay=0.6, n_epochs=8,
                       holdout=(X, {"lengths": lengths}), evaluate_every=5, tol=0.0,
                       random_state=0).fit(IterableSource(chunks, n_samples=len(X)))
    # minibatches are whole sequences (lengths sum to the rows) of about batch_size steps
    assert all(rows == total for rows, total in seen)
    assert max(rows for rows, _ in seen) < 200 + 60
    assert sum(rows for rows, _ in seen) == 8 * len(X)
    batch = CategoricalHMM(2, n_features=3, init=init, tol=1e-8, max_iter=300).fit(
        X, lengths=lengths)
    start = CategoricalHMM(2, n_features=3, init=init, max_iter=1, tol=0,
                           frozen=set(init)).fit(X, lengths=lengths)
    m = svi.model_
    assert m.score(X, lengths) > batch.score(X, lengths) - 2e-3
    assert m.score(X, lengths) > start.score(X, lengths) + 0.15
    _, err = match_components(truth_B, m.emissionprob_)
    assert err.max() < 0.15
    assert np.all(svi.heldout_steps_ % 5 == 0) and svi.heldout_bounds_.size == len(seen) // 5
    assert svi.heldout_bounds_[-1] > svi.heldout_bounds_[0]


# ---------------------------------------------------------------------------------------------
# SVI LDA: held-out perplexity, the deprecated learning_method='online' spelling
# ---------------------------------------------------------------------------------------------

def test_svi_lda_reaches_batch_heldout_perplexity_on_a_planted_corpus(corpus):
    X, truth = corpus
    train, test = X[:1000], X[1000:]
    batch = LatentDirichletAllocation(4, random_state=0, tol=1e-3, max_iter=300,
                                      init="random").fit(train)
    online = StochasticVI(LatentDirichletAllocation(4), batch_size=50, n_epochs=6,
                          holdout=test, tol=0, random_state=0).fit(train).model_
    p_batch = batch.perplexity(test, include_prior_kl=False)
    p_online = online.perplexity(test, include_prior_kl=False)
    assert p_online == pytest.approx(p_batch, rel=0.02)
    # both find the planted topics
    for m in (batch, online):
        topics = m.components_ / m.components_.sum(1, keepdims=True)
        _, err = match_components(truth["topics"], topics)
        assert err.max() < 0.1
    # the held-out trace: per-document held-out ELBO, steps and times; lower_bounds_ is the
    # training ELBO per epoch (an iteration is an epoch), as for a batch fit
    assert online.n_iter_ == 6 and online.n_steps_ == 6 * 20
    assert online.heldout_bounds_.shape == online.heldout_steps_.shape \
        == online.heldout_times_.shape
    assert online.heldout_bounds_.size == online.n_steps_ // 2
    assert online.lower_bounds_.shape == (online.n_iter_,)
    assert online.heldout_bounds_[-1] == pytest.approx(online.elbo(test), rel=1e-12)
    assert online.lower_bounds_[-1] == pytest.approx(online.elbo(train), rel=2e-2)
    assert online.lower_bounds_[-1] > online.lower_bounds_[0]
    assert np.all(np.diff(online.heldout_times_) >= 0)
    assert online.heldout_bounds_[-1] > online.heldout_bounds_[0]


def test_online_lda_is_the_stochastic_vi_driver(corpus):
    # the deprecated spelling (until 0.3) is exactly the new one
    X, _ = corpus
    kw = dict(learning_offset=5.0, learning_decay=0.6)
    calls = []
    with pytest.warns(DeprecationWarning, match=r"learning_method=.*StochasticVI\("):
        a = LatentDirichletAllocation(4, learning_method="online", batch_size=128, max_iter=2,
                                      holdout=0.1, tol=1e-2, random_state=3,
                                      callback=lambda m, t, v: calls.append((type(m), t, v)),
                                      **kw).fit(X)
    svi = StochasticVI(LatentDirichletAllocation(4, **kw), batch_size=128, n_epochs=2,
                       holdout=0.1, tol=1e-2, random_state=3, **kw).fit(X)
    np.testing.assert_array_equal(a.components_, svi.components_)
    np.testing.assert_array_equal(a.heldout_bounds_, svi.heldout_bounds_)
    assert [c[1] for c in calls] == list(svi.heldout_steps_)
    assert all(c[0] is LatentDirichletAllocation for c in calls)
    np.testing.assert_array_equal(a.lower_bounds_, svi.epoch_bounds_)
    # without a hold-out the run is max_iter epochs; lower_bounds_ holds the training ELBO of
    # each epoch from its minibatches
    b = StochasticVI(LatentDirichletAllocation(4), batch_size=300, n_epochs=2,
                     random_state=0).fit(X).model_
    assert b.n_steps_ == 8 and b.heldout_bounds_.size == 0 and b.lower_bounds_.shape == (2,)


def test_online_lda_lower_bounds_are_the_training_elbo_per_epoch(corpus):
    """With one minibatch per epoch (batch_size = N), ``lower_bounds_[i]`` is exactly the
    training ELBO at the topics entering epoch i, as a batch fit records it."""
    X, _ = corpus
    X = X[:200]
    lam0 = np.random.default_rng(0).gamma(100.0, 0.01, size=(4, X.shape[1]))
    kw = dict(init={"components": lam0}, learning_offset=1.0, learning_decay=0.7)
    online = StochasticVI(LatentDirichletAllocation(4, **kw), batch_size=200, n_epochs=3,
                          learning_offset=1.0, learning_decay=0.7).fit(X).model_
    ref = LatentDirichletAllocation(4, **kw)
    expected = []
    for t in range(1, 4):
        if t == 1:
            expected.append(LatentDirichletAllocation(4, max_iter=1, tol=0.0, **kw)
                            .fit(X).lower_bounds_[0])
        else:
            expected.append(ref.elbo(X))
        ref.partial_fit(X, step_size=(t + 1.0) ** -0.7, total_samples=200)
    np.testing.assert_allclose(online.lower_bounds_, expected, rtol=1e-12)
    assert online.n_iter_ == 3 and online.lower_bound_ == online.lower_bounds_[-1]


def test_partial_fit_uses_total_samples_hyperparameter(corpus):
    X, _ = corpus
    lam0 = np.random.default_rng(2).gamma(100.0, 0.01, size=(4, X.shape[1]))
    Xb = X[:100]
    m = LatentDirichletAllocation(4, init={"components": lam0}, total_samples=1200)
    m.partial_fit(Xb, step_size=1.0)
    _, ss, _, _ = lda_e_step(Xb, lam0, 0.25)
    np.testing.assert_allclose(m.components_, 0.25 + 12.0 * ss, rtol=1e-10)
    # an explicit argument wins
    m2 = LatentDirichletAllocation(4, init={"components": lam0}, total_samples=1200)
    m2.partial_fit(Xb, step_size=1.0, total_samples=100)
    np.testing.assert_allclose(m2.components_, 0.25 + ss, rtol=1e-10)


# ---------------------------------------------------------------------------------------------
# the classic SVI mistakes raise clear errors
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("svi_kw,fit_kw,msg", [
    ({"learning_decay": 0.5}, {}, r"kappa"),
    ({"learning_decay": 1.2}, {}, r"kappa"),
    ({"learning_offset": -1.0}, {}, r"tau"),
    ({}, {"total_samples": 5000}, r"total_samples=5000 is inconsistent"),
])
def test_svi_mistakes_on_lda(corpus, svi_kw, fit_kw, msg):
    X, _ = corpus
    with pytest.raises(ValueError, match=msg):
        StochasticVI(LatentDirichletAllocation(4), **svi_kw).fit(X, **fit_kw)


@pytest.mark.parametrize("kw,msg", [
    ({"learning_decay": 0.5}, r"kappa"),
    ({"total_samples": 7}, r"total_samples=7 is inconsistent"),
    ({"n_init": 2}, r"n_init"),
    ({"batch_size": 0}, r"batch_size"),
])
def test_online_lda_mistakes(corpus, kw, msg):
    X, _ = corpus
    with pytest.raises(ValueError, match=msg), pytest.warns(DeprecationWarning):
        LatentDirichletAllocation(4, learning_method="online", max_iter=1, **kw).fit(X)


def test_empty_minibatches_raise(corpus):
    X, _ = corpus
    src = IterableSource([X[:600], X[:0], X[600:]], n_samples=1200)
    with pytest.raises(ValueError, match="empty"):
        StochasticVI(LatentDirichletAllocation(4), batch_size=100, random_state=0).fit(src)
    with pytest.raises(ValueError, match="0 sample"):
        LatentDirichletAllocation(4).partial_fit(sp.csr_matrix((0, X.shape[1])))
    with pytest.raises(ValueError, match=r"total_samples=50(\.0)? is smaller than the minibatch"):
        LatentDirichletAllocation(4).partial_fit(X[:100], total_samples=50)


# ---------------------------------------------------------------------------------------------
# the driver keeps what a fit keeps (issue 39, item 4): vocabulary, per-epoch record, tol
# ---------------------------------------------------------------------------------------------

def test_svi_keeps_the_vocabulary_so_seed_words_by_name_work():
    # on main: "the model has no vocabulary" (StochasticVI's clone dropped feature_names_in_)
    X = sp.csr_matrix(np.random.default_rng(0).poisson(1.0, (30, 12)).astype(float))
    vocab = np.array([f"w{i}" for i in range(12)])
    named = LatentDirichletAllocation(3, random_state=0, seed_topics={0: ["w1", "w2"]})
    named.feature_names_in_ = vocab  # as latentkit.text.attach sets it before the fit
    by_name = StochasticVI(named, batch_size=10, n_epochs=2, random_state=0).fit(X)
    by_index = StochasticVI(LatentDirichletAllocation(3, random_state=0, seed_topics={0: [1, 2]}),
                            batch_size=10, n_epochs=2, random_state=0).fit(X)
    np.testing.assert_array_equal(by_name.model_.feature_names_in_, vocab)
    np.testing.assert_array_equal(by_name.topic_word_prior_, by_index.topic_word_prior_)
    np.testing.assert_array_equal(by_name.components_, by_index.components_)
    assert not hasattr(named, "components_")  # the template is never fitted


@pytest.mark.parametrize("make", [lambda: LatentDirichletAllocation(3, random_state=0),
                                  lambda: VariationalGaussianMixture(2, random_state=0)])
def test_svi_records_the_epoch_trace_on_the_fitted_model(corpus, blobs, make):
    # on main: svi.model_ had no lower_bounds_ / n_iter_ (AttributeError)
    model = make()
    X = corpus[0][:200] if isinstance(model, LatentDirichletAllocation) else blobs[0][:200]
    svi = StochasticVI(model, batch_size=50, n_epochs=3, holdout=0.2, evaluate_every=1,
                       random_state=0).fit(X)
    fitted = svi.model_
    np.testing.assert_array_equal(fitted.lower_bounds_, svi.epoch_bounds_)
    assert fitted.lower_bound_ == svi.epoch_bounds_[-1]
    assert fitted.n_iter_ == svi.n_epochs_ == 3 and fitted.n_steps_ == svi.n_steps_
    assert fitted.converged_ == svi.converged_ and fitted.monitor_ is svi.monitor_
    np.testing.assert_array_equal(fitted.heldout_bounds_, svi.heldout_bounds_)
    np.testing.assert_array_equal(fitted.heldout_steps_, svi.heldout_steps_)
    assert fitted.heldout_bounds_.size == 3 * 4 and fitted.lower_bounds_.shape == (3,)


def test_svi_default_tol_is_the_models_own(corpus):
    # on main the held-out rule used 1e-3 nats per document whatever the documents' length;
    # now LDA's tol_ = 1e-3 x the mean training document length (60 tokens here), as batch fit
    X, _ = corpus
    svi = StochasticVI(LatentDirichletAllocation(4), batch_size=100, n_epochs=1, holdout=0.25,
                       random_state=0).fit(X[:400])
    assert svi.model_.tol_ == pytest.approx(1e-3 * svi.model_.mean_doc_length_, rel=1e-12)
    assert svi.monitor_.tol == svi.model_.tol_ and svi.monitor_.tol > 0.03
    given = StochasticVI(LatentDirichletAllocation(4, tol=0.5), batch_size=100, n_epochs=1,
                         holdout=0.25, random_state=0).fit(X[:400])
    assert given.monitor_.tol == 0.5  # the model's tol as given
    fixed = StochasticVI(LatentDirichletAllocation(4), batch_size=100, n_epochs=1,
                         holdout=0.25, tol=1e-4, random_state=0).fit(X[:400])
    assert fixed.monitor_.tol == 1e-4  # the driver's tol wins


def test_svi_batch_size_over_n_is_one_minibatch_on_lda(corpus):
    # on main: "batch_size=1201 is larger than the number of training samples N=1200"
    X = corpus[0][:120]
    big = StochasticVI(LatentDirichletAllocation(3, random_state=0), batch_size=1201,
                       n_epochs=2, random_state=0).fit(X)
    exact = StochasticVI(LatentDirichletAllocation(3, random_state=0), batch_size=120,
                         n_epochs=2, random_state=0).fit(X)
    assert big.n_steps_ == 2
    np.testing.assert_array_equal(big.components_, exact.components_)
