"""The inference methods of the HMMs (a mixin of :class:`HiddenMarkovModel`): scoring by the
scaled forward pass (Rabiner 1989, section V.A), posteriors by forward-backward, decoding by
Viterbi (Rabiner 1989, section III.B), sampling, and the information criteria. Long sequences
run the blocked (parallel-in-time) kernels, see :mod:`latentkit.sequence._forward_backward`."""

import numbers

import numpy as np

from .._kernels.hmm import viterbi_log
from .._utils.validation import check_scalar
from ._forward_backward import _forward_any

__all__ = ["HMMInferenceMixin"]


class HMMInferenceMixin:
    """Inference on a fitted HMM: ``score_samples``, ``score_sequences``, ``score``,
    ``predict_proba``, ``decode``, ``predict``, ``sample``, ``bic``, ``aic``. The host class
    provides ``_validate_data``, ``_check_is_fitted``, ``_emission_params``,
    ``_forward_backward`` and the fitted ``startprob_``, ``transmat_``, ``emission_``."""

    def _forward(self, data):
        frame, log_offset = self.emission_.frame(self._emission_params(), data.X)
        log_pred = np.empty(frame.shape[0])
        loglik = np.empty(data.n_sequences)
        _forward_any(frame, log_offset, np.ascontiguousarray(self.startprob_),
                     np.ascontiguousarray(self.transmat_), data.offsets, log_pred, loglik)
        return log_pred, loglik

    def score_samples(self, X, lengths=None):
        """One-step predictive log-densities ``log p(x_t | x_1..x_{t-1})`` (forward algorithm
        with scaling; Rabiner 1989 section V.A: they are the log scale factors).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Stacked sequences (see the class docstring).
        lengths : array-like of int of shape (n_sequences,), optional

        Returns
        -------
        ndarray of shape (n_samples,)
            Nats; their sum over a sequence is its log-likelihood (``-inf`` from the first
            impossible observation on). Note: hmmlearn's ``score_samples`` returns
            ``(logprob, posteriors)``; use :meth:`predict_proba` for the posteriors.

        Raises
        ------
        NotFittedError, ValueError
        """
        data = self._validate_data(X, reset=False, lengths=lengths)
        return self._forward(data)[0]

    def score_sequences(self, X, lengths=None):
        """Log-likelihood of each sequence, nats.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        lengths : array-like of int of shape (n_sequences,), optional

        Returns
        -------
        ndarray of shape (n_sequences,)
            ``log p(x^{(s)})`` per sequence (``-inf`` for an impossible sequence).
        """
        data = self._validate_data(X, reset=False, lengths=lengths)
        return self._forward(data)[1]

    def score(self, X, lengths=None):
        """Mean log-likelihood per time step: ``sum_s log p(x^{(s)}) / n_samples``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        lengths : array-like of int of shape (n_sequences,), optional

        Returns
        -------
        float
            Nats per time step. hmmlearn's ``score`` is the total; it equals this value times
            ``n_samples`` (or ``score_sequences(X, lengths).sum()``).
        """
        data = self._validate_data(X, reset=False, lengths=lengths)
        return float(self._forward(data)[1].sum() / data.n_samples)

    def predict_proba(self, X, lengths=None):
        """Posterior state probabilities ``p(z_t = k | x)`` (forward-backward).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        lengths : array-like of int of shape (n_sequences,), optional

        Returns
        -------
        ndarray of shape (n_samples, n_components)
            Rows sum to 1.

        Raises
        ------
        ValueError
            A sequence with probability zero under the model.
        """
        data = self._validate_data(X, reset=False, lengths=lengths)
        return self._forward_backward(data)[0]

    def decode(self, X, lengths=None):
        """Most probable state sequence (Viterbi in log space; Viterbi 1967, Rabiner 1989
        eqs. 32-35).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        lengths : array-like of int of shape (n_sequences,), optional

        Returns
        -------
        log_prob : float
            ``sum_s max_z log p(x^{(s)}, z)``, nats (total, as hmmlearn's ``decode``).
        state_sequence : ndarray of shape (n_samples,) of int
        """
        data = self._validate_data(X, reset=False, lengths=lengths)
        logf = self.emission_.log_likelihood(self._emission_params(), data.X)
        with np.errstate(divide="ignore"):
            log_pi = np.log(self.startprob_)
            log_A = np.log(self.transmat_)
        path = np.empty(data.n_samples, dtype=np.int64)
        logprob = np.empty(data.n_sequences)
        viterbi_log(np.ascontiguousarray(logf), log_pi, np.ascontiguousarray(log_A),
                    data.offsets, path, logprob)
        return float(logprob.sum()), path

    def predict(self, X, lengths=None):
        """Viterbi state sequence (see :meth:`decode`).

        Returns
        -------
        ndarray of shape (n_samples,) of int
        """
        return self.decode(X, lengths)[1]

    def sample(self, n_samples=1, random_state=None, currstate=None):
        """Draw one sequence of ``n_samples`` time steps from the fitted model.

        Parameters
        ----------
        n_samples : int, default 1
        random_state : int, numpy.random.Generator or None
            Default None: the model's own sampling generator, seeded from the ``random_state``
            hyper-parameter at fit and advanced by every call (repeated calls give fresh draws).
        currstate : int, optional
            Start the chain in this state instead of drawing it from ``startprob_``.

        Returns
        -------
        X : ndarray of shape (n_samples, n_features)
            Observations (ints for categorical and Poisson emissions).
        states : ndarray of shape (n_samples,) of int
        """
        self._check_is_fitted()
        n_samples = check_scalar(n_samples, "n_samples", numbers.Integral, low=1)
        rng = self._sampling_rng(random_state)
        K = self.n_components
        u = rng.random(n_samples)
        cdf_start = np.cumsum(self.startprob_)
        cdf_trans = np.cumsum(self.transmat_, axis=1)
        states = np.empty(n_samples, dtype=np.int64)
        if currstate is None:
            z = int(np.searchsorted(cdf_start, u[0] * cdf_start[-1], side="right"))
        else:
            z = check_scalar(currstate, "currstate", numbers.Integral, low=0, high=K - 1)
        states[0] = min(z, K - 1)
        for t in range(1, n_samples):
            row = cdf_trans[states[t - 1]]
            states[t] = min(int(np.searchsorted(row, u[t] * row[-1], side="right")), K - 1)
        X = self.emission_.sample(self._emission_params(), states, rng)
        return X, states

    #: a model whose emission parameters are updated together (the variational HMMs: one
    #: conjugate factor) keeps all of them when any is frozen
    _emission_frozen_together = False

    def _n_parameters(self):
        """Free scalars fitted: ``K - 1`` for ``startprob``, ``K (K - 1)`` for ``transmat``
        and the emission's count of each parameter, leaving out the frozen ones."""
        K = self.n_components
        frozen = set(self.frozen_)
        names = set(self.emission_.param_names)
        if self._emission_frozen_together and names & frozen:
            frozen |= names
        counts = {"startprob": K - 1, "transmat": K * (K - 1),
                  **self.emission_.free_parameter_counts(K)}
        return int(sum(n for name, n in counts.items() if name not in frozen))

    def bic(self, X, lengths=None):
        """Bayesian information criterion ``-2 log L + p log n`` (Schwarz 1978); lower is better.

        ``p`` counts the free parameters that are fitted (frozen ones excluded), ``n`` the time
        steps.

        Returns
        -------
        float
        """
        data = self._validate_data(X, reset=False, lengths=lengths)
        ll = self._forward(data)[1].sum()
        return float(-2.0 * ll + self._n_parameters() * np.log(data.n_samples))

    def aic(self, X, lengths=None):
        """Akaike information criterion ``-2 log L + 2 p`` (Akaike 1974); lower is better.

        Returns
        -------
        float
        """
        data = self._validate_data(X, reset=False, lengths=lengths)
        ll = self._forward(data)[1].sum()
        return float(-2.0 * ll + 2.0 * self._n_parameters())
