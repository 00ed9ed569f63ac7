"""The figure of a fitted HMM (:func:`plot_hmm`): the series with its Viterbi path as
coloured bands and the posterior state probabilities below (matplotlib; the ``plot`` extra)."""

import numpy as np
import matplotlib.pyplot as plt

from ._scores import _check_fitted, _colors, _legend_outside
from ..exceptions import InputError

__all__ = ["plot_hmm"]


def plot_hmm(model, X, lengths=None, *, window=None, axes=None, symbols=None, feature=None,
             series=None, series_label=None):
    """An HMM's series with its Viterbi path as coloured bands, and the posterior below.

    Top panel: the observations (one line per feature, or the symbol index for categorical
    data) with the Viterbi path (:meth:`decode`; Viterbi 1967) as a band of state colours
    behind them. Middle panel: the posterior state probabilities ``p(z_t = k | x)`` from
    forward-backward (:meth:`predict_proba`; Rabiner 1989, eq. 27), one line per state. For a
    categorical HMM a third panel shows ``emissionprob_`` as a heat map (states x symbols).

    Parameters
    ----------
    model : HiddenMarkovModel (CategoricalHMM, PoissonHMM, GaussianHMM)
        Fitted.
    X : array-like of shape (n_samples, n_features)
    lengths : array-like of int, optional
        Sequence lengths (the posterior is computed on all of X, one sequence after another).
    window : (start, stop), optional
        Time steps to draw (default all); long sequences (DNA, text) are best shown in a window.
    axes : sequence of matplotlib Axes, optional
        Two (three for a categorical HMM); default a new figure.
    symbols : sequence of str, optional
        Names of the categorical symbols (heat-map column labels, and the names on the top
        panel's y ticks, at most 8 of them, when it shows the categorical series).
    feature : int, optional
        Draw only this column of X (default all columns).
    series : array-like of shape (n_samples,) or (n_samples, m), optional
        Draw this in the top panel instead of X (e.g. a running G+C fraction of a DNA sequence,
        whose symbols make a poor line); the states still come from X.
    series_label : str, optional
        y-axis label of the top panel.

    Returns
    -------
    ndarray of matplotlib Axes
        ``[series, posterior]`` (+ ``emission`` for a categorical HMM). The band is
        ``axes[0].images[0]`` (its data are the Viterbi states), named state by state in
        ``axes[0]``'s legend; ``axes[1].lines[k]`` is state k's posterior. Legends sit right
        of the axes.

    Raises
    ------
    ValueError
        An unfitted model, a bad window, or too few axes.

    Examples
    --------
    >>> import numpy as np, latentkit as lk
    >>> X = np.r_[np.zeros(30), np.full(30, 5.0)].reshape(-1, 1)
    >>> X += np.random.default_rng(0).normal(scale=0.5, size=X.shape)
    >>> hmm = lk.GaussianHMM(2, random_state=0).fit(X)
    >>> axes = lk.plotting.plot_hmm(hmm, X)
    >>> len(axes)  # the series with its Viterbi bands, the posteriors below
    2
    """
    _check_fitted(model, "transmat_")
    X = np.asarray(X)
    if X.ndim == 1:
        X = X[:, None]
    states = model.predict(X, lengths)
    post = model.predict_proba(X, lengths)
    n, K = post.shape
    a, b = (0, n) if window is None else (int(window[0]), int(window[1]))
    if not 0 <= a < b <= n:
        raise InputError(f"window must be (start, stop) with 0 <= start < stop <= {n}, "
                         f"got {window!r}.")
    categorical = hasattr(model, "emissionprob_")
    n_panels = 3 if categorical else 2
    if axes is None:
        fig = plt.figure(figsize=(8.0, 5.5 if categorical else 4.5))
        if categorical:
            gs = fig.add_gridspec(3, 1, height_ratios=[1.2, 1.0, 1.0])
        else:
            gs = fig.add_gridspec(2, 1, height_ratios=[1.4, 1.0])
        ax0 = fig.add_subplot(gs[0])
        axes = [ax0, fig.add_subplot(gs[1], sharex=ax0)]
        if categorical:
            axes.append(fig.add_subplot(gs[2]))
    axes = np.asarray(axes, dtype=object).ravel()
    if axes.size < n_panels:
        raise InputError(f"axes must hold {n_panels} Axes for {type(model).__name__}, got "
                         f"{axes.size}.")
    colors = _colors(K)
    t = np.arange(a, b)
    ax = axes[0]
    shown = X if series is None else np.asarray(series, dtype=np.float64).reshape(n, -1)
    cols = range(shown.shape[1]) if feature is None else [int(feature)]
    y = shown[a:b].astype(np.float64)
    for j in cols:
        ax.plot(t, y[:, j], color="k", lw=0.8 if b - a > 200 else 1.2,
                marker="." if b - a <= 200 else None, ms=3)
    lo, hi = np.nanmin(y[:, list(cols)]), np.nanmax(y[:, list(cols)])
    pad = 0.05 * (hi - lo if hi > lo else 1.0)
    from matplotlib.colors import ListedColormap

    ax.imshow(states[a:b][None, :], aspect="auto", cmap=ListedColormap(colors[:, :3]),
              vmin=-0.5, vmax=K - 0.5, alpha=0.35, interpolation="nearest",
              extent=(a - 0.5, b - 0.5, lo - pad, hi + pad), zorder=0)
    ax.set_ylim(lo - pad, hi + pad)
    ax.set_ylabel(series_label or ("symbol" if categorical and series is None else "observation"))
    if categorical and series is None and symbols is not None and X.shape[1] == 1:
        ids = np.arange(0, len(symbols), -(-len(symbols) // 8))  # at most 8 named ticks
        ids = ids[(ids >= lo - pad) & (ids <= hi + pad)]
        ax.set_yticks(ids, [str(symbols[i]) for i in ids])
    ax.set_title(f"{type(model).__name__}: Viterbi path (bands)", fontsize="medium")
    from matplotlib.patches import Patch

    _legend_outside(ax, fontsize="small", title="Viterbi state", handles=[
        Patch(facecolor=colors[k], alpha=0.35, label=f"state {k}") for k in range(K)])
    ax = axes[1]
    for k in range(K):
        ax.plot(t, post[a:b, k], color=colors[k], lw=1.0, label=f"state {k}")
    ax.set(ylim=(-0.02, 1.02), xlabel="time step", ylabel="p(state | data)")
    _legend_outside(ax, fontsize="small")
    if categorical:
        ax = axes[2]
        E = np.asarray(model.emissionprob_, dtype=np.float64)
        im = ax.imshow(E, aspect="auto", cmap="viridis", interpolation="nearest")
        ax.set_yticks(range(K), [f"state {k}" for k in range(K)])
        if symbols is not None and len(symbols) == E.shape[1]:
            ax.set_xticks(range(E.shape[1]), [str(s) for s in symbols])
        ax.set_xlabel("symbol")
        ax.figure.colorbar(im, ax=ax, label="emission probability")
    return axes[:n_panels]
