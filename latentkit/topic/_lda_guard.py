"""LDA's monotone guard (class Notes of :class:`LatentDirichletAllocation`) on every path.

In every iteration of a batch fit, the cold-start E-step runs first; when its ELBO is below
the previous iteration's, each document whose previous gamma has the higher local ELBO at the
current topics keeps it. The previous gammas are per-document state: an in-memory fit keeps
them in memory, a fit of a chunked source in temporary ``.npy`` files, one per chunk (out of
core: memory stays bounded by one chunk), and a Dask fit on the workers, beside their blocks.
The three paths compute the same numbers, so their fits agree (to the rounding of the sums
over chunks).

Two objects, neither of which sees the model:

* :class:`LDALocalStep`: the E-step of one part (chunk, block) at fixed topics, built from
  arrays (the kernel's tables, alpha, the tolerance); it returns statistics and gammas.
* :class:`ReplayedStart`: the E-steps that the start check of ``init='auto'``
  (:mod:`latentkit.topic._start_check`) ran at the very topics the fit then visits; the fit
  takes them instead of recomputing them (the kernel is deterministic, so bit for bit).
* :class:`GuardedEStep`: the fit's warm state (the previous ELBO, the per-document states,
  the iteration count of the warm-up caps, the chunk files) and the guard's logic. The HDP
  topic model uses it with its own local step (:mod:`latentkit.topic._hdp_estep`).
"""

import os
import tempfile

import numpy as np

from ._lda_estep import _run_local, _suff_stats
from ._lda_priors import prior_stats

__all__ = ["GuardedEStep", "GuardedLocalStep", "LDALocalStep", "ReplayedStart"]


def _keep_better(local, evaluated, indptr):
    """Each document keeps the previous local state (``evaluated``: the kernel's outputs at
    the previous gamma, evaluated at the current topics) where its local ELBO is higher."""
    gamma, exp_theta, ratio, doc_elbo = local
    g_old, et_old, r_old, de_old, _ = evaluated
    keep = de_old > doc_elbo
    gamma[keep] = g_old[keep]
    exp_theta[keep] = et_old[keep]
    doc_elbo[keep] = de_old[keep]
    ratio = np.where(np.repeat(keep, np.diff(indptr)), r_old, ratio)
    return gamma, exp_theta, ratio, doc_elbo


class GuardedLocalStep:
    """What every local step of :class:`GuardedEStep` shares: :meth:`part` from the step's own
    ``cold``, ``keep_better`` and ``stats``; the per-document state kept between iterations is
    stored as it is (``flatten`` / ``split``)."""

    def part(self, X, cap, old=None):
        """Statistics and gamma of one part; with ``old`` (the previous gammas) the guard
        applied (the cold start recomputed: the kernel is deterministic)."""
        local = self.cold(X, cap)
        if old is not None:
            local = self.keep_better(X, local, old)
        return self.stats(X, local)

    @staticmethod
    def flatten(state):
        return state

    @staticmethod
    def split(flat):
        return flat


class LDALocalStep(GuardedLocalStep):
    """LDA's E-step of one part at fixed topics, from arrays.

    Parameters
    ----------
    exp_beta_t : ndarray of shape (n_features, n_components)
        The kernel's shifted table ``exp(E[log beta] - shift)``, transposed.
    beta_shift : ndarray of shape (n_features,)
        Its shift ``max_k E[log beta_kw]``.
    alpha : float or ndarray of shape (n_components,)
        The document-topic prior.
    mean_change_tol : float
        The documents' stopping tolerance.
    learn_alpha : bool
        Whether the statistics carry ``E[log theta]`` (alpha learned).
    """

    def __init__(self, exp_beta_t, beta_shift, alpha, mean_change_tol, learn_alpha):
        self.exp_beta_t, self.beta_shift = exp_beta_t, beta_shift
        self.alpha, self.tol, self.learn_alpha = alpha, mean_change_tol, learn_alpha

    def cold(self, X, cap):
        """gamma, exp_theta, ratio, doc_elbo of the cold start, at most ``cap`` sweeps."""
        return _run_local(X, self.exp_beta_t, self.beta_shift, self.alpha, cap, self.tol)[:4]

    def keep_better(self, X, local, gamma_old):
        """``local`` with each document's previous ``gamma_old`` kept where it is better."""
        evaluated = _run_local(X, self.exp_beta_t, self.beta_shift, self.alpha, 0, 0.0,
                               gamma0=gamma_old)
        return _keep_better(local, evaluated, X.indptr)

    def stats(self, X, local):
        """(statistics, gamma) of a part from its local state."""
        gamma, exp_theta, ratio, doc_elbo = local
        ss = _suff_stats(X, ratio, exp_theta, self.exp_beta_t)
        return prior_stats(self.learn_alpha, X, ss, doc_elbo, gamma), gamma



class _ReplayedLocalStep:
    """An :class:`LDALocalStep` whose cold start is given (taken once)."""

    def __init__(self, step, local):
        self.step, self.local = step, local

    def cold(self, X, cap):
        local, self.local = self.local, None
        return self.step.cold(X, cap) if local is None else local

    def __getattr__(self, name):
        return getattr(self.step, name)


class ReplayedStart:
    """The cold E-steps of the start check that a batch fit replays (in memory only).

    The check's default run (:func:`latentkit.topic._start_check.compare_starts`) is batch VB
    from the fit's start with the fit's E-step; while the fit visits the same topics with
    the same prior (no guard repair, priors not learned, no warm-up caps), its cold E-steps
    are those the check ran: the fit takes them in order instead of recomputing them. Its
    numbers are those of the same fit without the replay, bit for bit; at the first
    difference (topics, prior or documents) the rest is dropped.

    Parameters
    ----------
    X : scipy.sparse.csr_matrix of shape (n_documents, n_features)
        The documents of the check.
    alpha : float or ndarray of shape (n_components,)
        The document-topic prior of the check.
    steps : list of (ndarray of shape (n_components, n_features), tuple)
        ``(lam, local)`` in the order of the check (``compare_starts``' ``record``).
    """

    def __init__(self, X, alpha, steps):
        self.X, self.alpha, self.steps = X, alpha, list(steps)
        self._same = None
        self.n_replayed = 0

    def _same_data(self, data):
        if self._same is None:
            X = self.X
            self._same = bool(
                data is X or (getattr(data, "format", None) == "csr" and data.shape == X.shape
                              and data.nnz == X.nnz
                              and np.array_equal(data.indptr, X.indptr)
                              and np.array_equal(data.indices, X.indices)
                              and np.array_equal(data.data, X.data)))
        return self._same

    def step(self, step, data, lam, alpha):
        """``step`` (an :class:`LDALocalStep` at topics ``lam`` and prior ``alpha``), with
        its cold start on ``data`` replayed when the next kept E-step is that one."""
        if not self.steps:
            return step
        lam0, local = self.steps.pop(0)
        if (self._same_data(data) and lam0.shape == lam.shape and np.array_equal(lam0, lam)
                and np.array_equal(np.asarray(self.alpha), np.asarray(alpha))):
            self.n_replayed += 1
            return _ReplayedLocalStep(step, local)
        self.steps.clear()  # the fit left the check's path: nothing more to replay
        return step


class _ChunkStore:
    """Per-chunk arrays of the previous and current iteration in a temporary directory
    (removed when the fit's warm state is dropped)."""

    def __init__(self):
        self._dir = tempfile.TemporaryDirectory(prefix="latentkit-lda-")
        self.generation = 0

    def _path(self, generation, i):
        return os.path.join(self._dir.name, f"{generation}_{i}.npy")

    def put(self, i, array):
        np.save(self._path(self.generation, i), array)

    def previous(self, i):
        return np.load(self._path(self.generation - 1, i))

    def advance(self, n_chunks):
        for i in range(n_chunks):  # the previous iteration's files are no longer needed
            path = self._path(self.generation - 1, i)
            if os.path.exists(path):
                os.remove(path)
        self.generation += 1


def _elbo(stats, glob):
    return (float(stats.data_term) + glob) / float(stats.n)


class GuardedEStep:
    """The warm state of one batch run with the monotone guard (a model's ``_warm_state``).

    Parameters
    ----------
    max_doc_update_iter : int
        Sweeps per document at most.
    warmup_doc_update_iter : int or None
        The warm-up caps ``warmup * 2 ** (i - 1)`` of iteration i (None: none).
    replay : ReplayedStart or None, default None
        The start check's E-steps for the model's E-step to replay (LDA).

    Attributes
    ----------
    elbo : float or None
        The previous iteration's ELBO (nats per document).
    state : object
        The previous iteration's per-document local states (in memory: an array or a tuple of
        arrays; Dask: one delayed entry per block; chunked: in ``store``).
    it : int
        Iterations run.
    """

    def __init__(self, max_doc_update_iter, warmup_doc_update_iter=None, replay=None):
        self.max_doc_update_iter = int(max_doc_update_iter)
        self.warmup = warmup_doc_update_iter
        self.replay = replay
        self.elbo = self.state = self.store = None
        self.it = 0

    def cap(self):
        """The sweep cap of this iteration (``warmup_doc_update_iter``), counting it."""
        cap = self.max_doc_update_iter
        if self.warmup is not None:  # cheap first iterations (class docs)
            cap = min(cap, int(self.warmup) * 2 ** min(self.it, 30))
        self.it += 1
        return cap

    def e_step(self, data, step, glob, empty_stats, on_blocks=None):
        """The statistics of one batch iteration with the guard, for in-memory data, a
        :class:`latentkit.sources.ValidatedChunks` or a
        :class:`latentkit.parallel.dask.DaskData`.

        Parameters
        ----------
        data : the fit's data
        step : a local step (:class:`LDALocalStep` or the HDP's) at the current globals
        glob : float
            The global ELBO term at the current globals (nats).
        empty_stats : callable
            Zero statistics.
        on_blocks : (model, func), optional
            Dask only: ``data.map_blocks(model, func, cap, [old])`` runs ``func(model, X,
            cap, old=None)`` (the model's :meth:`LDALocalStep.part`) where the blocks live.
        """
        cap = self.cap()
        previous = self.elbo
        if hasattr(data, "reduce_stats"):  # Dask: the gammas stay on the workers
            model, func = on_blocks
            parts = data.map_blocks(model, func, cap)
            stats = data.sum_first(parts)
            if previous is not None and _elbo(stats, glob) < previous:
                parts = data.map_blocks(model, func, cap, per_block=(self.state,))
                stats = data.sum_first(parts)
            self.state = data.seconds(parts)
        elif hasattr(data, "iter_chunks"):  # a chunked source: the gammas in temporary files
            if self.store is None:
                self.store = _ChunkStore()
            store = self.store
            stats = empty_stats()
            n_chunks = 0
            for i, X in enumerate(data.iter_chunks()):
                s, state = step.part(X, cap)
                store.put(i, step.flatten(state))
                stats = stats + s
                n_chunks += 1
                del s, state, X  # not held while the next chunk is read
            if previous is not None and _elbo(stats, glob) < previous:
                stats = empty_stats()
                for i, X in enumerate(data.iter_chunks()):
                    s, state = step.part(X, cap, step.split(store.previous(i)))
                    store.put(i, step.flatten(state))
                    stats = stats + s
                    del s, state, X
            store.advance(n_chunks)
        else:  # in memory: the cold results are kept for the guard (no second cold pass)
            local = step.cold(data, cap)
            n = float(data.shape[0])
            if previous is not None and (float(np.sum(local[3])) + glob) / n < previous:
                local = step.keep_better(data, local, self.state)
            stats, self.state = step.stats(data, local)
        self.elbo = _elbo(stats, glob)
        return stats
