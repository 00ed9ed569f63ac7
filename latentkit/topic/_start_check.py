"""The contract of LDA's default start (``init='auto'``): never worse than a random start
without saying so (issue 41, item 3).

The default start of a batch fit is CVB0 from one seed document per spectral topic
(:mod:`latentkit.topic._cvb0`, :mod:`latentkit.topic._start_seeds`). On planted corpora with
one dominant topic it can land in an optimum that merges the rarest topic into another, one
that a random start avoids (issue 41: ELBO -331.9 against -327.4 nats per document). So with
``init='auto'`` the start is checked, by the rule below, against the random start
(``lambda_kw ~ Gamma(100, 1/100)``, the start of ``init='random'``) drawn from a generator of
its own (:func:`random_start_generator`): the fit's generator is not touched, so where the
default start wins nothing about the fit changes, every fitted number bit for bit.

The rule (:func:`compare_starts`)
---------------------------------
Both starts run batch VB iterations (the E-step of the fit with its ``max_doc_update_iter`` and
``mean_change_tol``, each from the cold start of the fit's E-step, then ``lambda <- eta +
sstats``) with the priors the fit starts from held fixed, in lockstep, and the ELBO (nats per
document) of each is read at the start of each iteration. A run ends when its ELBO changes by
less than ``tol`` per document (the fit's own stop). The check ends after :data:`CHECK_ITER`
iterations, or as soon as the ranking cannot change: the random run is behind and has ended, or
cannot reach the default run's present bound at its present pace (its last gain times the
iterations left is below the gap; the default run only rises and VB gains shrink, so a linear
extrapolation is generous); or the default run has ended and the random run has ended too or is
ahead by ``tol``. The higher last bound wins; a random start must be ahead by ``tol`` or more
(a tie, or the same optimum to the fit's precision, goes to the default start). A winning
random start replaces the start with a :class:`~latentkit.exceptions.StartCheckWarning` giving
both bounds; the fit then continues from the random run's last topics. The check compares the
starts at fixed priors; with a learned ``doc_topic_prior='auto'`` the fit's bound is another
(issue 41's ``dom8`` seed 2: the CVB0 start wins the check and its fit still ends above the
random fit). A check, not a guarantee about the end: the runs are short (the HMMs compare at
the final bound, :mod:`latentkit.sequence._start_check`, at the price of a whole second fit).

The fit replays the check (issue 46)
------------------------------------
The default run is batch VB from the fit's start with the fit's own E-step, so while the fit
visits the same topics with the same prior, its cold E-steps are those the check ran: they are
kept (``record``, up to :data:`REPLAY_BYTES`) and the fit takes them instead of recomputing
them (:class:`latentkit.topic._lda_guard.ReplayedStart`; in memory, fixed priors, no warm-up
caps), bit for bit; when the random start wins, the fit takes the random run's last E-step.
The check then costs the random run and the default run's E-steps past the fit's end.

``init='cvb0'`` is the same default start without the check (no random run, no warning);
``init='random'`` the random start alone.
"""

import warnings

import numpy as np

from .._utils.user_frame import user_stacklevel
from ..distributions._dirichlet import dirichlet_kl
from ..exceptions import StartCheckWarning
from ._lda_estep import _beta_tables, _run_local, _suff_stats

__all__ = ["CHECK_ITER", "REPLAY_BYTES", "checked_start", "compare_starts",
           "random_start_generator", "random_topics"]

#: Most VB iterations of each run of the check (the bound of a default fit on the
#: dominant-topic corpora of issue 41 is stable after 3-5 iterations, and the random start that
#: wins there (dom8, seed 2, alpha 1/K) is ahead by 3 tol at 10; each iteration costs two cold
#: VB iterations of the fit: on KOS, K=20, 6 of each, a 4.8-5.3 s fit took 7.4-7.9 s, load 2.8).
CHECK_ITER = 10

#: Most bytes of the E-steps the check keeps for the fit to replay (``record`` of
#: :func:`compare_starts`): per iteration the topics (K V), two (D, K) tables, the (nnz,)
#: ratios and the (D,) bounds, 8 bytes each; on KOS, K=20, about 5 MB an iteration.
REPLAY_BYTES = 256 << 20

#: Mixed into the seed of the random start's generator, so its stream is its own.
_STREAM_TAG = 41


def random_start_generator(rng):
    """A generator for the random start, derived from the fit's generator ``rng`` without
    advancing it (a copy of its state draws the seed).

    Parameters
    ----------
    rng : numpy.random.Generator
        The fit's generator, where the default start takes it; left unchanged.

    Returns
    -------
    numpy.random.Generator
    """
    copy = np.random.Generator(type(rng.bit_generator)())
    copy.bit_generator.state = rng.bit_generator.state
    return np.random.default_rng([int(copy.integers(2 ** 63)), _STREAM_TAG])


def random_topics(rng, shape):
    """The random start of LDA: ``lambda_kw ~ Gamma(100, 1/100)`` (Hoffman et al. 2010)."""
    return rng.gamma(100.0, 0.01, size=shape)


def _bound_and_step(X, lam, alpha, eta, max_doc_update_iter, mean_change_tol, gamma0=None):
    """(ELBO at ``lam`` in nats per document, the next batch VB topics, the documents'
    gamma, the kernel's local outputs (gamma, exp_theta, ratio, doc_elbo): those of the
    fit's cold E-step at ``lam``). The check starts each E-step cold (``gamma0=None``): from
    a random start, a warm start from the first iteration's gamma held the run in a poor
    optimum (dom8, seed 2: -410.2 nats per document after 20 iterations against -394.0
    cold)."""
    exp_beta_t, shift = _beta_tables(lam)
    local = _run_local(X, exp_beta_t, shift, alpha, max_doc_update_iter, mean_change_tol,
                       gamma0)[:4]
    ss = _suff_stats(X, local[2], local[1], exp_beta_t)  # as _run_e_step, bit for bit
    doc_elbo = local[3]
    bound = (float(np.sum(doc_elbo)) - float(np.sum(dirichlet_kl(lam, eta)))) / X.shape[0]
    return bound, eta + ss, local[0], local


def _entry_bytes(lam, local):
    return int(lam.nbytes + sum(a.nbytes for a in local))


def compare_starts(X, default, random, alpha, eta, max_doc_update_iter, mean_change_tol, tol,
                   max_iter=CHECK_ITER, record=None):
    """Compare two starting topics by the ELBO after a short batch VB run (module docstring).

    Parameters
    ----------
    X : scipy.sparse.csr_matrix of shape (n_documents, n_features)
        The documents of the start (counts).
    default, random : ndarray of shape (n_components, n_features)
        The default and the random starting topics lambda (> 0); not modified.
    alpha : float or ndarray of shape (n_components,)
        The document-topic prior the fit starts from (held fixed).
    eta : float or ndarray of shape (n_features,) or (n_components, n_features)
        The topic-word prior the fit starts from (held fixed).
    max_doc_update_iter : int
        Sweeps per document of the E-step.
    mean_change_tol : float
        Stop of a document's sweeps.
    tol : float
        The fit's stop: change of the ELBO per document (nats).
    max_iter : int, default :data:`CHECK_ITER`
        Most VB iterations per run.
    record : list, optional
        Where given, the winning run's E-steps that a fit from the returned topics repeats
        are appended to it, in order, as ``(lam, local)`` pairs (``local``: the kernel's
        gamma, exp_theta, ratio and doc_elbo of the cold E-step at the topics ``lam``): the
        default run's every E-step, the random run's last; at most :data:`REPLAY_BYTES`.
        The fit replays them instead of recomputing them
        (:class:`latentkit.topic._lda_guard.ReplayedStart`).

    Returns
    -------
    report : dict
        ``'chosen'`` ('default' or 'random'), ``'default'`` and ``'random'`` (the last
        bounds of the two runs, nats per document), ``'n_iter_default'`` and
        ``'n_iter_random'`` (VB iterations run).
    topics : ndarray of shape (n_components, n_features)
        ``default`` itself (the same object) when the default start wins, else the random
        run's last topics.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.datasets import make_lda_corpus
    >>> X, _ = make_lda_corpus(n_components=2, n_docs=50, vocab_size=20, random_state=0)
    >>> rng = np.random.default_rng(0)
    >>> a, b = random_topics(rng, (2, 20)), random_topics(rng, (2, 20))
    >>> report, topics = compare_starts(X, a, b, 0.5, 0.5, 100, 1e-3, 1e-3)
    >>> report["chosen"] in ("default", "random")
    True
    """
    args = (alpha, eta, max_doc_update_iter, mean_change_tol)
    runs = {}
    for name, lam in (("default", default), ("random", random)):
        bound, nxt, gamma, local = _bound_and_step(X, lam, *args)
        runs[name] = dict(bound=bound, lam=lam, next=nxt, gamma=gamma, n_iter=1, gain=np.inf,
                          done=False, steps=[(lam, local)], nbytes=_entry_bytes(lam, local))
        if runs[name]["nbytes"] > REPLAY_BYTES:
            runs[name]["steps"] = []
    d, r = runs["default"], runs["random"]
    for it in range(1, max_iter):
        gap = d["bound"] - r["bound"]
        # the random run is out when it cannot reach the default run's present bound at its
        # present pace (the default run only rises), or has converged behind it
        if gap > 0 and (r["done"] or r["gain"] * (max_iter - it) < gap):
            break
        if d["done"] and (r["done"] or -gap >= tol):
            break  # both ended, or the random run is ahead of the converged default run
        for run in (d, r):
            if not run["done"]:
                bound, nxt, gamma, local = _bound_and_step(X, run["next"], *args)
                _keep_step(run, record is not None and run is d, local)
                run.update(gain=bound - run["bound"], bound=bound, lam=run["next"], next=nxt,
                           gamma=gamma, n_iter=run["n_iter"] + 1)
                run["done"] = abs(run["gain"]) < tol
    chosen = "random" if r["bound"] - d["bound"] >= tol else "default"
    if record is not None:  # the E-steps a fit from the chosen topics repeats
        record.extend(d["steps"] if chosen == "default" else r["steps"][-1:])
    report = {"chosen": chosen, "default": d["bound"], "random": r["bound"],
              "n_iter_default": d["n_iter"], "n_iter_random": r["n_iter"]}
    return report, (default if chosen == "default" else r["lam"])


def _keep_step(run, keep_all, local):
    """Keep the E-step ``local`` at ``run['next']`` for the fit to replay: with
    ``keep_all`` (the default run) every E-step while :data:`REPLAY_BYTES` allows (the kept
    ones are the first: the fit replays them in order), else only the last."""
    size = _entry_bytes(run["next"], local)
    if not keep_all:
        run["steps"], run["nbytes"] = [(run["next"], local)], size
    elif run["nbytes"] + size <= REPLAY_BYTES:
        run["steps"].append((run["next"], local))
        run["nbytes"] += size


def checked_start(X, default, random_rng, alpha, eta, max_doc_update_iter, mean_change_tol,
                  tol, record=None):
    """The start of ``init='auto'``: ``default`` checked against a random start drawn from
    ``random_rng`` (:func:`compare_starts`), with the warning of the module docstring.

    Parameters
    ----------
    X, alpha, eta, max_doc_update_iter, mean_change_tol, tol
        As for :func:`compare_starts`.
    default : ndarray of shape (n_components, n_features)
        The default start's topics.
    random_rng : numpy.random.Generator
        The random start's own generator (:func:`random_start_generator`).
    record : list, optional
        As for :func:`compare_starts`: the E-steps the fit can replay.

    Returns
    -------
    report, topics
        As :func:`compare_starts`; the report also has ``'check_iter'``.

    Warns
    -----
    StartCheckWarning
        When the random start wins (both bounds, nats per document).
    """
    random = random_topics(random_rng, default.shape)
    report, topics = compare_starts(X, default, random, alpha, eta, max_doc_update_iter,
                                    mean_change_tol, tol, record=record)
    report["check_iter"] = CHECK_ITER
    if report["chosen"] == "random":
        warnings.warn(
            f"init='auto': after a short VB run the default (CVB0) start reached an ELBO of "
            f"{report['default']:.4f} nats per document and a random start "
            f"{report['random']:.4f} (higher by {report['random'] - report['default']:.3g}); "
            f"continuing from the random start (init='cvb0' keeps the default start "
            f"unchecked).", StartCheckWarning, stacklevel=user_stacklevel())
    return report, topics
