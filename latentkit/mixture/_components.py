"""Conjugate components of the variational mixtures, composed like HMM emissions.

:class:`~latentkit.mixture.DirichletProcessMixture` explains each row by one component
``x ~ F(theta_k)`` with a conjugate prior ``theta_k ~ G_0`` and a mean-field factor
``q(theta_k)`` in the prior's family. The stick-breaking weights, the responsibilities, the
natural-gradient step and the bound are the model's; the **component** says how one component
scores, summarises and updates. Like :mod:`latentkit.sequence._emissions`, a component holds
only hyper-parameters, and every method receives the current factor as a dict
``{name: array}`` (names without the trailing underscore; the model stores them as ``name_``
attributes). A new component type (Poisson-Gamma, Bernoulli-Beta...) is one class with:

``param_names``                         names of q's parameters, e.g. ``('category_concentration',)``
``check_X(X)``                          validated rows (named errors)
``data_summary(X, w)``                  mergeable summary of the rows (:mod:`latentkit._summaries`)
``resolve_prior(summary, n_features, n_components)``  the prior's parameters (dict)
``start_rows(X)``                       dense rows on which k-means++ picks the start
``expected_log_lik(params, X)``         (n, K) ``E_q[log p(x_i | theta_k)]``
``accumulate(X, resp)``                 statistics (K, ...) of weighted responsibilities ``resp``
``posterior(prior, stats)``             q's parameters given the statistics (closed form)
``public(params)``                      derived public attributes (e.g. ``components_``)
``kl(params, prior)``                   ``sum_k KL(q(theta_k) || G_0)``
``log_predictive(params, X)``           (n, K) log posterior predictive of each row
``sample(params, labels, rng, size)``   rows drawn for the given component labels

The prior's own parameters (``params`` built from the prior) serve the 'tail' components of a
truncated Dirichlet process (their factors equal the prior).

Only :class:`CategoricalComponent` is here; the Gaussian components of the mixtures are the
Normal-Wishart block shared with :class:`VariationalGaussianMixture`
(:mod:`latentkit.distributions._normal_wishart`).
"""

import numpy as np
import scipy.sparse as sp
from scipy.special import gammaln, psi

from .._summaries import CountSummary
from .._validation import check_counts, check_dense_width
from ..distributions._dirichlet import dirichlet_kl

__all__ = ["CategoricalComponent", "COMPONENT_TYPES"]


class CategoricalComponent:
    """Categorical (bag-of-tokens) component with a Dirichlet prior.

    Each row is a vector of non-negative token counts drawn independently from the component's
    categorical distribution ``phi_k ~ Dir(category_prior)`` (no multinomial coefficient: the
    tokens are an ordered sequence). ``q(phi_k) = Dir(category_concentration_k)``.

    Parameters
    ----------
    category_prior : float or array-like of shape (n_features,)
        Dirichlet concentration of the prior (> 0).

    Notes
    -----
    ``E_q[log phi_kv] = psi(lambda_kv) - psi(sum_v lambda_kv)``; the posterior predictive of a
    row is the Dirichlet-multinomial of its token sequence (Blei & Jordan 2006, section 4 for
    the exponential-family component of a DP mixture).
    """

    param_names = ("category_concentration",)
    prior_name = "category_prior"

    def __init__(self, category_prior=0.5):
        self.category_prior = category_prior

    def check_X(self, X):
        return check_counts(X, "X")

    def data_summary(self, X, w):
        return CountSummary.of(X, w)

    def resolve_prior(self, summary, n_features, n_components):
        """``{'category_concentration': (V,) prior}``; refuses a declared width far beyond the
        categories used before (K, V) arrays exist."""
        V = n_features
        check_dense_width(V, summary.columns.size, n_components,
                          unit="columns (categories)", owner="DirichletProcessMixture",
                          what="category matrix")
        lam = np.array(self.category_prior, dtype=np.float64, copy=True)
        if lam.ndim == 0:
            lam = np.full(V, float(lam))
        if lam.shape != (V,) or not np.all(np.isfinite(lam)) or (lam <= 0).any():
            raise ValueError(f"category_prior must be a positive float or a positive array "
                             f"of shape ({V},), got {self.category_prior!r}.")
        return {"category_concentration": lam}

    def start_rows(self, X):
        """Token proportions of each row (k-means++ is run on them)."""
        rows = np.asarray(X.sum(1)).ravel()
        return X.multiply(1.0 / np.maximum(rows, 1e-300)[:, None]).tocsr().toarray()

    def expected_log_lik(self, params, X):
        lam = params["category_concentration"]
        if lam.ndim == 1:  # the prior (tail components)
            return np.asarray(X @ (psi(lam) - psi(lam.sum())))
        elog_phi = psi(lam) - psi(lam.sum(1, keepdims=True))
        return np.asarray(X @ elog_phi.T)

    def accumulate(self, X, resp):
        return np.asarray((X.T @ resp).T)

    def posterior(self, prior, stats):
        return {"category_concentration": prior["category_concentration"][None, :] + stats}

    def public(self, params):
        lam = params["category_concentration"]
        return {"components": lam / lam.sum(1, keepdims=True)}

    def kl(self, params, prior):
        return float(np.sum(dirichlet_kl(params["category_concentration"],
                                         prior["category_concentration"])))

    def log_predictive(self, params, X):
        """``ln E_q[prod_v phi_kv^x_v] = lnG(sum lam) - lnG(sum lam + n) + sum_v [lnG(lam_v +
        x_v) - lnG(lam_v)]``, shape (n, K) (K = 1 for the prior)."""
        lam = np.atleast_2d(params["category_concentration"])
        n_tok = np.asarray(X.sum(1)).ravel()
        out = np.empty((X.shape[0], lam.shape[0]))
        Xc = sp.csr_matrix(X)
        for k in range(lam.shape[0]):
            li = lam[k]
            per = np.zeros(X.shape[0])
            vals = gammaln(li[Xc.indices] + Xc.data) - gammaln(li[Xc.indices])
            np.add.at(per, np.repeat(np.arange(X.shape[0]), np.diff(Xc.indptr)), vals)
            out[:, k] = gammaln(li.sum()) - gammaln(li.sum() + n_tok) + per
        return out

    def sample(self, params, labels, rng, size):
        """``size`` tokens per row from ``E_q[phi_k]`` of each label."""
        components = self.public(params)["components"]
        return np.vstack([rng.multinomial(size, components[k]) for k in labels])


#: ``component_type`` of DirichletProcessMixture -> component class ('gaussian' is the
#: Normal-Wishart block of the Gaussian mixtures).
COMPONENT_TYPES = {"categorical": CategoricalComponent}
