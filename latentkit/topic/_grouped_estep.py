"""LDA's per-document kernel run on groups of documents that share topic tables (the slices of
the dynamic topic model, the label sets of Labeled LDA), and LDA's monotone guard over the
groups (arrays in, values out)."""

import numpy as np

from ._lda_estep import _run_local
from ._lda_guard import GuardedLocalStep

__all__ = ["GroupedStep", "run_groups", "keep_better"]


def run_groups(parts, rows, tables, alpha, max_iter, tol, gamma0=None, cols=None):
    """:func:`latentkit.topic._lda_estep._run_local` on every group.

    Parameters
    ----------
    parts : list of csr_matrix or None
        Each group's documents (None: the group is empty here).
    rows : list of ndarray of int64
        Their positions among all the documents.
    tables : list of (ndarray (V, K_g), ndarray (V,))
        Each group's shifted transposed table and shift.
    alpha : float
        Symmetric document-topic prior.
    max_iter, tol
        The kernel's sweep cap and tolerance (``max_iter=0`` with ``gamma0``: evaluate it).
    gamma0 : ndarray of shape (D, K), optional
        Starting gamma of every document (columns ``cols[g]`` of group g).
    cols : list of ndarray, optional
        The topics of each group (all of them when None).

    Returns
    -------
    list of (int, ndarray, tuple)
        ``(group, rows, (gamma, exp_theta, ratio, doc_elbo))`` for every non-empty group.
    """
    out = []
    for g, (r, Xg) in enumerate(zip(rows, parts)):
        if Xg is None:
            continue
        bt, shift = tables[g]
        g0 = None
        if gamma0 is not None:
            g0 = gamma0[r] if cols is None else gamma0[np.ix_(r, cols[g])]
        out.append((g, r, _run_local(Xg, bt, shift, alpha, max_iter, tol, g0)[:4]))
    return out


def keep_better(new, old, parts):
    """Per document, the result (of :func:`run_groups`) with the higher local ELBO: LDA's
    guard (``old`` evaluates the previous gamma at the current topics)."""
    mixed = []
    for (g, r, n_loc), (_, _, o_loc) in zip(new, old):
        keep = o_loc[3] > n_loc[3]
        gamma, et, ratio, de = (a.copy() for a in n_loc)
        gamma[keep], et[keep], de[keep] = o_loc[0][keep], o_loc[1][keep], o_loc[3][keep]
        ratio = np.where(np.repeat(keep, np.diff(parts[g].indptr)), o_loc[2], ratio)
        mixed.append((g, r, (gamma, et, ratio, de)))
    return mixed


class GroupedStep(GuardedLocalStep):
    """The E-step of one part (in memory, a chunk, a Dask block) of a grouped model for LDA's
    guard on every path (:class:`latentkit.topic._lda_guard.GuardedEStep`).

    Parameters
    ----------
    local : callable
        ``local(data, gamma0=None, max_iter=None)``: :func:`run_groups` on the part's groups
        at the current globals (``max_iter=0`` with ``gamma0`` evaluates ``gamma0``).
    gather : callable
        ``gather(data, groups)``: ``(gamma (D, K), doc_elbo (D,), statistics)`` from the
        groups' results.

    A local state is ``(groups, gamma, statistics, doc_elbo)`` (the guard reads
    ``doc_elbo`` as its entry 3); the per-document state kept between iterations is gamma.
    """

    def __init__(self, local, gather):
        self._run, self._gather = local, gather

    def _state(self, data, groups):
        gamma, doc_elbo, stats = self._gather(data, groups)
        return groups, gamma, stats, doc_elbo

    def cold(self, data, cap):
        """The cold start (``gamma = alpha + N_d / K``), at most ``cap`` sweeps."""
        return self._state(data, self._run(data, None, cap))

    def keep_better(self, data, local, gamma_old):
        """``local`` with each document's previous ``gamma_old`` kept where it is better."""
        old = self._run(data, gamma_old, 0)
        return self._state(data, keep_better(local[0], old, data.parts))

    @staticmethod
    def stats(data, local):
        """(statistics, gamma) of a part from its local state."""
        return local[2], local[1]
