"""The input-output hidden Markov model (:class:`InputOutputHMM`, Bengio & Frasconi 1995).

The hidden chain's transitions depend on a per-step input ``u_t`` through a multinomial
logistic regression per source state (:mod:`latentkit.sequence._transition_regression`); the
observations are Gaussian given the state (the HMMs' Gaussian emission, used through
its array interface). The E-step is the scaled forward-backward with per-step transition
matrices (:mod:`latentkit._kernels.iohmm`); the M-step is closed form for the emissions and the
free initial distribution, and one minorise-maximise step of Bohning's quadratic bound for
each regression, so the fit is a generalised EM whose bound (the log-likelihood plus the
coefficients' log prior, nats per time step) never decreases.
"""

import numbers

import numpy as np

from .._engine.state_checks import StateCheckError, _array, _int, _simplex
from .._kernels.iohmm import iohmm_forward_backward, iohmm_viterbi
from .._utils.chunking import split_sequences
from .._utils.validation import check_lengths, check_scalar
from ..base import LatentModel, stats_dataclass
from ..exceptions import InputError, InputTypeError
from . import _transition_regression as tr
from ._emissions import _check_stochastic, _normalize_rows
from ._forward_backward import SequenceData
from ._gaussian_emission import GaussianEmission, GaussianHMMStats

__all__ = ["InputOutputHMM", "InputOutputHMMStats"]

_INITS = ("kmeans++", "random")


@stats_dataclass
class InputOutputHMMStats(GaussianHMMStats):
    """:class:`GaussianHMMStats` (``start``, ``trans``, ``nk``, ``sx``, ``sxx``) plus the
    regressions' statistics at the E-step's parameters: ``trans_grad`` (K, K, P) the gradient
    of the expected complete-data log-likelihood in the transition parameters, ``trans_moment``
    (K, P, P) ``sum_t p(z_{t-1} = i | x, u) z_t z_t^T``, ``start_grad`` (K, P) and
    ``start_moment`` (P, P) those of the initial state's regression (``P = n_inputs + 1``)."""

    trans_grad: np.ndarray
    trans_moment: np.ndarray
    start_grad: np.ndarray
    start_moment: np.ndarray


class InputSequenceData(SequenceData):
    """Validated stacked sequences with their regressors ``Z = [inputs, 1]`` (n_samples, P)."""

    def __init__(self, X, offsets, Z):
        super().__init__(X, offsets)
        self.Z = Z

    def subset(self, s0, s1):
        a, b = self.offsets[s0], self.offsets[s1]
        return InputSequenceData(self.X[a:b], self.offsets[s0:s1 + 1] - a, self.Z[a:b])


def check_inputs(inputs, n_rows, n_inputs, required):
    """Validate ``inputs``: finite reals of shape (n_rows, n_inputs) (1-D: one input).

    Returns
    -------
    ndarray of shape (n_rows, n_inputs) of float64 (a new array)

    Raises
    ------
    InputError
        ``inputs`` missing when ``required``, of the wrong length or width, not finite.
    """
    if inputs is None:
        if required:
            raise InputError("InputOutputHMM.fit needs inputs=: an array (n_samples, "
                             "n_inputs) with one row per row of X (width 0 for none), got None.")
        return np.zeros((n_rows, n_inputs))
    if hasattr(inputs, "toarray"):
        raise InputTypeError("inputs must be a dense array, got a sparse matrix.")
    arr = np.asarray(inputs)
    if arr.dtype.kind not in "fiub":
        raise InputTypeError(f"inputs must be numeric, got an array of dtype {arr.dtype}.")
    arr = np.array(arr, dtype=np.float64)
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2 or arr.shape[0] != n_rows:
        raise InputError(f"inputs must have one row per row of X ({n_rows} rows), got shape "
                         f"{arr.shape}.")
    if n_inputs is not None and arr.shape[1] != n_inputs:
        raise InputError(f"inputs must have {n_inputs} columns (as in fit), got "
                         f"{arr.shape[1]}.")
    if not np.all(np.isfinite(arr)):
        r = int(np.argwhere(~np.isfinite(arr))[0][0])
        raise InputError(f"inputs must be finite; row {r} has NaN or infinity.")
    return arr


class InputOutputHMM(LatentModel):
    """Input-output hidden Markov model (IO-HMM) with Gaussian emissions, fitted by
    generalised EM.

    Given per-step inputs ``u_t`` (n_inputs,), the hidden state moves from ``i`` to ``j`` with
    probability ``softmax_j(transition_coefs_[i, j] @ u_t + transition_intercepts_[i, j])``
    (a multinomial logistic regression per source state, staying in ``i`` the reference
    category: ``[i, i]`` entries are 0), and emits ``x_t ~ N(means_[k], covariances_[k])``
    (Bengio & Frasconi 1995, with the emissions of :class:`GaussianHMM`). The first state is
    drawn from ``startprob_``, or with ``input_start=True`` from a regression on ``u_0`` (state
    0 the reference). ``fit``, ``score``, ``predict`` and the other methods take ``inputs``
    (n_samples, n_inputs), one row per row of ``X``, besides ``lengths``.

    The E-step is the scaled forward-backward with per-step transition matrices; the M-step
    is closed form for the emissions and ``startprob_``, and for each regression one step of
    Bohning's (1992) quadratic lower bound of the expected complete-data log posterior, whose
    maximiser raises it. So the fit is a **generalised EM**: the bound, the log-likelihood
    plus the coefficients' log prior in **nats per time step**, never decreases; convergence is
    linear (slower than an HMM's closed-form transition update on the same data). The
    statistics are sums over time steps, so ``partial_fit`` works unchanged, and ``fit``
    takes a chunked source of whole sequences (``(X, {'lengths': ..., 'inputs': ...})``
    chunks, or the whole ``inputs=`` given to ``fit``, cut with each chunk's rows) or a Dask
    array with ``lengths=`` and ``inputs=`` (the blocks are moved to sequence boundaries and
    ``inputs`` is cut by the same rows), giving the in-memory fit.

    Parameters
    ----------
    n_components : int, default 2
        Number of hidden states ``K``.
    covariance_type : {'diag', 'full', 'spherical', 'tied'}, default 'diag'
        As :class:`GaussianHMM`.
    input_start : bool, default False
        The initial distribution is a regression on the first step's inputs (``start_coefs_``,
        ``start_intercepts_``) instead of a free ``startprob_``.
    coefs_prior : float, default 1.0
        ``lambda >= 0``: a Gaussian prior ``N(0, 1 / lambda)`` on every regression coefficient
        (not on the intercepts), scikit-learn's ``LogisticRegression(C=1)`` penalty; the fit is
        the MAP estimate. 0 is maximum likelihood (the coefficients diverge when an input
        separates the transitions).
    reg_covar : float, default 1e-6
        Added to the covariance diagonals at each M-step.
    init : {'kmeans++', 'random'} or dict, default 'kmeans++'
        Emission means by k-means++ seeding or at random rows; transition intercepts from a
        flat-Dirichlet transition matrix, coefficients 0. A dict gives any of ``'startprob'``,
        ``'start_coefs'``, ``'start_intercepts'``, ``'transition_coefs'``,
        ``'transition_intercepts'``, ``'means'``, ``'covariances'``.
    n_init, max_iter, tol, random_state, callback, verbose
        See :class:`HiddenMarkovModel` (``tol`` in nats per time step; None: ``1e-3 /
        n_samples``).

    Attributes
    ----------
    transition_coefs_ : ndarray of shape (n_components, n_components, n_inputs)
        ``[i, j]``: the log-odds of ``i -> j`` against staying in ``i`` per unit input.
    transition_intercepts_ : ndarray of shape (n_components, n_components)
        Those log-odds at ``u = 0`` (diagonal 0).
    startprob_ : ndarray of shape (n_components,)
        Without ``input_start``.
    start_coefs_, start_intercepts_ : ndarray of shape (n_components, n_inputs), (n_components,)
        With ``input_start`` (row / entry 0 are 0).
    means_ : ndarray of shape (n_components, n_features)
    covariances_ : ndarray
        Shape by ``covariance_type`` (as :class:`GaussianHMM`).
    n_inputs_ : int
    n_features_in_ : int
    lower_bound_, lower_bounds_, n_iter_, converged_
        The bound in nats per time step at each iteration's E-step.

    Raises
    ------
    InputError
        Bad hyper-parameters, data or ``inputs`` (missing in ``fit``, wrong length, width or
        non-finite), naming them.

    Notes
    -----
    ``transition_matrices(inputs)`` gives the per-step transition matrices. Without ``inputs``
    the inference methods and ``sample`` use zeros (the intercepts alone). With constant
    inputs the model is a :class:`GaussianHMM` with ``transmat_[i] = softmax(
    transition_intercepts_[i] + transition_coefs_[i] @ u)``.

    References
    ----------
    Bengio, Y. & Frasconi, P. (1995). An input output HMM architecture. NIPS 7, 427-434.
    Bohning, D. (1992). Multinomial logistic regression algorithm. Ann. Inst. Stat. Math.
    44(1), 197-200.
    Bohning, D. & Lindsay, B. G. (1988). Monotonicity of quadratic-approximation algorithms.
    Ann. Inst. Stat. Math. 40(4), 641-663.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit import InputOutputHMM
    >>> rng = np.random.default_rng(0)
    >>> u = rng.normal(size=(600, 1))
    >>> z = np.zeros(600, dtype=int)
    >>> for t in range(1, 600):   # the input pushes the chain into state 1
    ...     p1 = 1 / (1 + np.exp(-3 * u[t, 0]))
    ...     z[t] = rng.random() < p1
    >>> X = rng.normal(np.where(z == 1, 4.0, 0.0), 1.0)[:, None]
    >>> io = InputOutputHMM(2, random_state=0).fit(X, inputs=u)
    >>> io.transition_matrices(u).shape
    (600, 2, 2)
    >>> k = int(np.argmax(io.means_[:, 0]))                   # the state with mean 4
    >>> bool(io.transition_coefs_[1 - k, k, 0] > 2)          # more input, more moves to it
    True
    """

    _sample_unit = "time step"
    #: one row of inputs per time step: cut with the rows of X per chunk of a source or block
    #: of a Dask array (whose chunks and blocks hold whole sequences)
    _row_fit_params = ("inputs",)
    _tol_may_be_none = True

    def __init__(self, n_components=2, covariance_type="diag", *, input_start=False,
                 coefs_prior=1.0, reg_covar=1e-6, init="kmeans++", n_init=1, max_iter=1000,
                 tol=None, random_state=None, callback=None, verbose=False):
        self.n_components = n_components
        self.covariance_type = covariance_type
        self.input_start = input_start
        self.coefs_prior = coefs_prior
        self.reg_covar = reg_covar
        self.init = init
        self.n_init = n_init
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        self.callback = callback
        self.verbose = verbose

    # ---- hyper-parameters ----------------------------------------------------------------
    def _make_emission(self):
        return GaussianEmission(covariance_type=self.covariance_type, reg_covar=self.reg_covar)

    def _param_names(self):
        start = ("start_coefs", "start_intercepts") if self.input_start else ("startprob",)
        return start + ("transition_coefs", "transition_intercepts", "means", "covariances")

    def _validate_params(self):
        K = check_scalar(self.n_components, "n_components", numbers.Integral, low=1)
        check_scalar(self.coefs_prior, "coefs_prior", numbers.Real, low=0.0)
        if not isinstance(self.input_start, (bool, np.bool_)):
            raise InputTypeError(f"input_start must be True or False, got {self.input_start!r}.")
        emission = self._make_emission()
        emission.validate(K)
        self.emission_ = emission
        if isinstance(self.init, str):
            if self.init not in _INITS:
                raise InputError(f"init must be one of {_INITS} or a dict of starting "
                                 f"parameters, got {self.init!r}.")
        elif isinstance(self.init, dict):
            unknown = set(self.init) - set(self._param_names())
            if unknown:
                raise InputError(f"init has unknown parameter(s) {sorted(unknown)}; valid "
                                 f"names are {sorted(self._param_names())}.")
        else:
            raise InputTypeError(f"init must be a str or a dict, got {type(self.init).__name__}.")

    # ---- data ------------------------------------------------------------------------------
    def _validate_data(self, X, reset, lengths=None, inputs=None, **kw):
        if kw:
            raise InputTypeError(f"InputOutputHMM got unexpected arguments {sorted(kw)}.")
        if reset:
            if not hasattr(self, "emission_"):
                self._validate_params()
        elif "n_inputs_" not in vars(self):  # validated by a fit (its width is known)
            self._check_is_fitted()
        shape = getattr(X, "shape", None)
        if shape is None:
            shape = np.shape(X)
        if len(shape) == 0:
            raise InputError(f"Expected an array of observations for X, got a scalar: {X!r}.")
        n_rows = int(shape[0])
        offsets = check_lengths(lengths, n_rows)
        Xv = self.emission_.check_X(X, offsets, reset)
        U = check_inputs(inputs, n_rows, None if reset else self.n_inputs_, required=reset)
        data = InputSequenceData(Xv, offsets, tr.add_constant(U))
        if reset:
            self.n_features_in_ = Xv.shape[1]
            self.n_inputs_ = U.shape[1]
            self._resolve_data_defaults(data)
        return data

    def _data_summary(self, data):
        return self.emission_.data_summary(data.X)

    def _set_data_defaults(self, summary):
        if self.n_components > summary.n:
            raise InputError(f"n_components={self.n_components} is larger than the number of "
                             f"time steps in X ({summary.n}).")
        self.emission_.set_data_defaults(summary, self.n_components)
        self.tol_ = float(self.tol) if self.tol is not None else 1e-3 / summary.n

    def _n_samples(self, data):
        return data.n_samples

    def _split_data(self, data, n_chunks):
        targets = np.linspace(0, data.n_samples, max(1, int(n_chunks)) + 1)[1:-1]
        bounds = split_sequences(data.offsets, targets)
        return [data.subset(a, b) for a, b in zip(bounds[:-1], bounds[1:])]

    # ---- parameters --------------------------------------------------------------------------
    def _init_params(self, data, rng):
        K, M = int(self.n_components), self.n_inputs_
        method = self.init if isinstance(self.init, str) else "kmeans++"
        pi = rng.dirichlet(np.ones(K))
        A = rng.dirichlet(np.ones(K), size=K)
        params = {"transition_coefs": np.zeros((K, K, M)),
                  "transition_intercepts": np.log(A) - np.log(np.diag(A))[:, None],
                  **self.emission_.init_params(data.X, K, rng, method)}
        if self.input_start:
            params.update(start_coefs=np.zeros((K, M)),
                          start_intercepts=np.log(pi) - np.log(pi[0]))
        else:
            params["startprob"] = pi
        for name, value in (self.init if isinstance(self.init, dict) else {}).items():
            params[name] = self._check_param(name, value)
        for name, value in params.items():
            setattr(self, "covariances_" if name == "covars" else name + "_",
                    np.asarray(value, dtype=float))

    def _check_param(self, name, value):
        """A starting parameter given in ``init`` (a new array), checked."""
        K, M = int(self.n_components), self.n_inputs_
        if name == "startprob":
            return _check_stochastic(value, name, (K,))
        if name in ("means", "covariances"):
            return self.emission_.check_param("covars" if name == "covariances" else name,
                                              value, K)
        shape, zero = {"start_coefs": ((K, M), (0,)), "start_intercepts": ((K,), (0,)),
                       "transition_coefs": ((K, K, M), None),
                       "transition_intercepts": ((K, K), None)}[name]
        arr = np.array(value, dtype=float, copy=True)
        if arr.shape != shape or not np.all(np.isfinite(arr)):
            raise InputError(f"init[{name!r}] must be finite with shape {shape}, got "
                             f"{arr.shape}.")
        ref = arr[zero] if zero is not None else arr[np.arange(K), np.arange(K)]
        if np.any(ref != 0):
            raise InputError(f"init[{name!r}] must be 0 for the reference category "
                             "(state 0 for the start, [i, i] for the transitions).")
        return arr

    def _emission_params(self):
        return {"means": self.means_, "covars": self.covariances_}

    def _theta(self):
        return np.concatenate([self.transition_coefs_, self.transition_intercepts_[:, :, None]],
                              axis=2)

    def _start_theta(self):
        return np.concatenate([self.start_coefs_, self.start_intercepts_[:, None]], axis=1)

    def _startprobs(self, data):
        """(n_sequences, K): the initial distribution of each sequence."""
        if self.input_start:
            return tr.start_probabilities(data.Z[data.offsets[:-1]], self._start_theta())[0]
        return np.tile(self.startprob_, (data.n_sequences, 1))

    # ---- the recipe's hooks --------------------------------------------------------------
    def _empty_stats(self):
        K, P = int(self.n_components), self.n_inputs_ + 1
        return InputOutputHMMStats(
            n=0.0, data_term=0.0, start=np.zeros(K), trans=np.zeros((K, K)),
            trans_grad=np.zeros((K, K, P)), trans_moment=np.zeros((K, P, P)),
            start_grad=np.zeros((K, P)), start_moment=np.zeros((P, P)),
            **self.emission_.empty_stats(K))

    def _run(self, data, backward):
        """Forward(-backward): (gamma, log_pred, xi_z summed over sequences, loglik, the
        transition matrices, the start distributions)."""
        frame, log_offset = self.emission_.frame(self._emission_params(), data.X)
        probs = np.ascontiguousarray(tr.transition_probabilities(data.Z, self._theta())[0])
        pi = np.ascontiguousarray(self._startprobs(data))
        T, K = frame.shape
        gamma, log_pred = np.zeros((T, K)), np.empty(T)
        xi_z = np.zeros((data.n_sequences, K, K, data.Z.shape[1]))
        loglik = np.empty(data.n_sequences)
        iohmm_forward_backward(frame, log_offset, pi, probs, np.ascontiguousarray(data.Z),
                               data.offsets, backward, gamma, log_pred, xi_z, loglik)
        return gamma, log_pred, xi_z.sum(axis=0), loglik, probs, pi

    def _posteriors(self, data):
        out = self._run(data, backward=True)
        bad = np.flatnonzero(~np.isfinite(out[3]))
        if bad.size:
            s = int(bad[0])
            a = data.offsets[s]
            t = int(np.argmax(~np.isfinite(out[1][a:data.offsets[s + 1]])))
            raise InputError(f"Sequence {s} has probability zero under the current parameters "
                             f"(first impossible observation at position {t}, row {a + t}).")
        return out

    def _e_step(self, data):
        gamma, _, xi_z, loglik, probs, pi = self._posteriors(data)
        first = data.offsets[:-1]
        grad, moment = tr.regression_stats(data.Z, gamma, xi_z, probs, data.offsets)
        P = data.Z.shape[1]
        if self.input_start:
            sgrad, smoment = tr.start_regression_stats(data.Z[first], gamma[first], pi)
        else:
            sgrad, smoment = np.zeros((self.n_components, P)), np.zeros((P, P))
        emis = self.emission_.accumulate(self._emission_params(), data.X, gamma)
        return InputOutputHMMStats(
            n=float(data.n_samples), data_term=float(loglik.sum()),
            start=gamma[first].sum(axis=0), trans=xi_z[:, :, -1].copy(), trans_grad=grad,
            trans_moment=moment, start_grad=sgrad, start_moment=smoment, **emis)

    def _m_step(self, stats, step_size=1.0, scale=1.0):
        stats = self._blend_stats(stats, step_size=step_size, scale=scale)
        lam = float(self.coefs_prior)
        K = int(self.n_components)
        if self.input_start:
            theta0 = tr.bound_step(self._start_theta(), stats.start_grad, stats.start_moment,
                                   lam, 0)
            theta0[0] = 0.0
            self.start_coefs_, self.start_intercepts_ = theta0[:, :-1], theta0[:, -1]
        else:
            self.startprob_ = _normalize_rows(stats.start, self.startprob_)
        theta = tr.bound_step(self._theta(), stats.trans_grad, stats.trans_moment, lam,
                              list(range(K)))
        theta[np.arange(K), np.arange(K)] = 0.0
        self.transition_coefs_ = theta[:, :, :-1].copy()
        self.transition_intercepts_ = theta[:, :, -1].copy()
        new = self.emission_.m_step(self._emission_params(), stats, frozenset())
        self.means_, self.covariances_ = new["means"], new["covars"]

    def _global_elbo_terms(self):
        out = tr.coefs_log_prior(self._theta(), self.coefs_prior)
        if self.input_start:
            out += tr.coefs_log_prior(self._start_theta(), self.coefs_prior)
        return out

    # ---- inference -------------------------------------------------------------------------
    def _is_fitted(self):
        return hasattr(self, "transition_intercepts_") and hasattr(self, "emission_")

    def _fitted_data(self, X, lengths, inputs):
        """``X`` validated for an inference method of the fitted model (NotFittedError else;
        ``_validate_data(reset=False)`` alone also serves a fit's drivers before the start)."""
        self._check_is_fitted()
        return self._validate_data(X, reset=False, lengths=lengths, inputs=inputs)

    def transition_matrices(self, inputs):
        """Per-step transition matrices ``p(z_t = j | z_{t-1} = i, u_t)``.

        Parameters
        ----------
        inputs : array-like of shape (n_samples, n_inputs)

        Returns
        -------
        ndarray of shape (n_samples, n_components, n_components)
            Rows sum to 1.
        """
        self._check_is_fitted()
        n_rows = np.shape(inputs)[0] if np.ndim(inputs) else 0
        U = check_inputs(inputs, n_rows, self.n_inputs_, required=True)
        return tr.transition_probabilities(tr.add_constant(U), self._theta())[0]

    def score_samples(self, X, lengths=None, inputs=None):
        """One-step predictive log-densities ``log p(x_t | x_<t, u_<=t)``, nats (their sum
        over a sequence is its log-likelihood).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        lengths : array-like of int of shape (n_sequences,), optional
        inputs : array-like of shape (n_samples, n_inputs), optional
            Default zeros.

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        data = self._fitted_data(X, lengths, inputs)
        return self._run(data, backward=False)[1]

    def score_sequences(self, X, lengths=None, inputs=None):
        """Log-likelihood ``log p(x^(s) | u^(s))`` of each sequence, nats.

        Returns
        -------
        ndarray of shape (n_sequences,)
        """
        data = self._fitted_data(X, lengths, inputs)
        return self._run(data, backward=False)[3]

    def score(self, X, lengths=None, inputs=None):
        """Mean log-likelihood per time step given the inputs, nats.

        Returns
        -------
        float
        """
        data = self._fitted_data(X, lengths, inputs)
        return float(self._run(data, backward=False)[3].sum() / data.n_samples)

    def predict_proba(self, X, lengths=None, inputs=None):
        """Posterior state probabilities ``p(z_t = k | x, u)`` (forward-backward).

        Returns
        -------
        ndarray of shape (n_samples, n_components)
        """
        data = self._fitted_data(X, lengths, inputs)
        return self._posteriors(data)[0]

    def decode(self, X, lengths=None, inputs=None):
        """Most probable state sequence given the inputs (Viterbi with per-step transitions).

        Returns
        -------
        log_prob : float
            ``sum_s max_z log p(x^(s), z | u^(s))``, nats.
        state_sequence : ndarray of shape (n_samples,) of int
        """
        data = self._fitted_data(X, lengths, inputs)
        logb = self.emission_.log_likelihood(self._emission_params(), data.X)
        log_A = tr.transition_probabilities(data.Z, self._theta())[1]
        with np.errstate(divide="ignore"):
            log_pi = np.log(self._startprobs(data))
        path = np.empty(data.n_samples, dtype=np.int64)
        logprob = np.empty(data.n_sequences)
        iohmm_viterbi(np.ascontiguousarray(logb), np.ascontiguousarray(log_pi),
                      np.ascontiguousarray(log_A), data.offsets, path, logprob)
        return float(logprob.sum()), path

    def predict(self, X, lengths=None, inputs=None):
        """Viterbi state sequence (see :meth:`decode`).

        Returns
        -------
        ndarray of shape (n_samples,) of int
        """
        return self.decode(X, lengths, inputs)[1]

    def sample(self, n_samples=1, random_state=None, inputs=None):
        """Draw one sequence of ``n_samples`` steps given its inputs.

        Parameters
        ----------
        n_samples : int, default 1
        random_state : int, numpy.random.Generator or None
            Default None: the model's own sampling generator (advanced by every call).
        inputs : array-like of shape (n_samples, n_inputs), optional
            Default zeros.

        Returns
        -------
        X : ndarray of shape (n_samples, n_features)
        states : ndarray of shape (n_samples,) of int
        """
        self._check_is_fitted()
        n_samples = check_scalar(n_samples, "n_samples", numbers.Integral, low=1)
        Z = tr.add_constant(check_inputs(inputs, n_samples, self.n_inputs_, required=False))
        rng = self._sampling_rng(random_state)
        probs = tr.transition_probabilities(Z, self._theta())[0]
        pi = (tr.start_probabilities(Z[:1], self._start_theta())[0][0] if self.input_start
              else self.startprob_)
        u = rng.random(n_samples)
        states = np.empty(n_samples, dtype=np.int64)
        K = int(self.n_components)
        cdf = np.cumsum(pi)
        states[0] = min(int(np.searchsorted(cdf, u[0] * cdf[-1], side="right")), K - 1)
        for t in range(1, n_samples):
            cdf = np.cumsum(probs[t, states[t - 1]])
            states[t] = min(int(np.searchsorted(cdf, u[t] * cdf[-1], side="right")), K - 1)
        return self.emission_.sample(self._emission_params(), states, rng), states

    def _n_parameters(self):
        """Free scalars: ``K - 1`` (``startprob_``) or ``(K - 1)(M + 1)`` (the start's
        regression), ``K (K - 1)(M + 1)`` (the transitions' regressions) and the emission's."""
        K, P = int(self.n_components), self.n_inputs_ + 1
        start = (K - 1) * P if self.input_start else K - 1
        return int(start + K * (K - 1) * P
                   + sum(self.emission_.free_parameter_counts(K).values()))

    def bic(self, X, lengths=None, inputs=None):
        """Bayesian information criterion ``-2 log L + p log n`` (``n`` time steps, ``p`` the
        free parameters); lower is better.

        Returns
        -------
        float
        """
        data = self._fitted_data(X, lengths, inputs)
        ll = self._run(data, backward=False)[3].sum()
        return float(-2.0 * ll + self._n_parameters() * np.log(data.n_samples))

    def aic(self, X, lengths=None, inputs=None):
        """Akaike information criterion ``-2 log L + 2 p``; lower is better.

        Returns
        -------
        float
        """
        data = self._fitted_data(X, lengths, inputs)
        ll = self._run(data, backward=False)[3].sum()
        return float(-2.0 * ll + 2.0 * self._n_parameters())

    # ---- save / load ---------------------------------------------------------------------
    def _get_state(self):
        """Public fitted attributes, the emission's resolved values (``n_features_``,
        ``shift_``) under ``emission``, and the base state."""
        state = super()._get_state()
        emission = state.pop("emission_", None)
        if emission is not None:
            state["emission"] = {k: v for k, v in vars(emission).items()
                                 if k.endswith("_") and not k.startswith("_")}
        return state

    def _set_state(self, state):
        state = dict(state)
        fitted = state.pop("emission", None)
        if fitted is not None:
            emission = self._make_emission()
            for name, value in fitted.items():
                setattr(emission, name, value)
            self.emission_ = emission
        super()._set_state(state)

    def _check_state(self):
        """Validate a restored fitted state (:func:`latentkit.load`): shapes from
        ``n_components``, ``n_inputs_`` and ``n_features_in_``, finite regressions whose
        reference entries are 0, a probability vector ``startprob_``, the emission's checks.

        Raises
        ------
        StateCheckError
            (a ValueError) naming the bad attribute.
        """
        K, D = _int(self, "n_components"), _int(self, "n_features_in_")
        M = _int(self, "n_inputs_", low=0)
        W = _array(self, "transition_coefs_", (K, K, M))
        b = _array(self, "transition_intercepts_", (K, K))
        if np.any(W[np.arange(K), np.arange(K)] != 0) or np.any(np.diag(b) != 0):
            raise StateCheckError("transition_coefs_", "expected 0 at every [i, i] (staying "
                                  "is the reference category)")
        if self.input_start:
            _array(self, "start_coefs_", (K, M))
            _array(self, "start_intercepts_", (K,))
        else:
            _simplex(self, "startprob_", (K,))
        if getattr(self.emission_, "n_features_", None) != D:
            raise StateCheckError("n_features_in_", "differs from the emission's n_features_")
        for name, attr in (("means", "means_"), ("covars", "covariances_")):
            try:
                self.emission_.check_param(name, getattr(self, attr), K)
            except (AttributeError, InputError) as exc:
                raise StateCheckError(attr, str(exc)) from None
