"""Helpers of :mod:`latentkit.plotting`: the unit of a model's ELBO, legends outside the data,
and the figure of :func:`latentkit.selection.select_n_components` (matplotlib; the ``plot``
extra)."""

import numpy as np
import matplotlib.pyplot as plt
from matplotlib.ticker import MaxNLocator
from ..exceptions import InputError

__all__ = ["elbo_unit", "plot_selection"]


def _new_ax(ax, figsize=(6.0, 4.0)):
    if ax is None:
        _, ax = plt.subplots(figsize=figsize)
    return ax


def _check_fitted(model, *attributes, what="model"):
    missing = [a for a in attributes if not hasattr(model, a)]
    if missing:
        raise InputError(f"{what} must be a fitted latentkit model with {', '.join(missing)}; "
                         f"got {type(model).__name__} without it (call fit first).")


def _colors(n):
    cmap = plt.get_cmap("tab10" if n <= 10 else "tab20")
    return np.array([cmap(i % cmap.N) for i in range(n)])


def _legend_outside(ax, below=False, **kw):
    """A legend clear of the data: right of the axes, or under the x label (``below``, for
    panels drawn side by side)."""
    if below:
        from matplotlib import rcParams
        from matplotlib.font_manager import FontProperties
        from matplotlib.transforms import offset_copy

        def points(size):
            return FontProperties(size=size).get_size_in_points()

        # the height of the x tick marks, tick labels and axis label, in points
        drop = (rcParams["xtick.major.size"] + rcParams["xtick.major.pad"]
                + points(rcParams["xtick.labelsize"]) + rcParams["axes.labelpad"]
                + 1.3 * points(rcParams["axes.labelsize"]) + 2.0)
        return ax.legend(frameon=False, loc="upper center", bbox_to_anchor=(0.5, 0.0),
                         bbox_transform=offset_copy(ax.transAxes, fig=ax.figure, y=-drop,
                                                    units="points"),
                         borderaxespad=0.0, **kw)
    return ax.legend(frameon=False, loc="upper left", bbox_to_anchor=(1.01, 1.0),
                     borderaxespad=0.0, **kw)


def elbo_unit(model):
    """The unit in which a model reports its ELBO / log-likelihood.

    Parameters
    ----------
    model : LatentModel or StochasticVI

    Returns
    -------
    str
        ``'nats per time step'`` for hidden Markov models (they have ``transmat_``),
        ``'nats per document'`` for topic models (``components_`` of a
        LatentDirichletAllocation or PLSA), ``'nats per sample'`` otherwise. A StochasticVI
        reports in the unit of the model it fits.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit import GaussianHMM, GaussianMixture
    >>> from latentkit.plotting import elbo_unit
    >>> X = np.random.default_rng(0).normal(size=(40, 1))
    >>> elbo_unit(GaussianMixture(2, random_state=0).fit(X))
    'nats per sample'
    >>> elbo_unit(GaussianHMM(2, random_state=0).fit(X))  # one sequence: per time step
    'nats per time step'
    """
    inner = getattr(model, "model", None)
    if inner is not None and hasattr(model, "heldout_bounds_"):
        model = inner
    if hasattr(model, "transmat_"):
        return "nats per time step"
    if hasattr(model, "doc_topic_prior") or type(model).__name__ == "PLSA":
        return "nats per document"
    return "nats per sample"


# ----------------------------------------------------------------------------- choosing K

_SCORE_LABELS = {
    "heldout_perplexity": "held-out perplexity\n(per token; lower is better)",
    "c_npmi": "c_npmi coherence\n(higher is better)",
    "c_v": "c_v coherence\n(higher is better)",
    "c_uci": "c_uci coherence (nats)\n(higher is better)",
    "u_mass": "u_mass coherence (nats)\n(higher is better)",
    "train_elbo": "training ELBO\n({unit})",
    "bic": "BIC (nats; lower is better)",
    "aic": "AIC (nats; lower is better)",
    "heldout_loglik": "held-out log-likelihood\n({unit})",
    "train_loglik": "training log-likelihood\n({unit})",
}


def plot_selection(selection, axes=None):
    """The scores of :func:`latentkit.selection.select_n_components` against K.

    One panel per score column (all but ``n_components`` and ``seconds``), each with its
    y label and unit (ELBO and log-likelihoods in nats per document for LDA, per time step for
    HMMs, per sample for mixtures), integer K ticks, and the chosen K as a dashed line named in
    the legend right of the last panel.

    Parameters
    ----------
    selection : latentkit.selection.Selection
    axes : sequence of matplotlib Axes, optional
        One per score column; default a new row of panels.

    Returns
    -------
    ndarray of matplotlib Axes
        Panel i shows score column i (its title is the column name); ``lines[0]`` the scores,
        ``lines[1]`` the chosen K.

    Raises
    ------
    ValueError
        An empty selection table, or fewer axes than score columns.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.plotting import plot_selection
    >>> from latentkit.selection import select_n_components
    >>> X = np.random.default_rng(0).normal(size=(60, 2))
    >>> selection = select_n_components("gmm", X, [1, 2, 3])
    >>> axes = plot_selection(selection)
    >>> [ax.get_title() for ax in axes]
    ['bic (chooses K)', 'aic', 'heldout_loglik', 'train_loglik']
    """
    if not getattr(selection, "table", None):
        raise InputError("selection must be a Selection with a non-empty table.")
    cols = [c for c in selection.columns() if c not in ("n_components", "seconds")]
    unit = {"lda": "nats per document", "hmm": "nats per time step"}.get(selection.kind,
                                                                           "nats per sample")
    if axes is None:
        _, axes = plt.subplots(1, len(cols), figsize=(3.6 * len(cols), 3.4), squeeze=False,
                               layout="constrained")
    axes = np.asarray(axes, dtype=object).ravel()
    if axes.size < len(cols):
        raise InputError(f"axes must hold {len(cols)} Axes (one per score), got {axes.size}.")
    ks = [r["n_components"] for r in selection.table]
    for ax, c in zip(axes, cols):
        ax.plot(ks, [r[c] for r in selection.table], "o-", color="#3b6ea5")
        ax.axvline(selection.best, color="#d9534f", ls="--", lw=1,
                   label=f"chosen K = {selection.best}")
        ax.set_xlabel("number of components K")
        ax.set_ylabel(_SCORE_LABELS.get(c, c).format(unit=unit), fontsize="small")
        ax.set_title(c + (" (chooses K)" if c == selection.criterion else ""), fontsize=10)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    _legend_outside(axes[len(cols) - 1], fontsize="small")
    return axes[:len(cols)]
