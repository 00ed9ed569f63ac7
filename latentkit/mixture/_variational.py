"""Variational Bayesian Gaussian mixture (Attias 2000; Bishop 2006, section 10.2).

Mean-field q(Z) q(pi) q(mu, Lambda) with a Dirichlet prior on the weights and a Normal-Wishart
prior on the means and precisions; coordinate ascent on the closed-form ELBO, every term kept
(Bishop eqs. 10.70-10.77), in nats per sample. The model is the mixture template of
:mod:`latentkit.mixture._conjugate` with a Dirichlet weight factor and the Gaussian component
of :mod:`latentkit.mixture._gaussian_component` (Normal-Wishart block:
:mod:`latentkit.distributions._normal_wishart`).
"""

import numbers

from scipy.special import psi

from .._utils.validation import check_scalar
from ..distributions._dirichlet import dirichlet_kl
from ._conjugate import _ConjugateMixture
from ._gaussian_component import GaussianComponent
from ._private_svi import VGMMPrivatePieces
from ._state_checks import FittedState, check_conjugate_components, check_dirichlet_weights

__all__ = ["VariationalGaussianMixture"]


class VariationalGaussianMixture(_ConjugateMixture):
    """Variational Bayesian Gaussian mixture with a Dirichlet prior on the weights.

    The model: pi ~ Dir(alpha_0), (mu_k, Lambda_k) ~ Normal-Wishart(m_0, beta_0, W_0, nu_0),
    z_i ~ Cat(pi), x_i ~ N(mu_{z_i}, Lambda_{z_i}^-1). The mean-field posterior
    q(Z) q(pi) prod_k q(mu_k, Lambda_k) is found by coordinate ascent (Bishop 2006, section 10.2);
    the bound is the complete ELBO, every constant included (Bishop eqs. 10.70-10.77), in nats
    per sample; ``lower_bounds_`` never decreases.

    Parameters
    ----------
    n_components : int, default 1
        K, the number of components (unused ones are emptied by the Dirichlet prior when
        ``weight_concentration_prior`` is small).
    covariance_type : {'full', 'tied', 'diag', 'spherical'}, default 'full'
        'full' and 'tied' use Wishart factors; 'diag' and 'spherical' independent Gamma factors
        of the precisions (see :mod:`latentkit.distributions._normal_wishart`).
    tol : float or None, default None
        Stop when the ELBO changes by less than ``tol`` nats per sample. The default None
        resolves to ``tol_ = 1e-3 / n_samples`` (the total sample weight): scikit-learn's
        BayesianGaussianMixture applies its ``tol=1e-3`` to the *total* bound, so this is the
        same stopping rule. A per-sample 1e-3 stops hundreds of times earlier, while dying
        components still carry weight (standardised Old Faithful, DirichletProcessMixture
        with truncation 30: 3 effective components for 4 of 5 seeds instead of 2).
    reg_covar : float, default 1e-6
        Added as N_k reg_covar to the diagonal of each posterior scatter (scikit-learn's
        convention: reg_covar on the diagonal of the empirical covariances). The E-step and
        the bound count it consistently, as isotropic N(0, reg_covar I) jitter of every sample
        (a per-component offset -reg_covar / 2 E[tr Lambda_k] in log rho_ik), so that both
        steps are exact coordinate ascent and the ELBO never decreases, even on
        rank-deficient data where reg_covar dominates a direction of a scatter. Absolute, in
        the units of X squared (standardise X when its variances are far from 1).
    max_iter : int, default 1000
        Coordinate-ascent iterations per initialisation (components die slowly: 100, as in
        scikit-learn, stops some bundled-data fits before they converge).
    n_init : int, default 1
    init : {'kmeans++', 'random', 'spectral'} or dict, default 'kmeans++'
        Starting responsibilities: hard labels of k-means++ seeding followed by Lloyd
        iterations to convergence (at most 300), uniform random rows
        (scikit-learn's 'random'), the labels of the method-of-moments start
        (:func:`latentkit.mixture.spectral_responsibilities`: standardised features,
        per-component spherical moments, Lloyd refinement, a within-class whitened second
        pass; replaced by the k-means++ labels, with a ``SpectralInitWarning``, when those
        give a more likely start; otherwise the model is fitted from it and a split-and-merge
        search runs, see ``spectral_report_``), or ``{'responsibilities': R}`` with R of shape
        (n_samples, n_components). The first M-step is done from them (as scikit-learn).
    weight_concentration_prior : float, optional
        alpha_0 > 0 of the symmetric Dirichlet; default 1 / n_components.
    mean_precision_prior : float, optional
        beta_0 > 0; default 1.
    mean_prior : array-like of shape (n_features,), optional
        m_0; default the mean of X.
    degrees_of_freedom_prior : float, optional
        nu_0; default n_features; must exceed n_features - 1 ('full', 'tied') or 0.
    covariance_prior : array-like or float, optional
        W_0^-1: (D, D) for 'full'/'tied' (symmetric positive definite), (D,) for 'diag',
        float for 'spherical'; default the covariance of X (ddof 1; frequency-weighted with
        sample_weight), its diagonal, or the mean of its diagonal, plus reg_covar on the
        diagonal only when that is singular in float64 (constant or collinear features: a
        variance at the rounding level of its feature, or an eigenvalue of the correlation
        matrix below n_features x 2.2e-16 x the largest), where the Wishart/Gamma prior would
        be improper and the ELBO -inf. A given matrix that is singular in this sense is
        refused.
    random_state : int, Generator or None
    callback : callable, optional
        ``callback(model, n_iter, elbo)``; returning True stops.
    verbose : bool, default False
    learning_offset, learning_decay : float
        tau, kappa of the default SVI step size (t + tau)^-kappa of ``partial_fit``.
    missing : {'error', 'marginalize'}, default 'error'
        ``'marginalize'``: NaN entries are unobserved; they become latent variables with the
        optimal factor q(x_m | z) (a Gaussian: conditional mean and covariance under m_k and
        E[Lambda_k]), so the ELBO stays exact and never decreases. The data-derived priors and
        the start see NaN filled with column means. ``'error'`` refuses NaN.

    Attributes
    ----------
    weights_ : ndarray of shape (n_components,)
        E_q[pi_k] = alpha_k / sum_j alpha_j.
    weight_concentration_ : ndarray of shape (n_components,)
        alpha_k = alpha_0 + N_k.
    means_ : ndarray of shape (n_components, n_features)
        m_k.
    mean_precision_ : ndarray of shape (n_components,)
        beta_k.
    degrees_of_freedom_ : ndarray of shape (n_components,) (scalar array for 'tied')
        nu_k.
    covariances_ : ndarray
        E_q[Lambda_k]^-1 (scikit-learn's convention); shapes as in GaussianMixture.
    precisions_, precisions_cholesky_ : ndarray
        E_q[Lambda_k] and its upper Cholesky factor.
    n_effective_components_ : int
        Components whose expected weight exceeds ``EFFECTIVE_WEIGHT_THRESHOLD`` = 0.01.
    mean_prior_, covariance_prior_, degrees_of_freedom_prior_, mean_precision_prior_,
    weight_concentration_prior_ :
        The resolved priors.
    lower_bounds_, lower_bound_, n_iter_, converged_ :
        ELBO trace in nats per sample (see :class:`latentkit.base.LatentModel`).
    spectral_report_ : dict
        Only after a fit with ``init='spectral'``: the start's check and search
        (:func:`latentkit.mixture.spectral_init_gmm`, ``return_report``); ``'n_iter'`` counts
        the iterations run inside the start, which ``n_iter_`` does not. When the search ran,
        the fit continues from the parameters of the optimum it reached: ``lower_bounds_``
        and ``n_iter_`` are the fit's own, and its first change is measured from that
        optimum's last bound (``'objective'``), so a converged optimum takes one iteration.

    Notes
    -----
    Sources: Attias (2000), *A variational Bayesian framework for graphical models*, NIPS 12;
    Bishop (2006), section 10.2, eqs. (10.46)-(10.82). Started from the same responsibilities,
    the 'full' fit equals scikit-learn's ``BayesianGaussianMixture(
    weight_concentration_prior_type='dirichlet_distribution')`` iteration for iteration once
    its E-step gets the reg_covar jitter offset (the M-step is the same; without the offset
    the results differ by O(reg_covar / variance), ~1e-5 relative on unit-scale data); its
    lower bound omits the constant terms, ours does not. With reg_covar=0 the two iterations
    are identical.

    Data whose squared deviations overflow float64 (roughly ``|x - mean| > 1e150``) is
    refused with a ValueError rather than rescaled internally: reg_covar and the priors are
    absolute quantities in the units of X, so a hidden rescaling would change the model.
    Standardise X, or fit ``X / s`` and scale ``means_`` by s and ``covariances_`` by s^2. For 'diag' and
    'spherical' the M-step also agrees but ``E[ln |Lambda|]`` differs (exact Gamma factors here), and
    for 'tied' we use the exact conjugate update (nu = nu_0 + N) instead of scikit-learn's
    component-averaged one (nu = nu_0 + N / K). ``partial_fit`` takes a natural-gradient step on
    the global factors (Hoffman et al. 2013).

    Raises
    ------
    ValueError, TypeError
        From ``fit``: invalid hyper-parameters, priors, init or data, each named; X whose
        squared deviations overflow float64 (the message says how to rescale).

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit import VariationalGaussianMixture
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(0, 1, (50, 2)), rng.normal(6, 1, (50, 2))])
    >>> vgm = VariationalGaussianMixture(2, random_state=0).fit(X)
    >>> [int(v) for v in np.sort(vgm.means_[:, 0]).round()]
    [0, 6]
    """

    def __init__(self, n_components=1, *, covariance_type="full", tol=None, reg_covar=1e-6,
                 max_iter=1000, n_init=1, init="kmeans++", weight_concentration_prior=None,
                 mean_precision_prior=None, mean_prior=None, degrees_of_freedom_prior=None,
                 covariance_prior=None, random_state=None, callback=None, verbose=False,
                 learning_offset=10.0, learning_decay=0.7, missing="error"):
        self.n_components = n_components
        self.covariance_type = covariance_type
        self.tol = tol
        self.reg_covar = reg_covar
        self.max_iter = max_iter
        self.n_init = n_init
        self.init = init
        self.weight_concentration_prior = weight_concentration_prior
        self.mean_precision_prior = mean_precision_prior
        self.mean_prior = mean_prior
        self.degrees_of_freedom_prior = degrees_of_freedom_prior
        self.covariance_prior = covariance_prior
        self.random_state = random_state
        self.callback = callback
        self.verbose = verbose
        self.learning_offset = learning_offset
        self.learning_decay = learning_decay
        self.missing = missing

    def _n_components(self):
        return self.n_components

    def _component(self):
        """The Gaussian (Normal-Wishart) component of these hyper-parameters."""
        return GaussianComponent(**{n: getattr(self, n)
                                    for n in GaussianComponent._get_param_names()})

    def _validate_params(self):
        self._validate_common()
        self._component().validate(has_tail=False)
        if self.weight_concentration_prior is None:
            self.weight_concentration_prior_ = 1.0 / self.n_components
        else:
            self.weight_concentration_prior_ = check_scalar(
                self.weight_concentration_prior, "weight_concentration_prior", numbers.Real,
                low=0.0, low_inclusive=False)

    def _expected_log_weights(self):
        a = self.weight_concentration_
        return psi(a) - psi(a.sum()), None

    def _update_weight_factor(self, nk, n_tail, step_size):
        target = self.weight_concentration_prior_ + nk
        cur = self.weight_concentration_
        if step_size < 1.0 and cur is not None:
            target = (1.0 - step_size) * cur + step_size * target
        self.weight_concentration_ = target

    def _weight_kl(self):
        return float(dirichlet_kl(self.weight_concentration_, self.weight_concentration_prior_))

    def _expected_weights(self):
        a = self.weight_concentration_
        return a / a.sum()

    def _private_svi_pieces(self, owner):
        """The pieces of :class:`latentkit.inference.PrivateStochasticVI` for this mixture
        (:mod:`latentkit.mixture._private_svi`)."""
        return VGMMPrivatePieces(self, owner, adopt_start=self._adopt_private_start,
                                 log_resp=self._log_resp_at)

    def _adopt_private_start(self, priors, center):
        """Private SVI's public start: the priors (resolved, by name) and an empty
        Normal-Wishart factor about ``center``."""
        for name, value in priors.items():
            setattr(self, name + "_", value)
        self._prior = self._component().prior(priors, self.n_features_in_)
        self._params = {"nw": None, "shift": center.copy()}
        self._init_weight_factor()

    def _check_state(self):
        """Validate a restored state (:mod:`latentkit.mixture._state_checks`)."""
        state = FittedState(vars(self), type(self).__name__)
        check_dirichlet_weights(state)
        check_conjugate_components(state, self._component().name, self.covariance_type)
