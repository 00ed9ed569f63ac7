"""Every public model with tiny data, for the tests that must hold for all of them (state
interface, resume after save/load, process-wide state, interruption)."""

import numpy as np
import scipy.sparse as sp

import latentkit as lk


def _gauss(n, seed, d=2):
    rng = np.random.default_rng(seed)
    centers = np.array([[0.0, 0.0, 1.0], [4.0, 3.0, -2.0], [-3.0, 4.0, 3.0]])[:, :d]
    return centers[rng.integers(0, 3, n)] + rng.normal(size=(n, d))


def _gauss_nan(n, seed, d=2):
    # about a tenth of the entries missing, never a whole row
    X = _gauss(n, seed, d)
    rng = np.random.default_rng(seed + 1000)
    hole = rng.random(X.shape) < 0.1
    hole[hole.all(axis=1), 0] = False
    X[hole] = np.nan
    return X


def _counts(n, seed, V=12, short=False):
    rng = np.random.default_rng(seed)
    topics = rng.dirichlet(np.full(V, 0.3), size=3)
    theta = rng.dirichlet(np.full(3, 0.5), size=n)
    length = 30
    if short:  # short texts (the biterm model): 0 to 7 tokens, one topic per document
        theta = np.eye(3)[rng.integers(0, 3, n)]
        length = rng.integers(0, 8, n)
    return sp.csr_matrix(np.vstack([rng.multinomial(L, t @ topics) for t, L in
                                    zip(theta, np.broadcast_to(length, (n,)))])
                         .astype(np.float64))


def _symbols(n, seed):
    rng = np.random.default_rng(seed)
    s, out = 0, []
    for _ in range(n):
        s = s if rng.random() < 0.8 else 1 - s
        out.append(rng.choice(4, p=[0.6, 0.3, 0.05, 0.05] if s == 0 else [0.05, 0.05, 0.3, 0.6]))
    return np.array(out).reshape(-1, 1)


def _poisson(n, seed):
    rng = np.random.default_rng(seed)
    states = (np.cumsum(rng.random(n) < 0.15) % 2)
    return rng.poisson(np.where(states[:, None] == 0, [1.0, 4.0], [6.0, 1.0]))


def _binary(n, seed):
    rng = np.random.default_rng(seed)
    return (rng.random((n, 6)) < np.where(rng.random((n, 1)) < 0.5, 0.8, 0.2)).astype(float)


#: name -> (factory of an unfitted model, data(n, seed), supports partial_fit)
CASES = {
    "GaussianMixture": (lambda: lk.GaussianMixture(2, random_state=0, max_iter=20),
                        lambda n, s: _gauss(n, s)),
    "GaussianMixture-diag": (lambda: lk.GaussianMixture(2, covariance_type="diag",
                                                        random_state=0, max_iter=20),
                             lambda n, s: _gauss(n, s)),
    "VariationalGaussianMixture": (
        lambda: lk.VariationalGaussianMixture(2, random_state=0, max_iter=20),
        lambda n, s: _gauss(n, s)),
    "GaussianMixture-missing": (
        lambda: lk.GaussianMixture(2, missing="marginalize", random_state=0, max_iter=20),
        lambda n, s: _gauss_nan(n, s)),
    "VariationalGaussianMixture-missing": (
        lambda: lk.VariationalGaussianMixture(2, missing="marginalize", random_state=0,
                                              max_iter=20),
        lambda n, s: _gauss_nan(n, s)),
    "DirichletProcessMixture": (lambda: lk.DirichletProcessMixture(3, random_state=0,
                                                                   max_iter=20),
                                lambda n, s: _gauss(n, s)),
    "DirichletProcessMixture-categorical": (
        lambda: lk.DirichletProcessMixture(3, component="categorical", random_state=0,
                                           max_iter=20),
        lambda n, s: _counts(n, s).toarray()),
    "DirichletProcessMixture-poisson": (
        lambda: lk.DirichletProcessMixture(3, component="poisson", random_state=0,
                                           max_iter=20),
        lambda n, s: _poisson(n, s).astype(np.float64)),
    "DirichletProcessMixture-bernoulli": (
        lambda: lk.DirichletProcessMixture(3, component="bernoulli", random_state=0,
                                           max_iter=20),
        lambda n, s: _binary(n, s)),
    "LatentDirichletAllocation": (
        lambda: lk.LatentDirichletAllocation(3, random_state=0, max_iter=10, init="random"),
        lambda n, s: _counts(n, s)),
    # (a key that sorts after "LatentDirichletAllocation": tests/io/test_io_state_checks.py
    # rotates its edits by the case's position, and LDA's refusals depend on which it gets)
    "TopicModel-HierarchicalDirichletProcess": (
        lambda: lk.HierarchicalDirichletProcess(6, n_doc_components=3, random_state=0,
                                                max_iter=10),
        lambda n, s: _counts(n, s)),
    "PLSA": (lambda: lk.PLSA(3, random_state=0, max_iter=10), lambda n, s: _counts(n, s)),
    # (lower-case keys sort after every other: tests/io/test_io_state_checks.py rotates its edits
    # by the sorted position, so a new case placed last leaves the others' edits unchanged)
    "shorttext-DirichletMultinomialMixture": (
        lambda: lk.DirichletMultinomialMixture(3, random_state=0, max_iter=10),
        lambda n, s: _counts(n, s)),
    "shorttext-BitermTopicModel": (
        lambda: lk.BitermTopicModel(3, random_state=0, max_iter=10),
        lambda n, s: _counts(n, s, short=True)),
    "CategoricalHMM": (lambda: lk.CategoricalHMM(2, n_features=4, random_state=0, max_iter=10),
                       lambda n, s: _symbols(n, s)),
    "GaussianHMM": (lambda: lk.GaussianHMM(2, random_state=0, max_iter=10),
                    lambda n, s: _gauss(n, s)),
    "GaussianHMM-missing": (
        lambda: lk.GaussianHMM(2, missing="marginalize", random_state=0, max_iter=10),
        lambda n, s: _gauss_nan(n, s)),
    "PoissonHMM": (lambda: lk.PoissonHMM(2, random_state=0, max_iter=10),
                   lambda n, s: _poisson(n, s)),
    "GMMHMM": (lambda: lk.GMMHMM(2, 2, random_state=0, max_iter=10),
               lambda n, s: _gauss(n, s)),
    "VariationalCategoricalHMM": (
        lambda: lk.VariationalCategoricalHMM(2, n_features=4, random_state=0, max_iter=10),
        lambda n, s: _symbols(n, s)),
    "VariationalGaussianHMM": (
        lambda: lk.VariationalGaussianHMM(2, "diag", random_state=0, max_iter=10),
        lambda n, s: _gauss(n, s)),
    "HiddenSemiMarkovModel": (
        lambda: lk.HiddenSemiMarkovModel(2, "poisson", max_duration=6, random_state=0,
                                         max_iter=10),
        lambda n, s: _poisson(n, s)),
    "AutoregressiveHMM": (lambda: lk.AutoregressiveHMM(2, random_state=0, max_iter=10),
                          lambda n, s: _gauss(n, s)),
    "VAE": (lambda: lk.VAE(latent_dim=2, hidden_layer_sizes=(4,), max_iter=3, batch_size=10,
                           random_state=0),
            lambda n, s: _binary(n, s)),
}

#: the spectral estimators (no partial_fit): name -> (factory, data)
SPECTRAL_CASES = {
    "SpectralGMM": (lambda: lk.SpectralGMM(2, random_state=0), lambda n, s: _gauss(n, s, 3)),
    "SpectralLDA": (lambda: lk.SpectralLDA(3, random_state=0), lambda n, s: _counts(n, s)),
    "SpectralHMM": (lambda: lk.SpectralHMM(2, random_state=0),
                    lambda n, s: _symbols(n, s)[:, 0]),
    "PrivateSpectralLDA": (lambda: lk.spectral.PrivateSpectralLDA(3, epsilon=1e3, random_state=0),
                           lambda n, s: _counts(n, s)),
    "PrivateSpectralGMM": (lambda: lk.spectral.PrivateSpectralGMM(2, clip_norm=10.0, epsilon=1e3, random_state=0),
                           lambda n, s: _gauss(n, s, 3)),
}


def fitted_arrays(model):
    """Every public fitted array or number of a model (what two equal models share; not the
    wall-clock ``heldout_times_`` a stochastic fit records)."""
    out = {}
    for k, v in vars(model).items():
        if k.endswith("_") and not k.startswith("_") and k not in ("monitor_", "heldout_times_"):
            if isinstance(v, (np.ndarray, float, int, np.floating, np.integer)) \
                    and not isinstance(v, bool):
                out[k] = np.asarray(v, dtype=float)
    return out


def assert_same_model(a, b, rtol=1e-10, atol=1e-12):
    fa, fb = fitted_arrays(a), fitted_arrays(b)
    assert fa.keys() == fb.keys(), fa.keys() ^ fb.keys()
    for k in fa:
        np.testing.assert_allclose(fb[k], fa[k], rtol=rtol, atol=atol, err_msg=k)
