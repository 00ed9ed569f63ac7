"""Private SVI pieces for LatentDirichletAllocation (see :mod:`latentkit._engine.private_svi`),
returned by its ``_private_svi_pieces`` hook: a document's statistics are its expected
topic-word counts, clipped in Frobenius norm; the step is LDA's natural-gradient step on the
noisy counts.

Source: Park, Foulds, Chaudhuri & Welling (2020), Algorithm 1 and their LDA example.
"""

import math

import numpy as np
import scipy.sparse as sp

from .._utils.validation import check_counts
from ._lda_estep import _beta_tables, _run_local, _suff_stats
from ._lda_priors import learns_alpha, learns_eta
from ..exceptions import InputError

__all__ = ["LDAPrivatePieces"]


class LDAPrivatePieces:
    """LatentDirichletAllocation: a row is a document, its statistics ``s_d`` the (K, V) matrix
    of expected topic-word counts ``n_dw phi_dwk`` (Frobenius norm clipped to ``C``).

    The pieces keep the topics ``lam`` and the E-step's tables they compute from them; every
    new ``lam`` goes to the model through ``set_components(lam, tables)`` (the model's own
    setter)."""

    unit = "document (row)"
    missing_clip = ("clip must be given for LatentDirichletAllocation: the norm to which each "
                    "document's expected topic-word counts are clipped (choose it without "
                    "looking at the data, e.g. from a public document-length bound).")

    def __init__(self, model, owner, set_components):
        self.model = model
        self.set_components = set_components
        self.lam = self.exp_beta_t = self.beta_shift = None

    def _set(self, lam):
        self.lam = lam
        self.exp_beta_t, self.beta_shift = _beta_tables(lam)
        self.set_components(lam, (self.exp_beta_t, self.beta_shift))

    def default_clip(self):
        return None

    def check_X(self, X):
        return sp.csr_matrix(check_counts(X, "X"))

    def start(self, n_features, rng):
        m = self.model
        m._validate_params()
        if (learns_alpha(m.doc_topic_prior) or learns_eta(m.topic_word_prior)
                or getattr(m, "seed_topics", None) is not None):
            raise InputError("private SVI needs fixed priors: a prior learned from the documents "
                             "('auto') or seeded by their word counts (seed_topics) would be "
                             "released outside the privacy accounting; give numbers.")
        m.n_features_in_ = int(n_features)
        K = int(m.n_components)
        m._rng = rng
        m._running_stats = None
        m.n_steps_ = 0
        self._set(rng.gamma(100.0, 0.01, size=(K, n_features)))  # LDA's 'random' start

    def shape(self):
        return (int(self.model.n_components), self.model.n_features_in_)

    def row_statistics_norms(self, X):
        """Per-document ``(ratio, exp_theta, norms)``: the E-step outputs and the Frobenius
        norms ``||s_d||_F = sqrt(sum_{w in d} ratio_dw^2 sum_k (e^theta_dk e^beta_wk)^2)``."""
        m = self.model
        bt = self.exp_beta_t
        _, exp_theta, ratio, _, _ = _run_local(X, bt, self.beta_shift, m.doc_topic_prior_,
                                               m.max_doc_update_iter, m.mean_change_tol)
        rows = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))
        sq = ratio ** 2 * np.einsum("jk,jk->j", exp_theta[rows] * bt[X.indices],
                                    exp_theta[rows] * bt[X.indices])
        norms = np.sqrt(np.bincount(rows, weights=sq, minlength=X.shape[0]))
        return ratio, exp_theta, norms

    def clipped_sum(self, X, clip):
        """``sum_d s_d min(1, C / ||s_d||_F)``, shape (K, V), and the norms ``||s_d||_F``.

        A document whose statistics are not finite (counts so large that its E-step or norm
        overflows, e.g. two counts of 1.5e308) gets weight 0: it is left out of the sum, whose
        change by one document stays at most ``C``. Its local E-step depends on it alone, so
        the sum over the other documents is recomputed without it. No floating-point warning
        is emitted (whether one occurs depends on one document)."""
        with np.errstate(all="ignore"):
            ratio, exp_theta, norms = self.row_statistics_norms(X)
            finite = np.isfinite(norms)
            if not finite.all():
                keep = np.flatnonzero(finite)
                S = (self.clipped_sum(X[keep], clip)[0] if keep.size else np.zeros(self.shape()))
                return S, norms
            return self._scaled_sum(X, clip, ratio, exp_theta, norms), norms

    def _scaled_sum(self, X, clip, ratio, exp_theta, norms):
        with np.errstate(divide="ignore"):
            factor = np.minimum(1.0, clip / norms) if math.isfinite(clip) else np.ones_like(norms)
        factor[norms == 0] = 1.0
        scaled = ratio * np.repeat(factor, np.diff(X.indptr))
        return _suff_stats(X, scaled, exp_theta, self.exp_beta_t)

    def step(self, noisy_sum, rho, scale):
        m = self.model
        # LDA's natural-gradient step (LatentDirichletAllocation._m_step) on the noisy counts,
        # then a post-processing: the Dirichlet parameters must stay positive; flooring them
        # at the prior eta (not the released counts at 0, which would add a positive bias of
        # 0.4 sigma to every entry) keeps the noise unbiased where lambda is above eta
        eta = m.topic_word_prior_
        lam = (1.0 - rho) * self.lam + rho * (eta + scale * noisy_sum)
        self._set(np.maximum(lam, eta))
        m.n_steps_ += 1
