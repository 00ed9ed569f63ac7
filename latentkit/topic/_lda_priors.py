"""LDA's Dirichlet hyper-parameters: fixed, asymmetric, seeded and learned (empirical Bayes).

:class:`latentkit.topic.LatentDirichletAllocation` calls this module through a few hooks, with
the hyper-parameters and arrays (the model's hooks assign what comes back):

* :func:`resolve_priors` (``_validate_params``) resolves ``doc_topic_prior`` and
  ``topic_word_prior``: ``None`` or a float keep the symmetric float priors of before (the
  default numbers are unchanged); ``'auto'``, ``'asymmetric'`` and arrays are checked here.
* :class:`LDAPriors` carries what learning the priors needs across the M-steps of a run (the
  batch trace of alpha's scale, whether alpha is held): :meth:`LDAPriors.start`
  (``_init_params``, once the vocabulary size V is known) gives the priors each
  initialisation starts from: alpha (K,), eta (V,) or (K, V), with the extra mass of the
  seeded topics (:mod:`latentkit.topic._seeding`); :meth:`LDAPriors.stats` the E-step
  statistics; :meth:`LDAPriors.update` (``_m_step``) the empirical-Bayes step of the learned
  priors after the topics' update: the Newton iteration of Blei, Ng & Jordan (2003), appendix
  A.4.2 (Minka 2000, "Estimating a Dirichlet distribution", section 1; the linear-time Newton
  step for a Hessian ``diag(q) + c 1 1^T``), run to convergence in a batch iteration (so each
  M-step maximises the ELBO over the prior and the bound stays non-decreasing) and ONE step
  scaled by the step size rho in every stochastic (online) step, of any size (1 included), as
  gensim's ``LdaModel.update_alpha`` and ``update_eta``.

The ELBO includes the priors: the local terms ``E[log p(theta_d | alpha)]`` are computed by the
E-step kernel with the current alpha (the asymmetric kernel
:func:`latentkit._kernels.topic_prior.lda_e_step_asym` when alpha is a vector), the global term
is ``-sum_k KL(Dir(lambda_k) || Dir(eta_k))`` with the current eta.
"""

import numbers
import warnings

import numpy as np
from scipy.special import gammaln, polygamma, psi

from .._utils.user_frame import user_stacklevel
from .._utils.validation import check_scalar
from ..base import stats_dataclass
from ._lda_estep import LDAStats
from ..exceptions import ConvergenceWarning, InputError, InputTypeError, PriorDivergenceWarning

__all__ = ["LDAPriorStats", "LDAPriors", "dirichlet_newton_step", "fit_dirichlet_prior",
           "asymmetric_prior", "resolve_priors", "learns_alpha", "learns_eta",
           "symmetric_priors", "default_tol_per_token", "prior_divergence"]

#: Newton iterations of a batch prior update at most, and its relative stopping tolerance.
MAX_NEWTON = 100
NEWTON_TOL = 1e-12


@stats_dataclass
class LDAPriorStats(LDAStats):
    """:class:`latentkit.topic.LDAStats` plus what the alpha update needs.

    Attributes
    ----------
    elog_theta : ndarray of shape (n_components,)
        ``sum_d E_q[log theta_dk] = sum_d psi(gamma_dk) - psi(sum_k gamma_dk)`` (nats).
    """

    elog_theta: np.ndarray


def learns_alpha(doc_topic_prior):
    """Whether the hyper-parameter ``doc_topic_prior`` asks for a learned prior ('auto')."""
    return isinstance(doc_topic_prior, str) and doc_topic_prior == "auto"


def learns_eta(topic_word_prior):
    """Whether the hyper-parameter ``topic_word_prior`` asks for a learned prior ('auto')."""
    return isinstance(topic_word_prior, str) and topic_word_prior == "auto"


#: The default batch ``tol`` in nats per token of the mean document: fixed alpha, learned alpha.
TOL_PER_TOKEN, AUTO_ALPHA_TOL_PER_TOKEN = 1e-3, 1e-4


def default_tol_per_token(learn_alpha):
    """The default batch stop (``tol=None``) in nats per token of the mean training document:
    1e-3, or 1e-4 when alpha is learned (the learned alpha moves long after the ELBO has
    flattened; :class:`latentkit.topic.LatentDirichletAllocation`, ``tol``)."""
    return AUTO_ALPHA_TOL_PER_TOKEN if learn_alpha else TOL_PER_TOKEN


def symmetric_priors(alpha, eta, seed_topics=None):
    """True when both priors are the symmetric floats of the default path (no seeds)."""
    return np.ndim(alpha) == 0 and np.ndim(eta) == 0 and seed_topics is None


def asymmetric_prior(n_components):
    """gensim's fixed asymmetric prior ``alpha_k ∝ 1 / (k + sqrt(K))``, normalised to sum 1.

    Parameters
    ----------
    n_components : int
        K.

    Returns
    -------
    ndarray of shape (n_components,)
        Decreasing, sums to 1.

    Notes
    -----
    gensim ``LdaModel(alpha='asymmetric')`` (``init_dir_prior``).
    """
    K = int(n_components)
    a = 1.0 / (np.arange(K) + np.sqrt(K))
    return a / a.sum()


def _positive_array(value, name, ndims):
    try:
        a = np.array(value, dtype=np.float64, copy=True)
    except (TypeError, ValueError):
        raise InputTypeError(f"{name} must be a float, a string or an array of floats, got "
                        f"{type(value).__name__}.") from None
    if a.ndim not in ndims:
        raise InputError(f"{name} as an array must have {' or '.join(map(str, ndims))} "
                         f"dimension(s), got shape {a.shape}.")
    bad = ~(np.isfinite(a) & (a > 0))
    if bad.any():
        where = np.unravel_index(np.argmax(bad), a.shape)
        raise InputError(f"{name} must be finite and > 0 everywhere, found {float(a[where])} "
                         f"at index {where[0] if a.ndim == 1 else where}.")
    return a


def resolve_priors(doc_topic_prior, topic_word_prior, K, seed_topics=None, seed_confidence=1.0):
    """``(doc_topic_prior_, topic_word_prior_)`` as far as they are known before the data (the
    floats of the default path exactly as before; arrays checked here, their vocabulary
    dimension in :meth:`LDAPriors.start`)."""
    out = []
    for name, v, words in (("doc_topic_prior", doc_topic_prior, ("auto", "asymmetric")),
                           ("topic_word_prior", topic_word_prior, ("auto",))):
        if v is None:
            value = 1.0 / K
        elif isinstance(v, str):
            if v not in words:
                raise InputError(f"{name} must be a float > 0, an array, "
                                 f"{' or '.join(repr(w) for w in words)}, got {v!r}.")
            value = 1.0 / K  # the start of 'auto'; completed in LDAPriors.start
        elif isinstance(v, numbers.Real) and not isinstance(v, bool):
            value = float(check_scalar(v, name, numbers.Real, low=0.0, low_inclusive=False))
        elif isinstance(v, bool):
            raise InputTypeError(f"{name} must be a float > 0, an array or a string, got bool.")
        else:
            value = _positive_array(v, name, (1,) if name == "doc_topic_prior" else (1, 2))
            if name == "doc_topic_prior" and value.shape != (K,):
                raise InputError(f"doc_topic_prior as an array must have shape ({K},) "
                                 f"(n_components), got {value.shape}.")
            if name == "topic_word_prior" and value.ndim == 2 and value.shape[0] != K:
                raise InputError(f"topic_word_prior as a matrix must have n_components={K} "
                                 f"rows, got shape {value.shape}.")
        out.append(value)
    # checked even without seed_topics: a bad value is not silently kept for a later set_params
    check_scalar(seed_confidence, "seed_confidence", numbers.Real, low=0.0, low_inclusive=False)
    if seed_topics is not None and learns_eta(topic_word_prior):
        raise InputError("seed_topics with topic_word_prior='auto' is not supported: the seeds "
                         "are extra mass in a fixed (K, V) prior; give a number for "
                         "topic_word_prior.")
    if isinstance(doc_topic_prior, str) and doc_topic_prior == "asymmetric":
        out[0] = asymmetric_prior(K)
    return out[0], out[1]


def word_counts(data, V):
    """Column sums of the start's documents (a matrix, or the chunks of a source)."""
    if hasattr(data, "iter_chunks"):
        return sum((np.asarray(c.sum(axis=0)).ravel() for c in data.iter_chunks()), np.zeros(V))
    return np.asarray(data.sum(axis=0), dtype=np.float64).ravel()


def prior_stats(learn_alpha, X, ss, doc_elbo, gamma):
    """The E-step statistics of documents ``X`` (:class:`LDAPriorStats` when alpha is learned,
    ``learn_alpha``) from their expected counts ``ss``, local ELBOs and ``gamma``."""
    base = dict(sstats=ss, n=float(X.shape[0]), data_term=float(np.sum(doc_elbo)),
                n_tokens=float(X.data.sum()))
    if not learn_alpha:
        return LDAStats(**base)
    elog = psi(gamma) - psi(gamma.sum(axis=1, keepdims=True))
    return LDAPriorStats(elog_theta=elog.sum(axis=0), **base)


def empty_prior_stats(learn_alpha, K, V):
    """Zero statistics of the type :func:`prior_stats` returns."""
    base = dict(sstats=np.zeros((K, V)), n=0.0, data_term=0.0, n_tokens=0.0)
    if learn_alpha:
        return LDAPriorStats(elog_theta=np.zeros(K), **base)
    return LDAStats(**base)


def dirichlet_newton_step(prior, n, logphat, rho=1.0):
    """One Newton step of the Dirichlet hyper-parameter, scaled by ``rho`` (gensim's
    ``update_dir_prior``: the step is kept only when every entry stays > 0).

    Maximises ``f(a) = n (lnGamma(sum_k a_k) - sum_k lnGamma(a_k)) + n sum_k (a_k - 1) logphat_k``,
    the expected log-density of ``n`` Dirichlet draws whose mean log is ``logphat``. The Hessian
    is ``diag(q) + c 1 1^T`` (``q_k = -n psi'(a_k)``, ``c = n psi'(sum a)``), so the Newton
    direction costs O(K): ``d_k = -(g_k - b) / q_k``, ``b = sum_k (g_k / q_k) / (1/c + sum_k 1/q_k)``.

    Parameters
    ----------
    prior : ndarray of shape (m,)
        The current hyper-parameter a (> 0).
    n : float
        Number of draws (documents for alpha, topics for eta); the step does not depend on it.
    logphat : ndarray of shape (m,)
        Mean expected log-probabilities ``(1/n) sum_i E[log p_ik]`` (nats).
    rho : float, default 1.0
        Step size (the SVI step size in an online fit; 1 a full Newton step).

    Returns
    -------
    ndarray of shape (m,)
        ``a + rho d`` when all entries are > 0, else ``a`` unchanged (a copy).

    Notes
    -----
    Blei, Ng & Jordan (2003), appendix A.4.2 (the linear-time Newton-Raphson step); Minka
    (2000), "Estimating a Dirichlet distribution"; Huang (2005), "Maximum likelihood estimation
    of Dirichlet distribution parameters"; gensim ``ldamodel.update_dir_prior``.
    """
    prior = np.asarray(prior, dtype=np.float64)
    if prior.size == 1:  # one component: the objective does not depend on a (closed form)
        return prior.copy()
    updated = rho * _newton_direction(prior, n, logphat) + prior
    return updated if np.all(updated > 0) else prior.copy()


def _newton_direction(a, n, logphat):
    """The Newton direction of :func:`dirichlet_newton_step` (gensim's operations, in order)."""
    gradf = n * (psi(np.sum(a)) - psi(a) + logphat)
    c = n * polygamma(1, np.sum(a))
    q = -n * polygamma(1, a)
    b = np.sum(gradf / q) / (1 / c + np.sum(1 / q))
    return -(gradf - b) / q


def _objective(a, n, logphat):
    return n * (gammaln(a.sum()) - gammaln(a).sum() + np.dot(a - 1.0, logphat))


def fit_dirichlet_prior(prior, n, logphat, max_iter=MAX_NEWTON, tol=NEWTON_TOL):
    """The maximiser of the Dirichlet objective of :func:`dirichlet_newton_step` by Newton
    iterations with step halving (each accepted step raises the objective and keeps a > 0; the
    objective is concave in a, so this converges to the global maximum from any start).

    Parameters
    ----------
    prior : ndarray of shape (m,)
        Starting a (> 0).
    n : float
        Number of draws.
    logphat : ndarray of shape (m,)
        Mean expected log-probabilities.
    max_iter : int
        Newton iterations at most.
    tol : float
        Stop when ``max_k |a_new - a| <= tol * max_k a``.

    Returns
    -------
    ndarray of shape (m,)
        The fitted a (never a lower objective than ``prior``).

    Notes
    -----
    Blei, Ng & Jordan (2003), appendix A.4.2; Minka (2000), section 1 (concavity, Newton).
    """
    a = np.array(prior, dtype=np.float64, copy=True)
    if a.size == 1:  # one component: the objective is constant (logphat = 0), any a maximises
        return a
    f = _objective(a, n, logphat)
    for _ in range(int(max_iter)):
        d = _newton_direction(a, n, logphat)
        gain = 0.5 * n * np.dot(psi(np.sum(a)) - psi(a) + logphat, d)  # predicted increase
        if gain <= 1e-13 * abs(f):  # below f's rounding: f cannot judge it; the last step
            return a + d if np.all(a + d > 0) else a  # is the exact Newton step (concave f)
        rho = 1.0
        while True:  # halve until the step stays positive and does not lower f
            new = a + rho * d
            if np.all(new > 0):
                f_new = _objective(new, n, logphat)
                if f_new >= f:
                    break
            rho *= 0.5
            if rho < 1e-10:  # no ascent left at the rounding of f: converged
                return a
        done = (np.max(np.abs(new - a)) <= tol * np.max(a)
                or f_new == f)
        a, f = new, f_new
        if done:
            break
    return a


#: :func:`prior_divergence`: M-steps in the window, the largest ratio of the window's largest
#: to smallest increment (a steady walk), and the least relative move of alpha's scale over it.
DIVERGENCE_WINDOW, DIVERGENCE_STEADY, DIVERGENCE_MOVE = 20, 1.2, 0.2


def prior_divergence(scales, window=DIVERGENCE_WINDOW, steady=DIVERGENCE_STEADY,
                     move=DIVERGENCE_MOVE):
    """Whether the batch fixed-point iteration of a learned Dirichlet prior diverges, from the
    trace of its scale ``s_t = sum_k alpha_k`` after each M-step.

    Each batch M-step sets alpha to the maximiser given the document posteriors
    (:func:`fit_dirichlet_prior`), and the posteriors follow alpha. Where the empirical-Bayes
    maximum exists this converges geometrically: the increments of ``s_t`` shrink by a factor
    r < 1 per step. Where it does not, alpha moves the same way at every step without slowing:
    on near-duplicate documents and on documents too short to tell their proportions apart
    (one word each) ``s_t`` grows linearly (each step adds about the same amount); on
    documents of one topic each it shrinks like 1/t (``1 / s_t`` grows linearly). Divergence
    is declared when, over the last ``window`` steps, (1) every increment has the same sign
    (the gradient's sign never changes), (2) the increments of ``s_t`` (growth) or of
    ``1 / s_t`` (shrinkage) are steady: the largest at most ``steady`` times the smallest (a
    geometric convergence at rate r gives ``r ** -(window - 1)``: 1.2 over 20 steps is
    r >= 0.9904; a walk that accelerates out of a turn, or decelerates, is not steady) and (3)
    ``s_t`` moved by a factor of at least ``1 + move`` over the window (a slow convergence
    near its end moves too little). Measured (``tests/topic/test_lda_degenerate_priors.py``):
    the three degenerate corpora are flagged after 20-25 M-steps (their ratio is 1.0-1.3 at
    step 21, 1.00-1.06 by step 25); planted corpora converging from below or after an
    overshoot (K = 3-5, documents of 5-100 tokens) reach 1.5 at the least, and no flag.

    Parameters
    ----------
    scales : array-like of shape (n_steps,)
        ``sum_k alpha_k`` at the start and after each batch M-step (> 0).
    window, steady, move
        The rule above (defaults :data:`DIVERGENCE_WINDOW` = 20, :data:`DIVERGENCE_STEADY` =
        1.2, :data:`DIVERGENCE_MOVE` = 0.2).

    Returns
    -------
    int
        +1: alpha grows without bound; -1: it shrinks to 0; 0: no divergence detected.

    Notes
    -----
    Minka (2000), "Estimating a Dirichlet distribution" (the maximum exists when the observed
    mean logs are not those of identical or degenerate draws); Blei, Ng & Jordan (2003),
    appendix A.4.2.
    """
    s = np.asarray(scales, dtype=np.float64)
    if s.size < window + 1:
        return 0
    s = s[-(window + 1):]
    d = np.diff(s)
    if np.all(d > 0):
        u, direction, moved = s, 1, s[-1] / s[0]
    elif np.all(d < 0):
        u, direction, moved = 1.0 / s, -1, s[0] / s[-1]
    else:
        return 0
    inc = np.diff(u)
    if inc.max() <= steady * inc.min() and moved >= 1.0 + move:
        return direction
    return 0


class LDAPriors:
    """What learning LDA's Dirichlet priors carries across the M-steps of one run.

    Parameters
    ----------
    n_components : int
        K.
    learn_alpha, learn_eta : bool
        Whether alpha (``doc_topic_prior='auto'``) and eta (``topic_word_prior='auto'``) are
        learned.

    Attributes
    ----------
    scales : list of float or None
        ``sum_k alpha_k`` at the start and after each batch M-step (:func:`prior_divergence`'s
        trace); None before :meth:`start` (statistics set by hand: no trace).
    held : bool
        Whether the batch alpha is held (its iteration diverges).
    """

    def __init__(self, n_components, learn_alpha=False, learn_eta=False):
        self.K = int(n_components)
        self.learn_alpha, self.learn_eta = bool(learn_alpha), bool(learn_eta)
        self.scales, self.held = None, False

    def start(self, alpha, eta, V, topic_word_prior=None, seed=None):
        """The priors an initialisation starts from, once V is known: ``'auto'`` alpha (K,) at
        1/K, ``'auto'`` eta (V,) at 1/K, array shapes checked against V, and ``seed(eta)``
        (the seeded topics' extra mass, :func:`latentkit.topic._seeding.seeded_prior`). Resets
        the trace, so every ``n_init`` run and every refit starts from the same values.

        Returns
        -------
        (alpha, eta)
        """
        K, V = self.K, int(V)
        if self.learn_alpha:
            alpha = np.full(K, 1.0 / K)
            self.scales, self.held = [1.0], False  # prior_divergence's trace
        if self.learn_eta:
            eta = np.full(V, 1.0 / K)
        elif np.ndim(eta) and eta.shape[-1] != V:
            raise InputError(f"topic_word_prior as an array must have n_features={V} columns, "
                             f"got shape {np.shape(topic_word_prior)}.")
        if seed is not None:
            eta = seed(eta)
        return alpha, eta

    def stats(self, X, ss, doc_elbo, gamma):
        """:func:`prior_stats` of documents ``X``."""
        return prior_stats(self.learn_alpha, X, ss, doc_elbo, gamma)

    def empty_stats(self, V):
        """:func:`empty_prior_stats`."""
        return empty_prior_stats(self.learn_alpha, self.K, V)

    def update(self, stats, alpha, eta, components, step_size=None):
        """The empirical-Bayes step of the learned priors after the topics' update: alpha from
        ``stats.elog_theta``, eta from the new ``components``.

        ``step_size=None`` is a batch iteration: each prior is maximised over (the Newton
        iteration to convergence, :func:`fit_dirichlet_prior`), so the bound stays
        non-decreasing. A batch alpha whose iteration diverges (:func:`prior_divergence`: no
        maximum exists) is held where that is detected, with a
        :class:`latentkit.exceptions.PriorDivergenceWarning`. A number is a stochastic step of
        that size: ONE Newton step scaled by it (:func:`dirichlet_newton_step`), whatever the
        size, 1 included, as gensim's ``LdaModel.update_alpha(gammat, rho)`` and
        ``update_eta(lambdat, rho)`` (a step of size 1 is still one step from one minibatch's
        statistics, not a maximisation over them).

        Returns
        -------
        (alpha, eta)
            The new priors (the given ones where not learned).
        """
        batch = step_size is None
        if self.learn_alpha and stats.n > 0:
            logphat = stats.elog_theta / stats.n
            a = alpha
            if batch and stats.n == 1 and a.size > 1:
                self._warn_single_draw("doc_topic_prior", a, "one document", "more documents")
            if batch and not self.held:
                alpha = self._hold_diverging(fit_dirichlet_prior(a, stats.n, logphat))
            elif not batch:  # a stochastic step: noisy, so no divergence rule (one scaled step)
                alpha = dirichlet_newton_step(a, stats.n, logphat, step_size)
        if self.learn_eta:
            lam = components
            elog_beta = psi(lam) - psi(lam.sum(axis=1, keepdims=True))
            K = float(lam.shape[0])
            logphat = elog_beta.sum(axis=0) / K
            e = eta
            if K == 1 and e.size > 1:
                self._warn_single_draw("topic_word_prior", e, "one topic", "n_components > 1")
            eta = (fit_dirichlet_prior(e, K, logphat) if batch else
                   dirichlet_newton_step(e, K, logphat, step_size))
        return alpha, eta

    def _hold_diverging(self, new):
        """The batch alpha update ``new`` unless :func:`prior_divergence` flags the trace: then
        alpha stays at its current value for the rest of the run (warned once)."""
        scales = self.scales
        if scales is None:  # statistics set by hand (no start): no trace
            return new
        scales.append(float(np.sum(new)))
        direction = prior_divergence(scales)
        if not direction:
            return new
        self.held = True
        s0, s1 = scales[-DIVERGENCE_WINDOW - 1], scales[-1]
        cause = ("grew at every one of the last {w} iterations without slowing ({s0:.4g} -> "
                 "{s1:.4g}): the documents' topic proportions look alike (near-duplicate "
                 "documents, or documents too short, e.g. one word each, to tell them apart)"
                 if direction > 0 else
                 "shrank at every one of the last {w} iterations without slowing ({s0:.4g} -> "
                 "{s1:.4g}): every document looks like a single topic (proportions at the "
                 "corners of the simplex)").format(w=DIVERGENCE_WINDOW, s0=s0, s1=s1)
        warnings.warn(f"doc_topic_prior='auto' diverges: the scale of alpha (its sum) {cause}, so "
                      f"its empirical-Bayes maximum does not exist on these documents. "
                      f"doc_topic_prior_ is held at this value (sum {s1:.4g}) for the rest of the "
                      f"fit; give a fixed doc_topic_prior.", PriorDivergenceWarning,
                      stacklevel=user_stacklevel())
        return new

    def _warn_single_draw(self, name, prior, what, remedy):
        """The learned prior sees a single Dirichlet draw (``what``): its empirical-Bayes
        estimate does not exist (from one draw the evidence grows without bound with the
        prior's scale), so every M-step moves it further. A ``ConvergenceWarning`` once per
        run: on the update that leaves the start value ``1 / n_components`` (:meth:`start`)."""
        if np.all(prior == 1.0 / float(self.K)):
            warnings.warn(f"{name}='auto' learns a Dirichlet prior from a single draw ({what}): "
                          f"its empirical-Bayes estimate does not exist (it grows without bound "
                          f"with every iteration), so {name}_ is not an estimate; give a fixed "
                          f"{name} or {remedy}.", ConvergenceWarning,
                          stacklevel=user_stacklevel())
