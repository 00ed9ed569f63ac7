"""SQUAREM: accelerated EM / VB runs on the sufficient statistics (:func:`squarem_fit`).

Plain EM and coordinate-ascent VB converge linearly; near a flat optimum (overlapping
clusters) they creep for tens or hundreds of iterations. SQUAREM (Varadhan & Roland 2008)
extrapolates along the last two steps of the fixed-point map and keeps the plain point
whenever the extrapolation ends below the objective the cycle started from, so its iterates
are monotone and converge to a fixed point of the same map. Here the map is taken over the
model's sufficient statistics (:class:`~latentkit.base.Stats`, which add and scale),
``F(s) = E(M(s))``: one M-step then one E-step, and the objective of ``s`` is the ELBO (or
log-likelihood) of the parameters ``M(s)``, computed by the E-step that produces ``F(s)``.
Every E-step is counted as one iteration (``n_iter_``), the rejected extrapolations' included.

It drives a model through the private template of :class:`~latentkit.base.LatentModel`
(``_init_params``, ``e_step_all``, ``_elbo_from_stats``, ``_m_step``); the fit it returns
is an ordinary fitted model (parameters one M-step past the last accepted E-step, as after
:meth:`~latentkit.base.LatentModel.fit`). The default ``fit`` of every model is unchanged:
the spectral start of the Gaussian mixtures uses this driver for its runs to an optimum
(:class:`latentkit.mixture._split_merge.ModelLookahead`).
"""

import dataclasses

import numpy as np

from .convergence import ConvergenceMonitor
from .fitting import e_step_all, finish_fit, prepare_fit, record_run, shallow_state, start_run
from .._utils.threads import caught_warnings
from ..exceptions import InputError

__all__ = ["squarem_fit"]

#: Halvings of the step length towards the plain point (alpha = -1) when the extrapolated
#: statistics are invalid (negative counts, a failing M-step); free: no E-step is run.
_MAX_HALVINGS = 6

#: Fields of a Stats that are bookkeeping, not inputs of the M-step (left out of the norms).
_BOOKKEEPING = ("n", "data_term")


def _stats_vector(stats):
    """The M-step's inputs of ``stats`` as one flat float vector (for the norms of S3)."""
    parts = [np.ravel(np.asarray(getattr(stats, f.name), dtype=np.float64))
             for f in dataclasses.fields(stats) if f.name not in _BOOKKEEPING]
    return np.concatenate(parts) if parts else np.zeros(0)


def _finite_stats(stats):
    return all(np.all(np.isfinite(np.asarray(getattr(stats, f.name), dtype=np.float64)))
               for f in dataclasses.fields(stats))


def _valid_counts(stats):
    """No negative expected count (the fields the statistics name in ``count_fields``)."""
    for name in getattr(stats, "count_fields", ()):
        counts = getattr(stats, name, None)
        if counts is not None and not np.all(np.asarray(counts) >= 0.0):
            return False
    return True


def squarem_step_length(s0, s1, s2):
    """Step length of SQUAREM's scheme S3: ``alpha = -||r|| / ||v||``, at most -1.

    Parameters
    ----------
    s0, s1, s2 : Stats
        Statistics ``s0``, ``F(s0)``, ``F(F(s0))`` of the same type.

    Returns
    -------
    float
        ``alpha <= -1`` with ``r = s1 - s0``, ``v = s2 - 2 s1 + s0`` (norms over the
        M-step's inputs, Euclidean); -1 (the plain two-step point) when ``v`` vanishes.

    Notes
    -----
    Varadhan & Roland (2008), section 5 (S3); ``alpha > -1`` is replaced by -1 there too.
    """
    x0, x1, x2 = _stats_vector(s0), _stats_vector(s1), _stats_vector(s2)
    r = x1 - x0
    v = x2 - 2.0 * x1 + x0
    nv = float(np.linalg.norm(v))
    if not nv > 0.0:
        return -1.0
    alpha = -float(np.linalg.norm(r)) / nv
    return min(alpha, -1.0) if np.isfinite(alpha) else -1.0


def squarem_extrapolate(s0, s1, s2, alpha):
    """``(1 + a)^2 s0 - 2 a (1 + a) s1 + a^2 s2`` (``= s0 - 2 a r + a^2 v``; a = -1 gives s2).

    Parameters
    ----------
    s0, s1, s2 : Stats
    alpha : float

    Returns
    -------
    Stats
        The extrapolated statistics (``n`` unchanged: the three share it).
    """
    a = float(alpha)
    return s0 * (1.0 + a) ** 2 + s1 * (-2.0 * a * (1.0 + a)) + s2 * (a * a)


class _Run:
    """The E-steps of one accelerated run, each counted, and the model's state in between."""

    def __init__(self, model, data, max_iter):
        self.model, self.data, self.max_iter = model, data, max_iter
        self.bounds = []  # objective of every E-step, in order (n_iter_ of them)
        self.accepted = []  # objectives of the accepted points, in order
        self.starts = []  # objectives of the cycles' starting points (SQUAREM's iterates)
        self.n_extrapolated = self.n_taken = self.n_invalid = 0

    @property
    def spent(self):
        return len(self.bounds) >= self.max_iter

    def e_step(self):
        stats = e_step_all(self.model, self.data)
        bound = self.model._elbo_from_stats(stats)
        self.bounds.append(bound)
        return stats, bound

    def trial_m_step(self, stats):
        """M-step of extrapolated statistics; False (model state undefined) if it is not
        valid: negative counts, non-finite values, an exception or a warning (e.g. a
        repaired covariance)."""
        if not (_finite_stats(stats) and _valid_counts(stats)):
            return False
        try:
            with caught_warnings("always", record=True) as caught, \
                    np.errstate(divide="raise", invalid="raise", over="raise"):
                self.model._m_step(stats)
        except (ArithmeticError, ValueError, np.linalg.LinAlgError):
            return False
        return not caught

    def trial_e_step(self):
        """E-step at the extrapolated parameters; None if the objective or the statistics
        are not finite or it warns. Counted as an iteration either way."""
        try:
            with caught_warnings("always", record=True) as caught:
                stats, bound = self.e_step()
        except (ArithmeticError, ValueError, np.linalg.LinAlgError):
            self.bounds.append(-np.inf)
            return None
        if caught or not np.isfinite(bound) or not _finite_stats(stats):
            return None
        return stats, bound


def _accelerated_loop(model, data, tol, max_iter, previous):
    """SQUAREM's cycles from the model's current parameters. Returns the run, the statistics
    the final M-step takes (those of the last accepted point), that point's objective and
    whether a plain step changed the objective by less than ``tol``."""
    run = _Run(model, data, max_iter)
    s0, L0 = run.e_step()
    run.accepted.append(L0)
    if previous is not None and abs(L0 - previous) < tol:
        return run, s0, L0, True
    while not run.spent:
        run.starts.append(L0)
        model._m_step(s0)
        s1, L1 = run.e_step()
        run.accepted.append(L1)
        if abs(L1 - L0) < tol or run.spent:
            return run, s1, L1, abs(L1 - L0) < tol
        model._m_step(s1)
        plain = shallow_state(model)  # the plain two-step point's parameters
        s2, L2 = run.e_step()
        run.accepted.append(L2)
        if abs(L2 - L1) < tol or run.spent:
            return run, s2, L2, abs(L2 - L1) < tol
        alpha = squarem_step_length(s0, s1, s2)
        L_start = L0  # the safeguard's reference: the objective of the cycle's start
        s_prev, s0, L0 = s0, s2, L2  # the plain point, unless the extrapolation is kept
        if alpha == -1.0:
            continue
        run.n_extrapolated += 1
        for _ in range(_MAX_HALVINGS + 1):  # invalid statistics: halve towards the plain point
            if run.trial_m_step(squarem_extrapolate(s_prev, s1, s2, alpha)):
                break
            alpha = 0.5 * (alpha - 1.0)
        else:
            run.n_invalid += 1
            vars(model).update(plain)
            continue
        trial = run.trial_e_step()
        if trial is not None and trial[1] >= L_start:  # monotone iterates (the safeguard)
            s0, L0 = trial
            run.accepted.append(L0)
            run.n_taken += 1
        else:
            run.n_invalid += trial is None
            vars(model).update(plain)
    return run, s0, L0, False


def squarem_fit(model, X, *, max_iter=None, tol=None, previous=None, **fit_params):
    """Fit ``model`` by SQUAREM-accelerated EM / VB over its sufficient statistics.

    Parameters
    ----------
    model : LatentModel
        Configured (hyper-parameters, ``init``, ``random_state``) and fitted in place, from
        its own start: ``model._init_params`` (which a caller may have replaced, e.g. to
        continue another fit). One initialisation (``n_init`` is ignored), no callback.
        Models whose E-step keeps local state between iterations (LDA's warm start) are
        refused.
    X : array-like
        Training data in the model's input form (in memory).
    max_iter : int, optional
        Maximum number of E-steps (default the model's ``max_iter``).
    tol : float, optional
        Convergence threshold on the change of the objective over one plain step, nats per
        sample (default the model's resolved ``tol``): the test of the model's own monitor.
    previous : float, optional
        The objective the run this one continues reported last (as ``_start_bound`` after
        ``_init_params``, which takes precedence): the first E-step's change is measured
        from it.
    **fit_params
        Passed to the model's data validation (``sample_weight``).

    Returns
    -------
    model : LatentModel
        Fitted: parameters one M-step past the last accepted point; ``lower_bound_`` the
        objective of that point (nats per sample); ``n_iter_`` the number of E-steps run,
        rejected extrapolations included; ``lower_bounds_`` the objective of every E-step
        (shape (n_iter_,), not monotone: a rejected extrapolation can be lower, -inf where
        its E-step failed); ``converged_``; ``monitor_`` (history: the accepted points'
        objectives, plain steps and kept extrapolations, in order); ``squarem_`` (dict:
        ``'extrapolations'`` tried, ``'accepted'``, ``'invalid'``: statistics, parameters or
        objective rejected as invalid; ``'iterates'``: the objectives of SQUAREM's iterates,
        the cycles' starting points and the final point, which never decrease except as the
        model's own plain step can: EM and VB never do, except by the tiny drift a
        GaussianMixture's ``reg_covar`` causes near convergence).

    Raises
    ------
    ValueError
        A model with warm local state, or the model's own validation errors.

    Notes
    -----
    Source: Varadhan & Roland (2008), "Simple and globally convergent methods for
    accelerating the convergence of any EM algorithm", Scand. J. Statist. 35:335-353,
    scheme S3 (``alpha = -||r|| / ||v||``) with the global-monotonicity safeguard. One cycle:
    two plain steps ``s1 = F(s0)``, ``s2 = F(s1)``; the extrapolated statistics
    ``s' = (1 + a)^2 s0 - 2 a (1 + a) s1 + a^2 s2`` are M-stepped and evaluated by one
    E-step (which is also the stabilising step ``F(s')``); they are kept only when their
    objective is at least that of the cycle's starting point (``s0``'s: the iterates are
    monotone, the safeguard of the paper and of its R package ``SQUAREM``, Du & Varadhan
    2020, J. Stat. Softw. 92(7), ``objfn.inc = 0``), otherwise the cycle ends at the plain
    point, whose E-step is already done. Requiring the plain point's objective instead
    (two EM steps on) rejects extrapolations whose value comes later: on the seeds data all
    three of a GaussianMixture run's were rejected that way (19.4 iterations against 16.6
    on ``bench_spectral_real.py``). Invalid statistics (negative counts, an
    M-step that fails or warns, e.g. a covariance that is not positive definite) are
    pulled towards the plain point by halving ``a + 1`` (no E-step spent), at most
    ``_MAX_HALVINGS`` times. Convergence is tested on plain steps only (the two inside each
    cycle), where the objective's change means what the monitor of ``fit`` means by it.
    """
    setup = prepare_fit(model, X, fit_params, tol=tol, max_iter=max_iter,
                        check=_refuse_warm_state)
    model._sample_rng = None
    start_bound = start_run(model, setup.init_data, setup.rng)
    previous = previous if start_bound is None else start_bound
    run, stats, bound, converged = _accelerated_loop(model, setup.data, setup.tol,
                                                     setup.max_iter, previous)
    model._m_step(stats)
    monitor = ConvergenceMonitor(setup.tol, setup.max_iter, previous=previous)
    monitor.history = list(run.accepted)
    monitor.converged = bool(converged)
    record_run(model, monitor, lower_bounds=run.bounds, n_iter=len(run.bounds))
    model.squarem_ = {"extrapolations": run.n_extrapolated, "accepted": run.n_taken,
                      "invalid": run.n_invalid, "iterates": np.asarray(run.starts + [bound])}
    finish_fit(model, setup.rng)
    return model


def _refuse_warm_state(model):
    if model._warm_state() is not None:
        raise InputError(f"squarem_fit does not support {type(model).__name__}: its E-step "
                         "keeps local state between iterations.")
