"""Spectral LDA with differential privacy for documents.

Neighbouring relation (``neighbouring='document'``, the default): two corpora with the same
number of documents ``D`` (public) that differ in the content of one document (one document
replaced by any other, including the empty one). Every number the estimator releases is a
Gaussian mechanism whose sensitivity is derived below for this relation, and one
:class:`~latentkit.spectral.PrivacyAccountant` records them all; ``epsilon`` is what the whole
pipeline spends.

Contribution rule (each document weighs the same, whatever its length)
------------------------------------------------------------------------
A document with count vector ``c`` and length ``l = sum(c) >= 3`` contributes its unbiased
estimators (SPECTRAL_NOTES.md section 1.3)

* ``n(c) = 1`` (it is counted),
* ``m1(c) = c / l``,
* ``e2(c) = (c c^T - diag(c)) / (l (l - 1))``,
* ``e3(c)`` (ordered triples of distinct token positions over ``l (l-1) (l-2)``);

a document with ``l < 3`` contributes zero to all four. ``m1``, ``e2`` and ``e3`` are
(sub-)probability distributions over words, ordered word pairs and ordered word triples: their
entries are non-negative (for integer counts, ``c_w (c_w - 1) >= 0``; other counts are refused)
and sum to at most 1, whatever ``l`` is. This length normalisation is
the contribution bound: no clipping parameter is needed and no document is altered.

Sensitivities (replace one document ``c`` by ``c'``)
-----------------------------------------------------
For two vectors ``a, b`` with non-negative entries summing to at most 1,
``||a - b||_2^2 = ||a||^2 + ||b||^2 - 2 a.b <= 1 + 1 - 0 = 2``.

1. Stage 1 releases ``(sum_d n(c_d), sum_d m1(c_d))`` in one Gaussian mechanism. If both
   documents are used, ``n`` does not change and ``||m1(c) - m1(c')||^2 <= 2``; if one of them is
   short, ``n`` changes by 1 and ``||m1||^2 <= 1``: ``Delta_1 = sqrt(2)``.
2. The words whose released ``sum m1`` is largest (``n_words`` of them; a post-processing of
   stage 1) form the vocabulary ``S`` of the moments (the restriction of every moment to ``S`` is
   exact: ``M2`` and ``M3`` restricted to ``S`` are the same sums over topics with the topics
   restricted to ``S``, and the eigenvalue-to-``alpha`` map does not change).
3. Stage 2 releases ``sum_d e2(c_d)`` on ``S x S`` by Analyze Gauss (Dwork, Talwar, Thakurta &
   Zhang 2014, Algorithm 1): i.i.d. ``N(0, sigma_2^2)`` on the upper triangle including the
   diagonal, mirrored. The released vector is the upper triangle, whose squared norm is at most
   the squared Frobenius norm, and ``e2`` has non-negative entries summing to at most 1:
   ``Delta_2 = sqrt(2)``.
4. From the releases (post-processing, public): ``n^ = max(released count, 1)``,
   ``M1^ = released m1 sum / n^``, ``E2^ = released e2 sum / n^``,
   ``M2^ = E2^ - a0/(a0+1) M1^ M1^^T``, its top-k eigenpairs ``(s_i, U)`` and
   ``W = U diag(s)^{-1/2}``
   (``s_i`` floored at the expected spectral norm of the stage-2 noise, see below). The
   corrections of the whitened third moment use ``q = W^T M1^`` and ``W^T E2^ W``: public.
5. Stage 3 runs the private tensor power method (Wang & Anandkumar 2016, Algorithm 3: ``k``
   components, ``L`` candidates, ``R`` power steps, ``K = k L (R + 1)`` releases) on
   ``T = (1/n^) sum_d e3(c_d)(W, W, W) - corrections``. Only the first term depends on the data.
   With ``y = W u`` (``u`` a unit vector in R^k) and ``w_a`` the a-th row of ``W``:
   ``e3(c)(W, W, W)(I, u, u) = sum_{abc} e3_abc w_a y_b y_c``, whose norm is at most
   ``sum e3_abc ||w_a|| |y_b| |y_c| <= omega ||W u||_inf^2`` with ``omega = max_a ||w_a||_2``;
   and ``|e3(c)(W, W, W)(u, u, u)| <= ||W u||_inf^3``. Replacing a document moves each by at most
   twice that (the two contributions can point in opposite directions):

       Delta(T(I, u, u)) = 2 omega ||W u||_inf^2 / n^,    Delta(T(u, u, u)) = 2 ||W u||_inf^3 / n^.

   Both are functions of released values and of the current iterate (itself released), so the
   noise ``sigma = Delta / mu_3`` is set before each release (adaptive composition).

Accounting
----------
The budget is one total ``rho = sum_j Delta_j^2 / (2 sigma_j^2)`` (:func:`rho_for_budget`: the
Renyi-DP conversion of Mironov 2017, or the exact profile of Gaussian compositions, Balle & Wang
2018 with Dong, Roth & Su 2022), split between the stages by ``budget_split``
(``rho_1, rho_2, rho_3``): ``sigma_1 = Delta_1 / sqrt(2 rho_1)``, ``sigma_2 = Delta_2 /
sqrt(2 rho_2)`` and every stage-3 release has ``Delta / sigma = sqrt(2 rho_3 / K)``. All
``K + 2`` releases are recorded in ``accountant_``, whose ``spent(delta, method)`` equals
``epsilon`` under the calibrating method; ``privacy_report_`` also gives the (looser) Renyi-DP,
paper-rule and Dwork-Rothblum-Vadhan figures of the same releases.

When the answer is noise
------------------------
Two public comparisons, both from released values only:

* stage 2: the k-th eigenvalue of ``M2^`` against the expected spectral norm of the symmetric
  noise ``E||N|| ~= 2 sigma_2 sqrt(|S|) / n^`` (Wigner semicircle edge, Bai & Yin 1988): by
  Weyl's inequality an eigenvalue below it is not distinguishable from noise
  (``m2_noise_dominated_``);
* stage 3: for each component, the expected norm of the noise added to a power step at the
  released vector, ``noise_scale_i = sigma(v_i) sqrt(k)``, against ``|lambda_i| / sqrt(k)``:
  Wang & Anandkumar (2016), Theorem 2.2 (SPECTRAL_NOTES.md section 4, item 3) guarantee recovery
  only when the perturbation of ``T(I, u, u)`` is at most ``C1 lambda_min / sqrt(k)`` with
  ``C1 < 1``; a component with ``noise_scale_i >= |lambda_i| / sqrt(k)`` fails that condition
  for every such ``C1`` (``noise_dominated_``).

Either triggers a :class:`PrivacyNoiseWarning`.

``neighbouring='tensor_entry'`` keeps the relation of the paper: two whitened k x k x k moment
tensors differing by one symmetric unit entry (sensitivities ``6 ||u||_inf^2`` and
``6 ||u||_inf^3``, :func:`~latentkit.spectral.private_tensor_power`). The whitening and the
moments are then computed from the raw corpus without noise: **no document is protected**; it
exists to reproduce the paper's setting. Such a fit warns (:class:`PrivacyRelationWarning`) and
its ``privacy_report_['epsilon_documents']`` is None.

Noise and seeds
---------------
Every noise draw comes from a generator seeded by the operating system's entropy
(:func:`~latentkit.spectral._private_power._noise_rng`), never from ``random_state``, which
drives only the starting vectors of the power method: with a seeded generator, the seed (stored
with the model's hyper-parameters) would regenerate the noise, and subtracting it would give
back the exact count and word sums. Documents are checked before the first release (length
finite and at most 2**53, integer counts): the refusal depends on the corpus alone, not on the
noise.
"""

import math
import numbers
import warnings

import numpy as np

from .._utils.deprecation import renamed_kwargs
from .._utils.validation import check_counts, check_random_state, check_scalar
from .._utils.words import TopWordsMixin
from ..exceptions import (PrivacyNoiseWarning, PrivacyRelationWarning, InputError)  # importable here too
from ._estimators import _SpectralBase
from ._moments import LDAMoments, project_simplex
from ._private_power import (AccountantStateMixin, _is_inf_epsilon, _noise_rng,
                             _noisy_power_iterations, private_tensor_power)
from ._accounting import PrivacyAccountant, _check_delta, _check_epsilon, rho_for_budget
from ._state_checks import FittedState, check_spectral_lda
from ._tensors import SymmetricTensor
from ._whitening import Whitening, whiten

__all__ = ["PrivateSpectralLDA", "PrivacyNoiseWarning", "PrivacyRelationWarning"]

_SQRT2 = math.sqrt(2.0)

#: Largest document length (sum of counts) accepted: integers up to 2**53 are exact in float64.
MAX_DOCUMENT_LENGTH = 2.0 ** 53


def _check_document_lengths(X):
    """ValueError unless every document's length (row sum of the CSR counts ``X``) is finite
    and at most :data:`MAX_DOCUMENT_LENGTH`; run before the first release, so whether a corpus
    is refused depends on that corpus alone (a public domain rule), never on the noise."""
    with np.errstate(over="ignore", invalid="ignore"):
        ell = np.asarray(X.sum(axis=1), dtype=np.float64).ravel()
    bad = np.flatnonzero(~(np.isfinite(ell) & (ell <= MAX_DOCUMENT_LENGTH)))
    if bad.size:
        raise InputError(f"X: every document's length (sum of its counts) must be finite and at "
                         f"most 2**53 for the privacy guarantee; document {int(bad[0])} has "
                         f"length {ell[bad[0]]:.6g} ({bad.size} such document(s)).")
    return ell


def _stage3_sensitivities(W, n_hat):
    """Sensitivity functions of the stage-3 releases (module docstring, item 5) for the
    released whitening ``W`` (|S|, k) and count ``n_hat``: ``(sens_power, sens_eval)``, each
    mapping unit vectors ``U`` (k, L) to (L,) sensitivities
    ``2 omega ||W u||_inf^2 / n_hat`` and ``2 ||W u||_inf^3 / n_hat``."""
    omega = float(np.sqrt((W ** 2).sum(axis=1)).max())

    def sens_power(Ub):
        return 2.0 * omega * np.max(np.abs(W @ Ub), axis=0) ** 2 / n_hat

    def sens_eval(Ub):
        return 2.0 * np.max(np.abs(W @ Ub), axis=0) ** 3 / n_hat

    return sens_power, sens_eval


def _sym_outer(m, G):
    """``Sym(m (x) G)_abc = m_a G_bc + m_b G_ac + m_c G_ab``, shape (k, k, k)."""
    return (np.einsum("a,bc->abc", m, G) + np.einsum("b,ac->abc", m, G)
            + np.einsum("c,ab->abc", m, G))


def _e3_sum_whitened(XS, w3, W):
    """``sum_d w3_d e3~(c_d)(W, W, W)`` as a dense (k, k, k) array, where ``e3~`` is the
    numerator of the unbiased third-moment estimator (SPECTRAL_NOTES.md section 1.3):
    ``p^3 - sum_w c_w (w_w w_w p + w_w p w_w + p w_w w_w) + 2 sum_w c_w w_w^3`` with
    ``p = W^T c``. Cost O(nnz k + D k^3 + |S| k^3)."""
    P = np.asarray(XS @ W)                               # (D, k)
    A = np.einsum("d,di,dj,dk->ijk", w3, P, P, P, optimize=True)
    Q = np.asarray(XS.T @ (w3[:, None] * P))             # (|S|, k): sum_d w3_d c_dw p_d
    B = np.einsum("wi,wj,wk->ijk", W, W, Q, optimize=True)
    cw = np.asarray(XS.T @ w3).ravel()                   # sum_d w3_d c_dw
    C = np.einsum("w,wi,wj,wk->ijk", cw, W, W, W, optimize=True)
    return A - (B + B.transpose(0, 2, 1) + B.transpose(2, 0, 1)) + 2.0 * C


def _analyze_gauss_noise(m, sigma, rng):
    """Symmetric (m, m) noise of Analyze Gauss (Dwork, Talwar, Thakurta & Zhang 2014, Alg. 1):
    i.i.d. ``N(0, sigma^2)`` on the upper triangle with the diagonal, mirrored below."""
    Z = np.triu(rng.standard_normal((m, m)))
    return sigma * (Z + np.triu(Z, 1).T)


def _released_whitening(M2, k, sigma2, n_hat):
    """Whitening from a released symmetric M2 (post-processing).

    Returns ``(Whitening, top-k eigenvalues before flooring, noise_norm)`` where
    ``noise_norm = 2 sigma2 sqrt(m) / n_hat`` is the expected spectral norm of the Analyze-Gauss
    noise of ``M2`` (semicircle edge, Bai & Yin 1988) and the eigenvalues used for ``W`` are
    floored at it (an eigenvalue below it is indistinguishable from noise, Weyl's inequality;
    the floor also keeps ``W``, hence the stage-3 sensitivities, bounded).
    """
    M2 = (M2 + M2.T) / 2.0
    s, U = np.linalg.eigh(M2)
    s, U = s[::-1][:k], U[:, ::-1][:, :k]
    noise = 2.0 * sigma2 * math.sqrt(M2.shape[0]) / n_hat
    floor = max(noise, 1e-12 * max(abs(s[0]), 1e-300))
    return Whitening.from_eigenpairs(np.maximum(s, floor), U, "private-eigh"), s.copy(), noise


def _check_budget_split(budget_split):
    """The three shares of rho (stage 1, stage 2, stage 3) as a float array; ValueError unless
    they are positive, finite and sum to 1."""
    split = np.asarray(budget_split, dtype=float) if not isinstance(budget_split, str) \
        else np.zeros(0)
    if split.shape != (3,) or not np.all(np.isfinite(split)) or np.any(split <= 0) \
            or abs(split.sum() - 1.0) > 1e-9:
        raise InputError(f"budget_split must be 3 positive shares summing to 1 (stage 1: "
                         f"counts or sums, stage 2: second moment, stage 3: tensor power "
                         f"method), got {budget_split!r}.")
    return split


def _budget_sigmas(eps, delta, accountant, split, n_power_releases):
    """(sigma_1 / Delta_1, sigma_2 / Delta_2, sigma_3 / Delta_3) for a total budget split in
    three shares of ``rho`` (module docstring, Accounting); zeros for ``eps = inf``."""
    rho = rho_for_budget(eps, delta, accountant)
    if math.isinf(rho):
        return 0.0, 0.0, 0.0
    shares = rho * np.asarray(split, dtype=float)
    return (1.0 / math.sqrt(2.0 * shares[0]), 1.0 / math.sqrt(2.0 * shares[1]),
            1.0 / math.sqrt(2.0 * shares[2] / n_power_releases))


def _private_power_stage(T, k, n_restarts, n_iter, rng, ratio, sens_power, sens_eval, acc,
                         noise_rng):
    """Stage 3: WA16 Algorithm 3 on the dense (k, k, k) tensor ``T`` with the given
    sensitivity functions and ``sigma = ratio * Delta``; records the releases in ``acc``.
    Starting vectors from ``rng``, noise from ``noise_rng`` (OS entropy, :func:`_noise_rng`).

    Returns ``(eigenvalues (k,), eigenvectors (k, k), noise_scale (k,))`` with
    ``noise_scale_i = ratio * sens_power(v_i) * sqrt(k)``, the expected norm of the noise of a
    power step at the released vector.
    """
    op = SymmetricTensor(T, check_symmetric=False)
    lam, Vk, _, sens, sig = _noisy_power_iterations(op, k, k, n_restarts, n_iter, rng, ratio,
                                                     sens_power, sens_eval, noise_rng=noise_rng)
    acc.record_many(np.concatenate(sens), np.concatenate(sig))
    return lam, Vk, ratio * sens_power(Vk) * math.sqrt(k)


def _release_moments(X, ell, sig1, sig2, n_words, rng):
    """Stages 1 and 2 of the document-level pipeline (module docstring), the releases only.

    Parameters
    ----------
    X : CSR matrix (D, V) of counts; ell : (D,) document lengths
    sig1, sig2 : float
        Noise of stage 1 (count and ``sum m1``, sensitivity sqrt 2) and stage 2 (Analyze Gauss
        on ``sum e2`` over ``S x S``, sensitivity sqrt 2); 0 for none.
    n_words : int
    rng : numpy.random.Generator
        Source of the noise (:func:`_noise_rng`: OS entropy, never ``random_state``).

    Returns
    -------
    count : float
        Released number of documents with >= 3 tokens.
    s1 : ndarray (V,)
        Released ``sum_d m1(c_d)``.
    S : ndarray of int (m,)
        The ``m = min(n_words, V)`` words with the largest released ``s1`` (sorted), a
        post-processing of stage 1.
    E2 : ndarray (m, m)
        Released ``sum_d e2(c_d)`` on ``S x S`` (symmetric noise).
    """
    V = X.shape[1]
    used = ell >= 3
    # stage 1: (count, sum m1), Delta = sqrt(2)
    inv_l = np.where(used, 1.0 / np.maximum(ell, 1.0), 0.0)
    count = float(used.sum()) + sig1 * rng.standard_normal()
    s1 = np.asarray(X.T @ inv_l).ravel() + sig1 * rng.standard_normal(V)
    # word selection: post-processing of stage 1
    m = min(n_words, V)
    S = np.sort(np.argsort(-s1, kind="stable")[:m])
    XS = X[:, S].tocsr()
    # stage 2: sum e2 on S x S, Analyze Gauss (upper triangle with diagonal, mirrored)
    w2 = np.where(used, 1.0 / np.maximum(ell * (ell - 1.0), 1.0), 0.0)
    E2 = np.asarray((XS.T.multiply(w2) @ XS).toarray())
    E2[np.diag_indices(m)] -= np.asarray(XS.T @ w2).ravel()
    return count, s1, S, E2 + _analyze_gauss_noise(m, sig2, rng)


class _PrivateSpectralBase(AccountantStateMixin, _SpectralBase):
    """Fitted state and diagnostics shared by the private spectral estimators."""

    def _store_private_fit(self, lam, wh, acc, delta, noise, neighbouring):
        """Set ``eigenvalues_``, ``whitening_``, ``accountant_``, ``privacy_report_``,
        ``noise_scale_`` and ``noise_dominated_``."""
        self.eigenvalues_ = lam
        self.history_ = None
        self.whitening_ = wh
        self.accountant_ = acc
        self.n_releases_ = acc.n_releases
        self.privacy_report_ = dict(acc.report(delta), neighbouring=neighbouring,
                                    epsilon=acc.spent(delta, self.accountant),
                                    calibration=self.accountant)
        self.noise_scale_ = noise
        self.noise_dominated_ = noise >= np.abs(lam) / math.sqrt(lam.size)

    def _warn_noise(self, what, advice):
        """PrivacyNoiseWarning when the second moment or any component is noise-dominated."""
        msgs = []
        if self.m2_noise_dominated_:
            msgs.append(f"the k-th eigenvalue of the released second moment "
                        f"({self.m2_eigenvalues_[-1]:.3g}) is below the expected norm of its "
                        f"noise ({self.m2_noise_norm_:.3g})")
        n_bad = int(self.noise_dominated_.sum())
        if n_bad:
            msgs.append(f"{n_bad} of {self.n_components} {what} have privacy noise at least "
                        f"|eigenvalue|/sqrt(k) (Wang & Anandkumar 2016, Thm 2.2)")
        if msgs:
            warnings.warn(f"the answer is mostly noise at epsilon={self.epsilon:g}: "
                          + "; ".join(msgs) + f". Use a larger epsilon, {advice}.",
                          PrivacyNoiseWarning, stacklevel=3)


class PrivateSpectralLDA(TopWordsMixin, _PrivateSpectralBase):
    """Spectral LDA that is (epsilon, delta)-differentially private for each document.

    Parameters
    ----------
    n_components : int
        Number of topics k (at most ``n_words``).
    epsilon : float, default 1.0
        Total privacy budget of the whole pipeline, > 0; ``numpy.inf`` runs the same pipeline
        without noise (the non-private baseline).
    delta : float, default 1e-5
        In (0, 1); choose it well below ``1 / n_documents``.
    doc_topic_prior : float, optional
        Symmetric Dirichlet parameter per topic, ``alpha_0 = n_components * doc_topic_prior``;
        default ``1 / n_components``. Public (not estimated from the data).
    neighbouring : {'document', 'tensor_entry'}, default 'document'
        The neighbouring relation the guarantee is for (module docstring). 'tensor_entry' is
        the relation of Wang & Anandkumar (2016): it protects no document.
    n_words : int, default 200
        'document' only: size of the vocabulary ``S`` the moments are restricted to, chosen as
        the words with the largest privately released frequency (capped at n_features). Fewer
        words mean less noise in M2 (its spectral norm grows like ``sqrt(n_words)``); words
        outside ``S`` share the frequency mass outside ``S`` (see ``components_``). On KOS and
        NIPS (k=10) 200 words gave private topics closer to the non-private ones than 500 at
        every epsilon from 100 to 10^4 (benchmarks/bench_private_lda.py).
    budget_split : tuple of 3 floats, default (0.1, 0.4, 0.5)
        'document' only: shares of the total ``rho`` for stage 1 (count and word frequencies),
        stage 2 (second moment) and stage 3 (tensor power method); positive, summing to 1.
    accountant : {'analytic', 'rdp', 'advanced'}, default 'analytic'
        How ``epsilon`` is turned into noise: 'analytic', the exact privacy profile of the
        composition of all Gaussian releases (Balle & Wang 2018; Dong, Roth & Su 2022);
        'rdp', the Renyi-DP conversion (Mironov 2017; needs more noise). 'advanced' (the
        paper's rule) is accepted with ``neighbouring='tensor_entry'`` only.
    n_init : int, default 10
        Restarts of the power method (``n_restarts`` before 0.2: deprecated alias).
        Candidates ``L`` per component of the private tensor power method.
    max_iter : int, default 20
        Noisy power iterations per restart (``n_iter`` before 0.2: deprecated alias).
        Power steps ``R`` per candidate.
    random_state : None, int or numpy.random.Generator
        Source of the starting vectors of the power method only. The privacy noise is always
        drawn from a generator seeded by the operating system's entropy
        (``numpy.random.SeedSequence()``), never from ``random_state``: two fits with the same
        seed give different noise, and nothing stored on the model (or saved by
        :func:`latentkit.save`) regenerates it. A seed would otherwise let anyone holding the
        model subtract the noise and recover the exact counts.

    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_features)
        Topic-word distributions (rows on the simplex). On ``selected_words_``: the estimate
        restricted to them, projected onto the simplex and scaled by the released share ``m_S``
        of word frequency on them (clipped to [0.05, 1]); on the other words ('document' only):
        ``1 - m_S`` in proportion to the released word frequencies (zero where those are
        negative), a post-processing that gives VB a start on every word.
    doc_topic_prior_ : ndarray of shape (n_components,)
        Estimated ``alpha_i = 4 a0 (a0+1) / ((a0+2)^2 lambda_i^2)``.
    alpha0_ : float
    eigenvalues_ : ndarray of shape (n_components,)
        Released tensor eigenvalues ``lambda_i`` (noisy).
    raw_topic_sums_ : ndarray of shape (n_components,)
        ``sum_w mu_iw`` over ``selected_words_`` before the simplex projection.
    selected_words_ : ndarray of int
        Columns of the moments' vocabulary ``S`` (sorted); all columns for 'tensor_entry'.
    whitening_ : Whitening
        On ``S`` (``W`` of shape (``|S|``, k)), from the released second moment ('document') or
        from the raw one ('tensor_entry').
    accountant_ : PrivacyAccountant
        Every release of the fit.
    privacy_report_ : dict
        ``accountant_.report(delta)`` plus ``'neighbouring'``, ``'epsilon'`` (the total spent
        under ``accountant``), ``'calibration'`` and ``'epsilon_documents'``: the epsilon of
        the guarantee per document, ``'epsilon'`` for 'document' and None (not applicable)
        for 'tensor_entry'.
    n_docs_estimate_ : float
        Released number of documents with >= 3 tokens ('document'; exact for 'tensor_entry').
    word_frequencies_ : ndarray of shape (n_features,)
        'document' only: the released ``sum_d c_d / l_d`` (stage 1).
    released_e2_ : ndarray of shape (``|S|``, ``|S|``)
        'document' only: the released ``sum_d e2(c_d)`` on ``selected_words_`` (stage 2).
    noise_scale_ : ndarray of shape (n_components,)
        Expected norm of the noise added to a power step at the released vector.
    noise_dominated_ : ndarray of bool of shape (n_components,)
        ``noise_scale_ >= |eigenvalues_| / sqrt(k)`` (module docstring).
    m2_eigenvalues_ : ndarray of shape (n_components,)
        Top-k eigenvalues of the released M2 (before flooring; 'document').
    m2_noise_norm_ : float
        Expected spectral norm of the noise in the released M2 ('document'; 0 otherwise).
    m2_noise_dominated_ : bool
        ``m2_eigenvalues_[-1] <= m2_noise_norm_``.
    n_features_in_ : int
    n_releases_ : int

    Raises
    ------
    ValueError (from ``fit``)
        Bad hyper-parameters (named), non-integer counts, a document whose length (sum of
        counts) is not finite or exceeds 2**53 (checked before the first release), no document
        with 3 or more tokens ('tensor_entry'),
        ``n_components`` above ``n_words`` or the vocabulary size.

    Warns
    -----
    PrivacyNoiseWarning
        When ``noise_dominated_.any()`` or ``m2_noise_dominated_``.
    PrivacyRelationWarning
        With ``neighbouring='tensor_entry'``: the epsilon protects no document.

    Notes
    -----
    Sources: the moments, Anandkumar, Foster, Hsu, Kakade & Liu (2012) and Anandkumar et al.
    (2014), Theorem 3.5; Analyze Gauss, Dwork, Talwar, Thakurta & Zhang (2014), "Analyze Gauss:
    optimal bounds for privacy-preserving principal component analysis", STOC, Algorithm 1; the
    private tensor power method, Wang & Anandkumar (2016), Algorithm 3 and Theorem 2.2;
    accounting, Mironov (2017), Balle & Wang (2018), Dong, Roth & Su (2022). The derivation of
    every sensitivity, with its constant, is in the docstring of this module.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.spectral import PrivateSpectralLDA
    >>> X = np.random.default_rng(0).poisson(2.0, size=(200, 10))
    >>> pl = PrivateSpectralLDA(2, epsilon=float("inf"), random_state=0).fit(X)  # no noise
    >>> pl.components_.shape
    (2, 10)
    """

    @renamed_kwargs(n_restarts="n_init", n_iter="max_iter")
    def __init__(self, n_components, epsilon=1.0, delta=1e-5, doc_topic_prior=None,
                 neighbouring="document", n_words=200, budget_split=(0.1, 0.4, 0.5),
                 accountant="analytic", n_init=10, max_iter=20, random_state=None):
        self.n_components = n_components
        self.epsilon = epsilon
        self.delta = delta
        self.doc_topic_prior = doc_topic_prior
        self.neighbouring = neighbouring
        self.n_words = n_words
        self.budget_split = budget_split
        self.accountant = accountant
        self.n_init = n_init
        self.max_iter = max_iter
        self.random_state = random_state

    # ------------------------------------------------------------------ validation
    def _check_params(self):
        k = check_scalar(self.n_components, "n_components", numbers.Integral, low=1)
        eps = math.inf if _is_inf_epsilon(self.epsilon) else _check_epsilon(self.epsilon)
        delta = _check_delta(self.delta)
        prior = 1.0 / k if self.doc_topic_prior is None else check_scalar(
            self.doc_topic_prior, "doc_topic_prior", numbers.Real, low=0.0, low_inclusive=False)
        if self.neighbouring not in ("document", "tensor_entry"):
            raise InputError(f"neighbouring must be 'document' or 'tensor_entry', got "
                             f"{self.neighbouring!r}.")
        allowed = ("analytic", "rdp") if self.neighbouring == "document" else \
            ("analytic", "rdp", "advanced")
        if self.accountant not in allowed:
            raise InputError(f"accountant must be one of {allowed} with neighbouring="
                             f"{self.neighbouring!r}, got {self.accountant!r}.")
        check_scalar(self.n_init, "n_init", numbers.Integral, low=1)
        check_scalar(self.max_iter, "max_iter", numbers.Integral, low=1)
        n_words = check_scalar(self.n_words, "n_words", numbers.Integral, low=1)
        split = _check_budget_split(self.budget_split)
        return k, eps, delta, prior, n_words, split

    # ------------------------------------------------------------------ fit
    def fit(self, X, y=None):
        """Estimate topics privately from word counts X of shape (n_documents, n_features).

        Parameters
        ----------
        X : array-like or scipy.sparse matrix of shape (n_documents, n_features)
            Word counts (not modified). ``n_documents`` is public under the relation.
        y : ignored

        Returns
        -------
        self

        Raises
        ------
        ValueError
            See the class docstring.
        """
        k, eps, delta, prior, n_words, split = self._check_params()
        self._reset_fitted()
        X = check_counts(X, "X")
        if np.any(X.data != np.round(X.data)):
            raise InputError("X must hold integer word counts for the privacy guarantee (the "
                             "per-document estimators are distributions, the sensitivity bound, "
                             "only when c_w (c_w - 1) >= 0); got non-integer counts.")
        ell = _check_document_lengths(X)
        V = X.shape[1]
        if k > V:
            raise InputError(f"n_components={k} exceeds the vocabulary size {V}.")
        rng = check_random_state(self.random_state)
        a0 = k * prior
        acc = PrivacyAccountant(method=self.accountant if self.accountant != "advanced" else
                                "rdp")
        if self.neighbouring == "tensor_entry":
            warnings.warn(f"neighbouring='tensor_entry': epsilon={self.epsilon:g} is for "
                          "moment tensors differing in one entry; the whitening and the moments "
                          "come from the raw documents without noise, so no document is "
                          "protected (privacy_report_['epsilon_documents'] is None). Use "
                          "neighbouring='document' for a guarantee per document.",
                          PrivacyRelationWarning, stacklevel=2)
            lam, Vk, wh, S, noise = self._fit_tensor_entry(X, k, eps, delta, a0, rng, acc)
        else:
            if k > min(n_words, V):
                raise InputError(f"n_components={k} exceeds n_words={min(n_words, V)}.")
            lam, Vk, wh, S, noise = self._fit_document(X, ell, k, eps, delta, a0, n_words,
                                                       split, rng, acc)
        # map back (SPECTRAL_NOTES.md 1.3); a released eigenvalue may be ~0 or negative
        lam_safe = np.where(np.abs(lam) > 1e-12, lam, 1e-12)
        alpha = 4.0 * a0 * (a0 + 1.0) / ((a0 + 2.0) ** 2 * lam_safe ** 2)
        mu = (wh.B @ Vk * (lam_safe * (a0 + 2.0) / 2.0)).T
        sums = mu.sum(axis=1)
        mu = np.where(sums[:, None] < 0, -mu, mu)
        topics = np.zeros((k, V))
        topics[:, S] = project_simplex(mu)
        if S.size < V and self.neighbouring == "document":
            # words outside S: each topic gives them the corpus's share of frequency outside S,
            # in proportion to their released frequencies (post-processing of stage 1; the
            # topic-specific mass on S is too noisy at finite epsilon to use)
            f = np.maximum(self.word_frequencies_, 0.0)
            out = np.ones(V, dtype=bool)
            out[S] = False
            total = f.sum()
            mass = float(np.clip(f[S].sum() / total, 0.05, 1.0)) if total > 0 else 1.0
            fo = f[out] / f[out].sum() if f[out].sum() > 0 else np.full(out.sum(),
                                                                         1.0 / out.sum())
            topics[:, S] *= mass
            topics[:, out] = (1.0 - mass) * fo[None, :]
        self.components_, self.doc_topic_prior_, self.raw_topic_sums_ = topics, alpha, sums
        self.alpha0_ = a0
        self.selected_words_ = np.asarray(S, dtype=np.int64)
        self._store_private_fit(lam, wh, acc, delta, noise, self.neighbouring)
        self.privacy_report_["epsilon_documents"] = (
            None if self.neighbouring == "tensor_entry" else self.privacy_report_["epsilon"])
        self.n_features_in_ = V
        self._warn_noise("topics", "fewer n_words or a larger corpus")
        return self

    def _fit_document(self, X, ell, k, eps, delta, a0, n_words, split, rng, acc):
        noise_rng = _noise_rng()  # OS entropy, never random_state (nothing stored regenerates it)
        used = ell >= 3
        K = k * self.n_init * (self.max_iter + 1)
        r1, r2, ratio3 = _budget_sigmas(eps, delta, self.accountant, split, K)
        sig1, sig2 = _SQRT2 * r1, _SQRT2 * r2  # both sensitivities are sqrt(2)
        count, s1, S, E2 = _release_moments(X, ell, sig1, sig2, n_words, noise_rng)
        acc.record(_SQRT2, sig1)
        acc.record(_SQRT2, sig2)
        n_hat = max(count, 1.0)
        XS = X[:, S].tocsr()
        self.word_frequencies_ = s1
        self.released_e2_ = E2
        M1 = s1[S] / n_hat
        E2h = E2 / n_hat
        M2 = E2h - (a0 / (a0 + 1.0)) * np.outer(M1, M1)
        wh, s, noise2 = _released_whitening(M2, k, sig2, n_hat)
        self.m2_eigenvalues_ = s
        self.m2_noise_norm_ = noise2
        self.m2_noise_dominated_ = bool(s[-1] <= noise2)
        self.n_docs_estimate_ = count
        W = wh.W
        # stage 3: private tensor power method on T = data / n^ - public corrections
        w3 = np.where(used, 1.0 / np.maximum(ell * (ell - 1.0) * (ell - 2.0), 1.0), 0.0)
        T = _e3_sum_whitened(XS, w3, W) / n_hat
        q = W.T @ M1
        T = T - (a0 / (a0 + 2.0)) * _sym_outer(q, W.T @ E2h @ W) \
            + (2.0 * a0 ** 2 / ((a0 + 1.0) * (a0 + 2.0))) * np.einsum("a,b,c->abc", q, q, q)
        sens_power, sens_eval = _stage3_sensitivities(W, n_hat)
        lam, Vk, noise = _private_power_stage(T, k, self.n_init, self.max_iter, rng, ratio3,
                                              sens_power, sens_eval, acc, noise_rng)
        return lam, Vk, wh, S, noise

    def _fit_tensor_entry(self, X, k, eps, delta, a0, rng, acc):
        mom = LDAMoments(X, a0)
        wh = whiten(mom.m2_operator(), k, random_state=rng)
        T = mom.tensor(wh).to_dense()
        res = private_tensor_power(T, k, eps, delta, n_restarts=self.n_init,
                                   n_iter=self.max_iter, accountant=self.accountant,
                                   random_state=rng, privacy_accountant=acc)
        self.m2_eigenvalues_ = wh.eigenvalues.copy()
        self.m2_noise_norm_ = 0.0
        self.m2_noise_dominated_ = False
        self.n_docs_estimate_ = float(mom.n_docs_used)
        noise = (res.nu * np.max(np.abs(res.factors), axis=0) ** 2) * math.sqrt(k)
        return res.weights, res.factors, wh, np.arange(X.shape[1]), noise

    def _check_state(self):
        """Validate a restored state (:mod:`latentkit.spectral._state_checks`)."""
        check_spectral_lda(FittedState(vars(self), type(self).__name__))
