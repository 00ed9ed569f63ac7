"""The Poisson (Gamma prior), categorical (Dirichlet prior) and Bernoulli (Beta prior) blocks
of :mod:`latentkit.distributions._family`, shared by the mixture components
(:mod:`latentkit.mixture._components`) and the HMM emissions
(:mod:`latentkit.sequence._emissions`).

Rows ``X`` are dense arrays or CSR matrices of shape (n, D) (the mixtures keep counts
sparse); the categorical block also takes a 1-d int array of symbols (one token per row, the
HMM's observations), which is the one-hot row of counts.

Sources: Bishop (2006), *Pattern Recognition and Machine Learning*, section 2.1.1 (Beta-
Bernoulli), 2.2.1 (Dirichlet-categorical), 2.4 and exercise 2.41 (Gamma-Poisson); Blei &
Jordan (2006), section 4; Zucchini, MacDonald & Langrock (2016), ch. 3-4 (Poisson HMMs);
Rabiner (1989), eq. 40c (the categorical re-estimation).
"""

import numpy as np
import scipy.sparse as sp
from scipy.special import gammaln, psi, xlogy

from .._kernels.hmm import categorical_emission_counts
from ..base import ParamsMixin
from ._dirichlet import dirichlet_kl, dirichlet_logpdf
from ._family import ExponentialFamily, sparse_row_sums
from ._normal_wishart import gamma_kl
from ._stick_breaking import beta_kl

__all__ = ["Bernoulli", "Categorical", "Poisson", "normalize_rows"]


def normalize_rows(counts, previous):
    """Row-normalise non-negative ``counts`` (any shape, along the last axis); a row with zero
    total (a state or component never visited) keeps its ``previous`` distribution, so no 0/0
    occurs.

    Parameters
    ----------
    counts : ndarray of shape (..., V)
    previous : ndarray of shape (..., V)

    Returns
    -------
    ndarray of shape (..., V)
        Rows on the simplex.
    """
    counts = np.maximum(counts, 0.0)
    tot = counts.sum(axis=-1, keepdims=True)
    ok = tot > 0
    return np.where(ok, counts / np.where(ok, tot, 1.0), previous)


class Poisson(ExponentialFamily, ParamsMixin):
    """Independent Poisson counts per feature, ``x_d ~ Poisson(lambda_d)``, with the conjugate
    ``lambda_d ~ Gamma(a, b)`` (shape, rate): the one Poisson of latentkit, passed as
    ``DirichletProcessMixture(component=Poisson(...))`` and as
    ``HiddenMarkovModel(emission=Poisson(...))`` alike.

    Parameters
    ----------
    rate_prior : (float, float) or None, default None
        Shape ``a`` and rate ``b`` of the Gamma prior of every rate. ``None`` is each
        family's default: Gamma(1, 1) for the variational mixtures (their factors need a
        proper prior; ``a, b > 0``), no prior (maximum likelihood) for the HMMs' point
        estimates, where a given pair makes the M-step the MAP estimate
        ``(sx + a - 1) / (nk + b)`` (``a >= 1``, ``b >= 0``).

    Notes
    -----
    The methods take the parameters as arrays and hold no data (the block of
    :mod:`latentkit.distributions._family`). ``params``: the rates, (K, D). ``prior`` and
    ``posterior``: (shape, rate) pairs of arrays, (D,) for the prior and (K, D) for the
    factors. ``stats``: ``(nk, sx)``, the weights (K,) and the weighted sums of the counts
    (K, D). The families use it through their own adapters
    (``mixture._components.PoissonComponent``, ``sequence._emissions.PoissonEmission``:
    private since 0.2, their public names deprecated), built from it by the model. Sources:
    Bishop (2006), section 2.4 and exercise 2.41 (Gamma-Poisson conjugacy); Zucchini,
    MacDonald & Langrock (2016), ch. 3-4 (Poisson HMMs).

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.distributions import Poisson
    >>> from latentkit.mixture import DirichletProcessMixture
    >>> X = np.random.default_rng(0).poisson([[1.0, 8.0]] * 40 + [[9.0, 1.0]] * 40)
    >>> dpm = DirichletProcessMixture(4, component=Poisson(rate_prior=(1.0, 1.0)),
    ...                               concentration=0.1, random_state=0).fit(X)
    >>> dpm.n_effective_components_
    2
    >>> np.sort(dpm.components_[dpm.weights_ > 0.1, 0]).round()
    array([1., 9.])
    >>> Poisson().log_likelihood(np.array([[2.0]]), np.array([[0.0]])).round(3)
    array([[-2.]])
    """

    def __init__(self, rate_prior=None):
        self.rate_prior = rate_prior

    def log_likelihood(self, rates, X):
        """``sum_d [x_d ln lambda_kd - lambda_kd - ln x_d!]``, shape (n, K), for dense X."""
        out = xlogy(X[:, None, :], rates[None, :, :]) - rates[None, :, :]
        out = out.sum(axis=2) - gammaln(X + 1.0).sum(axis=1)[:, None]
        return np.ascontiguousarray(out)

    def expected_log_likelihood(self, posterior, X):
        """``sum_d [x_d (psi(a_kd) - ln b_kd) - a_kd / b_kd - ln x_d!]``, shape (n, K), for
        CSR X (K = 1 for the prior's (D,) arrays)."""
        a, b = (np.atleast_2d(v) for v in posterior)
        log_fact = sparse_row_sums(X, gammaln(X.data + 1.0))
        return (np.asarray(X @ (psi(a) - np.log(b)).T) - (a / b).sum(1)[None, :]
                - log_fact[:, None])

    def maximize(self, stats, previous, prior=None):
        """``(sx + a - 1) / (nk + b)`` with a Gamma(a, b) ``prior`` (MAP), ``sx / nk``
        without; a component without weight keeps its ``previous`` rates."""
        nk, sx = stats
        num = sx
        den = nk[:, None] + 0.0 * num
        if prior is not None:
            num = num + (prior[0] - 1.0)
            den = den + prior[1]
        ok = den > 0
        return np.where(ok, num / np.where(ok, den, 1.0), previous)

    def log_prior(self, rates, prior):
        """Gamma(a, b) log density of every rate, summed (b = 0: the improper kernel only,
        as a MAP objective)."""
        a, b = float(prior[0]), float(prior[1])
        if b <= 0:
            return float(np.sum(xlogy(a - 1.0, rates)))
        return float(np.sum(a * np.log(b) - gammaln(a) + xlogy(a - 1.0, rates) - b * rates))

    def posterior(self, prior, stats):
        """``(a_0 + sx, b_0 + nk)``, each (K, D)."""
        nk, sx = stats
        return prior[0][None, :] + sx, prior[1][None, :] + nk[:, None]

    def kl(self, posterior, prior):
        return float(np.sum(gamma_kl(posterior[0], posterior[1], prior[0], prior[1])))

    def log_predictive(self, posterior, X):
        """Product over features of the negative-binomial predictive ``lnG(a + x) - lnG(a) -
        ln x! + a ln(b / (b + 1)) - x ln(b + 1)``, shape (n, K)."""
        a, b = (np.atleast_2d(v) for v in posterior)
        Xc = sp.csr_matrix(X)
        log_fact = sparse_row_sums(Xc, gammaln(Xc.data + 1.0))
        out = np.empty((X.shape[0], a.shape[0]))
        for k in range(a.shape[0]):
            ai, bi = a[k][Xc.indices], b[k][Xc.indices]
            per = sparse_row_sums(Xc, gammaln(ai + Xc.data) - gammaln(ai)
                                  - Xc.data * np.log1p(bi))
            out[:, k] = np.sum(a[k] * (np.log(b[k]) - np.log1p(b[k]))) + per - log_fact
        return out

    def sample(self, rates, labels, rng):
        """Counts drawn with the rates of each label, shape (n, D)."""
        return rng.poisson(rates[labels])


class Categorical(ExponentialFamily, ParamsMixin):
    """Categorical tokens, ``p(x = v) = phi_v``, with the conjugate ``phi ~ Dir(lambda)``: the
    one categorical of latentkit, passed as ``DirichletProcessMixture(component=Categorical(...))``
    (rows of token counts) and as ``HiddenMarkovModel(emission=Categorical(...))`` (one symbol
    per time step) alike.

    Parameters
    ----------
    category_prior : float or array-like or None, default None
        The Dirichlet concentration ``lambda`` on each component's (state's) category
        probabilities: one float for every category, or an array of shape (V,) (an HMM also
        takes (n_components, V), one row per state). One spelling and one meaning, the prior
        ``Dir(lambda)``; each family uses it in its own inference. The variational mixtures
        keep the whole posterior ``Dir(lambda + counts)`` (``lambda > 0``); the HMMs' EM
        estimates the mode, the MAP ``(counts + lambda - 1) / sum`` (``lambda >= 1``, so that
        the mode exists). ``None`` is each family's default: Dir(0.5) for the mixtures (their
        factors need a proper prior), no prior (maximum likelihood) for the HMMs.

    Notes
    -----
    The name is the mixtures' (``category_prior``), not hmmlearn's ``emissionprob_prior``: a
    mixture component emits nothing, and the prior is on the categories' probabilities in
    both families. :class:`latentkit.sequence.CategoricalHMM` and
    :class:`latentkit.sequence.VariationalCategoricalHMM` keep ``emissionprob_prior``, the
    prior of their fitted ``emissionprob_`` beside ``startprob_prior`` and ``transmat_prior``,
    as hmmlearn's ``CategoricalHMM`` spells it (its users port their code unchanged).

    A row is a vector of token counts over V categories (an ordered token sequence: no
    multinomial coefficient) or, as a 1-d int array ``X``, one symbol per row. The methods
    take the parameters as arrays and hold no data (the block of
    :mod:`latentkit.distributions._family`). ``params``: the probabilities, (K, V).
    ``prior``: concentrations (V,) (or (K, V) for ``log_prior``); ``posterior``: (K, V), or
    the prior's (V,). ``stats``: the weighted counts (K, V). Sources: Bishop (2006), section
    2.2.1 (Dirichlet-categorical conjugacy); Rabiner (1989), eq. 40c (the re-estimation).

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.distributions import Categorical
    >>> from latentkit.mixture import DirichletProcessMixture
    >>> from latentkit.sequence import HiddenMarkovModel
    >>> X = np.r_[np.tile([0, 1, 3], (20, 1)), np.tile([2, 0, 0], (20, 1))]  # token counts
    >>> dpm = DirichletProcessMixture(4, component=Categorical(category_prior=0.5),
    ...                               random_state=0).fit(X)
    >>> labels = dpm.predict(X)
    >>> bool(labels[0] != labels[-1])
    True
    >>> symbols = np.array([[0], [0], [1], [1], [0], [0], [1], [1]])
    >>> hmm = HiddenMarkovModel(2, emission=Categorical(), random_state=0).fit(symbols)
    >>> hmm.emissionprob_.shape  # 2 states x 2 symbols
    (2, 2)
    """

    def __init__(self, category_prior=None):
        self.category_prior = category_prior

    def log_likelihood(self, probs, X):
        """``log phi_{k, x_i}`` for symbols (shape (n, K)) or ``sum_v x_v log phi_kv`` for
        rows of counts."""
        with np.errstate(divide="ignore"):
            log_phi = np.log(probs)
        if np.ndim(X) == 1:
            return np.ascontiguousarray(log_phi.T[X])
        return np.asarray(X @ log_phi.T)

    def expected_log_likelihood(self, concentration, X):
        """``sum_v x_v (psi(lambda_kv) - psi(sum_v lambda_kv))`` for rows of counts, shape
        (n, K) (K = 1 for the prior's (V,) concentrations)."""
        lam = concentration
        if lam.ndim == 1:
            return np.asarray(X @ (psi(lam) - psi(lam.sum())))
        elog_phi = psi(lam) - psi(lam.sum(1, keepdims=True))
        return np.asarray(X @ elog_phi.T)

    def sufficient_stats(self, X, resp, n_categories=None):
        """Weighted counts ``sum_i resp_ik x_iv``, shape (K, V); symbols (1-d X) need
        ``n_categories``."""
        if np.ndim(X) == 1:
            counts = np.empty((resp.shape[1], n_categories))
            categorical_emission_counts(resp, X, counts)
            return counts
        return super().sufficient_stats(X, resp)

    def maximize(self, counts, previous, prior=None):
        """Normalised counts (plus ``prior - 1``: the MAP under Dir(prior)); a row without
        counts keeps ``previous``."""
        if prior is not None:
            counts = counts + (np.asarray(prior, dtype=float) - 1.0)
        return normalize_rows(counts, previous)

    def log_prior(self, probs, prior):
        """Sum over rows of the Dir(``prior``) log density (``prior`` broadcast to (K, V))."""
        alpha = np.broadcast_to(np.asarray(prior, dtype=float), probs.shape)
        return float(sum(dirichlet_logpdf(probs[k], alpha[k]) for k in range(probs.shape[0])))

    def posterior(self, prior, counts):
        """``lambda_0 + counts``, (K, V)."""
        return prior[None, :] + counts

    def kl(self, posterior, prior):
        return float(np.sum(dirichlet_kl(posterior, prior)))

    def log_predictive(self, concentration, X):
        """Dirichlet-multinomial of each row's token sequence: ``lnG(sum lam) - lnG(sum lam +
        n) + sum_v [lnG(lam_v + x_v) - lnG(lam_v)]``, shape (n, K)."""
        lam = np.atleast_2d(concentration)
        n_tok = np.asarray(X.sum(1)).ravel()
        out = np.empty((X.shape[0], lam.shape[0]))
        Xc = sp.csr_matrix(X)
        for k in range(lam.shape[0]):
            li = lam[k]
            per = sparse_row_sums(Xc, gammaln(li[Xc.indices] + Xc.data)
                                  - gammaln(li[Xc.indices]))
            out[:, k] = gammaln(li.sum()) - gammaln(li.sum() + n_tok) + per
        return out

    def sample(self, probs, labels, rng, n_tokens=None):
        """One symbol per label (int64, shape (n,)), or with ``n_tokens`` a row of that many
        token counts per label (shape (n, V))."""
        if n_tokens is not None:
            return np.vstack([rng.multinomial(n_tokens, probs[k]) for k in labels])
        cdf = np.cumsum(probs, axis=1)
        u = rng.random(len(labels))
        out = np.empty(len(labels), dtype=np.int64)
        for k in range(probs.shape[0]):
            sel = labels == k
            out[sel] = np.minimum(np.searchsorted(cdf[k], u[sel] * cdf[k, -1], side="right"),
                                  probs.shape[1] - 1)
        return out


class Bernoulli(ExponentialFamily, ParamsMixin):
    """Independent binary features, ``x_d ~ Bernoulli(p_d)``, with the conjugate ``p_d ~
    Beta(a, b)``: the one Bernoulli of the mixtures, passed as
    ``DirichletProcessMixture(component=Bernoulli(...))``.

    Parameters
    ----------
    probability_prior : float or (float, float) or None, default None
        ``a`` and ``b`` of the Beta prior of every probability (> 0; one float c means
        (c, c)). ``None``: Beta(1, 1), the variational mixtures' default.

    Notes
    -----
    The methods take the parameters as arrays and hold no data (the block of
    :mod:`latentkit.distributions._family`). ``params``: the probabilities, (K, D).
    ``prior`` and ``posterior``: the two Beta counts stacked, (2, D) for the prior and
    (2, K, D) for the factors. ``stats``: ``(nk, sx)``. The mixture builds its adapter
    (``mixture._components.BernoulliComponent``, private since 0.2) from it. Source: Bishop (2006), section
    2.1.1 (Beta-Bernoulli conjugacy).

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.distributions import Bernoulli
    >>> from latentkit.mixture import DirichletProcessMixture
    >>> p = np.array([[0.9, 0.9, 0.1, 0.1]] * 40 + [[0.1, 0.1, 0.9, 0.9]] * 40)
    >>> X = (np.random.default_rng(0).random(p.shape) < p).astype(float)
    >>> dpm = DirichletProcessMixture(4, component=Bernoulli(probability_prior=1.0),
    ...                               concentration=0.1, random_state=0).fit(X)
    >>> dpm.n_effective_components_
    2
    """

    def __init__(self, probability_prior=None):
        self.probability_prior = probability_prior

    @staticmethod
    def _ab(concentration):
        c = concentration
        return (c[0], c[1]) if c.ndim == 3 else (c[0][None, :], c[1][None, :])

    def log_likelihood(self, probs, X):
        """``sum_d [x_d ln p_kd + (1 - x_d) ln(1 - p_kd)]``, shape (n, K)."""
        log_p, log_q = np.log(probs), np.log1p(-probs)
        return np.asarray(X @ (log_p - log_q).T) + log_q.sum(1)[None, :]

    def expected_log_likelihood(self, posterior, X):
        """``sum_d [x_d (psi(a) - psi(a + b)) + (1 - x_d) (psi(b) - psi(a + b))]``."""
        a, b = self._ab(posterior)
        ab = psi(a + b)
        e_log_p, e_log_q = psi(a) - ab, psi(b) - ab
        return np.asarray(X @ (e_log_p - e_log_q).T) + e_log_q.sum(1)[None, :]

    def posterior(self, prior, stats):
        """``(a_0 + sx, b_0 + nk - sx)`` stacked, (2, K, D)."""
        nk, sx = stats
        a0, b0 = prior
        return np.stack([a0[None, :] + sx, b0[None, :] + (nk[:, None] - sx)])

    def kl(self, posterior, prior):
        a, b = self._ab(posterior)
        a0, b0 = self._ab(prior)
        return float(np.sum(beta_kl(a, b, a0, b0)))

    def mean(self, posterior):
        """``E_q[p] = a / (a + b)``, (K, D)."""
        a, b = self._ab(posterior)
        return a / (a + b)

    def log_predictive(self, posterior, X):
        """``sum_d [x_d ln m_kd + (1 - x_d) ln(1 - m_kd)]``, m = E_q[p], shape (n, K)."""
        a, b = self._ab(posterior)
        log_m, log_1m = np.log(a) - np.log(a + b), np.log(b) - np.log(a + b)
        return np.asarray(X @ (log_m - log_1m).T) + log_1m.sum(1)[None, :]

    def sample(self, probs, labels, rng):
        """Binary rows (float64) with the probabilities of each label."""
        m = probs[labels]
        return (rng.random(m.shape) < m).astype(np.float64)
