"""GaussianHMM(missing='marginalize') (issue 15 item 1, HMM part): NaN coordinates integrated
out of the emissions; a fully missing time step has emission likelihood 1."""

import numpy as np
import pytest

from latentkit.distributions import COVARIANCE_TYPES
from latentkit.sequence import GaussianHMM
from latentkit.testing import check_latent_model
from latentkit.testing._oracles_hmm import brute_force_hmm_loglik
from latentkit.testing._oracles_missing import oracle_marginal_log_prob, oracle_missing_stats


def _chain(ct, seed=0, n=120, frac=0.2):
    truth = GaussianHMM(2, ct, random_state=seed, max_iter=1, tol=0.0).fit(
        np.random.default_rng(seed).normal(size=(40, 3)) + np.repeat([[0.0], [4.0]], 20, 0))
    X, _ = truth.sample(n, random_state=seed)
    M = np.random.default_rng(seed + 1).random(X.shape) < frac
    M[5] = True  # one fully missing time step
    return X, np.where(M, np.nan, X)


@pytest.mark.parametrize("ct", COVARIANCE_TYPES)
def test_loglik_brute_force_and_fully_missing_step(ct):
    X, Xm = _chain(ct)
    m = GaussianHMM(2, ct, missing="marginalize", max_iter=8, tol=0.0, random_state=0).fit(Xm)
    assert np.all(np.diff(m.lower_bounds_) >= -1e-9 * np.abs(m.lower_bounds_[:-1]))
    seg = Xm[:8]  # includes the fully missing step 5
    frame = oracle_marginal_log_prob(seg, m.means_, m.covariances_, ct)
    assert np.all(frame[5] == 0.0)
    ref = brute_force_hmm_loglik(frame, m.startprob_, m.transmat_)
    assert m.score(seg) * seg.shape[0] == pytest.approx(ref, rel=1e-10)


@pytest.mark.parametrize("ct", COVARIANCE_TYPES)
def test_m_step_statistics_match_oracle(ct):
    """The emission statistics for forward-backward posteriors equal the row-by-row oracle
    (the oracle's own responsibilities replaced by the HMM's posteriors)."""
    _, Xm = _chain(ct, 1)
    m = GaussianHMM(2, ct, missing="marginalize", max_iter=3, tol=0.0, random_state=0).fit(Xm)
    gamma = m.predict_proba(Xm)
    emis = m.emission_
    params = {"means": m.means_, "covars": m.covariances_}
    got = emis.accumulate(params, Xm, gamma)
    # oracle with one component at a time and unit weights, scaled by gamma
    K = 2
    for k in range(K):
        cov_k = {"full": m.covariances_[k:k + 1], "tied": m.covariances_[None], "diag": m.covariances_[k:k + 1],
                 "spherical": m.covariances_[k:k + 1]}[ct]
        _, _, nk, sx, sxx = oracle_missing_stats(Xm, np.ones(1), m.means_[k:k + 1], cov_k,
                                                 "full" if ct == "tied" else ct,
                                                 sample_weight=gamma[:, k], shift=emis.shift_)
        np.testing.assert_allclose(got["nk"][k], nk[0], rtol=1e-10)
        np.testing.assert_allclose(got["sx"][k], sx[0], rtol=1e-10, atol=1e-10)
        if ct != "tied":
            np.testing.assert_allclose(got["sxx"][k], sxx[0], rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("ct", COVARIANCE_TYPES)
def test_contract_and_complete_data_equality(ct):
    X, Xm = _chain(ct, 2)
    kw = dict(max_iter=5, tol=0.0, random_state=0)
    a = GaussianHMM(2, ct, **kw).fit(X)
    b = GaussianHMM(2, ct, missing="marginalize", **kw).fit(X)
    np.testing.assert_array_equal(a.lower_bounds_, b.lower_bounds_)
    np.testing.assert_array_equal(a.means_, b.means_)
    check_latent_model(GaussianHMM(2, ct, missing="marginalize", **kw), Xm,
                       fit_params={"lengths": [60, 60]})


def test_bad_input():
    X, Xm = _chain("diag")
    with pytest.raises(ValueError, match="NaN"):
        GaussianHMM(2).fit(Xm)
    with pytest.raises(ValueError, match="missing must be"):
        GaussianHMM(2, missing="skip").fit(X)
    Xi = Xm.copy()
    Xi[3, 1] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        GaussianHMM(2, missing="marginalize").fit(Xi)


@pytest.mark.parametrize("ct", ["full", "diag"])
def test_impute_with_smoothed_posteriors(ct):
    """impute = sum_k gamma_tk E[x_m | x_o, k] with the forward-backward posteriors (oracle
    row by row); beats column means on the removed entries."""
    from latentkit.testing._oracles_gaussian import _full_cov
    from latentkit.testing._oracles_missing import oracle_conditional

    X, Xm = _chain(ct, 4, n=200, frac=0.3)
    m = GaussianHMM(2, ct, missing="marginalize", max_iter=20, random_state=0).fit(Xm)
    out, std = m.impute(Xm, return_std=True)
    gamma = m.predict_proba(Xm)
    covs = _full_cov(m.covariances_, ct, 2, X.shape[1])
    for t in range(0, X.shape[0], 9):
        mean = sum(gamma[t, k] * oracle_conditional(Xm[t], m.means_[k], covs[k])[0]
                   for k in range(2))
        np.testing.assert_allclose(out[t], mean, rtol=1e-10, atol=1e-10)
    miss = np.isnan(Xm)
    assert np.all(std[~miss] == 0.0)
    col = np.nanmean(Xm, axis=0)
    assert np.sqrt(np.mean((out[miss] - X[miss]) ** 2)) < \
        np.sqrt(np.mean((np.broadcast_to(col, X.shape)[miss] - X[miss]) ** 2))
