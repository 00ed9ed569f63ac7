"""Method-of-moments estimators: SpectralGMM, SpectralLDA, SpectralHMM.

Each one estimates M2 and M3 (:mod:`._moments`), whitens M2 (:func:`~._whitening.whiten`),
decomposes the whitened third moment with the robust tensor power method
(:func:`~._power.robust_tensor_power`) and maps the eigenpairs back to the model's parameters
in their usual form (SPECTRAL_NOTES.md sections 1.1-1.5). No iterative likelihood fitting:
these are consistent estimators and good starting points (``init='spectral'``).
"""

import numbers

import numpy as np

from .._utils.deprecation import renamed_attribute, renamed_kwargs
from .._utils.validation import check_array, check_n_features, check_random_state, check_scalar
from ..base import NotFittedError, ParamsMixin
from .._utils.words import TopWordsMixin
from ._gmm_core import _decompose as _decompose_tensor
from ._gmm_core import check_gmm_options, spectral_gmm
from ._gmm_start import params_from_labels, spectral_labels, start_log_likelihood
from ._moments import HMMMoments, LDAMoments, check_moment_scale
from ._power import HistoryStateMixin
from .._utils.threads import blas_scoped
from ._whitening import Whitening, whiten
from ._sparse import sparse_spectral_gmm
from ._hmm_bootstrap import hmm_standard_errors
from ._hmm_transitions import check_hmm_options, hmm_params
from ._state_checks import FittedState, check_spectral_gmm, check_spectral_hmm, check_spectral_lda
from ..exceptions import InputError

__all__ = ["SpectralGMM", "SpectralLDA", "SpectralHMM"]


def _check_common(est):
    check_scalar(est.n_components, "n_components", numbers.Integral, low=1)
    check_scalar(est.n_init, "n_init", numbers.Integral, low=1)
    check_scalar(est.max_iter, "max_iter", numbers.Integral, low=1)
    check_scalar(est.tol, "tol", numbers.Real, low=0.0)


def _decompose(T, k, est, rng, dense):
    return _decompose_tensor(T, k, rng, dense, est.n_init, est.max_iter, est.tol)


class _SpectralBase(HistoryStateMixin, ParamsMixin):
    # the names before the names table (docs/design.md); removed in 0.3
    n_restarts = renamed_attribute("n_restarts", "n_init")
    n_iter = renamed_attribute("n_iter", "max_iter")

    def _check_fitted(self):
        if not hasattr(self, "eigenvalues_"):
            raise NotFittedError(f"This {type(self).__name__} instance is not fitted yet; "
                                 "call fit first.")

    def _check_is_fitted(self):  # the name latentkit.io.save calls
        self._check_fitted()

    def _reset_fitted(self):
        """Forget every fitted attribute of a previous fit (public ``name_`` and the private
        arrays saved with them), so a refit never carries stale state into ``latentkit.save``."""
        params = set(self._get_param_names())
        for name in list(vars(self)):
            if name not in params and not name.startswith("__"):
                delattr(self, name)

    def _store_decomposition(self, result, whitening):
        """Set ``eigenvalues_``, ``history_`` and ``whitening_``."""
        self.eigenvalues_ = result.eigenvalues
        self.history_ = result.history
        self.whitening_ = whitening

    def _get_state(self):
        """Public fitted attributes, ``history_`` as arrays and ``whitening_`` as its
        eigenpairs and method (``W`` and ``B`` are recomputed from them bit for bit)."""
        state = super()._get_state()
        whitening = state.pop("whitening_", None)
        if whitening is not None:
            state["whitening"] = {"eigenvalues": whitening.eigenvalues,
                                  "eigenvectors": whitening.eigenvectors,
                                  "method": whitening.method}
        return state

    def _set_state(self, state):
        state = dict(state)
        whitening = state.pop("whitening", None)
        super()._set_state(state)
        # a fit without whitening (the sparse path) has whitening_ = None: restored as None
        self.whitening_ = None if whitening is None else Whitening.from_eigenpairs(
            whitening["eigenvalues"], whitening["eigenvectors"], whitening["method"])


class SpectralGMM(_SpectralBase):
    """Spherical Gaussian mixture by the method of moments (common or per-component variance).

    Parameters
    ----------
    n_components : int
        k, at most n_features (>= 2 when ``sparsity`` is set).
    variance : {'bottom_mean', 'min'}, default 'bottom_mean'
        Estimate of sigma^2 (see :class:`~latentkit.spectral.GMMMoments`); unused when
        ``sparsity`` is set.
    covariance_type : {'tied', 'spherical'}, default 'tied'
        'tied': one variance sigma^2 shared by the components (Anandkumar et al. 2014,
        Theorem 3.2); 'spherical': a variance sigma_i^2 per component (Hsu & Kakade 2013,
        Theorem 1), recovered as ``sigma_i^2 = lambda_i v_i.(W^T M1)`` and floored at
        ``1e-3 sigma2_`` (a non-positive estimate means that component is not spherical).
        Only the dense method (no ``sparsity``) supports 'spherical'.
    center : bool, default True
        Take the moments about ``E x`` shifted along the smallest-variance direction (see
        :class:`~latentkit.spectral.GMMMoments`), which the method needs on centred or
        standardised data (means only affinely independent) and which makes the estimate
        independent of the origin of X; False: the raw moments, as in the papers.
    robust : bool, default False
        For real data: the start of ``init='spectral'``
        (:func:`~latentkit.spectral.spectral_labels`: standardised features, per-component
        moments, Lloyd refinement of the spectral means, a second pass in within-class
        whitened coordinates); of the partitions found, the one whose spherical-Gaussian
        parameters (of ``covariance_type``) have the highest likelihood gives ``weights_``,
        ``means_`` and ``covariances_`` (the clusters' proportions, means and variances
        ``||x - mu||^2 / n_features`` averaged in the cluster) and ``labels_``. No
        ``whitening_``, ``history_`` or ``raw_weight_sum_`` (None); ``eigenvalues_`` is
        ``weights_ ** -0.5`` (the tensor eigenvalues of that mixture). The moments use the
        default ``variance``, ``center`` and power-method settings. Not with ``sparsity``.
    tensor : {'auto', 'dense', 'implicit'}, default 'auto'
        Decompose the materialised k x k x k whitened tensor ('dense', cost O(n k^3) once) or
        contract the data implicitly at every power iteration ('implicit', O(n k L) per call);
        'auto' is 'dense' when k <= 100.
    n_init : int, default 20
        Restarts of the power method (``n_restarts`` before 0.2: deprecated alias).
    max_iter : int, default 100
        Power iterations per restart (``n_iter`` before 0.2: deprecated alias).
    tol : float, default 1e-8
        Robust tensor power method settings (with ``sparsity``: the truncated tensor power
        method's ``n_init``, ``n_iter`` and ``tol``).
    random_state : None, int or numpy.random.Generator
    sparsity : int, optional
        For high-dimensional mixtures whose means differ in few features: the number of
        features kept per sparse component. When set, ``fit`` runs
        :func:`~latentkit.spectral.sparse_spectral_gmm` (truncated tensor power method on the
        implicit third cumulant, Sun, Lu, Liu & Cheng 2017, then k-means on the projections)
        instead of the whitened moments; ``1 <= sparsity <= n_features``. Default None: the
        dense method of moments.

    Attributes
    ----------
    weights_ : ndarray of shape (n_components,)
    means_ : ndarray of shape (n_components, n_features)
    covariances_ : ndarray of shape (n_components,)
        The variance of each component ('spherical' form; all equal to ``sigma2_`` for
        'tied').
    sigma2_ : float
        The common variance (for 'spherical': the mean variance ``sum_i w_i sigma_i^2``, the
        smallest covariance eigenvalue): from the moments (dense method), or, with
        ``sparsity``, the pooled within-cluster variance
        ``sum_t ||x_t - mu_{z_t}||^2 / ((n - k) d)`` over all features.
    eigenvalues_ : ndarray of shape (n_components,) or (tensor_rank,)
        Tensor eigenvalues; with ``sparsity``, the weights of the sparse cumulant components.
    raw_weight_sum_ : float or None
        ``sum_i lambda_i^{-2}`` before renormalisation (1 for a perfect fit); None with
        ``sparsity``.
    whitening_ : Whitening or None
        None with ``sparsity``.
    history_ : list of dict or None
        Power-method history (see :class:`~latentkit.spectral.TensorPowerResult`); None with
        ``sparsity``.
    labels_ : ndarray of int of shape (n_samples,)
        Only with ``sparsity`` or ``robust``: the cluster of each training sample.
    selected_features_ : ndarray of int
        Only with ``sparsity``: the features in the support of the sparse components (sorted;
        at most ``sparsity`` per component).
    components_ : ndarray of shape (n_features, tensor_rank)
        Only with ``sparsity``: the sparse unit directions of the third cumulant.
    n_features_in_ : int

    :func:`latentkit.save` stores ``history_`` and ``whitening_`` as arrays and
    :func:`latentkit.load` turns them back into the same objects (the same holds for
    SpectralLDA and SpectralHMM).

    Notes
    -----
    Source: Hsu & Kakade (2013), "Learning mixtures of spherical Gaussians: moment methods and
    spectral decompositions", Theorem 1; Anandkumar et al. (2014), Theorem 3.2 and section 4.3.
    With ``sparsity``: Sun, Lu, Liu & Cheng (2017), "Provable sparse tensor decomposition",
    JRSS-B, Algorithm 1 and section 3.3 (see :func:`~latentkit.spectral.sparse_spectral_gmm`).

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit import SpectralGMM
    >>> rng = np.random.default_rng(0)
    >>> centers = np.array([[0.0, 0.0, 6.0], [6.0, 0.0, 0.0]])
    >>> X = centers[rng.integers(0, 2, 2000)] + rng.normal(size=(2000, 3))
    >>> sg = SpectralGMM(2, random_state=0).fit(X)
    >>> sg.means_.shape
    (2, 3)
    """

    @renamed_kwargs(n_restarts="n_init", n_iter="max_iter")
    def __init__(self, n_components, variance="bottom_mean", tensor="auto", n_init=20,
                 max_iter=100, tol=1e-8, random_state=None, sparsity=None, covariance_type="tied",
                 center=True, robust=False):
        self.n_components = n_components
        self.variance = variance
        self.covariance_type = covariance_type
        self.center = center
        self.robust = robust
        self.tensor = tensor
        self.n_init = n_init
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        self.sparsity = sparsity

    @blas_scoped
    def fit(self, X, y=None):
        """Estimate the mixture from X of shape (n_samples, n_features); returns self.

        Raises
        ------
        ValueError
            ``n_components > n_features`` or > rank of M2, NaN, bad hyper-parameters; with
            ``sparsity``: ``sparsity`` outside ``[1, n_features]``, ``n_components < 2``,
            fewer than 3 samples.
        TypeError
            Non-integer ``sparsity``.
        """
        _check_common(self)
        check_gmm_options(self.tensor, self.covariance_type)
        self._reset_fitted()
        rng = check_random_state(self.random_state)
        if self.sparsity is not None:
            if self.covariance_type != "tied":
                raise InputError("sparsity needs covariance_type='tied' (the sparse method "
                                 "estimates one pooled variance), got 'spherical'.")
            if self.robust:
                raise InputError("robust=True and sparsity are exclusive: the robust start "
                                 "uses the dense moments; set one of them.")
            return self._fit_sparse(X, rng)
        if self.robust:
            return self._fit_robust(X, rng)
        res = spectral_gmm(X, self.n_components, self.covariance_type, rng,
                           variance=self.variance, center=self.center, tensor=self.tensor,
                           n_init=self.n_init, max_iter=self.max_iter, tol=self.tol)
        self.weights_, self.means_, self.raw_weight_sum_ = res.weights, res.means, \
            res.raw_weight_sum
        self.sigma2_ = res.sigma2
        self.covariances_ = res.covariances
        self._store_decomposition(res.decomposition, res.whitening)
        self.n_features_in_ = res.means.shape[1]
        return self

    def _fit_robust(self, X, rng):
        """``fit`` with ``robust``: the best partition of :func:`spectral_labels`."""
        X = check_array(X, "X", ensure_min_samples=2)
        k = int(self.n_components)
        w = np.ones(X.shape[0])
        ct = "tied" if self.covariance_type == "tied" else "spherical"
        best = None
        for lab in spectral_labels(X, k, random_state=rng):
            if ct == "tied":  # one variance: the mixtures' 'spherical' with pooled variances
                p = params_from_labels(X, lab, k, "spherical", 0.0, w)
                p["covariances"] = np.full(k, p["weights"] @ p["covariances"])
            else:
                p = params_from_labels(X, lab, k, "spherical", 0.0, w)
            p["covariances"] = np.maximum(p["covariances"], 1e-12 * max(
                float(p["covariances"].max()), 1e-300))
            ll = start_log_likelihood(X, p, "spherical", 0.0, w)
            if best is None or ll > best[0]:
                best = (ll, lab, p)
        _, lab, p = best
        self.weights_, self.means_, self.covariances_ = p["weights"], p["means"], p["covariances"]
        self.sigma2_ = float(self.weights_ @ self.covariances_)
        self.labels_ = lab
        self.eigenvalues_ = self.weights_ ** -0.5
        self.raw_weight_sum_ = self.whitening_ = self.history_ = None
        self.n_features_in_ = X.shape[1]
        return self

    def _fit_sparse(self, X, rng):
        """``fit`` with ``sparsity``: :func:`sparse_spectral_gmm` with ``n_init=n_restarts``,
        ``n_iter``, ``tol`` and the generator forwarded."""
        X = check_array(X, "X", ensure_min_samples=3)
        check_moment_scale(X, order=3)
        res = sparse_spectral_gmm(X, self.n_components, self.sparsity, n_init=self.n_init,
                                  n_iter=self.max_iter, tol=self.tol, random_state=rng)
        n, d = X.shape
        k = int(self.n_components)
        resid = X - res.means[res.labels]
        self.weights_, self.means_, self.labels_ = res.weights, res.means, res.labels
        self.selected_features_, self.components_ = res.selected_features, res.components
        self.sigma2_ = float(np.einsum("ij,ij->", resid, resid) / (max(n - k, 1) * d))
        self.covariances_ = np.full(k, self.sigma2_)
        self.eigenvalues_ = res.component_weights
        self.raw_weight_sum_ = self.whitening_ = self.history_ = None
        self.n_features_in_ = d
        return self

    def predict(self, X):
        """Index of the most probable component for each row of X.

        Parameters
        ----------
        X : array-like of shape (n_samples, ``n_features_in_``)

        Returns
        -------
        labels : ndarray of int of shape (n_samples,)
            ``argmax_i log w_i - d/2 log sigma_i^2 - ||x - mu_i||^2 / (2 sigma_i^2)`` (the
            spherical-Gaussian posterior mode; ``sigma_i^2 = covariances_[i]``); with
            ``sparsity``, the norm runs over ``selected_features_`` only (the means are equal
            elsewhere in the model).

        Raises
        ------
        NotFittedError
            Before ``fit``.
        ValueError
            X with another number of features than in ``fit``, NaN or infinity.
        """
        self._check_fitted()
        X = check_array(X, "X")
        check_n_features(X.shape[1], self.n_features_in_, "X", type(self).__name__)
        means = self.means_
        if getattr(self, "selected_features_", None) is not None:
            # sparse model: the means differ only on the selected features, the others cancel
            X, means = X[:, self.selected_features_], means[:, self.selected_features_]
        # ||x - mu_i||^2 up to the row constant ||x||^2 (O(n k) memory, not O(n k d))
        d2 = (means ** 2).sum(1)[None, :] - 2.0 * (X @ means.T)
        var = np.maximum(np.asarray(self.covariances_, dtype=np.float64), 1e-300)
        if getattr(self, "covariance_type", "tied") == "spherical" or np.ptp(var) > 0:
            # the row constant ||x||^2 no longer cancels between components
            d2 = d2 + np.einsum("ij,ij->i", X, X)[:, None]
            logdet = 0.5 * X.shape[1] * np.log(var)
        else:
            logdet = 0.0
        return np.argmax(np.log(self.weights_ + 1e-300) - logdet - d2 / (2 * var), axis=1)

    def _check_state(self):
        """Validate a restored state (:mod:`latentkit.spectral._state_checks`)."""
        check_spectral_gmm(FittedState(vars(self), type(self).__name__))


class SpectralLDA(TopWordsMixin, _SpectralBase):
    """Latent Dirichlet allocation by the method of moments (excess-correlation tensor).

    Parameters
    ----------
    n_components : int
        Number of topics k.
    doc_topic_prior : float, optional
        Symmetric Dirichlet parameter per topic; ``alpha_0 = n_components * doc_topic_prior``.
        Default ``1 / n_components`` (alpha_0 = 1), as :class:`~latentkit.topic.LatentDirichletAllocation`.
    tensor : {'auto', 'dense', 'implicit'}, default 'auto'
        'dense' forms the whitened k x k x k tensor once (O(nnz k^2 + D k^3 + V k^3));
        'implicit' runs the CSR-document kernel at every power iteration (O(nnz k L) per
        call, no k^3 memory); 'auto' is 'dense' when ``V k^2 <= 5e7``.
    whitening : {'auto', 'exact', 'randomized'}, default 'auto'
        'exact': dense V x V M2 (from the sparse product ``X^T diag(s) X``, cost
        ``sum_d nnz_d^2``) and its eigendecomposition; 'randomized': range finder touching the
        counts only through products (cost ``O(nnz (k + oversampling) n_power_iter)``);
        'auto': 'exact' when V <= 1000 and ``sum_d nnz_d^2 <= 2e7``, else 'randomized'.
    oversampling, n_power_iter : int, default 10 and 3
        Randomized range finder settings.
    n_init : int, default 20
        Restarts of the power method (``n_restarts`` before 0.2: deprecated alias).
    max_iter : int, default 100
        Power iterations per restart (``n_iter`` before 0.2: deprecated alias).
    tol : float, default 1e-8
    random_state : None, int or numpy.random.Generator

    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_features)
        Topic-word distributions (rows on the simplex).
    doc_topic_prior_ : ndarray of shape (n_components,)
        Estimated ``alpha_i``.
    alpha0_ : float
    raw_topic_sums_ : ndarray of shape (n_components,)
        ``sum_w mu_iw`` before the simplex projection (diagnostic; ~1 when the model fits).
    eigenvalues_, history_, whitening_, n_features_in_, n_docs_used_

    Notes
    -----
    Source: Anandkumar, Foster, Hsu, Kakade & Liu (2012), "A spectral algorithm for latent
    Dirichlet allocation"; Anandkumar et al. (2014), Theorem 3.5; unbiased per-document
    estimators and recovery formulas as in SPECTRAL_NOTES.md section 1.3. Documents with fewer
    than 3 tokens are skipped.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit import SpectralLDA
    >>> X = np.random.default_rng(0).poisson(2.0, size=(200, 10))
    >>> sl = SpectralLDA(2, random_state=0).fit(X)
    >>> sl.components_.shape
    (2, 10)
    """

    @renamed_kwargs(n_restarts="n_init", n_iter="max_iter")
    def __init__(self, n_components, doc_topic_prior=None, tensor="auto", whitening="auto",
                 oversampling=10, n_power_iter=3, n_init=20, max_iter=100, tol=1e-8,
                 random_state=None):
        self.n_components = n_components
        self.doc_topic_prior = doc_topic_prior
        self.tensor = tensor
        self.whitening = whitening
        self.oversampling = oversampling
        self.n_power_iter = n_power_iter
        self.n_init = n_init
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state

    @blas_scoped
    def fit(self, X, y=None):
        """Estimate topics from word counts X of shape (n_documents, n_features); returns self.

        Raises
        ------
        ValueError
            No document with 3 or more tokens, ``n_components`` above the vocabulary size or the
            rank of M2, negative counts, NaN, bad hyper-parameters.
        """
        _check_common(self)
        self._reset_fitted()
        k = self.n_components
        prior = 1.0 / k if self.doc_topic_prior is None else check_scalar(
            self.doc_topic_prior, "doc_topic_prior", numbers.Real, low=0.0, low_inclusive=False)
        if self.tensor not in ("auto", "dense", "implicit"):
            raise InputError(f"tensor must be 'auto', 'dense' or 'implicit', got {self.tensor!r}.")
        if self.whitening not in ("auto", "exact", "randomized"):
            raise InputError(f"whitening must be 'auto', 'exact' or 'randomized', got "
                             f"{self.whitening!r}.")
        rng = check_random_state(self.random_state)
        mom = LDAMoments(X, k * prior)
        V = mom.n_features
        if k > V:
            raise InputError(f"n_components={k} exceeds the vocabulary size {V}.")
        nnz_d = np.diff(mom.X.indptr).astype(np.float64)
        exact = self.whitening == "exact" or (
            self.whitening == "auto" and V <= 1000 and float(nnz_d @ nnz_d) <= 2e7)
        if exact:
            M2 = mom.m2_dense()
        else:
            M2 = mom.m2_operator()
        wh = whiten(M2, k, oversampling=self.oversampling, n_power_iter=self.n_power_iter,
                    random_state=rng)
        T = mom.tensor(wh)
        dense = self.tensor == "dense" or (self.tensor == "auto" and V * k * k <= 5e7)
        res = _decompose(T, k, self, rng, dense)
        alpha, topics, sums = mom.to_params(wh, res.eigenvalues, res.eigenvectors)
        self.components_, self.doc_topic_prior_, self.raw_topic_sums_ = topics, alpha, sums
        self.alpha0_ = mom.alpha0
        self._store_decomposition(res, wh)
        self.n_features_in_ = V
        self.n_docs_used_ = mom.n_docs_used
        self.n_tokens_ = mom.n_tokens
        return self

    def _check_state(self):
        """Validate a restored state (:mod:`latentkit.spectral._state_checks`)."""
        check_spectral_lda(FittedState(vars(self), type(self).__name__))


class SpectralHMM(_SpectralBase):
    """Discrete (categorical) hidden Markov model by the method of moments.

    The three views ``(x_t, x_{t+1}, x_{t+2})`` are independent given the middle state; the
    moments are symmetrised towards one view, which inverts the pair moment of the two others
    (SPECTRAL_NOTES.md section 1.5). Towards the middle view that is ``P_13 = E[x_1 x_3^T]``,
    which links states two steps apart: its k-th singular value scales with the square of the
    chain's second eigenvalue, so for a chain that mixes fast it is nearly singular and
    amplifies the sampling noise. Towards the first (last) view only the adjacent pair
    ``P_23`` (``P_12``) is inverted. ``target_view='auto'`` uses the adjacent-pair variants
    unless ``P_13`` is the best-conditioned pair moment, and reports the conditioning.

    Parameters
    ----------
    n_components : int
        Number of hidden states k (at most the number of symbols).
    n_features : int, optional
        Number of symbols (default ``max(X) + 1``).
    n_init : int, default 20
        Restarts of the power method (``n_restarts`` before 0.2: deprecated alias).
    max_iter : int, default 100
        Power iterations per restart (``n_iter`` before 0.2: deprecated alias).
    tol : float, default 1e-10
    random_state : None, int or numpy.random.Generator
    target_view : {'auto', 'adjacent', 'all', 1, 2, 3}, default 'auto'
        View the moments are symmetrised towards (1: ``x_t``, 2: ``x_{t+1}``, 3: ``x_{t+2}``);
        it inverts ``P_23``, ``P_13`` or ``P_12`` respectively. 'adjacent': both variants that
        invert only an adjacent pair (views 1 and 3), their emission matrices and middle-state
        laws averaged after matching the states (l1), then the transition matrix from the
        average. 'all': the three variants averaged so (measured on
        ``benchmarks/bench_spectral_hmm.py``'s chains, 1e4-1e6 triples: 3-10 % smaller errors
        than 'adjacent' on the sticky and periodic chains, up to 20 % larger transition errors
        on the fast-mixing one; but its bootstrap intervals cover the transitions less often,
        0.79-0.84 at nominal 0.90 on a long sticky sequence, so 'auto' does not take it).
        'auto', by the conditioning of the pair moments (``sigma_k / sigma_1``): 2 when
        ``P_13`` is better conditioned than both adjacent pairs (rarely, for a Markov chain: the
        two-step moment carries the square of the chain's second eigenvalue, each adjacent
        pair the eigenvalue itself), else 'adjacent'. 2 is the estimator of Anandkumar et al.
        (2014), section 3.3.
    transitions : {'triple_fit', 'simplex_ls', 'pinv'}, default 'triple_fit'
        From the decomposition's emissions O: 'pinv', ``O^+ (P_12 + P_23) O^+T`` clipped, rows
        normalised (the previous default); 'simplex_ls', the joint state laws by least squares
        on the simplex (Kontorovich et al. 2013; Mattila et al. 2017); 'triple_fit', that
        estimate and O refined together by the minimum-KL fit of the window law ``P_123``
        (EM over the m^3 cells; not above m^3 k = 2^24): the others inherit O's error
        through ``O^+`` (comparison: docs/guide/spectral.md).

    Attributes
    ----------
    startprob_ : ndarray of shape (n_components,)
        Law of the first state of a window (the stationary law for a long stationary chain).
    transmat_ : ndarray of shape (n_components, n_components)
        ``transmat_[i, j] = P(h_{t+1} = j | h_t = i)`` (rows sum to 1, hmmlearn's convention).
    emissionprob_ : ndarray of shape (n_components, n_features)
        ``P(x = s | h = i)`` (rows sum to 1).
    state_weights_ : ndarray of shape (n_components,)
        Law of the middle state of a window.
    target_view_ : int, 'adjacent' or 'all'
        The variant used.
    n_refine_iter_ : int
        SQUAREM cycles of ``transitions='triple_fit'`` (0 for the others).
    pair_conditioning_ : ndarray of shape (3,)
        ``sigma_k / sigma_1`` of the empirical ``P_12``, ``P_23`` and ``P_13`` (dimensionless).
    conditioning_ : float
        ``sigma_k / sigma_1`` of the worst-conditioned pair moment the variant inverted.
    eigenvalues_, history_, whitening_, n_features_in_
        Of the (first, with 'adjacent': towards view 1) tensor decomposition.

    Raises
    ------
    ValueError
        Unknown ``target_view`` or ``transitions`` (at fit).

    Notes
    -----
    Source: Anandkumar, Hsu & Kakade (2012), "A method of moments for mixture models and hidden
    Markov models", COLT (the conditional means of one view recovered through the pair moment
    of the two others only, and its use for HMMs); Anandkumar et al. (2014), section 3.3 and
    Theorem 3.6 (symmetrisation towards a view); the emission matrix from ``E[x_2 x_c^T]``
    as in SPECTRAL_NOTES.md section 1.5, the transition matrix from the joint laws of
    consecutive states of *both* adjacent pairs (issue 32), then refined with the emissions
    (``transitions``, :mod:`latentkit.spectral._hmm_transitions`, issue 42).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> from latentkit import SpectralHMM
    >>> states = np.repeat(np.tile([0, 1], 50), 10)
    >>> X = np.where(states == 0, rng.choice(3, states.size, p=[.8, .1, .1]),
    ...              rng.choice(3, states.size, p=[.1, .1, .8]))
    >>> sh = SpectralHMM(2, random_state=0).fit(X)
    >>> sh.transmat_.shape
    (2, 2)
    """

    @renamed_kwargs(n_restarts="n_init", n_iter="max_iter")
    def __init__(self, n_components, n_features=None, n_init=20, max_iter=100, tol=1e-10,
                 random_state=None, target_view="auto", transitions="triple_fit"):
        self.n_components = n_components
        self.n_features = n_features
        self.n_init = n_init
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        self.target_view = target_view
        self.transitions = transitions

    @blas_scoped
    def fit(self, X, lengths=None):
        """Estimate the HMM from symbol sequences; returns self.

        Parameters
        ----------
        X : array-like of int of shape (n_samples,) or (n_samples, 1)
        lengths : array-like of int, optional
            Lengths of the concatenated sequences.

        Raises
        ------
        ValueError
            ``n_components`` above the number of symbols or the rank of the pair moments, no
            window of 3 observations, bad symbols, unknown ``target_view`` or ``transitions``.
        """
        _check_common(self)
        check_hmm_options(self.target_view, self.transitions)
        self._reset_fitted()
        mom = HMMMoments(X, lengths, self.n_components, self.n_features)
        return self._fit_moments(mom)

    def standard_errors(self, X, lengths=None, n_resamples=50, block_length=None,
                        random_state=None):
        """Bootstrap standard errors of the fitted parameters, from the data of ``fit``.

        One long sequence gives sliding, dependent windows; a moving-block bootstrap of the
        windows (blocks of ``block_length`` consecutive windows of one sequence, Kuensch 1989)
        accounts for that dependence, where resampling single windows would understate the
        error. Independent triples (sequences of length 3) are resampled one by one.

        Parameters
        ----------
        X : array-like of int of shape (n_samples,) or (n_samples, 1)
            The symbols ``fit`` was given.
        lengths : array-like of int, optional
            Their sequence lengths (default one sequence).
        n_resamples : int, default 50
            Bootstrap resamples (>= 2); each refits the estimator on resampled moments.
        block_length : int, optional
            Windows per block (>= 1). Default 1 when every sequence has length 3, else
            ``ceil(n_windows^(1/3))`` (Hall, Horowitz & Jing 1995).
        random_state : None, int or numpy.random.Generator
            The resampling and the refits' restarts.

        Returns
        -------
        dict
            ``'startprob'`` (n_components,), ``'transmat'`` (n_components, n_components),
            ``'emissionprob'`` (n_components, n_features): standard deviations over the
            resamples, states as in the fitted attributes; ``'block_length'`` (int). For an
            interval use ``est +- t * se`` with ``t`` the Student-t quantile of
            ``n_resamples - 1`` degrees of freedom (the standard errors of few resamples are
            themselves noisy); so used they cover transitions and emissions at the nominal
            rate (docs/guide/spectral.md).

        Raises
        ------
        NotFittedError
            Before ``fit``.
        ValueError
            Bad symbols or lengths (as ``fit``), ``n_resamples`` < 2, ``block_length`` < 1.

        Notes
        -----
        Source: Kuensch (1989), "The jackknife and the bootstrap for general stationary
        observations", Ann. Statist. 17(3); Hall, Horowitz & Jing (1995), Biometrika 82(3).
        """
        if not hasattr(self, "transmat_"):
            raise NotFittedError("This SpectralHMM instance is not fitted yet; call fit first.")
        B = check_scalar(n_resamples, "n_resamples", numbers.Integral, low=2)
        if block_length is not None:
            block_length = check_scalar(block_length, "block_length", numbers.Integral, low=1)
        mom = HMMMoments(X, lengths, self.n_components, self.n_features_in_)  # validates
        sym = np.asarray(X).reshape(-1).astype(np.int64)
        lengths = np.array([sym.size]) if lengths is None else np.asarray(lengths)
        del mom
        return hmm_standard_errors(self._refit, self.emissionprob_, sym, lengths, int(B),
                                   block_length, check_random_state(random_state))

    def _refit(self, mom, rng):
        """``(startprob, transmat, emissionprob)`` of a copy fitted on the moments ``mom`` with
        restarts from ``rng`` (one bootstrap resample)."""
        b = type(self)(**{**self.get_params(), "random_state": rng})._fit_moments(mom)
        return b.startprob_, b.transmat_, b.emissionprob_

    def _fit_moments(self, mom):
        """Fit from an :class:`HMMMoments` (empirical or ``HMMMoments.population``)."""
        rng = check_random_state(self.random_state)
        k = self.n_components
        cond = mom.pair_conditioning()  # P12 (inverted for view 3), P23 (view 1), P13 (view 2)
        inverted = {3: 0, 1: 1, 2: 2}
        target = self.target_view
        if target == "auto":
            target = 2 if cond[2] > max(cond[0], cond[1]) else "adjacent"
        views = {"adjacent": (1, 3), "all": (1, 3, 2)}.get(target, (target,))
        fits = []
        for view in views:
            M2, M3 = mom.symmetric_moments(view)
            wh = whiten(M2, k, method="eigh")
            Tw = np.einsum("abc,ai,bj,ck->ijk", M3, wh.W, wh.W, wh.W, optimize=True)
            Tw = sum(Tw.transpose(p) for p in [(0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0),
                                                (2, 0, 1), (2, 1, 0)]) / 6.0
            res = _decompose(Tw, k, self, rng, dense=True)
            fits.append((res, wh) + mom.emission(wh, res.eigenvalues, res.eigenvectors, view))
        O, w = fits[0][2], fits[0][3]
        if len(fits) > 1:  # average the variants' estimates, states matched to the first (l1)
            # lazy: scipy.optimize costs ~0.2 s to import and only this branch needs it
            from scipy.optimize import linear_sum_assignment

            O_sum, w_sum = O, w
            for fit in fits[1:]:
                cost = np.abs(O[:, :, None] - fit[2][:, None, :]).sum(axis=0)
                _, perm = linear_sum_assignment(cost)
                O_sum, w_sum = O_sum + fit[2][:, perm], w_sum + fit[3][perm]
            O, w = O_sum / len(fits), w_sum / len(fits)
        (self.startprob_, self.transmat_, self.emissionprob_, self.state_weights_,
         self.n_refine_iter_) = hmm_params(self.transitions, O, w, mom.P12, mom.P23, mom.P123)
        self._store_decomposition(fits[0][0], fits[0][1])
        self.target_view_ = target
        self.pair_conditioning_ = cond
        self.conditioning_ = float(min(cond[inverted[v]] for v in views))
        self.n_features_in_ = mom.n_features
        return self

    def _check_state(self):
        """Validate a restored state (:mod:`latentkit.spectral._state_checks`)."""
        check_spectral_hmm(FittedState(vars(self), type(self).__name__))
