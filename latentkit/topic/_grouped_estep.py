"""LDA's per-document kernel run on groups of documents that share topic tables (the slices of
the dynamic topic model, the label sets of Labeled LDA), and LDA's monotone guard over the
groups (arrays in, values out)."""

import numpy as np

from ._lda_estep import _run_local

__all__ = ["run_groups", "keep_better"]


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
