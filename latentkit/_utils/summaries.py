"""Mergeable data summaries for data-derived defaults (one statistics pass over all the data).

A model whose defaults depend on the training data (LDA's ``mean_doc_length_`` and ``tol_``,
the variational mixtures' ``mean_prior_`` and ``covariance_prior_``, CategoricalHMM's alphabet,
GaussianHMM's shift, the width checks of the dense K x V models) computes them from a summary of
**all** the data, never from the first chunk: ``_data_summary(data)`` summarises validated data,
``+`` merges the summaries of chunks (exactly or to rounding), and ``_set_data_defaults(summary)``
resolves the defaults. In-memory data is one chunk; :class:`latentkit.inference.ValidatedChunks`
and :class:`latentkit.parallel.dask.DaskData` merge the chunks' (blocks') summaries first.

Source of the pairwise update of means and scatter matrices: Chan, Golub & LeVeque (1979),
*Updating formulae and a pairwise algorithm for computing sample variances*, eq. 2.1.
"""

import math

import numpy as np
import scipy.sparse as sp
from ..exceptions import InputError

__all__ = ["CountSummary", "MissingMomentSummary", "MomentSummary", "RowSummary", "SymbolSummary",
           "check_second_moments"]


class CountSummary:
    """Rows, total of the entries and the distinct columns used, of a count matrix.

    Attributes
    ----------
    n_rows : float
    total : float
        Sum of all counts (tokens).
    weight : float
        Total sample weight of the rows (their number when unweighted).
    columns : ndarray of int64
        Sorted distinct column indices with a non-zero count.
    """

    def __init__(self, n_rows, total, columns, weight=None):
        self.n_rows = float(n_rows)
        self.total = float(total)
        self.columns = np.asarray(columns, dtype=np.int64)
        self.weight = self.n_rows if weight is None else float(weight)

    @classmethod
    def of(cls, X, sample_weight=None):
        """Summary of a CSR matrix (or dense array) of counts, with the rows' total weight."""
        w = None if sample_weight is None else float(np.sum(sample_weight))
        if sp.issparse(X):
            X = sp.csr_matrix(X)
            used = X.indices[X.data != 0]
            if X.shape[1] <= 8 * used.size:  # a count per column, O(nnz + V), not a sort;
                cols = np.flatnonzero(np.bincount(used, minlength=X.shape[1]))
            else:  # a declared width far beyond the data: nothing of size V allocated
                cols = np.unique(used)
            return cls(X.shape[0], X.data.sum(), cols, w)
        X = np.asarray(X)
        return cls(X.shape[0], X.sum(), np.flatnonzero(X.any(axis=0)), w)

    def __add__(self, other):
        return CountSummary(self.n_rows + other.n_rows, self.total + other.total,
                            np.union1d(self.columns, other.columns), self.weight + other.weight)


class MomentSummary:
    """Weighted count, mean, scatter matrix and per-feature range of rows of numbers.

    Attributes
    ----------
    n : int
        Rows.
    sw : float
        Total weight.
    mean : ndarray of shape (D,)
        Weighted mean.
    scatter : ndarray of shape (D, D), or (D,) (its diagonal)
        ``sum_i w_i (x_i - mean)(x_i - mean)^T`` (inf when it overflows float64).
    xmin, xmax : ndarray of shape (D,)
        Smallest and largest value of every feature (all rows, whatever their weight).
    """

    def __init__(self, n, sw, mean, scatter, xmin, xmax):
        self.n, self.sw = int(n), float(sw)
        self.mean, self.scatter = mean, scatter
        self.xmin, self.xmax = xmin, xmax

    @classmethod
    def of(cls, X, w, diagonal=False):
        """Summary of rows ``X`` (n, D) with weights ``w`` (n,) (two passes: mean, then
        scatter about it); ``diagonal=True`` keeps only the variances' sums (D,), O(n D)
        instead of O(n D^2), for models that need the mean and the scale only."""
        n, D = X.shape
        sw = float(w.sum())
        with np.errstate(over="ignore", invalid="ignore"):
            mean = (w @ X) / sw if sw > 0 else np.zeros(D)
            Xc = X - mean
            scatter = w @ (Xc * Xc) if diagonal else (Xc * w[:, None]).T @ Xc
        if n == 0:
            return cls(0, 0.0, mean, scatter, np.full(D, np.inf), np.full(D, -np.inf))
        return cls(n, sw, mean, scatter, X.min(axis=0), X.max(axis=0))

    def __add__(self, other):
        if other.sw <= 0 or self.sw <= 0:
            a, b = (self, other) if other.sw <= 0 else (other, self)
            return MomentSummary(self.n + other.n, a.sw, a.mean, a.scatter,
                                 np.minimum(self.xmin, other.xmin),
                                 np.maximum(self.xmax, other.xmax))
        sw = self.sw + other.sw
        with np.errstate(over="ignore", invalid="ignore"):
            delta = other.mean - self.mean
            mean = self.mean + delta * (other.sw / sw)
            cross = np.outer(delta, delta) if self.scatter.ndim == 2 else delta * delta
            scatter = self.scatter + other.scatter + cross * (self.sw * other.sw / sw)
        return MomentSummary(self.n + other.n, sw, mean, scatter,
                             np.minimum(self.xmin, other.xmin), np.maximum(self.xmax, other.xmax))


class MissingMomentSummary(MomentSummary):
    """:class:`MomentSummary` of rows with missing entries (NaN), mergeable across chunks.

    ``mean`` is the weighted mean of the observed entries of each column (0 for a column with
    none), ``scatter[d, e] = sum_i w_i (x_id - mean_d)(x_ie - mean_e)`` over the rows where
    both ``d`` and ``e`` are observed (the scatter of the data with NaN filled by the column
    means: exactly what the in-memory fit sees), ``xmin``/``xmax`` the range of the observed
    entries (0 for a column with none), ``n`` and ``sw`` the rows and their total weight.
    Mergeable because it keeps, for every pair ``(d, e)`` (every column when ``diagonal``),
    the weight of the rows observing both, the mean of ``x_d`` over them and their centred
    cross product; ``+`` merges each pair with the pairwise update, so the summary of the
    chunks equals the summary of their concatenation to rounding, whatever the chunks.

    Attributes
    ----------
    pair_weight : ndarray (D, D) or (D,)
        ``W_de = sum_i w_i [d and e observed]``.
    pair_mean : ndarray (D, D) or (D,)
        ``m_de`` = weighted mean of ``x_d`` over those rows (0 where ``W_de = 0``).
    pair_scatter : ndarray (D, D) or (D,)
        ``C_de = sum_i w_i (x_id - m_de)(x_ie - m_ed)`` over those rows.

    Source: Chan, Golub & LeVeque (1979), eq. 2.1, applied to every pair of columns.
    """

    def __init__(self, n, sw, pair_weight, pair_mean, pair_scatter, omin, omax):
        self.pair_weight, self.pair_mean, self.pair_scatter = pair_weight, pair_mean, pair_scatter
        self._omin, self._omax = omin, omax
        diag = pair_weight.ndim == 1
        col_w = pair_weight if diag else np.diagonal(pair_weight)
        col_m = pair_mean if diag else np.diagonal(pair_mean)
        seen = col_w > 0
        mean = np.where(seen, col_m, 0.0)
        with np.errstate(over="ignore", invalid="ignore"):
            if diag:
                scatter = pair_scatter.copy()
            else:  # move each pair's centre from (m_de, m_ed) to (mean_d, mean_e)
                dm = pair_mean - mean[:, None]
                dm = np.where((pair_weight > 0) & ~np.isnan(dm), dm, 0.0)  # nan: inf - inf
                scatter = pair_scatter + pair_weight * dm * dm.T
        super().__init__(n, sw, mean, scatter, np.where(seen, omin, 0.0),
                         np.where(seen, omax, 0.0))

    @classmethod
    def of(cls, X, w, diagonal=False):
        """Summary of rows ``X`` (n, D) with NaN at the missing entries and weights ``w`` (n,)
        (two passes: the column means of the observed entries, then the pairs about them)."""
        n, D = X.shape
        obs = ~np.isnan(X)
        if obs.all():  # no NaN: MomentSummary's arithmetic, so the defaults equal missing='error'
            full = MomentSummary.of(X, w, diagonal=diagonal)
            shape = (D,) if diagonal else (D, D)
            pm = full.mean if diagonal else np.repeat(full.mean[:, None], D, axis=1)
            return cls(n, full.sw, np.full(shape, full.sw), pm, full.scatter, full.xmin,
                       full.xmax)
        if diagonal:  # one compiled two-pass kernel, no (n, D) temporaries
            from .._kernels.missing import nan_column_stats

            col_w, mu, ss, omin, omax = nan_column_stats(np.ascontiguousarray(X, dtype=float),
                                                         np.asarray(w, dtype=float))
            return cls(n, float(w.sum()), col_w, mu, ss, omin, omax)
        obs_f = obs.astype(np.float64)
        col_w = w @ obs_f
        with np.errstate(over="ignore", invalid="ignore"):
            Y = np.where(obs, X, 0.0)
            mu = np.where(col_w > 0, (w @ Y) / np.where(col_w > 0, col_w, 1.0), 0.0)
            Y -= mu
            Y *= obs_f  # 0 at the missing entries
            pw = (obs_f * w[:, None]).T @ obs_f
            Yw = Y * w[:, None]
            dm = np.where(pw > 0, (Yw.T @ obs_f) / np.where(pw > 0, pw, 1.0), 0.0)
            pm = np.where(pw > 0, mu[:, None] + dm, 0.0)
            pc = Yw.T @ Y - pw * dm * dm.T
        if n:  # fmin/fmax skip NaN; NaN only for a column without observed entries
            omin, omax = np.fmin.reduce(X, axis=0), np.fmax.reduce(X, axis=0)
            omin = np.where(np.isnan(omin), np.inf, omin)
            omax = np.where(np.isnan(omax), -np.inf, omax)
        else:
            omin, omax = np.full(D, np.inf), np.full(D, -np.inf)
        return cls(n, float(w.sum()), pw, pm, pc, omin, omax)

    def __add__(self, other):
        w1, w2 = self.pair_weight, other.pair_weight
        W = w1 + w2
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            f2 = np.where(W > 0, w2 / np.where(W > 0, W, 1.0), 0.0)
            delta = np.where((w1 > 0) & (w2 > 0), other.pair_mean - self.pair_mean, 0.0)
            mean = np.where(w1 > 0, self.pair_mean + delta * f2, other.pair_mean)
            cross = delta * delta if delta.ndim == 1 else delta * delta.T
            scatter = self.pair_scatter + other.pair_scatter + cross * (w1 * f2)
        return MissingMomentSummary(self.n + other.n, self.sw + other.sw, W, mean, scatter,
                                    np.minimum(self._omin, other._omin),
                                    np.maximum(self._omax, other._omax))


class SymbolSummary:
    """Rows and distinct symbols of integer-coded sequences.

    Attributes
    ----------
    n : int
    symbols : ndarray of int64
        Sorted distinct symbols.
    """

    def __init__(self, n, symbols):
        self.n = int(n)
        self.symbols = np.asarray(symbols, dtype=np.int64)

    @classmethod
    def of(cls, sym):
        return cls(sym.shape[0], np.unique(sym))

    def __add__(self, other):
        return SymbolSummary(self.n + other.n, np.union1d(self.symbols, other.symbols))


class RowSummary:
    """The number of rows only (models whose only whole-data check is their count)."""

    def __init__(self, n):
        self.n = int(n)

    def __add__(self, other):
        return RowSummary(self.n + other.n)


def _check_observed_columns(summary, name):
    """Refuse (ValueError) columns that a :class:`MissingMomentSummary` never saw observed."""
    pair_weight = getattr(summary, "pair_weight", None)
    if pair_weight is None:
        return
    col_w = pair_weight if pair_weight.ndim == 1 else np.diagonal(pair_weight)
    empty = np.flatnonzero(~(col_w > 0))
    if empty.size:
        cols = ", ".join(map(str, empty[:10])) + (", ..." if empty.size > 10 else "")
        raise InputError(
            f"{name} has no observed entry in column(s) [{cols}] of {col_w.size}: every row is "
            "NaN there (or has zero sample weight), so nothing about those features can be "
            f"learned; drop them (e.g. {name}[:, ~np.isnan({name}).all(axis=0)]) before "
            "fitting.")


def check_second_moments(summary, name="X", order=2):
    """Refuse data whose second moments overflow float64.

    Every Gaussian model (the mixtures, GaussianHMM) accumulates
    ``sum_i w_i (x_i - c)(x_i - c)^T`` about a fixed point ``c`` and forms sums of a few such
    matrices (the Normal-Wishart scatter of the variational mixtures). When the largest of
    them, bounded by the total sum of squares ``S = sum_i w_i ||x_i - c||^2``, comes within a
    factor ``64 D`` of the largest float64 (1.8e308), the covariances become inf/NaN and the
    fit dies deep inside (LinAlgError, FloatingPointError, "probability zero"). Raw data is not
    rescaled internally: ``reg_covar`` and the priors are absolute quantities in the units of
    X, so a hidden rescaling would change their meaning.

    Parameters
    ----------
    summary : latentkit._utils.summaries.MomentSummary
        Of all the training rows (merged over chunks): weighted mean, scatter, range.
    name : str
        The argument's name for the message.
    order : {2, 3}, default 2
        The highest moment the model forms: 3 for the method of moments (spectral GMM), whose
        third-moment tensor sums ``n`` cubes of deviations of size up to ``d`` (the largest
        deviation): refused when ``n d^3`` comes within ``64 D^2`` of the largest float64.

    Raises
    ------
    ValueError
        ``S`` (or a single squared deviation) times ``64 n_features`` overflows float64; the
        message gives the size and the fix (standardise, or divide by a named power of ten and
        scale the fitted parameters back). Also, for a :class:`MissingMomentSummary`, a column
        without a single observed (non-NaN, positive-weight) entry: nothing about it can be
        learned, and a fit would report a mean and a near-zero variance it never saw.
    """
    if summary.n == 0:
        return
    _check_observed_columns(summary, name)
    D = summary.mean.shape[0]
    limit = math.log(np.finfo(np.float64).max) - math.log(64.0 * D ** (order - 1))
    c = summary.mean
    with np.errstate(over="ignore", invalid="ignore"):
        big = float(np.max(np.maximum(summary.xmax - c, c - summary.xmin)))
        sc = summary.scatter
        total = float(np.trace(sc) if sc.ndim == 2 else np.sum(sc))
    if not (np.isfinite(big) and np.isfinite(total)):
        log_s = math.inf
    elif big <= 0.0:
        return
    elif order == 3:
        log_s = 3.0 * math.log(big) + math.log(max(summary.n, 1))
    else:
        # the unweighted rows enter the E-step too: one squared deviation must fit as well
        log_s = max(2.0 * math.log(big), math.log(total) if total > 0 else -math.inf)
    if log_s > limit:
        e = int(math.ceil(math.log10(big))) if np.isfinite(big) else 308
        size = (f"about 1e{log_s / math.log(10.0):.0f}" if np.isfinite(log_s)
                else "above 1.8e308")
        what = "sum of squared" if order == 2 else "sum of cubed"
        raise InputError(
            f"{name} is too large in scale to fit in float64: its weighted {what} "
            f"deviations from the mean is {size}, which would "
            f"overflow (the limit is 1.8e308 / (64 n_features"
            f"{'^2' if order == 3 else ''})). Standardise "
            f"{name} (subtract "
            f"the mean, divide each feature by its standard deviation) or rescale it, e.g. "
            f"fit {name} / 1e{e} and multiply means_ by 1e{e} and covariances_ by 1e{2 * e}.")
