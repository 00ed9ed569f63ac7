"""latentkit.plotting on the Agg backend: check what was drawn (line data, ellipse count and
geometry, bar heights, band data), not pixels."""

import subprocess
import sys

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Ellipse  # noqa: E402

import latentkit as lk  # noqa: E402
from latentkit import plotting  # noqa: E402
from latentkit.datasets import load_earthquakes, load_old_faithful, make_gmm, make_lda_corpus  # noqa: E402


@pytest.fixture(autouse=True)
def _no_show_no_style_change(monkeypatch):
    """No function may call plt.show() or change rcParams; close every figure afterwards."""
    def _show(*a, **k):
        raise AssertionError("latentkit.plotting called plt.show()")

    monkeypatch.setattr(plt, "show", _show)
    before = dict(matplotlib.rcParams)
    yield
    after = dict(matplotlib.rcParams)
    assert {k for k in before if before[k] != after[k]} == set()
    plt.close("all")


@pytest.fixture(scope="module")
def faithful():
    return load_old_faithful().data


def test_import_latentkit_does_not_import_matplotlib():
    code = ("import sys, latentkit; assert 'matplotlib' not in sys.modules; "
            "latentkit.plotting; assert 'matplotlib' in sys.modules; print('ok')")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert res.returncode == 0 and res.stdout.strip() == "ok", res.stderr


# ----------------------------------------------------------------------------- ELBO

def test_plot_elbo_draws_lower_bounds_and_every_restart(faithful):
    trace = plotting.ELBOTrace()
    gmm = lk.GaussianMixture(2, n_init=3, init="random", tol=1e-6, max_iter=300, random_state=1,
                             callback=trace).fit(faithful)
    assert len(trace.traces) == 3
    _, ax = plt.subplots()
    assert plotting.plot_elbo(gmm, ax=ax, restarts=trace) is ax
    main = ax.lines[-1]
    np.testing.assert_array_equal(main.get_ydata(), gmm.lower_bounds_)
    np.testing.assert_array_equal(main.get_xdata(), np.arange(1, gmm.n_iter_ + 1))
    assert len(ax.lines) == 4  # three restarts underneath + the kept one
    # the kept fit is one of the recorded restarts
    assert any(np.array_equal(t, gmm.lower_bounds_) for t in trace.traces)
    assert "nats per sample" in ax.get_ylabel()


def test_plot_elbo_distance_is_log_gap_to_final(faithful):
    gmm = lk.GaussianMixture(2, init="random", tol=1e-8, max_iter=300, random_state=0).fit(faithful)
    ax = plotting.plot_elbo(gmm, distance=True)
    gap = gmm.lower_bounds_[-1] - gmm.lower_bounds_
    keep = gap > 0
    np.testing.assert_allclose(ax.lines[-1].get_ydata(), gap[keep])
    np.testing.assert_array_equal(ax.lines[-1].get_xdata(), np.arange(1, gap.size + 1)[keep])
    assert ax.get_yscale() == "log"


def test_plot_elbo_svi_draws_heldout_trace():
    X, _ = make_lda_corpus(n_docs=300, n_components=3, vocab_size=60, doc_length=40,
                           random_state=0)
    svi = lk.StochasticVI(lk.LatentDirichletAllocation(3, random_state=0), batch_size=50,
                          n_epochs=2, holdout=0.2, random_state=0).fit(X)
    ax = plotting.plot_elbo(svi)
    np.testing.assert_array_equal(ax.lines[-1].get_ydata(), svi.heldout_bounds_)
    np.testing.assert_array_equal(ax.lines[-1].get_xdata(), svi.heldout_steps_)
    assert ax.get_xlabel() == "minibatch step"


def test_plot_elbo_unfitted_is_a_named_error():
    with pytest.raises(ValueError, match="lower_bounds_"):
        plotting.plot_elbo(lk.GaussianMixture(2))


# ----------------------------------------------------------------------------- mixtures

def _ellipses(ax):
    return [p for p in ax.patches if isinstance(p, Ellipse)]


def test_plot_mixture_ellipses_match_the_covariances(faithful):
    gmm = lk.GaussianMixture(2, n_init=2, random_state=0).fit(faithful)
    ax = plotting.plot_mixture(gmm, faithful)
    ells = _ellipses(ax)
    assert len(ells) == 2 * gmm.n_components
    for k in range(2):
        one, two = ells[2 * k], ells[2 * k + 1]
        cov = gmm.covariances_[k]
        np.testing.assert_allclose(one.center, gmm.means_[k])
        # semi-axes a, b: a b = sqrt(det), a^2 + b^2 = trace (1 sd); doubled at 2 sd
        a, b = one.width / 2, one.height / 2
        np.testing.assert_allclose(a * b, np.sqrt(np.linalg.det(cov)), rtol=1e-10)
        np.testing.assert_allclose(a * a + b * b, np.trace(cov), rtol=1e-10)
        np.testing.assert_allclose([two.width, two.height], [2 * one.width, 2 * one.height])
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend == [f"{k}: weight {w:.3f}" for k, w in enumerate(gmm.weights_)]
    # point colours mix the component colours by responsibility
    R = gmm.predict_proba(faithful)
    colors = np.array([plt.get_cmap("tab10")(i) for i in range(2)])[:, :3]
    np.testing.assert_allclose(ax.collections[0].get_facecolors()[:, :3], R @ colors, atol=1e-12)


@pytest.mark.parametrize("cls", ["VariationalGaussianMixture", "DirichletProcessMixture"])
def test_plot_mixture_variational_draws_effective_components(faithful, cls):
    kw = {"n_components": 6} if cls == "VariationalGaussianMixture" else {"n_components": 6}
    model = getattr(lk, cls)(**kw, weight_concentration_prior=1e-3,
                             random_state=0, max_iter=500) if cls == "VariationalGaussianMixture" \
        else lk.DirichletProcessMixture(**kw, concentration=0.1, random_state=0, max_iter=500)
    model.fit(faithful)
    assert model.n_effective_components_ < 6
    ax = plotting.plot_mixture(model, faithful, n_std=(1.0, 2.0))
    assert len(_ellipses(ax)) == 2 * model.n_effective_components_
    alphas = [e.get_alpha() for e in _ellipses(ax)[::2]]
    kept = model.weights_[model.weights_ > 0.01]
    # faded by expected weight: the heaviest component is opaque, the order follows the weights
    assert max(alphas) == pytest.approx(1.0)
    np.testing.assert_array_equal(np.argsort(alphas), np.argsort(kept))


@pytest.mark.parametrize("covariance_type", ["full", "tied", "diag", "spherical"])
def test_plot_mixture_projects_on_principal_axes(covariance_type):
    X, _, _ = make_gmm(300, n_components=3, n_features=4, random_state=0)
    gmm = lk.GaussianMixture(3, covariance_type=covariance_type, random_state=0).fit(X)
    ax = plotting.plot_mixture(gmm, X, n_std=(1.0,))
    center, P = plotting.mixture_projection(X)
    np.testing.assert_allclose(P.T @ P, np.eye(2), atol=1e-12)
    ells = _ellipses(ax)
    assert len(ells) == 3
    cov = np.asarray(gmm.covariances_)
    full = {"full": lambda: cov,
            "tied": lambda: np.broadcast_to(cov, (3, 4, 4)),
            "diag": lambda: np.stack([np.diag(c) for c in cov]),
            "spherical": lambda: cov[:, None, None] * np.eye(4)}[covariance_type]()
    for k, e in enumerate(ells):
        np.testing.assert_allclose(e.center, (gmm.means_[k] - center) @ P, atol=1e-10)
        S = P.T @ full[k] @ P
        np.testing.assert_allclose((e.width / 2) * (e.height / 2), np.sqrt(np.linalg.det(S)),
                                   rtol=1e-8)
    np.testing.assert_allclose(ax.collections[0].get_offsets(), (X - center) @ P)
    assert ax.get_xlabel() == "principal axis 1"


def test_plot_mixture_chosen_features_and_errors(faithful):
    X, _, _ = make_gmm(200, n_components=2, n_features=3, random_state=1)
    gmm = lk.GaussianMixture(2, random_state=0).fit(X)
    ax = plotting.plot_mixture(gmm, X, features=(2, 0), feature_names=["a", "b", "c"])
    np.testing.assert_allclose(_ellipses(ax)[0].center, gmm.means_[0][[2, 0]])
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("c", "a")
    with pytest.raises(ValueError, match="features"):
        plotting.plot_mixture(gmm, X, features=(1, 1))
    with pytest.raises(ValueError, match="shape"):
        plotting.plot_mixture(gmm, faithful)


# ----------------------------------------------------------------------------- topics

@pytest.fixture(scope="module")
def corpus():
    X, _ = make_lda_corpus(n_docs=200, n_components=3, vocab_size=40, doc_length=60,
                           random_state=0)
    return X, [f"w{j}" for j in range(40)]


@pytest.mark.parametrize("kind", ["lda", "plsa", "spectral"])
def test_plot_topics_bar_heights_are_top_probabilities(corpus, kind):
    X, vocab = corpus
    model = {"lda": lambda: lk.LatentDirichletAllocation(3, max_iter=20, random_state=0,
                                                          init="random"),
             "plsa": lambda: lk.PLSA(3, max_iter=30, tol=0, random_state=0),
             "spectral": lambda: lk.SpectralLDA(3, random_state=0)}[kind]().fit(X)
    axes = plotting.plot_topics(model, vocab, n_words=7)
    assert len(axes) == 3
    prob = model.components_ / model.components_.sum(1, keepdims=True)
    words = model.top_words(vocab, 7) if kind == "lda" else None
    for k, ax in enumerate(axes):
        heights = np.array([p.get_width() for p in ax.patches])
        tops = np.sort(prob[k])[::-1][:7]
        # bar i is drawn at y = 6 - i, the most probable on top
        np.testing.assert_allclose(heights, tops, rtol=1e-12)
        np.testing.assert_array_equal([p.get_y() + p.get_height() / 2 for p in ax.patches],
                                      np.arange(7)[::-1])
        labels = [t.get_text() for t in ax.get_yticklabels()]
        if words is not None:
            assert labels == words[k]
    if kind != "lda":  # PLSA's and SpectralLDA's components_ are already P(w|z)
        np.testing.assert_allclose(prob, model.components_, atol=1e-12)


def test_plot_topics_subset_given_axes_and_errors(corpus):
    X, vocab = corpus
    lda = lk.LatentDirichletAllocation(3, max_iter=5, tol=0, random_state=0, init="random").fit(X)
    fig, axs = plt.subplots(1, 2)
    out = plotting.plot_topics(lda, vocab, 3, topics=[2, 0], axes=axs)
    assert list(out) == list(axs)
    assert axs[0].get_title() == "topic 2"
    with pytest.raises(ValueError, match="vocabulary"):
        plotting.plot_topics(lda, vocab[:-1])
    with pytest.raises(ValueError, match="topics"):
        plotting.plot_topics(lda, vocab, topics=[3])


# ----------------------------------------------------------------------------- HMMs

def test_plot_hmm_categorical_bands_posterior_and_emissions():
    rng = np.random.default_rng(0)
    truth = lk.CategoricalHMM(2, random_state=0)
    truth.startprob_ = np.array([0.5, 0.5])
    truth.transmat_ = np.array([[0.95, 0.05], [0.1, 0.9]])
    truth.emissionprob_ = np.array([[0.7, 0.2, 0.1], [0.1, 0.2, 0.7]])
    truth.n_features_in_ = 1
    X = np.concatenate([rng.choice(3, 80, p=[0.7, 0.2, 0.1]), rng.choice(3, 70, p=[0.1, 0.2, 0.7])])
    X = X[:, None]
    hmm = lk.CategoricalHMM(2, n_init=3, random_state=0).fit(X, lengths=[100, 50])
    axes = plotting.plot_hmm(hmm, X, lengths=[100, 50], symbols=["a", "b", "c"])
    assert len(axes) == 3
    np.testing.assert_array_equal(axes[0].images[0].get_array()[0], hmm.predict(X, [100, 50]))
    post = hmm.predict_proba(X, [100, 50])
    for k in range(2):
        np.testing.assert_allclose(axes[1].lines[k].get_ydata(), post[:, k])
    np.testing.assert_allclose(axes[2].images[0].get_array(), hmm.emissionprob_)
    assert [t.get_text() for t in axes[2].get_xticklabels()] == ["a", "b", "c"]


def test_plot_hmm_poisson_window_and_errors():
    X = load_earthquakes().data
    hmm = lk.PoissonHMM(2, n_init=3, random_state=0).fit(X)
    axes = plotting.plot_hmm(hmm, X, window=(10, 60))
    assert len(axes) == 2
    np.testing.assert_array_equal(axes[0].lines[0].get_ydata(), X[10:60, 0])
    np.testing.assert_array_equal(axes[0].images[0].get_array()[0], hmm.predict(X)[10:60])
    np.testing.assert_allclose(axes[1].lines[1].get_ydata(), hmm.predict_proba(X)[10:60, 1])
    with pytest.raises(ValueError, match="window"):
        plotting.plot_hmm(hmm, X, window=(50, 10))


# ----------------------------------------------------------------------------- VAE

@pytest.fixture(scope="module")
def vae_and_data():
    from latentkit.datasets import load_optdigits

    d = load_optdigits("test", scale="binary")
    X, y = d.data[:300], d.target[:300]
    vae = lk.VAE(latent_dim=2, hidden_layer_sizes=(16,), max_iter=2, tol=0, random_state=0).fit(X)
    return vae, X, y


def test_plot_latent_points_are_the_latent_means(vae_and_data):
    vae, X, y = vae_and_data
    ax = plotting.plot_latent(vae, X, y)
    Z = vae.transform(X)
    classes = np.unique(y)
    assert len(ax.collections) == classes.size
    for c, coll in zip(classes, ax.collections):
        np.testing.assert_allclose(coll.get_offsets(), Z[y == c])
    ax = plotting.plot_latent(vae, X)
    np.testing.assert_allclose(ax.collections[0].get_offsets(), Z)


def test_plot_decoded_grid_is_the_decodes_of_prior_quantiles(vae_and_data):
    from scipy.stats import norm

    vae, _, _ = vae_and_data
    ax = plotting.plot_decoded_grid(vae, n=5)
    mosaic = np.asarray(ax.images[0].get_array())
    assert mosaic.shape == (40, 40)
    g = norm.ppf(np.linspace(0.05, 0.95, 5))
    # tile (row 0, column 4): z1 = the largest quantile, z2 = the largest (top row)
    tile = vae.decode(np.array([[g[4], g[4]]])).reshape(8, 8)
    np.testing.assert_allclose(mosaic[:8, 32:40], tile)
    tile = vae.decode(np.array([[g[0], g[0]]])).reshape(8, 8)
    np.testing.assert_allclose(mosaic[32:40, :8], tile)
    vae3 = lk.VAE(latent_dim=3, hidden_layer_sizes=(4,), max_iter=1, tol=0, random_state=0).fit(
        vae_and_data[1][:50])
    with pytest.raises(ValueError, match="latent_dim=2"):
        plotting.plot_decoded_grid(vae3)


# ----------------------------------------------------------------------------- recovery

def test_plot_recovery_mean_and_band():
    x = [0.1, 0.2, 0.4]
    v = np.array([[0.0, 0.2], [0.5, 0.7], [1.0, np.nan]])
    ax = plotting.plot_recovery(x, v, label="rank 3", logx=True)
    np.testing.assert_allclose(ax.lines[-1].get_ydata(), [0.1, 0.6, 1.0])
    np.testing.assert_allclose(ax.lines[-1].get_xdata(), x)
    assert len(ax.collections) == 1 and ax.get_xscale() == "log"
    with pytest.raises(ValueError, match="values"):
        plotting.plot_recovery(x, [1.0, 2.0])


# ----------------------------------------------------------------------------- units, legends

def _legend_right_of_data(ax, below=False):
    """The legend's box starts right of the axes' box (``below``: under the axes' box and its
    x tick labels), so it covers no data."""
    legend = ax.get_legend()
    assert legend is not None
    fig = ax.figure
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    box = legend.get_window_extent(r)
    if below:  # under the tick labels and the x label
        return box.y1 <= ax.xaxis.get_tightbbox(r).y0
    return box.x0 >= ax.get_window_extent(r).x1


@pytest.mark.filterwarnings("ignore::latentkit.base.ConvergenceWarning")
def test_elbo_axis_carries_the_model_unit(faithful):
    X, _ = make_lda_corpus(n_docs=60, n_components=2, vocab_size=30, doc_length=20,
                           random_state=0)
    lda = lk.LatentDirichletAllocation(2, max_iter=5, random_state=0).fit(X)
    assert plotting.plot_elbo(lda).get_ylabel() == "ELBO (nats per document)"
    plsa = lk.PLSA(2, max_iter=5, random_state=0).fit(X)
    assert plotting.plot_elbo(plsa).get_ylabel() == "ELBO (nats per document)"
    hmm = lk.PoissonHMM(2, random_state=0, max_iter=5).fit(load_earthquakes().data)
    assert plotting.plot_elbo(hmm, distance=True).get_ylabel() == (
        "distance to the final ELBO (nats per time step)")
    gmm = lk.GaussianMixture(2, max_iter=5, random_state=0).fit(faithful)
    assert plotting.plot_elbo(gmm).get_ylabel() == "ELBO (nats per sample)"
    svi = lk.StochasticVI(lk.LatentDirichletAllocation(2, random_state=0), batch_size=20,
                          n_epochs=1, holdout=0.2, random_state=0).fit(X)
    assert plotting.plot_elbo(svi).get_ylabel() == "held-out ELBO (nats per document)"


def test_legends_sit_outside_the_data(faithful):
    trace = plotting.ELBOTrace()
    gmm = lk.GaussianMixture(2, n_init=2, max_iter=20, random_state=0, callback=trace).fit(
        faithful)
    assert _legend_right_of_data(plotting.plot_elbo(gmm, restarts=trace))
    assert _legend_right_of_data(plotting.plot_mixture(gmm, faithful), below=True)
    ax = plotting.plot_recovery([1, 2, 3], [0.1, 0.5, 0.9], label="completion")
    assert _legend_right_of_data(ax)
    hmm = lk.PoissonHMM(2, random_state=0, max_iter=20).fit(load_earthquakes().data)
    axes = plotting.plot_hmm(hmm, load_earthquakes().data)
    assert _legend_right_of_data(axes[0]) and _legend_right_of_data(axes[1])


@pytest.mark.filterwarnings("ignore::latentkit.base.ConvergenceWarning")
def test_viterbi_bands_have_a_state_legend_and_symbols_name_the_axis():
    rng = np.random.default_rng(0)
    X = np.concatenate([rng.choice(3, 60, p=[0.8, 0.1, 0.1]),
                        rng.choice(3, 60, p=[0.1, 0.1, 0.8])])[:, None]
    hmm = lk.CategoricalHMM(2, random_state=0, max_iter=30).fit(X)
    axes = plotting.plot_hmm(hmm, X, symbols=["a", "b", "c"])
    leg = axes[0].get_legend()
    assert leg.get_title().get_text() == "Viterbi state"
    assert [t.get_text() for t in leg.get_texts()] == ["state 0", "state 1"]
    # each legend patch has its state's band colour
    cmap = axes[0].images[0].get_cmap()
    for k, patch in enumerate(leg.get_patches()):
        np.testing.assert_allclose(patch.get_facecolor()[:3], cmap(k)[:3])
    assert [t.get_text() for t in axes[0].get_yticklabels()] == ["a", "b", "c"]
    assert list(axes[0].get_yticks()) == [0, 1, 2]
    # 26 symbols: every 4th named, at most 8 ticks
    X26 = (np.arange(120) % 26)[:, None]
    hmm26 = lk.CategoricalHMM(2, random_state=0, max_iter=5).fit(X26)
    letters = [chr(97 + i) for i in range(26)]
    ax = plotting.plot_hmm(hmm26, X26, symbols=letters)[0]
    assert [t.get_text() for t in ax.get_yticklabels()] == list("aeimquy")


def test_plot_selection_panels_have_y_labels_units_and_integer_k():
    from latentkit.selection import Selection

    table = [{"n_components": k, "bic": 100.0 - k, "aic": 90.0 - k,
              "heldout_loglik": -2.0 + 0.1 * k, "train_loglik": -1.9 + 0.1 * k,
              "seconds": 0.1} for k in (2, 3, 5)]
    sel = Selection(kind="hmm", table=table, best=5, criterion="bic", rule="the lowest BIC")
    axes = plotting.plot_selection(sel)
    assert [a.get_title() for a in axes] == ["bic (chooses K)", "aic", "heldout_loglik",
                                             "train_loglik"]
    labels = [a.get_ylabel() for a in axes]
    assert all(labels) and "nats per time step" in labels[2] and "BIC" in labels[0]
    axes[0].figure.canvas.draw()
    for a, c in zip(axes, ["bic", "aic", "heldout_loglik", "train_loglik"]):
        np.testing.assert_array_equal(a.lines[0].get_ydata(), [r[c] for r in table])
        assert list(a.lines[1].get_xdata()) == [5, 5]
        ticks = a.get_xticks()
        assert np.array_equal(ticks, np.round(ticks))
    assert _legend_right_of_data(axes[-1])
    lda = Selection(kind="lda", table=[{"n_components": 2, "heldout_perplexity": 9.0,
                                        "train_elbo": -50.0, "seconds": 0.1}],
                    best=2, criterion="heldout_perplexity", rule="the lowest perplexity")
    assert "nats per document" in plotting.plot_selection(lda)[1].get_ylabel()


def test_plot_recovery_whole_number_x_gets_whole_number_ticks():
    ax = plotting.plot_recovery([1, 2, 3, 4, 5], [2607.0, 2322.2, 2333.9, 2358.0, 2360.0],
                                xlabel="number of components K", ylabel="BIC")
    ax.figure.canvas.draw()
    ticks = [t for t in ax.get_xticks() if 1 <= t <= 5]
    assert ticks and np.array_equal(ticks, np.round(ticks))
    frac = plotting.plot_recovery([0.05, 0.1, 0.15], [0.0, 0.5, 1.0])
    frac.figure.canvas.draw()
    assert any(t != round(t) for t in frac.get_xticks())  # fractions keep their ticks
